// Adjoint gradients (integrator/adjoint.hpp): the forward solve with its checkpoints, the
// terminal values of the adjoint, and the backward solves of the adjoint DAE with its
// quadratures on the stored dense output. The derivation is in the header.
#include "daekit/integrator/adjoint.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/format.hpp"
#include "core/guard.hpp"
#include "daekit/integrator/integrator.hpp"
#include "linalg/dense_kernels.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {
namespace {

std::string fmt(double x) { return format_number(x, 6); }

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void add_stats(Stats& into, const Stats& s) {
  for (const StatsField& f : stats_fields()) into.*(f.member) += s.*(f.member);
}

/// A failure inside a backward solve's callbacks (the backward Integrator's guard turns it into
/// its status, with this message).
[[noreturn]] void callback_failed(const std::string& what) { throw std::runtime_error(what); }

/// The forward solution on one interval: the dense output of its steps, in order.
class Trajectory {
 public:
  void reset(const std::vector<DenseSegment>* segments) {
    segments_ = segments;
    last_ = segments->empty() ? 0 : segments->size() - 1;
  }
  /// y(t) from the step containing t (the nearest at the ends).
  void evaluate(double t, VecOut y) {
    const std::vector<DenseSegment>& s = *segments_;
    while (last_ > 0 && t < s[last_].t_left) --last_;  // the backward solve walks down in t
    while (last_ + 1 < s.size() && t > s[last_].t_right) ++last_;
    s[last_].evaluate(t, y);
  }

 private:
  const std::vector<DenseSegment>* segments_ = nullptr;
  size_t last_ = 0;
};

/// The derivatives the adjoint needs at a point of the forward solution: f_y, f_p (the problem's
/// Jacobian sources through a MassMatrixSystem), q, q_y, q_p (given or by forward differences).
class Derivatives {
 public:
  Derivatives(const MassMatrixDae& dae, const AdjointFunctional& F)
      : F_(F),
        sys_(dae, LinearSolverKind::Automatic, guard_, stats_),
        n_(dae.n),
        np_(static_cast<int>(dae.p.size())) {
    sys_.allocate_jacobian(J_);
    Jp_.setZero(n_, np_);
    y_.setZero(n_);
    f0_.setZero(n_);
    qy_.setZero(n_);
    qp_.setZero(np_);
    need_f0_ = !(dae.jacobian || dae.sparse_jacobian) || !dae.parameter_jacobian;
    if (!dae.parameter_sparsity.is_dense())
      parameter_pattern_ = dae.parameter_sparsity.to_pattern(n_, np_);
    x_work_y_.setZero(n_);
    x_work_p_.setZero(np_);
    g_work_.setZero(1);
    g0_.setZero(1);
    row_y_.setZero(1, n_);
    row_p_.setZero(1, np_);
  }
  MassMatrixSystem& system() { return sys_; }
  const Vector& p() { return sys_.p(); }
  int n() const { return n_; }
  int np() const { return np_; }

  /// f_y, f_p, q, q_y, q_p at (t, y); false (guard or message set) if a callback failed.
  bool at(double t, const Vector& y, std::string& message) {
    y_ = y;
    t_ = t;
    if (need_f0_ && !sys_.f(t, y_, f0_)) return failed("f", message);
    if (!sys_.jacobian(t, y_, f0_, J_)) return failed("the Jacobian df/dy", message);
    if (np_ > 0 && !sys_.parameter_jacobian(t, y_, f0_, Jp_)) return failed("df/dp", message);
    q_ = 0.0;
    qy_.setZero();
    qp_.setZero();
    if (!F_.q) return true;
    if (!value(F_.q, t, y_, sys_.p(), q_, "q", message)) return false;
    return gradient_y(F_.q, F_.q_y, t, q_, qy_, "q_y", message) &&
           gradient_p(F_.q, F_.q_p, t, q_, qp_, "q_p", message);
  }
  /// g and its gradients at (T, y(T)) (zero without g).
  bool terminal(double t, const Vector& y, double& g, Vector& gy, Vector& gp,
                std::string& message) {
    y_ = y;
    g = 0.0;
    gy.setZero(n_);
    gp.setZero(np_);
    if (!F_.g) return true;
    return value(F_.g, t, y_, sys_.p(), g, "g", message) &&
           gradient_y(F_.g, F_.g_y, t, g, gy, "g_y", message) &&
           gradient_p(F_.g, F_.g_p, t, g, gp, "g_p", message);
  }

