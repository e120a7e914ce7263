#include "linalg/mass_operator.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace daekit {

namespace {
Sparsity diagonal_pattern(int n) {
  SparseMatrix eye(n, n);
  eye.setIdentity();
  return Sparsity::sparse(eye);
}
// An empty matrix (0 x 0) stands for the identity; anything else must be n x n.
bool check_size(int n, Eigen::Index rows, Eigen::Index cols, const char* what) {
  if (rows == 0 && cols == 0) return false;
  if (rows != n || cols != n)
    throw InvalidArgument(std::string("MassOperator: ") + what + " mass matrix is " +
                          std::to_string(rows) + " x " + std::to_string(cols) + ", expected " +
                          std::to_string(n) + " x " + std::to_string(n));
  return true;
}
}  // namespace

MassOperator MassOperator::from_dense(int n, const Matrix& m) {
  MassOperator op;
  op.n_ = n;
  if (!check_size(n, m.rows(), m.cols(), "dense") || m.isIdentity(0.0)) {
    op.kind_ = Kind::Identity;
    op.diag_ = Vector::Ones(n);
    op.sparsity_ = diagonal_pattern(n);
    return op;
  }
  int lower = 0, upper = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (m(i, j) != 0.0) {
        lower = std::max(lower, i - j);
        upper = std::max(upper, j - i);
      }
  if (lower == 0 && upper == 0) {
    op.kind_ = Kind::Diagonal;
    op.diag_ = m.diagonal();
    op.sparsity_ = diagonal_pattern(n);
    return op;
  }
  op.kind_ = Kind::Structured;
  // banded storage where it saves work: the products M x cost (l + u + 1) n instead of n^2;
  // below n = 64 Eigen's dense product is as fast (measured: 8 x 8 tridiagonal, 275 against 480
  // instructions per product)
  op.sparsity_ =
      n >= 64 && (lower + upper + 1) * 4 <= n ? Sparsity::banded(lower, upper) : Sparsity::dense();
  op.matrix_.resize(n, op.sparsity_);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (m(i, j) != 0.0) op.matrix_.ref(i, j) = m(i, j);
  op.diag_ = m.diagonal();
  const long nnz = (m.array() != 0.0).count();
  if (op.sparsity_.is_dense() && 4 * nnz <= static_cast<long>(n) * n) {
    op.row_start_.assign(1, 0);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j)
        if (m(i, j) != 0.0) {
          op.column_.push_back(j);
          op.value_.push_back(m(i, j));
          op.dense_offset_.push_back(i + static_cast<long>(n) * j);
        }
      op.row_start_.push_back(static_cast<int>(op.column_.size()));
    }
    op.make_pairs();
  }
  return op;
}

MassOperator MassOperator::from_sparse(int n, const SparseMatrix& m) {
  if (!check_size(n, m.rows(), m.cols(), "sparse")) return from_dense(n, Matrix());
  MassOperator op;
  op.n_ = n;
  bool diagonal = true;
  for (int j = 0; j < m.outerSize() && diagonal; ++j)
    for (SparseMatrix::InnerIterator it(m, j); it; ++it)
      if (it.row() != j && it.value() != 0.0) diagonal = false;
  op.diag_ = m.diagonal();
  if (diagonal) {
    op.kind_ = op.diag_.isOnes(0.0) ? Kind::Identity : Kind::Diagonal;
    op.sparsity_ = diagonal_pattern(n);
    return op;
  }
  op.kind_ = Kind::Structured;
  op.sparsity_ = sparsity_of(m);
  op.matrix_.resize(n, op.sparsity_);
  op.matrix_.sparse() = m;
  op.matrix_.sparse().makeCompressed();
  return op;
}

void MassOperator::make_pairs() {
  if (n_ > kMaxPairRows) return;
  for (int i = 0; i < n_; ++i)
    if (row_start_[i + 1] - row_start_[i] > 2) return;
  for (int i = 0; i < n_; ++i) {
    const int k = row_start_[i], count = row_start_[i + 1] - k;
    for (int e = 0; e < 2; ++e) {
      pair_column_.push_back(e < count ? column_[k + e] : i);
      pair_value_.push_back(e < count ? value_[k + e] : 0.0);
    }
  }
}

template <typename Scalar>
void MassOperator::add_to(StructuredMatrix<Scalar>& E, Scalar s) const {
  switch (kind_) {
    case Kind::Identity:
      E.add_identity(s);
      return;
    case Kind::Diagonal:
      E.add_diagonal(diag_, s);
      return;
    case Kind::Structured:
      if (!row_start_.empty() && E.kind() == Sparsity::Kind::Dense) {
        Scalar* e = E.dense().data();
        const size_t nnz = value_.size();
        for (size_t k = 0; k < nnz; ++k) e[dense_offset_[k]] += s * value_[k];
        return;
      }
      E.add_scaled(matrix_, s);
      return;
  }
}

template void MassOperator::add_to<double>(StructuredMatrix<double>&, double) const;
template void MassOperator::add_to<std::complex<double>>(StructuredMatrix<std::complex<double>>&,
                                                         std::complex<double>) const;

double MassOperator::at(int i, int j) const {
  if (kind_ != Kind::Structured) return i == j ? diag_[i] : 0.0;
  return matrix_.at(i, j);
}

Matrix MassOperator::to_dense() const {
  if (kind_ != Kind::Structured) return Matrix(diag_.asDiagonal());
  return matrix_.to_dense();
}

SparseMatrix MassOperator::to_sparse() const {
  std::vector<Eigen::Triplet<double, int>> entries;
  if (kind_ != Kind::Structured) {
    for (int i = 0; i < n_; ++i)
      if (diag_[i] != 0.0) entries.emplace_back(i, i, diag_[i]);
  } else {
    auto& m = const_cast<StructuredMatrix<double>&>(matrix_);  // read-only visit
    for (int j = 0; j < n_; ++j)
      m.for_each_in_column(j, [&](int i, double& v) {
        if (v != 0.0) entries.emplace_back(i, j, v);
      });
  }
  SparseMatrix out(n_, n_);
  out.setFromTriplets(entries.begin(), entries.end());
  out.makeCompressed();
  return out;
}

std::vector<int> MassOperator::zero_rows() const {
  std::vector<char> nonzero(static_cast<size_t>(n_), 0);
  if (kind_ != Kind::Structured) {
    for (int i = 0; i < n_; ++i) nonzero[i] = diag_[i] != 0.0;
  } else {
    auto& m = const_cast<StructuredMatrix<double>&>(matrix_);  // read-only visit
    for (int j = 0; j < n_; ++j)
      m.for_each_in_column(j, [&](int i, double& v) { nonzero[i] |= v != 0.0; });
  }
  std::vector<int> rows;
  for (int i = 0; i < n_; ++i)
    if (!nonzero[i]) rows.push_back(i);
  return rows;
}

std::vector<int> MassOperator::zero_columns() const {
  std::vector<int> cols;
  for (int j = 0; j < n_; ++j) {
    bool zero = true;
    if (kind_ != Kind::Structured) {
      zero = diag_[j] == 0.0;
    } else {
      auto& m = const_cast<StructuredMatrix<double>&>(matrix_);
      m.for_each_in_column(j, [&](int, double& v) { zero = zero && v == 0.0; });
    }
    if (zero) cols.push_back(j);
  }
  return cols;
}

}  // namespace daekit
