// Radau IIA, 3 stages, order 5 (stage order 3), for M y' = f(t, y): the method of Hairer and
// Wanner's RADAU5 (Hairer-Wanner II, IV.8 and VI.6). Registered as "radau5".
//
// Stage system, Z_i = Y_i - y_n (i = 1..3):   (A^{-1} (x) M) Z = h F(Z),  F_i = f(t_n + c_i h, y_n
// + Z_i). With T^{-1} A^{-1} T = diag(gamma, [alpha -beta; beta alpha]) and W = (T^{-1} (x) I) Z
// the simplified Newton iteration splits into one real system with (gamma/h M - J) and one complex
// system with ((alpha + i beta)/h M - J); J = df/dy is frozen over steps while Newton converges
// fast (contraction theta <= 0.001) and the LU is kept while h stays in the dead band [1, 1.2].
// Error estimate: err = (gamma/h M - J)^{-1} (f(t_n, y_n) + M (e^T Z)/h) with the embedded
// order-3 formula e (computed from the tableau), refined once by a second solve at the first
// step and after a rejection. Index-2 and index-3 components are scaled by h and h^2 in all
// norms (RADAU5's own scaling, on top of the integrator's weights), and the method works with
// the transformed tolerances rtol' = 0.1 rtol^(2/3), atol' = atol rtol'/rtol (reported as the
// tolerances used). y_{n+1} = y_n + Z_3 (stiffly accurate). Dense output: the collocation
// polynomial. The linear systems go through the shared linear-solver backends (dense, banded,
// KLU), the Jacobian through the shared source (analytic or coloured differences), Newton
// through the shared monitor (successive-rate estimate with RADAU5's early abandonment).
#pragma once

#include "daekit/core/types.hpp"
#include "daekit/methods/radau.hpp"  // Index2ErrorControl

namespace daekit {

struct Radau5Options {
  static constexpr const char* method_name = "radau5";
  int max_newton_iterations = 7;  ///< NIT of RADAU5
  /// 0: max(10 eps / rtol', min(c, sqrt(rtol'))), RADAU5's c = 0.03; 1e-3 on a problem with
  /// index-3 components unless transform_tolerances (radau.cpp, kNewtonCapIndex3)
  double newton_tolerance = 0.0;
  bool start_newton_from_zero = false;  ///< true: Z = 0 instead of extrapolating
  double jacobian_reuse_theta = 0.001;  ///< keep J when the Newton contraction is below this
  double lu_reuse_low = 1.0;            ///< keep h (and the LU) if h_new/h in [low, high]
  double lu_reuse_high = 1.2;
  /// RADAU5 internally works with rtol' = 0.1 rtol^(2/3), atol' = rtol' atol / rtol, which
  /// makes the error behave like the tolerance at order 5; set false to use tolerances as given.
  bool transform_tolerances = false;
  /// As RadauOptions::index2_error_control (Index2ErrorControl).
  Index2ErrorControl index2_error_control = Index2ErrorControl::AfterRestarts;
  /// Same as Options::projection (kept for existing code): projection after every accepted
  /// step (paper 000, (2.7)/(2.8)).
  Projection projection = Projection::None;

  void validate() const;  ///< throws InvalidArgument naming a bad field
};

}  // namespace daekit
