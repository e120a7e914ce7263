// Consistent initial values for F(t, y, y') = 0 (NOTES-004.md ch. 4 and 10; SUNDIALS IDA's
// IDACalcIC modes):
//   (a) DifferentialGiven: keep the differential components of y, compute the algebraic
//       components of y and the derivatives y' of the differential components
//       (IDA_YA_YDP_INIT); algebraic components' y' do not enter F and are left as given,
//   (b) DerivativeGiven: keep y', compute all of y (IDA_Y_INIT),
//   (c) CheckOnly: evaluate F and report the residual per equation.
// Newton's method with a backtracking line search on |F|^2 / 2; Jacobians analytic when the
// problem gives them, finite differences otherwise. A singular Jacobian (e.g. a model that is
// not index 1, or wrong differential/algebraic tags) is reported, naming the dependent unknown.
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

/// Consistent initial values for an index-1 M y' = f(t, y) with constant singular M whose
/// algebraic part need not sit in zero rows and columns (e.g. the transistor amplifier, where
/// it is sums of row pairs): keeps the differential state M y0 and solves the algebraic
/// equations L^T f(t0, y0 + N c) = 0 for c (N, L: orthonormal bases of ker M and ker M^T) by
/// Newton with a backtracking line search; then y' from M y' = f (initial_derivative).
/// A singular L^T f_y N (not index 1) is reported.
InitResult initialize(const MassMatrixDae& dae, double t0, const Vector& y0,
                      const InitOptions& options = {});

/// Checks the algebraic equations (zero rows of M; for a singular M without zero rows, L^T f
/// with L spanning ker M^T) and the constraint monitor of M y' = f at (t0, y0). Returns an
/// empty string if consistent to `tol`, else a message naming the violated equation and the
/// size of the violation (what solve() reports as Status::InconsistentInitialValues).
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
