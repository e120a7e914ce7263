// erk: explicit Runge-Kutta methods and the state-space form method for semi-explicit index-1
// DAEs (see methods/erk.hpp for the mathematics), on the shared MassMatrixSystem (guarded f,
// the Jacobian source for g_y, g_z), NewtonAttempt (the algebraic equations at the stages) and
// the integrator's error weights.
#include "daekit/methods/erk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dense_spectra.hpp"
#include "methods/factory.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

void ErkOptions::validate() const {
  const int s = tableau.stages();
  if (s < 1 || tableau.A.rows() != s || tableau.A.cols() != s || tableau.c.size() != s)
    throw InvalidArgument("erk: tableau '" + tableau.name + "' has inconsistent sizes");
  if (!tableau.explicit_method())
    throw InvalidArgument("erk: tableau '" + tableau.name +
                          "' is not explicit (a_ij != 0 for j >= i); use dirk, radau or "
                          "projected-rk for implicit tableaus");
  if (tableau.b_hat.size() != 0 && tableau.b_hat.size() != s)
    throw InvalidArgument("erk: b_hat of tableau '" + tableau.name + "' has the wrong size");
  if (max_newton_iterations < 1) throw InvalidArgument("erk: max_newton_iterations must be >= 1");
}

namespace {

const OptionTable<ErkOptions>& erk_option_table();  // next to the registration

class Erk final : public Method {
 public:
  Erk(const MassMatrixDae& dae, const ErkOptions& options, const MethodInput& in)
      : sys_(dae, LinearSolverKind::Dense, *in.guard, *in.stats),
        opt_(options),
        tab_(options.tableau),
        n_(dae.n),
        s_(tab_.stages()),
        stats_(*in.stats) {
    const MassOperator& M = sys_.mass();
    if (M.kind() == MassOperator::Kind::Structured)
      throw InvalidArgument(
          "erk: needs a diagonal mass matrix (ODE, or semi-explicit index 1 with the algebraic "
          "equations in zero rows and the algebraic variables in the same zero columns)");
    if (dae.max_index() > 1) throw InvalidArgument("erk: index-1 problems only");
    inv_diag_.setOnes(n_);
    for (int i = 0; i < n_; ++i) {
      const double m = M.is_identity() ? 1.0 : M.diagonal()[i];
      if (m == 0.0)
        alg_.push_back(i);
      else {
        diff_.push_back(i);
        inv_diag_[i] = 1.0 / m;
      }
    }
    na_ = static_cast<int>(alg_.size());
    nd_ = static_cast<int>(diff_.size());
    fsal_ = (tab_.A.row(s_ - 1).transpose() - tab_.b).cwiseAbs().maxCoeff() == 0.0 &&
            tab_.c[s_ - 1] == 1.0;
    if (tab_.has_embedded()) d_ = tab_.b - tab_.b_hat;
    y_.resize(n_);
    f0_.resize(n_);
    y_new_.resize(n_);
    f_new_.resize(n_);
    tmp_.resize(n_);
    tmp2_.resize(n_);
    e_.resize(n_);
    K_.setZero(n_, s_);
    Y_.setZero(n_, s_);
    // y_n and the coefficients of theta^1 .. theta^q (q = 3 for the cubic Hermite)
    cont_.setZero(n_, 1 + std::max(3, static_cast<int>(tab_.b_theta.cols())));
    if (na_ > 0) {
      sys_.allocate_jacobian(J_);
      Gz_.setZero(na_, na_);
      Gy_.setZero(na_, nd_);
      g_.setZero(na_);
      dz_.setZero(na_);
      ed_.setZero(nd_);
      lu_ = Eigen::PartialPivLU<Matrix>(na_);
    }
    // the algebraic equations g(y, z) = 0 at a stage, from the previous stage's z: converged
    // when the increment is within 1e-3 weights (max norm), or stagnates at the round-off
    // level (within one weight, shrinking by less than half); g_z is evaluated anew once when
    // the iteration is slow (increments above 0.2 times the previous from the third) or runs
    // out of iterations
    NewtonMonitor::Settings ns;
    ns.rate_estimate = NewtonMonitor::RateEstimate::None;
    ns.max_iterations = opt_.max_newton_iterations;
    ns.tolerance = 1e-3;
    ns.stagnation = 1.0;
    ns.slow = 0.2;
    newton_ = NewtonAttempt(ns, *in.guard, *in.stats);
    newton_.watch_jacobian(&jac_valid_);  // g_z at a stage of the failed step
  }

