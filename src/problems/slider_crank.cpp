// A slider-crank mechanism driven by a prescribed crank motion (issue 14, part 4: a rheonomic
// constraint among holonomic ones, the typical prescribed motion of machine models).
// Planar, the crank O-A (length r, inertia J1 about O) turns about the origin, the connecting rod
// A-B (length L, mass m2, inertia J2 about its centre (xc, yc), angle phi) ends in the slider B
// (mass m3) on the x axis. q = (theta, xc, yc, phi, xB), M = diag(J1, m2, m2, J2, m3), gravity
// on the rod and the slider. Constraints (nlambda = nq = 5: no degree of freedom left):
//   g1 = xc - (L/2) cos phi - r cos theta,   g2 = yc - (L/2) sin phi - r sin theta   (A),
//   g3 = xc + (L/2) cos phi - xB,            g4 = yc + (L/2) sin phi                 (B),
//   g5 = theta - theta_d(t),  theta_d = omega0 t + alpha t^2 / 2       (rheonomic, the drive).
// g_t = (0, 0, 0, 0, -theta_d') and the curvature are left to daekit's differences. The motion
// is kinematic, so it is known exactly:
//   theta = theta_d, sin phi = -(r/L) sin theta (cos phi > 0), yc = (r/2) sin theta,
//   xc = r cos theta + (L/2) cos phi, xB = r cos theta + L cos phi,
// and the multipliers are the joint forces and the driving torque (lambda5 = the torque the
// drive applies, with daekit's sign M v' = f - G^T lambda).
// r = 0.1, L = 0.3, J1 = 0.01, m2 = 1, J2 = m2 L^2 / 12, m3 = 0.5, g = 9.81,
// omega0 = 2 pi, alpha = 3 (theta(2) = 4 pi + 6: no component of the reference is zero, which
// would make its relative error, scd, meaningless); t in [0, 2].
#include <cmath>
#include <numbers>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

constexpr double r = 0.1, L = 0.3, J1 = 0.01, m2 = 1.0, J2 = m2 * L * L / 12, m3 = 0.5;
constexpr double gravity = 9.81;
constexpr double omega0 = 2 * std::numbers::pi, alpha = 3.0;

double crank_angle(double t) { return omega0 * t + 0.5 * alpha * t * t; }
double crank_rate(double t) { return omega0 + alpha * t; }

}  // namespace

MechanicalSystem slider_crank_system() {
  MechanicalSystem s;
  s.name = "slider-crank";
  s.nq = 5;
  s.nlambda = 5;
  s.constant_mass = true;
  s.rheonomic = true;
  s.mass = [](double, VecIn, MatOut M) {
    M.setZero();
    M.diagonal() << J1, m2, m2, J2, m3;
  };
  s.force = [](double, VecIn, VecIn, VecOut f) { f << 0.0, 0.0, -m2 * gravity, 0.0, 0.0; };
  s.g = [](double t, VecIn q, VecOut g) {
    const double th = q[0], xc = q[1], yc = q[2], phi = q[3], xB = q[4];
    g[0] = xc - 0.5 * L * std::cos(phi) - r * std::cos(th);
    g[1] = yc - 0.5 * L * std::sin(phi) - r * std::sin(th);
    g[2] = xc + 0.5 * L * std::cos(phi) - xB;
    g[3] = yc + 0.5 * L * std::sin(phi);
    g[4] = th - crank_angle(t);
  };
  s.G = [](double, VecIn q, MatOut G) {
    const double th = q[0], phi = q[3];
    G.setZero();
    G(0, 0) = r * std::sin(th);
    G(0, 1) = 1.0;
    G(0, 3) = 0.5 * L * std::sin(phi);
    G(1, 0) = -r * std::cos(th);
    G(1, 2) = 1.0;
    G(1, 3) = -0.5 * L * std::cos(phi);
    G(2, 1) = 1.0;
    G(2, 3) = -0.5 * L * std::sin(phi);
    G(2, 4) = -1.0;
    G(3, 2) = 1.0;
    G(3, 3) = 0.5 * L * std::cos(phi);
    G(4, 0) = 1.0;
  };
  return s;
}

Vector slider_crank_exact(double t) {
  const double th = crank_angle(t), w = crank_rate(t);
  const double sphi = -(r / L) * std::sin(th), cphi = std::sqrt(1 - sphi * sphi);
  const double phi = std::asin(sphi), dphi = -(r / L) * std::cos(th) * w / cphi;
  Vector y(10);
  y << th, r * std::cos(th) + 0.5 * L * cphi, 0.5 * r * std::sin(th), phi,
      r * std::cos(th) + L * cphi,  // positions
      w, -r * std::sin(th) * w - 0.5 * L * sphi * dphi, 0.5 * r * std::cos(th) * w, dphi,
      -r * std::sin(th) * w - L * sphi * dphi;  // velocities
  return y;
}

BuiltinProblem slider_crank() {
  BuiltinProblem p;
  p.name = "slider-crank";
  p.title = "slider-crank with a prescribed crank motion (rheonomic constraint), index 3";
  p.description =
      "crank, connecting rod and slider, q = (theta, xc, yc, phi, xB), 5 constraints of which\n"
      "theta = omega0 t + alpha t^2 / 2 is rheonomic (g_t, curvature by differences); the\n"
      "motion is kinematic and known exactly; lambda are the joint forces and the drive torque.";
  p.source = "daekit's model (issue 14), the classical slider-crank with a driven crank";
  p.mechanical = slider_crank_system();
  p.dae = formulate(*p.mechanical, Formulation::Index3);
  p.dae.name = p.name;
  p.dae.component_names = {"theta",   "xc",      "yc",      "phi",     "xB",
                           "v_theta", "v_xc",    "v_yc",    "v_phi",   "v_xB",
                           "lambda1", "lambda2", "lambda3", "lambda4", "lambda5"};
  p.t0 = 0.0;
  p.t_end = 2.0;
  const Vector e0 = slider_crank_exact(0.0);
  p.y0 = initial_values(*p.mechanical, Formulation::Index3, p.t0, e0.head(5), e0.tail(5));
  p.rtol = p.atol = 1e-8;
  p.scd_components = {0, 1, 2, 3, 4};
  p.plot_components = {4};
  Vector ref = Vector::Zero(15);
  ref.head(10) = slider_crank_exact(p.t_end);
  ref.tail(5) =
      initial_values(*p.mechanical, Formulation::Index3, p.t_end, ref.head(5), ref.segment(5, 5))
          .tail(5);
  p.reference = ReferenceSolution{p.t_end, ref,
                                  "exact kinematics; multipliers from the saddle-point system "
                                  "at the exact (q, v)"};
  return p;
}

}  // namespace daekit
