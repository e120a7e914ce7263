// hem: half-explicit Runge-Kutta methods for Hessenberg index-2 DAEs (see methods/hem.hpp for
// the mathematics), on Index2System (guarded evaluations, constraint Jacobians, checks), the
// dense LU of linalg, NewtonAttempt and the integrator's error weights.
#include "daekit/methods/hem.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "daekit/tableaus/half_explicit.hpp"
#include "methods/factory.hpp"
#include "methods/index2_method.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/index2_system.hpp"

namespace daekit {

void HemOptions::validate() const {
  (void)half_explicit_tableau(tableau);  // throws for an unknown name
  if (max_newton_iterations < 1) throw InvalidArgument("hem: max_newton_iterations must be >= 1");
  if (!(newton_tolerance >= 0) || !std::isfinite(newton_tolerance))
    throw InvalidArgument("hem: newton_tolerance must be >= 0 (0 = automatic)");
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

std::unique_ptr<Index2System> make_system(const MethodInput& in) {
  std::unique_ptr<Index2System> sys =
      in.index2_form ? std::make_unique<Index2System>(*in.index2_form, *in.guard, *in.stats)
                     : std::make_unique<Index2System>(*in.mass_form, 1, *in.guard, *in.stats);
  if (sys->a_kind() == Index2System::AKind::Nonlinear)
    throw InvalidArgument("hem: problem '" + sys->name() +
                          "' has a nonlinear a(t, y); half-explicit methods need y' = f(t, y, z) "
                          "(a(t, y) = y or a constant matrix): use spark");
  return sys;
}

const OptionTable<HemOptions>& hem_option_table();  // next to the registration

class Hem final : public Index2Method {
 public:
  Hem(const HemOptions& opt, const MethodInput& in)
      : Index2Method(make_system(in)),
        opt_(opt),
        tab_(half_explicit_tableau(opt.tableau)),
        s_(tab_.stages()),
        n_(sys_->n()),
        m_(sys_->m()),
        stats_(*in.stats) {
    if (sys_->a_kind() == Index2System::AKind::Constant) {
      a_lu_ = make_dense_solver<double>(n_);
      a_lu_->matrix().dense() = sys_->a_matrix();
      a_lu_->factor();  // invertible: checked by Index2System
    }
    s_lu_ = make_dense_solver<double>(m_);
    U_.resize(n_, s_ + 1);
    F_.resize(n_, s_);
    Lambda_.resize(m_, s_);
    NewtonMonitor::Settings ns;  // Successive, no early abandonment; the tolerance in start()
    ns.max_iterations = opt_.max_newton_iterations;
    // no watch_jacobian: g_y and f_z are evaluated at the step's start (attempt()), fresh for a
    // retry at a smaller step
    newton_ = NewtonAttempt(ns, *in.guard, *in.stats);
    weights_e_ = tab_.b - tab_.b_embedded;
    for (Vector* v : {&y_prev_, &fp_prev_, &f_z_gy_, &d01_, &d011_, &est_}) v->setZero(n_);
    for (Vector* v : {&z_prev_, &gy_, &zero_z_}) v->setZero(m_);
    D_.setZero(n_, 4);
    Dz_.setZero(m_, 4);
    seg_.nodes.reserve(3);
  }

  const char* name() const override { return "hem"; }
  int order() const override { return tab_.order; }
  int error_order() const override { return tab_.embedded_order + 1; }
  std::vector<int> default_error_test_exclusions() const override { return sys_->z_positions(); }

  bool start(double t0, const Vector& x0, const ErrorWeights& weights,
             std::string& message) override {
    weights_ = &weights;
    const double rtol = weights.rtol();
    newton_.settings().tolerance =
        opt_.newton_tolerance > 0 ? opt_.newton_tolerance
                                  : std::max(10 * kEps / rtol, std::min(0.03, std::sqrt(rtol)));
    message = sys_->check_index(t0, x0);
    if (!message.empty() || sys_->guard().failure().kind != CallbackFailure::Kind::None)
      return false;
    return set_point(t0, x0);
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    newton_.begin_attempt();
    // g_y and f_z at the step's start: the estimate's projection needs them there (f_z may turn
    // with the state, as the knife edge's constraint force does)
    if (jac_t_ != t_) jac_valid_ = false;
    if (!jac_valid_ && !compute_jacobians())
      return newton_.failure(AttemptOutcome::NonFinite, "Jacobian failed");
    if (!s_valid_) {
      s_lu_->matrix().dense() = S_;
      ++stats_.nlu;
      s_valid_ = s_lu_->factor();
      if (!s_valid_) return newton_.failure(AttemptOutcome::Singular, "g_y f_z is singular");
    }
    U_.col(0) = y_;
    lambda_ = z_;
    StepAttempt res;
    for (int i = 1; i <= s_; ++i)
      if (!stage(i, res)) return res;
    y_new_ = U_.col(s_);
    z_new_ = Lambda_.col(s_ - 1);
    sys_->join(y_new_, z_new_, x_new_);
    const double err = error_estimate();
    if (!std::isfinite(err))
      return newton_.failure(AttemptOutcome::NonFinite, "error estimate not finite");
    return newton_.converged(err);
  }

  Vector& candidate() override { return x_new_; }

  bool accept() override {
    y_prev_ = y_;
    fp_prev_ = fp_;
    z_prev_ = z_;
    const double t0 = t_;
    if (!set_point(t_ + h_, x_new_, false)) return false;
    h_last_ = h_;
    build_segment(t0, y_prev_, z_prev_, fp_prev_);
    return true;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return x_; }
  void derivative(VecOut out) const override {
    out.setZero();
    const std::vector<int>& zp = sys_->z_positions();
    if (h_last_ != 0.0) {
      dense_derivative(t_, out);
      return;
    }
    int k = 0;
    std::vector<char> is_z(static_cast<size_t>(sys_->size()), 0);
    for (int p : zp) is_z[static_cast<size_t>(p)] = 1;
    for (int i = 0; i < sys_->size(); ++i)
      if (!is_z[static_cast<size_t>(i)]) out[i] = fp_[k++];
  }
  void dense_derivative(double t, VecOut out) const override {
    // d/dt of d0 + th (d1 + th (d2 + (th + 1) d3)), th = (t - t1) / h
    const double th = (t - seg_.t_right) / h_last_;
    out = (seg_.coeffs.col(1) + (2 * th) * seg_.coeffs.col(2) +
           (3 * th * th + 2 * th) * seg_.coeffs.col(3)) /
          h_last_;
  }
  std::string linear_solver() const override { return s_lu_->name(); }

  std::vector<MethodOptionValue> used_options() const override {
    return hem_option_table().values(opt_);
  }

 private:
  // y' = M^{-1} f (M = I for the Hessenberg form).
  bool rhs(double t, const Vector& y, const Vector& z, VecOut out) {
    if (!sys_->f(t, y, z, f_work_)) return false;
    if (a_lu_) a_lu_->solve_in_place(f_work_);
    out = f_work_;
    return true;
  }

  bool set_point(double t, const Vector& x, bool fresh = true) override {
    t_ = t;
    x_ = x;
    sys_->split(x_, y_, z_);
    fp_.resize(n_);
    if (!rhs(t_, y_, z_, fp_)) return false;
    if (fresh) return compute_jacobians();
    return true;
  }

  bool compute_jacobians() {
    jac_t_ = t_;
    jac_valid_ = sys_->constraint_jacobians(t_, y_, z_, g_y_, f_z_);
    if (jac_valid_ && a_lu_)  // f_z := M_yy^{-1} f_z, column by column (n x m)
      for (int j = 0; j < m_; ++j) a_lu_->solve_in_place(f_z_.col(j));
    S_.noalias() = g_y_ * f_z_;
    s_valid_ = false;
    return jac_valid_;
  }

  // Stage i (1..s; s = the step's end): Lambda_{i-1} from 0 = g(T_i, U_i) by simplified Newton,
  // then f of stage i-1 and U_i (U_s+1 = y1).
  bool stage(int i, StepAttempt& res) {
    const int j = i - 1;  // the stage whose multiplier is determined (0-based)
    const bool last = i == s_;
    const double coef = last ? tab_.b[j] : tab_.A(i, j);
    const double h = h_, T_j = t_ + tab_.c[j] * h, T_i = t_ + (last ? 1.0 : tab_.c[i]) * h;
    base_ = y_;
    for (int k = 0; k < j; ++k) {
      const double a = last ? tab_.b[k] : tab_.A(i, k);
      if (a != 0.0) base_ += (h * a) * F_.col(k);
    }
    stage_y_ = U_.col(j);
    const std::vector<int>& zp = sys_->z_positions();
    const Vector& w = weights_->w();
    // no memory of the previous stage's rate: this stage starts from another multiplier, and a
    // first increment accepted on a remembered tiny rate left errors of 1e-6 in lambda
    newton_.reset_factor(1.0);
    newton_.begin(0.05);
    for (;;) {
      if (!rhs(T_j, stage_y_, lambda_, F_.col(j))) {
        res =
            newton_.failure(AttemptOutcome::NonFinite, "a callback failed at a stage of the step");
        return false;
      }
      U_.col(i) = base_ + (h * coef) * F_.col(j);
      work_y_ = U_.col(i);
      if (!sys_->g(T_i, work_y_, lambda_, g_)) {
        res = newton_.failure(AttemptOutcome::NonFinite, "g failed at a stage of the step");
        return false;
      }
      g_ /= -(h * coef);
      s_lu_->solve_in_place(g_);
      ++stats_.nsol;
      ++stats_.nnewton;
      lambda_ += g_;
      double sum = 0.0;
      for (int r = 0; r < m_; ++r) {
        const double q = g_[r] * std::abs(h) / w[zp[static_cast<size_t>(r)]];
        sum += q * q;
      }
      const NewtonMonitor::Verdict v = newton_.next(std::sqrt(sum / m_));
      if (v == NewtonMonitor::Verdict::Continue) continue;
      if (v != NewtonMonitor::Verdict::Converged) {
        res = newton_.failure(v);
        return false;
      }
      Lambda_.col(j) = lambda_;
      if (!rhs(T_j, stage_y_, lambda_, F_.col(j))) {
        res =
            newton_.failure(AttemptOutcome::NonFinite, "a callback failed at a stage of the step");
        return false;
      }
      U_.col(i) = base_ + (h * coef) * F_.col(j);
      return true;
    }
  }

  // P h sum_j (b_j - bh_j) F_j, P = I - f_z S^{-1} g_y, in the integrator's weights.
  double error_estimate() {
    est_.noalias() = h_ * (F_ * weights_e_);
    gy_.noalias() = g_y_ * est_;
    s_lu_->solve_in_place(gy_);
    f_z_gy_.noalias() = f_z_ * gy_;
    est_ -= f_z_gy_;
    err_.setZero(sys_->size());
    sys_->join(est_, zero_z_, err_);
    return weights_->norm(err_);
  }

  // Cubic Hermite in y, linear in z, Newton form on the nodes (0, 0, -1) in theta = (t - t1)/h.
  void build_segment(double t0, const Vector& y0, const Vector& z0, const Vector& fp0) {
    const double h = h_;
    Matrix& D = D_;
    Vector& d01 = d01_;
    Vector& d011 = d011_;
    d01 = y_ - y0;               // f[0, -1]
    D.col(0) = y_;               // f[0]
    D.col(1) = h * fp_;          // f[0, 0]
    D.col(2) = D.col(1) - d01;   // f[0, 0, -1]
    d011 = d01 - h * fp0;        // f[0, -1, -1]
    D.col(3) = D.col(2) - d011;  // f[0, 0, -1, -1]
    Matrix& Dz = Dz_;
    Dz.setZero();
    Dz.col(0) = z_;
    Dz.col(1) = z_ - z0;
    seg_.t_left = t0;
    seg_.t_right = t_;
    seg_.nodes = {0.0, 0.0, -1.0};
    seg_.coeffs.resize(sys_->size(), 4);
    for (int c = 0; c < 4; ++c) {
      work_y_ = D.col(c);
      work_z_ = Dz.col(c);
      sys_->join(work_y_, work_z_, work_x_);
      seg_.coeffs.col(c) = work_x_;
    }
    seg_.correction.resize(0);
  }

  HemOptions opt_;
  HalfExplicitTableau tab_;
  int s_, n_, m_;
  Stats& stats_;
  std::unique_ptr<RealLinearSolver> a_lu_, s_lu_;
  NewtonAttempt newton_;
  const ErrorWeights* weights_ = nullptr;
  Matrix g_y_, f_z_, S_, U_, F_, Lambda_;
  Vector weights_e_;
  bool s_valid_ = false;
  double t_ = 0, h_ = 0, jac_t_ = 0;
  Vector x_, y_, z_, fp_, x_new_, y_new_, z_new_, lambda_, base_, stage_y_, g_, est_, err_;
  Vector f_work_, work_x_, work_y_, work_z_;
  // storage of the step loop, sized once
  Vector y_prev_, fp_prev_, z_prev_;  // the accepted step's start (accept())
  Vector gy_, f_z_gy_, zero_z_;       // error_estimate()
  Matrix D_, Dz_;                     // build_segment(): divided differences of y and z
  Vector d01_, d011_;
};

}  // namespace

namespace {

/// The options of "hem" (HemOptions).
const OptionTable<HemOptions>& hem_option_table() {
  using O = HemOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .choice<std::string>("tableau", &O::tableau, {{"hem4", "hem4"}, {"bh3", "bh3"}},
                               "Brasey-Hairer tableau: hem4 (5 stages, order 4) or bh3 (3 "
                               "stages, order 3)")
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "Newton iterations per stage before the step is retried")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::at_least(0),
                "bound on theta / (1 - theta) |dLambda|; 0: max(10 eps / rtol, min(0.03, "
                "sqrt(rtol)))");
  return table;
}

}  // namespace

MethodRegistration hem_method() {
  MethodRegistration r;
  r.info.name = "hem";
  r.info.title = "half-explicit Runge-Kutta (Brasey-Hairer HEM4 / order 3), Hessenberg index 2";
  r.info.reference =
      "Schropp (2000) (2.7)-(2.8); Brasey and Hairer, SIAM J. Numer. Anal. 30 (1993)";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.index2_form = true;
  c.max_index = 2;
  c.order = 0;  // that of the tableau
  c.dense_output_order = 3;
  c.explicit_method = true;  // half-explicit: explicit stages, a linear solve for lambda
  c.linear_solvers = {LinearSolverKind::Dense};  // that solve: g_y f_z, m x m, dense
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const HemOptions o = method_options<HemOptions>(in, "hem");
    o.validate();
    return std::make_unique<Hem>(o, in);
  };
  describe_options(r, hem_option_table);
  return r;
}

}  // namespace daekit
