// The contract between a one-step or multistep method and the shared integrator loop.
//
// A method takes single steps from its current point (t, y): `attempt(h)` solves the step
// equations and estimates the local error; the integrator decides, from the scaled error norm
// `err` (accept when err < 1), whether to call `accept()` and which step size to try next. The
// method owns its Jacobian/LU reuse policy and may keep the step size unchanged through
// `adjust_step` when that saves a factorisation (RADAU5's dead band). Numerical trouble is
// reported as an AttemptOutcome, never thrown.
#pragma once

#include <string>

#include "daekit/core/dense_output.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

/// Tolerances as the integrator hands them to a method: rtol scalar, atol per component.
struct Tolerances {
  double rtol = 1e-6;
  Vector atol;
};

enum class AttemptOutcome {
  Converged,     ///< step equations solved; `err` is meaningful
  NewtonFailed,  ///< Newton diverged or was too slow: retry with h * h_factor
  Singular,      ///< iteration matrix singular: retry with h * h_factor
  NonFinite,     ///< a user function returned NaN/Inf: retry with h * h_factor
};

struct StepAttempt {
  AttemptOutcome outcome = AttemptOutcome::Converged;
  double err = 0.0;           ///< scaled error norm (accept if < 1)
  double h_factor = 0.5;      ///< suggested step reduction when not converged
  double safety_scale = 1.0;  ///< multiplies the controller's safety factor (Newton effort)
  const char* detail = "";    ///< what went wrong (static text: no allocation in the loop)
};

class Stepper {
 public:
  virtual ~Stepper() = default;
  virtual const char* name() const = 0;
  /// Order of the method for the step just taken (variable-order methods: current order).
  virtual int order() const = 0;
  /// Exponent k of the error model err ~ C h^k used by the step-size controller.
  virtual int error_order() const = 0;
  /// False for methods without an error estimate: they run only with Options::fixed_step.
  virtual bool has_error_estimate() const { return true; }
  /// Prepare to integrate from (t0, y0). Throws InvalidArgument for bad input.
  virtual void start(double t0, const Vector& y0, const Tolerances& tol) = 0;
  /// Attempt a step of size h (signed) from the current point.
  virtual StepAttempt attempt(double h) = 0;
  /// Commit the last converged attempt: the current point moves to t + h.
  virtual void accept() = 0;
  /// Step size to use next, given the controller's proposal for it (default: the proposal).
  virtual double adjust_step(double h_last, double h_proposed) {
    (void)h_last;
    return h_proposed;
  }
  /// Step size to retry with after an error-test rejection of a step of size h, given the
  /// controller's proposal (methods with their own order/step logic, e.g. BDF, override this).
  virtual double step_after_reject(double h, double h_proposed) {
    (void)h;
    return h_proposed;
  }
  /// Initial step size when the user gives none (t_end: end of the interval).
  virtual double initial_step(double t_end) {
    (void)t_end;
    return 1e-6;
  }
  virtual double t() const = 0;
  virtual const Vector& y() const = 0;
  /// Dense output over the last accepted step (valid after the first accept()).
  virtual void dense(double t, VecOut out) const = 0;
  /// Derivative of the dense output over the last accepted step (default: central
  /// difference of dense()).
  virtual void dense_derivative(double t, VecOut out) const;
  /// Restart at (t, y) after an event changed the state or the model: make the algebraic part
  /// consistent where the method can, and start afresh (BDF: order 1). Returns false with a
  /// message if no consistent state was found.
  virtual bool restart(double t, const Vector& y, std::string& message) = 0;
  /// Copy of the last step's interpolant (allocates: only used when the user stores it).
  virtual DenseSegment segment() const = 0;
  virtual const Stats& stats() const = 0;
};

}  // namespace daekit
