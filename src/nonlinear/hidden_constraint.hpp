// The notes' projection (3.11) completed by (3.11b) (Bendtsen and Thomsen 1999, ch. 3;
// Hairer-Wanner II, p. 470): after the differential variables y of a semi-explicit index-2 system
//   M_dD y' = f_d(t, y, z),   0 = g(t, y)   (x = (y, z); z the zero columns of M, g its zero rows)
// have been projected onto g(t, y) = 0, the algebraic variables z are recomputed from the
// hidden constraint
//   0 = g_t(t, y) + g_y(t, y) M_dD^{-1} f_d(t, y, z)
// by simplified Newton with the matrix g_y M_dD^{-1} f_z (invertible at index 2), all from the
// system's f and Jacobian (guarded and counted). z then inherits the order of y: without it a
// projected Gauss method keeps the z of its stages (order s-1 or so, the notes' order table).
// The residual is the derivative of g along (1, M_dD^{-1} f_d) by fourth-order central
// differences (accurate where the Jacobian may be differenced itself).
// The storage is sized once; solve() allocates nothing.
#pragma once

#include <memory>
#include <vector>

#include "daekit/core/types.hpp"
#include "linalg/linear_solver.hpp"
#include "linalg/structured_matrix.hpp"

namespace daekit {

class MassMatrixSystem;

class HiddenConstraintSolver {
 public:
  /// Throws InvalidArgument unless `sys` has the semi-explicit index-2 structure above: as
  /// many zero rows as zero columns of M, every zero column tagged index 2, M invertible on
  /// the other rows and columns.
  explicit HiddenConstraintSolver(MassMatrixSystem& sys);
  /// z of x from the hidden constraint at (t, y of x); y unchanged. False when f or the
  /// Jacobian fail, g_y f_z is singular or Newton does not converge in 10 iterations.
  bool solve(double t, VecOut x);

 private:
  bool hidden_residual(double t, const Vector& x, Vector& r);  // g_t + g_y M^{-1} f_d
  MassMatrixSystem& sys_;
  std::vector<int> d_rows_, D_cols_, a_rows_, A_cols_;
  Matrix Minv_;        // M_dD^{-1}
  Matrix G_, GMinv_;   // g_y, g_y M_dD^{-1} (the Newton matrix)
  Vector fd_, v_, r_;  // f_d, M_dD^{-1} f_d, the residual
  Vector f_, fp_, x_, z_;
  StructuredMatrix<double> J_;
  std::unique_ptr<RealLinearSolver> lu_;  // g_y M_dD^{-1} f_z
};

}  // namespace daekit
