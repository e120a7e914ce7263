// The iterative backend (linalg/krylov_solver.cpp: GMRES right-preconditioned by the smoothed-
// aggregation AMG of linalg/amg.hpp), real and complex:
//   - shifted 2-D Laplacians with identity boundary rows (the structure of heat2d's iteration
//     matrices s M - J, and of Radau IIA's complex (alpha + i beta)/h M - J): the hierarchy
//     coarsens (several levels), the solution agrees with KLU's to the solver's tolerance, for
//     small and large shifts (h large: Laplacian-dominated) and repeated factorisations;
//   - a zero or non-finite diagonal entry (above 400 unknowns) or a NaN anywhere makes factor()
//     return false, and a good matrix afterwards is solved again; up to 400 unknowns the coarse
//     LU alone solves zero-diagonal (saddle point) systems and refuses singular ones;
//   - a matrix on which the iteration diverges: NaN answers with solve_failure() saying so, and
//     after 10 failed solves factor() refuses (singular_reason) instead of letting a method
//     creep on;
//   - solve_in_place allocates nothing;
//   - the name, the kind, parse_linear_solver("iterative"), and solve() with it: heat2d with bdf
//     and radau5 takes the same steps to the same accuracy as with KLU.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <string>

#include "allocation_counter.hpp"
#include "daekit/daekit.hpp"
#include "linalg/amg.hpp"
#include "linalg/linear_solver.hpp"

using namespace daekit;

namespace {

using Cplx = std::complex<double>;

// The 5-point pattern of an m x m grid (row-major numbering).
SparseMatrix grid_pattern(int m) {
  std::vector<Eigen::Triplet<double, int>> t;
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < m; ++c) {
      const int i = r * m + c;
      t.emplace_back(i, i, 1.0);
      if (r > 0) t.emplace_back(i, i - m, 1.0);
      if (r + 1 < m) t.emplace_back(i, i + m, 1.0);
      if (c > 0) t.emplace_back(i, i - 1, 1.0);
      if (c + 1 < m) t.emplace_back(i, i + 1, 1.0);
    }
  SparseMatrix p(m * m, m * m);
  p.setFromTriplets(t.begin(), t.end());
  p.makeCompressed();
  return p;
}

// A = shift I - L on the interior (L the 5-point Laplacian with mesh width 1/(m-1)), identity
// rows on the boundary; assembled into the solver's matrix.
template <typename Scalar>
void assemble_shifted_laplacian(LinearSolver<Scalar>& solver, int m, Scalar shift) {
  StructuredMatrix<Scalar>& A = solver.matrix();
  A.set_zero();
  const double inv_dx2 = (m - 1.0) * (m - 1.0);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < m; ++c) {
      const int i = r * m + c;
      if (r == 0 || c == 0 || r == m - 1 || c == m - 1) {
        A.ref(i, i) = Scalar(1);
        continue;
      }
      A.ref(i, i) = shift + Scalar(4 * inv_dx2);
      for (int j : {i - m, i + m, i - 1, i + 1}) A.ref(i, j) = Scalar(-inv_dx2);
    }
}

template <typename Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, 1> iter_test_rhs(int n) {
  Eigen::Matrix<Scalar, Eigen::Dynamic, 1> b(n);
  for (int i = 0; i < n; ++i) {
    const double v = std::sin(0.37 * i) + 0.5 * std::cos(1.9 * i);
    if constexpr (std::is_same_v<Scalar, double>)
      b[i] = v;
    else
      b[i] = Scalar(v, std::cos(0.11 * i));
  }
  return b;
}

template <typename Scalar>
void check_against_klu(int m, Scalar shift) {
  const int n = m * m;
  const SparseMatrix pattern = grid_pattern(m);
  auto it = make_krylov_solver<Scalar>(n, pattern);
  auto klu = make_klu_solver<Scalar>(n, pattern);
  assemble_shifted_laplacian(*it, m, shift);
  assemble_shifted_laplacian(*klu, m, shift);
  ASSERT_TRUE(it->factor());
  ASSERT_TRUE(klu->factor());
  auto b = iter_test_rhs<Scalar>(n);
  auto x = b, y = b;
  it->solve_in_place(x);
  klu->solve_in_place(y);
  const double rel = (x - y).norm() / y.norm();
  std::printf("  m = %d, shift %g%+gi: |x_gmres - x_klu| / |x_klu| = %.2e\n", m, std::real(shift),
              std::imag(shift), rel);
  EXPECT_LT(rel, 1e-5) << "m = " << m;
}

}  // namespace

TEST(IterativeSolver, AmgCoarsensTheShiftedLaplacian) {
  const int m = 100;
  auto solver = make_krylov_solver<double>(m * m, grid_pattern(m));
  assemble_shifted_laplacian<double>(*solver, m, 10.0);
  AmgHierarchy<double> amg;
  ASSERT_TRUE(amg.setup(solver->matrix().sparse()));
  const std::vector<int> sizes = amg.sizes();
  std::printf("  AMG levels for n = %d:", m * m);
  for (int s : sizes) std::printf(" %d", s);
  std::printf("\n");
  ASSERT_GE(sizes.size(), 2u);
  for (size_t l = 1; l < sizes.size(); ++l) EXPECT_LT(sizes[l], sizes[l - 1] / 3);
  EXPECT_LE(sizes.back(), AmgHierarchy<double>::kCoarseSize);
}

