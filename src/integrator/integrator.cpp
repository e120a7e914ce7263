// The integrator's step loop (integrator.hpp): one accepted step per step() call, with the
// retry policy (error-test rejections, Newton failures, singular matrices, NaN/Inf and
// recoverable callback errors), the post-step projection with its continuous dense output,
// events, output sampling, the drift monitor, the trace, and statistics.
#include "daekit/integrator/integrator.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>

#include "core/format.hpp"
#include "core/guard.hpp"
#include "daekit/nonlinear/initialization.hpp"
#include "integrator/controller.hpp"
#include "integrator/events.hpp"
#include "integrator/output.hpp"
#include "methods/factory.hpp"
#include "methods/method.hpp"

namespace daekit {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

/// CPU seconds used by the calling thread (POSIX CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string fmt(double x) { return format_number(x, 6); }

StepTrace::Outcome trace_outcome(AttemptOutcome o) {
  switch (o) {
    case AttemptOutcome::Converged:
      return StepTrace::Outcome::Accepted;
    case AttemptOutcome::NewtonFailed:
      return StepTrace::Outcome::NewtonFailed;
    case AttemptOutcome::Singular:
      return StepTrace::Outcome::Singular;
    case AttemptOutcome::NonFinite:
      return StepTrace::Outcome::NonFinite;
    case AttemptOutcome::CallbackError:
      return StepTrace::Outcome::Failed;
  }
  return StepTrace::Outcome::Failed;
}

/// What the step from t does at the end of the interval (the last-step rule).
enum class StepEnd {
  Inner,    ///< an inner step: it leaves more than round-off to t_end
  Last,     ///< the last step: h was set to t_end - t
  Reached,  ///< t is within round-off of t_end and no step can or may take the rest
};

/// The last-step rule. Round-off of t is `resolution` = 100 eps max(|t|, |t_end|) (IDA's tstop
/// test: 100 eps (|t| + |h|)); the integrator's smallest step is h_min (10 eps |t|).
///  - Farther than round-off from t_end: the step of size h lands on t_end (h = t_end - t) when
///    t + h reaches it (shortened, as IDA's at tstop) or falls short of it by at most the
///    largest of 1e-4 |h| (RADAU5's t + 1.0001 h >= t_end: the rest would be an extra step far
///    below the size the error control accepts), the resolution (the steps' sum can fall an
///    ulp or two short of t_end: no step could take that rest) and `drift` (fixed steps: the
///    rounding accumulated in t). Right after a failed attempt (`after_failure`) the cut step is
///    not stretched back by the resolution (it would repeat the step that failed).
///  - Within round-off of t_end (after an event located there, or an inner step cut after a
///    failure): one step to t_end, unless it is below h_min or a step from t failed already;
///    then t_end is reached within round-off (IDA returns at tstop then) and no step is tried.
StepEnd step_end(double t, double t_end, double dir, double drift, double h_min, bool after_failure,
                 double& h) {
  const double rest = dir * (t_end - t);
  const double resolution = 100.0 * kEps * std::max(std::abs(t), std::abs(t_end));
  if (rest <= resolution) {
    if (after_failure || rest <= h_min) return StepEnd::Reached;
    h = t_end - t;
    return StepEnd::Last;
  }
  const double shortfall = rest - dir * h;
  if (shortfall > std::max({1e-4 * std::abs(h), after_failure ? 0.0 : resolution, drift}))
    return StepEnd::Inner;
  h = t_end - t;
  return StepEnd::Last;
}

}  // namespace

