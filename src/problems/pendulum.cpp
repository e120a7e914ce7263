// The normalized pendulum of 000_da456d5bdd91ee80.txt, eq. (4.1)-(4.2): unit mass, unit length,
// unit gravity,
//   u1' = v1, u2' = v2, v1' = -2 u1 lambda, v2' = -1 - 2 u2 lambda, 0 = u1^2 + u2^2 - 1,
// (u, v, lambda)(0) = (1, 0, 0, 0, 0), t in [0, 20]. Drift monitors (paper 000, Section 4):
//   d1 = |u|^2 - 1,  d2 = 2 u.v,  d3 = 2 |v|^2 + 2 u.v'  (the paper prints d3 with an
// inconsistent factor 2 on lambda; this is the time derivative of d2 with v' from the equations).
// Index-2 form: the constraint replaced by 0 = u.v; index-1 form: by the acceleration constraint
// 0 = |v|^2 - 2 lambda |u|^2 - u2 (Bendtsen and Thomsen (1999), ch. 3, (3.5)-(3.6)). Parameter p =
// (g), the gravity (1 by default; sensitivities): v2' = -g - 2 u2 lambda (index 1: ... - g u2).
#include <algorithm>
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

ConstraintResiduals pendulum_monitor(VecIn y) {
  const double u1 = y[0], u2 = y[1], v1 = y[2], v2 = y[3], lambda = y[4];
  const double a1 = -2 * u1 * lambda, a2 = -1 - 2 * u2 * lambda;
  ConstraintResiduals r;
  r.position = std::abs(u1 * u1 + u2 * u2 - 1);
  r.velocity = std::abs(2 * (u1 * v1 + u2 * v2));
  r.acceleration = std::abs(2 * (v1 * v1 + v2 * v2) + 2 * (u1 * a1 + u2 * a2));
  return r;
}

// The gravity p[0] (1 when a callback is called without p).
double gravity(VecIn p) { return p.size() > 0 ? p[0] : 1.0; }

// Common part: index tags, mass matrix, monitor and the differential equations; `level`
// chooses the constraint (3: position, 2: velocity, 1: acceleration).
BuiltinProblem pendulum(int level) {
  BuiltinProblem p;
  MassMatrixDae& d = p.dae;
  d.n = 5;
  d.mass = Matrix::Identity(5, 5);
  d.mass(4, 4) = 0.0;
  d.component_names = {"u1", "u2", "v1", "v2", "lambda"};
  if (level == 3) d.index = {1, 1, 2, 2, 3};
  if (level == 2) d.index = {1, 1, 1, 1, 2};
  if (level == 1) d.index = {1, 1, 1, 1, 1};
  d.p = Vector::Constant(1, 1.0);
  p.parameter_names = {"g"};
  d.f = [level](double, VecIn y, VecOut f, VecIn p) {
    const double u1 = y[0], u2 = y[1], v1 = y[2], v2 = y[3], lambda = y[4];
    const double g = gravity(p);
    f[0] = v1;
    f[1] = v2;
    f[2] = -2 * u1 * lambda;
    f[3] = -g - 2 * u2 * lambda;
    if (level == 3) f[4] = u1 * u1 + u2 * u2 - 1;
    if (level == 2) f[4] = u1 * v1 + u2 * v2;
    if (level == 1) f[4] = v1 * v1 + v2 * v2 - 2 * lambda * (u1 * u1 + u2 * u2) - g * u2;
  };
  d.jacobian = [level](double, VecIn y, MatOut J, VecIn p) {
    const double u1 = y[0], u2 = y[1], v1 = y[2], v2 = y[3], lambda = y[4];
    J(0, 2) = 1;
    J(1, 3) = 1;
    J(2, 0) = -2 * lambda;
    J(2, 4) = -2 * u1;
    J(3, 1) = -2 * lambda;
    J(3, 4) = -2 * u2;
    if (level == 3) {
      J(4, 0) = 2 * u1;
      J(4, 1) = 2 * u2;
    } else if (level == 2) {
      J(4, 0) = v1;
      J(4, 1) = v2;
      J(4, 2) = u1;
      J(4, 3) = u2;
    } else {
      J(4, 0) = -4 * lambda * u1;
      J(4, 1) = -4 * lambda * u2 - gravity(p);
      J(4, 2) = 2 * v1;
      J(4, 3) = 2 * v2;
      J(4, 4) = -2 * (u1 * u1 + u2 * u2);
    }
  };
  d.constraint_monitor = [](double, VecIn y) { return pendulum_monitor(y); };
  p.y0.resize(5);
  p.y0 << 1, 0, 0, 0, 0;
  p.t0 = 0;
  p.t_end = 20;
  p.rtol = p.atol = 1e-6;
  p.plot_components = {0, 1};
  p.scd_components = {0, 1, 2, 3};  // u and v; lambda (index 3) is less accurate by design
  p.source = "000_da456d5bdd91ee80.txt, Example 1, eqs. (4.1)-(4.2); Hairer-Wanner II, VII.1";
  return p;
}

}  // namespace

