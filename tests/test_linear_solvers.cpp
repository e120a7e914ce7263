// The backends of linalg/linear_solver.hpp (dense LU, banded LU, KLU), real and complex:
// random well-conditioned matrices that need pivoting, compared with each other and checked
// by their residuals; refactorisation with new values (including values for which KLU's old
// pivot order fails, so that its fresh factorisation runs); singular and non-finite matrices;
// general sparse patterns through KLU; the automatic choice of backend; a large tridiagonal
// system; no allocation in the solves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "allocation_counter.hpp"
#include "linalg/linear_solver.hpp"

using namespace daekit;

namespace {

using Complex = std::complex<double>;
template <typename Scalar>
using DenseOf = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
template <typename Scalar>
using VectorOf = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

constexpr double kQuietNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename Scalar>
Scalar random_scalar(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same_v<Scalar, double>) {
    return u(rng);
  } else {
    const double re = u(rng);
    return Scalar(re, u(rng));
  }
}

template <typename Scalar>
VectorOf<Scalar> random_vector(int n, std::mt19937& rng) {
  VectorOf<Scalar> v(n);
  for (int i = 0; i < n; ++i) v[i] = random_scalar<Scalar>(rng);
  return v;
}

// A random n x n matrix of bandwidths (l, u) that is well conditioned but needs pivoting when
// l, u >= 1: tiny diagonal, dominant entries on the 2 x 2 swaps (k, k + 1) of consecutive
// pairs starting at `offset` (0 or 1), so that P A is strongly diagonally dominant for a row
// permutation P that moves the dominant entries onto the diagonal. With l = 0 or u = 0 (a
// triangular band, where pivoting cannot help) the diagonal is dominant instead.
template <typename Scalar>
DenseOf<Scalar> random_banded(int n, int l, int u, std::mt19937& rng, int offset = 0) {
  DenseOf<Scalar> a = DenseOf<Scalar>::Zero(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = std::max(0, j - u); i <= std::min(n - 1, j + l); ++i)
      a(i, j) = random_scalar<Scalar>(rng);
  const double big = 4.0 * (l + u + 1);
  std::vector<char> paired(static_cast<size_t>(n), 0);
  if (l >= 1 && u >= 1) {
    for (int k = offset; k + 1 < n; k += 2) {
      a(k, k) *= 1e-14;
      a(k + 1, k + 1) *= 1e-14;
      a(k, k + 1) = big * (1.5 + std::real(random_scalar<Scalar>(rng)) / 2) * (k % 4 ? 1 : -1);
      a(k + 1, k) = big * (1.5 + std::real(random_scalar<Scalar>(rng)) / 2);
      if constexpr (!std::is_same_v<Scalar, double>) a(k + 1, k) *= Scalar(0.6, 0.8);
      paired[k] = paired[k + 1] = 1;
    }
  }
  for (int k = 0; k < n; ++k)
    if (!paired[k]) a(k, k) = big * (1.5 + std::real(random_scalar<Scalar>(rng)) / 2);
  return a;
}

// Writes the structural entries of a into the solver's matrix (the banded fill rows and the
// entries outside the structure are left alone: they must not matter).
template <typename Scalar>
void assemble(LinearSolver<Scalar>& solver, const DenseOf<Scalar>& a) {
  for (int j = 0; j < solver.size(); ++j)
    solver.matrix().for_each_in_column(j, [&](int i, Scalar& v) { v = a(i, j); });
}

template <typename Scalar>
double norm_inf(const DenseOf<Scalar>& a) {
  return a.cwiseAbs().rowwise().sum().maxCoeff();
}

// ||A x - b|| / (||A|| ||x||) in the infinity norm.
template <typename Scalar>
double relative_residual(const DenseOf<Scalar>& a, const VectorOf<Scalar>& x,
                         const VectorOf<Scalar>& b) {
  const double scale = norm_inf(a) * x.template lpNorm<Eigen::Infinity>();
  return scale == 0.0 ? 0.0 : (a * x - b).template lpNorm<Eigen::Infinity>() / scale;
}

