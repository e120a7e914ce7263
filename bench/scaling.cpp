// Large problems (issue 10, part 5): daekit's radau5 and bdf against SUNDIALS IDA on
//  * heat2d (SUNDIALS' idaHeat2D, src/problems/heat2d.cpp) at n = m^2 = 1e3 .. 1e6, all with
//    the same analytic sparse Jacobian and KLU (IDA: SUNLinSol_KLU through bench/ida_runner),
//    or daekit's iterative backend, GMRES + AMG, for the codes radau5-amg and bdf-amg: time per
//    solve, time per step, peak memory, and their growth with n;
//  * heat2d at n = 1e5 over a range of tolerances: time per solve at equal accuracy (scd
//    against the exact solution of the semi-discrete system, heat2d_reference);
//  * food-web (SUNDIALS' idaFoodWeb, src/problems/food_web.cpp, n = 800, banded): daekit's
//    banded LU against IDA's band solver, the same analytic Jacobian, over a range of
//    tolerances: at equal scd over the transient [0, 0.01] (reference: radau5 at rtol = atol =
//    1e-11) and at equal tolerance over idaFoodWeb's [0, 1] (steady from t ~ 0.3: no scd there).
// Every case of the first two tables runs in a child process of its own (this program with
// --case), so that its peak resident memory (getrusage ru_maxrss) is its own; CPU time (clock)
// of the solve call, set-up included (IDA: creation, initialisation and integration; daekit:
// solve()). Cases below 0.3 s are repeated in their child and the median taken. The food-web
// table runs in this process, the three codes interleaved per tolerance (median of repeats).
//
//   build/bench/daekit_scaling                   heat2d n = 1e3 ... 1e6 (about an hour, most of it
//                                                n = 1e6; peak memory 3.5 GB)
//   build/bench/daekit_scaling --max-n 100000    the same up to n = 1e5
//   build/bench/daekit_scaling --codes radau5,bdf   only these codes (of radau5, bdf, ida,
//                                                radau5-amg, bdf-amg)
//   build/bench/daekit_scaling --accuracy        heat2d n = 1e5, tol 1e-5 .. 1e-8, equal scd
//   build/bench/daekit_scaling --krylov [--max-n N]   heat2d n = 1e4 ... 1e6, tol 1e-5 ...
//                                                1e-8: GMRES + AMG against IDA + SPGMR with
//                                                idaHeat2D_kry's preconditioner at equal scd,
//                                                ns per unknown per Krylov iteration against
//                                                the STREAM-triad bound
//   build/bench/daekit_scaling --backend         the STREAM triad and the iterative backend alone
//                                                (--krylov's first table)
//   build/bench/daekit_scaling --kernels         ns per row of A x and of a Gauss-Seidel sweep
//                                                at n = 1e4, 1e5, 1e6 (the machine's share)
//   build/bench/daekit_scaling --foodweb         food-web, tol 1e-4 .. 1e-9: equal scd over
//                                                [0, 0.01], equal tol over [0, 1]
//   build/bench/daekit_scaling --case CODE M TOL one case (CODE radau5 | bdf | ida |
//                                                radau5-amg | bdf-amg): one line
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"
#include "linalg/linear_solver.hpp"  // the iterative backend alone (--backend)
#include "timing.hpp"
#ifdef DAEKIT_HAVE_IDA
#include "ida_runner.hpp"
#endif

using namespace daekit;

namespace {

using daekit_bench::cpu_now;
using daekit_bench::median_cpu;

double peak_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // Linux: kilobytes
}

struct Outcome {
  bool ok = false;
  long steps = 0, nfev = 0, njac = 0, nlu = 0, nsol = 0, nli = 0;  // nli: GMRES iterations
  double cpu = 0.0, scd = -99.0, setup_mb = 0.0, peak_mb = 0.0;
};

Options options_for(double tol, double h0) {
  Options o;
  o.rtol = o.atol = tol;
  o.h0 = h0;
  o.store_steps = false;
  o.max_steps = 1000000;
  return o;
}

