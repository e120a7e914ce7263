// Flight to the moon: the restricted three-body problem of NOTES-004.md ch. 8 (from [DM70]),
// Earth and Moon in a rotating frame, mass ratio mu = 0.01215:
//   y1'' = y1 + 2 y2' - (1 - mu)(y1 + mu)/r1^3 - mu (y1 - 1 + mu)/r2^3
//   y2'' = y2 - 2 y1' - (1 - mu) y2/r1^3 - mu y2/r2^3
//   r1 = |(y1 + mu, y2)|, r2 = |(y1 - 1 + mu, y2)|,
// with the Jacobi integral J = (y1'^2 + y2'^2 - y1^2 - y2^2)/2 - (1 - mu)/r1 - mu/r2 (a first
// integral: the ODE with invariant of ch. 8). Start y = (-mu/2, 0.1), y2' = 4, y1' = 1.4 (the
// notes' lunar landing case), t in [0, 1]. First-order form x = (y1, y2, y1', y2').
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double kMu = 0.01215;
}

double moon_jacobi_integral(VecIn x) {
  const double r1 = std::hypot(x[0] + kMu, x[1]), r2 = std::hypot(x[0] - 1 + kMu, x[1]);
  return 0.5 * (x[2] * x[2] + x[3] * x[3] - x[0] * x[0] - x[1] * x[1]) - (1 - kMu) / r1 - kMu / r2;
}

BuiltinProblem moon_flight(double y1_velocity) {
  BuiltinProblem p;
  p.name = "moon";
  p.title = "flight to the moon: restricted three-body problem (ODE with invariant)";
  p.description =
      "rotating Earth-Moon frame, mu = 0.01215; x = (y1, y2, y1', y2'), start (-mu/2, 0.1, " +
      std::to_string(y1_velocity) + ", 4);\nfirst integral: the Jacobi integral J.";
  p.source = "NOTES-004.md ch. 8 (DTU notes, Section 8.3, after [DM70])";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 4;
  d.component_names = {"y1", "y2", "y1_dot", "y2_dot"};
  d.f = [](double, VecIn x, VecOut f) {
    const double a = x[0] + kMu, b = x[0] - 1 + kMu, y2 = x[1];
    const double r1 = std::hypot(a, y2), r2 = std::hypot(b, y2);
    const double r13 = r1 * r1 * r1, r23 = r2 * r2 * r2;
    f[0] = x[2];
    f[1] = x[3];
    f[2] = x[0] + 2 * x[3] - (1 - kMu) * a / r13 - kMu * b / r23;
    f[3] = y2 - 2 * x[2] - (1 - kMu) * y2 / r13 - kMu * y2 / r23;
  };
  p.t0 = 0;
  p.t_end = 1.0;
  p.y0 = Vector(4);
  p.y0 << -kMu / 2, 0.1, y1_velocity, 4.0;
  p.rtol = p.atol = 1e-8;
  p.plot_components = {0, 1};
  return p;
}

BuiltinProblem moon_flight() { return moon_flight(1.4); }

}  // namespace daekit
