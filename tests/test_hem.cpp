// Half-explicit Runge-Kutta methods (methods/hem.hpp, paper 001 (2.7)-(2.8)) with the
// Brasey-Hairer tableaus: orders in y and z on (5.1), g = 0 at every step, the order of the
// projected embedded estimate, variable steps on the knife edge and the pendulum, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"
#include "daekit/problems/index2.hpp"

using namespace daekit;

namespace {

double fitted_slope(const std::vector<double>& h, const std::vector<double>& err) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    const double x = std::log(h[i]), y = std::log(err[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

// claim: 001-hem-g-exact
// claim: 001-hem-order
TEST(Hem, ConvergenceOnJayProblem51) {
  for (const char* name : {"bh3", "hem4"}) {
    const HalfExplicitTableau tab = half_explicit_tableau(name);
    std::vector<double> hs, ey, ez;
    for (int N : {16, 32, 64, 128}) {
      HemOptions m;
      m.tableau = name;
      m.newton_tolerance = 1e-2;  // a study: Newton to ~1e-14
      m.max_newton_iterations = 40;
      Options o;
      o.fixed_step = true;
      o.h0 = 1.0 / N;
      o.rtol = o.atol = 1e-12;
      const Result r = solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), m, o);
      ASSERT_TRUE(r.ok()) << r.message;
      const Vector e = (r.y - jay_index2_exact(1.0)).cwiseAbs();
      hs.push_back(o.h0);
      ey.push_back(e.head(2).maxCoeff());
      ez.push_back(e[2]);
      std::printf("%-4s h = 1/%-3d |y - y(1)| = %.3e |z - z(1)| = %.3e max |g| = %.1e\n", name, N,
                  ey.back(), ez.back(), r.max_residual.position);
      EXPECT_LT(r.max_residual.position, 1e-12);  // g = 0 at every step (no drift)
    }
    const double py = fitted_slope(hs, ey), pz = fitted_slope(hs, ez);
    std::printf("%s: order in y %.2f (published %d), in z %.2f\n", name, py, tab.order, pz);
    EXPECT_NEAR(py, tab.order, 0.25);
    EXPECT_GE(pz, tab.order - 1 - 0.2);
  }
}

TEST(Hem, ProjectedEmbeddedEstimateHasItsOrder) {
  // one step from exact values: the scaled estimate falls like h^(p^+1)
  for (const char* name : {"bh3", "hem4"}) {
    const HalfExplicitTableau tab = half_explicit_tableau(name);
    std::vector<double> hs, est;
    for (double h : {0.08, 0.04, 0.02, 0.01}) {
      HemOptions m;
      m.tableau = name;
      Options o;
      o.fixed_step = true;
      o.h0 = h;
      o.rtol = o.atol = 1e-10;
      double err = 0.0;
      o.trace = [&](const StepTrace& s) { err = s.error; };
      const Result r = solve(jay_index2(), 0.3, 0.3 + h, jay_index2_exact(0.3), m, o);
      ASSERT_TRUE(r.ok()) << r.message;
      hs.push_back(h);
      est.push_back(err);
    }
    const double p = fitted_slope(hs, est);
    std::printf("%s: estimate ~ h^%.2f (p^ + 1 = %d)\n", name, p, tab.embedded_order + 1);
    EXPECT_NEAR(p, tab.embedded_order + 1, 0.35);
  }
}

TEST(Hem, VariableStepKnifeEdgeAndPendulumAtRtol1e8) {
  const double tol = 1e-8;
  Vector pendulum0(5);
  pendulum0 << 1, 0, 0, 0, 0;
  for (const char* name : {"hem4", "bh3"}) {
    HemOptions m;
    m.tableau = name;
    Options o;
    o.rtol = o.atol = tol;
    const Result k = solve(knife_edge(false), 0.0, 10.0, knife_edge_exact(0.0), m, o);
    const Result p = solve(pendulum_index2_form(), 0.0, 2.0, pendulum0, m, o);
    ASSERT_TRUE(k.ok()) << k.message;
    ASSERT_TRUE(p.ok()) << p.message;
    const double ek = (k.y - knife_edge_exact(10.0)).head(6).cwiseAbs().maxCoeff();
    const double ep = (p.y - pendulum_reference(2.0)).head(4).cwiseAbs().maxCoeff();
    std::printf(
        "%-4s rtol = atol = 1e-8: knife edge %4ld steps |y - y(10)| = %.2e max |g| = %.1e;"
        " pendulum %4ld steps |y - y(2)| = %.2e max |g| = %.1e\n",
        name, k.stats.nsteps, ek, k.max_residual.position, p.stats.nsteps, ep,
        p.max_residual.position);
    EXPECT_LT(ek, 100 * tol);
    EXPECT_LT(ep, 100 * tol);
    EXPECT_LT(k.max_residual.position, 1e-10);
    EXPECT_LT(p.max_residual.position, 1e-10);
  }
  // the mass-matrix form of the knife edge (M_yy = diag(1, 1, 1, m, m, J), y' = M^{-1} f)
  const BuiltinProblem b = make_builtin_problem("knife-edge");
  Options o;
  o.rtol = o.atol = tol;
  const Result r = solve(b.dae, b.t0, b.t_end, b.y0, "hem", o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT((r.y - b.reference->y).head(6).cwiseAbs().maxCoeff(), 100 * tol);
}

TEST(Hem, BadInputGivesClearErrors) {
  Options o;
  o.rtol = o.atol = 1e-6;
  try {  // half-explicit methods need y' = f: a nonlinear a(t, y) is refused
    solve(knife_edge(true), 0.0, 1.0, knife_edge_exact(0.0), "hem", o);
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("nonlinear a(t, y)"), std::string::npos) << e.what();
  }
  Vector x0 = knife_edge_exact(0.0);
  x0[4] = 0.1;  // velocity across the blade
  Result r = solve(knife_edge(false), 0.0, 1.0, x0, "hem", o);
  EXPECT_EQ(r.status, Status::InconsistentInitialValues);
  EXPECT_NE(r.message.find("g(t0, y0)"), std::string::npos) << r.message;
  x0 = knife_edge_exact(0.0);
  x0[6] = 1.0;  // lambda0 != 0
  r = solve(knife_edge(false), 0.0, 1.0, x0, "hem", o);
  EXPECT_EQ(r.status, Status::InconsistentInitialValues);
  EXPECT_NE(r.message.find("hidden constraint"), std::string::npos) << r.message;
  HemOptions bad;
  bad.tableau = "dopri5";
  EXPECT_THROW(solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), bad, o), InvalidArgument);
}

