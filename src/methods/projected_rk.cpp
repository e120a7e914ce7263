// projected-rk: constant-step implicit Runge-Kutta with any invertible tableau (see
// methods/projected_rk.hpp), on the shared MassMatrixSystem, a dense linear solver for the
// sn x sn stage matrix and the integrator's projection hook.
#include "daekit/methods/projected_rk.hpp"

#include <cmath>
#include <limits>

#include "methods/factory.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

void ProjectedRkOptions::validate() const {
  if (max_newton_iterations < 1)
    throw InvalidArgument("projected-rk: max_newton_iterations must be >= 1");
  if (!(newton_tolerance > 0)) throw InvalidArgument("projected-rk: newton_tolerance must be > 0");
  const int s = tableau.stages();
  if (s < 1 || tableau.A.rows() != s || tableau.A.cols() != s || tableau.c.size() != s)
    throw InvalidArgument("projected-rk: tableau '" + tableau.name + "' has inconsistent sizes");
}

namespace {

class ProjectedRk final : public Method {
 public:
  ProjectedRk(const MassMatrixDae& dae, const ProjectedRkOptions& opt, const MethodInput& in)
      : sys_(dae, LinearSolverKind::Dense, *in.guard, *in.stats),
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
    if (!lu.isInvertible()) throw InvalidArgument("projected-rk: " + tab_.name + ": A is singular");
    Ainv_ = lu.inverse();
    d_ = tab_.b.transpose() * Ainv_;  // y_{n+1} = y_n + sum_i d_i Z_i
    M_ = sys_.mass().to_dense();
    y_.resize(n_);
    y_new_.resize(n_);
    tmp_.resize(n_);
    f0_.resize(n_);
    scal_.resize(n_);
    sys_.allocate_jacobian(J_);
    Z_.resize(n_, s_);
    F_.resize(n_, s_);
    rhs_.resize(n_ * s_);
    lu_ = make_dense_solver<double>(n_ * s_);
    // dense output through (-1, y_n) and (c_i - 1, Y_i) for the nodes c_i != 0, and (0, y_{n+1})
    // when 1 is not a node
    nodes_theta_.clear();
    for (int i = s_ - 1; i >= 0; --i)
      if (tab_.c[i] != 0.0) nodes_theta_.push_back(tab_.c[i] - 1.0);
    if (tab_.c.maxCoeff() != 1.0) nodes_theta_.insert(nodes_theta_.begin(), 0.0);
    nodes_theta_.push_back(-1.0);
    cont_.resize(n_, static_cast<int>(nodes_theta_.size()));
  }

