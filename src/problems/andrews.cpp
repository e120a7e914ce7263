// Andrews' squeezing mechanism: seven rigid bodies in plane motion, joined without friction,
// driven by a constant torque and a spring (Giles 1978, Manning 1981; Hairer-Wanner II, VII.7;
// IVP Test Set problem ANDREWS, Mazzia & Magherini, release 2.4, andrews.f). Angles
//   q = (beta, Theta, gamma, Phi, delta, Omega, epsilon),
//   M(q) q'' = f(q, q') - G(q)^T lambda,   0 = g(q) (6 loop-closure equations),   G = dg/dq,
// with M 7x7 (it depends on Theta, Phi, Omega), f = Coriolis/centrifugal terms + the drive torque
// mom on beta + the spring force on gamma (spring of rest length l0 and stiffness c0 from the
// fixed point (xc, yc) to the point D of body 3). index3_form gives the test set's 27-variable
// form y = (q, q', w, lambda): q' = v, v' = w, 0 = M(q) w - f(q, v) + G(q)^T lambda, 0 = g(q);
// index tags (1 x7, 2 x7, 3 x13); t in [0, 0.03].
// Jacobian: the exact analytic df/dy of the 27-variable form (including the q-derivatives of
// M(q) w, f and G(q)^T lambda, which the test set's approximate Jacobian leaves out); the
// curvature g_qq(q)(v, v) is analytic as well (from the same Hessians of g).
// y0: the test set's consistent initial values; reference y(0.03): the test set's (PSIDE,
// rtol = atol = 1e-14 on a Cray C90). h0: the test-set driver has no fixed value (it asks for
// h0 with the tolerances); we follow the set's convention rtol = atol = h0, so h0 = 1e-7 with
// the default tolerances (h0 = 1e-10 gives the same accuracy and 110 instead of 111 steps).
#include <cmath>

#include "daekit/nonlinear/formulations.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

// Parameters (Hairer-Wanner II, VII.7; IVP Test Set andrews.f).
constexpr double m1 = .04325, m2 = .00365, m3 = .02373, m4 = .00706, m5 = .07050, m6 = .00706,
                 m7 = .05498;
constexpr double xa = -.06934, ya = -.00227, xb = -.03635, yb = .03273, xc = .014, yc = .072;
constexpr double c0 = 4530;
constexpr double i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5,
                 i6 = 5.667e-7, i7 = 1.912e-5;
constexpr double d = 28e-3, da = 115e-4, e = 2e-2, ea = 1421e-5, rr = 7e-3, ra = 92e-5,
                 l0 = 7785e-5;
constexpr double ss = 35e-3, sa = 1874e-5, sb = 1043e-5, sc = 18e-3, sd = 2e-2;
constexpr double ta = 2308e-5, tb = 916e-5, u = 4e-2, ua = 1228e-5, ub = 449e-5;
constexpr double zf = 2e-2, zt = 4e-2, fa = 1421e-5, mom = 33e-3;

// Frequently used products.
constexpr double kT = m2 * da * rr;        // coupling beta-Theta (body 2)
constexpr double kP = m4 * zt * (e - ea);  // coupling Phi-delta (body 4)
constexpr double kO = m6 * u * (zf - fa);  // coupling Omega-epsilon (body 6)

// Sines and cosines of the angles and of the sums beta+Theta, Phi+delta, Omega+epsilon.
struct Angles {
  double sbe, cbe, sT, cT, sg, cg, sP, cP, sde, cde, sO, cO, se, ce;
  double sbT, cbT, sPd, cPd, sOe, cOe;
  explicit Angles(VecIn q) {
    sbe = std::sin(q[0]), cbe = std::cos(q[0]), sT = std::sin(q[1]), cT = std::cos(q[1]);
    sg = std::sin(q[2]), cg = std::cos(q[2]), sP = std::sin(q[3]), cP = std::cos(q[3]);
    sde = std::sin(q[4]), cde = std::cos(q[4]), sO = std::sin(q[5]), cO = std::cos(q[5]);
    se = std::sin(q[6]), ce = std::cos(q[6]);
    sbT = std::sin(q[0] + q[1]), cbT = std::cos(q[0] + q[1]);
    sPd = std::sin(q[3] + q[4]), cPd = std::cos(q[3] + q[4]);
    sOe = std::sin(q[5] + q[6]), cOe = std::cos(q[5] + q[6]);
  }
};

