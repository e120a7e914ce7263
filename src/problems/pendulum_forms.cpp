// The pendulum of the lecture notes with general mass m, length l and gravity g
// (004_cf00f948f14222cf.txt (3.2)-(3.7) and (9.7)-(9.8), Bendtsen and Thomsen (1999), ch. 3 and 9):
//   p_x' = v_x, p_y' = v_y, m v_x' = -2 p_x lambda, m v_y' = -m g - 2 p_y lambda,
//   0 = p_x^2 + p_y^2 - l^2                                   (3.3), index 3,
// [FIX: (3.2) prints v_y' = -g/m - 2 p_y lambda/m; the gravity force is m g]. Differentiating:
//   0 = p.v (3.5),  lambda = m (|v|^2 - g p_y) / (2 l^2) (3.6),
//   lambda' = -3 m g v_y / (2 l^2)                             (3.7), the index-0 form:
// the ODE for y = (p_x, p_y, v_x, v_y, lambda) built here as "pendulum-index0". Its solutions
// through consistent values are the pendulum's; numerically g, p.v and (3.6) drift (ch. 3.2.4),
// so the problem carries the coordinate projection (3.10) onto all three (Options::projection).
// State-space form (9.8) in the angle phi (p = l (sin phi, -cos phi)):
//   phi' = omega, omega' = -(g / l) sin(phi)                   "pendulum-ssf";
// (9.8) as printed, phi2' = -g phi1, is its small-angle linearization with l = 1 (the tests
// measure how far the two part at phi0 = pi/2).
// Exact solution for omega(0) = 0, |phi0| < pi (Jacobi elliptic functions of modulus
// k = sin(phi0 / 2), Omega = sqrt(g / l)):
//   phi(t) = 2 asin(k cd(Omega t | k^2)),  omega(t) = -2 k k' Omega sn/dn,  k' = sqrt(1 - k^2),
// sn, cn, dn by the arithmetic-geometric mean (Abramowitz-Stegun 16.4).
// Defaults p = (m, l, g) = (0.5, 2, 9.81), phi0 = pi/2 (horizontal start), t in [0, 10].
#include <cmath>
#include <numbers>

#include "daekit/nonlinear/projection.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

constexpr double default_m = 0.5, default_l = 2.0, default_g = 9.81;
constexpr double phi0 = std::numbers::pi / 2;

struct Jacobi {
  double sn, cn, dn;
};

// sn, cn, dn(u | m) by the descending AGM (Abramowitz-Stegun 16.4.3), 0 <= m < 1.
Jacobi jacobi_elliptic(double u, double m) {
  double a[16], c[16];
  a[0] = 1.0;
  c[0] = std::sqrt(m);
  double b = std::sqrt(1.0 - m);
  int n = 0;
  while (std::abs(c[n]) > 1e-16 && n < 15) {
    a[n + 1] = 0.5 * (a[n] + b);
    c[n + 1] = 0.5 * (a[n] - b);
    b = std::sqrt(a[n] * b);
    ++n;
  }
  double phi = std::ldexp(a[n] * u, n), previous = phi;
  for (int j = n; j >= 1; --j) {
    previous = phi;
    phi = 0.5 * (phi + std::asin(c[j] / a[j] * std::sin(phi)));
  }
  return {std::sin(phi), std::cos(phi), std::cos(phi) / std::cos(previous - phi)};
}

// (p, v, lambda) of the pendulum at angle phi, angular velocity omega.
Vector cartesian_state(double phi, double omega, double m, double l, double g) {
  Vector y(5);
  const double s = std::sin(phi), c = std::cos(phi);
  y << l * s, -l * c, l * omega * c, l * omega * s,
      m * (l * l * omega * omega + g * l * c) / (2 * l * l);
  return y;
}

// The three hidden constraints of the index-0 form: g, p.v and (3.6).
ManifoldEquations index0_constraints(const Vector& p) {
  ManifoldEquations eq;
  eq.k = 3;
  eq.c = [p](double, VecIn y, VecOut c) {
    const double m = p[0], l = p[1], g = p[2];
    c[0] = y[0] * y[0] + y[1] * y[1] - l * l;
    c[1] = y[0] * y[2] + y[1] * y[3];
    c[2] = y[4] - m * (y[2] * y[2] + y[3] * y[3] - g * y[1]) / (2 * l * l);
  };
  return eq;
}

}  // namespace

Vector pendulum_exact_angle(double phi_start, double g_over_l, double t) {
  if (!(std::abs(phi_start) < std::numbers::pi))
    throw InvalidArgument("pendulum_exact_angle: |phi0| must be below pi (a swinging pendulum)");
  const double k = std::sin(phi_start / 2), kc = std::sqrt(1 - k * k);
  const double Omega = std::sqrt(g_over_l);
  const Jacobi j = jacobi_elliptic(Omega * t, k * k);
  Vector out(2);
  out << 2 * std::asin(k * j.cn / j.dn), -2 * k * kc * Omega * j.sn / j.dn;
  return out;
}