  /// out = J^T lambda (J = f_y of the last at()).
  void transpose_times(const Eigen::Ref<const Vector>& lambda, Eigen::Ref<Vector> out) {
    for (int j = 0; j < n_; ++j) {
      double s = 0.0;
      J_.for_each_in_column(j, [&](int i, double v) { s += v * lambda[i]; });
      out[j] = s;
    }
  }
  /// out = f_p^T lambda (over the structure of f_p when it is declared sparse or banded).
  void parameter_transpose_times(const Eigen::Ref<const Vector>& lambda, Eigen::Ref<Vector> out) {
    if (parameter_pattern_.nonZeros() == 0) {
      out.noalias() = Jp_.transpose() * lambda;
      return;
    }
    for (int k = 0; k < np_; ++k) {
      double s = 0.0;
      for (SparseMatrix::InnerIterator e(parameter_pattern_, k); e; ++e)
        s += Jp_(e.row(), k) * lambda[e.row()];
      out[k] = s;
    }
  }
  StructuredMatrix<double>& J() { return J_; }
  const Matrix& Jp() const { return Jp_; }
  double q() const { return q_; }
  const Vector& qy() const { return qy_; }
  const Vector& qp() const { return qp_; }
  double t() const { return t_; }

 private:
  bool failed(const char* what, std::string& message) {
    message = std::string(what) + " failed: " + guard_.failure().describe();
    return false;
  }
  // v = value(t, y, p), guarded and checked
  static bool value(const AdjointFunctional::Value& fn, double t, const Vector& y, const Vector& p,
                    double& v, const char* name, std::string& message) {
    try {
      v = fn(t, VecIn(y), VecIn(p));
    } catch (const std::exception& e) {
      message =
          std::string("the functional's ") + name + " threw at t = " + fmt(t) + ": " + e.what();
      return false;
    }
    if (std::isfinite(v)) return true;
    message = std::string("the functional's ") + name + " is NaN or Inf at t = " + fmt(t);
    return false;
  }
  bool checked_gradient(const AdjointFunctional::Gradient& fn, double t, const Vector& p,
                        Vector& out, const char* name, std::string& message) {
    try {
      fn(t, VecIn(y_), VecOut(out), VecIn(p));
    } catch (const std::exception& e) {
      message =
          std::string("the functional's ") + name + " threw at t = " + fmt(t) + ": " + e.what();
      return false;
    }
    if (out.allFinite()) return true;
    message = std::string("the functional's ") + name + " is NaN or Inf at t = " + fmt(t);
    return false;
  }
  // d value / dy: the given gradient, else forward differences in y (the shared rule)
  bool gradient_y(const AdjointFunctional::Value& fn, const AdjointFunctional::Gradient& grad,
                  double t, double v0, Vector& out, const char* name, std::string& message) {
    if (grad) return checked_gradient(grad, t, sys_.p(), out, name, message);
    bool ok = true;
    auto G = [&](const Vector& y, Vector& o) {
      ok = ok && value(fn, t, y, sys_.p(), o[0], name, message);
    };
    return differences(G, y_, v0, x_work_y_, row_y_, out) && ok;
  }
  // d value / dp: the given gradient, else forward differences in p
  bool gradient_p(const AdjointFunctional::Value& fn, const AdjointFunctional::Gradient& grad,
                  double t, double v0, Vector& out, const char* name, std::string& message) {
    if (np_ == 0) return true;
    if (grad) return checked_gradient(grad, t, sys_.p(), out, name, message);
    bool ok = true;
    auto G = [&](const Vector& p, Vector& o) {
      ok = ok && value(fn, t, y_, p, o[0], name, message);
    };
    return differences(G, sys_.p(), v0, x_work_p_, row_p_, out) && ok;
  }
  // forward differences of a scalar map (the shared rule), in the scratch kept here: the
  // backward solve's steps allocate nothing
  template <typename G>
  bool differences(G& map, const Vector& x, double v0, Vector& x_work, Matrix& row, Vector& out) {
    g0_[0] = v0;
    x_work = x;
    FiniteDifferenceJacobian::evaluate_dense(map, x, g0_, nullptr, x_work, g_work_, row);
    out = row.transpose();
    return true;
  }

