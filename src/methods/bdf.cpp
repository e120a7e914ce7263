// bdf: the variable-order, variable-step BDF of DASSL / IDA (see methods/bdf.hpp for the
// mathematics), on the shared services: ImplicitSystem (guarded F, the iteration-matrix source,
// M's structure for mass-matrix problems), the linear-solver backends, NewtonMonitor
// (FromFirst) and the integrator's error weights.
#include "daekit/methods/bdf.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "linalg/dense_kernels.hpp"
#include "methods/factory.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/newton.hpp"
#include "nonlinear/reuse.hpp"
#include "nonlinear/systems.hpp"

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
// accuracy of the PI valve; 1 does not oscillate either but is more conservative (Akzo scd
// +0.2..0.9 per tolerance) and takes 15-25 % more steps on the transistor and 12557 instead of
// 6500 on Robertson-DAE at 1e-10; 0.3 is the compromise.
constexpr double kAlgebraicSmoothness = 0.3;
// The general (non-diagonal dF/dy') algebraic filter needs a dense SVD and dense n x n
// products: above this size the filter is left off (reported in the method's notes).
constexpr int kMaxDenseFilter = 1000;

class Bdf final : public Method {
 public:
  Bdf(const BdfOptions& opt, const MethodInput& in) : opt_(opt), stats_(*in.stats) {
    const LinearSolverKind kind = in.linear_solver;
    if (in.implicit_form) {
      sys_.emplace(*in.implicit_form, kind, *in.guard, *in.stats);
      yp0_ = *in.yp0;
    } else {
      const MassMatrixDae& dae = *in.mass_form;
      if (dae.max_index() >= 3)
        throw InvalidArgument("solve: BDF does not take index-3 problems ('" + dae.name +
                              "' has index-3 components): BDF codes fail at index 3 "
                              "(NOTES-004.md ch. 4); use radau5, or an index-2/index-1 "
                              "formulation");
      sys_.emplace(dae, kind, *in.guard, *in.stats);
    }
    n_ = sys_->n();
    maxord_ = opt.fixed_order > 0 ? opt.fixed_order : opt.max_order;
    phi_.setZero(n_, kMaxOrder + 2);
    phi_star_.setZero(n_, kMaxOrder + 2);
    for (Vector* v : {&y_, &yp_, &y_new_, &yp_new_, &y_pred_, &e_, &ef_, &ftmp_, &delta_, &res0_})
      v->setZero(n_);
    if (yp0_.size() != n_) yp0_.setZero(n_);
    lu_ = sys_->make_solver();
    E_ = &lu_->matrix();
    NewtonMonitor::Settings ns;
    ns.max_iterations = opt.max_newton_iterations;
    ns.tolerance = opt.newton_tolerance;
    ns.rate_estimate = NewtonMonitor::RateEstimate::FromFirst;
    ns.divergence = 0.9;
    newton_ = NewtonMonitor(ns);
  }

  const char* name() const override { return "bdf"; }
  int order() const override { return kold_; }
  int error_order() const override { return k_ + 1; }

  std::vector<std::string> caveats(const Tolerances&) const override {
    for (int i = 0; i < n_; ++i)
      if (sys_->index_of(i) >= 2)
        return {
            "bdf leaves the index-2 components out of the error test (DASSL's practice): "
            "their error is not controlled and reaches the others through the constraint "
            "forces, so the global error can exceed the tolerance many times (knife-edge at "
            "rtol = 5.6e-9: lambda off by up to 1.5e-3, x by 6e-7; docs/benchmarks.md)"};
    return {};
  }

  std::vector<int> default_error_test_exclusions() const override {
    std::vector<int> out;
    for (int i = 0; i < n_; ++i) {
      const bool algebraic = !sys_->is_differential(i);
      if ((opt_.exclude_algebraic_from_error && algebraic) || sys_->index_of(i) >= 2)
        out.push_back(i);
    }
    if (static_cast<int>(out.size()) == n_) out.clear();  // nothing left: keep them all
    return out;
  }

