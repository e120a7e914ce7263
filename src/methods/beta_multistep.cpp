// beta-multistep: linear multistep methods for index-2 Euler-Lagrange DAEs, standard,
// beta-blocked, compound and commuted (see methods/beta_multistep.hpp for the mathematics), on
// the shared services: MassMatrixSystem (guarded F, the Jacobian source), EulerLagrangeSystem
// (the structure, consistent multipliers), a dense LU, NewtonAttempt, the integrator's error
// weights, and "projected-rk" from the registry for the starting values.
#include "daekit/methods/beta_multistep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/format.hpp"
#include "daekit/methods/projected_rk.hpp"
#include "daekit/tableaus/runge_kutta.hpp"
#include "methods/factory.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/euler_lagrange_system.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

const char* to_string(MultistepFamily f) {
  switch (f) {
    case MultistepFamily::BDF:
      return "BDF";
    case MultistepFamily::DCBDF:
      return "DCBDF";
    case MultistepFamily::AdamsMoulton:
      return "AM";
  }
  return "?";
}

const char* to_string(MultiplierScheme s) {
  switch (s) {
    case MultiplierScheme::Standard:
      return "standard";
    case MultiplierScheme::BetaBlocked:
      return "beta-blocked";
    case MultiplierScheme::Compound:
      return "compound";
    case MultiplierScheme::Commuted:
      return "commuted";
  }
  return "?";
}

namespace {

std::string fmt(double x, int digits = 4) { return format_number(x, digits); }

// The search range for blocking constants of Adams-Moulton formulas (paper 003 Fig. 4.1 shows
// c in [-1, 0.2]; the best c lies near -1/(2k) and the largest root tends to 1 for |c| -> inf).
constexpr double kSearchLow = -10.0, kSearchHigh = 10.0;

bool uses_blocker(MultiplierScheme s) {
  return s == MultiplierScheme::BetaBlocked || s == MultiplierScheme::Commuted;
}

}  // namespace

LinearMultistepFormula BetaMultistepOptions::formula() const {
  switch (family) {
    case MultistepFamily::BDF:
      return bdf_formula(k);
    case MultistepFamily::DCBDF:
      return dcbdf_formula(k);
    case MultistepFamily::AdamsMoulton:
      return adams_moulton_formula(k);
  }
  throw InvalidArgument("beta-multistep: unknown family");
}

int BetaMultistepOptions::tau_order() const { return blocker_order == 0 ? k : blocker_order; }

double BetaMultistepOptions::blocking_constant() const {
  if (!uses_blocker(scheme)) return 0.0;
  if (!std::isnan(c)) return c;
  if (family == MultistepFamily::BDF) return 0.0;
  if (tau_order() == k) {  // paper 003's constants
    if (family == MultistepFamily::DCBDF) return -1.0 / (k + 1);
    if (k == 1) return -0.5;
    if (k == 2) return -0.15;
    if (k == 3) return -0.1;
  }
  return best_blocking_constant(formula().sigma, tau_order(), kSearchLow, kSearchHigh).c;
}

int BetaMultistepOptions::x_order() const {
  const int p = formula().order;
  // Remark 2.1 (commuted: order of tau), Section 3 (compound: k), Remark 2.2 (tau = O(h^q))
  if (scheme == MultiplierScheme::Compound) return std::min(p, k);
  if (scheme == MultiplierScheme::Commuted) return std::min(p, tau_order());
  if (scheme == MultiplierScheme::BetaBlocked) return std::min(p, tau_order() + 1);
  return p;
}

std::string BetaMultistepOptions::scheme_name() const {
  const std::string f = std::string(to_string(family)) + std::to_string(k);
  switch (scheme) {
    case MultiplierScheme::Standard:
      return f + " standard (1.2)";
    case MultiplierScheme::BetaBlocked: {
      const std::string q =
          tau_order() == k ? "" : ", tau = c nabla^" + std::to_string(tau_order());
      if (family == MultistepFamily::AdamsMoulton || !q.empty())
        return "beta-" + f + " (c = " + fmt(blocking_constant()) + q + ")";
      return (family == MultistepFamily::BDF ? "" : "beta-") + f;
    }
    case MultiplierScheme::Compound:
      return f + "/BDF" + std::to_string(k) + " compound (3.2)";
    case MultiplierScheme::Commuted:
      return f + " commuted (2.6)";
  }
  return f;
}