struct Integrator::Impl : public DenseSource {
  // set up
  Options opt;
  Result result;
  CallGuard guard;
  std::unique_ptr<Method> method;
  MethodCapabilities caps;
  ErrorWeights weights;
  std::unique_ptr<StepController> controller;
  std::unique_ptr<EventLocator> events;
  Projection projection = Projection::None;
  int n = 0;
  double t0 = 0, t_end = 0, dir = 1, hmax = 0, h = 0, h_min_floor = 0;
  OutputSampler output;
  // CPU time of this solve: the calling thread's CPU time summed over the calls into it
  // (construction, step(), solve_until()). std::clock() counts every thread of the process, so
  // concurrent solves on other threads would be added to each one's Result::cpu_seconds.
  double cpu_done = 0.0;    ///< CPU seconds of the finished calls
  double call_start = 0.0;  ///< thread CPU time at the start of the current call
  bool in_call = false;
  struct Call {  // times one call into the solve
    explicit Call(Impl& impl) : I(impl) {
      I.call_start = thread_cpu_seconds();
      I.in_call = true;
    }
    ~Call() {
      I.cpu_done += thread_cpu_seconds() - I.call_start;
      I.in_call = false;
    }
    Impl& I;
  };
  double cpu_seconds() const {
    return cpu_done + (in_call ? thread_cpu_seconds() - call_start : 0.0);
  }
  // state of the loop
  bool finished = false, started = false, last_rejected = false;
  bool last_failure_non_finite = false;
  const char* last_failure = "";
  int consecutive_failures = 0, singular_failures = 0;
  long event_count = 0;
  // projection correction of the last accepted step's dense output: (theta + 1) delta
  bool have_correction = false;
  Vector delta, unprojected, work, work2;
  double t_left = 0;                    // start of the last accepted step
  std::vector<double> nonnegative_min;  // smallest accepted value per component
  Vector given_atol;                    // atol per component, as given
  long tiny_steps = 0;  // accepted steps near the resolution of t (suspicious progress)

  // ---------------------------------------------------------------------------------------
  void dense(double t, VecOut out) const override {
    method->dense(t, out);
    if (have_correction) {
      const double h_step = method->t() - t_left;
      const double s = h_step != 0.0 ? (t - t_left) / h_step : 1.0;
      out += s * delta;
    }
  }
  void dense_derivative(double t, VecOut out) const override {
    method->dense_derivative(t, out);
    if (have_correction) {
      const double h_step = method->t() - t_left;
      if (h_step != 0.0) out += delta / h_step;
    }
  }

  // ---------------------------------------------------------------------------------------
  // The part of MethodInput every problem form shares, then setup().
  void begin(const std::string& problem_name, MethodInput in, const MethodChoice& choice,
             const Vector& y0, double t_start, double t_stop, const Options& options) {
    opt = options;
    t0 = t_start;
    t_end = t_stop;
    in.t0 = t_start;
    in.options = &choice.options();
    in.linear_solver = opt.linear_solver;
    in.fixed_step = opt.fixed_step;
    in.guard = &guard;
    in.stats = &result.stats;
    setup(problem_name, in, choice, y0);
  }
  void setup(const std::string& problem_name, const MethodInput& input, const MethodChoice& choice,
             const Vector& y0) {
    const MethodRegistration& reg = method_registration(choice.name());
    caps = reg.info.capabilities;
    result.method = reg.info.name;
    result.problem = problem_name;
    if (input.mass_form && !caps.mass_matrix_form)
      throw InvalidArgument("method '" + reg.info.name +
                            "' does not take a MassMatrixDae (it solves " + reg.info.summary() +
                            ")");
    if (input.implicit_form && !caps.implicit_form)
      throw InvalidArgument("method '" + reg.info.name +
                            "' does not take an ImplicitDae (it solves " + reg.info.summary() +
                            "); write the problem as M y' = f or choose bdf");
    if (input.index2_form && !caps.index2_form)
      throw InvalidArgument("method '" + reg.info.name +
                            "' does not take an ImplicitIndex2Dae (it solves " +
                            reg.info.summary() + "); choose spark or hem");
    n = static_cast<int>(y0.size());
    opt.validate(n);
    if (!std::isfinite(t0) || !std::isfinite(t_end))
      throw InvalidArgument("solve: t0 and t_end must be finite");
    if (t_end == t0)
      throw InvalidArgument("solve: t_end equals t0 (" + fmt(t0) + "): empty interval");
    if (!y0.allFinite()) throw InvalidArgument("solve: y0 contains NaN or Inf");
    if (!caps.error_estimate && !opt.fixed_step)
      throw InvalidArgument("solve: method " + reg.info.name +
                            " has no error estimate; set Options::fixed_step and h0");
    dir = t_end > t0 ? 1.0 : -1.0;
    output.setup(opt.output_times, t0, t_end);

    method = reg.make(input);
    controller = make_controller(opt);
    projection = opt.projection;
    if (projection == Projection::None) projection = method->requested_projection();
    if (projection != Projection::None) {
      if (!caps.projection)
        throw InvalidArgument("method '" + reg.info.name + "' does not support projection");
      if (!method->has_projector())
        throw InvalidArgument("projection '" + std::string(to_string(projection)) +
                              "' requested but problem '" + problem_name +
                              "' has no projector (build it with formulate(MechanicalSystem))");
    }
    if (const std::string refused = method->check_projection(projection, result.warnings);
        !refused.empty())
      throw InvalidArgument(refused);
    delta.setZero(n);
    unprojected.setZero(n);
    work.setZero(n);
    work2.setZero(n);

    // given and used
    result.rtol = opt.rtol;
    result.atol = opt.atol;
    Tolerances given;
    given.rtol = opt.rtol;
    given.atol = opt.atol_vector.size() ? opt.atol_vector : Vector::Constant(n, opt.atol);
    const Tolerances used = method->used_tolerances(given);
    for (std::string& c : method->caveats(given)) result.warnings.push_back(std::move(c));
    result.rtol_used = used.rtol;
    result.atol_used = used.atol.size() ? used.atol.maxCoeff() : 0.0;
    std::vector<char> in_test(static_cast<size_t>(n), 1);
    const std::vector<int> excluded = opt.exclude_from_error_test
                                          ? *opt.exclude_from_error_test
                                          : method->default_error_test_exclusions();
    for (int i : excluded) in_test[static_cast<size_t>(i)] = 0;
    for (int i = 0; i < n; ++i)
      if (!in_test[static_cast<size_t>(i)]) result.excluded_from_error_test.push_back(i);
    weights.setup(used, in_test);
    result.linear_solver = method->linear_solver();
    result.projection = projection;
    result.fixed_step = opt.fixed_step;
    result.controller = opt.controller;
    result.jacobian_colours = method->jacobian_colours();
    if (caps.own_step_control) {
      const Options defaults;
      std::string unused;
      if (opt.safety != defaults.safety) unused += " safety";
      if (opt.max_increase != defaults.max_increase) unused += " max_increase";
      if (opt.max_decrease != defaults.max_decrease) unused += " max_decrease";
      if (opt.controller != defaults.controller) unused += " controller";
      if (!unused.empty())
        result.warnings.push_back("method " + reg.info.name +
                                  " chooses its step sizes and orders itself; not used:" + unused);
    }

    const double span = std::abs(t_end - t0);
    hmax = opt.hmax > 0 ? std::min(opt.hmax, span) : span;
    h_min_floor = kEps * kEps * span;
    result.t = t0;
    result.y = y0;
    start(y0);
  }