void mass_matrix(const Angles& a, MatOut M) {
  M.setZero();
  M(0, 0) = m1 * ra * ra + m2 * (rr * rr - 2 * da * rr * a.cT + da * da) + i1 + i2;
  M(1, 0) = M(0, 1) = m2 * (da * da - da * rr * a.cT) + i2;
  M(1, 1) = m2 * da * da + i2;
  M(2, 2) = m3 * (sa * sa + sb * sb) + i3;
  M(3, 3) = m4 * (e - ea) * (e - ea) + i4;
  M(4, 3) = M(3, 4) = m4 * ((e - ea) * (e - ea) + zt * (e - ea) * a.sP) + i4;
  M(4, 4) = m4 * (zt * zt + 2 * zt * (e - ea) * a.sP + (e - ea) * (e - ea)) +
            m5 * (ta * ta + tb * tb) + i4 + i5;
  M(5, 5) = m6 * (zf - fa) * (zf - fa) + i6;
  M(6, 5) = M(5, 6) = m6 * ((zf - fa) * (zf - fa) - u * (zf - fa) * a.sO) + i6;
  M(6, 6) = m6 * ((zf - fa) * (zf - fa) - 2 * u * (zf - fa) * a.sO + u * u) +
            m7 * (ua * ua + ub * ub) + i6 + i7;
}

// The spring between D (on body 3, angle gamma) and C: D - C = (dx, dy); its length L; the
// derivative of D - C with respect to gamma, (ax, ay); P = (D - C) . (ax, ay) = L dL/dgamma.
struct Spring {
  double dx, dy, ax, ay, L, P, force;  // force = -c0 (L - l0) / L
  explicit Spring(const Angles& a) {
    dx = sd * a.cg + sc * a.sg + xb - xc;
    dy = sd * a.sg - sc * a.cg + yb - yc;
    ax = sc * a.cg - sd * a.sg;
    ay = sd * a.cg + sc * a.sg;
    L = std::sqrt(dx * dx + dy * dy);
    P = dx * ax + dy * ay;
    force = -c0 * (L - l0) / L;
  }
};

// Applied and velocity-dependent forces; v = (beta', Theta', gamma', Phi', delta', Omega', eps').
// The drive torque is the parameter p[0] (the test set's mom = 0.033 by default, and when the
// callback is called without parameters).
double torque_of(VecIn p) { return p.size() > 0 ? p[0] : mom; }

void forces(const Angles& a, VecIn v, VecOut f, double torque) {
  const Spring s(a);
  f[0] = torque - kT * v[1] * (v[1] + 2 * v[0]) * a.sT;
  f[1] = kT * v[0] * v[0] * a.sT;
  f[2] = s.force * s.P;  // generalized spring force on gamma: -c0 (L - l0) dL/dgamma
  f[3] = kP * v[4] * v[4] * a.cP;
  f[4] = -kP * v[3] * (v[3] + 2 * v[4]) * a.cP;
  f[5] = -kO * v[6] * v[6] * a.cO;
  f[6] = kO * v[5] * (v[5] + 2 * v[6]) * a.cO;
}

