// The planar truck of Eich-Soellner and Fuhrer ("Numerical Methods in Multibody Dynamics",
// Teubner 1998), the test problem of paper 003 Section 5 (003_93cd61043aac115a.txt: "a truck in
// 2D ... described by 20 equations in index 2 form", refs [3, 6]). The equations are not in the
// papers; they were found with the code search as the Python port (Verdier and Fuhrer,
// 2009/2011) of the MATLAB files of the book's homepage ("Edda Eich-Soellner/Claus Fuhrer
// 1997"), whose constrained variant has exactly 9 positions, 9 velocities and 2 multipliers.
// Transcribed here from those equations (parameters, nominal forces, excitation, initial state).
//
// Bodies (vertical plane; reference points and angles):
//   1 rear wheel  (a12, p1);  2 chassis (0, p2), angle p3;  3 front wheel (a23, p4);
//   4 cabin (a24 - b24, p5), angle p6;  5 loading area (p7, p8), angle p9.
// Spring-damper elements between a point P_from on one body and P_to on another:
//   rho = P_to - P_from, L = |rho|, L' = rho.rho'/L, f = k L + d L' + f_N (f_N: nominal force),
//   F = f rho / L acting with +F on the "from" body and -F on the "to" body:
//   10: road (a12, u1(t)) -> wheel 1;  12: wheel 1 -> chassis (a12, h1);
//   30: road (a23, u2(t)) -> wheel 3;  23: wheel 3 -> chassis (a23, h1);
//   24: chassis (a24, h2) -> cabin (b24, h3);  42: chassis (a42, h2) -> cabin (b42, h3);
//   25: chassis (a25, h2) -> load (c25, h3).
// Constraint: the load is hinged to the chassis, rho52 = load (cc1, cc2) - chassis (ac1, ac2)
//   = 0 (2 equations), G = d rho52 / dp (the source's G). The source writes M v' = f + G^T la;
//   daekit's MechanicalSystem has M v' = f - G^T lambda, so lambda = -la.
// Equations of motion (gravity g = 9.81, body-fixed points r = (rx, ry), c = cos, s = sin):
//   m1 v1' = -F10_y + F12_y - m1 g,   m3 v4' = -F30_y + F23_y - m3 g,
//   m2 v2' = -F12_y - F23_y + F24_y + F42_y + F25_y - m2 g,
//   m4 v5' = -F42_y - F24_y - m4 g,   m5 v7' = -F25_x,   m5 v8' = -F25_y - m5 g,
//   rotations: the torque of a force F at r on a body of angle a is taken as published,
//     (rx F_y + ry F_x) c(a) - (rx F_x + ry F_y) s(a)
//   (a virtual-work derivation gives rx F_y - ry F_x in the cosine part: the two agree here
//   except for the chassis' wheel points, ry = h1 = -1.34; the h2 = h3 = 0 points do not
//   care. We keep the published model, the one paper 003 integrated.)
// Road excitation: u(t) = 0.001 (t - t0)^6 exp(-(t - t0)) for t >= t0 (a ~12 cm hump), speed
//   15 m/s: the front wheel at t0 = 2/15 s, the rear one (a23 - a12)/15 s later.
// Initial state: the steady state p = (0.5, 2, 0, 0.5, 2.9, 0, -1.46, 2.9, 0), v = 0, where the
// nominal forces balance gravity, la = (0, 6.80562088888888e4) (so lambda0 = -la).
#include <cmath>

#include "daekit/nonlinear/euler_lagrange.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

constexpr double m1 = 1450, m2 = 3335, m3 = 600, m4 = 1100, m5 = 11515;
constexpr double l2 = 14313, l4 = 948, l5 = 33000;
constexpr double a12 = -2.06, a23 = 2.44, a24 = 1.94, a42 = 3.64, a25 = 0.98;
constexpr double b42 = 0.9, b24 = -0.8, c25 = 2.44;
constexpr double ac1 = -3.07, ac2 = 0.15, cc1 = -1.61, cc2 = -0.75;
constexpr double h1 = -1.34, h2 = 0.0, h3 = 0.0;
constexpr double k10 = 44e5, k12 = 8.247e5, k30 = 22e5, k23 = 2.711e5, k42 = 1.357e5, k24 = 1.357e5,
                 k25 = 9.0e5;