  void start(const Vector& y0) {
    // consistency of the initial values
    if (opt.check_consistency) {
      // default: 10 atol (the given one): an algebraic residual above it would dominate the
      // error the tolerances ask for from the first step on
      const double atol_max = opt.atol_vector.size() ? opt.atol_vector.maxCoeff() : opt.atol;
      const double tol = opt.consistency_tol > 0 ? opt.consistency_tol : 10.0 * atol_max;
      const std::string msg = method->check_consistency(t0, y0, tol);
      if (guard.fatal()) return finish_callback_error();
      if (!msg.empty())
        return finish(Status::InconsistentInitialValues, "inconsistent initial values: " + msg);
    }
    if (opt.check_jacobian) {
      const JacobianCheck c = method->check_jacobian(t0, y0);
      if (!c.message.empty())
        return finish(c.callback_error ? Status::CallbackError : Status::NonFiniteFunction,
                      "checking the analytic Jacobian at t0: " + c.message);
      if (!c.ok)
        return finish(Status::InvalidInput,
                      "the analytic Jacobian disagrees with finite differences at t0 (set "
                      "Options::check_jacobian = false if the differences are the inaccurate "
                      "ones): " +
                          c.report());
    }
    given_atol = opt.atol_vector.size() ? opt.atol_vector : Vector::Constant(n, opt.atol);
    nonnegative_min.assign(opt.nonnegative.size(), 0.0);
    for (size_t k = 0; k < opt.nonnegative.size(); ++k) nonnegative_min[k] = y0[opt.nonnegative[k]];
    weights.update(y0);
    std::string message;
    if (!method->start(t0, y0, weights, message)) {
      if (guard.fatal()) return finish_callback_error();
      if (guard.failure().kind != CallbackFailure::Kind::None)
        return finish(Status::NonFiniteFunction,
                      "at the initial values: " + guard.failure().describe());
      return finish(Status::InvalidInput, message);
    }
    h = dir * std::min(opt.h0 > 0 ? opt.h0 : std::abs(method->initial_step(t_end)), hmax);
    output.at_start(y0, result);
    if (opt.store_steps) {
      result.t_steps.push_back(t0);
      result.y_steps.push_back(y0);
    }
    result.has_constraints = method->has_monitor();
    if (!record_residual(t0, y0)) return;  // (uses has_constraints)
    if (!opt.events.empty()) {
      events = std::make_unique<EventLocator>(opt.events, n, guard, result.stats);
      method->derivative(work);
      if (!events->initialize(t0, y0, work, method->parameters())) return finish_callback_error();
    }
    started = true;
  }

