// Impasse points of quasi-linear DAEs (Bendtsen and Thomsen (1999), ch. 7, after Rabier-Rheinboldt
// [PR94]):
//
//   A1(x) x' = g1(x)   (r rows, rank A1 = r),      0 = g2(x)   (n - r rows),        (7.4)
//
// a split of A(x) x' = g(x) with rank A = r. On the manifold W = {g2 = 0} a chart
// phi: y in R^r -> x (7.5) reduces it to the ODE B(y) y' = h(y), B = A1(phi(y)) D phi(y),
// h = g1(phi(y)) (7.6)-(7.7). A point where B is singular (equivalently, where the n x n matrix
// E(x) = [A1(x); Dg2(x)] is singular) is an impasse point: x' is unbounded there and step-size
// control drives h to zero. It is accessible when alpha = <h, v><(DB u) u, v> < 0 (7.2) with
// u in ker B, v in ker B^T (Def. 7.2): solutions reach it in finite time and end there.
//
// Augmentation (7.8)-(7.22): with t = tau(s) and eta(s) = y(tau(s)) the curve (eta, t) solves
//   [B(eta)  -h(eta)] [deta/ds]   [0]
//   [                ] [       ] = [ ]     i.e.  deta/ds = v(eta),  dt/ds = gamma(eta),
//   [   normalisation ] [dt/ds  ]   [1]
// which is regular through the singular point; gamma changes sign there (t(s) turns). The
// normalisation is the bordered system (7.12) with the SVD vectors (7.13)-(7.15) of
// (B_c, -h_c) at the chart centre, v = z2 v1 - z1 v2, gamma = z2 w1 - z1 w2 (7.16)-(7.17); the
// printed (7.12) is singular for r = 1, so the border rows are (u1^T, omega1, 0) and
// (u2^T, omega2, 0) (Bendtsen and Thomsen (1999) [FIX]). We scale (D phi v, gamma) to unit length,
// so s is the arc length of the curve in (x, t).
//
// Algorithm SingDAE (Fig. 7.2): per step, centre the chart at the current point x_c, factor
// Dg2(x_c)^T = [Q1 Q2] [R; 0] (7.24), U_c = Q2; the chart phi(y) = x_c + U_c y - Q1 z with z
// from the chord Newton iteration R^T z = g2(x) (Eval_phi, R and Q1 frozen);
// D phi = (I - Q1 (Dg2 Q1)^{-1} Dg2) U_c, the same matrix as (7.11) (its columns span
// ker Dg2(phi(y)) and U_c^T D phi = I); one classical RK4 step on (7.22); the sign test on
// gamma. A sign change is then located (the RK step repeated with a shorter ds, Illinois
// regula falsi on gamma) and the impasse point reported.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "daekit/core/types.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

/// The split quasi-linear DAE (7.4), autonomous (see quasi_linear_form for time).
struct SplitQuasiLinearDae {
  int n = 0;  ///< unknowns x
  int r = 0;  ///< rank of A: number of differential rows, 1 <= r < n
  std::function<void(VecIn x, MatOut A1)> a1;  ///< r x n leading matrix (zeroed by the caller)
  std::function<void(VecIn x, VecOut g1)> g1;  ///< r right-hand sides
  std::function<void(VecIn x, VecOut g2)> g2;  ///< n - r algebraic equations
  std::function<void(VecIn x, MatOut G)> dg2;  ///< optional (n - r) x n Jacobian of g2
  /// For forms made from a time-dependent problem: the component of x that is t (else -1).
  int time_component = -1;

  /// Throws InvalidArgument naming the first thing that is wrong.
  void validate() const;
};

/// M y' = f(t, y) with a constant singular M as an autonomous quasi-linear DAE in x = (y, t):
/// M = U diag(sigma) V^T (SVD, rank r by sigma_i > 1e-12 sigma_1), A1 = (diag(sigma_r) V_r^T, 0)
/// plus the row t' = 1, g1 = (U_r^T f, 1), g2 = U_0^T f; n + 1 unknowns, rank r + 1. Throws
/// InvalidArgument if M is regular (an ODE has no impasse points) or not constant.
SplitQuasiLinearDae quasi_linear_form(const MassMatrixDae& dae);

/// The impasse monitor at x: how close E(x) = [A1; Dg2] is to singular, and the t-component
/// gamma of the unit tangent of the augmented curve (|gamma| -> 0 at an impasse point).
struct ImpasseIndicator {
  double sigma_ratio = 1.0;  ///< sigma_min(E) / sigma_max(E)
  double gamma = 1.0;        ///< dt/ds of the unit tangent (sign: forward in t)
  Vector tangent;            ///< dx/ds of the unit tangent
};
ImpasseIndicator impasse_indicator(const SplitQuasiLinearDae& dae, VecIn x);

/// impasse_indicator with its storage allocated once (the monitor of solve_with_impasses runs
/// after every accepted step and allocates nothing there). Keeps a copy of the DAE.
class ImpasseMonitor {
 public:
  explicit ImpasseMonitor(const SplitQuasiLinearDae& dae);
  ImpasseMonitor(const ImpasseMonitor&) = delete;
  ImpasseMonitor& operator=(const ImpasseMonitor&) = delete;
  /// The indicator at x (valid until the next call).
  const ImpasseIndicator& operator()(VecIn x);

 private:
  SplitQuasiLinearDae dae_;
  Vector g0_, g1_, xx_, h_;
  Matrix G_, E_, K_;
  Eigen::JacobiSVD<Matrix> svd_e_, svd_k_;
  ImpasseIndicator out_;
};

/// alpha(y)(u, v) of (7.2) at x on the manifold, in the chart centred at x: negative for an
/// accessible impasse point, positive for an inaccessible one (meaningful where B is singular).
double impasse_alpha(const SplitQuasiLinearDae& dae, VecIn x);

struct SingDaeOptions {
  double ds = 1e-3;           ///< arc-length step of the RK4 steps on (7.22), > 0
  double arc_length = 0.5;    ///< how far to follow the curve past the start, > 0
  double chart_tol = 1e-13;   ///< |g2| of the chart's chord Newton iteration (relative)
  int chart_iterations = 50;  ///< iterations of the chord Newton before giving up
  double gamma_tol = 1e-2;    ///< |gamma| below this: a solve is approaching an impasse point
  void validate() const;
};

/// A located impasse point.
struct ImpassePoint {
  double t = 0.0;
  Vector x;
  double alpha = 0.0;       ///< (7.2) there
  bool accessible = false;  ///< alpha < 0 (Def. 7.2)
  double s = 0.0;           ///< arc length from the start of the passage
};

/// The curve followed by SingDAE: points (s, t, x) with gamma, every RK step.
struct ImpassePassage {
  bool passed = false;  ///< gamma changed sign (an impasse point was passed)
  ImpassePoint point;   ///< valid when passed
  std::vector<double> s, t, gamma;
  std::vector<Vector> x;
  std::string message;  ///< what happened, in words
};

/// Algorithm SingDAE (Fig. 7.2) from (t0, x0) on the manifold, oriented forward in t, for
/// options.arc_length. Throws InvalidArgument for bad input (x0 off the manifold by more than
/// 1e-6, sizes); a chart iteration that fails ends the passage early with a message.
ImpassePassage pass_impasse(const SplitQuasiLinearDae& dae, double t0, const Vector& x0,
                            const SingDaeOptions& options = {});

/// The message of a solve that stopped at an impasse point (used by solve_with_impasses and
/// the integrator's failure report).
std::string impasse_message(const ImpassePoint& p);

}  // namespace daekit
