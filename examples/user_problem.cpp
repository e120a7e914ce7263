// A user-defined stiff DAE solved with radau5 (the example of README.md; keep both identical).
//   y' = -1000 (y - cos t) - z,   0 = z - y^2   (index 1: z is algebraic), y(0) = z(0) = 1.
#include <cmath>
#include <cstdio>

#include "daekit/integrator/solve.hpp"

int main() {
  using namespace daekit;
  MassMatrixDae dae;
  dae.name = "stiff index-1 example";
  dae.n = 2;
  dae.mass = Matrix::Zero(2, 2);
  dae.mass(0, 0) = 1.0;  // second row of M is zero: 0 = f_2(t, y) is an algebraic equation
  dae.component_names = {"y", "z"};
  dae.f = [](double t, VecIn y, VecOut f) {
    f[0] = -1000.0 * (y[0] - std::cos(t)) - y[1];
    f[1] = y[1] - y[0] * y[0];
  };  // no dae.jacobian given: finite differences
  Vector y0(2);
  y0 << 1.0, 1.0;  // consistent: z0 = y0^2
  Options options;
  options.rtol = options.atol = 1e-8;
  const Result r = solve(dae, 0.0, 10.0, y0, Radau5Options{}, options);
  std::printf("%s", r.report().c_str());
  std::printf("y(10) = %.8f, z(10) = %.8f\n", r.y[0], r.y[1]);
  return r.ok() ? 0 : 1;
}
