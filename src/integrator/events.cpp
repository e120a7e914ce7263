#include "integrator/events.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/format.hpp"
#include "methods/method.hpp"

namespace daekit {

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();
// An interval within this factor of the smallest step t can resolve (10 eps |t|) is not
// resolved (the integrator's own measure of suspiciously slow progress).
constexpr double kTimeResolution = 1e3 * 10.0 * kEps;
// A change of r over an interval between events (at the slope of the root) below this many
// times r's uncertainty at the tolerances is not resolved (for the bouncing ball: a bounce
// below 10 uncertainties high).
constexpr double kNoiseFactor = 40.0;
// The slope of r at an event: a backward difference over this fraction of the last interval.
constexpr double kSlopeStep = 1e-3;
// The rate of change of r before any step (after a start or restart): sample the first step.
constexpr double kUnknown = std::numeric_limits<double>::infinity();
// r_i is sampled inside a step when min(|r_a|, |r_b|) is within this factor of its variation
// over a step: a pair of roots in the step needs a variation of |r_a| + |r_b| within it.
constexpr double kNearRoot = 2.0;

bool crosses(double a, double b, int direction) {
  const bool rising = a < 0 && b >= 0, falling = a > 0 && b <= 0;
  return (rising && direction >= 0) || (falling && direction <= 0);
}
}  // namespace

int interior_samples(int dense_output_order, int order) {
  const int degree = dense_output_order > 0 ? std::min(order, dense_output_order) : order;
  return std::clamp(degree, 1, EventLocator::kMaxInteriorSamples);
}

double event_step_bound(const std::vector<Event>& events) {
  double bound = std::numeric_limits<double>::infinity();
  for (const Event& e : events)
    if (e.max_step > 0.0) bound = std::min(bound, e.max_step);
  return bound;
}

// ---------------------------------------------------------------------------------------------

void AccumulationMonitor::record(double t, double dir) {
  if (count_ >= 2) {
    const double d_prev = dir * (t_last_ - t_prev_), d = dir * (t - t_last_);
    if (d > 0.0 && d < d_prev) {
      ratio_ = d / d_prev;
      const double limit = t + dir * d * ratio_ / (1.0 - ratio_);
      stable_ = have_limit_ && std::abs(limit - limit_) <= 0.5 * d ? stable_ + 1 : 0;
      limit_ = limit;
      have_limit_ = true;
    } else {
      stable_ = 0;
      have_limit_ = false;
    }
  }
  if (count_ >= 1) interval_ = dir * (t - t_last_);
  ++count_;
  t_prev_ = t_last_;
  t_last_ = t;
  slope_prev_ = slope_last_;
  slope_last_ = 0.0;
}

bool AccumulationMonitor::next_unresolved(double noise) const {
  if (!converging()) return false;
  const double next_interval = ratio_ * interval_;
  if (next_interval <= kTimeResolution * std::abs(t_last_)) return true;
  double next_slope = slope_last_;
  if (slope_prev_ > slope_last_) next_slope *= slope_last_ / slope_prev_;
  return next_slope * next_interval <= kNoiseFactor * noise;
}

// ---------------------------------------------------------------------------------------------

EventLocator::EventLocator(const std::vector<Event>& events, int n, CallGuard& guard, Stats& stats)
    : events_(events),
      guard_(&guard),
      stats_(&stats),
      prev_(events.size(), 0.0),
      current_(events.size(), 0.0),
      times_(kMaxInteriorSamples + 2, 0.0),
      values_(events.size() * (kMaxInteriorSamples + 2), 0.0),
      rate_(events.size(), kUnknown),
      sampled_(events.size(), 0),
      monitors_(events.size()),
      y_(n),
      yp_(n),
      y_shifted_(n),
      yp_shifted_(n),
      y_acted_{Vector(n), Vector(n)} {
  found_.reserve(events.size() * (kMaxInteriorSamples + 1));
}

bool EventLocator::root(size_t i, double t, const Vector& y, const Vector& yp, const Vector& p,
                        double& value) {
  ++stats_->nroot;
  const Event& e = events_[i];
  if (!(*guard_)(e.name.c_str(), t, [&] { value = e.r(t, y, yp, p); })) {
    // every failure of a root function is fatal: a root cannot be located without it
    if (!guard_->fatal())
      guard_->wrong_size(e.name.c_str(), t,
                         "the event function failed: " + guard_->failure().message);
    return false;
  }
  if (!std::isfinite(value)) {
    guard_->wrong_size(e.name.c_str(), t, "the event function returned NaN or Inf");
    return false;
  }
  return true;
}

