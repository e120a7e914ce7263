// spark: the Lobatto IIIA-B-C-C*-D SPARK methods of paper 002 (see methods/spark.hpp for the
// mathematics), on the shared services: Index2System (guarded evaluations, Jacobians, checks),
// the dense LU of linalg, NewtonAttempt and the integrator's error weights.
#include "daekit/methods/spark.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>

#include "daekit/tableaus/lobatto.hpp"
#include "methods/factory.hpp"
#include "methods/index2_method.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/index2_system.hpp"

namespace daekit {

void SparkOptions::validate() const {
  if (stages < 2 || stages > 9)
    throw InvalidArgument("spark: stages must be in [2, 9], got " + std::to_string(stages));
  if (mass_form_part < 2 || mass_form_part > 5)
    throw InvalidArgument("spark: mass_form_part must be 2..5 (IIIB, IIIC, IIIC*, IIID), got " +
                          std::to_string(mass_form_part));
  if (max_newton_iterations < 1) throw InvalidArgument("spark: max_newton_iterations must be >= 1");
  if (!(newton_tolerance >= 0) || !std::isfinite(newton_tolerance))
    throw InvalidArgument("spark: newton_tolerance must be >= 0 (0 = automatic)");
  if (!(jacobian_reuse_rate >= 0) || !(jacobian_reuse_rate < 1))
    throw InvalidArgument("spark: jacobian_reuse_rate must lie in [0, 1)");
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kParts = Index2System::kParts;

// The unknowns and evaluations of one SPARK step (3.7).
struct SparkStep {
  double t0 = 0, h = 0;
  Vector y0, z0, a0;
  Matrix Y;                   // n x (s+1): Y_1 .. Y_s, y1
  Matrix Z;                   // m x s
  Matrix F;                   // n x s: f(T_j, Y_j, Z_j), all parts
  std::vector<Matrix> parts;  // per stage: n x kParts, f_k(T_j, Y_j, Z_j)
  int iterations = 0;
  double rate = 0;
};

// A dense LU of the Newton matrix for one step size.
struct Factorisation {
  std::unique_ptr<RealLinearSolver> lu;
  double h = 0;
  bool valid = false;
};

std::unique_ptr<Index2System> make_system(const MethodInput& in, const SparkOptions& o) {
  if (in.index2_form) return std::make_unique<Index2System>(*in.index2_form, *in.guard, *in.stats);
  return std::make_unique<Index2System>(*in.mass_form, o.mass_form_part - 1, *in.guard, *in.stats);
}

const OptionTable<SparkOptions>& spark_option_table();  // next to the registration

class Spark final : public Index2Method {
 public:
  Spark(const SparkOptions& opt, const MethodInput& in)
      : Index2Method(make_system(in, opt)),
        opt_(opt),
        k_(lobatto_coefficients(opt.stages)),
        s_(opt.stages),
        n_(sys_->n()),
        m_(sys_->m()),
        N_((s_ + 1) * n_ + s_ * m_),
        fixed_step_(in.fixed_step),
        stats_(*in.stats) {
    for (int f = 0; f < kParts; ++f) alpha_[f] = k_.alpha(static_cast<LobattoFamily>(f));
    for (Factorisation& f : lu_) f.lu = make_dense_solver<double>(N_);
    if (sys_->a_kind() != Index2System::AKind::Identity) {
      a_lu_ = make_dense_solver<double>(n_);
      if (sys_->a_kind() == Index2System::AKind::Constant) {
        a_lu_->matrix().dense() = sys_->a_matrix();
        a_lu_->factor();  // invertible: checked by Index2System
      }
    }
    for (SparkStep* st : {&half1_, &half2_, &full_, &last_}) allocate(*st);
    rhs_.resize(N_);
    work_plus_.resize(sys_->size());
    work_minus_.resize(sys_->size());
    work_x_.resize(sys_->size());
    g_.resize(s_ + 1);
    for (Vector& g : g_) g.resize(m_);
    avals_.resize(n_);
    allocate_segments();
    NewtonMonitor::Settings ns;  // Successive, no early abandonment; the tolerance in start()
    ns.max_iterations = opt_.max_newton_iterations;
    newton_ = NewtonAttempt(ns, *in.guard, *in.stats);
    newton_.watch_jacobian(&jac_valid_, &jac_fresh_);
    // beta_j(theta) = int_0^theta l_j: monomial coefficients of theta^(d+1)
    beta_ = k_.lagrange;
    for (int d = 0; d < s_; ++d) beta_.col(d) /= (d + 1.0);
  }

  const char* name() const override { return "spark"; }
  int order() const override { return 2 * s_ - 2; }
  int error_order() const override { return 2 * s_ - 1; }
  std::vector<int> default_error_test_exclusions() const override { return sys_->z_positions(); }
  // A fact of the design: a note.
  Caveats caveats(const Tolerances&) const override {
    Caveats c;
    c.notes.emplace_back(
        "spark controls the local error of y per step (the multipliers are left out of the "
        "test): the global error is not bounded by the tolerance and grows faster than it "
        "shrinks (knife-edge: 130-160x the tolerance at rtol = 3.2e-10..1e-10; "
        "docs/benchmarks.md)");
    return c;
  }

  bool start(double t0, const Vector& x0, const ErrorWeights& weights,
             std::string& message) override {
    weights_ = &weights;
    const double rtol = weights.rtol();
    newton_.settings().tolerance =
        opt_.newton_tolerance > 0 ? opt_.newton_tolerance : std::max(10 * kEps / rtol, 0.003);
    message = sys_->check_index(t0, x0);
    if (!message.empty() || sys_->guard().failure().kind != CallbackFailure::Kind::None)
      return false;
    return set_point(t0, x0);
  }

  StepAttempt attempt(double h) override {
    StepAttempt res;
    h_ = h;
    newton_.begin_attempt();
    jac_fresh_ = jac_t_ == t_;  // a Jacobian kept from an earlier step is renewed after a failure
    if (!jac_valid_ && !compute_jacobians())
      return newton_.failure(AttemptOutcome::NonFinite, "Jacobian failed");
    peak_rate_ = 0.0;
    if (fixed_step_) {
      begin_step(full_, t_, y_, z_, a0_, h);
      predict_from_last(full_);
      if (!solve(full_, res)) return res;
      end_y_ = full_.Y.col(s_);
      end_z_ = full_.Z.col(s_ - 1);
    } else {
      begin_step(half1_, t_, y_, z_, a0_, 0.5 * h);
      predict_from_last(half1_);
      if (!solve(half1_, res)) return res;
      const double t_mid = t_ + 0.5 * h;
      mid_y_ = half1_.Y.col(s_);
      mid_z_ = half1_.Z.col(s_ - 1);
      if (!sys_->a(t_mid, mid_y_, avals_))
        return newton_.failure(AttemptOutcome::NonFinite, "a failed");
      begin_step(half2_, t_mid, mid_y_, mid_z_, avals_, 0.5 * h);
      predict_from_step(half2_, half1_, nullptr);
      if (!solve(half2_, res)) return res;
      begin_step(full_, t_, y_, z_, a0_, h);
      predict_from_step(full_, half1_, &half2_);
      if (!solve(full_, res)) return res;
      end_y_ = half2_.Y.col(s_);
      end_z_ = half2_.Z.col(s_ - 1);
    }
    sys_->join(end_y_, end_z_, x_new_);
    const double err = fixed_step_ ? 0.0 : richardson_error();
    if (!std::isfinite(err))
      return newton_.failure(AttemptOutcome::NonFinite, "error estimate not finite");
    return newton_.converged(err);
  }

  Vector& candidate() override { return x_new_; }

  bool accept() override {
    if (!build_segment()) return false;
    last_ = fixed_step_ ? full_ : half2_;
    h_last_ = h_;
    if (!set_point(t_ + h_, x_new_, false)) return false;
    if (peak_rate_ > opt_.jacobian_reuse_rate) jac_valid_ = false;
    return true;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return x_; }
  void derivative(VecOut out) const override {
    if (h_last_ != 0.0) {
      dense_derivative(t_, out);
      return;
    }
    out.setZero();
    const std::vector<int>& y_pos = sys_->y_positions();
    for (int i = 0; i < n_; ++i) out[y_pos[static_cast<size_t>(i)]] = yp0_[i];
  }
  void dense_derivative(double t, VecOut out) const override {
    const double e = std::cbrt(kEps) * std::max(std::abs(t), std::abs(h_last_));
    seg_.evaluate(t + e, work_plus_);
    seg_.evaluate(t - e, work_minus_);
    out = (work_plus_ - work_minus_) / (2 * e);
  }
  std::string linear_solver() const override { return lu_[0].lu->name(); }

  std::vector<MethodOptionValue> used_options() const override {
    return spark_option_table().values(opt_);
  }

 private:
  void forget_history() override { history_ = false; }

  void allocate(SparkStep& st) {
    st.Y.resize(n_, s_ + 1);
    st.Z.resize(m_, s_);
    st.F.resize(n_, s_);
    st.parts.assign(static_cast<size_t>(s_), Matrix::Zero(n_, kParts));
  }

  // The current point (t, x) with a(t, y) (and, at the start, y' and the Jacobians).
  bool set_point(double t, const Vector& x, bool fresh = true) override {
    t_ = t;
    x_ = x;
    sys_->split(x_, y_, z_);
    if (!sys_->a(t_, y_, a0_)) return false;
    if (!fresh) return true;
    if (!compute_jacobians()) return false;
    // y'(t0) = a_y^{-1} (f - a_t)
    Vector f(n_), at(n_);
    if (!sys_->f(t_, y_, z_, f) || !sys_->a_t(t_, y_, at)) return false;
    yp0_ = f - at;
    if (a_lu_) {
      if (sys_->a_kind() == Index2System::AKind::Nonlinear) {
        a_lu_->matrix().dense() = jac_.a_y;
        if (!a_lu_->factor()) return false;
      }
      a_lu_->solve_in_place(yp0_);
    }
    return true;
  }

  bool compute_jacobians() {
    jac_t_ = t_;
    jac_fresh_ = true;
    jac_valid_ = sys_->jacobians(t_, y_, z_, jac_);
    for (Factorisation& f : lu_) f.valid = false;
    if (jac_valid_ && sys_->a_kind() == Index2System::AKind::Nonlinear) {
      a_lu_->matrix().dense() = jac_.a_y;
      jac_valid_ = a_lu_->factor();
    }
    return jac_valid_;
  }

  void begin_step(SparkStep& st, double t0, const Vector& y0, const Vector& z0, const Vector& a0,
                  double h) {
    st.t0 = t0;
    st.h = h;
    st.y0 = y0;
    st.z0 = z0;
    st.a0 = a0;
  }

  // Starting values from the continuous extension of the last step solved (extrapolated: its
  // polynomial has degree s, unlike the dense output through both half steps), or (y0, z0).
  void predict_from_last(SparkStep& st) {
    if (h_last_ == 0.0) {
      for (int i = 0; i <= s_; ++i) st.Y.col(i) = st.y0;
      for (int i = 0; i < s_; ++i) st.Z.col(i) = st.z0;
      return;
    }
    predict_from_step(st, last_, nullptr);
  }

  // Starting values from the continuous extension of `a` (and `b` beyond its end).
  void predict_from_step(SparkStep& st, const SparkStep& a, const SparkStep* b) {
    for (int i = 0; i <= s_; ++i) {
      const double t = st.t0 + (i < s_ ? k_.c[i] : 1.0) * st.h;
      const SparkStep& src = (b && t > a.t0 + a.h) ? *b : a;
      extension(src, (t - src.t0) / src.h, work_y_, work_z_);
      st.Y.col(i) = work_y_;
      if (i < s_) st.Z.col(i) = work_z_;
    }
  }

  // Continuous extension of a step at theta: a(t, y) = a0 + h sum_j beta_j(theta) F_j, z by
  // the Lagrange polynomial through (c_j, Z_j).
  bool extension(const SparkStep& st, double theta, Vector& y, Vector& z) {
    Vector& beta = work_beta_;
    Vector& ell = work_ell_;
    beta.resize(s_);
    ell.resize(s_);
    for (int j = 0; j < s_; ++j) {
      double b = 0.0, l = 0.0, p = 1.0;
      for (int d = 0; d < s_; ++d) {
        l += k_.lagrange(j, d) * p;
        p *= theta;
        b += beta_(j, d) * p;
      }
      beta[j] = b;
      ell[j] = l;
    }
    z.noalias() = st.Z * ell;
    if (theta == 1.0) {
      y = st.Y.col(s_);
      return true;
    }
    switch (sys_->a_kind()) {
      case Index2System::AKind::Identity:
        y = st.y0;
        y.noalias() += st.h * (st.F * beta);
        return true;
      case Index2System::AKind::Constant:
        y.noalias() = st.h * (st.F * beta);
        a_lu_->solve_in_place(y);
        y += st.y0;
        return true;
      case Index2System::AKind::Nonlinear:
        break;
    }
    y = (1.0 - theta) * st.y0 + theta * st.Y.col(s_);
    // a(t, y) = target by simplified Newton with a_y at the step's start
    work_target_ = st.a0;
    work_target_.noalias() += st.h * (st.F * beta);
    const double t = st.t0 + theta * st.h;
    NewtonMonitor newton(NewtonMonitor::without_rate(20));  // |dy| <= 1e-14 (1 + |y|)
    newton.begin(0.0);
    for (;;) {
      if (!sys_->a(t, y, avals_)) return false;
      avals_ -= work_target_;
      a_lu_->solve_in_place(avals_);
      y -= avals_;
      newton.settings().tolerance = 1e-14 * (1.0 + y.cwiseAbs().maxCoeff());
      const NewtonMonitor::Verdict v = newton.next(avals_.cwiseAbs().maxCoeff());
      if (v == NewtonMonitor::Verdict::NonFinite) return false;
      // converged, or 20 iterations: the stage accuracy is far above what the remaining
      // increment changes
      if (v != NewtonMonitor::Verdict::Continue) return true;
    }
  }

  // E of (3.7) at the frozen Jacobians, for step size h (block layout: Y_1..Y_s, y1, Z_1..Z_s
  // in the columns; (3.7a), (3.7b), (3.7c)/h in the rows).
  bool factor(Factorisation& f, double h) {
    Matrix& E = f.lu->matrix().dense();
    E.setZero();
    const int zc = (s_ + 1) * n_;
    for (int i = 0; i <= s_; ++i) {
      for (int j = 0; j < s_; ++j) {
        auto Eyy = E.block(i * n_, j * n_, n_, n_);
        auto Eyz = E.block(i * n_, zc + j * m_, n_, m_);
        if (i == j) Eyy = jac_.a_y;
        for (int k : sys_->parts()) {
          const double c = alpha_[k](i, j);
          if (c == 0.0) continue;
          Eyy -= (h * c) * jac_.f_y[static_cast<size_t>(k)];
          if (k != 0) Eyz -= (h * c) * jac_.f_z[static_cast<size_t>(k)];
        }
      }
      if (i == s_) E.block(s_ * n_, s_ * n_, n_, n_) = jac_.a_y;
    }
    for (int i = 0; i < s_; ++i)
      for (int j = 0; j <= s_; ++j)
        if (k_.Q(i, j) != 0.0) E.block(zc + i * m_, j * n_, m_, n_) = (k_.Q(i, j) / h) * jac_.g_y;
    ++stats_.nlu;
    f.h = h;
    f.valid = f.lu->factor();
    return f.valid;
  }

  // The factorisation for step size h: kept, or made in the slot this attempt does not need.
  Factorisation* factorisation(double h) {
    for (Factorisation& f : lu_)
      if (f.valid && f.h == h) return &f;
    auto needed = [&](const Factorisation& f) { return f.valid && (f.h == h_ || f.h == 0.5 * h_); };
    Factorisation& f = needed(lu_[0]) ? lu_[1] : lu_[0];
    return factor(f, h) ? &f : nullptr;
  }

  // The residual of (3.7) at the current iterate into rhs_ (negated: E dx = rhs).
  bool residual(SparkStep& st) {
    const double h = st.h;
    for (int j = 0; j < s_; ++j) {
      const double T = st.t0 + k_.c[j] * h;
      work_y_ = st.Y.col(j);
      work_z_ = st.Z.col(j);
      if (!sys_->parts_and_g(T, work_y_, work_z_, st.parts[static_cast<size_t>(j)], g_[j]))
        return false;
      st.F.col(j).setZero();
      for (int k : sys_->parts()) st.F.col(j) += st.parts[static_cast<size_t>(j)].col(k);
    }
    work_y_ = st.Y.col(s_);
    work_z_ = st.Z.col(s_ - 1);
    if (!sys_->g(st.t0 + h, work_y_, work_z_, g_[s_])) return false;
    for (int i = 0; i <= s_; ++i) {
      const double T = st.t0 + (i < s_ ? k_.c[i] : 1.0) * h;
      work_y_ = st.Y.col(i);
      if (!sys_->a(T, work_y_, avals_)) return false;
      auto r = rhs_.segment(i * n_, n_);
      r = st.a0 - avals_;
      for (int j = 0; j < s_; ++j)
        for (int k : sys_->parts()) {
          const double c = alpha_[k](i, j);
          if (c != 0.0) r += (h * c) * st.parts[static_cast<size_t>(j)].col(k);
        }
    }
    const int zc = (s_ + 1) * n_;
    for (int i = 0; i < s_; ++i) {
      auto r = rhs_.segment(zc + i * m_, m_);
      r.setZero();
      for (int j = 0; j <= s_; ++j)
        if (k_.Q(i, j) != 0.0) r -= (k_.Q(i, j) / h) * g_[j];
    }
    return true;
  }

  // Simplified Newton on (3.7); false with `res` set on a failure.
  bool solve(SparkStep& st, StepAttempt& res) {
    Factorisation* f = factorisation(st.h);
    if (!f) {
      res = newton_.failure(AttemptOutcome::Singular,
                            "zero pivot in the LU of the SPARK Newton matrix");
      return false;
    }
    const Vector& w = weights_->w();
    const std::vector<int>& y_pos = sys_->y_positions();
    const double ah = std::abs(st.h);
    const int zc = (s_ + 1) * n_;
    newton_.reset_factor(1.0);  // each solve measures its own rate (no first-iteration guess)
    newton_.begin(opt_.jacobian_reuse_rate);
    for (;;) {
      if (!residual(st)) {
        res =
            newton_.failure(AttemptOutcome::NonFinite, "a callback failed at a stage of the step");
        return false;
      }
      f->lu->solve_in_place(rhs_);
      ++stats_.nsol;
      ++stats_.nnewton;
      double sum = 0.0;
      for (int i = 0; i <= s_; ++i)
        for (int r = 0; r < n_; ++r) {
          const double d = rhs_[i * n_ + r];
          st.Y(r, i) += d;
          const double q = d / w[y_pos[static_cast<size_t>(r)]];
          sum += q * q;
        }
      const std::vector<int>& zp = sys_->z_positions();
      for (int i = 0; i < s_; ++i)
        for (int r = 0; r < m_; ++r) {
          const double d = rhs_[zc + i * m_ + r];
          st.Z(r, i) += d;
          const double q = d * ah / w[zp[static_cast<size_t>(r)]];
          sum += q * q;
        }
      const NewtonMonitor::Verdict v = newton_.next(std::sqrt(sum / N_));
      peak_rate_ = std::max(peak_rate_, newton_.rate());
      if (v == NewtonMonitor::Verdict::Converged) return true;
      if (v != NewtonMonitor::Verdict::Continue) {
        res = newton_.failure(v);
        return false;
      }
    }
  }

  // (y_{h/2,h/2} - y_h) / (2^p - 1) in the integrator's weights (y components only).
  double richardson_error() {
    const double scale = 1.0 / (std::pow(2.0, 2 * s_ - 2) - 1.0);
    const std::vector<int>& y_pos = sys_->y_positions();
    err_.setZero(sys_->size());
    for (int i = 0; i < n_; ++i)
      err_[y_pos[static_cast<size_t>(i)]] = scale * (end_y_[i] - full_.Y(i, s_));
    return weights_->norm(err_);
  }

  // The dense output of the accepted step, a polynomial in Newton form in theta = (t - t1) / h
  // (newest point first). With step doubling and a previous step: through the five solution
  // values at t_{n-1}, t_{n-1/2}, t_n, t_{n+1/2}, t_{n+1} (order 2s - 2 each: interpolation
  // error O(h^5)). Else through the continuous extension at equally spaced points (s + 1 for one
  // step, 2s + 1 over the two half steps; order s).
  bool build_segment() {
    const bool through_history = !fixed_step_ && history_;
    const int points = through_history ? 5 : extension_points();
    Matrix& V = spare_coefficients(points);
    std::vector<double>& nodes = segment_nodes_;
    nodes.clear();
    if (through_history) {
      const double t1 = t_ + h_, t_mid = t_ + 0.5 * h_;
      const double ts[5] = {t1, t_mid, t_, history_t_[1], history_t_[0]};
      V.col(0) = x_new_;
      sys_->join(mid_y_, mid_z_, work_x_);
      V.col(1) = work_x_;
      V.col(2) = x_;
      V.col(3) = history_x_[1];
      V.col(4) = history_x_[0];
      for (double t : ts) nodes.push_back((t - t1) / h_);
    } else {
      for (int k = 0; k < points; ++k) {
        const double theta = 1.0 - static_cast<double>(k) / (points - 1);  // 1 .. 0
        nodes.push_back(theta - 1.0);
        bool ok = true;
        if (fixed_step_) {
          ok = extension(full_, theta, work_y_, work_z_);
        } else if (theta > 0.5) {
          ok = extension(half2_, 2.0 * theta - 1.0, work_y_, work_z_);
        } else {
          ok = extension(half1_, 2.0 * theta, work_y_, work_z_);
        }
        if (!ok) return false;
        if (theta == 0.0) work_y_ = y_;
        sys_->join(work_y_, work_z_, work_x_);
        V.col(k) = work_x_;
      }
    }
    for (int k = 1; k < points; ++k)
      for (int j = points - 1; j >= k; --j)
        V.col(j) = (V.col(j) - V.col(j - 1)) /
                   (nodes[static_cast<size_t>(j)] - nodes[static_cast<size_t>(j - k)]);
    seg_.t_left = t_;
    seg_.t_right = t_ + h_;
    seg_.nodes.assign(nodes.begin(), nodes.end() - 1);
    seg_.coeffs.swap(V);
    seg_.correction.resize(0);
    // the accepted step's start and midpoint become the history of the next one
    if (!fixed_step_) {
      history_t_[0] = t_;
      history_t_[1] = t_ + 0.5 * h_;
      history_x_[0] = x_;
      sys_->join(mid_y_, mid_z_, history_x_[1]);
      history_ = true;
    }
    return true;
  }

  // Points of the dense output through the continuous extension: s + 1 over one step, 2s + 1
  // over the two half steps.
  int extension_points() const { return fixed_step_ ? s_ + 1 : 2 * s_ + 1; }

  // The dense output's storage, sized once: the segment's and three spares, two with the
  // history's 5 columns and one with extension_points(), so that besides the current segment
  // one spare of each shape is free for the next (swapped in when it is complete).
  void allocate_segments() {
    const int N = sys_->size(), most = std::max(5, 2 * s_ + 1);
    seg_.coeffs.resize(N, extension_points());
    spare_coeffs_[0].resize(N, 5);
    spare_coeffs_[1].resize(N, 5);
    spare_coeffs_[2].resize(N, extension_points());
    seg_.nodes.reserve(static_cast<size_t>(most));
    segment_nodes_.reserve(static_cast<size_t>(most));
    work_x_.resize(N);
  }

  // A spare of the dense output's storage with `points` columns.
  Matrix& spare_coefficients(int points) {
    for (Matrix& c : spare_coeffs_)
      if (c.cols() == points) return c;
    spare_coeffs_[0].resize(sys_->size(), points);  // not reached (allocate_segments())
    return spare_coeffs_[0];
  }

  SparkOptions opt_;
  LobattoCoefficients k_;
  int s_, n_, m_, N_;
  bool fixed_step_;
  Stats& stats_;
  std::array<Matrix, kParts> alpha_;
  Matrix beta_;
  Index2System::Jacobians jac_;
  Factorisation lu_[2];
  std::unique_ptr<RealLinearSolver> a_lu_;
  NewtonAttempt newton_;
  const ErrorWeights* weights_ = nullptr;
  double t_ = 0, h_ = 0, jac_t_ = 0;
  // the largest contraction rate of the attempt's iterations (all of them): the Jacobian is
  // renewed after a step above jacobian_reuse_rate
  double peak_rate_ = 0;
  bool jac_fresh_ = false;  // jac_valid_ and evaluated at the step's start
  Vector x_, y_, z_, a0_, yp0_, x_new_, end_y_, end_z_, mid_y_, mid_z_, rhs_, avals_, err_;
  std::vector<Vector> g_;
  SparkStep half1_, half2_, full_, last_;
  bool history_ = false;  // the previous accepted step's start and midpoint are known
  double history_t_[2] = {0, 0};
  Vector history_x_[2];
  std::array<Matrix, 3> spare_coeffs_;  // see allocate_segments()
  std::vector<double> segment_nodes_;   // all nodes of build_segment()
  mutable Vector work_plus_, work_minus_;
  Vector work_x_, work_y_, work_z_, work_beta_, work_ell_, work_target_;
};

}  // namespace

namespace {

/// The options of "spark" (SparkOptions).
const OptionTable<SparkOptions>& spark_option_table() {
  using O = SparkOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .integer("stages", &O::stages, 2, 9, "Lobatto stages s: order 2s - 2 in y")
          .integer("mass_form_part", &O::mass_form_part, 2, 5,
                   "for M y' = f: the Lobatto family that integrates f (2..5: IIIB, IIIC, "
                   "IIIC*, IIID)")
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "Newton iterations per step before the step is retried")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::at_least(0),
                "bound on theta / (1 - theta) |dx| (weighted); 0: max(10 eps / rtol, 0.003)")
          .real("jacobian_reuse_rate", &O::jacobian_reuse_rate, Bounds::right_open(0, 1),
                "keep the Jacobians for the next step while Newton's rate stayed below this");
  return table;
}

}  // namespace

MethodRegistration spark_method() {
  MethodRegistration r;
  r.info.name = "spark";
  r.info.title = "SPARK Lobatto IIIA-B-C-C*-D, s stages, order 2s-2, index-2 implicit DAEs";
  r.info.reference = "Jay (2003), (3.4), (3.7), Corollary 4.6; step doubling";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.index2_form = true;
  c.max_index = 2;
  c.order = 0;  // 2s - 2 of the chosen stages
  c.dense_output_order = 0;
  // the block Newton matrix of (3.7), (s + 1) n + s m square, is assembled dense
  c.linear_solvers = {LinearSolverKind::Dense};
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const SparkOptions o = method_options<SparkOptions>(in, "spark");
    o.validate();
    return std::make_unique<Spark>(o, in);
  };
  describe_options(r, spark_option_table);
  return r;
}

}  // namespace daekit
