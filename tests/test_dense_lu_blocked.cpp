// The dense backend's two factorisation paths (linalg/dense_lu.cpp): the right-looking kernel
// and the recursive blocked LU taken from dense_lu_blocked_min_size() on, each forced through
// make_dense_solver(n, blocked_min_size). Real and complex: the factors of both paths agree to
// round-off (the same pivots) and their solutions agree with Eigen's PartialPivLU; the free
// function's factors reproduce P A = L U with inv_diag = 1 / diag(U); exactly singular (a zero
// row or column: exact zeros survive the elimination in any order of operations) and
// non-finite matrices (a NaN or Inf anywhere: first and last entry, L and U parts, entries
// that only ever sit above the diagonal) make factor() return false on both paths and the
// solver recovers on the next matrix; factor() and solve_in_place() of the blocked path
// allocate nothing. The fixed-size kernels (n <= 16) give the run-time kernel's factors and
// solutions to the bit.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "allocation_counter.hpp"
#include "linalg/dense_lu.hpp"
#include "linalg/linear_solver.hpp"

using namespace daekit;

namespace {

using Complex = std::complex<double>;
template <typename Scalar>
using DenseOf = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
template <typename Scalar>
using VectorOf = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

constexpr int kKernelOnly = std::numeric_limits<int>::max();
constexpr int kBlockedAlways = 0;

template <typename Scalar>
Scalar lu_random_scalar(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same_v<Scalar, double>) {
    return u(rng);
  } else {
    const double re = u(rng);
    return Scalar(re, u(rng));
  }
}

