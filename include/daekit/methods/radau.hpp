// Variable-order Radau IIA for M y' = f(t, y): s = 3, 5 or 7 stages (orders 5, 9, 13; also
// s = 1, implicit Euler), after the strategy of Hairer and Wanner's RADAU code (E. Hairer,
// G. Wanner, Stiff differential equations solved by Radau methods, J. Comput. Appl. Math. 111
// (1999) 93-111; Hairer-Wanner II, IV.8). Registered as "radau".
//
// Each step is one step of Radau IIA(s) (collocation at the zeros of P_s(2x-1) - P_{s-1}(2x-1),
// stiffly accurate, L-stable, stage order s) solved by the transformed simplified Newton
// iteration (methods/irk_engine.hpp): one real and (s-1)/2 complex linear systems per
// iteration. Error estimate: the embedded formula of order s (err ~ h^(s+1)) filtered through
// (gamma/h M - J)^{-1} as in RADAU5. The order is chosen from the Newton contraction theta,
// which measures how well the stage system is resolved (the paper, Sect. 5): with
//   theta_t = min(10, max(theta, theta_t / 2))   (smoothed over the decisions),
// when a new LU decomposition is due
//   s -> s + 2  if the last Newton iteration needed > 1 iteration, theta_t <= vitu (0.005) and
//               the step ratio h_new / h_old lies in (hhod, hhou) = (0.8, 1.2);
//   s -> s - 2  if theta_t >= vitd (0.8), after an unexpected step rejection (Newton
//               divergence, singular matrix) or after Newton was judged too slow with a step
//               reduction <= 0.5;
// no increase within 10 steps of a change; after 10 steps at a kept LU an increase is tested.
// Tolerances: as RADAU, rtol' = 0.1 rtol^((s+1)/(2s)), atol' = atol rtol'/rtol for s stages
// (RADAU5's 0.1 rtol^(2/3) at s = 3); the used tolerances reported are those of s = 3, the
// other orders scale the weights by rtol^((s+1)/(2s) - 2/3). Newton: at most nit(s) = 7, 12,
// 17 iterations for s = 3, 5, 7 (4 for s = 1), tolerance max(10 eps/rtol', min(0.03,
// rtol'^((s-1)/(s+1)))); by default 1e-3 takes the place of 0.03 on a problem with index-3
// components (the velocities' iteration error, radau.cpp kNewtonCapIndex3). Jacobian and LU reuse
// as radau5. Index-2/3 components scaled by h and h^2. Dense output: the collocation polynomial of
// the current order.
//
// Departure from RADAU: after an order change the starting values of Newton are extrapolated
// from the previous step's collocation polynomial (RADAU starts from zero); the integrator's
// Gustafsson controller stays active across an order change. Second departure: an error-test
// rejection that follows another at the same point with an error that did not fall (> 0.5 times
// the previous one although h did) counts as unexpected, so the next factorisation lowers the
// order: on index-3 problems the estimate of the 7-stage method can measure the state's
// inconsistency in the hidden constraints (scaled by h^2, it does not shrink with h) instead of
// a local error (pendulum at rtol = 5.6e-6: err ~ 1.14 from h = 1e-2 to 2e-14 at t = 11.67).
// Third departure: vitu = 0.005 instead of RADAU's 0.002 (measured, rtol = atol = 1e-10 ...
// 1e-12: Andrews at 1e-10 keeps theta_t at 0.002-0.004 and stayed at order 5, the cost of
// radau5; with 0.005 it reaches order 9: 3022 instead of 3107 f evaluations at scd 6.55 instead
// of 6.24; the pendulum at 1e-10 7570 instead of 8820 at scd 7.39 instead of 6.04; the
// transistor at 1e-11 35482 instead of 45087 (scd 10.61 instead of 11.03); Van der Pol
// unchanged; docs/rk-theory.md).
#pragma once

#include "daekit/core/types.hpp"

namespace daekit {

/// When radau5 and radau test the error of index-2 components that are zero columns of M (on a
/// DAE without index-3 components) in their own unit as well (the defect of the collocation
/// polynomial in the algebraic equations; RADAU5's estimate scales their error by h):
/// AfterRestarts (the default) from the first restart of the run on (a tstop, a switch, an
/// event), where such components jump and change fastest (the charge pump's current: 3.65
/// digits without the test at every rtol, 5.1-9.3 with it); Always from the start (on smooth
/// mechanical problems it multiplies the steps by up to 3.7 for 0.0-0.4 digits in the
/// positions); Off never. docs/results/switches.md.
enum class Index2ErrorControl { Off, AfterRestarts, Always };

/// The floor of the variable-order radau's internal rtol' where M may be singular (M is not
/// the identity or a diagonal without zeros): it chooses its order from the Newton contraction,
/// which below it no longer says how well the stages are resolved (src/methods/radau.cpp). With
/// a fixed number of stages (radau5) the floors are 1e-10, and 1e-11 with index-2/3
/// components. Method "auto" takes radau5 on such a problem at rtol below this floor.
inline constexpr double kRadauDaeRtolFloor = 1e-8;

struct RadauOptions {
  static constexpr const char* method_name = "radau";
  int min_stages = 3;             ///< 1, 3, 5 or 7
  int max_stages = 7;             ///< 1, 3, 5 or 7, >= min_stages
  int start_stages = 3;           ///< in [min_stages, max_stages]
  int max_newton_iterations = 7;  ///< NIT for s = 3 (s = 5: +5, s = 7: +10, s = 1: -3)
  double newton_tolerance = 0.0;  ///< 0: RADAU's rule (above)
  double jacobian_reuse_theta = 0.001;
  double lu_reuse_low = 1.0;
  double lu_reuse_high = 1.2;
  double order_increase_theta = 0.005;  ///< vitu (RADAU's default: 0.002; see the header)
  double order_decrease_theta = 0.8;    ///< vitd
  double order_step_ratio_low = 0.8;    ///< hhod
  double order_step_ratio_high = 1.2;   ///< hhou
  bool transform_tolerances = false;
  /// See Index2ErrorControl.
  Index2ErrorControl index2_error_control = Index2ErrorControl::AfterRestarts;
  Projection projection = Projection::None;

  void validate() const;  ///< throws InvalidArgument naming a bad field
};

}  // namespace daekit
