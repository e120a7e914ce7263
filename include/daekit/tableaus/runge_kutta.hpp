// Butcher tableaus of the implicit Runge-Kutta families used by daekit, computed (not typed in)
// from their defining conditions, and the simplifying conditions used to check them
// (NOTES-004.md ch. 2, Butcher's theorem):
//   B(p):  sum_i b_i c_i^{k-1} = 1/k,                          k = 1..p
//   C(q):  sum_j a_ij c_j^{k-1} = c_i^k / k,                   k = 1..q, all i
//   D(r):  sum_i b_i c_i^{k-1} a_ij = b_j (1 - c_j^k) / k,     k = 1..r, all j
// Collocation methods (Gauss, Radau IIA, Lobatto IIIA) are defined by C(s); Radau IA by D(s).
// Radau IIA nodes are the zeros of P_s(2x-1) - P_{s-1}(2x-1) (c_s = 1), Radau IA nodes the
// zeros of P_s(2x-1) + P_{s-1}(2x-1) (c_1 = 0), Gauss nodes those of P_s(2x-1), Lobatto nodes
// 0, 1 and the zeros of P'_{s-1}(2x-1) (Hairer-Wanner II, IV.5).
#pragma once

#include <complex>
#include <string>

#include "daekit/core/types.hpp"

namespace daekit {

struct RungeKuttaTableau {
  std::string name;
  Matrix A;
  Vector b;
  Vector c;
  int order = 0;        ///< classical order p
  int stage_order = 0;  ///< stage order q
  int stages() const { return static_cast<int>(b.size()); }
};

RungeKuttaTableau radau_iia(int s);     ///< order 2s-1, stage order s, stiffly accurate
RungeKuttaTableau radau_ia(int s);      ///< order 2s-1, stage order s-1
RungeKuttaTableau gauss(int s);         ///< order 2s, stage order s
RungeKuttaTableau lobatto_iiia(int s);  ///< order 2s-2, stage order s (s >= 2)

/// The tableau called `name`: "radau-iia-S", "radau-ia-S", "gauss-S" or "lobatto-iiia-S" with S
/// the number of stages (1..9; Lobatto 2..9), e.g. "radau-ia-3" (the names of the CLI's
/// --tableau). Throws InvalidArgument listing the valid forms for anything else.
RungeKuttaTableau tableau_by_name(const std::string& name);

/// Largest p <= max_p with B(p) (resp. C, D) satisfied to `tol`.
int simplifying_B(const RungeKuttaTableau& t, int max_p = 20, double tol = 1e-12);
int simplifying_C(const RungeKuttaTableau& t, int max_q = 20, double tol = 1e-12);
int simplifying_D(const RungeKuttaTableau& t, int max_r = 20, double tol = 1e-12);

/// Stability function at infinity R(inf) = 1 - b^T A^{-1} 1 (requires A invertible).
double stability_at_infinity(const RungeKuttaTableau& t);
/// Stability function R(z) = 1 + z b^T (I - z A)^{-1} 1 at complex z.
std::complex<double> stability_function(const RungeKuttaTableau& t, std::complex<double> z);

/// Real block-diagonal form of A^{-1} for an odd number of stages with one real and (s-1)/2
/// complex-conjugate eigenvalue pairs (Radau IIA):
///   T^{-1} A^{-1} T = diag(gamma, [alpha_1 -beta_1; beta_1 alpha_1], ...),
/// the transformation of the stage system used by RADAU5 (Hairer-Wanner II, IV.8). T is
/// normalised like RADAU5's: last row (1, 1, 0, 1, 0, ...).
struct TransformedTableau {
  double gamma = 0;  ///< real eigenvalue of A^{-1}
  Vector alpha;      ///< real parts of the complex eigenvalues (beta > 0)
  Vector beta;       ///< imaginary parts
  Matrix T;
  Matrix T_inverse;
};
TransformedTableau transform_inverse(const RungeKuttaTableau& t);

/// Error weights of the embedded formula of RADAU5 (Hairer-Wanner II, IV.8): the method
///   y^ = y_n + h (gamma0 f(t_n, y_n) + sum_i bh_i f(Y_i)),  gamma0 = 1 / gamma,
/// of order s (sum_i bh_i c_i^{k-1} + gamma0 [k = 1] = 1/k, k = 1..s) differs from y_{n+1} by
/// gamma0 (h f(t_n, y_n) + sum_j e_j Z_j) with e = gamma (bh - b)^T A^{-1} (because
/// h f(Y) = A^{-1} Z on the stage values Z_i = Y_i - y_n). For Radau IIA(3), e is RADAU5's
/// (DD1, DD2, DD3) = (-(13 + 7 sqrt6)/3, (-13 + 7 sqrt6)/3, -1/3).
Vector embedded_error_weights(const RungeKuttaTableau& t, double gamma);

}  // namespace daekit
