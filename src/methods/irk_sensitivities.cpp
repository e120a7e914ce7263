// IrkSensitivities (irk_sensitivities.hpp): the sensitivity stage equations of an implicit
// Runge-Kutta step, solved with the state's factorisation.
#include "methods/irk_sensitivities.hpp"

#include <algorithm>
#include <cmath>

#include "nonlinear/consistency.hpp"

namespace daekit {

namespace {
constexpr int kMaxSensitivityIterations = 25;
constexpr double kSlowContraction = 0.9;
constexpr int kMaxBlocks = 8;  // stages of the engine (IrkEngine's kMaxStages)
}  // namespace

IrkSensitivities::IrkSensitivities(MassMatrixSystem& sys, IrkEngine& engine, int max_stages,
                                   bool error_control)
    : sys_(sys),
      engine_(engine),
      n_(sys.n()),
      np_(static_cast<int>(sys.p().size())),
      max_stages_(max_stages),
      error_control_(error_control) {
  const int n = n_, s = max_stages;
  sys.set_central_parameter_differences(error_control);
  pbar_.resize(np_);
  for (int k = 0; k < np_; ++k) pbar_[k] = sys.p()[k] != 0.0 ? std::abs(sys.p()[k]) : 1.0;
  S_.setZero(n, np_);
  S_new_.setZero(n, np_);
  G0_.setZero(n, np_);
  Gend_.setZero(n, np_);
  Zs_.setZero(n, s * np_);
  Ws_.setZero(n, s * np_);
  G_.setZero(n, s);
  R_.setZero(n, s);
  MW_.setZero(n, s);
  Y_.setZero(n, s);
  F_.setZero(n, s);
  P_.setZero(n, s * np_);
  weights_.setOnes(n, np_);
  J_.resize(static_cast<size_t>(s));
  for (auto& J : J_) sys.allocate_jacobian(J);
  cpairs_.assign(static_cast<size_t>(s), Eigen::VectorXcd::Zero(n));
  dense_.resize(static_cast<size_t>(np_));
  for (auto& d : dense_) d.reserve(n, s + 2);
  tmp_.setZero(n);
  tmp2_.setZero(n);
  sk_.setZero(n);
  sk_new_.setZero(n);
}

bool IrkSensitivities::start(double t0, const Vector& y0, const Vector& f0, const Matrix* given,
                             std::string& message) {
  if (given)
    S_ = *given;
  else
    S_.setZero();
  if (!consistent_initial_sensitivities(sys_, t0, y0, f0, S_, message, warning_)) {
    message = "initial sensitivities: " + message;
    return false;
  }
  // G_0 = f_y S + f_p at (t0, y0) (the first step's error estimate)
  StructuredMatrix<double>& J = J_[0];
  if (!sys_.jacobian(t0, y0, f0, J) || !sys_.parameter_jacobian(t0, y0, f0, P_.leftCols(np_))) {
    message =
        "initial sensitivities: f_y or f_p failed at t0: " + sys_.guard().failure().describe();
    return false;
  }
  for (int k = 0; k < np_; ++k) {
    J.multiply(S_.col(k), G0_.col(k));
    G0_.col(k) += P_.col(k);
  }
  last_h_ = 0.0;
  return true;
}

// Y_i, f(Y_i), J_i and P_i at the converged stages of the state.
bool IrkSensitivities::stage_derivatives(double t, const Vector& y, double h) {
  const IrkConstants& k = engine_.constants();
  const Matrix& Z = engine_.Z();
  for (int i = 0; i < k.s; ++i) {
    const double ti = t + k.c[i] * h;
    Y_.col(i) = y + Z.col(i);
    tmp_ = Y_.col(i);
    if (!sys_.f(ti, tmp_, tmp2_)) return false;
    F_.col(i) = tmp2_;
    if (!sys_.jacobian(ti, tmp_, tmp2_, J_[static_cast<size_t>(i)])) return false;
    if (!sys_.parameter_jacobian(ti, tmp_, tmp2_, P_.middleCols(i * np_, np_))) return false;
  }
  return true;
}

// G_i = J_i (S_k + sigma_i) + P_i,k; the declared second-order rows f_i = y_{i+m2} exactly.
void IrkSensitivities::residual(int kcol) {
  const IrkConstants& k = engine_.constants();
  const int s = k.s;
  const MassMatrixDae::SecondOrder& so = sys_.dae().second_order;
  for (int i = 0; i < s; ++i) {
    tmp_.noalias() = S_.col(kcol) + Zs_.col(kcol * max_stages_ + i);
    J_[static_cast<size_t>(i)].multiply(tmp_, G_.col(i));
    G_.col(i) += P_.col(i * np_ + kcol);
    for (int r = 0; r < so.m1; ++r) G_(r, i) = tmp_[r + so.m2];
  }
}

// The transformed iteration for column k of S from the starting sigma in Zs_; returns the
// last rate-corrected increment (negative: did not converge).
double IrkSensitivities::iterate_column(int kcol, double h, double tol) {
  const IrkConstants& k = engine_.constants();
  const BlockDiagonalInverse& b = k.blocks;
  const int s = k.s, nr = b.real_blocks(), npairs = b.complex_blocks();
  const long n = n_;
  const MassOperator& M = sys_.mass();
  const bool structured = M.kind() == MassOperator::Kind::Structured;
  const double* diag = M.kind() == MassOperator::Kind::Diagonal ? M.diagonal().data() : nullptr;
  double* z = Zs_.data() + static_cast<long>(kcol) * max_stages_ * n;
  double* w = Ws_.data() + static_cast<long>(kcol) * max_stages_ * n;
  const double* ws = weights_.data() + static_cast<long>(kcol) * n;
  double* rr = R_.data();
  const double* g = G_.data();
  double lambda[kMaxBlocks];  // gamma_r / h, then alpha_p / h, beta_p / h per pair
  for (int r = 0; r < nr; ++r) lambda[r] = b.gamma[r] / h;
  for (int p = 0; p < npairs; ++p) {
    lambda[nr + 2 * p] = b.alpha[p] / h;
    lambda[nr + 2 * p + 1] = b.beta[p] / h;
  }
  // W = (T^{-1} (x) I) sigma, row by row
  for (long i = 0; i < n; ++i)
    for (int c = 0; c < s; ++c) {
      double acc = 0.0;
      for (int j = 0; j < s; ++j) acc += b.T_inverse(c, j) * z[j * n + i];
      w[c * n + i] = acc;
    }
  double previous = 0.0;
  for (int it = 0; it < kMaxSensitivityIterations; ++it) {
    ++iterations_;
    residual(kcol);
    const double* mw = w;  // M W: W itself for identity and diagonal M (scaled below)
    if (structured) {
      for (int c = 0; c < s; ++c) M.apply(Eigen::Map<const Vector>(w + c * n, n), MW_.col(c));
      mw = MW_.data();
    }
    // R = (T^{-1} (x) I) G - (Lambda/h (x) M) W, row by row, into the solves' right-hand sides
    for (long i = 0; i < n; ++i) {
      const double m = diag ? diag[i] : 1.0;
      double r[kMaxBlocks];
      for (int c = 0; c < s; ++c) {
        double acc = 0.0;
        for (int j = 0; j < s; ++j) acc += b.T_inverse(c, j) * g[j * n + i];
        r[c] = acc;
      }
      for (int c = 0; c < nr; ++c) rr[c * n + i] = r[c] - lambda[c] * m * mw[c * n + i];
      for (int p = 0; p < npairs; ++p) {
        const int a = nr + 2 * p;
        const double w0 = m * mw[a * n + i], w1 = m * mw[(a + 1) * n + i];
        const double al = lambda[a], be = lambda[a + 1];
        cpairs_[static_cast<size_t>(p)][i] =
            std::complex<double>(r[a] - (al * w0 - be * w1), r[a + 1] - (be * w0 + al * w1));
      }
    }
    for (int r = 0; r < nr; ++r) engine_.real_solver(r).solve_in_place(R_.col(r));
    for (int p = 0; p < npairs; ++p)
      engine_.complex_solver(p).solve_in_place(cpairs_[static_cast<size_t>(p)]);
    ++sys_.stats().nsol;
    // the increment's norm, W += increment, sigma = (T (x) I) W, row by row
    double sum = 0.0;
    for (long i = 0; i < n; ++i) {
      double d[kMaxBlocks];
      for (int c = 0; c < nr; ++c) d[c] = rr[c * n + i];
      for (int p = 0; p < npairs; ++p) {
        const std::complex<double> x = cpairs_[static_cast<size_t>(p)][i];
        d[nr + 2 * p] = x.real();
        d[nr + 2 * p + 1] = x.imag();
      }
      for (int c = 0; c < s; ++c) {
        const double v = d[c] / ws[i];
        sum += v * v;
        w[c * n + i] += d[c];
      }
      for (int c = 0; c < s; ++c) {
        double acc = 0.0;
        for (int j = 0; j < s; ++j) acc += b.T(c, j) * w[j * n + i];
        z[c * n + i] = acc;
      }
    }
    const double norm = std::sqrt(sum / (static_cast<double>(s) * n));
    if (!std::isfinite(norm)) return -1.0;
    if (it > 0) {
      const double theta = previous > 0.0 ? norm / previous : 0.0;
      if (theta > kSlowContraction) return -1.0;
      if (theta / (1.0 - theta) * norm <= tol) return norm;
    } else if (norm <= 1e-3 * tol) {
      return norm;
    }
    previous = norm;
  }
  return -1.0;
}

IrkSensitivities::Outcome IrkSensitivities::solve_step(double t, const Vector& y, double h,
                                                       const Vector& scal, const Vector& w,
                                                       double rtol, const Vector& atol, double tol,
                                                       bool extrapolate) {
  iterations_ = 0;
  if (!stage_derivatives(t, y, h)) return Outcome::FunctionFailed;
  const IrkConstants& k = engine_.constants();
  const int s = k.s;
  for (int kcol = 0; kcol < np_; ++kcol) {
    for (long i = 0; i < n_; ++i)
      weights_(i, kcol) = (rtol * std::abs(S_(i, kcol)) + atol[i] / pbar_[kcol]) * (scal[i] / w[i]);
    // starting sigma: the last step's interpolant at t + c_i h, or zero
    for (int i = 0; i < s; ++i) {
      auto col = Zs_.col(kcol * max_stages_ + i);
      if (extrapolate && last_h_ != 0.0) {
        dense_[static_cast<size_t>(kcol)].value(k.c[i] * h / last_h_, col);
        col -= S_.col(kcol);
      } else {
        col.setZero();
      }
    }
    if (iterate_column(kcol, h, tol) < 0.0) return Outcome::NotConverged;
    // S_{n+1} = S_n + sum_i d_i sigma_i
    auto Zk = Zs_.middleCols(kcol * max_stages_, s);
    if (k.stiffly_accurate) {
      S_new_.col(kcol) = S_.col(kcol) + Zk.col(s - 1);
    } else {
      S_new_.col(kcol) = S_.col(kcol);
      for (int i = 0; i < s; ++i) S_new_.col(kcol) += k.d[i] * Zk.col(i);
    }
    // f_y S_{n+1} + f_p at the last stage (Radau IIA: c_s = 1 and Y_s = y_{n+1}), the next
    // step's G_0, from S_{n+1} itself: the residual's G of the last iterate differs by
    // J delta, which the error estimate, (gamma/h M - J)^{-1} G_0 ~ h G_0, would amplify by
    // h |J| on a stiff problem
    J_[static_cast<size_t>(s - 1)].multiply(S_new_.col(kcol), Gend_.col(kcol));
    Gend_.col(kcol) += P_.col((s - 1) * np_ + kcol);
    const MassMatrixDae::SecondOrder& so = sys_.dae().second_order;
    for (int r = 0; r < so.m1; ++r) Gend_(r, kcol) = S_new_(r + so.m2, kcol);
  }
  return Outcome::Converged;
}

double IrkSensitivities::error_estimate(double h) {
  const IrkConstants& k = engine_.constants();
  if (!k.has_error_estimate) return 0.0;
  const int s = k.s;
  double worst = 0.0;
  Vector& a = tmp_;
  Vector& e = tmp2_;
  for (int kcol = 0; kcol < np_; ++kcol) {
    auto Zk = Zs_.middleCols(kcol * max_stages_, s);
    a.setZero();
    for (int j = 0; j < s; ++j) a += (k.e[j] / h) * Zk.col(j);
    sys_.mass().apply(a, e);
    e += G0_.col(kcol);
    engine_.real_solver(0).solve_in_place(e);
    const double err = std::sqrt((e.array() / weights_.col(kcol).array()).square().sum() /
                                 static_cast<double>(n_));
    worst = std::max(worst, err);
  }
  return std::max(worst, 1e-10);
}

void IrkSensitivities::accept(const Vector& y, double h) {
  (void)y;
  const IrkConstants& k = engine_.constants();
  for (int kcol = 0; kcol < np_; ++kcol) {
    sk_ = S_.col(kcol);
    sk_new_ = S_new_.col(kcol);
    IrkDense& d = dense_[static_cast<size_t>(kcol)];
    IrkEngine::interpolate(k, sk_, sk_new_, Zs_.data() + static_cast<long>(kcol) * max_stages_ * n_,
                           d);
    d.h = h;
  }
  S_.swap(S_new_);
  G0_.swap(Gend_);
  last_h_ = h;
}

void IrkSensitivities::dense(double theta, MatOut out) const {
  if (last_h_ == 0.0) {
    out = S_;
    return;
  }
  for (int kcol = 0; kcol < np_; ++kcol)
    dense_[static_cast<size_t>(kcol)].value(theta, out.col(kcol));
}

}  // namespace daekit