  const AdjointFunctional& F_;
  CallGuard guard_;
  Stats stats_;
  MassMatrixSystem sys_;
  int n_, np_;
  bool need_f0_ = true;
  double t_ = 0.0, q_ = 0.0;
  Vector y_, f0_, qy_, qp_;
  StructuredMatrix<double> J_;
  Matrix Jp_;
  SparseMatrix parameter_pattern_;            // f_p's declared structure (empty: dense)
  Vector x_work_y_, x_work_p_, g_work_, g0_;  // difference scratch
  Matrix row_y_, row_p_;
};

/// A state of the forward solve kept for recomputation: the start of step `step` of its run.
struct Checkpoint {
  long step = 0;
  double t = 0.0, h = 0.0;
  Vector y;
};

class AdjointSolver {
 public:
  AdjointSolver(const MassMatrixDae& dae, double t0, double T, const AdjointFunctional& F,
                const MethodChoice& method, const Options& options, const AdjointOptions& adj,
                AdjointResult& result)
      : dae_(dae),
        t0_(t0),
        T_(T),
        method_(method),
        adjoint_(adj),
        d_(dae, F),
        result_(result),
        n_(dae.n),
        np_(static_cast<int>(dae.p.size())) {
    forward_ = options;
    forward_.output_times.clear();
    forward_.store_steps = false;
    forward_.store_dense = false;
    backward_ = forward_;
    backward_.check_jacobian = false;  // its Jacobian is f_y^T, f_p^T themselves
    // lambda's algebraic part is made consistent by a linear solve (terminal(),
    // consistent_lambda()): its residual is round-off of the size of f_y^T lambda, which the
    // check's tolerance, scaled by lambda, need not cover
    backward_.check_consistency = false;
    backward_.atol_vector = Vector();
    backward_.exclude_from_error_test.reset();
    backward_.nonnegative.clear();
    backward_.initial_sensitivities = Matrix();
    backward_.h0 = 0.0;
    backward_.step_callback = nullptr;
    backward_.progress = nullptr;
    backward_.trace = nullptr;
    if (options.atol_vector.size() > 0 || adj.quadrature_atol > 0.0) {
      backward_.atol_vector.setConstant(n_ + np_ + 1, options.atol);
      if (options.atol_vector.size() > 0) backward_.atol_vector.head(n_) = options.atol_vector;
      if (adj.quadrature_atol > 0.0)
        backward_.atol_vector.tail(np_ + 1).setConstant(adj.quadrature_atol);
    }
    kernels();
    build_adjoint_dae();
  }

  void run(const Vector& y0) {
    z_.setZero(n_ + np_ + 1);
    if (!sweep(t0_, y0, forward_.h0, T_, adjoint_.max_stored_steps, 0)) return;
    finish();
  }

 private:
  // ---- memory accounting -----------------------------------------------------------------
  void store(long k) {
    stored_ += k;
    result_.peak_stored_states = std::max(result_.peak_stored_states, stored_);
  }
  void release(long k) { stored_ -= k; }

  bool fail(Status status, const std::string& message) {
    if (result_.status == Status::Success || result_.message.empty()) {
      result_.status = status;
      result_.message = message;
    }
    return false;
  }

