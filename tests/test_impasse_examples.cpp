// Bendtsen and Thomsen (1999), ch. 7, beyond the motivating example (tests/test_applications.cpp):
// a DAE A(x) x' = g(x) whose leading matrix depends on the state, with an accessible impasse
// point (alpha < 0: the solution reaches it in finite time and ends there) or, with g1 of the
// other sign, an inaccessible one (alpha > 0: solutions leave it and never reach it forward in
// time, Def. 7.2), and the notes' constant-M example mirrored to an inaccessible point.
//
// The state-dependent example, x = (x1, x2), rank A = 1 everywhere:
//   x1 x1' + (1 + x2) x2' = s,   0 = x2 - x1^2         (A(x) = [[x1, 1 + x2], [0, 0]], s = +-1)
// On the manifold x2 = x1^2 =: u the differential row is d/dt (3u/2 + u^2/2) = s; in the chart
// y ~ x1, B(y) = A1 D phi = 3y + 2y^3 (singular at y = 0, where E = [A1; Dg2] =
// [[x1, 1 + x2], [-2 x1, 1]] has det x1 (3 + 2 x2) = 0), h = s, u = v = 1, DB(0) = 3:
// alpha = <h, v><(DB u) u, v> = 3 s. From u(0) = u0: 3u/2 + u^2/2 = 3u0/2 + u0^2/2 + s t.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

SplitQuasiLinearDae state_dependent_impasse(double s) {
  SplitQuasiLinearDae q;
  q.n = 2;
  q.r = 1;
  q.a1 = [](VecIn x, MatOut A) {
    A(0, 0) = x[0];
    A(0, 1) = 1 + x[1];
  };
  q.g1 = [s](VecIn, VecOut g) { g[0] = s; };
  q.g2 = [](VecIn x, VecOut g) { g[0] = x[1] - x[0] * x[0]; };
  q.dg2 = [](VecIn x, MatOut G) {
    G(0, 0) = -2 * x[0];
    G(0, 1) = 1;
  };
  return q;
}

// 3u/2 + u^2/2, the quantity that grows like s t
double impasse_energy(double u) { return 1.5 * u + 0.5 * u * u; }

// u(t) from u(0) = u0 (the root u >= 0 of u^2 + 3u - 2 E = 0)
double impasse_u(double u0, double s, double t) {
  const double e = impasse_energy(u0) + s * t;
  return 0.5 * (-3 + std::sqrt(9 + 8 * e));
}

// The same DAE as F(t, x, x') = A(x) x' - g(x) = 0 for solve() (the BDF's form; the
// quasi-linear form needs a zero column of M for each algebraic variable, and here no column
// of A vanishes), with x' on the manifold: u' = s / (3/2 + u), x1' = u' / (2 x1), x2' = u'.
ImplicitDae state_dependent_implicit(double s) {
  ImplicitDae d;
  d.n = 2;
  d.F = [s](double, VecIn x, VecIn xp, VecOut F) {
    F[0] = x[0] * xp[0] + (1 + x[1]) * xp[1] - s;
    F[1] = x[1] - x[0] * x[0];
  };
  return d;
}

Vector state_dependent_derivative(double x1, double s) {
  const double u = x1 * x1, up = s / (1.5 + u);
  return (Vector(2) << up / (2 * x1), up).finished();
}

Vector on_parabola(double x1) { return (Vector(2) << x1, x1 * x1).finished(); }

}  // namespace

