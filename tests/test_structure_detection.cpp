// Detection of undeclared Jacobian structures (Options::detect_sparsity, issue 29): the
// pattern found by perturbation equals the true one (banded, block, random sparse), survives a
// zero that depends on the values at y0, chooses the backend from density and bandwidth, and
// the Jacobian check at t0 is counted (Stats::nfev_check) and coloured for large n.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "daekit/daekit.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/structure_detection.hpp"

namespace daekit {
namespace {

using Entries = std::set<std::pair<int, int>>;

// A problem y' = -diag(d) y + g(y) whose df/dy has exactly the entries `pattern` (plus the
// diagonal): f_i = -2 y_i + sum over (i, j) in pattern, j != i, of 0.1 sin(y_j) (y near 1,
// so no entry vanishes at y0 or nearby).
MassMatrixDae sd_pattern_problem(int n, const Entries& pattern) {
  std::vector<std::vector<int>> row(static_cast<size_t>(n));
  for (const auto& [i, j] : pattern)
    if (i != j) row[static_cast<size_t>(i)].push_back(j);
  MassMatrixDae d;
  d.n = n;
  d.name = "pattern problem";
  d.f = [row](double, VecIn y, VecOut out) {
    for (size_t i = 0; i < row.size(); ++i) {
      double s = -2.0 * y[static_cast<Eigen::Index>(i)];
      for (int j : row[i]) s += 0.1 * std::sin(y[j]);
      out[static_cast<Eigen::Index>(i)] = s;
    }
  };
  return d;
}

Entries sd_entries(const SparseMatrix& P) {
  Entries e;
  for (int j = 0; j < P.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(P, j); it; ++it) e.insert({static_cast<int>(it.row()), j});
  return e;
}

Entries sd_with_diagonal(Entries e, int n) {
  for (int i = 0; i < n; ++i) e.insert({i, i});
  return e;
}

// The detector as the integrator runs it: a scan at y0, confirmed at the second point.
SparseMatrix sd_detect(const MassMatrixDae& d, const Vector& y0, int* evaluations = nullptr) {
  StructureDetector det(d.n, d.n);
  auto f = [&](const Vector& y, Vector& out) {
    d.f(0.0, y, out);
    return true;
  };
  Vector f0(d.n), f1(d.n);
  const Vector y1 = second_point(y0);
  f(y0, f0);
  f(y1, f1);
  EXPECT_TRUE(det.scan(f, y0, f0));
  EXPECT_TRUE(det.confirm(f, y1, f1));
  if (evaluations) *evaluations = det.evaluations();
  return det.pattern();
}

Entries sd_banded(int n, int l, int u) {
  Entries e;
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - l); j <= std::min(n - 1, i + u); ++j) e.insert({i, j});
  return e;
}

Entries sd_blocks(int n, int b) {
  Entries e;
  for (int i = 0; i < n; ++i)
    for (int j = (i / b) * b; j < std::min(n, (i / b + 1) * b); ++j) e.insert({i, j});
  return e;
}

Entries sd_random(int n, double density, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Entries e;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i == j || u(g) < density) e.insert({i, j});
  return e;
}

TEST(StructureDetection, FindsBandedBlockAndRandomPatterns) {
  for (const Entries& truth : {sd_banded(120, 2, 3), sd_blocks(120, 6), sd_random(150, 0.02, 7)}) {
    const int n = truth.rbegin()->first + 1;
    const MassMatrixDae d = sd_pattern_problem(n, truth);
    const Vector y0 = Vector::Constant(n, 1.0);
    int evaluations = 0;
    const SparseMatrix P = sd_detect(d, y0, &evaluations);
    EXPECT_EQ(sd_entries(P), sd_with_diagonal(truth, n));
    // nothing to add at the second point: one scan and two evaluations per colour
    EXPECT_EQ(evaluations, n + 2 * colour_columns(n, Sparsity::sparse(P)).colours);
  }
}

