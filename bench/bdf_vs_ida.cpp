// daekit's BDF (and radau5) side by side with SUNDIALS IDA on the same index-1 problems, the
// same initial values and the same tolerances, in one run. Per problem and tolerance: scd
// against the IVP Test Set reference, steps, residual evaluations, Jacobians, CPU time per
// solve (median of repeated runs) and the time ratio daekit BDF / IDA. Both codes get the
// analytic Jacobian and y'(t0) from the same routine (initial_derivative).
// "andrews-index2": Andrews' squeezer in the index-2 formulation of its MechanicalSystem
// (formulate(..., Formulation::Index2): 0 = G(q) v, lambda and w tagged index 2), at tol 1e-7 ...
// 1e-10; IDA with its algebraic components (w, lambda) out of the error test (IDASetSuppressAlg,
// the usual setting for index 2), daekit's BDF with its index-2 scaling; scd over the 7 angles.
//
// "pendulum-ssf" (an oscillating ODE) and "vanderpol-a" (a stiff limit cycle): both BDF codes
// control the error of each step, and there the global error grows with the number of steps
// to 100-2000 times the tolerance (scd against the exact / IVP Test Set solution).
//
//   build/bench/daekit_bdf_vs_ida [--quick] [--problem NAME]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"
#include "ida_runner.hpp"
#include "timing.hpp"

using namespace daekit;

namespace {

using daekit_bench::cpu_now;
using daekit_bench::median_cpu;

struct Case {
  const char* problem;
  double atol_factor;
  bool index2 = false;  ///< the index-2 formulation of the problem's MechanicalSystem
};

}  // namespace