// One solve of problem p by `code` at rtol = atol = tol (cpu: median over repeats when short).
Outcome run_code(const std::string& code, const BuiltinProblem& p, double tol, const Vector& ref,
                 double min_time, double consistency_tol = 0.0) {
  Outcome out;
  Options o = options_for(tol, p.h0);
  o.consistency_tol = consistency_tol;
  if (code == "radau5" || code == "bdf" || code == "radau5-amg" || code == "bdf-amg") {
    const bool bdf = code == "bdf" || code == "bdf-amg";
    if (code.size() > 4 && code.compare(code.size() - 4, 4, "-amg") == 0)
      o.linear_solver = LinearSolverKind::Iterative;
    auto once = [&] {
      return bdf ? solve(p.dae, p.t0, p.t_end, p.y0, BdfOptions{}, o)
                 : solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
    };
    Result r;
    const double t0 = cpu_now();
    r = once();
    out.cpu = median_cpu([&] { once(); }, min_time, cpu_now() - t0);
    out.ok = r.ok();
    out.steps = r.stats.naccept;
    out.nfev = r.stats.nfev + r.stats.nfev_jac;
    out.njac = r.stats.njac;
    out.nlu = r.stats.nlu;
    out.nsol = r.stats.nsol;
    out.nli = r.stats.nli;
    if (out.ok) out.scd = scd(r.y, ref);
    return out;
  }
#ifdef DAEKIT_HAVE_IDA
  if (code == "ida" || code == "ida-band" || code == "ida-dq" || code == "ida-spgmr") {
    const ImplicitDae dae = to_implicit_form(p.dae);
    const Vector yp0 = initial_derivative(p.dae, p.t0, p.y0);
    IdaSettings s;
    s.h0 = p.h0;
    s.max_steps = 1000000;
    if (code == "ida") {
      s.solver = IdaSettings::Solver::Klu;
    } else if (code == "ida-spgmr") {
      s.solver = IdaSettings::Solver::Spgmr;
    } else {
      s.solver = IdaSettings::Solver::Band;
      s.lower = p.dae.jacobian_sparsity.lower;
      s.upper = p.dae.jacobian_sparsity.upper;
      s.analytic_jacobian = code == "ida-band";
    }
    IdaRun r;
    const double t0 = cpu_now();
    r = run_ida(dae, p.t0, p.t_end, p.y0, yp0, tol, tol, s);
    out.cpu = median_cpu([&] { run_ida(dae, p.t0, p.t_end, p.y0, yp0, tol, tol, s); }, min_time,
                         cpu_now() - t0);
    out.ok = r.ok;
    out.steps = r.nsteps;
    out.nfev = r.nre;
    out.njac = r.njev;
    out.nlu = r.nlinsetups;
    out.nsol = r.nni;  // IDA: one linear solve per Newton iteration
    out.nli = r.nli;
    if (out.ok) out.scd = scd(r.y, ref);
    return out;
  }
#endif
  std::fprintf(stderr, "daekit_scaling: unknown or unavailable code '%s'\n", code.c_str());
  std::exit(2);
}

// --case CODE M TOL: heat2d(M) solved once by CODE, one line for the parent.
int run_case(const std::string& code, int m, double tol) {
  const BuiltinProblem p = heat2d(m);
  const Vector ref = heat2d_reference(m, p.t_end);
  const double setup = peak_mb();
  Outcome o = run_code(code, p, tol, ref, 0.3);
  o.setup_mb = setup;
  o.peak_mb = peak_mb();
  std::printf("RESULT %d %ld %ld %ld %ld %.6e %.4f %.1f %.1f %ld %ld\n", o.ok ? 1 : 0, o.steps,
              o.nfev, o.njac, o.nlu, o.cpu, o.scd, o.setup_mb, o.peak_mb, o.nsol, o.nli);
  return 0;
}

std::string self_path;

// Runs --case in a child process and parses its line.
Outcome child_case(const std::string& code, int m, double tol) {
  char cmd[512];
  std::snprintf(cmd, sizeof cmd, "%s --case %s %d %.3e", self_path.c_str(), code.c_str(), m, tol);
  Outcome o;
  FILE* pipe = popen(cmd, "r");
  if (!pipe) return o;
  char line[512];
  while (std::fgets(line, sizeof line, pipe)) {
    int ok = 0;
    if (std::sscanf(line, "RESULT %d %ld %ld %ld %ld %lf %lf %lf %lf %ld %ld", &ok, &o.steps,
                    &o.nfev, &o.njac, &o.nlu, &o.cpu, &o.scd, &o.setup_mb, &o.peak_mb, &o.nsol,
                    &o.nli) == 11)
      o.ok = ok != 0;
  }
  pclose(pipe);
  return o;
}

