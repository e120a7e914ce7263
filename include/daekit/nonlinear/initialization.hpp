// Consistent initial values for F(t, y, y') = 0 (Bendtsen and Thomsen (1999), ch. 4 and 10;
// SUNDIALS IDA's IDACalcIC modes):
//   (a) DifferentialGiven: keep the differential components of y, compute the algebraic
//       components of y and the derivatives y' of the differential components
//       (IDA_YA_YDP_INIT); algebraic components' y' do not enter F and are left as given,
//   (b) DerivativeGiven: keep y', compute all of y (IDA_Y_INIT),
//   (c) CheckOnly: evaluate F and report the residual per equation.
// Newton's method with a backtracking line search on |F|^2 / 2; Jacobians analytic when the
// problem gives them, finite differences otherwise. A singular Jacobian (e.g. a model that is
// not index 1, or wrong differential/algebraic tags) is reported, naming the dependent unknown.
// (F(t, y, y') = 0 is initialized at index 1 only; M y' = f also at index 2 and 3, below.)
// A callback that throws is reported in InitResult::message (ok = false), never rethrown.
// (Dense Newton matrices: meant for problems up to a few thousand unknowns.)
#pragma once

#include <string>
#include <vector>

#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

enum class InitMode { DifferentialGiven, DerivativeGiven, CheckOnly };

struct InitOptions {
  double tol = 1e-10;       ///< max |F_i| accepted as consistent
  int max_iterations = 50;  ///< Newton iterations
  void validate() const;
};

struct InitResult {
  bool ok = false;
  std::string message;  ///< what failed (empty on success)
  Vector y, yp;         ///< consistent values (the input where nothing was computed)
  Vector residual;      ///< F(t0, y, yp) at the returned values
  int iterations = 0;
  /// One line per equation: index, residual, and "ok"/"VIOLATED".
  std::string report() const;
};

InitResult initialize(const ImplicitDae& dae, double t0, const Vector& y0, const Vector& yp0,
                      InitMode mode, const InitOptions& options = {});

/// y'(t0) of M y' = f(t, y) at a consistent y0: the differential part from M y' = f (least
/// squares on the rows of M that are not zero), the algebraic part (zero columns of M) from the
/// time derivative of the algebraic equations, J_AZ z' = -(J_AD y'_D + df_A/dt), when J_AZ is
/// invertible (index 1); otherwise those components are left 0. Throws InvalidArgument if a
/// callback fails.
Vector initial_derivative(const MassMatrixDae& dae, double t0, const Vector& y0);

/// Consistent initial values for M y' = f(t, y) with constant singular M; then y' from
/// M y' = f (initial_derivative). What is kept and what changes depends on the index tags:
///
/// Index 1 (no component tagged 2 or 3): keeps the differential state M y0 and solves the
/// algebraic equations for the algebraic variables: Newton on the zero rows of M for the
/// components of its zero columns, or, when the algebraic part is not in zero rows and columns
/// (e.g. the transistor amplifier, where it is sums of row pairs), on L^T f(t0, y0 + N c) = 0
/// for c (N, L: orthonormal bases of ker M and ker M^T), with a backtracking line search.
/// A singular Jacobian of the algebraic part (not index 1, or untagged index 2/3) is reported.
///
/// Index 2 or 3 (components tagged 2 or 3, MassMatrixDae::index, and zero rows in M): the
/// algebraic equations must be the zero rows A of M and the algebraic variables z as many zero
/// columns, M restricted to
/// the other rows and columns (the differential components y_D) invertible -- the Hessenberg
/// structure of constrained mechanical systems and of index-2 circuits. Then
///  1. the constraints -- the combinations of the algebraic equations that do not contain z
///     (for a Hessenberg DAE: the constraint rows 0 = g(t, y_D)), and at index 3 also their
///     derivative along the motion (the velocity-level constraint G(q) v = 0 of g(q) = 0) --
///     are made to hold by the smallest change of y_D (Euclidean, unweighted: scale the model
///     if its units differ widely): Gauss-Newton steps dy_D = -C^T (C C^T)^{-1} c, C the
///     Jacobian of the constraints c with respect to y_D (minimum-norm least squares, so
///     dependent constraints are allowed). Differential components that no constraint depends
///     on are not changed, and y_D is kept exactly when the constraints hold;
///  2. z (multipliers, accelerations, index-1 algebraic variables) is computed, not kept: from
///     all the algebraic equations together with the hidden constraint that determines the
///     rest of z -- the derivative of the constraints along the motion y_D' = M^{-1} f (index
///     2: the acceleration level of a velocity constraint), or its second derivative (index 3)
///     -- by Gauss-Newton at fixed y_D.
/// The algebraic equations then hold to options.tol; the hidden constraints are evaluated by
/// central differences of fourth order along the motion and hold to their accuracy (about
/// 1e-12 relative to their terms for a first derivative, 1e-10 for a second: the slider crank
/// of the IVP Test Set, tests/test_real_problems.cpp). Structures beyond this -- index above
/// 3, algebraic variables that the equations and the derivatives up to the second leave
/// undetermined, zero rows without matching zero columns -- are reported, ok = false. Dense
/// matrices of size n; per iteration one Jacobian, and at index 3 about 10 n evaluations of f
/// for the Jacobian of the velocity-level constraint.
InitResult initialize(const MassMatrixDae& dae, double t0, const Vector& y0,
                      const InitOptions& options = {});

/// Checks the algebraic equations (zero rows of M; for a singular M without zero rows, L^T f
/// with L spanning ker M^T) and the constraint monitor of M y' = f at (t0, y0). Returns an
/// empty string if consistent to `tol`, else a message naming the violated equation and the
/// size of the violation (what solve() reports as Status::InconsistentInitialValues), and for
/// the algebraic equations the remedy: initialize() above (in Python solve_ivp's or
/// Integrator's initialize=True), which handles index 1, 2 and 3.
std::string check_initial_values(const MassMatrixDae& dae, double t0, const Vector& y0, double tol);

/// An analytic Jacobian compared with the shared finite differences (what CVODE/IDA users do
/// by hand): the entries that disagree by more than the differences' own error can explain.
struct JacobianCheck {
  struct Entry {
    int row = 0, col = 0;
    double analytic = 0.0, difference = 0.0;
  };
  bool ok = true;               ///< no entry disagrees
  std::vector<Entry> entries;   ///< the disagreeing entries, worst first (at most 20)
  long disagreeing = 0;         ///< how many entries disagree
  std::string message;          ///< failure of a callback (wrong size, NaN, exception)
  bool callback_error = false;  ///< that failure was an exception or wrong-size output
  std::string report() const;   ///< one line per disagreeing entry
};
/// df/dy of M y' = f at (t, y): the analytic (dense or sparse) callback against differences.
/// Without an analytic Jacobian there is nothing to compare: ok.
JacobianCheck check_jacobian(const MassMatrixDae& dae, double t, const Vector& y);
/// dF/dy + dF/dy' of F(t, y, y') = 0 at (t, y, yp) (c_j = 1) against differences.
JacobianCheck check_jacobian(const ImplicitDae& dae, double t, const Vector& y, const Vector& yp);

}  // namespace daekit
