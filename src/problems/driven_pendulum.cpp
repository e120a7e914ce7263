// A pendulum whose suspension point is moved up and down, s(t) = A cos(Omega t) (Kapitza's
// pendulum): the rheonomic constraint test model (issue 14, part 4; MechanicalSystem with
// rheonomic = true). Bob q = (x, y), mass m, rod length l, gravity g:
//   m q'' = (0, -m g) - G^T lambda,   0 = g(t, q) = 1/2 (x^2 + (y - s(t))^2 - l^2),
//   G = (x, y - s),   g_t = -(y - s) s'(t),
// velocity constraint G v + g_t = 0, acceleration constraint with the curvature
//   g_qq(v, v) + 2 g_tq v + g_tt = v_x^2 + (v_y - s')^2 - (y - s) s''
// (given analytically; the tests compare daekit's differences of G v + g_t along (1, v) with it).
// Angle phi from the downward vertical, x = l sin phi, y = s - l cos phi; in the frame of the
// support the pendulum feels gravity g + s''(t):
//   phi'' = -(g + s''(t)) sin(phi) / l,
// the independent formulation of the reference (RK4). With A^2 Omega^2 > 2 g l the upright
// position phi = pi is stable (Kapitza 1951; Landau-Lifshitz, Mechanics, sec. 30): started
// at phi0 = pi - 0.2 the pendulum swings slowly about the top instead of falling.
// m = 1, l = 1, g = 9.81, Omega = 200, A = 0.05 (p = (A)), t in [0, 2].
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

constexpr double mass_bob = 1.0, rod = 1.0, gravity = 9.81, drive_frequency = 200.0;
constexpr double default_amplitude = 0.05;
constexpr double start_angle = 3.141592653589793 - 0.2;

double support(double A, double t) { return A * std::cos(drive_frequency * t); }
double support_velocity(double A, double t) {
  return -A * drive_frequency * std::sin(drive_frequency * t);
}
double support_acceleration(double A, double t) {
  return -A * drive_frequency * drive_frequency * std::cos(drive_frequency * t);
}

}  // namespace

// (q, v, lambda) at t from the angle reference: q = (l sin phi, s - l cos phi),
// lambda = m omega^2 + m (g + s'') cos(phi) / l (the radial balance m r.r'' = -m l^2 omega^2).
Vector driven_state(double A, double t) {
  const Vector a = driven_pendulum_reference(A, t);
  const double phi = a[0], omega = a[1], c = std::cos(phi), s = std::sin(phi);
  Vector y(5);
  y << rod * s, support(A, t) - rod * c, rod * c * omega, support_velocity(A, t) + rod * s * omega,
      mass_bob * omega * omega + mass_bob * (gravity + support_acceleration(A, t)) * c / rod;
  return y;
}

MechanicalSystem driven_pendulum_system(double amplitude) {
  MechanicalSystem s;
  s.name = "driven pendulum";
  s.nq = 2;
  s.nlambda = 1;
  s.constant_mass = true;
  s.rheonomic = true;
  s.p = Vector::Constant(1, amplitude);
  s.mass = [](double, VecIn, MatOut M) { M = mass_bob * Matrix::Identity(2, 2); };
  s.force = [](double, VecIn, VecIn, VecOut f) { f << 0.0, -mass_bob * gravity; };
  s.g = [](double t, VecIn q, VecOut g, VecIn p) {
    const double dy = q[1] - support(p[0], t);
    g[0] = 0.5 * (q[0] * q[0] + dy * dy - rod * rod);
  };
  s.G = [](double t, VecIn q, MatOut G, VecIn p) {
    G(0, 0) = q[0];
    G(0, 1) = q[1] - support(p[0], t);
  };
  s.g_t = [](double t, VecIn q, VecOut gt, VecIn p) {
    gt[0] = -(q[1] - support(p[0], t)) * support_velocity(p[0], t);
  };
  s.curvature = [](double t, VecIn q, VecIn v, VecOut c, VecIn p) {
    const double sv = support_velocity(p[0], t);
    c[0] = v[0] * v[0] + (v[1] - sv) * (v[1] - sv) -
           (q[1] - support(p[0], t)) * support_acceleration(p[0], t);
  };
  return s;
}