// The default codes of the scaling table; "radau5-amg" and "bdf-amg" (the iterative backend,
// GMRES + AMG) are also accepted by --codes.
std::vector<std::string> codes() {
#ifdef DAEKIT_HAVE_IDA
  return {"radau5", "bdf", "ida"};
#else
  return {"radau5", "bdf"};
#endif
}
std::vector<std::string> known_codes() {
  std::vector<std::string> all = codes();
  all.push_back("radau5-amg");
  all.push_back("bdf-amg");
#ifdef DAEKIT_HAVE_IDA
  all.push_back("ida-spgmr");
#endif
  return all;
}

const char* code_title(const std::string& c) {
  if (c == "ida") return "IDA+KLU";
  if (c == "ida-band") return "IDA band";
  if (c == "ida-dq") return "IDA bandDQ";
  if (c == "ida-spgmr") return "IDA+SPGMR";
  if (c == "radau5-amg") return "radau5/AMG";
  if (c == "bdf-amg") return "bdf/AMG";
  return c.c_str();
}

void scaling_table(long max_n, double tol, const std::vector<std::string>& list) {
  std::printf(
      "heat2d (idaHeat2D), rtol = atol = %.0e, the analytic sparse Jacobian for all; KLU, but\n"
      "GMRES + AMG (daekit's 'iterative' backend) for radau5/AMG and bdf/AMG;\n"
      "one child process per case: CPU time of the solve call (median of repeats below 0.3 s),\n"
      "peak resident memory (ru_maxrss) after building the problem and after the solve\n",
      tol);
  std::string rerun = "build/bench/daekit_scaling";
  if (max_n < 1000000) rerun += " --max-n " + std::to_string(max_n);
  if (list != codes()) {
    rerun += " --codes ";
    for (size_t c = 0; c < list.size(); ++c) rerun += (c ? "," : "") + list[c];
  }
  std::printf("rerun: %s\n\n", rerun.c_str());
  std::printf("%-8s %8s %-4s %6s %7s %6s %6s %11s %10s %6s %9s %9s %8s\n", "code", "n", "ok",
              "steps", "nfev", "njac", "nlu", "s/solve", "ms/step", "scd", "setup MB", "peak MB",
              "nli/sol");
  struct Row {
    std::string code;
    long n;
    Outcome o;
  };
  std::vector<Row> rows;
  for (int m : {32, 100, 317, 1000}) {
    const long n = static_cast<long>(m) * m;
    if (n > 1.1 * static_cast<double>(max_n)) continue;
    for (const std::string& c : list) {
      const Outcome o = child_case(c, m, tol);
      rows.push_back({c, n, o});
      std::printf("%-8s %8ld %-4s %6ld %7ld %6ld %6ld %11.4f %10.3f %6.2f %9.1f %9.1f %8.2f\n",
                  code_title(c), n, o.ok ? "ok" : "FAIL", o.steps, o.nfev, o.njac, o.nlu, o.cpu,
                  o.steps ? 1e3 * o.cpu / o.steps : 0.0, o.scd, o.setup_mb, o.peak_mb,
                  o.nsol ? static_cast<double>(o.nli) / o.nsol : 0.0);
      std::fflush(stdout);
    }
  }
  std::printf("\ngrowth from n = 1e4 to the largest n run (%s), per code:\n",
              max_n >= 1000000 ? "1e6, 100x" : "the factor in n given");
  for (const std::string& c : list) {
    const Row *a = nullptr, *b = nullptr;
    for (const Row& r : rows)
      if (r.code == c) {
        if (r.n == 10000) a = &r;
        if (r.n > 10000 && (!b || r.n > b->n)) b = &r;
      }
    if (!a || !b || !a->o.ok || !b->o.ok) continue;
    const double per_step_a = a->o.cpu / a->o.steps, per_step_b = b->o.cpu / b->o.steps;
    std::printf(
        "%-8s n x %.0f: time per solve x %.1f, time per step x %.1f, steps x %.2f, "
        "peak memory x %.1f",
        code_title(c), static_cast<double>(b->n) / a->n, b->o.cpu / a->o.cpu,
        per_step_b / per_step_a, static_cast<double>(b->o.steps) / a->o.steps,
        b->o.peak_mb / a->o.peak_mb);
    if (a->o.nli > 0 && b->o.nli > 0)  // the iterative backend: GMRES iterations per solve
      std::printf(", GMRES iterations per solve x %.2f",
                  (static_cast<double>(b->o.nli) / b->o.nsol) /
                      (static_cast<double>(a->o.nli) / a->o.nsol));
    std::printf("\n");
  }
}