  const char* name() const override { return "erk"; }
  int order() const override { return tab_.order; }
  int error_order() const override { return std::max(tab_.embedded_order, 1) + 1; }

  Caveats caveats(const Tolerances&) const override {
    Caveats c;
    if (!tab_.has_embedded())
      c.warnings.push_back("erk: tableau '" + tab_.name +
                           "' has no embedded formula: the step size is not controlled (error "
                           "estimate 0); use Options::fixed_step");
    return c;
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights, std::string&) override {
    weights_ = &weights;
    t_ = t0;
    y_ = y0;
    h_last_ = 0.0;
    if (!sys_.f(t_, y_, f0_)) return false;
    jac_valid_ = false;
    return true;
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    newton_.begin_attempt();
    StepAttempt failed;
    for (int i = 0; i < s_; ++i) {
      if (i == 0) {
        Y_.col(0) = y_;
        K_.col(0) = f0_.cwiseProduct(inv_diag_);
        continue;
      }
      // differential part explicit; algebraic part from the previous stage, then g = 0
      Y_.col(i) = y_;
      for (int j = 0; j < i; ++j)
        if (tab_.A(i, j) != 0.0)
          for (int r : diff_) Y_(r, i) += h * tab_.A(i, j) * K_(r, j);
      for (int r : alg_) Y_(r, i) = Y_(r, i - 1);
      if (!solve_algebraic(t_ + tab_.c[i] * h, Y_.col(i), tmp_, failed)) return failed;
      K_.col(i) = tmp_.cwiseProduct(inv_diag_);
    }
    // end: y_{n+1} = y_n + h sum b_i K_i on the differential part; z from g = 0
    if (fsal_) {
      y_new_ = Y_.col(s_ - 1);
      f_new_ = K_.col(s_ - 1);
      for (int r : diff_) f_new_[r] /= inv_diag_[r];
      for (int r : alg_) f_new_[r] = 0.0;  // g(y_{n+1}) = 0 (solved at the last stage)
    } else {
      y_new_ = y_;
      for (int i = 0; i < s_; ++i)
        for (int r : diff_) y_new_[r] += h * tab_.b[i] * K_(r, i);
      for (int r : alg_) y_new_[r] = Y_(r, s_ - 1);
      if (!solve_algebraic(t_ + h, y_new_, f_new_, failed)) return failed;
    }
    const double err = error_estimate(h);
    if (sys_.guard().fatal())
      return newton_.failure(AttemptOutcome::CallbackError, "callback failed");
    if (!std::isfinite(err)) return newton_.failure(AttemptOutcome::NonFinite, "error not finite");
    return newton_.converged(err);
  }

  Vector& candidate() override { return y_new_; }