// Assembles a, factors and solves a x = b; returns x (NaN if factor() failed).
template <typename Scalar>
VectorOf<Scalar> factor_and_solve(LinearSolver<Scalar>& solver, const DenseOf<Scalar>& a,
                                  const VectorOf<Scalar>& b) {
  assemble(solver, a);
  VectorOf<Scalar> x = b;
  if (!solver.factor()) {
    ADD_FAILURE() << solver.name() << ": factor() failed";
    x.setConstant(Scalar(kQuietNaN));
    return x;
  }
  solver.solve_in_place(x);
  return x;
}

// The three backends for an n x n matrix of bandwidths (l, u) (KLU with the band pattern).
template <typename Scalar>
std::vector<std::unique_ptr<LinearSolver<Scalar>>> all_backends(int n, int l, int u) {
  std::vector<std::unique_ptr<LinearSolver<Scalar>>> solvers;
  solvers.push_back(make_dense_solver<Scalar>(n));
  solvers.push_back(make_banded_solver<Scalar>(n, l, u));
  solvers.push_back(make_klu_solver<Scalar>(n, Sparsity::banded(l, u).to_pattern(n)));
  return solvers;
}

// Bandwidth pairs for size n: diagonal, narrow, one-sided (triangular) and full bands.
std::vector<std::pair<int, int>> bandwidths(int n) {
  std::set<std::pair<int, int>> set;
  for (auto [l, u] : std::vector<std::pair<int, int>>{
           {0, 0}, {1, 1}, {2, 1}, {1, 3}, {0, 2}, {3, 0}, {5, 4}, {n - 1, n - 1}})
    set.insert({std::min(l, n - 1), std::min(u, n - 1)});
  return {set.begin(), set.end()};
}

// Solutions of the banded and KLU backends: residuals below 1e-13 and agreement with the
// dense backend, for every size and bandwidth.
template <typename Scalar>
void check_random_banded_systems() {
  std::mt19937 rng(20240611);
  for (int n : {1, 2, 5, 40, 200}) {
    for (auto [l, u] : bandwidths(n)) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", l = " + std::to_string(l) +
                   ", u = " + std::to_string(u));
      const DenseOf<Scalar> a = random_banded<Scalar>(n, l, u, rng);
      const VectorOf<Scalar> b = random_vector<Scalar>(n, rng);
      auto solvers = all_backends<Scalar>(n, l, u);
      const VectorOf<Scalar> x_dense = factor_and_solve(*solvers[0], a, b);
      EXPECT_LT(relative_residual(a, x_dense, b), 1e-13);
      for (size_t s = 1; s < solvers.size(); ++s) {
        const VectorOf<Scalar> x = factor_and_solve(*solvers[s], a, b);
        EXPECT_LT(relative_residual(a, x, b), 1e-13) << solvers[s]->name();
        EXPECT_LT((x - x_dense).template lpNorm<Eigen::Infinity>(),
                  1e-12 * x_dense.template lpNorm<Eigen::Infinity>())
            << solvers[s]->name();
      }
    }
  }
}

// LU without pivoting (Doolittle): the test matrices defeat it, so they do test the pivoting.
template <typename Scalar>
double unpivoted_residual(const DenseOf<Scalar>& a, const VectorOf<Scalar>& b) {
  DenseOf<Scalar> lu = a;
  const int n = static_cast<int>(a.rows());
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i) {
      lu(i, k) /= lu(k, k);
      for (int j = k + 1; j < n; ++j) lu(i, j) -= lu(i, k) * lu(k, j);
    }
  VectorOf<Scalar> x = b;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < i; ++k) x[i] -= lu(i, k) * x[k];
  for (int i = n - 1; i >= 0; --i) {
    for (int k = i + 1; k < n; ++k) x[i] -= lu(i, k) * x[k];
    x[i] /= lu(i, i);
  }
  return relative_residual(a, x, b);
}

}  // namespace

TEST(LinearSolver, TestMatricesNeedPivoting) {
  std::mt19937 rng(7);
  const DenseOf<double> a = random_banded<double>(40, 2, 2, rng);
  const VectorOf<double> b = random_vector<double>(40, rng);
  const double r = unpivoted_residual(a, b);
  EXPECT_TRUE(!(r < 1e-6)) << r;  // large or NaN
}

TEST(LinearSolver, BandedAndKluMatchDenseReal) { check_random_banded_systems<double>(); }
TEST(LinearSolver, BandedAndKluMatchDenseComplex) { check_random_banded_systems<Complex>(); }

