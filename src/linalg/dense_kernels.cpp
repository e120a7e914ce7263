#include "linalg/dense_kernels.hpp"

#include <Eigen/SVD>

namespace daekit {

int null_spaces(const Matrix& A, double rel_tol, Matrix& N, Matrix& L) {
  const int n = static_cast<int>(A.rows());
  Eigen::BDCSVD<Matrix> svd(A, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Vector& sv = svd.singularValues();
  int rank = 0;
  for (int i = 0; i < n; ++i)
    if (sv[i] > rel_tol * sv[0]) ++rank;
  const int m = n - rank;
  N = svd.matrixV().rightCols(m);
  L = svd.matrixU().rightCols(m);
  return m;
}

}  // namespace daekit
