// The motivating example of Bendtsen and Thomsen (1999), ch. 7 (§7.1): an impasse point.
//   x2' = 1,   0 = x1^2 + x2,   x(0) = (1, -1),
// M = [[0, 1], [0, 0]] (the differential row reads x2'); exact solution x = (sqrt(1 - t), t - 1).
// x1' = -1/(2 sqrt(1 - t)) is unbounded at t = 1, where Dg2 = (2 x1, 1) makes E = [A1; Dg2]
// singular: ordinary solvers shrink the step until they stop there. In the chart y ~ x1 the
// projected ODE is -2 y y' = 1 (7.7): B(0) = 0, alpha = <h, v><(DB u) u, v> = -2 < 0, an
// accessible impasse point (Def. 7.2): the solution ends at t = 1 in forward time. The
// augmented curve continues on the other branch x = (-sqrt(1 - t), t - 1) with t decreasing.
// solve_with_impasses (integrator/impasse_solve.hpp) detects, reports and passes it.
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

Vector impasse_example_solution(double t, int sign) {
  Vector x(2);
  x << (sign >= 0 ? 1.0 : -1.0) * std::sqrt(std::max(0.0, 1.0 - t)), t - 1.0;
  return x;
}

BuiltinProblem impasse_example() {
  BuiltinProblem p;
  p.name = "impasse";
  p.title = "impasse point at t = 1: x2' = 1, 0 = x1^2 + x2 (notes ch. 7, §7.1)";
  p.description =
      "x2' = 1, 0 = x1^2 + x2, x(0) = (1, -1); x = (sqrt(1 - t), t - 1), x1' unbounded at\n"
      "t = 1 (an accessible impasse point): ordinary solvers stall there; the library's\n"
      "solve_with_impasses reports it and passes it on the augmented system (7.22).";
  p.source = "Bendtsen and Thomsen (1999), ch. 7, §7.1 (Rabier-Rheinboldt [PR94])";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 2;
  d.mass = Matrix::Zero(2, 2);
  d.mass(0, 1) = 1;
  d.component_names = {"x1", "x2"};
  d.f = [](double, VecIn x, VecOut f) {
    f[0] = 1;
    f[1] = x[0] * x[0] + x[1];
  };
  d.jacobian = [](double, VecIn x, MatOut J) {
    J(1, 0) = 2 * x[0];
    J(1, 1) = 1;
  };
  p.t0 = 0;
  p.t_end = 1.5;
  p.y0 = impasse_example_solution(0.0);
  p.rtol = p.atol = 1e-8;
  p.exact = [](double t) { return impasse_example_solution(t); };
  return p;
}

}  // namespace daekit
