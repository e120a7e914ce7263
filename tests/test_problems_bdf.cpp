// The index-1 test problems "akzo" (chemical Akzo Nobel, IVP Test Set) and "robertson-dae"
// (Robertson with the conservation law as algebraic equation): sizes, consistent initial
// values, analytic Jacobians against central differences, and radau5 accuracy against the
// reference solutions at a range of tolerances.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

/// Max over entries of |J - J_fd| / (1 + |J|), J_fd by central differences with increments
/// 1e-6 max(|y_j|, 1e-3) (the functions are smooth where y2 > 0; the floor keeps the
/// cancellation error of zero components small).
double bdf_jacobian_mismatch(const MassMatrixDae& d, double t, const Vector& y) {
  const int n = d.n;
  Matrix J = Matrix::Zero(n, n);
  d.jacobian(t, y, J);
  Matrix Jfd(n, n);
  Vector yp = y, ym = y, fp(n), fm(n);
  for (int j = 0; j < n; ++j) {
    const double h = 1e-6 * std::max(std::abs(y[j]), 1e-3);
    yp[j] = y[j] + h;
    ym[j] = y[j] - h;
    d.f(t, yp, fp);
    d.f(t, ym, fm);
    Jfd.col(j) = (fp - fm) / (2 * h);
    yp[j] = ym[j] = y[j];
  }
  return ((J - Jfd).array().abs() / (1.0 + J.array().abs())).maxCoeff();
}

double radau5_atol(const std::string& name, double rtol) {
  // robertson-dae: y2 ~ 8e-14 at t = 1e11 counts in scd, so atol far below rtol (as the
  // problem's default pair rtol = 1e-6, atol = 1e-12).
  return name == "robertson-dae" ? 1e-6 * rtol : rtol;
}

}  // namespace

TEST(ProblemsBdf, AkzoSizesAndConsistentStart) {
  const BuiltinProblem p = make_builtin_problem("akzo");
  EXPECT_EQ(p.name, "akzo");
  EXPECT_EQ(p.dae.n, 6);
  ASSERT_EQ(p.y0.size(), 6);
  ASSERT_EQ(p.dae.mass.rows(), 6);
  ASSERT_EQ(p.dae.mass.cols(), 6);
  EXPECT_EQ(p.dae.algebraic_rows(), std::vector<int>{5});
  EXPECT_EQ(p.dae.max_index(), 1);
  EXPECT_EQ(p.t0, 0.0);
  EXPECT_EQ(p.t_end, 180.0);
  ASSERT_TRUE(p.reference.has_value());
  EXPECT_EQ(p.reference->t, p.t_end);
  EXPECT_EQ(p.reference->y.size(), 6);
  EXPECT_EQ(p.scd_components.size(), 6u);
  EXPECT_NO_THROW(p.dae.validate());
  Vector f(6);
  p.dae.f(p.t0, p.y0, f);
  EXPECT_LE(std::abs(f[5]), 1e-12);  // y6(0) = Ks y1(0) y4(0)
  EXPECT_NEAR(p.y0[5], 115.83 * 0.444 * 0.007, 1e-15);
  EXPECT_EQ(check_initial_values(p.dae, p.t0, p.y0, 1e-12), "");
}

TEST(ProblemsBdf, RobertsonDaeSizesAndConsistentStart) {
  const BuiltinProblem p = make_builtin_problem("robertson-dae");
  EXPECT_EQ(p.name, "robertson-dae");
  EXPECT_EQ(p.dae.n, 3);
  ASSERT_EQ(p.y0.size(), 3);
  ASSERT_EQ(p.dae.mass.rows(), 3);
  EXPECT_EQ(p.dae.algebraic_rows(), std::vector<int>{2});
  EXPECT_EQ(p.dae.max_index(), 1);
  EXPECT_EQ(p.t_end, 1e11);
  ASSERT_TRUE(p.reference.has_value());
  EXPECT_EQ(p.reference->t, p.t_end);
  EXPECT_EQ(p.reference->y.size(), 3);
  EXPECT_NO_THROW(p.dae.validate());
  Vector f(3);
  p.dae.f(p.t0, p.y0, f);
  EXPECT_LE(std::abs(f[2]), 1e-12);
  EXPECT_EQ(check_initial_values(p.dae, p.t0, p.y0, 1e-12), "");
  // the reference satisfies the algebraic equation y1 + y2 + y3 = 1 (to its 16 digits)
  p.dae.f(p.reference->t, p.reference->y, f);
  EXPECT_LE(std::abs(f[2]), 1e-13);
  // same solution as the ODE form
  const BuiltinProblem ode = make_builtin_problem("robertson");
  EXPECT_EQ((p.reference->y - ode.reference->y).cwiseAbs().maxCoeff(), 0.0);
}

