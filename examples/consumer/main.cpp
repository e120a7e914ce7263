// Consumer of an installed daekit (find_package(daekit)): the Prothero-Robinson problem with an
// algebraic companion, solved with radau5 and checked against the exact solution,
//   y' = -1e4 (y - sin t) + cos t,   0 = z - 2 y,   y(0) = z(0) = 0;   y = sin t, z = 2 sin t.
// Exits 0 only if the solve succeeds and the error at t = 10 is below 1e-6.
#include <cmath>
#include <cstdio>

#include "daekit/integrator/solve.hpp"

int main() {
  using namespace daekit;
  MassMatrixDae dae;
  dae.name = "prothero-robinson with algebraic z";
  dae.n = 2;
  dae.mass = Matrix::Zero(2, 2);
  dae.mass(0, 0) = 1.0;
  dae.f = [](double t, VecIn y, VecOut f) {
    f[0] = -1e4 * (y[0] - std::sin(t)) + std::cos(t);
    f[1] = y[1] - 2.0 * y[0];
  };
  dae.jacobian = [](double, VecIn, MatOut J) {
    J(0, 0) = -1e4;
    J(1, 0) = -2.0;
    J(1, 1) = 1.0;
  };
  Options options;
  options.rtol = options.atol = 1e-9;
  const double t_end = 10.0;
  const Result r = solve(dae, 0.0, t_end, Vector::Zero(2), Radau5Options{}, options);
  std::printf("%s", r.report().c_str());
  if (!r.ok()) {
    std::printf("FAILED: status %s\n", to_string(r.status));
    return 1;
  }
  const double err =
      std::max(std::abs(r.y[0] - std::sin(t_end)), std::abs(r.y[1] - 2.0 * std::sin(t_end)));
  std::printf("max error at t = %g: %.3e\n", t_end, err);
  if (!(err < 1e-6)) {
    std::printf("FAILED: error too large\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
