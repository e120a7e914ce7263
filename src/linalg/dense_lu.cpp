#include "linalg/dense_lu.hpp"

#include <cmath>
#include <memory>

#include "linalg/linear_solver.hpp"

namespace daekit {

namespace {
bool finite_nonzero(double x) { return std::isfinite(x) && x != 0.0; }
bool finite_nonzero(const std::complex<double>& x) {
  return std::isfinite(x.real()) && std::isfinite(x.imag()) && x != std::complex<double>(0.0);
}
// Pivot magnitude: |x| for reals, |Re x| + |Im x| for complex numbers (LAPACK's CABS1): no
// hypot in the pivot search.
double magnitude(double x) { return std::abs(x); }
double magnitude(const std::complex<double>& x) { return std::abs(x.real()) + std::abs(x.imag()); }
}  // namespace

// Right-looking Gaussian elimination with partial pivoting on the column-major storage; the
// rank-1 update of the trailing block is done column by column so that it runs contiguously.
// Every pivot candidate is checked for finiteness: a NaN or Inf below the pivot would otherwise
// pass into L unnoticed (it is never the largest candidate), and one in U reaches the pivot
// candidates of its column through the update, so any non-finite entry makes factor() fail.
template <typename Scalar>
bool dense_lu_factor(Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& lu,
                     Eigen::VectorXi& perm, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag) {
  const int n = static_cast<int>(lu.rows());
  if (perm.size() != n) perm.resize(n);
  if (inv_diag.size() != n) inv_diag.resize(n);
  for (int k = 0; k < n; ++k) {
    int p = k;
    double best = magnitude(lu(k, k));
    double sum = best;  // NaN or Inf if any candidate is: one test per column
    for (int i = k + 1; i < n; ++i) {
      const double a = magnitude(lu(i, k));
      sum += a;
      if (a > best) {
        best = a;
        p = i;
      }
    }
    if (!std::isfinite(sum)) return false;
    perm[k] = p;
    if (p != k) lu.row(k).swap(lu.row(p));
    const Scalar pivot = lu(k, k);
    if (!finite_nonzero(pivot)) return false;
    const Scalar inv = Scalar(1) / pivot;
    inv_diag[k] = inv;
    for (int i = k + 1; i < n; ++i) lu(i, k) *= inv;
    for (int j = k + 1; j < n; ++j) {
      const Scalar a_kj = lu(k, j);
      if (a_kj == Scalar(0)) continue;
      for (int i = k + 1; i < n; ++i) lu(i, j) -= lu(i, k) * a_kj;
    }
  }
  return true;
}

template bool dense_lu_factor<double>(Eigen::MatrixXd&, Eigen::VectorXi&, Eigen::VectorXd&);
template bool dense_lu_factor<std::complex<double>>(Eigen::MatrixXcd&, Eigen::VectorXi&,
                                                    Eigen::VectorXcd&);

namespace {

// The dense backend: factors matrix().dense() in place.
template <typename Scalar>
class DenseSolver final : public LinearSolver<Scalar> {
 public:
  using typename LinearSolver<Scalar>::VectorType;
  explicit DenseSolver(int n) {
    this->matrix_.resize(n, Sparsity::dense());
    perm_.resize(n);
    inv_diag_.resize(n);
  }
  const char* name() const override { return "dense LU"; }
  LinearSolverKind kind() const override { return LinearSolverKind::Dense; }
  bool factor() override { return dense_lu_factor(this->matrix_.dense(), perm_, inv_diag_); }
  void solve_in_place(Eigen::Ref<VectorType> b) const override {
    dense_lu_solve(this->matrix_.dense(), perm_, inv_diag_, b.data());
  }

 private:
  Eigen::VectorXi perm_;
  VectorType inv_diag_;
};

}  // namespace

template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_dense_solver(int n) {
  return std::make_unique<DenseSolver<Scalar>>(n);
}

template std::unique_ptr<LinearSolver<double>> make_dense_solver<double>(int);
template std::unique_ptr<LinearSolver<std::complex<double>>>
make_dense_solver<std::complex<double>>(int);

}  // namespace daekit