// df/dq (only Theta, gamma, Phi, Omega enter) and df/dv.
void force_derivatives(const Angles& a, VecIn v, MatOut Fq, MatOut Fv) {
  const Spring s(a);
  Fq.setZero();
  Fv.setZero();
  Fq(0, 1) = -kT * v[1] * (v[1] + 2 * v[0]) * a.cT;
  Fv(0, 0) = -2 * kT * v[1] * a.sT;
  Fv(0, 1) = -2 * kT * (v[1] + v[0]) * a.sT;
  Fq(1, 1) = kT * v[0] * v[0] * a.cT;
  Fv(1, 0) = 2 * kT * v[0] * a.sT;
  // f2 = force(L) * P with d(ax)/dgamma = -ay, d(ay)/dgamma = ax
  const double dP = s.ax * s.ax + s.ay * s.ay - s.dx * s.ay + s.dy * s.ax;
  const double dforce = -c0 * l0 * s.P / (s.L * s.L * s.L);
  Fq(2, 2) = dforce * s.P + s.force * dP;
  Fq(3, 3) = -kP * v[4] * v[4] * a.sP;
  Fv(3, 4) = 2 * kP * v[4] * a.cP;
  Fq(4, 3) = kP * v[3] * (v[3] + 2 * v[4]) * a.sP;
  Fv(4, 3) = -2 * kP * (v[3] + v[4]) * a.cP;
  Fv(4, 4) = -2 * kP * v[3] * a.cP;
  Fq(5, 5) = kO * v[6] * v[6] * a.sO;
  Fv(5, 6) = -2 * kO * v[6] * a.cO;
  Fq(6, 5) = -kO * v[5] * (v[5] + 2 * v[6]) * a.sO;
  Fv(6, 5) = 2 * kO * (v[5] + v[6]) * a.cO;
  Fv(6, 6) = 2 * kO * v[5] * a.cO;
}

// Loop closures: the point E reached over bodies 1-2 equals B (via body 3) and A (via bodies
// 4-5 and via bodies 6-7), in x and y.
void constraints(const Angles& a, VecOut g) {
  const double ex = rr * a.cbe - d * a.cbT, ey = rr * a.sbe - d * a.sbT;
  g[0] = ex - ss * a.sg - xb;
  g[1] = ey + ss * a.cg - yb;
  g[2] = ex - e * a.sPd - zt * a.cde - xa;
  g[3] = ey + e * a.cPd - zt * a.sde - ya;
  g[4] = ex - zf * a.cOe - u * a.se - xa;
  g[5] = ey - zf * a.sOe + u * a.ce - ya;
}

void constraint_jacobian(const Angles& a, MatOut G) {
  G.setZero();
  const double gx_b = -rr * a.sbe + d * a.sbT, gx_T = d * a.sbT;  // d(ex)/d(beta, Theta)
  const double gy_b = rr * a.cbe - d * a.cbT, gy_T = -d * a.cbT;  // d(ey)/d(beta, Theta)
  for (int i : {0, 2, 4}) {
    G(i, 0) = gx_b;
    G(i, 1) = gx_T;
    G(i + 1, 0) = gy_b;
    G(i + 1, 1) = gy_T;
  }
  G(0, 2) = -ss * a.cg;
  G(1, 2) = -ss * a.sg;
  G(2, 3) = -e * a.cPd;
  G(2, 4) = -e * a.cPd + zt * a.sde;
  G(3, 3) = -e * a.sPd;
  G(3, 4) = -e * a.sPd - zt * a.cde;
  G(4, 5) = zf * a.sOe;
  G(4, 6) = zf * a.sOe - u * a.ce;
  G(5, 5) = -zf * a.cOe;
  G(5, 6) = -zf * a.cOe - u * a.se;
}