TEST(LinearSolver, NamesAndKinds) {
  auto solvers = all_backends<double>(10, 1, 2);
  EXPECT_STREQ(solvers[0]->name(), "dense LU");
  EXPECT_STREQ(solvers[1]->name(), "banded LU");
  EXPECT_STREQ(solvers[2]->name(), "KLU");
  EXPECT_EQ(solvers[0]->kind(), LinearSolverKind::Dense);
  EXPECT_EQ(solvers[1]->kind(), LinearSolverKind::Banded);
  EXPECT_EQ(solvers[2]->kind(), LinearSolverKind::Sparse);
  EXPECT_EQ(solvers[1]->matrix().kind(), Sparsity::Kind::Banded);
  EXPECT_EQ(solvers[2]->matrix().kind(), Sparsity::Kind::Sparse);
  for (auto& s : solvers) EXPECT_EQ(s->size(), 10);
}

// Factor the same structure with new values many times; the second matrix of each pair has
// its dominant entries on other positions (the pairing shifted by one), so the pivot order of
// the previous factorisation is wrong for it.
template <typename Scalar>
void check_refactorisation() {
  std::mt19937 rng(99);
  for (auto [n, l, u] : std::vector<std::tuple<int, int, int>>{{200, 2, 3}, {40, 1, 1}}) {
    auto solvers = all_backends<Scalar>(n, l, u);
    for (int round = 0; round < 6; ++round) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", round " + std::to_string(round));
      const DenseOf<Scalar> a = random_banded<Scalar>(n, l, u, rng, round % 2);
      const VectorOf<Scalar> b = random_vector<Scalar>(n, rng);
      const VectorOf<Scalar> x_dense = factor_and_solve(*solvers[0], a, b);
      for (auto& solver : solvers) {
        const VectorOf<Scalar> x = factor_and_solve(*solver, a, b);
        EXPECT_LT(relative_residual(a, x, b), 1e-13) << solver->name();
        EXPECT_LT((x - x_dense).template lpNorm<Eigen::Infinity>(),
                  1e-12 * x_dense.template lpNorm<Eigen::Infinity>())
            << solver->name();
      }
    }
  }
}

TEST(LinearSolver, RefactorisationReal) { check_refactorisation<double>(); }
TEST(LinearSolver, RefactorisationComplex) { check_refactorisation<Complex>(); }

// Values for which the pivot order of the previous factorisation hits an exact zero pivot
// (permutation <-> identity on a full 2 x 2 pattern) or a tiny one (huge element growth):
// KLU's refactorisation must be replaced by a fresh factorisation, else factor() would fail or
// the solution would be wrong.
template <typename Scalar>
void check_klu_refactorisation_fallback() {
  DenseOf<Scalar> swap(2, 2), eye(2, 2), near_eye(2, 2), near_swap(2, 2);
  swap << 0, 1, 1, 0;
  eye << 1, 0, 0, 1;
  near_eye << 1, 1e-14, 1e-14, 1;
  near_swap << 1e-14, 1, 1, 1e-14;
  VectorOf<Scalar> b(2);
  b << 1, 2;
  if constexpr (!std::is_same_v<Scalar, double>) {
    swap *= Scalar(0.6, 0.8);
    near_eye *= Scalar(0, 1);
    b[1] = Scalar(2, -3);
  }
  auto klu = make_klu_solver<Scalar>(2, Sparsity::dense().to_pattern(2));
  for (const DenseOf<Scalar>* a : {&swap, &eye, &swap, &near_eye, &near_swap, &eye, &near_swap}) {
    const VectorOf<Scalar> x = factor_and_solve(*klu, *a, b);
    EXPECT_LT(relative_residual(*a, x, b), 1e-14);
  }
  // The same on a larger banded system: a permutation-like matrix, then the identity-like one.
  const int n = 60;
  DenseOf<Scalar> p = DenseOf<Scalar>::Zero(n, n), d = DenseOf<Scalar>::Identity(n, n);
  for (int k = 0; k + 1 < n; k += 2) p(k, k + 1) = p(k + 1, k) = Scalar(1);
  auto band = make_klu_solver<Scalar>(n, Sparsity::banded(1, 1).to_pattern(n));
  std::mt19937 rng(3);
  for (const DenseOf<Scalar>* a : {&p, &d, &p, &d}) {
    const VectorOf<Scalar> rhs = random_vector<Scalar>(n, rng);
    const VectorOf<Scalar> x = factor_and_solve(*band, *a, rhs);
    EXPECT_LT(relative_residual(*a, x, rhs), 1e-14);
  }
}

