// Problems from the IVP Test Set (Mazzia, Magherini, "Test Set for IVP Solvers", Report
// 4/2008, University of Bari) as a user ports them, and what they showed: published initial
// values that are consistent only to 2e-7, which the consistency check refuses at tight
// tolerances, and index-2 models that need initialize() beyond index 1. The models are ported
// here (test-local) from the published equations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// ---------------------------------------------------------------------------------------------
// Slider crank (IVP Test Set, index-2 form, n = 24): Simeon, "Modelling a flexible slider crank
// mechanism by a mixed system of DAEs and PDEs", Math. Modelling of Systems 2 (1996) 1-18.
// A crank (angle phi1, driven at omega = 150 rad/s), an elastic connecting rod (angle phi2,
// four elastic coordinates q: two lateral modes, two longitudinal nodes) and a slider (x3).
// y = (p, v, w, lambda): p = (phi1, phi2, x3, q1..q4), v = p', w = v' (the accelerations, as
// variables) and three multipliers; M = diag(I_14, 0_10), tags 1 (p, v) and 2 (w, lambda):
//   p' = v,  v' = w,  0 = A(p) w - F(p, v) + G(p)^T lambda,  0 = G(p) v - (0, 0, omega).
constexpr double kCrankM2 = 0.151104, kCrankM3 = 0.075552, kCrankL1 = 0.15, kCrankL2 = 0.30;
constexpr double kCrankJ1 = 0.002727, kCrankJ2 = 0.0045339259;
constexpr double kCrankPi = 3.1415927;  // as the published source truncates it
constexpr double kCrankE = 0.20e12, kCrankB = 0.0080, kCrankH = 0.0080, kCrankRho = 7870.0;
constexpr double kCrankOmega = 150.0;
constexpr int kCrankNq = 4, kCrankNp = 7;

// The rod's finite-element data (Simeon's Galerkin ansatz: sine modes laterally, quadratic
// elements longitudinally): mass MQ, stiffness KQ, coupling BQ and the moment vectors.
struct IvpCrankBeam {
  double MQ[kCrankNq][kCrankNq] = {}, KQ[kCrankNq][kCrankNq] = {}, BQ[kCrankNq][kCrankNq] = {};
  double c1[kCrankNq] = {}, c2[kCrankNq] = {}, c12[kCrankNq] = {}, c21[kCrankNq] = {};
  IvpCrankBeam() {
    const double fm = kCrankRho * kCrankB * kCrankH * kCrankL2;
    const double fk = kCrankE * kCrankB * kCrankH / kCrankL2, fb = kCrankB * kCrankH * kCrankL2;
    const double p2 = kCrankPi * kCrankPi, p3 = p2 * kCrankPi, p4 = p2 * p2;
    const double hl = (kCrankH / kCrankL2) * (kCrankH / kCrankL2);
    MQ[0][0] = MQ[1][1] = 0.5 * fm;
    MQ[2][2] = 8 * fm;
    MQ[2][3] = MQ[3][2] = fm;
    MQ[3][3] = 2 * fm;
    KQ[0][0] = fk * p4 / 24 * hl;
    KQ[1][1] = fk * p4 * 2 / 3 * hl;
    KQ[2][2] = fk * 16 / 3;
    KQ[2][3] = KQ[3][2] = -fk * 8 / 3;
    KQ[3][3] = fk * 7 / 3;
    BQ[0][2] = -fb * 16 / p3;
    BQ[0][3] = fb * (8 / p3 - 1 / kCrankPi);
    BQ[1][3] = fb * 0.5 / kCrankPi;
    BQ[2][0] = -BQ[0][2];
    BQ[3][0] = -BQ[0][3];
    BQ[3][1] = -BQ[1][3];
    c1[2] = fb * 2 / 3;
    c1[3] = fb / 6;
    c2[0] = fb * 2 / kCrankPi;
    c12[2] = kCrankL2 * fb / 3;
    c12[3] = kCrankL2 * fb / 6;
    c21[0] = kCrankL2 * fb / kCrankPi;
    c21[1] = -kCrankL2 * fb * 0.5 / kCrankPi;
  }
};