  double initial_step(double t_end) override {
    // DASSL: h0 = 0.001 |t_end - t0|, reduced so that |h0 y'(t0)|_wrms <= 0.5
    const double span = std::abs(t_end - t_);
    double h = 1e-3 * span;
    const double ypnorm = weights_->norm(yp0_);
    if (ypnorm > 0.5 / h) h = 0.5 / ypnorm;
    return std::max(h, 4 * kEps * std::max(1.0, std::abs(t_)));
  }

  std::string check_consistency(double t0, const Vector& y0, double tol) override {
    if (MassMatrixSystem* m = sys_->mass_form()) return daekit::check_consistency(*m, t0, y0, tol);
    Vector res(n_);
    if (!sys_->F(t0, y0, yp0_, res)) return sys_->guard().failure().describe();
    for (int i = 0; i < n_; ++i)
      if (!(std::abs(res[i]) <= tol))
        return "equation " + std::to_string(i) + " has residual |F_" + std::to_string(i) +
               "(t0, y0, yp0)| = " + std::to_string(std::abs(res[i])) + " > " +
               std::to_string(tol) + " (compute consistent values with daekit::initialize)";
    return {};
  }

  JacobianCheck check_jacobian(double t0, const Vector& y0) override {
    if (MassMatrixSystem* m = sys_->mass_form()) return daekit::check_jacobian(*m, t0, y0);
    return daekit::check_jacobian(*sys_, t0, y0, yp0_);
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights,
             std::string& message) override {
    weights_ = &weights;
    if (MassMatrixSystem* m = sys_->mass_form()) {
      if (!initial_derivative(*m, t0, y0, yp0_)) return false;
    }
    return start_at(t0, y0, message);
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    if (kold_ == 0) start_history(h);
    const int k = k_;
    compute_coefficients(h, k);
    predict(k);
    // corrector (modified Newton); retried once with a fresh matrix if it used an old one
    for (;;) {
      const bool fresh = ensure_matrix();
      if (!matrix_valid_) {
        // a failed Jacobian is first retried at the same step (a transient failure of the
        // user's Jacobian must not shrink h: the step-doubling start then never got going),
        // then with the step divided by 4 as DASSL does
        if (matrix_failed_)
          return fail(AttemptOutcome::NonFinite, ++jacobian_failures_ == 1 ? 1.0 : 0.25,
                      "F or its Jacobian failed (NaN/Inf)");
        return fail(AttemptOutcome::Singular, 0.25, "iteration matrix singular");
      }
      jacobian_failures_ = 0;
      const int outcome = correct();
      if (outcome == 0) break;
      if (outcome == 2) return fail(AttemptOutcome::NonFinite, 0.25, "F returned NaN/Inf");
      ++stats_.nnewton_fail;
      if (fresh) return fail(AttemptOutcome::NewtonFailed, 0.25, "Newton iteration failed");
      matrix_valid_ = false;  // stale matrix: recompute and retry with the same h
      predict(k);
    }
    StepAttempt res;
    res.err = error_estimate(k);
    res.newton_iterations = newton_.iterations();
    res.newton_rate = newton_.rate();
    return res;
  }

  Vector& candidate() override { return y_new_; }

