#include "integrator/events.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace daekit {

EventLocator::EventLocator(const std::vector<Event>& events, int n, CallGuard& guard, Stats& stats)
    : events_(events),
      guard_(&guard),
      stats_(&stats),
      prev_(events.size(), 0.0),
      current_(events.size(), 0.0),
      y_(n),
      yp_(n) {
  found_.reserve(events.size());
}

bool EventLocator::root(size_t i, double t, const Vector& y, const Vector& yp, const Vector& p,
                        double& value) {
  ++stats_->nroot;
  const Event& e = events_[i];
  if (!(*guard_)(e.name.c_str(), t, [&] { value = e.r(t, y, yp, p); })) {
    // every failure of a root function is fatal: a root cannot be located without it
    if (!guard_->fatal())
      guard_->wrong_size(e.name.c_str(), t, "the event function failed: " + guard_->failure().message);
    return false;
  }
  if (!std::isfinite(value)) {
    guard_->wrong_size(e.name.c_str(), t, "the event function returned NaN or Inf");
    return false;
  }
  return true;
}

bool EventLocator::initialize(double t0, const Vector& y0, const Vector& yp0, const Vector& p) {
  for (size_t i = 0; i < events_.size(); ++i)
    if (!root(i, t0, y0, yp0, p, prev_[i])) return false;
  return true;
}

bool EventLocator::reset(double t, const Vector& y, const Vector& yp, const Vector& p) {
  return initialize(t, y, yp, p);
}

EventCut EventLocator::process(const DenseSource& source, double t_old, double t_new,
                               const Vector& y_new, double dir, Vector& p,
                               std::vector<EventRecord>& records) {
  EventCut cut;
  source.dense_derivative(t_new, yp_);
  found_.clear();
  for (size_t i = 0; i < events_.size(); ++i) {
    if (!root(i, t_new, y_new, yp_, p, current_[i])) {
      cut.kind = EventCut::Failure;
      return cut;
    }
    const double a = prev_[i], b = current_[i];
    const int d = events_[i].direction;
    const bool rising = a < 0 && b >= 0, falling = a > 0 && b <= 0;
    if ((rising && d >= 0) || (falling && d <= 0)) {
      double te = t_new;
      if (!locate(source, i, t_old, t_new, p, te)) {
        cut.kind = EventCut::Failure;
        return cut;
      }
      found_.push_back({te, static_cast<int>(i)});
    }
  }
  for (size_t i = 0; i < events_.size(); ++i) prev_[i] = current_[i];
  std::sort(found_.begin(), found_.end(),
            [dir](const auto& x, const auto& y) { return dir * x.first < dir * y.first; });
  for (const auto& [te, i] : found_) {
    source.dense(te, y_);
    source.dense_derivative(te, yp_);
    EventRecord rec;
    rec.t = te;
    rec.index = i;
    rec.name = events_[i].name;
    if (!root(static_cast<size_t>(i), te, y_, yp_, p, rec.residual)) {
      cut.kind = EventCut::Failure;
      return cut;
    }
    rec.y = y_;
    records.push_back(rec);
    ++stats_->nevents;
    const Event& e = events_[i];
    if (!e.action) continue;
    Vector y_after = y_;
    const long n = y_after.size(), np = p.size();
    EventAction action = EventAction::Continue;
    if (!(*guard_)(e.name.c_str(), te, [&] { action = e.action(te, y_after, p); })) {
      if (!guard_->fatal())
        guard_->wrong_size(e.name.c_str(), te, "the event action failed: " + guard_->failure().message);
      cut.kind = EventCut::Failure;
      return cut;
    }
    if (y_after.size() != n || p.size() != np) {
      guard_->wrong_size(e.name.c_str(), te,
                         "the event action resized the state (" + std::to_string(n) + " -> " +
                             std::to_string(y_after.size()) + ") or the parameters (" +
                             std::to_string(np) + " -> " + std::to_string(p.size()) + ")");
      cut.kind = EventCut::Failure;
      return cut;
    }
    if (!y_after.allFinite() || !p.allFinite()) {
      guard_->wrong_size(e.name.c_str(), te, "the event action wrote NaN or Inf into y or p");
      cut.kind = EventCut::Failure;
      return cut;
    }
    if (action == EventAction::Continue) continue;
    cut.kind = action == EventAction::Stop ? EventCut::Stop : EventCut::Restart;
    cut.t = te;
    cut.y_before = y_;
    cut.y_after = y_after;
    cut.yp = yp_;
    break;
  }
  return cut;
}

// Illinois iteration on g(t) = r_i(t, p(t), p'(t)) over [a, b] with a sign change; returns a
// time on the far side of the root (where g has the sign it has at b), within round-off.
bool EventLocator::locate(const DenseSource& source, size_t i, double a, double b, const Vector& p,
                          double& t_event) {
  double gc = 0.0;
  auto g = [&](double t, double& value) {
    source.dense(t, y_);
    source.dense_derivative(t, yp_);
    return root(i, t, y_, yp_, p, value);
  };
  double ga = prev_[i], gb = 0.0;
  if (!g(b, gb)) return false;
  t_event = b;
  if (gb == 0.0) return true;
  const double tol = 4 * std::numeric_limits<double>::epsilon() *
                     std::max({std::abs(a), std::abs(b), std::abs(b - a)});
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