TEST(Hem, DenseOutputIsCubicHermite) {
  // y between the steps from the Hermite cubic through (y_n, f_n), (y_n+1, f_n+1): its
  // interpolation error is O(h^4), as the global error of hem4 (measured: slightly faster)
  std::vector<double> hs, ey;
  for (int N : {10, 20, 40}) {
    Options o;
    o.fixed_step = true;
    o.h0 = 1.0 / N;
    o.rtol = o.atol = 1e-12;
    for (int k = 0; k < 4 * N; ++k) o.output_times.push_back((k + 0.5) / (4.0 * N));
    const Result r = solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), "hem", o);
    ASSERT_TRUE(r.ok()) << r.message;
    double e = 0.0;
    for (long k = 0; k < r.y_out.size(); ++k)
      e = std::max(e, (r.y_out[k] - jay_index2_exact(r.t_out[static_cast<size_t>(k)]))
                          .head(2)
                          .cwiseAbs()
                          .maxCoeff());
    hs.push_back(o.h0);
    ey.push_back(e);
    std::printf("hem4 dense output h = 1/%d: max |y(t) - y_exact(t)| between steps = %.2e\n", N, e);
  }
  const double p = fitted_slope(hs, ey);
  std::printf("hem4 dense output: order %.2f\n", p);
  EXPECT_GT(p, 3.7);
}
