// nordsieck-bdf: the BDF of fixed order q <= 5 (default 4, the order DNA limits itself to) in
// the Nordsieck form with Milne's error estimate, as Bendtsen and Thomsen (1999), ch. 10 (the
// energy-system simulator DNA, (10.6)-(10.11)) describe it, for M y' = f(t, y) of index 1.
//
// Nordsieck array (10.8): Z_j = h^j y^(j) / j!, j = 0..q, the Taylor coefficients of the
// polynomial p(t_n + x h) = sum_j Z_j x^j that the method carries. One step of size h:
//   rescale  Z_j <- (h / h_Z)^j Z_j                              (10.9: only a scaling)
//   predict  Z^P = Z P, P the Pascal matrix, P(i, j) = C(j, i)    (10.10: the Taylor shift)
//   correct  Z = Z^P + Delta l, with Delta = y^C - y^P from the corrector
//            M (Z^P_1 + l_1 Delta) = h f(t_n + h, Z^P_0 + Delta),
// l the coefficients of Lambda(x) = prod_{j=1..q} (1 + x / j) (l_0 = 1, l_1 = sum 1/j): the
// correction vanishes at x = -1..-q, so at constant steps the corrected polynomial interpolates
// y_{n+1}, y_n, ..., y_{n+1-q} and h y'_{n+1} = p'(0) is the BDF formula (10.6) -- the method is
// the k-step BDF, k = q, step for step (tests/test_nordsieck_bdf.cpp). After a change of h the
// rescaled polynomial is interpolated instead (a fixed-coefficient BDF, not DASSL's
// variable-coefficient one). Newton: modified, matrix (l_1 / h) M - df/dy, the Jacobian kept
// while Newton contracts (rate below jacobian_reuse_theta).
//
// Error estimate: Milne's device (10.7), err = C / (C - C^P) (y^C - y^P) with C = -beta_q/(q+1)
// the BDF's error constant and C^P = 1 the predictor's (extrapolation of the polynomial
// through q + 1 values): beta_q / (beta_q + q + 1) Delta = 1/3, 2/11, 3/25, 12/137, 10/147 for
// q = 1..5 (tableaus/multistep.hpp, bdf_milne_factor). The step size follows from the
// integrator's controller with error model err ~ h^(q+1): the classical controller is DNA's
// h_new = c h (eps / d)^(1/(q+1)) (10.11).
//
// DNA keeps Nordsieck vectors for the differential variables only (10.8); here every component
// has one (the algebraic ones are predicted and corrected like the others, their equations
// solved by the corrector), but the algebraic components (zero columns of M) leave the error
// test by default (Options::exclude_from_error_test overrides): on air-pipe-1000 their
// estimate, the mass flows' large gain on the pressures, held h twice as small. Index-1
// problems only: components tagged index 2 or 3 are refused (InvalidArgument).
//
// Start: DNA starts (and restarts after a discontinuity) at order 1 and raises the order; here
// the first q steps (and those after every restart) are taken by radau5 (order 5) and the
// Nordsieck array is the polynomial through those q + 1 values, so that the method has order q
// from the first step on (as beta-multistep starts with Runge-Kutta steps). Dense output: the
// polynomial p over the last step.
#pragma once

#include <functional>

#include "daekit/core/types.hpp"

namespace daekit {

struct NordsieckBdfOptions {
  static constexpr const char* method_name = "nordsieck-bdf";
  int order = 4;                      ///< q, 1..5 (DNA: 4)
  int max_newton_iterations = 7;      ///< modified Newton iterations per step
  double newton_tolerance = 0.0;      ///< 0: max(10 eps / rtol, min(0.03, sqrt(rtol)))
  double jacobian_reuse_theta = 0.3;  ///< renew df/dy when Newton's rate exceeds this
  /// Tests and studies: start from the exact values y(t0 - j h0), j = 0..q (no radau5 steps).
  std::function<Vector(double t)> exact_history;

  void validate() const;
};

}  // namespace daekit
