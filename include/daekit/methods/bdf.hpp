// Variable-order (1..5), variable-step BDF for fully implicit DAEs F(t, y, y') = 0 in the
// fixed-leading-coefficient form of DASSL / IDA (Brenan-Campbell-Petzold, ch. 5; Bendtsen and
// Thomsen (1999) ch. 4), chosen over the Nordsieck form of ch. 10 because its interpolation and
// error estimates stay accurate under frequent step changes and it is the form IDA users know.
//
// Modified divided differences phi_j (j = 1..k+1) of the back values give the predictor
//   y^(0) = sum_j phi*_j,  y'^(0) = sum_j gamma_j phi*_j  (phi*_j = beta_j phi_j),
// and the corrector solves F(t_{n+1}, y, y'^(0) + cj (y - y^(0))) = 0, cj = -alpha_s / h,
// alpha_s = -sum_{i=1..k} 1/i, by modified Newton with the matrix dF/dy + cj dF/dy' (kept
// while cj changes by less than the factor [0.6, 1.67]; the correction is then scaled by
// 2 / (1 + cj / cj_old)). Error estimate: err = ck |y - y^(0)| with DASSL's ck; the terms
// sigma_k |.| for orders k-1, k, k+1 choose the next order; step sizes by r = (2 est)^(-1/(k+1)).
// Dense output of y and y' from the divided differences (DDATRP).
//
// Two departures from DASSL, both measured on the transistor amplifier (bench/bdf_vs_ida.cpp,
// docs/benchmarks.md), where DASSL-type codes (and IDA) take thousands of steps:
// * Algebraic error filter (option filter_algebraic_error). An index-1 algebraic variable
//   z = phi(x) carries the local error phi_x e_x of the differential ones; when phi_x is large
//   (an amplifier: the output node responds with a gain of ~160 to a base voltage) the
//   predictor difference y - y^(0) of z does not see it (its second differences are small
//   while phi_x x'' is not), the estimate jumps at every step-size change and the controller
//   oscillates between h and 2h at order 1. We therefore replace the components of every
//   difference in the algebraic directions (ker dF/dy' at t0, projector Q) by those of
//   P v = (dF/dy + cj dF/dy')^{-1} cj dF/dy' v, the response of the algebraic equations to
//   the differential error (cf. the filtered estimate (I - h gamma J)^{-1} of RADAU5,
//   Hairer-Wanner IV.8), combined (root sum of squares) with 0.3 times the direct difference,
//   which keeps the interpolant of the algebraic variables under control. One extra solve
//   with the factored iteration matrix per difference.
// * No step increase directly after a rejected step (as RADAU5 and CVODE do).
//
// Error test and index: by default the components with index tag >= 2 (the multipliers and
// velocities-level unknowns of index-2 formulations, as MassMatrixDae and ImplicitDae tag them)
// leave the error test, as Brenan-Campbell-Petzold recommend for index 2 (IDA's suppressalg
// applied per component); Options::exclude_from_error_test chooses any other set. Every
// component stays in the Newton convergence test, those left out of the error test weighted
// by min(1, |h|) (RADAU5 scales index-2 components by h): a multiplier carries a round-off
// floor ~ eps |F| / h that, unscaled, stalled Newton at small h and tight tolerances
// (jay-index2 at rtol = atol = h0 = 3.2e-9: h stuck near 1e-12, max_steps_exceeded). The
// excluded components' error is not controlled and reaches the others through the constraint
// forces (a warning says so; knife-edge at rtol 5.6e-9: lambda off by up to 1.5e-3, x by 6e-7).
// Index-3 problems in mass-matrix form are refused (BDF codes fail at index 3 with variable
// steps, Bendtsen and Thomsen (1999), ch. 4) unless the solve takes constant steps of a fixed
// order (Options::fixed_step with fixed_order), where BDF converges (their Theorem 4.1 and
// Example 4.1: implicit Euler, y2 and y3 of order 1).
// The Jacobian dF/dy + c_j dF/dy' comes from the shared source (analytic, or differences along
// (e_j, c_j e_j) with the one increment rule and typical magnitudes |h y'_j|, coloured by the
// declared sparsity); the linear systems from the shared backends; Newton from the shared
// monitor (DASSL's rate estimate from the first increment), with at least two iterations per
// step (min_newton_iterations; DASSL and IDA accept one when the rate of earlier steps
// predicts convergence). Measured (bench/bdf_vs_ida, rtol = atol, 2026-11-24): the iterate
// DASSL's rule accepts after one iteration carries the error of a Jacobian kept over many
// steps into y - y^(0), the difference the error test, the order selection and the next
// predictions are built on; a second iteration measures the rate on every step and removes it.
// Andrews in index-2 form at 1e-8: 1205 steps, 98 Jacobians, 41 rejections instead of 2774,
// 368 and 239 (IDA: 1187 steps), 0.41x instead of 0.92x IDA's time; the transistor at 1e-8:
// 6127 steps and 339 Jacobians instead of 14551 and 1722 (0.05x instead of 0.09x IDA's time);
// Akzo and Robertson-DAE within 10%; the oscillating pendulum-ssf ~25% more f evaluations at
// the same scd.
#pragma once

#include <functional>

#include "daekit/core/types.hpp"

namespace daekit {

struct BdfOptions {
  static constexpr const char* method_name = "bdf";
  int max_order = 5;    ///< 1..5
  int fixed_order = 0;  ///< 0: variable order; k: order held at k once reached
  /// Leave every algebraic component (ImplicitDae::differential == false, zero columns of M)
  /// out of the error test (IDA's suppressalg), instead of the default (index tags >= 2).
  /// Options::exclude_from_error_test, when set, takes precedence.
  bool exclude_algebraic_from_error = false;
  /// Filter the algebraic directions of the error estimate through the iteration matrix
  /// (see above). No effect on ODEs (dF/dy' nonsingular).
  bool filter_algebraic_error = true;
  int max_newton_iterations = 4;  ///< DASSL's MAXIT
  /// Iterations before a converged iterate is accepted (1: DASSL's and IDA's rule; the
  /// default 2: see above). An increment at round-off level ends the iteration at any count.
  int min_newton_iterations = 2;
  double newton_tolerance = 0.33;  ///< on the estimated error of the Newton iterate (weighted)
  /// Tests and studies: start at order fixed_order from exact back values y(t0 - j h0).
  std::function<Vector(double t)> exact_history;

  void validate() const;
};

}  // namespace daekit