  // ---- the forward runs --------------------------------------------------------------------
  // Forward from (t_a, y_a) (first step h_a, 0: the method's) to t_b, then backward from t_b to
  // t_a: z_ holds the adjoint state at t_b on entry (or is set at T) and at t_a on return.
  // At most `budget` stored states are added by this call and the calls it makes.
  bool sweep(double t_a, const Vector& y_a, double h_a, double t_b, long budget, int depth) {
    Options o = forward_;
    o.h0 = (h_a > 0.0 && h_a < t_b - t_a) ? h_a : (depth == 0 ? forward_.h0 : 0.0);
    if (depth > 0) o.check_consistency = false;  // a computed state of the solve
    std::vector<DenseSegment> segments;
    std::vector<Checkpoint> checkpoints;
    long stride = 1, k = 0;
    bool checkpointing = false;
    Vector y_end;
    {
      Integrator it(dae_, t_a, t_b, y_a, method_, o);
      for (;; ++k) {
        const Integrator::Stop stop = it.step();
        if (stop == Integrator::Stop::Failure) {
          const Result& r = it.result();
          add_stats(result_.forward_stats, r.stats);
          return fail(r.status, "the forward solve failed at t = " + fmt(r.t) + ": " + r.message);
        }
        ++result_.forward_steps;
        if (depth > 0) ++result_.recomputed_steps;
        DenseSegment segment = it.last_segment();
        if (!checkpointing && static_cast<long>(segments.size()) < budget) {
          segments.push_back(std::move(segment));
          store(1);
        } else {
          if (!checkpointing) {
            // at least two checkpoints and two stored steps for each interval between them
            if (budget < 4 || depth > 60) return too_little_memory();
            checkpointing = true;
            to_checkpoints(segments, checkpoints);
            stride = 2;
          }
          if (k % stride == 0) {
            checkpoints.push_back(checkpoint_of(segment, k));
            store(1);
          }
          while (static_cast<long>(checkpoints.size()) > budget / 2) thin(checkpoints, stride);
        }
        if (stop == Integrator::Stop::End) break;
      }
      const Result& r = it.result();
      add_stats(result_.forward_stats, r.stats);
      ++result_.forward_runs;
      if (!r.ok()) return fail(r.status, "the forward solve ended early: " + r.message);
      y_end = it.y();
    }
    if (!terminal_set_ && !terminal(y_end)) return false;
    if (!checkpointing) {
      const bool ok = backward(segments, t_a, t_b);
      release(static_cast<long>(segments.size()));
      return ok;
    }
    result_.peak_checkpoints =
        std::max(result_.peak_checkpoints, static_cast<long>(checkpoints.size()));
    double t_next = t_b;  // the end of the interval of the last checkpoint held
    while (!checkpoints.empty()) {
      const Checkpoint& c = checkpoints.back();
      const long inner = budget - static_cast<long>(checkpoints.size());
      if (!sweep(c.t, c.y, c.h, t_next, inner, depth + 1)) return false;
      t_next = c.t;
      checkpoints.pop_back();
      release(1);
    }
    return true;
  }

  bool too_little_memory() {
    return fail(
        Status::InvalidInput,
        "adjoint_gradient: max_stored_steps = " + std::to_string(adjoint_.max_stored_steps) +
            " is too small for this solve (an interval between checkpoints needs more "
            "stored steps than are left): raise AdjointOptions::max_stored_steps");
  }
  static Checkpoint checkpoint_of(const DenseSegment& s, long step) {
    return {step, s.t_left, s.t_right - s.t_left, s.evaluate(s.t_left)};
  }
  // the stored steps become checkpoints at every second step start (no more states than before)
  void to_checkpoints(std::vector<DenseSegment>& segments, std::vector<Checkpoint>& checkpoints) {
    for (size_t i = 0; i < segments.size(); ++i) {
      if (i % 2 == 0)
        checkpoints.push_back(checkpoint_of(segments[i], static_cast<long>(i)));
      else
        release(1);
      segments[i] = DenseSegment();
    }
    segments.clear();
    segments.shrink_to_fit();
  }
  // keep the checkpoints at multiples of twice the stride
  void thin(std::vector<Checkpoint>& checkpoints, long& stride) {
    stride *= 2;
    const size_t before = checkpoints.size();
    std::erase_if(checkpoints, [stride](const Checkpoint& c) { return c.step % stride != 0; });
    release(static_cast<long>(before - checkpoints.size()));
  }

