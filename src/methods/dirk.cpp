// dirk: diagonally implicit Runge-Kutta methods (see methods/dirk.hpp for the mathematics) on
// the shared services: MassMatrixSystem, the linear-solver backends, NewtonAttempt,
// ReusePolicy and the integrator's error weights.
#include "daekit/methods/dirk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "methods/factory.hpp"
#include "methods/mass_matrix_method.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/reuse.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

void DirkOptions::validate() const {
  const int s = tableau.stages();
  if (s < 1 || tableau.A.rows() != s || tableau.A.cols() != s || tableau.c.size() != s)
    throw InvalidArgument("dirk: tableau '" + tableau.name + "' has inconsistent sizes");
  if (!tableau.lower_triangular())
    throw InvalidArgument("dirk: tableau '" + tableau.name +
                          "' is not diagonally implicit (a_ij != 0 for j > i); use radau or "
                          "projected-rk for fully implicit tableaus");
  for (int i = 1; i < s; ++i)
    if (tableau.A(i, i) == 0.0)
      throw InvalidArgument("dirk: tableau '" + tableau.name + "' has an explicit stage " +
                            std::to_string(i + 1) +
                            " after the first (only ESDIRK's first stage may be explicit); use "
                            "erk for explicit tableaus");
  if (tableau.A(0, 0) == 0.0 && tableau.c[0] != 0.0)
    throw InvalidArgument("dirk: an explicit first stage needs c_1 = 0");
  if (tableau.b_hat.size() != 0 && tableau.b_hat.size() != s)
    throw InvalidArgument("dirk: b_hat of tableau '" + tableau.name + "' has the wrong size");
  if (max_newton_iterations < 1) throw InvalidArgument("dirk: max_newton_iterations must be >= 1");
  validate_newton_reuse(*this, "dirk");
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

const OptionTable<DirkOptions>& dirk_option_table();  // next to the registration

class Dirk final : public MassMatrixMethod {
 public:
  Dirk(const MassMatrixDae& dae, const DirkOptions& options, const MethodInput& in)
      : MassMatrixMethod(dae, in.linear_solver, *in.guard, *in.stats),
        opt_(options),
        tab_(options.tableau),
        n_(dae.n),
        s_(tab_.stages()),
        stats_(*in.stats) {
    const int n = n_;
    explicit_first_ = tab_.A(0, 0) == 0.0;
    stiffly_accurate_ = (tab_.A.row(s_ - 1).transpose() - tab_.b).cwiseAbs().maxCoeff() <= 1e-12;
    if (!stiffly_accurate_ && !sys_.mass().is_identity())
      throw InvalidArgument("dirk: tableau '" + tab_.name +
                            "' is not stiffly accurate (b != last row of A): it needs M = I "
                            "(for DAEs use a stiffly accurate tableau, e.g. kvaerno4)");
    // one factorisation per distinct diagonal value
    for (int i = 0; i < s_; ++i) {
      const double g = tab_.A(i, i);
      if (g == 0.0) {
        block_.push_back(-1);
        continue;
      }
      int found = -1;
      for (size_t k = 0; k < gammas_.size(); ++k)
        if (gammas_[k] == g) found = static_cast<int>(k);
      if (found < 0) {
        gammas_.push_back(g);
        lu_.push_back(sys_.make_solver<double>());
        found = static_cast<int>(gammas_.size()) - 1;
      }
      block_.push_back(found);
    }
    error_block_ = block_[static_cast<size_t>(s_ - 1)];
    if (tab_.has_embedded()) d_ = tab_.b - tab_.b_hat;
    y_.resize(n);
    f0_.resize(n);
    fjac_.resize(n);
    y_new_.resize(n);
    f_new_.resize(n);
    tmp_.resize(n);
    tmp2_.resize(n);
    rhs_.resize(n);
    err_vec_.resize(n);
    scal_.resize(n);
    yp_.setZero(n);
    sys_.allocate_jacobian(J_);
    Z_.setZero(n, s_);
    F_.setZero(n, s_);
    // dense-output nodes (theta = (t - t_{n+1}) / h): 0 = y_{n+1}, distinct c_i - 1 for
    // c_i in (0, 1) descending, -1 = y_n
    nodes_.push_back(0.0);
    source_.push_back(-1);
    std::vector<std::pair<double, int>> inner;
    for (int i = 0; i < s_; ++i) {
      const double ci = tab_.c[i];
      if (ci <= 0.0 || ci >= 1.0) continue;
      bool dup = false;
      for (const auto& p : inner) dup = dup || std::abs(p.first - ci) <= 1e-12;
      if (!dup) inner.push_back({ci, i});
    }
    std::sort(inner.begin(), inner.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& p : inner) {
      nodes_.push_back(p.first - 1.0);
      source_.push_back(p.second);
    }
    nodes_.push_back(-1.0);
    source_.push_back(-2);
    cont_.setZero(n, static_cast<int>(nodes_.size()));
    dscratch_.setZero(n);
    index_.resize(n);
    for (int i = 0; i < n; ++i) index_[i] = dae.index_of(i);
    max_index_ = dae.max_index();
    // the tolerance follows rtol (start())
    newton_ =
        NewtonAttempt(NewtonMonitor::radau5(opt_.max_newton_iterations), *in.guard, *in.stats);
    newton_.watch_jacobian(&jac_valid_, &jac_fresh_);
    reuse_ = ReusePolicy::radau5(opt_.jacobian_reuse_theta, opt_.lu_reuse_low, opt_.lu_reuse_high);
  }

  const char* name() const override { return "dirk"; }
  int order() const override { return tab_.order; }
  int error_order() const override { return std::max(tab_.embedded_order, 1) + 1; }
  Projection requested_projection() const override { return opt_.projection; }

  // A tableau without an error estimate is a choice to change (a warning); the scaling of
  // higher-index errors is a fact of the design (a note).
  Caveats caveats(const Tolerances&) const override {
    Caveats c;
    if (!tab_.has_embedded())
      c.warnings.push_back("dirk: tableau '" + tab_.name +
                           "' has no embedded formula: the step size is not controlled (error "
                           "estimate 0); use Options::fixed_step");
    if (max_index_ >= 2)
      c.notes.emplace_back(
          "dirk scales the error of index-2 and index-3 components by h and h^2 (as RADAU5); "
          "DIRK methods lose order on higher-index problems (notes 2.3)");
    return c;
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights, std::string&) override {
    weights_ = &weights;
    const double rtol = weights.rtol();
    newton_.settings().tolerance =
        opt_.newton_tolerance > 0 ? opt_.newton_tolerance
                                  : std::max(10 * kEps / rtol, std::min(0.03, std::sqrt(rtol)));
    all_in_test_ = weights.test_count() == n_;
    t_ = t0;
    y_ = y0;
    h_last_ = 0.0;
    if (!sys_.f(t_, y_, f0_)) return false;
    f0_exact_ = true;
    reset_state();
    return true;
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    newton_.begin_attempt();
    if (need_jac_ || !jac_valid_) {
      if (!compute_jacobian()) return newton_.failure(AttemptOutcome::NonFinite, "Jacobian failed");
    }
    if (!lu_valid_ || h != h_lu_) {
      if (!factor(h)) {
        lu_valid_ = false;
        return newton_.failure(AttemptOutcome::Singular, lu_[0]->singular_reason());
      }
    }
    compute_scale(h);
    predictor_slope();
    for (int i = 0; i < s_; ++i) {
      if (i == 0 && explicit_first_) {
        Z_.col(0).setZero();
        F_.col(0) = f0_;
        continue;
      }
      // rhs_ = h sum_{j<i} a_ij F_j
      rhs_.setZero();
      for (int j = 0; j < i; ++j)
        if (tab_.A(i, j) != 0.0) rhs_ += (h * tab_.A(i, j)) * F_.col(j);
      // starting value: the previous step's slope, or the last stage's increment
      Z_.col(i) = (tab_.c[i] * h) * yp_;
      const int b = block_[static_cast<size_t>(i)];
      const double g = tab_.A(i, i), sg = 1.0 / (h * g);
      newton_.begin(opt_.jacobian_reuse_theta);
      for (;;) {
        tmp_ = y_ + Z_.col(i);
        if (!sys_.f(t_ + tab_.c[i] * h, tmp_, F_.col(i)))
          return newton_.failure(AttemptOutcome::NonFinite, "f failed at a stage of the step");
        // residual of (1/(h g)) M Z - F = rhs / (h g)
        sys_.mass().apply(Z_.col(i), tmp2_);
        tmp_ = F_.col(i) + sg * (rhs_ - tmp2_);
        lu_[static_cast<size_t>(b)]->solve_in_place(tmp_);
        ++stats_.nsol;
        ++stats_.nnewton;
        const double dyno = std::sqrt((tmp_.array() / scal_.array()).square().sum() / n_);
        const NewtonMonitor::Verdict v = newton_.next(dyno);
        if (v == NewtonMonitor::Verdict::NonFinite || v == NewtonMonitor::Verdict::Diverging ||
            v == NewtonMonitor::Verdict::TooSlow)
          return newton_.failure(v, lu_[0]->solve_failure());
        Z_.col(i) += tmp_;
        if (v == NewtonMonitor::Verdict::Converged) break;
        if (v == NewtonMonitor::Verdict::MaxIterations) return newton_.failure(v);
      }
      // F_i consistent with the converged stage: h a_ii F_i = M Z_i - rhs (no extra
      // evaluation; on algebraic rows this is -sum_{j<i} a_ij g_j / a_ii, zero to round-off)
      sys_.mass().apply(Z_.col(i), tmp2_);
      F_.col(i) = sg * (tmp2_ - rhs_);
    }
    StepAttempt res = newton_.converged(0.0);
    rate_ = res.newton_rate;
    const int implicit = s_ - (explicit_first_ ? 1 : 0);
    res.safety_scale = std::min(
        1.0, (1.0 + 2.0 * opt_.max_newton_iterations) /
                 (double(res.newton_iterations) / implicit + 2.0 * opt_.max_newton_iterations));
    // y_{n+1}
    if (stiffly_accurate_) {
      y_new_ = y_ + Z_.col(s_ - 1);
    } else {
      y_new_ = y_;
      for (int i = 0; i < s_; ++i) y_new_ += (h * tab_.b[i]) * F_.col(i);
    }
    res.err = error_estimate(h);
    if (sys_.guard().fatal())
      return newton_.failure(AttemptOutcome::CallbackError, "callback failed");
    if (!std::isfinite(res.err))
      return newton_.failure(AttemptOutcome::NonFinite, "error not finite");
    if (res.err >= 1.0) need_jac_ = !jac_fresh_;
    return res;
  }

  Vector& candidate() override { return y_new_; }

  bool accept() override {
    // f at the new point: the last stage's F when y_{n+1} = Y_s was not changed by a hook
    const bool unchanged = stiffly_accurate_ && tab_.c[s_ - 1] == 1.0 &&
                           (y_new_ - y_ - Z_.col(s_ - 1)).cwiseAbs().maxCoeff() == 0.0;
    f_new_exact_ = !unchanged;
    if (unchanged) {
      f_new_ = F_.col(s_ - 1);
    } else if (!sys_.f(t_ + h_, y_new_, f_new_)) {
      need_jac_ = !jac_fresh_;
      return false;
    }
    update_dense_output();
    t_ += h_;
    h_last_ = h_;
    y_.swap(y_new_);
    f0_.swap(f_new_);
    f0_exact_ = f_new_exact_;
    first_ = false;
    jac_fresh_ = false;
    return true;
  }

  // As RADAU5: the Jacobian stays while Newton contracted fast enough; with it the
  // factorisation, for step ratios in [lu_reuse_low, lu_reuse_high] (the controller keeps h).
  MatrixReuse plan_matrix_reuse() override {
    const bool keep_jacobian = reuse_.keep_jacobian(rate_);
    need_jac_ = !keep_jacobian;
    MatrixReuse r;
    r.keeps_factorisation = keep_jacobian;
    r.low = reuse_.ratio_low;
    r.high = reuse_.ratio_high;
    return r;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }

  void derivative(VecOut out) const override {
    if (h_last_ != 0.0) {
      dense_derivative(t_, out);
      return;
    }
    sys_.mass().solve_diagonal_part(f0_, out);
  }

  void dense(double t, VecOut out) const override {
    const double theta = (t - t_) / h_last_;
    const int m = static_cast<int>(nodes_.size()) - 1;
    out = cont_.col(m);
    for (int k = m - 1; k >= 0; --k) out = cont_.col(k) + (theta - nodes_[k]) * out;
  }

  void dense_derivative(double t, VecOut out) const override {
    const double theta = (t - t_) / h_last_;
    const int m = static_cast<int>(nodes_.size()) - 1;
    out.setZero();
    dscratch_ = cont_.col(m);
    for (int k = m - 1; k >= 0; --k) {
      const double x = theta - nodes_[k];
      out = dscratch_ + x * out;
      dscratch_ = cont_.col(k) + x * dscratch_;
    }
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
    f0_exact_ = true;
    h_last_ = 0.0;
    reset_state();
    return true;
  }

  bool refresh(std::string& message) override {
    // f(t, y) is the explicit first stage of an ESDIRK and the base of the difference Jacobian
    if (!sys_.f(t_, y_, f0_)) {
      message = "f failed at t = " + std::to_string(t_) + ": " + sys_.guard().failure().describe();
      return false;
    }
    f0_exact_ = true;
    return true;
  }

  DenseSegment segment() const override {
    DenseSegment s;
    s.t_left = t_ - h_last_;
    s.t_right = t_;
    s.nodes.assign(nodes_.begin(), nodes_.end() - 1);
    s.coeffs = cont_;
    return s;
  }

  std::string linear_solver() const override { return lu_.empty() ? "" : lu_[0]->name(); }
  int jacobian_colours() const override { return differenced_jacobian_colours(); }

  std::vector<MethodOptionValue> used_options() const override {
    return dirk_option_table().values(opt_);
  }

 private:
  void reset_state() {
    first_ = true;
    jac_valid_ = jac_fresh_ = lu_valid_ = false;
    need_jac_ = true;
    newton_.reset_factor(1.0);
    rate_ = 0.0;
  }

  bool compute_jacobian() {
    // Differences need f(t, y) itself as their base: f0_ taken from the last stage (F_s from
    // the stage relation) differs from it by Newton's error, on the algebraic rows by the
    // constraint residual g(y) (~1e-7) against a zero, which divided by the increment
    // (~1e-8) spoilt the constraint rows of J: the stages' Newton then converged in the
    // weighted increments while g(Y) stayed at -1.1e-3 (el-manufactured, rtol = 3.2e-5),
    // and the next steps' error estimates saw that residual at every h (step_size_too_small).
    if (!f0_exact_ && !sys_.dae().jacobian && !sys_.dae().sparse_jacobian) {
      if (!sys_.f(t_, y_, fjac_)) return jac_valid_ = jac_fresh_ = false;
      jac_valid_ = jac_fresh_ = sys_.jacobian(t_, y_, fjac_, J_);
    } else {
      jac_valid_ = jac_fresh_ = sys_.jacobian(t_, y_, f0_, J_);
    }
    need_jac_ = false;
    lu_valid_ = false;
    return jac_valid_;
  }

  bool factor(double h) {
    bool ok = true;
    for (size_t k = 0; k < gammas_.size() && ok; ++k) {
      sys_.assemble(1.0 / (h * gammas_[k]), J_, lu_[k]->matrix());
      ok = lu_[k]->factor();
    }
    ++stats_.nlu;
    h_lu_ = h;
    lu_valid_ = ok;
    return ok;
  }

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

  // yp_: the slope for the stages' starting values (the end of the last step's interpolant;
  // before the first step f where M is the identity, else zero)
  void predictor_slope() {
    if (!first_) {
      dense_derivative(t_, yp_);
    } else if (sys_.mass().is_identity()) {
      yp_ = f0_;
    } else {
      yp_.setZero();
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

  // err = (M - h gamma J)^{-1} h sum_i d_i F_i = E^{-1} (sum_i d_i F_i) / gamma with
  // E = (1/(h gamma)) M - J the last stage's factorised matrix.
  double error_estimate(double) {
    if (!tab_.has_embedded()) return 0.0;
    err_vec_.setZero();
    for (int i = 0; i < s_; ++i)
      if (d_[i] != 0.0) err_vec_ += d_[i] * F_.col(i);
    err_vec_ /= gammas_[static_cast<size_t>(error_block_)];
    lu_[static_cast<size_t>(error_block_)]->solve_in_place(err_vec_);
    ++stats_.nsol;
    return std::max(scaled_norm(err_vec_), 1e-10);
  }

  // Newton divided differences over the nodes, from the values as computed.
  void update_dense_output() {
    const int m = static_cast<int>(nodes_.size()) - 1;
    // divided differences of the increments Y - y_n (no cancellation in y + Z_i - (y + Z_j)),
    // y_n added to the constant term
    for (int j = 0; j <= m; ++j) {
      const int src = source_[static_cast<size_t>(j)];
      if (src == -1 && stiffly_accurate_)
        cont_.col(j) = Z_.col(s_ - 1);
      else if (src == -1)
        cont_.col(j) = y_new_ - y_;
      else if (src == -2)
        cont_.col(j).setZero();
      else
        cont_.col(j) = Z_.col(src);
    }
    for (int l = 1; l <= m; ++l)
      for (int j = m; j >= l; --j)
        cont_.col(j) = (cont_.col(j) - cont_.col(j - 1)) / (nodes_[j] - nodes_[j - l]);
    cont_.col(0) += y_;
  }

  DirkOptions opt_;
  RungeKuttaTableau tab_;
  int n_, s_;
  Stats& stats_;
  const ErrorWeights* weights_ = nullptr;
  bool all_in_test_ = true;
  bool explicit_first_ = false, stiffly_accurate_ = false;
  std::vector<double> gammas_;
  std::vector<int> block_;
  int error_block_ = 0;
  std::vector<std::unique_ptr<RealLinearSolver>> lu_;
  Vector d_;
  NewtonAttempt newton_;
  ReusePolicy reuse_;
  std::vector<int> index_;
  int max_index_ = 1;
  double t_ = 0, h_ = 0, h_last_ = 0, h_lu_ = 0, rate_ = 0;
  bool first_ = true, jac_valid_ = false, jac_fresh_ = false, need_jac_ = true, lu_valid_ = false;
  Vector y_, f0_, y_new_, f_new_, tmp_, tmp2_, rhs_, err_vec_, scal_, yp_;
  Vector fjac_;  ///< f(t, y) for the differences when f0_ is the last stage's F
  bool f0_exact_ = true, f_new_exact_ = true;  ///< f0_ / f_new_ evaluated at their point
  mutable Vector dscratch_;
  StructuredMatrix<double> J_;
  Matrix Z_, F_, cont_;
  std::vector<double> nodes_;
  std::vector<int> source_;
};

}  // namespace

namespace {

/// The options of "dirk" (DirkOptions; its projection is Options::projection).
const OptionTable<DirkOptions>& dirk_option_table() {
  using O = DirkOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .tableau("tableau", &O::tableau,
                   "a diagonally implicit tableau (SDIRK, ESDIRK); without an embedded formula "
                   "only constant steps")
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "Newton iterations per stage before the step is retried")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::at_least(0),
                "bound on the Newton error estimate; 0: max(10 eps / rtol, min(0.03, "
                "sqrt(rtol)))")
          .real("jacobian_reuse_theta", &O::jacobian_reuse_theta, Bounds::open(0, 1),
                "keep the Jacobian while Newton's contraction rate stays below this")
          .real("lu_reuse_low", &O::lu_reuse_low, Bounds::left_open(0, 1),
                "keep h and the LU while h_new / h lies in [lu_reuse_low, lu_reuse_high]")
          .real("lu_reuse_high", &O::lu_reuse_high, Bounds::at_least(1), "upper end of that band");
  return table;
}

}  // namespace

MethodRegistration dirk_method() {
  MethodRegistration r;
  r.info.name = "dirk";
  r.info.title = "diagonally implicit RK (SDIRK, ESDIRK; default Kvaerno's ESDIRK 4(3)), index 1";
  r.info.reference =
      "Hairer-Wanner II, IV.6 (SDIRK4); Kvaerno, BIT 44 (2004) 489-502 (ESDIRK); Bendtsen-Thomsen "
      "(eds.), IMM-REP-1999-8, 2.4";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 3;
  c.order = 0;  // that of the tableau
  c.dense_output_order = 2;
  c.projection = true;
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const DirkOptions o = method_options<DirkOptions>(in, "dirk");
    o.validate();
    return std::make_unique<Dirk>(*in.mass_form, o, in);
  };
  describe_options(r, dirk_option_table);
  return r;
}

}  // namespace daekit
