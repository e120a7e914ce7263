// SUNDIALS IDA adaptor (see ida_runner.hpp). Written against the SUNDIALS 6 API (SUNContext,
// IDASetLinearSolver, IDASetJacFn, IDASetErrHandlerFn); bench/ida.cmake builds it only for 6.x.
#include "ida_runner.hpp"

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <cstdlib>
#include <ctime>
#include <exception>
#include <type_traits>

namespace daekit {

static_assert(std::is_same_v<sunrealtype, double>, "ida_runner needs SUNDIALS built with double");

namespace {

struct UserData {
  const ImplicitDae* dae = nullptr;
  int n = 0;
  Matrix jac_y;                ///< scratch for dF/dy
  Matrix jac_yp;               ///< scratch for dF/dy'
  SparseMatrix sjac_y;         ///< scratch for the sparse dF/dy (pattern of jacobian_sparsity)
  SparseMatrix sjac_yp;        ///< scratch for the sparse dF/dy'
  Vector inverse_diagonal;     ///< Spgmr's preconditioner: 1 / diag(dF/dy + cj dF/dy')
  std::string ida_error;       ///< last error message IDA reported
  std::string callback_error;  ///< exception thrown by a daekit callback
};

using ConstMap = Eigen::Map<const Vector>;

int residual(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void* data) {
  auto* u = static_cast<UserData*>(data);
  try {
    ConstMap ym(N_VGetArrayPointer(y), u->n), ypm(N_VGetArrayPointer(yp), u->n);
    Eigen::Map<Vector> rm(N_VGetArrayPointer(r), u->n);
    u->dae->F(t, ym, ypm, rm, u->dae->p);
    return rm.allFinite() ? 0 : 1;  // 1: recoverable, IDA retries with a smaller step
  } catch (const std::exception& e) {
    u->callback_error = std::string("residual threw: ") + e.what();
    return -1;
  }
}

int jacobian(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J,
             void* data, N_Vector, N_Vector, N_Vector) {
  auto* u = static_cast<UserData*>(data);
  try {
    ConstMap ym(N_VGetArrayPointer(y), u->n), ypm(N_VGetArrayPointer(yp), u->n);
    // dense SUNMatrix: column-major, leading dimension = number of rows
    Eigen::Map<Matrix> Jm(SUNDenseMatrix_Data(J), u->n, u->n);
    u->jac_y.setZero();
    u->dae->dF_dy(t, ym, ypm, u->jac_y, u->dae->p);
    Jm = u->jac_y;
    u->jac_yp.setZero();
    u->dae->dF_dyp(t, ym, ypm, u->jac_yp, u->dae->p);
    Jm += cj * u->jac_yp;
    return Jm.allFinite() ? 0 : 1;
  } catch (const std::exception& e) {
    u->callback_error = std::string("Jacobian threw: ") + e.what();
    return -1;
  }
}

// dF/dy + cj dF/dy' from the sparse callbacks into u->sjac_y (values on the pattern).
bool sparse_jacobian_values(UserData* u, sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp) {
  ConstMap ym(N_VGetArrayPointer(y), u->n), ypm(N_VGetArrayPointer(yp), u->n);
  u->sjac_y.coeffs().setZero();
  u->sjac_yp.coeffs().setZero();
  u->dae->sparse_dF_dy(t, ym, ypm, u->sjac_y, u->dae->p);
  u->dae->sparse_dF_dyp(t, ym, ypm, u->sjac_yp, u->dae->p);
  u->sjac_y.coeffs() += cj * u->sjac_yp.coeffs();
  return u->sjac_y.coeffs().allFinite();
}

int band_jacobian(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J,
                  void* data, N_Vector, N_Vector, N_Vector) {
  auto* u = static_cast<UserData*>(data);
  try {
    if (!sparse_jacobian_values(u, t, cj, y, yp)) return 1;
    SUNMatZero(J);
    const SparseMatrix& A = u->sjac_y;
    for (int j = 0; j < A.outerSize(); ++j) {
      sunrealtype* col = SUNBandMatrix_Column(J, j);
      for (SparseMatrix::InnerIterator it(A, j); it; ++it)
        SM_COLUMN_ELEMENT_B(col, it.row(), j) = it.value();
    }
    return 0;
  } catch (const std::exception& e) {
    u->callback_error = std::string("Jacobian threw: ") + e.what();
    return -1;
  }
}

int klu_jacobian(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J,
                 void* data, N_Vector, N_Vector, N_Vector) {
  auto* u = static_cast<UserData*>(data);
  try {
    if (!sparse_jacobian_values(u, t, cj, y, yp)) return 1;
    const SparseMatrix& A = u->sjac_y;  // compressed CSC, the same pattern every call
    sunindextype* ptr = SUNSparseMatrix_IndexPointers(J);
    sunindextype* idx = SUNSparseMatrix_IndexValues(J);
    sunrealtype* val = SUNSparseMatrix_Data(J);
    for (int j = 0; j <= A.outerSize(); ++j) ptr[j] = A.outerIndexPtr()[j];
    for (long k = 0; k < A.nonZeros(); ++k) {
      idx[k] = A.innerIndexPtr()[k];
      val[k] = A.valuePtr()[k];
    }
    return 0;
  } catch (const std::exception& e) {
    u->callback_error = std::string("Jacobian threw: ") + e.what();
    return -1;
  }
}

// Spgmr's preconditioner set-up (idaHeat2D_kry's): P = diag(dF/dy + cj dF/dy'), stored inverted.
int jacobi_setup(sunrealtype t, N_Vector y, N_Vector yp, N_Vector, sunrealtype cj, void* data) {
  auto* u = static_cast<UserData*>(data);
  try {
    if (!sparse_jacobian_values(u, t, cj, y, yp)) return 1;
    const Vector d = u->sjac_y.diagonal();
    if (!(d.array() != 0.0).all()) return 1;  // recoverable: IDA retries with a smaller step
    u->inverse_diagonal = d.cwiseInverse();
    return 0;
  } catch (const std::exception& e) {
    u->callback_error = std::string("preconditioner set-up threw: ") + e.what();
    return -1;
  }
}

int jacobi_solve(sunrealtype, N_Vector, N_Vector, N_Vector, N_Vector r, N_Vector z, sunrealtype,
                 sunrealtype, void* data) {
  auto* u = static_cast<UserData*>(data);
  Eigen::Map<Vector>(N_VGetArrayPointer(z), u->n) =
      ConstMap(N_VGetArrayPointer(r), u->n).cwiseProduct(u->inverse_diagonal);
  return 0;
}

void error_handler(int code, const char*, const char* function, char* msg, void* data) {
  if (code >= 0) return;  // warnings are not failures
  auto* u = static_cast<UserData*>(data);
  u->ida_error = std::string(function ? function : "IDA") + ": " + (msg ? msg : "");
}

std::string flag_name(int flag) {
  char* s = IDAGetReturnFlagName(flag);  // malloc'ed by IDA
  std::string name = s ? s : "IDA flag " + std::to_string(flag);
  std::free(s);
  return name;
}

/// Everything SUNDIALS allocates, freed in reverse order of creation.
struct Resources {
  SUNContext ctx = nullptr;
  N_Vector y = nullptr, yp = nullptr, id = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  void* mem = nullptr;
  Resources() = default;
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;
  ~Resources() {
    if (mem) IDAFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (id) N_VDestroy(id);
    if (yp) N_VDestroy(yp);
    if (y) N_VDestroy(y);
    if (ctx) SUNContext_Free(&ctx);
  }
};

}  // namespace

IdaRun run_ida(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
               double rtol, double atol, double h0, bool analytic_jacobian, long max_steps,
               bool calc_ic) {
  IdaSettings s;
  s.h0 = h0;
  s.analytic_jacobian = analytic_jacobian;
  s.max_steps = max_steps;
  s.calc_ic = calc_ic;
  return run_ida(dae, t0, t_end, y0, yp0, rtol, atol, s);
}

IdaRun run_ida(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
               double rtol, double atol, const IdaSettings& settings) {
  const double h0 = settings.h0;
  const bool analytic_jacobian = settings.analytic_jacobian;
  const long max_steps = settings.max_steps;
  const bool calc_ic = settings.calc_ic;
  using Solver = IdaSettings::Solver;
  dae.validate();
  const bool sparse_callbacks = dae.sparse_dF_dy && dae.sparse_dF_dyp;
  if ((settings.solver == Solver::Klu || settings.solver == Solver::Spgmr) && !sparse_callbacks)
    throw InvalidArgument(
        "run_ida: KLU and SPGMR need the sparse callbacks sparse_dF_dy, sparse_dF_dyp");
  if (settings.solver == Solver::Band && analytic_jacobian && !sparse_callbacks)
    throw InvalidArgument("run_ida: an analytic band Jacobian needs sparse_dF_dy, sparse_dF_dyp");
  const int n = dae.n;
  if (y0.size() != n || yp0.size() != n)
    throw InvalidArgument("run_ida: y0 and yp0 must have size n = " + std::to_string(n));
  if (!(rtol >= 0) || !(atol >= 0) || (rtol == 0 && atol == 0))
    throw InvalidArgument("run_ida: tolerances must be >= 0 and not both 0");
  if (t_end == t0) throw InvalidArgument("run_ida: t_end equals t0");

  IdaRun run;
  run.t = t0;
  run.y = y0;
  UserData ud;
  ud.dae = &dae;
  ud.n = n;
  if (settings.solver == Solver::Dense) {
    ud.jac_y = Matrix::Zero(n, n);
    ud.jac_yp = Matrix::Zero(n, n);
  } else if (sparse_callbacks) {
    SparseMatrix pattern = dae.jacobian_sparsity.to_pattern(n);
    pattern.makeCompressed();
    pattern.coeffs().setZero();
    ud.sjac_y = pattern;
    ud.sjac_yp = pattern;
  }
  Resources res;
  auto check = [&](int flag, const char* call) {
    if (flag >= 0) return true;
    run.message = std::string(call) + " returned " + flag_name(flag);
    return false;
  };
  auto check_ptr = [&](const void* p, const char* call) {
    if (p) return true;
    run.message = std::string(call) + " failed (out of memory?)";
    return false;
  };

  const std::clock_t c0 = std::clock();
  bool ok = check(SUNContext_Create(nullptr, &res.ctx), "SUNContext_Create") &&
            check_ptr(res.y = N_VNew_Serial(n, res.ctx), "N_VNew_Serial") &&
            check_ptr(res.yp = N_VClone(res.y), "N_VClone") &&
            check_ptr(res.id = N_VClone(res.y), "N_VClone");
  if (ok) {
    Eigen::Map<Vector>(N_VGetArrayPointer(res.y), n) = y0;
    Eigen::Map<Vector>(N_VGetArrayPointer(res.yp), n) = yp0;
    double* id = N_VGetArrayPointer(res.id);
    for (int i = 0; i < n; ++i)
      id[i] = dae.differential.empty() || dae.differential[static_cast<size_t>(i)] ? 1.0 : 0.0;
    const bool spgmr = settings.solver == Solver::Spgmr;
    const bool use_jac =
        analytic_jacobian && !spgmr &&
        (settings.solver == Solver::Dense ? dae.dF_dy && dae.dF_dyp : sparse_callbacks);
    const IDALsJacFn jac_fn = settings.solver == Solver::Dense  ? jacobian
                              : settings.solver == Solver::Band ? band_jacobian
                                                                : klu_jacobian;
    auto make_linear_solver = [&]() {
      switch (settings.solver) {
        case Solver::Band:
          return check_ptr(res.A = SUNBandMatrix(n, settings.upper, settings.lower, res.ctx),
                           "SUNBandMatrix") &&
                 check_ptr(res.LS = SUNLinSol_Band(res.y, res.A, res.ctx), "SUNLinSol_Band");
        case Solver::Klu:
          return check_ptr(
                     res.A = SUNSparseMatrix(n, n, static_cast<sunindextype>(ud.sjac_y.nonZeros()),
                                             CSC_MAT, res.ctx),
                     "SUNSparseMatrix") &&
                 check_ptr(res.LS = SUNLinSol_KLU(res.y, res.A, res.ctx), "SUNLinSol_KLU");
        case Solver::Spgmr:
          return check_ptr(res.LS = SUNLinSol_SPGMR(res.y, SUN_PREC_LEFT, settings.krylov_dimension,
                                                    res.ctx),
                           "SUNLinSol_SPGMR") &&
                 check(SUNLinSol_SPGMRSetMaxRestarts(res.LS, settings.max_restarts),
                       "SUNLinSol_SPGMRSetMaxRestarts");
        default:
          return check_ptr(res.A = SUNDenseMatrix(n, n, res.ctx), "SUNDenseMatrix") &&
                 check_ptr(res.LS = SUNLinSol_Dense(res.y, res.A, res.ctx), "SUNLinSol_Dense");
      }
    };
    const double direction = t_end > t0 ? 1.0 : -1.0;
    ok = check_ptr(res.mem = IDACreate(res.ctx), "IDACreate") &&
         check(IDASetErrHandlerFn(res.mem, error_handler, &ud), "IDASetErrHandlerFn") &&
         check(IDAInit(res.mem, residual, t0, res.y, res.yp), "IDAInit") &&
         check(IDASStolerances(res.mem, rtol, atol), "IDASStolerances") &&
         check(IDASetUserData(res.mem, &ud), "IDASetUserData") &&
         check(IDASetId(res.mem, res.id), "IDASetId") &&
         check(IDASetMaxNumSteps(res.mem, max_steps), "IDASetMaxNumSteps") &&
         (h0 <= 0 || check(IDASetInitStep(res.mem, direction * h0), "IDASetInitStep")) &&
         check(IDASetStopTime(res.mem, t_end), "IDASetStopTime") && make_linear_solver() &&
         check(IDASetLinearSolver(res.mem, res.LS, res.A), "IDASetLinearSolver") &&
         (!use_jac || check(IDASetJacFn(res.mem, jac_fn), "IDASetJacFn")) &&
         (!spgmr || check(IDASetPreconditioner(res.mem, jacobi_setup, jacobi_solve),
                          "IDASetPreconditioner")) &&
         (!settings.suppress_alg ||
          check(IDASetSuppressAlg(res.mem, SUNTRUE), "IDASetSuppressAlg")) &&
         (!calc_ic || check(IDACalcIC(res.mem, IDA_YA_YDP_INIT, t_end), "IDACalcIC"));
  }
  if (ok) {
    sunrealtype tret = t0;
    const int flag = IDASolve(res.mem, t_end, &tret, res.y, res.yp, IDA_NORMAL);
    run.t = tret;
    ok = check(flag, "IDASolve");
  }
  run.cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;

  if (res.y) run.y = Eigen::Map<const Vector>(N_VGetArrayPointer(res.y), n);
  if (res.mem) {
    long nrevals = 0, nrevals_ls = 0, nsteps = 0, nlinsetups = 0, netf = 0, nni = 0, nncf = 0;
    long njev = 0;
    int qlast = 0, qcur = 0;
    sunrealtype hinused = 0, hlast = 0, hcur = 0, tcur = 0;
    IDAGetIntegratorStats(res.mem, &nsteps, &nrevals, &nlinsetups, &netf, &qlast, &qcur, &hinused,
                          &hlast, &hcur, &tcur);
    IDAGetNumNonlinSolvIters(res.mem, &nni);
    IDAGetNumNonlinSolvConvFails(res.mem, &nncf);
    if (res.LS) {
      IDAGetNumJacEvals(res.mem, &njev);
      IDAGetNumLinResEvals(res.mem, &nrevals_ls);
      IDAGetNumLinIters(res.mem, &run.nli);
      IDAGetNumPrecEvals(res.mem, &run.npe);
      IDAGetNumPrecSolves(res.mem, &run.nps);
      IDAGetNumLinConvFails(res.mem, &run.nlcf);
    }
    run.nsteps = nsteps;
    run.nre = nrevals + nrevals_ls;
    run.nre_ls = nrevals_ls;
    run.njev = njev;
    run.nlinsetups = nlinsetups;
    run.netf = netf;
    run.nncf = nncf;
    run.nni = nni;
  }
  run.ok = ok;
  if (!ok) {
    if (!ud.ida_error.empty()) run.message += " (" + ud.ida_error + ")";
    if (!ud.callback_error.empty()) run.message += " [" + ud.callback_error + "]";
  }
  return run;
}

}  // namespace daekit