TEST(StructureDetection, SecondPointFindsValueDependentZeros) {
  // f_i = -y_i + y_i y_{i+1}: df_i/dy_i = -1 + y_{i+1}, zero where y_{i+1} = 1, and
  // df_i/dy_{i+1} = y_i, zero where y_i = 0 (every other component of y0)
  const int n = 80;
  MassMatrixDae d;
  d.n = n;
  d.f = [n](double, VecIn y, VecOut out) {
    for (int i = 0; i < n; ++i) out[i] = -y[i] + (i + 1 < n ? y[i] * y[i + 1] : 0.0);
  };
  Vector y0(n);
  for (int i = 0; i < n; ++i) y0[i] = i % 2 == 0 ? 0.0 : 1.0;
  StructureDetector at_y0(n, n);
  auto f = [&](const Vector& y, Vector& out) {
    d.f(0.0, y, out);
    return true;
  };
  Vector f0(n);
  f(y0, f0);
  ASSERT_TRUE(at_y0.scan(f, y0, f0));
  const Entries truth = sd_banded(n, 0, 1);
  EXPECT_NE(sd_entries(at_y0.pattern()), truth);  // y0 alone misses entries
  EXPECT_EQ(sd_entries(sd_detect(d, y0)), truth);
}

TEST(StructureDetection, ValueDependentZeroProblemIsSolvedCorrectly) {
  // y_i' = -y_i + y_i y_{i+1} - 0.5 y_i^3, y0 with zeros: the detected solve equals the dense
  // one (every entry found at the second point)
  const int n = 100;
  MassMatrixDae d;
  d.n = n;
  d.f = [n](double, VecIn y, VecOut out) {
    for (int i = 0; i < n; ++i)
      out[i] = -y[i] + (i + 1 < n ? y[i] * y[i + 1] : 0.0) - 0.5 * y[i] * y[i] * y[i] +
               (i == 0 ? 1.0 : 0.0);
  };
  Vector y0(n);
  for (int i = 0; i < n; ++i) y0[i] = i % 2 == 0 ? 0.0 : 1.0;
  Options o;
  o.rtol = o.atol = 1e-8;
  const Result detected = solve(d, 0.0, 5.0, y0, MethodChoice("radau5"), o);
  o.detect_sparsity = false;
  const Result dense = solve(d, 0.0, 5.0, y0, MethodChoice("radau5"), o);
  ASSERT_TRUE(detected.ok()) << detected.message;
  ASSERT_TRUE(dense.ok()) << dense.message;
  EXPECT_EQ(detected.jacobian_structure.rfind("detected", 0), 0u) << detected.jacobian_structure;
  EXPECT_EQ(detected.linear_solver, "banded LU");
  EXPECT_EQ(detected.jacobian_colours, 2);
  EXPECT_LT((detected.y - dense.y).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_GT(detected.stats.nfev_structure, n + 2 + 2 * 2);  // groups scanned at the second point
  EXPECT_EQ(dense.stats.nfev_structure, 0);
}

TEST(StructureDetection, ChoosesTheBackendFromDensityAndBandwidth) {
  Options o;
  o.rtol = o.atol = 1e-6;
  struct Case {
    Entries pattern;
    const char* backend;
  };
  // a 1 %-dense matrix of n = 350 is never factored dense
  for (const Case& c :
       {Case{sd_banded(200, 2, 2), "banded LU"}, Case{sd_random(350, 0.01, 11), "KLU"},
        Case{sd_random(80, 0.5, 3), "dense LU"}}) {
    const int n = c.pattern.rbegin()->first + 1;
    const MassMatrixDae d = sd_pattern_problem(n, c.pattern);
    const Result r = solve(d, 0.0, 1.0, Vector::Constant(n, 1.0), MethodChoice("radau5"), o);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.linear_solver, c.backend) << r.jacobian_structure;
    EXPECT_EQ(r.jacobian_structure.rfind("detected", 0), 0u) << r.jacobian_structure;
  }
  EXPECT_EQ(backend_for_pattern(350, Sparsity::dense().to_pattern(350)), LinearSolverKind::Dense);
  const Entries one_percent = sd_random(350, 0.01, 5);
  std::vector<Eigen::Triplet<double, int>> t;
  for (const auto& [i, j] : one_percent) t.emplace_back(i, j, 1.0);
  SparseMatrix P(350, 350);
  P.setFromTriplets(t.begin(), t.end());
  EXPECT_EQ(backend_for_pattern(350, P), LinearSolverKind::Sparse);
}