TEST(KluSolver, RefactorisationFallsBackToFreshFactorisationReal) {
  check_klu_refactorisation_fallback<double>();
}
TEST(KluSolver, RefactorisationFallsBackToFreshFactorisationComplex) {
  check_klu_refactorisation_fallback<Complex>();
}

// Singular and non-finite matrices: factor() returns false (no exception, no crash) for every
// backend, and the solver recovers with the next regular matrix.
template <typename Scalar>
void check_singular() {
  std::mt19937 rng(5);
  const int n = 6, l = 2, u = 1;
  auto expect_failure_then_recovery = [&](const DenseOf<Scalar>& bad, const std::string& what) {
    const int m = static_cast<int>(bad.rows());
    const int lm = std::min(l, m - 1), um = std::min(u, m - 1);
    const DenseOf<Scalar> good = random_banded<Scalar>(m, lm, um, rng);
    const VectorOf<Scalar> b = random_vector<Scalar>(m, rng);
    for (auto& solver : all_backends<Scalar>(m, lm, um)) {
      // once on a fresh solver, once after a successful factorisation (KLU: refactor path)
      assemble(*solver, bad);
      EXPECT_FALSE(solver->factor()) << solver->name() << ": " << what;
      VectorOf<Scalar> x = factor_and_solve(*solver, good, b);
      EXPECT_LT(relative_residual(good, x, b), 1e-13) << solver->name() << ": " << what;
      assemble(*solver, bad);
      EXPECT_FALSE(solver->factor()) << solver->name() << " after a factorisation: " << what;
      x = factor_and_solve(*solver, good, b);
      EXPECT_LT(relative_residual(good, x, b), 1e-13) << solver->name() << ": " << what;
    }
  };
  DenseOf<Scalar> a = random_banded<Scalar>(n, l, u, rng);
  for (int j : {0, 3, n - 1}) {
    DenseOf<Scalar> zero_column = a;
    zero_column.col(j).setZero();
    expect_failure_then_recovery(zero_column, "zero column " + std::to_string(j));
    DenseOf<Scalar> zero_row = a;
    zero_row.row(j).setZero();
    expect_failure_then_recovery(zero_row, "zero row " + std::to_string(j));
  }
  DenseOf<Scalar> singular2(2, 2);
  singular2 << 1, 2, 2, 4;
  expect_failure_then_recovery(singular2, "singular 2 x 2");
  singular2 << 3, 0, 0, 0;
  expect_failure_then_recovery(singular2, "diag(3, 0)");
  expect_failure_then_recovery(DenseOf<Scalar>::Zero(1, 1), "1 x 1 zero");
  // Dependent columns of a banded matrix (column 3 = 2 * column 2; values whose elimination,
  // with or without KLU's row scaling, is exact in binary floating point).
  DenseOf<Scalar> dependent = DenseOf<Scalar>::Identity(n, n);
  dependent(2, 2) = Scalar(1);
  dependent(3, 2) = Scalar(2);
  dependent(4, 2) = Scalar(0.5);
  dependent(2, 3) = Scalar(2);
  dependent(3, 3) = Scalar(4);
  dependent(4, 3) = Scalar(1);
  expect_failure_then_recovery(dependent, "dependent columns");
  // A NaN or an Inf in any position of the band: diagonal, below (L), above (U).
  for (double bad : {kQuietNaN, kInf, -kInf})
    for (auto [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {2, 0}, {0, 1}, {5, 4}, {4, 5}}) {
      DenseOf<Scalar> nonfinite = a;
      nonfinite(i, j) = Scalar(bad);
      expect_failure_then_recovery(
          nonfinite, "non-finite entry (" + std::to_string(i) + ", " + std::to_string(j) + ")");
    }
  if constexpr (!std::is_same_v<Scalar, double>) {
    DenseOf<Scalar> nonfinite = a;
    nonfinite(3, 2) = Scalar(1.0, kQuietNaN);  // only the imaginary part
    expect_failure_then_recovery(nonfinite, "NaN imaginary part");
  }
}

