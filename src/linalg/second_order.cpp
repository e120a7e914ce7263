#include "linalg/second_order.hpp"

#include <cmath>
#include <complex>

namespace daekit {

namespace {

bool finite_nonzero(double x) { return std::isfinite(x) && x != 0.0; }
bool finite_nonzero(const std::complex<double>& x) {
  return std::isfinite(x.real()) && std::isfinite(x.imag()) && x != std::complex<double>(0.0);
}

template <typename Scalar>
class SecondOrderSolver final : public LinearSolver<Scalar> {
 public:
  using typename LinearSolver<Scalar>::VectorType;
  using MatrixType = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

  SecondOrderSolver(int n, int m1, int m2)
      : m1_(m1), m2_(m2), blocks_(m1 / m2), reduced_(make_dense_solver<Scalar>(n - m1)) {
    this->matrix_.resize(n, Sparsity::dense());
    E21_.resize(n - m1, m1);
    c_.resize(m1);
  }
  const char* name() const override { return "dense LU (second-order block eliminated)"; }
  LinearSolverKind kind() const override { return LinearSolverKind::Dense; }

  bool factor() override {
    const MatrixType& E = this->matrix_.dense();
    const long n = E.rows(), nr = n - m1_, m1 = m1_, m2 = m2_;
    const Scalar s = E(0, 0);
    if (!finite_nonzero(s)) return false;
    inv_s_ = Scalar(1) / s;
    const Scalar* e = E.data();
    Scalar* r = reduced_->matrix().dense().data();
    Scalar* e21 = E21_.data();
    for (long j = 0; j < nr; ++j)
      for (long i = 0; i < nr; ++i) r[i + nr * j] = e[(m1 + i) + n * (m1 + j)];
    for (long j = 0; j < m1; ++j)
      for (long i = 0; i < nr; ++i) e21[i + nr * j] = e[(m1 + i) + n * j];
    // sum_k E_2k / s^(K-k) onto the first m2 columns, k = K-1 (1/s) down to 0 (1/s^K)
    Scalar scale = inv_s_;
    for (int k = blocks_ - 1; k >= 0; --k) {
      const Scalar* ek = e21 + nr * m2 * k;
      for (long j = 0; j < m2; ++j)
        for (long i = 0; i < nr; ++i) r[i + nr * j] += scale * ek[i + nr * j];
      scale *= inv_s_;
    }
    return reduced_->factor();
  }

  void solve_in_place(Eigen::Ref<VectorType> b) const override {
    const long n = b.size(), nr = n - m1_, m2 = m2_;
    Scalar* x = b.data();
    Scalar* c = c_.data();
    // c_k = (r_k + c_{k+1}) / s
    for (long k = blocks_ - 1; k >= 0; --k) {
      const long o = k * m2;
      if (k + 1 < blocks_)
        for (long i = 0; i < m2; ++i) c[o + i] = (x[o + i] + c[o + m2 + i]) * inv_s_;
      else
        for (long i = 0; i < m2; ++i) c[o + i] = x[o + i] * inv_s_;
    }
    // r_w -= E_21 c
    Scalar* xw = x + m1_;
    const Scalar* e21 = E21_.data();
    for (long j = 0; j < m1_; ++j) {
      const Scalar cj = c[j];
      if (cj == Scalar(0)) continue;
      const Scalar* col = e21 + nr * j;
      for (long i = 0; i < nr; ++i) xw[i] -= col[i] * cj;
    }
    reduced_->solve_in_place(b.tail(nr));
    // x_k = (r_k + x_{k+1}) / s, x_K = x_w[0..m2)
    for (long k = blocks_ - 1; k >= 0; --k) {
      const long o = k * m2;
      for (long i = 0; i < m2; ++i) x[o + i] = (x[o + i] + x[o + m2 + i]) * inv_s_;
    }
  }

 private:
  int m1_, m2_, blocks_;
  std::unique_ptr<LinearSolver<Scalar>> reduced_;
  MatrixType E21_;  // rows m1.. and columns 0..m1-1 of E (= -J there)
  Scalar inv_s_ = Scalar(1);
  mutable VectorType c_;
};

}  // namespace

template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_second_order_solver(int n, int m1, int m2) {
  if (m1 <= 0 || m2 <= 0 || m1 % m2 != 0 || m1 + m2 > n)
    throw InvalidArgument(
        "second-order elimination: needs 0 < m2, m1 a multiple of m2, m1 + m2 <= n");
  return std::make_unique<SecondOrderSolver<Scalar>>(n, m1, m2);
}

template std::unique_ptr<LinearSolver<double>> make_second_order_solver<double>(int, int, int);
template std::unique_ptr<LinearSolver<std::complex<double>>>
make_second_order_solver<std::complex<double>>(int, int, int);

}  // namespace daekit
