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
#include "integrator/structure.hpp"
#include "methods/factory.hpp"
#include "methods/method.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/systems.hpp"

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
///  - Balanced (error-controlled steps, a rest of at least 2 hmin: `balance`): when the rest
///    lies between one and two steps of size h, it is taken in two equal steps of rest / 2
///    (both below h) instead of h and a short rest - h. Two steps either way; a short last step
///    costs accuracy where the error of a component is that of the step before divided by h
///    (an index-3 component, y3 of Bendtsen and Thomsen (1999), example (4.1):
///    3 delta_n / h_n; docs/results/tolerance-meaning.md, "Seventh session").
///  - Within round-off of t_end (after an event located there, or an inner step cut after a
///    failure): one step to t_end, unless it is below h_min or a step from t failed already;
///    then t_end is reached within round-off (IDA returns at tstop then) and no step is tried.
StepEnd step_end(double t, double t_end, double dir, double drift, double h_min, bool after_failure,
                 bool balance, double& h) {
  const double rest = dir * (t_end - t);
  const double resolution = 100.0 * kEps * std::max(std::abs(t), std::abs(t_end));
  if (rest <= resolution) {
    if (after_failure || rest <= h_min) return StepEnd::Reached;
    h = t_end - t;
    return StepEnd::Last;
  }
  const double shortfall = rest - dir * h;
  if (shortfall > std::max({1e-4 * std::abs(h), after_failure ? 0.0 : resolution, drift})) {
    if (balance && rest < 2.0 * std::abs(h)) h = 0.5 * (t_end - t);
    return StepEnd::Inner;
  }
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
  // forward sensitivities (Options::sensitivities)
  SensitivityRequest sens_request;
  int np = 0;  // their number of parameters (0: none)
  Matrix s_work;
  // S at an event, around it and dS/dt there (EventRecord::dt_dp), sized with the request
  Matrix s_event, s_event_a, s_event_b, s_event_dot;
  Vector p_before_events;      // p before an event's action (it must not change with sensitivities)
  double s_event_width = 0.0;  // the step that held the event (the scale of t in the jump)
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
  double t_left = 0;                     // start of the last accepted step
  std::vector<double> nonnegative_min;   // smallest accepted value per component
  Vector given_atol;                     // atol per component, as given
  Vector y_start;                        // y0
  Vector y_abs_max;                      // max |y_i| over the accepted steps
  std::vector<int> velocity_components;  // tagged index 2 (warn_about_drift's scale of G v)
  double last_bad_t = 0.0;               // start of the last rejected or failed attempt
  long tiny_steps = 0;  // accepted steps near the resolution of t (suspicious progress)
  // What the user sees (integrator.hpp, the contract): the interval on which dense() is the
  // solution, the point the last call reached, and the stop time of solve_until(t, true).
  double dense_lo = 0, dense_hi = 0;  // dense() valid on [dense_lo, dense_hi]
  double t_user = 0;                  // the point the last call reached (solve_until: its t)
  bool between = false;  // t_user lies inside the last step (solve_until without stop_exactly)
  bool tstop_active = false, tstop_reached = false;
  bool refresh_pending = false;  // an exact stop: the model may change before the next step
  double tstop = 0;
  double t_final = 0;  // t() and y() of a finished solve (the root of a terminal event)
  // Options::tstops inside (t0, t_end), in the direction of integration: the next one not
  // reached is discontinuities[next_discontinuity]; a step that ended on one leaves the restart
  // there pending until the next step (the step's dense output stays queryable until then).
  std::vector<double> discontinuities;
  size_t next_discontinuity = 0;
  bool restart_pending = false;
  double discontinuity = 0;  // the one reached (restart_pending)
  // Options::switches as events (after the user's events, from index user_events on) and
  // their chattering watch (Switch): the switch that restarted last, the accepted steps at
  // that restart, how many of its restarts in a row flipped back in the first step, since when.
  size_t user_events = 0;
  int last_switch = -1;
  long naccept_at_switch = 0;
  int chatter_run = 0;
  double chatter_since = 0;
  Vector y_final;
  bool taken = false;  // take_result() was called
  // A QuasiLinearDae solved in its y' = w form: the first `shown` components are y (0: all).
  int shown = 0;

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
  /// Method "auto" (auto_method, the rule of the CLI and Python) resolved for n unknowns with
  /// the index tags `index` at options.rtol: the chosen method, its rule in
  /// result.method_choice; any other choice as given.
  MethodChoice resolve_auto(const MethodChoice& choice, int n_unknowns,
                            const std::vector<int>& index, const Options& options,
                            bool implicit_form) {
    if (choice.name() != "auto") return choice;
    const AutoMethod chosen =
        auto_method(n_unknowns, max_index_tag(index), options.rtol, implicit_form);
    result.method_choice = chosen.rule;
    return MethodChoice(chosen.method);
  }

  void begin(const std::string& problem_name, MethodInput in, const MethodChoice& given,
             const Vector& y0, double t_start, double t_stop, const Options& options) {
    if (in.index2_form && given.name() == "auto")
      throw InvalidArgument(
          "method 'auto' chooses among the methods for M y' = f and "
          "F(t, y, y') = 0; for an ImplicitIndex2Dae choose spark or hem");
    const MethodChoice choice =
        in.mass_form ? resolve_auto(given, in.mass_form->n, in.mass_form->index, options, false)
        : in.implicit_form
            ? resolve_auto(given, in.implicit_form->n, in.implicit_form->index, options, true)
            : given;
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
    if (!caps.linear_solvers.contains(input.linear_solver))
      throw InvalidArgument("method '" + reg.info.name + "' cannot use linear solver '" +
                            to_string(input.linear_solver) +
                            "' (Options::linear_solver); it accepts " +
                            caps.linear_solvers.describe());
    n = static_cast<int>(y0.size());
    opt.validate(n);
    velocity_components = components_tagged(input, 2);
    if (!std::isfinite(t0) || !std::isfinite(t_end))
      throw InvalidArgument("solve: t0 and t_end must be finite");
    if (t_end == t0)
      throw InvalidArgument("solve: t_end equals t0 (" + fmt(t0) + "): empty interval");
    check_resolution();
    if (!y0.allFinite()) throw InvalidArgument("solve: y0 contains NaN or Inf");
    if (!caps.error_estimate && !opt.fixed_step)
      throw InvalidArgument("solve: method " + reg.info.name +
                            " has no error estimate; set Options::fixed_step and h0");
    dir = t_end > t0 ? 1.0 : -1.0;
    output.setup(opt.output_times, t0, t_end);

    // the structure of the Jacobian: declared, or detected at t0 (the methods get a copy of
    // the problem that declares it)
    const StructureChoice structure = choose_structure(input, y0, opt, caps, guard, result.stats);
    MethodInput in = input;
    if (structure.mass) in.mass_form = &*structure.mass;
    if (structure.implicit) in.implicit_form = &*structure.implicit;
    in.linear_solver = structure.linear_solver;
    in.structure_detected = structure.detected;
    result.jacobian_structure = structure.description;
    if (opt.sensitivities) in.sensitivities = sensitivity_request(reg.info, in, y0);
    method = reg.make(in);
    controller = std::make_unique<StepController>(opt, caps, method->step_limits());
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
    take_caveats(method->caveats(given));
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
    take_caveats(method->error_test_caveats(in_test));
    result.linear_solver = method->linear_solver();
    result.projection = projection;
    result.fixed_step = opt.fixed_step;
    result.controller = opt.controller;
    result.jacobian_colours = method->jacobian_colours();
    result.method_options = method->used_options();
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
    } else if (opt.max_increase > controller->max_increase() &&
               opt.max_increase != Options().max_increase) {
      const StepLimits limits = method->step_limits();
      result.warnings.push_back("method " + reg.info.name + " allows step increases up to " +
                                fmt(controller->max_increase()) + " (" +
                                limits.max_increase_reason +
                                "): max_increase = " + fmt(opt.max_increase) + " not used");
    }

    set_discontinuities();
    user_events = opt.events.size();
    for (const Switch& sw : opt.switches) opt.events.push_back(switch_event(sw));
    if (!opt.switches.empty()) {
      const Vector& p = method->parameters();
      for (size_t k = 0; k < opt.switches.size(); ++k)
        if (opt.switches[k].parameter >= p.size())
          throw InvalidArgument("Options::switches[" + std::to_string(k) + "] ('" +
                                opt.switches[k].name + "') keeps its branch in p[" +
                                std::to_string(opt.switches[k].parameter) + "], but problem '" +
                                problem_name + "' has " + std::to_string(p.size()) +
                                " parameters (give the problem a p with an entry per switch)");
    }
    const double span = std::abs(t_end - t0);
    hmax = opt.hmax > 0 ? std::min(opt.hmax, span) : span;
    hmax = std::min(hmax, event_step_bound(opt.events));
    h_min_floor = kEps * kEps * span;
    result.t = t0;
    result.y = y0;
    start(y0);
  }

  // Options::tstops: finite (validate()), inside [t0, t_end], strictly monotone in the
  // direction of integration; those at t0 or t_end are dropped.
  void set_discontinuities() {
    for (size_t i = 0; i < opt.tstops.size(); ++i) {
      const double d = opt.tstops[i];
      if (dir * (d - t0) < 0 || dir * (d - t_end) > 0)
        throw InvalidArgument("Options::tstops[" + std::to_string(i) + "] = " + fmt(d) +
                              " lies outside the interval [" + fmt(std::min(t0, t_end)) + ", " +
                              fmt(std::max(t0, t_end)) + "]");
      if (i > 0 && !(dir * (d - opt.tstops[i - 1]) > 0))
        throw InvalidArgument("Options::tstops must be strictly " +
                              std::string(dir > 0 ? "increasing" : "decreasing (t_end < t0)") +
                              ": tstops[" + std::to_string(i - 1) +
                              "] = " + fmt(opt.tstops[i - 1]) + ", tstops[" + std::to_string(i) +
                              "] = " + fmt(d));
      if (d != t0 && d != t_end) discontinuities.push_back(d);
    }
  }

  // The end of the smooth piece ahead: the next tstop, or t_end. The starting-step rules
  // measure the span and probe f within it (not across a corner: on a pulse train the probe at
  // t_end instead of the next corner made radau5's first step 1.5 times too large, rejected).
  double smooth_end() const {
    return next_discontinuity < discontinuities.size() ? discontinuities[next_discontinuity]
                                                       : t_end;
  }

  // A switching function that is exactly 0 at the start or a restart lies on the side of its
  // branch (a restart at a root the locator found exactly); so does, whatever the sign of s
  // there, every switch when the restart state came from the step's equations
  // (retake_to_event): a switch whose root lies within round-off of the one located (the
  // charge pump's threshold and drain threshold at a turn-off, 4e-21 s apart) and is already
  // crossed there is then seen crossing in the next step and switched, instead of staying on
  // its old branch with s of the other sign (the device stayed on, source and drain swapped,
  // and the solution left the reference).
  void orient_switches() {
    const Vector& p = method->parameters();
    for (size_t k = 0; k < opt.switches.size(); ++k)
      events->orient(user_events + k, p[opt.switches[k].parameter],
                     retaken_state || static_cast<long>(user_events + k) == retaken_switch);
    retaken_switch = -1;
    retaken_state = false;
  }
  long retaken_switch = -1;    // retake_to_event(): the switch to orient at the restart
  bool retaken_state = false;  // retake_to_event(): the restart state is the step's

  // A switch as an event of the locator: its root is s, its action flips the branch in p to the
  // sign s has at the located time (on the far side of the root) and restarts the method.
  static Event switch_event(const Switch& sw) {
    Event e;
    e.name = sw.name;
    e.max_step = sw.max_step;
    e.r = [s = sw.s](double t, VecIn y, VecIn, VecIn p) { return s(t, y, p); };
    e.action = [s = sw.s, k = sw.parameter](double t, Vector& y, Vector& p) {
      const double value = s(t, y, p);
      p[k] = value > 0.0 ? 1.0 : value < 0.0 ? -1.0 : -p[k];
      return EventAction::Restart;
    };
    return e;
  }

  // The branches at the start: p[parameter] = +1 where s(t0, y0) >= 0, else -1. False (the
  // solve finished) if a switching function failed.
  bool set_initial_branches(const Vector& y0) {
    Vector& p = method->parameters();
    for (const Switch& sw : opt.switches) {
      double value = 0.0;
      if (!guard(sw.name.c_str(), t0, [&] { value = sw.s(t0, y0, p); }) || !std::isfinite(value)) {
        if (!guard.fatal())
          guard.wrong_size(sw.name.c_str(), t0,
                           std::isfinite(value) ? "the switching function failed at t0"
                                                : "the switching function returned NaN or Inf");
        finish_callback_error();
        return false;
      }
      p[sw.parameter] = value >= 0.0 ? 1.0 : -1.0;
    }
    return true;
  }

  // dt/dp of the events recorded from index `first` on in the step from t_old (EventRecord::
  // dt_dp), from S and dS/dt on the step's continuous output; S at the event that cuts the
  // step is kept in s_event (the jump of a restart starts from it, a terminal event returns
  // it). An action that changed the parameters ends the solve: dy/dp across it is not
  // implemented.
  bool event_time_sensitivities(size_t first, double t_old, const EventCut& cut) {
    const double t_new = method->t();
    const double width = std::abs(t_new - t_old);
    Matrix &S = s_event, &S_a = s_event_a, &S_b = s_event_b, &S_dot = s_event_dot;
    for (size_t k = first; k < result.events.size(); ++k) {
      EventRecord& rec = result.events[k];
      const double lo = std::min(t_old, t_new), hi = std::max(t_old, t_new);
      const double d = std::cbrt(std::numeric_limits<double>::epsilon()) * width;
      const double ta = std::max(lo, rec.t - d), tb = std::min(hi, rec.t + d);
      method->dense_sensitivities(rec.t, S);
      method->dense_sensitivities(ta, S_a);
      method->dense_sensitivities(tb, S_b);
      if (tb > ta)
        S_dot = (S_b - S_a) / (tb - ta);
      else
        S_dot.setZero();
      if (!events->time_sensitivity(*this, t_old, t_new, S, S_dot, method->parameters(), rec)) {
        fail(Status::CallbackError, guard.failure().describe());
        return false;
      }
    }
    if (method->parameters() != p_before_events) {
      fail(Status::CallbackError,
           "Options::sensitivities: the action of an event changed the parameters p at t = " +
               fmt(cut.kind != EventCut::None ? cut.t : t_new) +
               ": dy/dp across such an action is not implemented (actions that change the "
               "state are: keep the mode in y, or stop there and start a new solve)");
      return false;
    }
    s_event_width = width;
    return true;
  }

  // After the restart at an event whose action changed the state (handle_event_cut): S jumps
  // to dy/dp just after the action (EventLocator::action_sensitivity), from S at the event
  // (s_event), y' on both sides of it and the event time's dt/dp; the method makes its
  // algebraic part consistent. False (the solve ended) if that failed.
  bool jump_sensitivities(const EventCut& cut) {
    const EventRecord& rec = result.events.back();
    if (!rec.dt_dp.allFinite())
      return fail_restart(
          cut,
          "the derivative of the event time by p is undefined there (r tangential to the "
          "solution, or the step too short to difference in), so is dy/dp after the action");
    method->derivative(work);  // y' after the restart
    Matrix& S_plus = s_event_a;
    if (!events->action_sensitivity(rec, s_event_width, cut.y_before, cut.yp, work, s_event,
                                    method->parameters(), S_plus)) {
      fail(Status::CallbackError, guard.failure().describe());
      end_at(cut);
      return false;
    }
    std::string message;
    if (!method->jump_sensitivities(S_plus, message)) {
      if (guard.fatal()) {
        fail(Status::CallbackError, guard.failure().describe());
        end_at(cut);
        return false;
      }
      return fail_restart(cut, message);
    }
    return true;
  }
  bool fail_restart(const EventCut& cut, const std::string& message) {
    fail(Status::RestartFailed, "restart after event '" + result.events.back().name +
                                    "' at t = " + fmt(cut.t) + " failed: " + message +
                                    " (the state returned is the one before the event)");
    end_at(cut);
    return false;
  }

  // The request of Options::sensitivities, refused (InvalidArgument) where it cannot be met.
  const SensitivityRequest* sensitivity_request(const MethodInfo& info, const MethodInput& input,
                                                const Vector& y0) {
    const std::string refused = "Options::sensitivities: ";
    if (!info.capabilities.sensitivities) {
      std::string able;
      for (const MethodInfo& m : registered_methods())
        if (m.capabilities.sensitivities) able += (able.empty() ? "" : ", ") + m.name;
      throw InvalidArgument(refused + "method '" + info.name +
                            "' does not compute sensitivities; methods that do: " + able);
    }
    np = input.mass_form       ? static_cast<int>(input.mass_form->p.size())
         : input.implicit_form ? static_cast<int>(input.implicit_form->p.size())
                               : 0;
    if (np == 0)
      throw InvalidArgument(refused + "the problem has no parameters p to differentiate by");
    if (opt.projection != Projection::None)
      throw InvalidArgument(refused + "not available with a projection (Options::projection)");
    if (!opt.switches.empty())
      throw InvalidArgument(refused +
                            "not available with switching functions (sensitivities of switching "
                            "times are not implemented)");
    if (!opt.tstops.empty())
      throw InvalidArgument(refused +
                            "not available with tstops (the methods' restarts start S afresh)");
    const Matrix& S0 = opt.initial_sensitivities;
    if (S0.size() != 0 && (S0.rows() != y0.size() || S0.cols() != np))
      throw InvalidArgument(refused + "initial_sensitivities must be n x np = " +
                            std::to_string(y0.size()) + " x " + std::to_string(np) + ", got " +
                            std::to_string(S0.rows()) + " x " + std::to_string(S0.cols()));
    if (S0.size() != 0 && !S0.allFinite())
      throw InvalidArgument(refused + "initial_sensitivities contains NaN or Inf");
    sens_request.error_control = opt.sensitivity_error_control;
    sens_request.initial = S0.size() != 0 ? &opt.initial_sensitivities : nullptr;
    s_work.setZero(y0.size(), np);
    if (!opt.events.empty()) {
      for (Matrix* m : {&s_event, &s_event_a, &s_event_b, &s_event_dot}) m->setZero(y0.size(), np);
      p_before_events.setZero(np);
    }
    result.n_parameters = np;
    return &sens_request;
  }

  // S at the output times sampled since the last call: from the interpolant, or (`current`) the
  // method's S at its point.
  // (the test inline, the sampling out of line: it runs after every accepted step)
  void sample_sensitivities(bool current) {
    if (np != 0) [[unlikely]]
      sample_sensitivities_now(current);
  }
  [[gnu::noinline]] void sample_sensitivities_now(bool current) {
    while (result.s_out.size() < static_cast<long>(result.t_out.size())) {
      const double t = result.t_out[static_cast<size_t>(result.s_out.size())];
      if (current)
        s_work = *method->sensitivities();
      else
        method->dense_sensitivities(t, s_work);
      result.s_out.push_back(Eigen::Map<const Vector>(s_work.data(), s_work.size()));
    }
  }
  void store_step_sensitivities() {
    if (np == 0) return;
    const Matrix& S = *method->sensitivities();
    result.s_steps.push_back(Eigen::Map<const Vector>(S.data(), S.size()));
  }

  // A method's facts of design go to the notes (full_report()), what to act on to the warnings.
  void take_caveats(Caveats c) {
    for (std::string& s : c.notes) result.notes.push_back(std::move(s));
    for (std::string& s : c.warnings) result.warnings.push_back(std::move(s));
  }

  // Components with index tag `tag` (mass-matrix and implicit forms).
  static std::vector<int> components_tagged(const MethodInput& input, int tag) {
    const std::vector<int>* tags = input.mass_form       ? &input.mass_form->index
                                   : input.implicit_form ? &input.implicit_form->index
                                                         : nullptr;
    std::vector<int> out;
    if (tags)
      for (size_t i = 0; i < tags->size(); ++i)
        if ((*tags)[i] == tag) out.push_back(static_cast<int>(i));
    return out;
  }

  // The interval and h0 must be resolvable: steps are at least 10 eps |t| (h_min in
  // step_guarded), and step sizes and their reciprocals enter the iteration matrices.
  void check_resolution() const {
    const double span = std::abs(t_end - t0);
    const double t_abs = std::max(std::abs(t0), std::abs(t_end));
    if (span < 100.0 * kEps * t_abs)
      throw InvalidArgument("solve: the interval [" + fmt(t0) + ", " + fmt(t_end) +
                            "] is shorter than t can resolve there (100 eps |t| = " +
                            fmt(100.0 * kEps * t_abs) + "); shift or rescale time");
    constexpr double kMinSpan = 1.4916681462400413e-154;  // sqrt of the smallest normal double
    if (span < kMinSpan)
      throw InvalidArgument("solve: the interval length " + fmt(span) +
                            " is below 1.5e-154, where steps and their reciprocals are no longer "
                            "representable; rescale time");
    if (opt.h0 > 0 && opt.h0 < std::max(10.0 * kEps * std::abs(t0), kEps * kEps * span))
      throw InvalidArgument("solve: h0 = " + fmt(opt.h0) + " is below what t can resolve at t0 (" +
                            fmt(std::max(10.0 * kEps * std::abs(t0), kEps * kEps * span)) + ")");
  }

  void start(const Vector& y0) {
    if (!opt.switches.empty() && !set_initial_branches(y0)) return;
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
    y_start = y0;
    y_abs_max = y0.cwiseAbs();
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
    // what the method chose at its start from the tolerances (radau's stages below
    // kRadauDaeRtolFloor on a DAE)
    result.method_options = method->used_options();
    if (np > 0)
      if (std::string w = method->sensitivity_warning(); !w.empty())
        result.warnings.push_back(std::move(w));
    h = controller->first_step(*method, weights, smooth_end(), dir, hmax);
    if (guard.fatal()) return finish_callback_error();
    guard.clear_recoverable();  // a failed probe of the starting-step estimate
    result.step_control = controller->describe();
    dense_lo = dense_hi = t_user = t0;
    output.at_start(y0, result);
    sample_sensitivities(true);
    if (opt.store_steps) {
      result.t_steps.push_back(t0);
      result.y_steps.push_back(y0);
      store_step_sensitivities();
    }
    result.has_constraints = method->has_monitor();
    if (!record_residual(t0, y0)) return;  // (uses has_constraints)
    if (!opt.events.empty()) {
      events = std::make_unique<EventLocator>(opt.events, n, guard, result.stats);
      method->derivative(work);
      if (!events->initialize(t0, y0, work, method->parameters())) return finish_callback_error();
      orient_switches();
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
    if (method && started) {
      warn_about_loose_atol();
      warn_about_growth_with_loose_atol();
      warn_about_chattering();
    }
    result.status = status;
    result.message = std::move(message);
    if (method && started) {
      result.t = method->t();
      result.y = method->y();
      result.yp.resize(n);
      method->derivative(result.yp);
      result.order = method->order();
      if (np > 0) {
        result.sensitivities = *method->sensitivities();
        result.sensitivity_iterations = method->sensitivity_iterations();
      }
    }
    t_final = result.t;
    y_final = result.y;
    tstop_active = tstop_reached = between = false;
    result.h_next = h;
    result.cpu_seconds = cpu_seconds();
    finished = true;
    if (shown > 0) keep_components(shown);
  }

  // The Result of a reformulated problem: only its first m components (QuasiLinearDae: y).
  void keep_components(int m) {
    const auto head = [m](StateSequence& seq) {
      StateSequence kept;
      kept.reserve(m, seq.size());
      for (long i = 0; i < seq.size(); ++i) kept.push_back(seq[i].head(m));
      seq = std::move(kept);
    };
    result.y = Vector(result.y.head(m));
    result.yp = Vector(result.yp.head(m));
    head(result.y_steps);
    head(result.y_out);
    if (np > 0) keep_sensitivity_rows(m);
    for (EventRecord& e : result.events) e.y = Vector(e.y.head(m));
    for (DenseSegment& seg : result.segments) {
      seg.coeffs = Matrix(seg.coeffs.topRows(m));
      if (seg.correction.size()) seg.correction = Vector(seg.correction.head(m));
    }
    y_final = result.y;
  }
  // The same for the sensitivities: the first m rows of S (n x np, flattened by columns).
  void keep_sensitivity_rows(int m) {
    const long rows = result.sensitivities.rows();
    const auto top = [&](StateSequence& seq) {
      StateSequence kept;
      kept.reserve(m * np, seq.size());
      Matrix S_top(m, np);
      for (long i = 0; i < seq.size(); ++i) {
        S_top = Eigen::Map<const Matrix>(seq[i].data(), rows, np).topRows(m);
        kept.push_back(Eigen::Map<const Vector>(S_top.data(), S_top.size()));
      }
      seq = std::move(kept);
    };
    top(result.s_out);
    top(result.s_steps);
    result.sensitivities = Matrix(result.sensitivities.topRows(m));
  }
  // A solution that left its constraint manifold (an index-1 or index-0 formulation without
  // projection, notes ch. 3 and 8) can be far off while every step passed its error test. The
  // residuals are compared with 100 times what the tolerance allows: atol + rtol for g(q) and
  // atol + rtol V for G(q) v, V the largest velocity (a component tagged index 2; 1 if none or
  // smaller): Andrews' squeezer at rtol = 1e-7 has |v| up to 1.4e3 and |G v| = 1.5e-4, the
  // tolerance relative to v, not a drift.
  void warn_about_drift() {
    if (!result.has_constraints) return;
    double v_scale = 1.0;
    for (int i : velocity_components)
      if (i < y_abs_max.size()) v_scale = std::max(v_scale, y_abs_max[i]);
    const ConstraintResiduals& r = result.max_residual;
    const double limit_q = 100.0 * (opt.atol + opt.rtol);
    const double limit_v = 100.0 * (opt.atol + opt.rtol * v_scale);
    if (r.position <= limit_q && r.velocity <= limit_v) return;
    result.warnings.push_back(
        "the constraint residuals grew to " + fmt(r.position) + " (position) and " +
        fmt(r.velocity) + " (velocity), more than 100 times the tolerance (" + fmt(limit_q) + ", " +
        fmt(limit_v) + "): the solution drifted off its constraints; " + drift_remedy());
  }
  // The one option that removes a drift.
  std::string drift_remedy() const {
    if (projection != Projection::None)
      return "the projection did not keep them: tighten the tolerances";
    if (caps.projection && method->has_projector())
      return "Options::projection = Projection::Velocity (daekit solve --projection velocity) "
             "projects onto g(q) = 0, G(q) v = 0 after every step and removes it";
    return "a method with projection (radau5, radau) and Options::projection = "
           "Projection::Velocity, or a formulation that keeps the constraints (index 2 or GGL), "
           "removes it";
  }
  // atol above every component of the solution at both ends: the error test accepted errors
  // as large as the solution itself (`--atol 1e99` "succeeded" with y ~ 1e80).
  void warn_about_loose_atol() {
    const Vector& y_end = method->y();
    double y_max = 0.0;
    for (int i = 0; i < n; ++i) {
      const double size = std::max(std::abs(y_end[i]), std::abs(y_start[i]));
      if (!(given_atol[i] > size)) return;
      y_max = std::max(y_max, size);
    }
    if (y_max == 0.0) return;  // a zero solution: nothing to compare with
    result.warnings.push_back(
        "atol (" + fmt(given_atol.maxCoeff()) +
        ") exceeds every component of the solution at t0 and at the end (max |y| = " + fmt(y_max) +
        "): the error test accepted errors as large as the solution; set atol well below the size "
        "of the solution");
  }
  // The solution grew by orders of magnitude while some component's atol was not small
  // against that component's largest value: its error was not controlled and can drive the
  // others (a user's Robertson at atol = 1e-5 against y2 <= 3.6e-5: y2 went negative, y1 and y3
  // to -4.6e7 and +4.6e7, every step passing its error test).
  void warn_about_growth_with_loose_atol() {
    constexpr double kGrowth = 1e3, kLoose = 0.01;  // (with the tolerances the method used)
    double start = 0.0, end = 0.0;
    for (int i = 0; i < n; ++i) {
      start = std::max({start, std::abs(y_start[i]), weights.atol()[i]});
      end = std::max(end, std::abs(method->y()[i]));
    }
    if (!(end > kGrowth * start)) return;
    std::string loose;
    int count = 0;
    for (int i = 0; i < n; ++i)
      if (y_abs_max[i] > 0.0 && weights.atol()[i] > kLoose * y_abs_max[i]) {
        if (++count <= 5)
          loose += (loose.empty() ? "" : ", ") + std::to_string(i) + " (max |y| " +
                   fmt(y_abs_max[i]) + ", atol " + fmt(weights.atol()[i]) + ")";
      }
    if (count == 0) return;
    if (count > 5) loose += ", ...";
    result.warnings.push_back(
        "the solution grew from max |y| = " + fmt(start) + " to " + fmt(end) +
        " while the error of component(s) " + loose +
        " was hardly controlled (atol above 1/100 of their largest value): their errors can "
        "drive such growth (kinetics go unstable once a concentration turns negative); set their "
        "atol well below their size (Options::atol_vector) or mark them non-negative");
  }
  // Step sizes that chatter: rejected and failed attempts nearly as many as accepted steps.
  // Measured (docs/integrator.md): on 360 relays y' = -a if y > c else b without an event,
  // every success more than 0.1 off has 0.72-1.8 per accepted step (the methods stepped across
  // the switch with Newton iterations and error estimates that assume a smooth f); none of the
  // 3075 successful runs of the 25-tolerance sweep reaches 0.7 (with RADAU5's meaning of rtol,
  // 8 did: radau5 and radau on Robertson and Andrews at rtol >= 3e-5, 2.5-80x the tolerance off).
  void warn_about_chattering() {
    const Stats& s = result.stats;
    const long bad = s.nreject + s.nfail;
    if (bad < 20 || bad < 0.7 * static_cast<double>(s.naccept)) return;
    result.warnings.push_back(
        std::to_string(bad) + " step attempts were rejected or failed against " +
        std::to_string(s.naccept) + " accepted (the last at t = " + fmt(last_bad_t) +
        "): the step size chattered, and the answer may be less accurate than the tolerances "
        "ask. Typical causes: a right-hand side that is discontinuous where the solution keeps "
        "crossing (a relay, if/else, min/max, |x|: give the switch function as an event whose "
        "action changes the model's mode), or tolerances too loose for the problem's stiffness "
        "or index (tighten them)");
  }
  void finish_callback_error() { finish(Status::CallbackError, guard.failure().describe()); }

  // (the test inline, the monitor out of line: it runs after every accepted step)
  bool record_residual(double t, const Vector& y) {
    if (!result.has_constraints) return true;
    return record_residual_now(t, y);
  }
  [[gnu::noinline]] bool record_residual_now(double t, const Vector& y) {
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

  // (the test inline, the record out of line: it runs after every attempt)
  void trace(double t, double h_try, const StepAttempt& a, StepTrace::Outcome outcome) {
    if (opt.trace) [[unlikely]]
      trace_now(t, h_try, a, outcome);
  }
  [[gnu::noinline]] void trace_now(double t, double h_try, const StepAttempt& a,
                                   StepTrace::Outcome outcome) {
    if (guard.fatal()) return;
    StepTrace s;
    s.t = t;
    s.h = h_try;
    s.outcome = outcome;
    s.order = method->order();
    s.newton_iterations = a.newton_iterations;
    s.newton_rate = a.newton_rate;
    s.error = a.outcome == AttemptOutcome::Converged ? a.err : 0.0;
    s.detail = a.detail;
    s.chosen_by = controller->choice();
    guard("the trace callback", t, [&] { opt.trace(s); });
  }

  // ---------------------------------------------------------------------------------------
  // One accepted step (or the end of the solve).
  Stop step() {
    if (finished) return ended();
    tstop_reached = between = false;
    if (restart_pending) {
      if (!restart_at_discontinuity()) return Stop::Failure;
    } else if (refresh_pending && !refresh_method()) {
      return Stop::Failure;
    }
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
    sample_sensitivities(true);
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
      // last step: lands on t_end, or on the stop time of solve_until(t, true), and never leaves
      // a remainder t cannot resolve (with fixed steps, t carries the rounding of all the
      // additions so far: up to n eps |t|)
      double target = tstop_active ? tstop : t_end;
      bool to_discontinuity = false;
      if (next_discontinuity < discontinuities.size()) [[unlikely]]
        to_discontinuity = nearer_discontinuity(target);
      const double drift =
          opt.fixed_step ? 4.0 * kEps * (s.naccept + 1) * std::max(std::abs(t), std::abs(target))
                         : 0.0;
      const double h_chosen = h;
      if (std::abs(h) < opt.hmin) [[unlikely]] {             // Options::hmin (scipy's min_step)
        if (last_rejected && dir * (target - t) > opt.hmin)  // a retry below it, not the last
          return fail(Status::StepSizeTooSmall, "step size " + fmt(h) + " at t = " + fmt(t) +
                                                    " is below hmin (min_step) = " + fmt(opt.hmin) +
                                                    " after a failed step");
        if (!last_rejected) h = dir * opt.hmin;  // a first step, a proposal after an accepted one
      }
      // the smallest step t can resolve (also try_accept's scale of tiny steps)
      const double h_min = std::max(10.0 * kEps * std::abs(t), h_min_floor);
      // (a short last step is balanced by the error-per-step rule, not into steps below hmin;
      // DASSL's rule, the BDF's, cuts it as DASSL and IDA do: its restart after a tstop starts
      // from a fraction of that step)
      const bool balance = !opt.fixed_step && caps.step_rule == StepRule::ErrorPerStep &&
                           dir * (target - t) >= 2.0 * opt.hmin;
      const StepEnd end = step_end(t, target, dir, drift, h_min, last_rejected, balance, h);
      if (h != h_chosen) controller->bounded();
      if (end == StepEnd::Reached) [[unlikely]] {
        if (to_discontinuity) {  // on it within round-off: restart there
          if (!reached_discontinuity(target)) return Stop::Failure;
          if (tstop_active && target == tstop) {
            tstop_reached = true;
            return Stop::OutputTime;
          }
          continue;
        }
        if (!tstop_active) return end_within_roundoff();
        tstop_reached = refresh_pending = true;  // at the stop time within round-off
        return Stop::OutputTime;
      }
      const bool last = end == StepEnd::Last;
      if (s.nsteps >= opt.max_steps)
        return fail(Status::MaxStepsExceeded,
                    "reached max_steps = " + std::to_string(opt.max_steps) + " at t = " + fmt(t) +
                        failure_summary());
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
        const Stop stop = try_accept(t, a, last, to_discontinuity, h_min);
        if (stop != Stop::InternalStep) return stop;
        if (retry_pending) {
          retry_pending = false;
          continue;
        }
        if (!goes_on_to_run_to()) return stop;
        continue;
      }
      if (a.outcome == AttemptOutcome::Converged) {  // error test failed
        trace(t, h, a, StepTrace::Outcome::Rejected);
        consecutive_failures = singular_failures = 0;
        last_failure = "";
        last_failure_non_finite = false;
        ++s.nreject;
        last_bad_t = t;
        h = controller->after_rejection(*method, h, a, s.naccept == 0);
        last_rejected = true;
        continue;
      }
      trace(t, h, a, trace_outcome(a.outcome));
      const Stop stop = handle_failure(t, a);
      if (finished) return stop;
    }
  }

  // solve_until's loop of step() calls, kept inside step_guarded (no return and re-entry per
  // step): after an internal step it goes on while solve_until would call step() again with
  // nothing for step() to do before step_guarded (no restart or refresh pending).
  bool run_through = false;  // inside solve_until, towards run_to
  double run_to = 0.0;
  // (after try_accept's Stop::InternalStep, dense_hi is the accepted t = method->t() unless a
  // stop time or discontinuity was reached, when tstop_reached or restart_pending is set: no
  // virtual call for it)
  bool goes_on_to_run_to() const {
    return run_through && !finished && !tstop_reached && !restart_pending && !refresh_pending &&
           dir * (dense_hi - run_to) < 0;
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
    last_bad_t = t;
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
    h = controller->after_failure(h, a);
    last_rejected = true;
    last_failure = a.detail;
    last_failure_non_finite = a.outcome == AttemptOutcome::NonFinite;
    return Stop::InternalStep;
  }

  // The attempt passed the error test: project, accept, events, output, callbacks.
  // h_min: the smallest step t can resolve (step_guarded's).
  Stop try_accept(double t, const StepAttempt& a, bool last, bool to_discontinuity, double h_min) {
    Stats& s = result.stats;
    const size_t events_before = result.events.size(), outputs_before = result.t_out.size();
    // this step ends on solve_until's stop time, on a discontinuity (Options::tstops), or both
    bool at_tstop = last && tstop_active, at_discontinuity = false;
    if (last && to_discontinuity) [[unlikely]] {
      at_discontinuity = true;
      at_tstop = at_tstop && discontinuities[next_discontinuity] == tstop;
    }
    if (at_tstop || at_discontinuity) last = false;  // (the solve goes on)
    have_correction_next = false;
    if (projection != Projection::None || !opt.nonnegative.empty()) [[unlikely]] {
      Stop stop = Stop::InternalStep;
      if (!correct_candidate(t, a, stop)) return stop;
    }
    if (!method->accept()) [[unlikely]]
      return accept_failed(t, a);
    trace(t, h, a, StepTrace::Outcome::Accepted);
    // the accepted point (the method's own members: no virtual call per use below)
    const double t_acc = method->t();
    const Vector& y_acc = method->y();
    guard.clear_recoverable();
    consecutive_failures = singular_failures = 0;
    last_failure = "";
    last_failure_non_finite = false;
    ++s.naccept;
    if (std::abs(h) <= 1e3 * h_min) ++tiny_steps;
    t_left = t;
    dense_lo = t;
    dense_hi = t_acc;
    have_correction = have_correction_next;
    if (have_correction) delta = work2;
    for (size_t k = 0; k < opt.nonnegative.size(); ++k)
      nonnegative_min[k] = std::min(nonnegative_min[k], y_acc[opt.nonnegative[k]]);
    weights.update(y_acc, y_abs_max);  // and max |y_i| so far (warn_about_growth_with_loose_atol)
    result.h_last = h;
    controller->accepted(*method, h, a);  // the method's order logic and the proposal
    last_rejected = false;
    const double h_taken = h;

    // state events in (t, t_new]: may cut the step at an event time
    if (events) {
      const size_t recorded = result.events.size();
      if (np > 0) p_before_events = method->parameters();
      const EventCut cut =
          events->process(*this, t, t_acc, y_acc, dir, method->parameters(), result.events,
                          interior_samples(caps.dense_output_order, method->order()), &weights);
      if (cut.kind == EventCut::Failure)
        return fail(Status::CallbackError, guard.failure().describe());
      if (np > 0 && !event_time_sensitivities(recorded, t, cut)) return Stop::Failure;
      if (cut.kind == EventCut::Accumulation) {  // ends at the event like a terminal one
        EventCut at = cut;
        at.kind = EventCut::Stop;
        if (handle_event_cut(at) == Stop::Failure) return Stop::Failure;
        result.status = Status::EventAccumulation;
        result.message = cut.message;
        return Stop::Failure;
      }
      if (cut.kind != EventCut::None) {
        if (++event_count > opt.max_events)
          return fail(Status::MaxStepsExceeded,
                      "more than max_events = " + std::to_string(opt.max_events) +
                          " events (chattering?) at t = " + fmt(cut.t));
        return handle_event_cut(cut);
      }
    }
    double t_new = last ? t_end : at_tstop ? tstop : t_acc;
    if (at_discontinuity) [[unlikely]]
      t_new = discontinuities[next_discontinuity];
    output.upto(t_new, *this, work, result);
    sample_sensitivities(false);
    if (at_tstop) {
      tstop_reached = refresh_pending = true;
      dense_hi = tstop;
    }
    if (at_discontinuity) [[unlikely]]  // the method restarts there before the next step
      mark_discontinuity_reached(t_new);
    if (opt.store_steps || opt.store_dense) [[unlikely]]
      store_step(t_acc, y_acc);
    if (!record_residual(t_acc, y_acc)) return Stop::Failure;
    if (opt.progress &&
        !guard("the progress callback", t_acc, [&] { opt.progress((t_acc - t0) / (t_end - t0)); }))
      return fail(Status::CallbackError, guard.failure().describe());
    if (opt.step_callback) [[unlikely]] {
      const Stop stop = call_step_callback(t_acc, y_acc, h_taken);
      if (stop != Stop::InternalStep) return stop;
    }
    if (last) {
      finish(Status::Success, "");
      return Stop::End;
    }
    h = controller->next_after_accept(*method, h_taken, hmax);
    if (result.events.size() > events_before) return Stop::Event;
    if (result.t_out.size() > outputs_before) return Stop::OutputTime;
    return Stop::InternalStep;
  }
  // The projection onto the constraints and the non-negativity (Options::nonnegative) of the
  // candidate (out of line: off the path of most solves). False: the step is retried or the
  // solve ends, with `stop`.
  // The step's candidate is refused (`detail`, static text): the step is retried with half the
  // step size, as after a failed Newton iteration. Returns false (for correct_candidate).
  bool refuse_candidate(double t, const StepAttempt& a, const char* detail,
                        StepTrace::Outcome outcome, Stop& stop) {
    StepAttempt f = a;
    f.outcome = AttemptOutcome::NewtonFailed;
    f.h_factor = 0.5;
    f.detail = detail;
    trace(t, h, f, outcome);
    retry_pending = true;
    stop = handle_failure(t, f);
    return false;
  }
  [[gnu::noinline]] bool correct_candidate(double t, const StepAttempt& a, Stop& stop) {
    Vector& cand = method->candidate();
    if (projection != Projection::None) {
      unprojected = cand;
      if (!method->project(t + h, cand, projection)) {
        cand = unprojected;
        if (guard.fatal()) {
          stop = fail(Status::CallbackError, guard.failure().describe());
          return false;
        }
        return refuse_candidate(t, a, "projection onto the constraint manifold did not converge",
                                StepTrace::Outcome::NewtonFailed, stop);
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
          return refuse_candidate(t, a,
                                  "a component marked non-negative went below -(atol + rtol |y|)",
                                  StepTrace::Outcome::Rejected, stop);
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
    return true;
  }

  // Method::accept() failed: retry smaller (out of line).
  [[gnu::noinline]] Stop accept_failed(double t, const StepAttempt& a) {
    if (guard.fatal()) return fail(Status::CallbackError, guard.failure().describe());
    StepAttempt f = a;
    const StepAttempt why = method->accept_failure();
    f.outcome = why.outcome;
    f.h_factor = why.h_factor;
    f.detail = why.detail;
    trace(t, h, f, trace_outcome(f.outcome));
    retry_pending = true;
    return handle_failure(t, f);
  }

  // Options::store_steps and store_dense (out of line).
  [[gnu::noinline]] void store_step(double t_acc, const Vector& y_acc) {
    if (opt.store_steps) {
      result.t_steps.push_back(t_acc);
      result.y_steps.push_back(y_acc);
      store_step_sensitivities();
    }
    if (opt.store_dense) {
      result.segments.push_back(method->segment());
      if (have_correction) result.segments.back().correction = delta;
    }
  }

  // Options::step_callback (out of line): Stop::InternalStep to go on.
  [[gnu::noinline]] Stop call_step_callback(double t_acc, const Vector& y_acc, double h_taken) {
    StepInfo info{t_acc, h_taken, &y_acc, result.stats.naccept, method->order()};
    bool go_on = true;
    if (!guard("the step callback", t_acc, [&] { go_on = opt.step_callback(info); }))
      return fail(Status::CallbackError, guard.failure().describe());
    if (!go_on) {
      finish(Status::UserStop, "stopped by the step callback at t = " + fmt(t_acc));
      return Stop::End;
    }
    return Stop::InternalStep;
  }
  bool have_correction_next = false;

  // A switch (Options::switches) restarts at cut.t: true if it chatters (Switch), i.e. it
  // flipped back in the first step after each of its last chatter_limit restarts.
  bool switch_chatters(const EventCut& cut) {
    const int index = result.events.back().index;
    if (index < static_cast<int>(user_events)) {
      last_switch = -1;
      return false;
    }
    const long naccept = result.stats.naccept;
    if (index == last_switch && naccept - naccept_at_switch <= 1) {
      ++chatter_run;
    } else {
      chatter_run = 1;
      chatter_since = cut.t;
    }
    last_switch = index;
    naccept_at_switch = naccept;
    return chatter_run >= opt.chatter_limit;
  }

  std::string chatter_message(const EventCut& cut) const {
    const Switch& sw = opt.switches[static_cast<size_t>(last_switch) - user_events];
    return "switch '" + sw.name + "' chatters at t = " + format_number(cut.t, 10) +
           ": it flipped " + "back in the first step after each of its last " +
           std::to_string(chatter_run) +
           " switches (since t = " + format_number(chatter_since, 10) +
           "): both of its branches drive s towards 0, a sliding mode (Filippov 1988) that "
           "neither branch of the model follows; stopped there (the last flip not applied). "
           "Model the sliding motion (the branch value as an unknown of an algebraic equation "
           "s = 0 while it slides) or give the switch hysteresis";
  }

  // A switch or an event that restarts inside the step just accepted: the state at its time
  // from the step's equations taken again to it with the model of the step
  // (Method::retake_step), not the step's interpolant, which lies off the algebraic equations
  // between the stages. The components the action left as they were take the new values. The
  // event function, as the locator evaluated it, at the step's state: on the far side of the
  // root, the event stands. Back on the near side, the interpolant crossed the root before the
  // solution does (at the charge pump's turn-off by 1.3e-4 V): a switch is undone (NotCrossed:
  // the method restarts there on its old branch from the step's state, and the next step
  // locates the crossing anew), unless the same switch was undone at the start of this step
  // (then its branch stands from the step's state, orient_switches()); a user's event keeps
  // the interpolant's state (nretake_fail), as when the step does not converge.
  enum class Retaken { Kept, Done, NotCrossed, Failure };
  Retaken retake_to_event(EventCut& cut) {
    if (np > 0 || cut.index < 0) return Retaken::Kept;  // (S jumps from the interpolant)
    Vector& p = method->parameters();
    p_after_event = p;
    p = cut.p_step;
    const Method::Retake outcome = method->retake_step(cut.t, y_retaken);
    if (outcome == Method::Retake::Unsupported) {
      p = p_after_event;
      return Retaken::Kept;
    }
    ++result.stats.nretake;
    double located = 0.0, retaken = 0.0;
    const size_t i = static_cast<size_t>(cut.index);
    bool done = outcome == Method::Retake::Done &&
                events->root_value(i, cut.t, cut.y_before, cut.yp, p, located) &&
                events->root_value(i, cut.t, y_retaken, cut.yp, p, retaken);
    const bool same_side = retaken * located > 0.0 || (retaken == 0.0 && located == 0.0);
    const bool is_switch = i >= user_events;
    const bool at_root =
        done && !same_side && is_switch && within_resolution(cut, i, located, retaken);
    p = p_after_event;
    if (guard.fatal()) {
      fail(Status::CallbackError, guard.failure().describe());
      return Retaken::Failure;
    }
    guard.clear_recoverable();
    const long naccept = result.stats.naccept;
    if (done && !same_side) {
      if (!is_switch) {
        done = false;
      } else if (at_root ||
                 (static_cast<long>(i) == undone_switch && naccept - naccept_at_undo <= 1)) {
        retaken_switch = static_cast<long>(i);
      } else {
        undone_switch = static_cast<long>(i);
        naccept_at_undo = naccept;
        const size_t k = opt.switches[i - user_events].parameter;
        p[k] = cut.p_step[k];  // the branch of the step
        result.events.pop_back();
        --result.stats.nevents;
        cut.y_before = cut.y_after = y_retaken;
        retaken_state = true;
        return Retaken::NotCrossed;
      }
    }
    if (!done) {
      ++result.stats.nretake_fail;
      return Retaken::Kept;
    }
    for (int k = 0; k < n; ++k)
      if (cut.y_after[k] == cut.y_before[k]) cut.y_after[k] = y_retaken[k];
    cut.y_before = y_retaken;
    result.events.back().y = y_retaken;
    retaken_state = true;
    return Retaken::Done;
  }
  // The step's state puts the root of event i later than the located time cut.t by no more
  // than t resolves there (ten times the locator's bracket): r's value `retaken` against its
  // slope along the interpolant (a difference over a thousandth of the step before cut.t).
  bool within_resolution(const EventCut& cut, size_t i, double located, double retaken) {
    const double width = cut.t - dense_lo;
    const double d = 1e-3 * width;
    method->dense(cut.t - d, work);
    double before = 0.0;
    if (!events->root_value(i, cut.t - d, work, cut.yp, method->parameters(), before)) return true;
    const double slope = std::abs(located - before) / std::abs(d);
    const double resolution = 40 * kEps * std::max(std::abs(cut.t), std::abs(width));
    return std::abs(retaken) <= slope * resolution;
  }
  Vector p_after_event, y_retaken;
  long undone_switch = -1, naccept_at_undo = 0;  // the last switch undone, when

  Stop handle_event_cut(EventCut cut) {
    const Retaken retaken = cut.kind == EventCut::Restart ? retake_to_event(cut) : Retaken::Kept;
    if (retaken == Retaken::Failure) return Stop::Failure;
    if (retaken != Retaken::NotCrossed && cut.kind == EventCut::Restart && !opt.switches.empty() &&
        switch_chatters(cut)) {
      EventCut at = cut;
      at.kind = EventCut::Stop;
      at.y_after = cut.y_before;
      const std::string message = chatter_message(cut);
      double& branch =
          method->parameters()[opt.switches[static_cast<size_t>(last_switch) - user_events]
                                   .parameter];
      branch = -branch;  // the flip not applied: the branch the solution arrived on
      if (handle_event_cut(at) == Stop::Failure) return Stop::Failure;
      result.status = Status::EventAccumulation;
      result.message = message;
      return Stop::Failure;
    }
    output.upto(cut.t, *this, work, result);
    sample_sensitivities(false);
    dense_hi = cut.t;  // the rest of the step is not the solution
    if (opt.store_steps) {
      result.t_steps.push_back(cut.t);
      result.y_steps.push_back(cut.y_before);
      if (np > 0) {
        method->dense_sensitivities(cut.t, s_work);
        result.s_steps.push_back(Eigen::Map<const Vector>(s_work.data(), s_work.size()));
      }
    }
    if (opt.store_dense) {
      result.segments.push_back(method->segment());
      if (have_correction) result.segments.back().correction = delta;
      result.segments.back().t_stop = cut.t;
    }
    if (!record_residual(cut.t, cut.y_before)) return Stop::Failure;
    if (cut.kind == EventCut::Stop) {
      finish(Status::TerminalEvent,
             "terminal event '" + result.events.back().name + "' at t = " + fmt(cut.t));
      end_at(cut);
      return Stop::End;
    }
    std::string message;
    if (!method->restart(cut.t, cut.y_after, message)) {
      if (guard.fatal()) {
        fail(Status::CallbackError, guard.failure().describe());
        end_at(cut);
      } else {
        fail_restart(cut, message);
      }
      return Stop::Failure;
    }
    if (np > 0 && !jump_sensitivities(cut)) return Stop::Failure;
    if (!after_restart()) return Stop::Failure;
    if (dir * (t_end - method->t()) <= 0) {
      finish(Status::Success, "");
      return Stop::End;
    }
    return retaken == Retaken::NotCrossed ? Stop::InternalStep : Stop::Event;  // (no event)
  }

  // The solve ended at an event: t() and y() are the event's time and the state before its
  // action, not the end of the step that found it.
  void end_at(const EventCut& cut) {
    result.t = t_final = cut.t;
    result.y = y_final = cut.y_before;
    result.yp = cut.yp;
    if (np > 0) result.sensitivities = s_event;  // S at the event (event_time_sensitivities)
  }

  // After method->restart() (an event action, a model change): the weights, the controller's
  // history, the event roots and the dense output start afresh at the new point.
  bool after_restart(bool at_discontinuity = false) {
    ++result.stats.nrestart;
    restart_pending = false;
    have_correction = false;
    weights.update(method->y());
    if (events) {
      method->derivative(work);
      if (!events->reset(method->t(), method->y(), work, method->parameters())) {
        fail(Status::CallbackError, guard.failure().describe());
        return false;
      }
      orient_switches();
    }
    if (opt.store_steps && (!at_discontinuity || method->y() != result.y_steps.back())) {
      result.t_steps.push_back(method->t());
      result.y_steps.push_back(method->y());
      store_step_sensitivities();
    }
    if (!record_residual(method->t(), method->y())) return false;
    h = controller->after_restart(*method, weights, h, smooth_end(), hmax, at_discontinuity);
    if (guard.fatal()) {
      fail(Status::CallbackError, guard.failure().describe());
      return false;
    }
    guard.clear_recoverable();
    dense_lo = dense_hi = t_user = method->t();
    between = tstop_reached = refresh_pending = false;
    return true;
  }

  // The next tstop, if it comes before `target` (then the step's target): true.
  [[gnu::noinline]] bool nearer_discontinuity(double& target) const {
    const double d = discontinuities[next_discontinuity];
    if (dir * (d - target) > 0) return false;
    target = d;
    return true;
  }

  // t is within round-off of the tstop d: the method restarts there.
  [[gnu::noinline]] bool reached_discontinuity(double d) {
    discontinuity = d;
    ++next_discontinuity;
    return restart_at_discontinuity();
  }

  // A step ended on the tstop d: the restart is made at the start of the next step (so that
  // the step's dense output answers queries up to d until then).
  [[gnu::noinline]] void mark_discontinuity_reached(double d) {
    discontinuity = d;
    ++next_discontinuity;
    restart_pending = true;
    dense_hi = d;
  }

  // The step reached a discontinuity (Options::tstops): the method restarts there from the
  // state it reached (as after an event action that restarts, the algebraic components made
  // consistent where the method can).
  bool restart_at_discontinuity() {
    restart_pending = false;
    std::string message;
    work2 = method->y();  // (restart() may write the method's state)
    if (!method->restart_at_tstop(discontinuity, work2, message)) {
      if (guard.fatal())
        fail(Status::CallbackError, guard.failure().describe());
      else
        fail(Status::RestartFailed, "restart at the discontinuity t = " + fmt(discontinuity) +
                                        " (Options::tstops) failed: " + message);
      return false;
    }
    return after_restart(true);
  }

  // After an exact stop the user may have changed the model (an input read by f) without
  // saying so: the method evaluates again what it keeps of f at the point, and the event
  // roots there are taken anew (Method::refresh).
  bool refresh_method() {
    refresh_pending = false;
    std::string message;
    if (!method->refresh(message)) {
      if (guard.fatal())
        fail(Status::CallbackError, guard.failure().describe());
      else
        fail(Status::NonFiniteFunction,
             "at the stop time t = " + fmt(method->t()) + ", after solve_until: " + message);
      return false;
    }
    controller->refreshed();
    if (events) {
      method->derivative(work);
      if (!events->reset(method->t(), method->y(), work, method->parameters())) {
        fail(Status::CallbackError, guard.failure().describe());
        return false;
      }
      orient_switches();
    }
    return true;
  }

  // The model changed at the point reached (Integrator::model_changed, set_parameters,
  // reinit): restart the method there from y.
  bool restart_here(const Vector& y, const char* what) {
    if (np > 0)
      throw InvalidArgument(std::string(what) +
                            " is not available with Options::sensitivities (a restart of the "
                            "method starts S afresh)");
    const double t = restart_pending ? discontinuity : tstop_reached ? tstop : method->t();
    std::string message;
    if (!method->restart(t, y, message)) {
      if (guard.fatal())
        fail(Status::CallbackError, guard.failure().describe());
      else
        fail(Status::RestartFailed,
             std::string("restart after ") + what + " at t = " + fmt(t) + " failed: " + message);
      return false;
    }
    return after_restart();
  }

  // The point the user last reached must be where the method stands (model changes).
  void require_at_point(const char* call) const {
    if (finished)
      throw InvalidArgument(std::string(call) + ": the integration has ended (" +
                            to_string(result.status) + ")");
    if (between)
      throw InvalidArgument(std::string(call) +
                            ": the integrator has stepped past t = " + fmt(t_user) +
                            ", the point solve_until() returned (it is at " + fmt(method->t()) +
                            "); call solve_until(t, stop_exactly = true) to stop at t before "
                            "changing the model there");
  }

  double t_now() const {
    return finished          ? t_final
           : restart_pending ? discontinuity
           : tstop_reached   ? tstop
                             : method->t();
  }
  const Vector& y_now() const { return finished ? y_final : method->y(); }

  Stop ended() const {
    return result.ok() || result.status == Status::TerminalEvent ||
                   result.status == Status::UserStop
               ? Stop::End
               : Stop::Failure;
  }
};

// ------------------------------------------------------------------------------------------

namespace {
// The problem's own checks, then y0's size (the forms whose state is y itself).
template <class Dae>
void validate_with_y0(const Dae& dae, const Vector& y0) {
  dae.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("solve: y0 has size " + std::to_string(y0.size()) + ", problem '" +
                          dae.name + "' has n = " + std::to_string(dae.n));
}
}  // namespace

Integrator::Integrator(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
                       const MethodChoice& method, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  const Impl::Call call(*impl_);
  validate_with_y0(dae, y0);
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

namespace {

// S0 = dx0/dp of the y' = w form x = (y, w) of a QuasiLinearDae: the user's dy0/dp (n x np,
// zero if not given) for y and zero for w; the methods on the mass-matrix form make its
// algebraic part (the algebraic components of y, and all of w = y_D') consistent
// (consistent_initial_sensitivities). With `consistent` (the BDF, which solves the implicit
// form F = M(t, y, p) y' - f(t, y, p) and takes an S0 as given there) that is done here, on the
// mass-matrix form; if it fails, the BDF starts from the given S0 (its first step makes the
// algebraic part consistent). Throws InvalidArgument for an S0 of the wrong size.
Matrix quasi_linear_initial_sensitivities(const QuasiLinearDae& dae, const MassMatrixDae& mass_form,
                                          double t0, const Vector& x0, const Options& options,
                                          bool consistent) {
  const long n = dae.n, np = dae.p.size();
  const Matrix& given = options.initial_sensitivities;
  if (given.size() != 0 && (given.rows() != n || given.cols() != np))
    throw InvalidArgument("Options::sensitivities: initial_sensitivities must be n x np = " +
                          std::to_string(n) + " x " + std::to_string(np) + ", got " +
                          std::to_string(given.rows()) + " x " + std::to_string(given.cols()));
  if (np == 0 || !given.allFinite()) return given;  // refused by the request's own checks
  Matrix S = Matrix::Zero(x0.size(), np);
  if (given.size() != 0) S.topRows(n) = given;
  if (!consistent) return S;
  CallGuard guard;
  Stats stats;
  MassMatrixSystem sys(mass_form, LinearSolverKind::Dense, guard, stats);
  Vector f0(x0.size());
  std::string message, warning;
  Matrix made = S;
  if (sys.f(t0, x0, f0) &&
      consistent_initial_sensitivities(sys, t0, x0, f0, made, message, warning))
    S = made;
  return S;
}

}  // namespace

Integrator::Integrator(const QuasiLinearDae& dae, double t0, double t_end, const Vector& y0,
                       const MethodChoice& given, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  const Impl::Call call(*impl_);
  validate_with_y0(dae, y0);
  if (!y0.allFinite()) throw InvalidArgument("solve: y0 contains NaN or Inf");
  const MethodChoice method = impl_->resolve_auto(given, dae.n, dae.index, options, false);
  const MethodRegistration& reg = method_registration(method.name());
  const Vector x0 = initial_values(dae, t0, y0);  // (y0, y0'_D)
  const std::vector<int> D = dae.differential_components();
  const MassMatrixDae mass_form = to_mass_matrix_form(dae);
  Options o = options;
  const bool implicit_route = reg.info.capabilities.implicit_form;
  if (o.sensitivities)
    o.initial_sensitivities =
        quasi_linear_initial_sensitivities(dae, mass_form, t0, x0, options, implicit_route);
  MethodInput in;
  if (implicit_route) {  // F = M(t, y) y' - f: n unknowns
    const ImplicitDae implicit = to_implicit_form(dae);
    Vector yp0 = Vector::Zero(dae.n);
    for (size_t k = 0; k < D.size(); ++k) yp0[D[k]] = x0[dae.n + static_cast<long>(k)];
    in.implicit_form = &implicit;
    in.yp0 = &yp0;
    if (o.sensitivities) o.initial_sensitivities = Matrix(o.initial_sensitivities.topRows(dae.n));
    impl_->begin(dae.name, in, method, y0, t0, t_end, o);
    return;
  }
  if (o.atol_vector.size() == dae.n) {  // y_D' gets the atol of y_D
    Vector atol(dae.n + static_cast<long>(D.size()));
    atol.head(dae.n) = o.atol_vector;
    for (size_t k = 0; k < D.size(); ++k) atol[dae.n + static_cast<long>(k)] = o.atol_vector[D[k]];
    o.atol_vector = atol;
  }
  impl_->shown = dae.n;
  in.mass_form = &mass_form;
  mass_form.validate();
  impl_->begin(mass_form.name, in, method, x0, t0, t_end, o);
}

Integrator::~Integrator() = default;
Integrator::Integrator(Integrator&&) noexcept = default;
Integrator& Integrator::operator=(Integrator&&) noexcept = default;

Integrator::Impl& Integrator::impl() const {
  if (!impl_) throw InvalidArgument("Integrator: used after it was moved from");
  return *impl_;
}

Integrator::Stop Integrator::step() {
  Impl& I = impl();
  const Impl::Call call(I);
  const Stop stop = I.step();
  I.t_user = I.t_now();
  return stop;
}

Integrator::Stop Integrator::solve_until(double t, bool stop_exactly) {
  Impl& I = impl();
  const Impl::Call call(I);
  if (!std::isfinite(t)) throw InvalidArgument("solve_until: t is NaN or infinite");
  if (I.dir * (t - I.t_end) > 0)
    throw InvalidArgument("solve_until: t = " + fmt(t) + " lies beyond t_end = " + fmt(I.t_end));
  if (I.dir * (t - I.t_user) < 0)
    throw InvalidArgument("solve_until: t = " + fmt(t) +
                          " lies behind the point already reached, " + fmt(I.t_user));
  if (I.finished) {
    if (I.dir * (t - I.t_final) <= 0) I.t_user = t;
    return I.ended();
  }
  if (stop_exactly && I.dir * (I.t_now() - t) > 0)
    throw InvalidArgument("solve_until: cannot stop exactly at t = " + fmt(t) +
                          ": an earlier solve_until() without stop_exactly stepped past it, to " +
                          fmt(I.t_now()));
  if (t == I.t_now()) return Stop::OutputTime;  // already there
  I.tstop_reached = false;
  I.tstop_active = stop_exactly && t != I.t_end;
  I.tstop = t;
  Stop s = Stop::OutputTime;
  struct RunThrough {  // step_guarded goes on from step to step up to t (goes_on_to_run_to)
    Impl& I;
    RunThrough(Impl& impl, double t) : I(impl) {
      I.run_through = true;
      I.run_to = t;
    }
    ~RunThrough() { I.run_through = false; }
  } run_through(I, t);
  while (!I.finished && !I.tstop_reached && I.dir * (I.method->t() - t) < 0) {
    s = I.step();
    if (s == Stop::End || s == Stop::Failure) break;
  }
  I.tstop_active = false;
  // the user's point: t, or where the solve ended before it
  I.t_user = I.finished && I.dir * (t - I.t_final) > 0 ? I.t_final : t;
  if (I.finished) return I.ended();
  I.between = !I.tstop_reached && t != I.method->t();
  return Stop::OutputTime;
}

bool Integrator::model_changed() {
  Impl& I = impl();
  const Impl::Call call(I);
  I.require_at_point("model_changed");
  const Vector y = I.method->y();
  return I.restart_here(y, "a change of the model");
}

bool Integrator::set_parameters(const Vector& p) {
  Impl& I = impl();
  const Impl::Call call(I);
  I.require_at_point("set_parameters");
  Vector& current = I.method->parameters();
  if (p.size() != current.size())
    throw InvalidArgument("set_parameters: p has size " + std::to_string(p.size()) +
                          ", the problem's parameters have size " + std::to_string(current.size()));
  if (!p.allFinite()) throw InvalidArgument("set_parameters: p contains NaN or Inf");
  current = p;
  const Vector y = I.method->y();
  return I.restart_here(y, "a change of the parameters");
}

bool Integrator::reinit(const Vector& y) {
  Impl& I = impl();
  const Impl::Call call(I);
  I.require_at_point("reinit");
  if (y.size() != I.n)
    throw InvalidArgument("reinit: y has size " + std::to_string(y.size()) +
                          ", the problem has n = " + std::to_string(I.n));
  if (!y.allFinite()) throw InvalidArgument("reinit: y contains NaN or Inf");
  return I.restart_here(y, "reinit");
}

const Vector& Integrator::parameters() const { return impl().method->parameters(); }

bool Integrator::finished() const { return impl().finished; }
double Integrator::t() const { return impl().t_now(); }
const Vector& Integrator::y() const { return impl().y_now(); }

Vector Integrator::y_at(double t) const {
  const Impl& I = impl();
  if (!std::isfinite(t)) throw InvalidArgument("y_at: t is NaN or infinite");
  const double t_reached = I.t_now();
  if (t == t_reached) return I.y_now();
  const auto inside = [&](double a, double b) {
    return std::min(a, b) <= t && t <= std::max(a, b);
  };
  if (!inside(I.t0, t_reached))
    throw InvalidArgument("y_at: t = " + fmt(t) + " lies outside the integrated interval [" +
                          fmt(std::min(I.t0, t_reached)) + ", " + fmt(std::max(I.t0, t_reached)) +
                          "]");
  if (t == I.t0 && I.result.stats.naccept == 0) return I.method->y();
  if (I.result.stats.naccept > 0 && inside(I.dense_lo, I.dense_hi)) {
    Vector out(I.n);
    I.dense(t, out);
    return out;
  }
  if (!I.result.segments.empty()) return I.result.sol(t);
  throw InvalidArgument("y_at: t = " + fmt(t) + " lies before the last step [" +
                        fmt(std::min(I.dense_lo, I.dense_hi)) + ", " +
                        fmt(std::max(I.dense_lo, I.dense_hi)) +
                        "]; the integrator keeps only that step's continuous output unless "
                        "Options::store_dense (Python: dense_output=True) keeps every step");
}

DenseSegment Integrator::last_segment() const {
  const Impl& I = impl();
  if (I.result.stats.naccept == 0)
    throw InvalidArgument("last_segment: no step has been accepted yet");
  DenseSegment segment = I.method->segment();
  if (I.have_correction) segment.correction = I.delta;
  return segment;
}

const Result& Integrator::result() const {
  const Impl& I = impl();
  if (I.taken)
    throw InvalidArgument("Integrator::result: the result was moved out by take_result()");
  return I.result;
}

Result Integrator::take_result() {
  Impl& I = impl();
  if (I.taken) throw InvalidArgument("take_result: the result was already taken");
  if (!I.finished) I.finish(Status::UserStop, "the integration was stopped before t_end");
  I.result.cpu_seconds = I.cpu_seconds();
  I.taken = true;
  return std::move(I.result);
}

}  // namespace daekit
