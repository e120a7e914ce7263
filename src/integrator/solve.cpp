#include "daekit/integrator/solve.hpp"

#include <cmath>
#include <sstream>

#include "daekit/nonlinear/impasse.hpp"

namespace daekit {

namespace {
// The whole integration as one call of solve_until (its CPU time measured once, not around
// every step as step() does), then step() until the integrator has finished (the last step
// finishes it; the loop is a safeguard).
Result run(Integrator& it, double t_end) {
  if (!it.finished()) it.solve_until(t_end);
  for (;;) {
    const Integrator::Stop s = it.step();
    if (s == Integrator::Stop::End || s == Integrator::Stop::Failure) break;
  }
  return it.take_result();
}

// A failed solve of M y' = f with a constant singular M that was regular (index 1: E = [A1;
// Dg2] of nonlinear/impasse.hpp non-singular) at t0 and ends where E is nearly singular or the
// augmented curve turns (|dt/ds| small) stopped at an impasse point (NOTES-004.md ch. 7): say so
// instead of leaving an unexplained step-size underflow. Small problems only (dense SVDs, once).
void explain_impasse(const MassMatrixDae& dae, double t0, const Vector& y0, Result& r) {
  const bool stalled = r.status == Status::StepSizeTooSmall ||
                       r.status == Status::RepeatedNewtonFailure ||
                       r.status == Status::SingularMatrix;
  if (!stalled || dae.n > 200 || dae.has_identity_mass() || r.y.size() != dae.n) return;
  if (dae.mass.size() == 0) return;  // sparse M: large problems, not analysed
  try {
    const SplitQuasiLinearDae q = quasi_linear_form(dae);
    Vector x(q.n);
    x << y0, t0;
    const ImpasseIndicator start = impasse_indicator(q, x);
    x << r.y, r.t;
    const ImpasseIndicator end = impasse_indicator(q, x);
    // At a fold of the augmented curve dt/ds and sigma_min(E) vanish together (the 'impasse'
    // problem stalls with |dt/ds| = 1.9-2.0 sigma_min/sigma_max at tol 1e-3 ... 1e-12); an E
    // that is only ill-conditioned where the solution is steep is not one (the transistor at
    // tol 1e-13 fails on round-off with sigma_min/sigma_max = 3.5e-10 but |dt/ds| = 3.2e-4).
    if (!(start.sigma_ratio > 1e-6) ||
        !(end.sigma_ratio < 1e-3 * start.sigma_ratio || std::abs(end.gamma) < 0.05) ||
        !(std::abs(end.gamma) <= 1e3 * end.sigma_ratio))
      return;
    std::ostringstream m;
    m.precision(3);
    m << "; the DAE is at a singular point here: an impasse point (NOTES-004.md ch. 7), where "
         "the algebraic equations stop determining the solution and y' is unbounded "
         "(sigma_min/sigma_max of [A1; Dg2] = "
      << end.sigma_ratio << ", " << start.sigma_ratio << " at t0; |dt/ds| of the augmented "
      << "curve = " << std::abs(end.gamma)
      << "); solve_with_impasses() locates it and passes it on the augmented system";
    r.message += m.str();
  } catch (const std::exception&) {
    // the analysis is a diagnosis only: a problem it cannot analyse keeps its message
  }
}
}  // namespace

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method, const Options& options) {
  Integrator it(dae, t0, t_end, y0, method, options);
  Result r = run(it, t_end);
  explain_impasse(dae, t0, y0, r);
  return r;
}

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options) {
  return solve(dae, t0, t_end, y0, MethodChoice("radau5"), options);
}

Result solve(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const MethodChoice& method, const Options& options) {
  Integrator it(dae, t0, t_end, y0, yp0, method, options);
  return run(it, t_end);
}

Result solve(const ImplicitIndex2Dae& dae, double t0, double t_end, const Vector& x0,
             const MethodChoice& method, const Options& options) {
  Integrator it(dae, t0, t_end, x0, method, options);
  return run(it, t_end);
}

}  // namespace daekit