  // ---- the adjoint -------------------------------------------------------------------------
  // N, L: bases of ker M, ker M^T (k = 0 columns for a nonsingular M)
  void kernels() {
    if (dae_.has_identity_mass()) return;
    const Matrix M = dae_.dense_mass();
    null_spaces(M, static_cast<double>(n_) * std::numeric_limits<double>::epsilon(), N_, L_);
  }
  int k() const { return static_cast<int>(N_.cols()); }

  // lambda(T), nu from the bordered system of the header; mu = Q = 0; G's g, g_p and the
  // term -nu^T L^T f_p(T) kept for the gradient
  bool terminal(const Vector& yT) {
    terminal_set_ = true;
    std::string message;
    Vector gy, gp;
    if (!d_.at(T_, yT, message) || !d_.terminal(T_, yT, g_, gy, gp, message))
      return fail(Status::CallbackError, "adjoint_gradient at t_end: " + message);
    gradient_ = gp;
    const Matrix Jd = d_.J().to_dense();
    const int kk = k();
    Vector lambda;
    if (kk == 0) {
      const Eigen::FullPivLU<Matrix> lu(dae_.dense_mass().transpose());
      lambda = lu.solve(gy);
    } else {
      Matrix A = Matrix::Zero(n_ + kk, n_ + kk);
      A.topLeftCorner(n_, n_) = dae_.dense_mass().transpose();
      A.topRightCorner(n_, kk) = Jd.transpose() * L_;
      A.bottomLeftCorner(kk, n_) = N_.transpose() * Jd.transpose();
      Vector rhs(n_ + kk);
      rhs.head(n_) = gy;
      rhs.tail(kk) = -(N_.transpose() * d_.qy());
      const Eigen::FullPivLU<Matrix> lu(A);
      if (!lu.isInvertible())
        return fail(Status::SingularMatrix,
                    "adjoint_gradient: the terminal values of the adjoint are not determined at "
                    "t_end (L^T f_y N singular: the DAE is not index 1 there)");
      const Vector x = lu.solve(rhs);
      lambda = x.head(n_);
      gradient_ -= d_.Jp().transpose() * (L_ * x.tail(kk));
    }
    if (!lambda.allFinite())
      return fail(Status::SingularMatrix,
                  "adjoint_gradient: M is singular and has no algebraic part: the terminal "
                  "values of the adjoint are not determined");
    z_.head(n_) = lambda;
    return true;
  }

  // lambda + L w with the algebraic part of the adjoint DAE, N^T (f_y^T lambda + q_y^T) = 0,
  // at (t, y) (restarting the backward solve on a recomputed interval)
  bool consistent_lambda(double t, const Vector& y) {
    if (k() == 0) return true;
    std::string message;
    if (!d_.at(t, y, message))
      return fail(Status::CallbackError, "adjoint_gradient at t = " + fmt(t) + ": " + message);
    const Matrix Jd = d_.J().to_dense();
    const Matrix A = N_.transpose() * Jd.transpose() * L_;
    const Vector r = N_.transpose() * (Jd.transpose() * z_.head(n_) + d_.qy());
    const Eigen::FullPivLU<Matrix> lu(A);
    if (!lu.isInvertible())
      return fail(Status::SingularMatrix,
                  "adjoint_gradient: L^T f_y N is singular at t = " + fmt(t) + " (not index 1)");
    z_.head(n_) -= L_ * lu.solve(r);
    return true;
  }