// Accessible (s = -1): from x(0) = (1, 1) the solution x1 = sqrt(u(t)) reaches x = 0 at
// t* = 3/2 + 1/2 = 2 with x1' unbounded; SingDAE follows the augmented curve through it, locates
// it at t = 2 with alpha = -3 < 0, and beyond it runs backward in t on the branch x1 < 0.
// claim: 004-7-state-dependent-a
// claim: 004-7-accessible
TEST(Chapter7StateDependent, AccessibleImpasseIsReachedAndPassed) {
  const SplitQuasiLinearDae q = state_dependent_impasse(-1.0);
  SingDaeOptions o;
  o.ds = 2e-3;
  o.arc_length = 3.2;
  const ImpassePassage p = pass_impasse(q, 0.0, on_parabola(1.0), o);
  ASSERT_TRUE(p.passed) << p.message;
  std::printf("A(x) example, s = -1: impasse point at t = %.12f, x = (%.2e, %.2e), alpha = %.6f\n",
              p.point.t, p.point.x[0], p.point.x[1], p.point.alpha);
  EXPECT_NEAR(p.point.t, 2.0, 1e-9);
  EXPECT_LT(p.point.x.cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_NEAR(p.point.alpha, -3.0, 1e-4);
  EXPECT_TRUE(p.point.accessible);
  // the whole curve: on the manifold, t = (E(1) - E(u)) (the exact solution), t increasing
  // before the point and decreasing after it
  double worst = 0;
  for (size_t i = 0; i < p.t.size(); ++i) {
    const Vector& x = p.x[i];
    worst = std::max({worst, std::abs(x[1] - x[0] * x[0]),
                      std::abs(p.t[i] - (impasse_energy(1.0) - impasse_energy(x[1])))});
    if (p.s[i] < p.point.s) {
      EXPECT_GT(x[0], 0.0);
      EXPECT_GT(p.gamma[i], 0.0);
    } else if (p.s[i] > p.point.s) {
      EXPECT_LT(x[0], 0.0);
      EXPECT_LT(p.gamma[i], 0.0);
    }
  }
  std::printf("  %zu RK4 steps, max deviation from the exact curve %.2e\n", p.t.size() - 1, worst);
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(p.t.back(), 1.9);  // well back in time on the other branch
  // where A(x) is regular (x1 != 0) alpha is not defined, but its sign at the point is the
  // notes' test: the same formula at the located point
  EXPECT_LT(impasse_alpha(q, on_parabola(0.0)), 0.0);
}

// An ordinary solve of the same A(x) x' = g(x) (the BDF on F = A(x) x' - g(x)) follows
// x1 = sqrt(u(t)) and stalls at t = 2, where x1' blows up.
// claim: 004-7-state-dependent-a
// claim: 004-7-impasse-stall
TEST(Chapter7StateDependent, OrdinarySolveStallsAtTheAccessiblePoint) {
  const ImplicitDae d = state_dependent_implicit(-1.0);
  Options o;
  o.rtol = o.atol = 1e-8;
  o.store_steps = true;
  const Result r =
      solve(d, 0.0, 3.0, on_parabola(1.0), state_dependent_derivative(1.0, -1.0), "bdf", o);
  EXPECT_FALSE(r.ok());
  std::printf("bdf on the A(x) example: %s at t = %.10f: %s\n", to_string(r.status), r.t,
              r.message.c_str());
  EXPECT_GT(r.t, 1.999);
  EXPECT_LT(r.t, 2.0);
  double worst = 0;
  for (size_t i = 0; i < r.t_steps.size(); ++i)
    if (r.t_steps[i] < 1.99)
      worst = std::max(worst,
                       std::abs(r.y_steps[i][0] - std::sqrt(impasse_u(1.0, -1.0, r.t_steps[i]))));
  EXPECT_LT(worst, 1e-5);  // measured 3.7e-6 (x1 = sqrt(u) is ill-conditioned near t = 2)
}

// Inaccessible (s = +1): alpha = +3 > 0 at x = 0. Forward in time the solutions leave the
// point: SingDAE from (0.5, 0.25) oriented forward in t never passes it (gamma keeps its sign,
// |x1| grows along the whole curve), and an ordinary solve (bdf) started 1e-3 from the singular set
// runs to the end on the exact solution, its steps growing as it moves away.
// claim: 004-7-state-dependent-a
// claim: 004-7-inaccessible
// claim: 004-7-inaccessible-leaves
TEST(Chapter7StateDependent, InaccessibleImpasseIsLeftNotReached) {
  const SplitQuasiLinearDae q = state_dependent_impasse(+1.0);
  const double alpha = impasse_alpha(q, on_parabola(0.0));
  std::printf("A(x) example, s = +1: alpha at x = 0: %.6f\n", alpha);
  EXPECT_NEAR(alpha, 3.0, 1e-4);
  EXPECT_NEAR(impasse_alpha(state_dependent_impasse(-1.0), on_parabola(0.0)), -alpha, 1e-8);
  SingDaeOptions o;
  o.ds = 2e-3;
  o.arc_length = 1.0;
  for (double x1 : {0.5, -0.5}) {
    const ImpassePassage p = pass_impasse(q, 0.0, on_parabola(x1), o);
    EXPECT_FALSE(p.passed) << p.message;
    double last = 0;
    for (size_t i = 0; i < p.t.size(); ++i) {
      EXPECT_GT(p.gamma[i], 0.0);
      EXPECT_GE(std::abs(p.x[i][0]), last);  // moving away from x1 = 0
      last = std::abs(p.x[i][0]);
      EXPECT_NEAR(p.t[i], impasse_energy(p.x[i][1]) - impasse_energy(0.25), 1e-9);
    }
  }
  const ImplicitDae d = state_dependent_implicit(+1.0);
  Options so;
  so.rtol = so.atol = 1e-8;
  const Result r =
      solve(d, 0.0, 1.0, on_parabola(1e-3), state_dependent_derivative(1e-3, 1.0), "bdf", so);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NEAR(r.y[0], std::sqrt(impasse_u(1e-6, 1.0, 1.0)), 1e-6);
  EXPECT_NEAR(r.y[1], impasse_u(1e-6, 1.0, 1.0), 1e-6);
  std::printf("bdf from x1 = 1e-3: %ld steps to t = 1, x1 = %.10f\n", r.stats.naccept, r.y[0]);
}

// The notes' example mirrored, x2' = 1, 0 = x1^2 - x2 (constant M), started 1e-3 from its
// inaccessible point x = 0 at t* = -1e-6 (alpha = +2 > 0), solution x = (sqrt(t + 1e-6),
// t + 1e-6): solve_with_impasses runs through. Its monitor sees |gamma| = 2e-3 < gamma_tol at the
// start, but growing; before the monitor asked whether |gamma| decreases it stopped the solve at
// the first step and reported an impasse point the solution was leaving.
// claim: 004-7-inaccessible
// claim: 004-7-inaccessible-leaves
TEST(Chapter7StateDependent, InaccessiblePointDoesNotStopTheSolve) {
  MassMatrixDae d;
  d.n = 2;
  d.mass = Matrix::Zero(2, 2);
  d.mass(0, 1) = 1;
  d.f = [](double, VecIn x, VecOut f) {
    f[0] = 1;
    f[1] = x[0] * x[0] - x[1];
  };
  const auto exact = [](double t) { return on_parabola(std::sqrt(t + 1e-6)); };
  const SplitQuasiLinearDae q = quasi_linear_form(d);
  Vector x0(3);
  x0 << 0, 0, -1e-6;
  const double alpha = impasse_alpha(q, x0);
  std::printf("x2' = 1, 0 = x1^2 - x2: alpha = %.6f\n", alpha);
  EXPECT_NEAR(alpha, 2.0, 1e-3);
  Vector start(3);
  start << exact(0.0), 0.0;
  EXPECT_LT(std::abs(impasse_indicator(q, start).gamma), SingDaeOptions{}.gamma_tol);
  Options o;
  o.rtol = o.atol = 1e-8;
  const ImpasseSolve s = solve_with_impasses(d, 0.0, 1.0, exact(0.0), "radau5", o);
  EXPECT_FALSE(s.impasse) << s.result.message;
  ASSERT_TRUE(s.result.ok()) << s.result.message;
  EXPECT_LT((s.result.y - exact(1.0)).cwiseAbs().maxCoeff(), 1e-7);
  // and the accessible example still stops at its point and passes it
  const BuiltinProblem a = make_builtin_problem("impasse");
  const ImpasseSolve sa = solve_with_impasses(a.dae, a.t0, a.t_end, a.y0, "radau5", o);
  EXPECT_TRUE(sa.impasse);
  EXPECT_TRUE(sa.passage.passed);
}

// (7.12) as printed borders (B_c, -h_c) with the rows (c_1^T, 0, 0), (c_2^T, 0, 0), c_i the
// normalised first r components of the last two right singular vectors (7.13)-(7.15). For r = 1
// c_1 = +-1 = c_2: the two rows are parallel, the system singular at every point. The rows
// (u_i^T, omega_i, 0) of the whole singular vectors (the library's reading) give a regular
// system: checked at x = (1, 1) of the A(x) example (r = 1), where U_c = (1, 2)/sqrt 5,
// B_c = A1 U_c = sqrt 5, h_c = -1; pass_impasse (above) works with it for r = 1.
// claim: 004-7-bordered-singular
TEST(Chapter7StateDependent, PrintedBorderedSystemIsSingularForRankOne) {
  const SplitQuasiLinearDae q = state_dependent_impasse(-1.0);
  const Vector xc = on_parabola(1.0);
  Matrix G(1, 2), A1(1, 2);
  q.dg2(xc, G);
  q.a1(xc, A1);
  const Vector uc = Vector(Eigen::JacobiSVD<Matrix>(G, Eigen::ComputeFullV).matrixV().col(1));
  Vector g1(1);
  q.g1(xc, g1);
  Matrix K(1, 2);  // (B_c, -h_c)
  K << (A1 * uc)(0, 0), -g1[0];
  EXPECT_NEAR(std::abs(K(0, 0)), std::sqrt(5.0), 1e-12);
  Eigen::JacobiSVD<Matrix> svd(K, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Matrix& VR = svd.matrixV();  // 2 x 2: column 1 spans ker K, column 0 the other
  const double e_star = svd.matrixU()(0, 0);
  const Vector w1 = VR.col(1), w2 = VR.col(0);  // (u_i; omega_i)
  Matrix printed(3, 3), whole(3, 3);
  printed << K(0, 0), K(0, 1), e_star,  //
      w1[0] / std::abs(w1[0]), 0, 0,    //
      w2[0] / std::abs(w2[0]), 0, 0;
  whole << K(0, 0), K(0, 1), e_star,  //
      w1[0], w1[1], 0,                //
      w2[0], w2[1], 0;
  std::printf("(7.12) for r = 1: det as printed %.2e, with whole singular vectors %.4f\n",
              printed.determinant(), whole.determinant());
  EXPECT_LT(std::abs(printed.determinant()), 1e-14);
  EXPECT_GT(std::abs(whole.determinant()), 0.5);
}
