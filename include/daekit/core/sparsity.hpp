// Structure of a Jacobian or mass matrix: dense, banded (lower and upper bandwidths) or a
// general sparsity pattern. Problems declare it; the solver picks the linear-algebra backend
// from it (dense LU, banded LU, sparse KLU) and groups the columns of finite-difference
// Jacobians by a colouring of it (Curtis-Powell-Reid), so a banded Jacobian of bandwidths
// (l, u) costs l + u + 1 evaluations instead of n.
#pragma once

#include <Eigen/SparseCore>
#include <string>

#include "daekit/core/types.hpp"

namespace daekit {

/// Compressed-column sparse matrix (Eigen's, 32-bit indices): the storage of sparse Jacobians
/// and mass matrices. A pattern is a SparseMatrix whose stored entries are the structural
/// non-zeros (their values are ignored).
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

struct Sparsity {
  enum class Kind { Dense, Banded, Sparse };
  Kind kind = Kind::Dense;
  int lower = 0;         ///< Banded: entries (i, j) with j - upper <= i <= j + lower
  int upper = 0;         ///< Banded: upper bandwidth
  SparseMatrix pattern;  ///< Sparse: n x n structural non-zeros (compressed)

  static Sparsity dense() { return {}; }
  static Sparsity banded(int lower, int upper);
  /// The structural non-zeros of `pattern` (values ignored; compressed on return).
  static Sparsity sparse(SparseMatrix pattern);

  bool is_dense() const { return kind == Kind::Dense; }
  /// Throws InvalidArgument naming `what` if the structure does not fit an n x n matrix.
  void validate(int n, const char* what) const { validate(n, n, what); }
  /// The same for a rows x cols matrix (e.g. df/dp, n x np): bandwidths lower < rows and
  /// upper < cols, a pattern of that shape.
  void validate(int rows, int cols, const char* what) const;
  /// True if (i, j) may be non-zero.
  bool contains(int i, int j) const;
  /// Number of structural non-zeros of an n x n (rows x cols) matrix with this structure.
  long nonzeros(int n) const { return nonzeros(n, n); }
  long nonzeros(int rows, int cols) const;
  /// "dense", "banded (l, u)" or "sparse (nnz)".
  std::string describe(int n) const;
  /// The pattern as an n x n (rows x cols) sparse matrix (banded and dense structures
  /// expanded).
  SparseMatrix to_pattern(int n) const { return to_pattern(n, n); }
  SparseMatrix to_pattern(int rows, int cols) const;
};

/// The linear-solver backend for iteration matrices: Automatic picks dense for a dense
/// structure (or small n), banded LU for a banded one and SuiteSparse KLU for a sparse pattern.
/// Iterative (never chosen automatically): GMRES preconditioned by smoothed-aggregation AMG on
/// the sparse pattern, for large mesh problems whose sparse LU fills faster than n (heat2d at
/// n = 1e6); above 400 unknowns it needs nonzero diagonal entries.
enum class LinearSolverKind { Automatic, Dense, Banded, Sparse, Iterative };
/// "auto", "dense", "banded", "sparse", "iterative".
const char* to_string(LinearSolverKind kind);
/// Inverse of to_string; throws InvalidArgument naming the valid choices otherwise.
LinearSolverKind parse_linear_solver(const std::string& name);

/// Smallest structure containing both a and b (and, with `with_diagonal`, the diagonal): the
/// structure of a M - J. Dense if either is dense; banded if both are banded or one is banded
/// and the other diagonal-only; sparse otherwise.
Sparsity structure_union(const Sparsity& a, const Sparsity& b, int n, bool with_diagonal);

/// The structure of a sparse matrix's stored entries.
Sparsity sparsity_of(const SparseMatrix& m);

}  // namespace daekit
