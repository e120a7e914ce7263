// Median CPU time of repeated solves of one built-in problem, written against the API that
// both round 1 (db2ab10) and the redesigned core offer, so that the same source times two
// builds side by side (docs/benchmarks.md, "Core redesign: no slowdown"):
//
//   build/bench/daekit_solve_timer PROBLEM radau5|bdf TOL REPETITIONS
//   g++ -std=c++20 -O3 -DNDEBUG -DOLD_API -IOLD/include -I/usr/include/eigen3 \
//       bench/solve_timer.cpp OLD_BUILD/libdaekit.a -o timer-old        (a round-1 build)
//
// Prints the median milliseconds per solve and the number of step attempts.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>
#ifdef OLD_API
#include "daekit/integrator/solve.hpp"
#include "daekit/problems/registry.hpp"
#else
#include "daekit/daekit.hpp"
#endif

using namespace daekit;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: daekit_solve_timer PROBLEM radau5|bdf TOL REPETITIONS\n");
    return 2;
  }
  const std::string name = argv[1], method = argv[2];
  const double tol = std::atof(argv[3]);
  const int reps = std::max(1, std::atoi(argv[4]));
  const BuiltinProblem p = make_builtin_problem(name);
  Options o;
  o.rtol = o.atol = tol;
  o.h0 = p.h0 > 0 ? tol : 0.0;
  o.store_steps = false;
  std::vector<double> t;
  long steps = 0;
  for (int k = 0; k < reps; ++k) {
    const std::clock_t c0 = std::clock();
    const Result r = method == "bdf" ? solve(p.dae, p.t0, p.t_end, p.y0, BdfOptions{}, o)
                                     : solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
    t.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    steps = r.stats.nsteps;
    if (!r.ok()) {
      std::printf("failed: %s\n", r.message.c_str());
      return 1;
    }
  }
  std::sort(t.begin(), t.end());
  std::printf("%.4f %ld\n", 1e3 * t[t.size() / 2], steps);
  return 0;
}
