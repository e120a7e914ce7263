// Analysis of a Runge-Kutta tableau (A, b, c): the properties Bendtsen and Thomsen (1999), ch. 2
// and 6 use to choose a method for a DAE.
//
// Order (Butcher; Hairer-Norsett-Wanner I, II.2): the method has order p iff
//     b^T Phi(t) = 1 / gamma(t)   for every rooted tree t with |t| <= p,
// Phi(t)_i = prod over the subtrees t_k of the root of (A Phi(t_k))_i (Phi(.) = 1 for the single
// node), gamma(t) = |t| prod gamma(t_k). Trees are enumerated up to a bound (default 12: 7813
// trees); above it the order comes from Butcher's theorem (notes Theorem 2.1, in the form of
// Hairer-Wanner I, II.7, Thm 7.4): B(p), C(eta), D(zeta) with p <= eta + zeta + 1 and
// p <= 2 eta + 2 give order p, and B(p) is necessary.
// Simplifying conditions B, C, D (notes (2.2)); stage order q = min(B, C) (notes 2.1.3);
// stiff accuracy b_i = a_si.
// Linear stability (notes 6.1): R(z) = 1 + z b^T (I - zA)^{-1} 1 = P(z) / Q(z) with
//     Q(z) = det(I - zA),  P(z) = det(I - zA + z 1 b^T)
// (coefficients from the characteristic polynomials, exact for singular A too), R(inf) the
// ratio of the coefficients of z^s; A-stability from the E-polynomial
//     E(y) = |Q(iy)|^2 - |P(iy)|^2 >= 0 for all real y, and no poles in Re z < 0
// (Hairer-Wanner II, IV.3, Prop. 3.8), also sampled on the imaginary axis and in the left half
// plane; L-stability: A-stable and R(inf) = 0.
// Algebraic stability (notes (6.11), (6.13); Def. 6.5): B = diag(b),
//     M = B A + A^T B - b b^T,  m_ij = b_i a_ij + b_j a_ji - b_i b_j,
// algebraically stable iff b_i >= 0 and M is positive semidefinite; then B- and BN-stable
// (Theorems 6.2, 6.3). AN-stability (Def. 6.1): |R(Z)| <= 1 with
//     R(Z) = 1 + b^T Z (I - A Z)^{-1} 1,  Z = diag(z_i), Re z_i <= 0 (z_i = z_j where c_i = c_j),
// checked along the directions of the proof of Theorem 6.1 (a negative b_i, an eigenvector of
// M with a negative eigenvalue) and on random samples. B- and BN-stability (Defs. 6.4, 6.6)
// checked by taking steps of the method on contractive test problems, y' = -y^3 (autonomous,
// one-sided Lipschitz constant 0) and y' = q(t) y with Re q <= 0 (q through the worst Z found
// for AN-stability), measuring max |y_1 - z_1| / |y_0 - z_0|.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "daekit/core/types.hpp"
#include "daekit/tableaus/runge_kutta.hpp"

