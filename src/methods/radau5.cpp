// radau5: Radau IIA(3) after Hairer and Wanner's RADAU5 (see methods/radau5.hpp for the
// mathematics), on the shared services: MassMatrixSystem (guarded f, Jacobian source, mass
// structure), the linear-solver backends (real and complex iteration matrices), NewtonMonitor
// and the integrator's error weights.
#include "daekit/methods/radau5.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>

#include "daekit/tableaus/runge_kutta.hpp"
#include "methods/factory.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/newton.hpp"
#include "nonlinear/reuse.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

void Radau5Options::validate() const {
  if (max_newton_iterations < 1)
    throw InvalidArgument("radau5: max_newton_iterations must be >= 1, got " +
                          std::to_string(max_newton_iterations));
  if (newton_tolerance < 0 || !std::isfinite(newton_tolerance))
    throw InvalidArgument("radau5: newton_tolerance must be >= 0 (0 = automatic)");
  if (!(jacobian_reuse_theta > 0) || !(jacobian_reuse_theta < 1))
    throw InvalidArgument("radau5: jacobian_reuse_theta must lie in (0, 1)");
  if (!(lu_reuse_low > 0) || !(lu_reuse_low <= 1.0) || !(lu_reuse_high >= 1.0))
    throw InvalidArgument("radau5: need 0 < lu_reuse_low <= 1 <= lu_reuse_high");
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

/// Constants of the 3-stage Radau IIA method derived from its tableau: the transformation of
/// A^{-1} and the weights of the embedded error formula (see runge_kutta.hpp).
struct RadauConstants {
  double c[3];
  Matrix T, TI;
  double t[9], ti[9];  // T and T^{-1} row by row (the fused loops read them)
  double gamma, alpha, beta;
  double e[3];
  RadauConstants() {
    const RungeKuttaTableau tab = radau_iia(3);
    const TransformedTableau tt = transform_inverse(tab);
    for (int i = 0; i < 3; ++i) c[i] = tab.c[i];
    T = tt.T;
    TI = tt.T_inverse;
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < 3; ++q) {
        t[3 * r + q] = T(r, q);
        ti[3 * r + q] = TI(r, q);
      }
    gamma = tt.gamma;
    alpha = tt.alpha[0];
    beta = tt.beta[0];
    const Vector ev = embedded_error_weights(tab, gamma);
    for (int i = 0; i < 3; ++i) e[i] = ev[i];
  }
};

const RadauConstants& constants() {
  static const RadauConstants k;
  return k;
}

class Radau5 final : public Method {
 public:
  Radau5(const MassMatrixDae& dae, const Radau5Options& options, const MethodInput& in)
      : sys_(dae, in.linear_solver, *in.guard, *in.stats),
        opt_(options),
        k_(constants()),
        n_(dae.n),
        stats_(*in.stats) {
    const int n = n_;
    y_.resize(n);
    f0_.resize(n);
    y_new_.resize(n);
    f_new_.resize(n);
    tmp_.resize(n);
    tmp2_.resize(n);
    err_vec_.resize(n);
    scal_.resize(n);
    ctmp_.resize(n);
    sys_.allocate_jacobian(J_);
    Z_.setZero(n, 3);
    W_.setZero(n, 3);
    MW_.setZero(n, 3);
    F_.setZero(n, 3);
    R_.setZero(n, 3);
    cont_.setZero(n, 4);
    lu_real_ = sys_.make_solver<double>();
    lu_complex_ = sys_.make_solver<std::complex<double>>();
    index_.resize(n);
    for (int i = 0; i < n; ++i) index_[i] = dae.index_of(i);
    max_index_ = dae.max_index();
    NewtonMonitor::Settings ns;
    ns.max_iterations = opt_.max_newton_iterations;
    ns.rate_estimate = NewtonMonitor::RateEstimate::Successive;
    ns.divergence = 0.99;
    ns.predict_slow = true;
    ns.memory = 0.8;
    newton_ = NewtonMonitor(ns);
    reuse_ = ReusePolicy::radau5(opt_.jacobian_reuse_theta, opt_.lu_reuse_low, opt_.lu_reuse_high);
  }

