// Null spaces by column-pivoted Householder QR (Golub-Van Loan 5.4.1): A^T P = Q R, so the last
// n - r columns of Q span range(A^T)^perp = ker A, orthonormally (r: the numerical rank, the
// diagonal of R above rel_tol |R_11|); the same on A gives ker A^T. Rank-revealing for the small
// matrices this serves (mass matrices, dF/dy' at t0), and far cheaper to compile than an SVD.
#include "linalg/dense_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "core/dense_spectra.hpp"

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

std::vector<std::vector<int>> connected_blocks(const SparseMatrix& A) {
  const int n = static_cast<int>(A.rows());
  std::vector<int> parent(static_cast<size_t>(n));  // union-find, the smaller index the root
  for (int i = 0; i < n; ++i) parent[i] = i;
  auto root = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (int j = 0; j < A.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(A, j); it; ++it) {
      const int a = root(static_cast<int>(it.row())), b = root(j);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  std::vector<int> slot(static_cast<size_t>(n), -1);
  std::vector<std::vector<int>> blocks;
  for (int i = 0; i < n; ++i) {
    const int r = root(i);
    if (slot[r] < 0) {
      slot[r] = static_cast<int>(blocks.size());
      blocks.emplace_back();
    }
    blocks[slot[r]].push_back(i);
  }
  return blocks;
}

Matrix dense_block(const SparseMatrix& A, const std::vector<int>& block) {
  const int s = static_cast<int>(block.size());
  Matrix out = Matrix::Zero(s, s);
  for (int b = 0; b < s; ++b)
    for (SparseMatrix::InnerIterator it(A, block[b]); it; ++it) {
      const auto pos = std::lower_bound(block.begin(), block.end(), static_cast<int>(it.row()));
      if (pos != block.end() && *pos == it.row()) out(pos - block.begin(), b) = it.value();
    }
  return out;
}

}  // namespace daekit
