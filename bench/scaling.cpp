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
#ifdef DAEKIT_HAVE_IDA
#include "ida_runner.hpp"
#endif

using namespace daekit;

namespace {

double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double peak_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // Linux: kilobytes
}

// Median CPU seconds of run() (run once; repeated while the total stays under min_time).
double median_cpu(const std::function<void()>& run, double min_time) {
  std::vector<double> times;
  double total = 0.0;
  do {
    const double t0 = cpu_now();
    run();
    times.push_back(cpu_now() - t0);
    total += times.back();
  } while (total < min_time && times.size() < 51);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
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
    out.cpu = cpu_now() - t0;
    if (out.cpu < min_time) out.cpu = median_cpu([&] { once(); }, min_time);
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
  if (code == "ida" || code == "ida-band" || code == "ida-dq") {
    const ImplicitDae dae = to_implicit_form(p.dae);
    const Vector yp0 = initial_derivative(p.dae, p.t0, p.y0);
    IdaSettings s;
    s.h0 = p.h0;
    s.max_steps = 1000000;
    if (code == "ida") {
      s.solver = IdaSettings::Solver::Klu;
    } else {
      s.solver = IdaSettings::Solver::Band;
      s.lower = p.dae.jacobian_sparsity.lower;
      s.upper = p.dae.jacobian_sparsity.upper;
      s.analytic_jacobian = code == "ida-band";
    }
    IdaRun r;
    const double t0 = cpu_now();
    r = run_ida(dae, p.t0, p.t_end, p.y0, yp0, tol, tol, s);
    out.cpu = cpu_now() - t0;
    if (out.cpu < min_time)
      out.cpu = median_cpu([&] { run_ida(dae, p.t0, p.t_end, p.y0, yp0, tol, tol, s); }, min_time);
    out.ok = r.ok;
    out.steps = r.nsteps;
    out.nfev = r.nre;
    out.njac = r.njev;
    out.nlu = r.nlinsetups;
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
  return all;
}

const char* code_title(const std::string& c) {
  if (c == "ida") return "IDA+KLU";
  if (c == "ida-band") return "IDA band";
  if (c == "ida-dq") return "IDA bandDQ";
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
  for (const auto& [d_ref, t_ref] : ref_points)
    for (size_t j = 1; j < p.size(); ++j) {
      const auto [d0, t0] = p[j - 1];
      const auto [d1, t1] = p[j];
      if (d0 <= d_ref && d_ref <= d1 && d1 > d0) {
        const double w = (d_ref - d0) / (d1 - d0);
        const double t = std::exp((1 - w) * std::log(t0) + w * std::log(t1));
        std::printf("  at %s's scd %.2f: %s %.4f s, %s %.4f s, ratio %.2f\n", ref_name, d_ref,
                    ref_name, t_ref, name.c_str(), t, t / t_ref);
        break;
      }
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

int main(int argc, char** argv) {
  self_path = argv[0];
  long max_n = 1000000;
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
      std::fprintf(
          stderr,
          "usage: daekit_scaling [--max-n N] [--codes radau5,bdf,ida,radau5-amg,bdf-amg] | "
          "--accuracy | --kernels | "
          "--foodweb | --case CODE M TOL\n");
      return 2;
    }
  }
  scaling_table(max_n, 1e-6, list);
  return 0;
}
