// Benchmark of daekit on large sparse problems (plain program: prints tables; timing lives
// here, never in the tests). Problems (src/problems/): heat2d, SUNDIALS' idaHeat2D example as
// M u' = f(u) on an m x m grid (5-point Jacobian pattern, boundary values algebraic), at
// m = 32, 100, 317 (n = 1024, 10^4, 100489), and circuit-chain, N coupled IVP Test Set
// transistor amplifiers (ours, n = 8N, Jacobian in the band (2, 1)), at N = 40 and 160. Each
// with radau5 and bdf at the problem's tolerances (rtol = atol = 1e-6; circuit-chain h0 = 1e-6),
// with the automatic linear solver (KLU for the declared sparse patterns) and, where a dense
// LU is affordable (n <= 1100), with Options::linear_solver = Dense. Columns: accepted steps,
// f-evaluations (+ those of difference Jacobians), Jacobians, LU factorisations, CPU time
// (median of repeated runs for runs under 0.3 s) and scd: against heat2d_reference (exact for
// the semi-discrete system) and, for circuit-chain, the stored reference (N = 40) or radau5 at
// rtol = atol = h0 = 1e-12 computed here (N = 160). With SUNDIALS 6 (bench/ida.cmake) IDA runs
// heat2d at m = 10 and 32 too (bench/ida_runner: dense matrix, difference-quotient Jacobian;
// the runner has no KLU path).
//
//   build/bench/daekit_large [--quick]       the table (--quick: without m = 317 and N = 160)
//   build/bench/daekit_large --sweep         circuit-chain N = 40, rtol = atol = h0 =
//                                            10^(-4 - k/4), k = 0 .. 24, radau5 and bdf
//   build/bench/daekit_large --circuit-reference   recompute the stored reference of
//                                            circuit-chain N = 40 (bdf and radau5 at 1e-12,
//                                            bdf at 1e-11; about two minutes) and print it
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"
#ifdef DAEKIT_HAVE_IDA
#include "ida_runner.hpp"
#endif

using namespace daekit;

