// Dense LU with partial pivoting, the dense backend of linear_solver.hpp (and the small
// systems of the initialization and projections). A zero or non-finite pivot is reported as
// singular (as LINPACK's DEC does in RADAU5) instead of being divided by. Factors in place;
// solves in place and allocate nothing. Pivot magnitude |Re| + |Im| for complex numbers
// (LAPACK's CABS1); column-oriented substitutions (contiguous access to the column-major
// factors). Internal header (not installed).
#pragma once

#include <complex>
#include <type_traits>

#include "daekit/core/types.hpp"

namespace daekit {

/// From this size on, factorisations use the recursive blocked LU (dense_lu.cpp) instead of the
/// right-looking kernel: where the two cross over, measured by bench/dense_lu.cpp
/// (docs/benchmarks.md). make_dense_solver(n, blocked_min_size) forces either path.
template <typename Scalar>
constexpr int dense_lu_blocked_min_size() {
  return std::is_same_v<Scalar, double> ? 64 : 600;
}

/// Factors a (n x n, column-major) in place: unit lower triangle L below the diagonal, U on and
/// above it (the diagonal of U also in inv_diag as 1/U(k, k)); perm[k] = the row swapped with
/// row k at step k. Returns false at a zero or non-finite pivot. From
/// dense_lu_blocked_min_size() on by the blocked LU, whose product buffers it then allocates
/// per call (the linear-solver backend, make_dense_solver, allocates them once).
template <typename Scalar>
bool dense_lu_factor(Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& a,
                     Eigen::VectorXi& perm, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag);

/// Solves A x = b in place with the factors of dense_lu_factor: x[0..n) contiguous.
template <typename Scalar>
void dense_lu_solve(const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& lu,
                    const Eigen::VectorXi& perm,
                    const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag, Scalar* x) {
  const int n = static_cast<int>(lu.rows());
  const Scalar* a = lu.data();
  const int* p = perm.data();
  for (int i = 0; i < n; ++i)
    if (p[i] != i) std::swap(x[i], x[p[i]]);
  for (int k = 0; k < n - 1; ++k) {  // forward substitution with the unit lower triangle
    const Scalar xk = x[k];
    if (xk == Scalar(0)) continue;
    const Scalar* col = a + static_cast<long>(k) * n;
    for (int i = k + 1; i < n; ++i) x[i] -= col[i] * xk;
  }
  for (int k = n - 1; k >= 0; --k) {  // back substitution
    x[k] *= inv_diag[k];
    const Scalar xk = x[k];
    if (xk == Scalar(0)) continue;
    const Scalar* col = a + static_cast<long>(k) * n;
    for (int i = 0; i < k; ++i) x[i] -= col[i] * xk;
  }
}

/// The same for a vector or a column block b (contiguous).
template <typename Scalar, typename Derived>
void dense_lu_solve(const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& lu,
                    const Eigen::VectorXi& perm,
                    const Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag,
                    const Eigen::MatrixBase<Derived>& b_const) {
  auto& b = const_cast<Eigen::MatrixBase<Derived>&>(b_const);  // Eigen's idiom for blocks
  static_assert(
      Derived::InnerStrideAtCompileTime == 1 || Derived::InnerStrideAtCompileTime == Eigen::Dynamic,
      "dense_lu_solve needs contiguous storage");
  dense_lu_solve(lu, perm, inv_diag, b.derived().data());
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