namespace daekit {

/// Number of rooted trees of each order 1..n (1, 1, 2, 4, 9, 20, 48, 115, ...).
std::vector<long> rooted_tree_counts(int n);

/// The order conditions up to `max_order`: residuals max over the trees of each order of
/// |gamma(t) b^T Phi(t) - 1| (relative), and the order they prove.
struct OrderConditions {
  int checked_up_to = 0;         ///< trees enumerated up to this order
  int order_by_trees = 0;        ///< largest p <= checked_up_to with all conditions met
  std::vector<double> residual;  ///< residual[k-1]: max relative residual over |t| = k
  std::vector<long> trees;       ///< trees[k-1]: number of trees of order k
};
OrderConditions order_conditions(const RungeKuttaTableau& t, int max_order = 12, double tol = 1e-9);

/// The classical order: by the trees up to `max_tree_order`, beyond that by Butcher's theorem
/// bounded above by B(p) (see the header comment). `exact` is false when the two bounds
/// differ (order at least `order`).
struct OrderResult {
  int order = 0;
  bool exact = true;
  int by_trees = 0;
  int by_simplifying = 0;
};
OrderResult classical_order(const RungeKuttaTableau& t, int max_tree_order = 12);

/// R(z) = P(z) / Q(z): coefficients of P and Q in ascending powers of z.
struct StabilityPolynomials {
  Vector P, Q;
  std::complex<double> operator()(std::complex<double> z) const;
};
StabilityPolynomials stability_polynomials(const RungeKuttaTableau& t);
/// lim R(z) for z -> infinity (inf when deg P > deg Q), also for singular A (ESDIRK, ERK).
double r_infinity(const RungeKuttaTableau& t);
/// E(y) = |Q(iy)|^2 - |P(iy)|^2 as a polynomial in x = y^2 (ascending coefficients).
Vector e_polynomial(const StabilityPolynomials& R);

struct LinearStability {
  double r_inf = 0.0;
  bool a_stable_e = false;        ///< by the E-polynomial and the poles
  double e_min = 0.0;             ///< min over x >= 0 of E(x) / (1 + x^deg) (scaled)
  bool poles_right = false;       ///< all poles of R in Re z > 0 (or none)
  bool a_stable_sampled = false;  ///< max |R| <= 1 on the samples
  double max_abs_r_sampled = 0.0;
  bool l_stable = false;
};
LinearStability linear_stability(const RungeKuttaTableau& t);

/// M = B A + A^T B - b b^T (notes (6.11)).
Matrix algebraic_stability_matrix(const RungeKuttaTableau& t);
/// Its eigenvalues, ascending.
Vector algebraic_stability_eigenvalues(const RungeKuttaTableau& t);
/// b_i >= -tol and the eigenvalues of M >= -tol (scaled by max |m_ij|).
bool algebraically_stable(const RungeKuttaTableau& t, double tol = 1e-12);

/// R(Z) = 1 + b^T Z (I - A Z)^{-1} 1 for Z = diag(z) (notes (6.10)); NaN if I - AZ is
/// singular.
std::complex<double> stability_function_z(const RungeKuttaTableau& t, const Eigen::VectorXcd& z);

struct AnStability {
  bool an_stable = false;    ///< no sample with |R(Z)| > 1 + 1e-12 and algebraically stable
  double max_abs_r = 0.0;    ///< largest |R(Z)| found
  Eigen::VectorXcd worst_z;  ///< the Z = diag(z) where it was found
  std::string how;           ///< which search found it
};
/// Searches Re z_i <= 0 (z_i = z_j where c_i = c_j): the directions of the proof of
/// Theorem 6.1 and `samples` random points (deterministic seed).
AnStability an_stability(const RungeKuttaTableau& t, int samples = 4000);

struct Contractivity {
  double max_ratio = 0.0;  ///< max |y_1 - z_1| / |y_0 - z_0| over the trials
  double h = 0.0;          ///< step size of the worst trial
  double y0 = 0.0, z0 = 0.0;
  int trials = 0;    ///< steps whose stage equations were solved
  int unsolved = 0;  ///< trials where Newton did not converge (left out)
  bool contractive(double tol = 1e-10) const { return max_ratio <= 1.0 + tol; }
};
/// One step of the method on y' = -y^3 from pairs (y0, z0) and step sizes h over a grid.
Contractivity b_stability_check(const RungeKuttaTableau& t);
/// One step on the non-autonomous linear y' = q(t) y (as a real 2 x 2 system), Re q <= 0,
/// q piecewise linear through z_i / h at t_n + c_i h for the worst Z of an_stability().
Contractivity bn_stability_check(const RungeKuttaTableau& t);

/// Everything above for one tableau, and a text report (the `daekit tableau NAME` output).
struct TableauAnalysis {
  RungeKuttaTableau tableau;
  OrderResult order;
  OrderConditions conditions;
  int B = 0, C = 0, D = 0, stage_order = 0;
  bool stiffly_accurate = false;
  bool explicit_method = false, diagonally_implicit = false, singly_diagonal = false;
  bool explicit_first_stage = false;
  bool invertible_A = false;
  int embedded_order = -1;  ///< order of b_hat by the trees (-1: none)
  StabilityPolynomials R;
  LinearStability linear;
  Matrix M;
  Vector M_eigenvalues;
  bool algebraically_stable = false;
  AnStability an;
  Contractivity b_check, bn_check;
  std::string report() const;
};
TableauAnalysis analyse_tableau(const RungeKuttaTableau& t);

}  // namespace daekit