  // ---------------------------------------------------------------------------------------
  void finish(Status status, std::string message) {
    for (size_t k = 0; k < nonnegative_min.size(); ++k)
      if (nonnegative_min[k] < 0.0)
        result.warnings.push_back("component " + std::to_string(opt.nonnegative[k]) +
                                  " (marked non-negative) went down to " + fmt(nonnegative_min[k]) +
                                  " (within its error weight)");
    nonnegative_min.clear();
    if (tiny_steps > 100)
      result.warnings.push_back(
          std::to_string(tiny_steps) +
          " accepted steps were within a factor 1000 of the "
          "smallest step t can resolve: the solution made very slow progress in t (a wrong "
          "Jacobian, a non-smooth model, or an index higher than the method handles?)");
    tiny_steps = 0;
    warn_about_drift();
    result.status = status;
    result.message = std::move(message);
    if (method && started) {
      result.t = method->t();
      result.y = method->y();
      result.yp.resize(n);
      method->derivative(result.yp);
      result.order = method->order();
    }
    result.h_next = h;
    result.cpu_seconds = cpu_seconds();
    finished = true;
  }
  // A solution that left its constraint manifold (an index-1 or index-0 formulation without
  // projection, notes ch. 3 and 8) can be far off while every step passed its error test.
  void warn_about_drift() {
    if (!result.has_constraints) return;
    const double limit = 100.0 * (opt.atol + opt.rtol);
    const ConstraintResiduals& r = result.max_residual;
    if (r.position > limit || r.velocity > limit)
      result.warnings.push_back(
          "the constraint residuals grew to " + fmt(r.position) + " (position) and " +
          fmt(r.velocity) +
          " (velocity), more than 100 (atol + rtol): the solution drifted off "
          "its constraints (a projection, Options::projection, or a formulation that keeps them, "
          "index 2 or GGL, stops the drift)");
  }
  void finish_callback_error() { finish(Status::CallbackError, guard.failure().describe()); }

  bool record_residual(double t, const Vector& y) {
    if (!result.has_constraints) return true;
    ConstraintResiduals c;
    if (!method->monitor(t, y, c)) {
      finish_callback_error();
      return false;
    }
    result.max_residual.position = std::max(result.max_residual.position, c.position);
    result.max_residual.velocity = std::max(result.max_residual.velocity, c.velocity);
    result.max_residual.acceleration = std::max(result.max_residual.acceleration, c.acceleration);
    if (opt.store_steps) result.residual_steps.push_back(c);
    return true;
  }

  void trace(double t, double h_try, const StepAttempt& a, StepTrace::Outcome outcome) {
    if (!opt.trace || guard.fatal()) return;
    StepTrace s;
    s.t = t;
    s.h = h_try;
    s.outcome = outcome;
    s.order = method->order();
    s.newton_iterations = a.newton_iterations;
    s.newton_rate = a.newton_rate;
    s.error = a.outcome == AttemptOutcome::Converged ? a.err : 0.0;
    s.detail = a.detail;
    guard("the trace callback", t, [&] { opt.trace(s); });
  }

  // ---------------------------------------------------------------------------------------
  // One accepted step (or the end of the solve).
  Stop step() {
    if (finished)
      return result.ok() || result.status == Status::TerminalEvent ||
                     result.status == Status::UserStop
                 ? Stop::End
                 : Stop::Failure;
    try {
      return step_guarded();
    } catch (const std::exception& e) {  // a bug or out of memory: still a status, not a crash
      finish(Status::CallbackError, std::string("internal error: ") + e.what());
      return Stop::Failure;
    }
  }

  Stop fail(Status status, std::string message) {
    finish(status, std::move(message));
    return Stop::Failure;
  }

  // Options::interrupt asked to stop (or failed): finishes the solve, true.
  bool interrupted() {
    bool stop = false;
    if (!guard("the interrupt check", method->t(), [&] { stop = opt.interrupt(); })) {
      fail(Status::CallbackError, guard.failure().describe());
      return true;
    }
    if (stop) fail(Status::Interrupted, "interrupted at t = " + fmt(method->t()));
    return stop;
  }

