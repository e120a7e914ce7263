// projected-rk: constant-step implicit Runge-Kutta with any invertible tableau (see
// methods/projected_rk.hpp), on the shared MassMatrixSystem, a dense linear solver for the
// sn x sn stage matrix, NewtonAttempt and the integrator's projection hook.
#include "daekit/methods/projected_rk.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/dense_spectra.hpp"
#include "daekit/tableaus/analysis.hpp"
#include "methods/factory.hpp"
#include "methods/mass_matrix_method.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/hidden_constraint.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

void ProjectedRkOptions::validate() const {
  if (max_newton_iterations < 1)
    throw InvalidArgument("projected-rk: max_newton_iterations must be >= 1");
  if (!(newton_tolerance > 0)) throw InvalidArgument("projected-rk: newton_tolerance must be > 0");
  const int s = tableau.stages();
  if (s < 1 || tableau.A.rows() != s || tableau.A.cols() != s || tableau.c.size() != s)
    throw InvalidArgument("projected-rk: tableau '" + tableau.name + "' has inconsistent sizes");
  if (!Eigen::FullPivLU<Matrix>(tableau.A).isInvertible()) {
    // an explicit first stage with an invertible rest, stiffly accurate (Lobatto IIIA)
    const bool explicit_first =
        s >= 2 && tableau.A.row(0).cwiseAbs().maxCoeff() == 0.0 && tableau.c[0] == 0.0 &&
        Eigen::FullPivLU<Matrix>(tableau.A.bottomRightCorner(s - 1, s - 1)).isInvertible();
    const bool stiffly_accurate =
        (tableau.A.row(s - 1).transpose() - tableau.b).cwiseAbs().maxCoeff() <= 1e-12;
    if (!explicit_first || !stiffly_accurate)
      throw InvalidArgument("projected-rk: " + tableau.name +
                            ": A is singular (only an explicit first stage of a stiffly "
                            "accurate tableau, as Lobatto IIIA's, is supported)");
  }
}

