// Elimination of a second-order block from iteration matrices (RADAU5's M1/M2 option,
// Hairer-Wanner II, IV.8, and their code radau5, subroutines DECOMR/DECOMC and SLVRAD).
//
// The first m1 equations of M y' = f read y_i' = y_{i+m2} (MassMatrixDae::second_order), so
// in E = s M - J (s = gamma/h, (alpha + i beta)/h, or the BDF's c_j) the rows of block
// k = 0..K-1 (K = m1/m2, block k = components k m2 .. (k+1) m2 - 1) are
//     s x_k - x_{k+1} = r_k,   with x_K the first m2 components of the rest x_w,
// hence x_k = (r_k + x_{k+1}) / s = c_k + x_w[0..m2) / s^(K-k), c_k = (r_k + c_{k+1}) / s,
// c_K = 0. Substituted into the remaining n - m1 rows, E_22 x_w + sum_k E_2k x_k = r_w gives
//     (E_22 + sum_k E_2k / s^(K-k) on the first m2 columns) x_w = r_w - sum_k E_2k c_k,
// a system of n - m1 unknowns; x_k follow by the recursion above. The factorisation costs
// (n - m1)^3 / 3 instead of n^3 / 3 (Andrews: 13 x 13 instead of 27 x 27). Only E(0, 0) = s and
// the rows m1.. of E are read (the first m1 rows of J are known: J(i, i + m2) = 1). Internal
// header (not installed).
#pragma once

#include <memory>

#include "linalg/linear_solver.hpp"

namespace daekit {

/// A LinearSolver for n x n dense E = s M - J with the second-order block (m1, m2) eliminated
/// (the reduced system on a dense LU of size n - m1). Assemble the whole E into matrix().
template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_second_order_solver(int n, int m1, int m2);

}  // namespace daekit