namespace {

double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// Runs `run` once; cheap runs are repeated until min_time is spent: the median CPU time.
double median_cpu(const std::function<void()>& run, double min_time) {
  std::vector<double> times;
  double total = 0.0;
  do {
    const double t0 = cpu_now();
    run();
    times.push_back(cpu_now() - t0);
    total += times.back();
  } while (total < min_time && times.size() < 200);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

Result run(const BuiltinProblem& p, bool bdf, const Options& o) {
  return bdf ? solve(p.dae, p.t0, p.t_end, p.y0, BdfOptions{}, o)
             : solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
}

Options problem_options(const BuiltinProblem& p, double tol) {
  Options o;
  o.rtol = o.atol = tol;
  o.h0 = p.h0;
  o.store_steps = false;
  o.max_steps = 2000000;
  return o;
}

void print_header() {
  std::printf("%-14s %7s %-6s %-9s %-6s %7s %8s %8s %6s %6s %10s %6s\n", "problem", "n", "method",
              "backend", "status", "steps", "nfev", "+fd", "njac", "nlu", "cpu ms", "scd");
}

void table(bool quick) {
  std::printf("rerun: build/bench/daekit_large%s\n\n", quick ? " --quick" : "");
  print_header();
  struct Case {
    bool heat;
    int size;  // m (heat2d) or N (circuit-chain)
  };
  std::vector<Case> cases = {{true, 32}, {true, 100}, {true, 317}, {false, 40}, {false, 160}};
  for (const Case& c : cases) {
    if (quick && ((c.heat && c.size > 100) || (!c.heat && c.size > 40))) continue;
    BuiltinProblem p = c.heat ? heat2d(c.size) : circuit_chain(c.size);
    Vector ref;
    std::vector<int> components = p.scd_components;
    if (c.heat) {
      ref = heat2d_reference(c.size, p.t_end);
    } else if (c.size == 40) {
      ref = make_builtin_problem("circuit-chain").reference->y;
    } else {
      const Result r = run(p, false, problem_options(p, 1e-12));
      if (r.ok()) ref = r.y;
    }
    const int n = p.dae.n;
    for (bool bdf : {false, true}) {
      for (LinearSolverKind kind : {LinearSolverKind::Automatic, LinearSolverKind::Dense}) {
        if (kind == LinearSolverKind::Dense && n > 1100) continue;
        Options o = problem_options(p, p.rtol);
        o.linear_solver = kind;
        Result r = run(p, bdf, o);
        const double cpu =
            r.cpu_seconds < 0.3 ? median_cpu([&] { run(p, bdf, o); }, 0.3) : r.cpu_seconds;
        const double digits = r.ok() && ref.size() ? scd(r.y, ref, components) : -99.0;
        std::printf("%-14s %7d %-6s %-9s %-6s %7ld %8ld %8ld %6ld %6ld %10.1f %6.2f\n",
                    p.name.c_str(), n, bdf ? "bdf" : "radau5", r.linear_solver.c_str(),
                    r.ok() ? "ok" : "FAIL", r.stats.naccept, r.stats.nfev, r.stats.nfev_jac,
                    r.stats.njac, r.stats.nlu, 1e3 * cpu, digits);
        std::fflush(stdout);
      }
    }
  }
#ifdef DAEKIT_HAVE_IDA
  std::printf(
      "\nSUNDIALS IDA (dense, difference-quotient Jacobian, y'(t0) from initial_derivative)\n");
  print_header();
  for (int m : {10, 32}) {
    const BuiltinProblem p = heat2d(m);
    const ImplicitDae dae = to_implicit_form(p.dae);
    const Vector yp0 = initial_derivative(p.dae, p.t0, p.y0);
    IdaRun ida = run_ida(dae, p.t0, p.t_end, p.y0, yp0, p.rtol, p.atol, 0.0, false);
    const double cpu =
        ida.cpu_seconds < 0.3
            ? median_cpu(
                  [&] { run_ida(dae, p.t0, p.t_end, p.y0, yp0, p.rtol, p.atol, 0.0, false); }, 0.3)
            : ida.cpu_seconds;
    const double digits = ida.ok ? scd(ida.y, heat2d_reference(m, p.t_end)) : -99.0;
    std::printf("%-14s %7d %-6s %-9s %-6s %7ld %8ld %8ld %6ld %6ld %10.1f %6.2f\n", "heat2d",
                p.dae.n, "IDA", "dense", ida.ok ? "ok" : "FAIL", ida.nsteps, ida.nre - ida.nre_ls,
                ida.nre_ls, ida.njev, ida.nlinsetups, 1e3 * cpu, digits);
  }
#endif
}

// The 25-tolerance protocol of the IVP Test Set drivers on circuit-chain N = 40.
void sweep() {
  std::printf("rerun: build/bench/daekit_large --sweep\n");
  const BuiltinProblem p = make_builtin_problem("circuit-chain");
  std::printf("circuit-chain N = 40, rtol = atol = h0 = 10^(-4 - k/4), default options\n");
  std::printf("%-6s %3s %9s %-6s %7s %7s %7s %10s %6s  %s\n", "method", "k", "tol", "status",
              "steps", "reject", "nfail", "cpu ms", "scd", "message");
  for (bool bdf : {false, true}) {
    for (int k = 0; k <= 24; ++k) {
      const double tol = std::pow(10.0, -4.0 - k / 4.0);
      Options o = problem_options(p, tol);
      o.h0 = tol;
      o.max_steps = 100000;  // the default
      const Result r = run(p, bdf, o);
      std::printf("%-6s %3d %9.2e %-6s %7ld %7ld %7ld %10.1f %6.2f  %s\n", bdf ? "bdf" : "radau5",
                  k, tol, r.ok() ? "ok" : "FAIL", r.stats.naccept, r.stats.nreject,
                  r.stats.nnewton_fail, 1e3 * r.cpu_seconds,
                  r.ok() ? scd(r.y, p.reference->y, p.scd_components) : -99.0, r.message.c_str());
      std::fflush(stdout);
    }
  }
}

// Recomputes the reference of circuit-chain N = 40 at t = 0.2 and prints it as the C++ table
// of src/problems/circuit_chain.cpp, with the agreement of the runs (the problem's h0 for all).
void circuit_reference() {
  std::printf("rerun: build/bench/daekit_large --circuit-reference\n");
  BuiltinProblem p = circuit_chain(40);
  struct Run {
    const char* name;
    const char* method;
    double tol;
    Vector y;
  };
  std::vector<Run> runs = {{"bdf 1e-12", "bdf", 1e-12, {}},
                           {"bdf 1e-11", "bdf", 1e-11, {}},
                           {"dirk 1e-12", "dirk", 1e-12, {}},
                           {"radau5 1e-10", "radau5", 1e-10, {}}};
  for (Run& r : runs) {
    const Options o = problem_options(p, r.tol);
    const Result res = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice(r.method), o);
    std::printf("// %-12s %s, %ld steps, %.1f s CPU, scd %.2f against the table in use\n", r.name,
                res.ok() ? "ok" : res.message.c_str(), res.stats.naccept, res.cpu_seconds,
                scd(res.y, p.reference->y, p.scd_components));
    r.y = res.y;
  }
  for (size_t a = 0; a < runs.size(); ++a)
    for (size_t b = a + 1; b < runs.size(); ++b)
      std::printf("// %s vs %s: max |difference| %.1e, scd %.2f\n", runs[a].name, runs[b].name,
                  (runs[a].y - runs[b].y).cwiseAbs().maxCoeff(),
                  scd(runs[a].y, runs[b].y, p.scd_components));
  std::printf("constexpr double kReference40[320] = {\n");
  for (int i = 0; i < 320; ++i)
    std::printf("%s%.16e,%s", i % 3 == 0 ? "    " : " ", runs[0].y[i],
                i % 3 == 2 || i == 319 ? "\n" : "");
  std::printf("};\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--sweep")) {
      sweep();
      return 0;
    } else if (!std::strcmp(argv[i], "--circuit-reference")) {
      circuit_reference();
      return 0;
    } else {
      std::fprintf(stderr, "usage: daekit_large [--quick | --sweep | --circuit-reference]\n");
      return 2;
    }
  }
  table(quick);
  return 0;
}
