// Butcher tableaus of the implicit Runge-Kutta families used by daekit, computed (not typed in)
// from their defining conditions, and the simplifying conditions used to check them
// (Bendtsen and Thomsen (1999), ch. 2, Butcher's theorem):
//   B(p):  sum_i b_i c_i^{k-1} = 1/k,                          k = 1..p
//   C(q):  sum_j a_ij c_j^{k-1} = c_i^k / k,                   k = 1..q, all i
//   D(r):  sum_i b_i c_i^{k-1} a_ij = b_j (1 - c_j^k) / k,     k = 1..r, all j
// Collocation methods (Gauss, Radau IIA, Lobatto IIIA) are defined by C(s); Radau IA by D(s).
// Radau IIA nodes are the zeros of P_s(2x-1) - P_{s-1}(2x-1) (c_s = 1), Radau IA nodes the
// zeros of P_s(2x-1) + P_{s-1}(2x-1) (c_1 = 0), Gauss nodes those of P_s(2x-1), Lobatto nodes
// 0, 1 and the zeros of P'_{s-1}(2x-1) (Hairer-Wanner II, IV.5); Lobatto IIIC has a_i1 = b_1
// and C(s-1). The published diagonally implicit and explicit tableaus (SDIRK4 of Hairer-Wanner,
// Kvaerno's ESDIRKs, Alexander's SDIRKs, DOPRI5, BS3, RK4) are typed in from their sources
// (published.cpp) and carry an embedded formula b_hat where one exists. For the transformed
// Newton iteration of implicit methods, A^{-1} is brought to real block-diagonal form
// T^{-1} A^{-1} T = diag(gamma_k, [alpha_k -beta_k; beta_k alpha_k]) (Hairer-Wanner II, IV.8).
// Their analysis (order conditions, stability) is in analysis.hpp.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "daekit/core/types.hpp"

