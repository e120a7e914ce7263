#include "daekit/methods/bdf.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "linalg/dense_lu.hpp"
#include "daekit/problem/initialization.hpp"

namespace daekit {

void BdfOptions::validate() const {
  if (max_order < 1 || max_order > 5)
    throw InvalidArgument("bdf: max_order must lie in [1, 5], got " + std::to_string(max_order));
  if (fixed_order < 0 || fixed_order > max_order)
    throw InvalidArgument("bdf: fixed_order must lie in [0, max_order], got " +
                          std::to_string(fixed_order));
  if (max_newton_iterations < 1) throw InvalidArgument("bdf: max_newton_iterations must be >= 1");
  if (!(newton_tolerance > 0)) throw InvalidArgument("bdf: newton_tolerance must be > 0");
  if (exact_history && fixed_order == 0)
    throw InvalidArgument("bdf: exact_history needs fixed_order > 0");
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxOrder = 5;
// Weight of the direct predictor difference in the filtered algebraic error (see error_norm()).
// Measured (bench/bdf_vs_ida.cpp): 0 loses the dense output of algebraic variables driven by
// explicit time functions (5e-6 error at rtol 1e-9 in tests/test_bdf.cpp) and the clamp
// accuracy of the PI valve; 1 is more conservative (Akzo scd +0.2..0.9 per tolerance) but
// takes 15-25 % more steps on the transistor and 12557 instead of 6500 on Robertson-DAE at
// 1e-10, for about the same time at equal scd elsewhere; 0.3 is the compromise.
constexpr double kAlgebraicSmoothness = 0.3;

class Bdf final : public Stepper {
 public:
  Bdf(const ImplicitDae& dae, const Vector& yp0, const BdfOptions& opt)
      : dae_(dae), opt_(opt), n_(dae.n), yp0_(yp0) {
    dae.validate();
    opt.validate();
    if (yp0.size() != n_)
      throw InvalidArgument("bdf: yp0 has size " + std::to_string(yp0.size()) +
                            ", expected n = " + std::to_string(n_));
    if (!yp0.allFinite()) throw InvalidArgument("bdf: yp0 contains NaN or Inf");
    maxord_ = opt.fixed_order > 0 ? opt.fixed_order : opt.max_order;
    phi_.setZero(n_, kMaxOrder + 2);
    phi_star_.setZero(n_, kMaxOrder + 2);
    y_.resize(n_);
    yp_.resize(n_);
    y_new_.resize(n_);
    yp_new_.resize(n_);
    y_pred_.resize(n_);
    e_.resize(n_);
    ef_.resize(n_);
    ftmp_.resize(n_);
    delta_.resize(n_);
    wt_.resize(n_);
    res0_.resize(n_);
    ytmp_.resize(n_);
    yptmp_.resize(n_);
    mask_.setOnes(n_);
    if (opt.exclude_algebraic_from_error && !dae.differential.empty())
      for (int i = 0; i < n_; ++i) mask_[i] = dae.differential[i] ? 1.0 : 0.0;
    masked_count_ = std::max(1.0, mask_.sum());
    dFdy_.setZero(n_, n_);
    dFdyp_.setZero(n_, n_);
    lu_.resize(n_);
  }

  const char* name() const override { return "bdf"; }
  int order() const override { return kold_; }
  int error_order() const override { return k_ + 1; }

  double initial_step(double t_end) override {
    // DASSL: h0 = 0.001 |t_end - t0|, reduced so that |h0 y'(t0)|_wrms <= 0.5
    const double span = std::abs(t_end - t_);
    double h = 1e-3 * span;
    const double ypnorm = wnorm(yp0_);
    if (ypnorm > 0.5 / h) h = 0.5 / ypnorm;
    return std::max(h, 4 * kEps * std::max(1.0, std::abs(t_)));
  }

  void start(double t0, const Vector& y0, const Tolerances& tol) override {
    if (y0.size() != n_) throw InvalidArgument("bdf: y0 has the wrong size");
    dae_.check_jacobians(t0, y0, yp0_);
    if (opt_.filter_algebraic_error) setup_algebraic_filter(t0, y0);
    t_ = t0;
    y_ = y0;
    yp_ = yp0_;
    rtol_ = tol.rtol;
    atol_ = tol.atol;
    update_weights();
    ResidualCheck check = residual(t_, y_, yp_, res0_);
    if (check != ResidualCheck::Ok)
      throw NumericalFailure(Status::NonFiniteFunction, "F(t0, y0, yp0) is not finite");
    k_ = 1;
    kold_ = 0;
    hold_ = 0.0;
    ns_ = 0;
    phase_ = 0;
    error_failures_ = 0;
    knew_ = 1;
    matrix_valid_ = false;
    cjold_ = 0.0;
    s_ = 100.0;
    history_started_ = false;
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    if (kold_ == 0) start_history(h);
    const int k = k_;
    compute_coefficients(h, k);
    predict(k);
    // corrector (modified Newton); retried once with a fresh matrix if it used an old one
    for (;;) {
      const bool fresh = ensure_matrix(h);
      if (!matrix_valid_)
        return matrix_nonfinite_
                   ? fail(AttemptOutcome::NonFinite, 0.25, "F or its Jacobian returned NaN/Inf")
                   : fail(AttemptOutcome::Singular, 0.25, "iteration matrix singular");
      const int outcome = correct(k);
      if (outcome == 0) break;
      if (outcome == 2) return fail(AttemptOutcome::NonFinite, 0.25, "F returned NaN/Inf");
      ++stats_.nnewton_fail;
      if (fresh) return fail(AttemptOutcome::NewtonFailed, 0.25, "Newton iteration failed");
      matrix_valid_ = false;  // stale matrix: recompute and retry with the same h
      predict(k);
    }
    StepAttempt res;
    res.err = error_estimate(k);
    return res;
  }

  void accept() override {
    const int k = k_;  // order of this step (0-based: phi_ columns 0..k+1)
    const int kdiff = k - kold_;
    ns_ = ns_new_;
    kold_ = k;
    hold_ = h_;
    for (int i = 0; i <= k + 1; ++i) psi_[i] = psi_new_[i];
    phi_.leftCols(k + 2) = phi_star_.leftCols(k + 2);
    t_ += h_;
    y_ = y_new_;
    yp_ = yp_new_;
    error_failures_ = 0;
    choose_next_order_and_step(kdiff);  // reads phi_ column k + 1 (the previous step's e)
    if (rejected_) h_next_ = std::min(h_next_, h_);  // no increase right after a rejection
    rejected_ = false;
    // update the differences (DASSL block 6, order of the step just taken)
    if (k < maxord_) phi_.col(k + 1) = e_;
    phi_.col(k) += e_;
    for (int j = k - 1; j >= 0; --j) phi_.col(j) += phi_.col(j + 1);
    update_weights();
  }

  double adjust_step(double, double) override { return h_next_; }

  double step_after_reject(double h, double) override {
    // DASSL's error-test failure rule
    phase_ = 1;
    ++error_failures_;
    rejected_ = true;
    if (error_failures_ == 1) {
      k_ = knew_;
      const double r = 0.9 * std::pow(2.0 * est_ + 1e-4, -1.0 / (k_ + 1));
      return h * std::clamp(r, 0.25, 0.9);
    }
    if (error_failures_ == 2) {
      k_ = knew_;
      return 0.25 * h;
    }
    k_ = 1;
    return 0.25 * h;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }

  void dense(double t, VecOut out) const override {
    const double temp1 = t - t_;
    out = phi_.col(0);
    double c = 1.0, gamma = temp1 / psi_[0];
    for (int j = 1; j <= kold_; ++j) {
      c *= gamma;
      gamma = (temp1 + psi_[j - 1]) / psi_[j];
      out += c * phi_.col(j);
    }
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    // consistent re-initialisation (differential components kept), then order 1 (as DNA)
    if (dae_.reinitialize) {
      Vector yr = y, ypr = yp_;
      if (!dae_.reinitialize(t, yr, ypr, message)) {
        message = "re-initialisation at the event failed: " + message;
        return false;
      }
      yp0_ = ypr;
      Tolerances tol;
      tol.rtol = rtol_;
      tol.atol = atol_;
      start(t, yr, tol);
      return true;
    }
    const InitResult init = initialize(dae_, t, y, yp_, InitMode::DifferentialGiven, {});
    if (!init.ok) {
      message = "re-initialisation at the event failed: " + init.message;
      return false;
    }
    yp0_ = init.yp;
    Tolerances tol;
    tol.rtol = rtol_;
    tol.atol = atol_;
    start(t, init.y, tol);
    return true;
  }

  /// y'(t) from the same interpolant.
  void dense_derivative(double t, VecOut out) const override {
    const double temp1 = t - t_;
    out.setZero();
    double c = 1.0, d = 0.0, gamma = temp1 / psi_[0];
    for (int j = 1; j <= kold_; ++j) {
      d = d * gamma + c / psi_[j - 1];
      c *= gamma;
      gamma = (temp1 + psi_[j - 1]) / psi_[j];
      out += d * phi_.col(j);
    }
  }

  DenseSegment segment() const override {
    // The interpolant in Newton form: nodes t_n, t_n - psi_1, ..., i.e. theta_j = -psi_j / h.
    DenseSegment s;
    s.t_left = t_ - hold_;
    s.t_right = t_;
    const int m = kold_;
    s.coeffs.resize(n_, m + 1);
    // p(t) = phi_0 + sum_j prod_{i<j} (t - t_n + psi_{i-1}) / psi_i ... convert to Newton form
    s.nodes.resize(m);
    for (int j = 0; j < m; ++j) s.nodes[j] = j == 0 ? 0.0 : -psi_[j - 1] / hold_;
    s.coeffs.col(0) = phi_.col(0);
    double scale = 1.0;
    for (int j = 1; j <= m; ++j) {
      scale *= hold_ / psi_[j - 1];
      s.coeffs.col(j) = scale * phi_.col(j);
    }
    return s;
  }

  const Stats& stats() const override { return stats_; }

 private:
  enum class ResidualCheck { Ok, NonFinite };

  ResidualCheck residual(double t, const Vector& y, const Vector& yp, Vector& out) {
    dae_.F(t, y, yp, out);
    ++stats_.nfev;
    return out.allFinite() ? ResidualCheck::Ok : ResidualCheck::NonFinite;
  }

  double wnorm(const Vector& v) const {
    return std::sqrt(((v.array() / wt_.array()).square() * mask_.array()).sum() / masked_count_);
  }

  void update_weights() {
    for (int i = 0; i < n_; ++i) wt_[i] = rtol_ * std::abs(y_[i]) + atol_[i];
  }

  StepAttempt fail(AttemptOutcome outcome, double factor, const char* detail) {
    StepAttempt r;
    r.outcome = outcome;
    r.h_factor = factor;
    r.detail = detail;
    phase_ = 1;
    matrix_valid_ = false;  // DASSL: new iteration matrix after any failure
    if (kold_ == 0) history_started_ = false;
    return r;
  }

  // First step: phi_1 = y0, phi_2 = h y'0 (order 1), or exact back values (fixed order).
  void start_history(double h) {
    phi_.setZero();
    psi_.fill(0.0);
    if (opt_.exact_history) {
      // Newton divided differences of y at t0, t0 - h, ..., t0 - k h, scaled to DASSL's phi
      // (phi_{j+1} = h^j j! [t0, ..., t0 - j h]y for constant steps), and psi_j = j h.
      const int k = maxord_;
      Matrix dd(n_, k + 1);
      for (int j = 0; j <= k; ++j) dd.col(j) = opt_.exact_history(t_ - j * h);
      for (int level = 1; level <= k; ++level)
        for (int j = k; j >= level; --j)
          dd.col(j) = (dd.col(j - 1) - dd.col(j)) / (level * h);  // in units of nodes t0 - j h
      double fact = 1.0;
      for (int j = 0; j <= k; ++j) {
        if (j > 0) fact *= j * h;
        phi_.col(j) = fact * dd.col(j);
        psi_[j] = (j + 1) * h;
      }
      k_ = k;
      kold_ = k;
      hold_ = h;
      ns_ = k + 1;
      phase_ = 1;
      y_ = opt_.exact_history(t_);
      update_weights();
      return;
    }
    phi_.col(0) = y_;
    phi_.col(1) = h * yp0_;
    psi_[0] = h;
  }

  // DASSL block 1: psi, alpha, beta, gamma, sigma for order k and step h (into *_new arrays).
  void compute_coefficients(double h, int k) {
    const int kp1 = k + 1;
    ns_new_ = (h != hold_ || k != kold_) ? 0 : ns_;
    ns_new_ = std::min(ns_new_ + 1, kold_ + 2);
    beta_[0] = 1.0;
    alpha_[0] = 1.0;
    gamma_[0] = 0.0;
    sigma_[0] = 1.0;
    double temp1 = h;
    for (int i = 1; i < kp1; ++i) {
      const double temp2 = psi_[i - 1];
      psi_new_[i - 1] = temp1;
      beta_[i] = beta_[i - 1] * psi_new_[i - 1] / temp2;
      temp1 = temp2 + h;
      alpha_[i] = h / temp1;
      sigma_[i] = i * sigma_[i - 1] * alpha_[i];
      gamma_[i] = gamma_[i - 1] + alpha_[i - 1] / h;
    }
    psi_new_[kp1 - 1] = temp1;
    double alphas = 0.0, alpha0 = 0.0;
    for (int i = 0; i < k; ++i) {
      alphas -= 1.0 / (i + 1);
      alpha0 -= alpha_[i];
    }
    cj_ = -alphas / h;
    ck_ = std::max(std::abs(alpha_[kp1 - 1] + alphas - alpha0), alpha_[kp1 - 1]);
    for (int j = 0; j <= kp1; ++j) phi_star_.col(j) = (j < kp1 ? beta_[j] : 1.0) * phi_.col(j);
  }

  void predict(int k) {
    y_pred_ = phi_star_.col(0);
    yp_new_.setZero();
    for (int j = 1; j <= k; ++j) {
      y_pred_ += phi_star_.col(j);
      yp_new_ += gamma_[j] * phi_star_.col(j);
    }
    y_new_ = y_pred_;
    e_.setZero();
  }

  // Iteration matrix dF/dy + cj dF/dy' at the predicted point; returns true if (re)computed.
  bool ensure_matrix(double h) {
    (void)h;
    if (matrix_valid_ && cj_ / cjold_ >= 0.6 && cj_ / cjold_ <= 1.0 / 0.6) return false;
    auto& E = lu_.matrix();
    const double tn = t_ + h_;
    if (dae_.dF_dy && dae_.dF_dyp) {
      dFdy_.setZero();
      dFdyp_.setZero();
      dae_.dF_dy(tn, y_new_, yp_new_, dFdy_);
      dae_.dF_dyp(tn, y_new_, yp_new_, dFdyp_);
      if (dFdy_.rows() != n_ || dFdy_.cols() != n_ || dFdyp_.rows() != n_ ||
          dFdyp_.cols() != n_) {  // a callback resized its matrix: refuse the step
        dFdy_.setZero(n_, n_);
        dFdyp_.setZero(n_, n_);
        matrix_valid_ = false;
        return true;
      }
      E = dFdy_ + cj_ * dFdyp_;
    } else {
      // DASSL's difference quotient along (e_j, cj e_j)
      dae_.F(tn, y_new_, yp_new_, res0_);
      ++stats_.nfev_jac;
      ytmp_ = y_new_;
      yptmp_ = yp_new_;
      for (int j = 0; j < n_; ++j) {
        const double del = std::sqrt(kEps) *
                           std::max({std::abs(y_new_[j]), std::abs(h_ * yp_new_[j]), wt_[j]}) *
                           (h_ * yp_new_[j] < 0 ? -1.0 : 1.0);
        const double dy = (y_new_[j] + del) - y_new_[j];
        ytmp_[j] = y_new_[j] + dy;
        yptmp_[j] = yp_new_[j] + cj_ * dy;
        dae_.F(tn, ytmp_, yptmp_, delta_);
        ++stats_.nfev_jac;
        E.col(j) = (delta_ - res0_) / dy;
        ytmp_[j] = y_new_[j];
        yptmp_[j] = yp_new_[j];
      }
    }
    ++stats_.njac;
    ++stats_.nlu;
    cjold_ = cj_;
    s_ = 100.0;
    matrix_nonfinite_ = !E.allFinite();
    matrix_valid_ = !matrix_nonfinite_ && lu_.factor();
    return true;
  }

  // Returns 0 converged, 1 not converged, 2 non-finite residual.
  int correct(int k) {
    (void)k;
    const double pnorm = wnorm(y_pred_);
    double oldnrm = 0.0;
    const double scale = 2.0 / (1.0 + cj_ / cjold_);
    for (int m = 0; m < opt_.max_newton_iterations; ++m) {
      if (residual(t_ + h_, y_new_, yp_new_, delta_) != ResidualCheck::Ok) return 2;
      lu_.solve_in_place(delta_);
      ++stats_.nsol;
      ++stats_.nnewton;
      if (cj_ != cjold_) delta_ *= scale;
      y_new_ -= delta_;
      e_ -= delta_;
      yp_new_ -= cj_ * delta_;
      const double delnrm = wnorm(delta_);
      if (!std::isfinite(delnrm)) return 2;
      if (m == 0) {
        oldnrm = delnrm;
        if (delnrm <= 100 * kEps * pnorm) return 0;
      } else {
        const double rate = std::pow(delnrm / oldnrm, 1.0 / m);
        if (rate > 0.9) return 1;
        s_ = rate / (1.0 - rate);
      }
      if (s_ * delnrm <= opt_.newton_tolerance) return 0;
    }
    return 1;
  }

  // The algebraic directions: Q = orthogonal projector onto ker dF/dy' at (t0, y0, yp0), and
  // dF/dy' there (analytic, else by differences; used by error_norm() when the Jacobian is by
  // differences). No algebraic directions (an ODE): no filter.
  void setup_algebraic_filter(double t0, const Vector& y0) {
    filter_ = false;
    dFdyp0_.setZero(n_, n_);
    if (dae_.dF_dyp) {
      dae_.dF_dyp(t0, y0, yp0_, dFdyp0_);
    } else {
      dae_.F(t0, y0, yp0_, res0_);
      yptmp_ = yp0_;
      for (int j = 0; j < n_; ++j) {
        const double del = std::sqrt(kEps) * std::max(1.0, std::abs(yp0_[j]));
        yptmp_[j] = yp0_[j] + del;
        dae_.F(t0, y0, yptmp_, delta_);
        dFdyp0_.col(j) = (delta_ - res0_) / del;
        yptmp_[j] = yp0_[j];
      }
      stats_.nfev_jac += n_ + 1;
    }
    if (!dFdyp0_.allFinite()) return;
    // diagonal dF/dy' (semi-explicit problems, zero rows and columns): Q selects the zeros
    const bool diagonal = (dFdyp0_ - Matrix(dFdyp0_.diagonal().asDiagonal())).isZero(0.0);
    if (diagonal) {
      const Vector d = dFdyp0_.diagonal();
      const int zeros = static_cast<int>((d.array() == 0.0).count());
      if (zeros == 0 || zeros == n_) return;
      Q_ = Matrix((d.array() == 0.0).cast<double>().matrix().asDiagonal());
      filter_ = true;
      return;
    }
    // general: N = the right singular vectors of the zero singular values (divide and conquer
    // SVD: Jacobi on small matrices, fast on large ones), Q = N N^T
    Eigen::BDCSVD<Matrix> svd(dFdyp0_, Eigen::ComputeFullV);
    const Vector& sv = svd.singularValues();
    int rank = 0;
    for (int i = 0; i < n_; ++i)
      if (sv[i] > 1e3 * kEps * n_ * sv[0]) ++rank;
    if (rank == n_ || rank == 0) return;
    const Matrix N = svd.matrixV().rightCols(n_ - rank);
    Q_ = N * N.transpose();
    filter_ = true;
  }

  // Error norm of a difference v (weighted RMS as wnorm). With the algebraic filter, the
  // algebraic directions of v are replaced by those of P v, P = E^{-1} cj dF/dy' (E the
  // iteration matrix): the algebraic components' response to the error of the differential
  // ones, the quantity a local error estimate of an index-1 algebraic variable has to see;
  // a share kAlgebraicSmoothness of the direct difference Q v is kept (root sum of squares):
  // it measures how well the interpolant follows the algebraic variables (dense output,
  // predictor, explicit time dependence of the algebraic equations, invisible to P v).
  double error_norm(const Vector& v) {
    if (!filter_) return wnorm(v);
    const Matrix& Mp = (dae_.dF_dy && dae_.dF_dyp) ? dFdyp_ : dFdyp0_;
    ef_.noalias() = cj_ * (Mp * v);
    lu_.solve_in_place(ef_);
    ++stats_.nsol;
    ftmp_ = ef_ - v;
    ef_ = v;
    ef_.noalias() += Q_ * ftmp_;  // (I - Q) v + Q P v
    ftmp_.noalias() = Q_ * v;
    double sum = 0.0;
    for (int i = 0; i < n_; ++i) {
      const double a = ef_[i] / wt_[i], b = kAlgebraicSmoothness * ftmp_[i] / wt_[i];
      sum += (a * a + b * b) * mask_[i];
    }
    return std::sqrt(sum / masked_count_);
  }

  // DASSL block 4: error test quantities, candidate lower order (norms by error_norm).
  double error_estimate(int k) {
    const int kp1 = k + 1;
    const double enorm = error_norm(e_);
    const double erk = sigma_[kp1 - 1] * enorm;
    terk_ = (k + 1) * erk;
    est_ = erk;
    knew_ = k;
    terkm1_ = 0.0;
    erkm1_ = 0.0;
    if (k > 1 && opt_.fixed_order == 0) {
      delta_ = phi_star_.col(kp1 - 1) + e_;
      erkm1_ = sigma_[k - 1] * error_norm(delta_);
      terkm1_ = k * erkm1_;
      bool lower;
      if (k > 2) {
        delta_ += phi_star_.col(k - 1);
        const double erkm2 = sigma_[k - 2] * error_norm(delta_);
        const double terkm2 = (k - 1) * erkm2;
        lower = std::max(terkm1_, terkm2) <= terk_;
      } else {
        lower = terkm1_ <= 0.5 * terk_;
      }
      if (lower) {
        knew_ = k - 1;
        est_ = erkm1_;
      }
    }
    return ck_ * enorm;
  }

  // DASSL block 6: order and step for the next step (before the difference update).
  void choose_next_order_and_step(int kdiff) {
    const int k = kold_;  // order of the step just taken
    const int kp1 = k + 1;
    if (knew_ == k - 1 || k == maxord_) phase_ = 1;
    double h = h_;
    if (phase_ == 0) {  // initial phase: raise the order and double the step
      k_ = k + 1;
      h_next_ = 2.0 * h;
      return;
    }
    int knext = k;
    double est = est_;
    if (opt_.fixed_order == 0) {
      if (knew_ == k - 1) {
        knext = k - 1;
        est = erkm1_;
      } else if (!(k == maxord_ || kp1 >= ns_ || kdiff == 1)) {
        delta_ = e_ - phi_.col(k + 1);
        const double terkp1 = error_norm(delta_);
        const double erkp1 = terkp1 / (k + 2);
        if (k == 1) {
          if (terkp1 < 0.5 * terk_) {
            knext = k + 1;
            est = erkp1;
          }
        } else if (terkm1_ <= std::min(terk_, terkp1)) {
          knext = k - 1;
          est = erkm1_;
        } else if (!(terkp1 >= terk_ || k == maxord_)) {
          knext = k + 1;
          est = erkp1;
        }
      }
    } else if (k < maxord_) {
      knext = k + 1;  // fixed order: raise until reached
    }
    k_ = knext;
    const double r = std::pow(2.0 * est + 1e-4, -1.0 / (knext + 1));
    if (r >= 2.0)
      h_next_ = 2.0 * h;
    else if (r <= 1.0)
      h_next_ = h * std::clamp(r, 0.5, 0.9);
    else
      h_next_ = h;
  }

  const ImplicitDae& dae_;
  BdfOptions opt_;
  int n_;
  Vector yp0_;
  int maxord_ = 5;
  int k_ = 1, kold_ = 0, ns_ = 0, ns_new_ = 0, phase_ = 0, error_failures_ = 0, knew_ = 1;
  double t_ = 0, h_ = 0, hold_ = 0, h_next_ = 0;
  double rtol_ = 0, cj_ = 0, cjold_ = 0, ck_ = 0, s_ = 100;
  double est_ = 0, terk_ = 0, terkm1_ = 0, erkm1_ = 0;
  bool filter_ = false, rejected_ = false, matrix_valid_ = false, matrix_nonfinite_ = false,
       history_started_ = false;
  std::array<double, kMaxOrder + 2> psi_{}, psi_new_{}, alpha_{}, beta_{}, gamma_{}, sigma_{};
  Matrix Q_, dFdyp0_, phi_, phi_star_, dFdy_, dFdyp_;
  Vector ef_, ftmp_, y_, yp_, y_new_, yp_new_, y_pred_, e_, delta_, wt_, res0_, ytmp_, yptmp_,
      atol_, mask_;
  double masked_count_ = 1;
  RealLU lu_;
  Stats stats_;
};

}  // namespace

std::unique_ptr<Stepper> make_bdf(const ImplicitDae& dae, const Vector& yp0,
                                  const BdfOptions& options) {
  return std::make_unique<Bdf>(dae, yp0, options);
}

}  // namespace daekit
