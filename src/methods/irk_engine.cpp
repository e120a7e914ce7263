// IrkEngine (irk_engine.hpp): the transformed simplified Newton iteration of an s-stage
// implicit Runge-Kutta method, its error estimate and dense output.
#include "methods/irk_engine.hpp"

#include <algorithm>
#include <cmath>

namespace daekit {

IrkConstants IrkConstants::make(const RungeKuttaTableau& tableau) {
  IrkConstants k;
  k.tableau = tableau;
  k.s = tableau.stages();
  k.c = tableau.c;
  k.blocks = block_diagonalise_inverse(tableau.A);  // throws for singular / defective A
  const Matrix Ainv = tableau.A.inverse();
  k.d = tableau.b.transpose() * Ainv;
  k.stiffly_accurate =
      (tableau.A.row(k.s - 1).transpose() - tableau.b).cwiseAbs().maxCoeff() <= 1e-12;
  k.has_error_estimate = k.blocks.real_blocks() > 0;
  if (k.has_error_estimate) k.e = embedded_error_weights(tableau, k.blocks.gamma[0]);
  // dense-output nodes: theta = 0 (the end value: the stage with c = 1 of a stiffly accurate
  // tableau, else y_{n+1}), the other distinct nodes c_i - 1 with 0 < c_i < 1 descending, and
  // theta = -1 (y_n; stages with c_i = 0 are not y_n unless a_ij = 0, so they are left out)
  k.nodes.push_back(0.0);
  std::vector<std::pair<double, int>> inner;
  for (int i = 0; i < k.s; ++i) {
    const double ci = tableau.c[i];
    if (ci <= 0.0 || ci >= 1.0) continue;
    bool duplicate = false;
    for (const auto& p : inner) duplicate = duplicate || std::abs(p.first - ci) <= 1e-14;
    if (!duplicate) inner.push_back({ci, i});
  }
  std::sort(inner.begin(), inner.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  k.end_node = 0;
  k.node_source.push_back(-1);
  k.node_c.push_back(1.0);
  for (const auto& p : inner) {
    k.nodes.push_back(p.first - 1.0);
    k.node_source.push_back(p.second);
    k.node_c.push_back(p.first);
  }
  k.nodes.push_back(-1.0);
  k.node_source.push_back(-2);
  k.node_c.push_back(0.0);
  return k;
}

void IrkDense::increment(double theta, Eigen::Ref<Vector> out) const {
  if (m == 0) {
    out.setZero();
    return;
  }
  out = coeffs.col(m);
  for (int k = m - 1; k >= 1; --k)
    out = coeffs.col(k) + (theta - nodes[static_cast<size_t>(k)]) * out;
  out *= theta;  // x_0 = 0
}

void IrkDense::value(double theta, Eigen::Ref<Vector> out) const {
  increment(theta, out);
  out += coeffs.col(0);
}

void IrkDense::derivative(double theta, Eigen::Ref<Vector> out) const {
  // Horner for p and p' together: p <- d_k + (theta - x_k) p, p' <- p + (theta - x_k) p'
  out.setZero();
  scratch = coeffs.col(m);
  for (int k = m - 1; k >= 0; --k) {
    const double x = theta - nodes[static_cast<size_t>(k)];
    out = scratch + x * out;
    scratch = coeffs.col(k) + x * scratch;
  }
}

IrkEngine::IrkEngine(MassMatrixSystem& sys, int max_stages, int max_real, int max_pairs)
    : sys_(sys), n_(sys.n()) {
  for (int r = 0; r < max_real; ++r) real_.push_back(sys.make_solver<double>());
  for (int p = 0; p < max_pairs; ++p) complex_.push_back(sys.make_solver<std::complex<double>>());
  Z_.setZero(n_, max_stages);
  W_.setZero(n_, max_stages);
  F_.setZero(n_, max_stages);
  R_.setZero(n_, max_stages);
  tmp_.setZero(n_);
  tmp2_.setZero(n_);
  err_.setZero(n_);
  ctmp_.setZero(n_);
}

void IrkEngine::use(const IrkConstants& k) {
  if (k.s > Z_.cols() || k.blocks.real_blocks() > static_cast<int>(real_.size()) ||
      k.blocks.complex_blocks() > static_cast<int>(complex_.size()))
    throw InvalidArgument("IrkEngine: tableau '" + k.tableau.name + "' exceeds the engine's size");
  k_ = &k;
  lu_valid_ = false;
}

bool IrkEngine::factor(double h, const StructuredMatrix<double>& J) {
  const BlockDiagonalInverse& b = k_->blocks;
  bool ok = true;
  for (int r = 0; r < b.real_blocks() && ok; ++r) {
    sys_.assemble(b.gamma[r] / h, J, real_[static_cast<size_t>(r)]->matrix());
    ok = real_[static_cast<size_t>(r)]->factor();
  }
  for (int p = 0; p < b.complex_blocks() && ok; ++p) {
    sys_.assemble(std::complex<double>(b.alpha[p] / h, b.beta[p] / h), J,
                  complex_[static_cast<size_t>(p)]->matrix());
    ok = complex_[static_cast<size_t>(p)]->factor();
  }
  ++sys_.stats().nlu;
  h_lu_ = h;
  lu_valid_ = ok;
  return ok;
}

void IrkEngine::transform(const Matrix& S, const Matrix& in, Matrix& out) const {
  const int s = k_->s;
  for (int k = 0; k < s; ++k) {
    out.col(k) = S(k, 0) * in.col(0);
    for (int j = 1; j < s; ++j) out.col(k) += S(k, j) * in.col(j);
  }
}

void IrkEngine::start_zero() {
  Z_.setZero();
  W_.setZero();
}

void IrkEngine::start_from(const IrkDense& previous, double h) {
  const int s = k_->s;
  const double q = h / previous.h;
  for (int i = 0; i < s; ++i) previous.increment(k_->c[i] * q, Z_.col(i));
  transform(k_->blocks.T_inverse, Z_, W_);
}

IrkEngine::Outcome IrkEngine::newton(double t, const Vector& y, double h, const Vector& scal,
                                     NewtonMonitor& monitor) {
  const IrkConstants& k = *k_;
  const int s = k.s, nr = k.blocks.real_blocks();
  const MassOperator& M = sys_.mass();
  Stats& stats = sys_.stats();
  for (;;) {
    for (int i = 0; i < s; ++i) {
      tmp_ = y + Z_.col(i);
      if (!sys_.f(t + k.c[i] * h, tmp_, F_.col(i))) return Outcome::FunctionFailed;
    }
    transform(k.blocks.T_inverse, F_, R_);
    for (int r = 0; r < nr; ++r) {
      M.apply(W_.col(r), tmp_);
      R_.col(r) -= (k.blocks.gamma[r] / h) * tmp_;
      real_[static_cast<size_t>(r)]->solve_in_place(R_.col(r));
    }
    for (int p = 0; p < k.blocks.complex_blocks(); ++p) {
      const int a = nr + 2 * p;
      const double al = k.blocks.alpha[p] / h, be = k.blocks.beta[p] / h;
      M.apply(W_.col(a), tmp_);
      M.apply(W_.col(a + 1), tmp2_);
      R_.col(a) -= al * tmp_ - be * tmp2_;
      R_.col(a + 1) -= be * tmp_ + al * tmp2_;
      ctmp_.real() = R_.col(a);
      ctmp_.imag() = R_.col(a + 1);
      complex_[static_cast<size_t>(p)]->solve_in_place(ctmp_);
      R_.col(a) = ctmp_.real();
      R_.col(a + 1) = ctmp_.imag();
    }
    ++stats.nsol;
    ++stats.nnewton;
    double sum = 0.0;
    for (int c = 0; c < s; ++c)
      for (int i = 0; i < n_; ++i) {
        const double v = R_(i, c) / scal[i];
        sum += v * v;
      }
    const NewtonMonitor::Verdict v = monitor.next(std::sqrt(sum / (static_cast<double>(s) * n_)));
    switch (v) {
      case NewtonMonitor::Verdict::NonFinite:
        return Outcome::NonFinite;
      case NewtonMonitor::Verdict::Diverging:
        return Outcome::Diverging;
      case NewtonMonitor::Verdict::TooSlow:
        return Outcome::TooSlow;
      default:
        break;
    }
    W_.leftCols(s) += R_.leftCols(s);
    transform(k.blocks.T, W_, Z_);
    if (v == NewtonMonitor::Verdict::Converged) return Outcome::Converged;
    if (v == NewtonMonitor::Verdict::MaxIterations) return Outcome::MaxIterations;
  }
}

void IrkEngine::end_value(const Vector& y, Vector& out) const {
  const IrkConstants& k = *k_;
  if (k.stiffly_accurate) {
    out = y + Z_.col(k.s - 1);
    return;
  }
  out = y;
  for (int i = 0; i < k.s; ++i) out += k.d[i] * Z_.col(i);
}

void IrkEngine::dense(const Vector& y, const Vector& y_new, double h, IrkDense& out) const {
  const IrkConstants& k = *k_;
  const int m = static_cast<int>(k.nodes.size()) - 1;
  out.m = m;
  out.h = h;
  out.nodes = k.nodes;  // capacity reserved by the owner: no allocation
  // divided differences of the increments Y - y_n (those of the values without the
  // cancellation y + Z_i - (y + Z_j) of a small step), y_n added to the constant term
  for (int j = 0; j <= m; ++j) {
    const int src = k.node_source[static_cast<size_t>(j)];
    if (src == -1 && k.stiffly_accurate)
      out.coeffs.col(j) = Z_.col(k.s - 1);
    else if (src == -1)
      out.coeffs.col(j) = y_new - y;
    else if (src == -2)
      out.coeffs.col(j).setZero();
    else
      out.coeffs.col(j) = Z_.col(src);
  }
  for (int l = 1; l <= m; ++l)
    for (int j = m; j >= l; --j)
      out.coeffs.col(j) = (out.coeffs.col(j) - out.coeffs.col(j - 1)) /
                          (k.node_c[static_cast<size_t>(j)] - k.node_c[static_cast<size_t>(j - l)]);
  out.coeffs.col(0) = y_new;
}

}  // namespace daekit