  bool accept() override {
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
    return true;
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
  void derivative(VecOut out) const override { out = kold_ == 0 ? yp0_ : yp_; }

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

  bool restart(double t, const Vector& y, std::string& message) override {
    // consistent re-initialisation (differential components kept), then order 1 (as DNA)
    if (MassMatrixSystem* m = sys_->mass_form()) {
      Vector yr = y;
      if (!reinitialize(*m, t, yr, message)) {
        message = "re-initialisation at the event failed: " + message;
        return false;
      }
      if (!initial_derivative(*m, t, yr, yp0_)) {
        message = "y' at the event: " + sys_->guard().failure().describe();
        return false;
      }
      return start_at(t, yr, message);
    }
    const InitResult init =
        initialize(*sys_, t, y, yp_, InitMode::DifferentialGiven, InitOptions{});
    if (!init.ok) {
      message = "re-initialisation at the event failed: " + init.message;
      return false;
    }
    yp0_ = init.yp;
    return start_at(t, init.y, message);
  }

  DenseSegment segment() const override {
    // The interpolant in Newton form: nodes t_n, t_n - psi_1, ..., i.e. theta_j = -psi_j / h.
    DenseSegment s;
    s.t_left = t_ - hold_;
    s.t_right = t_;
    const int m = kold_;
    s.coeffs.resize(n_, m + 1);
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

  Vector& parameters() override { return sys_->p(); }
  bool has_monitor() const override {
    return sys_->mass_form() && sys_->mass_form()->has_monitor();
  }
  bool monitor(double t, const Vector& y, ConstraintResiduals& out) override {
    return sys_->mass_form() && sys_->mass_form()->monitor(t, y, out);
  }
  std::string linear_solver() const override { return lu_->name(); }
  int jacobian_colours() const override { return sys_->jacobian_colours(); }

 private:
  bool start_at(double t0, const Vector& y0, std::string& message) {
    if (opt_.filter_algebraic_error && !setup_algebraic_filter(t0, y0)) {
      message = "dF/dy' at t0: " + sys_->guard().failure().describe();
      return false;
    }
    t_ = t0;
    y_ = y0;
    yp_ = yp0_;
    if (!sys_->F(t_, y_, yp_, res0_)) return false;
    k_ = 1;
    kold_ = 0;
    hold_ = 0.0;
    ns_ = 0;
    phase_ = 0;
    error_failures_ = 0;
    knew_ = 1;
    matrix_valid_ = false;
    cjold_ = 0.0;
    newton_.reset_factor(100.0);
    return true;
  }

  StepAttempt fail(AttemptOutcome outcome, double factor, const char* detail) {
    StepAttempt r;
    r.outcome = sys_->guard().fatal() ? AttemptOutcome::CallbackError : outcome;
    r.h_factor = factor;
    r.detail = detail;
    r.newton_iterations = newton_.iterations();
    r.newton_rate = newton_.rate();
    phase_ = 1;
    matrix_valid_ = false;  // DASSL: new iteration matrix after any failure
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
    const long ld = phi_.rows();
    for (int j = 0; j <= kp1; ++j) {
      const double b = j < kp1 ? beta_[j] : 1.0;
      const double* from = phi_.data() + j * ld;
      double* to = phi_star_.data() + j * ld;
      for (int i = 0; i < n_; ++i) to[i] = b * from[i];
    }
  }

  // y^(0) = sum_{j<=k} phi*_j, y'^(0) = sum_j gamma_j phi*_j: one pass over the components
  // (the column-by-column Eigen expressions cost more than the arithmetic for small n)
  void predict(int k) {
    const double* phi = phi_star_.data();
    const long ld = phi_star_.rows();
    for (int i = 0; i < n_; ++i) {
      double y = phi[i], yp = 0.0;
      for (int j = 1; j <= k; ++j) {
        const double v = phi[j * ld + i];
        y += v;
        yp += gamma_[j] * v;
      }
      y_pred_[i] = y;
      y_new_[i] = y;
      yp_new_[i] = yp;
      e_[i] = 0.0;
    }
  }

  // Iteration matrix dF/dy + cj dF/dy' at the predicted point; returns true if (re)computed.
  bool ensure_matrix() {
    if (matrix_valid_ && reuse_.keep_factorisation(cj_ / cjold_)) return false;
    const double tn = t_ + h_;
    matrix_failed_ = false;
    matrix_valid_ = false;
    cjold_ = cj_;
    newton_.reset_factor(100.0);
    if (sys_->jacobian_by_differences()) {  // the base value of the differences
      const bool ok = sys_->F(tn, y_new_, yp_new_, res0_);
      --stats_.nfev;
      ++stats_.nfev_jac;
      if (!ok) {
        matrix_failed_ = true;
        return true;
      }
    }
    // typical magnitudes of the increments: the change |h y'| over the step (DASSL)
    ftmp_ = (h_ * yp_new_).cwiseAbs();
    if (!sys_->iteration_matrix(tn, y_new_, yp_new_, cj_, res0_, &ftmp_, *E_)) {
      matrix_failed_ = true;
      return true;
    }
    ++stats_.nlu;
    matrix_valid_ = lu_->factor();
    return true;
  }

  // The norm of the Newton convergence test: every component, those left out of the error
  // test (the index-2 multipliers) weighted by min(1, |h|) as RADAU5 scales index-2
  // components by h. A multiplier is computed from the residual through a 1/h (its increment
  // moves y by ~h times as much) and carries a round-off floor ~ eps |F| / h: unscaled, that
  // floor exceeds the weights at tight tolerances and small h (jay-index2 at rtol = atol = h0 =
  // 3.2e-9: Newton's increments stalled at rate ~1, every other step failed, h stuck at 1e-12).
  double newton_norm(const Vector& v) const {
    if (weights_->test_count() == n_) return weights_->norm_all(v);
    const double s = std::min(1.0, std::abs(h_));
    const Vector& w = weights_->w();
    double sum = 0.0;
    for (int i = 0; i < n_; ++i) {
      const double r = (weights_->in_test(i) ? v[i] : s * v[i]) / w[i];
      sum += r * r;
    }
    return std::sqrt(sum / static_cast<double>(n_));
  }

  // Returns 0 converged, 1 not converged, 2 non-finite residual. The convergence test uses
  // every component (newton_norm), also those left out of the error test.
  int correct() {
    const double pnorm = newton_norm(y_pred_);
    const double scale = 2.0 / (1.0 + cj_ / cjold_);
    newton_.begin(newton_.rate(), 100 * kEps * pnorm);
    for (;;) {
      if (!sys_->F(t_ + h_, y_new_, yp_new_, delta_)) return 2;
      lu_->solve_in_place(delta_);
      ++stats_.nsol;
      ++stats_.nnewton;
      if (cj_ != cjold_) delta_ *= scale;
      y_new_ -= delta_;
      e_ -= delta_;
      yp_new_ -= cj_ * delta_;
      switch (newton_.next(newton_norm(delta_))) {
        case NewtonMonitor::Verdict::Converged:
          return 0;
        case NewtonMonitor::Verdict::NonFinite:
          return 2;
        case NewtonMonitor::Verdict::Continue:
          break;
        default:
          return 1;
      }
    }
  }

  // The algebraic directions: Q = orthogonal projector onto ker dF/dy' at (t0, y0, yp0). A
  // diagonal dF/dy' (semi-explicit problems, zero rows and columns, every mass-matrix problem
  // with a diagonal M) gives a diagonal Q (a mask); otherwise Q = N N^T from the SVD (n up to
  // kMaxDenseFilter). No algebraic directions (an ODE): no filter.
  bool setup_algebraic_filter(double t0, const Vector& y0) {
    filter_ = Filter::None;
    if (std::optional<Vector> d = sys_->constant_diagonal_dF_dyp()) {
      return setup_diagonal_filter(*d);
    }
    if (n_ > kMaxDenseFilter) return true;
    if (!sys_->dF_dyp_dense(t0, y0, yp0_, dFdyp0_)) return false;
    if (!dFdyp0_.allFinite()) return true;
    const bool diagonal = (dFdyp0_ - Matrix(dFdyp0_.diagonal().asDiagonal())).isZero(0.0);
    if (diagonal) return setup_diagonal_filter(dFdyp0_.diagonal());
    Matrix N, L;
    const int m = null_spaces(dFdyp0_, 1e3 * kEps * n_, N, L);
    if (m == n_ || m == 0) return true;
    Q_ = N * N.transpose();
    filter_ = Filter::Dense;
    return true;
  }

  bool setup_diagonal_filter(const Vector& d) {
    const int zeros = static_cast<int>((d.array() == 0.0).count());
    if (zeros == 0 || zeros == n_) return true;
    q_ = (d.array() == 0.0).cast<double>().matrix();
    filter_ = Filter::Diagonal;
    return true;
  }

  // Error norm of a difference v (weighted RMS over the error-test components). With the
  // algebraic filter, the algebraic directions of v are replaced by those of P v,
  // P = E^{-1} cj dF/dy' (E the iteration matrix): the algebraic components' response to the
  // error of the differential ones, the quantity a local error estimate of an index-1 algebraic
  // variable has to see; a share kAlgebraicSmoothness of the direct difference Q v is kept
  // (root sum of squares): it measures how well the interpolant follows the algebraic
  // variables (dense output, predictor, explicit time dependence of the algebraic equations,
  // invisible to P v).
  double error_norm(const Vector& v) {
    if (filter_ == Filter::None) return weights_->norm(v);
    if (MassMatrixSystem* m = sys_->mass_form()) {
      m->mass().apply(v, ef_);
      ef_ *= cj_;
    } else {
      ef_.noalias() = cj_ * (dFdyp0_ * v);
    }
    lu_->solve_in_place(ef_);
    ++stats_.nsol;
    ftmp_ = ef_ - v;
    if (filter_ == Filter::Diagonal) {
      ef_ = v + q_.cwiseProduct(ftmp_);  // (I - Q) v + Q P v
      ftmp_ = q_.cwiseProduct(v);
    } else {
      ef_ = v;
      ef_.noalias() += Q_ * ftmp_;
      ftmp_.noalias() = Q_ * v;
    }
    const double* wt = weights_->w().data();
    double sum = 0.0;
    const bool all = weights_->test_count() == n_;
    for (int i = 0; i < n_; ++i) {
      if (!all && !weights_->in_test(i)) continue;
      const double a = ef_[i] / wt[i], b = kAlgebraicSmoothness * ftmp_[i] / wt[i];
      sum += a * a + b * b;
    }
    return std::sqrt(sum / std::max(1, weights_->test_count()));
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

  enum class Filter { None, Diagonal, Dense };

  std::optional<ImplicitSystem> sys_;
  BdfOptions opt_;
  Stats& stats_;
  int n_ = 0;
  const ErrorWeights* weights_ = nullptr;
  NewtonMonitor newton_;
  const ReusePolicy reuse_ = ReusePolicy::dassl();
  Vector yp0_;
  int maxord_ = 5;
  int k_ = 1, kold_ = 0, ns_ = 0, ns_new_ = 0, phase_ = 0, error_failures_ = 0, knew_ = 1;
  double t_ = 0, h_ = 0, hold_ = 0, h_next_ = 0;
  double cj_ = 0, cjold_ = 0, ck_ = 0;
  double est_ = 0, terk_ = 0, terkm1_ = 0, erkm1_ = 0;
  Filter filter_ = Filter::None;
  bool rejected_ = false, matrix_valid_ = false, matrix_failed_ = false;
  int jacobian_failures_ = 0;
  std::array<double, kMaxOrder + 2> psi_{}, psi_new_{}, alpha_{}, beta_{}, gamma_{}, sigma_{};
  Matrix Q_, dFdyp0_, phi_, phi_star_;
  Vector q_, ef_, ftmp_, y_, yp_, y_new_, yp_new_, y_pred_, e_, delta_, res0_;
  std::unique_ptr<RealLinearSolver> lu_;
  StructuredMatrix<double>* E_ = nullptr;
};

}  // namespace

MethodRegistration bdf_method() {
  MethodRegistration r;
  r.info.name = "bdf";
  r.info.title = "variable-order (1-5), variable-step BDF in DASSL/IDA form, index 1-2";
  r.info.reference = "Brenan-Campbell-Petzold ch. 5 (DASSL); NOTES-004.md ch. 4";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.implicit_form = true;
  c.max_index = 2;
  c.order = 5;
  c.variable_order = true;
  c.dense_output_order = 5;
  c.own_step_control = true;
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const BdfOptions o = method_options<BdfOptions>(in, "bdf");
    o.validate();
    return std::make_unique<Bdf>(o, in);
  };
  return r;
}

}  // namespace daekit
