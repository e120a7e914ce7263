// Options of the integrator (every method): tolerances, step-size limits and controller, the
// linear solver, output, events, callbacks and diagnostics. Every field has a documented
// default; validate() names the first field that is wrong. Method-specific settings live in the
// method's options struct (Radau5Options, BdfOptions, ProjectedRkOptions).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "daekit/core/callback.hpp"
#include "daekit/core/sparsity.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

/// What the step callback sees after each accepted step.
struct StepInfo {
  double t = 0.0;             ///< time reached
  double h = 0.0;             ///< size of the step just taken
  const Vector* y = nullptr;  ///< state at t
  long step = 0;              ///< number of accepted steps so far
  int order = 0;              ///< order of the method for this step (BDF: 1 after a restart)
};

/// What chose the size of an attempted step (StepTrace::chosen_by): every step size comes from
/// the integrator's step-size controller, by one of these rules.
enum class StepChoice {
  Given,           ///< Options::h0 (the constant step of Options::fixed_step)
  Estimated,       ///< the starting step at t0 or after a restart (Result::step_control)
  ErrorControl,    ///< Options::controller from the last step's error estimate and order
  MethodRule,      ///< the method's declared step rule (bdf: DASSL's) from its order logic
  Held,            ///< h kept: factorisation reused, dead band, history settling, restart
  AfterRejection,  ///< reduced after an error-test rejection
  AfterFailure,    ///< reduced after a failed attempt (Newton, singular matrix, NaN/Inf)
  Bounded,         ///< cut to hmax, to the end of the interval or to a stop time
};
const char* to_string(StepChoice choice);

/// One attempted step, for Options::trace (and `daekit solve --trace FILE`).
struct StepTrace {
  enum class Outcome { Accepted, Rejected, NewtonFailed, Singular, NonFinite, Failed };
  double t = 0.0;  ///< start of the attempt
  double h = 0.0;  ///< its size
  Outcome outcome = Outcome::Accepted;
  int order = 0;              ///< method order of the attempt
  int newton_iterations = 0;  ///< Newton iterations of the attempt
  double newton_rate = 0.0;   ///< their contraction estimate
  double error = 0.0;         ///< scaled error norm (accepted if < 1); 0 when not converged
  const char* detail = "";    ///< why it failed (empty on success)
  StepChoice chosen_by = StepChoice::Given;  ///< what chose h
};
const char* to_string(StepTrace::Outcome outcome);

/// What an event callback asks for.
enum class EventAction {
  Continue,  ///< record the event and go on (the state is unchanged)
  Stop,      ///< stop the integration at the event (Status::TerminalEvent)
  Restart,   ///< the callback changed the state and/or the parameters (modes): re-initialise
             ///< consistently at the event time and restart the method (BDF at order 1)
};

/// An event action: called at the located event with the state there and the solve's
/// parameters; may change both (sizes must stay). Written as (t, y) or (t, y, p).
class EventActionFn {
 public:
  using Function = std::function<EventAction(double t, Vector& y, Vector& p)>;
  EventActionFn() = default;
  EventActionFn(std::nullptr_t) {}  // NOLINT: implicit like std::function
  template <typename F, typename = std::enable_if_t<
                            !std::is_same_v<std::decay_t<F>, EventActionFn> &&
                            (std::is_invocable_r_v<EventAction, F&, double, Vector&, Vector&> ||
                             std::is_invocable_r_v<EventAction, F&, double, Vector&>)>>
  EventActionFn(F f) {  // NOLINT
    if constexpr (std::is_invocable_r_v<EventAction, F&, double, Vector&, Vector&>)
      fn_ = std::move(f);
    else
      fn_ = [g = std::move(f)](double t, Vector& y, Vector&) mutable { return g(t, y); };
  }
  explicit operator bool() const { return static_cast<bool>(fn_); }
  EventAction operator()(double t, Vector& y, Vector& p) const { return fn_(t, y, p); }

 private:
  Function fn_;
};

/// A state event: a root of r(t, y, y') located from the dense output (bracketing, then the
/// Illinois variant of regula falsi, cf. Bendtsen and Thomsen (1999), ch. 10, Table 10.1). The root
/// function may take p as an extra last argument; the action may change y and the solve's
/// parameters p (that is where discrete modes live: the problem object itself is never changed).
struct Event {
  std::string name = "event";
  Callback<double(double t, VecIn y, VecIn yp)> r;  ///< the root (switch) function
  int direction = 0;                                ///< +1: only - to +, -1: only + to -, 0: both
  EventActionFn action;                             ///< empty: EventAction::Continue
  /// Largest step while this event is watched (0: no bound). Roots are found wherever the
  /// step's continuous output changes sign between the step's ends and a few interior points
  /// (as many as the output's degree); roots closer together than that, or oscillations of r
  /// that the solution's steps do not resolve (a fast carrier compared with a slow state, an
  /// oscillation below atol), need a bound: set it below the shortest time between two roots
  /// of r that must be seen (e.g. a quarter of the carrier's period). Applies as Options::hmax.
  double max_step = 0.0;
};