TEST(ProblemsBdf, AnalyticJacobiansMatchFiniteDifferences) {
  const BuiltinProblem akzo = make_builtin_problem("akzo");
  const double e0 = bdf_jacobian_mismatch(akzo.dae, 0.0, akzo.y0);
  const double e1 = bdf_jacobian_mismatch(akzo.dae, 180.0, akzo.reference->y);
  Vector y(6);
  y << 0.3, 0.002, 0.05, 0.004, 0.01, 0.1;  // all rates active, y6 off its equilibrium
  const double e2 = bdf_jacobian_mismatch(akzo.dae, 1.0, y);
  std::printf("akzo Jacobian mismatch: %.1e %.1e %.1e\n", e0, e1, e2);
  EXPECT_LT(e0, 1e-6);
  EXPECT_LT(e1, 1e-6);
  EXPECT_LT(e2, 1e-6);

  const BuiltinProblem rob = make_builtin_problem("robertson-dae");
  Vector z(3);
  z << 0.6, 2e-5, 0.39998;
  const double r0 = bdf_jacobian_mismatch(rob.dae, 0.0, rob.y0);
  const double r1 = bdf_jacobian_mismatch(rob.dae, 1.0, z);
  const double r2 = bdf_jacobian_mismatch(rob.dae, 1e11, rob.reference->y);
  std::printf("robertson-dae Jacobian mismatch: %.1e %.1e %.1e\n", r0, r1, r2);
  EXPECT_LT(r0, 1e-6);
  EXPECT_LT(r1, 1e-6);
  EXPECT_LT(r2, 1e-6);
}

/// Solves problem `name` at rtol = 1e-4, 1e-6, 1e-8, 1e-10 with `solve_at(p, options)` and
/// checks that scd against the reference grows by more than half a digit per step (> 2 at
/// first); `check(tol, result)` adds per-run expectations.
template <typename Solve, typename Check>
void expect_accuracy_grows(const char* label, const std::string& name, double h0, Solve solve_at,
                           Check check) {
  const BuiltinProblem p = make_builtin_problem(name);
  double previous = -1.0;
  for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    Options o;
    o.rtol = tol;
    o.atol = radau5_atol(name, tol);
    o.h0 = h0;
    o.store_steps = false;
    const Result r = solve_at(p, o);
    ASSERT_TRUE(r.ok()) << label << " " << name << " tol " << tol << ": " << r.message;
    EXPECT_EQ(r.t, p.t_end);
    const double digits = scd(r.y, p.reference->y, p.scd_components);
    std::printf("%-6s %-13s rtol %.0e atol %.0e: scd %5.2f, steps %6ld, nfev %6ld, njac %5ld\n",
                label, name.c_str(), tol, o.atol, digits, r.stats.naccept, r.stats.nfev,
                r.stats.njac);
    if (previous < 0) EXPECT_GT(digits, 2.0) << name;
    // radau5 on an index-1 DAE works at rtol' = 0.1 rtol down to 1e-10 (its floor there since
    // issue 24; 1e-9 before, where it stayed at rtol = 1e-10 with the digits of 1e-8): every
    // tolerance here is worked at without a warning, and each one gains digits
    bool looser = false;
    for (const std::string& w : r.warnings)
      looser |= w.find("looser than rtol") != std::string::npos;
    EXPECT_FALSE(looser) << r.report();
    EXPECT_GT(digits, previous + 0.5) << name << " tol " << tol;
    previous = digits;
    check(tol, r);
  }
}

TEST(ProblemsBdf, Radau5AccuracyGrowsWithTolerance) {
  for (const char* name : {"akzo", "robertson-dae"})
    expect_accuracy_grows(
        "radau5", name, make_builtin_problem(name).h0,
        [](const BuiltinProblem& p, const Options& o) {
          return solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
        },
        [](double, const Result&) {});
}

// Issue 4: BDF accuracy against the IVP Test Set references grows with the tolerance on the
// index-1 problems. On the transistor amplifier the step count guards the algebraic error
// filter of the BDF (include/daekit/methods/bdf.hpp): without it the controller oscillated
// between h and 2h at order 1 (10510 steps at 1e-4, 44557 at 1e-6, failure at 1e-9; IDA takes
// 4429 and 12877 steps and fails at 1e-10, bench/bdf_vs_ida.cpp). Caution when reading the
// transistor's scd: it is set by U1 = -0.0056 at t = 0.2 (relative error of a small
// component); round-off-level changes (another basis of ker M) moved scd at 1e-6 from 5.34 to
// 4.11 (absolute error 4e-10 at atol 1e-6), i.e. within the tolerance either way.
TEST(ProblemsBdf, BdfAccuracyGrowsWithTolerance) {
  for (const std::string name : {"transistor", "akzo", "robertson-dae"}) {
    const bool transistor = name == "transistor";
    expect_accuracy_grows(
        "bdf", name, transistor ? make_builtin_problem(name).h0 : 0.0,
        [](const BuiltinProblem& p, const Options& o) {
          return solve(p.dae, p.t0, p.t_end, p.y0, BdfOptions{}, o);
        },
        [transistor](double tol, const Result& r) {
          if (transistor) EXPECT_LT(r.stats.naccept, 5000 * (1 - std::log10(tol) - 3));
        });
  }
}
