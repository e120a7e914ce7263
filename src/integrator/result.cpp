#include "daekit/integrator/result.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace daekit {

Vector Result::sol(double t) const {
  if (segments.empty())
    throw InvalidArgument("Result::sol needs Options::store_dense = true and a successful step");
  const double a = std::min(segments.front().t_left, segments.back().t_right);
  const double b = std::max(segments.front().t_left, segments.back().t_right);
  const double slack = 1e-12 * std::max(1.0, std::max(std::abs(a), std::abs(b)));
  if (t < a - slack || t > b + slack)
    throw InvalidArgument("Result::sol: t = " + std::to_string(t) +
                          " outside the integrated range");
  const bool forward = segments.front().t_right >= segments.front().t_left;
  // first segment whose right end is at or beyond t (in the direction of integration)
  auto it = std::lower_bound(segments.begin(), segments.end(), t,
                             [forward](const DenseSegment& s, double tt) {
                               return forward ? s.t_right < tt : s.t_right > tt;
                             });
  if (it == segments.end()) it = segments.end() - 1;
  return it->evaluate(t);
}

std::string Result::report() const {
  std::ostringstream os;
  char line[256];
  os << "daekit " << (method.empty() ? "?" : method) << " on " << problem << "\n";
  os << "  status            " << to_string(status) << (message.empty() ? "" : ": ") << message
     << "\n";
  std::snprintf(line, sizeof line, "  reached t         %.10g\n", t);
  os << line;
  std::snprintf(line, sizeof line,
                "  steps             %ld attempted, %ld accepted, %ld rejected\n", stats.nsteps,
                stats.naccept, stats.nreject);
  os << line;
  std::snprintf(line, sizeof line,
                "  f evaluations     %ld (+ %ld for finite-difference Jacobians)\n", stats.nfev,
                stats.nfev_jac);
  os << line;
  std::snprintf(line, sizeof line, "  Jacobians         %ld\n", stats.njac);
  os << line;
  std::snprintf(line, sizeof line, "  LU factorisations %ld, solves %ld\n", stats.nlu, stats.nsol);
  os << line;
  std::snprintf(line, sizeof line, "  Newton iterations %ld (%ld failures)\n", stats.nnewton,
                stats.nnewton_fail);
  os << line;
  if (has_constraints) {
    std::snprintf(line, sizeof line, "  max |g(q)|        %.3e   max |G(q) v| %.3e\n",
                  max_residual.position, max_residual.velocity);
    os << line;
  }
  std::snprintf(line, sizeof line, "  CPU time          %.3f ms\n", 1e3 * cpu_seconds);
  os << line;
  return os.str();
}

}  // namespace daekit
