// Linear multistep methods for index-2 Euler-Lagrange DAEs with beta-blocking
// (003_93cd61043aac115a.txt, "paper 003"; Bendtsen and Thomsen (1999), ch. 5 /
// 004_cf00f948f14222cf.txt ch. 5, "notes"). Registered as "beta-multistep"; the options below
// choose the scheme.
//
// Problem (paper 003 (1.1), notes (5.1)): M x' = f(t, x) - B(t, x)^T lambda, 0 = g(t, x), as a
// MassMatrixDae with M = diag(M_xx, 0) (to_mass_matrix_form(EulerLagrangeDae), or any mass-matrix
// DAE of that structure: constraints in the zero rows, multipliers in the zero columns, the
// right-hand side affine in lambda -- checked at t0). Paper 003 has M_xx = I, B = G = dg/dx.
//
// A k-step formula (rho, sigma) (tableaus/multistep.hpp: BDFk, DCBDFk, AMk; coefficients
// newest first) and the blocker tau = c nabla^k (coefficients gamma_i) give, with
// f_{n-i} = f(t_{n-i}, x_{n-i}) and B_{n-i} = B(t_{n-i}, x_{n-i}):
//   Standard     (1.2), notes (5.6)/(5.10):  h^{-1} rho x_n = sigma (f - B^T lambda)_n
//   BetaBlocked  (2.4), (3.3), notes (5.7)/(5.9)/(5.15):
//                h^{-1} rho x_n = sigma (f - B^T lambda)_n + B_n^T tau lambda_n
//   Compound     (3.2), notes (5.11):        h^{-1} rho x_n = sigma f_n - B_n^T lambda_n
//   Commuted     (2.6) (Remark 2.1):         h^{-1} rho x_n = sigma (f - B^T lambda)_n
//                                                               + tau (B^T lambda)_n
// always with 0 = g(t_n, x_n). All four are one residual
//   h^{-1} M rho x_n = a_0 f_n - B_n^T sum_i w_i lambda_{n-i}
//                      + sum_{i>=1} (a_i f_{n-i} - b_i B_{n-i}^T lambda_{n-i}),
// a = sigma; Standard: w = (sigma_0, 0, ..), b_i = sigma_i; BetaBlocked: w = sigma - tau... on the
// newest B (w_0 = sigma_0 - gamma_0, w_i = -gamma_i), b_i = sigma_i; Compound: w = (1, 0, ..),
// b = 0; Commuted: w = (sigma_0 - gamma_0, 0, ..), b_i = sigma_i - gamma_i. Since the right-hand
// side is affine in lambda, a_0 f_n - B_n^T mu = a_0 F_D(t_n, x_n, mu / a_0): one evaluation of
// the problem per Newton iteration; f_{n-i} and F_D(t_{n-i}, x_{n-i}, lambda_{n-i}) are kept.
// Schemes and their claims (paper 003 Theorem 2.1, Sections 3-4; notes Theorem 5.1):
//   beta-DCBDFk: tau = -nabla^k / (k+1), sigma_k - tau = 1 (3.3): x order k+1, lambda order k;
//   beta-AMk (k <= 3): tau = c nabla^k, c = -1/2, -0.15, -0.1: x order k+1, lambda order k; no c
//     makes sigma - c nabla^k strictly stable for k >= 4 (refused: the options search c);
//   a blocker of lower order, tau = c nabla^q with q < k (blocker_order, Remark 2.2): x order
//     min(p, q+1), lambda order min(p, q) (this blocks AM4 with q = 3, Section 2);
//   BDFk (sigma = 1): order k, tau irrelevant (c = 0);
//   Compound DCBDF/BDF (3.2) = notes (5.11) (stable) and Commuted (2.6): order k in all
//     variables; Standard with DCBDFk (k >= 2) or AMk = notes (5.10): sigma violates the strict
//     root condition, lambda errors grow like |root|^n (the solve reports a caveat);
//   the blocked trapezoidal rule, notes (5.12)-(5.15), is DCBDF1 = AM1 with tau = -nabla/2
//     (the notes print tau = nabla/2; the sign follows from their correction term
//     -f_lambda nabla lambda_n / 2).
//
// Starting values (Theorem 2.1 needs x_i to O(h^p), lambda_i to O(h^k), i < k): the first k-1
// steps are taken by Radau IIA with s = max(3, k+1) stages ("projected-rk" from the registry,
// `start_substeps` substeps per step, x local error O(h^{2s})), and every multiplier is then
// recomputed from the hidden constraint (consistent multipliers, nonlinear/euler_lagrange.hpp),
// which makes it as accurate as x. lambda(t0) is likewise recomputed (the given one is checked).
//
// Step size. Constant steps (Options::fixed_step) are what the theory covers. Without
// fixed_step the method varies h by interpolating its history onto the new equidistant grid
// (polynomial through the last k+2 points: x to O(h^{k+2}), lambda and the kept f values to the
// same order), and changes h only after k+1 constant steps (so that every constant-step
// segment is long enough for the lambda errors to be damped by sigma - tau, whose roots are 0
// for beta-DCBDF) and only by factors outside [0.9, 1.2] (at most 2). Error estimate (Milne's
// device on the differential variables): |C_{p+1} / rho_0| h^{p+1} (p+1)! [t_{n+1}, ...,
// t_{n-p}] y, the divided difference over the accepted points themselves (for constant steps
// |C_{p+1} / rho_0| |nabla^{p+1} y_{n+1}|; the interpolated history of a step change would keep
// the old step's error level in the high difference), p the x order of the scheme; for
// Compound and Commuted (order k, dominated by the multiplier term) a BDF-like
// |nabla^{k+1} x| / (k+1), a heuristic. The multipliers (index 2) leave the error test by
// default, as for the BDF. The starting steps, and the steps until p+1 accepted points exist,
// are not error controlled (keep h0 small). Newton's weights are floored at 1e-12 relative.
// Newton: simplified, with the shared NewtonMonitor and a dense LU of the iteration matrix
//   [ M_xx - h a_0/rho_0 f_x ,  h w_0/rho_0 B^T ;  G , 0 ]  (J by the system's source, kept
// while Newton contracts fast and h is unchanged).
#pragma once