void BetaMultistepOptions::validate() const {
  const int k_max = family == MultistepFamily::AdamsMoulton ? 12 : 6;
  if (k < 1 || k > k_max)
    throw InvalidArgument("beta-multistep: k must lie in [1, " + std::to_string(k_max) + "] for " +
                          to_string(family) + ", got " + std::to_string(k));
  if (start_stages < 0 || start_stages > 9)
    throw InvalidArgument("beta-multistep: start_stages must lie in [0, 9]");
  if (start_substeps < 1) throw InvalidArgument("beta-multistep: start_substeps must be >= 1");
  if (max_newton_iterations < 1)
    throw InvalidArgument("beta-multistep: max_newton_iterations must be >= 1");
  if (!(newton_tolerance > 0))
    throw InvalidArgument("beta-multistep: newton_tolerance must be > 0");
  if (!std::isnan(c) && !std::isfinite(c))
    throw InvalidArgument("beta-multistep: the blocking constant c must be finite");
  if (blocker_order < 0 || blocker_order > k)
    throw InvalidArgument("beta-multistep: blocker_order must lie in [0, k] = [0, " +
                          std::to_string(k) + "] (0: q = k), got " + std::to_string(blocker_order));
  const LinearMultistepFormula f = formula();
  if (f.sigma[0] == 0.0)
    throw InvalidArgument("beta-multistep: " + f.name + " is explicit (sigma_0 = 0)");
  if (!uses_blocker(scheme)) return;
  const double cc = blocking_constant();
  const int q = tau_order();
  const Vector st = blocked_sigma(f.sigma, cc, q);
  const RootConditionCheck rc = root_condition(st);
  if (rc.strict) return;
  if (std::isnan(c) && family != MultistepFamily::BDF) {
    const BlockingConstant best = best_blocking_constant(f.sigma, q, kSearchLow, kSearchHigh);
    throw InvalidArgument(
        "beta-multistep: " + f.name + " cannot be beta-blocked with tau = c nabla^" +
        std::to_string(q) + ": the smallest largest root of sigma - c nabla^" + std::to_string(q) +
        " over c in [" + fmt(kSearchLow) + ", " + fmt(kSearchHigh) + "] is " +
        fmt(best.max_modulus, 6) + " (at c = " + fmt(best.c, 6) +
        "), not < 1 (Arevalo, Fuhrer and Soderlind (1996) Section 4: Adams-Moulton can be "
        "blocked with tau = c nabla^k only for k <= 3; blocker_order < k accepts lower orders)");
  }
  throw InvalidArgument(
      "beta-multistep: sigma - tau of " + f.name + " with tau = " + fmt(cc) + " nabla^" +
      std::to_string(q) + " has a root of modulus " + fmt(rc.max_modulus, 6) +
      " >= 1: the blocked scheme is not stable (Arevalo, Fuhrer and Soderlind (1996) Theorem 2.1)");
}

BetaMultistepOptions BetaMultistepOptions::dcbdf_beta(int k) {
  BetaMultistepOptions o;
  o.family = MultistepFamily::DCBDF;
  o.k = k;
  o.scheme = MultiplierScheme::BetaBlocked;
  return o;
}

BetaMultistepOptions BetaMultistepOptions::am_beta(int k, double c) {
  BetaMultistepOptions o;
  o.family = MultistepFamily::AdamsMoulton;
  o.k = k;
  o.scheme = MultiplierScheme::BetaBlocked;
  o.c = c;
  return o;
}

BetaMultistepOptions BetaMultistepOptions::bdf(int k) {
  BetaMultistepOptions o;
  o.family = MultistepFamily::BDF;
  o.k = k;
  o.scheme = MultiplierScheme::Standard;
  return o;
}

BetaMultistepOptions BetaMultistepOptions::trapezoid_blocked() {
  BetaMultistepOptions o = am_beta(1, -0.5);
  return o;
}

BetaMultistepOptions BetaMultistepOptions::standard(MultistepFamily family, int k) {
  BetaMultistepOptions o;
  o.family = family;
  o.k = k;
  o.scheme = MultiplierScheme::Standard;
  return o;
}

BetaMultistepOptions BetaMultistepOptions::compound(int k) {
  BetaMultistepOptions o;
  o.family = MultistepFamily::DCBDF;
  o.k = k;
  o.scheme = MultiplierScheme::Compound;
  return o;
}

BetaMultistepOptions BetaMultistepOptions::commuted(MultistepFamily family, int k) {
  BetaMultistepOptions o;
  o.family = family;
  o.k = k;
  o.scheme = MultiplierScheme::Commuted;
  return o;
}

