#include "daekit/methods/radau5.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "linalg/dense_lu.hpp"
#include "daekit/problem/finite_difference.hpp"
#include "daekit/tableaus/runge_kutta.hpp"

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
  double gamma, alpha, beta;
  double e[3];
  RadauConstants() {
    const RungeKuttaTableau tab = radau_iia(3);
    const TransformedTableau tt = transform_inverse(tab);
    for (int i = 0; i < 3; ++i) c[i] = tab.c[i];
    T = tt.T;
    TI = tt.T_inverse;
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

bool all_finite(const Eigen::Ref<const Matrix>& m) { return m.allFinite(); }

class Radau5 final : public Stepper {
 public:
  Radau5(const MassMatrixDae& dae, const Radau5Options& options)
      : dae_(dae), opt_(options), k_(constants()), n_(dae.n) {
    dae.validate();
    options.validate();
    if (options.projection != Projection::None && !dae.project)
      throw InvalidArgument("radau5: projection '" + std::string(to_string(options.projection)) +
                            "' requested but problem '" + dae.name +
                            "' has no projector (build it with index3_form(MechanicalSystem))");
    const int n = n_;
    y_.resize(n);
    f0_.resize(n);
    y_new_.resize(n);
    f_new_.resize(n);
    tmp_.resize(n);
    tmp2_.resize(n);
    err_vec_.resize(n);
    scal_.resize(n);
    atol_.resize(n);
    ctmp_.resize(n);
    J_.setZero(n, n);
    Z_.setZero(n, 3);
    W_.setZero(n, 3);
    F_.setZero(n, 3);
    R_.setZero(n, 3);
    cont_.setZero(n, 4);
    lu_real_.resize(n);
    lu_complex_.resize(n);
    index_.resize(n);
    for (int i = 0; i < n; ++i) index_[i] = dae.index_of(i);
  }

  const char* name() const override { return "radau5"; }
  int order() const override { return 5; }
  int error_order() const override { return 4; }  // err ~ h^4 as in RADAU5 (quot = err^(1/4))

  void start(double t0, const Vector& y0, const Tolerances& tol) override {
    if (y0.size() != n_)
      throw InvalidArgument("radau5: y0 has size " + std::to_string(y0.size()) +
                            ", the problem has n = " + std::to_string(n_));
    dae_.check_jacobian(t0, y0);
    t_ = t0;
    y_ = y0;
    if (opt_.transform_tolerances) {
      rtol_ = 0.1 * std::pow(tol.rtol, 2.0 / 3.0);
      atol_ = tol.atol * (rtol_ / tol.rtol);
    } else {
      rtol_ = tol.rtol;
      atol_ = tol.atol;
    }
    fnewt_ = opt_.newton_tolerance > 0
                 ? opt_.newton_tolerance
                 : std::max(10 * kEps / rtol_, std::min(0.03, std::sqrt(rtol_)));
    eval_f(t_, y_, f0_);
    if (!f0_.allFinite())
      throw NumericalFailure(Status::NonFiniteFunction,
                             "f(t0, y0) is not finite (component " + first_nonfinite(f0_) + ")");
    first_ = true;
    jac_valid_ = jac_fresh_ = lu_valid_ = false;
    need_jac_ = true;
    faccon_ = 1.0;
    theta_ = opt_.jacobian_reuse_theta;
    attempts_since_accept_ = 0;
  }

  StepAttempt attempt(double h) override {
    StepAttempt res;
    const bool after_reject = attempts_since_accept_ > 0;
    ++attempts_since_accept_;
    h_ = h;
    if (need_jac_ || !jac_valid_) {
      if (!compute_jacobian()) return fail(AttemptOutcome::NonFinite, 0.5, "Jacobian not finite");
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
    res.safety_scale = std::min(1.0, (1.0 + 2.0 * opt_.max_newton_iterations) /
                                         (newton + 2.0 * opt_.max_newton_iterations));
    res.err = error_estimate(h, after_reject);
    if (!std::isfinite(res.err)) return fail(AttemptOutcome::NonFinite, 0.5, "error not finite");
    f_new_valid_ = false;
    if (res.err < 1.0) {
      y_new_ = y_ + Z_.col(2);
      if (opt_.projection != Projection::None) {
        ++stats_.nproject;
        if (!dae_.project(t_ + h, y_new_, opt_.projection))
          return fail(AttemptOutcome::NewtonFailed, 0.5,
                      "projection onto the constraint manifold did not converge");
      }
      eval_f(t_ + h, y_new_, f_new_);
      f_new_valid_ = true;
      if (!f_new_.allFinite())
        return fail(AttemptOutcome::NonFinite, 0.5, "f returned NaN/Inf at the end of the step");
    } else {
      need_jac_ = !jac_fresh_;  // RADAU5: after a rejection, a fresh Jacobian unless current
    }
    return res;
  }

  void accept() override {
    if (!f_new_valid_) {  // accepted without error test (fixed steps)
      y_new_ = y_ + Z_.col(2);
      if (opt_.projection != Projection::None) {
        ++stats_.nproject;
        dae_.project(t_ + h_, y_new_, opt_.projection);
      }
      eval_f(t_ + h_, y_new_, f_new_);
    }
    f_new_valid_ = false;
    update_dense_output();
    t_ += h_;
    h_last_ = h_;
    y_.swap(y_new_);
    f0_.swap(f_new_);
    first_ = false;
    jac_fresh_ = false;
    attempts_since_accept_ = 0;
  }

  double adjust_step(double h_last, double h_proposed) override {
    const bool keep_jacobian = theta_ <= opt_.jacobian_reuse_theta;
    need_jac_ = !keep_jacobian;
    const double q = h_proposed / h_last;
    if (keep_jacobian && q >= opt_.lu_reuse_low && q <= opt_.lu_reuse_high) return h_last;
    return h_proposed;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }

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
    if (!dae_.solve_algebraic(t_, y_, message)) return false;
    eval_f(t_, y_, f0_);
    if (!f0_.allFinite()) {
      message = "f is not finite at the restart point";
      return false;
    }
    first_ = true;
    jac_valid_ = jac_fresh_ = lu_valid_ = false;
    need_jac_ = true;
    faccon_ = 1.0;
    theta_ = opt_.jacobian_reuse_theta;
    attempts_since_accept_ = 0;
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

  const Stats& stats() const override { return stats_; }

 private:
  void eval_f(double t, const Eigen::Ref<const Vector>& y, VecOut out) {
    dae_.f(t, y, out);
    ++stats_.nfev;
  }

  static std::string first_nonfinite(const Vector& v) {
    for (int i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i])) return std::to_string(i);
    return "?";
  }

  StepAttempt fail(AttemptOutcome outcome, double factor, const char* detail) {
    StepAttempt res;
    res.outcome = outcome;
    res.h_factor = factor;
    res.detail = detail;
    if (outcome != AttemptOutcome::Singular) need_jac_ = !jac_fresh_;
    if (outcome == AttemptOutcome::NewtonFailed) ++stats_.nnewton_fail;
    return res;
  }

  bool compute_jacobian() {
    if (dae_.jacobian) {
      J_.setZero();
      dae_.jacobian(t_, y_, J_);
      if (J_.rows() != n_ || J_.cols() != n_) {  // the callback resized it: refuse the step
        J_.setZero(n_, n_);
        jac_valid_ = false;
        return false;
      }
    } else {
      stats_.nfev_jac += forward_difference_jacobian(dae_.f, t_, y_, f0_, J_, tmp_, tmp2_);
    }
    ++stats_.njac;
    jac_valid_ = jac_fresh_ = all_finite(J_);
    need_jac_ = false;
    lu_valid_ = false;
    return jac_valid_;
  }

  // E1 = gamma/h M - J (real), E2 = (alpha + i beta)/h M - J (complex).
  bool factor(double h) {
    const double g = k_.gamma / h;
    const std::complex<double> ab(k_.alpha / h, k_.beta / h);
    auto& E1 = lu_real_.matrix();
    auto& E2 = lu_complex_.matrix();
    E1 = -J_;
    E2 = -J_.cast<std::complex<double>>();
    if (dae_.has_identity_mass()) {
      E1.diagonal().array() += g;
      E2.diagonal().array() += ab;
    } else {
      E1 += g * dae_.mass;
      E2 += ab * dae_.mass.cast<std::complex<double>>();
    }
    ++stats_.nlu;
    h_lu_ = h;
    lu_valid_ = lu_real_.factor() && lu_complex_.factor();
    return lu_valid_;
  }

  // scal_i = (atol_i + rtol |y_i|) / |h|^(index_i - 1)  (RADAU5's index-2/3 scaling).
  void compute_scale(double h) {
    const double ah = std::abs(h);
    for (int i = 0; i < n_; ++i) {
      double s = atol_[i] + rtol_ * std::abs(y_[i]);
      if (index_[i] == 2) s /= ah;
      if (index_[i] == 3) s /= ah * ah;
      scal_[i] = s;
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
    for (int i = 0; i < 3; ++i) {
      const double s = k_.c[i] * q;
      Z_.col(i) = s * (cont_.col(1) + (s - x1) * (cont_.col(2) + (s - x2) * cont_.col(3)));
    }
    W_.noalias() = Z_ * k_.TI.transpose();
  }

  // M x for the mass matrix (or x itself).
  template <typename In>
  void apply_mass(const In& x, VecOut out) const {
    if (dae_.has_identity_mass())
      out = x;
    else
      out.noalias() = dae_.mass * x;
  }

  // Simplified Newton on the transformed stage system. Returns the number of iterations, or -1
  // with `res` set to the failure.
  int newton_iteration(double h, StepAttempt& res) {
    const int nit = opt_.max_newton_iterations;
    faccon_ = std::pow(std::max(faccon_, kEps), 0.8);
    theta_ = opt_.jacobian_reuse_theta;
    const double g = k_.gamma / h, a = k_.alpha / h, b = k_.beta / h;
    double dynold = 0.0, thqold = 0.0;
    int newt = 0;
    for (;;) {
      if (newt >= nit) {
        res = fail(AttemptOutcome::NewtonFailed, 0.5,
                   "Newton did not converge within max_newton_iterations");
        return -1;
      }
      for (int i = 0; i < 3; ++i) {
        tmp_ = y_ + Z_.col(i);
        eval_f(t_ + k_.c[i] * h, tmp_, F_.col(i));
      }
      if (!F_.allFinite()) {
        res = fail(AttemptOutcome::NonFinite, 0.5, "f returned NaN/Inf at a stage of the step");
        return -1;
      }
      R_.noalias() = F_ * k_.TI.transpose();
      apply_mass(W_.col(0), tmp_);
      R_.col(0) -= g * tmp_;
      apply_mass(W_.col(1), tmp_);
      apply_mass(W_.col(2), tmp2_);
      R_.col(1) -= a * tmp_ - b * tmp2_;
      R_.col(2) -= b * tmp_ + a * tmp2_;
      lu_real_.solve_in_place(R_.col(0));
      ctmp_.real() = R_.col(1);
      ctmp_.imag() = R_.col(2);
      lu_complex_.solve_in_place(ctmp_);
      R_.col(1) = ctmp_.real();
      R_.col(2) = ctmp_.imag();
      ++stats_.nsol;
      ++newt;
      ++stats_.nnewton;
      double sum = 0.0;
      for (int k = 0; k < 3; ++k)
        for (int i = 0; i < n_; ++i) {
          const double r = R_(i, k) / scal_[i];
          sum += r * r;
        }
      const double dyno = std::sqrt(sum / (3.0 * n_));
      if (!std::isfinite(dyno)) {
        res = fail(AttemptOutcome::NonFinite, 0.5, "Newton increment not finite");
        return -1;
      }
      if (newt > 1 && newt < nit) {
        const double thq = dyno / dynold;
        theta_ = newt == 2 ? thq : std::sqrt(thq * thqold);
        thqold = thq;
        if (theta_ < 0.99) {
          faccon_ = theta_ / (1.0 - theta_);
          const double dyth = faccon_ * dyno * std::pow(theta_, nit - 1 - newt) / fnewt_;
          if (dyth >= 1.0) {  // convergence predicted too slow: smaller step
            const double qnewt = std::clamp(dyth, 1e-4, 20.0);
            res = fail(AttemptOutcome::NewtonFailed,
                       0.8 * std::pow(qnewt, -1.0 / (4.0 + nit - 1 - newt)),
                       "Newton converges too slowly");
            return -1;
          }
        } else {
          res = fail(AttemptOutcome::NewtonFailed, 0.5, "Newton diverges");
          return -1;
        }
      }
      dynold = std::max(dyno, kEps);
      W_ += R_;
      Z_.noalias() = W_ * k_.T.transpose();
      if (faccon_ * dyno <= fnewt_) return newt;
    }
  }

  double scaled_norm(const Vector& v) const {
    return std::sqrt((v.array() / scal_.array()).square().sum() / n_);
  }

  // err = (gamma/h M - J)^{-1} (f(t_n, y_n) + M e^T Z / h), refined at the first step and after
  // a rejection by replacing f(t_n, y_n) with f(t_n, y_n + err) (Hairer-Wanner II, IV.8).
  double error_estimate(double h, bool after_reject) {
    tmp_ = (k_.e[0] * Z_.col(0) + k_.e[1] * Z_.col(1) + k_.e[2] * Z_.col(2)) / h;
    apply_mass(tmp_, tmp2_);
    err_vec_ = f0_ + tmp2_;
    lu_real_.solve_in_place(err_vec_);
    ++stats_.nsol;
    double err = std::max(scaled_norm(err_vec_), 1e-10);
    if (err >= 1.0 && (first_ || after_reject)) {
      tmp_ = y_ + err_vec_;
      eval_f(t_, tmp_, err_vec_);
      if (!err_vec_.allFinite()) return err;  // keep the unrefined estimate: the step is rejected
      err_vec_ += tmp2_;
      lu_real_.solve_in_place(err_vec_);
      ++stats_.nsol;
      err = std::max(scaled_norm(err_vec_), 1e-10);
    }
    return err;
  }

  // Newton divided differences of the collocation polynomial through (0, y_{n+1}),
  // (c2 - 1, y_n + Z2), (c1 - 1, y_n + Z1), (-1, y_n) in theta = (t - t_{n+1}) / h.
  void update_dense_output() {
    const double c1 = k_.c[0], c2 = k_.c[1];
    cont_.col(0) = y_new_;
    cont_.col(1) = (Z_.col(1) - Z_.col(2)) / (c2 - 1.0);
    tmp_ = (Z_.col(0) - Z_.col(1)) / (c1 - c2);  // [x1, x2]
    tmp2_ = (tmp_ - Z_.col(0) / c1) / c2;        // [x1, x2, x3]
    cont_.col(2) = (tmp_ - cont_.col(1)) / (c1 - 1.0);
    cont_.col(3) = cont_.col(2) - tmp2_;
  }

  const MassMatrixDae& dae_;
  Radau5Options opt_;
  const RadauConstants& k_;
  int n_;
  std::vector<int> index_;
  double t_ = 0, h_ = 0, h_last_ = 0, h_lu_ = 0;
  double rtol_ = 0, fnewt_ = 0, faccon_ = 1, theta_ = 0;
  bool f_new_valid_ = false;
  bool first_ = true, jac_valid_ = false, jac_fresh_ = false, need_jac_ = true, lu_valid_ = false;
  int attempts_since_accept_ = 0;
  Vector y_, f0_, y_new_, f_new_, tmp_, tmp2_, err_vec_, scal_, atol_;
  Eigen::VectorXcd ctmp_;
  Matrix J_, Z_, W_, F_, R_, cont_;
  RealLU lu_real_;
  ComplexLU lu_complex_;
  Stats stats_;
};

}  // namespace

std::unique_ptr<Stepper> make_radau5(const MassMatrixDae& dae, const Radau5Options& options) {
  return std::make_unique<Radau5>(dae, options);
}

}  // namespace daekit