double ivp_crank_dot(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

// G(p): the joint at the slider (rows 1, 2: the rod's tip, lengthened by the longitudinal
// tip displacement q4, on the slider's line) and the drive (row 3: phi1' = omega)
void ivp_crank_constraint_matrix(VecIn y, double G[3][kCrankNp]) {
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < kCrankNp; ++i) G[k][i] = 0.0;
  const double s1 = std::sin(y[0]), c1 = std::cos(y[0]), s2 = std::sin(y[1]), c2 = std::cos(y[1]);
  const double length = kCrankL2 + y[6];
  G[0][0] = kCrankL1 * c1;
  G[0][1] = length * c2;
  G[0][6] = s2;
  G[1][0] = kCrankL1 * s1;
  G[1][1] = length * s2;
  G[1][2] = 1.0;
  G[1][6] = -c2;
  G[2][0] = 1.0;
}

void ivp_crank_rhs(const IvpCrankBeam& e, VecIn y, VecOut f) {
  const double s12 = std::sin(y[0] - y[1]), c12 = std::cos(y[0] - y[1]);
  const double v1 = y[7], v2 = y[8];
  double q[kCrankNq], qd[kCrankNq], Mq[kCrankNq] = {}, Kq[kCrankNq] = {}, qB[kCrankNq] = {},
                                    Bqd[kCrankNq] = {};
  for (int i = 0; i < kCrankNq; ++i) {
    q[i] = y[3 + i];
    qd[i] = y[10 + i];
  }
  for (int i = 0; i < kCrankNq; ++i)
    for (int j = 0; j < kCrankNq; ++j) {
      Mq[i] += e.MQ[j][i] * q[j];
      Kq[i] += e.KQ[j][i] * q[j];
      qB[i] += q[j] * e.BQ[j][i];
      Bqd[i] += e.BQ[i][j] * qd[j];
    }
  const double c1q = ivp_crank_dot(e.c1, q), c1qd = ivp_crank_dot(e.c1, qd);
  const double c2q = ivp_crank_dot(e.c2, q), c2qd = ivp_crank_dot(e.c2, qd);
  const double c12q = ivp_crank_dot(e.c12, q), c12qd = ivp_crank_dot(e.c12, qd);
  // the mass matrix A(p) (symmetric)
  double A[kCrankNp][kCrankNp] = {};
  A[0][0] = kCrankJ1 + kCrankM2 * kCrankL1 * kCrankL1;
  A[0][1] =
      0.5 * kCrankL1 * kCrankL2 * kCrankM2 * c12 + kCrankRho * kCrankL1 * (s12 * c2q + c12 * c1q);
  A[1][1] = kCrankJ2 + ivp_crank_dot(q, Mq) + 2 * kCrankRho * c12q;
  A[2][2] = kCrankM3;
  for (int i = 0; i < kCrankNq; ++i) {
    A[0][3 + i] = kCrankRho * kCrankL1 * (-s12 * e.c1[i] + c12 * e.c2[i]);
    A[1][3 + i] = kCrankRho * (e.c21[i] + qB[i]);
    for (int j = 0; j <= i; ++j) A[3 + j][3 + i] = e.MQ[j][i];
  }
  for (int i = 0; i < kCrankNp; ++i)
    for (int j = i + 1; j < kCrankNp; ++j) A[j][i] = A[i][j];
  // the forces: centrifugal and Coriolis terms of the rigid and the elastic motion, stiffness
  // (no gravity, no damping: the published default)
  double F[kCrankNp];
  F[0] = -0.5 * kCrankL1 * kCrankL2 * kCrankM2 * v2 * v2 * s12 +
         kCrankRho * kCrankL1 * v2 * v2 * (-s12 * c1q + c12 * c2q) -
         2 * kCrankRho * kCrankL1 * v2 * (c12 * c1qd + s12 * c2qd);
  F[1] = 0.5 * kCrankL1 * kCrankL2 * kCrankM2 * v1 * v1 * s12 +
         kCrankRho * kCrankL1 * v1 * v1 * (s12 * c1q - c12 * c2q) - 2 * kCrankRho * v2 * c12qd -
         2 * v2 * ivp_crank_dot(qd, Mq) - kCrankRho * ivp_crank_dot(qd, Bqd);
  F[2] = 0.0;
  for (int i = 0; i < kCrankNq; ++i)
    F[3 + i] =
        v2 * v2 * Mq[i] +
        kCrankRho * (v2 * v2 * e.c12[i] + kCrankL1 * v1 * v1 * (c12 * e.c1[i] + s12 * e.c2[i]) +
                     2 * v2 * Bqd[i]) -
        Kq[i];
  double G[3][kCrankNp];
  ivp_crank_constraint_matrix(y, G);
  for (int i = 0; i < kCrankNp; ++i) {
    f[i] = y[kCrankNp + i];
    f[kCrankNp + i] = y[2 * kCrankNp + i];
    double r = -F[i];
    for (int j = 0; j < kCrankNp; ++j) r += A[j][i] * y[2 * kCrankNp + j];
    for (int k = 0; k < 3; ++k) r += G[k][i] * y[21 + k];
    f[2 * kCrankNp + i] = r;
  }
  for (int k = 0; k < 3; ++k) {
    double r = k == 2 ? -kCrankOmega : 0.0;
    for (int i = 0; i < kCrankNp; ++i) r += G[k][i] * y[kCrankNp + i];
    f[21 + k] = r;
  }
}