namespace {

const OptionTable<ProjectedRkOptions>& projected_rk_option_table();  // next to the registration

class ProjectedRk final : public MassMatrixMethod {
 public:
  ProjectedRk(const MassMatrixDae& dae, const ProjectedRkOptions& opt, const MethodInput& in)
      : MassMatrixMethod(dae, LinearSolverKind::Dense, *in.guard, *in.stats),
        tab_(opt.tableau),
        opt_(opt),
        stats_(*in.stats),
        n_(dae.n),
        s_(tab_.stages()) {
    if (static_cast<long>(n_) * s_ > 1000)
      throw InvalidArgument("projected-rk: the stage matrix would be " + std::to_string(n_ * s_) +
                            " x " + std::to_string(n_ * s_) +
                            " and dense (n = " + std::to_string(n_) + ", " + std::to_string(s_) +
                            " stages): this constant-step study method is "
                            "meant for n s <= 1000; use radau5 or bdf for large systems");
    Eigen::FullPivLU<Matrix> lu(tab_.A);
    explicit_first_ = !lu.isInvertible();  // validate(): then an explicit first stage
    off_ = explicit_first_ ? 1 : 0;
    m_ = s_ - off_;
    const Matrix At = tab_.A.bottomRightCorner(m_, m_);
    Ainv_ = At.inverse();
    if (explicit_first_) {
      a1_ = Ainv_ * tab_.A.col(0).tail(m_);  // (2.6) rows 2..s: h F_1 enters with these
      d_ = Eigen::RowVectorXd::Zero(m_);
      d_[m_ - 1] = 1.0;  // stiffly accurate: y_{n+1} = Y_s
    } else {
      d_ = tab_.b.transpose() * Ainv_;  // y_{n+1} = y_n + sum_i d_i Z_i
    }
    M_ = sys_.mass().to_dense();
    y_.resize(n_);
    y_new_.resize(n_);
    tmp_.resize(n_);
    f0_.resize(n_);
    scal_.resize(n_);
    sys_.allocate_jacobian(J_);
    Z_.setZero(n_, s_);
    F_.resize(n_, s_);
    rhs_.resize(n_ * m_);
    lu_ = make_dense_solver<double>(n_ * m_);
    // full Newton accuracy on the stages: converged when the largest scaled increment is within
    // newton_tolerance, or stagnates at the round-off level (within one weight, shrinking by
    // less than half); the Jacobian is evaluated at every step (no reuse)
    NewtonMonitor::Settings ns;
    ns.rate_estimate = NewtonMonitor::RateEstimate::None;
    ns.max_iterations = opt_.max_newton_iterations;
    ns.tolerance = opt_.newton_tolerance;
    ns.stagnation = 1.0;
    newton_ = NewtonAttempt(ns, *in.guard, *in.stats);
    if (opt_.algebraic_update == ProjectedRkOptions::AlgebraicUpdate::StateSpace) {
      if (dae.max_index() > 1)
        throw InvalidArgument(
            "projected-rk: the state-space update (2.7e) is for index 1 (the algebraic "
            "components are index 2 or 3 here)");
      algebraic_rows_ = sys_.mass().zero_rows();
      algebraic_cols_ = sys_.mass().zero_columns();
      if (algebraic_rows_ != algebraic_cols_)
        throw InvalidArgument(
            "projected-rk: the state-space update needs the algebraic equations and variables "
            "in the same zero rows and columns of M (semi-explicit form)");
    }
    // paper 000, (B1)-(B3), for check_projection()
    const OrderResult order = classical_order(tab_);
    const int q = std::min(simplifying_B(tab_, 30, 1e-11), simplifying_C(tab_, 30, 1e-11));
    const double rinf = r_infinity(tab_);
    char line[200];
    if (explicit_first_) conditions_ += "(B1) A is singular; ";
    // index 2: Schropp's conditions for the projected method, A invertible and |R(inf)| < 1
    // (paper 001 Section 2 (a)); they carry his Theorems 2.1 and 2.2, not the convergence
    // (the projected Gauss methods of Hairer-Wanner's index-2 order table have |R(inf)| = 1)
    if (explicit_first_) conditions_index2_ += "A is singular; ";
    if (!(std::abs(rinf) < 1.0 - 1e-12)) {
      std::snprintf(line, sizeof line, "|R(inf)| = %.3g is not < 1; ", std::abs(rinf));
      conditions_index2_ += line;
    }
    if (!(std::abs(rinf) < 1.0 - 1e-12)) {
      std::snprintf(line, sizeof line, "(B2) |R(inf)| = %.3g is not < 1; ", std::abs(rinf));
      conditions_ += line;
    }
    if (!(order.order >= q + 1 && q >= 2)) {
      std::snprintf(line, sizeof line,
                    "(B3) order p = %d, stage order q = %d: p >= q + 1 and q >= 2 fail; ",
                    order.order, q);
      conditions_ += line;
    }
    // dense output through (-1, y_n) and (c_i - 1, Y_i) for the nodes c_i != 0, and (0, y_{n+1})
    // when 1 is not a node
    nodes_theta_.clear();
    for (int i = s_ - 1; i >= 0; --i)
      if (tab_.c[i] != 0.0 && (i == s_ - 1 || tab_.c[i] != tab_.c[i + 1]))
        nodes_theta_.push_back(tab_.c[i] - 1.0);
    if (tab_.c.maxCoeff() != 1.0) nodes_theta_.insert(nodes_theta_.begin(), 0.0);
    nodes_theta_.push_back(-1.0);
    seg_.nodes.assign(nodes_theta_.begin(), nodes_theta_.end() - 1);
    seg_.coeffs.setZero(n_, static_cast<int>(nodes_theta_.size()));
    zd_.setZero(n_);
    work_plus_.setZero(n_);
    work_minus_.setZero(n_);
    if (!algebraic_rows_.empty()) {
      const int na = static_cast<int>(algebraic_rows_.size());
      g_lu_ = make_dense_solver<double>(na);
      g_.setZero(na);
    }
  }

  const char* name() const override { return "projected-rk"; }
  int order() const override { return tab_.order; }
  int error_order() const override { return tab_.order; }
  Projection requested_projection() const override { return opt_.projection; }

