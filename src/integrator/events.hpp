// State events of the integrator: after every accepted step the root functions r_i(t, y, y')
// are evaluated at the new point; a sign change (in the event's direction) since the previous
// point is located on the dense output by the Illinois variant of regula falsi (Dowell and
// Jarratt 1971; NOTES-004.md ch. 10, Table 10.1) to a bracket of a few ulps, and the time
// reported is on the far side of the root, so that the new state has the new sign. Events in
// one step are handled in time order: Continue events are recorded, the first Stop or Restart
// event cuts the step. Root functions and actions run through the solve's CallGuard: an
// exception, NaN or Inf from a root function, or an action that resizes y or p, is a
// callback failure (the solve stops with Status::CallbackError), never a silently missed root.
// Internal header (not installed).
#pragma once

#include <string>
#include <vector>

#include "core/guard.hpp"
#include "daekit/integrator/options.hpp"
#include "integrator/output.hpp"

namespace daekit {

/// What the event check decided for the step just accepted.
struct EventCut {
  enum Kind { None, Stop, Restart, Failure } kind = None;
  double t = 0.0;
  Vector y_before, y_after, yp;
};

class EventLocator {
 public:
  EventLocator(const std::vector<Event>& events, int n, CallGuard& guard, Stats& stats);
  bool empty() const { return events_.empty(); }
  /// Root values at the start (t0, y0, yp0); false on a callback failure.
  bool initialize(double t0, const Vector& y0, const Vector& yp0, const Vector& p);
  /// Checks the step (t_old, t_new] of the source; records located events in `records`;
  /// returns the first event that stops or restarts (kind None if there is none; Failure if a
  /// callback failed). `p` is the solve's parameters (actions may change them).
  EventCut process(const DenseSource& source, double t_old, double t_new, const Vector& y_new,
                   double dir, Vector& p, std::vector<EventRecord>& records);
  /// Root values after a restart at (t, y, yp).
  bool reset(double t, const Vector& y, const Vector& yp, const Vector& p);

 private:
  bool root(size_t i, double t, const Vector& y, const Vector& yp, const Vector& p, double& value);
  bool locate(const DenseSource& source, size_t i, double a, double b, const Vector& p,
              double& t_event);

  std::vector<Event> events_;
  CallGuard* guard_;
  Stats* stats_;
  std::vector<double> prev_, current_;
  std::vector<std::pair<double, int>> found_;
  Vector y_, yp_;
};

}  // namespace daekit
