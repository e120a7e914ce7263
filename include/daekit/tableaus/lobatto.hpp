// The s-stage Lobatto families IIIA, IIIB, IIIC, IIIC*, IIID and the SPARK constraint matrix Q of
// 002_749bc8912438bec0.txt (Jay, SPARK methods for index-2 implicit DAEs), for any s >= 2,
// computed (not typed in) from their definitions:
//   nodes     c_1 = 0, c_s = 1 and the zeros of P'_{s-1}(2x - 1), weights b from B(s)
//             (Hairer-Wanner II, IV.5);
//   IIIA      collocation, C(s):           a_ij = int_0^{c_i} l_j,     l_j Lagrange on c_1..c_s;
//   IIIB      a_ij = b_j (1 - a^A_ji / b_i) (the IIIA-IIIB pair is symplectic);
//   IIIC      a_i1 = b_1 and C(s-1):       a_ij = int_0^{c_i} l^_j - b_1 l^_j(0), j >= 2,
//             l^_j Lagrange on c_2..c_s;
//   IIIC*     a_is = 0 and C(s-1):         a_ij = int_0^{c_i} l*_j,    l*_j on c_1..c_{s-1};
//   IIID      (IIIC + IIIC*) / 2.
// In paper 002 these are A_1 .. A_5 (M = 5), the matrices of the five parts f_1 .. f_5 of the
// right-hand side; they satisfy the assumptions (3.1a-e):
//   e_1^T A_1 = 0,  e_s^T A_1 = b^T,  A_1 A_m = (0^T; N) (m = 2..5, one N),  (N; b^T) invertible,
//   e_s^T A_3 = b^T,
// and with A_1 = (0^T; A~_1) the (s x (s+1)) matrix (3.4)
//   Q = (A~_1; e_s^T)^{-1} (A~_1 0; 0^T 1)
// satisfies (3.6): Q alpha_1 = A_1 and Q alpha_m = A_3 (m = 2..5), alpha_m = (A_m; b^T).
// The computation runs in long double: the identities hold to ~1e-15 for s <= 5.
#pragma once

#include <array>
#include <string>

#include "daekit/core/types.hpp"
#include "daekit/tableaus/runge_kutta.hpp"

namespace daekit {

/// The five Lobatto families in the order of paper 002 (A_1 .. A_5).
enum class LobattoFamily { IIIA = 0, IIIB = 1, IIIC = 2, IIICstar = 3, IIID = 4 };
constexpr int kLobattoFamilies = 5;
/// "IIIA", "IIIB", "IIIC", "IIIC*", "IIID".
const char* to_string(LobattoFamily family);

struct LobattoCoefficients {
  int s = 0;
  Vector c;                                ///< nodes, c_1 = 0, c_s = 1
  Vector b;                                ///< weights (order 2s - 2)
  std::array<Matrix, kLobattoFamilies> A;  ///< A[m] = A_{m+1} of paper 002: IIIA .. IIID
  Matrix Q;                                ///< s x (s+1), (3.4)
  /// Monomial coefficients of the Lagrange polynomials of the nodes: l_j(theta) =
  /// sum_k lagrange(j, k) theta^k (continuous extensions and dense output).
  Matrix lagrange;
  const Matrix& matrix(LobattoFamily f) const { return A[static_cast<int>(f)]; }
  /// alpha_m = (A_m; b^T), (s+1) x s (the rows of (4.2a) including y_1 as stage s+1).
  Matrix alpha(LobattoFamily f) const;
  /// The family as a Butcher tableau (orders of Hairer-Wanner II, IV.5: 2s-2 for all five;
  /// stage orders s, s-2, s-1, s-1, s-1).
  RungeKuttaTableau tableau(LobattoFamily f) const;
};

/// The s-stage coefficients, 2 <= s <= 9 (InvalidArgument otherwise).
LobattoCoefficients lobatto_coefficients(int s);

}  // namespace daekit
