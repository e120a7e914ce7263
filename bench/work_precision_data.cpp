// The data of the work-precision diagrams (docs/benchmarks.md, drawn by
// bench/work_precision_diagrams.py): daekit's radau5, radau and bdf and SUNDIALS IDA (dense,
// band or KLU as the problem's Jacobian is) on the IVP Test Set DAEs daekit ships, a multibody
// problem and the large problems, at tolerances 1e-3 ... 1e-10. One CSV line per run:
//
//   problem,code,tol,ok,scd,cpu_seconds,steps,nfev,njac,nlu,note
//
// scd: significant correct digits at t_end against the problem's reference (see each case);
// cpu_seconds: std::clock time per solve, the median of repeated solves where one takes less
// than --min-time (default 0.2 s), the single solve otherwise. Every code gets the same
// problem, initial values, rtol and scalar atol (= tol times the case's factor) and initial
// step; nfev counts the evaluations of f or F including those for difference Jacobians.
//
//   build/bench/daekit_wp_data [--min-time S] [--problem NAME] > data.csv
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

// One diagram: the problem the Radau codes solve, the one the BDF codes (daekit's bdf, IDA)
// solve (the same, or Andrews' index-2 formulation: neither BDF takes index 3), the reference
// and the components scd counts.
struct Case {
  std::string name;
  BuiltinProblem radau_problem;
  BuiltinProblem bdf_problem;
  Vector reference;
  int scd_head = 0;  ///< > 0: scd over the first scd_head components (all codes)
  std::vector<int> scd_components;
  double atol_factor = 1.0;
  std::vector<double> tols;
  double consistency_tol = 0.0;
  std::string note;
};

double digits(const Case& c, const Vector& y) {
  if (c.scd_head > 0) return scd(y.head(c.scd_head), c.reference.head(c.scd_head));
  return scd(y, c.reference, c.scd_components);
}

Options options_for(const Case& c, const BuiltinProblem& p, double tol) {
  Options o;
  o.rtol = tol;
  o.atol = tol * c.atol_factor;
  o.h0 = p.h0;
  o.store_steps = false;
  o.max_steps = 1000000;
  o.consistency_tol = c.consistency_tol;
  return o;
}

std::vector<double> decades(int from, int to) {
  std::vector<double> t;
  for (int k = from; k <= to; ++k) t.push_back(std::pow(10.0, -k));
  return t;
}

Case plain(const std::string& name, double atol_factor, int from, int to) {
  Case c;
  c.name = name;
  c.radau_problem = c.bdf_problem = make_builtin_problem(name);
  c.reference = c.radau_problem.reference->y;
  c.scd_components = c.radau_problem.scd_components;
  c.atol_factor = atol_factor;
  c.tols = decades(from, to);
  return c;
}

std::vector<Case> cases(const std::string& only) {
  std::vector<Case> out;
  auto wanted = [&](const char* name) { return only.empty() || only == name; };
  if (wanted("andrews")) {  // Andrews' squeezer: radau5/radau on the index-3 form, the BDFs on the
                            // index-2 form
    Case c;
    c.name = "andrews";
    c.radau_problem = make_builtin_problem("andrews");
    c.bdf_problem = c.radau_problem;
    const MechanicalSystem& sys = *c.radau_problem.mechanical;
    const int nq = sys.nq;
    c.bdf_problem.y0 =
        initial_values(sys, Formulation::Index2, c.bdf_problem.t0, c.radau_problem.y0.head(nq),
                       c.radau_problem.y0.segment(nq, nq));
    c.bdf_problem.dae = formulate(sys, Formulation::Index2);
    c.reference = c.radau_problem.reference->y;
    c.scd_head = nq;  // the 7 angles
    c.tols = decades(4, 10);
    c.note = "radau5/radau: index 3; bdf/IDA: index-2 formulation (IDA: algebraic out of test)";
    out.push_back(c);
  }
  if (wanted("transistor")) out.push_back(plain("transistor", 1.0, 3, 10));
  if (wanted("akzo")) out.push_back(plain("akzo", 1.0, 3, 10));
  if (wanted("robertson")) {
    Case c = plain("robertson", 1e-6, 3, 10);
    c.note = "atol = 1e-6 rtol";
    out.push_back(c);
  }
  if (wanted("vanderpol")) out.push_back(plain("vanderpol", 1.0, 3, 10));
  if (wanted("heat2d")) {
    Case c;
    c.name = "heat2d";
    const int m = 30;
    c.radau_problem = c.bdf_problem = heat2d(m);
    c.reference = heat2d_reference(m, c.radau_problem.t_end);
    c.tols = decades(3, 9);
    c.note = "m = 30, n = 900, sparse (KLU); reference: the exact semi-discrete solution";
    out.push_back(c);
  }
  if (wanted("circuit-chain")) {
    Case c = plain("circuit-chain", 1.0, 3, 9);
    c.note = "40 stages, n = 320, sparse";
    out.push_back(c);
  }
  if (wanted("food-web")) {  // the food web over its transient [0, 0.01] (afterwards it sits at its
                             // steady state)
    Case c;
    c.name = "food-web";
    c.radau_problem = c.bdf_problem = food_web(20);
    c.radau_problem.t_end = c.bdf_problem.t_end = 0.01;
    c.consistency_tol = 1e-4;  // the predator terms reach 1e10: residual ~1e-6 at t0
    // The reference: the bdf at 1e-12. radau5 and radau cannot give one on a DAE: their local
    // tolerance has a floor (1e-9, 1e-8), so at 1e-11 radau5 returns its 1e-9 answer and would
    // count its own runs at the floor as exact. Its agreement with radau5 at 1e-11 is noted.
    const BuiltinProblem& p = c.bdf_problem;
    Options ro = options_for(c, p, 1e-12);
    const Result ref = solve(p.dae, p.t0, p.t_end, p.y0, "bdf", ro);
    ro = options_for(c, p, 1e-11);
    const Result check = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", ro);
    c.reference = ref.y;
    c.tols = decades(4, 9);
    char note[200];
    std::snprintf(note, sizeof note,
                  "m = 20, n = 800, banded, t in [0, 0.01]; reference: bdf at 1e-12 (%s; radau5 "
                  "at 1e-11 agrees with it to %.1f digits)",
                  ref.ok() ? "ok" : "FAILED", check.ok() ? scd(check.y, ref.y) : -99.0);
    c.note = note;
    out.push_back(c);
  }
  return out;
}

