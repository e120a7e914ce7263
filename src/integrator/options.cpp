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
}  // namespace

void Options::validate(int n) const {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  if (!(rtol > 10 * eps) || !(rtol < 1.0)) bad("rtol must lie in (10 eps, 1), got " + num(rtol));
  if (!(atol > 0.0) || !std::isfinite(atol))
    bad("atol must be positive and finite, got " + num(atol));
  if (atol_vector.size() != 0) {
    if (atol_vector.size() != n)
      bad("atol_vector has size " + std::to_string(atol_vector.size()) +
          ", expected n = " + std::to_string(n));
    for (int i = 0; i < n; ++i)
      if (!(atol_vector[i] > 0.0) || !std::isfinite(atol_vector[i]))
        bad("atol_vector[" + std::to_string(i) + "] must be positive and finite, got " +
            num(atol_vector[i]));
  }
  if (!(h0 >= 0.0) || !std::isfinite(h0)) bad("h0 must be >= 0 (0 = automatic), got " + num(h0));
  if (!(hmax >= 0.0) || !std::isfinite(hmax))
    bad("hmax must be >= 0 (0 = no limit), got " + num(hmax));
  if (fixed_step && !(h0 > 0.0)) bad("fixed_step needs a positive h0");
  if (max_steps <= 0) bad("max_steps must be positive, got " + std::to_string(max_steps));
  if (!(safety > 0.0) || !(safety <= 1.0)) bad("safety must lie in (0, 1], got " + num(safety));
  if (!(max_increase >= 1.0)) bad("max_increase must be >= 1, got " + num(max_increase));
  if (!(max_decrease >= 1.0)) bad("max_decrease must be >= 1, got " + num(max_decrease));
  if (max_consecutive_failures < 1) bad("max_consecutive_failures must be >= 1");
  if (max_singular_failures < 1) bad("max_singular_failures must be >= 1");
  if (!(consistency_tol > 0.0))
    bad("consistency_tol must be positive, got " + num(consistency_tol));
  for (size_t i = 0; i < events.size(); ++i)
    if (!events[i].r) bad("events[" + std::to_string(i) + "] has no root function r");
  if (max_events < 1) bad("max_events must be >= 1");
  for (double t : output_times)
    if (!std::isfinite(t)) bad("output_times contains a non-finite value");
}

}  // namespace daekit
