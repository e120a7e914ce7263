// State events of the integrator: after every accepted step the root functions r_i(t, y, y')
// are evaluated at the new point. A pair of roots inside one step leaves the same sign at both
// ends, so where r_i comes near zero (min(|r_a|, |r_b|) within twice its variation over a step:
// this step's change or the previous step's rate; always in the first step after a start or
// restart) it is also evaluated at a few interior points of the step's continuous output
// (interior_samples(): as many as the dense output's degree, the most roots a linear r can have
// in one step). Every sign change (in the event's direction) between neighbouring points is
// located on the dense output by the Illinois variant of regula falsi (Dowell and Jarratt 1971;
// Bendtsen and Thomsen (1999), ch. 10, Table 10.1) to a bracket of a few ulps, and the time
// reported is on the far side of the root, so that the new state has the new sign. Roots closer
// together than the sampling are still missed: Event::max_step bounds the step for root functions
// that change sign faster than the solution's steps resolve (event_step_bound(), the integrator's
// hmax). Events in one step are handled in time order: Continue events are recorded, the first Stop
// or Restart event cuts the step. Root functions and actions run through the solve's CallGuard: an
// exception, NaN or Inf from a root function, or an action that resizes y or p, is a
// callback failure (the solve stops with Status::CallbackError), never a silently missed root.
//
// Accumulation of events (Zeno behaviour, a bouncing ball that comes to rest): the times of
// every event function are watched (AccumulationMonitor); when their intervals shrink so that
// Aitken's extrapolation predicts the same limit event after event, and the next event would
// no longer be resolved (its interval near the resolution of t, or what r changes by in it
// within a few times r's uncertainty at the tolerances), the step is cut at the event (its
// action not applied) with EventCut::Accumulation: the solve ends there with
// Status::EventAccumulation instead of stepping past the accumulation point.
// Internal header (not installed).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "core/guard.hpp"
#include "daekit/integrator/options.hpp"
#include "integrator/output.hpp"

namespace daekit {

class ErrorWeights;  // methods/method.hpp

/// What the event check decided for the step just accepted.
struct EventCut {
  enum Kind { None, Stop, Restart, Accumulation, Failure } kind = None;
  double t = 0.0;
  Vector y_before, y_after, yp;
  /// Restart: the event's index and the parameters during the step (before the actions of the
  /// events in it: the model the step was taken with, Method::retake_step)
  int index = -1;
  Vector p_step;
  std::string message;  ///< Accumulation: which event accumulated, where, after how many
};

/// Interior points of a step at which the root functions are sampled: the degree of the
/// method's dense output, estimated as its order capped by the order of its continuous output
/// (radau5: 3, the BDF: its current order), between 1 and EventLocator::kMaxInteriorSamples.
int interior_samples(int dense_output_order, int order);

/// The largest step the events allow: the smallest positive Event::max_step (+inf if none).
double event_step_bound(const std::vector<Event>& events);

/// Watches the times of one event function for accumulation. From the last three event times,
/// intervals d_1 > d_2 > 0 with ratio q = d_2 / d_1 give Aitken's limit
///   T = t_k + d_2 q / (1 - q),
/// exact for geometrically shrinking intervals (the bouncing ball: q = e, the restitution). The
/// events converge when kStableRun successive limits agree to half the last interval (a chirp
/// such as sin(exp t), whose intervals shrink without a limit, moves T by a whole interval).
class AccumulationMonitor {
 public:
  static constexpr int kStableRun = 3;
  /// An event at t (dir: direction of integration).
  void record(double t, double dir);
  /// The last intervals shrank (a limit is predicted): the slope of r matters from here on.
  bool shrinking() const { return have_limit_; }
  /// |dr/dt| at the latest event.
  void set_slope(double slope) { slope_last_ = slope; }
  bool converging() const { return stable_ >= kStableRun; }
  double interval() const { return interval_; }
  /// Converging, and the next event would not be resolved: its interval (q d_2) within a
  /// factor 1000 of the smallest step t can resolve (10 eps |t|), or what r changes by in it at
  /// the slope of its root, |r'| q d_2 (slopes extrapolated geometrically from the last two
  /// events; the bouncing ball: 4 times its height), below 40 times `noise`, the uncertainty
  /// of r at the tolerances.
  bool next_unresolved(double noise) const;
  long count() const { return count_; }
  double limit() const { return limit_; }
  double ratio() const { return ratio_; }