int main(int argc, char** argv) {
  double min_time = 0.3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      min_time = 0.03;
    else if (!std::strcmp(argv[i], "--problem") && i + 1 < argc)
      only = argv[++i];
    else {
      std::fprintf(stderr, "usage: daekit_bdf_vs_ida [--quick] [--problem NAME]\n");
      return 2;
    }
  }
  std::printf(
      "daekit BDF and radau5 vs SUNDIALS IDA (dense; analytic Jacobians where the problem "
      "has them, differences for andrews-index2), one run;\n"
      "CPU = median per solve; ratio = daekit BDF time / IDA time\n");
  std::printf("rerun: build/bench/daekit_bdf_vs_ida%s\n\n", min_time < 0.1 ? " --quick" : "");
  std::printf(
      "%-13s %6s | %-6s %5s %6s %6s %5s %9s | %-6s %5s %6s %6s %5s %9s | %6s | %-6s %5s "
      "%9s\n",
      "problem", "tol", "IDA", "scd", "steps", "nre", "njev", "cpu", "BDF", "scd", "steps", "nfev",
      "njac", "cpu", "ratio", "radau5", "scd", "cpu");
  const std::vector<Case> cases = {{"transistor", 1.0},     {"akzo", 1.0},
                                   {"robertson-dae", 1e-6}, {"andrews-index2", 1.0, true},
                                   {"pendulum-ssf", 1.0},   {"vanderpol-a", 1.0}};
  for (const Case& c : cases) {
    if (!only.empty() && only != c.problem) continue;
    BuiltinProblem p;
    try {
      p = make_builtin_problem(c.index2 ? "andrews" : c.problem);
    } catch (const InvalidArgument& e) {
      std::printf("%-13s skipped: %s\n", c.problem, e.what());
      continue;
    }
    if (c.index2) {  // q, v as the index-3 form's first 14 components; scd over q's 7 angles
      const MechanicalSystem& sys = *p.mechanical;
      const int nq = sys.nq;
      const Vector y0 =
          initial_values(sys, Formulation::Index2, p.t0, p.y0.head(nq), p.y0.segment(nq, nq));
      p.dae = formulate(sys, Formulation::Index2);
      p.y0 = y0;
      p.reference->y = Vector(p.reference->y.head(nq));
      p.scd_components.clear();
    }
    IdaSettings ida_settings;
    ida_settings.h0 = p.h0;
    ida_settings.suppress_alg = c.index2;
    const std::vector<double> tols = c.index2 ? std::vector<double>{1e-7, 1e-8, 1e-9, 1e-10}
                                              : std::vector<double>{1e-4, 1e-6, 1e-8, 1e-10};
    const ImplicitDae dae = to_implicit_form(p.dae);
    std::vector<std::pair<double, double>> ida_points, bdf_points;  // (scd, cpu)
    const Vector yp0 = initial_derivative(p.dae, p.t0, p.y0);
    for (double tol : tols) {
      const double atol = tol * c.atol_factor;
      IdaRun ida = run_ida(dae, p.t0, p.t_end, p.y0, yp0, tol, atol, ida_settings);
      const double ida_cpu = median_cpu(
          [&] { run_ida(dae, p.t0, p.t_end, p.y0, yp0, tol, atol, ida_settings); }, min_time);
      Options o;
      o.rtol = tol;
      o.atol = atol;
      o.h0 = p.h0;
      o.store_steps = false;
      o.max_steps = 1000000;
      const Result bdf = solve(dae, p.t0, p.t_end, p.y0, yp0, BdfOptions{}, o);
      const double bdf_cpu =
          median_cpu([&] { solve(dae, p.t0, p.t_end, p.y0, yp0, BdfOptions{}, o); }, min_time);
      const Result rad = solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
      const double rad_cpu =
          median_cpu([&] { solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o); }, min_time);
      auto digits = [&](const Vector& y, bool ok) {
        if (!ok || !p.reference) return -99.0;
        return c.index2 ? scd(y.head(p.reference->y.size()), p.reference->y)
                        : scd(y, p.reference->y, p.scd_components);
      };
      std::printf(
          "%-13s %6.0e | %-6s %5.2f %6ld %6ld %5ld %6.3f ms | %-6s %5.2f %6ld %6ld %5ld "
          "%6.3f ms | %6.2f | %-6s %5.2f %6.3f ms\n",
          c.problem, tol, ida.ok ? "ok" : "FAIL", digits(ida.y, ida.ok), ida.nsteps, ida.nre,
          ida.njev, 1e3 * ida_cpu, bdf.ok() ? "ok" : "FAIL", digits(bdf.y, bdf.ok()),
          bdf.stats.naccept, bdf.stats.nfev + bdf.stats.nfev_jac, bdf.stats.njac, 1e3 * bdf_cpu,
          bdf_cpu / ida_cpu, rad.ok() ? "ok" : "FAIL", digits(rad.y, rad.ok()), 1e3 * rad_cpu);
      if (ida.ok) ida_points.push_back({digits(ida.y, true), ida_cpu});
      if (bdf.ok()) bdf_points.push_back({digits(bdf.y, true), bdf_cpu});
    }
    // equal accuracy: BDF time at IDA's scd, by log-linear interpolation along BDF's points
    std::sort(bdf_points.begin(), bdf_points.end());
    for (const auto& [d_ida, cpu_ida] : ida_points) {
      for (size_t j = 1; j < bdf_points.size(); ++j) {
        const auto [d0, c0] = bdf_points[j - 1];
        const auto [d1, c1] = bdf_points[j];
        if (d0 <= d_ida && d_ida <= d1 && d1 > d0) {
          const double w = (d_ida - d0) / (d1 - d0);
          const double cpu = std::exp((1 - w) * std::log(c0) + w * std::log(c1));
          std::printf("%-13s at equal scd %.2f: IDA %.3f ms, daekit BDF %.3f ms, ratio %.2f\n",
                      c.problem, d_ida, 1e3 * cpu_ida, 1e3 * cpu, cpu / cpu_ida);
          break;
        }
      }
    }
  }
  return 0;
}