TEST(LinearSolver, SingularAndNonFiniteMatricesReal) { check_singular<double>(); }
TEST(LinearSolver, SingularAndNonFiniteMatricesComplex) { check_singular<Complex>(); }

// Upper triangular band (l = 0): the NaN of an off-diagonal U entry never reaches a pivot
// candidate, it must still be reported.
TEST(BandedLU, NonFiniteEntryOfUpperTriangularBand) {
  DenseOf<double> a = DenseOf<double>::Identity(5, 5);
  a(1, 3) = kQuietNaN;
  auto solver = make_banded_solver<double>(5, 0, 2);
  assemble(*solver, a);
  EXPECT_FALSE(solver->factor());
}

// The fill rows hold an earlier factorisation: factor() clears them itself. The matrix is
// assembled directly into the band storage, then fill rows are set to garbage.
TEST(BandedLU, IgnoresGarbageInFillRows) {
  std::mt19937 rng(11);
  const int n = 30, l = 3, u = 2;
  auto solver = make_banded_solver<double>(n, l, u);
  const DenseOf<double> a = random_banded<double>(n, l, u, rng);
  const VectorOf<double> b = random_vector<double>(n, rng);
  assemble(*solver, a);
  solver->matrix().band().topRows(l).setConstant(kQuietNaN);
  ASSERT_TRUE(solver->factor());
  VectorOf<double> x = b;
  solver->solve_in_place(x);
  EXPECT_LT(relative_residual(a, x, b), 1e-13);
}

// General sparse patterns through KLU, compared with the dense backend.
template <typename Scalar>
void check_klu_general_patterns() {
  std::mt19937 rng(2718);
  const int n = 300;
  // (1) random pattern (about 4 entries a column), a random permutation carrying dominant
  // values, a tiny diagonal: needs pivoting, well conditioned.
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  DenseOf<Scalar> a = DenseOf<Scalar>::Zero(n, n);
  std::uniform_int_distribution<int> row(0, n - 1);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < 4; ++k) a(row(rng), j) = random_scalar<Scalar>(rng);
  for (int i = 0; i < n; ++i) a(i, i) = 1e-14 * random_scalar<Scalar>(rng);
  for (int i = 0; i < n; ++i)
    if (perm[i] != i) a(i, perm[i]) = Scalar(30.0) + random_scalar<Scalar>(rng);
  // (2) an arrow matrix: dense first row and column, a diagonal.
  DenseOf<Scalar> arrow = DenseOf<Scalar>::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    arrow(i, i) = Scalar(3.0) + random_scalar<Scalar>(rng);
    arrow(0, i) = random_scalar<Scalar>(rng) / std::sqrt(double(n));
    arrow(i, 0) = random_scalar<Scalar>(rng) / std::sqrt(double(n));
  }
  arrow(0, 0) = Scalar(3.0);
  for (const DenseOf<Scalar>* m : {&a, &arrow}) {
    // the pattern: the non-zeros, plus a few explicitly stored zeros
    std::vector<Eigen::Triplet<double, int>> entries;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if ((*m)(i, j) != Scalar(0) || (i * 7 + j) % 97 == 0) entries.emplace_back(i, j, 1.0);
    SparseMatrix pattern(n, n);
    pattern.setFromTriplets(entries.begin(), entries.end());
    auto klu = make_klu_solver<Scalar>(n, pattern);
    auto dense = make_dense_solver<Scalar>(n);
    for (int round = 0; round < 3; ++round) {  // factor, then refactor with perturbed values
      DenseOf<Scalar> am = *m;
      if (round > 0)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) am(i, j) *= 1.0 + 0.2 * std::real(random_scalar<Scalar>(rng));
      const VectorOf<Scalar> b = random_vector<Scalar>(n, rng);
      const VectorOf<Scalar> x_dense = factor_and_solve(*dense, am, b);
      const VectorOf<Scalar> x = factor_and_solve(*klu, am, b);
      EXPECT_LT(relative_residual(am, x, b), 1e-13);
      EXPECT_LT((x - x_dense).template lpNorm<Eigen::Infinity>(),
                1e-12 * x_dense.template lpNorm<Eigen::Infinity>());
    }
  }
}