  // the backward solve over [t_a, t_b] on this interval's dense output
  bool backward(const std::vector<DenseSegment>& segments, double t_a, double t_b) {
    trajectory_.reset(&segments);
    have_point_ = false;
    if (k() > 0) {    // the algebraic part of lambda on this interval's y(t_b) (a recomputation's
      Vector yb(n_);  // differs from the first solve's within the tolerance)
      trajectory_.evaluate(t_b, yb);
      if (!consistent_lambda(t_b, yb)) return false;
    }
    Options o = backward_;
    const double span = t_b - t_a;
    if (h_back_ > 0.0 && h_back_ < span) o.h0 = h_back_;
    Integrator it(adjoint_dae_, T_ - t_b, T_ - t_a, z_, method_, o);
    Integrator::Stop stop;
    do stop = it.step();
    while (stop != Integrator::Stop::End && stop != Integrator::Stop::Failure);
    const Result& r = it.result();
    add_stats(result_.backward_stats, r.stats);
    result_.backward_steps += r.stats.naccept;
    ++result_.backward_runs;
    if (!r.ok())
      return fail(r.status,
                  "the backward (adjoint) solve failed at t = " + fmt(T_ - r.t) + ": " + r.message);
    z_ = it.y();
    h_back_ = r.h_last;
    return true;
  }

  // derivatives at t = T - tau of the current trajectory (the last point kept)
  void derivatives_at(double tau) {
    const double t = T_ - tau;
    if (have_point_ && t == point_t_) return;
    trajectory_.evaluate(t, y_work_);
    std::string message;
    if (!d_.at(t, y_work_, message)) {
      have_point_ = false;
      callback_failed(message);
    }
    point_t_ = t;
    have_point_ = true;
  }

  // M^T lambda' = f_y^T lambda + q_y^T, mu' = f_p^T lambda + q_p^T, Q' = q (in tau)
  void build_adjoint_dae() {
    const int m = n_ + np_ + 1;
    y_work_.setZero(n_);
    MassMatrixDae a;
    a.n = m;
    a.name = "adjoint of " + dae_.name;
    a.p = Vector();
    a.f = [this](double tau, VecIn z, VecOut out) {
      derivatives_at(tau);
      d_.transpose_times(z.head(n_), out.head(n_));
      out.head(n_) += d_.qy();
      d_.parameter_transpose_times(z.head(n_), out.segment(n_, np_));
      out.segment(n_, np_) += d_.qp();
      out[n_ + np_] = d_.q();
    };
    // pattern: (j, i) for f_y's (i, j), (n + k, i) for f_p's (i, k)
    std::vector<Eigen::Triplet<double, int>> entries;
    StructuredMatrix<double>& J = d_.J();
    for (int j = 0; j < n_; ++j)
      J.for_each_in_column(j, [&](int i, double) { entries.emplace_back(j, i, 1.0); });
    const SparseMatrix P = dae_.parameter_sparsity.to_pattern(n_, np_);
    for (int kp = 0; kp < P.outerSize(); ++kp)
      for (SparseMatrix::InnerIterator e(P, kp); e; ++e)
        entries.emplace_back(n_ + kp, static_cast<int>(e.row()), 1.0);
    SparseMatrix pattern(m, m);
    pattern.setFromTriplets(entries.begin(), entries.end());
    a.jacobian_sparsity = Sparsity::sparse(pattern);
    a.sparse_jacobian = [this](double tau, VecIn, SparseMatrix& out) {
      derivatives_at(tau);
      StructuredMatrix<double>& Jy = d_.J();
      for (int j = 0; j < n_; ++j)
        Jy.for_each_in_column(j, [&](int i, double v) { out.coeffRef(j, i) = v; });
      const Matrix& Jp = d_.Jp();
      for (int kp = 0; kp < out.outerSize(); ++kp)
        for (SparseMatrix::InnerIterator e(out, kp); e; ++e)
          if (e.row() >= n_) e.valueRef() = Jp(kp, e.row() - n_);
    };
    // mass diag(M^T, I)
    std::vector<Eigen::Triplet<double, int>> mass;
    if (dae_.mass_sparse.nonZeros() > 0) {
      for (int j = 0; j < dae_.mass_sparse.outerSize(); ++j)
        for (SparseMatrix::InnerIterator e(dae_.mass_sparse, j); e; ++e)
          mass.emplace_back(j, static_cast<int>(e.row()), e.value());
    } else {
      const Matrix M = dae_.dense_mass();
      for (int j = 0; j < n_; ++j)
        for (int i = 0; i < n_; ++i)
          if (M(i, j) != 0.0) mass.emplace_back(j, i, M(i, j));
    }
    for (int i = n_; i < m; ++i) mass.emplace_back(i, i, 1.0);
    a.mass_sparse.resize(m, m);
    a.mass_sparse.setFromTriplets(mass.begin(), mass.end());
    adjoint_dae_ = std::move(a);
  }

