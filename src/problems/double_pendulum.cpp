// Double pendulum in its two angles (issue 14, part 1: a multibody model whose leading matrix
// depends on the angles; part 4: built with the Lagrange builder, nonlinear/lagrange.hpp).
// Point masses m1, m2 on massless rods l1, l2, angles theta_i from the downward vertical:
//   T = 1/2 (m1 + m2) l1^2 w1^2 + m2 l1 l2 cos(theta1 - theta2) w1 w2 + 1/2 m2 l2^2 w2^2,
//   V = -(m1 + m2) g l1 cos theta1 - m2 g l2 cos theta2,
//   M(theta) = [(m1 + m2) l1^2, m2 l1 l2 c12; m2 l1 l2 c12, m2 l2^2],  c12 = cos(theta1 - theta2),
// and the Euler-Lagrange equations M(theta) w' = -dV/dtheta - k(theta, w), the quadratic velocity
// terms k from differences of M (LagrangeModel without quadratic_velocity). First-order
// quasi-linear form y = (theta1, theta2, w1, w2):
//   diag(I, M(theta)) y' = (w, -dV/dtheta - k(theta, w)).
// m1 = m2 = 1, l1 = l2 = 1, g = 9.81, theta(0) = (1.0, 0.5), w(0) = 0, t in [0, 3] (p holds
// m1, m2, l1, l2, g). Reference: the Cartesian model q = (x1, y1, x2, y2), constant
// M = diag(m1, m1, m2, m2), gravity, constraints |p1|^2 = l1^2, |p2 - p1|^2 = l2^2 (index 3),
// through its underlying ODE (consistent_acceleration) by classical RK4 -- an independent
// formulation (other coordinates, no M(theta), no differenced Coriolis terms).
#include <cmath>

#include "daekit/nonlinear/lagrange.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

constexpr double default_params[5] = {1.0, 1.0, 1.0, 1.0, 9.81};  // m1, m2, l1, l2, g
constexpr double theta0[2] = {1.0, 0.5};

LagrangeModel double_pendulum_lagrange_model() {
  LagrangeModel m;
  m.name = "double pendulum";
  m.nq = 2;
  m.p = Vector::Map(default_params, 5);
  m.mass = [](double, VecIn q, MatOut M, VecIn p) {
    const double m1 = p[0], m2 = p[1], l1 = p[2], l2 = p[3];
    const double c = std::cos(q[0] - q[1]);
    M(0, 0) = (m1 + m2) * l1 * l1;
    M(0, 1) = M(1, 0) = m2 * l1 * l2 * c;
    M(1, 1) = m2 * l2 * l2;
  };
  m.potential_gradient = [](double, VecIn q, VecOut grad, VecIn p) {
    const double m1 = p[0], m2 = p[1], l1 = p[2], l2 = p[3], g = p[4];
    grad[0] = (m1 + m2) * g * l1 * std::sin(q[0]);
    grad[1] = m2 * g * l2 * std::sin(q[1]);
  };
  return m;
}

// The Cartesian index-3 model of the reference.
MechanicalSystem cartesian_double_pendulum(VecIn p) {
  MechanicalSystem s;
  s.name = "double pendulum (Cartesian)";
  s.nq = 4;
  s.nlambda = 2;
  s.constant_mass = true;
  s.p = p;
  s.mass = [](double, VecIn, MatOut M, VecIn p) {
    M.setZero();
    M(0, 0) = M(1, 1) = p[0];
    M(2, 2) = M(3, 3) = p[1];
  };
  s.force = [](double, VecIn, VecIn, VecOut f, VecIn p) {
    f << 0.0, -p[0] * p[4], 0.0, -p[1] * p[4];
  };
  s.g = [](double, VecIn q, VecOut g, VecIn p) {
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - p[2] * p[2]);
    g[1] = 0.5 * (dx * dx + dy * dy - p[3] * p[3]);
  };
  s.G = [](double, VecIn q, MatOut G) {
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    G << q[0], q[1], 0.0, 0.0, -dx, -dy, dx, dy;
  };
  s.curvature = [](double, VecIn, VecIn v, VecOut c) {
    const double dvx = v[2] - v[0], dvy = v[3] - v[1];
    c << v[0] * v[0] + v[1] * v[1], dvx * dvx + dvy * dvy;
  };
  return s;
}

}  // namespace