  // t is within round-off of t_end and no step can or may take the rest (step_end): the solve
  // has reached t_end, as IDA's within its tstop round-off, with the state at t (also for the
  // output times in (t, t_end]: after a restart at t there is no interpolant yet).
  Stop end_within_roundoff() {
    struct StateAtT : DenseSource {
      const Method& m;
      explicit StateAtT(const Method& method_at_t) : m(method_at_t) {}
      void dense(double, VecOut out) const override { out = m.y(); }
      void dense_derivative(double, VecOut out) const override { m.derivative(out); }
    };
    output.upto(t_end, StateAtT(*method), work, result);
    finish(Status::Success, "");
    result.t = t_end;
    return Stop::End;
  }

  Stop step_guarded() {
    Stats& s = result.stats;
    for (;;) {
      if (guard.fatal()) return fail(Status::CallbackError, guard.failure().describe());
      if (opt.interrupt && interrupted()) return Stop::Failure;
      const double t = method->t();
      // last step: lands on t_end, never leaves a remainder t cannot resolve (with fixed
      // steps, t carries the rounding of all the additions so far: up to n eps |t|)
      const double drift =
          opt.fixed_step ? 4.0 * kEps * (s.naccept + 1) * std::max(std::abs(t), std::abs(t_end))
                         : 0.0;
      const StepEnd end =
          step_end(t, t_end, dir, drift, std::max(10.0 * kEps * std::abs(t), h_min_floor),  // h_min
                   last_rejected, h);
      if (end == StepEnd::Reached) return end_within_roundoff();
      const bool last = end == StepEnd::Last;
      if (s.nsteps >= opt.max_steps)
        return fail(Status::MaxStepsExceeded,
                    "reached max_steps = " + std::to_string(opt.max_steps) + " at t = " + fmt(t) +
                        failure_summary());
      const double h_min = std::max(10.0 * kEps * std::abs(t), h_min_floor);
      if (std::abs(h) <= h_min || h == 0.0) {
        if (last_failure_non_finite)
          return fail(Status::NonFiniteFunction,
                      std::string("f keeps returning NaN/Inf near t = ") + fmt(t) +
                          " for every step size down to " + fmt(h) + ": " +
                          guard.failure().describe());
        return fail(
            Status::StepSizeTooSmall,
            "step size " + fmt(h) + " at t = " + fmt(t) + " is below what t can resolve (" +
                fmt(h_min) + ")" +
                (*last_failure   ? std::string(" after: ") + last_failure
                 : last_rejected ? std::string(" after error-test rejections")
                                 : " after the step size shrank over accepted steps (max |y| = " +
                                       fmt(method->y().cwiseAbs().maxCoeff()) +
                                       ": the solution may be blowing up)"));
      }
      ++s.nsteps;
      const StepAttempt a = method->attempt(h);
      if (guard.fatal() || a.outcome == AttemptOutcome::CallbackError) {
        trace(t, h, a, StepTrace::Outcome::Failed);
        return fail(Status::CallbackError, guard.failure().describe());
      }
      if (a.outcome == AttemptOutcome::Converged && (a.err < 1.0 || opt.fixed_step)) {
        const Stop stop = try_accept(t, a, last);
        if (stop != Stop::InternalStep || !retry_pending) return stop;
        retry_pending = false;
        continue;
      }
      if (a.outcome == AttemptOutcome::Converged) {  // error test failed
        trace(t, h, a, StepTrace::Outcome::Rejected);
        consecutive_failures = singular_failures = 0;
        last_failure = "";
        last_failure_non_finite = false;
        ++s.nreject;
        h = method->step_after_reject(
            h, s.naccept == 0 || caps.own_step_control
                   ? 0.1 * h
                   : controller->propose(h, a.err, method->error_order(), a.safety_scale, false));
        last_rejected = true;
        continue;
      }
      trace(t, h, a, trace_outcome(a.outcome));
      const Stop stop = handle_failure(t, a);
      if (finished) return stop;
    }
  }

  bool retry_pending = false;
  long failures_newton = 0, failures_nonfinite = 0, failures_singular = 0;
  const char* last_failure_detail = "";  // no strings built in the step loop: only on demand
  double last_failure_t = 0.0;
  bool last_failure_callback = false;

  // " (N of the attempts failed: ...; the last: ...)" for messages about running out of steps.
  std::string failure_summary() const {
    const Stats& s = result.stats;
    if (s.nfail == 0) return "";
    std::string text = " (" + std::to_string(s.nfail) + " of " + std::to_string(s.nsteps) +
                       " step attempts failed: " + std::to_string(failures_newton) + " Newton, " +
                       std::to_string(failures_nonfinite) + " NaN/Inf, " +
                       std::to_string(failures_singular) + " singular matrix";
    if (*last_failure_detail) {
      text += std::string("; the last: ") + last_failure_detail + " at t = " + fmt(last_failure_t);
      if (last_failure_callback) text += " (" + guard.failure().describe() + ")";
    }
    return text + ")";
  }