TEST(IterativeSolver, AgreesWithKluReal) {
  for (double shift : {1e4, 10.0, 1e-2}) {
    check_against_klu<double>(40, shift);
    check_against_klu<double>(150, shift);
  }
}

TEST(IterativeSolver, AgreesWithKluComplex) {
  // Radau IIA(3)'s complex eigenvalue pair (alpha, beta) = (2.68, 3.05) over h
  for (double h : {1e-4, 1e-1, 10.0}) {
    check_against_klu<Cplx>(40, Cplx(2.68 / h, 3.05 / h));
    check_against_klu<Cplx>(150, Cplx(2.68 / h, 3.05 / h));
  }
}

TEST(IterativeSolver, RefactorisationWithNewValues) {
  const int m = 60, n = m * m;
  const SparseMatrix pattern = grid_pattern(m);
  auto it = make_krylov_solver<double>(n, pattern);
  auto klu = make_klu_solver<double>(n, pattern);
  for (double shift : {1.0, 1e3, 5.0}) {
    assemble_shifted_laplacian<double>(*it, m, shift);
    assemble_shifted_laplacian<double>(*klu, m, shift);
    ASSERT_TRUE(it->factor());
    ASSERT_TRUE(klu->factor());
    auto x = iter_test_rhs<double>(n), y = x;
    it->solve_in_place(x);
    klu->solve_in_place(y);
    EXPECT_LT((x - y).norm() / y.norm(), 1e-5) << "shift " << shift;
  }
}

TEST(IterativeSolver, ZeroOrNonFiniteEntriesFailThenRecover) {
  const int m = 30, n = m * m;
  auto it = make_krylov_solver<double>(n, grid_pattern(m));
  const auto b = iter_test_rhs<double>(n);
  auto recover = [&](const char* what) {
    assemble_shifted_laplacian<double>(*it, m, 2.0);
    ASSERT_TRUE(it->factor()) << what;
    auto x = b;
    it->solve_in_place(x);
    // residual of the recovered solve
    Eigen::VectorXd r = it->matrix().sparse() * x - b;
    EXPECT_LT(r.norm() / b.norm(), 1e-6) << what;
  };
  assemble_shifted_laplacian<double>(*it, m, 2.0);
  it->matrix().ref(5 * m + 5, 5 * m + 5) = 0.0;  // zero diagonal: Gauss-Seidel cannot run
  EXPECT_FALSE(it->factor());
  auto x = b;
  it->solve_in_place(x);  // after a failed factor(): NaN, as the direct backends give nothing
  EXPECT_FALSE(std::isfinite(x[0]));
  recover("after a zero diagonal");
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    assemble_shifted_laplacian<double>(*it, m, 2.0);
    it->matrix().ref(7 * m + 3, 7 * m + 4) = bad;  // off the diagonal
    EXPECT_FALSE(it->factor());
    recover("after a non-finite entry");
  }
}

TEST(IterativeSolver, SmallSystemsWithZeroDiagonalAreSolvedByTheCoarseLu) {
  // [I B^T; B 0]-like saddle point of 300 + 100 unknowns (index-2 iteration matrices): zero
  // diagonal entries, nonsingular; at most 400 unknowns: no smoothing, the dense LU alone
  const int n1 = 300, n2 = 100, n = n1 + n2;
  std::vector<Eigen::Triplet<double, int>> t;
  for (int i = 0; i < n1; ++i) t.emplace_back(i, i, 2.0 + 0.01 * i);
  for (int k = 0; k < n2; ++k) {
    t.emplace_back(n1 + k, 3 * k, 1.0);
    t.emplace_back(3 * k, n1 + k, 1.0);
    t.emplace_back(n1 + k, 3 * k + 1, -0.5);
    t.emplace_back(3 * k + 1, n1 + k, -0.5);
  }
  SparseMatrix A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  auto it = make_krylov_solver<double>(n, A);
  it->matrix().sparse() = A;
  ASSERT_TRUE(it->factor());
  const Eigen::VectorXd b = iter_test_rhs<double>(n);
  Eigen::VectorXd x = b;
  it->solve_in_place(x);
  EXPECT_LT((A * x - b).norm() / b.norm(), 1e-12);
  // singular (a zero row): refused
  for (int k = A.outerIndexPtr()[0]; k < A.outerIndexPtr()[n]; ++k)
    if (A.innerIndexPtr()[k] == n - 1) A.valuePtr()[k] = 0.0;
  it->matrix().sparse() = A;
  EXPECT_FALSE(it->factor());
}

