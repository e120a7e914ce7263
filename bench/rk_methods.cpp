// Benchmark of the Runge-Kutta families of issue 13 (docs/benchmarks.md, docs/rk-theory.md):
//   1. variable-order radau (Radau IIA 5/9/13) against radau5 at tol = 1e-10 ... 1e-13 on
//      Andrews, the pendulum, the transistor and Van der Pol: scd, cost counters, the steps
//      taken at each order, and CPU times measured interleaved in one run (radau5, radau,
//      radau5, radau, ... so that both see the same machine load; medians). Where the two reach
//      different scd at the same tol, radau5's cost is also interpolated (log nfev, log CPU
//      against scd over a finer tolerance grid) to radau's scd: "radau5 @ same scd".
//   2. the DIRK/ESDIRK tableaus (and radau5, radau for reference) with error control on Van der
//      Pol, Robertson-DAE, Akzo Nobel and the transistor.
//
//   build/bench/daekit_rk_bench [--quick] [--part 1|2] [--min-time SECONDS]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

Options options_for(const BuiltinProblem& p, double tol) {
  Options o;
  o.rtol = tol;
  o.atol = tol * (p.atol / p.rtol);
  if (p.atol_scale.size()) o.atol_vector = o.atol * p.atol_scale;
  o.h0 = p.h0;
  o.store_steps = false;
  return o;
}

struct Run {
  Result r;
  double scd = 0.0;
  std::vector<double> times;
  long at_order[4] = {0, 0, 0, 0};  // accepted steps at orders 1, 5, 9, 13
  double median() {
    std::sort(times.begin(), times.end());
    return times.empty() ? 0.0 : times[times.size() / 2];
  }
};

Run run_once(const BuiltinProblem& p, const MethodChoice& m, double tol, bool count_orders) {
  Run run;
  Options o = options_for(p, tol);
  if (count_orders)
    o.step_callback = [&run](const StepInfo& s) {
      ++run.at_order[std::clamp((s.order + 1) / 4, 0, 3)];
      return true;
    };
  run.r = solve(p.dae, p.t0, p.t_end, p.y0, m, o);
  run.scd = run.r.ok() && p.reference ? scd(run.r.y, p.reference->y, p.scd_components) : 0.0;
  return run;
}

// radau5's nfev and CPU at the scd `target`, interpolated in (scd, log cost) over tolerances
// 10^(-k/4) around tol.
void radau5_at_scd(const BuiltinProblem& p, double tol, double target, double* nfev, double* cpu) {
  std::vector<double> s, lf, lc;
  for (int k = -8; k <= 8; ++k) {
    const double t = tol * std::pow(10.0, k / 4.0);
    if (t < 1e-14) continue;
    Run r = run_once(p, Radau5Options{}, t, false);
    if (!r.r.ok()) continue;
    const double c0 = cpu_now();
    int reps = 0;
    while (cpu_now() - c0 < 0.05 || reps < 2) {
      run_once(p, Radau5Options{}, t, false);
      ++reps;
    }
    s.push_back(r.scd);
    lf.push_back(std::log(double(r.r.stats.nfev)));
    lc.push_back(std::log((cpu_now() - c0) / reps));
  }
  *nfev = *cpu = std::nan("");
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const double a = s[i], b = s[i + 1];
    if ((target - a) * (target - b) <= 0 && a != b) {
      const double w = (target - a) / (b - a);
      *nfev = std::exp(lf[i] + w * (lf[i + 1] - lf[i]));
      *cpu = std::exp(lc[i] + w * (lc[i + 1] - lc[i]));
      return;
    }
  }
}

