// Half-explicit Runge-Kutta methods (HEM) for Hessenberg index-2 DAEs y' = f(t, y, z),
// 0 = g(t, y) (001_6d2dbb58aab0d43f.txt (2.7)-(2.8), Hairer-Lubich-Roche; Brasey-Hairer 1993),
// with the tableaus of tableaus/half_explicit.hpp. Registered as "hem".
//
// One step from (t0, y0, z0) with step h, explicit A, U_1 = y0:
//   U_i = y0 + h sum_{j<i} a_ij f(T_j, U_j, Lambda_j),  0 = g(T_i, U_i)  determines Lambda_{i-1},
//   y1  = y0 + h sum_j  b_j  f(T_j, U_j, Lambda_j),     0 = g(t1, y1)    determines Lambda_s,
//   z1  = Lambda_s                                                      (2.8), c_s = 1.
// Each Lambda_{i-1} solves m equations by simplified Newton with the matrix h a_{i,i-1} S,
// S = g_y f_z at (t0, y0, z0) (m x m, one dense LU per step; g_y and f_z are evaluated at every
// step because the error estimate below needs them there), starting from the previous Lambda. g = 0
// holds at every stage and at y1 to the Newton tolerance, so the numerical solution stays on the
// constraint manifold (no drift).
//
// Error estimate: the embedded weights bh of the tableau and the tangential projection
//   err = P h sum_j (b_j - bh_j) f(T_j, U_j, Lambda_j),  P = I - f_z S^{-1} g_y,
// which removes the O(h) errors of the internal multipliers (they act through f_z) and leaves
// an estimate of order p^ + 1 (see tableaus/half_explicit.hpp); z is left out of the error test
// by default. Dense output: cubic Hermite in y through (y0, f(t0, y0, z0)) and (y1, f(t1, y1,
// z1)) (one extra f per step), z linear.
//
// Input: an ImplicitIndex2Dae with a(t, y) = y (the sum of the parts is f), or a MassMatrixDae
// of Hessenberg structure with a constant invertible M_yy (y' = M_yy^{-1} f); a nonlinear
// a(t, y) is refused (use spark). Bad input is reported as for spark.
#pragma once

#include <string>

namespace daekit {

struct HemOptions {
  static constexpr const char* method_name = "hem";
  /// "hem4" (Brasey-Hairer Table 5, 5 stages, order 4) or "bh3" (Table 2, 3 stages, order 3).
  std::string tableau = "hem4";
  int max_newton_iterations = 20;
  /// Bound on theta/(1-theta) |dLambda| (weights of z divided by |h|); 0 = automatic
  /// (max(10 eps / rtol, min(0.03, sqrt(rtol)))).
  double newton_tolerance = 0.0;
  void validate() const;
};

}  // namespace daekit