// Time at equal accuracy: the code's log(time) interpolated linearly in scd at the reference
// code's scd values.
void equal_scd(const std::string& name, const std::vector<std::pair<double, double>>& points,
               const std::vector<std::pair<double, double>>& ref_points, const char* ref_name) {
  std::vector<std::pair<double, double>> p = points;
  std::sort(p.begin(), p.end());
  for (const auto& [d_ref, t_ref] : ref_points) {
    bool bracketed = false;
    for (size_t j = 1; j < p.size() && !bracketed; ++j) {
      const auto [d0, t0] = p[j - 1];
      const auto [d1, t1] = p[j];
      if (d0 <= d_ref && d_ref <= d1 && d1 > d0) {
        const double w = (d_ref - d0) / (d1 - d0);
        const double t = std::exp((1 - w) * std::log(t0) + w * std::log(t1));
        std::printf("  at %s's scd %.2f: %s %.4f s, %s %.4f s, ratio %.2f\n", ref_name, d_ref,
                    ref_name, t_ref, name.c_str(), t, t / t_ref);
        bracketed = true;
      }
    }
    if (bracketed) continue;
    // outside the code's range: its cheapest run at least as accurate (an upper bound of the
    // equal-accuracy ratio), if any
    const std::pair<double, double>* best = nullptr;
    for (const auto& q : p)
      if (q.first >= d_ref && (!best || q.second < best->second)) best = &q;
    if (best)
      std::printf(
          "  at %s's scd %.2f: %s %.4f s; %s's cheapest run at least as accurate "
          "(scd %.2f) %.4f s, ratio <= %.2f\n",
          ref_name, d_ref, ref_name, t_ref, name.c_str(), best->first, best->second,
          best->second / t_ref);
  }
}

void accuracy_table() {
  const int m = 317;
  std::printf(
      "heat2d n = %d, rtol = atol = tol, KLU for all (one child process per run); scd against\n"
      "the exact solution of the semi-discrete system; equal-scd ratios below\n",
      m * m);
  std::printf("rerun: build/bench/daekit_scaling --accuracy\n\n");
  std::printf("%-8s %8s %-4s %6s %7s %6s %6s %11s %6s %9s\n", "code", "tol", "ok", "steps", "nfev",
              "njac", "nlu", "s/solve", "scd", "peak MB");
  std::vector<std::vector<std::pair<double, double>>> points(codes().size());
  for (double tol : {1e-5, 1e-6, 1e-7, 1e-8}) {
    for (size_t c = 0; c < codes().size(); ++c) {
      const Outcome o = child_case(codes()[c], m, tol);
      std::printf("%-8s %8.0e %-4s %6ld %7ld %6ld %6ld %11.4f %6.2f %9.1f\n",
                  code_title(codes()[c]), tol, o.ok ? "ok" : "FAIL", o.steps, o.nfev, o.njac, o.nlu,
                  o.cpu, o.scd, o.peak_mb);
      std::fflush(stdout);
      if (o.ok) points[c].push_back({o.scd, o.cpu});
    }
  }
  if (codes().size() < 3) return;
  for (size_t c = 0; c < 2; ++c) {
    std::printf("%s against IDA+KLU:\n", codes()[c].c_str());
    equal_scd(codes()[c], points[c], points[2], "IDA+KLU");
  }
}

// The food web over [0, t_end]: idaFoodWeb's interval is [0, 1], but from t ~ 0.3 on the
// solution sits at its steady state, where every code's final value agrees to 10-15 digits
// whatever its tolerance: scd at t = 1 measures nothing. The equal-accuracy table therefore
// integrates over the transient [0, 0.01] (scd 3.8 ... 8.7 over the tolerances); the second
// table times the whole interval [0, 1] at equal tolerance.
void foodweb_table(double t_end) {
  BuiltinProblem p = food_web(20);
  p.t_end = t_end;
  // the predator equations' terms reach 1e10: at consistent values their residual is ~1e-6
  // (rounding), above the default check 10 atol for atol < 1e-7
  constexpr double kConsistencyTol = 1e-4;
  Options ro = options_for(1e-11, 0.0);
  ro.consistency_tol = kConsistencyTol;
  const Result ref = solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, ro);
  std::printf(
      "food-web (idaFoodWeb, m = 20, n = %d), t in [0, %g], banded: daekit's banded LU\n"
      "(automatic backend for the declared band 2m) against IDA's band solver with the same\n"
      "analytic Jacobian (and with IDA's difference-quotient band Jacobian); rtol = atol = tol;\n"
      "CPU median of repeats, the codes interleaved per tolerance; reference radau5 at 1e-11\n"
      "(%s, %ld steps); daekit's consistency check at t0 with tolerance 1e-4 (the algebraic\n"
      "residual is ~1e-6)\n",
      p.dae.n, t_end, ref.ok() ? "ok" : "FAILED", ref.stats.naccept);
  std::printf("%-10s %8s %-4s %6s %7s %6s %6s %10s %6s\n", "code", "tol", "ok", "steps", "nfev",
              "njac", "nlu", "ms/solve", "scd");
  std::vector<std::string> list = {"radau5", "bdf"};