namespace {

// Consistent (q, v, a, lambda) at t0 for amplitude A, started at rest relative to the support
// at phi0 (the support's position and velocity depend on A).
Vector driven_initial_values(const MechanicalSystem& sys, double A, double t0) {
  Vector q0(2), v0(2);
  q0 << rod * std::sin(start_angle), support(A, t0) - rod * std::cos(start_angle);
  v0 << 0.0, support_velocity(A, t0);
  return initial_values(sys, Formulation::Index3, t0, q0, v0);
}

}  // namespace

BuiltinProblem driven_pendulum() {
  BuiltinProblem p;
  p.name = "pendulum-driven";
  p.title = "pendulum with an oscillating suspension point (rheonomic constraint), index 3";
  p.description =
      "m q'' = -m g e_y - G^T lambda, 0 = |q - (0, s(t))|^2 / 2 - l^2 / 2, s = A cos(200 t);\n"
      "started near the top (phi0 = pi - 0.2) it stays up (Kapitza) for A = 0.05 and falls\n"
      "for A = 0 (p = (A)); t in [0, 2].";
  p.source =
      "Kapitza's pendulum (Landau-Lifshitz, Mechanics, sec. 30) as a rheonomic multibody "
      "model; reference: the angle ODE phi'' = -(g + s'') sin(phi) / l by RK4";
  p.parameter_names = {"A"};
  p.mechanical = driven_pendulum_system(default_amplitude);
  p.dae = formulate(*p.mechanical, Formulation::Index3);
  p.dae.name = p.name;
  p.dae.component_names = {"x", "y", "v_x", "v_y", "lambda"};
  p.t0 = 0.0;
  p.t_end = 2.0;
  const double A = default_amplitude;
  p.y0 = driven_initial_values(*p.mechanical, A, p.t0);
  // another A moves the support, and with it the bob's start q0 (and v0): y0 from phi0 again
  // (keeping q0 of the default A, as with_parameters' rule for mechanical problems does, would
  // start off the rod's circle). The reference (an RK4 run of ~5 ms) is the default A's only.
  p.apply_parameters = [](BuiltinProblem& q) {
    q.mechanical = driven_pendulum_system(q.dae.p[0]);
    if (q.dae.n == mechanical_layout(*q.mechanical, Formulation::Index3).n)
      q.y0 = driven_initial_values(*q.mechanical, q.dae.p[0], q.t0);
  };
  p.rtol = p.atol = 1e-7;
  // without it the velocity constraint drifts to |G v| = 4e-4 at rtol = 1e-7 (radau5; the
  // velocities, up to 10, 2 digits less accurate than the positions); with it the default run
  // is also cheaper (23400 instead of 33526 f evaluations, scd 7.24 instead of 7.78)
  p.projection = Projection::Velocity;
  static const Vector reference_at_end = driven_state(A, p.t_end);  // computed once (~5 ms)
  p.reference = ReferenceSolution{
      p.t_end, reference_at_end,
      "RK4 (h = 1e-5, compensated sums) on the angle ODE phi'' = -(g + s'') sin(phi) / l"};
  p.plot_components = {0, 1};
  p.scd_components = {0, 1};
  return p;
}

Vector driven_pendulum_reference(double amplitude, double t, double h) {
  auto rhs = [amplitude](double tt, const Eigen::Vector2d& z) {
    return Eigen::Vector2d(z[1],
                           -(gravity + support_acceleration(amplitude, tt)) * std::sin(z[0]) / rod);
  };
  Eigen::Vector2d z(start_angle, 0.0), comp = Eigen::Vector2d::Zero();
  const int steps = std::max(1, static_cast<int>(std::ceil(t / h)));
  const double hh = t / steps;
  for (int k = 0; k < steps; ++k) {
    const double tk = k * hh;
    const Eigen::Vector2d k1 = rhs(tk, z), k2 = rhs(tk + hh / 2, z + hh / 2 * k1),
                          k3 = rhs(tk + hh / 2, z + hh / 2 * k2), k4 = rhs(tk + hh, z + hh * k3);
    const Eigen::Vector2d inc = hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4) - comp;
    const Eigen::Vector2d next = z + inc;
    comp = (next - z) - inc;
    z = next;
  }
  return Vector(z);
}

}  // namespace daekit
