// Linear multistep formulas and the tools to analyse them (Bendtsen and Thomsen (1999), ch. 4 and
// 5; 003_93cd61043aac115a.txt, "paper 003" below).
//
// Operators (paper 003, Section 1): with the backward difference nabla = 1 - E^{-1} a k-step
// formula is written with difference operators acting on the newest value,
//   rho x_n = sum_{i=0..k} rho_i x_{n-i},   sigma f_n = sum_{i=0..k} sigma_i f_{n-i},
// and applied to x' = f as  h^{-1} rho x_n = sigma f_n.  Every coefficient vector here is stored
// NEWEST FIRST (entry i multiplies the value i steps back), which is also the order of the
// coefficients of the polynomials rho(zeta) = sum_i rho_i zeta^{k-i}, sigma(zeta) likewise.
//   BDFk:   rho_k = sum_{j=1..k} nabla^j / j,  sigma = 1                      (order k)
//   DCBDFk: rho_k as BDFk, sigma_k = 1 - nabla^k / (k+1)   (paper 003 Section 3) (order k+1)
//   AMk:    rho = nabla, sigma = sum_{j=0..k} gamma*_j nabla^j with gamma*_0 = 1,
//           sum_{j=0..m} gamma*_j / (m+1-j) = 0 (m >= 1): the k-step Adams-Moulton formula
//           (order k+1; AM1 = DCBDF1 = the trapezoidal rule, notes (5.12)-(5.14)).
// Order and error constant from the Taylor coefficients of the local residual
//   C_0 = sum_i rho_i,  C_q = sum_i rho_i (-i)^q / q! - sum_i sigma_i (-i)^(q-1) / (q-1)!,
// order p: C_0 = ... = C_p = 0; error constant C_{p+1} / sigma(1) (paper 003 Table 3.1:
// AM -1/12, -1/24, -19/720, ...; DCBDF -1/12, -1/12, -3/40, -1/15, -5/84, -3/56).
// Root condition of a polynomial (zero stability of rho; for index-2 problems the STRICT root
// condition of sigma, or of sigma - tau with the beta-blocker tau = c nabla^q, paper 003
// Theorem 2.1 / notes Theorem 5.1). Stability regions by the boundary locus
// z(theta) = rho(e^{i theta}) / sigma(e^{i theta}) (paper 003 Fig. 3.1).
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "daekit/core/types.hpp"

