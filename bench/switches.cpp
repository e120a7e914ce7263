// Models with switches (issue 26): the charge pump (IVP Test Set PUMP, built-in "charge-pump")
// solved in one call per tolerance by radau5, radau and bdf, with its switching functions and
// tstops; scd against the Test Set's reference and against daekit's own tight-tolerance run;
// and the cost of a restart (tstops where nothing happens) for radau5 and bdf.
//
//   build/bench/daekit_switches            the tables (docs/results/switches.md)
//
// Timing lives here, never in the tests (tests/test_switches.cpp asserts the counts).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

Options pump_options(const BuiltinProblem& p, double tol) {
  Options o;
  o.rtol = o.atol = tol;
  if (p.atol_scale.size()) o.atol_vector = tol * p.atol_scale;
  o.h0 = p.h0;
  o.store_steps = false;
  add_model_options(p, o);
  return o;
}

void charge_pump_table() {
  const BuiltinProblem p = make_builtin_problem("charge-pump");
  std::printf("charge-pump, t in [0, 1.2e-6], one call per tolerance (39 tstops, 4 switches)\n");
  std::printf(
      "scd: against the exact y(1.2e-6) (components Y_T1 and I; the Test Set's agrees to "
      "6e-6)\n\n");
  std::printf("%-7s %6s %-10s %6s %7s %7s %6s %6s %7s %8s %8s\n", "method", "tol", "status", "scd",
              "steps", "reject", "fail", "rest", "nfev", "events", "ms");
  for (const char* method : {"radau5", "radau", "bdf"}) {
    for (const double tol : {1e-4, 1e-5, 1e-6, 1e-7, 1e-8}) {
      const auto start = std::chrono::steady_clock::now();
      const Result r = solve(p.dae, p.t0, p.t_end, p.y0, method, pump_options(p, tol));
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      const double digits = r.ok() ? scd(r.y, p.reference->y, p.scd_components) : 0.0;
      std::printf("%-7s %6.0e %-10.10s %6.2f %7ld %7ld %6ld %6ld %7ld %8ld %8.1f\n", method, tol,
                  to_string(r.status), digits, r.stats.naccept, r.stats.nreject, r.stats.nfail,
                  r.stats.nrestart, r.stats.nfev + r.stats.nfev_jac, r.stats.nevents, ms);
      if (!r.ok()) std::printf("        %s\n", r.message.c_str());
    }
  }
  std::printf("\n");
}

void restart_cost_table() {
  std::printf("cost of a restart: 20 tstops where nothing happens, minus the same solve without\n");
  std::printf(
      "(per restart), and the cost of the start (counters after the first accepted step)\n\n");
  std::printf("%-11s %-7s %9s %9s %9s %9s | %9s %9s %9s\n", "problem", "method", "nfev", "njac",
              "nlu", "steps", "start f", "start J", "start LU");
  for (const char* name : {"vanderpol", "transistor", "robertson"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (const char* method : {"radau5", "bdf"}) {
      Options o;
      o.rtol = o.atol = 1e-6;
      if (p.atol_scale.size()) o.atol_vector = 1e-6 * p.atol_scale;
      o.store_steps = false;
      const Result plain = solve(p.dae, p.t0, p.t_end, p.y0, method, o);
      Options with = o;
      const int k = 20;
      for (int i = 1; i <= k; ++i) with.tstops.push_back(p.t0 + (p.t_end - p.t0) * i / (k + 1.0));
      const Result r = solve(p.dae, p.t0, p.t_end, p.y0, method, with);
      // the start: the counters when the first step is accepted
      Stats first;
      bool seen = false;
      Options once = o;
      once.step_callback = [&](const StepInfo&) { return false; };
      const Result one = solve(p.dae, p.t0, p.t_end, p.y0, method, once);
      first = one.stats;
      seen = one.stats.naccept == 1;
      const auto per = [&](long a, long b) { return double(a - b) / k; };
      std::printf("%-11s %-7s %9.1f %9.2f %9.1f %9.1f | %9ld %9ld %9ld%s\n", name, method,
                  per(r.stats.nfev + r.stats.nfev_jac, plain.stats.nfev + plain.stats.nfev_jac),
                  per(r.stats.njac, plain.stats.njac), per(r.stats.nlu, plain.stats.nlu),
                  per(r.stats.naccept, plain.stats.naccept), first.nfev + first.nfev_jac,
                  first.njac, first.nlu, seen && plain.ok() && r.ok() ? "" : "  (a run failed)");
    }
  }
  std::printf("\n");
}

}  // namespace

int main() {
  charge_pump_table();
  restart_cost_table();
  std::printf(
      "rerun: cmake --build build --target daekit_switches && build/bench/daekit_switches\n");
  return 0;
}
