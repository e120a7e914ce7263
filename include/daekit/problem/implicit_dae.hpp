// ImplicitDae: the fully implicit DASSL / IDA form
//
//     F(t, y, y') = 0,   y(t0) = y0, y'(t0) = yp0,
//
// with a tag per component saying whether it is differential (y_i' appears in F) or algebraic.
// Newton-type methods for this form iterate with the matrix dF/dy + (alpha / h) dF/dy'
// (NOTES-004.md ch. 4). The BDF solver of daekit works on this form; a MassMatrixDae
// M y' = f(t, y) converts to it by F = M y' - f(t, y).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct ImplicitDae {
  using Residual = std::function<void(double t, VecIn y, VecIn yp, VecOut out)>;
  /// Writes an n x n matrix into `out` (callbacks taking MatOut work too).
  using Jacobian = std::function<void(double t, VecIn y, VecIn yp, Matrix& out)>;

  int n = 0;
  Residual F;                      ///< residual F(t, y, y') (required)
  Jacobian dF_dy;                  ///< optional analytic dF/dy
  Jacobian dF_dyp;                 ///< optional analytic dF/dy'
  std::vector<bool> differential;  ///< true for differential components; empty = all true
  /// Optional consistent re-initialisation at (t, y) after an event (BDF restart), used
  /// instead of initialize(DifferentialGiven) when the algebraic part is not given by tags:
  /// to_implicit_form sets it for M y' = f whose singular M has no zero rows (M y is kept,
  /// initialize(MassMatrixDae)). Returns false with a message on failure.
  std::function<bool(double t, Vector& y, Vector& yp, std::string& message)> reinitialize;
  std::string name = "user problem";

  void validate() const;
  /// Evaluates the analytic Jacobians (if any) at (t, y, yp) and throws InvalidArgument if one
  /// does not come back n x n or contains NaN/Inf.
  void check_jacobians(double t, const Vector& y, const Vector& yp) const;
};

/// F(t, y, y') = M y' - f(t, y); components whose column of M is zero are tagged algebraic.
ImplicitDae to_implicit_form(const MassMatrixDae& dae);

/// y'(t0) of M y' = f(t, y) at a consistent y0: the differential part from M y' = f (least
/// squares on the rows of M that are not zero), the algebraic part (zero columns of M) from the
/// time derivative of the algebraic equations, J_AZ z' = -(J_AD y'_D + df_A/dt), when J_AZ is
/// invertible (index 1); otherwise those components are left 0.
Vector initial_derivative(const MassMatrixDae& dae, double t0, const Vector& y0);

}  // namespace daekit