bool EventLocator::initialize(double t0, const Vector& y0, const Vector& yp0, const Vector& p) {
  for (size_t i = 0; i < events_.size(); ++i) {
    if (!root(i, t0, y0, yp0, p, prev_[i])) return false;
    rate_[i] = kUnknown;
  }
  return true;
}

bool EventLocator::reset(double t, const Vector& y, const Vector& yp, const Vector& p) {
  return initialize(t, y, yp, p);
}

// Whether r_i may hide a pair of roots in a step from r_a to r_b (same sign) of size h: when it
// comes within kNearRoot times its variation over a step of zero (the variation: the change
// over this step, or at the rate of the previous step's; unknown after a start or restart).
bool EventLocator::near_root(size_t i, double r_a, double r_b, double h) const {
  if (!(h > 0.0)) return false;
  const double variation = std::max(std::abs(r_b - r_a), rate_[i] * h);
  return std::min(std::abs(r_a), std::abs(r_b)) <= kNearRoot * variation;
}

// r_i at the step's end (from y_new) and, for the events near a root, at the interior points
// t_old + j (t_new - t_old) / (samples + 1) of the dense output; the start's values are those
// of the previous step's end.
bool EventLocator::sample(const DenseSource& source, double t_old, double t_new,
                          const Vector& y_new, const Vector& p) {
  const int last = points_ - 1;
  const double h = std::abs(t_new - t_old);
  times_[0] = t_old;
  times_[static_cast<size_t>(last)] = t_new;
  source.dense_derivative(t_new, yp_);
  bool any = false;
  for (size_t i = 0; i < events_.size(); ++i) {
    value(i, 0) = prev_[i];
    if (!root(i, t_new, y_new, yp_, p, current_[i])) return false;
    value(i, last) = current_[i];
    sampled_[i] = last > 1 && near_root(i, prev_[i], current_[i], h);
    any = any || sampled_[i];
  }
  for (int j = 1; j < last && any; ++j) {
    const double s = t_old + (t_new - t_old) * (static_cast<double>(j) / last);
    times_[static_cast<size_t>(j)] = s;
    source.dense(s, y_);
    source.dense_derivative(s, yp_);
    for (size_t i = 0; i < events_.size(); ++i)
      if (sampled_[i] && !root(i, s, y_, yp_, p, value(i, j))) return false;
  }
  for (size_t i = 0; i < events_.size(); ++i) rate_[i] = h > 0.0 ? variation(i) / h : kUnknown;
  return true;
}

// max - min of r_i over the step's points that were evaluated.
double EventLocator::variation(size_t i) const {
  double lo = value(i, 0), hi = lo;
  for (int j = 1; j < points_; ++j) {
    if (!sampled_[i] && j < points_ - 1) continue;
    lo = std::min(lo, value(i, j));
    hi = std::max(hi, value(i, j));
  }
  return hi - lo;
}

// Every sign change between neighbouring evaluated points, located, into found_ in time order.
bool EventLocator::bracket_roots(const DenseSource& source, const Vector& p) {
  found_.clear();
  for (size_t i = 0; i < events_.size(); ++i) {
    const int step = sampled_[i] ? 1 : points_ - 1;
    for (int j = 0; j + step < points_; j += step) {
      const double ga = value(i, j), gb = value(i, j + step);
      if (!crosses(ga, gb, events_[i].direction)) continue;
      const double a = times_[static_cast<size_t>(j)], b = times_[static_cast<size_t>(j + step)];
      double te = b;
      if (!locate(source, i, a, b, ga, gb, p, te)) return false;
      found_.push_back({te, static_cast<int>(i)});
    }
  }
  const double dir = dir_;
  std::sort(found_.begin(), found_.end(), [dir](const auto& x, const auto& y) {
    return dir * x.first < dir * y.first || (x.first == y.first && x.second < y.second);
  });
  return true;
}

