// Spectral decompositions of small dense matrices, compiled once (dense_spectra.cpp) so that
// the callers -- the Runge-Kutta transformations and the multistep characteristic roots in
// tableaus/, reference solutions in the tests -- do not each instantiate Eigen's eigensolvers
// (8 s of compile time per translation unit for the general one). Internal header (not
// installed); sits in core because tableaus/ (below linalg/) needs it. The LU instantiations
// declared at the end are in dense_decompositions.cpp.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/QR>
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

// The dense LU decompositions the tableaus, the consistent initialization and the tests use
// outside the solvers' own LU (linalg/dense_lu), instantiated once in dense_spectra.cpp.
extern template class Eigen::FullPivLU<daekit::Matrix>;
extern template class Eigen::FullPivLU<daekit::ComplexMatrix>;
extern template class Eigen::PartialPivLU<daekit::Matrix>;
// The complete orthogonal decomposition (least squares and minimum-norm solutions: the
// consistent initialization, impasse points, quasi-linear forms) and its column-pivoting QR.
extern template class Eigen::ColPivHouseholderQR<daekit::Matrix>;
extern template class Eigen::CompleteOrthogonalDecomposition<daekit::Matrix>;