  bool accept() override {
    // the continuous output as powers of theta = (t - t_n) / h over the step (Newton form with
    // every node at theta - 1 = -1): y_n + sum_k theta^(k+1) C_k, from the tableau's continuous
    // extension on the differential part (cubic Hermite without one), linear on the algebraic
    // part
    const double h = h_;
    const int q = static_cast<int>(cont_.cols()) - 1;
    cont_.col(0) = y_;
    tmp_ = y_new_ - y_;
    cont_.rightCols(q).setZero();
    if (tab_.b_theta.size() > 0) {
      for (int k = 0; k < q; ++k)
        for (int i = 0; i < s_; ++i) {
          const double w = h * tab_.b_theta(i, k);
          if (w != 0.0)
            for (int r : diff_) cont_(r, k + 1) += w * K_(r, i);
        }
    } else {
      for (int r : diff_) {
        const double a = tmp_[r];
        const double d0 = h * f0_[r] * inv_diag_[r], d1 = h * f_new_[r] * inv_diag_[r];
        cont_(r, 1) = d0;
        cont_(r, 2) = 3 * a - 2 * d0 - d1;
        cont_(r, 3) = d0 + d1 - 2 * a;
      }
    }
    for (int r : alg_) cont_(r, 1) = tmp_[r];
    t_ += h_;
    h_last_ = h_;
    y_.swap(y_new_);
    f0_.swap(f_new_);
    return true;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }
  /// f_i / m_ii on the differential components at (t, y) (the starting-step estimate's probe).
  bool derivative_at(double t, const Vector& y, VecOut out) override {
    probe_f_.resize(n_);
    if (!sys_.f(t, y, probe_f_)) return false;
    for (int r : diff_) out[r] = probe_f_[r] * inv_diag_[r];
    return true;
  }
  void derivative(VecOut out) const override {
    out = f0_.cwiseProduct(inv_diag_);
    if (h_last_ == 0.0) {
      for (int r : alg_) out[r] = 0.0;
      return;
    }
    for (int r : alg_) out[r] = cont_(r, 1) / h_last_;
  }
  void dense(double t, VecOut out) const override {
    const double th = 1.0 + (t - t_) / h_last_;
    const int q = static_cast<int>(cont_.cols()) - 1;
    out = cont_.col(q);
    for (int k = q - 1; k >= 1; --k) out = cont_.col(k) + th * out;
    out = cont_.col(0) + th * out;
  }
  void dense_derivative(double t, VecOut out) const override {
    const double th = 1.0 + (t - t_) / h_last_;
    const int q = static_cast<int>(cont_.cols()) - 1;
    out = q * cont_.col(q);
    for (int k = q - 1; k >= 1; --k) out = k * cont_.col(k) + th * out;
    out /= h_last_;
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
    return true;
  }
  bool refresh(std::string& message) override {
    // the first stage is f(t, y) (first same as last)
    if (!sys_.f(t_, y_, f0_)) {
      message = "f failed at t = " + std::to_string(t_) + ": " + sys_.guard().failure().describe();
      return false;
    }
    return true;
  }
  DenseSegment segment() const override {
    DenseSegment s;
    s.t_left = t_ - h_last_;
    s.t_right = t_;
    s.nodes.assign(static_cast<size_t>(cont_.cols() - 1), -1.0);
    s.coeffs = cont_;
    return s;
  }
  Vector& parameters() override { return sys_.p(); }
  bool has_monitor() const override { return sys_.has_monitor(); }
  bool monitor(double t, const Vector& y, ConstraintResiduals& out) override {
    return sys_.monitor(t, y, out);
  }
  std::string check_consistency(double t0, const Vector& y0, double tol) override {
    return daekit::check_consistency(sys_, t0, y0, tol);
  }
  JacobianCheck check_jacobian(double t0, const Vector& y0) override {
    return daekit::check_jacobian(sys_, t0, y0);
  }
  std::string linear_solver() const override { return na_ > 0 ? "dense LU (g_z)" : "none"; }

  std::vector<MethodOptionValue> used_options() const override {
    return erk_option_table().values(opt_);
  }

 private:
  // g_z and g_y from the Jacobian at (t, x); factorises g_z.
  // g_z (factorised) and g_y at (t, x), fx = f(t, x); false if the Jacobian failed, else
  // jac_valid_ says whether g_z is nonsingular.
  bool refresh_jacobian(double t, const Vector& x, const Vector& fx) {
    jac_valid_ = false;
    if (!sys_.jacobian(t, x, fx, J_)) return false;
    for (int a = 0; a < na_; ++a) {
      for (int b = 0; b < na_; ++b) Gz_(a, b) = J_.at(alg_[a], alg_[b]);
      for (int d = 0; d < nd_; ++d) Gy_(a, d) = J_.at(alg_[a], diff_[d]);
    }
    lu_.compute(Gz_);
    jac_valid_ = std::abs(lu_.determinant()) > 0.0 && std::isfinite(lu_.determinant());
    return true;
  }

