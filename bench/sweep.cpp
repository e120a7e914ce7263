// 25-tolerance sweep in the protocol of the IVP Test Set (F. Mazzia, C. Magherini, F. Iavernaro,
// "Test Set for Initial Value Problem Solvers", release 2.3, Univ. of Bari, report 43/2006, and
// its Fortran drivers, http://www.dm.uniba.it/~testset): every built-in problem with a reference
// solution at t_end is solved by every applicable registered method at
//   rtol = atol = h0 = 10^(-4 - m/4),  m = 0, 1, ..., 24,
// and the end point is compared with the reference as the test set's driver does it (report.f,
// subroutine getscd), over the problem's scd_components:
//   scd   = -log10 max_i |y_i - ref_i| / |ref_i|                     (over |ref_i| >= 1e-200),
//   mescd = -log10 max_i |y_i - ref_i| / (atol_i / rtol + |ref_i|)   (the mixed error),
// a zero error counting as 1e-16 (getscd takes mescd over all components; here, like scd, over
// scd_components). A problem is measured with mescd when one of its scd components lies below
// the loosest absolute tolerance of the protocol (1e-4 atol_scale_i): its relative error then
// reflects the absolute tolerance, not the solver (ROBER's y2 ~ 8e-14). Per-component absolute
// tolerances (BuiltinProblem::atol_scale, atol_i = atol atol_scale_i; the test set's
// settolerances), the non-negative components (BuiltinProblem::nonnegative) and the model's
// state events (BuiltinProblem::events, as the CLI adds them) are applied.
//
// A method applies if it takes M y' = f, its max_index is >= the problem's highest index tag and
// it has an error estimate (constant-step methods, projected-rk, are listed as not applicable).
// Per (problem, method): solved/25, min/max of the measure, drops (the measure falling by more
// than 0.5 from one solved tolerance to the next tighter one), total step attempts and CPU time,
// the failures grouped by status and cause, and a flag for every success whose answer is
// non-finite or off by more than 100x the tolerance asked for, |err_i| > 100 (atol_i +
// rtol |ref_i|) on some measured component (the mixed error against 100 rtol: a relative error
// would call a component of size 5e-3 that is within atol "wrong"), with the worst component and
// whether Result::warnings had an entry. --csv writes every run.
//
//   build/bench/daekit_sweep [--problem NAME] [--method NAME] [--m-range A:B] [--csv FILE]
//                            [--ignore-nonnegative]   (diagnosis: without the nonnegative lists)
//                            [--global-error]   (Options::global_error_check in every run: the
//                                                estimate, and a warning above 10 tolerances)
//                            [--estimated-h0]   (h0 not given: the integrator's starting step,
//                                                integrator/controller.hpp, instead of h0 = tol)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

constexpr int kMinM = 0, kMaxM = 24;  // the protocol's 25 tolerances
constexpr double kDropLimit = 0.5;    // a drop of the measure beyond this is reported
// a success with |err_i| > kWrongFactor (atol_i + rtol |ref_i|) is flagged
constexpr double kWrongFactor = 100;

double protocol_tolerance(int m) { return std::pow(10.0, -4.0 - m / 4.0); }

/// The error measures of the test set's report.f (getscd), over `components`.
struct Accuracy {
  double max_rel = 0.0;                  ///< max relative error (components with |ref| >= 1e-200)
  double max_mixed = 0.0;                ///< max |err| / (atol_i / rtol + |ref|)
  bool finite = true;                    ///< every component of y is finite
  int worst_rel = -1, worst_mixed = -1;  ///< components with the largest errors
};

Accuracy accuracy(const Vector& y, const Vector& ref, const std::vector<int>& components,
                  double rtol, const Vector& atol) {
  Accuracy a;
  for (int i = 0; i < y.size(); ++i)
    if (!std::isfinite(y[i])) a.finite = false;
  for (int i : components) {
    const double err = std::abs(ref[i] - y[i]);
    const double rel = err / std::abs(ref[i]), mixed = err / (atol[i] / rtol + std::abs(ref[i]));
    if (std::abs(ref[i]) >= 1e-200 && (a.worst_rel < 0 || !(rel <= a.max_rel))) {
      a.max_rel = std::isfinite(rel) ? rel : std::numeric_limits<double>::infinity();
      a.worst_rel = i;
    }
    if (a.worst_mixed < 0 || !(mixed <= a.max_mixed)) {
      a.max_mixed = std::isfinite(mixed) ? mixed : std::numeric_limits<double>::infinity();
      a.worst_mixed = i;
    }
  }
  return a;
}

