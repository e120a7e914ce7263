// daekit_ida_check: SUNDIALS IDA on the built-in index-1 problems ("transistor", "akzo",
// "robertson-dae") at rtol = 1e-4, 1e-6, 1e-8, with scd against the problems' references, to
// compare daekit's solvers with a production BDF code. atol = rtol, except robertson-dae:
// atol = 1e-6 rtol (its default pair is rtol = 1e-6, atol = 1e-12; y2 is O(1e-13) at the end).
//
//   daekit_ida_check [--fd] [--calc-ic] [problem [rtol]]
//
// --fd: IDA's difference-quotient Jacobian instead of the analytic one; --calc-ic: call
// IDACalcIC(IDA_YA_YDP_INIT) first. y'(t0) for M y' = f: the differential part solves
// M_dd y'_d = f_d on the nonzero rows of M, the algebraic part is 0 (y0 is consistent).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"
#include "ida_runner.hpp"

using namespace daekit;

namespace {

/// y'(t0) of M y' = f(t0, y0): M_dd y'_d = f_d (least squares) on the nonzero rows and
/// columns of M, y'_a = 0 for the zero columns (algebraic components).
Vector initial_yp(const MassMatrixDae& dae, double t0, const Vector& y0) {
  const int n = dae.n;
  Vector f(n);
  dae.f(t0, y0, f);
  if (dae.has_identity_mass()) return f;
  std::vector<int> rows, cols;
  for (int i = 0; i < n; ++i) {
    if (dae.mass.row(i).cwiseAbs().maxCoeff() > 0) rows.push_back(i);
    if (dae.mass.col(i).cwiseAbs().maxCoeff() > 0) cols.push_back(i);
  }
  Vector yp = Vector::Zero(n);
  if (rows.empty() || cols.empty()) return yp;
  const int nr = static_cast<int>(rows.size()), nc = static_cast<int>(cols.size());
  Matrix Mdd(nr, nc);
  Vector fd(nr);
  for (int a = 0; a < nr; ++a) {
    fd[a] = f[rows[a]];
    for (int b = 0; b < nc; ++b) Mdd(a, b) = dae.mass(rows[a], cols[b]);
  }
  const Vector ypd = Mdd.completeOrthogonalDecomposition().solve(fd);
  for (int b = 0; b < nc; ++b) yp[cols[b]] = ypd[b];
  return yp;
}

double atol_for(const std::string& name, double rtol) {
  return name == "robertson-dae" ? 1e-6 * rtol : rtol;
}

}  // namespace

int main(int argc, char** argv) {
  bool fd = false, calc_ic = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--fd") {
      fd = true;
    } else if (a == "--calc-ic") {
      calc_ic = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: %s [--fd] [--calc-ic] [problem [rtol]]\n", argv[0]);
      return 0;
    } else {
      args.push_back(a);
    }
  }
  std::vector<std::string> names = {"transistor", "akzo", "robertson-dae"};
  std::vector<double> rtols = {1e-4, 1e-6, 1e-8};
  if (!args.empty()) names = {args[0]};
  if (args.size() > 1) rtols = {std::atof(args[1].c_str())};
  if (args.size() > 2 || rtols[0] <= 0) {
    std::fprintf(stderr, "usage: %s [--fd] [--calc-ic] [problem [rtol]]\n", argv[0]);
    return 2;
  }
  const std::string flags = std::string(fd ? " --fd" : "") + (calc_ic ? " --calc-ic" : "");

  std::printf("SUNDIALS IDA (dense, %s Jacobian%s) on the built-in index-1 problems\n",
              fd ? "difference-quotient" : "analytic", calc_ic ? ", IDACalcIC" : "");
  std::printf("%-14s %7s %7s %-16s %6s %8s %8s %6s %9s  %s\n", "problem", "rtol", "atol", "status",
              "scd", "nsteps", "nre", "njev", "cpu_ms", "rerun");
  int failures = 0;
  for (const std::string& name : names) {
    BuiltinProblem p;
    try {
      p = make_builtin_problem(name);
    } catch (const std::exception& e) {
      std::printf("%-14s skipped: %s\n", name.c_str(), e.what());
      continue;
    }
    const ImplicitDae dae = to_implicit_form(p.dae);
    const Vector yp0 = initial_yp(p.dae, p.t0, p.y0);
    for (double rtol : rtols) {
      const double atol = atol_for(name, rtol);
      const IdaRun r =
          run_ida(dae, p.t0, p.t_end, p.y0, yp0, rtol, atol, p.h0, !fd, 500000, calc_ic);
      char scd_text[32] = "-";
      if (r.ok && p.reference && p.reference->t == p.t_end)
        std::snprintf(scd_text, sizeof scd_text, "%.2f",
                      scd(r.y, p.reference->y, p.scd_components));
      std::printf("%-14s %7.0e %7.0e %-16s %6s %8ld %8ld %6ld %9.2f  %s%s %s %g\n", name.c_str(),
                  rtol, atol, r.ok ? "success" : "FAILED", scd_text, r.nsteps, r.nre, r.njev,
                  1e3 * r.cpu_seconds, argv[0], flags.c_str(), name.c_str(), rtol);
      if (!r.ok) {
        ++failures;
        std::printf("    t = %g: %s\n", r.t, r.message.c_str());
      }
    }
  }
  return failures == 0 ? 0 : 1;
}