  // A failed attempt (Newton, singular, NaN): retry smaller, or give up.
  Stop handle_failure(double t, const StepAttempt& a) {
    Stats& s = result.stats;
    ++s.nfail;
    if (a.outcome == AttemptOutcome::NonFinite) ++failures_nonfinite;
    if (a.outcome == AttemptOutcome::Singular) ++failures_singular;
    if (a.outcome == AttemptOutcome::NewtonFailed) ++failures_newton;
    last_failure_detail = a.detail;
    last_failure_t = t;
    last_failure_callback = a.outcome == AttemptOutcome::NonFinite &&
                            guard.failure().kind != CallbackFailure::Kind::None;
    if (opt.fixed_step) {
      if (++consecutive_failures <= 2) return Stop::InternalStep;  // retry: fresh Jacobian
      return fail(
          a.outcome == AttemptOutcome::NonFinite ? Status::NonFiniteFunction
                                                 : Status::RepeatedNewtonFailure,
          std::string("fixed step ") + fmt(h) + " failed at t = " + fmt(t) + ": " + a.detail);
    }
    ++consecutive_failures;
    if (a.outcome == AttemptOutcome::Singular && ++singular_failures >= opt.max_singular_failures)
      return fail(Status::SingularMatrix, "iteration matrix singular " +
                                              std::to_string(singular_failures) +
                                              " times in a row at t = " + fmt(t) + ": " + a.detail);
    if (consecutive_failures >= opt.max_consecutive_failures) {
      const Status status = a.outcome == AttemptOutcome::NonFinite  ? Status::NonFiniteFunction
                            : a.outcome == AttemptOutcome::Singular ? Status::SingularMatrix
                                                                    : Status::RepeatedNewtonFailure;
      std::string why = a.detail;
      if (a.outcome == AttemptOutcome::NonFinite &&
          guard.failure().kind != CallbackFailure::Kind::None)
        why += " (" + guard.failure().describe() + ")";
      return fail(status, std::to_string(consecutive_failures) +
                              " failed step attempts in a row at t = " + fmt(t) + ": " + why);
    }
    h *= a.h_factor;
    last_rejected = true;
    last_failure = a.detail;
    last_failure_non_finite = a.outcome == AttemptOutcome::NonFinite;
    return Stop::InternalStep;
  }