BuiltinProblem pendulum_index3() {
  BuiltinProblem p = pendulum(3);
  p.name = "pendulum";
  p.title = "normalized pendulum, index 3 (Schropp (2006), (4.1))";
  p.description =
      "u' = v, v' = -(0, 1) - 2 u lambda, 0 = |u|^2 - 1; y = (u1, u2, v1, v2, lambda),\n"
      "index tags (1, 1, 2, 2, 3); t in [0, 20]; monitors d1 = |u|^2 - 1, d2 = 2 u.v.";
  p.dae.name = p.name;
  p.mechanical = pendulum_mechanical_system();
  p.dae.project = index3_form(*p.mechanical).project;              // same layout (q, v, lambda)
  static const Vector reference_at_20 = pendulum_reference(20.0);  // computed once (~10 ms)
  p.reference = ReferenceSolution{
      20.0, reference_at_20, "RK4 (h = 1e-4, compensated sums) on the angle ODE phi'' = -sin phi"};
  return p;
}

BuiltinProblem pendulum_index2() {
  BuiltinProblem p = pendulum(2);
  p.name = "pendulum-index2";
  p.title = "normalized pendulum, index 2 (velocity constraint u.v = 0)";
  p.description =
      "as 'pendulum' with 0 = u1 v1 + u2 v2 instead of the position constraint; index tags\n"
      "(1, 1, 1, 1, 2); the position constraint drifts slowly.";
  p.dae.name = p.name;
  return p;
}

BuiltinProblem pendulum_index1() {
  BuiltinProblem p = pendulum(1);
  p.name = "pendulum-index1";
  p.title = "normalized pendulum, index 1 (acceleration constraint)";
  p.description =
      "as 'pendulum' with 0 = |v|^2 - 2 lambda |u|^2 - u2; lambda(0) = 0 is consistent;\n"
      "position and velocity constraints drift off (Bendtsen and Thomsen 1999, ch. 3).";
  p.dae.name = p.name;
  return p;
}

BuiltinProblem pendulum_long() {
  BuiltinProblem p = pendulum(3);
  p.name = "pendulum-long";
  p.title = "normalized pendulum, index 3, long run t in [0, 1000]";
  p.description = "as 'pendulum' on [0, 1000]: drift of d1, d2 over a long run.";
  p.t_end = 1000;
  p.dae.name = p.name;
  p.mechanical = pendulum_mechanical_system();
  p.dae.project = index3_form(*p.mechanical).project;  // same layout (q, v, lambda)
  return p;
}

Vector pendulum_reference(double t_end) {
  auto rhs = [](double phi, double omega, double& dphi, double& domega) {
    dphi = omega;
    domega = -std::sin(phi);
  };
  const int steps = std::max(1, static_cast<int>(std::ceil(std::abs(t_end) / 1e-4)));
  const double h = t_end / steps;
  double phi = M_PI / 2, omega = 0.0;
  double carry_phi = 0.0, carry_omega = 0.0;  // Kahan compensation of the accumulated sums
  auto add = [](double& sum, double& carry, double increment) {
    const double y = increment - carry;
    const double t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  };
  for (int i = 0; i < steps; ++i) {  // classical RK4
    double k1p, k1o, k2p, k2o, k3p, k3o, k4p, k4o;
    rhs(phi, omega, k1p, k1o);
    rhs(phi + 0.5 * h * k1p, omega + 0.5 * h * k1o, k2p, k2o);
    rhs(phi + 0.5 * h * k2p, omega + 0.5 * h * k2o, k3p, k3o);
    rhs(phi + h * k3p, omega + h * k3o, k4p, k4o);
    add(phi, carry_phi, h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p));
    add(omega, carry_omega, h / 6 * (k1o + 2 * k2o + 2 * k3o + k4o));
  }
  Vector y(5);
  y << std::sin(phi), -std::cos(phi), std::cos(phi) * omega, std::sin(phi) * omega,
      0.5 * (omega * omega + std::cos(phi));
  return y;
}

MechanicalSystem pendulum_mechanical_system() {
  MechanicalSystem s;
  s.name = "pendulum";
  s.nq = 2;
  s.nlambda = 1;
  s.constant_mass = true;
  s.mass = [](double, VecIn, MatOut M) { M.setIdentity(); };
  s.force = [](double, VecIn, VecIn, VecOut f) { f << 0.0, -1.0; };
  s.g = [](double, VecIn q, VecOut g) { g[0] = q.squaredNorm() - 1.0; };
  s.G = [](double, VecIn q, MatOut G) { G << 2 * q[0], 2 * q[1]; };
  s.curvature = [](double, VecIn, VecIn v, VecOut c) { c[0] = 2 * v.squaredNorm(); };
  return s;
}

}  // namespace daekit