 private:
  long count_ = 0;
  double t_prev_ = 0.0, t_last_ = 0.0;  ///< the two latest event times
  double interval_ = 0.0, ratio_ = 0.0, limit_ = 0.0;
  int stable_ = 0;
  bool have_limit_ = false;
  double slope_prev_ = 0.0, slope_last_ = 0.0;  ///< |r'| at the two latest events (0: unknown)
};

class EventLocator {
 public:
  static constexpr int kMaxInteriorSamples = 8;
  static constexpr double kTiny = std::numeric_limits<double>::denorm_min();
  EventLocator(const std::vector<Event>& events, int n, CallGuard& guard, Stats& stats);
  bool empty() const { return events_.empty(); }
  /// Root values at the start (t0, y0, yp0); false on a callback failure.
  bool initialize(double t0, const Vector& y0, const Vector& yp0, const Vector& p);
  /// Checks the step (t_old, t_new] of the source at `samples` interior points (clamped to
  /// [0, kMaxInteriorSamples]); records located events in `records`; returns the first event
  /// that stops or restarts, or at which the events accumulate (kind None if there is none;
  /// Failure if a callback failed). `p` is the solve's parameters (actions may change them);
  /// `weights` the integrator's error weights, whose atol + rtol |y| at an event's state give
  /// the uncertainty of r in the accumulation test (none: only the resolution of t ends an
  /// accumulation).
  EventCut process(const DenseSource& source, double t_old, double t_new, const Vector& y_new,
                   double dir, Vector& p, std::vector<EventRecord>& records, int samples = 3,
                   const ErrorWeights* weights = nullptr);
  /// r_i(t, y, yp, p) (counted in Stats::nroot); false on a callback failure.
  bool root_value(size_t i, double t, const Vector& y, const Vector& yp, const Vector& p,
                  double& value) {
    return root(i, t, y, yp, p, value);
  }
  /// Root values after a restart at (t, y, yp).
  bool reset(double t, const Vector& y, const Vector& yp, const Vector& p);
  /// The derivative of event `rec`'s time by the parameters (rec.dt_dp, np entries): the event
  /// time t*(p) solves r(t, y(t, p), y'(t, p), p) = 0, so
  ///   dt*/dp_k = -(d/de r(t*, y + e S_k, y' + e S'_k, p + e e_k)) / (d/dt r(t, y(t), y'(t), p)),
  /// both by central differences: the numerator along the sensitivities S = dy/dp and
  /// S' = dS/dt at t* (given), the denominator along the step's continuous output within
  /// [t_lo, t_hi]. False on a callback failure (rec.dt_dp then holds NaN where it failed).
  bool time_sensitivity(const DenseSource& source, double t_lo, double t_hi, const Matrix& S,
                        const Matrix& S_dot, const Vector& p, EventRecord& rec);
  /// dy/dp just after the action of event `rec` (which changed the state, not p): the action
  /// maps y+ = h(t*, y-, p), the event time t*(p) has the derivative rec.dt_dp (tau), and
  ///   S+ = d/dp h(t*(p), y-(t*(p), p), p) - y'+ tau^T
  ///      = h_y (S- + y'- tau^T) + h_t tau^T + h_p - y'+ tau^T,
  /// y'- and y'+ the derivatives before and after the event (the jump conditions of the
  /// sensitivities at a state event, Galan, Feehery and Barton 1999).
  /// Each column k is one directional derivative of the action along (tau_k, S-_k + y'- tau_k,
  /// e_k), by central differences (2 np calls of the action; its return value is not used).
  /// `width`: the step that held the event (the scale of t). False on a callback failure.
  bool action_sensitivity(const EventRecord& rec, double width, const Vector& y_minus,
                          const Vector& yp_minus, const Vector& yp_plus, const Matrix& S_minus,
                          const Vector& p, Matrix& S_plus);
  /// Event i starts on the side `sign` of its root where its value is exactly 0 there (a
  /// switch restarted at its root, Options::switches): the next sign change away from the
  /// branch is a crossing (a value of 0 on its own is on neither side).
  /// With `force` also where its value has the other sign (a switch restarted from a state
  /// that lies a round-off or an interpolation error on the far side of the root the locator
  /// found on the step's interpolant: Method::retake_step).
  void orient(size_t i, double sign, bool force = false) {
    if (prev_[i] == 0.0 || (force && (prev_[i] > 0.0) != (sign > 0.0)))
      prev_[i] = sign > 0 ? kTiny : -kTiny;
  }

 private:
  bool root(size_t i, double t, const Vector& y, const Vector& yp, const Vector& p, double& value);
  bool near_root(size_t i, double r_a, double r_b, double h) const;
  double variation(size_t i) const;
  bool sample(const DenseSource& source, double t_old, double t_new, const Vector& y_new,
              const Vector& p);
  bool bracket_roots(const DenseSource& source, const Vector& p);
  bool locate(const DenseSource& source, size_t i, double a, double b, double ga, double gb,
              const Vector& p, double& t_event);
  double& value(size_t i, int j) { return values_[i * static_cast<size_t>(points_) + j]; }
  double value(size_t i, int j) const { return values_[i * static_cast<size_t>(points_) + j]; }
  bool slope(const DenseSource& source, size_t i, double t, double h, const Vector& p, double r,
             double& out);
  bool uncertainty(size_t i, double t, const ErrorWeights* weights, const Vector& p, double r,
                   double& noise);
  std::string accumulation_message(size_t i, double t) const;
  bool act(size_t i, double te, Vector& p, EventCut& cut);

  std::vector<Event> events_;
  CallGuard* guard_;
  Stats* stats_;
  double dir_ = 1.0;
  std::vector<double> prev_, current_;
  std::vector<std::pair<double, int>> found_;
  int points_ = 2;              ///< sample points of the current step, ends included
  std::vector<double> times_;   ///< s_0 = t_old < ... < s_{points-1} = t_new
  std::vector<double> values_;  ///< r_i(s_j), row i
  std::vector<double> rate_;    ///< |change of r_i| per unit time over the last step
  std::vector<char> sampled_;   ///< r_i evaluated at the interior points of this step
  std::vector<AccumulationMonitor> monitors_;
  Vector y_, yp_, y_shifted_, yp_shifted_;
  Vector p_shifted_;   // p moved along e_k (time_sensitivity, action_sensitivity)
  Vector y_acted_[2];  // the action's result at the two shifted points (action_sensitivity)
};

}  // namespace daekit