#include <functional>
#include <limits>
#include <string>

#include "daekit/core/types.hpp"
#include "daekit/tableaus/multistep.hpp"

namespace daekit {

enum class MultistepFamily { BDF, DCBDF, AdamsMoulton };
enum class MultiplierScheme { Standard, BetaBlocked, Compound, Commuted };
const char* to_string(MultistepFamily f);
const char* to_string(MultiplierScheme s);

struct BetaMultistepOptions {
  static constexpr const char* method_name = "beta-multistep";
  MultistepFamily family = MultistepFamily::DCBDF;
  int k = 3;  ///< steps: BDF and DCBDF 1..6, Adams-Moulton 1..12
  MultiplierScheme scheme = MultiplierScheme::BetaBlocked;
  /// Blocking constant c of tau = c nabla^k; NaN: DCBDF -1/(k+1), AM1..3 -1/2, -0.15, -0.1
  /// (paper 003), AMk (k >= 4) the best c found by search (refused: none stabilises), BDF 0.
  double c = std::numeric_limits<double>::quiet_NaN();
  /// Order q of the blocker tau = c nabla^q (paper 003 Remark 2.2), 0..k; 0 means q = k
  /// (Theorem 2.1). With q < k the orders drop to min(p, q + 1) in x and min(p, q) in lambda (p
  /// the order of (rho, sigma)), and the default c is the one that minimises the largest root
  /// of sigma - c nabla^q (search over [-10, 10]): this stabilises AM4, which no c nabla^4 does.
  int blocker_order = 0;
  /// Radau IIA stages of the starting procedure (0: max(3, k+1)) and substeps per step.
  int start_stages = 0;
  int start_substeps = 2;
  int max_newton_iterations = 10;
  /// Newton tolerance on theta / (1 - theta) |dy| (weighted: atol + rtol |y|, multipliers by
  /// 1/|h|); iterations that stagnate within the weights at round-off level are accepted.
  double newton_tolerance = 1e-2;
  /// Tests and studies: the starting values y(t0 + i h) (x and lambda) from this function
  /// instead of the Radau IIA starting procedure.
  std::function<Vector(double t)> exact_start;

  /// Throws InvalidArgument for k out of range, a blocker that does not make sigma - tau
  /// strictly stable (beta-blocked or commuted schemes), or an explicit formula.
  void validate() const;
  /// The formula (rho, sigma) chosen by family and k.
  LinearMultistepFormula formula() const;
  /// The blocking constant in effect (resolving NaN as above; 0 for schemes without tau).
  double blocking_constant() const;
  /// The blocker's order q in effect: blocker_order, or k when it is 0.
  int tau_order() const;
  /// Order in x the theory gives (paper 003 Theorem 2.1, Remark 2.1, Section 3).
  int x_order() const;
  /// e.g. "beta-DCBDF3", "beta-AM2 (c = -0.15)", "DCBDF2 standard (1.2)".
  std::string scheme_name() const;

  /// beta-blocked DCBDFk (3.3), k = 1..6.
  static BetaMultistepOptions dcbdf_beta(int k);
  /// beta-blocked AMk with tau = c nabla^k (default c as above).
  static BetaMultistepOptions am_beta(int k, double c = std::numeric_limits<double>::quiet_NaN());
  /// Plain BDFk (sigma = 1, so every scheme coincides).
  static BetaMultistepOptions bdf(int k);
  /// Notes (5.12)-(5.15): the trapezoidal rule with tau = -nabla / 2 (= DCBDF1 = AM1).
  static BetaMultistepOptions trapezoid_blocked();
  /// The standard discretisation (1.2) / notes (5.6), (5.10) with the given formula.
  static BetaMultistepOptions standard(MultistepFamily family, int k);
  /// The DCBDF/BDF compound (3.2) / notes (5.11).
  static BetaMultistepOptions compound(int k);
  /// The commuted variant (2.6) of Remark 2.1 with the default blocker of the family.
  static BetaMultistepOptions commuted(MultistepFamily family, int k);
};

}  // namespace daekit