namespace {

// Newton's weights are floored at 1e-12 relative (to max(1, |y_i|)): below that the
// increments of an index-2 system stagnate at round-off level (observed on the truck with
// rtol = atol = 1e-13) and would never pass the test; the starting procedure's at 1e-11.
constexpr double kNewtonFloor = 1e-12, kStartFloor = 1e-11;

// Lagrange weights of the interpolation polynomial through nodes t_j at time s.
void lagrange_weights(const std::vector<double>& t, int count, double s, std::vector<double>& w) {
  w.assign(static_cast<size_t>(count), 1.0);
  for (int j = 0; j < count; ++j)
    for (int l = 0; l < count; ++l)
      if (l != j) w[static_cast<size_t>(j)] *= (s - t[l]) / (t[j] - t[l]);
}

const OptionTable<BetaMultistepOptions>& beta_multistep_option_table();  // next to the registration

class BetaMultistep final : public Method {
 public:
  BetaMultistep(const BetaMultistepOptions& opt, const MethodInput& in)
      : opt_(opt),
        sys_(*in.mass_form, LinearSolverKind::Dense, *in.guard, *in.stats),
        els_(sys_),
        stats_(*in.stats),
        n_(in.mass_form->n) {
    formula_ = opt.formula();
    k_ = opt.k;
    K_ = k_ + 2;
    c_ = opt.blocking_constant();
    p_ = opt.x_order();
    // the scheme's coefficient vectors (header comment), newest first
    const Vector& sigma = formula_.sigma;
    Vector gamma = Vector::Zero(k_ + 1);  // tau = c nabla^q, q <= k
    const int q = opt.tau_order();
    gamma.head(q + 1) = c_ * backward_difference(q);
    a_ = sigma;
    w_ = Vector::Zero(k_ + 1);
    b_ = Vector::Zero(k_ + 1);
    switch (opt.scheme) {
      case MultiplierScheme::Standard:
        w_[0] = sigma[0];
        b_ = sigma;
        break;
      case MultiplierScheme::BetaBlocked:
        w_ = -gamma;
        w_[0] += sigma[0];
        b_ = sigma;
        break;
      case MultiplierScheme::Compound:
        w_[0] = 1.0;
        break;
      case MultiplierScheme::Commuted:
        w_[0] = sigma[0] - gamma[0];
        b_ = sigma - gamma;
        break;
    }
    b_[0] = 0.0;  // the newest point's multiplier term is w
    if (w_[0] == 0.0)
      throw InvalidArgument("beta-multistep: " + opt.scheme_name() +
                            ": the newest multiplier has coefficient 0 (sigma_0 = tau_0)");
    needs_f_ = needs_d_ = false;
    for (int i = 1; i <= k_; ++i) {
      if (a_[i] - b_[i] != 0.0) needs_f_ = true;
      if (b_[i] != 0.0) needs_d_ = true;
    }
    // error estimate: |C / rho_0| |nabla^{q} x| (header comment)
    if (opt.scheme == MultiplierScheme::Compound || opt.scheme == MultiplierScheme::Commuted ||
        p_ < formula_.order) {  // order below (rho, sigma)'s: the BDF-like heuristic
      est_order_ = p_ + 1;
      est_const_ = 1.0 / (k_ + 1);
    } else {
      est_order_ = formula_.order + 1;
      est_const_ = std::abs(taylor_coefficient(formula_.rho, formula_.sigma, est_order_)) /
                   std::abs(formula_.rho[0]);
    }
    T_.assign(static_cast<size_t>(K_), 0.0);
    Y_.setZero(n_, K_);
    Tt_ = T_;
    Yt_ = Y_;
    Ff_.setZero(n_, K_);
    Fd_.setZero(n_, K_);
    WT_ = T_;
    WY_ = Y_;
    WFf_ = Ff_;
    WFd_ = Fd_;
    for (Vector* v : {&y_, &y_new_, &y_pred_, &res_, &fy_, &yhat_, &scal_, &dy_, &cD_, &est_,
                      &fnew_f_, &fnew_d_, &yp0_, &Md_d_, &d_, &d_pred_})
      v->setZero(n_);
    lambda_work_.setZero(els_.m());
    dense_p_.setZero(n_);
    dense_dp_.setZero(n_);
    lw_.reserve(static_cast<size_t>(K_));
    dd_.setZero(n_, est_order_ + 1);
    dd_nodes_.reserve(static_cast<size_t>(est_order_ + 1));
    mu_zero_.setZero(els_.m());
    Md_ = sys_.mass().to_dense();
    mu_hist_.setZero(els_.m());
    lambda_.setZero(els_.m());
    lu_ = make_dense_solver<double>(n_);
    sys_.allocate_jacobian(J_);
    NewtonMonitor::Settings ns;
    ns.max_iterations = opt.max_newton_iterations;
    ns.tolerance = opt.newton_tolerance;
    ns.rate_estimate = NewtonMonitor::RateEstimate::Successive;
    ns.divergence = 0.99;
    // no memory of the previous step's contraction: a step after a very fast one would pass
    // the test after its first increment, however large (theta/(1-theta) ~ 0 from memory)
    ns.memory = 0.0;
    newton_ = NewtonAttempt(ns, *in.guard, *in.stats);
    // the Jacobian at the failed step's predicted value: renewed for the retry
    newton_.watch_jacobian(&jacobian_valid_);
    // the starting procedure: Radau IIA from the registry, on the same problem
    if (k_ > 1 && !opt.exact_start) {
      ProjectedRkOptions ro;
      ro.tableau = radau_iia(opt.start_stages > 0 ? opt.start_stages : std::max(3, k_ + 1));
      ro.newton_tolerance = opt.newton_tolerance;
      ro.max_newton_iterations = 50;
      start_options_ = ro;
      MethodInput sub = in;
      sub.options = &start_options_;
      sub.linear_solver = LinearSolverKind::Dense;
      starter_ = method_registration(ProjectedRkOptions::method_name).make(sub);
    }
  }

  const char* name() const override { return BetaMultistepOptions::method_name; }
  int order() const override { return p_; }
  int error_order() const override { return est_order_; }

  std::vector<int> default_error_test_exclusions() const override {
    if (els_.m() == 0) return {};
    return els_.lambda_columns();
  }

  // The standard scheme on a sigma without the strict root condition is a choice to change (a
  // warning); the uncontrolled multipliers are a fact of the design (a note).
  Caveats caveats(const Tolerances&) const override {
    Caveats c;
    if (opt_.scheme == MultiplierScheme::Standard) {
      const RootConditionCheck rc = root_condition(formula_.sigma);
      if (!rc.strict && els_.m() > 0)
        c.warnings.push_back("beta-multistep: sigma of " + formula_.name +
                             " violates the strict root condition (largest root " +
                             fmt(rc.max_modulus) +
                             "): the standard discretisation (1.2) of an index-2 problem is "
                             "unstable in the multipliers (Arevalo, Fuhrer and Soderlind (1996) "
                             "Section 1, notes (5.10))");
    }
    if (els_.m() > 0)
      c.notes.emplace_back(
          "beta-multistep controls the local error of x per step (the multipliers are left out "
          "of the test): the global error is not bounded by the tolerance and grows faster than "
          "it shrinks (pendulum-el: 230-360x the tolerance at rtol = 5.6e-10..1e-10; "
          "docs/benchmarks.md)");
    return c;
  }

  /// x' = M_xx^{-1} f_x at (t, y) with the multipliers of y, for the starting-step estimate.
  bool derivative_at(double t, const Vector& y, VecOut out) override {
    probe_f_.resize(n_);
    if (!sys_.f(t, y, probe_f_)) return false;
    els_.velocity(probe_f_, probe_xp_);
    for (int j = 0; j < els_.nx(); ++j)
      out[els_.x_columns()[static_cast<size_t>(j)]] = probe_xp_[j];
    return true;
  }

