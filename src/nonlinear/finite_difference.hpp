// Finite-difference Jacobians, the one implementation in daekit (every method, the consistent
// initialization, the projections, the index-2 and Euler-Lagrange systems, the formulations,
// the impasse monitor and the event re-initialisation use it): dG/dx of a map G: R^cols ->
// R^rows, square (df/dy, dF/dy + c dF/dy', into the iteration matrix's storage) or rectangular
// (constraint Jacobians g_y, f_z, df/dp of the sensitivities: n x np), dense or coloured.
//
// Increment rule (one rule, for every caller): RADAU5's, extended by a typical magnitude,
//     delta_j = max(sqrt(eps * max(|x_j|, typical_j, 1e-5)), 1e3 eps |x_j|),
// where typical_j >= 0 is an optional magnitude the caller knows (the BDF passes |h y'_j|,
// the change of y_j over a step, as DASSL does). A component that sits at zero is perturbed by
// sqrt(eps 1e-5) = 4.7e-11: independent of atol (an increment tied to the error weight,
// sqrt(eps) (rtol |y| + atol), vanishes for atol -> 0: the BDF then built singular matrices on
// Robertson at atol <= 1e-10), and large enough that the change of f stays above its round-off
// for the built-in models (with sqrt(eps) * 1e-5 = 1.5e-13 the columns of Andrews'
// accelerations and multipliers that start at zero were lost in round-off and the index-1 and
// GGL formulations with differenced Jacobians failed with singular matrices). For |x_j| >= 1e-5
// the relative increment is sqrt(eps / |x_j|), RADAU5's compromise between truncation and
// round-off; it is kept at or above 1e3 eps |x_j| (which matters only for |x_j| > 5e9). The
// increment is rounded so that x_j + delta_j - x_j is exact.
//
// Central differences (the reference of the Jacobian checks, where the forward differences'
// O(delta) truncation would flag correct Jacobians): delta_j = cbrt(eps) max(|x_j|, typical),
// truncation O(delta^2), round-off O(eps / delta).
//
// Column grouping (Curtis, Powell and Reid 1974): columns that share no row of the sparsity
// pattern are perturbed together and cost one evaluation; the groups are a greedy colouring of
// the column intersection graph (largest-first order), and for a banded structure the optimal
// one, colour(j) = j mod (l + u + 1). A Jacobian then costs (colours + 1) evaluations with the
// base value, colours evaluations when the caller already has it.
// Internal header (not installed).
#pragma once

#include <type_traits>
#include <vector>

#include "daekit/core/function_ref.hpp"
#include "daekit/core/sparsity.hpp"
#include "daekit/core/types.hpp"
#include "linalg/structured_matrix.hpp"

namespace daekit {

/// Column groups: columns(c) are the columns of colour c (c = 0 .. colours - 1).
struct ColumnColouring {
  int colours = 0;
  std::vector<int> colour_of;  ///< colour of each column
  std::vector<int>
      group_start;  ///< size colours + 1: group c is group_columns[start[c]..start[c+1])
  std::vector<int> group_columns;
};

/// The colouring of an n x n (rows x cols) structure (dense: one column per colour).
ColumnColouring colour_columns(int n, const Sparsity& s);
ColumnColouring colour_columns(int rows, int cols, const Sparsity& s);

class FiniteDifferenceJacobian {
 public:
  /// Evaluates the map at x into out; returns false if it failed (a callback error or NaN the
  /// caller wants to report; the Jacobian is then not usable).
  using Map = FunctionRef<bool(const Vector& x, Vector& out)>;

  FiniteDifferenceJacobian() = default;
  /// Prepares for n x n Jacobians of structure s (computes the colouring once).
  FiniteDifferenceJacobian(int n, const Sparsity& s) : FiniteDifferenceJacobian(n, n, s) {}
  /// Prepares for rows x cols Jacobians dG/dx, G: R^cols -> R^rows, of structure s (a
  /// structure of that shape: Sparsity::validate(rows, cols)).
  FiniteDifferenceJacobian(int rows, int cols, const Sparsity& s);

  int size() const { return cols_; }  ///< the number of columns (the unknowns x)
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int colours() const { return colouring_.colours; }
  const ColumnColouring& colouring() const { return colouring_; }

  /// J = dG/dx at x by forward differences, with G0 = G(x) given. `typical` (size cols) may
  /// be null. J (square) must have been sized with a structure containing this one. Returns
  /// the number of evaluations of G (= colours()), or -1 if an evaluation failed.
  int evaluate(Map G, const Vector& x, const Vector& G0, const Vector* typical,
               StructuredMatrix<double>& J);
  /// The same into dense storage (rows x cols; its entries outside the structure are set to
  /// zero): the rectangular Jacobians.
  int evaluate(Map G, const Vector& x, const Vector& G0, const Vector* typical, MatOut J);
  /// J = dG/dx at x by central differences in the same column groups (2 colours() evaluations,
  /// no base value), the increments central_increment(x_j, typical): truncation and round-off
  /// O(eps^(2/3)) where forward differences leave O(sqrt(eps)). Dense storage as above (the
  /// rectangular Jacobians). Returns the number of evaluations, or -1 if one failed.
  int evaluate_central(Map G, const Vector& x, double typical, MatOut J);
  /// Dense differences without a prepared object (one evaluation per column, in order), for
  /// callers that keep no state: the same loop with the caller's scratch x_work (size of x; x
  /// on return unless an evaluation failed) and G_work (size of G0).
  static int evaluate_dense(Map G, VecIn x, VecIn G0, const Vector* typical, Vector& x_work,
                            Vector& G_work, MatOut J);
  /// The same for a map that cannot fail (G(x, out) returns nothing).
  template <typename F, typename = std::enable_if_t<
                            std::is_void_v<std::invoke_result_t<F&, const Vector&, Vector&>>>>
  static int evaluate_dense(F&& G, VecIn x, VecIn G0, const Vector* typical, Vector& x_work,
                            Vector& G_work, MatOut J) {
    auto map = [&G](const Vector& v, Vector& out) {
      G(v, out);
      return true;
    };
    return evaluate_dense(Map(map), x, G0, typical, x_work, G_work, J);
  }

  /// The increment of the rule above for x_j with typical magnitude typical_j.
  static double increment(double x_j, double typical_j);
  /// The central increment cbrt(eps) max(|x_j|, typical).
  static double central_increment(double x_j, double typical);
  /// D = dG/dx (G: R^n -> R^rows, n = x.size()) by central differences with the central
  /// increments (in `delta` when not null), one column at a time; false if an evaluation
  /// failed. Allocates (the checks' reference, not for the step loop).
  static bool central(Map G, int rows, const Vector& x, double typical, Matrix& D,
                      Vector* delta = nullptr);

 private:
  // the grouped loop of the .cpp over this colouring; write(j, delta_j) reads G_work_
  template <typename Write>
  int differences(Map G, const Vector& x, const Vector* typical, Write&& write);
  void check_sizes(const Vector& x, const Vector& G0, const Vector* typical, long J_rows,
                   long J_cols) const;

  int rows_ = 0, cols_ = 0;
  ColumnColouring colouring_;
  Sparsity sparsity_;  ///< the coloured structure (entries of J outside it are set to zero)
  Vector x_work_, G_work_, G_minus_, delta_;
};

}  // namespace daekit
