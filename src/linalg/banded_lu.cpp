// The banded backend of linear_solver.hpp: LU factorisation with partial pivoting of an n x n
// band matrix with l sub- and u super-diagonals, in place in LAPACK's band storage with l extra
// fill rows (structured_matrix.hpp). The scheme is that of LAPACK's unblocked dgbtf2 (factor)
// and dgbtrs (solve); see also Golub & Van Loan, Matrix Computations, 4th ed., Sec. 4.3.5
// (band Gaussian elimination with partial pivoting): row interchanges widen U to l + u
// super-diagonals, L keeps l sub-diagonals (stored as multipliers below the diagonal, the
// interchanges as a pivot vector applied during the forward substitution, as in dgbtrs).
// Factorisation costs O(n l (l + u)), a solve O(n (2 l + u)); solves allocate nothing.
//
// Robustness: a zero pivot or any non-finite value met during the elimination (a pivot
// candidate, i.e. an entry of L or the diagonal of U, or an off-diagonal entry of U when its
// row is used) makes factor() return false; nothing is divided by such a pivot. Every entry
// of the factors passes one of these checks, so a NaN or Inf anywhere in the band is reported.
#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>

#include "linalg/linear_solver.hpp"

namespace daekit {

namespace {

// Pivot magnitude: |x| for reals, |Re x| + |Im x| for complex numbers (LAPACK's CABS1), as in
// dense_lu.cpp. It is finite exactly when x is.
double magnitude(double x) { return std::abs(x); }
double magnitude(const std::complex<double>& x) { return std::abs(x.real()) + std::abs(x.imag()); }

template <typename Scalar>
class BandedSolver final : public LinearSolver<Scalar> {
 public:
  using typename LinearSolver<Scalar>::VectorType;
  using BandType = typename StructuredMatrix<Scalar>::DenseType;

  BandedSolver(int n, int lower, int upper) : lower_(lower), upper_(upper) {
    this->matrix_.resize(n, Sparsity::banded(lower, upper));  // validates the bandwidths
    pivots_.resize(n);
    inv_diag_.resize(n);
  }
  const char* name() const override { return "banded LU"; }
  LinearSolverKind kind() const override { return LinearSolverKind::Banded; }

  // dgbtf2's scheme on band(): entry (i, j) at row kv + i - j of column j, kv = l + u.
  bool factor() override {
    BandType& ab = this->matrix_.band();
    const int n = this->size(), l = lower_, kv = lower_ + upper_;
    // The fill rows receive the super-diagonals l + u .. u + 1 of U created by the row
    // interchanges; they may hold an earlier factorisation.
    ab.topRows(l).setZero();
    int last_col = 0;  // last column of U touched by the interchanges so far
    for (int j = 0; j < n; ++j) {
      const int below = std::min(l, n - 1 - j);  // sub-diagonal entries of column j
      // Pivot: the largest candidate A(j .. j + below, j) (the first one on ties).
      int p = 0;
      double best = magnitude(ab(kv, j));
      if (!std::isfinite(best)) return false;
      for (int r = 1; r <= below; ++r) {
        const double a = magnitude(ab(kv + r, j));
        if (!std::isfinite(a)) return false;
        if (a > best) {
          best = a;
          p = r;
        }
      }
      if (best == 0.0) return false;  // column j of the active block is zero: singular
      pivots_[j] = j + p;
      // Row j + p reaches up to column j + p + u; the rows swapped later stay within that.
      last_col = std::max(last_col, std::min(j + p + upper_, n - 1));
      if (p != 0)  // swap rows j and j + p in columns j .. last_col
        for (int c = j; c <= last_col; ++c) std::swap(ab(kv + j - c, c), ab(kv + j + p - c, c));
      const Scalar inv = Scalar(1) / ab(kv, j);
      inv_diag_[j] = inv;
      for (int r = 1; r <= below; ++r) ab(kv + r, j) *= inv;  // multipliers L(j + r, j)
      // Rank-1 update of the active block, column by column (contiguous in the band storage).
      for (int c = j + 1; c <= last_col; ++c) {
        const Scalar u_jc = ab(kv + j - c, c);  // U(j, c), final from here on
        if (!std::isfinite(magnitude(u_jc))) return false;
        if (u_jc == Scalar(0)) continue;
        for (int r = 1; r <= below; ++r) ab(kv + j + r - c, c) -= ab(kv + r, j) * u_jc;
      }
    }
    return true;
  }

  // dgbtrs's scheme (no transpose): L^-1 with the interchanges applied as they were made, then
  // back substitution with U (l + u super-diagonals), column-oriented.
  void solve_in_place(Eigen::Ref<VectorType> b) const override {
    const BandType& ab = this->matrix_.band();
    const int n = this->size(), l = lower_, kv = lower_ + upper_;
    if (l > 0) {
      for (int j = 0; j < n - 1; ++j) {
        const int p = pivots_[j];
        if (p != j) std::swap(b[j], b[p]);
        const Scalar bj = b[j];
        if (bj == Scalar(0)) continue;
        const int below = std::min(l, n - 1 - j);
        for (int r = 1; r <= below; ++r) b[j + r] -= ab(kv + r, j) * bj;
      }
    }
    for (int j = n - 1; j >= 0; --j) {
      b[j] *= inv_diag_[j];
      const Scalar bj = b[j];
      if (bj == Scalar(0)) continue;
      for (int i = std::max(0, j - kv); i < j; ++i) b[i] -= ab(kv + i - j, j) * bj;
    }
  }

 private:
  int lower_, upper_;
  Eigen::VectorXi pivots_;  // pivots_[j]: the row interchanged with row j at step j
  VectorType inv_diag_;     // 1 / U(j, j)
};

}  // namespace

template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_banded_solver(int n, int lower, int upper) {
  return std::make_unique<BandedSolver<Scalar>>(n, lower, upper);
}

template std::unique_ptr<LinearSolver<double>> make_banded_solver<double>(int, int, int);
template std::unique_ptr<LinearSolver<std::complex<double>>>
make_banded_solver<std::complex<double>>(int, int, int);

}  // namespace daekit