BuiltinProblem pendulum_index0() {
  BuiltinProblem p;
  p.name = "pendulum-index0";
  p.title = "pendulum with m, l, g in its index-0 form (notes (3.7)), an ODE that drifts";
  p.description =
      "p' = v, m v' = -2 lambda p - m g e_y, lambda' = -3 m g v_y / (2 l^2) (3.7);\n"
      "p = (m, l, g); drifts off |p| = l, p.v = 0 and (3.6); the problem's projector (coordinate\n"
      "projection (3.10) onto all three) removes the drift.";
  p.source = "004_cf00f948f14222cf.txt ch. 3.2.1, eqs. (3.2)-(3.7); ch. 9.5.2";
  p.parameter_names = {"m", "l", "g"};
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 5;
  d.p = Vector(3);
  d.p << default_m, default_l, default_g;
  d.component_names = {"p_x", "p_y", "v_x", "v_y", "lambda"};
  d.f = [](double, VecIn y, VecOut f, VecIn p) {
    const double m = p[0], l = p[1], g = p[2];
    f[0] = y[2];
    f[1] = y[3];
    f[2] = -2 * y[0] * y[4] / m;
    f[3] = -g - 2 * y[1] * y[4] / m;
    f[4] = -3 * m * g * y[3] / (2 * l * l);
  };
  d.jacobian = [](double, VecIn y, MatOut J, VecIn p) {
    const double m = p[0], l = p[1], g = p[2];
    J(0, 2) = J(1, 3) = 1.0;
    J(2, 0) = -2 * y[4] / m;
    J(2, 4) = -2 * y[0] / m;
    J(3, 1) = -2 * y[4] / m;
    J(3, 4) = -2 * y[1] / m;
    J(4, 3) = -3 * m * g / (2 * l * l);
  };
  d.constraint_monitor = [](double, VecIn y, VecIn p) {
    const double m = p[0], l = p[1], g = p[2];
    ConstraintResiduals r;
    r.position = std::abs(y[0] * y[0] + y[1] * y[1] - l * l);
    r.velocity = std::abs(y[0] * y[2] + y[1] * y[3]);
    r.acceleration = std::abs(y[4] - m * (y[2] * y[2] + y[3] * y[3] - g * y[1]) / (2 * l * l));
    return r;
  };
  // (the projection allocates, as coordinate_projection always does)
  d.project = [](double t, VecOut y, Projection, VecIn p) {
    return coordinate_projection(index0_constraints(p), t, y);
  };
  p.t0 = 0.0;
  p.t_end = 10.0;
  p.rtol = p.atol = 1e-8;
  p.plot_components = {0, 1};
  p.scd_components = {0, 1, 2, 3, 4};
  // the whole state depends on m, l, g: y0 (at phi0, at rest) and the exact solution for p
  p.apply_parameters = [](BuiltinProblem& q) {
    const double m = q.dae.p[0], l = q.dae.p[1], g = q.dae.p[2];
    if (!(m > 0 && l > 0))
      throw InvalidArgument(
          "problem 'pendulum-index0': the mass m and the length l must be "
          "positive (p = (m, l, g))");
    q.y0 = cartesian_state(phi0, 0.0, m, l, g);
    if (!(g >= 0)) return;  // (the exact solution below is for g >= 0)
    q.exact = [m, l, g](double t) {
      const Vector a = pendulum_exact_angle(phi0, g / l, t);
      return cartesian_state(a[0], a[1], m, l, g);
    };
    q.reference = ReferenceSolution{q.t_end, q.exact(q.t_end),
                                    "exact solution (Jacobi elliptic functions, AGM)"};
  };
  p.apply_parameters(p);
  return p;
}

BuiltinProblem pendulum_state_space() {
  BuiltinProblem p;
  p.name = "pendulum-ssf";
  p.title = "pendulum in its state-space form (notes (9.8)): phi'' = -(g/l) sin phi";
  p.description =
      "phi' = omega, omega' = -(g / l) sin(phi), p = (m, l, g) (m does not enter); the notes'\n"
      "(9.8) prints the linearization phi2' = -g phi1. Exact solution: Jacobi elliptic functions.";
  p.source = "004_cf00f948f14222cf.txt ch. 9.5.2, eq. (9.8) (minimal coordinates)";
  p.parameter_names = {"m", "l", "g"};
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 2;
  d.p = Vector(3);
  d.p << default_m, default_l, default_g;
  d.component_names = {"phi", "omega"};
  d.f = [](double, VecIn y, VecOut f, VecIn p) {
    f[0] = y[1];
    f[1] = -(p[2] / p[1]) * std::sin(y[0]);
  };
  d.jacobian = [](double, VecIn y, MatOut J, VecIn p) {
    J(0, 1) = 1.0;
    J(1, 0) = -(p[2] / p[1]) * std::cos(y[0]);
  };
  p.t0 = 0.0;
  p.t_end = 10.0;
  p.y0 = Vector(2);
  p.y0 << phi0, 0.0;
  p.rtol = p.atol = 1e-8;
  // y0 holds no parameter; the exact solution depends on g / l
  p.apply_parameters = [](BuiltinProblem& q) {
    const double g_over_l = q.dae.p[2] / q.dae.p[1];
    if (!(g_over_l >= 0 && std::isfinite(g_over_l))) return;  // (exact for g / l >= 0)
    q.exact = [g_over_l](double t) { return pendulum_exact_angle(phi0, g_over_l, t); };
    q.reference = ReferenceSolution{q.t_end, q.exact(q.t_end),
                                    "exact solution (Jacobi elliptic functions, AGM)"};
  };
  p.apply_parameters(p);
  return p;
}

}  // namespace daekit
