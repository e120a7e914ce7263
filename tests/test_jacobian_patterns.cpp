// A declared jacobian_sparsity of F(t, y, y') = 0 is the structure of dF/dy + c dF/dy', both
// matrices. A pattern of dF/dy alone lost the dF/dy' entries from the iteration matrix: the BDF
// stopped at t = 0 with singular matrices or Newton failures and no word about the pattern. The
// first evaluation of F now checks the pattern and throws InvalidArgument naming the entries.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// F_i = y_i' + c y_{i+1}' - y_{i-1} (F_0 = y_0' + c y_1' + y_0): a chain with a coupled dF/dy'
// (diagonal and, for c != 0, superdiagonal) and a dF/dy below the diagonal.
ImplicitDae pattern_chain(int n, double c) {
  ImplicitDae d;
  d.n = n;
  d.name = "coupled chain";
  d.F = [n, c](double, VecIn y, VecIn yp, VecOut F) {
    for (int i = 0; i < n; ++i)
      F[i] = yp[i] + (i + 1 < n ? c * yp[i + 1] : 0.0) + (i > 0 ? -y[i - 1] : y[i]);
  };
  return d;
}

// The pattern with the diagonal (if `diagonal`), the subdiagonal and (if `upper`) the
// superdiagonal.
Sparsity pattern_of_chain(int n, bool diagonal, bool upper) {
  std::vector<Eigen::Triplet<double, int>> entries{{0, 0, 1.0}};
  for (int i = 1; i < n; ++i) {
    entries.emplace_back(i, i - 1, 1.0);
    if (diagonal) entries.emplace_back(i, i, 1.0);
  }
  if (upper)
    for (int i = 0; i + 1 < n; ++i) entries.emplace_back(i, i + 1, 1.0);
  SparseMatrix P(n, n);
  P.setFromTriplets(entries.begin(), entries.end());
  return Sparsity::sparse(P);
}

// Consistent y0 = 1, and y0' from the upper bidiagonal dF/dy'.
void pattern_chain_start(int n, double c, Vector& y0, Vector& yp0) {
  y0 = Vector::Ones(n);
  yp0.resize(n);
  for (int i = n - 1; i >= 0; --i)
    yp0[i] = (i > 0 ? y0[i - 1] : -y0[i]) - (i + 1 < n ? c * yp0[i + 1] : 0.0);
}

std::string pattern_failure(const ImplicitDae& dae, double c, const Options& o = {}) {
  Vector y0, yp0;
  pattern_chain_start(dae.n, c, y0, yp0);
  try {
    const Result r = solve(dae, 0.0, 1.0, y0, yp0, "bdf", o);
    return "no exception: " + std::string(to_string(r.status)) + " " + r.message;
  } catch (const InvalidArgument& e) {
    return e.what();
  }
}

