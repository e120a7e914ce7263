// Truck wheel suspension of the DTU lecture notes (004_cf00f948f14222cf.txt, ch. 9.5.1,
// eqs. (9.5)/(9.6); Bendtsen and Thomsen (1999), ch. 9): chassis mass m1 on a spring k1 and damper
// f above the wheel mass m2, which rests on the tyre spring k2 over the road height z:
//   m1 y1'' + f (y1' - y2') + k1 (y1 - y2) = 0,
//   m2 y2'' + f (y2' - y1') + k1 (y2 - y1) + k2 (y2 - z) = 0,
// in first-order form (9.6) with v = y' and identity mass: y = (y1, y2, v1, v2),
//   y1' = v1, y2' = v2, v1' = -(f (v1 - v2) + k1 (y1 - y2))/m1,
//   v2' = -(f (v2 - v1) + k1 (y2 - y1) + k2 (y2 - z))/m2.
// m1 = 500, m2 = 50, k1 = 7500, k2 = 150000, f = 2250, z = 0; y(0) = (-0.05, 0, 0, 0) (Figs. 9.4,
// 9.5). The notes give no interval (their Fig. 9.6 shows the oscillation dying out after a few
// seconds); we take t in [0, 1]. Linear, so there is no published reference: the tests compare
// with the exact solution exp(A t) y0.
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double m1 = 500.0, m2 = 50.0, k1 = 7500.0, k2 = 150000.0, damping = 2250.0, z = 0.0;
}  // namespace

BuiltinProblem truck_suspension() {
  BuiltinProblem p;
  p.name = "truck";
  p.title = "Truck wheel suspension, linear ODE (notes ch. 9, (9.5)/(9.6)), t in [0, 1]";
  p.description =
      "two masses (chassis m1, wheel m2), suspension spring k1 and damper f, tyre spring k2:\n"
      "y1' = v1, y2' = v2, m1 v1' = -f (v1 - v2) - k1 (y1 - y2),\n"
      "m2 v2' = -f (v2 - v1) - k1 (y2 - y1) - k2 (y2 - z); damped oscillation (an ODE, index 0).";
  p.source = "004_cf00f948f14222cf.txt (DTU notes IMM-REP-1999-8), ch. 9.5.1, eqs. (9.5)/(9.6)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 4;  // identity mass (empty), all index tags 1 (empty)
  d.component_names = {"y1", "y2", "v1", "v2"};
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[2];
    f[1] = y[3];
    f[2] = -(damping * (y[2] - y[3]) + k1 * (y[0] - y[1])) / m1;
    f[3] = -(damping * (y[3] - y[2]) + k1 * (y[1] - y[0]) + k2 * (y[1] - z)) / m2;
  };
  d.jacobian = [](double, VecIn, MatOut J) {
    J(0, 2) = 1.0;
    J(1, 3) = 1.0;
    J(2, 0) = -k1 / m1;
    J(2, 1) = k1 / m1;
    J(2, 2) = -damping / m1;
    J(2, 3) = damping / m1;
    J(3, 0) = k1 / m2;
    J(3, 1) = -(k1 + k2) / m2;
    J(3, 2) = damping / m2;
    J(3, 3) = -damping / m2;
  };
  p.t0 = 0;
  p.t_end = 1;
  p.y0 = Vector(4);
  p.y0 << -0.05, 0.0, 0.0, 0.0;
  p.rtol = p.atol = 1e-8;
  p.plot_components = {0, 1};
  p.scd_components = {0, 1};  // scd against a user-supplied exact solution (no reference)
  return p;
}

}  // namespace daekit
