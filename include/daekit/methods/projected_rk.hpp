// Projected implicit Runge-Kutta methods with any invertible tableau, at constant step size,
// for M y' = f(t, y) (000_da456d5bdd91ee80.txt (2.5)-(2.7); 001_6d2dbb58aab0d43f.txt
// (2.4)-(2.6), the Ascher-Petzold projected RK methods). Registered as "projected-rk".
//
// Stage equations, Z_i = Y_i - y_n:   sum_j (A^{-1})_ij M Z_j = h f(t_n + c_i h, y_n + Z_i),
// solved by simplified Newton with the sn x sn matrix A^{-1} (x) M - h I (x) J.
// Update:  y_{n+1} = y_n + (b^T A^{-1} (x) I) Z.  On differential components this is the
// quadrature y_n + h sum b_i f_i; on algebraic components (multipliers) it is the update
// lambda_{n+1} = R(inf) lambda_n + b^T A^{-1} Lambda of (2.5), R(inf) = 1 - b^T A^{-1} 1: for
// index 1 the epsilon-embedding method (2.6)/(2.7) of Bendtsen and Thomsen (1999) 2.2.2 with the z
// update (2.7d). AlgebraicUpdate::StateSpace instead solves 0 = g(y_{n+1}, z_{n+1}) (2.7e) for the
// algebraic components (zero rows and columns of M, index 1): the state-space form method of
// 2.2.1, of classical order in y and z also for tableaus that are not stiffly accurate.
// Tableaus with an explicit first stage (a_1j = 0, c_1 = 0: Lobatto IIIA) are taken with
// Y_1 = y_n and the remaining stages solved with the invertible lower-right block of A; they
// must be stiffly accurate (y_{n+1} = Y_s, the collocation form (2.10) at index 2).
// Paper 000's conditions for the projected index-3 method are enforced when the projection is
// on and the problem has index-3 components: (B1) A invertible, (B2) |R(inf)| < 1, (B3) order
// p >= q + 1 and stage order q >= 2 (from the order conditions, tableaus/analysis.hpp); a
// tableau that fails them is refused unless allow_unproven_tableau is set, which runs it with
// a warning in the report.
// Then, optionally, the projection of y_{n+1} onto the constraint manifold through the
// problem's projector ((2.7) / (2.8) for mechanical systems, (2.6) of paper 001 for index-2
// semi-explicit systems), done by the integrator's post-step hook. (2.6) leaves z as the step
// computed it; algebraic_after_projection = HiddenConstraint then recomputes z at index 2 from
// the hidden constraint 0 = g_t + g_y f(t, y, z) at the projected y (the notes' (3.11b),
// Hairer-Wanner II, p. 470; nonlinear/hidden_constraint.hpp), which gives z the order of y. There
// is no error estimate: the method runs with Options::fixed_step and serves convergence studies and
// methods that are not stiffly accurate (Radau IA, Gauss).
#pragma once

#include "daekit/core/types.hpp"
#include "daekit/tableaus/runge_kutta.hpp"

namespace daekit {

struct ProjectedRkOptions {
  static constexpr const char* method_name = "projected-rk";
  /// The tableau (A invertible, or an explicit first stage and stiffly accurate); default
  /// Radau IIA with 3 stages.
  RungeKuttaTableau tableau = radau_iia(3);
  /// How the algebraic components are updated at the end of a step (index 1, see above).
  enum class AlgebraicUpdate { EpsilonEmbedding, StateSpace };
  AlgebraicUpdate algebraic_update = AlgebraicUpdate::EpsilonEmbedding;
  /// Run the projected method at index 3 with a tableau that fails (B1)-(B3) of paper 000
  /// (Theorem 2.1 then does not apply; Result::warnings says which condition fails).
  bool allow_unproven_tableau = false;
  /// z after the projection of y (index 2): Keep (paper 001 (2.6)), or HiddenConstraint
  /// (recomputed from 0 = g_t + g_y f(t, y, z), the notes' (3.11b); needs a projection and a
  /// semi-explicit index-2 system).
  enum class AlgebraicAfterProjection { Keep, HiddenConstraint };
  AlgebraicAfterProjection algebraic_after_projection = AlgebraicAfterProjection::Keep;
  /// Same as Options::projection (kept for existing code).
  Projection projection = Projection::None;
  int max_newton_iterations = 50;
  /// Bound on the Newton increment in the norm scaled by (atol + rtol |y_i|) / |h|^(index_i - 1)
  double newton_tolerance = 1e-2;
  void validate() const;
};

}  // namespace daekit