/// A located event as recorded in Result::events.
struct EventRecord {
  double t = 0.0;
  int index = 0;  ///< which Options::events entry
  std::string name;
  double residual = 0;  ///< r at the reported time
  Vector y;             ///< state before the action
  /// With Options::sensitivities: dt/dp (np) of the event time, -(dr/dp along (S, S', e_k)) /
  /// (dr/dt along the solution); empty otherwise.
  Vector dt_dp;
};

/// A switching function (issue 26): a model whose right-hand side has branches (a relay, a
/// valve at its stop, a device below or above its threshold) declares for each switch a
/// function s(t, y) (or s(t, y, p)) and the entry of p that holds its branch,
///   p[parameter] = +1 while s > 0,   p[parameter] = -1 while s < 0,
/// which the model's callbacks read to choose the branch (f(t, y, p) = f_+(t, y) where
/// p[parameter] > 0, f_-(t, y) where it is < 0). The integrator, not the model, decides the
/// branch: it sets p[parameter] from the sign of s(t0, y0) at the start (+1 where s = 0) and
/// keeps it fixed inside every step, so that each step sees one smooth model (Newton's
/// iteration and the error estimate assume one); a sign change of s along the solution is
/// located like a root of an event function (the step is cut there), the branch is flipped and
/// the method restarts on the new branch (fresh order and step history, algebraic components
/// made consistent). This is the discontinuity handling of Hairer-Wanner I, II.6 ("Numerical
/// treatment of discontinuities") and of the zero-crossing functions Modelica tools generate
/// for every `if` of a model. Accumulating switches of one function (Zeno behaviour) end the
/// solve with Status::EventAccumulation like events; so does a chattering switch, whose branches
/// both drive s back towards 0 (a sliding mode in Filippov's sense, where the solution stays on
/// s = 0 with a convex combination of the two branches that neither branch is): the switch
/// flips back in the first step after each of `chatter_limit` restarts in a row, and the solve
/// stops at the first of them, naming the switch, instead of crawling on (or succeeding with
/// a wrong answer, as a method stepping across the relay without a switch may).
struct Switch {
  std::string name = "switch";
  Callback<double(double t, VecIn y)> s;  ///< the switching function
  int parameter = -1;                     ///< the entry of p that holds the branch (+1 / -1)
  /// Largest step while this switch is watched (0: no bound); as Event::max_step.
  double max_step = 0.0;
};

/// Step-size controller for methods without their own step logic (Hairer-Wanner II, IV.8;
/// Gustafsson 1994; Soderlind's PI form), see integrator/controller.hpp.
enum class Controller { Gustafsson, Classical, PI };
const char* to_string(Controller c);
Controller parse_controller(const std::string& name);

struct Options {
  double rtol = 1e-6;  ///< relative tolerance, in (10 eps, 1)
  double atol = 1e-6;  ///< absolute tolerance, in (0, 1e100), for components without atol_vector
  Vector atol_vector;  ///< optional per-component absolute tolerances, size n

  /// Components left out of the error test (they still enter the Newton convergence test).
  /// Unset: the method's default (bdf: components with index tag >= 2, the multipliers of an
  /// index-2 formulation; others: none). An empty list puts every component in the test.
  std::optional<std::vector<int>> exclude_from_error_test;

  /// Components that must not become negative (concentrations, densities), as IDA's
  /// IDASetConstraints and MATLAB's NonNegative: with the weights of the tolerances as given,
  /// w_i = atol_i + rtol |y_i| at the start of the step, a step whose result has such a
  /// component below -w_i is retried with half the step; a result in [-w_i, 0) is set to 0 by
  /// methods with the projection capability (radau5, projected-rk: a projection within the
  /// tolerance, continuous in the dense output) and kept by the BDF (its history); negative
  /// values that remain are reported in Result::warnings.
  std::vector<int> nonnegative;