#ifdef DAEKIT_HAVE_IDA
  list.push_back("ida-band");
  list.push_back("ida-dq");
#endif
  std::vector<std::vector<std::pair<double, double>>> points(list.size());
  std::vector<std::vector<double>> times(list.size());
  for (double tol : {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9}) {
    for (size_t c = 0; c < list.size(); ++c) {
      const Outcome o = run_code(list[c], p, tol, ref.y, 0.5, kConsistencyTol);
      std::printf("%-10s %8.0e %-4s %6ld %7ld %6ld %6ld %10.3f %6.2f\n", code_title(list[c]), tol,
                  o.ok ? "ok" : "FAIL", o.steps, o.nfev, o.njac, o.nlu, 1e3 * o.cpu, o.scd);
      std::fflush(stdout);
      if (o.ok) points[c].push_back({o.scd, o.cpu});
      times[c].push_back(o.ok ? o.cpu : 0.0);
    }
  }
  if (list.size() < 3) return;
  for (size_t c = 0; c < 2; ++c) {
    if (t_end <= 0.011) {
      std::printf("%s against IDA band at equal scd:\n", list[c].c_str());
      equal_scd(list[c], points[c], points[2], "IDA band");
    } else {
      std::printf("%s / IDA band at equal tolerance 1e-4 ... 1e-9:", list[c].c_str());
      for (size_t k = 0; k < times[c].size(); ++k)
        std::printf(" %.2f", times[2][k] > 0 ? times[c][k] / times[2][k] : 0.0);
      std::printf("\n");
    }
  }
}

}  // namespace

// --kernels: what the machine's memory hierarchy alone does to a sparse iteration's cost per
// unknown from n = 1e4 to 1e6, on the five-point matrix of heat2d's interior (compressed rows,
// double values, int indices, as the iterative backend stores it): the product y = A x
// (bandwidth-bound once A and x leave the caches) and one forward Gauss-Seidel sweep (bound by
// the latency of its recurrence through x_{i-1}). CPU ns per row, median of 5 timings.
void kernels_table() {
  std::printf(
      "the five-point matrix (n = m^2, 5 entries per row, CSR with double values and int\n"
      "indices): CPU ns per row of y = A x and of a forward Gauss-Seidel sweep, median of 5\n"
      "rerun: build/bench/daekit_scaling --kernels\n\n");
  std::printf("%8s %12s %12s\n", "n", "A x ns/row", "GS ns/row");
  double first[2] = {0.0, 0.0}, last[2] = {0.0, 0.0};
  for (int m : {100, 317, 1000}) {
    const int n = m * m;
    std::vector<int> ptr(static_cast<size_t>(n) + 1, 0), idx;
    std::vector<double> val;
    for (int i = 0; i < n; ++i) {
      const int r = i / m, c = i % m;
      const int cols[5] = {r > 0 ? i - m : -1, c > 0 ? i - 1 : -1, i, c < m - 1 ? i + 1 : -1,
                           r < m - 1 ? i + m : -1};
      for (int j : cols)
        if (j >= 0) {
          idx.push_back(j);
          val.push_back(j == i ? 4.5 : -1.0);
        }
      ptr[static_cast<size_t>(i) + 1] = static_cast<int>(idx.size());
    }
    std::vector<double> x(static_cast<size_t>(n), 1.0), y(static_cast<size_t>(n), 0.0);
    const std::vector<double> inv_diag(static_cast<size_t>(n), 1.0 / 4.5);
    const int reps = std::max(3, static_cast<int>(2e7 / n));
    double ns[2];
    for (int kernel = 0; kernel < 2; ++kernel) {
      std::vector<double> t;
      for (int round = 0; round < 5; ++round) {
        const double t0 = cpu_now();
        for (int rep = 0; rep < reps; ++rep)
          for (int i = 0; i < n; ++i) {
            double sum = kernel == 0 ? 0.0 : y[static_cast<size_t>(i)];
            for (int k = ptr[static_cast<size_t>(i)]; k < ptr[static_cast<size_t>(i) + 1]; ++k) {
              const int j = idx[static_cast<size_t>(k)];
              if (kernel == 0)
                sum += val[static_cast<size_t>(k)] * x[static_cast<size_t>(j)];
              else if (j != i)
                sum -= val[static_cast<size_t>(k)] * x[static_cast<size_t>(j)];
            }
            if (kernel == 0)
              y[static_cast<size_t>(i)] = sum;
            else
              x[static_cast<size_t>(i)] = sum * inv_diag[static_cast<size_t>(i)];
          }
        t.push_back(cpu_now() - t0);
      }
      std::sort(t.begin(), t.end());
      ns[kernel] = 1e9 * t[2] / reps / n;
      if (m == 100) first[kernel] = ns[kernel];
      last[kernel] = ns[kernel];
    }
    std::printf("%8d %12.2f %12.2f\n", n, ns[0], ns[1]);
  }
  std::printf("\nfrom n = 1e4 to 1e6: A x x %.2f per row, Gauss-Seidel x %.2f per row\n",
              last[0] / first[0], last[1] / first[1]);
}