  std::string check_projection(Projection projection, std::vector<std::string>& warnings) override {
    if (opt_.algebraic_after_projection ==
        ProjectedRkOptions::AlgebraicAfterProjection::HiddenConstraint) {
      if (projection == Projection::None) {
        warnings.push_back(
            "projected-rk: algebraic_after_projection = hidden-constraint has no effect: it "
            "recomputes z after the projection of y, and no projection is requested "
            "(Options::projection, --projection full)");
      } else {
        try {  // the structure is checked here, where the projection is known
          hidden_ = std::make_unique<HiddenConstraintSolver>(sys_);
        } catch (const InvalidArgument& e) {
          return std::string("projected-rk: ") + e.what();
        }
      }
    }
    if (projection != Projection::None && sys_.dae().max_index() == 2 &&
        !conditions_index2_.empty())
      warnings.push_back(
          "projected-rk: tableau '" + tab_.name +
          "' at index 2: " + conditions_index2_.substr(0, conditions_index2_.size() - 2) +
          ". The projected method converges (Hairer-Wanner II, VII, the index-2 order table), "
          "but Schropp's Theorems 2.1 and 2.2 (J. Schropp 2000: an attractive invariant "
          "manifold, errors in the algebraic variables damped by |R(inf)| per step) assume "
          "|R(inf)| < 1: here such errors are carried along undamped");
    if (projection == Projection::None || sys_.dae().max_index() < 3 || conditions_.empty())
      return {};
    const std::string what = "projected-rk: tableau '" + tab_.name +
                             "' fails the conditions of Schropp (2006) for the projected index-3 "
                             "method: " +
                             conditions_.substr(0, conditions_.size() - 2) +
                             " (Theorem 2.1 does not apply)";
    if (!opt_.allow_unproven_tableau)
      return what + "; set ProjectedRkOptions::allow_unproven_tableau to run it anyway";
    warnings.push_back(what + "; run with allow_unproven_tableau");
    return {};
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights, std::string&) override {
    weights_ = &weights;
    t_ = t0;
    y_ = y0;
    h_last_ = 0.0;
    mark_segment();
    return true;
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    newton_.begin_attempt();
    // Jacobian at (t_n, y_n) and LU of A^{-1} (x) M - h I (x) J (every step: constant h, but
    // the problem is nonlinear and the study wants full Newton accuracy).
    if (!sys_.f(t_, y_, f0_))
      return newton_.failure(AttemptOutcome::NonFinite, "f(t_n, y_n) failed");
    if (!sys_.jacobian(t_, y_, f0_, J_))
      return newton_.failure(AttemptOutcome::NonFinite, "Jacobian failed");
    const Matrix& J = J_.dense();  // the system's backend is dense
    auto& E = lu_->matrix().dense();
    for (int i = 0; i < m_; ++i)
      for (int j = 0; j < m_; ++j) {
        E.block(i * n_, j * n_, n_, n_) = Ainv_(i, j) * M_;
        if (i == j) E.block(i * n_, j * n_, n_, n_) -= h * J;
      }
    ++stats_.nlu;
    if (!lu_->factor())
      return newton_.failure(AttemptOutcome::Singular, "stage Newton matrix singular");
    // scaled as in RADAU5: index-2 components by 1/|h|, index-3 components by 1/h^2
    for (int i = 0; i < n_; ++i)
      scal_[i] = weights_->w()[i] / std::pow(std::abs(h), sys_.index_of(i) - 1);
    Z_.setZero();
    if (explicit_first_) F_.col(0) = f0_;  // Y_1 = y_n
    newton_.begin(0.0);
    for (;;) {
      for (int i = off_; i < s_; ++i) {
        tmp_ = y_ + Z_.col(i);
        if (!sys_.f(t_ + tab_.c[i] * h, tmp_, F_.col(i)))
          return newton_.failure(AttemptOutcome::NonFinite, "f failed at a stage");
      }
      // residual r_i = h F_i (+ h (At^{-1} a)_i F_1) - sum_j At^{-1}_ij M Z_j (implicit stages)
      for (int k = 0; k < m_; ++k) {
        tmp_ = h * F_.col(off_ + k);
        if (explicit_first_) tmp_ += (h * a1_[k]) * F_.col(0);
        for (int l = 0; l < m_; ++l) tmp_.noalias() -= Ainv_(k, l) * (M_ * Z_.col(off_ + l));
        rhs_.segment(k * n_, n_) = tmp_;
      }
      lu_->solve_in_place(rhs_);
      ++stats_.nsol;
      ++stats_.nnewton;
      double norm = 0.0;
      for (int k = 0; k < m_; ++k) {
        Z_.col(off_ + k) += rhs_.segment(k * n_, n_);
        norm = std::max(norm, (rhs_.segment(k * n_, n_).array() / scal_.array()).abs().maxCoeff());
      }
      const NewtonMonitor::Verdict v = newton_.next(norm);
      if (v == NewtonMonitor::Verdict::Continue) continue;
      if (v != NewtonMonitor::Verdict::Converged) return newton_.failure(v, lu_->solve_failure());
      y_new_ = y_ + end_increment();
      if (opt_.algebraic_update == ProjectedRkOptions::AlgebraicUpdate::StateSpace &&
          !solve_constraints(t_ + h))
        return newton_.failure(AttemptOutcome::NewtonFailed, "0 = g(y_{n+1}, z_{n+1}) not solved");
      return newton_.converged(0.0);
    }
  }