  std::string check_consistency(double t0, const Vector& y0, double tol) override {
    if (!els_.check_structure(t0, y0).empty()) return {};  // start() reports it
    std::string msg = daekit::check_consistency(sys_, t0, y0, tol);
    if (!msg.empty() || els_.m() == 0) return msg;
    Vector y = y0;
    std::string why;
    if (!els_.make_multipliers_consistent(t0, y, why)) {
      if (sys_.guard().fatal()) return why;
      return {};  // singular G B^T: start() reports it
    }
    const Vector given = els_.lambda(y0), consistent = els_.lambda(y);
    const double scale = std::max(1.0, consistent.cwiseAbs().maxCoeff());
    for (int j = 0; j < els_.m(); ++j)
      if (!(std::abs(given[j] - consistent[j]) <= tol * scale))
        return "multiplier " + std::to_string(j) + " (component " +
               std::to_string(els_.lambda_columns()[static_cast<size_t>(j)]) + ") is " +
               fmt(given[j], 10) + " but the hidden constraint G x' + g_t = 0 gives " +
               fmt(consistent[j], 10) +
               " (consistent values: daekit::initial_values(EulerLagrangeDae, t0, x0) or "
               "consistent_multipliers())";
    return {};
  }

  JacobianCheck check_jacobian(double t0, const Vector& y0) override {
    return daekit::check_jacobian(sys_, t0, y0);
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights,
             std::string& message) override {
    weights_ = &weights;
    // the starting procedure's weights: the given ones, floored at 1e-11 relative (its Newton
    // iteration stagnates at round-off level above tighter ones)
    Tolerances st;
    st.rtol = std::max(weights.rtol(), kStartFloor);
    st.atol = weights.atol().cwiseMax(kStartFloor);
    start_weights_.setup(st, std::vector<char>(static_cast<size_t>(n_), 1));
    return start_at(t0, y0, message);
  }

  StepAttempt attempt(double h) override {
    h_ = h;
    newton_.begin_attempt();
    if (count_ < k_) return starting_step(h);
    prepare_history(h);
    const double t1 = t_ + h;
    const double r0 = formula_.rho[0];
    const double cx = h * a_[0] / r0;  // weight of F_D(x, mu / a_0) in the scaled residual
    cx_ = cx;
    const double cl = h * w_[0] / r0;  // weight of -B^T lambda_new
    const int m = els_.m();
    // constant parts: cD = M_D sum_i rho_i/rho_0 y_{n-i} - h/rho_0 sum_i (past f terms)
    // increment form (rho(1) = 0): rho y_{n+1} = rho_0 d + sum_{i>=2} rho_i (y_{n+1-i} - y_n)
    // with the Newton unknown d = y_{n+1} - y_n, so that rounding errors of the size of
    // eps |y| do not enter every step's equations (they accumulated like n eps |y|)
    Vector& acc = dy_;
    acc.setZero();
    for (int i = 2; i <= k_; ++i) acc += (formula_.rho[i] / r0) * (WY_.col(i - 1) - WY_.col(0));
    cD_.noalias() = Md_ * acc;  // rows of M (zero on the constraint rows)
    for (int i = 1; i <= k_; ++i) {
      const double af = a_[i] - b_[i], bd = b_[i];
      if (af != 0.0) cD_ -= (h / r0) * af * WFf_.col(i - 1);
      if (bd != 0.0) cD_ -= (h / r0) * bd * WFd_.col(i - 1);
    }
    for (int a : els_.constraint_rows()) cD_[a] = 0.0;
    mu_hist_.setZero(m);
    for (int i = 1; i <= k_; ++i)
      if (w_[i] != 0.0) {
        els_.lambda(WY_.col(i - 1), lambda_work_);
        mu_hist_ += w_[i] * lambda_work_;
      }
    // predictor: the polynomial through the last (up to k+1) points, extrapolated
    predict(t1);
    for (int i = 0; i < n_; ++i)
      scal_[i] = std::max(weights_->w()[i], kNewtonFloor * std::max(1.0, std::abs(y_[i]))) /
                 std::pow(std::abs(h), std::max(0, sys_.index_of(i) - 1));
    // up to three rounds: a failed iteration with an old Jacobian, or a slowly converging
    // one, continues with the Jacobian at the current iterate (a diverging one restarts from
    // the prediction)
    for (int round = 0;; ++round) {
      const bool fresh = ensure_matrix(t1, h, cx, cl);
      if (!matrix_ok_)
        return newton_.failure(
            matrix_failed_ ? AttemptOutcome::NonFinite : AttemptOutcome::Singular,
            matrix_failed_ ? "F or its Jacobian failed" : "iteration matrix singular");
      const NewtonMonitor::Verdict v = newton(t1);
      if (v == NewtonMonitor::Verdict::Converged) break;
      if (residual_failed_) return newton_.failure(AttemptOutcome::NonFinite, "F returned NaN/Inf");
      if (v == NewtonMonitor::Verdict::NonFinite) return newton_.failure(v);
      const bool converging = newton_.rate() < 0.5;
      if (round == 2 || (fresh && !converging)) return newton_.failure(v);
      ++stats_.nnewton_fail;  // a failed round, retried
      if (!converging) {
        d_ = d_pred_;
        y_new_ = y_pred_;
      }
      jacobian_valid_ = false;
    }
    // a slowly contracting iteration asks for a fresh Jacobian at the next step
    if (newton_.iterations() > 2 && newton_.rate() > 0.2) jacobian_valid_ = false;
    return newton_.converged(error_estimate());
  }