namespace daekit {

/// alpha_0 .. alpha_k of BDF_k (k >= 1), newest first: sum_i alpha_i y_{n-i} = h f_n.
Vector bdf_coefficients(int k);

/// Roots of rho(zeta) = sum_i alpha_i zeta^{k-i} (alpha_0 != 0).
std::vector<std::complex<double>> characteristic_roots(const Vector& alpha);

/// Root condition: |roots| <= 1, roots with |root| = 1 (to tol) simple.
bool zero_stable(const Vector& alpha, double tol = 1e-9);

/// Coefficients of nabla^j, newest first: nabla^j y_n = sum_{i=0..j} (-1)^i C(j, i) y_{n-i}.
Vector backward_difference(int j);

/// A k-step formula h^{-1} rho x_n = sigma f_n (coefficients newest first, size k + 1).
struct LinearMultistepFormula {
  std::string name;  ///< "BDF3", "DCBDF3", "AM3"
  int k = 0;         ///< number of steps
  Vector rho;
  Vector sigma;
  int order = 0;                ///< p: C_0 = ... = C_p = 0
  double error_constant = 0.0;  ///< C_{p+1} / sigma(1)
};

/// Order p of (rho, sigma): the largest p with C_0 = ... = C_p = 0 (relative tolerance tol).
int formula_order(const Vector& rho, const Vector& sigma, double tol = 1e-10);
/// C_q of (rho, sigma) (see the header comment).
double taylor_coefficient(const Vector& rho, const Vector& sigma, int q);
/// A formula with its order and error constant computed from the coefficients.
LinearMultistepFormula make_formula(const std::string& name, const Vector& rho,
                                    const Vector& sigma);

LinearMultistepFormula bdf_formula(int k);            ///< k = 1..6
LinearMultistepFormula dcbdf_formula(int k);          ///< k = 1..6
LinearMultistepFormula adams_moulton_formula(int k);  ///< k = 1..12 (AM1 = trapezoidal rule)
/// gamma*_0 .. gamma*_m of the Adams-Moulton formulas (gamma*_{k+1} is AMk's error constant).
Vector adams_moulton_gammas(int m);

/// Roots of p(zeta) = sum_i c_i zeta^{deg - i} (newest-first coefficients, c_0 != 0).
std::vector<std::complex<double>> polynomial_roots(const Vector& c);
/// Largest |root| of p; +infinity when the leading coefficient c_0 vanishes (a root at
/// infinity: the corresponding scheme is not solvable for the newest value).
double max_root_modulus(const Vector& c);

struct RootConditionCheck {
  double max_modulus = 0.0;  ///< largest |root|
  bool holds = false;        ///< |roots| <= 1, those on the circle simple
  bool strict = false;       ///< |roots| < 1 (strict root condition)
};
/// The root condition of p (newest-first coefficients); `tol` decides |root| = 1.
RootConditionCheck root_condition(const Vector& c, double tol = 1e-9);

/// sigma - tau with the beta-blocker tau = c nabla^q (newest first; q <= size(sigma) - 1).
Vector blocked_sigma(const Vector& sigma, double c, int q);

/// The c in [c_low, c_high] minimising the largest |root| of sigma - c nabla^q (a grid of
/// `samples` points refined by golden-section search around the best one).
struct BlockingConstant {
  double c = 0.0;
  double max_modulus = 0.0;  ///< largest |root| of sigma - c nabla^q at that c
};
BlockingConstant best_blocking_constant(const Vector& sigma, int q, double c_low, double c_high,
                                        int samples = 4001);

/// The boundary locus z(theta) = rho(e^{i theta}) / sigma(e^{i theta}) at `points` equally
/// spaced theta in [0, 2 pi] (the first and last point coincide): the boundary of the region
/// of absolute stability of x' = lambda x, z = h lambda (paper 003 Fig. 3.1).
std::vector<std::complex<double>> boundary_locus(const LinearMultistepFormula& f, int points);
/// True if every root of rho(zeta) - z sigma(zeta) has modulus < 1 (z inside the region of
/// absolute stability).
bool absolutely_stable(const LinearMultistepFormula& f, std::complex<double> z);

/// Milne's device for BDFk with the predictor that extrapolates the polynomial through
/// y_n, ..., y_{n-k} (y^P_{n+1} = y_{n+1} - nabla^(k+1) y_{n+1}): the corrector's local error is
/// C / (C - C^P) (y^C - y^P), C the corrector's error constant in y (C_{k+1} / rho_0), C^P the
/// predictor's (C_{k+1} of nabla^(k+1), = 1). The notes' ch. 10 (DNA): 1/3, 2/11, 3/25, 12/137
/// for k = 1..4, = beta_k / (beta_k + k + 1).
double bdf_milne_factor(int k);

/// The angle alpha (radians) of A(alpha)-stability: the largest alpha such that the wedge
/// |arg(-z)| < alpha lies in the region of absolute stability (the notes' Fig. 4.1; BDF3..6:
/// 86.03, 73.35, 51.84, 17.84 degrees). Computed as the
/// smallest |arg(-z)| over the boundary-locus points with Re z < 0 (a grid of `points` values
/// of theta, refined by golden-section search around the smallest); pi/2 when no such point
/// exists (A-stable), 0 when the negative real axis is not in the region (sampled at
/// z = -10^j, j = -3..6: explicit formulas, Milne's method).
double stability_angle(const LinearMultistepFormula& f, int points = 20001);

}  // namespace daekit
