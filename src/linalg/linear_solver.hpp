// The one interface behind which daekit's methods solve their linear systems (DESIGN.md,
// linear-algebra layer): iteration matrices such as E = gamma/h M - J (real) and
// (alpha + i beta)/h M - J (complex, Radau IIA's transformed stage systems) or
// dF/dy + c_j dF/dy' (BDF). A method assembles E into matrix() (structure chosen at creation),
// calls factor() and then solve_in_place() as often as it likes; matrix() may be reassembled
// and refactored any number of times without allocation. Backends:
//   dense   partial-pivoting LU (dense_lu.hpp), tuned for small n;
//   banded  partial-pivoting band LU (LAPACK's dgbtrf scheme, l extra fill rows);
//   sparse  SuiteSparse KLU: symbolic analysis once per pattern, then numeric refactorisation
//           (klu_refactor, same pivot order) while it stays well conditioned, else a fresh
//           numeric factorisation; complex systems through KLU's complex (klu_z_) routines;
//   iterative  restarted GMRES right-preconditioned by a smoothed-aggregation AMG V-cycle
//           (krylov_solver.cpp, amg.hpp): factor() builds the hierarchy, each solve iterates
//           to a relative residual of 1e-6; O(nnz) per solve where an LU's fill grows faster.
//           Never chosen automatically.
// A zero or non-finite pivot (iterative: an unusable matrix, see singular_reason()) makes
// factor() return false (the caller shrinks the step), never throws, never divides by it. Internal
// header (not installed).
#pragma once

#include <complex>
#include <memory>
#include <string>

#include "daekit/core/sparsity.hpp"
#include "linalg/structured_matrix.hpp"

namespace daekit {

/// The backend Automatic resolves to for an n x n matrix of structure s: dense when s is dense
/// or n <= 32 (a dense LU of that size beats the overhead of the structured ones), banded for
/// banded s, sparse (KLU) for a pattern. An explicit choice is returned unchanged, except that
/// Banded needs a banded structure (InvalidArgument otherwise).
LinearSolverKind choose_backend(int n, const Sparsity& s, LinearSolverKind requested);

/// The structure a backend stores: Dense -> dense; Banded -> s; Sparse -> s as a pattern.
Sparsity backend_structure(int n, const Sparsity& s, LinearSolverKind backend);

template <typename Scalar>
class LinearSolver {
 public:
  using VectorType = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  virtual ~LinearSolver() = default;
  /// "dense LU", "banded LU", "KLU".
  virtual const char* name() const = 0;
  virtual LinearSolverKind kind() const = 0;
  int size() const { return matrix_.size(); }
  /// The matrix to factor, in the backend's structure: assemble into it, then call factor().
  StructuredMatrix<Scalar>& matrix() { return matrix_; }
  const StructuredMatrix<Scalar>& matrix() const { return matrix_; }
  /// Factors matrix() (its contents may be overwritten by the factors). False if a pivot is
  /// zero or not finite (the matrix is singular to working precision).
  virtual bool factor() = 0;
  /// Solves A x = b in place with the last successful factorisation (b is overwritten by x).
  virtual void solve_in_place(Eigen::Ref<VectorType> b) const = 0;
  /// What a false factor() means, for the methods' failure messages.
  virtual const char* singular_reason() const {
    return "zero pivot in the LU of the iteration matrix";
  }
  /// Why the last solve_in_place() gave no answer (NaN), or nullptr: the direct backends always
  /// answer; the iterative one may diverge or not converge.
  virtual const char* solve_failure() const { return nullptr; }
  using BlockType = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  /// True if the backend solves with A^T (the dense one).
  virtual bool supports_transposed_solve() const { return false; }
  /// Solves A^T X = B (transpose, not conjugate; B n x r) in place with the last successful
  /// factorisation, if supports_transposed_solve(): false, B untouched, otherwise.
  virtual bool solve_transposed_in_place(Eigen::Ref<BlockType> /*B*/) const { return false; }
  /// Where an iterative backend adds its iterations per solve (Stats::nli; the direct ones
  /// have none).
  void count_iterations_in(long* counter) { iterations_ = counter; }

 protected:
  StructuredMatrix<Scalar> matrix_;
  long* iterations_ = nullptr;
};

using RealLinearSolver = LinearSolver<double>;
using ComplexLinearSolver = LinearSolver<std::complex<double>>;

/// A solver for n x n matrices whose structure is contained in s, with the given backend
/// (Automatic resolved by choose_backend()). Throws InvalidArgument if KLU is requested for a
/// build without SuiteSparse.
template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_linear_solver(int n, const Sparsity& s,
                                                         LinearSolverKind kind);

// The backends (dense_lu.cpp, banded_lu.cpp, klu_solver.cpp). The dense one factors by the
// recursive blocked LU from n = blocked_min_size on (negative: dense_lu_blocked_min_size()).
template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_dense_solver(int n, int blocked_min_size = -1);
template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_banded_solver(int n, int lower, int upper);
template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_klu_solver(int n, const SparseMatrix& pattern);
/// GMRES with an AMG preconditioner (krylov_solver.cpp, amg.hpp).
template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_krylov_solver(int n, const SparseMatrix& pattern);

}  // namespace daekit
