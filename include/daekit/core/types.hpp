// Basic types shared by every layer of daekit: vectors, matrices, the status of a solve and
// its statistics. Nothing here knows about a particular DAE form or method.
#pragma once

#include <Eigen/Dense>
#include <stdexcept>
#include <string>

#include "daekit/core/stats.hpp"

namespace daekit {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;
/// Read-only vector argument of a user callback (no copy for Eigen vectors and blocks).
using VecIn = Eigen::Ref<const Eigen::VectorXd>;
/// Writable vector argument of a user callback (the solver owns the storage).
using VecOut = Eigen::Ref<Eigen::VectorXd>;
/// Writable matrix argument of a user callback (the solver owns the storage).
using MatOut = Eigen::Ref<Eigen::MatrixXd>;

/// Outcome of a solve. Everything except Success comes with a message in Result::message.
enum class Status {
  Success,                    ///< reached t_end
  UserStop,                   ///< a callback asked to stop before t_end
  MaxStepsExceeded,           ///< Options::max_steps reached
  StepSizeTooSmall,           ///< h fell below round-off level relative to t
  RepeatedNewtonFailure,      ///< Newton did not converge even for tiny steps
  SingularMatrix,             ///< iteration matrix singular, shrinking h did not help
  NonFiniteFunction,          ///< user function kept returning NaN/Inf
  InconsistentInitialValues,  ///< constraints not satisfied at t0
  InvalidInput,               ///< sizes or options wrong (detected before integration)
  TerminalEvent,              ///< stopped at a terminal event (Result::events says which)
  RestartFailed,              ///< re-initialisation after an event found no consistent values
  CallbackError,              ///< a user callback threw, or returned output of the wrong size
  EventAccumulation,          ///< events accumulated at a point (Zeno behaviour): the solve
                              ///< stopped before it, where the events still were resolved
  Interrupted,                ///< Options::interrupt asked to stop (Ctrl-C in Python)
  Unreliable,                 ///< the solve's own checks found the answer untrustworthy (a
                              ///< blow-up within a few steps, an error estimate that
                              ///< contradicts the Newton increments: the message says which)
};

/// Short stable identifier of a status, e.g. "success", "max_steps_exceeded" (used in JSON).
const char* to_string(Status status);

/// Projection after each accepted step onto the constraint manifold (paper 000, Section 2):
/// Velocity is the reduced projection (2.8) onto the velocity constraint G(q) v = 0 at fixed q
/// (enough for stiffly accurate methods, whose q already satisfies g(q) = 0); Full is (2.7):
/// positions onto g(q) = 0, then velocities. Multipliers are never projected.
enum class Projection { None, Velocity, Full };
const char* to_string(Projection projection);


/// Thrown for programming errors found before the integration starts (wrong sizes, bad
/// options). Numerical trouble during the integration never throws: it ends in a Status.
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Thrown by a user callback (f, a Jacobian, an event function, a projector, ...) to say that it
/// cannot be evaluated at this point but a smaller step may help (for instance an argument
/// outside the model's domain): the solver rejects the step and retries with a smaller one, as
/// for NaN/Inf output. Any other exception from a callback ends the solve at once with
/// Status::CallbackError and a message naming the callback, t and the exception's text.
class RecoverableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Numerical failure outside a step (e.g. NaN from f at t0): the integrator turns it into a
/// Result with `status`; it never reaches the user.
class NumericalFailure : public std::runtime_error {
 public:
  NumericalFailure(Status status, const std::string& message)
      : std::runtime_error(message), status(status) {}
  Status status;
};

}  // namespace daekit
