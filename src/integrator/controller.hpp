// The integrator's step-size controller: the one place where the size of every step of every
// method is chosen (methods only inform it, methods/method.hpp). Its rules:
//
// Starting step (Options::h0 = 0; MethodCapabilities::starting_step), at t0 and after a
// restart (there the smaller of it and the current h):
// Estimate, every method but the BDF: Hairer-Norsett-Wanner I, II.4 (after
// Gladwell-Shampine-Brankin 1987), in the RMS norm of the integrator's error weights over the
// components in the error test, with y'_0 the derivative the method reports
// (Method::derivative: 0 on algebraic components, which have no f-derivative) and k the
// exponent of its error model (Method::error_order):
//   d0 = |y0|, d1 = |y'_0|,  h0 = min(0.01 d0 / d1, |t_end - t0|) (1e-6 if d0 or d1 < 1e-5);
//   probe: y'_1 = y' at (t0 + h0, y0 + h0 y'_0) (Method::derivative_at, one f-evaluation),
//   d2 = |y'_1 - y'_0| / h0 over the components whose y' the form gives without solving (the
//   differential ones of M y' = f with diagonal M; none for implicit and index-2 forms);
//   h1 = (0.01 / max(d1, d2))^(1/k)  (max(1e-6, 1e-3 h0) if max(d1, d2) <= 1e-15);
//   h = min(100 h0, h1, |t_end - t0|).
// It replaced h = 1e-6 (every method but two) and beta-multistep's |t_end - t0|
// min(0.01, 0.05 rtol^(1/(p+1))): on the 25-tolerance sweep without h0 (docs/benchmarks.md)
// they cost more steps and the estimate loses no run.
// Dassl, the BDF (Brenan-Campbell-Petzold 5.2): h = min(0.001 |t_end - t0|, 0.5 / |y'_0|),
// at least 4 eps max(1, |t0|): the small start DASSL's doubling initial phase ramps the order
// up from (the estimate there: fewer steps over the sweep, but less accurate event times after
// restarts and a larger phase error on oscillators).
//
// After an accepted step (StepRule):
//   ErrorPerStep, Options::controller with k the method's error exponent and
//   fac = min(safety, safety * (the method's Newton-effort factor)):
//     Classical (Hairer-Wanner II, IV.8, eq. (8.21)):
//       h_new = h / q,  q = clamp(err^(1/k) / fac, 1/max_increase, max_decrease);
//     Gustafsson (1994), predictive, RADAU5's default: after an accepted step additionally
//       q_pred = (h_acc / h) (err^2 / err_acc)^(1/k) / safety,  q = max(q, q_pred);
//     PI (Gustafsson-Lundh-Soderlind 1988; Hairer-Wanner I, II.4): after an accepted step
//       q = err^(0.7/k) err_acc^(-0.4/k) / fac (clamped), classical after a rejection;
//     h_acc, err_acc the previous accepted step and its error (err_acc >= 1e-2); max_increase
//     is the smaller of Options::max_increase and the method's declared one (StepLimits);
//     no increase right after a rejected or failed attempt.
//   Dassl, from the error estimate est of the order the method chose (Method::next_order):
//     r = (2 est + 1e-4)^(-1/(k+1)); h_new = 2 h if r >= 2, h clamp(r, 0.5, 0.9) if r <= 1,
//     else h; 2 h in the initial phase; no increase right after an error-test failure.
//   Then the holds, in this order: the method's settling (h kept for StepLimits::settle_steps
//   accepted steps after a change), its dead band (ratio in [hold_low, hold_high]), and the
//   reuse band of its factorisation (Method::plan_matrix_reuse: RADAU5's quot1, quot2); last,
//   hmax.
// After an error-test rejection: ErrorPerStep: 0.1 h before the first accepted step, else the
//   controller's proposal; Dassl: h clamp(0.9 (2 est + 1e-4)^(-1/(k+1)), 0.25, 0.9) at the
//   first failure in a row, 0.25 h after.
// After a failed attempt: h times the method's reduction factor (StepAttempt::h_factor).
//
// Each choice is recorded (StepChoice, in the trace: StepTrace::chosen_by). Internal header.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "daekit/integrator/options.hpp"
#include "daekit/methods/registry.hpp"
#include "methods/method.hpp"

