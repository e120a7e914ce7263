// Dense LU with partial pivoting, the dense backend of linear_solver.hpp (and the small
// systems of the initialization and projections). A zero or non-finite pivot is reported as
// singular (as LINPACK's DEC does in RADAU5) instead of being divided by. Factors in place;
// solves in place and allocate nothing. Pivot magnitude |Re| + |Im| for complex numbers
// (LAPACK's CABS1); column-oriented substitutions (contiguous access to the column-major
// factors). Internal header (not installed).
#pragma once

#include <complex>

#include "daekit/core/types.hpp"

namespace daekit {

/// Factors a (n x n, column-major) in place: unit lower triangle L below the diagonal, U on and
/// above it (the diagonal of U also in inv_diag as 1/U(k, k)); perm[k] = the row swapped with
/// row k at step k. Returns false at a zero or non-finite pivot.
template <typename Scalar>
bool dense_lu_factor(Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& a,
                     Eigen::VectorXi& perm, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag);

/// Solves A x = b in place with the factors of dense_lu_factor (b: a vector or column block).
template <typename Scalar, typename Derived>
void dense_lu_solve(const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& lu,
                    const Eigen::VectorXi& perm,
                    const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag,
                    const Eigen::MatrixBase<Derived>& b_const) {
  auto& b = const_cast<Eigen::MatrixBase<Derived>&>(b_const);  // Eigen's idiom for blocks
  const int n = static_cast<int>(lu.rows());
  for (int i = 0; i < n; ++i) {
    const int p = perm[i];
    if (p != i) std::swap(b(i), b(p));
  }
  for (int k = 0; k < n - 1; ++k) {  // forward substitution with the unit lower triangle
    const Scalar bk = b(k);
    if (bk == Scalar(0)) continue;
    for (int i = k + 1; i < n; ++i) b(i) -= lu(i, k) * bk;
  }
  for (int k = n - 1; k >= 0; --k) {  // back substitution
    b(k) *= inv_diag[k];
    const Scalar bk = b(k);
    if (bk == Scalar(0)) continue;
    for (int i = 0; i < k; ++i) b(i) -= lu(i, k) * bk;
  }
}

/// Owning convenience wrapper: write into matrix(), factor(), solve_in_place().
template <typename Scalar>
class DenseLU {
 public:
  using MatrixType = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using VectorType = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  DenseLU() = default;
  explicit DenseLU(int n) { resize(n); }
  void resize(int n) {
    lu_.resize(n, n);
    perm_.resize(n);
    inv_diag_.resize(n);
  }
  int size() const { return static_cast<int>(lu_.rows()); }
  MatrixType& matrix() { return lu_; }
  bool factor() { return dense_lu_factor(lu_, perm_, inv_diag_); }
  template <typename Derived>
  void solve_in_place(const Eigen::MatrixBase<Derived>& b) const {
    dense_lu_solve(lu_, perm_, inv_diag_, b);
  }

 private:
  MatrixType lu_;
  Eigen::VectorXi perm_;
  VectorType inv_diag_;
};

using RealLU = DenseLU<double>;
using ComplexLU = DenseLU<std::complex<double>>;

extern template bool dense_lu_factor<double>(Eigen::MatrixXd&, Eigen::VectorXi&, Eigen::VectorXd&);
extern template bool dense_lu_factor<std::complex<double>>(Eigen::MatrixXcd&, Eigen::VectorXi&,
                                                           Eigen::VectorXcd&);

}  // namespace daekit