  Vector& candidate() override { return y_new_; }

  bool accept() override {
    const double t1 = t_ + h_;
    // the newest point's f and F_D(x, lambda) for the later steps
    if (needs_f_) {
      mu_zero_.setZero(els_.m());
      if (!els_.f_with(t1, y_new_, mu_zero_, fnew_f_)) return false;
    }
    if (needs_d_ && !sys_.f(t1, y_new_, fnew_d_)) return false;
    // shift: newest first (the working history WY_ of the attempt, then the new point)
    for (int j = K_ - 1; j >= 1; --j) {
      T_[static_cast<size_t>(j)] = WT_[static_cast<size_t>(j - 1)];
      Y_.col(j) = WY_.col(j - 1);
      Ff_.col(j) = WFf_.col(j - 1);
      Fd_.col(j) = WFd_.col(j - 1);
    }
    T_[0] = t1;
    Y_.col(0) = y_new_;
    for (int j = K_ - 1; j >= 1; --j) {
      Tt_[static_cast<size_t>(j)] = Tt_[static_cast<size_t>(j - 1)];
      Yt_.col(j) = Yt_.col(j - 1);
    }
    Tt_[0] = t1;
    Yt_.col(0) = y_new_;
    true_count_ = std::min(true_count_ + 1, K_);
    if (needs_f_) Ff_.col(0) = fnew_f_;
    if (needs_d_) Fd_.col(0) = fnew_d_;
    if (std::abs(h_ - h_hist_) > 1e-9 * std::abs(h_)) steps_since_change_ = 0;
    ++steps_since_change_;
    h_hist_ = h_;
    h_last_ = h_;
    count_ = std::min(count_ + 1, K_);
    t_ = t1;
    y_ = y_new_;
    build_dense();
    return true;
  }

  // The formulas run on an equidistant history, interpolated at a change of h: the controller
  // keeps h while the history of a new size builds up (k + 1 steps, which covers the k - 1
  // starting steps), within a dead band [0.9, 1.2], and raises it by at most 2 per step.
  StepLimits step_limits() const override {
    StepLimits l;
    l.max_increase = 2.0;
    l.max_increase_reason = "its history is interpolated to the new step size";
    l.hold_low = 0.9;
    l.hold_high = 1.2;
    l.hold_reason = "every change of h interpolates the history";
    l.settle_steps = k_ + 1;
    l.settle_reason = "its equidistant history of the new size builds up";
    return l;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }

  void derivative(VecOut out) const override {
    if (dense_points_ >= 2)
      dense_derivative(t_, out);
    else
      out = yp0_;
  }

  void dense(double t, VecOut out) const override {
    const double theta = (t - t_) / (h_last_ != 0.0 ? h_last_ : 1.0);
    const int m = dense_points_;
    out = cont_.col(m - 1);
    for (int j = m - 2; j >= 0; --j) out = cont_.col(j) + (theta - nodes_[j]) * out;
  }

  void dense_derivative(double t, VecOut out) const override {
    const double h = h_last_ != 0.0 ? h_last_ : 1.0;
    const double theta = (t - t_) / h;
    const int m = dense_points_;
    // p = d_0 + (th - x_0)(d_1 + ...): Horner for p and p'
    Vector& p = dense_p_;
    Vector& dp = dense_dp_;
    p = cont_.col(m - 1);
    dp.setZero();
    for (int j = m - 2; j >= 0; --j) {
      dp = p + (theta - nodes_[j]) * dp;
      p = cont_.col(j) + (theta - nodes_[j]) * p;
    }
    out = dp / h;
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    if (!start_at(t, y, message)) {
      if (message.empty()) message = sys_.guard().failure().describe();
      return false;
    }
    return true;
  }

  DenseSegment segment() const override {
    DenseSegment s;
    s.t_left = t_ - h_last_;
    s.t_right = t_;
    s.nodes.assign(nodes_.begin(), nodes_.begin() + std::max(0, dense_points_ - 1));
    s.coeffs = cont_.leftCols(dense_points_);
    return s;
  }

  Vector& parameters() override { return sys_.p(); }
  bool has_monitor() const override { return sys_.has_monitor(); }
  bool monitor(double t, const Vector& y, ConstraintResiduals& out) override {
    return sys_.monitor(t, y, out);
  }
  std::string linear_solver() const override { return lu_->name(); }
  int jacobian_colours() const override { return sys_.jacobian_colours(); }

  std::vector<MethodOptionValue> used_options() const override {
    return beta_multistep_option_table().values(opt_);
  }

 private:
  bool start_at(double t0, const Vector& y0, std::string& message) {
    const std::string s = els_.check_structure(t0, y0);
    if (!s.empty()) {
      message = "beta-multistep needs an index-2 Euler-Lagrange DAE: " + s;
      return false;
    }
    y_ = y0;
    if (!els_.make_multipliers_consistent(t0, y_, message)) return false;
    t_ = t0;
    T_[0] = t0;
    Y_.col(0) = y_;
    if (needs_f_) {
      mu_zero_.setZero(els_.m());
      if (!els_.f_with(t0, y_, mu_zero_, fnew_f_)) return false;
      Ff_.col(0) = fnew_f_;
    }
    if (!sys_.f(t0, y_, fy_)) return false;
    if (needs_d_) Fd_.col(0) = fy_;
    Vector xp;
    els_.velocity(fy_, xp);
    yp0_.setZero(n_);
    for (int j = 0; j < els_.nx(); ++j) yp0_[els_.x_columns()[static_cast<size_t>(j)]] = xp[j];
    count_ = 1;
    Tt_[0] = t0;
    Yt_.col(0) = y_;
    true_count_ = 1;
    steps_since_change_ = 0;
    h_hist_ = 0.0;
    h_last_ = 0.0;
    dense_points_ = 1;
    cont_.setZero(n_, K_);
    cont_.col(0) = y_;
    nodes_.assign(static_cast<size_t>(K_), 0.0);
    jacobian_valid_ = false;
    lu_valid_ = false;
    newton_.reset_factor(1.0);
    return true;
  }