// H = sum_i mu_i (Hessian of g_i)(q), symmetric 7x7: the q-derivative of G(q)^T mu, and
// v^T H v = mu . g_qq(q)(v, v).
void weighted_constraint_hessian(const Angles& a, VecIn mu, MatOut H) {
  H.setZero();
  // parts shared by the x rows (0, 2, 4) and by the y rows (1, 3, 5): beta, Theta
  const double mx = mu[0] + mu[2] + mu[4], my = mu[1] + mu[3] + mu[5];
  H(0, 0) = mx * (-rr * a.cbe + d * a.cbT) + my * (-rr * a.sbe + d * a.sbT);
  H(0, 1) = H(1, 0) = mx * d * a.cbT + my * d * a.sbT;
  H(1, 1) = H(0, 1);
  // gamma (rows 0, 1)
  H(2, 2) = mu[0] * ss * a.sg - mu[1] * ss * a.cg;
  // Phi, delta (rows 2, 3)
  const double hP = mu[2] * e * a.sPd - mu[3] * e * a.cPd;
  H(3, 3) = hP;
  H(3, 4) = H(4, 3) = hP;
  H(4, 4) = hP + mu[2] * zt * a.cde + mu[3] * zt * a.sde;
  // Omega, epsilon (rows 4, 5)
  const double hO = mu[4] * zf * a.cOe + mu[5] * zf * a.sOe;
  H(5, 5) = hO;
  H(5, 6) = H(6, 5) = hO;
  H(6, 6) = hO + mu[4] * u * a.se - mu[5] * u * a.ce;
}

MechanicalSystem andrews_mechanical_system() {
  MechanicalSystem s;
  s.name = "andrews";
  s.nq = 7;
  s.nlambda = 6;
  s.constant_mass = false;
  s.p = Vector::Constant(1, mom);  // the drive torque (with_parameters() sweeps it)
  s.mass = [](double, VecIn q, MatOut M) { mass_matrix(Angles(q), M); };
  s.force = [](double, VecIn q, VecIn v, VecOut f, VecIn p) {
    forces(Angles(q), v, f, torque_of(p));
  };
  s.g = [](double, VecIn q, VecOut g) { constraints(Angles(q), g); };
  s.G = [](double, VecIn q, MatOut G) { constraint_jacobian(Angles(q), G); };
  s.curvature = [](double, VecIn q, VecIn v, VecOut c) {
    const Angles a(q);
    Eigen::Matrix<double, 7, 7> H;
    Eigen::Matrix<double, 6, 1> unit;
    for (int i = 0; i < 6; ++i) {
      unit.setZero();
      unit[i] = 1.0;
      weighted_constraint_hessian(a, unit, H);
      c[i] = v.dot(H * v);
    }
  };
  // the four terms of the equations of motion at one q share the sines and cosines
  s.terms = [](double, VecIn q, VecIn v, MatOut M, VecOut f, VecOut g, MatOut G, VecIn p) {
    const Angles a(q);
    mass_matrix(a, M);
    forces(a, v, f, torque_of(p));
    constraints(a, g);
    constraint_jacobian(a, G);
  };
  return s;
}

// Exact df/dy of the 27-variable form y = (q, v, w, lambda).
void andrews_jacobian(VecIn y, MatOut J) {
  const auto q = y.segment(0, 7), v = y.segment(7, 7), w = y.segment(14, 7);
  const auto lambda = y.segment(21, 6);
  Eigen::Matrix<double, 7, 7> M, Fq, Fv, H;
  Eigen::Matrix<double, 6, 7> G;
  const Angles a(q);
  mass_matrix(a, M);
  force_derivatives(a, v, Fq, Fv);
  constraint_jacobian(a, G);
  weighted_constraint_hessian(a, lambda, H);
  // q-derivative of M(q) w (M depends on Theta, Phi, Omega only)
  Eigen::Matrix<double, 7, 7> Mw = Eigen::Matrix<double, 7, 7>::Zero();
  Mw(0, 1) = kT * a.sT * (2 * w[0] + w[1]);
  Mw(1, 1) = kT * a.sT * w[0];
  Mw(3, 3) = kP * a.cP * w[4];
  Mw(4, 3) = kP * a.cP * (w[3] + 2 * w[4]);
  Mw(5, 5) = -kO * a.cO * w[6];
  Mw(6, 5) = -kO * a.cO * (w[5] + 2 * w[6]);
  J.setZero();
  for (int i = 0; i < 14; ++i) J(i, i + 7) = 1.0;  // q' = v, v' = w
  J.block(14, 0, 7, 7) = Mw - Fq + H;
  J.block(14, 7, 7, 7) = -Fv;
  J.block(14, 14, 7, 7) = M;
  J.block(14, 21, 7, 6) = G.transpose();
  J.block(21, 0, 6, 7) = G;
}

}  // namespace

