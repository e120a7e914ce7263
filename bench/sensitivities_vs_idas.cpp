// Forward sensitivities side by side: daekit radau5, radau and bdf (Options::sensitivities)
// against SUNDIALS IDAS (IDASensInit, simultaneous corrector) on Robertson (t in [0, 40],
// parameters k1, k2, k3) and Akzo Nobel (t in [0, 180], parameters k1, k2, k3; k4 and Ks kept
// at their values), the built-in problems' equations, at tolerances 1e-4 ... 1e-10, with the
// error control of the sensitivities off and on (IDAS's errconS; daekit's
// sensitivity_error_control), in one run.
//
// IDAS gets the analytic Jacobian of the state (dense) and computes the sensitivity residuals
// F_y s + F_y' s' + F_p by its internal difference quotients (resS = NULL, centred, pbar = |p|,
// atolS = atol / pbar: IDASensEEtolerances); daekit uses the same analytic f_y and f_p by
// forward differences. Both start from S(0) = 0 (y0 does not depend on these parameters) with
// S'(0) = f_p(t0, y0) (IDAS's ypS0; daekit makes the algebraic part consistent itself).
//
// Accuracy: digits = -log10 max |S_ij - R_ij| / |R_ij| over the entries with |R_ij| >= 1e-6
// max_i |R_ij| (per parameter column), R the reference S(t_end): daekit radau5 at tolerance
// 1e-12, cross-checked against IDAS at 1e-12 (or 1e-11, 1e-10 where its corrector fails).
// CPU: median over interleaved rounds (each round runs every configuration once). Every solve
// is limited to 1e5 steps (kMaxSteps): more is reported as a failure.
//
//   build/bench/daekit_sensitivities_vs_idas [--rounds N] [--problem NAME]
#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

#include "daekit/daekit.hpp"
#include "timing.hpp"

using namespace daekit;

