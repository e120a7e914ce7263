// Spectral decompositions of small dense matrices, compiled once (dense_spectra.cpp) so that
// the callers -- the Runge-Kutta transformations and the multistep characteristic roots in
// tableaus/, reference solutions in the tests -- do not each instantiate Eigen's eigensolvers
// (8 s of compile time per translation unit for the general one). Internal header (not
// installed); sits in core because tableaus/ (below linalg/) needs it.
#pragma once

#include <Eigen/Core>
#include <complex>

#include "daekit/core/types.hpp"

namespace daekit {

using ComplexVector = Eigen::VectorXcd;
using ComplexMatrix = Eigen::MatrixXcd;

/// The eigenvalues of a real square matrix (real Schur form, Eigen::EigenSolver), in the
/// order the solver returns them. Throws InvalidArgument if the QR iteration does not converge
/// (non-finite entries).
ComplexVector eigenvalues(const Matrix& A);

/// A V = V diag(values): eigenvalues and eigenvectors (columns of V, unit 2-norm) of a real
/// square matrix. Throws InvalidArgument if the QR iteration does not converge (non-finite
/// entries).
void eigen_decomposition(const Matrix& A, ComplexVector& values, ComplexMatrix& V);

/// A = Q diag(values) Q^T for symmetric A (the lower triangle is read): values ascending,
/// Q orthogonal. Throws InvalidArgument if the iteration does not converge.
void symmetric_eigen(const Matrix& A, Vector& values, Matrix& Q);

}  // namespace daekit