  // One of the first k-1 steps: Radau IIA (or the exact values), multipliers recomputed.
  StepAttempt starting_step(double h) {
    // a new step size during the start: start again from the current point (the newest
    // column of the history)
    if (count_ > 1 && std::abs(h - h_hist_) > 1e-9 * std::abs(h)) count_ = 1;
    WT_ = T_;
    WY_ = Y_;
    WFf_ = Ff_;
    WFd_ = Fd_;
    const double t1 = t_ + h;
    if (opt_.exact_start) {
      Vector y;
      if (!sys_.guard()("BetaMultistepOptions::exact_start", t1, [&] { y = opt_.exact_start(t1); }))
        return newton_.failure(AttemptOutcome::CallbackError, "exact_start failed");
      if (y.size() != n_) {
        sys_.guard().wrong_size(
            "BetaMultistepOptions::exact_start", t1,
            "it returned " + std::to_string(y.size()) + " values, expected " + std::to_string(n_));
        return newton_.failure(AttemptOutcome::CallbackError,
                               "exact_start returned the wrong size");
      }
      y_new_ = y;
    } else {
      std::string message;
      starter_->parameters() = sys_.p();
      start_weights_.update(y_);
      if (!starter_->start(t_, y_, start_weights_, message))
        return newton_.failure(AttemptOutcome::NonFinite, "the starting procedure could not start");
      const int sub = opt_.start_substeps;
      for (int s = 0; s < sub; ++s) {
        StepAttempt a = starter_->attempt(h / sub);
        if (a.outcome != AttemptOutcome::Converged) {
          a.detail = "the starting procedure (Radau IIA) failed";
          return a;
        }
        if (!starter_->accept())
          return newton_.failure(AttemptOutcome::NonFinite, "starting step failed");
      }
      y_new_ = starter_->y();
      std::string why;
      if (!els_.make_multipliers_consistent(t1, y_new_, why))
        return newton_.failure(AttemptOutcome::NonFinite,
                               "consistent multipliers of a starting value failed");
    }
    StepAttempt res;
    res.err = 0.0;  // not error controlled (header comment)
    return res;
  }

  // The equidistant history t_n - j h (j = 0..K-1) for this attempt, interpolated from the
  // committed one when h differs from its spacing.
  void prepare_history(double h) {
    if (std::abs(h - h_hist_) <= 1e-9 * std::abs(h)) {
      WT_ = T_;
      WY_ = Y_;
      WFf_ = Ff_;
      WFd_ = Fd_;
      return;
    }
    const int c = count_;
    for (int j = 0; j < K_; ++j) {
      const double s = t_ - j * h;
      WT_[static_cast<size_t>(j)] = s;
      if (j == 0) {
        WY_.col(0) = Y_.col(0);
        WFf_.col(0) = Ff_.col(0);
        WFd_.col(0) = Fd_.col(0);
        continue;
      }
      lagrange_weights(T_, c, s, lw_);
      WY_.col(j).setZero();
      WFf_.col(j).setZero();
      WFd_.col(j).setZero();
      for (int l = 0; l < c; ++l) {
        const double wl = lw_[static_cast<size_t>(l)];
        WY_.col(j) += wl * Y_.col(l);
        if (needs_f_) WFf_.col(j) += wl * Ff_.col(l);
        if (needs_d_) WFd_.col(j) += wl * Fd_.col(l);
      }
    }
  }

  // y_pred: the polynomial through the newest min(count, k+1) points of the working history.
  void predict(double t1) {
    const int c = std::min(count_, k_ + 1);
    lagrange_weights(WT_, c, t1, lw_);
    d_pred_.setZero(n_);  // the weights sum to 1: y_pred - y_n = sum_l w_l (y_l - y_n)
    for (int l = 1; l < c; ++l) d_pred_ += lw_[static_cast<size_t>(l)] * (WY_.col(l) - WY_.col(0));
    y_pred_ = WY_.col(0) + d_pred_;
    d_ = d_pred_;
    y_new_ = y_pred_;
  }

  // yhat: y with the multipliers replaced by (w_0 lambda + mu_hist) / a_0 (see the header).
  void substitute(const Vector& y) {
    yhat_ = y;
    els_.lambda(y, lambda_work_);
    lambda_ = (w_[0] * lambda_work_ + mu_hist_) / a_[0];
    els_.set_lambda(yhat_, lambda_);
  }