namespace daekit {

/// The error-per-step proposals (Classical, Gustafsson, PI) with their memory of the last
/// accepted step.
class ErrorProposal {
 public:
  /// `max_increase`: the bound on h_new / h in use (Options' or the method's smaller one).
  ErrorProposal(const Options& options, double max_increase);
  /// Proposal for the next step after a step of size h with scaled error err.
  double propose(double h, double err, int k, double safety_scale, bool accepted);
  void reset() { have_previous_ = false; }

 private:
  double gustafsson(double h, double err, int k, double fac) const;
  double clamp(double q) const;
  Controller kind_;
  double safety_, max_increase_, max_decrease_;
  bool have_previous_ = false;
  double h_acc_ = 0.0, err_acc_ = 0.0;
};

// (inline: the proposal is formed after every accepted step)
inline ErrorProposal::ErrorProposal(const Options& o, double max_increase)
    : kind_(o.controller),
      safety_(o.safety),
      max_increase_(max_increase),
      max_decrease_(o.max_decrease) {}

inline double ErrorProposal::clamp(double q) const {
  return std::max(1.0 / max_increase_, std::min(max_decrease_, q));
}

// RADAU5's choice max(q, q_pred) (Hairer-Wanner II, IV.8 (8.21)) with
//   q = clamp(err^(1/k) / fac),  q_pred = clamp((h_acc / h) (err^2 / err_acc)^(1/k) / safety);
// for k = 4 the larger one is told by fourth roots through two square roots (within 2 ulps
// of pow's values, decided with a margin of 1e-9) and only it is computed with pow: one
// call instead of two, the same result to the bit (clamp is monotone).
inline double ErrorProposal::gustafsson(double h, double err, int k, double fac) const {
  const double inv_k = 1.0 / k;
  const double ratio = err * err / err_acc_;
  const auto q_exact = [&] { return clamp(std::pow(err, inv_k) / fac); };
  const auto q_pred_exact = [&] { return clamp((h_acc_ / h) * std::pow(ratio, inv_k) / safety_); };
  if (k == 4) {
    const double a = std::sqrt(std::sqrt(err)) / fac;
    const double b = (h_acc_ / h) * std::sqrt(std::sqrt(ratio)) / safety_;
    if (a > b * (1.0 + 1e-9)) return q_exact();
    if (b > a * (1.0 + 1e-9)) return q_pred_exact();
  }
  return std::max(q_exact(), q_pred_exact());
}

inline double ErrorProposal::propose(double h, double err, int k, double safety_scale,
                                     bool accepted) {
  const double inv_k = 1.0 / k;
  const double fac = std::min(safety_, safety_ * safety_scale);
  const bool predictive = accepted && have_previous_ && kind_ == Controller::Gustafsson;
  double q = 0.0;
  if (predictive) {
    q = gustafsson(h, err, k, fac);
  } else {
    q = clamp(std::pow(err, inv_k) / fac);
  }
  if (accepted) {
    if (have_previous_) {
      if (kind_ == Controller::PI) {
        q = clamp(std::pow(err, 0.7 * inv_k) * std::pow(err_acc_, -0.4 * inv_k) / fac);
      }
    }
    have_previous_ = true;
    h_acc_ = h;
    err_acc_ = std::max(1e-2, err);
  }
  return h / q;
}

/// DASSL's step selection (Brenan-Campbell-Petzold 5.2) from the basis the method's order
/// logic reports.
struct DasslStepRule {
  static double after_accept(double h, const StepBasis& b);
  /// `failures`: the error-test failures in a row at this point, this one included.
  static double after_rejection(double h, const StepBasis& b, int failures);

