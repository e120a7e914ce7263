// The examples of Bendtsen and Thomsen (1999), ch. 1 (DTU lecture notes IMM-REP-1999-8,
// 004_cf00f948f14222cf):
//
// §1.2.1, singular perturbation with z0 = g(0, zeta0, eps)/eps. The notes keep f1, f2, g
// abstract; our instance takes g(x, y) = y - sin x and f2 = g_x + g_y f1, so that eps z = g(x, y)
// holds exactly along the solution and the limit eps -> 0 is the index-2 DAE y' = f1, 0 = g:
//   y' = -z,   eps z' = -z - cos x,   y(0) = zeta0 = 1,   z(0) = g(0, zeta0)/eps = 1/eps.
// Linear, so the solution is closed-form:
//   z(x) = C e^{-x/eps} - (cos x + eps sin x)/(1 + eps^2),  C = 1/eps + 1/(1 + eps^2),
//   y(x) = sin x + eps z(x)   (the invariant eps z = g).
// y jumps from zeta0 = 1 (inconsistent for the DAE) onto y = sin x within an initial layer of
// width O(eps): the stiff problem projects the inconsistent start, and for x >> eps
// y = sin x - eps cos x + O(eps^2), while the index-1 reduced problem (1.2.1's differentiated
// constraint y' = cos x) would keep y = 1 + sin x.
//
// §1.3, Van der Pol y'' = mu (1 - y^2) y' - y in its three forms:
//   (a) y1' = y2, y2' = mu (1 - y1^2) y2 - y1                 (x in [0, 2 mu])
//   (b) t = x / mu, y2 scaled by mu: y1' = y2, y2' = mu^2 ((1 - y1^2) y2 - y1)   (t in [0, 2])
//   (c) eps = 1/mu^2: y1' = y2, eps y2' = (1 - y1^2) y2 - y1   ("vanderpol", van_der_pol.cpp)
// mu = 1000 (eps = 1e-6, the IVP Test Set's VDPOL): all three share the Test Set's reference,
// for (a) at x = 2 mu with y2 divided by mu.
//
// §1.1.2.1, the singular algebraic constraint (x the independent variable):
//   y1' = y3,   0 = y2 (1 - y2),   0 = y1 y2 + y3 (1 - y2) - x,
// branch y2 = 0: y3 = x, y1 = y1(0) + x^2/2, g_z = [[1, 0], [y1 - y3, 1]] regular (index 1);
// branch y2 = 1: y1 = x, y3 = y1' = 1, g_z = [[-1, 0], [y1 - y3, 0]] singular: y3 follows
// only by differentiating y1 = x (index 2 in y3). Which branch the solution follows is fixed
// by the initial value of y2 alone.
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double kSppEps = 1e-6;
constexpr double kVdpMu = 1000.0;

// Test Set VDPOL reference y(2) of form (c) (eps = 1e-6), shared by the three forms.
constexpr double kVdpY1 = 1.706167732170469, kVdpY2 = -0.8928097010248125;
}  // namespace

Vector singular_perturbation_solution(double x) {
  const double eps = kSppEps, c = 1.0 / eps + 1.0 / (1.0 + eps * eps);
  const double z = c * std::exp(-x / eps) - (std::cos(x) + eps * std::sin(x)) / (1.0 + eps * eps);
  Vector y(2);
  y << std::sin(x) + eps * z, z;
  return y;
}

BuiltinProblem singular_perturbation() {
  BuiltinProblem p;
  p.name = "singular-perturbation";
  p.stiff = true;  // eps = 1e-6: explicit steps are bounded by stability (erk: 0/25 in the sweep)
  p.title = "singular perturbation with z0 = g/eps (notes §1.2.1), limit index 2";
  p.description =
      "y' = -z, eps z' = -z - cos x, eps = 1e-6, y(0) = 1, z(0) = g(0, y0)/eps = 1e6 with\n"
      "g = y - sin x; eps z = g holds exactly, the limit is y' = -z, 0 = y - sin x (index 2);\n"
      "y jumps onto y = sin x in an initial layer of width eps; closed-form solution.";
  p.source =
      "Bendtsen and Thomsen (1999), ch. 1, §1.2.1 (structure); the instance f1, f2, g is daekit's";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 2;
  d.mass = Matrix::Identity(2, 2);
  d.mass(1, 1) = kSppEps;
  d.component_names = {"y", "z"};
  d.f = [](double x, VecIn y, VecOut f) {
    f[0] = -y[1];
    f[1] = -y[1] - std::cos(x);
  };
  d.jacobian = [](double, VecIn, MatOut J) {
    J(0, 1) = -1;
    J(1, 1) = -1;
  };
  p.t0 = 0;
  p.t_end = 1;
  p.y0 = singular_perturbation_solution(0.0);
  p.h0 = 1e-10;  // the initial layer has width eps
  p.rtol = p.atol = 1e-8;
  p.exact = singular_perturbation_solution;
  ReferenceSolution ref;
  ref.t = 1;
  ref.y = singular_perturbation_solution(1.0);
  ref.source = "closed-form solution (linear problem)";
  p.reference = ref;
  return p;
}