  // The dense output's interval: the last step, [t_, t_] before the first.
  void mark_segment() {
    seg_.t_left = t_ - h_last_;
    seg_.t_right = t_;
  }

  // y_{n+1} - y_n = sum_i d_i Z_i (into zd_).
  const Vector& end_increment() {
    zd_.noalias() = Z_.rightCols(m_) * d_.transpose();
    return zd_;
  }

  // (2.7e): z_{n+1} from 0 = g(t, y_{n+1}, z) by Newton with g_z (fresh each iteration; a
  // study method, index 1)
  bool solve_constraints(double t) {
    const int na = static_cast<int>(algebraic_rows_.size());
    if (na == 0) return true;
    Vector& dz = g_;             // g, then the increment (solved in place)
    NewtonMonitor::Settings ns;  // to the round-off level: |dz| <= 1e-14 max(1, |z|)
    ns.rate_estimate = NewtonMonitor::RateEstimate::None;
    ns.max_iterations = 30;
    NewtonMonitor newton(ns);
    newton.begin(0.0);
    for (;;) {
      if (!sys_.f(t, y_new_, tmp_)) return false;
      for (int a = 0; a < na; ++a) dz[a] = tmp_[algebraic_rows_[static_cast<size_t>(a)]];
      if (!sys_.jacobian(t, y_new_, tmp_, J_)) return false;
      Matrix& Gz = g_lu_->matrix().dense();
      for (int a = 0; a < na; ++a)
        for (int b = 0; b < na; ++b)
          Gz(a, b) = J_.at(algebraic_rows_[static_cast<size_t>(a)],
                           algebraic_cols_[static_cast<size_t>(b)]);
      if (!g_lu_->factor()) return false;  // g_z singular: not index 1 here
      g_lu_->solve_in_place(dz);
      double change = 0.0, size = 1.0;
      for (int a = 0; a < na; ++a) {
        const int c = algebraic_cols_[static_cast<size_t>(a)];
        y_new_[c] -= dz[a];
        change = std::max(change, std::abs(dz[a]));
        size = std::max(size, std::abs(y_new_[c]));
      }
      newton.settings().tolerance = 1e-14 * size;
      const NewtonMonitor::Verdict v = newton.next(change);
      if (v == NewtonMonitor::Verdict::Converged) return true;
      if (v != NewtonMonitor::Verdict::Continue) return false;
    }
  }

  Vector& candidate() override { return y_new_; }

  // the problem's projection of y, then (option) z from the hidden constraint (3.11b)
  bool project(double t, VecOut y, Projection level) override {
    if (!MassMatrixMethod::project(t, y, level)) return false;
    return !hidden_ || hidden_->solve(t, y);
  }

  bool accept() override {
    // Newton divided differences over the nodes (theta units, newest first), through the
    // end value as computed (the integrator adds a projection's change linearly)
    const int m = static_cast<int>(nodes_theta_.size());
    Matrix& cont = seg_.coeffs;
    int col = 0;
    for (double x : nodes_theta_) {
      if (x == 0.0)
        cont.col(col) = y_ + end_increment();
      else if (x == -1.0)
        cont.col(col) = y_;
      else
        for (int i = 0; i < s_; ++i)
          if (tab_.c[i] - 1.0 == x) cont.col(col) = y_ + Z_.col(i);
      ++col;
    }
    for (int k = 1; k < m; ++k)
      for (int j = m - 1; j >= k; --j)
        cont.col(j) = (cont.col(j) - cont.col(j - 1)) / (nodes_theta_[j] - nodes_theta_[j - k]);
    t_ += h_;
    h_last_ = h_;
    y_.swap(y_new_);
    mark_segment();
    return true;
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    t_ = t;
    y_ = y;
    h_last_ = 0.0;
    mark_segment();
    return reinitialize(sys_, t_, y_, message);
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }
  void derivative(VecOut out) const override {
    if (h_last_ != 0.0)
      dense_derivative(t_, out);
    else
      out.setZero();
  }
  void dense(double t, VecOut out) const override { seg_.evaluate(t, out); }
  void dense_derivative(double t, VecOut out) const override {
    const double e = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(t));
    seg_.evaluate(t + e, work_plus_);
    seg_.evaluate(t - e, work_minus_);
    out = (work_plus_ - work_minus_) / (2 * e);
  }
  DenseSegment segment() const override { return seg_; }
  std::string linear_solver() const override { return lu_->name(); }

