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

// The pumped voltages U_2, U_3 while the device conducts (tau = 80 ns of the last period):
// t_end's state is fixed by the algebraic equations alone (the device is off there), so the
// dynamics are checked here, against a run at 1e-10 whose radau5 and bdf agree.
constexpr double kInteriorT = 1.16e-6;

Vector pump_interior(const BuiltinProblem& p, const char* method, double tol, Result& r) {
  Options o = pump_options(p, tol);
  o.output_times = {kInteriorT};
  r = solve(p.dae, p.t0, p.t_end, p.y0, method, o);
  return r.y_out.size() == 1 ? Vector(r.y_out[0]) : Vector();
}

double voltage_error(const Vector& y, const Vector& ref) {
  if (y.size() != ref.size()) return NAN;
  return std::max(std::abs(y[6] - ref[6]) / std::abs(ref[6]),
                  std::abs(y[7] - ref[7]) / std::abs(ref[7]));
}

void charge_pump_table() {
  const BuiltinProblem p = make_builtin_problem("charge-pump");
  Result r5, rb;
  const Vector ref = pump_interior(p, "radau5", 1e-10, r5);
  const Vector check = pump_interior(p, "bdf", 1e-10, rb);
  std::printf("charge-pump, t in [0, 1.2e-6], one call per tolerance (39 tstops, 4 switches)\n");
  std::printf("reference at t = %.3g (U_2 = %.10g, U_3 = %.10g): radau5 at 1e-10 (%s); bdf at\n",
              kInteriorT, ref[6], ref[7], to_string(r5.status));
  std::printf("1e-10 (%s) agrees to %.1e relative\n", to_string(rb.status),
              voltage_error(check, ref));
  std::printf(
      "err U: max relative error of U_2, U_3 there; err I: the index-2 current I at t_end\n");
  std::printf("against the exact value (the Test Set's agrees with it to 6e-6)\n\n");
  std::printf("%-7s %6s %-10s %8s %8s %7s %7s %6s %6s %7s %8s %8s\n", "method", "tol", "status",
              "err U", "err I", "steps", "reject", "fail", "rest", "nfev", "events", "ms");
  for (const char* method : {"radau5", "radau", "bdf"}) {
    for (const double tol : {1e-4, 1e-5, 1e-6, 1e-7, 1e-8}) {
      const auto start = std::chrono::steady_clock::now();
      Result r;
      const Vector y = pump_interior(p, method, tol, r);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      const double err_i = r.ok() ? std::abs(r.y[8] - p.reference->y[8]) / p.reference->y[8] : NAN;
      std::printf("%-7s %6.0e %-10.10s %8.1e %8.1e %7ld %7ld %6ld %6ld %7ld %8ld %8.1f\n", method,
                  tol, to_string(r.status), voltage_error(y, ref), err_i, r.stats.naccept,
                  r.stats.nreject, r.stats.nfail, r.stats.nrestart, r.stats.nfev + r.stats.nfev_jac,
                  r.stats.nevents, ms);
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
