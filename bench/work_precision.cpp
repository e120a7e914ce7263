// Work-precision benchmark of daekit's radau5: per problem and tolerance, the significant
// correct digits (scd) against a reference solution, the cost counters, and the CPU time per
// solve (median over repeated runs). RADAU5 (Fortran) figures quoted from the developers' brief
// and from paper 000, Table 1, are printed beside ours for comparison.
//
//   build/bench/daekit_bench [--quick] [--problem NAME] [--min-time SECONDS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

struct Case {
  std::string problem;
  std::vector<double> tols;
  double atol_factor = 1.0;
  const char* comment = "";
};

double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// Median CPU time of repeated solves, repeating until `min_time` seconds are spent (>= 3 runs).
double median_cpu(const BuiltinProblem& p, const Options& o, double min_time, int* runs) {
  std::vector<double> times;
  double total = 0.0;
  while ((total < min_time || times.size() < 3) && times.size() < 1000) {
    const double t0 = cpu_now();
    Result r = solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
    const double dt = cpu_now() - t0;
    times.push_back(dt);
    total += dt;
  }
  std::sort(times.begin(), times.end());
  *runs = static_cast<int>(times.size());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  double min_time = 0.3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
      min_time = 0.02;
    } else if (!std::strcmp(argv[i], "--problem") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--min-time") && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: daekit_bench [--quick] [--problem NAME] [--min-time S]\n");
      return 2;
    }
  }
  const std::vector<Case> cases = {
      {"pendulum",
       {1e-6, 1e-8, 1e-10, 1e-12},
       1.0,
       "RADAU5 (paper 000 Tab. 1): nfev 2966/6217/12979/24531, njac 276/570/1124/2225"},
      {"andrews",
       {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10},
       1.0,
       "RADAU5 at tol 1e-7: ~2.2 ms, 114 steps (developers' brief)"},
      {"transistor", {1e-4, 1e-6, 1e-8, 1e-10}, 1.0, ""},
      {"vanderpol", {1e-4, 1e-6, 1e-8, 1e-10}, 1.0, ""},
      {"robertson", {1e-4, 1e-6, 1e-8, 1e-10}, 1e-16, ""},
  };
  std::printf("daekit work-precision benchmark (radau5); CPU time = median over repeated runs\n");
  std::printf("rerun: build/bench/daekit_bench%s\n\n", quick ? " --quick" : "");
  std::printf("%-11s %7s %6s %7s %6s %6s %6s %6s %6s %10s %5s\n", "problem", "tol", "scd", "nfev",
              "njac", "nlu", "steps", "accept", "reject", "cpu/solve", "runs");
  for (const Case& c : cases) {
    if (!only.empty() && only != c.problem) continue;
    BuiltinProblem p;
    try {
      p = make_builtin_problem(c.problem);
    } catch (const InvalidArgument& e) {
      std::printf("%-11s skipped: %s\n", c.problem.c_str(), e.what());
      continue;
    }
    Vector ref;
    if (p.reference) ref = p.reference->y;
    for (double tol : c.tols) {
      Options o;
      o.rtol = tol;
      o.atol = tol * c.atol_factor;
      o.h0 = p.h0;
      o.store_steps = false;
      Result r = solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
      int runs = 0;
      const double cpu = r.ok() ? median_cpu(p, o, min_time, &runs) : 0.0;
      const double digits = ref.size() ? scd(r.y, ref, p.scd_components) : 0.0;
      std::printf("%-11s %7.0e %6.2f %7ld %6ld %6ld %6ld %6ld %6ld %8.3f ms %5d%s\n",
                  c.problem.c_str(), tol, digits, r.stats.nfev, r.stats.njac, r.stats.nlu,
                  r.stats.nsteps, r.stats.naccept, r.stats.nreject, 1e3 * cpu, runs,
                  r.ok() ? "" : (" FAILED: " + r.message).c_str());
    }
    if (*c.comment) std::printf("%-11s   %s\n", "", c.comment);
  }
  return 0;
}