  const char* name() const override { return "radau5"; }
  int order() const override { return 5; }
  int error_order() const override { return 4; }  // err ~ h^4 as in RADAU5 (quot = err^(1/4))
  Projection requested_projection() const override { return opt_.projection; }

  Tolerances used_tolerances(const Tolerances& given) const override {
    if (!opt_.transform_tolerances) return given;
    Tolerances used;
    used.rtol = 0.1 * std::pow(given.rtol, 2.0 / 3.0);
    used.atol = given.atol * (used.rtol / given.rtol);
    return used;
  }

  std::vector<std::string> caveats(const Tolerances& given) const override {
    std::vector<std::string> out;
    const double used = used_tolerances(given).rtol;
    if (used > 2 * given.rtol) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "radau5 controls the local error with rtol' = 0.1 rtol^(2/3) = %.3g "
                    "(RADAU5's transformation of rtol = %.3g): errors can exceed rtol "
                    "(Radau5Options::transform_tolerances = false uses rtol as given)",
                    used, given.rtol);
      out.push_back(line);
    }
    if (max_index_ >= 2)
      out.push_back(
          "radau5 scales the error of index-2 and index-3 components by h and h^2 (RADAU5): "
          "their accuracy, and through them the others', is not bounded by the tolerance");
    return out;
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights, std::string&) override {
    weights_ = &weights;
    rtol_ = weights.rtol();
    newton_.settings().tolerance =
        opt_.newton_tolerance > 0 ? opt_.newton_tolerance
                                  : std::max(10 * kEps / rtol_, std::min(0.03, std::sqrt(rtol_)));
    all_in_test_ = weights.test_count() == n_;
    t_ = t0;
    y_ = y0;
    h_last_ = 0.0;
    if (!sys_.f(t_, y_, f0_)) return false;
    reset_state();
    return true;
  }

  StepAttempt attempt(double h) override {
    StepAttempt res;
    const bool after_reject = attempts_since_accept_ > 0;
    ++attempts_since_accept_;
    h_ = h;
    if (need_jac_ || !jac_valid_) {
      if (!compute_jacobian()) return fail(AttemptOutcome::NonFinite, 0.5, "Jacobian failed");
    }
    if (!lu_valid_ || h != h_lu_) {
      if (!factor(h)) {
        lu_valid_ = false;
        need_jac_ = !jac_fresh_;
        return fail(AttemptOutcome::Singular, 0.5, "zero pivot in the LU of the iteration matrix");
      }
    }
    compute_scale(h);
    starting_values(h);
    const int newton = newton_iteration(h, res);
    if (newton < 0) return res;
    res.newton_iterations = newton;
    res.newton_rate = newton_.rate();
    res.safety_scale = std::min(1.0, (1.0 + 2.0 * opt_.max_newton_iterations) /
                                         (newton + 2.0 * opt_.max_newton_iterations));
    res.err = error_estimate(h, after_reject);
    if (sys_.guard().fatal()) return fail(AttemptOutcome::CallbackError, 0.5, "callback failed");
    if (!std::isfinite(res.err)) return fail(AttemptOutcome::NonFinite, 0.5, "error not finite");
    y_new_ = y_ + Z_.col(2);
    if (res.err >= 1.0) need_jac_ = !jac_fresh_;  // RADAU5: a fresh Jacobian after a rejection
    return res;
  }

  Vector& candidate() override { return y_new_; }

  bool accept() override {
    if (!sys_.f(t_ + h_, y_new_, f_new_)) {
      need_jac_ = !jac_fresh_;
      return false;
    }
    update_dense_output();
    t_ += h_;
    h_last_ = h_;
    y_.swap(y_new_);
    f0_.swap(f_new_);
    first_ = false;
    jac_fresh_ = false;
    attempts_since_accept_ = 0;
    return true;
  }

  double adjust_step(double h_last, double h_proposed) override {
    const bool keep_jacobian = reuse_.keep_jacobian(newton_.rate());
    need_jac_ = !keep_jacobian;
    if (keep_jacobian && reuse_.keep_factorisation(h_proposed / h_last)) return h_last;
    return h_proposed;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }

  void derivative(VecOut out) const override {
    if (h_last_ != 0.0) {
      dense_derivative(t_, out);
      return;
    }
    // before the first step: y' from M y' = f where M is diagonal, zero elsewhere
    sys_.mass().solve_diagonal_part(f0_, out);
  }

  void dense(double t, VecOut out) const override {
    const double theta = (t - t_) / h_last_;
    const double x1 = k_.c[1] - 1.0, x2 = k_.c[0] - 1.0;
    out = cont_.col(0) +
          theta * (cont_.col(1) + (theta - x1) * (cont_.col(2) + (theta - x2) * cont_.col(3)));
  }

  void dense_derivative(double t, VecOut out) const override {
    // d/dt of c0 + th (c1 + (th - x1)(c2 + (th - x2) c3)), th = (t - t_n) / h
    const double th = (t - t_) / h_last_;
    const double x1 = k_.c[1] - 1.0, x2 = k_.c[0] - 1.0;
    out = (cont_.col(1) + (2 * th - x1) * cont_.col(2) +
           (3 * th * th - 2 * th * (x1 + x2) + x1 * x2) * cont_.col(3)) /
          h_last_;
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    t_ = t;
    y_ = y;
    if (!reinitialize(sys_, t_, y_, message)) return false;
    if (!sys_.f(t_, y_, f0_)) {
      message = "f failed at the restart point: " + sys_.guard().failure().describe();
      return false;
    }
    h_last_ = 0.0;
    reset_state();
    return true;
  }

  DenseSegment segment() const override {
    DenseSegment s;
    s.t_left = t_ - h_last_;
    s.t_right = t_;
    s.nodes = {0.0, k_.c[1] - 1.0, k_.c[0] - 1.0};
    s.coeffs = cont_;
    return s;
  }

  Vector& parameters() override { return sys_.p(); }
  bool has_monitor() const override { return sys_.has_monitor(); }
  bool monitor(double t, const Vector& y, ConstraintResiduals& out) override {
    return sys_.monitor(t, y, out);
  }
  bool has_projector() const override { return sys_.has_projector(); }
  bool project(double t, VecOut y, Projection level) override { return sys_.project(t, y, level); }
  std::string check_consistency(double t0, const Vector& y0, double tol) override {
    return daekit::check_consistency(sys_, t0, y0, tol);
  }
  JacobianCheck check_jacobian(double t0, const Vector& y0) override {
    return daekit::check_jacobian(sys_, t0, y0);
  }
  std::string linear_solver() const override { return lu_real_->name(); }
  int jacobian_colours() const override {
    return sys_.dae().jacobian || sys_.dae().sparse_jacobian ? 0 : sys_.jacobian_colours();
  }

 private:
  void reset_state() {
    first_ = true;
    jac_valid_ = jac_fresh_ = lu_valid_ = false;
    need_jac_ = true;
    newton_.reset_factor(1.0);
    newton_.begin(opt_.jacobian_reuse_theta);  // theta reported before the first iteration
    attempts_since_accept_ = 0;
  }

  StepAttempt fail(AttemptOutcome outcome, double factor, const char* detail) {
    StepAttempt res;
    res.outcome = sys_.guard().fatal() ? AttemptOutcome::CallbackError : outcome;
    res.h_factor = factor;
    res.detail = detail;
    res.newton_iterations = newton_.iterations();
    res.newton_rate = newton_.rate();
    if (outcome != AttemptOutcome::Singular) need_jac_ = !jac_fresh_;
    if (outcome == AttemptOutcome::NewtonFailed) ++stats_.nnewton_fail;
    return res;
  }

  bool compute_jacobian() {
    jac_valid_ = jac_fresh_ = sys_.jacobian(t_, y_, f0_, J_);
    need_jac_ = false;
    lu_valid_ = false;
    return jac_valid_;
  }

  // E1 = gamma/h M - J (real), E2 = (alpha + i beta)/h M - J (complex).
  bool factor(double h) {
    sys_.assemble(k_.gamma / h, J_, lu_real_->matrix());
    sys_.assemble(std::complex<double>(k_.alpha / h, k_.beta / h), J_, lu_complex_->matrix());
    ++stats_.nlu;
    h_lu_ = h;
    lu_valid_ = lu_real_->factor() && lu_complex_->factor();
    return lu_valid_;
  }

  // scal_i = w_i / |h|^(index_i - 1): the integrator's weights (atol' + rtol' |y_n|) with
  // RADAU5's index-2/3 scaling.
  void compute_scale(double h) {
    const double ah = std::abs(h);
    const Vector& w = weights_->w();
    for (int i = 0; i < n_; ++i) {
      double s = w[i];
      if (index_[i] == 2) s /= ah;
      if (index_[i] == 3) s /= ah * ah;
      scal_[i] = s;
    }
  }

  // out = in S^T for the 3 x 3 transformations S = T, T^{-1}: out(i, k) = sum_j S(k, j) in(i, j),
  // row by row in one pass (a general matrix product, or three column expressions, cost more
  // than the arithmetic at these sizes).
  void transform(const double* S, const Matrix& in, Matrix& out) const {
    const double* a = in.data();
    double* o = out.data();
    const long n = n_;
    for (long i = 0; i < n; ++i) {
      const double x0 = a[i], x1 = a[n + i], x2 = a[2 * n + i];
      o[i] = S[0] * x0 + S[1] * x1 + S[2] * x2;
      o[n + i] = S[3] * x0 + S[4] * x1 + S[5] * x2;
      o[2 * n + i] = S[6] * x0 + S[7] * x1 + S[8] * x2;
    }
  }

  // Z_i from the previous collocation polynomial at t_n + c_i h, or zero at the first step.
  void starting_values(double h) {
    if (first_ || opt_.start_newton_from_zero) {
      Z_.setZero();
      W_.setZero();
      return;
    }
    const double q = h / h_last_;
    const double x1 = k_.c[1] - 1.0, x2 = k_.c[0] - 1.0;
    const long n = n_;
    const double* c1 = cont_.data() + n;
    const double* c2 = c1 + n;
    const double* c3 = c2 + n;
    double* z = Z_.data();
    for (int k = 0; k < 3; ++k) {
      const double s = k_.c[k] * q, s1 = s - x1, s2 = s - x2;
      double* zk = z + k * n;
      for (long i = 0; i < n; ++i) zk[i] = s * (c1[i] + s1 * (c2[i] + s2 * c3[i]));
    }
    transform(k_.ti, Z_, W_);
  }

  // Simplified Newton on the transformed stage system. Returns the number of iterations, or -1
  // with `res` set to the failure. The residual of the transformed system, its right-hand sides
  // for the real and the complex solve, the increment's norm and the updates of W and Z are
  // each one pass over the components.
  int newton_iteration(double h, StepAttempt& res) {
    newton_.begin(opt_.jacobian_reuse_theta);
    const double g = k_.gamma / h, a = k_.alpha / h, b = k_.beta / h;
    const MassOperator& M = sys_.mass();
    const long n = n_;
    const double* ti = k_.ti;
    for (;;) {
      for (int i = 0; i < 3; ++i) {
        tmp_ = y_ + Z_.col(i);
        if (!sys_.f(t_ + k_.c[i] * h, tmp_, F_.col(i))) {
          res = fail(AttemptOutcome::NonFinite, 0.5, "f failed at a stage of the step");
          return -1;
        }
      }
      // M W (a copy-free view for identity and diagonal M)
      const double* mw = W_.data();
      const double* diag = nullptr;
      if (M.kind() == MassOperator::Kind::Diagonal) diag = M.diagonal().data();
      if (M.kind() == MassOperator::Kind::Structured) {
        for (int k = 0; k < 3; ++k) M.apply(W_.col(k), MW_.col(k));
        mw = MW_.data();
      }
      const double* f = F_.data();
      double* r0 = R_.data();
      std::complex<double>* rc = ctmp_.data();
      for (long i = 0; i < n; ++i) {
        const double f0 = f[i], f1 = f[n + i], f2 = f[2 * n + i];
        const double m = diag ? diag[i] : 1.0;
        const double w0 = m * mw[i], w1 = m * mw[n + i], w2 = m * mw[2 * n + i];
        r0[i] = (ti[0] * f0 + ti[1] * f1 + ti[2] * f2) - g * w0;
        rc[i] = std::complex<double>((ti[3] * f0 + ti[4] * f1 + ti[5] * f2) - (a * w1 - b * w2),
                                     (ti[6] * f0 + ti[7] * f1 + ti[8] * f2) - (b * w1 + a * w2));
      }
      lu_real_->solve_in_place(R_.col(0));
      lu_complex_->solve_in_place(ctmp_);
      ++stats_.nsol;
      ++stats_.nnewton;
      // (component by component within each stage, as RADAU5 sums)
      double sum = 0.0;
      const double* sc = scal_.data();
      for (long i = 0; i < n; ++i) {
        const double q = r0[i] / sc[i];
        sum += q * q;
      }
      for (long i = 0; i < n; ++i) {
        const double q = rc[i].real() / sc[i];
        sum += q * q;
      }
      for (long i = 0; i < n; ++i) {
        const double q = rc[i].imag() / sc[i];
        sum += q * q;
      }
      const double dyno = std::sqrt(sum / (3.0 * n_));
      const NewtonMonitor::Verdict v = newton_.next(dyno);
      switch (v) {
        case NewtonMonitor::Verdict::NonFinite:
          res = fail(AttemptOutcome::NonFinite, 0.5, "Newton increment not finite");
          return -1;
        case NewtonMonitor::Verdict::Diverging:
          res = fail(AttemptOutcome::NewtonFailed, 0.5, "Newton diverges");
          return -1;
        case NewtonMonitor::Verdict::TooSlow:
          res = fail(AttemptOutcome::NewtonFailed, newton_.step_factor(),
                     "Newton converges too slowly");
          return -1;
        default:
          break;
      }
      // W += dW, Z = W T^T
      const double* t = k_.t;
      double* w = W_.data();
      double* z = Z_.data();
      for (long i = 0; i < n; ++i) {
        const double w0 = (w[i] += r0[i]);
        const double w1 = (w[n + i] += rc[i].real());
        const double w2 = (w[2 * n + i] += rc[i].imag());
        z[i] = t[0] * w0 + t[1] * w1 + t[2] * w2;
        z[n + i] = t[3] * w0 + t[4] * w1 + t[5] * w2;
        z[2 * n + i] = t[6] * w0 + t[7] * w1 + t[8] * w2;
      }
      if (v == NewtonMonitor::Verdict::Converged) return newton_.iterations();
      if (v == NewtonMonitor::Verdict::MaxIterations) {
        res = fail(AttemptOutcome::NewtonFailed, 0.5,
                   "Newton did not converge within max_newton_iterations");
        return -1;
      }
    }
  }

  double scaled_norm(const Vector& v) const {
    if (all_in_test_) return std::sqrt((v.array() / scal_.array()).square().sum() / n_);
    double sum = 0.0;
    for (int i = 0; i < n_; ++i)
      if (weights_->in_test(i)) {
        const double r = v[i] / scal_[i];
        sum += r * r;
      }
    return std::sqrt(sum / std::max(1, weights_->test_count()));
  }

  // err = (gamma/h M - J)^{-1} (f(t_n, y_n) + M e^T Z / h), refined at the first step and after
  // a rejection by replacing f(t_n, y_n) with f(t_n, y_n + err) (Hairer-Wanner II, IV.8).
  double error_estimate(double h, bool after_reject) {
    const long n = n_;
    const double* z = Z_.data();
    const double e0 = k_.e[0], e1 = k_.e[1], e2 = k_.e[2];
    double* t1 = tmp_.data();
    for (long i = 0; i < n; ++i) t1[i] = (e0 * z[i] + e1 * z[n + i] + e2 * z[2 * n + i]) / h;
    sys_.mass().apply(tmp_, tmp2_);
    err_vec_ = f0_ + tmp2_;
    lu_real_->solve_in_place(err_vec_);
    ++stats_.nsol;
    double err = std::max(scaled_norm(err_vec_), 1e-10);
    if (err >= 1.0 && (first_ || after_reject)) {
      tmp_ = y_ + err_vec_;
      if (!sys_.f(t_, tmp_, err_vec_)) return err;  // keep the unrefined estimate: rejected
      err_vec_ += tmp2_;
      lu_real_->solve_in_place(err_vec_);
      ++stats_.nsol;
      err = std::max(scaled_norm(err_vec_), 1e-10);
    }
    return err;
  }

  // Newton divided differences of the collocation polynomial through (0, y_n + Z3),
  // (c2 - 1, y_n + Z2), (c1 - 1, y_n + Z1), (-1, y_n) in theta = (t - t_{n+1}) / h: built from
  // the stage values as computed (a projection of the end value is added by the integrator).
  void update_dense_output() {
    const double c1 = k_.c[0], c2 = k_.c[1];
    const long n = n_;
    const double* z = Z_.data();
    const double* y = y_.data();
    double* c = cont_.data();
    for (long i = 0; i < n; ++i) {
      const double z1 = z[i], z2 = z[n + i], z3 = z[2 * n + i];
      const double d1 = (z2 - z3) / (c2 - 1.0);
      const double a = (z1 - z2) / (c1 - c2);  // [x1, x2]
      const double b = (a - z1 / c1) / c2;     // [x1, x2, x3]
      const double d2 = (a - d1) / (c1 - 1.0);
      c[i] = y[i] + z3;
      c[n + i] = d1;
      c[2 * n + i] = d2;
      c[3 * n + i] = d2 - b;
    }
  }

  MassMatrixSystem sys_;
  Radau5Options opt_;
  const RadauConstants& k_;
  int n_;
  Stats& stats_;
  const ErrorWeights* weights_ = nullptr;
  bool all_in_test_ = true;
  NewtonMonitor newton_;
  ReusePolicy reuse_;
  std::vector<int> index_;
  int max_index_ = 1;
  double t_ = 0, h_ = 0, h_last_ = 0, h_lu_ = 0;
  double rtol_ = 0;
  bool first_ = true, jac_valid_ = false, jac_fresh_ = false, need_jac_ = true, lu_valid_ = false;
  int attempts_since_accept_ = 0;
  Vector y_, f0_, y_new_, f_new_, tmp_, tmp2_, err_vec_, scal_;
  Eigen::VectorXcd ctmp_;
  StructuredMatrix<double> J_;
  Matrix Z_, W_, MW_, F_, R_, cont_;
  std::unique_ptr<RealLinearSolver> lu_real_;
  std::unique_ptr<ComplexLinearSolver> lu_complex_;
};

}  // namespace

MethodRegistration radau5_method() {
  MethodRegistration r;
  r.info.name = "radau5";
  r.info.title = "Radau IIA, 3 stages, order 5 (RADAU5), variable step, index 1-3";
  r.info.reference = "Hairer-Wanner II, IV.8 and VI.6 (RADAU5); paper 000 (projection)";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 3;
  c.order = 5;
  c.dense_output_order = 3;
  c.projection = true;
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const Radau5Options o = method_options<Radau5Options>(in, "radau5");
    o.validate();
    return std::make_unique<Radau5>(*in.mass_form, o, in);
  };
  return r;
}

}  // namespace daekit
