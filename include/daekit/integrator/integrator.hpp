// Integrator: the one stepping object of daekit (DESIGN.md, integrator layer). It owns the
// chosen method, the error weights, the step-size controller, retries, the post-step
// projection, events, output and statistics, and the guard around every call into user code.
//
//   Integrator it(dae, t0, t_end, y0, "radau5", options);
//   while (it.step() == Integrator::Stop::InternalStep) { use it.t(), it.y(); }
//   Result r = it.take_result();
//
// The contract (docs/integrator.md; tests/test_conformance.cpp checks it for every method):
// - step() advances by one accepted step (retrying rejected or failed attempts inside) and
//   says what happened in it: End/Failure when the solve ended, else Event when an event was
//   located in the step (recorded in result().events, whatever its action), else OutputTime
//   when the step passed one of Options::output_times, else InternalStep.
// - solve_until(t) steps until t is reached. By default it may step past t and y_at(t) gives
//   the state there from the continuous output (IDA's normal mode); with stop_exactly the last
//   step is shortened to end at t, so that t() == t and y() is the state at t (IDA's tstop).
// - The model changed at the point reached (inputs, parameters read by the callbacks, a jump
//   of the state): model_changed(), set_parameters(p) or reinit(y) restart the method there,
//   discarding every value it keeps from the old model (f, Jacobian, LU, stages, history) and
//   making algebraic components consistent where the method can. They need the integrator to
//   stand at that point: after step(), or after solve_until(t, true).
// - Queries answer only from what was integrated: t() and y() are the last point reached (the
//   root of a terminal event, the last accepted step otherwise); y_at(t) needs t in the step
//   that ended there (or Options::store_dense for earlier steps) and throws InvalidArgument
//   outside [t0, t()]; t values that are NaN, behind the point reached or beyond t_end,
//   a second take_result() and any use of a moved-from Integrator throw InvalidArgument.
// Invalid input (sizes, options, a method that does not take the problem's form) throws
// InvalidArgument from the constructor; numerical trouble ends in Result::status with a
// message, and no exception leaves step().
#pragma once

#include <memory>

#include "daekit/integrator/options.hpp"
#include "daekit/integrator/result.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "daekit/problem/quasi_linear_dae.hpp"

namespace daekit {

class Integrator {
 public:
  enum class Stop {
    InternalStep,  ///< an accepted step (step())
    OutputTime,    ///< the requested time was reached (solve_until())
    Event,         ///< an event was located in the step (Restart: the method restarted)
    End,           ///< t_end reached, a terminal event, or the step callback stopped it
    Failure,       ///< the solve failed: result().status and message say why
  };

  /// M y' = f(t, y) on [t0, t_end] from y0 (radau5 unless another method is chosen). The
  /// method "auto" (here and for ImplicitDae and QuasiLinearDae) is resolved by auto_method
  /// (registry.hpp) from the form, the index tags and options.rtol: result().method names the
  /// method chosen and result().method_choice the rule.
  Integrator(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method = "radau5", const Options& options = {});
  /// F(t, y, y') = 0 on [t0, t_end] from consistent y0, yp0 (bdf unless another is chosen).
  Integrator(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const MethodChoice& method = "bdf", const Options& options = {});
  /// (a(t, y))' = f(t, y, z), 0 = g(t, y) on [t0, t_end] from consistent x0 = (y0, z0) (spark
  /// unless another method is chosen); the state is x = (y, z).
  Integrator(const ImplicitIndex2Dae& dae, double t0, double t_end, const Vector& x0,
             const MethodChoice& method = "spark", const Options& options = {});
  /// M(t, y) y' = f(t, y) on [t0, t_end] from consistent y0 (radau5 unless another method is
  /// chosen), through one of the exact reformulations of problem/quasi_linear_dae.hpp: methods
  /// that take F(t, y, y') = 0 (bdf) solve to_implicit_form, F = M(t, y) y' - f, of size n (no
  /// unknowns added; y0' from initial_values()); the others solve to_mass_matrix_form, whose
  /// state x = (y, y_D') has n + d components (y_D' the derivatives of the d differential
  /// components, from initial_values()). Options are those of the n components of y
  /// (atol_vector of size n: each y_D' gets the atol of its component); while stepping, y()
  /// and the callbacks (events, step callback, trace) see the state of the reformulation, whose
  /// first n components are y; the finished Result holds y only (the y_D' dropped from y, yp,
  /// the stored steps, outputs, events and dense segments).
  Integrator(const QuasiLinearDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method = "radau5", const Options& options = {});
  ~Integrator();
  Integrator(Integrator&&) noexcept;
  Integrator& operator=(Integrator&&) noexcept;

  Stop step();
  /// Steps until t (in [the point reached, t_end]) is reached; y_at(t) then gives the state
  /// there. With stop_exactly the integration stops at t itself (t() == t afterwards); if an
  /// earlier call already stepped past t, that throws InvalidArgument. Returns OutputTime when
  /// t was reached and the solve goes on, End or Failure when it ended (at or before t).
  Stop solve_until(double t, bool stop_exactly = false);
  bool finished() const;

  /// The model changed at the current point t(): restart the method there (see above). False
  /// if the restart failed (the solve has then ended: result() says why).
  bool model_changed();
  /// model_changed() with new parameters p (the solve's copy; same size as before).
  bool set_parameters(const Vector& p);
  /// model_changed() with a new state y at t() (as IDAReInit); the algebraic components are
  /// made consistent again where the method can.
  bool reinit(const Vector& y);
  /// The parameters the callbacks see (the solve's copy).
  const Vector& parameters() const;

  double t() const;         ///< the point reached (the root after a terminal event)
  const Vector& y() const;  ///< state at t()
  /// The continuous solution at t: from the step that ended at t() (exact at its ends), or from
  /// the stored steps (Options::store_dense); InvalidArgument outside what was integrated.
  Vector y_at(double t) const;
  /// The continuous output of the last accepted step (what Options::store_dense keeps per
  /// step; the adjoint's checkpointing stores it); InvalidArgument before the first step.
  DenseSegment last_segment() const;
  const Result& result() const;
  /// Moves the result out (statistics and CPU time final); the integrator is finished after.
  Result take_result();

 private:
  struct Impl;
  Impl& impl() const;  ///< throws InvalidArgument for a moved-from Integrator
  std::unique_ptr<Impl> impl_;
};

}  // namespace daekit