BuiltinProblem andrews() {
  BuiltinProblem p;
  p.name = "andrews";
  p.title = "Andrews' squeezing mechanism (ANDREWS), index 3, 27 variables, t in [0, 0.03]";
  p.description =
      "7 rigid bodies: q' = v, v' = w, 0 = M(q) w - f(q, v) + G(q)^T lambda, 0 = g(q) (6 loop\n"
      "closures); y = (q, v, w, lambda), index tags (1 x7, 2 x7, 3 x13); torque-driven, with a\n"
      "stiff spring; beta turns by ~16 rad in 0.03 s. scd over the 7 angles, as the test set.";
  p.source =
      "IVP Test Set (ANDREWS), Mazzia & Magherini, release 2.4; Hairer-Wanner II, VII.7 "
      "(Giles 1978, Manning 1981)";
  p.mechanical = andrews_mechanical_system();
  p.dae = index3_form(*p.mechanical);  // p = (torque), from the mechanical system
  p.parameter_names = {"torque"};
  MassMatrixDae& dd = p.dae;
  dd.name = p.name;
  dd.jacobian = [](double, VecIn y, MatOut J) { andrews_jacobian(y, J); };
  const char* angle[] = {"beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"};
  dd.component_names.clear();
  for (const char* s : angle) dd.component_names.push_back(s);
  for (const char* s : angle) dd.component_names.push_back(std::string(s) + "'");
  for (const char* s : angle) dd.component_names.push_back(std::string(s) + "''");
  for (int i = 1; i <= 6; ++i) dd.component_names.push_back("lambda" + std::to_string(i));
  p.t0 = 0;
  p.t_end = 0.03;
  p.y0 = Vector::Zero(27);
  p.y0[0] = -0.0617138900142764496358948458001;
  p.y0[2] = 0.455279819163070380255912382449;
  p.y0[3] = 0.222668390165885884674473185609;
  p.y0[4] = 0.487364979543842550225598953530;
  p.y0[5] = -0.222668390165885884674473185609;
  p.y0[6] = 1.23054744454982119249735015568;
  p.y0[14] = 14222.4439199541138705911625887;
  p.y0[15] = -10666.8329399655854029433719415;
  p.y0[21] = 98.5668703962410896057654982170;
  p.y0[22] = -6.12268834425566265503114393122;
  p.h0 = 1e-7;
  p.rtol = p.atol = 1e-7;
  ReferenceSolution ref;
  ref.t = 0.03;
  ref.y = Vector(27);
  ref.y << 0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
      -0.5347301163226948e+0, 0.5244099658805304e+0, 0.5347301163226948e+0, 0.1048080741042263e+1,
      0.1139920302151208e+4, -0.1424379294994111e+4, 0.1103291221937134e+2, 0.1929337464421385e+2,
      0.5735699284790808e+0, -0.1929337464421385e+2, 0.3231791658026955e+0, -0.2463176316945196e+5,
      0.5185037701610329e+5, 0.3241025686413781e+6, 0.5667493645176213e+6, 0.1674362929479361e+5,
      -0.5667493645176222e+6, 0.9826520791458422e+4, 0.1991753333731910e+3, -0.2975531228015052e+2,
      0.2306654119098399e+2, 0.3145271365475927e+2, 0.2264249232082739e+2, 0.1161740700019673e+2;
  ref.source = "IVP Test Set, ANDREWS, y(0.03) (PSIDE, rtol = atol = 1e-14, Cray C90)";
  p.reference = ref;
  p.scd_components = {0, 1, 2, 3, 4, 5, 6};
  p.plot_components = {0, 1, 2, 6};  // beta, Theta, gamma, epsilon
  return p;
}

}  // namespace daekit
