// Options of the shared integrator loop (every method): tolerances, step-size limits and
// controller, output, callbacks. Every field has a documented default; validate() names the
// first field that is wrong.
#pragma once

#include <functional>
#include <string>
#include <vector>

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

/// What an event callback asks for.
enum class EventAction {
  Continue,  ///< record the event and go on (the state is unchanged)
  Stop,      ///< stop the integration at the event (Status::TerminalEvent)
  Restart,   ///< the callback changed the state and/or the model's mode: re-initialise
             ///< consistently at the event time and restart the method (BDF at order 1)
};

/// A state event: a root of r(t, y, y') located from the dense output (bracketing, then the
/// Illinois variant of regula falsi, cf. NOTES-004.md ch. 10, Table 10.1).
struct Event {
  std::string name = "event";
  std::function<double(double t, VecIn y, VecIn yp)> r;  ///< the root (switch) function
  int direction = 0;  ///< +1: only - to +, -1: only + to -, 0: both
  /// Called at the located event with the state there; may change y (and the user's mode
  /// variables captured by the problem's functions). Empty: EventAction::Continue.
  std::function<EventAction(double t, Vector& y)> action;
};

/// A located event as recorded in Result::events.
struct EventRecord {
  double t = 0.0;
  int index = 0;  ///< which Options::events entry
  std::string name;
  double residual = 0;  ///< r at the reported time
  Vector y;             ///< state before the action
};

struct Options {
  double rtol = 1e-6;  ///< relative tolerance, in (0, 1)
  double atol = 1e-6;  ///< absolute tolerance (> 0), used for components without atol_vector
  Vector atol_vector;  ///< optional per-component absolute tolerances (> 0), size n

  double h0 = 0.0;          ///< initial step size; 0 = 1e-6 (RADAU5's default)
  double hmax = 0.0;        ///< largest step size; 0 = |t_end - t0|
  long max_steps = 100000;  ///< step attempts before giving up (Status::MaxStepsExceeded)
  /// Constant steps of size h0 without error control (convergence-order studies). A step whose
  /// Newton iteration fails ends the solve with Status::RepeatedNewtonFailure.
  bool fixed_step = false;

  // Step-size controller (Hairer-Wanner II, IV.8): h_new = h / clamp(err^(1/k) / fac, ...),
  // fac = safety * (method's Newton-effort factor); Gustafsson's predictive correction.
  double safety = 0.9;
  double max_increase = 8.0;          ///< h_new / h <= max_increase
  double max_decrease = 5.0;          ///< h / h_new <= max_decrease
  bool predictive_controller = true;  ///< Gustafsson (true) or classical (false)

  int max_consecutive_failures = 30;  ///< Newton/NaN/singular failures in a row before stopping
  int max_singular_failures = 5;      ///< singular iteration matrices in a row before stopping

  // Output.
  std::vector<double> output_times;  ///< dense output at these times (within [t0, t_end])
  bool store_steps = true;           ///< record every accepted step in Result::t, y
  bool store_dense = false;          ///< keep each step's interpolant (Result::sol(t) anywhere)

  // Consistency check of the initial values (problems with index-2/3 components): algebraic
  // equations and constraint monitors must hold to this absolute tolerance at t0.
  bool check_consistency = true;
  double consistency_tol = 1e-6;

  /// State events (root functions), checked after every accepted step.
  std::vector<Event> events;
  int max_events = 100000;  ///< stop with Status::MaxStepsExceeded beyond this many events

  /// Called after every accepted step; return false to stop (Status::UserStop).
  std::function<bool(const StepInfo&)> step_callback;
  /// Called after every accepted step with the fraction of [t0, t_end] done.
  std::function<void(double fraction)> progress;

  void validate(int n) const;  ///< throws InvalidArgument naming a bad field
};

}  // namespace daekit