MassMatrixDae ivp_crank_dae() {
  MassMatrixDae d;
  d.n = 24;
  d.name = "slider crank (IVP test set, index 2)";
  d.mass = Matrix::Zero(24, 24);
  for (int i = 0; i < 14; ++i) d.mass(i, i) = 1.0;
  d.index.assign(24, 1);
  for (int i = 14; i < 24; ++i) d.index[i] = 2;
  d.f = [beam = IvpCrankBeam()](double, VecIn y, VecOut f) { ivp_crank_rhs(beam, y, f); };
  return d;
}

// The published initial values (consistent to 2.3e-7 in the dynamic equation of q3, row 19)
Vector ivp_crank_y0() {
  Vector y(24);
  y << 0, 0, 4.500169330000000e-01, 0, 0, 1.033398630000000e-05, 1.693279690000000e-05, 1.5e2,
      -7.499576703969453e+01, -2.689386719979040e-06, 4.448961125815990e-01, 4.634339319238670e-03,
      -1.785910760000550e-06, -2.689386719979040e-06, 0, -1.344541576709835e-03,
      -5.062194924490193e+03, -6.829725665986310e-05, 1.813207639590617e-20, -4.268463266810281e+00,
      2.098339029337557e-01, -6.552727150584648e-08, 3.824589509350831e+02, -4.635908708561371e-09;
  return y;
}

// The published reference solution at t = 0.1: the positions
Vector ivp_crank_reference_positions() {
  Vector p(7);
  p << 0.1500000000000104e+02, -0.3311734988256260e+00, 0.1697373328427860e+00,
      0.1893192899613509e-03, 0.2375751249879174e-04, -0.5323896770569702e-05,
      -0.8363313279112129e-05;
  return p;
}

// The hidden constraint: d/dt (G(p) v) = G(p) w + (dG/dt) v = 0 (the acceleration level)
Vector ivp_crank_acceleration_constraint(const Vector& y) {
  double G[3][kCrankNp];
  ivp_crank_constraint_matrix(y, G);
  const double s1 = std::sin(y[0]), c1 = std::cos(y[0]), s2 = std::sin(y[1]), c2 = std::cos(y[1]);
  const double v1 = y[7], v2 = y[8], length = kCrankL2 + y[6], qd4 = y[13];
  Vector a(3);
  a << -kCrankL1 * s1 * v1 * v1 - length * s2 * v2 * v2 + 2 * v2 * c2 * qd4,
      kCrankL1 * c1 * v1 * v1 + length * c2 * v2 * v2 + 2 * v2 * s2 * qd4, 0.0;
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < kCrankNp; ++i) a[k] += G[k][i] * y[2 * kCrankNp + i];
  return a;
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