  // Jacobian at the predicted point and the LU of the iteration matrix; returns true if the
  // Jacobian was (re)computed. matrix_ok_ says whether a factorisation is available.
  bool ensure_matrix(double t1, double h, double cx, double cl) {
    bool fresh = false;
    matrix_failed_ = false;
    if (!jacobian_valid_) {
      substitute(y_new_);
      matrix_ok_ = false;
      if (!sys_.f(t1, yhat_, fy_) || !sys_.jacobian(t1, yhat_, fy_, J_)) {
        matrix_failed_ = true;
        return true;
      }
      jacobian_valid_ = true;
      lu_valid_ = false;
      fresh = true;
      newton_.reset_factor(1.0);
    }
    if (!lu_valid_ || h != lu_h_) {
      const StructuredMatrix<double>& J = J_;
      Matrix& E = lu_->matrix().dense();
      E = Md_;
      for (int i : els_.differential_rows()) {
        for (int j : els_.x_columns()) E(i, j) -= cx * J.at(i, j);
        for (int j : els_.lambda_columns()) E(i, j) = -cl * J.at(i, j);
      }
      for (int a : els_.constraint_rows()) {
        for (int j : els_.x_columns()) E(a, j) = J.at(a, j);
        for (int j : els_.lambda_columns()) E(a, j) = 0.0;
      }
      ++stats_.nlu;
      matrix_ok_ = lu_->factor();
      lu_valid_ = matrix_ok_;
      lu_h_ = h;
      if (!matrix_ok_) jacobian_valid_ = false;
    } else {
      matrix_ok_ = true;
    }
    return fresh;
  }

  // Simplified Newton from y_new_ (= the prediction): the monitor's verdict, NonFinite for
  // iterates that are not finite and, with residual_failed_, when F failed.
  NewtonMonitor::Verdict newton(double t1) {
    using Verdict = NewtonMonitor::Verdict;
    residual_failed_ = false;
    newton_.begin(newton_.rate());
    for (;;) {
      substitute(y_new_);
      if (!sys_.f(t1, yhat_, fy_)) {
        residual_failed_ = true;
        return Verdict::NonFinite;
      }
      // residual: rows D: M d + cD - cx F_D(t1, yhat); rows A: F_A(t1, y)
      Md_d_.noalias() = Md_ * d_;
      res_ = Md_d_ + cD_ - cx_ * fy_;
      for (int a : els_.constraint_rows()) res_[a] = fy_[a];
      dy_ = -res_;
      lu_->solve_in_place(dy_);
      ++stats_.nsol;
      ++stats_.nnewton;
      d_ += dy_;
      y_new_ = WY_.col(0) + d_;
      double sum = 0.0;
      for (int i = 0; i < n_; ++i) {
        const double r = dy_[i] / scal_[i];
        sum += r * r;
      }
      const double norm = std::sqrt(sum / n_);
      const Verdict v = newton_.next(norm);
      if (v == Verdict::Converged) return v;
      if (v == Verdict::Continue) continue;
      if (v == Verdict::NonFinite || !y_new_.allFinite()) return Verdict::NonFinite;
      // stagnation (diverging or too slow) at round-off level: increments within 10 weights,
      // i.e. within 1e-11 relative when the tolerances are below the floor of the weights
      if (norm <= 10.0 && newton_.iterations() >= 2) return Verdict::Converged;
      return v;
    }
  }

  // |C_q / rho_0| h^q q! [t_{n+1}, ..., t_{n+1-q}] y in the integrator's weights (multipliers
  // excluded by default): for constant steps |C_q / rho_0| |nabla^q y_{n+1}| (Milne's device),
  // taken over the accepted points themselves (not the interpolated history of a step change,
  // whose interpolation errors the high difference would amplify and keep at the level of the
  // old step). 0 until q accepted points exist (the first steps are not error controlled).
  double error_estimate() {
    const int q = est_order_;
    if (true_count_ < q) return 0.0;
    // divided differences over t_{n+1}, t_n, ..., t_{n+1-q}, newest first
    dd_.resize(n_, q + 1);
    dd_nodes_.assign(static_cast<size_t>(q + 1), 0.0);
    dd_nodes_[0] = t_ + h_;
    dd_.col(0) = y_new_;
    for (int j = 1; j <= q; ++j) {
      dd_nodes_[static_cast<size_t>(j)] = Tt_[static_cast<size_t>(j - 1)];
      dd_.col(j) = Yt_.col(j - 1);
    }
    for (int level = 1; level <= q; ++level)
      for (int j = q; j >= level; --j)
        dd_.col(j) = (dd_.col(j - 1) - dd_.col(j)) / (dd_nodes_[static_cast<size_t>(j - level)] -
                                                      dd_nodes_[static_cast<size_t>(j)]);
    double scale = est_const_;
    for (int j = 1; j <= q; ++j) scale *= j * h_;
    est_ = scale * dd_.col(q);
    return weights_->norm(est_);
  }

  // The interpolant over the last step: Newton form through the newest min(count, k+1) points.
  void build_dense() {
    const int m = std::min(count_, k_ + 1);
    dense_points_ = m;
    const double h = h_last_;
    for (int j = 0; j < m; ++j) {
      nodes_[static_cast<size_t>(j)] = (T_[static_cast<size_t>(j)] - t_) / h;
      cont_.col(j) = Y_.col(j);
    }
    for (int level = 1; level < m; ++level)
      for (int j = m - 1; j >= level; --j)
        cont_.col(j) = (cont_.col(j) - cont_.col(j - 1)) /
                       (nodes_[static_cast<size_t>(j)] - nodes_[static_cast<size_t>(j - level)]);
  }

