#include "daekit/integrator/solve.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/format.hpp"
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
// augmented curve turns (|dt/ds| small) stopped at an impasse point (Bendtsen and Thomsen 1999, ch.
// 7): say so instead of leaving an unexplained step-size underflow. Small problems only (dense
// SVDs, once).
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
    m << "; the DAE is at a singular point here: an impasse point (Bendtsen and Thomsen 1999, ch. "
         "7), where "
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

// Options::global_error_check: the estimated global error of a successful solve r from the
// difference to a second solve (`rerun`, given the options) at tolerances / kCheckFactor, in
// units of the tolerance as given (RKSUITE's global error assessment integrates a second time
// with smaller steps; here the tolerances decide the steps, for every method alike).
constexpr double kCheckFactor = 10.0;
constexpr double kCheckWarning = 10.0;  // a warning above this many tolerances

std::string fmt_g(double x) { return format_number(x, 3); }

// A solve with a Jacobian structure detected at t0 (Options::detect_sparsity) that failed in
// a way a missing entry of the structure can cause (a Jacobian with an entry left out makes
// Newton a simplified iteration: slow, failing, tiny steps): solved once more, by `rerun`,
// with the dense structure; the result of that solve is returned, with both runs' CPU time
// and counters and a warning naming the first failure.
template <typename Rerun>
void retry_without_detected_structure(const Options& o, Result& r, Rerun&& rerun) {
  const bool numerical =
      r.status == Status::MaxStepsExceeded || r.status == Status::StepSizeTooSmall ||
      r.status == Status::RepeatedNewtonFailure || r.status == Status::SingularMatrix ||
      r.status == Status::NonFiniteFunction || r.status == Status::Unreliable;
  if (!numerical || r.jacobian_structure.rfind("detected", 0) != 0) return;
  Options dense = o;
  dense.detect_sparsity = false;
  Result second = rerun(dense);
  second.warnings.insert(
      second.warnings.begin(),
      "the solve with the Jacobian structure detected at t0 (" + r.jacobian_structure +
          ") ended with " + to_string(r.status) + " at t = " + fmt_g(r.t) + " (" + r.message +
          "); solved again with the dense structure (Options::detect_sparsity = false skips "
          "the first run)");
  second.cpu_seconds += r.cpu_seconds;
  for (const StatsField& f : stats_fields()) second.stats.*f.member += r.stats.*f.member;
  r = std::move(second);
}