// The published values are refused at rtol = atol = 1e-8 and 1e-10 (the check allows 10 atol,
// the row of q3 is off by 2.3e-7); the message names the remedy as users write it, and the
// remedy works: initialize() of index 2 keeps the positions and velocities (their constraint
// holds) and recomputes the accelerations and multipliers, and the solves then match the
// published reference. (Before: initialize() refused index 2, "not index 1".)
TEST(RealProblems, SliderCrankPublishedValuesAreInitialized) {
  const MassMatrixDae dae = ivp_crank_dae();
  const Vector y0 = ivp_crank_y0();
  for (double tol : {1e-8, 1e-10}) {
    Options o;
    o.rtol = o.atol = tol;
    const Result refused = solve(dae, 0.0, 0.1, y0, "radau5", o);
    EXPECT_EQ(refused.status, Status::InconsistentInitialValues) << refused.message;
    EXPECT_TRUE(mentions(refused.message, "algebraic equation 19")) << refused.message;
    EXPECT_TRUE(mentions(refused.message, "daekit::initialize(dae, t0, y0)")) << refused.message;
    EXPECT_TRUE(mentions(refused.message, "initialize=True")) << refused.message;
  }
  const InitResult init = initialize(dae, 0.0, y0);
  ASSERT_TRUE(init.ok) << init.message;
  EXPECT_EQ(init.y.head(14), y0.head(14));  // the constraints held: p and v kept exactly
  EXPECT_LE((init.y - y0).cwiseAbs().maxCoeff(), 1e-6);
  Vector f(24);
  dae.f(0.0, init.y, f, Vector());
  EXPECT_LE(f.tail(10).cwiseAbs().maxCoeff(), 1e-10);
  // the hidden constraint (terms of size 3e3) to 1e-7 (measured 1.4e-8), as the published
  // values (2.6e-13)
  EXPECT_LE(ivp_crank_acceleration_constraint(init.y).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_LE(ivp_crank_acceleration_constraint(y0).cwiseAbs().maxCoeff(), 1e-7);
  const Vector reference = ivp_crank_reference_positions();
  for (double tol : {1e-8, 1e-10}) {
    Options o;
    o.rtol = o.atol = tol;
    const Result r = solve(dae, 0.0, 0.1, init.y, "radau5", o);
    ASSERT_TRUE(r.ok()) << r.message;
    const double error = (r.y.head(7) - reference).cwiseAbs().maxCoeff();
    std::printf("slider crank, tol %.0e: %ld steps, position error %.2e\n", tol,
                static_cast<long>(r.stats.nsteps), error);
    EXPECT_LE(error, 5 * tol);  // measured: 2.0e-9 (1e-8), 4.6e-11 (1e-10)
  }
}

namespace {

// The pendulum at velocity level (Hessenberg index 2): x' = u, y' = v, u' = -x lambda,
// v' = -y lambda - 1, 0 = x u + y v; tags (1, 1, 1, 1, 2).
MassMatrixDae real_velocity_pendulum() {
  MassMatrixDae d;
  d.n = 5;
  d.name = "pendulum, velocity constraint";
  d.mass = Matrix::Zero(5, 5);
  for (int i = 0; i < 4; ++i) d.mass(i, i) = 1.0;
  d.index = {1, 1, 1, 1, 2};
  d.f = [](double, VecIn y, VecOut f) {
    f << y[2], y[3], -y[0] * y[4], -y[1] * y[4] - 1.0, y[0] * y[2] + y[1] * y[3];
  };
  return d;
}

// Consistent values at angle theta and angular velocity omega: lambda from the hidden
// constraint u^2 + v^2 + x u' + y v' = 0.
Vector real_pendulum_state(double theta, double omega) {
  Vector y(5);
  y << std::sin(theta), -std::cos(theta), omega * std::cos(theta), omega * std::sin(theta), 0.0;
  y[4] = (y[2] * y[2] + y[3] * y[3] - y[1]) / (y[0] * y[0] + y[1] * y[1]);
  return y;
}

}  // namespace

// Values off the constraint by 2e-7 along its normal: refused at 1e-8, and initialize() of
// index 2 returns to the consistent values by the smallest change (the step back along the
// normal), recomputes lambda, and the solve then matches the one from the exact values.
TEST(RealProblems, Index2ProjectionIsTheSmallestChange) {
  const MassMatrixDae dae = real_velocity_pendulum();
  const Vector exact = real_pendulum_state(0.7, 0.3);
  Vector normal(4);  // gradient of x u + y v with respect to (x, y, u, v)
  normal << exact[2], exact[3], exact[0], exact[1];
  Vector y0 = exact;
  y0.head(4) += 2e-7 * normal / normal.norm();
  y0[4] = 0.0;  // the multiplier as an unknown
  Options o;
  o.rtol = o.atol = 1e-8;
  const Result refused = solve(dae, 0.0, 3.0, y0, "radau5", o);
  EXPECT_EQ(refused.status, Status::InconsistentInitialValues) << refused.message;
  const InitResult init = initialize(dae, 0.0, y0);
  ASSERT_TRUE(init.ok) << init.message;
  EXPECT_LE((init.y.head(4) - exact.head(4)).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_NEAR(init.y[4], exact[4], 1e-9);
  const Result from_init = solve(dae, 0.0, 3.0, init.y, "radau5", o);
  const Result from_exact = solve(dae, 0.0, 3.0, exact, "radau5", o);
  ASSERT_TRUE(from_init.ok()) << from_init.message;
  ASSERT_TRUE(from_exact.ok()) << from_exact.message;
  EXPECT_LE((from_init.y - from_exact.y).head(4).cwiseAbs().maxCoeff(), 1e-9);
  // a differential component that no constraint contains is not moved: a sixth component
  // s' = 1 beside the pendulum
  MassMatrixDae wider = dae;
  wider.n = 6;
  wider.mass = Matrix::Zero(6, 6);
  for (int i = 0; i < 4; ++i) wider.mass(i, i) = 1.0;
  wider.mass(5, 5) = 1.0;
  wider.index = {1, 1, 1, 1, 2, 1};
  wider.f = [](double, VecIn y, VecOut f) {
    f << y[2], y[3], -y[0] * y[4], -y[1] * y[4] - 1.0, y[0] * y[2] + y[1] * y[3], 1.0;
  };
  Vector w0(6);
  w0 << y0, 0.25;
  const InitResult wide = initialize(wider, 0.0, w0);
  ASSERT_TRUE(wide.ok) << wide.message;
  EXPECT_EQ(wide.y[5], 0.25);
}

// Index 3 (position constraint): the position and the velocity-level constraint by the
// smallest change of (x, y, u, v), lambda from the second derivative.
TEST(RealProblems, Index3InitializationHoldsBothLevels) {
  MassMatrixDae dae = real_velocity_pendulum();
  dae.index = {1, 1, 2, 2, 3};
  dae.f = [](double, VecIn y, VecOut f) {
    f << y[2], y[3], -y[0] * y[4], -y[1] * y[4] - 1.0, y[0] * y[0] + y[1] * y[1] - 1.0;
  };
  const Vector exact = real_pendulum_state(0.7, 0.3);
  Vector y0 = exact;
  y0[0] += 1e-6;
  y0[2] -= 2e-6;
  y0[4] = 0.0;
  Options o;
  o.rtol = o.atol = 1e-8;
  EXPECT_EQ(solve(dae, 0.0, 1.0, y0, "radau5", o).status, Status::InconsistentInitialValues);
  const InitResult init = initialize(dae, 0.0, y0);
  ASSERT_TRUE(init.ok) << init.message;
  const Vector& y = init.y;
  EXPECT_LE(std::abs(y[0] * y[0] + y[1] * y[1] - 1.0), 1e-10);
  EXPECT_LE(std::abs(y[0] * y[2] + y[1] * y[3]), 1e-11);  // measured 5.6e-14
  const double lambda = (y[2] * y[2] + y[3] * y[3] - y[1]) / (y[0] * y[0] + y[1] * y[1]);
  EXPECT_NEAR(y[4], lambda, 1e-9);           // measured 5.4e-11
  EXPECT_LE((y - y0).head(4).norm(), 3e-6);  // a small change
  const Result r = solve(dae, 0.0, 1.0, y, "radau5", o);
  EXPECT_TRUE(r.ok()) << r.message;
}

// What initialize() does not handle is reported: zero rows without matching zero columns.
TEST(RealProblems, Index2InitializationReportsUnsupportedStructure) {
  MassMatrixDae dae = real_velocity_pendulum();
  dae.mass(4, 4) = 0.0;
  dae.mass(3, 4) = 1.0;  // column 4 no longer zero: one zero row, no zero column
  const InitResult r = initialize(dae, 0.0, real_pendulum_state(0.7, 0.3));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(mentions(r.message, "zero rows of M")) << r.message;
  // index tags on a nonsingular M: nothing algebraic, nothing changes
  MassMatrixDae ode = real_velocity_pendulum();
  ode.mass(4, 4) = 1.0;
  const Vector y0 = real_pendulum_state(0.7, 0.3);
  const InitResult same = initialize(ode, 0.0, y0);
  EXPECT_TRUE(same.ok) << same.message;
  EXPECT_EQ(same.y, y0);
}

namespace {

// The pendulum at velocity level as M(y) y' = f(y) with a state-dependent mass m(x) =
// 1 + x^2 / 2 (a bead whose inertia grows away from the axis): m u' = -x lambda,
// m v' = -y lambda - m, 0 = x u + y v; tags (1, 1, 1, 1, 2).
QuasiLinearDae real_quasi_linear_pendulum() {
  QuasiLinearDae q;
  q.n = 5;
  q.name = "pendulum with m(x), velocity constraint";
  q.mass = [](double, VecIn y, MatOut M) {
    M.setZero();
    M(0, 0) = M(1, 1) = 1.0;
    M(2, 2) = M(3, 3) = 1.0 + 0.5 * y[0] * y[0];
  };
  q.f = [](double, VecIn y, VecOut f) {
    const double m = 1.0 + 0.5 * y[0] * y[0];
    f << y[2], y[3], -y[0] * y[4], -y[1] * y[4] - m, y[0] * y[2] + y[1] * y[3];
  };
  q.differential = {true, true, true, true, false};
  q.index = {1, 1, 1, 1, 2};
  return q;
}

}  // namespace

// to_mass_matrix_form of an index-2 M(y) y' = f: the new unknowns w = y_D' are index 2 (they
// carried the tags of y_D, 1: the index-1 error test on index-2 quantities). radau5 on the
// converted form then takes fewer steps at the same accuracy relative to the tolerance
// (measured: 67 -> 47 steps at 1e-4, 159 -> 85 at 1e-6, 400 -> 168 at 1e-8).
TEST(RealProblems, QuasiLinearIndex2DerivativesAreTaggedIndex2) {
  const QuasiLinearDae q = real_quasi_linear_pendulum();
  const MassMatrixDae dae = to_mass_matrix_form(q);
  EXPECT_EQ(dae.index, (std::vector<int>{1, 1, 1, 1, 2, 2, 2, 2, 2}));
  {  // index 3 (position constraint): q' = v is index 2, v' index 3; index 1 stays 1
    QuasiLinearDae three = q;
    three.index = {1, 1, 2, 2, 3};
    EXPECT_EQ(to_mass_matrix_form(three).index, (std::vector<int>{1, 1, 2, 2, 3, 2, 2, 3, 3}));
    QuasiLinearDae one = q;
    one.index.clear();
    EXPECT_EQ(to_mass_matrix_form(one).index, std::vector<int>(9, 1));
  }
  // consistent start: y0 on the constraint, w0 and lambda0 by initialize() (index 2)
  Vector y0(5);
  y0 << std::sin(0.7), -std::cos(0.7), 0.3 * std::cos(0.7), 0.3 * std::sin(0.7), 0.0;
  const InitResult init = initialize(dae, 0.0, initial_values(q, 0.0, y0));
  ASSERT_TRUE(init.ok) << init.message;
  MassMatrixDae old_tags = dae;
  for (int k = 5; k < 9; ++k) old_tags.index[k] = 1;
  Options tight;
  tight.rtol = tight.atol = 1e-12;
  const Result reference = solve(dae, 0.0, 10.0, init.y, "radau5", tight);
  ASSERT_TRUE(reference.ok()) << reference.message;
  // (from 1e-7 on, rtol' = 1e-8, the mis-tagged form fails: steps down to 2.5e-23 after
  // error-test rejections at t = 1.2e-8, the estimate of its untagged index-2 components not
  // shrinking with h)
  for (double tol : {1e-4, 1e-5, 1e-6}) {
    Options o;
    o.rtol = o.atol = tol;
    const Result now = solve(dae, 0.0, 10.0, init.y, "radau5", o);
    const Result before = solve(old_tags, 0.0, 10.0, init.y, "radau5", o);
    ASSERT_TRUE(now.ok()) << now.message;
    ASSERT_TRUE(before.ok()) << before.message;
    const double error = (now.y - reference.y).head(4).cwiseAbs().maxCoeff();
    std::printf("quasi-linear pendulum, tol %.0e: %ld steps (tags of y_D: %ld), error %.2e\n", tol,
                static_cast<long>(now.stats.nsteps), static_cast<long>(before.stats.nsteps), error);
    EXPECT_LT(now.stats.nsteps, before.stats.nsteps);
    EXPECT_LE(error, 3 * tol);  // measured 4.4e-7 (1e-4), 1.2e-9 (1e-6)
  }
}