constexpr double d10 = 600, d12 = 21593, d30 = 300, d23 = 38537, d24 = 12218, d42 = 12218,
                 d25 = 38500;
constexpr double f10N = -2.32914516200000e+6, f12N = -0.24687266200000e+6,
                 f30N = -1.14743483800000e+6, f23N = -0.08492483800000e+6,
                 f24N = -0.12784288235294e+6, f42N = -0.12720811764706e+6,
                 f25N = -0.85490594111111e+6;
constexpr double gravity = 9.81;
constexpr double speed = 15.0;
constexpr double front_start = 2.0 / speed, rear_start = front_start + (a23 - a12) / speed;

struct Point {
  double x, y, vx, vy;
};

// P = (bx, by) + R(a) r and its velocity, for a body with reference (bx, by), angle a.
Point point(double bx, double by, double a, double vbx, double vby, double va, double rx,
            double ry) {
  const double c = std::cos(a), s = std::sin(a);
  return {bx + c * rx - s * ry, by + s * rx + c * ry, vbx + va * (-s * rx - c * ry),
          vby + va * (c * rx - s * ry)};
}

struct Force {
  double x, y;
};

Force spring_damper(double k, double d, double fN, const Point& from, const Point& to) {
  const double rx = to.x - from.x, ry = to.y - from.y;
  const double rvx = to.vx - from.vx, rvy = to.vy - from.vy;
  const double L = std::hypot(rx, ry);
  const double Ld = (rx * rvx + ry * rvy) / L;
  const double f = k * L + d * Ld + fN;
  return {f * rx / L, f * ry / L};
}

void excitation(double t, double t0, double& u, double& ud) {
  if (t < t0) {
    u = ud = 0.0;
    return;
  }
  const double s = t - t0, e = std::exp(-s);
  u = 1e-3 * std::pow(s, 6) * e;
  ud = 6e-3 * std::pow(s, 5) * e - u;
}

// The published torque of a force F at the body-fixed point r on a body of angle a.
double torque(double rx, double ry, const Force& F, double c, double s) {
  return (rx * F.y + ry * F.x) * c - (rx * F.x + ry * F.y) * s;
}

