// The Radau IIA family on the generic implicit RK engine (methods/irk_engine.hpp) and the shared
// services (MassMatrixSystem, the linear-solver backends, NewtonMonitor, ReusePolicy, the
// integrator's error weights): "radau", variable order 5, 9, 13 (3, 5, 7 stages) after Hairer
// and Wanner's RADAU (methods/radau.hpp: the mathematics and the order strategy), and "radau5",
// its 3-stage instance with RADAU5's options and reports (methods/radau5.hpp).
#include "daekit/methods/radau.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "daekit/methods/radau5.hpp"
#include "methods/factory.hpp"
#include "methods/irk_engine.hpp"
#include "methods/irk_sensitivities.hpp"
#include "methods/mass_matrix_method.hpp"
#include "methods/newton_attempt.hpp"
#include "methods/radau_tables.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/reuse.hpp"

namespace daekit {

// The descriptions of the options of "radau" and "radau5" and the values a Radau object
// reports (methods/radau_options.cpp: a translation unit of its own, so that the tables' code
// does not change how the compiler inlines the step code here; measured: 30-60 instructions
// per radau5 step otherwise).
void describe_radau_options(MethodRegistration& r);
void describe_radau5_options(MethodRegistration& r);
std::vector<MethodOptionValue> radau_used_options(const RadauOptions& o, bool radau5,
                                                  bool start_newton_from_zero);

namespace {

bool valid_stage_count(int s) { return s == 1 || s == 3 || s == 5 || s == 7; }

/// M may be singular: not the identity and not a diagonal without zeros (a structured M is not
/// factored to find out).
bool may_be_singular(const MassOperator& M) {
  switch (M.kind()) {
    case MassOperator::Kind::Identity:
      return false;
    case MassOperator::Kind::Diagonal:
      return (M.diagonal().array() == 0.0).any();
    default:
      return true;
  }
}

}  // namespace

void RadauOptions::validate() const {
  if (!valid_stage_count(min_stages) || !valid_stage_count(max_stages) ||
      !valid_stage_count(start_stages))
    throw InvalidArgument("radau: min_stages, max_stages and start_stages must be 1, 3, 5 or 7");
  if (min_stages > max_stages || start_stages < min_stages || start_stages > max_stages)
    throw InvalidArgument("radau: need min_stages <= start_stages <= max_stages");
  if (max_newton_iterations < 4)
    throw InvalidArgument(
        "radau: max_newton_iterations must be >= 4 (the s = 1 method uses 3 fewer)");
  validate_newton_reuse(*this, "radau");
  if (!(order_increase_theta > 0) || !(order_decrease_theta > order_increase_theta) ||
      !(order_decrease_theta < 1))
    throw InvalidArgument("radau: need 0 < order_increase_theta < order_decrease_theta < 1");
  if (!(order_step_ratio_low > 0) || !(order_step_ratio_low < 1) || !(order_step_ratio_high > 1))
    throw InvalidArgument("radau: need 0 < order_step_ratio_low < 1 < order_step_ratio_high");
}

void Radau5Options::validate() const {
  if (max_newton_iterations < 1)
    throw InvalidArgument("radau5: max_newton_iterations must be >= 1, got " +
                          std::to_string(max_newton_iterations));
  validate_newton_reuse(*this, "radau5");
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

/// radau5 as the 3-stage instance: its options in radau's terms (RADAU5's rules are RADAU's at
/// s = 3: NIT, the Newton tolerance max(10 eps/rtol', min(0.03, sqrt(rtol'))), rtol' = 0.1
/// rtol^(2/3), the reuse thresholds).
RadauOptions radau5_as_radau(const Radau5Options& o) {
  RadauOptions r;
  r.min_stages = r.max_stages = r.start_stages = 3;
  r.max_newton_iterations = o.max_newton_iterations;
  r.newton_tolerance = o.newton_tolerance;
  r.jacobian_reuse_theta = o.jacobian_reuse_theta;
  r.lu_reuse_low = o.lu_reuse_low;
  r.lu_reuse_high = o.lu_reuse_high;
  r.transform_tolerances = o.transform_tolerances;
  r.index2_error_control = o.index2_error_control;
  r.projection = o.projection;
  return r;
}

/// The engine's constants of Radau IIA with s = 1, 3, 5 or 7 stages, each made on its first
/// use (thread-safe) from the tables of radau_tables.hpp: radau5 needs s = 3 only; computed
/// (IrkConstants::make(radau_iia(s))) the three larger tableaus cost 2.8 M instructions (their
/// nodes are roots found numerically) and s = 3 alone 0.13 ms of cold code per one-solve
/// command, half of Akzo's solve.
const IrkConstants& radau_constants(int s) {
  switch (s) {
    case 1: {
      static const IrkConstants k = radau_iia_constants(1);
      return k;
    }
    case 3: {
      static const IrkConstants k = radau_iia_constants(3);
      return k;
    }
    case 5: {
      static const IrkConstants k = radau_iia_constants(5);
      return k;
    }
    default: {
      static const IrkConstants k = radau_iia_constants(7);
      return k;
    }
  }
}

/// RADAU's exponent of the tolerance transformation for s stages.
double tolerance_exponent(int s) { return (s + 1.0) / (2.0 * s); }

// The internal tolerance by default (transform_tolerances = false; issue 24, docs/benchmarks.md
// "What rtol means"): the local error per step against kErrorMargin (rtol |y| + atol), the
// meaning of rtol of scipy and IDA with a margin for the accumulation of local errors. With it
// radau5 delivers at least the digits of scipy's Radau at the same rtol on every ODE of the
// benchmark (rtol = 1e-4 .. 1e-10: 0.1 to 2.4 digits more; at rtol as given it is the same
// algorithm and wins or loses by up to 0.85 digits by chance).
constexpr double kErrorMargin = 0.1;
// The internal rtol is never below scipy's floor 100 eps, and on a DAE (a mass matrix that may
// be singular) never below kDaeRtolFloor: there the simplified Newton iteration stalls at
// tighter tolerances, its contraction tending to a constant near 1 as h shrinks (Andrews'
// squeezer at t = 0 with h0 = 1e-9: 0.976 at rtol' = 1e-10 for every h down to 1e-12; since
// the round-off test kNewtonRoundOff below it converges there) or its
// increments drowning in the round-off of an iteration matrix whose condition grows like 1/h
// (transistor and circuit-chain at rtol' = 3e-10, robertson-dae at 3e-11: steps down to
// 4e-17), and the solve fails. RADAU5's transformation never went below 2e-8 for rtol >= 1e-10.
// The variable-order radau keeps 1e-8: it chooses its order from the Newton contraction, which
// near that limit no longer says how well the stages are resolved (transistor at rtol' = 1e-9:
// 6847 steps at order 5, against 938 at 1e-8, and a Newton failure at rtol = 1.0000000000000002e-8;
// circuit-chain the same).
// With the round-off test of the Newton iteration below, the 3-stage method works down to
// rtol' = 1e-10 on index-1 DAEs (kDaeRtolFloor; measured: transistor, circuit-chain and
// robertson-dae succeed there, circuit-chain at rtol = 1e-10 with 10.2 digits against 8.7 at
// 1e-9) but not at 1e-11 (robertson-dae: step_size_too_small). On
// a DAE with index-2/3 components (tagged in MassMatrixDae::index) the 3-stage method keeps
// kHigherIndexRtolFloor instead: there rtol' = 1e-9 capped the mechanical problems at 7.5-8.7
// digits for rtol = 1e-9, 1e-10, and down to rtol' = 1e-11 every built-in problem of index 2 or 3
// converged (andrews at rtol 1e-10: 9.0 digits against 7.6; pendulum at 1e-9: 9.8 against 7.5;
// bench/tolerance_meaning.cpp, docs/results/tolerance-meaning.md).
constexpr double kRoundOffRtolFloor = 100 * std::numeric_limits<double>::epsilon();
constexpr double kDaeRtolFloor = 1e-10;  // (the variable-order radau: kRadauDaeRtolFloor)
constexpr double kHigherIndexRtolFloor = 1e-11;
// The Newton iteration has converged when its increments stop shrinking at a weighted norm of
// kNewtonRoundOff eps / rtol', a relative change of the stages of 2.2e-12: the round-off of f
// (of the constraint of the index-3 rows above all, whose increments the h^-2 of their scaling
// lifts to a level independent of h). RADAU5's stopping test max(10 eps/rtol', ...) assumes a
// round-off of 10 eps; measured: Andrews at rtol' = 1e-10, h0 = 1e-9, increments of 1.0e-4
// (45 eps/rtol') at every h from 1e-9 down to 1e-13, contraction 0.976; circuit-chain at
// rtol' = 1e-10, 2e-3 ... 5e-3 (1000 to 2000 eps/rtol'; with 1000 eps/rtol' it still failed at
// t = 0.157). On DAEs only (a mass matrix that may be singular: on ODEs the test is not needed,
// and on HIRES it cost the variable-order radau 1.3 digits) and for a fixed number of stages
// (the variable-order radau keeps its floor 1e-8, away from that level; with the test its
// circuit-chain run at one tolerance of the sweep became wrong; below that floor on a DAE it
// keeps at most kTightDaeMaxStages stages, with the test).
constexpr double kNewtonRoundOff = 1e4;
// With that test the iteration cannot stall at its round-off, so on a problem with index-3
// components RADAU5's floor of the Newton tolerance, max(10 eps / rtol', ...), which keeps the
// iteration above the round-off it assumes, comes down to eps / rtol': at rtol' < 1.7e-10 (rtol
// <= 1e-9 by default) that floor decided where the iteration stopped, and the iteration error
// it left in the velocities and multipliers, whose Newton weights carry 1/h and 1/h^2, limited
// the positions (pendulum at rtol 1e-10: 8.80 -> 9.12 digits at +12 % f, pendulum-driven
// 10.34 -> 11.47, andrews 9.00 -> 9.08; looser runs bit for bit the same). Not on index 1 and
// 2, where nothing gained and charge-pump at 1e-10 lost 0.45 digits (docs/results/
// tolerance-meaning.md, "Eighth session").
constexpr double kNewtonFloorIndex3 = 1.0;
// RADAU5 caps its Newton tolerance at 0.03 for loose tolerances. The iteration error it leaves
// is that tolerance in the weighted norm, whose weights of the index-2/3 components carry 1/h and
// 1/h^2 (index_scaling_caveat()): on a problem with index-3 components the velocities, differential
// components carried from step to step, keep up to min(0.03, sqrt(rtol')) w / h of iteration
// error. Relative to the local error the error test allows that is sqrt(rtol') / h, which falls
// like rtol'^(1/4) (h ~ rtol'^(1/4)): largest at loose tolerances, where it is as large as that
// local error: pendulum-driven with radau5 at rtol 1e-4 (h ~ 4e-3, sqrt(rtol') = 3.2e-3)
// delivered 2.95 digits, at 2e-5 3.30, at 1e-3 1.77. By default the cap is kNewtonCapIndex3 there,
// sqrt(rtol') at rtol' = 1e-6, so rtol <= 1e-5 is unchanged: pendulum-driven at 1e-4 3.33 digits
// (+5 % f), 2e-5 4.15, 1e-3 2.87; pendulum at 1e-4 3.19 -> 4.15, andrews 3.48 -> 3.98
// (docs/results/tolerance-meaning.md, "Ninth session"). With transform_tolerances RADAU5's own rule
// is kept.
constexpr double kNewtonCapIndex3 = 1e-3;
// The round-off level of the index-2 estimate, in eps |t| |z| / h (index2_error()).
constexpr double kIndex2RoundOff = 10.0;
// The constraints' round-off in the index-2 estimate, in units of its noise level (the rounding
// of the defect's evaluations of f_a through the iteration matrix, IrkEngine::noise())
constexpr double kIndex2Noise = 10.0;
// A rejection by the error test is left to what no smaller step removes (Radau::
// roundoff_checked_error()) only when that part is at least this share of the error
constexpr double kRoundoffShare = 0.5;
// ... and, at a second rejection at the same point with a smaller step, an error of the
// index-2/3 components above this share of the one before is one that did not fall with h
constexpr double kSteadyShare = 0.9;

/// The floor of the internal rtol' on a DAE with a fixed number of stages (0: M is
/// nonsingular, no floor); the variable-order radau's is kRadauDaeRtolFloor.
double fixed_stages_rtol_floor(const MassMatrixDae& dae, const MassOperator& M) {
  if (!may_be_singular(M)) return 0.0;
  return dae.max_index() >= 2 ? kHigherIndexRtolFloor : kDaeRtolFloor;
}
// Below kRadauDaeRtolFloor on a DAE the variable-order radau keeps at most this number of
// stages, with the fixed-stage floors of rtol' (1e-10, 1e-11 with index-2/3 components) and
// Newton's round-off test, instead of running at rtol' = 1e-8 (where it warned that the
// answer can be less accurate than asked). Measured (docs/results/tolerance-meaning.md,
// "Eighth session"), on the 21 built-in DAEs with a reference at rtol = atol = 1e-9 and 1e-10:
// every run meets -log10(rtol) - 1 with no warning (at rtol' = 1e-8 5 missed it at 1e-10:
// pendulum 8.34, akzo 8.81, andrews 8.48, circuit-chain 7.28, pendulum-driven 8.18), at 0.1-0.6x
// radau5's f evaluations on all but the three smallest. Up to 7 stages: the sweep lost no run but
// missed the line at 5 points; 5 stages from the start (no choice): jay-index2 from h0 = 1.8e-10
// blew up (the h-scaled estimate of its index-2 component let the first steps through); without
// the round-off test andrews stopped at t = 0.
constexpr int kTightDaeMaxStages = 5;

class Radau final : public MassMatrixMethod {
 public:
  /// `radau5`: the registered method "radau5" (3 stages; its name, reports and
  /// Radau5Options::start_newton_from_zero).
  Radau(const MassMatrixDae& dae, const RadauOptions& options, const MethodInput& in,
        bool radau5 = false, bool start_from_zero = false)
      : MassMatrixMethod(dae, in.linear_solver, *in.guard, *in.stats),
        opt_(options),
        radau5_(radau5),
        start_from_zero_(start_from_zero),
        engine_(sys_, options.max_stages, 1, (options.max_stages - 1) / 2),
        n_(dae.n),
        stats_(*in.stats),
        fixed_floor_(fixed_stages_rtol_floor(dae, sys_.mass())),
        requested_(options),
        fixed_step_(in.fixed_step) {
    const int n = n_;
    y_.resize(n);
    f0_.resize(n);
    y_new_.resize(n);
    f_new_.resize(n);
    scal_.resize(n);
    sys_.allocate_jacobian(J_);
    dense_.reserve(n, opt_.max_stages + 2);
    // the constants of every order the run may use, before the step loop (which allocates
    // nothing): made once per process
    for (int s = opt_.min_stages; s <= opt_.max_stages; s += 2) radau_constants(s);
    index_.resize(n);
    for (int i = 0; i < n; ++i) index_[i] = dae.index_of(i);
    max_index_ = dae.max_index();
    for (int j : sys_.mass().zero_columns()) restart_index2_ = restart_index2_ || index_[j] == 2;
    set_up_index2_control();
    set_up_constraint_roundoff();
    // the iteration limit and tolerance follow the order (set_stages())
    newton_ =
        NewtonAttempt(NewtonMonitor::radau5(opt_.max_newton_iterations), *in.guard, *in.stats);
    newton_.watch_jacobian(&jac_valid_, &jac_fresh_);
    reuse_ = ReusePolicy::radau5(opt_.jacobian_reuse_theta, opt_.lu_reuse_low, opt_.lu_reuse_high);
    set_stages(opt_.start_stages);
    if (in.sensitivities) {
      sens_request_ = *in.sensitivities;
      sens_ = std::make_unique<IrkSensitivities>(sys_, engine_, opt_.max_stages,
                                                 sens_request_.error_control);
    }
  }

  const char* name() const override { return radau5_ ? "radau5" : "radau"; }
  int order() const override { return 2 * s_ - 1; }
  int error_order() const override { return s_ + 1; }  // err ~ h^(s+1) (RADAU: ERR^(1/(NS+1)))
  // Method's default basis (the attempt's error, error_order()) without the virtual call: it
  // runs after every step.
  StepBasis next_order(const StepAttempt& last, bool) override {
    StepBasis b;
    b.err = std::max(last.err, idx2_prop_);
    b.k = s_ + 1;
    return b;
  }
  Projection requested_projection() const override { return opt_.projection; }

  Tolerances used_tolerances(const Tolerances& given) const override {
    Tolerances used;
    used.rtol = opt_.transform_tolerances ? 0.1 * std::pow(given.rtol, tolerance_exponent(3))
                                          : internal_rtol(given.rtol);
    used.atol = given.atol * (used.rtol / given.rtol);
    return used;
  }

  // What the tolerance means is a fact of the design (notes); a tolerance the method cannot
  // work at, so that it uses a looser one than given, is something to know (a warning).
  Caveats caveats(const Tolerances& given) const override {
    Caveats c;
    const double used = used_tolerances(given).rtol;
    char line[400];
    if (opt_.transform_tolerances) {
      if (radau5_)
        std::snprintf(line, sizeof line,
                      "radau5 controls the local error with rtol' = 0.1 rtol^(2/3) = %.3g "
                      "(RADAU5's transformation of rtol = %.3g, "
                      "Radau5Options::transform_tolerances): errors can exceed rtol",
                      used, given.rtol);
      else
        std::snprintf(line, sizeof line,
                      "radau controls the local error with RADAU's rtol' = 0.1 rtol^((s+1)/(2s)) "
                      "for s stages (%.3g at s = 3, %.3g at s = 5, %.3g at s = 7 for rtol = "
                      "%.3g; RadauOptions::transform_tolerances): errors can exceed rtol",
                      used, 0.1 * std::pow(given.rtol, tolerance_exponent(5)),
                      0.1 * std::pow(given.rtol, tolerance_exponent(7)), given.rtol);
      c.notes.push_back(line);
    } else if (!fixed_step_) {
      const double floor = floor_for(given.rtol);
      std::snprintf(line, sizeof line,
                    "%s controls the local error per step against %g (rtol |y| + atol), rtol' = "
                    "%.3g: the meaning of rtol of scipy and IDA with a margin for the "
                    "accumulation of local errors%s",
                    name(), kErrorMargin, used, floor > 0 ? dae_floor_note(floor).c_str() : "");
      c.notes.push_back(line);
      if (tight_dae(given.rtol)) {
        const int s_max = tight_max_stages();
        std::snprintf(line, sizeof line,
                      "%s uses at most %d stages (order %d) at rtol < %g on a DAE, where it "
                      "works at rtol' down to %g: its choice of the number of stages follows "
                      "the Newton contraction, which at 7 stages and rtol' < %g no longer says "
                      "how well the stages are resolved",
                      name(), s_max, 2 * s_max - 1, kRadauDaeRtolFloor, fixed_floor_,
                      kRadauDaeRtolFloor);
        c.notes.push_back(line);
      }
      if (used > given.rtol) {
        std::snprintf(line, sizeof line,
                      "%s works at rtol' = %.3g, looser than rtol = %.3g: %s (the answer can be "
                      "less accurate than asked)",
                      name(), used, given.rtol,
                      used == floor
                          ? "on a DAE its Newton iteration does not converge at tighter tolerances"
                          : "tighter tolerances are below the round-off of double precision");
        c.warnings.push_back(line);
      }
    }
    if (max_index_ >= 2) c.notes.push_back(index_scaling_caveat());
    return c;
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights,
             std::string& message) override {
    weights_ = &weights;
    given_rtol_ = opt_.transform_tolerances
                      ? std::pow(weights.rtol() / 0.1, 1.0 / tolerance_exponent(3))
                      : weights.rtol();
    all_in_test_ = weights.test_count() == n_;
    choose_stages(weights.rtol());
    t_ = t0;
    y_ = y0;
    h_last_ = 0.0;
    if (!sys_.f(t_, y_, f0_)) return false;
    set_stages(opt_.start_stages);
    reset_state();
    return !sens_ || sens_->start(t_, y_, f0_, sens_request_.initial, message);
  }

  StepAttempt attempt(double h) override {
    const bool after_reject = attempts_since_accept_ > 0;
    ++attempts_since_accept_;
    h_ = h;
    newton_.begin_attempt();
    if (need_jac_ || !jac_valid_) {
      if (!compute_jacobian()) return newton_.failure(AttemptOutcome::NonFinite, "Jacobian failed");
    }
    bool new_lu = !engine_.lu_valid() || h != engine_.h_lu();
    if (variable_ && !new_lu && lu_kept_) {
      // RADAU: after 10 steps with a kept LU, test an increase of the order
      ++ichan_;
      if (ichan_ >= 10 && s_ < opt_.max_stages) new_lu = true;
    }
    lu_kept_ = false;
    if (new_lu) {
      if (variable_) select_order(h);
      if (!engine_.factor(h, J_)) {
        unexpected_ = true;
        return newton_.failure(AttemptOutcome::Singular, engine_.singular_reason());
      }
    }
    compute_scale(h);
    if (first_ && !start_from_zero_ && yp_ahead_.size() == n_)
      engine_.start_linear(yp_ahead_, h);  // a restart with y' on the piece ahead
    else if (first_ || start_from_zero_)
      engine_.start_zero();
    else
      engine_.start_from(dense_, h);
    newton_.begin(opt_.jacobian_reuse_theta);
    if (roundoff_in_newton_) [[unlikely]]
      weigh_constraint_roundoff(y_, f0_);
    const NewtonMonitor::Verdict v = engine_.newton(t_, y_, h, scal_, newton_.monitor());
    last_newton_iterations_ = newton_.iterations();
    last_rate_ = newton_.rate();
    if (v != NewtonMonitor::Verdict::Converged) {
      // the retries of a first step start from 0 as before (at a corner of two switches'
      // regions the iterates from c_i h y' can land where the Jacobian at y_n no longer holds)
      if (first_) yp_ahead_.resize(0);
      if (engine_.function_failed())
        return newton_.failure(AttemptOutcome::NonFinite, "f failed at a stage of the step");
      if (roundoff_ && at_fixed_stage_floors() && !roundoff_in_newton_) [[unlikely]]
        roundoff_in_newton_ = constraint_roundoff_matters();
      // RADAU's order selection: a slow iteration lowers the order, any other failure is
      // unexpected (UNEXP)
      if (v == NewtonMonitor::Verdict::TooSlow)
        slow_newton_ = slow_newton_ || newton_.step_factor() <= 0.5;
      else
        unexpected_ = true;
      if (v == NewtonMonitor::Verdict::TooSlow || v == NewtonMonitor::Verdict::MaxIterations)
        steady_rate_check(h);
      return newton_.failure(v, engine_.solve_failure());
    }
    StepAttempt res = newton_.converged(0.0);
    res.safety_scale = std::min(1.0, (1.0 + 2.0 * nit_) / (last_newton_iterations_ + 2.0 * nit_));
    bool ok = true;
    res.err = engine_.error_estimate(
        t_, y_, f0_, h, first_ || after_reject,
        [this, after_reject](const Vector& v) {
          const double e = scaled_norm(v);
          if (e >= 1.0 && roundoff_ && at_fixed_stage_floors()) [[unlikely]]
            return roundoff_checked_error(v, e, after_reject);
          return e;
        },
        &ok);
    if (sys_.guard().fatal())
      return newton_.failure(AttemptOutcome::CallbackError, "callback failed");
    if (!std::isfinite(res.err)) {
      unexpected_ = true;
      return newton_.failure(AttemptOutcome::NonFinite, "error not finite");
    }
    if (index2_control_) [[unlikely]]
      if (!index2_test(h, after_reject, res)) return res;
    if (sens_ && !sensitivity_step(h, res)) return res;
    engine_.end_value(y_, y_new_);
    if (res.err >= 1.0) {
      need_jac_ = !jac_fresh_;  // RADAU: a fresh Jacobian after a rejection
      // A second error-test rejection at the same point whose error did not fall although h
      // did: the estimate of this order does not shrink with h (seen on the index-3 pendulum at
      // s = 7, err ~ 1.14 from h = 1e-2 down to 1e-14: it measures the state's inconsistency in
      // the hidden constraints, amplified by the h^2 scaling of the index-3 components, not a
      // local error). Lower the order at the next factorisation, as after a Newton failure
      // (RADAU's UNEXP), instead of shrinking h to nothing.
      if (after_reject && last_err_ >= 1.0 && h < h_err_ && res.err > 0.5 * last_err_ &&
          s_ > opt_.min_stages)
        unexpected_ = true;
      last_err_ = res.err;
      h_err_ = h;
    } else {
      last_err_ = 0.0;
    }
    return res;
  }

  Vector& candidate() override { return y_new_; }

  // (flatten: f's guarded call inlined here, as before the constraints' round-off code was
  // added to this file, after which GCC called it: 0.5 % more instructions per radau5 solve)
  [[gnu::flatten]] bool accept() override {
    inconsistent_ = false;
    if (!sys_.f(t_ + h_, y_new_, f_new_)) {
      need_jac_ = !jac_fresh_;
      return false;
    }
    if (last_newton_iterations_ == 1 && !consistent_with_f()) {
      inconsistent_ = true;
      need_jac_ = true;
      return false;
    }
    // the interpolant from the values as computed (the integrator adds a projection's change);
    // the end value before post-step hooks is y + Z_s
    engine_.dense(y_, h_, dense_);
    if (sens_) sens_->accept(y_, h_);
    t_before_ = t_;
    t_ += h_;
    h_last_ = h_;
    h_hold_ = h_;
    y_.swap(y_new_);
    f0_.swap(f_new_);
    first_ = false;
    jac_fresh_ = false;
    attempts_since_accept_ = 0;
    failed_h_ = 0.0;
    return true;
  }

  StepAttempt accept_failure() const override {
    if (!inconsistent_) return Method::accept_failure();
    StepAttempt a;
    a.outcome = AttemptOutcome::NewtonFailed;
    a.h_factor = 0.25;
    a.detail =
        "the step changed y far more than f at its two ends allows (f discontinuous within the "
        "step? a difference Jacobian taken across the jump makes Newton and the error estimate "
        "blind to it)";
    return a;
  }

  // RADAU5: the Jacobian stays while Newton contracted fast enough; with it the factorisation,
  // for step ratios in [lu_reuse_low, lu_reuse_high] (the controller keeps h there).
  MatrixReuse plan_matrix_reuse() override {
    const bool keep_jacobian = reuse_.keep_jacobian(newton_.rate());
    need_jac_ = !keep_jacobian;
    MatrixReuse r;
    r.keeps_factorisation = keep_jacobian;
    r.low = reuse_.ratio_low;
    r.high = reuse_.ratio_high;
    return r;
  }
  void matrix_reuse_granted() override { lu_kept_ = true; }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }

  void derivative(VecOut out) const override {
    if (h_last_ != 0.0) {
      dense_derivative(t_, out);
      return;
    }
    sys_.mass().solve_diagonal_part(f0_, out);
  }

  void dense(double t, VecOut out) const override { dense_.value((t - t_) / h_last_, out); }
  void dense_derivative(double t, VecOut out) const override {
    dense_.derivative((t - t_) / h_last_, out);
    out /= h_last_;
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    const double h_before = h_;  // the last step tried (its sign: the direction)
    t_ = t;
    y_ = y;
    if (!reinitialize(sys_, t_, y_, message)) return false;
    if (!sys_.f(t_, y_, f0_)) {
      message = "f failed at the restart point: " + sys_.guard().failure().describe();
      return false;
    }
    h_last_ = 0.0;
    reset_state();
    yp_ahead_.resize(0);  // (filled by consistent_index2_at_restart() when it converges)
    index2_control_ = index2_eligible_;  // (Index2ErrorControl::AfterRestarts: from here on)
    if (restart_index2_ && h_before != 0.0 && !consistent_index2_at_restart(h_before, message))
      return false;
    if (sens_) {  // S continues (its algebraic part made consistent at the new point)
      const Matrix S = sens_->S();
      return sens_->start(t_, y_, f0_, &S, message);
    }
    return true;
  }

  // The last accepted step from (t_n, y_n) taken again to t in (t_n, t_n+1] (a switch or an
  // event located inside it): the Jacobian of that step, a new factorisation for h = t - t_n,
  // the starting values from the step's collocation polynomial (which the solution of the
  // shorter step's equations is close to), the Newton iteration of a step. After accept() y_new_
  // and f_new_ hold y_n and f(t_n, y_n); the restart() that follows sets up the next step.
  // Not with sensitivities (the jump of S at the event is taken from the step's interpolant).
  Retake retake_step(double t, Vector& out) override {
    if (sens_ || h_last_ == 0.0 || !jac_valid_) return Retake::Unsupported;
    const double t_n = t_before_;
    const double h = t - t_n;
    if (t == t_) {  // the step's own end
      out = y_;
      return Retake::Done;
    }
    if (!(h / h_last_ > 0.0 && h / h_last_ < 1.0)) return Retake::Unsupported;
    h_ = h;
    newton_.begin_attempt();
    if (!engine_.factor(h, J_)) return Retake::Failed;
    compute_scale(h);
    engine_.start_within(dense_, h);
    newton_.begin(opt_.jacobian_reuse_theta);
    if (roundoff_in_newton_) weigh_constraint_roundoff(y_new_, f_new_);
    const NewtonMonitor::Verdict v = engine_.newton(t_n, y_new_, h, scal_, newton_.monitor());
    h_ = h_last_;
    engine_.invalidate();
    if (v != NewtonMonitor::Verdict::Converged) return Retake::Failed;
    engine_.end_value(y_new_, out);
    return out.allFinite() ? Retake::Done : Retake::Failed;
  }

  bool jump_sensitivities(const Matrix& S, std::string& message) override {
    return !sens_ || sens_->start(t_, y_, f0_, &S, message);
  }
  const Matrix* sensitivities() const override { return sens_ ? &sens_->S() : nullptr; }
  void dense_sensitivities(double t, MatOut out) const override {
    if (!sens_) return;
    sens_->dense(h_last_ != 0.0 ? (t - t_) / h_last_ : 0.0, out);
  }
  long sensitivity_iterations() const override { return sens_iterations_; }
  std::string sensitivity_warning() const override { return sens_ ? sens_->warning() : ""; }

  bool refresh(std::string& message) override {
    // f(t, y) enters the error estimate and is the base of the difference Jacobian
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
    s.nodes.assign(dense_.nodes.begin(), dense_.nodes.begin() + dense_.m);
    s.coeffs = dense_.coeffs.leftCols(dense_.m + 1);
    return s;
  }

  std::string linear_solver() const override { return engine_.solver_name(); }
  int jacobian_colours() const override { return differenced_jacobian_colours(); }
  std::vector<MethodOptionValue> used_options() const override {
    return radau_used_options(opt_, radau5_, start_from_zero_);
  }

 private:
  /// kErrorMargin rtol, not below the floors (see kDaeRtolFloor); rtol itself at constant
  /// steps, where it only sets when Newton stops (margin and floors are about the error control).
  double internal_rtol(double rtol) const {
    if (fixed_step_) return rtol;
    return std::max({kErrorMargin * rtol, kRoundOffRtolFloor, floor_for(rtol)});
  }
  /// The variable-order radau on a DAE asked for rtol below kRadauDaeRtolFloor: it uses at
  /// most kTightDaeMaxStages stages and the fixed-stage floor (choose_stages()).
  bool tight_dae(double rtol) const {
    return requested_.min_stages < requested_.max_stages && fixed_floor_ > 0 && !fixed_step_ &&
           !opt_.transform_tolerances && rtol < kRadauDaeRtolFloor;
  }
  /// The run works at the fixed-stage floors of rtol' (a fixed number of stages, or tight_),
  /// where Newton's round-off test and the constraints' round-off levels are used.
  bool at_fixed_stage_floors() const { return !variable_ || tight_; }
  /// The most stages a tight_dae() run uses: kTightDaeMaxStages within the requested range.
  int tight_max_stages() const {
    return std::max(requested_.min_stages, std::min(requested_.max_stages, kTightDaeMaxStages));
  }
  /// The floor of internal_rtol() at rtol (0: an ODE): the fixed-stage one but for the
  /// variable-order radau above kRadauDaeRtolFloor.
  double floor_for(double rtol) const {
    if (fixed_floor_ == 0.0) return 0.0;
    return requested_.min_stages < requested_.max_stages && !tight_dae(rtol) ? kRadauDaeRtolFloor
                                                                             : fixed_floor_;
  }
  std::string dae_floor_note(double floor) const {
    char line[120];
    std::snprintf(line, sizeof line,
                  "; on a DAE rtol' >= %g, where its Newton iteration still converges", floor);
    return line;
  }
  /// The stages of this run: the requested range, at most kTightDaeMaxStages of them for a
  /// variable-order run on a DAE at an internal rtol below kRadauDaeRtolFloor (tight_).
  void choose_stages(double used_rtol) {
    tight_ = tight_dae(used_rtol);  // (used_rtol < kRadauDaeRtolFloor exactly when rtol is)
    opt_.min_stages = requested_.min_stages;
    opt_.max_stages = tight_ ? tight_max_stages() : requested_.max_stages;
    opt_.start_stages = std::min(requested_.start_stages, opt_.max_stages);
    // (the constraints' round-off in Newton's test, once it mattered, belongs to runs at the
    // fixed-stage floors: not to a later run of the variable order above kRadauDaeRtolFloor)
    if (opt_.min_stages < opt_.max_stages && !tight_) roundoff_in_newton_ = false;
  }

  std::string index_scaling_caveat() const {
    const std::string code = radau5_ ? "RADAU5" : "RADAU";
    return std::string(name()) +
           " scales the error of index-2 and index-3 components by h and h^2 (" + code +
           "): their accuracy, and through them the others', is not bounded by the tolerance";
  }

  void set_stages(int s) {
    s_ = s;
    variable_ = opt_.min_stages < opt_.max_stages;
    engine_.use(radau_constants(s));
    nit_ = s == 1 ? opt_.max_newton_iterations - 3 : opt_.max_newton_iterations + 5 * (s - 3) / 2;
    newton_.settings().max_iterations = nit_;
    if (weights_) {
      // the integrator's weights are those of s = 3 (used_tolerances()); other orders scale
      // them (s = 3 exactly: no rounding of a recomputed transformation) as RADAU does, by
      // rtol^((s+1)/(2s) - 2/3): the embedded estimate of order s overestimates the error of
      // the order-(2s-1) solution the more the higher s (by default the internal rtol' of s = 3
      // takes the place of rtol)
      const double rtol3 = weights_->rtol();
      const double rtol_s =
          s == 3 ? rtol3
          : opt_.transform_tolerances
              ? 0.1 * std::pow(given_rtol_, tolerance_exponent(s))
              : rtol3 * std::pow(rtol3, tolerance_exponent(s) - tolerance_exponent(3));
      order_scale_ = rtol_s / weights_->rtol();
      // rtol^((s - 1)/(s + 1)): at s = 3 RADAU5's sqrt(rtol') (sqrt, not pow: the same bits)
      const double expo = (s - 1.0) / (s + 1.0);
      const double power = s == 3 ? std::sqrt(rtol_s) : std::pow(rtol_s, expo);
      const bool roundoff_test = fixed_floor_ > 0 && at_fixed_stage_floors();
      engine_.set_roundoff_level(roundoff_test ? kNewtonRoundOff * kEps / rtol_s : 0.0);
      const double floor =
          (roundoff_test && max_index_ >= 3 ? kNewtonFloorIndex3 : 10.0) * kEps / rtol_s;
      const double cap = max_index_ >= 3 && !opt_.transform_tolerances ? kNewtonCapIndex3 : 0.03;
      newton_.settings().tolerance =
          opt_.newton_tolerance > 0 ? opt_.newton_tolerance : std::max(floor, std::min(cap, power));
    }
  }

  // RADAU's order selection, when a new LU decomposition is due (see radau.hpp).
  void select_order(double h) {
    ++ichan_;
    const double hquot = h_hold_ > 0 ? h / h_hold_ : 1.0;
    thetat_ = std::min(10.0, std::max(last_rate_, 0.5 * thetat_));
    int s_new = s_;
    if (last_newton_iterations_ > 1 && thetat_ <= opt_.order_increase_theta &&
        hquot < opt_.order_step_ratio_high && hquot > opt_.order_step_ratio_low)
      s_new = std::min(opt_.max_stages, s_ + 2);
    if (thetat_ >= opt_.order_decrease_theta || unexpected_)
      s_new = std::max(opt_.min_stages, s_ - 2);
    if (ichan_ >= 1 && slow_newton_) s_new = std::max(opt_.min_stages, s_ - 2);
    if (ichan_ <= 10) s_new = std::min(s_, s_new);
    unexpected_ = slow_newton_ = false;
    if (s_new != s_) {
      if (s_new > s_)
        ++stats_.norder_up;
      else
        ++stats_.norder_down;
      set_stages(s_new);
      ichan_ = 1;
    }
  }

  void reset_state() {
    first_ = true;
    jac_valid_ = jac_fresh_ = false;
    need_jac_ = true;
    engine_.invalidate();
    newton_.reset_factor(1.0);
    newton_.begin(opt_.jacobian_reuse_theta);
    attempts_since_accept_ = 0;
    ichan_ = 0;
    thetat_ = 0.0;
    last_rate_ = 0.0;
    last_newton_iterations_ = 0;
    unexpected_ = slow_newton_ = lu_kept_ = false;
    h_hold_ = 0.0;
    last_err_ = h_err_ = 0.0;
    failed_h_ = 0.0;
  }

  // The first step from a start or a restart (a switch, an event, a tstop: a point where f may
  // have a corner): a Newton iteration that failed with the Jacobian at the start point (fresh) and
  // contracted as slowly as the failure before it at a larger step from the same point: for an
  // f differentiable at y_n the contraction of the simplified iteration falls with h (it
  // measures how J changes over the step), so f is not differentiable at y_n, where the
  // Jacobian's columns depend on the direction of approach (a restart on the corner of two
  // switches' regions, a device model homogeneous of degree one there: a contraction of 0.27 at
  // every h). The Jacobian is then taken at the failed iteration's end value y_n + Z_s (within
  // the contraction of the solution, on the side the solution leaves to) for the retry.
  void steady_rate_check(double h) {
    constexpr double kSteady = 0.9;  // theta(h_new) / theta(h_old) above this: not falling
    const double rate = newton_.rate();
    if (!first_ || !jac_fresh_ || !(rate > 0.0)) return;
    const bool steady =
        failed_h_ != 0.0 && std::abs(h) < std::abs(failed_h_) && rate >= kSteady * failed_rate_;
    failed_h_ = h;
    failed_rate_ = rate;
    if (!steady) return;
    engine_.end_value(y_, y_new_);
    const double t = t_ + h;
    if (!sys_.f(t, y_new_, f_new_) || !sys_.jacobian(t, y_new_, f_new_, J_)) {
      // (an iterate outside f's domain: the Jacobian at the start point again)
      if (sys_.guard().fatal() || !compute_jacobian()) jac_valid_ = false;
      return;
    }
    engine_.invalidate();
    failed_h_ = 0.0;
  }

  // A step whose change of a differential component exceeds kFactor (|h| max(|f_n|, |f_n+1|)
  // + w) in M-scaled units cannot be the solution of the step equations of a smooth f (the
  // change is h times f's mean over the step): a relay y' = -100 if y > 1.5 else 1 crossed
  // within the step, with a difference Jacobian of -1e10 taken across the switch, gave a change
  // of 42 for h = 2.6e-4 and went on to y = -3.5e13 as a "success". Identity and diagonal M
  // only (the differential rows are then the rows with m_ii != 0); O(n), no evaluation. Asked
  // only after a Newton iteration that converged at its first increment: from the second on,
  // the iteration's contraction is measured, and a Jacobian that wrong makes it diverge.
  bool consistent_with_f() const {
    constexpr double kFactor = 100.0;
    const MassOperator& M = sys_.mass();
    if (M.kind() == MassOperator::Kind::Structured) return true;
    const double ah = kFactor * std::abs(h_);
    const double *w = weights_->w().data(), *y = y_.data(), *y1 = y_new_.data();
    const double *f = f0_.data(), *f1 = f_new_.data();
    const double* m = M.kind() == MassOperator::Kind::Diagonal ? M.diagonal().data() : nullptr;
    const Eigen::Index n = y_.size();
    for (Eigen::Index i = 0; i < n; ++i) {
      const double mi = m ? std::abs(m[i]) : 1.0;  // zero rows: 0 > bound never holds
      if (mi * std::abs(y1[i] - y[i]) >
          ah * std::max(std::abs(f[i]), std::abs(f1[i])) + kFactor * mi * w[i])
        return false;
    }
    return true;
  }

  // The sensitivities' stage equations after the state's converged iteration
  // (irk_sensitivities.hpp); with their error control the step's error is the larger of the
  // state's and theirs. False (res set to the failure) if they failed.
  bool sensitivity_step(double h, StepAttempt& res) {
    const IrkSensitivities::Outcome o =
        sens_->solve_step(t_, y_, h, scal_, weights_->w(), weights_->rtol(), weights_->atol(),
                          newton_.settings().tolerance, !first_ && !start_from_zero_);
    sens_iterations_ += sens_->last_iterations();
    if (o == IrkSensitivities::Outcome::FunctionFailed) {
      res = sys_.guard().fatal()
                ? newton_.failure(AttemptOutcome::CallbackError, "callback failed")
                : newton_.failure(AttemptOutcome::NonFinite,
                                  "f, df/dy or df/dp failed at a stage (sensitivities)");
      return false;
    }
    if (o == IrkSensitivities::Outcome::NotConverged) {
      need_jac_ = !jac_fresh_;
      res = newton_.failure(AttemptOutcome::NewtonFailed,
                            "the sensitivities' stage iteration did not converge");
      return false;
    }
    if (sens_->error_control()) res.err = std::max(res.err, sens_->error_estimate(h));
    return true;
  }

  bool compute_jacobian() {
    jac_valid_ = jac_fresh_ = sys_.jacobian(t_, y_, f0_, J_);
    need_jac_ = false;
    engine_.invalidate();
    return jac_valid_;
  }

  // The index-2 components of y_ from the hidden constraints of the branch of the model in
  // force from t_ on (consistent_index2_values()): the values from before a switch, a tstop or
  // an event action belong to the old branch, and they enter f0_, which the error estimate of
  // the first step compares the step with. The stages do not contain them (z has zero columns
  // in M): only the estimate changes. The Jacobian evaluated here is the restart's (the first
  // step uses it); the difference increment for f_t is cbrt(eps) times the step before.
  bool consistent_index2_at_restart(double h_before, std::string& message) {
    if (!compute_jacobian()) {
      if (!sys_.guard().fatal()) return true;
      message = "the Jacobian failed at the restart point: " + sys_.guard().failure().describe();
      return false;
    }
    const double dt = kRestartDifferenceStep * std::abs(h_before);
    return consistent_index2_values(sys_, t_, y_, f0_, J_.to_dense(), h_before, dt, message,
                                    &yp_ahead_);
  }

  // The index-2 error control (IrkEngine::index2_correction; RadauOptions::
  // index2_error_control, Index2ErrorControl): on a DAE whose index-2 components are zero
  // columns of M (the charge pump's current) and that has no index-3 components, unless
  // RADAU5's own scaling is asked for (transform_tolerances, as Hairer's code) or the steps are
  // constant; by default (AfterRestarts) from the first restart() on, from the start with
  // Always.
  void set_up_index2_control() {
    index2_control_ = false;
    if (opt_.index2_error_control == Index2ErrorControl::Off || !restart_index2_ ||
        max_index_ != 2 || fixed_step_ || opt_.transform_tolerances)
      return;
    for (int j : sys_.mass().zero_columns())
      if (index_[j] == 2) index2_cols_.push_back(j);
    defect_rows_ = sys_.mass().zero_rows();
    if (defect_rows_.empty() || index2_cols_.empty()) return;
    z_correction_.setZero(n_);
    index2_eligible_ = true;
    index2_control_ = opt_.index2_error_control == Index2ErrorControl::Always;
  }

  // The components whose Newton increments (and index-2 estimates) are measured against the
  // round-off of the constraints (IrkEngine::constraint_roundoff): M's zero columns of index 2
  // and 3, lifted by 1/h and 1/h^2 of the iteration matrix from the rounding of M's zero rows.
  [[gnu::noinline]] void set_up_constraint_roundoff() {
    if (max_index_ < 2) return;
    std::vector<int> cols;
    for (int j : sys_.mass().zero_columns())
      if (index_[j] >= 2) cols.push_back(j);
    engine_.set_roundoff_components(cols, sys_.mass().zero_rows());
    roundoff_ = !engine_.roundoff_components().empty();
  }

  // The constraints' round-off of this factorisation (IrkEngine::constraint_roundoff) weighed
  // for the Newton iteration that follows (y, f: the step's start and f there).
  [[gnu::noinline]] void weigh_constraint_roundoff(const Vector& y, const Vector& f) {
    engine_.constraint_roundoff(y, f, J_);
    engine_.weigh_constraint_roundoff(scal_, newton_.settings().tolerance);
  }

  // After a Newton failure on a DAE with index-2/3 components at the fixed-stage floors
  // (at_fixed_stage_floors(), as kNewtonRoundOff; the variable-order radau above
  // kRadauDaeRtolFloor works at rtol' >= 1e-8, away from that level): true
  // if their round-off level reaches the Newton tolerance in the weights; from then on the
  // iteration measures their increments less that level (roundoff_in_newton_). Until the first
  // such failure it is not computed (most runs never need it; it costs about a tenth of a
  // small system's factorisation) and the iteration is RADAU5's, bit for bit.
  [[gnu::noinline]] bool constraint_roundoff_matters() {
    weigh_constraint_roundoff(y_, f0_);
    const bool matters = engine_.noise_active();
    engine_.weigh_constraint_roundoff(scal_, std::numeric_limits<double>::infinity());  // off
    return matters;
  }

  // RADAU5's estimate scales the error of index-2 components by h (in the unit of t): blind to
  // their truncation error in a step (the charge pump's last step: 3.4e-8 A estimated as
  // 1e-12). The step's index-2 values are also tested in their own unit, against w_z /
  // kErrorMargin (their error does not propagate: z is determined by y, so no margin for
  // accumulation), as an error of RADAU's order, err_z^((s+1)/s) (z's local error is O(h^s)).
  // Parts of the estimate that no smaller step removes are kept out of the test: the round-off
  // level (index2_error()), the Newton error of the stages (which the defect sees divided by h:
  // when the estimate fails the test, one more iteration, and the change it makes is taken off
  // as what is left of that error), and an estimate that did not fall at least like h after a
  // rejection by it at the same point (not O(h^s): not used until the step is accepted). The
  // next step is chosen from it too, its round-off part counted up to 0.5 (no growth from an
  // estimate that is round-off). False (res set to the failure) if f failed.
  [[gnu::noinline]] bool index2_test(double h, bool after_reject, StepAttempt& res) {
    if (!after_reject) {  // a new point: its rejections start afresh
      idx2_distrust_ = false;
      idx2_rejected_h_ = 0.0;
    }
    if (!index2_estimate(h)) return index2_failure(res);
    if (idx2_err_ >= 1.0 && res.err < 1.0) {
      const double before = idx2_raw_;
      newton_.begin(opt_.jacobian_reuse_theta);
      if (engine_.newton(t_, y_, h, scal_, newton_.monitor()) ==
          NewtonMonitor::Verdict::Converged) {
        if (!index2_estimate(h)) return index2_failure(res);
        set_index2_errors(std::max(0.0, idx2_raw_ - std::abs(before - idx2_raw_)));
      } else {
        idx2_err_ = 0.0;  // (RADAU5's test decides)
      }
    }
    if (after_reject && idx2_rejected_h_ != 0.0 && std::abs(h) < std::abs(idx2_rejected_h_) &&
        idx2_raw_ > idx2_rejected_raw_ * std::abs(h / idx2_rejected_h_))
      idx2_distrust_ = true;
    if (idx2_distrust_) idx2_err_ = idx2_prop_ = 0.0;
    if (idx2_err_ >= 1.0 && res.err < 1.0) {
      idx2_rejected_h_ = h;
      idx2_rejected_raw_ = idx2_raw_;
    }
    res.err = std::max(res.err, idx2_err_);
    return true;
  }

  bool index2_failure(StepAttempt& res) {
    res = sys_.guard().fatal()
              ? newton_.failure(AttemptOutcome::CallbackError, "callback failed")
              : newton_.failure(AttemptOutcome::NonFinite, "f failed (index-2 error estimate)");
    return false;
  }

  bool index2_estimate(double h) {
    if (!engine_.index2_correction(t_, y_, f0_, h, defect_rows_, z_correction_)) return false;
    set_index2_errors(index2_error(h));
    return true;
  }

  void set_index2_errors(double raw) {
    idx2_raw_ = std::isfinite(raw) ? raw : 0.0;
    const double expo = (s_ + 1.0) / s_;
    idx2_err_ = std::pow(idx2_raw_, expo);
    idx2_prop_ = std::pow(std::max(idx2_raw_, idx2_prop_raw_), expo);
  }

  // RMS of the index-2 corrections against w_z / kErrorMargin, less the round-off level: t is
  // resolved to eps |t|, which moves the stages' times, a relative change eps |t| / h of the
  // index-2 values that the defect sees amplified by the interpolation (omega'(1) /
  // omega(theta) = 16 at s = 3; measured on the charge pump: 5 eps |t| |z| / h).
  // idx2_prop_raw_: the estimate with its round-off part, at most 0.5 (the next step's basis).
  double index2_error(double h) {
    if (!engine_.constants().has_defect_estimate) return idx2_prop_raw_ = 0.0;
    const Vector& w = weights_->w();
    double sum = 0.0, level = 0.0;
    for (int j : index2_cols_) {
      const double wj = w[j] * order_scale_ / kErrorMargin;
      const double r = z_correction_[j] / wj;
      const double l = y_[j] / wj;
      sum += r * r;
      level += l * l;
    }
    const double m = static_cast<double>(index2_cols_.size());
    const double roundoff =
        kIndex2RoundOff * kEps * std::abs(t_) / std::abs(h) * std::sqrt(level / m) +
        index2_noise_level();
    const double raw = std::sqrt(sum / m);
    idx2_prop_raw_ = raw > roundoff ? std::min(raw, 0.5) : 0.0;
    return std::max(0.0, raw - roundoff);
  }

  // The constraints' round-off in the index-2 corrections (RMS against w_z / kErrorMargin):
  // the defect's two evaluations of f_a, f_a(p(theta)) - l_0 f_a(y_n), are each rounded like
  // the constraint (IrkEngine::noise()), times the defect's scale, times kIndex2Noise.
  [[gnu::noinline]] double index2_noise_level() {
    if (!roundoff_) return 0.0;
    engine_.constraint_roundoff(y_, f0_, J_);
    const IrkConstants& k = engine_.constants();
    const double gain =
        kIndex2Noise * std::abs(k.defect_scale) * (1.0 + std::abs(k.defect_start_weight));
    const Vector& w = weights_->w();
    double sum = 0.0;
    for (int j : index2_cols_) {
      const double e = gain * engine_.noise()[j] / (w[j] * order_scale_ / kErrorMargin);
      sum += e * e;
    }
    return std::sqrt(sum / static_cast<double>(index2_cols_.size()));
  }

  // scal_i = w_i (rtol'_s / rtol'_3) / |h|^(index_i - 1)
  void compute_scale(double h) {
    const double ah = std::abs(h);
    const Vector& w = weights_->w();
    if (order_scale_ == 1.0 && max_index_ <= 1) {        // s = 3 (and every radau5 step): w itself
      std::copy(w.data(), w.data() + n_, scal_.data());  // (a call to Eigen's copy otherwise)
      return;
    }
    for (int i = 0; i < n_; ++i) {
      double s = w[i] * order_scale_;
      if (index_[i] == 2) s /= ah;
      if (index_[i] == 3) s /= ah * ah;
      scal_[i] = s;
    }
  }

  // The error estimate's norm e = scaled_norm(v) >= 1 (a rejection) on a DAE with index-2/3
  // components (IrkEngine::roundoff_components()), less what no smaller step removes:
  // - the part the start point's residual in the algebraic equations makes (IrkEngine::
  //   start_residual_part(): the step before leaves g(q_n) at some eps, lifted by 1/h^2), and
  //   the round-off level of the Newton iteration (IrkEngine::newton_noise(): the estimate
  //   solves with the same matrix for the rounded f0 and e^T Z / h of stages converged to that
  //   level; truck-index3 at rtol = 1e-10: 7-9 noise() in lambda_1 at every h from 6e-2 down to
  //   5e-7): if the estimate less these accepts the step, it is accepted;
  //   (and they are at least kRoundoffShare of it: no marginal decision changes);
  // - else, at a second rejection at the same point with a smaller step, an error of these
  //   components (alone, in the weights) above kSteadyShare of the one before did not fall
  //   with h, which a truncation error (like h^(s+1) here) does: if it is at least
  //   kRoundoffShare of the error, they are left out of the test until a step is accepted
  //   (truck-index3 at 1e-10, t = 1.9656: 140 noise() in lambda_1 at every h from 3e-14 down
  //   to 5e-15, the start residual's part and the level 73 of them: step_size_too_small
  //   without this).
  // Otherwise e: a rejection stays one as RADAU5 measures it. radau5 only (a fixed number of
  // stages: the variable-order radau lowers its order at such rejections).
  [[gnu::noinline]] double roundoff_checked_error(const Vector& v, double e, bool after_reject) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (!after_reject) rc_rejected_h_ = 0.0;  // a new point
    engine_.constraint_roundoff(y_, f0_, J_);
    Vector& discount = engine_.error_levels(f0_);
    const std::vector<int>& rc = engine_.roundoff_components();
    const double d = discounted_norm(v, discount);
    if (d < 1.0 && d <= kRoundoffShare * e) return d;
    discount.setConstant(kInf);  // the index-2/3 components' part alone
    for (int i : rc) discount[i] = 0.0;
    const double part = discounted_norm(v, discount);
    const double h = h_;
    const bool steady = rc_rejected_h_ != 0.0 && std::abs(h) < std::abs(rc_rejected_h_) &&
                        part > kSteadyShare * rc_rejected_part_;
    rc_rejected_h_ = h;
    rc_rejected_part_ = part;
    if (!steady || part < kRoundoffShare * e) return e;
    discount.setZero();
    for (int i : rc) discount[i] = kInf;  // the others decide
    return discounted_norm(v, discount);
  }