TEST(StructureDetection, SmallProblemsAndDeclaredStructuresAreLeftAlone) {
  const MassMatrixDae small = sd_pattern_problem(20, sd_banded(20, 1, 1));
  const Result r = solve(small, 0.0, 1.0, Vector::Constant(20, 1.0));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.stats.nfev_structure, 0);
  EXPECT_EQ(r.linear_solver, "dense LU");
  EXPECT_NE(r.jacobian_structure.find("not detected"), std::string::npos) << r.jacobian_structure;

  MassMatrixDae declared = sd_pattern_problem(100, sd_banded(100, 1, 1));
  declared.jacobian_sparsity = Sparsity::banded(1, 1);
  const Result s = solve(declared, 0.0, 1.0, Vector::Constant(100, 1.0));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.stats.nfev_structure, 0);
  EXPECT_EQ(s.jacobian_structure, "declared banded (1, 1)");
}

TEST(StructureDetection, FailedSolveWithADetectedStructureIsSolvedAgainDense) {
  // too few steps for the interval: the detected run fails, solve() runs once more with the
  // dense structure (which fails the same way here) and reports both runs' cost
  const MassMatrixDae d = sd_pattern_problem(100, sd_banded(100, 1, 1));
  Options o;
  o.max_steps = 5;
  o.hmax = 1e-3;
  const Result r = solve(d, 0.0, 1.0, Vector::Constant(100, 1.0), MethodChoice("radau5"), o);
  EXPECT_EQ(r.status, Status::MaxStepsExceeded);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("solved again with the dense structure"), std::string::npos)
      << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("detected at t0"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.jacobian_structure.find("detect_sparsity off"), std::string::npos)
      << r.jacobian_structure;
  EXPECT_EQ(r.stats.nsteps, 2 * 5);  // both runs counted
  EXPECT_GT(r.stats.nfev_structure, 100);

  Integrator it(d, 0.0, 1.0, Vector::Constant(100, 1.0), MethodChoice("radau5"), o);
  for (Integrator::Stop s = it.step(); s != Integrator::Stop::End && s != Integrator::Stop::Failure;
       s = it.step()) {
  }
  const Result stepped = it.take_result();  // the stepping Integrator does not solve again
  EXPECT_EQ(stepped.status, Status::MaxStepsExceeded);
  EXPECT_EQ(stepped.jacobian_structure.rfind("detected", 0), 0u) << stepped.jacobian_structure;
}

TEST(StructureDetection, MostlyDensePatternsStayDenseUnconfirmed) {
  // every row depends on 40 of 60 components: n + 1 evaluations, no confirmation
  const int n = 60;
  Entries e;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 40; ++k) e.insert({i, (i + k) % n});
  const MassMatrixDae d = sd_pattern_problem(n, e);
  const Result r = solve(d, 0.0, 1.0, Vector::Constant(n, 1.0));
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.linear_solver, "dense LU");
  EXPECT_EQ(r.stats.nfev_structure, n + 1);
  EXPECT_EQ(r.jacobian_structure.rfind("dense (detected at t0", 0), 0u) << r.jacobian_structure;
}

TEST(StructureDetection, ImplicitFormDetectsBothMatrices) {
  // F = y' - A y with A tridiagonal, plus y'_{i+5} in row i (dF/dy' off the diagonal)
  const int n = 90;
  ImplicitDae d;
  d.n = n;
  d.F = [n](double, VecIn y, VecIn yp, VecOut out) {
    for (int i = 0; i < n; ++i) {
      out[i] = yp[i] + 2.0 * y[i] - (i > 0 ? y[i - 1] : 0.0) - (i + 1 < n ? y[i + 1] : 0.0);
      if (i + 5 < n) out[i] += 0.1 * yp[i + 5];
    }
  };
  Vector y0 = Vector::Constant(n, 1.0), yp0(n);
  // consistent yp0 of the upper-triangular system (I + 0.1 S^5) yp = A y0, back substitution
  Vector Ay(n);
  for (int i = 0; i < n; ++i)
    Ay[i] = -2.0 * y0[i] + (i > 0 ? y0[i - 1] : 0.0) + (i + 1 < n ? y0[i + 1] : 0.0);
  for (int i = n - 1; i >= 0; --i) yp0[i] = Ay[i] - (i + 5 < n ? 0.1 * yp0[i + 5] : 0.0);
  const Result r = solve(d, 0.0, 1.0, y0, yp0, MethodChoice("bdf"), Options{});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.linear_solver, "banded LU") << r.jacobian_structure;
  EXPECT_NE(r.jacobian_structure.find("banded (1, 5)"), std::string::npos) << r.jacobian_structure;
  EXPECT_GE(r.stats.nfev_structure, 2 * n + 2 + 2 * 2 * 4);  // >= 4 colours per matrix
  EXPECT_LE(r.stats.nfev_structure, 2 * n + 2 + 2 * 2 * 8);
}

