// Dense LU factorisations behind one small interface, so that methods never call Eigen's
// decompositions directly (DESIGN.md, linear algebra layer). Partial pivoting; a zero or
// non-finite pivot is reported as singular (as LINPACK's DEC does in RADAU5) instead of being
// divided by. Solves work in place and allocate nothing once the object is sized.
#pragma once

#include <complex>

#include "daekit/core/types.hpp"

namespace daekit {

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

  /// Matrix to be factored: write into it, then call factor().
  MatrixType& matrix() { return lu_; }

  /// Factors matrix() in place. Returns false if a pivot is zero or not finite.
  bool factor();

  /// Solves A x = b in place (b is overwritten by x); accepts vectors and column blocks.
  template <typename Derived>
  void solve_in_place(const Eigen::MatrixBase<Derived>& b_const) const {
    auto& b = const_cast<Eigen::MatrixBase<Derived>&>(b_const);  // Eigen's idiom for blocks
    const int n = size();
    for (int i = 0; i < n; ++i) {
      const int p = perm_[i];
      if (p != i) std::swap(b(i), b(p));
    }
    // column-oriented (axpy) substitutions: contiguous access to the column-major factors
    for (int k = 0; k < n - 1; ++k) {  // forward substitution with unit lower triangle
      const Scalar bk = b(k);
      if (bk == Scalar(0)) continue;
      for (int i = k + 1; i < n; ++i) b(i) -= lu_(i, k) * bk;
    }
    for (int k = n - 1; k >= 0; --k) {  // back substitution
      b(k) *= inv_diag_[k];
      const Scalar bk = b(k);
      if (bk == Scalar(0)) continue;
      for (int i = 0; i < k; ++i) b(i) -= lu_(i, k) * bk;
    }
  }

 private:
  MatrixType lu_;
  Eigen::VectorXi perm_;  // perm_[i]: row swapped with row i at elimination step i
  Eigen::Matrix<Scalar, Eigen::Dynamic, 1> inv_diag_;  // 1 / U(i, i)
};

using RealLU = DenseLU<double>;
using ComplexLU = DenseLU<std::complex<double>>;

extern template class DenseLU<double>;
extern template class DenseLU<std::complex<double>>;

}  // namespace daekit
