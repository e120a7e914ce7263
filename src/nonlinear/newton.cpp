#include "nonlinear/newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace daekit {

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();
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
      return "Newton did not converge within max_newton_iterations";
    case NewtonMonitor::Verdict::NonFinite:
      return "Newton increment not finite";
  }
  return "?";
}

}  // namespace daekit
