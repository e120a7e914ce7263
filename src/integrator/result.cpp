#include "daekit/integrator/result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace daekit {

void StateSequence::push_back(const Eigen::Ref<const Vector>& y) {
  if (count_ == 0 && n_ == 0) n_ = static_cast<int>(y.size());
  if (y.size() != n_)
    throw InvalidArgument("StateSequence: state of size " + std::to_string(y.size()) +
                          ", expected " + std::to_string(n_));
  const size_t need = static_cast<size_t>(count_ + 1) * static_cast<size_t>(n_);
  if (data_.size() < need) data_.resize(std::max(need, 2 * data_.size()));
  std::copy(y.data(), y.data() + n_, data_.begin() + static_cast<long>(count_) * n_);
  ++count_;
}

void StateSequence::reserve(int n, long count) {
  n_ = n;
  data_.resize(static_cast<size_t>(n) * static_cast<size_t>(std::max(count, 1L)));
}

Vector Result::sol(double t) const {
  if (segments.empty())
    throw InvalidArgument("Result::sol needs Options::store_dense = true and a successful step");
  if (!std::isfinite(t)) throw InvalidArgument("Result::sol: t is NaN or infinite");
  const bool forward = segments.front().t_right >= segments.front().t_left;
  const double a = segments.front().t_left, b = segments.back().valid_end();
  const double slack = 1e-12 * std::max(1.0, std::max(std::abs(a), std::abs(b)));
  if ((forward ? t < a - slack || t > b + slack : t > a + slack || t < b - slack))
    throw InvalidArgument("Result::sol: t = " + std::to_string(t) +
                          " outside the integrated range [" + std::to_string(a) + ", " +
                          std::to_string(b) + "]");
  // the first segment whose valid end is at or beyond t (in the direction of integration): a
  // step cut by an event belongs to the solution only up to the event
  auto it = std::lower_bound(segments.begin(), segments.end(), t,
                             [forward](const DenseSegment& s, double tt) {
                               return forward ? s.valid_end() < tt : s.valid_end() > tt;
                             });
  if (it == segments.end()) it = segments.end() - 1;
  return it->evaluate(t);
}

namespace {
void line(std::ostringstream& os, const char* format, ...) __attribute__((format(printf, 2, 3)));
void line(std::ostringstream& os, const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  os << buffer;
}
}  // namespace

std::string Result::brief_report() const {
  std::ostringstream os;
  os << "daekit " << (method.empty() ? "?" : method) << " on " << problem << "\n";
  if (!method_choice.empty()) os << "  method auto       " << method_choice << "\n";
  os << "  status            " << to_string(status) << (message.empty() ? "" : ": ") << message
     << "\n";
  line(os, "  reached t         %.10g\n", t);
  line(os, "  steps             %ld attempted, %ld accepted, %ld rejected, %ld failed\n",
       stats.nsteps, stats.naccept, stats.nreject, stats.nfail);
  line(os, "  f evaluations     %ld (+ %ld for finite-difference Jacobians)\n", stats.nfev,
       stats.nfev_jac);
  line(os, "  Jacobians         %ld\n", stats.njac);
  line(os, "  LU factorisations %ld, solves %ld\n", stats.nlu, stats.nsol);
  if (stats.nli > 0) line(os, "  GMRES iterations  %ld\n", stats.nli);
  line(os, "  Newton iterations %ld (%ld failures)\n", stats.nnewton, stats.nnewton_fail);
  line(os, "  CPU time          %.3f ms\n", 1e3 * cpu_seconds);
  return os.str();
}

std::string Result::report(const std::string& extra) const {
  std::string brief = brief_report();
  std::ostringstream os;
  if (projection != Projection::None)
    line(os, "  projection        %s, %ld projections\n", to_string(projection), stats.nproject);
  if (has_constraints)
    line(os, "  max |g(q)|        %.3e   max |G(q) v| %.3e\n", max_residual.position,
         max_residual.velocity);
  if (!events.empty()) line(os, "  events            %zu\n", events.size());
  if (global_error_component >= 0)
    line(os, "  global error      ~%.3g x tolerance (estimated, component %d)\n", global_error,
         global_error_component);
  for (const std::string& w : warnings) os << "  warning           " << w << "\n";
  os << extra;
  // insert before the CPU-time line (the last one)
  const size_t cut = brief.rfind("  CPU time");
  return brief.substr(0, cut) + os.str() + brief.substr(cut);
}

std::string Result::full_report() const {
  std::ostringstream os;
  os << "daekit " << (method.empty() ? "?" : method) << " on " << problem << "\n";
  if (!method_choice.empty()) os << "  method auto           " << method_choice << "\n";
  os << "  status                " << to_string(status) << (message.empty() ? "" : ": ") << message
     << "\n";
  line(os, "  reached t             %.17g\n", t);
  line(os, "  last step h           %.6g (next %.6g, order %d)\n", h_last, h_next, order);
  os << "\n  given                 used\n";
  line(os, "  rtol  %-15.6g  %.6g\n", rtol, rtol_used);
  line(os, "  atol  %-15.6g  %.6g\n", atol, atol_used);
  os << "  linear solver         " << (linear_solver.empty() ? "-" : linear_solver) << "\n";
  if (!jacobian_structure.empty()) os << "  Jacobian structure    " << jacobian_structure << "\n";
  os << "  step control          "
     << (!step_control.empty() ? step_control
         : fixed_step          ? std::string("constant steps")
                               : std::string(to_string(controller)))
     << ", projection " << to_string(projection) << "\n";
  if (jacobian_colours > 0)
    line(os, "  difference Jacobian   %d evaluations per Jacobian (column groups)\n",
         jacobian_colours);
  if (!excluded_from_error_test.empty()) {
    os << "  not in the error test";
    for (int i : excluded_from_error_test) os << " " << i;
    os << "\n";
  }
  if (!method_options.empty()) {
    os << "  method options       ";
    size_t width = 23;  // wrapped at 100 columns
    for (const MethodOptionValue& v : method_options) {
      const std::string item = " " + v.name + "=" + v.value;
      if (width + item.size() > 100) {
        os << "\n                       ";
        width = 23;
      }
      os << item;
      width += item.size();
    }
    os << "\n";
  }
  os << "\n  statistics\n";
  for (const StatsField& f : stats_fields())
    line(os, "  %-13s %10ld  %s\n", f.key, stats.*(f.member), f.meaning);
  if (has_constraints)
    line(os, "\n  max |g(q)| %.3e, max |G(q) v| %.3e, max acceleration residual %.3e\n",
         max_residual.position, max_residual.velocity, max_residual.acceleration);
  if (!events.empty()) line(os, "  events                %zu located\n", events.size());
  if (global_error_component >= 0)
    line(os,
         "  global error          ~%.3g x tolerance at t (estimated, component %d; check "
         "%.3f ms)\n",
         global_error, global_error_component, 1e3 * global_error_cpu_seconds);
  for (const std::string& n : notes) os << "  note: " << n << "\n";
  for (const std::string& w : warnings) os << "  warning: " << w << "\n";
  line(os, "  CPU time              %.3f ms\n", 1e3 * cpu_seconds);
  return os.str();
}

}  // namespace daekit
