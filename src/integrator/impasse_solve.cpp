#include "daekit/integrator/impasse_solve.hpp"

#include <cmath>
#include <limits>

namespace daekit {

namespace {
// The ordinary solve from (t0, y0), stopped by the impasse monitor when |gamma| of the unit
// tangent falls below gamma_tol while decreasing (the solution approaches a singular point;
// next to an inaccessible one |gamma| is small but grows: the solution leaves it, Def. 7.2);
// `stopped` tells whether the monitor stopped it.
Result monitored_solve(const MassMatrixDae& dae, const SplitQuasiLinearDae& q, double t0,
                       double t_end, const Vector& y0, const MethodChoice& method,
                       const Options& options, const SingDaeOptions& sing, bool& stopped) {
  Options o = options;
  stopped = false;
  Vector x(q.n);
  ImpasseMonitor monitor(q);
  double previous = std::numeric_limits<double>::infinity();
  if (y0.size() == dae.n && y0.allFinite()) {  // else solve() refuses y0
    x.head(dae.n) = y0;
    x[dae.n] = t0;
    previous = std::abs(monitor(x).gamma);
  }
  o.step_callback = [&, user = options.step_callback](const StepInfo& info) {
    if (user && !user(info)) return false;
    x.head(dae.n) = *info.y;
    x[dae.n] = info.t;
    const double gamma = std::abs(monitor(x).gamma);
    const bool approaching = gamma < previous;
    previous = gamma;
    if (gamma >= sing.gamma_tol || !approaching) return true;
    stopped = true;
    return false;
  };
  return solve(dae, t0, t_end, y0, method, o);
}

bool near_impasse(const SplitQuasiLinearDae& q, const Result& r, const SingDaeOptions& sing) {
  Vector x(q.n);
  x.head(r.y.size()) = r.y;
  x[r.y.size()] = r.t;
  const ImpasseIndicator ind = impasse_indicator(q, x);
  return std::abs(ind.gamma) < 10 * sing.gamma_tol || ind.sigma_ratio < 1e-3;
}
}  // namespace

ImpasseSolve solve_with_impasses(const MassMatrixDae& dae, double t0, double t_end,
                                 const Vector& y0, const MethodChoice& method,
                                 const Options& options, const SingDaeOptions& sing) {
  sing.validate();
  const SplitQuasiLinearDae q = quasi_linear_form(dae);
  ImpasseSolve out;
  bool stopped = false;
  out.result = monitored_solve(dae, q, t0, t_end, y0, method, options, sing, stopped);
  if (out.result.ok() || out.result.y.size() != dae.n) return out;
  const bool failed_near = !stopped && out.result.status != Status::UserStop &&
                           out.result.status != Status::TerminalEvent &&
                           near_impasse(q, out.result, sing);
  if (!stopped && !failed_near) return out;
  out.impasse = true;
  Vector x(q.n);
  x.head(dae.n) = out.result.y;
  x[dae.n] = out.result.t;
  out.passage = pass_impasse(q, out.result.t, x, sing);
  const std::string how =
      stopped ? "stopped at t = " + std::to_string(out.result.t) +
                    " approaching a singular point (|dt/ds| of the augmented curve < " +
                    std::to_string(sing.gamma_tol) + ")"
              : "failed at t = " + std::to_string(out.result.t) + " (" +
                    to_string(out.result.status) + ") next to a singular point";
  out.result.message = "the solve " + how + "; " + out.passage.message;
  return out;
}

}  // namespace daekit