 private:
  static double after_accept_exact(double h, const StepBasis& b);
};

// After an accepted step, r = (2 est + 1e-4)^(-1/k) decides 2 h (r >= 2), h (1 < r < 2) or
// h clamp(r, 0.5, 0.9) (r <= 1): r is monotone in x = 2 est + 1e-4, so x against 2^-k, 1,
// 0.9^-k and 2^k gives every outcome but r in (0.5, 0.9) without pow; pow (after_accept_exact)
// there and where x is within 1e-9 (relative) of a bound, far above pow's error, so the
// result is pow's to the bit. (pow was half the controller's cost on the BDF's small
// problems: one call per step.)
inline double DasslStepRule::after_accept(double h, const StepBasis& b) {
  if (b.start_phase) return 2.0 * h;
  constexpr double kMargin = 1e-9;
  // 2^-k, 0.9^-k, 2^k for k = 0 .. 6 (the BDF's orders 1 .. 5 give k = 2 .. 6)
  static constexpr double kTwoDown[] = {1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625};
  static constexpr double kTwoUp[] = {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0};
  static constexpr double kNinetiethUp[] = {1.0,
                                            1 / 0.9,
                                            1 / (0.9 * 0.9),
                                            1 / (0.9 * 0.9 * 0.9),
                                            1 / (0.9 * 0.9 * 0.9 * 0.9),
                                            1 / (0.9 * 0.9 * 0.9 * 0.9 * 0.9),
                                            1 / (0.9 * 0.9 * 0.9 * 0.9 * 0.9 * 0.9)};
  if (b.k < 1 || b.k > 6) return after_accept_exact(h, b);
  const double x = 2.0 * b.err + 1e-4;
  if (x <= kTwoDown[b.k] * (1.0 - kMargin)) return 2.0 * h;                  // r > 2
  if (x >= kTwoDown[b.k] * (1.0 + kMargin) && x <= 1.0 - kMargin) return h;  // 1 < r < 2
  if (x >= 1.0 + kMargin) {
    if (x >= kTwoUp[b.k] * (1.0 + kMargin)) return h * 0.5;        // r < 0.5
    if (x <= kNinetiethUp[b.k] * (1.0 - kMargin)) return h * 0.9;  // 0.9 < r < 1
  }
  return after_accept_exact(h, b);
}

/// Scratch of the starting rules (sized once: restarts in the step loop allocate nothing).
struct StartScratch {
  Vector yp0, yp1, y1;
};

/// The starting-step estimate (header). `weights` hold the weights at the method's current
/// point; returns |h| (the direction is the caller's).
double estimate_starting_step(Method& method, const ErrorWeights& weights, double t_end,
                              StartScratch& scratch);
/// DASSL's starting step (header).
double dassl_starting_step(const Method& method, const ErrorWeights& weights, double t_end,
                           StartScratch& scratch);

class StepController {
 public:
  /// `limits`: the method's declarations (Method::step_limits()).
  StepController(const Options& options, const MethodCapabilities& caps, const StepLimits& limits);

  /// The first step from the method's current point: Options::h0, or the starting rule; at
  /// most hmax. `dir` is +1 or -1.
  double first_step(Method& method, const ErrorWeights& weights, double t_end, double dir,
                    double hmax);
  /// After the method restarted at its current point (an event action, a model change): the
  /// smaller of |h| and the starting rule there (at a discontinuity, Options::tstops, where h
  /// was cut: the estimate alone, DASSL's not below kRestartFraction |h|), at most hmax
  /// (constant steps: h).
  static constexpr double kRestartFraction = 0.01;
  double after_restart(Method& method, const ErrorWeights& weights, double h, double t_end,
                       double hmax, bool at_discontinuity = false);
  /// An accepted step of size h with attempt `a`, right after Method::accept() (before events
  /// and output): the method's order logic runs and the proposal is formed.
  void accepted(Method& method, double h, const StepAttempt& a);
  /// The size of the step after the accepted one (after its events and output): the proposal
  /// with the holds the method declared or asks for (Method::plan_matrix_reuse), at most hmax.
  double next_after_accept(Method& method, double h, double hmax);
  /// The size to retry with after an error-test rejection of a step of size h.
  double after_rejection(Method& method, double h, const StepAttempt& a, bool before_first_accept);
  /// The size to retry with after a failed attempt (Newton, singular, NaN/Inf).
  double after_failure(double h, const StepAttempt& a);
  /// The last step size was cut (hmax, the end of the interval, a stop time).
  void bounded() { choice_ = StepChoice::Bounded; }
  /// The method restarted: no history of steps (the proposals' memory, the settling count).
  void reset();
  /// The method evaluated its point again after an exact stop (Method::refresh), which may have
  /// restarted its history: the settling count starts again.
  void refreshed();