// |dr/dt| at an event at t where r = r_t, by a backward difference over h on the dense output
// (inside the step that holds the event, or a short extrapolation of it).
bool EventLocator::slope(const DenseSource& source, size_t i, double t, double h, const Vector& p,
                         double r_t, double& out) {
  const double s = t - dir_ * h;
  source.dense(s, y_shifted_);
  source.dense_derivative(s, yp_shifted_);
  double r_s = 0.0;
  if (!root(i, s, y_shifted_, yp_shifted_, p, r_s)) return false;
  out = h > 0.0 ? std::abs(r_t - r_s) / h : 0.0;
  return true;
}

bool EventLocator::time_sensitivity(const DenseSource& source, double t_lo, double t_hi,
                                    const Matrix& S, const Matrix& S_dot, const Vector& p,
                                    EventRecord& rec) {
  const size_t i = static_cast<size_t>(rec.index);
  const double te = rec.t;
  const long np = p.size();
  rec.dt_dp = Vector::Constant(np, std::numeric_limits<double>::quiet_NaN());
  const double cbrt_eps = std::cbrt(kEps);
  // d/dt r along the solution: a central difference inside the step (one-sided at its ends)
  const double width = std::abs(t_hi - t_lo);
  const double dt = cbrt_eps * std::max(width, std::abs(te) * kEps * 1e3);
  const double lo = std::min(t_lo, t_hi), hi = std::max(t_lo, t_hi);
  const double ta = std::max(lo, te - dt), tb = std::min(hi, te + dt);
  if (!(tb > ta)) return true;  // a step too short to difference in: dt/dp unknown (NaN)
  double ra = 0.0, rb = 0.0;
  source.dense(ta, y_shifted_);
  source.dense_derivative(ta, yp_shifted_);
  if (!root(i, ta, y_shifted_, yp_shifted_, p, ra)) return false;
  source.dense(tb, y_shifted_);
  source.dense_derivative(tb, yp_shifted_);
  if (!root(i, tb, y_shifted_, yp_shifted_, p, rb)) return false;
  const double r_t = (rb - ra) / (tb - ta);
  if (!(std::abs(r_t) > 0.0) || !std::isfinite(r_t)) return true;  // tangential: no dt/dp
  // d/de r along the parameter direction k
  source.dense(te, y_);
  source.dense_derivative(te, yp_);
  Vector& pk = p_shifted_;
  pk = p;  // sized at the first event (np does not change within a solve)
  for (long k = 0; k < np; ++k) {
    const double e = cbrt_eps * std::max(1.0, std::abs(p[k]));
    double r_plus = 0.0, r_minus = 0.0;
    for (int side = 0; side < 2; ++side) {
      const double sgn = side == 0 ? 1.0 : -1.0;
      y_shifted_ = y_ + (sgn * e) * S.col(k);
      yp_shifted_ = yp_ + (sgn * e) * S_dot.col(k);
      pk[k] = p[k] + sgn * e;
      if (!root(i, te, y_shifted_, yp_shifted_, pk, side == 0 ? r_plus : r_minus)) return false;
    }
    pk[k] = p[k];
    rec.dt_dp[k] = -((r_plus - r_minus) / (2.0 * e)) / r_t;
  }
  return true;
}