TEST(IterativeSolver, DivergenceIsReportedAndEndsInRefusal) {
  // 600 unknowns, tridiagonal with a tiny diagonal: Gauss-Seidel diverges, GMRES + AMG fails
  const int n = 600;
  std::vector<Eigen::Triplet<double, int>> t;
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, 1e-6);
    if (i > 0) t.emplace_back(i, i - 1, -1.0);
    if (i + 1 < n) t.emplace_back(i, i + 1, 1.0 + 0.001 * i);
  }
  SparseMatrix A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  auto it = make_krylov_solver<double>(n, A);
  const Eigen::VectorXd b = iter_test_rhs<double>(n);
  int failed = 0;
  for (int k = 0; k < 12; ++k) {
    it->matrix().sparse() = A;
    if (!it->factor()) {
      const std::string why = it->singular_reason();
      EXPECT_NE(why.find("failed 10 solves"), std::string::npos) << why;
      EXPECT_EQ(failed, 10);
      return;
    }
    Eigen::VectorXd x = b;
    it->solve_in_place(x);
    ASSERT_FALSE(std::isfinite(x[0])) << "converged at solve " << k;
    ASSERT_NE(it->solve_failure(), nullptr);
    EXPECT_NE(std::string(it->solve_failure()).find("iterative linear solver"), std::string::npos);
    ++failed;
  }
  ADD_FAILURE() << "factor() never refused after " << failed << " failed solves";
}

TEST(IterativeSolver, SolveAllocatesNothing) {
  if (daekit_testing::heap_allocations() < 0)
    GTEST_SKIP() << "malloc is not counted in this build (sanitizers)";
  const int m = 50, n = m * m;
  auto real = make_krylov_solver<double>(n, grid_pattern(m));
  auto cplx = make_krylov_solver<Cplx>(n, grid_pattern(m));
  assemble_shifted_laplacian<double>(*real, m, 3.0);
  assemble_shifted_laplacian<Cplx>(*cplx, m, Cplx(3.0, 4.0));
  ASSERT_TRUE(real->factor());
  ASSERT_TRUE(cplx->factor());
  auto x = iter_test_rhs<double>(n);
  auto z = iter_test_rhs<Cplx>(n);
  const long before = daekit_testing::heap_allocations();
  for (int k = 0; k < 3; ++k) {
    real->solve_in_place(x);
    cplx->solve_in_place(z);
  }
  EXPECT_EQ(daekit_testing::heap_allocations() - before, 0);
}

TEST(IterativeSolver, NameKindAndChoice) {
  const Sparsity sparse = Sparsity::sparse(grid_pattern(10));
  auto s = make_linear_solver<double>(100, sparse, LinearSolverKind::Iterative);
  EXPECT_STREQ(s->name(), "GMRES + AMG");
  EXPECT_EQ(s->kind(), LinearSolverKind::Iterative);
  EXPECT_EQ(parse_linear_solver("iterative"), LinearSolverKind::Iterative);
  EXPECT_STREQ(to_string(LinearSolverKind::Iterative), "iterative");
  // never chosen automatically
  EXPECT_STREQ(make_linear_solver<double>(100, sparse, LinearSolverKind::Automatic)->name(), "KLU");
  // a banded or dense structure is taken as its pattern
  EXPECT_STREQ(
      make_linear_solver<Cplx>(100, Sparsity::banded(1, 1), LinearSolverKind::Iterative)->name(),
      "GMRES + AMG");
}

TEST(IterativeSolver, Heat2dWithBdfAndRadau5LikeKlu) {
  const BuiltinProblem p = heat2d(40);
  const Vector ref = heat2d_reference(40, p.t_end);
  for (bool bdf : {true, false}) {
    Result r[2];
    for (int k = 0; k < 2; ++k) {
      Options o;
      o.rtol = o.atol = 1e-7;
      o.h0 = p.h0;
      o.store_steps = false;
      o.linear_solver = k == 0 ? LinearSolverKind::Sparse : LinearSolverKind::Iterative;
      r[k] = bdf ? solve(p.dae, p.t0, p.t_end, p.y0, BdfOptions{}, o)
                 : solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
      ASSERT_TRUE(r[k].ok()) << r[k].message;
    }
    const double e_klu = (r[0].y - ref).lpNorm<Eigen::Infinity>();
    const double e_it = (r[1].y - ref).lpNorm<Eigen::Infinity>();
    std::printf("  %s: KLU %ld steps, max error %.2e (%s); iterative %ld steps, %.2e (%s)\n",
                bdf ? "bdf" : "radau5", r[0].stats.nsteps, e_klu, r[0].linear_solver.c_str(),
                r[1].stats.nsteps, e_it, r[1].linear_solver.c_str());
    EXPECT_EQ(r[1].linear_solver, "GMRES + AMG");
    EXPECT_NEAR(static_cast<double>(r[1].stats.nsteps), static_cast<double>(r[0].stats.nsteps),
                2.0);
    // Stats::nli: the GMRES iterations, at least one per solve, none for KLU
    EXPECT_EQ(r[0].stats.nli, 0);
    EXPECT_GE(r[1].stats.nli, r[1].stats.nsol);
    EXPECT_LT(r[1].stats.nli, 30 * r[1].stats.nsol);
    EXPECT_LT(e_it, 3.0 * e_klu + 1e-9);
  }
}
