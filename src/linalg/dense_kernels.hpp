// Null spaces of small dense matrices (column-pivoted QR, see dense_kernels.cpp), compiled in
// one translation unit: the initialization and the BDF's algebraic error filter call it instead
// of instantiating decompositions of their own. Internal header (not installed).
#pragma once

#include "daekit/core/types.hpp"

namespace daekit {

/// Orthonormal bases N of ker A and L of ker A^T (A square, n x n), the numerical rank decided
/// by the diagonal of the pivoted R against rel_tol |R_11|. Returns dim ker A (N: n x m).
int null_spaces(const Matrix& A, double rel_tol, Matrix& N, Matrix& L);

}  // namespace daekit