  // Solves 0 = g(t, x_d, x_a) for x_a by simplified Newton with g_z (refreshed at the first
  // call and when convergence is slow); f = f(t, x) on return. No-op for ODEs.
  // x's algebraic components from g(t, x) = 0 (f = f(t, x) on return); false with `failed`
  // set when that did not succeed.
  bool solve_algebraic(double t, Eigen::Ref<Vector> x, Vector& f, StepAttempt& failed) {
    using Verdict = NewtonMonitor::Verdict;
    if (!sys_.f(t, x, f)) {
      failed = newton_.failure(AttemptOutcome::NonFinite, "f failed at a stage of the step");
      return false;
    }
    if (na_ == 0) return true;
    const Vector& w = weights_->w();
    Verdict v = Verdict::Continue;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!jac_valid_ || attempt == 1) {
        tmp2_ = x;
        if (!refresh_jacobian(t, tmp2_, f)) {
          failed = newton_.failure(AttemptOutcome::NonFinite, "the Jacobian failed");
          return false;
        }
        if (!jac_valid_) {
          failed = newton_.failure(AttemptOutcome::Singular,
                                   "g_z (the algebraic equations' Jacobian in the algebraic "
                                   "variables) is singular at a stage");
          return false;
        }
      }
      newton_.begin(0.0);
      for (;;) {
        for (int a = 0; a < na_; ++a) g_[a] = f[alg_[a]];
        dz_.noalias() = lu_.solve(g_);
        ++stats_.nnewton;
        ++stats_.nsol;
        double norm = 0.0;
        for (int a = 0; a < na_; ++a) norm = std::max(norm, std::abs(dz_[a]) / w[alg_[a]]);
        v = newton_.next(norm);  // (f belongs to the current x)
        if (v == Verdict::Converged) return true;
        if (v == Verdict::NonFinite) {
          failed = newton_.failure(v);
          return false;
        }
        for (int a = 0; a < na_; ++a) x[alg_[a]] -= dz_[a];
        if (!sys_.f(t, x, f)) {
          failed = newton_.failure(AttemptOutcome::NonFinite, "f failed at a stage of the step");
          return false;
        }
        if (v != Verdict::Continue) break;  // slow, or out of iterations: a fresh g_z
      }
    }
    failed = newton_.failure(v);
    return false;
  }

  double error_estimate(double h) {
    if (!tab_.has_embedded()) return 0.0;
    e_.setZero();
    for (int i = 0; i < s_; ++i)
      if (d_[i] != 0.0)
        for (int r : diff_) e_[r] += h * d_[i] * K_(r, i);
    if (na_ > 0 && jac_valid_) {
      for (int d = 0; d < nd_; ++d) ed_[d] = e_[diff_[d]];
      g_.noalias() = Gy_ * ed_;
      dz_.noalias() = lu_.solve(g_);
      for (int a = 0; a < na_; ++a) e_[alg_[a]] = -dz_[a];
    }
    return std::max(weights_->norm(e_), 1e-10);
  }

  MassMatrixSystem sys_;
  ErkOptions opt_;
  RungeKuttaTableau tab_;
  int n_, s_;
  Stats& stats_;
  const ErrorWeights* weights_ = nullptr;
  std::vector<int> alg_, diff_;
  int na_ = 0, nd_ = 0;
  bool fsal_ = false, jac_valid_ = false;
  NewtonAttempt newton_;
  Vector inv_diag_, d_;
  double t_ = 0, h_ = 0, h_last_ = 0;
  Vector y_, f0_, y_new_, f_new_, tmp_, tmp2_, e_, g_, dz_, ed_;
  Vector probe_f_;  // f at the point of derivative_at()
  Matrix K_, Y_, cont_, Gz_, Gy_;
  StructuredMatrix<double> J_;
  Eigen::PartialPivLU<Matrix> lu_;
};

}  // namespace

namespace {

/// The options of "erk" (ErkOptions).
const OptionTable<ErkOptions>& erk_option_table() {
  using O = ErkOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .tableau("tableau", &O::tableau,
                   "an explicit tableau; without an embedded formula only constant steps")
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "Newton iterations for the algebraic equations at a stage");
  return table;
}

}  // namespace

MethodRegistration erk_method() {
  MethodRegistration r;
  r.info.name = "erk";
  r.info.title =
      "explicit RK (default DOPRI5); state-space form for semi-explicit index 1 (non-stiff)";
  r.info.reference =
      "Bendtsen-Thomsen (eds.), IMM-REP-1999-8, 2.2.1 (state-space form), 2.4.1; "
      "Hairer-Norsett-Wanner I, II.5";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 1;
  c.order = 0;               // that of the tableau
  c.dense_output_order = 4;  // DOPRI5's continuous extension (cubic Hermite: 3, other tableaus)
  c.explicit_method = true;
  // no iteration matrix: the only linear solves (g_z of the algebraic part) use a dense LU
  c.linear_solvers = {LinearSolverKind::Dense};
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const ErkOptions o = method_options<ErkOptions>(in, "erk");
    o.validate();
    return std::make_unique<Erk>(*in.mass_form, o, in);
  };
  describe_options(r, erk_option_table);
  return r;
}

}  // namespace daekit