  // The attempt passed the error test: project, accept, events, output, callbacks.
  Stop try_accept(double t, const StepAttempt& a, bool last) {
    Stats& s = result.stats;
    Vector& cand = method->candidate();
    have_correction_next = false;
    if (projection != Projection::None) {
      unprojected = cand;
      if (!method->project(t + h, cand, projection)) {
        cand = unprojected;
        if (guard.fatal()) return fail(Status::CallbackError, guard.failure().describe());
        StepAttempt f = a;
        f.outcome = AttemptOutcome::NewtonFailed;
        f.h_factor = 0.5;
        f.detail = "projection onto the constraint manifold did not converge";
        trace(t, h, f, StepTrace::Outcome::NewtonFailed);
        retry_pending = true;
        return handle_failure(t, f);
      }
      work2 = cand - unprojected;
      have_correction_next = true;
    }
    if (!opt.nonnegative.empty()) {
      // Non-negativity (Options::nonnegative), with the weights of the tolerances as given:
      // below -w_i the step is retried with half the step (IDA's constraint failure); in
      // [-w_i, 0) one-step methods set the component to 0 (a projection within the
      // tolerance, spread over the step in the dense output like the other projections,
      // as MATLAB's NonNegative option does), multistep methods keep it (their history)
      const Vector& y_n = method->y();
      bool clipped = false;
      for (int i : opt.nonnegative) {
        if (cand[i] >= 0.0) continue;
        const double w = given_atol[i] + opt.rtol * std::abs(y_n[i]);
        if (cand[i] < -w) {
          if (have_correction_next) cand = unprojected;
          StepAttempt f = a;
          f.outcome = AttemptOutcome::NewtonFailed;
          f.h_factor = 0.5;
          f.detail = "a component marked non-negative went below -(atol + rtol |y|)";
          trace(t, h, f, StepTrace::Outcome::Rejected);
          retry_pending = true;
          return handle_failure(t, f);
        }
        if (caps.projection) {
          if (!have_correction_next && !clipped) unprojected = cand;
          cand[i] = 0.0;
          clipped = true;
        }
      }
      if (clipped) {
        work2 = cand - unprojected;
        have_correction_next = true;
      }
    }
    if (!method->accept()) {
      if (guard.fatal()) return fail(Status::CallbackError, guard.failure().describe());
      StepAttempt f = a;
      f.outcome = AttemptOutcome::NonFinite;
      f.detail = "f returned NaN/Inf at the end of the step";
      trace(t, h, f, StepTrace::Outcome::NonFinite);
      retry_pending = true;
      return handle_failure(t, f);
    }
    trace(t, h, a, StepTrace::Outcome::Accepted);
    guard.clear_recoverable();
    consecutive_failures = singular_failures = 0;
    last_failure = "";
    last_failure_non_finite = false;
    ++s.naccept;
    if (std::abs(h) <= 1e3 * std::max(10.0 * kEps * std::abs(t), h_min_floor)) ++tiny_steps;
    t_left = t;
    have_correction = have_correction_next;
    if (have_correction) delta = work2;
    for (size_t k = 0; k < opt.nonnegative.size(); ++k)
      nonnegative_min[k] = std::min(nonnegative_min[k], method->y()[opt.nonnegative[k]]);
    weights.update(method->y());
    result.h_last = h;
    // methods with their own step logic (the BDF) choose the next step in adjust_step()
    double h_new = caps.own_step_control
                       ? h
                       : controller->propose(h, a.err, method->error_order(), a.safety_scale, true);
    if (last_rejected) h_new = dir * std::min(std::abs(h_new), std::abs(h));
    last_rejected = false;
    const double h_taken = h;

    // state events in (t, t_new]: may cut the step at an event time
    if (events) {
      const EventCut cut = events->process(*this, t, method->t(), method->y(), dir,
                                           method->parameters(), result.events);
      if (cut.kind == EventCut::Failure)
        return fail(Status::CallbackError, guard.failure().describe());
      if (cut.kind != EventCut::None) {
        if (++event_count > opt.max_events)
          return fail(Status::MaxStepsExceeded,
                      "more than max_events = " + std::to_string(opt.max_events) +
                          " events (chattering?) at t = " + fmt(cut.t));
        return handle_event_cut(cut);
      }
    }
    const double t_new = last ? t_end : method->t();
    output.upto(t_new, *this, work, result);
    if (opt.store_steps) {
      result.t_steps.push_back(method->t());
      result.y_steps.push_back(method->y());
    }
    if (opt.store_dense) {
      result.segments.push_back(method->segment());
      if (have_correction) result.segments.back().correction = delta;
    }
    if (!record_residual(method->t(), method->y())) return Stop::Failure;
    if (opt.progress && !guard("the progress callback", method->t(),
                               [&] { opt.progress((method->t() - t0) / (t_end - t0)); }))
      return fail(Status::CallbackError, guard.failure().describe());
    if (opt.step_callback) {
      StepInfo info{method->t(), h_taken, &method->y(), s.naccept, method->order()};
      bool go_on = true;
      if (!guard("the step callback", method->t(), [&] { go_on = opt.step_callback(info); }))
        return fail(Status::CallbackError, guard.failure().describe());
      if (!go_on) {
        finish(Status::UserStop, "stopped by the step callback at t = " + fmt(method->t()));
        return Stop::End;
      }
    }
    if (last) {
      finish(Status::Success, "");
      return Stop::End;
    }
    h = opt.fixed_step ? dir * opt.h0 : method->adjust_step(h_taken, h_new);
    h = dir * std::min(std::abs(h), hmax);
    return Stop::InternalStep;
  }
  bool have_correction_next = false;

