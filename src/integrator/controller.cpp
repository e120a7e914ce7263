#include "integrator/controller.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace daekit {

namespace {

std::string number(double x) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3g", x);
  return s;
}

}  // namespace

const char* to_string(StepRule rule) {
  switch (rule) {
    case StepRule::ErrorPerStep:
      return "error per step";
    case StepRule::Dassl:
      return "DASSL's order and step selection";
  }
  return "?";
}

const char* to_string(StartingStep rule) {
  switch (rule) {
    case StartingStep::Estimate:
      return "estimated, Hairer-Norsett-Wanner I, II.4";
    case StartingStep::Dassl:
      return "DASSL's";
  }
  return "?";
}

const char* to_string(StepChoice choice) {
  switch (choice) {
    case StepChoice::Given:
      return "given";
    case StepChoice::Estimated:
      return "estimated";
    case StepChoice::ErrorControl:
      return "error control";
    case StepChoice::MethodRule:
      return "method rule";
    case StepChoice::Held:
      return "held";
    case StepChoice::AfterRejection:
      return "after rejection";
    case StepChoice::AfterFailure:
      return "after failure";
    case StepChoice::Bounded:
      return "bounded";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// DASSL's rule (Brenan-Campbell-Petzold 5.2, DDASTP blocks 6 and 9).

double DasslStepRule::after_accept_exact(double h, const StepBasis& b) {
  const double r = std::pow(2.0 * b.err + 1e-4, -1.0 / b.k);
  if (r >= 2.0) return 2.0 * h;
  if (r <= 1.0) return h * std::clamp(r, 0.5, 0.9);
  return h;
}

double DasslStepRule::after_rejection(double h, const StepBasis& b, int failures) {
  if (failures == 1) {
    const double r = 0.9 * std::pow(2.0 * b.err + 1e-4, -1.0 / b.k);
    return h * std::clamp(r, 0.25, 0.9);
  }
  return 0.25 * h;
}

// ---------------------------------------------------------------------------------------------
// Starting steps.

double estimate_starting_step(Method& method, const ErrorWeights& weights, double t_end,
                              StartScratch& scratch) {
  const double t0 = method.t();
  const Vector& y0 = method.y();
  const double span = std::abs(t_end - t0);
  const double dir = t_end >= t0 ? 1.0 : -1.0;
  const Eigen::Index n = y0.size();
  Vector &yp0 = scratch.yp0, &yp1 = scratch.yp1, &y1 = scratch.y1;
  yp0.resize(n);
  yp1.resize(n);
  y1.resize(n);
  method.derivative(yp0);
  const double d0 = weights.norm(y0), d1 = weights.norm(yp0);
  const double h0 = std::min(d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1, span);
  // the explicit Euler probe: the change of y' over h0 (where the form gives y' directly)
  double d2 = 0.0;
  y1 = y0 + (dir * h0) * yp0;
  yp1 = yp0;  // components the form gives no y' for do not change
  if (method.derivative_at(t0 + dir * h0, y1, yp1)) {
    yp1 -= yp0;
    d2 = weights.norm(yp1) / h0;
    if (!std::isfinite(d2)) d2 = 0.0;
  }
  const double d = std::max(d1, d2);
  const int k = std::max(method.error_order(), 1);
  const double h1 = d <= 1e-15 ? std::max(1e-6, 1e-3 * h0) : std::pow(0.01 / d, 1.0 / k);
  double h = std::min(100.0 * h0, h1);
  if (!std::isfinite(h) || h <= 0.0) h = 1e-6;
  // at least what t resolves (DASSL's floor 4 eps max(1, |t0|))
  constexpr double eps = std::numeric_limits<double>::epsilon();
  h = std::max(h, 4 * eps * std::max(1.0, std::abs(t0)));
  return std::min(h, span);
}

double dassl_starting_step(const Method& method, const ErrorWeights& weights, double t_end,
                           StartScratch& scratch) {
  const double t0 = method.t();
  Vector& yp0 = scratch.yp0;
  yp0.resize(method.y().size());
  method.derivative(yp0);
  double h = 1e-3 * std::abs(t_end - t0);
  const double ypnorm = weights.norm(yp0);
  if (ypnorm > 0.5 / h) h = 0.5 / ypnorm;
  constexpr double eps = std::numeric_limits<double>::epsilon();
  return std::max(h, 4 * eps * std::max(1.0, std::abs(t0)));
}

double StepController::starting_rule(Method& method, const ErrorWeights& weights, double t_end) {
  if (caps_.starting_step == StartingStep::Dassl)
    return dassl_starting_step(method, weights, t_end, scratch_);
  return estimate_starting_step(method, weights, t_end, scratch_);
}

// ---------------------------------------------------------------------------------------------

StepController::StepController(const Options& options, const MethodCapabilities& caps,
                               const StepLimits& limits)
    : options_(options),
      caps_(caps),
      limits_(limits),
      max_increase_(std::min(options.max_increase, limits.max_increase)),
      declares_holds_(limits.settle_steps > 0 || limits.hold_low <= limits.hold_high),
      proposal_(options, max_increase_) {}

double StepController::first_step(Method& method, const ErrorWeights& weights, double t_end,
                                  double dir, double hmax) {
  double h = 0.0;
  if (options_.h0 > 0) {
    h = options_.h0;
    choice_ = StepChoice::Given;
  } else {
    h = std::abs(starting_rule(method, weights, t_end));
    choice_ = StepChoice::Estimated;
  }
  if (h > hmax) {
    h = hmax;
    choice_ = StepChoice::Bounded;
  }
  h_first_ = h;
  first_choice_ = choice_;
  return dir * h;
}

double StepController::after_restart(Method& method, const ErrorWeights& weights, double h,
                                     double t_end, double hmax, bool at_discontinuity) {
  reset();
  const double dir = h < 0 ? -1.0 : 1.0;
  double start =
      options_.fixed_step ? std::abs(h) : std::abs(starting_rule(method, weights, t_end));
  // At a discontinuity (Options::tstops), where the solution is continuous: DASSL's start,
  // 0.5 / |y'| in the weights, is tiny where y' is large against atol (1e-16 on the charge pump,
  // whose charges have atol 1e-18), and the BDF climbs back from it at order 1 by doublings, a
  // new iteration matrix each (24 steps, 10.75 Jacobians per restart on vanderpol with 20
  // tstops): it restarts from at least kRestartFraction of the step before (14 steps, 6.1
  // Jacobians; docs/results/switches.md). Not after events: a state that jumped (the bouncing
  // ball's velocity) needs DASSL's start, whose accuracy locates the next event.
  if (at_discontinuity && caps_.starting_step == StartingStep::Dassl && !options_.fixed_step)
    start = std::max(start, kRestartFraction * std::abs(h));
  // At a discontinuity (Options::tstops) the step before was cut to land there: the estimate
  // alone, as at a start (the pulse train's 40 corners cost the f-evaluations of 41 separate
  // solves with it, 0.2 % more with the cut step as a bound).
  // The starting rules' floors are absolute (4 eps max(1, |t|), the estimate's 1e-6 where y'
  // is small): at a restart late in a long interval (Robertson at t = 4.8e10, a tstop) they gave
  // 1e-4, below the smallest step t resolves there (10 eps |t|), and the solve ended. Not below
  // 1000 times that (the integrator's own measure of a step too small to make progress).
  if (!options_.fixed_step)
    start =
        std::max(start, 1e3 * 10.0 * std::numeric_limits<double>::epsilon() * std::abs(method.t()));
  const bool estimate_only =
      at_discontinuity && caps_.starting_step == StartingStep::Estimate && !options_.fixed_step;
  if (estimate_only || start < std::abs(h)) {
    h = dir * start;
    choice_ = StepChoice::Estimated;
  } else {
    choice_ = options_.fixed_step ? StepChoice::Given : StepChoice::Held;  // the last step's size
  }
  if (std::abs(h) > hmax) {
    h = dir * hmax;
    choice_ = StepChoice::Bounded;
  }
  return h;
}

// The method's declared holds: settling after a change of h, then its dead band.
double StepController::hold(double h, double h_new) {
  if (steps_at_h_ < limits_.settle_steps) {
    choice_ = StepChoice::Held;
    return h;
  }
  const double ratio = std::abs(h_new / h);
  if (ratio >= limits_.hold_low && ratio <= limits_.hold_high) {
    choice_ = StepChoice::Held;
    return h;
  }
  return h_new;
}

double StepController::after_rejection(Method& method, double h, const StepAttempt& a,
                                       bool before_first_accept) {
  retried_ = true;
  ++error_failures_;
  choice_ = StepChoice::AfterRejection;
  const StepBasis basis = method.next_order(a, false);
  if (caps_.step_rule == StepRule::Dassl)
    return DasslStepRule::after_rejection(h, basis, error_failures_);
  if (before_first_accept) return 0.1 * h;
  return proposal_.propose(h, basis.err, basis.k, a.safety_scale, false);
}

double StepController::after_failure(double h, const StepAttempt& a) {
  retried_ = true;
  choice_ = StepChoice::AfterFailure;
  return h * a.h_factor;
}

void StepController::reset() {
  proposal_.reset();
  refreshed();
  retried_ = false;
  error_failures_ = 0;
}

void StepController::refreshed() {
  steps_at_h_ = 0;
  h_settled_ = 0.0;
}

std::string StepController::describe() const {
  if (options_.fixed_step) return "constant steps h = " + number(options_.h0);
  std::string s;
  if (caps_.step_rule == StepRule::ErrorPerStep) {
    s = std::string(to_string(options_.controller)) + " (safety " + number(options_.safety) +
        ", h_new/h in [1/" + number(options_.max_decrease) + ", " + number(max_increase_) + "]";
    if (limits_.max_increase < options_.max_increase)
      s += std::string("; max_increase ") + number(limits_.max_increase) + ": " +
           limits_.max_increase_reason;
    s += ")";
  } else {
    s = to_string(caps_.step_rule);
  }
  if (limits_.hold_low <= limits_.hold_high)
    s += "; h kept for ratios in [" + number(limits_.hold_low) + ", " + number(limits_.hold_high) +
         "]: " + limits_.hold_reason;
  if (limits_.settle_steps > 0)
    s += "; h kept for " + std::to_string(limits_.settle_steps) +
         " steps after a change: " + limits_.settle_reason;
  s += std::string("; first step ") + number(h_first_) + " (" +
       (first_choice_ == StepChoice::Estimated ? to_string(caps_.starting_step)
                                               : to_string(first_choice_)) +
       ")";
  return s;
}

}  // namespace daekit
