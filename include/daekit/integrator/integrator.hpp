// Integrator: the one stepping object of daekit (DESIGN.md, integrator layer). It owns the
// chosen method, the error weights, the step-size controller, retries, the post-step
// projection, events, output and statistics, and the guard around every call into user code.
//
//   Integrator it(dae, t0, t_end, y0, "radau5", options);
//   while (it.step() == Integrator::Stop::InternalStep) { use it.t(), it.y(); }
//   Result r = it.take_result();
//
// step() advances by one accepted step (retrying rejected or failed attempts inside) and says
// why it returned; solve_until(t) steps until t is passed and leaves the interpolated state at
// t in y_at(t); solve() (solve.hpp) is a loop over step(). Invalid input (sizes, options, a
// method that does not take the problem's form) throws InvalidArgument from the constructor;
// everything else ends in Result::status with a message, and no exception leaves step().
#pragma once

#include <memory>

#include "daekit/integrator/options.hpp"
#include "daekit/integrator/result.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

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

  /// M y' = f(t, y) on [t0, t_end] from y0 (radau5 unless another method is chosen).
  Integrator(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method = "radau5", const Options& options = {});
  /// F(t, y, y') = 0 on [t0, t_end] from consistent y0, yp0 (bdf unless another is chosen).
  Integrator(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const MethodChoice& method = "bdf", const Options& options = {});
  /// (a(t, y))' = f(t, y, z), 0 = g(t, y) on [t0, t_end] from consistent x0 = (y0, z0) (spark
  /// unless another method is chosen); the state is x = (y, z).
  Integrator(const ImplicitIndex2Dae& dae, double t0, double t_end, const Vector& x0,
             const MethodChoice& method = "spark", const Options& options = {});
  ~Integrator();
  Integrator(Integrator&&) noexcept;
  Integrator& operator=(Integrator&&) noexcept;

  Stop step();
  /// Steps until t (within [current t, t_end]) is reached; y_at(t) then gives the state there.
  Stop solve_until(double t);
  bool finished() const;

  double t() const;         ///< current (last accepted) time
  const Vector& y() const;  ///< state at t()
  /// The continuous output over the last accepted step (exact at its ends).
  Vector y_at(double t) const;
  const Result& result() const;
  /// Moves the result out (statistics and CPU time final); the integrator is finished after.
  Result take_result();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace daekit
