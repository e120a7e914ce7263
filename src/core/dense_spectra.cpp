#include "core/dense_spectra.hpp"

#include <Eigen/Eigenvalues>

namespace daekit {

namespace {
void require_square(const Matrix& A, const char* what) {
  if (A.rows() != A.cols())
    throw InvalidArgument(std::string(what) + ": the matrix is " + std::to_string(A.rows()) +
                          " x " + std::to_string(A.cols()) + ", not square");
}
}  // namespace

ComplexVector eigenvalues(const Matrix& A) {
  require_square(A, "eigenvalues");
  Eigen::EigenSolver<Matrix> es(A, false);
  if (es.info() != Eigen::Success)
    throw InvalidArgument("eigenvalues: QR iteration failed (non-finite entries?)");
  return es.eigenvalues();
}

void eigen_decomposition(const Matrix& A, ComplexVector& values, ComplexMatrix& V) {
  require_square(A, "eigen_decomposition");
  Eigen::EigenSolver<Matrix> es(A, true);
  if (es.info() != Eigen::Success)
    throw InvalidArgument("eigen_decomposition: QR iteration failed (non-finite entries?)");
  values = es.eigenvalues();
  V = es.eigenvectors();
}

void symmetric_eigen(const Matrix& A, Vector& values, Matrix& Q) {
  require_square(A, "symmetric_eigen");
  Eigen::SelfAdjointEigenSolver<Matrix> es(A);
  if (es.info() != Eigen::Success)
    throw InvalidArgument("symmetric_eigen: iteration failed (non-finite entries?)");
  values = es.eigenvalues();
  Q = es.eigenvectors();
}

}  // namespace daekit
