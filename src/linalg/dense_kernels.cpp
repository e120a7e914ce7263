// Null spaces by column-pivoted Householder QR (Golub-Van Loan 5.4.1): A^T P = Q R, so the last
// n - r columns of Q span range(A^T)^perp = ker A, orthonormally (r: the numerical rank, the
// diagonal of R above rel_tol |R_11|); the same on A gives ker A^T. Rank-revealing for the small
// matrices this serves (mass matrices, dF/dy' at t0), and far cheaper to compile than an SVD.
#include "linalg/dense_kernels.hpp"

#include <Eigen/QR>
#include <cmath>

namespace daekit {

namespace {
// Orthonormal basis of ker B^T, i.e. of range(B)^perp, from the QR of B.
int left_null_space(const Matrix& B, double rel_tol, Matrix& out) {
  const int n = static_cast<int>(B.rows());
  Eigen::ColPivHouseholderQR<Matrix> qr(B);
  const Matrix R = qr.matrixR().template triangularView<Eigen::Upper>();
  const double r11 = n > 0 ? std::abs(R(0, 0)) : 0.0;
  int rank = 0;
  for (int i = 0; i < std::min<int>(n, static_cast<int>(B.cols())); ++i)
    if (std::abs(R(i, i)) > rel_tol * r11) ++rank;
  const Matrix Q = qr.householderQ();
  out = Q.rightCols(n - rank);
  return n - rank;
}
}  // namespace

int null_spaces(const Matrix& A, double rel_tol, Matrix& N, Matrix& L) {
  const int m = left_null_space(A.transpose(), rel_tol, N);  // ker A = range(A^T)^perp
  left_null_space(A, rel_tol, L);                            // ker A^T = range(A)^perp
  return m;
}

}  // namespace daekit
