// NewtonMonitor: the one convergence monitor of daekit's simplified Newton iterations (every
// method, the initialization and the projections that iterate with a frozen matrix). After
// each iteration the method passes the weighted norm of the increment; the monitor estimates
// the contraction rate theta, decides converged / continue / failed, and keeps the factor
// theta / (1 - theta) between steps (its memory makes the first iteration of the next step
// testable). Two rate estimates:
//   Successive (Hairer-Wanner IV.8, RADAU5): theta_k = |dx_k| / |dx_{k-1}|, smoothed as
//     sqrt(theta_k theta_{k-1}); the iteration is abandoned early when the error predicted
//     after the remaining iterations, theta/(1-theta) |dx_k| theta^(kmax-1-k), exceeds the
//     tolerance (Settings::predict_slow), with a suggested step factor 0.8 q^(-1/(4+kmax-1-k));
//   FromFirst (Brenan-Campbell-Petzold 5.4, DASSL): theta = (|dx_k| / |dx_0|)^(1/k).
// Converged when theta/(1-theta) |dx_k| <= tolerance (or |dx_0| below a round-off level the
// caller gives). Diverging when theta >= Settings::divergence. Internal header.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace daekit {

class NewtonMonitor {
 public:
  enum class RateEstimate { Successive, FromFirst };
  enum class Verdict { Continue, Converged, Diverging, TooSlow, MaxIterations, NonFinite };

  struct Settings {
    int max_iterations = 7;
    double tolerance = 0.03;  ///< on theta/(1-theta) |dx| (weighted norm)
    RateEstimate rate_estimate = RateEstimate::Successive;
    double divergence = 0.99;   ///< theta at or above this: diverging
    bool predict_slow = false;  ///< RADAU5's early abandonment of slow iterations
    /// Successive: the factor's memory between steps, factor <- max(factor, eps)^memory at
    /// the start of a step (RADAU5: 0.8); FromFirst keeps the factor unchanged.
    double memory = 0.8;
  };

  NewtonMonitor() = default;
  explicit NewtonMonitor(const Settings& s) : s_(s) {}
  const Settings& settings() const { return s_; }
  Settings& settings() { return s_; }

  /// Start of the iteration of one step. `initial_rate`: theta reported if the iteration
  /// converges at once; `roundoff`: a first increment at or below it counts as converged
  /// (FromFirst; 0 = none).
  void begin(double initial_rate, double roundoff = 0.0);
  /// After iteration k (1, 2, ...) with increment norm `norm`.
  Verdict next(double norm);
  /// Forget the factor (a new iteration matrix): FromFirst restarts from `factor`.
  void reset_factor(double factor) {
    factor_ = factor;
    pending_ = false;
  }

  int iterations() const { return k_; }
  /// Current contraction estimate theta.
  double rate() const { return rate_; }
  /// theta / (1 - theta), kept between steps.
  double factor() const { return pending_ ? remembered() : factor_; }
  /// Suggested step-size factor after TooSlow (else 0.5).
  double step_factor() const { return step_factor_; }

 private:
  Settings s_;
  int k_ = 0;
  double rate_ = 0.0, factor_ = 1.0, previous_norm_ = 0.0, first_norm_ = 0.0;
  double previous_ratio_ = 0.0, roundoff_ = 0.0, step_factor_ = 0.5;
  // Successive: begin() leaves factor_ = max(factor, eps) and pending_ set; the power
  // factor_^memory is taken only when a test needs it (remembered()): the first iteration's
  // test is decided without it when factor_ <= 1 and factor_ |dx_1| > tolerance (then
  // factor_^memory >= factor_ for memory <= 1, so the test fails either way)
  bool pending_ = false;
  double remembered() const;
};

namespace detail {
/// x^m for a small m >= 0 by repeated multiplication (m < max_iterations).
inline double integer_power(double x, int m) {
  double r = 1.0;
  for (int i = 0; i < m; ++i) r *= x;
  return r;
}
/// x^(1/m), m >= 1, as pow gives it: no call to pow for m = 1.
inline double integer_root(double x, int m) { return m == 1 ? x : std::pow(x, 1.0 / m); }
}  // namespace detail

// Inline: called once per Newton iteration of every method (a call's cost is a tenth of it).
inline NewtonMonitor::Verdict NewtonMonitor::next(double norm) {
  constexpr double kEps = std::numeric_limits<double>::epsilon();
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
        double predicted = factor_ * norm * detail::integer_power(rate_, m) / s_.tolerance;
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
      rate_ = detail::integer_root(norm / first_norm_, k_ - 1);
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

const char* to_string(NewtonMonitor::Verdict v);

}  // namespace daekit