TEST(KluSolver, GeneralSparsePatternsReal) { check_klu_general_patterns<double>(); }
TEST(KluSolver, GeneralSparsePatternsComplex) { check_klu_general_patterns<Complex>(); }

// A pattern with an empty column (structurally singular): no crash, factor() fails.
TEST(KluSolver, StructurallySingularPattern) {
  const int n = 5;
  std::vector<Eigen::Triplet<double, int>> entries;
  for (int i = 0; i < n; ++i)
    if (i != 2) entries.emplace_back(i, i, 1.0);
  entries.emplace_back(2, 1, 1.0);
  SparseMatrix pattern(n, n);
  pattern.setFromTriplets(entries.begin(), entries.end());
  auto klu = make_klu_solver<double>(n, pattern);
  for (int i = 0; i < n; ++i)
    if (i != 2) klu->matrix().ref(i, i) = 1.0;
  klu->matrix().ref(2, 1) = 1.0;
  EXPECT_FALSE(klu->factor());
  EXPECT_FALSE(klu->factor());
}

TEST(KluSolver, PatternOfWrongSizeIsRejected) {
  SparseMatrix pattern(4, 5);
  EXPECT_THROW(make_klu_solver<double>(5, pattern), InvalidArgument);
}

TEST(LinearSolver, EmptySystem) {
  for (auto& solver : all_backends<double>(0, 0, 0)) {
    EXPECT_TRUE(solver->factor()) << solver->name();
    VectorOf<double> x(0);
    solver->solve_in_place(x);
  }
}

TEST(LinearSolver, AutomaticChoiceOfBackend) {
  const Sparsity band = Sparsity::banded(2, 1);
  const Sparsity sparse = Sparsity::sparse(Sparsity::banded(1, 1).to_pattern(100));
  EXPECT_STREQ(make_linear_solver<double>(100, band, LinearSolverKind::Automatic)->name(),
               "banded LU");
  EXPECT_STREQ(make_linear_solver<Complex>(100, band, LinearSolverKind::Automatic)->name(),
               "banded LU");
  EXPECT_STREQ(make_linear_solver<double>(100, sparse, LinearSolverKind::Automatic)->name(), "KLU");
  EXPECT_STREQ(make_linear_solver<Complex>(100, sparse, LinearSolverKind::Automatic)->name(),
               "KLU");
  EXPECT_STREQ(
      make_linear_solver<double>(100, Sparsity::dense(), LinearSolverKind::Automatic)->name(),
      "dense LU");
  const Sparsity small_sparse = Sparsity::sparse(Sparsity::banded(1, 1).to_pattern(32));
  EXPECT_STREQ(make_linear_solver<double>(32, band, LinearSolverKind::Automatic)->name(),
               "dense LU");
  EXPECT_STREQ(make_linear_solver<double>(32, small_sparse, LinearSolverKind::Automatic)->name(),
               "dense LU");
  EXPECT_STREQ(make_linear_solver<double>(33, band, LinearSolverKind::Automatic)->name(),
               "banded LU");
  // explicit choices
  EXPECT_STREQ(make_linear_solver<double>(10, band, LinearSolverKind::Sparse)->name(), "KLU");
  EXPECT_STREQ(make_linear_solver<double>(10, band, LinearSolverKind::Banded)->name(), "banded LU");
  EXPECT_STREQ(make_linear_solver<double>(100, sparse, LinearSolverKind::Dense)->name(),
               "dense LU");
  EXPECT_STREQ(make_linear_solver<double>(100, Sparsity::dense(), LinearSolverKind::Sparse)->name(),
               "KLU");
  EXPECT_THROW(choose_backend(100, sparse, LinearSolverKind::Banded), InvalidArgument);
  EXPECT_THROW(choose_backend(100, Sparsity::dense(), LinearSolverKind::Banded), InvalidArgument);
  EXPECT_THROW(make_linear_solver<double>(100, sparse, LinearSolverKind::Banded), InvalidArgument);
  EXPECT_EQ(parse_linear_solver("sparse"), LinearSolverKind::Sparse);
  EXPECT_THROW(parse_linear_solver("klu"), InvalidArgument);
  // the backend solves through the generic interface
  auto solver = make_linear_solver<double>(100, sparse, LinearSolverKind::Automatic);
  for (int i = 0; i < 100; ++i) {
    solver->matrix().ref(i, i) = 2.0;
    if (i > 0) solver->matrix().ref(i, i - 1) = -1.0;
  }
  ASSERT_TRUE(solver->factor());
  VectorOf<double> x = VectorOf<double>::Ones(100);
  solver->solve_in_place(x);
  EXPECT_NEAR(x[0], 0.5, 1e-15);
  EXPECT_NEAR(x[99], 1.0 - std::pow(0.5, 100), 1e-14);
}

