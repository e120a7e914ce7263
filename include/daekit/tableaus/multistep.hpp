// Coefficients of linear multistep methods and their root condition (NOTES-004.md ch. 4;
// 003_93cd61043aac115a.txt). BDF_k: rho_k = sum_{j=1..k} nabla^j / j, written as
//   sum_{i=0..k} alpha_i y_{n-i} = h f_n,
// e.g. k = 2: (3/2, -2, 1/2). Zero stability: the roots of rho(zeta) = sum_i alpha_i zeta^{k-i}
// lie in the closed unit disc and those on the circle are simple (BDF: k <= 6).
#pragma once

#include <complex>
#include <vector>

#include "daekit/core/types.hpp"

namespace daekit {

/// alpha_0 .. alpha_k of BDF_k (k >= 1).
Vector bdf_coefficients(int k);

/// Roots of rho(zeta) = sum_i alpha_i zeta^{k-i} (alpha_0 != 0).
std::vector<std::complex<double>> characteristic_roots(const Vector& alpha);

/// Root condition: |roots| <= 1, roots with |root| = 1 (to tol) simple.
bool zero_stable(const Vector& alpha, double tol = 1e-9);

}  // namespace daekit
