// Null spaces of small dense matrices (column-pivoted QR, see dense_kernels.cpp), compiled in
// one translation unit: the initialization and the BDF's algebraic error filter call it instead
// of instantiating decompositions of their own; and the connected blocks of a sparse matrix,
// so that they apply it block by block. Internal header (not installed).
#pragma once

#include <vector>

#include "daekit/core/sparsity.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

/// Orthonormal bases N of ker A and L of ker A^T (A square, n x n), the numerical rank decided
/// by the diagonal of the pivoted R against rel_tol |R_11|. Returns dim ker A (N: n x m).
int null_spaces(const Matrix& A, double rel_tol, Matrix& N, Matrix& L);

/// The connected blocks of a square sparse matrix A: the components of the graph of A + A^T
/// (entries stored in A count, zero or not), indices ascending within a block, blocks in the
/// order of their smallest index. A is block diagonal after the symmetric permutation that
/// lists them one after the other, so that null spaces, least-squares solutions and
/// projectors of A are those of its blocks: O(nnz + sum s_c^3) instead of O(n^3).
std::vector<std::vector<int>> connected_blocks(const SparseMatrix& A);

/// A(block, block) as a dense matrix (block ascending).
Matrix dense_block(const SparseMatrix& A, const std::vector<int>& block);

}  // namespace daekit