void truck_force(double t, VecIn p, VecIn v, VecOut f) {
  double u1, u1d, u2, u2d;
  excitation(t, rear_start, u1, u1d);
  excitation(t, front_start, u2, u2d);
  const Point road1{a12, u1, 0.0, u1d}, road3{a23, u2, 0.0, u2d};
  const Point wheel1 = point(a12, p[0], 0.0, 0.0, v[0], 0.0, 0.0, 0.0);
  const Point wheel3 = point(a23, p[3], 0.0, 0.0, v[3], 0.0, 0.0, 0.0);
  auto chassis = [&](double rx, double ry) {
    return point(0.0, p[1], p[2], 0.0, v[1], v[2], rx, ry);
  };
  auto cabin = [&](double rx, double ry) {
    return point(a24 - b24, p[4], p[5], 0.0, v[4], v[5], rx, ry);
  };
  const Point load25 = point(p[6], p[7], p[8], v[6], v[7], v[8], c25, h3);
  const Force F10 = spring_damper(k10, d10, f10N, road1, wheel1);
  const Force F12 = spring_damper(k12, d12, f12N, wheel1, chassis(a12, h1));
  const Force F30 = spring_damper(k30, d30, f30N, road3, wheel3);
  const Force F23 = spring_damper(k23, d23, f23N, wheel3, chassis(a23, h1));
  const Force F24 = spring_damper(k24, d24, f24N, chassis(a24, h2), cabin(b24, h3));
  const Force F42 = spring_damper(k42, d42, f42N, chassis(a42, h2), cabin(b42, h3));
  const Force F25 = spring_damper(k25, d25, f25N, chassis(a25, h2), load25);
  const double c3 = std::cos(p[2]), s3 = std::sin(p[2]), c6 = std::cos(p[5]), s6 = std::sin(p[5]),
               c9 = std::cos(p[8]), s9 = std::sin(p[8]);
  const Force mF12{-F12.x, -F12.y}, mF23{-F23.x, -F23.y}, mF24{-F24.x, -F24.y},
      mF42{-F42.x, -F42.y}, mF25{-F25.x, -F25.y};
  f[0] = -F10.y + F12.y - m1 * gravity;
  f[1] = -F12.y - F23.y + F24.y + F42.y + F25.y - m2 * gravity;
  f[2] = torque(a12, h1, mF12, c3, s3) + torque(a23, h1, mF23, c3, s3) +
         torque(a24, h2, F24, c3, s3) + torque(a42, h2, F42, c3, s3) + torque(a25, h2, F25, c3, s3);
  f[3] = -F30.y + F23.y - m3 * gravity;
  f[4] = -F42.y - F24.y - m4 * gravity;
  f[5] = torque(b24, h3, mF24, c6, s6) + torque(b42, h3, mF42, c6, s6);
  f[6] = -F25.x;
  f[7] = -F25.y - m5 * gravity;
  f[8] = torque(c25, h3, mF25, c9, s9);
}

}  // namespace

MechanicalSystem truck_multibody_system() {
  MechanicalSystem s;
  s.name = "truck (Eich-Soellner/Fuhrer)";
  s.nq = 9;
  s.nlambda = 2;
  s.constant_mass = true;
  s.mass = [](double, VecIn, MatOut M) {
    M.setZero();
    const double d[9] = {m1, m2, l2, m3, m4, l4, m5, m5, l5};
    for (int i = 0; i < 9; ++i) M(i, i) = d[i];
  };
  s.force = [](double t, VecIn q, VecIn v, VecOut f) { truck_force(t, q, v, f); };
  s.g = [](double, VecIn p, VecOut g) {
    const double c3 = std::cos(p[2]), s3 = std::sin(p[2]), c9 = std::cos(p[8]), s9 = std::sin(p[8]);
    g[0] = p[6] + c9 * cc1 - s9 * cc2 - (c3 * ac1 - s3 * ac2);
    g[1] = p[7] + s9 * cc1 + c9 * cc2 - (p[1] + s3 * ac1 + c3 * ac2);
  };
  s.G = [](double, VecIn p, MatOut G) {
    const double c3 = std::cos(p[2]), s3 = std::sin(p[2]), c9 = std::cos(p[8]), s9 = std::sin(p[8]);
    G.setZero();
    G(0, 2) = ac1 * s3 + ac2 * c3;
    G(0, 6) = 1.0;
    G(0, 8) = -cc1 * s9 - cc2 * c9;
    G(1, 1) = -1.0;
    G(1, 2) = -ac1 * c3 + ac2 * s3;
    G(1, 7) = 1.0;
    G(1, 8) = cc1 * c9 - cc2 * s9;
  };
  s.curvature = [](double, VecIn p, VecIn v, VecOut out) {
    const double c3 = std::cos(p[2]), s3 = std::sin(p[2]), c9 = std::cos(p[8]), s9 = std::sin(p[8]);
    out[0] = (ac1 * c3 - ac2 * s3) * v[2] * v[2] + (-cc1 * c9 + cc2 * s9) * v[8] * v[8];
    out[1] = (ac1 * s3 + ac2 * c3) * v[2] * v[2] + (-cc1 * s9 - cc2 * c9) * v[8] * v[8];
  };
  return s;
}

