#include "linalg/dense_lu.hpp"

#include <cmath>
#include <memory>
#include <utility>

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

// Right-looking Gaussian elimination with partial pivoting on the column-major storage; the
// rank-1 update of the trailing block is done column by column so that it runs contiguously.
// Every pivot candidate is checked for finiteness: a NaN or Inf below the pivot would otherwise
// pass into L unnoticed (it is never the largest candidate), and one in U reaches the pivot
// candidates of its column through the update, so any non-finite entry makes factor() fail.
// N > 0: the size known at compile time (the small-system kernels below, whose loops the
// compiler unrolls and vectorises); N = 0: the size n given at run time. The same arithmetic
// in the same order either way, so the factors agree to the bit.
template <typename Scalar, int N>
bool factor_kernel(Scalar* a, int n_runtime, int* perm, Scalar* inv_diag) {
  const int n = N > 0 ? N : n_runtime;
  const auto at = [a, n](int i, int j) -> Scalar& { return a[i + static_cast<long>(n) * j]; };
  for (int k = 0; k < n; ++k) {
    int p = k;
    double best = magnitude(at(k, k));
    double sum = best;  // NaN or Inf if any candidate is: one test per column
    for (int i = k + 1; i < n; ++i) {
      const double m = magnitude(at(i, k));
      sum += m;
      if (m > best) {
        best = m;
        p = i;
      }
    }
    if (!std::isfinite(sum)) return false;
    perm[k] = p;
    if (p != k)
      for (int j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
    const Scalar pivot = at(k, k);
    if (!finite_nonzero(pivot)) return false;
    const Scalar inv = Scalar(1) / pivot;
    inv_diag[k] = inv;
    Scalar* col_k = &at(0, k);
    for (int i = k + 1; i < n; ++i) col_k[i] *= inv;
    for (int j = k + 1; j < n; ++j) {
      Scalar* col_j = &at(0, j);
      const Scalar a_kj = col_j[k];
      if (a_kj == Scalar(0)) continue;
      for (int i = k + 1; i < n; ++i) col_j[i] -= col_k[i] * a_kj;
    }
  }
  return true;
}

// Forward and back substitution, as dense_lu_solve in dense_lu.hpp (same order of operations).
template <typename Scalar, int N>
void solve_kernel(const Scalar* a, int n_runtime, const int* p, const Scalar* inv_diag, Scalar* x) {
  const int n = N > 0 ? N : n_runtime;
  for (int i = 0; i < n; ++i)
    if (p[i] != i) std::swap(x[i], x[p[i]]);
  for (int k = 0; k < n - 1; ++k) {  // forward substitution with the unit lower triangle
    const Scalar xk = x[k];
    if (xk == Scalar(0)) continue;
    const Scalar* col = a + static_cast<long>(k) * n;
    for (int i = k + 1; i < n; ++i) x[i] -= col[i] * xk;
  }
  for (int k = n - 1; k >= 0; --k) {  // back substitution
    x[k] *= inv_diag[k];
    const Scalar xk = x[k];
    if (xk == Scalar(0)) continue;
    const Scalar* col = a + static_cast<long>(k) * n;
    for (int i = 0; i < k; ++i) x[i] -= col[i] * xk;
  }
}

// The kernels of one size: run-time size for N = 0.
template <typename Scalar>
struct LuKernels {
  bool (*factor)(Scalar*, int, int*, Scalar*);
  void (*solve)(const Scalar*, int, const int*, const Scalar*, Scalar*);
};

constexpr int kMaxFixed = 16;  // fixed-size kernels for n = 1 .. kMaxFixed

template <typename Scalar, int... N>
LuKernels<Scalar> kernels_for(int n, std::integer_sequence<int, N...>) {
  LuKernels<Scalar> k{&factor_kernel<Scalar, 0>, &solve_kernel<Scalar, 0>};
  ((n == N + 1 ? (k = {&factor_kernel<Scalar, N + 1>, &solve_kernel<Scalar, N + 1>}, 0) : 0), ...);
  return k;
}

template <typename Scalar>
LuKernels<Scalar> lu_kernels(int n) {
  return kernels_for<Scalar>(n, std::make_integer_sequence<int, kMaxFixed>{});
}

}  // namespace

template <typename Scalar>
bool dense_lu_factor(Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& lu,
                     Eigen::VectorXi& perm, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag) {
  const int n = static_cast<int>(lu.rows());
  if (perm.size() != n) perm.resize(n);
  if (inv_diag.size() != n) inv_diag.resize(n);
  return factor_kernel<Scalar, 0>(lu.data(), n, perm.data(), inv_diag.data());
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
  explicit DenseSolver(int n) : kernels_(lu_kernels<Scalar>(n)) {
    this->matrix_.resize(n, Sparsity::dense());
    perm_.resize(n);
    inv_diag_.resize(n);
  }
  const char* name() const override { return "dense LU"; }
  LinearSolverKind kind() const override { return LinearSolverKind::Dense; }
  bool factor() override {
    auto& a = this->matrix_.dense();
    return kernels_.factor(a.data(), static_cast<int>(a.rows()), perm_.data(), inv_diag_.data());
  }
  void solve_in_place(Eigen::Ref<VectorType> b) const override {
    const auto& a = this->matrix_.dense();
    kernels_.solve(a.data(), static_cast<int>(a.rows()), perm_.data(), inv_diag_.data(), b.data());
  }

 private:
  LuKernels<Scalar> kernels_;
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