  std::vector<MethodOptionValue> used_options() const override {
    return projected_rk_option_table().values(opt_);
  }

 private:
  RungeKuttaTableau tab_;
  ProjectedRkOptions opt_;
  Stats& stats_;
  NewtonAttempt newton_;
  int n_, s_;
  const ErrorWeights* weights_ = nullptr;
  Matrix Ainv_, M_, Z_, F_;
  DenseSegment seg_;  // over the last step [t_ - h_last_, t_]: (-1, y_n), the stages, y_{n+1}
  Vector zd_;         // end_increment()
  mutable Vector work_plus_, work_minus_;           // dense_derivative()
  std::unique_ptr<RealLinearSolver> g_lu_;          // g_z of the state-space update (2.7e)
  std::unique_ptr<HiddenConstraintSolver> hidden_;  // z after the projection (3.11b)
  Vector g_;
  StructuredMatrix<double> J_;
  Eigen::RowVectorXd d_;
  bool explicit_first_ = false;
  int off_ = 0, m_ = 0;  // first implicit stage, number of implicit stages
  Vector a1_;
  std::vector<int> algebraic_rows_, algebraic_cols_;
  std::string conditions_;         // (B1)-(B3) that fail
  std::string conditions_index2_;  // Schropp's A invertible, |R(inf)| < 1 that fail
  Vector y_, y_new_, tmp_, f0_, scal_, rhs_;
  std::vector<double> nodes_theta_;
  std::unique_ptr<RealLinearSolver> lu_;
  double t_ = 0, h_ = 0, h_last_ = 0;
};

}  // namespace

namespace {

/// The options of "projected-rk" (ProjectedRkOptions; its projection is Options::projection).
const OptionTable<ProjectedRkOptions>& projected_rk_option_table() {
  using O = ProjectedRkOptions;
  using U = O::AlgebraicUpdate;
  using AP = O::AlgebraicAfterProjection;
  static const OptionTable<O> table =
      OptionTable<O>()
          .tableau("tableau", &O::tableau,
                   "an implicit tableau with A invertible (or an explicit first stage, stiffly "
                   "accurate)")
          .choice<U>("algebraic_update", &O::algebraic_update,
                     {{"epsilon-embedding", U::EpsilonEmbedding}, {"state-space", U::StateSpace}},
                     "update of the algebraic components at the end of a step (index 1)")
          .choice<AP>("algebraic_after_projection", &O::algebraic_after_projection,
                      {{"keep", AP::Keep}, {"hidden-constraint", AP::HiddenConstraint}},
                      "index 2: z after the projection of y, kept (Ascher-Petzold) or from "
                      "0 = g_t + g_y f(t, y, z) (Hairer-Wanner II, p. 470; IMM-REP-1999-8 (3.11b))")
          .flag("allow_unproven_tableau", &O::allow_unproven_tableau,
                "run at index 3 with a tableau that fails (B1)-(B3) of Schropp (2006) (a warning "
                "says "
                "which)")
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "Newton iterations per step")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::above(0),
                "bound on the Newton increment (scaled by (atol + rtol |y|) / |h|^(index - 1))");
  return table;
}

}  // namespace

MethodRegistration projected_rk_method() {
  MethodRegistration r;
  r.info.name = "projected-rk";
  r.info.title = "implicit Runge-Kutta with any invertible tableau, constant step, projection";
  r.info.reference = "Schropp (2006) (2.5)-(2.7); Schropp (2000) (2.4)-(2.6) (Ascher-Petzold)";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 3;
  c.error_estimate = false;
  c.variable_step = false;
  c.order = 0;  // that of the tableau
  c.dense_output_order = 0;
  c.projection = true;
  c.linear_solvers = {LinearSolverKind::Dense};  // the sn x sn stage matrix, dense
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const ProjectedRkOptions o = method_options<ProjectedRkOptions>(in, "projected-rk");
    o.validate();
    return std::make_unique<ProjectedRk>(*in.mass_form, o, in);
  };
  describe_options(r, projected_rk_option_table);
  return r;
}

}  // namespace daekit