  void finish() {
    const Vector lambda0 = z_.head(n_);
    result_.lambda0 = lambda0;
    result_.gradient = gradient_ + z_.segment(n_, np_);
    const Matrix& S0 = forward_.initial_sensitivities;
    if (S0.size() > 0)
      result_.gradient += S0.transpose() * (dae_.dense_mass().transpose() * lambda0);
    result_.value = g_ + z_[n_ + np_];
    result_.status = Status::Success;
    result_.message = "dG/dp by the adjoint method";
  }

  const MassMatrixDae& dae_;
  double t0_, T_;
  MethodChoice method_;
  AdjointOptions adjoint_;
  Options forward_, backward_;
  Derivatives d_;
  AdjointResult& result_;
  int n_, np_;
  Matrix N_, L_;
  MassMatrixDae adjoint_dae_;
  Trajectory trajectory_;
  Vector z_, gradient_, y_work_;
  double g_ = 0.0, h_back_ = 0.0, point_t_ = 0.0;
  bool terminal_set_ = false, have_point_ = false;
  long stored_ = 0;
};

void validate(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
              const Options& options, const AdjointOptions& adjoint) {
  dae.validate();
  if (dae.p.size() == 0)
    throw InvalidArgument("adjoint_gradient: the problem has no parameters p (dG/dp is empty)");
  if (dae.max_index() >= 2)
    throw InvalidArgument(
        "adjoint_gradient: index tags >= 2 are not supported (index-1 DAEs only; forward "
        "sensitivities, Options::sensitivities, handle index 2 and 3)");
  if (!(std::isfinite(t0) && std::isfinite(t_end) && t_end > t0))
    throw InvalidArgument("adjoint_gradient: needs finite t0 < t_end");
  if (y0.size() != dae.n)
    throw InvalidArgument("adjoint_gradient: y0 has size " + std::to_string(y0.size()) +
                          ", the problem has n = " + std::to_string(dae.n));
  if (!options.events.empty())
    throw InvalidArgument("adjoint_gradient: events are not supported (Options::events)");
  if (!options.switches.empty())
    throw InvalidArgument("adjoint_gradient: switches are not supported (Options::switches)");
  if (!options.tstops.empty())
    throw InvalidArgument("adjoint_gradient: tstops are not supported (Options::tstops)");
  if (options.projection != Projection::None)
    throw InvalidArgument("adjoint_gradient: projections are not supported (Options::projection)");
  if (options.sensitivities)
    throw InvalidArgument(
        "adjoint_gradient: Options::sensitivities asks for forward sensitivities; the adjoint "
        "gradient does not compute them (use solve() for those)");
  const Matrix& S0 = options.initial_sensitivities;
  if (S0.size() > 0 && (S0.rows() != dae.n || S0.cols() != dae.p.size()))
    throw InvalidArgument("adjoint_gradient: Options::initial_sensitivities must be n x np");
  if (adjoint.max_stored_steps < 4)
    throw InvalidArgument("adjoint_gradient: AdjointOptions::max_stored_steps must be >= 4");
  if (!(adjoint.quadrature_atol >= 0.0) || !std::isfinite(adjoint.quadrature_atol))
    throw InvalidArgument("adjoint_gradient: AdjointOptions::quadrature_atol must be >= 0");
  options.validate(dae.n);
}

}  // namespace

AdjointResult adjoint_gradient(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
                               const AdjointFunctional& functional, const MethodChoice& method,
                               const Options& options, const AdjointOptions& adjoint) {
  validate(dae, t0, t_end, y0, options, adjoint);
  const double start = thread_cpu_seconds();
  AdjointResult result;
  result.status = Status::Success;
  AdjointSolver solver(dae, t0, t_end, functional, method, options, adjoint, result);
  solver.run(y0);
  result.cpu_seconds = thread_cpu_seconds() - start;
  return result;
}

}  // namespace daekit
