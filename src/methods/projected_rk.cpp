#include "daekit/methods/projected_rk.hpp"

#include <cmath>
#include <limits>

#include "linalg/dense_lu.hpp"
#include "daekit/problem/finite_difference.hpp"

namespace daekit {

void ProjectedRkOptions::validate() const {
  if (max_newton_iterations < 1)
    throw InvalidArgument("projected_rk: max_newton_iterations must be >= 1");
  if (!(newton_tolerance > 0)) throw InvalidArgument("projected_rk: newton_tolerance must be > 0");
}

namespace {

class ProjectedRk final : public Stepper {
 public:
  ProjectedRk(const MassMatrixDae& dae, const RungeKuttaTableau& tab, const ProjectedRkOptions& opt)
      : dae_(dae), tab_(tab), opt_(opt), n_(dae.n), s_(tab.stages()) {
    dae.validate();
    opt.validate();
    if (opt.projection != Projection::None && !dae.project)
      throw InvalidArgument("projected_rk: projection requested but problem '" + dae.name +
                            "' has no projector");
    Eigen::FullPivLU<Matrix> lu(tab.A);
    if (!lu.isInvertible()) throw InvalidArgument("projected_rk: " + tab.name + ": A is singular");
    Ainv_ = lu.inverse();
    d_ = tab.b.transpose() * Ainv_;  // y_{n+1} = y_n + sum_i d_i Z_i
    M_ = dae.has_identity_mass() ? Matrix::Identity(n_, n_) : dae.mass;
    y_.resize(n_);
    y_new_.resize(n_);
    tmp_.resize(n_);
    tmp2_.resize(n_);
    f0_.resize(n_);
    scal_.resize(n_);
    J_.resize(n_, n_);
    Z_.resize(n_, s_);
    F_.resize(n_, s_);
    rhs_.resize(n_ * s_);
    lu_.resize(n_ * s_);
    // dense output through (-1, y_n) and (c_i - 1, Y_i) for the nodes c_i != 0, and (0, y_{n+1})
    // when 1 is not a node
    nodes_theta_.clear();
    for (int i = s_ - 1; i >= 0; --i)
      if (tab.c[i] != 0.0) nodes_theta_.push_back(tab.c[i] - 1.0);
    if (tab.c.maxCoeff() != 1.0) nodes_theta_.insert(nodes_theta_.begin(), 0.0);
    nodes_theta_.push_back(-1.0);
    cont_.resize(n_, static_cast<int>(nodes_theta_.size()));
  }

  const char* name() const override { return "projected_rk"; }
  int order() const override { return tab_.order; }
  int error_order() const override { return tab_.order; }
  bool has_error_estimate() const override { return false; }

