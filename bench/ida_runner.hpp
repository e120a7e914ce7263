// run_ida(): SUNDIALS IDA (variable-order BDF, serial N_Vector; dense, band or KLU sparse
// SUNMatrix and SUNLinearSolver; SUNContext API of SUNDIALS 6) on a daekit ImplicitDae
// F(t, y, y') = 0, for comparisons with daekit's own solvers. Built only when SUNDIALS is
// found (bench/ida.cmake).
//
//   ImplicitDae dae = to_implicit_form(problem.dae);
//   IdaRun r = run_ida(dae, t0, t_end, y0, yp0, 1e-6, 1e-6);
#pragma once

#include <string>

#include "daekit/daekit.hpp"

namespace daekit {

struct IdaRun {
  bool ok = false;
  std::string message;       ///< empty on success; IDA's flag name (and message) otherwise
  Vector y;                  ///< state at t
  double t = 0.0;            ///< time reached (t_end on success)
  long nsteps = 0;           ///< steps taken (IDAGetIntegratorStats)
  long nre = 0;              ///< residual evaluations, including those for FD Jacobians
  long nre_ls = 0;           ///< residual evaluations for FD Jacobians (0 with an analytic one)
  long njev = 0;             ///< Jacobian evaluations (analytic or FD)
  long nlinsetups = 0;       ///< linear solver setups (LU factorisations)
  long netf = 0;             ///< error test failures
  long nncf = 0;             ///< nonlinear solver convergence failures
  long nni = 0;              ///< nonlinear (Newton) iterations
  long nli = 0;              ///< Krylov iterations (SPGMR; 0 for the direct solvers)
  long npe = 0;              ///< preconditioner set-ups (SPGMR)
  long nps = 0;              ///< preconditioner solves (SPGMR)
  long nlcf = 0;             ///< Krylov convergence failures (SPGMR)
  double cpu_seconds = 0.0;  ///< std::clock time of initialisation + integration
};

/// Integrates F(t, y, y') = 0 from (t0, y0, yp0) to t_end with IDA (IDA_NORMAL mode, stop time
/// t_end) at scalar tolerances rtol, atol. h0 > 0 sets IDA's initial step. With
/// analytic_jacobian and both dae.dF_dy and dae.dF_dyp set, IDA gets J = dF/dy + cj dF/dy';
/// otherwise IDA builds it by difference quotients. The differential tags become IDASetId;
/// calc_ic calls IDACalcIC(IDA_YA_YDP_INIT) first (algebraic y and differential y' from the
/// given differential y). IDA failures (negative flags) give ok = false; wrong sizes throw
/// InvalidArgument.
IdaRun run_ida(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
               double rtol, double atol, double h0 = 0, bool analytic_jacobian = true,
               long max_steps = 500000, bool calc_ic = false);

/// IDA's linear solver: dense (SUNLinSol_Dense), band (SUNLinSol_Band with bandwidths
/// lower/upper), sparse (SUNLinSol_KLU on a CSC SUNSparseMatrix with the pattern of
/// dae.jacobian_sparsity) or matrix-free SPGMR (SUNLinSol_SPGMR, left preconditioning, IDA's
/// difference-quotient J v) with the preconditioner of SUNDIALS' idaHeat2D_kry example: the
/// inverse of the diagonal of dF/dy + cj dF/dy' (taken from the sparse callbacks).
struct IdaSettings {
  enum class Solver { Dense, Band, Klu, Spgmr };
  Solver solver = Solver::Dense;
  int lower = 0, upper = 0;       ///< Band: the bandwidths
  double h0 = 0;                  ///< initial step (0: IDA's choice)
  bool analytic_jacobian = true;  ///< Band/Klu need the sparse callbacks sparse_dF_dy/dF_dyp
  bool suppress_alg = false;      ///< IDASetSuppressAlg: algebraic components out of the test
  long max_steps = 500000;
  bool calc_ic = false;
  int krylov_dimension = 5;  ///< Spgmr: maxl (idaHeat2D_kry: 0 = SUNDIALS' default 5)
  int max_restarts = 5;      ///< Spgmr: restarts of GMRES (idaHeat2D_kry: 5)
};

/// The same with a choice of linear solver. Band and Klu take the Jacobian dF/dy + cj dF/dy'
/// from dae.sparse_dF_dy and dae.sparse_dF_dyp (values on dae.jacobian_sparsity's pattern,
/// copied into IDA's band or CSC matrix); Band also accepts difference quotients
/// (analytic_jacobian = false: IDA's banded DQ Jacobian). Klu without the sparse callbacks
/// throws InvalidArgument.
IdaRun run_ida(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
               double rtol, double atol, const IdaSettings& settings);

}  // namespace daekit