// df/dy tridiagonal with an analytic Jacobian (declared banded, or not declared)
MassMatrixDae sd_analytic_tridiagonal(int n, bool declare) {
  MassMatrixDae d = sd_pattern_problem(n, sd_banded(n, 1, 1));
  d.jacobian = [n](double, VecIn y, Matrix& J) {
    for (int i = 0; i < n; ++i) {
      J(i, i) = -2.0;
      if (i > 0) J(i, i - 1) = 0.1 * std::cos(y[i - 1]);
      if (i + 1 < n) J(i, i + 1) = 0.1 * std::cos(y[i + 1]);
    }
  };
  if (declare) d.jacobian_sparsity = Sparsity::banded(1, 1);
  return d;
}

TEST(StructureDetection, JacobianCheckIsCountedAndColouredForLargeN) {
  Options o;
  o.rtol = o.atol = 1e-6;
  {  // small n: every column, 2n + 1 evaluations, counted apart from nfev
    const MassMatrixDae d = sd_analytic_tridiagonal(10, false);
    const Result r = solve(d, 0.0, 1.0, Vector::Constant(10, 1.0), MethodChoice("radau5"), o);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.stats.nfev_check, 2 * 10 + 1);
  }
  {  // large n, banded (1, 1): its 3 colours checked whole, 2 * 3 + 1 evaluations
    const MassMatrixDae d = sd_analytic_tridiagonal(500, true);
    const Result r = solve(d, 0.0, 1.0, Vector::Constant(500, 1.0), MethodChoice("radau5"), o);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.stats.nfev_check, 2 * 3 + 1);
  }
  {  // undeclared: the structure comes from the analytic Jacobian's non-zeros
    const MassMatrixDae d = sd_analytic_tridiagonal(500, false);
    const Result r = solve(d, 0.0, 1.0, Vector::Constant(500, 1.0), MethodChoice("radau5"), o);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.stats.nfev_check, 2 * 3 + 1);
    EXPECT_EQ(r.stats.nfev_structure, 0);
    EXPECT_EQ(r.linear_solver, "banded LU") << r.jacobian_structure;
  }
  {  // a wrong entry is still found by the coloured check
    MassMatrixDae d = sd_analytic_tridiagonal(500, true);
    const auto right = d.jacobian;
    d.jacobian = [right](double t, VecIn y, Matrix& J) {
      right(t, y, J);
      J(300, 301) *= 2.0;
    };
    const Result r = solve(d, 0.0, 1.0, Vector::Constant(500, 1.0), MethodChoice("radau5"), o);
    EXPECT_EQ(r.status, Status::InvalidInput);
    EXPECT_NE(r.message.find("(300, 301)"), std::string::npos) << r.message;
  }
  {  // an entry left out of the analytic Jacobian and of its declared structure
    MassMatrixDae d = sd_pattern_problem(500, sd_banded(500, 1, 2));
    d.jacobian_sparsity = Sparsity::banded(1, 1);
    d.jacobian = sd_analytic_tridiagonal(500, true).jacobian;
    const Result r = solve(d, 0.0, 1.0, Vector::Constant(500, 1.0), MethodChoice("radau5"), o);
    EXPECT_EQ(r.status, Status::InvalidInput) << r.message;
  }
}

}  // namespace
}  // namespace daekit