// STREAM's triad a = b + s c over arrays far larger than the caches (3 x 80 MB): the machine's
// sustainable memory bandwidth for this process, in bytes per second (24 bytes per element:
// two loads and a store; write-allocate traffic not counted, as STREAM counts it). Best of 10.
double triad_bandwidth() {
  const size_t n = 10000000;
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  double best = 1e300;
  for (int round = 0; round < 10; ++round) {
    const double t0 = cpu_now();
    const double scalar = 3.0 + round;
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    best = std::min(best, cpu_now() - t0);
  }
  volatile double sink = a[n / 2];  // keep the loop
  (void)sink;
  return 24.0 * static_cast<double>(n) / best;
}

// The bytes one GMRES iteration of the iterative backend must move per unknown at least on the
// finest level of heat2d's five-point matrix, for a scalar of `scalar_bytes` (8 real, 16
// complex): the V-cycle's two Gauss-Seidel sweeps each stream the matrix row (5 values, 5
// column indices of 4 B, a row pointer of 4 B) and three vectors (right-hand side and iterate
// read, iterate written), the modified Gram-Schmidt step of Arnoldi index j reads j + 1 basis
// vectors twice (dot product, then update of the new direction). j_mean: the mean Arnoldi
// index, (iterations per solve - 1) / 2. Coarse levels, prolongation and restriction and the
// new direction's norm are left out: a lower bound of the traffic, so the bound below is
// optimistic for daekit.
double krylov_bytes_per_unknown(double iterations_per_solve, double scalar_bytes = 8.0) {
  const double j_mean = std::max(0.0, (iterations_per_solve - 1.0) / 2.0);
  return 2.0 * (5 * scalar_bytes + 5 * 4 + 4 + 3 * scalar_bytes) +
         2.0 * scalar_bytes * (j_mean + 1.0);
}

// The iterative backend alone on heat2d's iteration matrix A = s M - J (J at u0), the real
// s = 1/h and Radau IIA's complex s = (alpha + i beta)/h: CPU ns per unknown per GMRES
// iteration of solve_in_place() (one AMG V-cycle, the product and modified Gram-Schmidt; the
// AMG set-up in factor() timed apart), over repeated solves of a fixed right-hand side.
template <typename Scalar>
void backend_row(int m, double h, Scalar s, const char* label, double bandwidth) {
  const BuiltinProblem p = heat2d(m);
  const int n = p.dae.n;
  SparseMatrix J = p.dae.jacobian_sparsity.to_pattern(n);
  J.makeCompressed();
  J.coeffs().setZero();
  p.dae.sparse_jacobian(p.t0, p.y0, J, p.dae.p);
  auto solver = make_krylov_solver<Scalar>(n, J);
  auto& A = solver->matrix().sparse();
  for (int c = 0; c < J.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(J, c); it; ++it)
      A.coeffRef(it.row(), it.col()) =
          (it.row() == it.col() ? s * p.dae.mass_sparse.coeff(it.row(), it.col()) : Scalar(0)) -
          Scalar(it.value());
  long iterations = 0;
  solver->count_iterations_in(&iterations);
  const double f0 = cpu_now();
  const bool ok = solver->factor();
  const double setup = cpu_now() - f0;
  using Vec = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  const Vec b = Vec::Ones(n);
  Vec x = b;
  const int reps = std::max(2, static_cast<int>(3e6 / n));
  iterations = 0;
  const double t0 = cpu_now();
  for (int r = 0; r < reps && ok; ++r) {
    x = b;
    solver->solve_in_place(x);
  }
  const double time = cpu_now() - t0;
  const double per_solve = static_cast<double>(iterations) / reps;
  const double ns = iterations ? 1e9 * time / (static_cast<double>(n) * iterations) : 0.0;
  const double bound = 1e9 * krylov_bytes_per_unknown(per_solve, sizeof(Scalar)) / bandwidth;
  std::printf("%8d %8.0e %-8s %-3s %8.2f %10.2f %10.2f %8.2f %10.1f\n", n, h, label,
              ok ? "ok" : "no", per_solve, ns, bound, ns / bound, 1e9 * setup / n);
  std::fflush(stdout);
}