  // scaled_norm() of v less `discount` (per component, down to 0)
  [[gnu::noinline]] double discounted_norm(const Vector& v, const Vector& discount) const {
    double sum = 0.0;
    for (int i = 0; i < n_; ++i)
      if (weights_->in_test(i)) {
        const double r = std::max(std::abs(v[i]) - discount[i], 0.0) / scal_[i];
        sum += r * r;
      }
    return std::sqrt(sum / std::max(1, weights_->test_count()));
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

  RadauOptions opt_;
  bool radau5_ = false, start_from_zero_ = false;
  IrkEngine engine_;
  int n_;
  Stats& stats_;
  double fixed_floor_ = 0.0;  ///< the DAE floor of internal_rtol() at fixed stages (0: an ODE)
  RadauOptions requested_;    ///< the options as given (opt_'s stages: choose_stages())
  bool tight_ = false;        ///< choose_stages(): a DAE below kRadauDaeRtolFloor
  bool fixed_step_ = false;   ///< Options::fixed_step: internal_rtol() is rtol
  const ErrorWeights* weights_ = nullptr;
  bool all_in_test_ = true;
  NewtonAttempt newton_;
  ReusePolicy reuse_;
  std::vector<int> index_;
  int max_index_ = 1;
  bool restart_index2_ = false;  ///< zero columns of M tagged 2: consistent_index2_at_restart()
  /// y' on the piece ahead from the last restart's consistent_index2_at_restart() (empty when
  /// it has none): the first step's starting values Z_i = c_i h y' (a first-order predictor where
  /// an input changed its slope: the charge pump's U_1 = V_in(t) at the ramps' starts), not 0
  Vector yp_ahead_;
  // the index-2 error control (index2_test())
  bool index2_control_ = false, idx2_distrust_ = false, index2_eligible_ = false;
  double idx2_rejected_h_ = 0.0, idx2_rejected_raw_ = 0.0;  // its last rejection at this point
  double idx2_err_ = 0.0, idx2_raw_ = 0.0, idx2_prop_ = 0.0, idx2_prop_raw_ = 0.0;
  std::vector<int> index2_cols_, defect_rows_;  // index-2 zero columns, zero rows of M
  Vector z_correction_;
  // the constraints' round-off (set_up_constraint_roundoff(): index-2/3 zero columns of M)
  bool roundoff_ = false, roundoff_in_newton_ = false;
  double rc_rejected_h_ = 0.0, rc_rejected_part_ = 0.0;  // the last rejection at this point
  double failed_h_ = 0.0, failed_rate_ = 0.0;            ///< the last failure with a fresh Jacobian
  // order
  int s_ = 3, nit_ = 7;
  bool variable_ = true;
  double given_rtol_ = 1e-6, order_scale_ = 1.0;
  int ichan_ = 0, last_newton_iterations_ = 0;
  double thetat_ = 0.0, last_rate_ = 0.0, h_hold_ = 0.0;
  double last_err_ = 0.0, h_err_ = 0.0;  // the last error-test rejection's error and step
  bool unexpected_ = false, slow_newton_ = false, lu_kept_ = false;
  // step
  double t_ = 0, h_ = 0, h_last_ = 0;
  double t_before_ = 0;  ///< the start of the last accepted step (retake_step())
  bool first_ = true, jac_valid_ = false, jac_fresh_ = false, need_jac_ = true;
  int attempts_since_accept_ = 0;
  bool inconsistent_ = false;  ///< the last accept() found the step inconsistent with f
  Vector y_, f0_, y_new_, f_new_, scal_;
  StructuredMatrix<double> J_;
  IrkDense dense_;
  // forward sensitivities (MethodInput::sensitivities), else null
  SensitivityRequest sens_request_;
  std::unique_ptr<IrkSensitivities> sens_;
  long sens_iterations_ = 0;
};

}  // namespace

