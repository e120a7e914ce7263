// Explicit Runge-Kutta methods for ODEs M y' = f(t, y) with a diagonal invertible M, and the
// state-space form method of Bendtsen and Thomsen (1999) 2.2.1 for semi-explicit index-1 DAEs
// written as M y' = f with M = diag(D, 0) (algebraic equations in the zero rows, algebraic
// variables in the zero columns, the same indices; 0 = g(y, z) with g_z invertible). Registered as
// "erk".
//
// With x = (y, z), differential rows d and algebraic rows a, stages i = 1..s:
//   Y_i = y_n + h sum_{j<i} a_ij K_j,   K_j = D^{-1} f_d(t_n + c_j h, Y_j, Z_j),
//   Z_i from 0 = g(t_n + c_i h, Y_i, Z_i)        (simplified Newton with g_z, notes (2.5)),
// and at the end y_{n+1} = y_n + h sum_i b_i K_i, z_{n+1} from 0 = g(t_{n+1}, y_{n+1}, z_{n+1}).
// That is the explicit method applied to the state-space form y' = f(y, G(y)) (2.4), so y and z
// have the classical order of the tableau (notes 2.2.1; the "half-explicit" methods of
// [ESF98]). Error estimate: the embedded formula on the differential part,
// e_y = h sum_i (b_i - b_hat_i) K_i, and e_z = -g_z^{-1} g_y e_y (its effect on the algebraic
// variables); err ~ h^(p^+1). For ODEs (no algebraic rows) this is a plain explicit RK method
// (DOPRI5 by default). Dense output: cubic Hermite interpolation of the differential part
// with the derivatives K at both ends (order 3), linear in the algebraic part.
// Non-stiff problems only: the stability region is bounded (notes 2.4.1).
#pragma once

#include "daekit/core/types.hpp"
#include "daekit/tableaus/runge_kutta.hpp"

namespace daekit {

struct ErkOptions {
  static constexpr const char* method_name = "erk";
  /// An explicit tableau (a_ij = 0 for j >= i); default Dormand-Prince 5(4).
  RungeKuttaTableau tableau = dormand_prince5();
  int max_newton_iterations = 10;  ///< for the algebraic equations at a stage
  void validate() const;           ///< throws InvalidArgument naming a bad field
};

}  // namespace daekit
