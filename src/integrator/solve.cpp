#include "daekit/integrator/solve.hpp"

namespace daekit {

namespace {
Result run(Integrator& it) {
  for (;;) {
    const Integrator::Stop s = it.step();
    if (s == Integrator::Stop::End || s == Integrator::Stop::Failure) break;
  }
  return it.take_result();
}
}  // namespace

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method, const Options& options) {
  Integrator it(dae, t0, t_end, y0, method, options);
  return run(it);
}

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options) {
  return solve(dae, t0, t_end, y0, MethodChoice("radau5"), options);
}

Result solve(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const MethodChoice& method, const Options& options) {
  Integrator it(dae, t0, t_end, y0, yp0, method, options);
  return run(it);
}

Result solve(const ImplicitIndex2Dae& dae, double t0, double t_end, const Vector& x0,
             const MethodChoice& method, const Options& options) {
  Integrator it(dae, t0, t_end, x0, method, options);
  return run(it);
}

}  // namespace daekit