MethodRegistration radau_method() {
  MethodRegistration r;
  r.info.name = "radau";
  r.info.title = "Radau IIA of variable order 5, 9, 13 (3, 5, 7 stages; RADAU), index 1-3";
  r.info.reference =
      "Hairer-Wanner, J. Comput. Appl. Math. 111 (1999) 93-111 (RADAU); Hairer-Wanner II, IV.8";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 3;
  c.order = 13;
  c.variable_order = true;
  c.dense_output_order = 7;
  c.projection = true;
  c.sensitivities = true;
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const RadauOptions o = method_options<RadauOptions>(in, "radau");
    o.validate();
    return std::make_unique<Radau>(*in.mass_form, o, in);
  };
  describe_radau_options(r);
  return r;
}

MethodRegistration radau5_method() {
  MethodRegistration r;
  r.info.name = "radau5";
  r.info.title = "Radau IIA, 3 stages, order 5 (RADAU5), variable step, index 1-3";
  r.info.reference = "Hairer-Wanner II, IV.8 and VI.6 (RADAU5); Schropp (2006) (projection)";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.max_index = 3;
  c.order = 5;
  c.dense_output_order = 3;
  c.projection = true;
  c.sensitivities = true;
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const Radau5Options o = method_options<Radau5Options>(in, "radau5");
    o.validate();
    return std::make_unique<Radau>(*in.mass_form, radau5_as_radau(o), in, true,
                                   o.start_newton_from_zero);
  };
  describe_radau5_options(r);
  return r;
}

}  // namespace daekit
