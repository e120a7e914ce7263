// Half-explicit Runge-Kutta tableaus for Hessenberg index-2 DAEs y' = f(t, y, z), 0 = g(t, y)
// (001_6d2dbb58aab0d43f.txt (2.7)-(2.8); Hairer-Lubich-Roche): explicit A (a_ij = 0 for j >= i),
// a_{i+1,i} != 0 and b_s != 0 (condition (B1') of paper 001), c_s = 1 so that lambda_{n+1} =
// Lambda_s (2.8). The published tableaus of
//   V. Brasey and E. Hairer, Half-explicit Runge-Kutta methods for differential-algebraic
//   systems of index 2, SIAM J. Numer. Anal. 30 (1993) 538-552:
//     Table 2: 3 stages, order 3 in y, c = (0, 1/3, 1), b = (0, 3/4, 1/4);
//     Table 5: 5 stages, order 4 in y (HEM4), c = (0, 3/10, (4 -+ sqrt6)/10, 1), b the Radau IIA
//              weights on the last three nodes.
// Their y orders (3 and 4) and z orders (2 and 3) are measured in tests/test_hem.cpp.
//
// Embedded weights (our design; the paper gives none for these tableaus): bh with the classical
// conditions of order p^ = p - 1 (sum bh = 1, sum bh c = 1/2, and for HEM4 sum bh c^2 = 1/3,
// sum bh A c = 1/6), the remaining freedom fixed by bh_1 (1/6 for the 3-stage method, 1/10 for
// HEM4). The difference h sum (b_j - bh_j) f_j is O(h^2) on index-2 problems because the
// internal multipliers Lambda_j are only O(h) accurate; its projection onto the tangent space,
// (I - f_z (g_y f_z)^{-1} g_y) h sum (b_j - bh_j) f_j, removes the f_z Lambda_j part and is
// O(h^{p^+1}) (measured: orders 3.0 and 3.9), which is what the method hem uses as its estimate.
#pragma once

#include <string>

#include "daekit/core/types.hpp"

namespace daekit {

struct HalfExplicitTableau {
  std::string name;
  Matrix A;  ///< strictly lower triangular, s x s
  Vector b;
  Vector c;
  Vector b_embedded;       ///< bh of the embedded formula (see above)
  int order = 0;           ///< order in y on index-2 problems
  int embedded_order = 0;  ///< p^ of the embedded formula
  int stages() const { return static_cast<int>(b.size()); }
};

/// Brasey-Hairer Table 2: 3 stages, order 3.
HalfExplicitTableau brasey_hairer_3();
/// Brasey-Hairer Table 5 (HEM4): 5 stages, order 4.
HalfExplicitTableau brasey_hairer_hem4();
/// "bh3" or "hem4"; InvalidArgument listing the names otherwise.
HalfExplicitTableau half_explicit_tableau(const std::string& name);

}  // namespace daekit