// Column k: the central difference of the action along (tau_k, S-_k + y'- tau_k, e_k), whose
// step e moves no argument by more than cbrt(eps) of its scale (|p_k| (1 if 0); max(|y-|, 1);
// max(|t*|, width)), less the move of the event time along y'+.
bool EventLocator::action_sensitivity(const EventRecord& rec, double width, const Vector& y_minus,
                                      const Vector& yp_minus, const Vector& yp_plus,
                                      const Matrix& S_minus, const Vector& p, Matrix& S_plus) {
  const Event& e = events_[static_cast<size_t>(rec.index)];
  const double te = rec.t;
  const long np = p.size();
  const double cbrt_eps = std::cbrt(kEps);
  const double y_scale = std::max(1.0, y_minus.cwiseAbs().maxCoeff());
  const double t_scale = std::max(std::abs(te), width);
  Vector& pk = p_shifted_;
  for (long k = 0; k < np; ++k) {
    const double tau = rec.dt_dp[k];
    Vector& v = yp_shifted_;  // the direction in y
    v = S_minus.col(k) + tau * yp_minus;
    double step = p[k] != 0.0 ? std::abs(p[k]) : 1.0;
    const double v_max = v.cwiseAbs().maxCoeff();
    if (v_max * step > y_scale) step = y_scale / v_max;
    if (std::abs(tau) * step > t_scale) step = t_scale / std::abs(tau);
    const double eps_k = cbrt_eps * step;
    for (int side = 0; side < 2; ++side) {
      const double s = side == 0 ? eps_k : -eps_k;
      const double t = te + s * tau;
      Vector& y = y_acted_[side];
      y = y_minus + s * v;
      pk = p;
      pk[k] = p[k] + s;
      if (!(*guard_)(e.name.c_str(), t, [&] { (void)e.action(t, y, pk); })) {
        if (!guard_->fatal())
          guard_->wrong_size(e.name.c_str(), t,
                             "the event action failed at a shifted point (dy/dp after the "
                             "event): " +
                                 guard_->failure().message);
        return false;
      }
      if (y.size() != y_minus.size() || !y.allFinite()) {
        guard_->wrong_size(e.name.c_str(), t,
                           "the event action resized y or wrote NaN or Inf into it at a shifted "
                           "point (dy/dp after the event)");
        return false;
      }
    }
    S_plus.col(k) = (y_acted_[0] - y_acted_[1]) / (2.0 * eps_k) - tau * yp_plus;
  }
  return true;
}

// How much r_i changes when y_ moves by its error weights atol + rtol |y| (all up; alternating
// up and down): what the tolerances leave r uncertain by at the event. Evaluations that fail
// recoverably or give NaN/Inf (a state outside r's domain) are left out; exceptions stay fatal.
bool EventLocator::uncertainty(size_t i, double t, const ErrorWeights* weights, const Vector& p,
                               double r, double& noise) {
  noise = 0.0;
  if (weights == nullptr || weights->atol().size() != y_.size()) return true;
  const Event& e = events_[i];
  for (int pattern = 0; pattern < 2; ++pattern) {
    for (Eigen::Index k = 0; k < y_.size(); ++k)
      y_shifted_[k] = y_[k] + (pattern == 1 && k % 2 == 1 ? -1.0 : 1.0) *
                                  (weights->atol()[k] + weights->rtol() * std::abs(y_[k]));
    double shifted = 0.0;
    ++stats_->nroot;
    if (!(*guard_)(e.name.c_str(), t, [&] { shifted = e.r(t, y_shifted_, yp_, p); })) {
      if (guard_->fatal()) return false;
      guard_->clear_recoverable();
      continue;
    }
    if (std::isfinite(shifted)) noise = std::max(noise, std::abs(shifted - r));
  }
  return true;
}

std::string EventLocator::accumulation_message(size_t i, double t) const {
  const AccumulationMonitor& m = monitors_[i];
  return "events of '" + events_[i].name + "' accumulate near t = " + format_number(m.limit(), 10) +
         " (Zeno behaviour): " + std::to_string(m.count()) +
         " events, their intervals shrinking by a factor " + format_number(m.ratio(), 3) +
         " each; stopped at the last one resolved, t = " + format_number(t, 10) +
         " (its action not applied). The model needs a change at the accumulation point: make "
         "the event terminal there (or stop at t = " +
         format_number(m.limit(), 10) +
         ") and continue with a new phase in which the events no longer occur (for a bouncing "
         "ball: at rest on the floor)";
}

// The action of event i at te (state y_): records nothing, may change p; a Stop or Restart
// fills the cut. False on a callback failure.
bool EventLocator::act(size_t i, double te, Vector& p, EventCut& cut) {
  const Event& e = events_[i];
  if (!e.action) return true;
  if (cut.p_step.size() != p.size()) cut.p_step = p;  // the first action of the step
  Vector y_after = y_;
  const long n = y_after.size(), np = p.size();
  EventAction action = EventAction::Continue;
  if (!(*guard_)(e.name.c_str(), te, [&] { action = e.action(te, y_after, p); })) {
    if (!guard_->fatal())
      guard_->wrong_size(e.name.c_str(), te,
                         "the event action failed: " + guard_->failure().message);
    return false;
  }
  if (y_after.size() != n || p.size() != np) {
    guard_->wrong_size(e.name.c_str(), te,
                       "the event action resized the state (" + std::to_string(n) + " -> " +
                           std::to_string(y_after.size()) + ") or the parameters (" +
                           std::to_string(np) + " -> " + std::to_string(p.size()) + ")");
    return false;
  }
  if (!y_after.allFinite() || !p.allFinite()) {
    guard_->wrong_size(e.name.c_str(), te, "the event action wrote NaN or Inf into y or p");
    return false;
  }
  if (action == EventAction::Continue) return true;
  cut.kind = action == EventAction::Stop ? EventCut::Stop : EventCut::Restart;
  cut.t = te;
  cut.index = static_cast<int>(i);
  cut.y_before = y_;
  cut.y_after = y_after;
  cut.yp = yp_;
  return true;
}

