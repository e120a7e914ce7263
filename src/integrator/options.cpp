#include "daekit/integrator/options.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace daekit {

namespace {
[[noreturn]] void bad(const std::string& what) { throw InvalidArgument("options: " + what); }
std::string num(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}
// Absolute tolerances beyond this bound accept any answer (the error test always passes).
constexpr double kMaxAtol = 1e100;
}  // namespace

const char* to_string(StepTrace::Outcome outcome) {
  switch (outcome) {
    case StepTrace::Outcome::Accepted:
      return "accepted";
    case StepTrace::Outcome::Rejected:
      return "rejected";
    case StepTrace::Outcome::NewtonFailed:
      return "newton_failed";
    case StepTrace::Outcome::Singular:
      return "singular";
    case StepTrace::Outcome::NonFinite:
      return "non_finite";
    case StepTrace::Outcome::Failed:
      return "failed";
  }
  return "?";
}

const char* to_string(Controller c) {
  switch (c) {
    case Controller::Gustafsson:
      return "gustafsson";
    case Controller::Classical:
      return "classical";
    case Controller::PI:
      return "pi";
  }
  return "?";
}

Controller parse_controller(const std::string& name) {
  for (Controller c : {Controller::Gustafsson, Controller::Classical, Controller::PI})
    if (name == to_string(c)) return c;
  throw InvalidArgument("unknown controller '" + name + "'; choose gustafsson, classical or pi");
}

void Options::validate(int n) const {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  if (!(rtol > 10 * eps) || !(rtol < 1.0)) bad("rtol must lie in (10 eps, 1), got " + num(rtol));
  if (detect_sparsity_min_n < 1)
    bad("detect_sparsity_min_n must be at least 1, got " + std::to_string(detect_sparsity_min_n));
  if (!(atol > 0.0) || !(atol < kMaxAtol)) bad("atol must lie in (0, 1e100), got " + num(atol));
  if (atol_vector.size() != 0) {
    if (atol_vector.size() != n)
      bad("atol_vector has size " + std::to_string(atol_vector.size()) +
          ", expected n = " + std::to_string(n));
    for (int i = 0; i < n; ++i)
      if (!(atol_vector[i] > 0.0) || !(atol_vector[i] < kMaxAtol))
        bad("atol_vector[" + std::to_string(i) + "] must lie in (0, 1e100), got " +
            num(atol_vector[i]));
  }
  if (exclude_from_error_test) {
    for (int i : *exclude_from_error_test)
      if (i < 0 || i >= n)
        bad("exclude_from_error_test: component " + std::to_string(i) + " outside [0, " +
            std::to_string(n) + ")");
    if (static_cast<int>(exclude_from_error_test->size()) >= n && n > 0) {
      std::vector<char> seen(static_cast<size_t>(n), 0);
      for (int i : *exclude_from_error_test) seen[i] = 1;
      int count = 0;
      for (char c : seen) count += c;
      if (count == n) bad("exclude_from_error_test leaves no component in the error test");
    }
  }
  for (int i : nonnegative)
    if (i < 0 || i >= n)
      bad("nonnegative: component " + std::to_string(i) + " outside [0, " + std::to_string(n) +
          ")");
  if (!(h0 >= 0.0) || !std::isfinite(h0)) bad("h0 must be >= 0 (0 = automatic), got " + num(h0));
  if (!(hmax >= 0.0) || !std::isfinite(hmax))
    bad("hmax must be >= 0 (0 = no limit), got " + num(hmax));
  if (!(hmin >= 0.0) || !std::isfinite(hmin))
    bad("hmin must be >= 0 (0 = no limit), got " + num(hmin));
  if (hmax > 0.0 && hmin > hmax) bad("hmin = " + num(hmin) + " exceeds hmax = " + num(hmax));
  if (h0 > 0.0 && h0 < hmin) bad("h0 = " + num(h0) + " is below hmin = " + num(hmin));
  if (fixed_step && !(h0 > 0.0)) bad("fixed_step needs a positive h0");
  if (max_steps <= 0) bad("max_steps must be positive, got " + std::to_string(max_steps));
  if (!(safety > 0.0) || !(safety <= 1.0)) bad("safety must lie in (0, 1], got " + num(safety));
  if (!(max_increase >= 1.0) || !std::isfinite(max_increase))
    bad("max_increase must be >= 1 and finite, got " + num(max_increase));
  if (!(max_decrease >= 1.0) || !std::isfinite(max_decrease))
    bad("max_decrease must be >= 1 and finite, got " + num(max_decrease));
  if (max_consecutive_failures < 1) bad("max_consecutive_failures must be >= 1");
  if (max_singular_failures < 1) bad("max_singular_failures must be >= 1");
  if (!(consistency_tol >= 0.0) || !std::isfinite(consistency_tol))
    bad("consistency_tol must be >= 0 (0 = from the tolerances), got " + num(consistency_tol));
  for (size_t i = 0; i < events.size(); ++i) {
    if (!events[i].r) bad("events[" + std::to_string(i) + "] has no root function r");
    if (events[i].direction < -1 || events[i].direction > 1)
      bad("events[" + std::to_string(i) + "].direction must be -1, 0 or +1");
    if (!(events[i].max_step >= 0.0) || !std::isfinite(events[i].max_step))
      bad("events[" + std::to_string(i) + "].max_step must be >= 0 (0 = no bound), got " +
          num(events[i].max_step));
  }
  if (max_events < 1) bad("max_events must be >= 1");
  for (size_t i = 0; i < tstops.size(); ++i)
    if (!std::isfinite(tstops[i]))
      bad("tstops[" + std::to_string(i) + "] is " + num(tstops[i]) +
          " (tstops must be finite times)");
  for (size_t i = 0; i < switches.size(); ++i) {
    const std::string which = "switches[" + std::to_string(i) + "]";
    if (!switches[i].s) bad(which + " has no switching function s");
    if (switches[i].parameter < 0)
      bad(which + ".parameter must name the entry of p that holds the branch, got " +
          std::to_string(switches[i].parameter));
    for (size_t j = 0; j < i; ++j)
      if (switches[j].parameter == switches[i].parameter)
        bad(which + " and switches[" + std::to_string(j) + "] both use p[" +
            std::to_string(switches[i].parameter) + "] for their branch");
    if (!(switches[i].max_step >= 0.0) || !std::isfinite(switches[i].max_step))
      bad(which + ".max_step must be >= 0 (0 = no bound), got " + num(switches[i].max_step));
  }
  if (chatter_limit < 2) bad("chatter_limit must be >= 2, got " + std::to_string(chatter_limit));
  for (double t : output_times)
    if (!std::isfinite(t)) bad("output_times contains a non-finite value");
}

}  // namespace daekit