// Over the components in the error test of index tag <= 1 (differential and index-1 algebraic:
// the tolerance bounds their error per step; the methods scale or leave out the error of
// index-2 and index-3 components, multipliers and constrained velocities, and say so).
template <typename IndexOf, typename Rerun>
void assess_global_error(const Options& o, Result& r, IndexOf&& index_of, Rerun&& rerun) {
  if (!o.global_error_check) return;
  if (r.status == Status::TerminalEvent) {  // the runs' end points differ with the event's
    r.warnings.push_back(
        "global error not estimated (Options::global_error_check): the solve "
        "stopped at a terminal event, whose location the check's run moves");
    return;
  }
  if (!r.ok()) return;
  constexpr double eps = std::numeric_limits<double>::epsilon();
  Options c = o;
  c.global_error_check = false;
  c.rtol = o.rtol / kCheckFactor;
  c.atol = o.atol / kCheckFactor;
  if (c.atol_vector.size()) c.atol_vector /= kCheckFactor;
  c.h0 = o.h0 / kCheckFactor;
  c.output_times.clear();
  c.store_steps = c.store_dense = false;
  c.step_callback = nullptr;
  c.progress = nullptr;
  c.trace = nullptr;
  if (!(c.rtol > 10 * eps)) {
    r.warnings.push_back("global error not estimated (Options::global_error_check): rtol / " +
                         fmt_g(kCheckFactor) + " = " + fmt_g(c.rtol) +
                         " is below the smallest relative tolerance, 10 eps");
    return;
  }
  Result ref;
  try {
    ref = rerun(c);
  } catch (const std::exception& e) {
    r.warnings.push_back(std::string("global error not estimated: the check's run failed: ") +
                         e.what());
    return;
  }
  r.global_error_cpu_seconds = ref.cpu_seconds;
  if (!ref.ok() || ref.t != r.t || ref.y.size() != r.y.size()) {
    r.warnings.push_back(
        "global error not estimated (Options::global_error_check): the check's "
        "run at tolerances / " +
        fmt_g(kCheckFactor) + " ended with " + to_string(ref.status) + " at t = " + fmt_g(ref.t) +
        " (" + ref.message + ")");
    return;
  }
  std::vector<bool> excluded(static_cast<size_t>(r.y.size()), false);
  for (int i : r.excluded_from_error_test)
    if (i >= 0 && i < r.y.size()) excluded[static_cast<size_t>(i)] = true;
  double worst = 0.0;
  int where = -1;
  for (Eigen::Index i = 0; i < r.y.size(); ++i) {
    if (excluded[static_cast<size_t>(i)] || index_of(static_cast<int>(i)) > 1) continue;
    const double atol_i = o.atol_vector.size() ? o.atol_vector[i] : o.atol;
    const double e = std::abs(r.y[i] - ref.y[i]) / (atol_i + o.rtol * std::abs(ref.y[i]));
    if (!(e <= worst)) {  // NaN counts as the worst
      worst = e;
      where = static_cast<int>(i);
    }
  }
  if (where < 0) {  // nothing to compare: every component excluded or of index 2 or 3
    r.warnings.push_back(
        "global error not estimated (Options::global_error_check): no component of index "
        "tag <= 1 is in the error test");
    return;
  }
  r.global_error = worst;
  r.global_error_component = where;
  if (!(worst <= kCheckWarning))
    r.warnings.push_back(
        "estimated global error at t = " + fmt_g(r.t) + ": " + fmt_g(worst) +
        " times the tolerance (component " + std::to_string(where) +
        "; the difference to a second solve at tolerances / " + fmt_g(kCheckFactor) +
        "): every step met the tolerance, but the errors accumulated (tighter tolerances, or a "
        "method whose errors accumulate less, e.g. radau on oscillations)");
}

// A solve of any problem form: `make(options)` builds its Integrator; a failed solve on a
// detected structure is solved again dense, `finish(r)` adds the form's own diagnosis, and the
// global error is assessed over the components `index_of` tags <= 1.
template <typename Make, typename IndexOf, typename Finish>
Result solve_form(double t_end, const Options& options, Make&& make, IndexOf&& index_of,
                  Finish&& finish) {
  const auto solve_with = [&](const Options& o) {
    Integrator it = make(o);
    return run(it, t_end);
  };
  Result r = solve_with(options);
  retry_without_detected_structure(options, r, solve_with);
  finish(r);
  assess_global_error(options, r, index_of, solve_with);
  return r;
}
const auto no_diagnosis = [](Result&) {};
}  // namespace

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method, const Options& options) {
  return solve_form(
      t_end, options, [&](const Options& o) { return Integrator(dae, t0, t_end, y0, method, o); },
      [&](int i) { return dae.index_of(i); }, [&](Result& r) { explain_impasse(dae, t0, y0, r); });
}

Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options) {
  return solve(dae, t0, t_end, y0, MethodChoice("radau5"), options);
}

Result solve(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const MethodChoice& method, const Options& options) {
  return solve_form(
      t_end, options,
      [&](const Options& o) { return Integrator(dae, t0, t_end, y0, yp0, method, o); },
      [&](int i) { return dae.index_of(i); }, no_diagnosis);
}

Result solve(const QuasiLinearDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method, const Options& options) {
  return solve_form(
      t_end, options, [&](const Options& o) { return Integrator(dae, t0, t_end, y0, method, o); },
      [&](int i) { return dae.index.empty() ? 1 : dae.index[static_cast<size_t>(i)]; },
      no_diagnosis);
}

Result solve(const QuasiLinearDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options) {
  return solve(dae, t0, t_end, y0, MethodChoice("radau5"), options);
}

Result solve(const ImplicitIndex2Dae& dae, double t0, double t_end, const Vector& x0,
             const MethodChoice& method, const Options& options) {
  return solve_form(
      t_end, options, [&](const Options& o) { return Integrator(dae, t0, t_end, x0, method, o); },
      [&](int i) { return i < dae.n ? 1 : 2; },  // x = (y, z): z index 2
      no_diagnosis);
}

}  // namespace daekit