namespace daekit {

struct RungeKuttaTableau {
  std::string name;
  Matrix A;
  Vector b;
  Vector c;
  int order = 0;        ///< classical order p
  int stage_order = 0;  ///< stage order q
  /// Weights of an embedded formula y^ = y_n + h sum_i b_hat_i k_i for error estimation
  /// (empty: none), and its order.
  Vector b_hat;
  int embedded_order = 0;
  /// A continuous extension (empty: none): y(t_n + theta h) = y_n + h sum_i b_i(theta) k_i with
  /// b_i(theta) = sum_k b_theta(i, k) theta^(k+1), b_i(1) = b_i; its order dense_order.
  Matrix b_theta;
  int dense_order = 0;
  /// Where the coefficients come from (paper, book and equation/table number).
  std::string reference;
  int stages() const { return static_cast<int>(b.size()); }
  bool has_embedded() const { return b_hat.size() == b.size() && b.size() > 0; }
  /// a_ij = 0 for j > i (DIRK, SDIRK, ESDIRK and explicit methods).
  bool lower_triangular() const;
  /// a_ij = 0 for j >= i.
  bool explicit_method() const;
};

RungeKuttaTableau radau_iia(int s);     ///< order 2s-1, stage order s, stiffly accurate
RungeKuttaTableau radau_ia(int s);      ///< order 2s-1, stage order s-1
RungeKuttaTableau gauss(int s);         ///< order 2s, stage order s
RungeKuttaTableau lobatto_iiia(int s);  ///< order 2s-2, stage order s (s >= 2)
/// Lobatto IIIC: Lobatto nodes and weights, a_i1 = b_1 and C(s-1) (Hairer-Wanner II, IV.5;
/// the reading notes on paper 002): order 2s-2, stage order s-1, stiffly accurate (s >= 2).
RungeKuttaTableau lobatto_iiic(int s);

// Published diagonally implicit and explicit tableaus (src/tableaus/published.cpp, each with
// its reference; tests/test_rk_tableaus.cpp checks them against their order conditions).
/// SDIRK, order 4, 5 stages, gamma = 1/4, stiffly accurate, L-stable, embedded order 3:
/// Hairer-Wanner II, IV.6, (6.16) (Table 6.5; the notes' "SDIRK IV(16)").
RungeKuttaTableau sdirk4_hw16();
/// SDIRK, order 4, 5 stages, gamma = 4/15, stiffly accurate, embedded order 3: Hairer-Wanner
/// II, IV.6, (6.18) (the notes' "SDIRK IV(18)").
RungeKuttaTableau sdirk4_hw18();
/// Kvaerno's ESDIRK 3(2), 4 stages, stage order 2, stiffly accurate advancing and estimating
/// methods, L-stable: A. Kvaerno, BIT 44 (2004) 489-502.
RungeKuttaTableau kvaerno_esdirk3();
/// Kvaerno's ESDIRK 4(3), 5 stages (same paper).
RungeKuttaTableau kvaerno_esdirk4();
/// Kvaerno's ESDIRK 5(4), 7 stages (same paper).
RungeKuttaTableau kvaerno_esdirk5();
/// Alexander's L-stable SDIRK of order 2 with 2 stages, gamma = 1 - 1/sqrt(2), and of order 3
/// with 3 stages, gamma the root near 0.4359 of x^3 - 3x^2 + 3x/2 - 1/6 (R. Alexander, SIAM J.
/// Numer. Anal. 14 (1977) 1006-1021; Hairer-Wanner II, IV.6, Table 6.4 / (6.13)). They come
/// without an embedded formula: b_hat is daekit's, from the quadrature conditions of order
/// p-1 on the first p nodes (said so in `reference`).
RungeKuttaTableau alexander_sdirk2();
RungeKuttaTableau alexander_sdirk3();
/// Dormand-Prince 5(4) (DOPRI5; Hairer-Norsett-Wanner I, II.5, Table 5.2).
RungeKuttaTableau dormand_prince5();
/// Bogacki-Shampine 3(2) (Appl. Math. Lett. 2 (1989) 321-325).
RungeKuttaTableau bogacki_shampine3();
/// The classical 4-stage explicit method of Kutta (1901), order 4, no embedded formula.
RungeKuttaTableau classical_rk4();
/// Explicit Euler, order 1.
RungeKuttaTableau explicit_euler();

/// The tableau called `name`: "radau-iia-S", "radau-ia-S", "gauss-S", "lobatto-iiia-S" or
/// "lobatto-iiic-S" with S the number of stages (1..9; Lobatto 2..9), e.g. "radau-ia-3" (the
/// names of the CLI's --tableau), or one of the published tableaus of tableau_names().
/// Throws InvalidArgument listing the valid forms for anything else.
RungeKuttaTableau tableau_by_name(const std::string& name);
/// The names tableau_by_name() knows: the families with their usual stage counts and every
/// published tableau (the CLI's `daekit tableau` list and docs/rk-theory.md's table).
std::vector<std::string> tableau_names();

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

/// Real block-diagonal form of A^{-1} for any invertible A whose eigenvalues are simple:
///   T^{-1} A^{-1} T = diag(gamma_1, ..., gamma_r, [alpha_1 -beta_1; beta_1 alpha_1], ...),
/// real eigenvalues first (ascending), then the complex pairs (beta_k > 0, ascending |.|).
/// Columns of T for real eigenvalues have unit norm and a positive last entry, a pair's
/// columns (Re v, -Im v) come from the eigenvector scaled to last entry 1 (RADAU5's
/// normalisation: with one real eigenvalue this is transform_inverse()). The transformed
/// simplified Newton iteration of an s-stage implicit method then solves r real and
/// (s - r)/2 complex n x n systems (Hairer-Wanner II, IV.8, generalised). Throws
/// InvalidArgument if A is singular or the eigenvector matrix is ill conditioned.
struct BlockDiagonalInverse {
  Vector gamma;  ///< real eigenvalues of A^{-1}
  Vector alpha;  ///< real parts of the complex eigenvalues
  Vector beta;   ///< imaginary parts (> 0)
  Matrix T;
  Matrix T_inverse;
  int real_blocks() const { return static_cast<int>(gamma.size()); }
  int complex_blocks() const { return static_cast<int>(alpha.size()); }
};
BlockDiagonalInverse block_diagonalise_inverse(const Matrix& A);

/// Error weights of the embedded formula of RADAU5 (Hairer-Wanner II, IV.8): the method
///   y^ = y_n + h (gamma0 f(t_n, y_n) + sum_i bh_i f(Y_i)),  gamma0 = 1 / gamma,
/// of order s (sum_i bh_i c_i^{k-1} + gamma0 [k = 1] = 1/k, k = 1..s) differs from y_{n+1} by
/// gamma0 (h f(t_n, y_n) + sum_j e_j Z_j) with e = gamma (bh - b)^T A^{-1} (because
/// h f(Y) = A^{-1} Z on the stage values Z_i = Y_i - y_n). For Radau IIA(3), e is RADAU5's
/// (DD1, DD2, DD3) = (-(13 + 7 sqrt6)/3, (-13 + 7 sqrt6)/3, -1/3).
Vector embedded_error_weights(const RungeKuttaTableau& t, double gamma);

}  // namespace daekit