template <typename Scalar>
DenseOf<Scalar> random_matrix(int n, std::mt19937& rng) {
  DenseOf<Scalar> a(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a(i, j) = lu_random_scalar<Scalar>(rng);
  return a;
}

// Sizes around the recursion's leaves (16 columns) and halvings, odd and even.
const std::vector<int> kSizes = {1, 2, 17, 33, 64, 97, 160, 257};

template <typename Scalar>
void check_paths_agree() {
  std::mt19937 rng(7);
  for (int n : kSizes) {
    const DenseOf<Scalar> a = random_matrix<Scalar>(n, rng);
    VectorOf<Scalar> b(n);
    for (int i = 0; i < n; ++i) b[i] = lu_random_scalar<Scalar>(rng);
    auto kernel = make_dense_solver<Scalar>(n, kKernelOnly);
    auto blocked = make_dense_solver<Scalar>(n, kBlockedAlways);
    kernel->matrix().dense() = a;
    blocked->matrix().dense() = a;
    ASSERT_TRUE(kernel->factor()) << n;
    ASSERT_TRUE(blocked->factor()) << n;
    // the same pivots: the factors differ by round-off only
    const double scale = a.cwiseAbs().maxCoeff();
    const double factor_diff =
        (kernel->matrix().dense() - blocked->matrix().dense()).cwiseAbs().maxCoeff();
    EXPECT_LT(factor_diff, 1e-11 * scale) << "n = " << n;
    const VectorOf<Scalar> x_eigen = Eigen::PartialPivLU<DenseOf<Scalar>>(a).solve(b);
    const double x_scale = x_eigen.cwiseAbs().maxCoeff();
    for (auto* s : {kernel.get(), blocked.get()}) {
      VectorOf<Scalar> x = b;
      s->solve_in_place(x);
      EXPECT_LT((x - x_eigen).cwiseAbs().maxCoeff(), 1e-10 * x_scale) << "n = " << n;
      const double residual = (a * x - b).cwiseAbs().maxCoeff() /
                              (a.cwiseAbs().rowwise().sum().maxCoeff() * x.cwiseAbs().maxCoeff());
      EXPECT_LT(residual, 1e-14) << "n = " << n;
    }
  }
}

TEST(DenseLuBlocked, AgreesWithKernelAndEigenReal) { check_paths_agree<double>(); }
TEST(DenseLuBlocked, AgreesWithKernelAndEigenComplex) { check_paths_agree<Complex>(); }

// dense_lu_factor (blocked from the threshold on): P A = L U with the row swaps in perm.
template <typename Scalar>
void check_factors_reproduce_matrix() {
  std::mt19937 rng(11);
  const int n = dense_lu_blocked_min_size<Scalar>() + 37;
  const DenseOf<Scalar> a = random_matrix<Scalar>(n, rng);
  DenseOf<Scalar> lu = a;
  Eigen::VectorXi perm;
  VectorOf<Scalar> inv_diag;
  ASSERT_TRUE(dense_lu_factor(lu, perm, inv_diag));
  DenseOf<Scalar> pa = a;
  for (int k = 0; k < n; ++k) {
    ASSERT_GE(perm[k], k);
    ASSERT_LT(perm[k], n);
    pa.row(k).swap(pa.row(perm[k]));
  }
  const DenseOf<Scalar> L = lu.template triangularView<Eigen::UnitLower>();
  const DenseOf<Scalar> U = lu.template triangularView<Eigen::Upper>();
  // P A = L U, tested on random vectors (O(n^2): the complex size is in the hundreds)
  for (int k = 0; k < 3; ++k) {
    VectorOf<Scalar> v(n);
    for (int i = 0; i < n; ++i) v[i] = lu_random_scalar<Scalar>(rng);
    const VectorOf<Scalar> lu_v = L * (U * v);
    EXPECT_LT((pa * v - lu_v).cwiseAbs().maxCoeff(), 1e-13 * n * (pa * v).cwiseAbs().maxCoeff());
  }
  for (int k = 0; k < n; ++k) EXPECT_LT(std::abs(inv_diag[k] * lu(k, k) - Scalar(1)), 1e-14);
  // partial pivoting in the magnitude |Re| + |Im|: every multiplier |l| <= 1 (real), <= sqrt 2
  // (complex: |a| <= |a|_1 <= |p|_1 <= sqrt 2 |p|)
  const double bound = std::is_same_v<Scalar, double> ? 1.0 : std::sqrt(2.0);
  EXPECT_LE(L.cwiseAbs().maxCoeff(), bound * (1 + 1e-15));
}

TEST(DenseLuBlocked, FactorsReproduceMatrixReal) { check_factors_reproduce_matrix<double>(); }
TEST(DenseLuBlocked, FactorsReproduceMatrixComplex) { check_factors_reproduce_matrix<Complex>(); }

// Singular and non-finite matrices: factor() false on both paths, then a good matrix factors.
template <typename Scalar>
void check_failures() {
  std::mt19937 rng(3);
  const int n = 97;  // several recursion levels, an odd split
  const DenseOf<Scalar> good = random_matrix<Scalar>(n, rng);
  auto expect_failure = [&](const DenseOf<Scalar>& bad, const std::string& what) {
    for (int threshold : {kKernelOnly, kBlockedAlways}) {
      auto s = make_dense_solver<Scalar>(n, threshold);
      s->matrix().dense() = bad;
      EXPECT_FALSE(s->factor()) << what << (threshold ? " (kernel)" : " (blocked)");
      s->matrix().dense() = good;
      EXPECT_TRUE(s->factor()) << what << ": no recovery";
    }
  };
  for (int j : {0, 16, 50, n - 1}) {
    DenseOf<Scalar> a = good;
    a.col(j).setZero();
    expect_failure(a, "zero column " + std::to_string(j));
  }
  for (int i : {0, 31, n - 1}) {  // a zero row stays zero (zero multipliers) until it is pivotal
    DenseOf<Scalar> a = good;
    a.row(i).setZero();
    expect_failure(a, "zero row " + std::to_string(i));
  }
  expect_failure(DenseOf<Scalar>::Zero(n, n), "zero matrix");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // (0, n-1), (1, n-1): the last column, reached by its pivot candidates only through the
  // updates; (n-1, 0): a candidate of the first pivot; (n-1, n-1): the last pivot; the others
  // on leaf (16 columns) and halving boundaries of the recursion
  const std::vector<std::pair<int, int>> positions = {
      {0, 0}, {n - 1, n - 1}, {0, n - 1}, {1, n - 1}, {n - 1, 0}, {47, 48}, {48, 47}, {15, 16}};
  for (double bad : {nan, inf, -inf})
    for (auto [i, j] : positions) {
      DenseOf<Scalar> a = good;
      a(i, j) = Scalar(bad);
      expect_failure(
          a, std::to_string(bad) + " at (" + std::to_string(i) + ", " + std::to_string(j) + ")");
    }
  if constexpr (!std::is_same_v<Scalar, double>) {
    DenseOf<Scalar> a = good;
    a(20, 60) = Scalar(1.0, nan);
    expect_failure(a, "NaN imaginary part above the diagonal");
  }
}

TEST(DenseLuBlocked, SingularAndNonFiniteReal) { check_failures<double>(); }
TEST(DenseLuBlocked, SingularAndNonFiniteComplex) { check_failures<Complex>(); }

// The fixed-size kernels of the solver (n = 1 .. 16: straight-line code up to one size, loops
// over the size known at compile time above it; kMaxUnrolledFactor / kMaxUnrolledSolve in
// dense_lu.cpp) against the run-time kernel of dense_lu_factor / dense_lu_solve: the same
// arithmetic in the same order, so the same factors, pivots and solutions to the bit; with
// exact zeros in the matrix and the right-hand side (the skipped multipliers) and a zero column
// (factor() false).
template <typename Scalar>
void check_fixed_size_kernels_match_runtime_kernel() {
  std::mt19937 rng(13);
  for (int n = 1; n <= 16; ++n) {
    for (int variant = 0; variant < 2; ++variant) {
      DenseOf<Scalar> a = random_matrix<Scalar>(n, rng);
      VectorOf<Scalar> b(n);
      for (int i = 0; i < n; ++i) b[i] = lu_random_scalar<Scalar>(rng);
      if (variant == 1)  // a sparse pattern: zero multipliers and zero right-hand side entries
        for (int j = 0; j < n; ++j) {
          for (int i = 0; i < n; ++i)
            if (i != j && (i + 2 * j) % 3 == 0) a(i, j) = Scalar(0);
          if (j % 2 == 1) b[j] = Scalar(0);
        }
      DenseOf<Scalar> lu = a;
      Eigen::VectorXi perm;
      VectorOf<Scalar> inv_diag;
      ASSERT_TRUE(dense_lu_factor(lu, perm, inv_diag)) << n;
      VectorOf<Scalar> x_runtime = b;
      dense_lu_solve(lu, perm, inv_diag, x_runtime);
      auto fixed = make_dense_solver<Scalar>(n, kKernelOnly);
      fixed->matrix().dense() = a;
      ASSERT_TRUE(fixed->factor()) << n;
      EXPECT_TRUE(fixed->matrix().dense() == lu) << "factors differ, n = " << n;
      VectorOf<Scalar> x_fixed = b;
      fixed->solve_in_place(x_fixed);
      EXPECT_TRUE(x_fixed == x_runtime) << "solutions differ, n = " << n;
      DenseOf<Scalar> singular = a;
      singular.col(n / 2).setZero();
      fixed->matrix().dense() = singular;
      EXPECT_FALSE(fixed->factor()) << "zero column, n = " << n;
    }
  }
}

TEST(DenseLuBlocked, FixedSizeKernelsMatchRuntimeKernelReal) {
  check_fixed_size_kernels_match_runtime_kernel<double>();
}
TEST(DenseLuBlocked, FixedSizeKernelsMatchRuntimeKernelComplex) {
  check_fixed_size_kernels_match_runtime_kernel<Complex>();
}

template <typename Scalar>
void check_blocked_lu_no_allocation() {
  if (daekit_testing::heap_allocations() < 0)
    GTEST_SKIP() << "malloc is not counted in this build (sanitizers)";
  std::mt19937 rng(5);
  const int n = 300;
  const DenseOf<Scalar> a = random_matrix<Scalar>(n, rng);
  VectorOf<Scalar> x(n);
  for (int i = 0; i < n; ++i) x[i] = lu_random_scalar<Scalar>(rng);
  auto s = make_dense_solver<Scalar>(n, kBlockedAlways);
  s->matrix().dense() = a;
  const long before = daekit_testing::heap_allocations();
  ASSERT_TRUE(s->factor());
  s->solve_in_place(x);
  EXPECT_EQ(daekit_testing::heap_allocations() - before, 0);
}

TEST(DenseLuBlocked, NoAllocationReal) { check_blocked_lu_no_allocation<double>(); }
TEST(DenseLuBlocked, NoAllocationComplex) { check_blocked_lu_no_allocation<Complex>(); }

}  // namespace

