#include "daekit/linalg/dense_lu.hpp"

#include <cmath>

namespace daekit {

namespace {
bool finite_nonzero(double x) { return std::isfinite(x) && x != 0.0; }
bool finite_nonzero(const std::complex<double>& x) {
  return std::isfinite(x.real()) && std::isfinite(x.imag()) && x != std::complex<double>(0.0);
}
// Pivot magnitude: |x| for reals, |Re x| + |Im x| for complex numbers (LAPACK's CABS1): no
// hypot in the pivot search.
double magnitude(double x) { return std::abs(x); }
double magnitude(const std::complex<double>& x) { return std::abs(x.real()) + std::abs(x.imag()); }
}  // namespace

// Right-looking Gaussian elimination with partial pivoting on the column-major storage; the
// rank-1 update of the trailing block is done column by column so that it runs contiguously.
template <typename Scalar>
bool DenseLU<Scalar>::factor() {
  const int n = size();
  for (int k = 0; k < n; ++k) {
    int p = k;
    double best = magnitude(lu_(k, k));
    for (int i = k + 1; i < n; ++i) {
      const double a = magnitude(lu_(i, k));
      if (a > best) {
        best = a;
        p = i;
      }
    }
    perm_[k] = p;
    if (p != k) lu_.row(k).swap(lu_.row(p));
    const Scalar pivot = lu_(k, k);
    if (!finite_nonzero(pivot)) return false;
    const Scalar inv = Scalar(1) / pivot;
    inv_diag_[k] = inv;
    for (int i = k + 1; i < n; ++i) lu_(i, k) *= inv;
    for (int j = k + 1; j < n; ++j) {
      const Scalar a_kj = lu_(k, j);
      if (a_kj == Scalar(0)) continue;
      for (int i = k + 1; i < n; ++i) lu_(i, j) -= lu_(i, k) * a_kj;
    }
  }
  return true;
}

template class DenseLU<double>;
template class DenseLU<std::complex<double>>;

}  // namespace daekit