void backend_table(long max_n, double bandwidth) {
  std::printf(
      "\nthe iterative backend alone on heat2d's A = s M - J (J at u0): s = 1/h (real) and\n"
      "Radau IIA's (alpha + i beta)/h (complex); iterations per solve, CPU ns per unknown per\n"
      "GMRES iteration (solve_in_place over repeated solves), the STREAM-triad bound of the\n"
      "iteration's bytes (krylov_bytes_per_unknown, real or complex), their ratio, AMG set-up\n"
      "ns per unknown\n\n");
  std::printf("%8s %8s %-8s %-3s %8s %10s %10s %8s %10s\n", "n", "h", "system", "ok", "it/sol",
              "ns/(u it)", "bound ns", "x bound", "setup ns/u");
  const double alpha = 2.6810828736277523, beta = 3.0504301992474105;  // Radau IIA(3)'s pair
  for (int m : {100, 317, 1000}) {
    if (static_cast<double>(m) * m > 1.1 * static_cast<double>(max_n)) continue;
    for (double h : {1e-3, 1e-2}) {
      backend_row<double>(m, h, 1.0 / h, "real", bandwidth);
      backend_row<std::complex<double>>(m, h, std::complex<double>(alpha, beta) / h, "complex",
                                        bandwidth);
    }
  }
}