// Pivot candidates of equal magnitude (a Sylvester-Hadamard matrix of +-1, for complex numbers
// with rows turned by powers of i, so that |Re| + |Im| ties too; eliminations keep producing
// ties): every fixed-size kernel (the tree pivot search at n = 8 included) picks the first of
// the tied rows, as the run-time kernel does, so the same factors and solutions.
template <typename Scalar>
void check_tied_pivots_match_runtime_kernel() {
  for (int n : {2, 4, 8, 16}) {
    DenseOf<Scalar> a(n, n);
    for (int i = 0; i < n; ++i) {
      Scalar turn(1);
      if constexpr (!std::is_same_v<Scalar, double>) {
        const Complex powers_of_i[4] = {Complex(1, 0), Complex(0, 1), Complex(-1, 0),
                                        Complex(0, -1)};
        turn = powers_of_i[i % 4];
      }
      for (int j = 0; j < n; ++j)
        a(i, j) = (std::popcount(unsigned(i & j)) % 2 ? -1.0 : 1.0) * turn;
    }
    DenseOf<Scalar> lu = a;
    Eigen::VectorXi perm;
    VectorOf<Scalar> inv_diag;
    ASSERT_TRUE(dense_lu_factor(lu, perm, inv_diag)) << n;
    auto fixed = make_dense_solver<Scalar>(n, kKernelOnly);
    fixed->matrix().dense() = a;
    ASSERT_TRUE(fixed->factor()) << n;
    EXPECT_TRUE(fixed->matrix().dense() == lu) << "factors differ with tied pivots, n = " << n;
    VectorOf<Scalar> x_runtime = VectorOf<Scalar>::Ones(n), x_fixed = x_runtime;
    dense_lu_solve(lu, perm, inv_diag, x_runtime);
    fixed->solve_in_place(x_fixed);
    EXPECT_TRUE(x_fixed == x_runtime) << "solutions differ with tied pivots, n = " << n;
  }
}

TEST(DenseLuBlocked, TiedPivotsMatchRuntimeKernelReal) {
  check_tied_pivots_match_runtime_kernel<double>();
}
TEST(DenseLuBlocked, TiedPivotsMatchRuntimeKernelComplex) {
  check_tied_pivots_match_runtime_kernel<Complex>();
}