  BetaMultistepOptions opt_;
  MassMatrixSystem sys_;
  EulerLagrangeSystem els_;
  Stats& stats_;
  int n_;
  LinearMultistepFormula formula_;
  int k_ = 1, K_ = 3, p_ = 1, est_order_ = 2;
  double c_ = 0.0, est_const_ = 0.0, cx_ = 0.0;
  Vector a_, w_, b_;
  bool needs_f_ = false, needs_d_ = false;
  const ErrorWeights* weights_ = nullptr;
  ErrorWeights start_weights_;
  // committed history (newest first) and the working history of an attempt
  std::vector<double> T_, WT_, lw_;
  Matrix Y_, Ff_, Fd_, WY_, WFf_, WFd_;
  int count_ = 0, steps_since_change_ = 0, true_count_ = 0;
  // the accepted points themselves (newest first), for the error estimate
  std::vector<double> Tt_, dd_nodes_;
  Matrix Yt_, dd_;
  double h_hist_ = 0.0, h_last_ = 0.0, h_ = 0.0, lu_h_ = 0.0;
  double t_ = 0.0;
  Vector d_, d_pred_;  // the increment y_{n+1} - y_n (Newton's unknown) and its prediction
  Vector y_, y_new_, y_pred_, res_, fy_, yhat_, scal_, dy_, cD_, est_, yp0_;
  Vector mu_hist_, lambda_, mu_zero_, fnew_f_, fnew_d_;
  Vector lambda_work_, Md_d_;  // the multipliers of a history point; M d in the residual
  Vector probe_f_, probe_xp_;  // f and x' at the point of derivative_at()
  Matrix Md_;                  // M (dense: the problems are small multibody models)
  std::unique_ptr<RealLinearSolver> lu_;
  StructuredMatrix<double> J_;
  bool jacobian_valid_ = false, lu_valid_ = false, matrix_ok_ = false, matrix_failed_ = false;
  NewtonAttempt newton_;
  bool residual_failed_ = false;  // the iteration stopped because F failed
  std::any start_options_;
  std::unique_ptr<Method> starter_;
  // dense output
  int dense_points_ = 1;
  std::vector<double> nodes_;
  Matrix cont_;
  mutable Vector dense_p_, dense_dp_;  // dense_derivative(): p and p' by Horner
};

}  // namespace

namespace {

/// The options of "beta-multistep" (BetaMultistepOptions; exact_start is for C++ tests and
/// studies only).
const OptionTable<BetaMultistepOptions>& beta_multistep_option_table() {
  using O = BetaMultistepOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .choice<MultistepFamily>("family", &O::family,
                                   {{"bdf", MultistepFamily::BDF},
                                    {"dcbdf", MultistepFamily::DCBDF},
                                    {"adams-moulton", MultistepFamily::AdamsMoulton}},
                                   "the k-step formula (rho, sigma): BDFk, DCBDFk or AMk")
          .integer("steps", &O::k, 1, 12,
                   "steps k (bdf, dcbdf: 1..6; adams-moulton: 1..12); beta-blocked DCBDFk and "
                   "AMk have order k + 1 in x, k in lambda")
          .choice<MultiplierScheme>(
              "scheme", &O::scheme,
              {{"standard", MultiplierScheme::Standard},
               {"beta-blocked", MultiplierScheme::BetaBlocked},
               {"compound", MultiplierScheme::Compound},
               {"commuted", MultiplierScheme::Commuted}},
              "treatment of the multipliers: (1.2), beta-blocked (2.4), "
              "compound (3.2) or commuted (2.6) of Arevalo, Fuhrer and Soderlind (1996)")
          .real("c", &O::c, Bounds::any(),
                "blocking constant of tau = c nabla^k; auto: DCBDF -1/(k+1), AM1..3 -1/2, "
                "-0.15, -0.1, BDF 0",
                "auto")
          .integer("blocker_order", &O::blocker_order, 0, 12,
                   "order q of the blocker tau = c nabla^q (0: q = k); q < k: orders min(p, q + "
                   "1) in x and min(p, q) in lambda (Remark 2.2), c searched (blocks AM4 with "
                   "q = 3)")
          .integer("start_stages", &O::start_stages, 0, 9,
                   "Radau IIA stages of the starting steps (0: max(3, k + 1))")
          .integer("start_substeps", &O::start_substeps, 1, kNoLimit, "substeps per starting step")
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "Newton iterations per step before the step is retried")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::above(0),
                "bound on theta / (1 - theta) |dy| in the weighted norm");
  return table;
}

}  // namespace

MethodRegistration beta_multistep_method() {
  MethodRegistration r;
  r.info.name = BetaMultistepOptions::method_name;
  r.info.title = "multistep methods for index-2 Euler-Lagrange DAEs (beta-blocked DCBDF/AM, BDF)";
  r.info.reference =
      "Arevalo, Fuhrer and Soderlind (1996) (1.2), (2.4), (2.6), (3.2), (3.3); notes ch. 5 "
      "(5.7)-(5.15)";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 2;
  c.error_estimate = true;
  c.variable_step = true;
  c.order = 7;  // beta-DCBDF6
  c.dense_output_order = 0;
  // the iteration matrix is assembled dense (small multibody models), as are the starting
  // steps' (projected-rk)
  c.linear_solvers = {LinearSolverKind::Dense};
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const BetaMultistepOptions o =
        method_options<BetaMultistepOptions>(in, BetaMultistepOptions::method_name);
    o.validate();
    if (!in.mass_form) throw InvalidArgument("beta-multistep takes a MassMatrixDae");
    if (in.mass_form->max_index() > 2)
      throw InvalidArgument("beta-multistep: problem '" + in.mass_form->name +
                            "' has index-3 components; the methods are for index-2 "
                            "Euler-Lagrange DAEs (use euler_lagrange_form())");
    return std::make_unique<BetaMultistep>(o, in);
  };
  describe_options(r, beta_multistep_option_table);
  return r;
}

}  // namespace daekit