  /// Compare an analytic Jacobian with central differences at t0 (as CVODE/IDA users do by
  /// hand): every column up to n = 64 (2n + 1 evaluations of f), above a sample of at most 16
  /// colour groups of the structure (33); counted in Stats::nfev_check. Disagreeing entries
  /// stop the solve with Status::InvalidInput naming them (a wrong Jacobian can make Newton
  /// "converge" to a wrong solution). No effect without an analytic Jacobian.
  bool check_jacobian = true;

  /// Estimate the global error of the answer (solve() only, not the stepping Integrator): a
  /// second integration with rtol, atol (and h0) divided by 10, the same method and options
  /// otherwise (the model's events included; no output, step or progress callbacks; the same
  /// max_steps), and the difference of the two end values in units of the tolerance,
  ///   Result::global_error = max_i |y_i - y~_i| / (atol_i + rtol |y~_i|)
  /// over the components in the error test of index tag <= 1 (the methods scale or leave out
  /// the error of index-2/3 components), with a warning above 10. Every method controls the
  /// error per step; the global error can exceed the tolerance by orders of magnitude where
  /// errors accumulate without damping (oscillators, conservative systems: the BDF on
  /// pendulum-ssf 100-250x at rtol 1e-8 ... 1e-10, as IDA). Costs about 1.7 solves more (the
  /// 25-tolerance sweep: 88 s with it, 33 s without).
  bool global_error_check = false;

  double h0 = 0.0;    ///< initial step size; 0 = MethodCapabilities::starting_step
  double hmax = 0.0;  ///< largest step size; 0 = |t_end - t0|
  /// Smallest step size (scipy's LSODA min_step): a first step or a step proposed after an
  /// accepted one is raised to it; a retry after a failed step that would be smaller ends the
  /// solve with Status::StepSizeTooSmall naming hmin (the last step to t_end, or to a stop
  /// time, may be shorter); 0 = only the resolution of t. Not above hmax, not above h0.
  double hmin = 0.0;
  long max_steps = 100000;  ///< step attempts before giving up (Status::MaxStepsExceeded)
  /// Constant steps of size h0 without error control (convergence-order studies). A step whose
  /// Newton iteration fails ends the solve with Status::RepeatedNewtonFailure.
  bool fixed_step = false;

  /// Step-size controller (methods with their own step rule, the BDF with DASSL's, do not use
  /// the four fields below: they are then reported as unused, see Result::warnings; a method
  /// may declare a smaller max_increase, Result::step_control):
  /// h_new = h / clamp(err^(1/k) / fac, 1/max_increase, max_decrease), fac = safety * (the
  /// method's Newton-effort factor); Gustafsson adds the predictive correction, PI uses
  /// err^(0.7/k) err_prev^(-0.4/k).
  Controller controller = Controller::Gustafsson;
  double safety = 0.9;
  double max_increase = 8.0;  ///< h_new / h <= max_increase
  double max_decrease = 5.0;  ///< h / h_new <= max_decrease

  /// Projection after every accepted step onto the constraint manifold (paper 000, (2.7)/(2.8);
  /// methods with the capability, on problems with a projector such as formulate() of a
  /// MechanicalSystem). The error estimate is computed before the projection, rejected steps
  /// are not projected, the projected point starts the next step, and the dense output adds
  /// the projection's change linearly over the step so that it stays continuous.
  Projection projection = Projection::None;

  int max_consecutive_failures = 30;  ///< Newton/NaN/singular failures in a row before stopping
  int max_singular_failures = 5;      ///< singular iteration matrices in a row before stopping

  /// Linear solver for the iteration matrices: auto picks from the problem's Jacobian
  /// structure (dense, banded, KLU); reported in Result::linear_solver.
  LinearSolverKind linear_solver = LinearSolverKind::Automatic;
  /// Detect the structure of the Jacobian at t0 when the problem declares none (a dense
  /// jacobian_sparsity and no sparse Jacobian callback) and n >= detect_sparsity_min_n, unless
  /// linear_solver is dense or the method takes dense matrices only: each column of df/dy
  /// (dF/dy and dF/dy') perturbed alone at y0, the pattern confirmed at a second,
  /// pseudo-random point near it (a zero that depends on the values at y0 is not taken for
  /// structure): n + 2 + 2 colours evaluations of f (Stats::nfev_structure; more where the
  /// second point finds entries; an analytic dense Jacobian: its non-zeros at both points,
  /// two Jacobian evaluations). The pattern found colours the finite differences and
  /// chooses the backend (dense above 20 % non-zeros, banded when the band holds at most 4x
  /// the entries, else KLU from n = 64, dense below); Result::jacobian_structure says. Missing
  /// entries only slow Newton down: solve() solves once more with the dense structure when a
  /// solve with a detected structure fails.
  bool detect_sparsity = true;
  /// Smallest n for detect_sparsity: the backends choose the dense LU up to n = 32 whatever
  /// the structure, and from n = 33 on a detected band pays at once (measured,
  /// docs/results/sparsity.md: a band (2, 2) at n = 34 solves in 0.58x the time of the dense
  /// path, detection included; at n <= 32 0.90-1.00x). A pattern with more than half the
  /// entries found at y0 stays dense (n + 1 evaluations, no confirmation).
  int detect_sparsity_min_n = 33;

