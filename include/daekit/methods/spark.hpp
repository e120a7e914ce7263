// SPARK methods with the s-stage Lobatto IIIA-B-C-C*-D coefficients for index-2 implicit DAEs
// (a(t, y))' = f_1(t, y) + f_2 + .. + f_5(t, y, z), 0 = g(t, y)
// (002_749bc8912438bec0.txt, Jay; problem/implicit_index2_dae.hpp). Registered as "spark".
//
// One step from (t0, y0) with step h, T_i = t0 + c_i h, t1 = t0 + h, Definition 3.1 / (3.7):
//   0 = a(T_i, Y_i) - a(t0, y0) - h sum_j sum_k a_{ij,k} f_k(T_j, Y_j, Z_j),   i = 1..s  (3.7a)
//   0 = a(t1, y1)  - a(t0, y0) - h sum_j b_j f(T_j, Y_j, Z_j)                         (3.7b)
//   0 = sum_j q_ij g(T_j, Y_j) + q_{i,s+1} g(t1, y1),                         i = 1..s  (3.7c)
// with A_1..A_5 = Lobatto IIIA, IIIB, IIIC, IIIC*, IIID and Q of (3.4)
// (tableaus/lobatto.hpp); z1 := Z_s (Remark 3.1). The last row of Q is (0, .., 0, 1): g(t1, y1)
// = 0 holds to the Newton tolerance at every step. Order 2s - 2 in y on variable grids
// (Corollary 4.6); z has stage accuracy (measured: order s - 1). With f_3 = f_4 = 0 the method
// is symmetric (Theorem 3.1): a step h followed by -h returns to y0.
//
// Newton: simplified Newton on the (s+1) n + s m unknowns (Y_1..Y_s, y1, Z_1..Z_s) with the
// matrix of (3.7) at (t0, y0, z0) (a_y, d f_k / dy, d f_k / dz, g_y frozen there; the rows of
// (3.7c) divided by h, as in the proof of Theorem 4.1, so that the matrix stays well
// conditioned as h -> 0), dense LU through linalg's LinearSolver, NewtonMonitor's rate estimate
// on the increments scaled by the integrator's error weights (z by w / |h|, its index 2).
// Starting values: the continuous extension of the last step solved, extrapolated, or (y0, z0).
// The contraction rate of this simplified Newton is O(h) (the constraint rows are divided by h,
// so the change of g_y over the step enters at O(1)), hence the default of 20 iterations.
//
// Error estimate (our design; the Lobatto stages admit no embedded formula of order above s - 1,
// far below 2s - 2): step doubling. An attempt of size h takes two SPARK steps of h/2 (their
// result is the solution) and one step of size h from the same point; by Richardson, the local
// error of the two half steps is
//   err = (y_{h/2,h/2} - y_h) / (2^p - 1),   p = 2s - 2,
// measured in the integrator's weights on the y components (z is left out of the error test by
// default: it does not propagate, Remark 3.1; error_order = p + 1, the local order of y). The
// cost is three SPARK solves per step (1.5 per half step); the step of size h starts Newton from
// the half steps' output. Under Options::fixed_step one plain SPARK step of size h is taken
// (convergence studies see the method itself).
//
// Dense output: with step doubling, from the second step on, the polynomial through the five
// solution values at t_{n-1}, t_{n-1/2}, t_n, t_{n+1/2}, t_{n+1} (each of order 2s - 2;
// interpolation error O(h^5); z through its values Z_s of the half steps, continuous). On the
// first step (and under fixed_step) the IIIA continuous extension
//   a(t0 + theta h, y) = a(t0, y0) + h sum_j beta_j(theta) f(T_j, Y_j, Z_j),
// beta_j(theta) = int_0^theta l_j (for a(t, y) = y a polynomial of degree s; a nonlinear a is
// inverted by Newton), z by the Lagrange polynomial through (c_j, Z_j), interpolated at s + 1
// or 2s + 1 equally spaced points; its order is only s (the stage derivatives carry z's
// O(h^(s-1)) error). Measured on (5.1) at rtol 1e-9: 1.1e-8 between the steps (2.3e-6 with the
// extension alone); events on the knife edge located to 3e-8 (tests/test_spark.cpp).
// After an event restart y is projected onto g = 0 along a_y^{-1} f_z and z made consistent.
//
// Input: an ImplicitIndex2Dae, or a MassMatrixDae of Hessenberg structure (zero rows of M =
// constraints not depending on the zero columns z; the rest of M constant and invertible:
// a(t, y) = M_yy y), whose f is put into part `mass_form_part`. Bad input: g_y a_y^{-1} f_z
// singular at t0, or f_1 depending on z, ends the solve with Status::InvalidInput; initial
// values violating g = 0 or the hidden constraint (2.1b) with Status::InconsistentInitialValues.
#pragma once

namespace daekit {

struct SparkOptions {
  static constexpr const char* method_name = "spark";
  /// Number of Lobatto stages s >= 2 (order 2s - 2 in y); 2..9.
  int stages = 3;
  /// For a MassMatrixDae: the family (paper's part number 2..5: IIIB, IIIC, IIIC*, IIID) that
  /// integrates its f. Default 3: Lobatto IIIC (stiffly accurate, L-stable).
  int mass_form_part = 3;
  int max_newton_iterations = 20;
  /// Bound on theta/(1-theta) |dx| in the weighted norm; 0 = automatic: max(10 eps / rtol,
  /// 0.003). (The Richardson difference of the 2-stage method, p = 2, is sensitive to Newton
  /// errors: 0.03 tripled its steps on the pendulum at rtol 1e-8; 0.003 costs 10% more
  /// evaluations than 0.03 for s = 3.)
  double newton_tolerance = 0.0;
  /// Keep the Jacobians for the next step when Newton's contraction rate stayed below this.
  double jacobian_reuse_rate = 0.01;
  void validate() const;
};

}  // namespace daekit