  void start(double t0, const Vector& y0, const Tolerances& tol) override {
    if (y0.size() != n_) throw InvalidArgument("projected_rk: y0 has the wrong size");
    t_ = t0;
    y_ = y0;
    rtol_ = tol.rtol;
    atol_ = tol.atol;
    h_lu_ = 0.0;
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    // Jacobian at (t_n, y_n) and LU of A^{-1} (x) M - h I (x) J (every step: constant h, but
    // the problem is nonlinear and the study wants full Newton accuracy).
    dae_.f(t_, y_, f0_);
    ++stats_.nfev;
    if (!f0_.allFinite()) return fail(AttemptOutcome::NonFinite, "f(t_n, y_n) not finite");
    if (dae_.jacobian) {
      J_.setZero();
      dae_.jacobian(t_, y_, J_);
    } else {
      stats_.nfev_jac += forward_difference_jacobian(dae_.f, t_, y_, f0_, J_, tmp_, tmp2_);
    }
    ++stats_.njac;
    auto& E = lu_.matrix();
    for (int i = 0; i < s_; ++i)
      for (int j = 0; j < s_; ++j) {
        E.block(i * n_, j * n_, n_, n_) = Ainv_(i, j) * M_;
        if (i == j) E.block(i * n_, j * n_, n_, n_) -= h * J_;
      }
    ++stats_.nlu;
    if (!lu_.factor()) return fail(AttemptOutcome::Singular, "stage Newton matrix singular");
    // scaled as in RADAU5: index-2 components by 1/|h|, index-3 components by 1/h^2
    for (int i = 0; i < n_; ++i) {
      const int idx = dae_.index_of(i);
      scal_[i] = (atol_[i] + rtol_ * std::abs(y_[i])) / std::pow(std::abs(h), idx - 1);
    }
    Z_.setZero();
    double previous_norm = std::numeric_limits<double>::infinity();
    for (int it = 0; it < opt_.max_newton_iterations; ++it) {
      for (int i = 0; i < s_; ++i) {
        tmp_ = y_ + Z_.col(i);
        dae_.f(t_ + tab_.c[i] * h, tmp_, F_.col(i));
      }
      stats_.nfev += s_;
      if (!F_.allFinite()) return fail(AttemptOutcome::NonFinite, "f not finite at a stage");
      // residual r_i = h F_i - sum_j Ainv_ij M Z_j
      for (int i = 0; i < s_; ++i) {
        tmp_ = h * F_.col(i);
        for (int j = 0; j < s_; ++j) tmp_.noalias() -= Ainv_(i, j) * (M_ * Z_.col(j));
        rhs_.segment(i * n_, n_) = tmp_;
      }
      lu_.solve_in_place(rhs_);
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
        if (opt_.projection != Projection::None) {
          ++stats_.nproject;
          if (!dae_.project(t_ + h, y_new_, opt_.projection))
            return fail(AttemptOutcome::NewtonFailed, "projection did not converge");
        }
        StepAttempt res;
        res.err = 0.0;
        return res;
      }
    }
    return fail(AttemptOutcome::NewtonFailed, "stage Newton did not converge");
  }

  void accept() override {
    // Newton divided differences over the nodes (theta units, newest first)
    const int m = static_cast<int>(nodes_theta_.size());
    int col = 0;
    for (double x : nodes_theta_) {
      if (x == 0.0)
        cont_.col(col) = y_new_;
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
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    t_ = t;
    y_ = y;
    return dae_.solve_algebraic(t_, y_, message);
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }
  void dense(double t, VecOut out) const override { segment().evaluate(t, out); }
  DenseSegment segment() const override {
    DenseSegment seg;
    seg.t_left = t_ - h_last_;
    seg.t_right = t_;
    seg.nodes.assign(nodes_theta_.begin(), nodes_theta_.end() - 1);
    seg.coeffs = cont_;
    return seg;
  }
  const Stats& stats() const override { return stats_; }

 private:
  StepAttempt fail(AttemptOutcome outcome, const char* detail) {
    StepAttempt res;
    res.outcome = outcome;
    res.detail = detail;
    if (outcome == AttemptOutcome::NewtonFailed) ++stats_.nnewton_fail;
    return res;
  }

  const MassMatrixDae& dae_;
  const RungeKuttaTableau& tab_;
  ProjectedRkOptions opt_;
  int n_, s_;
  Matrix Ainv_, M_, J_, Z_, F_, cont_;
  Eigen::RowVectorXd d_;
  Vector y_, y_new_, tmp_, tmp2_, f0_, scal_, atol_, rhs_;
  std::vector<double> nodes_theta_;
  RealLU lu_;
  double t_ = 0, h_ = 0, h_last_ = 0, h_lu_ = 0, rtol_ = 0;
  Stats stats_;
};

}  // namespace

std::unique_ptr<Stepper> make_projected_rk(const MassMatrixDae& dae, const RungeKuttaTableau& tab,
                                           const ProjectedRkOptions& options) {
  return std::make_unique<ProjectedRk>(dae, tab, options);
}

}  // namespace daekit