namespace {

static_assert(std::is_same_v<sunrealtype, double>, "the bench needs SUNDIALS built with double");

constexpr int kParameters = 3;
// Step limit of every solve (both codes): a configuration that needs more is reported as failed.
constexpr long kMaxSteps = 100000;

using daekit_bench::cpu_now;

/// One test problem: the built-in problem with its first three parameters only.
struct SensProblem {
  BuiltinProblem problem;
  double t_end = 0.0;
  double atol_factor = 1.0;  ///< atol = atol_factor * rtol
};

SensProblem make_sens_problem(const std::string& name, double t_end, double atol_factor) {
  SensProblem s;
  s.problem = make_builtin_problem(name);
  const Vector p = s.problem.dae.p.head(kParameters);
  s.problem.dae.p = p;  // the callbacks use the built-in values for the parameters beyond
  s.problem.dae.parameter_sparsity = Sparsity::dense();
  s.t_end = t_end;
  s.atol_factor = atol_factor;
  return s;
}

/// f_p(t0, y0) by central differences (IDAS's ypS0 on the differential rows, M = I there).
Matrix initial_parameter_derivative(const MassMatrixDae& dae, double t0, const Vector& y0) {
  const int n = dae.n;
  Matrix fp(n, kParameters);
  Vector fplus(n), fminus(n);
  for (int k = 0; k < kParameters; ++k) {
    Vector p = dae.p;
    const double delta = 1e-6 * std::max(std::abs(p[k]), 1e-12);
    p[k] = dae.p[k] + delta;
    dae.f(t0, y0, fplus, p);
    p[k] = dae.p[k] - delta;
    dae.f(t0, y0, fminus, p);
    fp.col(k) = (fplus - fminus) / (2 * delta);
  }
  return fp;
}

// ---- IDAS -------------------------------------------------------------------------------------

struct IdasData {
  const ImplicitDae* dae = nullptr;
  int n = 0;
  Vector p;  ///< the parameters IDAS perturbs for its difference quotients (IDASetSensParams)
  Matrix jac_y, jac_yp;
};

int idas_residual(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void* data) {
  auto* u = static_cast<IdasData*>(data);
  Eigen::Map<const Vector> ym(N_VGetArrayPointer(y), u->n), ypm(N_VGetArrayPointer(yp), u->n);
  Eigen::Map<Vector> rm(N_VGetArrayPointer(r), u->n);
  u->dae->F(t, ym, ypm, rm, u->p);
  return rm.allFinite() ? 0 : 1;
}

int idas_jacobian(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J,
                  void* data, N_Vector, N_Vector, N_Vector) {
  auto* u = static_cast<IdasData*>(data);
  Eigen::Map<const Vector> ym(N_VGetArrayPointer(y), u->n), ypm(N_VGetArrayPointer(yp), u->n);
  Eigen::Map<Matrix> Jm(SUNDenseMatrix_Data(J), u->n, u->n);
  u->jac_y.setZero();
  u->dae->dF_dy(t, ym, ypm, u->jac_y, u->p);
  u->jac_yp.setZero();
  u->dae->dF_dyp(t, ym, ypm, u->jac_yp, u->p);
  Jm = u->jac_y + cj * u->jac_yp;
  return 0;
}

// IDAS's messages stay out of the table: the flag name reports a failure.
void quiet_error_handler(int, const char*, const char*, char*, void*) {}

struct SensRun {
  bool ok = false;
  std::string message;
  Matrix S;  ///< dy(t_end)/dp
  long steps = 0;
  long nre = 0;  ///< residual / f evaluations, all purposes
};

/// IDAS with forward sensitivities (simultaneous corrector) from t0 to t_end.
SensRun run_idas(const SensProblem& sp, double rtol, bool errcon) {
  const BuiltinProblem& bp = sp.problem;
  const ImplicitDae dae = to_implicit_form(bp.dae);
  const int n = bp.dae.n;
  const double atol = sp.atol_factor * rtol;
  IdasData u;
  u.dae = &dae;
  u.n = n;
  u.p = bp.dae.p;
  u.jac_y = Matrix::Zero(n, n);
  u.jac_yp = Matrix::Zero(n, n);
  const Vector yp0 = initial_derivative(bp.dae, bp.t0, bp.y0);
  const Matrix fp0 = initial_parameter_derivative(bp.dae, bp.t0, bp.y0);
  const std::vector<int> algebraic = bp.dae.algebraic_rows();

  SensRun run;
  SUNContext ctx = nullptr;
  SUNContext_Create(nullptr, &ctx);
  N_Vector y = N_VNew_Serial(n, ctx), yp = N_VClone(y), id = N_VClone(y);
  N_Vector* yS = N_VCloneVectorArray(kParameters, y);
  N_Vector* ypS = N_VCloneVectorArray(kParameters, y);
  Eigen::Map<Vector>(N_VGetArrayPointer(y), n) = bp.y0;
  Eigen::Map<Vector>(N_VGetArrayPointer(yp), n) = yp0;
  Eigen::Map<Vector> idm(N_VGetArrayPointer(id), n);
  idm.setOnes();
  for (int i : algebraic) idm[i] = 0.0;
  for (int k = 0; k < kParameters; ++k) {
    N_VConst(0.0, yS[k]);
    Eigen::Map<Vector> ypk(N_VGetArrayPointer(ypS[k]), n);
    ypk = fp0.col(k);
    for (int i : algebraic) ypk[i] = 0.0;
  }
  SUNMatrix A = SUNDenseMatrix(n, n, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  void* mem = IDACreate(ctx);
  std::vector<double> pbar(kParameters);
  for (int k = 0; k < kParameters; ++k) pbar[k] = std::abs(u.p[k]);
  int flag = IDASetErrHandlerFn(mem, quiet_error_handler, nullptr);
  if (flag >= 0) flag = IDAInit(mem, idas_residual, bp.t0, y, yp);
  if (flag >= 0) flag = IDASStolerances(mem, rtol, atol);
  if (flag >= 0) flag = IDASetUserData(mem, &u);
  if (flag >= 0) flag = IDASetId(mem, id);
  if (flag >= 0) flag = IDASetMaxNumSteps(mem, kMaxSteps);
  if (flag >= 0) flag = IDASetStopTime(mem, sp.t_end);
  if (flag >= 0) flag = IDASetLinearSolver(mem, LS, A);
  if (flag >= 0 && dae.dF_dy && dae.dF_dyp) flag = IDASetJacFn(mem, idas_jacobian);
  if (flag >= 0) flag = IDASensInit(mem, kParameters, IDA_SIMULTANEOUS, nullptr, yS, ypS);
  if (flag >= 0) flag = IDASensEEtolerances(mem);
  if (flag >= 0) flag = IDASetSensParams(mem, u.p.data(), pbar.data(), nullptr);
  if (flag >= 0) flag = IDASetSensErrCon(mem, errcon ? SUNTRUE : SUNFALSE);
  sunrealtype tret = bp.t0;
  if (flag >= 0) flag = IDASolve(mem, sp.t_end, &tret, y, yp, IDA_NORMAL);
  if (flag >= 0) flag = IDAGetSens(mem, &tret, yS);
  run.ok = flag >= 0;
  if (!run.ok) {
    char* name = IDAGetReturnFlagName(flag);
    run.message = name ? name : "IDAS failure";
    std::free(name);
  }
  run.S.resize(n, kParameters);
  for (int k = 0; k < kParameters; ++k)
    run.S.col(k) = Eigen::Map<const Vector>(N_VGetArrayPointer(yS[k]), n);
  long nre = 0, nreS = 0, nreLS = 0;
  IDAGetNumSteps(mem, &run.steps);
  IDAGetNumResEvals(mem, &nre);
  IDAGetSensNumResEvals(mem, &nreS);
  IDAGetNumLinResEvals(mem, &nreLS);
  run.nre = nre + nreS + nreLS;
  IDAFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroyVectorArray(yS, kParameters);
  N_VDestroyVectorArray(ypS, kParameters);
  N_VDestroy(id);
  N_VDestroy(yp);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  return run;
}

// ---- daekit -----------------------------------------------------------------------------------

SensRun run_daekit(const SensProblem& sp, const std::string& method, double rtol, bool errcon) {
  const BuiltinProblem& bp = sp.problem;
  Options o;
  o.rtol = rtol;
  o.atol = sp.atol_factor * rtol;
  o.h0 = bp.h0;
  o.max_steps = kMaxSteps;
  o.sensitivities = true;
  o.sensitivity_error_control = errcon;
  const Result r = solve(bp.dae, bp.t0, sp.t_end, bp.y0, method, o);
  SensRun run;
  run.ok = r.ok();
  run.message = r.message;
  run.S = r.sensitivities;
  run.steps = r.stats.naccept;
  run.nre = r.stats.nfev + r.stats.nfev_jac;
  return run;
}

/// -log10 of the max relative error over the entries above the floor (1e-6 of the column's
/// largest reference entry).
double digits(const Matrix& S, const Matrix& R) {
  if (S.rows() != R.rows() || S.cols() != R.cols()) return NAN;
  double worst = 0.0;
  for (int k = 0; k < R.cols(); ++k) {
    const double floor = 1e-6 * R.col(k).cwiseAbs().maxCoeff();
    for (int i = 0; i < R.rows(); ++i)
      if (std::abs(R(i, k)) >= floor && R(i, k) != 0.0)
        worst = std::max(worst, std::abs(S(i, k) - R(i, k)) / std::abs(R(i, k)));
  }
  return worst > 0 ? -std::log10(worst) : 16.0;
}

struct Config {
  std::string code;  ///< "idas", "radau5", "radau", "bdf"
  bool errcon = false;
  std::string label() const { return code + (errcon ? "+e" : ""); }
};

SensRun run_config(const Config& c, const SensProblem& sp, double rtol) {
  return c.code == "idas" ? run_idas(sp, rtol, c.errcon) : run_daekit(sp, c.code, rtol, c.errcon);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--problem") && i + 1 < argc)
      only = argv[++i];
    else {
      std::fprintf(stderr, "usage: daekit_sensitivities_vs_idas [--rounds N] [--problem NAME]\n");
      return 2;
    }
  }
  std::printf(
      "forward sensitivities (np = 3): daekit radau5, radau, bdf vs SUNDIALS IDAS %s "
      "(simultaneous corrector, DQ sensitivity residuals, analytic state Jacobian); "
      "+e = sensitivity error control on (errconS)\n"
      "digits = -log10 max rel. error of S(t_end) over entries >= 1e-6 x column max; "
      "cpu = median ms per solve over %d interleaved rounds\n",
      SUNDIALS_VERSION, rounds);
  std::printf("rerun: build/bench/daekit_sensitivities_vs_idas --rounds %d%s%s\n\n", rounds,
              only.empty() ? "" : " --problem ", only.c_str());
  std::vector<SensProblem> problems;
  if (only.empty() || only == "robertson")
    problems.push_back(make_sens_problem("robertson", 40, 1e-6));
  if (only.empty() || only == "akzo") problems.push_back(make_sens_problem("akzo", 180, 1.0));
  const std::vector<Config> configs = {{"idas", false},  {"idas", true},   {"radau5", false},
                                       {"radau5", true}, {"radau", false}, {"radau", true},
                                       {"bdf", false},   {"bdf", true}};
  const std::vector<double> tols = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
  for (const SensProblem& sp : problems) {
    const SensRun ref = run_daekit(sp, "radau5", 1e-12, false);
    if (!ref.ok) {
      std::printf("%s: the reference solve failed: %s\n", sp.problem.name.c_str(),
                  ref.message.c_str());
      continue;
    }
    std::printf("%s (t_end = %g, atol = %g rtol): reference radau5 at 1e-12 (%ld steps)",
                sp.problem.name.c_str(), sp.t_end, sp.atol_factor, ref.steps);
    for (double check_tol : {1e-12, 1e-11, 1e-10}) {  // IDAS's corrector may fail at 1e-12
      const SensRun check = run_idas(sp, check_tol, false);
      if (!check.ok) {
        std::printf("; IDAS at %g: %s", check_tol, check.message.c_str());
        continue;
      }
      std::printf("; IDAS at %g agrees to %.1f digits", check_tol, digits(check.S, ref.S));
      break;
    }
    std::printf("\n\n");
    std::printf("| problem | tol | code | digits | steps | f/F evals | cpu ms | / IDAS |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (double tol : tols) {
      std::vector<SensRun> runs(configs.size());
      std::vector<std::vector<double>> times(configs.size());
      for (int round = 0; round < rounds; ++round)
        for (size_t c = 0; c < configs.size(); ++c) {
          const double t0 = cpu_now();
          runs[c] = run_config(configs[c], sp, tol);
          times[c].push_back(cpu_now() - t0);
        }
      std::vector<double> median_ms(configs.size());
      for (size_t c = 0; c < configs.size(); ++c) {
        std::sort(times[c].begin(), times[c].end());
        median_ms[c] = 1e3 * times[c][times[c].size() / 2];
      }
      for (size_t c = 0; c < configs.size(); ++c) {
        const size_t idas = configs[c].errcon ? 1 : 0;  // IDAS with the same errconS
        const std::string ratio =
            runs[idas].ok ? std::to_string(median_ms[c] / median_ms[idas]).substr(0, 4) : "-";
        if (runs[c].ok)
          std::printf("| %s | %.0e | %s | %.1f | %ld | %ld | %.2f | %s |\n",
                      sp.problem.name.c_str(), tol, configs[c].label().c_str(),
                      digits(runs[c].S, ref.S), runs[c].steps, runs[c].nre, median_ms[c],
                      ratio.c_str());
        else
          std::printf("| %s | %.0e | %s | failed: %s | | | | |\n", sp.problem.name.c_str(), tol,
                      configs[c].label().c_str(), runs[c].message.c_str());
      }
      std::fflush(stdout);
    }
    std::printf("\n");
  }
  return 0;
}
