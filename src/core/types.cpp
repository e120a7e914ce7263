#include "daekit/core/types.hpp"

namespace daekit {

const char* to_string(Status status) {
  switch (status) {
    case Status::Success:
      return "success";
    case Status::UserStop:
      return "user_stop";
    case Status::MaxStepsExceeded:
      return "max_steps_exceeded";
    case Status::StepSizeTooSmall:
      return "step_size_too_small";
    case Status::RepeatedNewtonFailure:
      return "newton_failure";
    case Status::SingularMatrix:
      return "singular_matrix";
    case Status::NonFiniteFunction:
      return "non_finite_function";
    case Status::InconsistentInitialValues:
      return "inconsistent_initial_values";
    case Status::InvalidInput:
      return "invalid_input";
    case Status::TerminalEvent:
      return "terminal_event";
    case Status::RestartFailed:
      return "restart_failed";
    case Status::CallbackError:
      return "callback_error";
    case Status::EventAccumulation:
      return "event_accumulation";
    case Status::Interrupted:
      return "interrupted";
    case Status::Unreliable:
      return "unreliable";
  }
  return "unknown";
}

const char* to_string(Projection projection) {
  switch (projection) {
    case Projection::None:
      return "none";
    case Projection::Velocity:
      return "velocity";
    case Projection::Full:
      return "full";
  }
  return "unknown";
}

}  // namespace daekit