  const char* name() const override { return "projected-rk"; }
  int order() const override { return tab_.order; }
  int error_order() const override { return tab_.order; }
  Projection requested_projection() const override { return opt_.projection; }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights, std::string&) override {
    weights_ = &weights;
    t_ = t0;
    y_ = y0;
    h_last_ = 0.0;
    return true;
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    // Jacobian at (t_n, y_n) and LU of A^{-1} (x) M - h I (x) J (every step: constant h, but
    // the problem is nonlinear and the study wants full Newton accuracy).
    if (!sys_.f(t_, y_, f0_)) return fail(AttemptOutcome::NonFinite, "f(t_n, y_n) failed");
    if (!sys_.jacobian(t_, y_, f0_, J_)) return fail(AttemptOutcome::NonFinite, "Jacobian failed");
    const Matrix J = J_.to_dense();
    auto& E = lu_->matrix().dense();
    for (int i = 0; i < s_; ++i)
      for (int j = 0; j < s_; ++j) {
        E.block(i * n_, j * n_, n_, n_) = Ainv_(i, j) * M_;
        if (i == j) E.block(i * n_, j * n_, n_, n_) -= h * J;
      }
    ++stats_.nlu;
    if (!lu_->factor()) return fail(AttemptOutcome::Singular, "stage Newton matrix singular");
    // scaled as in RADAU5: index-2 components by 1/|h|, index-3 components by 1/h^2
    for (int i = 0; i < n_; ++i)
      scal_[i] = weights_->w()[i] / std::pow(std::abs(h), sys_.index_of(i) - 1);
    Z_.setZero();
    double previous_norm = std::numeric_limits<double>::infinity();
    for (int it = 0; it < opt_.max_newton_iterations; ++it) {
      for (int i = 0; i < s_; ++i) {
        tmp_ = y_ + Z_.col(i);
        if (!sys_.f(t_ + tab_.c[i] * h, tmp_, F_.col(i)))
          return fail(AttemptOutcome::NonFinite, "f failed at a stage");
      }
      // residual r_i = h F_i - sum_j Ainv_ij M Z_j
      for (int i = 0; i < s_; ++i) {
        tmp_ = h * F_.col(i);
        for (int j = 0; j < s_; ++j) tmp_.noalias() -= Ainv_(i, j) * (M_ * Z_.col(j));
        rhs_.segment(i * n_, n_) = tmp_;
      }
      lu_->solve_in_place(rhs_);
      ++stats_.nsol;
      ++stats_.nnewton;
      double norm = 0.0;
      for (int i = 0; i < s_; ++i) {
        Z_.col(i) += rhs_.segment(i * n_, n_);
        norm = std::max(norm, (rhs_.segment(i * n_, n_).array() / scal_.array()).abs().maxCoeff());
      }
      if (!std::isfinite(norm)) return fail(AttemptOutcome::NonFinite, "Newton increment NaN");
      // converged, or stagnating below the tolerance scale at round-off level
      const bool stagnates = norm <= 1.0 && norm > 0.5 * previous_norm;
      previous_norm = norm;
      if (norm <= opt_.newton_tolerance || stagnates) {
        y_new_ = y_ + Z_ * d_.transpose();
        StepAttempt res;
        res.err = 0.0;
        res.newton_iterations = it + 1;
        return res;
      }
    }
    return fail(AttemptOutcome::NewtonFailed, "stage Newton did not converge");
  }

  Vector& candidate() override { return y_new_; }

  bool accept() override {
    // Newton divided differences over the nodes (theta units, newest first), through the
    // end value as computed (the integrator adds a projection's change linearly)
    const int m = static_cast<int>(nodes_theta_.size());
    int col = 0;
    for (double x : nodes_theta_) {
      if (x == 0.0)
        cont_.col(col) = y_ + Z_ * d_.transpose();
      else if (x == -1.0)
        cont_.col(col) = y_;
      else
        for (int i = 0; i < s_; ++i)
          if (tab_.c[i] - 1.0 == x) cont_.col(col) = y_ + Z_.col(i);
      ++col;
    }
    for (int k = 1; k < m; ++k)
      for (int j = m - 1; j >= k; --j)
        cont_.col(j) = (cont_.col(j) - cont_.col(j - 1)) / (nodes_theta_[j] - nodes_theta_[j - k]);
    t_ += h_;
    h_last_ = h_;
    y_.swap(y_new_);
    return true;
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    t_ = t;
    y_ = y;
    h_last_ = 0.0;
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
  void dense(double t, VecOut out) const override { segment().evaluate(t, out); }
  void dense_derivative(double t, VecOut out) const override {
    const double e = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(t));
    const DenseSegment s = segment();
    out = (s.evaluate(t + e) - s.evaluate(t - e)) / (2 * e);
  }
  DenseSegment segment() const override {
    DenseSegment seg;
    seg.t_left = t_ - h_last_;
    seg.t_right = t_;
    seg.nodes.assign(nodes_theta_.begin(), nodes_theta_.end() - 1);
    seg.coeffs = cont_;
    return seg;
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
  std::string linear_solver() const override { return lu_->name(); }

 private:
  StepAttempt fail(AttemptOutcome outcome, const char* detail) {
    StepAttempt res;
    res.outcome = sys_.guard().fatal() ? AttemptOutcome::CallbackError : outcome;
    res.detail = detail;
    if (outcome == AttemptOutcome::NewtonFailed) ++stats_.nnewton_fail;
    return res;
  }

  MassMatrixSystem sys_;
  RungeKuttaTableau tab_;
  ProjectedRkOptions opt_;
  Stats& stats_;
  int n_, s_;
  const ErrorWeights* weights_ = nullptr;
  Matrix Ainv_, M_, Z_, F_, cont_;
  StructuredMatrix<double> J_;
  Eigen::RowVectorXd d_;
  Vector y_, y_new_, tmp_, f0_, scal_, rhs_;
  std::vector<double> nodes_theta_;
  std::unique_ptr<RealLinearSolver> lu_;
  double t_ = 0, h_ = 0, h_last_ = 0;
};

}  // namespace

MethodRegistration projected_rk_method() {
  MethodRegistration r;
  r.info.name = "projected-rk";
  r.info.title = "implicit Runge-Kutta with any invertible tableau, constant step, projection";
  r.info.reference = "paper 000 (2.5)-(2.7); paper 001 (2.4)-(2.6) (Ascher-Petzold)";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 3;
  c.error_estimate = false;
  c.variable_step = false;
  c.order = 0;  // that of the tableau
  c.dense_output_order = 0;
  c.projection = true;
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const ProjectedRkOptions o = method_options<ProjectedRkOptions>(in, "projected-rk");
    o.validate();
    return std::make_unique<ProjectedRk>(*in.mass_form, o, in);
  };
  return r;
}

}  // namespace daekit
