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
    for (int i = 1; i < n; ++i) {  // forward substitution with unit lower triangle
      Scalar s = b(i);
      for (int k = 0; k < i; ++k) s -= lu_(i, k) * b(k);
      b(i) = s;
    }
    for (int i = n - 1; i >= 0; --i) {  // back substitution
      Scalar s = b(i);
      for (int k = i + 1; k < n; ++k) s -= lu_(i, k) * b(k);
      b(i) = s / lu_(i, i);
    }
  }

 private:
  MatrixType lu_;
  Eigen::VectorXi perm_;  // perm_[i]: row swapped with row i at elimination step i
};

using RealLU = DenseLU<double>;
using ComplexLU = DenseLU<std::complex<double>>;

extern template class DenseLU<double>;
extern template class DenseLU<std::complex<double>>;

}  // namespace daekit
