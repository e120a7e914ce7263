// SPARK Lobatto IIIA-B-C-C*-D methods (methods/spark.hpp) on the index-2 DAEs of paper 002:
// the convergence of Fig. 5.1 on (5.1), g = 0 at every step, reversibility (Theorem 3.1),
// the implicit a(t, y) of the knife edge, variable steps, dense output and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"
#include "daekit/problems/index2.hpp"

using namespace daekit;

namespace {

struct JayRun {
  double ey = 0, ez = 0, max_g = 0;
  long steps = 0;
};

// (5.1) at constant h = 1/N up to t = 1, errors at t = 1 (max-norm).
JayRun jay_fixed(int s, int N) {
  SparkOptions m;
  m.stages = s;
  m.newton_tolerance = 1e-3;  // a study: Newton to ~1e-15 (iterations at rate ~0.15)
  m.max_newton_iterations = 30;
  Options o;
  o.fixed_step = true;
  o.h0 = 1.0 / N;
  o.rtol = o.atol = 1e-12;
  const Result r = solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), m, o);
  EXPECT_TRUE(r.ok()) << r.message;
  const Vector e = (r.y - jay_index2_exact(1.0)).cwiseAbs();
  return {e.head(2).maxCoeff(), e[2], r.max_residual.position, r.stats.naccept};
}

// Least-squares slope of log(err) against log(h) over the points above `floor`.
double slope(const std::vector<double>& h, const std::vector<double>& err, double floor) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    if (err[i] <= floor) continue;
    const double x = std::log(h[i]), y = std::log(err[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
    ++n;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

TEST(Spark, ConvergenceOnJayProblem51) {
  // Fig. 5.1 of paper 002: y error at t = 1 with slope 2s - 2; z = Z_s of order s - 1
  for (int s = 2; s <= 4; ++s) {
    std::vector<double> hs, ey, ez;
    double max_g = 0.0;
    for (int N : {16, 32, 64, 128}) {
      const JayRun r = jay_fixed(s, N);
      hs.push_back(1.0 / N);
      ey.push_back(r.ey);
      ez.push_back(r.ez);
      max_g = std::max(max_g, r.max_g);
      std::printf("s = %d h = 1/%-3d  |y - y(1)| = %.3e  |z - z(1)| = %.3e  max |g| = %.1e\n", s,
                  N, r.ey, r.ez, r.max_g);
    }
    // round-off floor: s = 4 reaches 1e-15 at h = 1/128
    const double py = slope(hs, ey, 1e-13), pz = slope(hs, ez, 1e-13);
    std::printf("s = %d: slope in y %.2f (2s - 2 = %d), in z %.2f (s - 1 = %d)\n", s, py,
                2 * s - 2, pz, s - 1);
    EXPECT_NEAR(py, 2 * s - 2, 0.3);
    EXPECT_GE(pz, s - 1 - 0.2);
    EXPECT_LT(max_g, 1e-13);  // g(t_n, y_n) = 0 to the Newton tolerance at every step
  }
}

namespace {

// One step h from (0, y0, z0) and one step -h back; |y_back - y0| (max-norm).
double there_and_back(const ImplicitIndex2Dae& dae, int s, double h) {
  const Vector y0 = jay_index2_exact(0.0).head(2);
  const Vector z0 = consistent_algebraic(dae, 0.0, y0, Vector::Ones(1));
  Vector x0(3);
  x0 << y0, z0;
  SparkOptions m;
  m.stages = s;
  m.newton_tolerance = 1e-2;  // increments below 1e-14: Newton to round-off
  m.max_newton_iterations = 40;
  Options o;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = 1e-12;
  const Result forward = solve(dae, 0.0, h, x0, m, o);
  EXPECT_TRUE(forward.ok()) << forward.message;
  o.check_consistency = false;  // z1 = Z_s is not consistent (and does not matter, Remark 3.1)
  const Result back = solve(dae, h, 0.0, forward.y, m, o);
  EXPECT_TRUE(back.ok()) << back.message;
  EXPECT_GT((forward.y.head(2) - y0).cwiseAbs().maxCoeff(), 1e-3);  // the step moved y
  return (back.y.head(2) - y0).cwiseAbs().maxCoeff();
}

}  // namespace

TEST(Spark, ReversibleWithoutIIICParts) {
  // Theorem 3.1 / Corollary 4.6: symmetric coefficients (IIIA, IIIB, IIID) give a symmetric
  // method when f_3 = f_4 = 0; with f_3 (IIIC) or f_4 (IIIC*) active it is not.
  const std::array<bool, 5> symmetric[] = {{true, true, false, false, false},  // IIIA-B
                                           {true, true, false, false, true}};  // IIIA-B-D
  const std::array<bool, 5> not_symmetric[] = {{true, true, true, true, true},   // all five
                                               {true, true, false, true, true},  // with IIIC*
                                               {true, true, true, false, true}};  // with IIIC
  const double h = 0.1;
  for (int s = 2; s <= 4; ++s) {
    for (const auto& parts : symmetric) {
      const double d = there_and_back(jay_index2(parts), s, h);
      std::printf("s = %d parts %d%d%d%d%d: |y(h, -h) - y0| = %.1e (symmetric)\n", s, parts[0],
                  parts[1], parts[2], parts[3], parts[4], d);
      EXPECT_LT(d, 1e-13);
    }
    for (const auto& parts : not_symmetric) {
      const double d = there_and_back(jay_index2(parts), s, h);
      std::printf("s = %d parts %d%d%d%d%d: |y(h, -h) - y0| = %.1e (f_3 or f_4 active)\n", s,
                  parts[0], parts[1], parts[2], parts[3], parts[4], d);
      EXPECT_GT(d, 1e-12);  // O(h^(2s-1)): 100 times the symmetric round-off and more
    }
  }
}

TEST(Spark, ImplicitKnifeEdgeConverges) {
  // the nonlinear a(t, y) of the body-frame momenta: order 2s - 2 in y as in Hessenberg form
  for (int s = 2; s <= 3; ++s) {
    std::vector<double> hs, err;
    for (int N : {20, 40, 80}) {
      SparkOptions m;
      m.stages = s;
      m.max_newton_iterations = 30;
      Options o;
      o.fixed_step = true;
      o.h0 = 2.0 / N;
      o.rtol = o.atol = 1e-12;
      const Result r = solve(knife_edge(true), 0.0, 2.0, knife_edge_exact(0.0), m, o);
      ASSERT_TRUE(r.ok()) << r.message;
      hs.push_back(o.h0);
      err.push_back((r.y - knife_edge_exact(2.0)).head(6).cwiseAbs().maxCoeff());
      std::printf("knife edge (implicit a) s = %d h = %.4f |y - y(2)| = %.3e max |g| = %.1e\n", s,
                  o.h0, err.back(), r.max_residual.position);
      EXPECT_LT(r.max_residual.position, 1e-12);
    }
    const double p = slope(hs, err, 1e-13);
    std::printf("knife edge (implicit a) s = %d: slope %.2f (2s - 2 = %d)\n", s, p, 2 * s - 2);
    EXPECT_NEAR(p, 2 * s - 2, 0.3);
  }
}