  // Forward sensitivities S = dy/dp with respect to the problem's parameters p
  // (docs/sensitivities.md): methods with MethodCapabilities::sensitivities (radau5, radau,
  // bdf);
  // a request to another method, to a problem without p, with a projection, switches or
  // tstops is refused (InvalidArgument). Result::sensitivities (at t), s_out (output times),
  // s_steps; with events EventRecord::dt_dp, and S jumps where an action changes y (the
  // action differenced along S, docs/sensitivities.md); an action that changes p ends the
  // solve with Status::CallbackError (dy/dp across it is not implemented).
  bool sensitivities = false;
  /// Include the sensitivities in the error test (IDAS's errconS; default off, as IDAS): the
  /// step's error is the larger of the state's and theirs, with the weights rtol |S_ik| +
  /// atol_i / |p_k|.
  bool sensitivity_error_control = false;
  /// dy0/dp (n x np) where y0 depends on p (the differential part; the algebraic part is made
  /// consistent). Empty: zero.
  Matrix initial_sensitivities;

  // Output.
  std::vector<double> output_times;  ///< dense output at these times (within [t0, t_end])
  bool store_steps = true;           ///< record every accepted step in Result::t_steps, y_steps
  bool store_dense = false;          ///< keep each step's interpolant (Result::sol(t) anywhere)

  // Consistency check of the initial values: algebraic equations and constraint monitors must
  // hold at t0 to consistency_tol (0: 10 times the largest atol, following the tolerances). An
  // algebraic residual above it still passes when the Newton correction it asks of the
  // algebraic variables (J_AZ dz = -f_A, index 1) is within it: tol is in the units of y.
  bool check_consistency = true;
  double consistency_tol = 0.0;

  /// State events (root functions), checked after every accepted step. Events of one function
  /// that accumulate (Zeno behaviour: intervals shrinking towards a limit time, as a bouncing
  /// ball with restitution < 1) end the solve with Status::EventAccumulation at the last event
  /// still resolved, before the solution steps past the limit.
  std::vector<Event> events;
  int max_events = 100000;  ///< stop with Status::MaxStepsExceeded beyond this many events

  /// Known discontinuity times (DifferentialEquations.jl's tstops; SUNDIALS' tstop, set anew
  /// after each one): times in (t0, t_end), in the direction of integration, where the model is
  /// not smooth (the corners of a piecewise-linear input, a switched source). No step crosses
  /// one: the step before it ends on it (the last-step rule of t_end), and the method restarts
  /// there (fresh order and step history, a new starting step, the algebraic components made
  /// consistent where the method can), as after an event that restarts; Stats::nrestart
  /// counts the restarts. Times equal to t0 or t_end are ignored. NaN/Inf, times outside
  /// [t0, t_end] and times not strictly increasing (decreasing when t_end < t0) are refused
  /// (InvalidArgument) before integrating.
  std::vector<double> tstops;
  /// Switching functions of the model (see Switch): each selects a branch through an entry of
  /// the problem's parameters p.
  std::vector<Switch> switches;
  /// A switch that flips back in the first step after this many restarts in a row chatters
  /// (Switch): the solve stops with Status::EventAccumulation naming it. At least 2.
  int chatter_limit = 4;

  /// Called after every accepted step; return false to stop (Status::UserStop).
  std::function<bool(const StepInfo&)> step_callback;
  /// Called after every accepted step with the fraction of [t0, t_end] done.
  std::function<void(double fraction)> progress;
  /// Called for every attempted step (accepted, rejected or failed): a trace for debugging.
  std::function<void(const StepTrace&)> trace;
  /// Asked before every step attempt: true stops the solve at the last accepted step with
  /// Status::Interrupted (the partial result is kept). The Python module uses it for Ctrl-C
  /// (compiled callbacks never return to the interpreter); it should be cheap.
  std::function<bool()> interrupt;

  void validate(int n) const;  ///< throws InvalidArgument naming a bad field
};

}  // namespace daekit