/// -log10 of an error, as report.f (0 -> 1e-16; non-finite -> -inf).
double digits(double err) {
  if (!std::isfinite(err)) return -std::numeric_limits<double>::infinity();
  return -std::log10(err > 0.0 ? err : 1e-16);
}

std::string abbreviate(const std::string& s, size_t n) {
  std::string t = s;
  for (char& c : t)
    if (c == '\n') c = ' ';
  return t.size() <= n ? t : t.substr(0, n - 3) + "...";
}

/// Failures are grouped by status and cause: the integrator's messages end in "after: <cause>"
/// or "after <cause>" when it gives up (the part before names t and h, which differ per run).
std::string failure_cause(const std::string& status, const std::string& message) {
  const size_t after = message.rfind(" after");
  const std::string cause =
      after == std::string::npos ? message : message.substr(after + 1);  // "after ..."
  return status + ": " + abbreviate(cause, 90 - status.size());
}

/// `items` joined by ", " after `head`, wrapped at 98 columns.
std::vector<std::string> wrapped(const std::string& head, const std::vector<std::string>& items) {
  std::vector<std::string> lines;
  std::string line = head;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string item = " " + items[i] + (i + 1 < items.size() ? "," : "");
    if (line.size() + item.size() > 98 && line.size() > head.size()) {
      lines.push_back(line);
      line = std::string(head.size(), ' ');
    }
    line += item;
  }
  if (!items.empty()) lines.push_back(line);
  return lines;
}

std::string fmt_digits(double d) {
  if (!std::isfinite(d)) return d < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", d);
  return buf;
}

std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return q + "\"";
}

struct Run {
  int m = 0;
  double tol = 0.0;
  bool solved = false;
  std::string status;
  std::string message;
  double scd = 0.0, mescd = 0.0, measure = 0.0;  // measure: scd or mescd, as chosen
  bool finite = true;
  bool wrong = false;         // success with a non-finite answer or error > kWrongFactor * rtol
  int worst = -1;             // component with the largest error in the measure's sense
  double wrong_factor = 0.0;  // max |err_i| / (atol_i + rtol |ref_i|), the flag's quantity
  std::vector<std::string> warnings;
  long steps = 0, naccept = 0, nfev = 0, njac = 0;
  double cpu_ms = 0.0;
  double t = 0.0;  // time reached
};

struct Args {
  std::string problem, method, csv;
  int m_first = kMinM, m_last = kMaxM;
  bool ignore_nonnegative = false;  // diagnosis: solve without BuiltinProblem::nonnegative
  bool global_error = false;        // Options::global_error_check in every run
  bool estimated_h0 = false;        // h0 left to the integrator's starting-step estimate
};

void usage() {
  std::fprintf(stderr,
               "usage: daekit_sweep [--problem NAME] [--method NAME] [--m-range A:B] "
               "[--csv FILE]\n                    [--ignore-nonnegative] [--global-error] "
               "[--estimated-h0]\n"
               "  m in [%d, %d]: rtol = atol = h0 = 10^(-4-m/4); --ignore-nonnegative solves "
               "without the\n  problems' non-negative components (diagnosis); --global-error "
               "estimates each run's\n  global error (Options::global_error_check); "
               "--estimated-h0 leaves h0 to the\n  integrator's starting-step estimate\n",
               kMinM, kMaxM);
}