BuiltinProblem double_pendulum() {
  const LagrangeModel model = double_pendulum_lagrange_model();
  const MechanicalSystem sys = mechanical_system(model);
  QuasiLinearDae q;
  q.name = "double-pendulum";
  q.n = 4;
  q.p = model.p;
  q.component_names = {"theta1", "theta2", "omega1", "omega2"};
  q.mass = [mass = sys.mass](double t, VecIn y, MatOut M, VecIn p) {
    M(0, 0) = M(1, 1) = 1.0;
    mass(t, y.head(2), M.bottomRightCorner(2, 2), p);
  };
  q.f = [force = sys.force](double t, VecIn y, VecOut f, VecIn p) {
    f.head(2) = y.tail(2);
    force(t, y.head(2), y.tail(2), f.tail(2), p);
  };
  BuiltinProblem p;
  p.name = q.name;
  p.title = "double pendulum in angles, M(theta) y' = f from T and V (Lagrange builder)";
  p.description =
      "theta' = w, M(theta) w' = -dV/dtheta - k(theta, w), M(theta) with cos(theta1 - theta2);\n"
      "Coriolis/centrifugal terms k by differences of M; an ODE with a state-dependent mass\n"
      "matrix, solved through y' = w, 0 = M(y) w - f (dae) or F = M(y) y' - f (bdf).";
  p.source =
      "textbook double pendulum (T, V above); reference from the Cartesian index-3 model "
      "(double_pendulum_reference)";
  p.parameter_names = {"m1", "m2", "l1", "l2", "g"};
  p.t0 = 0.0;
  p.t_end = 3.0;
  Vector y0(4);
  y0 << theta0[0], theta0[1], 0.0, 0.0;
  p.dae = to_mass_matrix_form(q);
  p.dae.name = p.name;
  p.y0 = initial_values(q, p.t0, y0);
  // w' in y0 (from M(theta) w' = f) depends on the masses, lengths and g: recomputed for p,
  // and the state-dependent form the BDF solves gets p too
  p.apply_parameters = [](BuiltinProblem& b) {
    b.quasi_linear->p = b.dae.p;
    Vector start(4);
    start << theta0[0], theta0[1], 0.0, 0.0;
    b.y0 = initial_values(*b.quasi_linear, b.t0, start);
  };
  // reference (theta, omega) from the Cartesian model, w = y' from M(y) w = f (computed once)
  static const Vector reference_at_end = initial_values(q, p.t_end, double_pendulum_reference(3.0));
  p.reference = ReferenceSolution{
      p.t_end, reference_at_end,
      "Cartesian index-3 model, underlying ODE by RK4 (h = 5e-4, compensated sums)"};
  p.rtol = p.atol = 1e-8;
  p.plot_components = {0, 1};
  p.scd_components = {0, 1, 2, 3};
  p.quasi_linear = std::move(q);
  return p;
}

Vector double_pendulum_reference(double t, double h) {
  const Vector p = Vector::Map(default_params, 5);
  const MechanicalSystem s = cartesian_double_pendulum(p);
  const double l1 = p[2], l2 = p[3];
  Vector x(8);  // (q, v)
  x << l1 * std::sin(theta0[0]), -l1 * std::cos(theta0[0]),
      l1 * std::sin(theta0[0]) + l2 * std::sin(theta0[1]),
      -l1 * std::cos(theta0[0]) - l2 * std::cos(theta0[1]), 0, 0, 0, 0;
  auto rhs = [&s](double tt, const Vector& z) {
    Vector dz(8);
    dz << z.tail(4), consistent_acceleration(s, tt, z.head(4), z.tail(4)).w;
    return dz;
  };
  const int steps = std::max(1, static_cast<int>(std::ceil(t / h)));
  const double hh = t / steps;
  Vector comp = Vector::Zero(8);  // compensated (Kahan) summation of the increments
  for (int k = 0; k < steps; ++k) {
    const double tk = k * hh;
    const Vector k1 = rhs(tk, x), k2 = rhs(tk + hh / 2, x + hh / 2 * k1),
                 k3 = rhs(tk + hh / 2, x + hh / 2 * k2), k4 = rhs(tk + hh, x + hh * k3);
    const Vector inc = hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4) - comp;
    const Vector next = x + inc;
    comp = (next - x) - inc;
    x = next;
  }
  const double x1 = x[0], y1 = x[1], dx = x[2] - x[0], dy = x[3] - x[1];
  const double vx1 = x[4], vy1 = x[5], dvx = x[6] - x[4], dvy = x[7] - x[5];
  Vector out(4);
  out << std::atan2(x1, -y1), std::atan2(dx, -dy), (-y1 * vx1 + x1 * vy1) / (l1 * l1),
      (-dy * dvx + dx * dvy) / (l2 * l2);
  return out;
}

}  // namespace daekit