bool names(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

// The pattern of dF/dy alone (no diagonal): the BDF reported singular matrices at t = 0.
TEST(JacobianPatterns, MissingDiagonalOfDFdypIsNamed) {
  ImplicitDae dae = pattern_chain(50, 0.0);
  dae.jacobian_sparsity = pattern_of_chain(50, false, false);
  const std::string message = pattern_failure(dae, 0.0);
  EXPECT_TRUE(names(message, "leaves out entries of dF/dy + c dF/dy'")) << message;
  EXPECT_TRUE(names(message, "dF/dy'(1, 1)")) << message;
  EXPECT_FALSE(names(message, "dF/dy(")) << message;  // dF/dy lies in the pattern
}

// A coupling in dF/dy' outside the pattern (the diagonal declared): named, row and column.
TEST(JacobianPatterns, MissingOffDiagonalOfDFdypIsNamed) {
  ImplicitDae dae = pattern_chain(50, 2.0);
  dae.jacobian_sparsity = pattern_of_chain(50, true, false);
  const std::string message = pattern_failure(dae, 2.0);
  EXPECT_TRUE(names(message, "dF/dy'(0, 1)")) << message;
  EXPECT_TRUE(names(message, "dF/dy'(2, 3)")) << message;
  EXPECT_TRUE(names(message, "and maybe more")) << message;  // 49 entries, 10 listed
  // a banded declaration that leaves out the superdiagonal: the same
  dae.jacobian_sparsity = Sparsity::banded(1, 0);
  EXPECT_TRUE(names(pattern_failure(dae, 2.0), "dF/dy'(1, 2)"));
  // the complete pattern solves (and a missing dF/dy entry is named as such)
  dae.jacobian_sparsity = pattern_of_chain(50, true, true);
  Vector y0, yp0;
  pattern_chain_start(50, 2.0, y0, yp0);
  Options o;
  o.rtol = o.atol = 1e-6;
  const Result r = solve(dae, 0.0, 1.0, y0, yp0, "bdf", o);
  EXPECT_TRUE(r.ok()) << r.message;
  ImplicitDae lower = pattern_chain(50, 0.0);
  std::vector<Eigen::Triplet<double, int>> diagonal;
  for (int i = 0; i < 50; ++i) diagonal.emplace_back(i, i, 1.0);
  SparseMatrix D(50, 50);
  D.setFromTriplets(diagonal.begin(), diagonal.end());
  lower.jacobian_sparsity = Sparsity::sparse(D);
  const std::string below = pattern_failure(lower, 0.0);
  EXPECT_TRUE(names(below, "dF/dy(1, 0)")) << below;
}

// Analytic sparse callbacks write into the pattern: what it leaves out is lost the same way.
// Analytic dense callbacks lose what lies outside the iteration structure (sparse backend).
TEST(JacobianPatterns, AnalyticCallbacksAreCheckedToo) {
  const int n = 40;
  ImplicitDae sparse = pattern_chain(n, 0.5);
  sparse.jacobian_sparsity = pattern_of_chain(n, true, false);
  sparse.sparse_dF_dy = [n](double, VecIn, VecIn, SparseMatrix& J) {
    J.coeffRef(0, 0) = 1.0;
    for (int i = 1; i < n; ++i) J.coeffRef(i, i - 1) = -1.0;
  };
  sparse.sparse_dF_dyp = [n](double, VecIn, VecIn, SparseMatrix& J) {
    for (int i = 0; i < n; ++i) J.coeffRef(i, i) = 1.0;  // the 0.5 couplings have no place
  };
  Options o;
  o.check_jacobian = false;  // the pattern check comes first anyway
  EXPECT_TRUE(names(pattern_failure(sparse, 0.5, o), "dF/dy'(0, 1)"));
  ImplicitDae dense = pattern_chain(n, 0.5);
  dense.jacobian_sparsity = pattern_of_chain(n, true, false);
  dense.dF_dy = [n](double, VecIn, VecIn, Matrix& J) {
    J(0, 0) = 1.0;
    for (int i = 1; i < n; ++i) J(i, i - 1) = -1.0;
  };
  dense.dF_dyp = [n](double, VecIn, VecIn, Matrix& J) {
    for (int i = 0; i < n; ++i) {
      J(i, i) = 1.0;
      if (i + 1 < n) J(i, i + 1) = 0.5;
    }
  };
  o.linear_solver = LinearSolverKind::Sparse;
  EXPECT_TRUE(names(pattern_failure(dense, 0.5, o), "dF/dy'(0, 1)"));
}

// initialize() evaluates F first as well: the same refusal.
TEST(JacobianPatterns, InitializeRefusesTheIncompletePattern) {
  ImplicitDae dae = pattern_chain(20, 0.0);
  dae.jacobian_sparsity = pattern_of_chain(20, false, false);
  Vector y0, yp0;
  pattern_chain_start(20, 0.0, y0, yp0);
  EXPECT_THROW(initialize(dae, 0.0, y0, yp0, InitMode::CheckOnly), InvalidArgument);
}