bool parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--problem") && has_value) {
      a->problem = argv[++i];
    } else if (!std::strcmp(argv[i], "--method") && has_value) {
      a->method = argv[++i];
    } else if (!std::strcmp(argv[i], "--ignore-nonnegative")) {
      a->ignore_nonnegative = true;
    } else if (!std::strcmp(argv[i], "--global-error")) {
      a->global_error = true;
    } else if (!std::strcmp(argv[i], "--estimated-h0")) {
      a->estimated_h0 = true;
    } else if (!std::strcmp(argv[i], "--csv") && has_value) {
      a->csv = argv[++i];
    } else if (!std::strcmp(argv[i], "--m-range") && has_value) {
      if (std::sscanf(argv[++i], "%d:%d", &a->m_first, &a->m_last) != 2 || a->m_first < kMinM ||
          a->m_last > kMaxM || a->m_first > a->m_last) {
        std::fprintf(stderr, "--m-range: expected A:B with %d <= A <= B <= %d\n", kMinM, kMaxM);
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

std::string command_line(const Args& a, const std::string& problem, const std::string& method) {
  std::string c = "build/bench/daekit_sweep";
  if (!problem.empty()) c += " --problem " + problem;
  if (!method.empty()) c += " --method " + method;
  if (a.m_first != kMinM || a.m_last != kMaxM)
    c += " --m-range " + std::to_string(a.m_first) + ":" + std::to_string(a.m_last);
  if (a.ignore_nonnegative) c += " --ignore-nonnegative";
  if (a.global_error) c += " --global-error";
  if (a.estimated_h0) c += " --estimated-h0";
  return c;
}

/// Why `m` does not apply to `p` (empty: it applies).
std::string not_applicable(const MethodInfo& m, const BuiltinProblem& p) {
  return method_not_applicable(m, p);
}

Run solve_one(const BuiltinProblem& p, const std::string& method, int m,
              const std::vector<int>& comps, bool use_mescd, bool ignore_nonnegative,
              bool global_error, bool estimated_h0) {
  Run run;
  run.m = m;
  run.tol = protocol_tolerance(m);
  Options o;
  o.rtol = o.atol = run.tol;
  o.h0 = estimated_h0 ? 0.0 : run.tol;
  if (p.atol_scale.size()) o.atol_vector = run.tol * p.atol_scale;
  if (!ignore_nonnegative) o.nonnegative = p.nonnegative;
  add_model_options(p, o);  // the model's events, switches and tstops, as the CLI adds them
  o.store_steps = false;
  o.global_error_check = global_error;
  const Vector atol = o.atol_vector.size() ? o.atol_vector : Vector::Constant(p.dae.n, o.atol);
  Result r;
  try {
    r = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice(method), o);
  } catch (const std::exception& e) {
    run.status = "exception";
    run.message = e.what();
    return run;
  }
  run.status = to_string(r.status);
  run.message = r.message;
  run.warnings = r.warnings;
  run.steps = r.stats.nsteps;
  run.naccept = r.stats.naccept;
  run.nfev = r.stats.nfev;
  run.njac = r.stats.njac;
  run.cpu_ms = 1e3 * r.cpu_seconds;
  run.t = r.t;
  run.solved = r.ok() && r.t == p.reference->t;
  if (!run.solved) return run;
  const Accuracy a = accuracy(r.y, p.reference->y, comps, run.tol, atol);
  run.finite = a.finite;
  run.scd = digits(a.max_rel);
  run.mescd = digits(a.max_mixed);
  run.measure = use_mescd ? run.mescd : run.scd;
  run.worst = use_mescd ? a.worst_mixed : a.worst_rel;
  // "off by more than 100x the tolerance": the error against atol_i + rtol |ref_i|
  run.wrong = !a.finite || !std::isfinite(a.max_mixed) || a.max_mixed > kWrongFactor * run.tol;
  run.wrong_factor = a.max_mixed / run.tol;
  if (run.wrong) run.worst = a.worst_mixed;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, &args)) {
    usage();
    return 2;
  }
  std::vector<std::string> problems;
  for (const std::string& name : builtin_problem_names())
    if (args.problem.empty() || args.problem == name) problems.push_back(name);
  if (problems.empty()) {
    std::fprintf(stderr, "unknown problem '%s'\n", args.problem.c_str());
    return 2;
  }
  if (!args.method.empty()) {
    try {
      method_info(args.method);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  FILE* csv = nullptr;
  if (!args.csv.empty()) {
    csv = std::fopen(args.csv.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "cannot write %s\n", args.csv.c_str());
      return 2;
    }
    std::fprintf(csv,
                 "problem,method,m,tol,status,scd,mescd,measure,worst,wrong,finite,steps,naccept,"
                 "nfev,njac,cpu_ms,warnings,message\n");
  }
  const auto wall_start = std::chrono::steady_clock::now();
  const int n_tol = args.m_last - args.m_first + 1;
  std::printf(
      "daekit 25-tolerance sweep (IVP Test Set protocol): rtol = atol = h0 = 10^(-4-m/4),\n"
      "m = %d..%d; atol_i = atol * atol_scale_i; the problems' events applied;\n%s.\n"
      "meas: scd (relative error) or mescd (mixed error |err| / (atol/rtol + |ref|), for\n"
      "problems with a reference component below the loosest atol 1e-4 atol_scale_i), over\n"
      "the problem's scd_components; min/max over the solved runs. drops: the measure falls\n"
      "by > %.1f from one solved tolerance to the next tighter one. steps: step attempts;\n"
      "cpu: Result::cpu_seconds, summed. WRONG: a success with a non-finite answer or an\n"
      "error above %g (atol_i + rtol |ref_i|) on a measured component (the factor below).\n",
      args.m_first, args.m_last,
      args.ignore_nonnegative ? "their non-negative components IGNORED (--ignore-nonnegative)"
                              : "their non-negative components (Options::nonnegative) applied",
      kDropLimit, kWrongFactor);
  if (args.estimated_h0)
    std::printf(
        "--estimated-h0: h0 is not given; every run starts with the integrator's starting-step\n"
        "estimate (Hairer-Wanner I, II.4) or the method's declared starting rule.\n");
  if (args.global_error)
    std::printf(
        "Options::global_error_check on: every success is solved again at tolerances / 10, its\n"
        "estimated global error reported in Result::global_error, with a warning above 10x the\n"
        "tolerance (cpu: the first solve only).\n");
  std::printf("rerun: %s\n\n", command_line(args, args.problem, args.method).c_str());
  std::printf("%-13s %-7s %6s %-5s %6s %6s %5s %8s %10s %s\n", "problem", "method", "solved",
              "meas", "min", "max", "drops", "steps", "cpu ms", "wrong");
  std::vector<std::string> notes;
  for (const std::string& name : problems) {
    const BuiltinProblem p = make_builtin_problem(name);
    if (!p.reference || p.reference->t != p.t_end) {
      if (!args.problem.empty())
        std::printf("%-13s no reference solution at t_end\n", name.c_str());
      continue;
    }
    std::vector<int> comps = p.scd_components;
    if (comps.empty())
      for (int i = 0; i < p.dae.n; ++i) comps.push_back(i);
    // mescd when a component is below the loosest absolute tolerance of the protocol
    bool use_mescd = false;
    std::string tiny;
    for (int i : comps) {
      const double scale = p.atol_scale.size() ? p.atol_scale[i] : 1.0;
      if (std::abs(p.reference->y[i]) < protocol_tolerance(kMinM) * scale) {
        use_mescd = true;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%sy%d = %.2e", tiny.empty() ? "" : ", ", i + 1,
                      p.reference->y[i]);
        tiny += buf;
      }
    }
    if (use_mescd)
      notes.push_back(name + ": mescd (reference " + tiny + " below the loosest atol 1e-4)");
    for (const MethodInfo& info : registered_methods()) {
      if (!args.method.empty() && args.method != info.name) continue;
      const std::string why = not_applicable(info, p);
      if (!why.empty()) {
        std::printf("%-13s %-7s not applicable: %s\n", name.c_str(), info.name.c_str(),
                    why.c_str());
        continue;
      }
      std::fprintf(stderr, "[sweep] %s / %s ...\n", name.c_str(), info.name.c_str());
      std::vector<Run> runs;
      for (int m = args.m_first; m <= args.m_last; ++m) {
        runs.push_back(solve_one(p, info.name, m, comps, use_mescd, args.ignore_nonnegative,
                                 args.global_error, args.estimated_h0));
        const Run& r = runs.back();
        std::fprintf(stderr, "[sweep]   m = %2d tol %.2e %-10s %s %8.1f ms\n", m, r.tol,
                     r.status.c_str(), r.solved ? fmt_digits(r.measure).c_str() : "-", r.cpu_ms);
        if (csv) {
          std::string w;
          for (const std::string& s : r.warnings) w += (w.empty() ? "" : "; ") + s;
          std::fprintf(csv, "%s,%s,%d,%.6e,%s,%s,%s,%s,%d,%d,%d,%ld,%ld,%ld,%ld,%.3f,%s,%s\n",
                       name.c_str(), info.name.c_str(), m, r.tol, r.status.c_str(),
                       r.solved ? fmt_digits(r.scd).c_str() : "",
                       r.solved ? fmt_digits(r.mescd).c_str() : "", use_mescd ? "mescd" : "scd",
                       r.worst + 1, r.wrong ? 1 : 0, r.finite ? 1 : 0, r.steps, r.naccept, r.nfev,
                       r.njac, r.cpu_ms, csv_quote(w).c_str(), csv_quote(r.message).c_str());
          std::fflush(csv);
        }
      }
      int solved = 0, wrong = 0, wrong_unwarned = 0, drops = 0;
      long steps = 0;
      double cpu = 0.0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
      std::vector<std::string> drop_items, wrong_items, warned;
      std::vector<std::pair<std::string, std::vector<std::string>>> fails;  // cause, runs
      std::string first_failure;
      const Run* prev = nullptr;  // previous solved run: drops compare across failures
      for (const Run& r : runs) {
        steps += r.steps;
        cpu += r.cpu_ms;
        char buf[256];
        if (!r.solved) {
          const std::string cause = failure_cause(r.status, r.message);
          auto it = std::find_if(fails.begin(), fails.end(),
                                 [&](const auto& f) { return f.first == cause; });
          if (it == fails.end()) it = fails.insert(fails.end(), {cause, {}});
          std::snprintf(buf, sizeof buf, "m=%d (t=%.3g)", r.m, r.t);
          it->second.push_back(buf);
          if (first_failure.empty())
            first_failure =
                "        e.g. m=" + std::to_string(r.m) + ": " + abbreviate(r.message, 82);
          continue;
        }
        ++solved;
        lo = std::min(lo, r.measure);
        hi = std::max(hi, r.measure);
        if (prev && prev->measure - r.measure > kDropLimit) {
          ++drops;
          std::snprintf(buf, sizeof buf, "m=%d->%d %s->%s", prev->m, r.m,
                        fmt_digits(prev->measure).c_str(), fmt_digits(r.measure).c_str());
          drop_items.push_back(buf);
        }
        if (r.wrong) {
          ++wrong;
          if (r.warnings.empty()) ++wrong_unwarned;
          if (r.finite)
            std::snprintf(buf, sizeof buf, "m=%d %.3gx y%d%s", r.m, r.wrong_factor, r.worst + 1,
                          r.warnings.empty() ? "" : "[w]");
          else
            std::snprintf(buf, sizeof buf, "m=%d non-finite%s", r.m,
                          r.warnings.empty() ? "" : "[w]");
          wrong_items.push_back(buf);
          for (const std::string& w : r.warnings)
            warned.push_back("  [w] m=" + std::to_string(r.m) + ": " + abbreviate(w, 84));
        }
        prev = &r;
      }
      char solved_s[16], wrong_s[32];
      std::snprintf(solved_s, sizeof solved_s, "%d/%d", solved, n_tol);
      std::snprintf(wrong_s, sizeof wrong_s, "%s",
                    wrong ? ("WRONG x" + std::to_string(wrong)).c_str() : "-");
      std::printf("%-13s %-7s %6s %-5s %6s %6s %5d %8ld %10.1f %s\n", name.c_str(),
                  info.name.c_str(), solved_s, use_mescd ? "mescd" : "scd",
                  solved ? fmt_digits(lo).c_str() : "-", solved ? fmt_digits(hi).c_str() : "-",
                  drops, steps, cpu, wrong_s);
      std::vector<std::string> details;
      for (const auto& [cause, items] : fails) {
        details.push_back("  FAIL " + cause);
        for (const std::string& l : wrapped("       ", items)) details.push_back(l);
      }
      if (!first_failure.empty()) details.push_back(first_failure);
      for (const std::string& l : wrapped("  drops:", drop_items)) details.push_back(l);
      if (wrong) {
        const std::string head =
            "  WRONG (err / (atol + rtol |ref|), worst component; [w]: with warnings; " +
            std::to_string(wrong_unwarned) + " without a warning):";
        details.push_back(head);
        for (const std::string& l : wrapped("   ", wrong_items)) details.push_back(l);
        for (const std::string& l : warned) details.push_back(l);
      }
      for (const std::string& d : details) std::printf("%s\n", d.c_str());
      if (solved < n_tol || wrong || drops)
        std::printf("  rerun: %s\n", command_line(args, name, info.name).c_str());
      std::fflush(stdout);
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!notes.empty()) {
    std::printf("\nmeasure per problem (others: scd):\n");
    for (const std::string& n : notes) std::printf("  %s\n", n.c_str());
  }
  std::printf("\nwall time %.2f s\n", wall);
  if (csv) std::fclose(csv);
  return 0;
}