EventCut EventLocator::process(const DenseSource& source, double t_old, double t_new,
                               const Vector& y_new, double dir, Vector& p,
                               std::vector<EventRecord>& records, int samples,
                               const ErrorWeights* weights) {
  EventCut cut;
  dir_ = dir;
  points_ = std::clamp(samples, 0, kMaxInteriorSamples) + 2;
  if (!sample(source, t_old, t_new, y_new, p) || !bracket_roots(source, p)) {
    cut.kind = EventCut::Failure;
    return cut;
  }
  for (size_t i = 0; i < events_.size(); ++i) prev_[i] = current_[i];
  for (const auto& [te, index] : found_) {
    const size_t i = static_cast<size_t>(index);
    source.dense(te, y_);
    source.dense_derivative(te, yp_);
    EventRecord rec;
    rec.t = te;
    rec.index = index;
    rec.name = events_[i].name;
    if (!root(i, te, y_, yp_, p, rec.residual)) {
      cut.kind = EventCut::Failure;
      return cut;
    }
    rec.y = y_;
    records.push_back(rec);
    ++stats_->nevents;
    AccumulationMonitor& monitor = monitors_[i];
    monitor.record(te, dir);
    if (monitor.shrinking()) {
      double r_slope = 0.0;
      if (!slope(source, i, te, kSlopeStep * monitor.interval(), p, rec.residual, r_slope)) {
        cut.kind = EventCut::Failure;
        return cut;
      }
      monitor.set_slope(r_slope);
    }
    if (monitor.converging()) {
      double noise = 0.0;
      if (!uncertainty(i, te, weights, p, rec.residual, noise)) {
        cut.kind = EventCut::Failure;
        return cut;
      }
      if (monitor.next_unresolved(noise)) {
        cut.kind = EventCut::Accumulation;
        cut.t = te;
        cut.y_before = cut.y_after = y_;
        cut.yp = yp_;
        cut.message = accumulation_message(i, te);
        return cut;
      }
    }
    if (!act(i, te, p, cut)) {
      cut.kind = EventCut::Failure;
      return cut;
    }
    if (cut.kind != EventCut::None) return cut;
  }
  return cut;
}

// Illinois iteration on g(t) = r_i(t, p(t), p'(t)) over [a, b] with a sign change, g(a) = ga,
// g(b) = gb; returns a time on the far side of the root (where g has the sign it has at b),
// within round-off.
bool EventLocator::locate(const DenseSource& source, size_t i, double a, double b, double ga,
                          double gb, const Vector& p, double& t_event) {
  double gc = 0.0;
  auto g = [&](double t, double& value) {
    source.dense(t, y_);
    source.dense_derivative(t, yp_);
    return root(i, t, y_, yp_, p, value);
  };
  t_event = b;
  if (gb == 0.0) return true;
  const double tol = 4 * kEps * std::max({std::abs(a), std::abs(b), std::abs(b - a)});
  int side = 0;
  for (int it = 0; it < 200 && std::abs(b - a) > tol; ++it) {
    double c = b - gb * (b - a) / (gb - ga);
    if (!(std::min(a, b) < c && c < std::max(a, b))) c = 0.5 * (a + b);
    if (!g(c, gc)) return false;
    if (gc == 0.0) {
      t_event = c;
      return true;
    }
    if ((gc > 0) == (gb > 0)) {  // c on b's side: move b, halve the stale end (Illinois)
      b = c;
      gb = gc;
      if (side == 1) ga *= 0.5;
      side = 1;
    } else {
      a = c;
      ga = gc;
      if (side == -1) gb *= 0.5;
      side = -1;
    }
  }
  t_event = b;
  return true;
}

}  // namespace daekit
