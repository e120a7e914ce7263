// Smoothed-aggregation algebraic multigrid (P. Vanek, J. Mandel, M. Brezina, "Algebraic
// multigrid by smoothed aggregation for second and fourth order elliptic problems", Computing
// 56, 1996), as the preconditioner of the iterative backend (krylov_solver.cpp) for the
// iteration matrices A = s M - J of large mesh problems (heat2d at n = 1e6), where a sparse LU
// costs O(n^1.5) per factorisation and more in memory. Setup, level l -> l + 1:
//   strength:     j is a strong neighbour of i if |b_ij| >= theta sqrt(|b_ii| |b_jj|),
//                 theta = 0.08, on the real matrix B = Re A (the real iteration matrix itself;
//                 for Radau IIA's complex (alpha + i beta)/h M - J the real alpha/h M - J, an
//                 M-matrix for diffusion problems), so that the transfer operators stay real;
//   aggregation:  the greedy three passes of Vanek et al. (a node whose strong neighbours are
//                 all free starts an aggregate with them; the remaining nodes join a
//                 neighbouring aggregate of pass 1; the rest group with their free strong
//                 neighbours); a node without strong neighbours (a boundary row u_i = g_i) is
//                 left out of the coarse space (the smoother solves it);
//   prolongation: P = (I - omega D^{-1} B) P0, P0 the aggregates' indicator columns,
//                 omega = (4/3) / rho, rho the Gershgorin bound of D^{-1} B;
//   coarse A:     A_{l+1} = P^T A_l P (Galerkin; complex for complex A);
// until at most kCoarseSize unknowns remain (then a dense LU) or coarsening stalls (then
// smoothing only). One V(1,1) cycle: forward Gauss-Seidel, residual restricted by P^T, the cycle
// on the coarse level, correction P e, backward Gauss-Seidel (symmetric for symmetric A).
// (A W-cycle was measured on heat2d: GMRES iterations per solve 8.7 instead of 8.9 at n = 1e4
// and 10.5 instead of 11.1 at 1e5, for more time per solve: the growth of the iteration count
// with n is the two-grid method's, not the levels'.)
// A zero or non-finite diagonal entry on a level that is smoothed (more than kCoarseSize
// unknowns, or kDirectSize for the finest: Gauss-Seidel needs a_ii != 0), or a zero pivot of the
// coarsest level's LU, makes setup() fail with the reason in failure(): the backend then reports
// the matrix as unusable. A matrix of at most kDirectSize unknowns is solved by the dense LU alone
// (any nonsingular matrix, index-2 and index-3 iteration matrices included). Internal header.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace daekit {

/// (A x)_i for row i of a row-major sparse A (its scalar may be real while x is complex): the
/// row's sum in storage order.
template <typename MatScalar, typename Scalar>
Scalar csr_row(const Eigen::SparseMatrix<MatScalar, Eigen::RowMajor, int>& A, Eigen::Index i,
               const Scalar* x) {
  const int* ptr = A.outerIndexPtr();
  const int* idx = A.innerIndexPtr();
  const MatScalar* val = A.valuePtr();
  Scalar s(0);
  for (int k = ptr[i]; k < ptr[i + 1]; ++k) s += val[k] * x[idx[k]];
  return s;
}
/// y = A x (Add: y += A x); x and y must not overlap.
template <bool Add = false, typename MatScalar, typename Scalar>
void csr_multiply(const Eigen::SparseMatrix<MatScalar, Eigen::RowMajor, int>& A, const Scalar* x,
                  Scalar* y) {
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    const Scalar s = csr_row(A, i, x);
    y[i] = Add ? y[i] + s : s;
  }
}
template <typename MatScalar, typename Scalar>
void csr_multiply(const Eigen::SparseMatrix<MatScalar, Eigen::RowMajor, int>& A,
                  const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& x,
                  Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& y) {
  csr_multiply(A, x.data(), y.data());
}

template <typename Scalar>
class AmgHierarchy {
 public:
  using VectorType = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  using RowMatrix = Eigen::SparseMatrix<Scalar, Eigen::RowMajor, int>;
  using ColMatrix = Eigen::SparseMatrix<Scalar, Eigen::ColMajor, int>;

  // Coarsening stops at kCoarseSize unknowns (a dense LU there); a matrix of at most
  // kDirectSize unknowns is solved by the dense LU alone. 150 rather than 400 (measured on
  // heat2d, 2026-11-24: at n = 1e4 radau5 0.22 s against 0.33 s, the complex coarse LU having
  // been a sixth of its time; bdf 0.27-0.31 against 0.31-0.33 s; at 1e5 radau5 3.39 against
  // 3.81 s, bdf 4.97 against 5.29 s; 60 was slower for bdf).
  static constexpr int kCoarseSize = 150;
  static constexpr int kDirectSize = 400;
  static constexpr int kMaxLevels = 25;
  static constexpr double kTheta = 0.08;
  /// Why the last setup() failed ("" after a success).
  const std::string& failure() const { return failure_; }

  /// Builds the hierarchy for A; false if a smoothed level has a zero or non-finite diagonal
  /// entry or the coarsest level's LU a zero pivot.
  bool setup(const ColMatrix& A);
  /// x = one V(1,1) cycle for A x = b from x = 0 (the preconditioner M^{-1} b); b and x of
  /// size n, not overlapping. Ax non-null: also Ax = A x with the fine-level matrix, formed
  /// within the cycle's last sweep (GMRES's product A M^{-1} v at the cost of one pass less).
  void apply(const Scalar* b, Scalar* x, Scalar* Ax = nullptr) const;
  void apply(const VectorType& b, VectorType& x) const { apply(b.data(), x.data()); }
  /// The fine-level matrix (row-major copy of A), for the Krylov method's products.
  const RowMatrix& fine() const { return levels_.front().A; }
  int levels() const { return static_cast<int>(levels_.size()); }
  /// Unknowns per level, finest first (the operator complexity is in the docs' benchmarks).
  std::vector<int> sizes() const;

 private:
  struct Level {
    RowMatrix A;
    VectorType inv_diag;
    Eigen::SparseMatrix<double, Eigen::RowMajor, int> P;  // n x nc (the restriction is P^T)
    int lower = 0, upper = 0;  // bandwidths: a_ij = 0 for i - j > lower or j - i > upper
    // the coarse levels' right-hand side and solution (mutable: apply() is logically const;
    // the finest level works on apply()'s b and x)
    mutable VectorType x, b;
  };
  void cycle(int l, const Scalar* b, Scalar* x, Scalar* Ax) const;
  void forward_restrict(const Level& L, const Scalar* b, Scalar* x, Scalar* cb) const;
  void correct_backward(const Level& L, const Scalar* b, Scalar* x, const Scalar* cx,
                        Scalar* Ax) const;
  std::vector<Level> levels_;
  Eigen::PartialPivLU<Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>> coarse_lu_;
  bool coarse_direct_ = false;
  std::string failure_;
};

}  // namespace daekit
