// Consistent values on the solve's systems (systems.hpp): the algorithms behind
// nonlinear/initialization.hpp, used by the public initialize() functions, by the methods'
// starts and by the re-initialisation after events, all with the solve's parameters, guard and
// statistics. Internal header (not installed).
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "daekit/nonlinear/initialization.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

InitResult initialize(ImplicitSystem& sys, double t0, const Vector& y0, const Vector& yp0,
                      InitMode mode, const InitOptions& options);
InitResult initialize(MassMatrixSystem& sys, double t0, const Vector& y0,
                      const InitOptions& options);
/// y'(t0) of M y' = f (see initial_derivative in initialization.hpp); false if a callback failed.
bool initial_derivative(MassMatrixSystem& sys, double t0, const Vector& y0, Vector& yp);
/// Consistent initial sensitivities S0 = dy0/dp (n x np) of M y' = f(t, y, p) at a consistent
/// (t0, y0): keeps M S0 as given (the differential part; zero unless the user gave S0) and makes
/// the sensitivities of the algebraic equations hold.
///   Index 1: the linearised algebraic equations L^T (f_y S + f_p) = 0 for S = S0 + N C (N, L
///   orthonormal bases of ker M and ker M^T): (L^T f_y N) C = -L^T (f_y S0 + f_p), one dense
///   solve per parameter (f_y from the Jacobian source, f_p from parameter_jacobian()).
///   Index 2 and 3 (components tagged 2 or 3 and zero rows in M): the algebraic variables of
///   the state's consistent values are fixed by the hidden constraints (the derivatives of the
///   constraints along the motion, initialize()); their sensitivities are the central
///   differences of that initialization in p_k (increment cbrt(eps) max(|p_k|, 1), tolerance at
///   the round-off level), the differential part kept (constraints that depend on p change
///   y_D with p: S0's differential part must then be given).
///   Where that initialization fails (its differenced hidden constraints too noisy, e.g.
///   Andrews' squeezer), the algebraic part is kept as given, and `warning` says so unless the
///   given S satisfies the linearised algebraic equations f_A,y S + f_A,p = 0 (the Radau
///   methods' later S do not depend on it: the algebraic components of y_n cancel from their
///   stage equations).
/// False with a message if a callback failed fatally or the index-1 algebraic part is
/// singular. Allocates: once, before the step loop.
bool consistent_initial_sensitivities(MassMatrixSystem& sys, double t0, const Vector& y0,
                                      const Vector& f0, Matrix& S, std::string& message,
                                      std::string& warning);
/// Re-initialisation after an event: solves the algebraic part of M y' = f at fixed
/// differential part (Newton on the algebraic equations for the algebraic variables when M has
/// as many zero rows as zero columns, else Newton on L^T f along ker M). Nothing to do for a
/// nonsingular M. False with a message if it fails.
bool reinitialize(MassMatrixSystem& sys, double t, Vector& y, std::string& message);
/// The index-2 components of a restart point (after an event, a switch, a tstop): z, the zero
/// columns of M tagged 2 (MassMatrixDae::index), are fixed by the hidden constraints, the time
/// derivatives of the algebraic equations (zero rows A of M), on the branch of the model in
/// force from t on. With v = y' on the other components (z' enters neither M y' nor, at index
/// 2, f_A), the square system
///   M[R, :] v - f_R(t, y(z)) = 0        (R: the other rows of M)
///   f_A,t + f_A,y v = 0                 (d/dt f_A(t, y(t)) = 0)
/// is solved for (v, z) by Newton (z enters linearly in Hessenberg form: one iteration), with
/// f0 = f(t, y) (on return f at the new y) and J = df/dy at (t, y) given (the method's) and f_A,t
/// by one-sided differences of second order towards `direction` (sign of the integration),
/// increment `dt` > 0: at a tstop f_t jumps, and the values wanted are those of the piece ahead. z
/// keeps its value from before t when there is nothing to do (no zero column tagged 2, a zero
/// column tagged 3, M without zero rows, n above kIndex2RestartMaxN) or the system is singular or
/// Newton does not converge (the method then restarts as it did without). False with a message only
/// when a callback failed fatally. Allocates (once per restart, outside the step loop).
/// With `yp` given, a converged solve also stores y' there: v on the other components and 0 on
/// the index-2 ones (their derivatives are not determined here); `yp` is left empty otherwise.
constexpr int kIndex2RestartMaxN = 400;
/// The increment of the differences in t, relative to the step before the restart.
inline const double kRestartDifferenceStep = std::cbrt(std::numeric_limits<double>::epsilon());
bool consistent_index2_values(MassMatrixSystem& sys, double t, Vector& y, Vector& f0,
                              const Matrix& J, double direction, double dt, std::string& message,
                              Vector* yp = nullptr);
/// The same with f and J = df/dy evaluated here (dense; nothing is evaluated when there is
/// nothing to do).
bool consistent_index2_values(MassMatrixSystem& sys, double t, Vector& y, double direction,
                              double dt, std::string& message, Vector* yp = nullptr);
/// Consistency of (t0, y0) for M y' = f: the algebraic equations (zero rows of M: |f_i| <= tol;
/// for a singular M without zero rows: L^T f) and the constraint monitor. Empty if consistent,
/// else what is violated.
std::string check_consistency(MassMatrixSystem& sys, double t0, const Vector& y0, double tol);

/// The analytic Jacobian of the solve's system against central differences (see
/// check_jacobian() in initialization.hpp). Up to n = max_full_n every column is compared
/// (2n + 1 evaluations of f); above, a sample of column groups of a colouring of the Jacobian's
/// structure (declared or detected), at most kCheckGroups groups spread over the colours, each
/// group differenced by one pair of evaluations (2 min(colours, kCheckGroups) + 1 in all: a
/// banded structure of 5 colours is checked whole in 11). Rows that move without a structural
/// entry in the group are compared with zero (an entry the Jacobian leaves out; reported with
/// column -1). The evaluations are counted in Stats::nfev_check, nothing else is counted.
/// An empty check (ok) when the system has no analytic Jacobian.
constexpr int kCheckGroups = 16;
constexpr int kFullCheckMaxN = 64;
JacobianCheck check_jacobian(MassMatrixSystem& sys, double t, const Vector& y,
                             int max_full_n = kFullCheckMaxN);
JacobianCheck check_jacobian(ImplicitSystem& sys, double t, const Vector& y, const Vector& yp,
                             int max_full_n = kFullCheckMaxN);

}  // namespace daekit
