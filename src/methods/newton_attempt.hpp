// NewtonAttempt: a method's Newton iterations over one step attempt, and the one handler of
// their verdicts and of every other failure of an attempt. Every method reports through it.
//
// It wraps the shared monitor (nonlinear/newton.hpp: begin, next, rate, iterations, step_factor
// mean what they mean there, for the current solve), adds up the iterations and the largest
// rate of the attempt's solves (a stage, a half step, a corrector round: attempt_iterations(),
// attempt_rate(), the figures of the trace), and turns a failure into the integrator's
// StepAttempt:
//   verdict         outcome       step factor              detail
//   NonFinite       NonFinite     f                        the linear solver's reason, or
//                                                          "Newton increment not finite"
//   Diverging       NewtonFailed  f                        "Newton diverges"
//   TooSlow         NewtonFailed  the monitor's (RADAU5)   "Newton converges too slowly"
//   MaxIterations   NewtonFailed  f                        "Newton did not converge within
//                                                          max_newton_iterations"
// and any other failure (a callback, a singular matrix, an error estimate that is not finite)
// with the outcome and static text the method gives; f is the method's failure factor (0.5; the
// BDF's 0.25, as DASSL). The outcome becomes CallbackError whenever the guard holds a fatal
// failure; NewtonFailed outcomes count in Stats::nnewton_fail.
//
// The Jacobian after a failure (RADAU5's rule, Hairer-Wanner IV.8): one evaluated at the point
// the step starts from is kept (the retry at a smaller step would evaluate the same one); any
// other is marked invalid, to be evaluated anew at the retry. A method names its validity flag
// and, if its Jacobian can be fresh, the flag that says so (watch_jacobian); the Jacobians of
// the multistep methods (at the predicted value of the failed step, with the BDF's c_j) and of
// the explicit methods' algebraic equations (at a stage) are never fresh for the retry.
// Internal header.
#pragma once

#include <algorithm>

#include "methods/method.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

class NewtonAttempt {
 public:
  NewtonAttempt() = default;
  NewtonAttempt(const NewtonMonitor::Settings& settings, CallGuard& guard, Stats& stats)
      : monitor_(settings), guard_(&guard), stats_(&stats) {}

  // --- the iteration: the monitor's operations on the current solve -----------------------
  NewtonMonitor& monitor() { return monitor_; }
  const NewtonMonitor& monitor() const { return monitor_; }
  NewtonMonitor::Settings& settings() { return monitor_.settings(); }
  /// A new attempt: its iterations and rate start from nothing.
  void begin_attempt() {
    done_iterations_ = 0;
    done_rate_ = 0.0;
    open_ = false;
  }
  /// A solve of the attempt begins (NewtonMonitor::begin); the previous one's figures are kept.
  void begin(double initial_rate, double roundoff = 0.0) {
    close();
    monitor_.begin(initial_rate, roundoff);
    open_ = true;
  }
  NewtonMonitor::Verdict next(double norm) { return monitor_.next(norm); }
  void reset_factor(double factor) { monitor_.reset_factor(factor); }
  int iterations() const { return monitor_.iterations(); }
  double rate() const { return monitor_.rate(); }
  double step_factor() const { return monitor_.step_factor(); }

  /// The attempt's iterations (all its solves) and the largest rate among them.
  int attempt_iterations() const { return done_iterations_ + (open_ ? monitor_.iterations() : 0); }
  double attempt_rate() const { return std::max(done_rate_, open_ ? monitor_.rate() : 0.0); }

  // --- the report ---------------------------------------------------------------------------
  /// The method's Jacobian: `valid` is cleared after a failure unless `fresh` (null: never
  /// fresh) says it was evaluated at the step's start point.
  void watch_jacobian(bool* valid, const bool* fresh = nullptr) {
    jacobian_valid_ = valid;
    jacobian_fresh_ = fresh;
  }
  /// The step factor after failures other than a too slow iteration (default 0.5).
  void set_failure_factor(double factor) { failure_factor_ = factor; }

  /// The verdict v (not Continue or Converged) that ended the current solve; `solve_failure`:
  /// the linear solver's reason for answers that are not finite, or nullptr.
  StepAttempt failure(NewtonMonitor::Verdict v, const char* solve_failure = nullptr);
  /// Any other failure, with the failure factor or the given one.
  StepAttempt failure(AttemptOutcome outcome, const char* detail) {
    return failure(outcome, detail, failure_factor_);
  }
  StepAttempt failure(AttemptOutcome outcome, const char* detail, double h_factor);
  /// The report of an attempt whose equations were solved, with error estimate `err`.
  StepAttempt converged(double err) const {
    StepAttempt a;
    a.err = err;
    a.newton_iterations = attempt_iterations();
    a.newton_rate = attempt_rate();
    return a;
  }

 private:
  void close() {
    if (!open_) return;
    done_iterations_ += monitor_.iterations();
    done_rate_ = std::max(done_rate_, monitor_.rate());
    open_ = false;
  }

  NewtonMonitor monitor_;
  CallGuard* guard_ = nullptr;
  Stats* stats_ = nullptr;
  bool* jacobian_valid_ = nullptr;
  const bool* jacobian_fresh_ = nullptr;
  double failure_factor_ = 0.5;
  int done_iterations_ = 0;
  double done_rate_ = 0.0;
  bool open_ = false;
};

}  // namespace daekit