// n = 100000 tridiagonal systems through the banded and KLU backends (correctness only).
template <typename Scalar>
void check_large_tridiagonal() {
  const int n = 100000;
  std::mt19937 rng(1);
  VectorOf<Scalar> sub(n), diag(n), super(n);
  for (int i = 0; i < n; ++i) {
    sub[i] = random_scalar<Scalar>(rng);
    super[i] = random_scalar<Scalar>(rng);
    diag[i] = Scalar(4.0) + random_scalar<Scalar>(rng);
  }
  const VectorOf<Scalar> x_true = random_vector<Scalar>(n, rng);
  VectorOf<Scalar> b(n);  // b = A x_true
  for (int i = 0; i < n; ++i) {
    b[i] = diag[i] * x_true[i];
    if (i > 0) b[i] += sub[i] * x_true[i - 1];
    if (i + 1 < n) b[i] += super[i] * x_true[i + 1];
  }
  std::vector<std::unique_ptr<LinearSolver<Scalar>>> solvers;
  solvers.push_back(make_banded_solver<Scalar>(n, 1, 1));
  solvers.push_back(make_klu_solver<Scalar>(n, Sparsity::banded(1, 1).to_pattern(n)));
  for (auto& solver : solvers) {
    StructuredMatrix<Scalar>& m = solver->matrix();
    for (int i = 0; i < n; ++i) {
      m.ref(i, i) = diag[i];
      if (i > 0) m.ref(i, i - 1) = sub[i];
      if (i + 1 < n) m.ref(i, i + 1) = super[i];
    }
    ASSERT_TRUE(solver->factor()) << solver->name();
    VectorOf<Scalar> x = b;
    solver->solve_in_place(x);
    EXPECT_LT((x - x_true).template lpNorm<Eigen::Infinity>(), 1e-13) << solver->name();
  }
}

TEST(LinearSolver, LargeTridiagonalReal) { check_large_tridiagonal<double>(); }
TEST(LinearSolver, LargeTridiagonalComplex) { check_large_tridiagonal<Complex>(); }

// solve_in_place allocates nothing; neither do the banded factorisation and KLU's accepted
// refactorisations (same pivot order, values changed a little).
template <typename Scalar>
void check_no_allocation() {
  if (daekit_testing::heap_allocations() < 0)
    GTEST_SKIP() << "malloc is not counted in this build (sanitizers)";
  std::mt19937 rng(42);
  const int n = 80, l = 2, u = 2;
  const DenseOf<Scalar> a = random_banded<Scalar>(n, l, u, rng);
  VectorOf<Scalar> x = random_vector<Scalar>(n, rng);
  for (auto& solver : all_backends<Scalar>(n, l, u)) {
    assemble(*solver, a);
    ASSERT_TRUE(solver->factor());
    assemble(*solver, (a * Scalar(1.01)).eval());
    const long before_factor = daekit_testing::heap_allocations();
    ASSERT_TRUE(solver->factor());
    const long before_solve = daekit_testing::heap_allocations();
    for (int k = 0; k < 5; ++k) solver->solve_in_place(x);
    const long after = daekit_testing::heap_allocations();
    EXPECT_EQ(after - before_solve, 0) << solver->name() << " solve";
    EXPECT_EQ(before_solve - before_factor, 0) << solver->name() << " factor";
  }
}

TEST(LinearSolver, NoAllocationReal) { check_no_allocation<double>(); }
TEST(LinearSolver, NoAllocationComplex) { check_no_allocation<Complex>(); }
