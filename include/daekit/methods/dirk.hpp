// Diagonally implicit Runge-Kutta methods (DIRK, SDIRK, ESDIRK with an explicit first stage)
// for M y' = f(t, y), with an embedded error estimate (Bendtsen and Thomsen (1999) 2.4.3-2.4.4;
// Hairer-Wanner II, IV.6 and VI.1; Kvaerno, BIT 44 (2004)). Registered as "dirk".
//
// Stages in the form multiplied by M (no M^{-1} needed, so singular M -- index-1 DAEs -- works),
// Z_i = Y_i - y_n, F_j = f(t_n + c_j h, y_n + Z_j):
//   a_11 = 0 (ESDIRK, c_1 = 0):  Z_1 = 0, F_1 = f(t_n, y_n) (the previous step's last stage);
//   otherwise                    M Z_i - h a_ii F_i = h sum_{j<i} a_ij F_j,
// solved stage by stage by simplified Newton with the matrix (1/(h a_ii)) M - J (one LU per
// distinct diagonal value: one for SDIRK/ESDIRK). On an index-1 DAE the algebraic rows read
// 0 = sum_j a_ij g(Y_j), so every stage satisfies the constraints when y_n does: the method is
// the state-space / epsilon-embedding method of notes 2.2 for stiffly accurate tableaus, whose
// y_{n+1} = Y_s keeps g = 0 and avoids order reduction (notes 2.1.3, Kvaerno's first criterion).
// Tableaus that are not stiffly accurate need M = I (y_{n+1} = y_n + h sum b_i F_i).
// Error estimate: with d = b - b_hat,
//   err = (M - h gamma J)^{-1} h sum_i d_i F_i         (gamma = a_ss),
// the embedded difference filtered like RADAU5's (Shampine's filter; for Kvaerno's pairs, whose
// estimator is stiffly accurate, M^{-1} h sum d_i F_i = Y_s - Y_{s-1}); err ~ h^(p^+1) with p^
// the embedded order. Index-2/3 components scaled by h and h^2 as in RADAU5. Dense output: the
// polynomial through (t_n, y_n), the stage values with distinct c_i in (0, 1) and (t_{n+1},
// y_{n+1}) (accurate to the stage order: 2 for Kvaerno's methods, 1 for SDIRK). Jacobian and
// LU reuse as radau5 (J kept while Newton contracts with theta <= 0.001, h kept in [1, 1.2]).
#pragma once

#include "daekit/core/types.hpp"
#include "daekit/tableaus/runge_kutta.hpp"

namespace daekit {

struct DirkOptions {
  static constexpr const char* method_name = "dirk";
  /// Lower-triangular tableau with a_ii != 0 for i >= 2 (a_11 = 0 allowed: ESDIRK); default
  /// Kvaerno's ESDIRK 4(3). Without an embedded formula the step size is not controlled (a
  /// warning says so): use Options::fixed_step.
  RungeKuttaTableau tableau = kvaerno_esdirk4();
  int max_newton_iterations = 10;
  double newton_tolerance = 0.0;  ///< 0: max(10 eps / rtol, min(0.03, sqrt(rtol)))
  double jacobian_reuse_theta = 0.001;
  double lu_reuse_low = 1.0;
  double lu_reuse_high = 1.2;
  Projection projection = Projection::None;

  void validate() const;  ///< throws InvalidArgument naming a bad field
};

}  // namespace daekit
