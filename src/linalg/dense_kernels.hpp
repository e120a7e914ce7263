// Null spaces of small dense matrices by the singular value decomposition (Eigen's BDCSVD:
// Jacobi on small matrices, divide and conquer on larger ones), compiled in one translation
// unit: the initialization and the BDF's algebraic error filter call it instead of
// instantiating decompositions of their own. Internal header (not installed).
#pragma once

#include "daekit/core/types.hpp"

namespace daekit {

/// Orthonormal bases N of ker A and L of ker A^T (A square, n x n): the right and left
/// singular vectors of the singular values at or below rel_tol * sigma_max. Returns their
/// number m (N, L: n x m).
int null_spaces(const Matrix& A, double rel_tol, Matrix& N, Matrix& L);

}  // namespace daekit
