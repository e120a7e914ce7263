// StructuredMatrix<Scalar>: an n x n real or complex matrix stored according to its structure
// (core/sparsity.hpp), the common currency of the linear-algebra layer: Jacobians, mass
// matrices and iteration matrices E = s M - J are assembled in it and the linear solvers
// (linear_solver.hpp) factor it in place.
//   Dense:  column-major n x n (Eigen).
//   Banded: LAPACK band storage with room for the LU fill: (2 l + u + 1) x n, entry (i, j) at
//           row l + u + i - j of column j (rows 0 .. l - 1 are the fill rows, zero until
//           factored).
//   Sparse: compressed columns (Eigen::SparseMatrix, 32-bit indices) with the fixed pattern
//           of the Sparsity (stored zeros included); ref() outside it throws InvalidArgument,
//           so add_identity() needs the whole diagonal in the pattern (structure_union(...,
//           with_diagonal = true) provides it for iteration matrices).
// Internal header (not installed).
#pragma once

#include <Eigen/SparseCore>
#include <algorithm>
#include <complex>

#include "daekit/core/sparsity.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

template <typename Scalar>
class StructuredMatrix {
 public:
  using DenseType = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using SparseType = Eigen::SparseMatrix<Scalar, Eigen::ColMajor, int>;
  using VectorType = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  StructuredMatrix() = default;
  StructuredMatrix(int n, const Sparsity& s) { resize(n, s); }
  /// Allocates for an n x n matrix of structure s (sparse: the pattern of s; all values zero).
  void resize(int n, const Sparsity& s);

  int size() const { return n_; }
  Sparsity::Kind kind() const { return sparsity_.kind; }
  const Sparsity& sparsity() const { return sparsity_; }
  int lower() const { return sparsity_.lower; }
  int upper() const { return sparsity_.upper; }

  void set_zero();
  /// Reference to entry (i, j), which must lie in the structure (InvalidArgument otherwise).
  Scalar& ref(int i, int j);
  /// Entry (i, j); zero outside the structure.
  Scalar at(int i, int j) const;

  /// Calls f(i, Scalar& value) for every structural entry of column j, rows in increasing order.
  template <typename F>
  void for_each_in_column(int j, F&& f) {
    visit_column(*this, j, f);
  }
  /// The same for reading: f(i, const Scalar& value).
  template <typename F>
  void for_each_in_column(int j, F&& f) const {
    visit_column(*this, j, f);
  }

  /// y = A x.
  void multiply(const Eigen::Ref<const VectorType>& x, Eigen::Ref<VectorType> y) const;
  /// y += A x.
  void multiply_add(const Eigen::Ref<const VectorType>& x, Eigen::Ref<VectorType> y) const;
  DenseType to_dense() const;

  /// this = c * J for a real J whose structure is contained in this one's (entries of this
  /// outside J's structure become zero).
  void assign_scaled(const StructuredMatrix<double>& J, double c);
  /// this += s * A for a real A whose structure is contained in this one's.
  void add_scaled(const StructuredMatrix<double>& A, Scalar s);
  /// this += s * diag(d).
  void add_diagonal(const Vector& d, Scalar s);
  /// this += s * I.
  void add_identity(Scalar s);
  /// this = s * diag(d) - J in one pass, the same values as assign_scaled(J, -1) followed by
  /// add_diagonal(d, s), when both are dense of one size (false, nothing done, otherwise): the
  /// iteration matrix of a small system with a diagonal M.
  bool assign_shifted_negative(const StructuredMatrix<double>& J, const Vector& d, Scalar s);

  // Raw storage for the backends (see the layout above).
  DenseType& dense() { return dense_; }
  const DenseType& dense() const { return dense_; }
  DenseType& band() { return band_; }
  const DenseType& band() const { return band_; }
  SparseType& sparse() { return sparse_; }
  const SparseType& sparse() const { return sparse_; }
  /// Row of entry (i, j) in band().
  int band_row(int i, int j) const { return lower() + upper() + i - j; }

 private:
  // for_each_in_column() for a Self of either constness (the entries' constness follows)
  template <typename Self, typename F>
  static void visit_column(Self& self, int j, F& f) {
    switch (self.sparsity_.kind) {
      case Sparsity::Kind::Dense:
        for (int i = 0; i < self.n_; ++i) f(i, self.dense_(i, j));
        break;
      case Sparsity::Kind::Banded: {
        const int lo = std::max(0, j - self.upper()), hi = std::min(self.n_ - 1, j + self.lower());
        for (int i = lo; i <= hi; ++i) f(i, self.band_(self.band_row(i, j), j));
        break;
      }
      case Sparsity::Kind::Sparse: {
        const int* rows = self.sparse_.innerIndexPtr();
        auto* values = self.sparse_.valuePtr();
        for (int k = self.sparse_.outerIndexPtr()[j]; k < self.sparse_.outerIndexPtr()[j + 1]; ++k)
          f(rows[k], values[k]);
        break;
      }
    }
  }

  int n_ = 0;
  Sparsity sparsity_;
  DenseType dense_;
  DenseType band_;
  SparseType sparse_;
};

extern template class StructuredMatrix<double>;
extern template class StructuredMatrix<std::complex<double>>;

}  // namespace daekit