BuiltinProblem van_der_pol_form_a() {
  BuiltinProblem p;
  p.name = "vanderpol-a";
  p.stiff = true;  // mu = 1000 (eps = 1e-6): erk hits max_steps at every tolerance of the sweep
  p.title = "Van der Pol, form (a) of notes §1.3: y2' = mu (1 - y1^2) y2 - y1, mu = 1000";
  p.description =
      "y1' = y2, y2' = mu (1 - y1^2) y2 - y1, mu = 1000, y(0) = (2, 0), x in [0, 2000];\n"
      "the same solution as forms (b), (c) in x = mu t, with y2 = y2(c) / mu.";
  p.source =
      "Bendtsen and Thomsen (1999), ch. 1, §1.3 (a); reference from the IVP Test Set (VDPOL)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 2;
  d.component_names = {"y1", "y2"};
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = kVdpMu * (1 - y[0] * y[0]) * y[1] - y[0];
  };
  d.jacobian = [](double, VecIn y, MatOut J) {
    J(0, 1) = 1;
    J(1, 0) = -2 * kVdpMu * y[0] * y[1] - 1;
    J(1, 1) = kVdpMu * (1 - y[0] * y[0]);
  };
  p.t0 = 0;
  p.t_end = 2 * kVdpMu;
  p.y0 = Vector(2);
  p.y0 << 2, 0;
  p.rtol = p.atol = 1e-6;
  p.plot_components = {0};
  ReferenceSolution ref;
  ref.t = p.t_end;
  ref.y = Vector(2);
  ref.y << kVdpY1, kVdpY2 / kVdpMu;
  ref.source = "IVP Test Set, VDPOL y(2) (eps = 1e-6) at x = mu t, y2 / mu";
  p.reference = ref;
  return p;
}

BuiltinProblem van_der_pol_form_b() {
  BuiltinProblem p;
  p.name = "vanderpol-b";
  p.stiff = true;  // mu = 1000 (eps = 1e-6): erk hits max_steps at every tolerance of the sweep
  p.title = "Van der Pol, form (b) of notes §1.3: y2' = mu^2 ((1 - y1^2) y2 - y1), mu = 1000";
  p.description =
      "y1' = y2, y2' = mu^2 ((1 - y1^2) y2 - y1), mu = 1000, y(0) = (2, 0), t in [0, 2];\n"
      "an ODE (M = I) with the solution of form (c) (eps = 1/mu^2).";
  p.source =
      "Bendtsen and Thomsen (1999), ch. 1, §1.3 (b), [HW91]; reference from the IVP Test Set "
      "(VDPOL)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 2;
  d.component_names = {"y1", "y2"};
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = kVdpMu * kVdpMu * ((1 - y[0] * y[0]) * y[1] - y[0]);
  };
  d.jacobian = [](double, VecIn y, MatOut J) {
    J(0, 1) = 1;
    J(1, 0) = kVdpMu * kVdpMu * (-2 * y[0] * y[1] - 1);
    J(1, 1) = kVdpMu * kVdpMu * (1 - y[0] * y[0]);
  };
  p.t0 = 0;
  p.t_end = 2;
  p.y0 = Vector(2);
  p.y0 << 2, 0;
  p.rtol = p.atol = 1e-6;
  p.plot_components = {0};
  ReferenceSolution ref;
  ref.t = 2;
  ref.y = Vector(2);
  ref.y << kVdpY1, kVdpY2;
  ref.source = "IVP Test Set, VDPOL (eps = 1e-6), y(2)";
  p.reference = ref;
  return p;
}

Vector singular_constraint_solution(int branch, double x) {
  Vector y(3);
  if (branch == 0)
    y << x * x / 2, 0, x;
  else
    y << x, 1, 1;
  return y;
}

BuiltinProblem singular_constraint(int branch) {
  if (branch != 0 && branch != 1)
    throw InvalidArgument("singular_constraint: branch must be 0 (y2 = 0) or 1 (y2 = 1), got " +
                          std::to_string(branch));
  BuiltinProblem p;
  p.name = branch == 0 ? "singular-constraint-0" : "singular-constraint-1";
  p.title = branch == 0 ? "singular algebraic constraint (notes §1.1.2.1), branch y2 = 0 (index 1)"
                        : "singular algebraic constraint (notes §1.1.2.1), branch y2 = 1 (index 2)";
  p.description = "y1' = y3, 0 = y2 (1 - y2), 0 = y1 y2 + y3 (1 - y2) - x, x in [0, 2];\n" +
                  std::string(branch == 0 ? "y2 = 0: y3 = x, y1 = x^2/2, g_z regular (index 1)"
                                          : "y2 = 1: y1 = x, y3 = 1, g_z singular (y3 index 2)");
  p.source = "Bendtsen and Thomsen (1999), ch. 1, §1.1.2.1 (the initial values are daekit's)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 3;
  d.mass = Matrix::Zero(3, 3);
  d.mass(0, 0) = 1;
  d.index = {1, 1, branch == 0 ? 1 : 2};
  d.component_names = {"y1", "y2", "y3"};
  d.f = [](double x, VecIn y, VecOut f) {
    f[0] = y[2];
    f[1] = y[1] * (1 - y[1]);
    f[2] = y[0] * y[1] + y[2] * (1 - y[1]) - x;
  };
  d.jacobian = [](double, VecIn y, MatOut J) {
    J(0, 2) = 1;
    J(1, 1) = 1 - 2 * y[1];
    J(2, 0) = y[1];
    J(2, 1) = y[0] - y[2];
    J(2, 2) = 1 - y[1];
  };
  p.t0 = 0;
  p.t_end = 2;
  p.y0 = singular_constraint_solution(branch, 0.0);
  p.rtol = p.atol = 1e-8;
  p.exact = [branch](double x) { return singular_constraint_solution(branch, x); };
  ReferenceSolution ref;
  ref.t = 2;
  ref.y = singular_constraint_solution(branch, 2.0);
  ref.source = "exact solution of the branch";
  p.reference = ref;
  return p;
}

}  // namespace daekit