// --krylov: heat2d at n = 1e4, 1e5, 1e6 over tolerances, daekit's iterative backend (GMRES +
// AMG) against the anchor an IDA user of this size runs: IDA + SPGMR with idaHeat2D_kry's
// preconditioner (the inverse diagonal of dF/dy + cj dF/dy'), one child process per run, codes
// interleaved per tolerance; equal-scd time ratios per n; then the time per unknown per Krylov
// iteration against the STREAM-triad bound of krylov_bytes_per_unknown().
void krylov_table(long max_n) {
#ifdef DAEKIT_HAVE_IDA
  const std::vector<std::string> list = {"radau5-amg", "bdf-amg", "ida-spgmr"};
#else
  const std::vector<std::string> list = {"radau5-amg", "bdf-amg"};
#endif
  const double bandwidth = triad_bandwidth();
  std::printf(
      "heat2d (idaHeat2D) at n = 1e4, 1e5, 1e6: daekit's iterative backend (GMRES + AMG) against\n"
      "IDA + SPGMR with idaHeat2D_kry's preconditioner (inverse diagonal of dF/dy + cj dF/dy',\n"
      "maxl 5, 5 restarts); rtol = atol = tol; one child process per run, the codes interleaved\n"
      "per tolerance; scd against the exact solution of the semi-discrete system;\n"
      "ns/(unknown it): CPU time of the whole solve / (n x Krylov iterations)\n"
      "rerun: build/bench/daekit_scaling --krylov%s\n\n",
      max_n < 1000000 ? (" --max-n " + std::to_string(max_n)).c_str() : "");
  std::printf("STREAM triad: %.2f GB/s (best of 10 passes over 3 x 80 MB)\n", bandwidth / 1e9);
  backend_table(max_n, bandwidth);
  std::printf("\nwhole solves:\n");
  std::printf("%-11s %8s %6s %-4s %6s %7s %7s %8s %10s %6s %8s %10s %7s\n", "code", "n", "tol",
              "ok", "steps", "nfev", "nli", "nli/sol", "s/solve", "scd", "peak MB", "ns/(u it)",
              "x bound");
  for (int m : {100, 317, 1000}) {
    const long n = static_cast<long>(m) * m;
    if (n > 1.1 * static_cast<double>(max_n)) continue;
    std::vector<std::vector<std::pair<double, double>>> points(list.size());
    const std::vector<double> tols = n > 200000 ? std::vector<double>{1e-4, 1e-5, 1e-6}
                                                : std::vector<double>{1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
    for (double tol : tols) {
      for (size_t c = 0; c < list.size(); ++c) {
        const Outcome o = child_case(list[c], m, tol);
        const double per_solve = o.nsol ? static_cast<double>(o.nli) / o.nsol : 0.0;
        const double ns_per = o.nli ? 1e9 * o.cpu / (static_cast<double>(n) * o.nli) : 0.0;
        const double bound_ns = 1e9 * krylov_bytes_per_unknown(per_solve) / bandwidth;
        std::printf("%-11s %8ld %6.0e %-4s %6ld %7ld %7ld %8.2f %10.3f %6.2f %8.1f %10.2f %7.2f\n",
                    code_title(list[c]), n, tol, o.ok ? "ok" : "FAIL", o.steps, o.nfev, o.nli,
                    per_solve, o.cpu, o.scd, o.peak_mb, ns_per,
                    ns_per > 0 ? ns_per / bound_ns : 0.0);
        std::fflush(stdout);
        if (o.ok) points[c].push_back({o.scd, o.cpu});
      }
    }
    if (list.size() < 3) continue;
    for (size_t c = 0; c < 2; ++c) {
      std::printf("n = %ld, %s against IDA+SPGMR at equal scd:\n", n, code_title(list[c]));
      equal_scd(list[c], points[c], points[2], "IDA+SPGMR");
    }
  }
  std::printf(
      "\nx bound: ns/(unknown it) over the STREAM-triad bound, the bytes of "
      "krylov_bytes_per_unknown()\n(two Gauss-Seidel sweeps over the five-point matrix and "
      "three vectors, modified Gram-Schmidt)\nat the triad's bandwidth; for IDA the same "
      "model (its iteration is cheaper: one J v by differences\nand a diagonal scaling)\n");
}

int main(int argc, char** argv) {
  self_path = argv[0];
  long max_n = 1000000;
  bool krylov = false;
  std::vector<std::string> list = codes();
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--case") && i + 3 < argc) {
      return run_case(argv[i + 1], std::atoi(argv[i + 2]), std::atof(argv[i + 3]));
    } else if (!std::strcmp(argv[i], "--accuracy")) {
      accuracy_table();
      return 0;
    } else if (!std::strcmp(argv[i], "--kernels")) {
      kernels_table();
      return 0;
    } else if (!std::strcmp(argv[i], "--krylov")) {
      krylov = true;
    } else if (!std::strcmp(argv[i], "--backend")) {
      const double bandwidth = triad_bandwidth();
      std::printf("rerun: build/bench/daekit_scaling --backend\n");
      std::printf("STREAM triad: %.2f GB/s (best of 10 passes over 3 x 80 MB)\n", bandwidth / 1e9);
      backend_table(max_n, bandwidth);
      return 0;
    } else if (!std::strcmp(argv[i], "--foodweb")) {
      std::printf("rerun: build/bench/daekit_scaling --foodweb\n\n");
      foodweb_table(0.01);
      std::printf("\n");
      foodweb_table(1.0);
      return 0;
    } else if (!std::strcmp(argv[i], "--codes") && i + 1 < argc) {
      list.clear();  // comma-separated subset of radau5, bdf, ida
      const std::string arg = argv[++i];
      for (size_t pos = 0; pos <= arg.size();) {
        const size_t end = std::min(arg.find(',', pos), arg.size());
        const std::string c = arg.substr(pos, end - pos);
        const std::vector<std::string> all = known_codes();
        if (std::find(all.begin(), all.end(), c) == all.end()) {
          std::fprintf(stderr, "daekit_scaling: unknown or unavailable code '%s'\n", c.c_str());
          return 2;
        }
        list.push_back(c);
        pos = end + 1;
      }
    } else if (!std::strcmp(argv[i], "--max-n") && i + 1 < argc) {
      max_n = std::atol(argv[++i]);
      if (max_n < 1000) {
        std::fprintf(stderr, "daekit_scaling: --max-n must be at least 1000\n");
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: daekit_scaling [--max-n N] [--codes radau5,bdf,ida,radau5-amg,bdf-amg,"
                   "ida-spgmr] | [--max-n N] --krylov | --backend | --accuracy | --kernels | "
                   "--foodweb | --case CODE M TOL\n");
      return 2;
    }
  }
  if (krylov)
    krylov_table(max_n);
  else
    scaling_table(max_n, 1e-6, list);
  return 0;
}