  /// What chose the current step size.
  StepChoice choice() const { return choice_; }
  /// The rule and limits in use, for Result::step_control.
  std::string describe() const;
  /// The max_increase in use (Options' or the method's smaller one).
  double max_increase() const { return max_increase_; }

 private:
  double starting_rule(Method& method, const ErrorWeights& weights, double t_end);
  double hold(double h, double h_new);

  Options options_;
  MethodCapabilities caps_;
  StepLimits limits_;
  double max_increase_;
  bool declares_holds_;  // the method declares a settling count or a dead band
  ErrorProposal proposal_;
  StepChoice choice_ = StepChoice::Given;
  double h_proposed_ = 0.0;  // the proposal after the last accepted step
  bool retried_ = false;     // a rejected or failed attempt since the last accepted step
  int error_failures_ = 0;   // error-test failures since the last accepted step
  int steps_at_h_ = 0;       // accepted steps since h last changed
  double h_settled_ = 0.0;   // their step size
  double h_first_ = 0.0;     // the first step size and what chose it (describe())
  StepChoice first_choice_ = StepChoice::Given;
  StartScratch scratch_;
};

// (inline: both run after every accepted step; accepted() always, from its one caller)
[[gnu::always_inline]] inline void StepController::accepted(Method& method, double h,
                                                            const StepAttempt& a) {
  if (limits_.settle_steps > 0) {  // the method's settling count: accepted steps at this size
    if (std::abs(h - h_settled_) > 1e-9 * std::abs(h)) steps_at_h_ = 0;
    ++steps_at_h_;
    h_settled_ = h;
  }
  const StepBasis basis = method.next_order(a, true);
  if (caps_.step_rule == StepRule::Dassl) {
    h_proposed_ = DasslStepRule::after_accept(h, basis);
    if (error_failures_ > 0) h_proposed_ = std::min(h_proposed_, h);  // (h > 0 in DASSL's rule)
    choice_ = StepChoice::MethodRule;
  } else {
    h_proposed_ = proposal_.propose(h, basis.err, basis.k, a.safety_scale, true);
    if (retried_) h_proposed_ = (h < 0 ? -1.0 : 1.0) * std::min(std::abs(h_proposed_), std::abs(h));
    choice_ = StepChoice::ErrorControl;
  }
  retried_ = false;
  error_failures_ = 0;
}

inline double StepController::next_after_accept(Method& method, double h, double hmax) {
  double h_new = 0.0;
  if (options_.fixed_step) {
    h_new = (h < 0 ? -1.0 : 1.0) * options_.h0;
    choice_ = StepChoice::Given;
  } else {
    h_new = declares_holds_ ? hold(h, h_proposed_) : h_proposed_;
    const MatrixReuse reuse = method.plan_matrix_reuse();
    if (choice_ != StepChoice::Held && reuse.keeps_factorisation) {
      const double ratio = h_new / h;
      if (ratio >= reuse.low && ratio <= reuse.high) {
        h_new = h;
        choice_ = StepChoice::Held;
        method.matrix_reuse_granted();
      }
    }
  }
  if (std::abs(h_new) > hmax) {
    h_new = (h_new < 0 ? -1.0 : 1.0) * hmax;
    choice_ = StepChoice::Bounded;
  }
  return h_new;
}

}  // namespace daekit