void print(const Case& c, const char* code, double tol, bool ok, double scd_value, double cpu,
           long steps, long nfev, long njac, long nlu) {
  std::printf("%s,%s,%.0e,%d,%.4f,%.6g,%ld,%ld,%ld,%ld,\"%s\"\n", c.name.c_str(), code, tol,
              ok ? 1 : 0, ok ? scd_value : -99.0, cpu, steps, nfev, njac, nlu, c.note.c_str());
  std::fflush(stdout);
}

void run_daekit(const Case& c, const char* method, double tol, double min_time) {
  const bool bdf = !std::strcmp(method, "bdf");
  const BuiltinProblem& p = bdf ? c.bdf_problem : c.radau_problem;
  const Options o = options_for(c, p, tol);
  auto once = [&] { return solve(p.dae, p.t0, p.t_end, p.y0, method, o); };
  try {
    const double t0 = cpu_now();
    const Result r = once();
    const double cpu = median_cpu([&] { once(); }, min_time, cpu_now() - t0);
    print(c, method, tol, r.ok(), r.ok() ? digits(c, r.y) : -99.0, cpu, r.stats.naccept,
          r.stats.nfev + r.stats.nfev_jac, r.stats.njac, r.stats.nlu);
  } catch (const InvalidArgument& e) {
    Case refused = c;
    refused.note = c.note + (c.note.empty() ? "" : "; ") + method + " refused: " + e.what();
    print(refused, method, tol, false, -99.0, 0.0, 0, 0, 0, 0);
  }
}

// IDA's linear solver follows the problem's declared Jacobian structure, as daekit's automatic
// choice does: band for a banded pattern, KLU for a sparse one (with the analytic sparse
// Jacobian; without it, dense), dense otherwise.
IdaSettings ida_settings(const Case& c, const BuiltinProblem& p, const ImplicitDae& dae,
                         std::string& solver) {
  IdaSettings s;
  s.h0 = p.h0;
  s.max_steps = 1000000;
  s.suppress_alg = c.name == "andrews";
  const bool sparse_jacobian = dae.sparse_dF_dy && dae.sparse_dF_dyp;
  const Sparsity& pattern = p.dae.jacobian_sparsity;
  if (pattern.kind == Sparsity::Kind::Banded) {
    s.solver = IdaSettings::Solver::Band;
    s.lower = pattern.lower;
    s.upper = pattern.upper;
    s.analytic_jacobian = sparse_jacobian;
    solver = sparse_jacobian ? "band" : "band, difference Jacobian";
  } else if (pattern.kind == Sparsity::Kind::Sparse && sparse_jacobian) {
    s.solver = IdaSettings::Solver::Klu;
    solver = "KLU";
  } else {
    s.solver = IdaSettings::Solver::Dense;
    solver = "dense";
  }
  return s;
}

void run_sundials(const Case& c, double tol, double min_time) {
  const BuiltinProblem& p = c.bdf_problem;
  const ImplicitDae dae = to_implicit_form(p.dae);
  const Vector yp0 = initial_derivative(p.dae, p.t0, p.y0);
  std::string solver;
  const IdaSettings s = ida_settings(c, p, dae, solver);
  Case labelled = c;
  labelled.note = c.note + (c.note.empty() ? "" : "; ") + "IDA: " + solver;
  auto once = [&] { return run_ida(dae, p.t0, p.t_end, p.y0, yp0, tol, tol * c.atol_factor, s); };
  try {
    const double t0 = cpu_now();
    const IdaRun r = once();
    const double cpu = median_cpu([&] { once(); }, min_time, cpu_now() - t0);
    print(labelled, "IDA", tol, r.ok, r.ok ? digits(c, r.y) : -99.0, cpu, r.nsteps, r.nre, r.njev,
          r.nlinsetups);
  } catch (const InvalidArgument& e) {
    labelled.note += std::string("; refused: ") + e.what();
    print(labelled, "IDA", tol, false, -99.0, 0.0, 0, 0, 0, 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double min_time = 0.2;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--min-time") && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--problem") && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: daekit_wp_data [--min-time S] [--problem NAME]\n");
      return 2;
    }
  }
  std::printf("problem,code,tol,ok,scd,cpu_seconds,steps,nfev,njac,nlu,note\n");
  for (const Case& c : cases(only)) {
    for (double tol : c.tols) {
      for (const char* method : {"radau5", "radau", "bdf"}) run_daekit(c, method, tol, min_time);
      run_sundials(c, tol, min_time);
    }
  }
  return 0;
}
