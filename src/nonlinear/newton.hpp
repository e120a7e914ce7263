// NewtonMonitor: the one convergence monitor of daekit's Newton iterations (every method, the
// consistent initialization, the projections and the index-2 consistency iterations). After
// each iteration the caller passes the norm of the increment; the monitor estimates the
// contraction rate theta, decides converged / continue / failed, and keeps the factor
// theta / (1 - theta) between steps (its memory makes the first iteration of the next step
// testable). Three rate estimates:
//   Successive (Hairer-Wanner IV.8, RADAU5): theta_k = |dx_k| / |dx_{k-1}|, smoothed as
//     sqrt(theta_k theta_{k-1}); the iteration is abandoned early when the error predicted
//     after the remaining iterations, theta/(1-theta) |dx_k| theta^(kmax-1-k), exceeds the
//     tolerance (Settings::predict_slow), with a suggested step factor 0.8 q^(-1/(4+kmax-1-k));
//   FromFirst (Brenan-Campbell-Petzold 5.4, DASSL): theta = (|dx_k| / |dx_0|)^(1/k);
//   None: no rate in the test, for iterations to the round-off level (the projections, the
//     consistency iterations, the algebraic equations of the explicit methods), whose last
//     increments measure rounding, not contraction: converged when |dx_k| <= tolerance (an
//     absolute level the caller may set anew before each iteration, e.g. 4 eps |x|), or, with
//     Settings::stagnation, when |dx_k| <= stagnation and |dx_k| > |dx_{k-1}| / 2 (the
//     increments stopped shrinking at the round-off level); TooSlow, with Settings::slow, from
//     the third iteration when |dx_k| > slow |dx_{k-1}|. The caller may pass a residual norm
//     instead of an increment (iterations that test the residual). theta = |dx_k| / |dx_{k-1}|
//     is reported, never tested.
// Successive and FromFirst: converged when theta/(1-theta) |dx_k| <= tolerance (or |dx_0|
// below a round-off level the caller gives); diverging when theta >= Settings::divergence.
// Every estimate: NonFinite for a norm that is NaN or Inf, MaxIterations at the
// max_iterations-th norm that did not converge. Internal header.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace daekit {

class NewtonMonitor {
 public:
  enum class RateEstimate { Successive, FromFirst, None };
  enum class Verdict { Continue, Converged, Diverging, TooSlow, MaxIterations, NonFinite };

  struct Settings {
    int max_iterations = 7;
    double tolerance = 0.03;  ///< on theta/(1-theta) |dx| (weighted norm)
    RateEstimate rate_estimate = RateEstimate::Successive;
    double divergence = 0.99;   ///< theta at or above this: diverging (not with None)
    bool predict_slow = false;  ///< RADAU5's early abandonment of slow iterations
    /// Successive: the factor's memory between steps, factor <- max(factor, eps)^memory at
    /// the start of a step (RADAU5: 0.8); FromFirst keeps the factor unchanged.
    double memory = 0.8;
    /// None: an increment at or below this level that shrank by less than half converges (the
    /// round-off level of the increments; 0: no such test).
    double stagnation = 0.0;
    /// None: from the third iteration, an increment above slow times the previous one is
    /// TooSlow (0: no such test).
    double slow = 0.0;
  };

  NewtonMonitor() = default;
  explicit NewtonMonitor(const Settings& s) : s_(s) {}
  /// RADAU5's iteration (Hairer-Wanner IV.8): Successive, diverging at theta >= 0.99, slow
  /// iterations abandoned early, the factor's memory 0.8 (the tolerance is the method's).
  static Settings radau5(int max_iterations) {
    Settings s;
    s.max_iterations = max_iterations;
    s.predict_slow = true;
    return s;
  }
  /// RateEstimate::None: converged at a norm <= tolerance, at most max_iterations norms.
  static Settings without_rate(int max_iterations, double tolerance = 0.0) {
    Settings s;
    s.rate_estimate = RateEstimate::None;
    s.max_iterations = max_iterations;
    s.tolerance = tolerance;
    return s;
  }
  const Settings& settings() const { return s_; }
  Settings& settings() { return s_; }

  /// Start of the iteration of one step. `initial_rate`: theta reported if the iteration
  /// converges at once; `roundoff`: a first increment at or below it counts as converged
  /// (FromFirst; 0 = none).
  void begin(double initial_rate, double roundoff = 0.0);
  /// After iteration k (1, 2, ...) with increment norm `norm`.
  Verdict next(double norm) { return next_inlined(norm); }
  /// The same, always inlined (the Newton loops of the IRK engine, where the compiler's
  /// heuristics would otherwise make it a call).
  [[gnu::always_inline]] inline Verdict next_inlined(double norm);
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
  Verdict next_without_rate(double norm);
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
inline NewtonMonitor::Verdict NewtonMonitor::next_inlined(double norm) {
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
  } else if (s_.rate_estimate == RateEstimate::FromFirst) {
    if (k_ == 1) {
      first_norm_ = norm;
      if (norm <= roundoff_) return Verdict::Converged;
    } else {
      rate_ = detail::integer_root(norm / first_norm_, k_ - 1);
      if (rate_ >= s_.divergence) return Verdict::Diverging;
      factor_ = rate_ / (1.0 - rate_);
    }
  } else {
    return next_without_rate(norm);
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

// RateEstimate::None (the tests of the header comment, in the order of the loops they replaced).
inline NewtonMonitor::Verdict NewtonMonitor::next_without_rate(double norm) {
  const double previous = previous_norm_;
  previous_norm_ = norm;
  if (k_ > 1) rate_ = norm / previous;
  if (norm <= s_.tolerance) return Verdict::Converged;
  if (k_ > 1) {
    if (norm <= s_.stagnation && norm > 0.5 * previous) return Verdict::Converged;
    if (s_.slow > 0.0 && k_ >= 3 && norm > s_.slow * previous) return Verdict::TooSlow;
  }
  return k_ >= s_.max_iterations ? Verdict::MaxIterations : Verdict::Continue;
}

const char* to_string(NewtonMonitor::Verdict v);

}  // namespace daekit
