// MassOperator: the mass matrix M of M y' = f(t, y) kept in its structure (identity,
// diagonal, banded, sparse or dense, detected once from the problem's matrix), so that the
// products M x of every Newton iteration and error estimate and the assembly of s M - J cost
// O(n) or O(nnz), never a dense n x n product where M is diagonal. Internal header.
#pragma once

#include <utility>
#include <vector>

#include "daekit/core/sparsity.hpp"
#include "daekit/core/types.hpp"
#include "linalg/structured_matrix.hpp"

namespace daekit {

class MassOperator {
 public:
  enum class Kind { Identity, Diagonal, Structured };

  MassOperator() = default;
  /// From a dense matrix (empty = identity): detects identity, diagonal, banded (l + u + 1 at
  /// most n/4) or keeps it dense. Throws InvalidArgument unless m is empty or n x n.
  static MassOperator from_dense(int n, const Matrix& m);
  /// From a sparse matrix (empty = identity; identity and diagonal detected, else kept in its
  /// pattern). Throws InvalidArgument unless m is empty or n x n.
  static MassOperator from_sparse(int n, const SparseMatrix& m);

  Kind kind() const { return kind_; }
  int size() const { return n_; }
  bool is_identity() const { return kind_ == Kind::Identity; }
  /// The structure of M (dense/banded/sparse; identity and diagonal: sparse diagonal pattern).
  const Sparsity& sparsity() const { return sparsity_; }
  const Vector& diagonal() const { return diag_; }

  /// out = M x (out must not alias x).
  void apply(const Eigen::Ref<const Vector>& x, Eigen::Ref<Vector> out) const {
    if (kind_ == Kind::Identity)
      out = x;
    else if (kind_ == Kind::Diagonal)
      out = diag_.cwiseProduct(x);
    else if (!row_start_.empty())
      apply_rows(x.data(), out.data(), false);
    else if (matrix_.kind() == Sparsity::Kind::Dense)
      out.noalias() = matrix_.dense() * x;
    else
      matrix_.multiply(x, out);
  }
  /// OUT.col(c) = M X.col(c) for c < cols (OUT must not alias X): the compressed rows of a
  /// small M read once for all columns (each entry summed as apply() sums it). C > 0: cols = C
  /// known at compile time.
  /// N > 0: n = N known at compile time (then an M with at most two nonzeros per row, the
  /// transistor's, takes a path with every row written out).
  template <int C = 0, long N = 0>
  void apply_columns(const Matrix& X, int ncols, Matrix& OUT) const {
    const int cols = C > 0 ? C : ncols;
    if (row_start_.empty() || cols > kMaxColumns) {
      for (int c = 0; c < cols; ++c) apply(X.col(c), OUT.col(c));
      return;
    }
    if constexpr (C > 0 && N > 0 && N <= kMaxPairRows) {
      if (!pair_column_.empty()) {
        pairs_product<C, N>(X.data(), X.rows(), OUT.data(), OUT.rows());
        return;
      }
    }
    rows_product<C, false>(X.data(), X.rows(), OUT.data(), OUT.rows(), cols);
  }
  /// out += M x (out must not alias x).
  void apply_add(const Eigen::Ref<const Vector>& x, Eigen::Ref<Vector> out) const {
    if (kind_ == Kind::Identity)
      out += x;
    else if (kind_ == Kind::Diagonal)
      out += diag_.cwiseProduct(x);
    else if (!row_start_.empty())
      apply_rows(x.data(), out.data(), true);
    else if (matrix_.kind() == Sparsity::Kind::Dense)
      out.noalias() += matrix_.dense() * x;
    else
      matrix_.multiply_add(x, out);
  }
  /// The differential part of M y' = f for an identity or diagonal M: out_i = f_i / m_ii where
  /// m_ii != 0, 0 for the algebraic components; all 0 for a structured M. (The one-step methods'
  /// y'(t0) before their first step.)
  void solve_diagonal_part(const Vector& f, Eigen::Ref<Vector> out) const {
    out.setZero();
    if (kind_ == Kind::Structured) return;
    for (int i = 0; i < n_; ++i)
      if (diag_[i] != 0.0) out[i] = f[i] / diag_[i];
  }
  /// E += s M for E whose structure contains M's.
  template <typename Scalar>
  void add_to(StructuredMatrix<Scalar>& E, Scalar s) const;
  /// Entry (i, j).
  double at(int i, int j) const;
  /// M as a dense matrix (tests, small problems).
  Matrix to_dense() const;
  /// M as a sparse matrix of its non-zero entries (any n).
  SparseMatrix to_sparse() const;
  /// Indices of the zero rows / zero columns of M (algebraic equations / variables).
  std::vector<int> zero_rows() const;
  std::vector<int> zero_columns() const;