void part1(double min_time, bool quick) {
  std::printf(
      "1. variable-order radau against radau5 (rtol = atol = tol; times: medians of "
      "interleaved runs)\n\n");
  std::printf("%-11s %6s | %6s %7s %5s %5s %9s | %6s %7s %5s %5s %9s %-14s | %6s %6s | %s\n",
              "problem", "tol", "scd", "nfev", "njac", "steps", "cpu", "scd", "nfev", "njac",
              "steps", "cpu", "steps 5/9/13", "nfev", "cpu", "radau5 @ radau's scd");
  std::printf("%-11s %6s | %-38s | %-57s | %-13s |\n", "", "", "radau5", "radau", "radau/radau5");
  const std::vector<std::string> problems = {"andrews", "pendulum", "transistor", "vanderpol"};
  const std::vector<double> tols =
      quick ? std::vector<double>{1e-10} : std::vector<double>{1e-10, 1e-11, 1e-12, 1e-13};
  for (const std::string& name : problems) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (double tol : tols) {
      Run a = run_once(p, Radau5Options{}, tol, false);
      Run b = run_once(p, RadauOptions{}, tol, true);
      // interleaved timing
      double spent = 0.0;
      while ((spent < 2 * min_time || a.times.size() < 3) && a.times.size() < 500) {
        for (int which = 0; which < 2; ++which) {
          const double c0 = cpu_now();
          if (which == 0)
            solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, options_for(p, tol));
          else
            solve(p.dae, p.t0, p.t_end, p.y0, RadauOptions{}, options_for(p, tol));
          const double dt = cpu_now() - c0;
          (which == 0 ? a : b).times.push_back(dt);
          spent += dt;
        }
      }
      const double ta = a.median(), tb = b.median();
      char steps[32];
      std::snprintf(steps, sizeof steps, "%ld/%ld/%ld", b.at_order[1], b.at_order[2],
                    b.at_order[3]);
      char matched[96] = "same scd";
      if (std::abs(a.scd - b.scd) > 0.1) {
        double nf = 0, cp = 0;
        radau5_at_scd(p, tol, b.scd, &nf, &cp);
        if (std::isnan(nf))
          std::snprintf(matched, sizeof matched, "scd %.2f outside radau5's range", b.scd);
        else
          std::snprintf(matched, sizeof matched, "nfev %.0f, cpu %.3f ms (radau/: %.2f, %.2f)", nf,
                        1e3 * cp, b.r.stats.nfev / nf, tb / cp);
      }
      std::printf(
          "%-11s %6.0e | %6.2f %7ld %5ld %5ld %6.3f ms | %6.2f %7ld %5ld %5ld %6.3f ms %-14s | "
          "%6.2f %6.2f | %s%s%s\n",
          name.c_str(), tol, a.scd, a.r.stats.nfev, a.r.stats.njac, a.r.stats.nsteps, 1e3 * ta,
          b.scd, b.r.stats.nfev, b.r.stats.njac, b.r.stats.nsteps, 1e3 * tb, steps,
          double(b.r.stats.nfev) / a.r.stats.nfev, tb / ta, matched,
          a.r.ok() ? "" : (" radau5 FAILED: " + a.r.message).c_str(),
          b.r.ok() ? "" : (" radau FAILED: " + b.r.message).c_str());
    }
  }
}

void part2(double min_time, bool quick) {
  std::printf(
      "\n2. DIRK / ESDIRK with error control (rtol = tol, atol = tol * the problem's "
      "atol/rtol)\n\n");
  std::printf("%-14s %-24s %6s | %6s %7s %6s %6s %6s %9s\n", "problem", "method", "tol", "scd",
              "nfev", "njac", "steps", "reject", "cpu");
  struct M {
    std::string label;
    MethodChoice choice;
  };
  auto dirk = [](const RungeKuttaTableau& t) {
    DirkOptions o;
    o.tableau = t;
    return MethodChoice(o);
  };
  const std::vector<M> methods = {
      {"dirk kvaerno3", dirk(kvaerno_esdirk3())}, {"dirk kvaerno4", dirk(kvaerno_esdirk4())},
      {"dirk kvaerno5", dirk(kvaerno_esdirk5())}, {"dirk sdirk4-hw16", dirk(sdirk4_hw16())},
      {"dirk sdirk4-hw18", dirk(sdirk4_hw18())},  {"radau5", MethodChoice("radau5")},
      {"radau", MethodChoice("radau")},           {"bdf", MethodChoice("bdf")}};
  const std::vector<std::string> problems = {"vanderpol", "robertson-dae", "akzo", "transistor"};
  const std::vector<double> tols =
      quick ? std::vector<double>{1e-6} : std::vector<double>{1e-4, 1e-6, 1e-8};
  for (const std::string& name : problems) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (double tol : tols)
      for (const M& m : methods) {
        Run r = run_once(p, m.choice, tol, false);
        const double c0 = cpu_now();
        int reps = 0;
        while (cpu_now() - c0 < min_time || reps < 1) {
          run_once(p, m.choice, tol, false);
          ++reps;
        }
        const double cpu = (cpu_now() - c0) / reps;
        std::printf("%-14s %-24s %6.0e | %6.2f %7ld %6ld %6ld %6ld %6.3f ms%s\n", name.c_str(),
                    m.label.c_str(), tol, r.scd, r.r.stats.nfev, r.r.stats.njac, r.r.stats.naccept,
                    r.r.stats.nreject, 1e3 * cpu,
                    r.r.ok() ? "" : (" FAILED: " + r.r.message).c_str());
      }
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int part = 0;
  double min_time = 0.5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
      min_time = 0.02;
    } else if (!std::strcmp(argv[i], "--part") && i + 1 < argc) {
      part = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--min-time") && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: daekit_rk_bench [--quick] [--part 1|2] [--min-time S]\n");
      return 2;
    }
  }
  std::printf("daekit Runge-Kutta benchmark (issue 13); rerun: build/bench/daekit_rk_bench%s\n\n",
              quick ? " --quick" : "");
  if (part == 0 || part == 1) part1(min_time, quick);
  if (part == 0 || part == 2) part2(min_time / 5, quick);
  return 0;
}
