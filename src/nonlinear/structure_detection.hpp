// Detection of the structure of a Jacobian the problem does not declare (issue 29): the
// structural non-zeros of dG/dx, G: R^n -> R^rows (df/dy of M y' = f; dF/dy and dF/dy' of
// F(t, y, y') = 0), found at x0 by perturbing one column at a time,
//     (i, j) in P  <=>  G_i(x0 + d_j e_j) != G_i(x0)   (bitwise),
// with d_j = 1e-6 max(|x_j|, 1): a change of G_i of any size counts, so an entry is missed
// only if its effect lies below the round-off of G_i (|dG_i/dx_j| d_j < eps |G_i|), i.e. it
// is negligible beside G_i; n + 1 evaluations. Then confirmed at a second point x1 =
// second_point(x0), a fixed pseudo-random move of every component, where a zero that depends
// on the values at x0 (G_i = x_i x_k at x_k = 0: the column of x_i does not move G_i there)
// is no longer one: each colour group of P's colouring is perturbed twice at x1 (increments d
// and w d, with weights w_j in [0.5, 1.5]); a row that moves without a column of P in the
// group, or whose two changes are not in the ratio of its P column's weight (to 1e-3 of the
// change and the round-off of G_i), flags the group, whose columns are then scanned one at a
// time at x1. Cost n + 2 + 2 colours evaluations, plus the flagged groups' columns.
// The detection is an economy, never a correctness matter: a missed entry makes the Newton
// iteration a simplified one, its residual is still the exact G (solve() solves once more
// with the dense structure when a solve with a detected structure fails; see
// integrator/solve.cpp).
// Internal header (not installed).
#pragma once

#include <string>
#include <vector>

#include "daekit/core/function_ref.hpp"
#include "daekit/core/sparsity.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

/// Accumulates the structural non-zeros of dG/dx found at one point or more.
class StructureDetector {
 public:
  using Map = FunctionRef<bool(const Vector& x, Vector& out)>;

  StructureDetector(int rows, int cols);
  /// Adds the entries of dG/dx at x found by perturbing each column alone (G0 = G(x)).
  /// Returns false (and adds nothing more) as soon as an evaluation fails. cols evaluations.
  bool scan(Map G, const Vector& x, const Vector& G0);
  /// The confirmation at a second point x (G0 = G(x)) described above: adds the entries of
  /// the flagged groups' columns at x. False as soon as an evaluation fails.
  bool confirm(Map G, const Vector& x, const Vector& G0);
  /// Adds the non-zero entries of a matrix (an analytic Jacobian evaluated at a point).
  void add_nonzeros(const Matrix& A);
  /// Adds the non-zero stored entries of a sparse matrix (a mass matrix).
  void add_nonzeros(const SparseMatrix& A);
  /// Adds the diagonal (square matrices).
  void add_diagonal();
  int evaluations() const { return evaluations_; }
  /// The entries found (values 1), compressed.
  SparseMatrix pattern() const;

 private:
  int rows_, cols_;
  int evaluations_ = 0;
  std::vector<std::vector<int>> columns_;  // sorted row indices per column
  void add(int i, int j);
  // scans the columns [begin, end) one at a time at x (G0 = G(x))
  bool scan_columns(Map G, const Vector& x, const Vector& G0, const int* begin, const int* end);
};

/// The detection's increment for component x_j: 1e-6 max(|x_j|, 1), rounded so that
/// x_j + d - x_j is exact.
double detection_increment(double x_j);
/// The second point of the detection: x0_j + w_j (1e-3 |x0_j| + 1e-6) with fixed
/// pseudo-random weights w_j in [0.5, 1.5] (the same for every solve).
Vector second_point(const Vector& x0);

/// Lower and upper bandwidths of a pattern.
void pattern_bandwidths(const SparseMatrix& P, int& lower, int& upper);

/// The backend Automatic picks for an n x n iteration matrix whose structure is the pattern P
/// (found by detection; its union with the mass matrix and the diagonal): dense for n <= 32
/// or more than a fifth of the entries non-zero (a sparse LU fills in to a dense one there),
/// banded when the band holds at most 4 times the pattern's entries (l + u + 1 <= 4 nnz / n),
/// else KLU from n = 64 on and dense below (the formulations of small mechanical problems,
/// Andrews' in GGL form at n = 33: KLU's fresh factorisations of their badly scaled matrices
/// allocate in the step loop, and the dense LU with coloured differences is as fast). A
/// 1 %-dense matrix of n = 350 is never dense.
LinearSolverKind backend_for_pattern(int n, const SparseMatrix& P);

}  // namespace daekit