BuiltinProblem truck_euler_lagrange() {
  BuiltinProblem p;
  p.name = "truck-el";
  p.title =
      "planar truck of Eich-Soellner/Fuhrer (Arevalo, Fuhrer and Soderlind (1996) Sec. 5), index "
      "2, 20 equations";
  p.description =
      "5 bodies (2 wheels, chassis, cabin, load hinged to the chassis), 9 positions, 9\n"
      "velocities, 2 multipliers; velocity-level constraint G(p) v = 0 (euler_lagrange_form);\n"
      "road hump under the front wheel from t = 2/15 s, the rear one 0.3 s later; t in [0, 3].";
  p.source =
      "Eich-Soellner & Fuhrer, Numerical Methods in Multibody Dynamics (1998), truck model "
      "(Python port of the book's MATLAB files by Verdier & Fuhrer); Arevalo, Fuhrer and Soderlind "
      "(1996) Section 5";
  p.mechanical = truck_multibody_system();
  p.euler_lagrange = euler_lagrange_form(*p.mechanical);
  p.euler_lagrange->name = p.name;
  p.dae = to_mass_matrix_form(*p.euler_lagrange);
  p.t0 = 0.0;
  p.t_end = 3.0;
  p.y0 = Vector::Zero(20);
  const double q0[9] = {0.5, 2.0, 0.0, 0.5, 2.0 + ac2 - cc2, 0.0, ac1 - cc1, 2.0 + ac2 - cc2, 0.0};
  for (int i = 0; i < 9; ++i) p.y0[i] = q0[i];
  p.y0[18] = -0.0;
  p.y0[19] = -6.80562088888888e+4;  // the source's la2, with daekit's sign
  p.rtol = p.atol = 1e-8;
  p.scd_components = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  p.plot_components = {1, 2, 4, 7};
  return p;
}

}  // namespace daekit

namespace daekit {

// The same truck as a MechanicalSystem in its index-3 form (formulate), the form the notes'
// ch. 9 states for multibody systems ((9.1), (9.2)): q' = v, M v' = f - G^T lambda, 0 = g(q);
// y = (q, v, lambda), 20 components; consistent lambda0 from the saddle-point system.
BuiltinProblem truck_index3() {
  BuiltinProblem p;
  p.name = "truck-index3";
  p.title = "planar truck of Eich-Soellner/Fuhrer (notes 9.5.1, Fig. 9.2) in index-3 form";
  p.description =
      "5 bodies (chassis, load hinged to it, cabin, 2 wheels), 9 positions, 2 constraints\n"
      "(the load's hinge), road hump under the wheels; position constraint g(q) = 0 (index 3),\n"
      "the form of notes (9.1)-(9.2); t in [0, 3].";
  p.source =
      "004_cf00f948f14222cf.txt ch. 9.5.1 (model of [ESF98, p. 20]); equations of "
      "truck_multibody_system (Eich-Soellner & Fuhrer 1998, see truck-el)";
  p.mechanical = truck_multibody_system();
  p.dae = formulate(*p.mechanical, Formulation::Index3);
  p.dae.name = p.name;
  p.t0 = 0.0;
  p.t_end = 3.0;
  const BuiltinProblem el = truck_euler_lagrange();
  p.y0 =
      initial_values(*p.mechanical, Formulation::Index3, p.t0, el.y0.head(9), el.y0.segment(9, 9));
  // 1e-7 since radau5 controls the local error against 0.1 (rtol |y| + atol) (issue 24): at
  // rtol = 1e-8 its Newton iteration with the difference Jacobian stalls at t = 0.16
  // (contraction 0.98 for every h down to 1e-16; RADAU5's transformed tolerance, 4.6e-7 there,
  // stalls the same way from rtol = 1e-11 on)
  p.rtol = p.atol = 1e-7;
  p.scd_components = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  p.plot_components = {1, 2, 4, 7};
  return p;
}

}  // namespace daekit
