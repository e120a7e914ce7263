#include "daekit/integrator/solve.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <sstream>

#include "daekit/integrator/step_controller.hpp"

namespace daekit {

namespace {

std::string fmt(double x) {
  std::ostringstream os;
  os.precision(4);
  os << x;
  return os.str();
}

void merge_method_stats(Stats& s, const Stats& m) {
  s.nfev = m.nfev;
  s.nfev_jac = m.nfev_jac;
  s.njac = m.njac;
  s.nlu = m.nlu;
  s.nsol = m.nsol;
  s.nnewton = m.nnewton;
  s.nnewton_fail = m.nnewton_fail;
  s.nproject = m.nproject;
}

void record_residual(Result& r, const MassMatrixDae* prob, double t, const Vector& y, bool store) {
  if (!prob || !prob->constraint_monitor) return;
  const ConstraintResiduals c = prob->constraint_monitor(t, y);
  r.max_residual.position = std::max(r.max_residual.position, c.position);
  r.max_residual.velocity = std::max(r.max_residual.velocity, c.velocity);
  r.max_residual.acceleration = std::max(r.max_residual.acceleration, c.acceleration);
  if (store) r.residual_steps.push_back(c);
}

// What the event check decided for the step just accepted.
struct EventCut {
  enum Kind { None, Stop, Restart } kind = None;
  double t = 0.0;
  Vector y_before, y_after, yp;
};

// Root finding for Options::events on the dense output of the last accepted step.
class EventLocator {
 public:
  EventLocator(const std::vector<Event>& events, int n)
      : events_(events), prev_(events.size(), 0.0), y_(n), yp_(n) {}

  void initialize(const Stepper& st, double t0, const Vector& y0) {
    (void)st;
    // y'(t0) is not known to every method here: the switch functions see y' = 0 at t0 only
    Vector yp0 = Vector::Zero(y0.size());
    for (size_t i = 0; i < events_.size(); ++i) prev_[i] = events_[i].r(t0, y0, yp0);
  }

