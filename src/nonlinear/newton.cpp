#include "nonlinear/newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace daekit {

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();

/// x^m for a small m >= 0 by repeated multiplication (m < max_iterations).
double integer_power(double x, int m) {
  double r = 1.0;
  for (int i = 0; i < m; ++i) r *= x;
  return r;
}

/// x^(1/m), m >= 1, as pow gives it: no call to pow for m = 1.
double integer_root(double x, int m) { return m == 1 ? x : std::pow(x, 1.0 / m); }
}  // namespace

void NewtonMonitor::begin(double initial_rate, double roundoff) {
  k_ = 0;
  rate_ = initial_rate;
  roundoff_ = roundoff;
  step_factor_ = 0.5;
  previous_norm_ = first_norm_ = previous_ratio_ = 0.0;
  if (s_.rate_estimate == RateEstimate::Successive) {
    if (pending_) factor_ = remembered();  // the previous step's factor, never tested
    factor_ = std::max(factor_, kEps);
    pending_ = true;
  }
}

double NewtonMonitor::remembered() const { return std::pow(factor_, s_.memory); }

NewtonMonitor::Verdict NewtonMonitor::next(double norm) {
  ++k_;
  step_factor_ = 0.5;
  if (!std::isfinite(norm)) return Verdict::NonFinite;
  const int kmax = s_.max_iterations;
  if (s_.rate_estimate == RateEstimate::Successive) {
    if (k_ > 1 && k_ < kmax) {
      const double ratio = norm / previous_norm_;
      rate_ = k_ == 2 ? ratio : std::sqrt(ratio * previous_ratio_);
      previous_ratio_ = ratio;
      if (rate_ >= s_.divergence) return Verdict::Diverging;
      factor_ = rate_ / (1.0 - rate_);
      pending_ = false;
      if (s_.predict_slow) {
        // rate^m by multiplication (within m ulps of pow); pow only to decide near the
        // threshold, so the decision is exactly the one pow would give
        const int m = kmax - 1 - k_;
        double predicted = factor_ * norm * integer_power(rate_, m) / s_.tolerance;
        if (predicted >= 1.0 - 1e-12)
          predicted = factor_ * norm * std::pow(rate_, m) / s_.tolerance;
        if (predicted >= 1.0) {
          const double q = std::clamp(predicted, 1e-4, 20.0);
          step_factor_ = 0.8 * std::pow(q, -1.0 / (4.0 + kmax - 1 - k_));
          return Verdict::TooSlow;
        }
      }
    }
    previous_norm_ = std::max(norm, kEps);
  } else {
    if (k_ == 1) {
      first_norm_ = norm;
      if (norm <= roundoff_) return Verdict::Converged;
    } else {
      rate_ = integer_root(norm / first_norm_, k_ - 1);
      if (rate_ >= s_.divergence) return Verdict::Diverging;
      factor_ = rate_ / (1.0 - rate_);
    }
  }
  if (pending_) {
    if (factor_ <= 1.0 && s_.memory > 0.0 && s_.memory <= 1.0 && factor_ * norm > s_.tolerance)
      return k_ >= kmax ? Verdict::MaxIterations : Verdict::Continue;
    factor_ = remembered();
    pending_ = false;
  }
  if (factor_ * norm <= s_.tolerance) return Verdict::Converged;
  return k_ >= kmax ? Verdict::MaxIterations : Verdict::Continue;
}

const char* to_string(NewtonMonitor::Verdict v) {
  switch (v) {
    case NewtonMonitor::Verdict::Continue:
      return "continue";
    case NewtonMonitor::Verdict::Converged:
      return "converged";
    case NewtonMonitor::Verdict::Diverging:
      return "Newton diverges";
    case NewtonMonitor::Verdict::TooSlow:
      return "Newton converges too slowly";
    case NewtonMonitor::Verdict::MaxIterations:
      return "Newton did not converge within the maximum number of iterations";
    case NewtonMonitor::Verdict::NonFinite:
      return "Newton increment not finite";
  }
  return "?";
}

}  // namespace daekit
