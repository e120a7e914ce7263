// The failures of a step attempt as the integrator's StepAttempt (methods/newton_attempt.hpp).
#include "methods/newton_attempt.hpp"

namespace daekit {

StepAttempt NewtonAttempt::failure(NewtonMonitor::Verdict v, const char* solve_failure) {
  using Verdict = NewtonMonitor::Verdict;
  if (v == Verdict::NonFinite)
    return failure(AttemptOutcome::NonFinite, solve_failure ? solve_failure : to_string(v));
  return failure(AttemptOutcome::NewtonFailed, to_string(v),
                 v == Verdict::TooSlow ? monitor_.step_factor() : failure_factor_);
}

StepAttempt NewtonAttempt::failure(AttemptOutcome outcome, const char* detail, double h_factor) {
  StepAttempt a;
  a.outcome = guard_->fatal() ? AttemptOutcome::CallbackError : outcome;
  a.h_factor = h_factor;
  a.detail = detail;
  a.newton_iterations = attempt_iterations();
  a.newton_rate = attempt_rate();
  if (outcome == AttemptOutcome::NewtonFailed) ++stats_->nnewton_fail;
  if (jacobian_valid_ && !(jacobian_fresh_ && *jacobian_fresh_)) *jacobian_valid_ = false;
  return a;
}

}  // namespace daekit