  Stop handle_event_cut(const EventCut& cut) {
    output.upto(cut.t, *this, work, result);
    if (opt.store_steps) {
      result.t_steps.push_back(cut.t);
      result.y_steps.push_back(cut.y_before);
    }
    if (!record_residual(cut.t, cut.y_before)) return Stop::Failure;
    if (cut.kind == EventCut::Stop) {
      finish(Status::TerminalEvent,
             "terminal event '" + result.events.back().name + "' at t = " + fmt(cut.t));
      result.t = cut.t;
      result.y = cut.y_before;
      return Stop::End;
    }
    std::string message;
    if (!method->restart(cut.t, cut.y_after, message)) {
      if (guard.fatal()) return fail(Status::CallbackError, guard.failure().describe());
      return fail(Status::RestartFailed, "restart after event '" + result.events.back().name +
                                             "' at t = " + fmt(cut.t) + " failed: " + message);
    }
    have_correction = false;
    weights.update(method->y());
    controller->reset();
    method->derivative(work);
    if (!events->reset(cut.t, method->y(), work, method->parameters()))
      return fail(Status::CallbackError, guard.failure().describe());
    if (opt.store_steps) {
      result.t_steps.push_back(method->t());
      result.y_steps.push_back(method->y());
    }
    if (!record_residual(method->t(), method->y())) return Stop::Failure;
    h = dir * std::min(std::abs(h), std::abs(method->initial_step(t_end)));
    h = dir * std::min(std::abs(h), hmax);
    if (dir * (t_end - method->t()) <= 0) {
      finish(Status::Success, "");
      return Stop::End;
    }
    return Stop::Event;
  }
};

// ------------------------------------------------------------------------------------------

Integrator::Integrator(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
                       const MethodChoice& method, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  const Impl::Call call(*impl_);
  dae.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("solve: y0 has size " + std::to_string(y0.size()) + ", problem '" +
                          dae.name + "' has n = " + std::to_string(dae.n));
  MethodInput in;
  in.mass_form = &dae;
  impl_->begin(dae.name, in, method, y0, t0, t_end, options);
}

Integrator::Integrator(const ImplicitDae& dae, double t0, double t_end, const Vector& y0,
                       const Vector& yp0, const MethodChoice& method, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  const Impl::Call call(*impl_);
  dae.validate();
  if (y0.size() != dae.n || yp0.size() != dae.n)
    throw InvalidArgument("solve: y0 and yp0 must have size n = " + std::to_string(dae.n) +
                          " for problem '" + dae.name + "'");
  if (!yp0.allFinite()) throw InvalidArgument("solve: yp0 contains NaN or Inf");
  MethodInput in;
  in.implicit_form = &dae;
  in.yp0 = &yp0;
  impl_->begin(dae.name, in, method, y0, t0, t_end, options);
}

Integrator::Integrator(const ImplicitIndex2Dae& dae, double t0, double t_end, const Vector& x0,
                       const MethodChoice& method, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  const Impl::Call call(*impl_);
  dae.validate();
  if (x0.size() != dae.n + dae.m)
    throw InvalidArgument("solve: x0 = (y0, z0) must have size n + m = " +
                          std::to_string(dae.n + dae.m) + " for problem '" + dae.name + "'");
  MethodInput in;
  in.index2_form = &dae;
  impl_->begin(dae.name, in, method, x0, t0, t_end, options);
}

Integrator::~Integrator() = default;
Integrator::Integrator(Integrator&&) noexcept = default;
Integrator& Integrator::operator=(Integrator&&) noexcept = default;

Integrator::Stop Integrator::step() {
  const Impl::Call call(*impl_);
  return impl_->step();
}

Integrator::Stop Integrator::solve_until(double t) {
  Impl& I = *impl_;
  const Impl::Call call(I);
  if (I.dir * (t - I.t_end) > 0 || I.dir * (t - I.method->t()) < 0)
    throw InvalidArgument("solve_until: t = " + fmt(t) + " outside [" + fmt(I.method->t()) +
                          ", t_end]");
  while (!I.finished && I.dir * (I.method->t() - t) < 0) {
    const Stop s = I.step();
    if (s == Stop::End || s == Stop::Failure) return s;
  }
  if (I.finished && !(I.result.ok()))
    return I.result.status == Status::TerminalEvent || I.result.status == Status::UserStop
               ? Stop::End
               : Stop::Failure;
  return Stop::OutputTime;
}

bool Integrator::finished() const { return impl_->finished; }
double Integrator::t() const { return impl_->method->t(); }
const Vector& Integrator::y() const { return impl_->method->y(); }

Vector Integrator::y_at(double t) const {
  const Impl& I = *impl_;
  Vector out(I.n);
  if (I.result.stats.naccept == 0 || t == I.method->t()) return I.method->y();
  I.dense(t, out);
  return out;
}

const Result& Integrator::result() const { return impl_->result; }

Result Integrator::take_result() {
  Impl& I = *impl_;
  if (!I.finished) I.finish(Status::UserStop, "the integration was stopped before t_end");
  I.result.cpu_seconds = I.cpu_seconds();
  return std::move(I.result);
}

}  // namespace daekit