  // Checks the step (t_old, st.t()]; handles Continue events in time order; returns the first
  // event that stops or restarts (kind None if there is none).
  EventCut process(const Stepper& st, double t_old, double dir, Result& result) {
    const double t_new = st.t();
    st.dense_derivative(t_new, yp_);
    std::vector<std::pair<double, int>> found;
    std::vector<double> current(events_.size());
    for (size_t i = 0; i < events_.size(); ++i) {
      current[i] = events_[i].r(t_new, st.y(), yp_);
      const double a = prev_[i], b = current[i];
      const int d = events_[i].direction;
      const bool rising = a < 0 && b >= 0, falling = a > 0 && b <= 0;
      if ((rising && d >= 0) || (falling && d <= 0))
        found.push_back({locate(st, i, t_old, t_new), i});
    }
    for (size_t i = 0; i < events_.size(); ++i) prev_[i] = current[i];
    std::sort(found.begin(), found.end(),
              [dir](const auto& x, const auto& y) { return dir * x.first < dir * y.first; });
    EventCut cut;
    for (const auto& [te, i] : found) {
      st.dense(te, y_);
      st.dense_derivative(te, yp_);
      EventRecord rec;
      rec.t = te;
      rec.index = i;
      rec.name = events_[i].name;
      rec.residual = events_[i].r(te, y_, yp_);
      rec.y = y_;
      result.events.push_back(rec);
      Vector y_after = y_;
      const EventAction action =
          events_[i].action ? events_[i].action(te, y_after) : EventAction::Continue;
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

  void reset_after_restart(const Stepper& st, const EventCut& cut) {
    for (size_t i = 0; i < events_.size(); ++i) prev_[i] = events_[i].r(cut.t, st.y(), cut.yp);
  }

 private:
  // Illinois iteration on g(t) = r_i(t, p(t), p'(t)) over [a, b] with a sign change; returns a
  // time on the far side of the root (where g has the sign it has at b), within round-off.
  double locate(const Stepper& st, size_t i, double a, double b) {
    auto g = [&](double t) {
      st.dense(t, y_);
      st.dense_derivative(t, yp_);
      return events_[i].r(t, y_, yp_);
    };
    double ga = prev_[i], gb = g(b);
    if (gb == 0.0) return b;
    const double tol = 4 * std::numeric_limits<double>::epsilon() *
                       std::max({std::abs(a), std::abs(b), std::abs(b - a)});
    int side = 0;
    for (int it = 0; it < 200 && std::abs(b - a) > tol; ++it) {
      double c = b - gb * (b - a) / (gb - ga);
      if (!(std::min(a, b) < c && c < std::max(a, b))) c = 0.5 * (a + b);
      const double gc = g(c);
      if (gc == 0.0) return c;
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
    return b;
  }

  const std::vector<Event>& events_;
  std::vector<double> prev_;
  Vector y_, yp_;
};

}  // namespace

std::string check_initial_values(const MassMatrixDae& dae, double t0, const Vector& y0,
                                 double tol) {
  Vector f(dae.n);
  dae.f(t0, y0, f);
  for (int i : dae.algebraic_rows()) {
    if (!std::isfinite(f[i]))
      return "algebraic equation " + std::to_string(i) + " is not finite at t0";
    if (std::abs(f[i]) > tol)
      return "algebraic equation " + std::to_string(i) +
             " (zero row of M) is violated at t0: " + "|f_" + std::to_string(i) +
             "(t0, y0)| = " + fmt(std::abs(f[i])) + " > " + fmt(tol);
  }
  if (dae.constraint_monitor) {
    const ConstraintResiduals c = dae.constraint_monitor(t0, y0);
    if (!(c.position <= tol))
      return "position constraint g(q) = 0 is violated at t0 by " + fmt(c.position) + " > " +
             fmt(tol);
    if (!(c.velocity <= tol))
      return "velocity constraint G(q) v = 0 is violated at t0 by " + fmt(c.velocity) + " > " +
             fmt(tol);
  }
  return {};
}

Result integrate(Stepper& st, const MassMatrixDae* prob, double t0, double t_end, const Vector& y0,
                 const Options& opt) {
  const std::clock_t clock_start = std::clock();
  Result r;
  r.method = st.name();
  r.problem = prob ? prob->name : std::string("user problem");
  const int n = static_cast<int>(y0.size());
  opt.validate(n);
  if (!std::isfinite(t0) || !std::isfinite(t_end))
    throw InvalidArgument("solve: t0 and t_end must be finite");
  if (t_end == t0)
    throw InvalidArgument("solve: t_end equals t0 (" + fmt(t0) + "): empty interval");
  if (!y0.allFinite()) throw InvalidArgument("solve: y0 contains NaN or Inf");
  if (!st.has_error_estimate() && !opt.fixed_step)
    throw InvalidArgument(std::string("solve: method ") + st.name() +
                          " has no error estimate; set Options::fixed_step and h0");
  const double dir = t_end > t0 ? 1.0 : -1.0;
  for (double to : opt.output_times)
    if (dir * (to - t0) < 0 || dir * (to - t_end) > 0)
      throw InvalidArgument("options: output time " + fmt(to) + " lies outside [t0, t_end]");
  std::vector<double> out_times = opt.output_times;
  std::sort(out_times.begin(), out_times.end(),
            [dir](double a, double b) { return dir * a < dir * b; });

  auto finish = [&](Status status, std::string message) -> Result& {
    r.status = status;
    r.message = std::move(message);
    r.t = st.t();
    r.y = st.y();
    merge_method_stats(r.stats, st.stats());
    r.cpu_seconds = static_cast<double>(std::clock() - clock_start) / CLOCKS_PER_SEC;
    return r;
  };

  if (prob && opt.check_consistency && prob->max_index() >= 2) {
    std::string msg = check_initial_values(*prob, t0, y0, opt.consistency_tol);
    if (!msg.empty()) {
      r.status = Status::InconsistentInitialValues;
      r.message = "inconsistent initial values: " + msg;
      r.t = t0;
      r.y = y0;
      return r;
    }
  }

  Tolerances tol;
  tol.rtol = opt.rtol;
  tol.atol = opt.atol_vector.size() ? opt.atol_vector : Vector::Constant(n, opt.atol);
  try {
    st.start(t0, y0, tol);
  } catch (const NumericalFailure& e) {
    r.status = e.status;
    r.message = e.what();
    r.t = t0;
    r.y = y0;
    return r;
  }

  const double span = std::abs(t_end - t0);
  const double hmax = opt.hmax > 0 ? std::min(opt.hmax, span) : span;
  double h = dir * std::min(opt.h0 > 0 ? opt.h0 : std::abs(st.initial_step(t_end)), hmax);
  size_t next_out = 0;
  auto emit_outputs_upto = [&](double t_reached, bool at_start) {
    while (next_out < out_times.size() &&
           (at_start ? out_times[next_out] == t0 : dir * (out_times[next_out] - t_reached) <= 0)) {
      r.t_out.push_back(out_times[next_out]);
      if (at_start) {
        r.y_out.push_back(y0);
      } else {
        Vector yo(n);
        st.dense(out_times[next_out], yo);
        r.y_out.push_back(std::move(yo));
      }
      ++next_out;
    }
  };
  emit_outputs_upto(t0, true);
  if (opt.store_steps) {
    r.t_steps.push_back(t0);
    r.y_steps.push_back(y0);
  }
  record_residual(r, prob, t0, y0, opt.store_steps);
  r.has_constraints = prob && prob->constraint_monitor;

  StepController controller(opt.safety, opt.max_increase, opt.max_decrease,
                            opt.predictive_controller);
  const int k = st.error_order();
  constexpr double eps = std::numeric_limits<double>::epsilon();
  bool last_rejected = false;
  const char* last_failure = "";
  bool last_outcome_non_finite = false;
  int consecutive_failures = 0, singular_failures = 0;
  long event_count = 0;
  EventLocator events(opt.events, n);
  if (!opt.events.empty()) events.initialize(st, t0, y0);
  Stats& s = r.stats;

  for (;;) {
    const double t = st.t();
    bool last = false;
    // last step: reach t_end exactly, and never leave a remainder at round-off level
    if (dir * (t + h - t_end) >= -1e-10 * std::abs(h)) {
      h = t_end - t;
      last = true;
    }
    if (s.nsteps >= opt.max_steps)
      return finish(Status::MaxStepsExceeded,
                    "reached max_steps = " + std::to_string(opt.max_steps) + " at t = " + fmt(t));
    if ((0.1 * std::abs(h) <= std::abs(t) * eps || h == 0.0) && last_outcome_non_finite)
      return finish(Status::NonFiniteFunction, std::string("f keeps returning NaN/Inf near t = ") +
                                                   fmt(t) + " for every step size down to " +
                                                   fmt(h) + ": " + last_failure);
    if (0.1 * std::abs(h) <= std::abs(t) * eps || h == 0.0)
      return finish(Status::StepSizeTooSmall,
                    "step size " + fmt(h) + " underflows at t = " + fmt(t) +
                        (*last_failure ? std::string(" after: ") + last_failure
                                       : std::string(" (the solution may blow up)")));
    ++s.nsteps;
    const StepAttempt a = st.attempt(h);
    if (a.outcome != AttemptOutcome::Converged && opt.fixed_step && ++consecutive_failures <= 2)
      continue;  // retry the same step: the method refreshes its Jacobian after a failure
    if (a.outcome != AttemptOutcome::Converged && opt.fixed_step)
      return finish(
          a.outcome == AttemptOutcome::NonFinite ? Status::NonFiniteFunction
                                                 : Status::RepeatedNewtonFailure,
          std::string("fixed step ") + fmt(h) + " failed at t = " + fmt(t) + ": " + a.detail);
    if (a.outcome == AttemptOutcome::Converged) {
      consecutive_failures = singular_failures = 0;
      last_failure = "";
      last_outcome_non_finite = false;
      if (a.err < 1.0 || opt.fixed_step) {
        st.accept();
        ++s.naccept;
        double h_new = controller.propose(h, a.err, k, a.safety_scale, true);
        if (last_rejected) h_new = dir * std::min(std::abs(h_new), std::abs(h));
        last_rejected = false;
        // state events in (t, t_new]: may cut the step at an event time
        EventCut cut;
        if (!opt.events.empty()) {
          cut = events.process(st, t, dir, r);
          if (cut.kind != EventCut::None && ++event_count > opt.max_events)
            return finish(Status::MaxStepsExceeded,
                          "more than max_events = " + std::to_string(opt.max_events) +
                              " events (chattering?) at t = " + fmt(cut.t));
        }
        if (cut.kind != EventCut::None) {
          emit_outputs_upto(cut.t, false);
          if (opt.store_steps) {
            r.t_steps.push_back(cut.t);
            r.y_steps.push_back(cut.y_before);
          }
          record_residual(r, prob, cut.t, cut.y_before, opt.store_steps);
          if (cut.kind == EventCut::Stop) {
            Result& out = finish(Status::TerminalEvent, "terminal event '" + r.events.back().name +
                                                            "' at t = " + fmt(cut.t));
            out.t = cut.t;
            out.y = cut.y_before;
            return out;
          }
          std::string message;
          if (!st.restart(cut.t, cut.y_after, message))
            return finish(Status::RestartFailed, "restart after event '" + r.events.back().name +
                                                     "' at t = " + fmt(cut.t) +
                                                     " failed: " + message);
          events.reset_after_restart(st, cut);
          if (opt.store_steps) {
            r.t_steps.push_back(st.t());
            r.y_steps.push_back(st.y());
          }
          record_residual(r, prob, st.t(), st.y(), opt.store_steps);
          h = dir * std::min(std::abs(h), std::abs(st.initial_step(t_end)));
          continue;
        }
        const double t_new = last ? t_end : st.t();
        emit_outputs_upto(t_new, false);
        if (opt.store_steps) {
          r.t_steps.push_back(st.t());
          r.y_steps.push_back(st.y());
        }
        if (opt.store_dense) r.segments.push_back(st.segment());
        record_residual(r, prob, st.t(), st.y(), opt.store_steps);
        if (opt.progress) opt.progress((st.t() - t0) / (t_end - t0));
        if (opt.step_callback) {
          StepInfo info{st.t(), h, &st.y(), s.naccept, st.order()};
          if (!opt.step_callback(info))
            return finish(Status::UserStop, "stopped by the step callback at t = " + fmt(st.t()));
        }
        if (last) return finish(Status::Success, "");
        h = opt.fixed_step ? dir * opt.h0 : st.adjust_step(h, h_new);
        h = dir * std::min(std::abs(h), hmax);
      } else {
        ++s.nreject;
        h = st.step_after_reject(
            h, s.naccept == 0 ? 0.1 * h : controller.propose(h, a.err, k, a.safety_scale, false));
        last_rejected = true;
      }
      continue;
    }
    // Newton failure, singular matrix or NaN/Inf: retry with a smaller step.
    ++consecutive_failures;
    if (a.outcome == AttemptOutcome::Singular && ++singular_failures >= opt.max_singular_failures)
      return finish(Status::SingularMatrix,
                    "iteration matrix singular " + std::to_string(singular_failures) +
                        " times in a row at t = " + fmt(t) + ": " + a.detail);
    if (consecutive_failures >= opt.max_consecutive_failures) {
      const Status status = a.outcome == AttemptOutcome::NonFinite  ? Status::NonFiniteFunction
                            : a.outcome == AttemptOutcome::Singular ? Status::SingularMatrix
                                                                    : Status::RepeatedNewtonFailure;
      return finish(status, std::to_string(consecutive_failures) +
                                " failed step attempts in a row at t = " + fmt(t) + ": " +
                                a.detail);
    }
    h *= a.h_factor;
    last_rejected = true;
    last_failure = a.detail;
    last_outcome_non_finite = a.outcome == AttemptOutcome::NonFinite;
  }
}

Result solve(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const BdfOptions& method, const Options& options) {
  dae.validate();
  if (y0.size() != dae.n || yp0.size() != dae.n)
    throw InvalidArgument("solve: y0 and yp0 must have size n = " + std::to_string(dae.n) +
                          " for problem '" + dae.name + "'");
  auto stepper = make_bdf(dae, yp0, method);
  if (options.check_consistency && y0.allFinite() && yp0.allFinite()) {
    Vector res(dae.n);
    dae.F(t0, y0, yp0, res);
    for (int i = 0; i < dae.n; ++i)
      if (!(std::abs(res[i]) <= options.consistency_tol)) {
        Result r;
        r.method = stepper->name();
        r.problem = dae.name;
        r.status = Status::InconsistentInitialValues;
        r.message =
            "inconsistent initial values: equation " + std::to_string(i) + " has residual |F_" +
            std::to_string(i) + "(t0, y0, yp0)| = " + fmt(std::abs(res[i])) + " > " +
            fmt(options.consistency_tol) + " (compute consistent values with daekit::initialize)";
        r.t = t0;
        r.y = y0;
        return r;
      }
  }
  Result r = integrate(*stepper, nullptr, t0, t_end, y0, options);
  r.problem = dae.name;
  return r;
}

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const BdfOptions& method, const Options& options) {
  dae.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("solve: y0 has size " + std::to_string(y0.size()) + ", problem '" +
                          dae.name + "' has n = " + std::to_string(dae.n));
  if (dae.max_index() >= 3)
    throw InvalidArgument("solve: BDF does not take index-3 problems ('" + dae.name +
                          "' has index-3 components): BDF codes fail at index 3 (NOTES-004.md "
                          "ch. 4); use radau5, or an index-2/index-1 formulation");
  const ImplicitDae implicit = to_implicit_form(dae);
  const Vector yp0 = initial_derivative(dae, t0, y0);
  if (options.check_consistency && y0.allFinite() && yp0.allFinite() && !dae.has_identity_mass()) {
    // the algebraic equations (zero rows of M, or in general L^T f = 0 with L spanning
    // ker M^T) must hold at t0; M y' = f then has the solution yp0
    Vector f(dae.n);
    dae.f(t0, y0, f);
    const Vector res = dae.mass * yp0 - f;
    int worst = 0;
    res.cwiseAbs().maxCoeff(&worst);
    if (!(std::abs(res[worst]) <= options.consistency_tol * (1.0 + f.cwiseAbs().maxCoeff()))) {
      Result r;
      r.method = "bdf";
      r.problem = dae.name;
      r.status = Status::InconsistentInitialValues;
      r.t = t0;
      r.y = y0;
      r.message =
          "inconsistent initial values: the algebraic part of M y' = f cannot hold at t0 "
          "(equation " +
          std::to_string(worst) + " has residual " + fmt(std::abs(res[worst])) +
          " for the least-squares y'(t0)); compute "
          "consistent values with daekit::initialize(dae, t0, y0)";
      return r;
    }
  }
  auto stepper = make_bdf(implicit, yp0, method);
  return integrate(*stepper, &dae, t0, t_end, y0, options);
}

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Radau5Options& method, const Options& options) {
  dae.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("solve: y0 has size " + std::to_string(y0.size()) + ", problem '" +
                          dae.name + "' has n = " + std::to_string(dae.n));
  auto stepper = make_radau5(dae, method);
  return integrate(*stepper, &dae, t0, t_end, y0, options);
}

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options) {
  return solve(dae, t0, t_end, y0, Radau5Options{}, options);
}

}  // namespace daekit