 private:
  // pair_column_ / pair_value_ from the compressed rows where they fit
  void make_pairs();
  // out = M x, or out += M x, over the nonzeros row by row
  void apply_rows(const double* x, double* out, bool add) const {
    if (!pair_column_.empty()) {
      if (add)
        pairs_apply<true>(x, out);
      else
        pairs_apply<false>(x, out);
      return;
    }
    if (add)
      rows_product<1, true>(x, n_, out, n_, 1);
    else
      rows_product<1, false>(x, n_, out, n_, 1);
  }
  // OUT.col(c) (+)= M X.col(c), c < cols (C > 0: cols = C at compile time), the compressed
  // rows read once for all columns, on local pointers
  template <int C, bool Add>
  void rows_product(const double* x, long ldx, double* out, long ldo, int ncols) const {
    const int cols = C > 0 ? C : ncols;
    const int* start = row_start_.data();
    const int* column = column_.data();
    const double* value = value_.data();
    const int n = n_;
    int k = 0;
    for (int i = 0; i < n; ++i) {
      double sum[kMaxColumns];
      for (int c = 0; c < cols; ++c) sum[c] = 0.0;
      for (const int end = start[i + 1]; k < end; ++k) {
        const double v = value[k];
        const long j = column[k];
        for (int c = 0; c < cols; ++c) sum[c] += v * x[c * ldx + j];
      }
      for (int c = 0; c < cols; ++c) out[c * ldo + i] = Add ? out[c * ldo + i] + sum[c] : sum[c];
    }
  }

  // The same products for n = N <= kMaxPairRows and at most two nonzeros per row, each row as
  // two entries (a row with one gets a second of value 0 in its own column): the row's sums
  // 0 + v_0 x_j0 + v_1 x_j1 with no loop over the row's entries. The padding adds v x = +-0 to
  // a sum that is never -0 (it starts at +0), so for finite X the bits are those of
  // rows_product's.
  template <int C, long N>
  [[gnu::always_inline]] inline void pairs_product(const double* x, long ldx, double* out,
                                                   long ldo) const {
    const int* column = pair_column_.data();
    const double* value = pair_value_.data();
    [&]<long... I>(std::integer_sequence<long, I...>) {
      (
          [&] {
            const double v0 = value[2 * I], v1 = value[2 * I + 1];
            const long j0 = column[2 * I], j1 = column[2 * I + 1];
            for (int c = 0; c < C; ++c) {
              double sum = 0.0;
              sum += v0 * x[c * ldx + j0];
              sum += v1 * x[c * ldx + j1];
              out[c * ldo + I] = sum;
            }
          }(),
          ...);
    }
    (std::make_integer_sequence<long, N>{});
  }

  // out (+)= M x as pairs_product with n known at run time (one column)
  template <bool Add>
  void pairs_apply(const double* x, double* out) const {
    const int* column = pair_column_.data();
    const double* value = pair_value_.data();
    const int n = n_;
    for (int i = 0; i < n; ++i) {
      double sum = 0.0;
      sum += value[2 * i] * x[column[2 * i]];
      sum += value[2 * i + 1] * x[column[2 * i + 1]];
      out[i] = Add ? out[i] + sum : sum;
    }
  }

  static constexpr int kMaxColumns = 8;
  static constexpr long kMaxPairRows = 16;
  Kind kind_ = Kind::Identity;
  int n_ = 0;
  Sparsity sparsity_;
  Vector diag_;
  StructuredMatrix<double> matrix_;
  // A small M kept dense (n < 64) whose nonzeros are at most a quarter of its entries (the
  // transistor's 8 x 8 has 14): the nonzeros row by row (compressed rows), so M x and E += s M
  // touch only them. Empty otherwise.
  std::vector<int> row_start_, column_;
  std::vector<double> value_;
  std::vector<long> dense_offset_;  // per nonzero i + n j: its place in a dense n x n E
  // n <= kMaxPairRows with at most two nonzeros per row: per row its two (column, value), the
  // second (i, 0) where the row has one; empty otherwise
  std::vector<int> pair_column_;
  std::vector<double> pair_value_;
};

}  // namespace daekit
