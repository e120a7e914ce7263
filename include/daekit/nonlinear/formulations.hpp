// Formulations: the mass-matrix DAEs daekit builds from structured models, with their drift
// monitors, projectors and consistent initial values.
//
// MechanicalSystem (problem/mechanical_system.hpp), q' = v, M(q) v' = f - G^T lambda, g(q) = 0:
//   formulate(sys, form) gives the index-3, index-2, index-1 or GGL form (see Formulation).
//   With a general mass matrix the accelerations w = v' are extra unknowns,
//     q' = v,  v' = w,  0 = M(q) w - f(t, q, v) + G(q)^T lambda,  0 = g(q)   (index 3),
//   y = (q, v, w, lambda), tags (1, 2, 3, 3) (the IVP Test Set's form of Andrews' squeezer);
//   with a constant mass matrix the smaller y = (q, v, lambda), mass diag(I, M, 0) (pendulum
//   (4.1) of paper 000).
//   The projector is (2.7)/(2.8) of paper 000 (project_mechanical), the monitor the drift
//   d1 = |g|, d2 = |G v|, d3 = |G v' + g_qq(v, v)|.
// SemiExplicitDae (problem/semi_explicit_dae.hpp): to_mass_matrix_form, with the projection
//   (2.6) of paper 001 for index 2.
// Each formulated problem owns its scratch storage by value (the solver's copy of the problem
// has its own), so solves on different threads are independent; parameters p of the model are
// those of the formulated problem and reach the model's callbacks. The formulated f calls the
// model's g, G and mass once per (t, q, p) and its force once per (t, q, v, p), compared to
// the bit with its previous call (a difference Jacobian's columns for v and lambda reuse them):
// the model's callbacks must be functions of their arguments.
#pragma once

#include "daekit/problem/mass_matrix_dae.hpp"
#include "daekit/problem/mechanical_system.hpp"
#include "daekit/problem/semi_explicit_dae.hpp"

namespace daekit {

// Evaluation of a mechanical system's constraint terms (analytic parts when given, the shared
// finite differences otherwise).
/// G = dg/dq at q (nlambda x nq).
void constraint_jacobian(const MechanicalSystem& sys, double t, VecIn q, MatOut G, VecIn p);
/// g_t = dg/dt at (t, q) (zero unless sys.rheonomic; central differences in t without sys.g_t).
void constraint_time_derivative(const MechanicalSystem& sys, double t, VecIn q, VecOut out,
                                VecIn p);
/// g_qq(q)(v, v) = (d/dq (G(q) v)) v, plus 2 g_tq v + g_tt for a rheonomic system.
void constraint_curvature(const MechanicalSystem& sys, double t, VecIn q, VecIn v, VecOut out,
                          VecIn p);
/// |g(q)|, |G(q) v + g_t|, |G(q) vdot + curvature| (max-norms).
ConstraintResiduals constraint_residuals(const MechanicalSystem& sys, double t, VecIn q, VecIn v,
                                         VecIn vdot);

/// Consistent accelerations and multipliers for given (q, v): solves the saddle-point system
///   [M  G^T] [w     ]   [f(t, q, v)    ]
///   [G   0 ] [lambda] = [-g_qq(q)(v, v)]   (rheonomic: - g_qq(v, v) - 2 g_tq v - g_tt)
/// Throws InvalidArgument if G is rank deficient (naming the constraint) or M is singular.
struct AccelerationAndMultipliers {
  Vector w;
  Vector lambda;
};
AccelerationAndMultipliers consistent_acceleration(const MechanicalSystem& sys, double t,
                                                   const Vector& q, const Vector& v);

/// Checks g(q0) = 0 and G(q0) v0 = 0 to within `tol` (max-norm); throws InvalidArgument that
/// names the violated constraint and the size of the violation.
void check_consistent_positions(const MechanicalSystem& sys, double t, const Vector& q,
                                const Vector& v, double tol);

/// Scratch storage of project_mechanical (sized once, reused: no allocation per projection).
struct ProjectionWorkspace {
  ProjectionWorkspace(int nq, int nlambda);
  Matrix M, G, MinvGT, S;
  Vector g, mu, dq;
  Eigen::LLT<Matrix> llt;
  Eigen::PartialPivLU<Matrix> lu;
};

/// Projection of 000_da456d5bdd91ee80.txt (2.7)/(2.8) for q' = v, where f_v = I and
/// k_lambda = -M(q)^{-1} G(q)^T:
///   Full:      q <- q~ - M^{-1} G^T mu1 with g(q) = 0 (simplified Newton, M and G frozen at q~),
///   then both: v <- v~ - M^{-1} G^T mu2 with G(q) v = 0, i.e. mu2 = (G M^{-1} G^T)^{-1} G v~
///              (M-orthogonal projection onto the velocity constraint at the new q).
/// Returns false if the position Newton iteration does not converge or the result is not finite.
bool project_mechanical(const MechanicalSystem& sys, double t, VecOut q, VecOut v, Projection level,
                        ProjectionWorkspace& ws, VecIn p);

/// The mass-matrix DAE of a formulation, with drift monitor (d1, d2, d3) and projector.
MassMatrixDae formulate(const MechanicalSystem& sys, Formulation form);

/// Consistent initial vector of a formulation from (q0, v0): accelerations and multipliers
/// from the saddle-point system, mu = 0; with `project_velocities` v0 is first projected onto
/// G(q0) v = 0. Throws InvalidArgument for a rank-deficient G (naming the constraint).
Vector initial_values(const MechanicalSystem& sys, Formulation form, double t0, const Vector& q0,
                      const Vector& v0, bool project_velocities = false);

/// The index-3 form (see above) = formulate(sys, Formulation::Index3).
MassMatrixDae index3_form(const MechanicalSystem& sys);
/// initial_values(sys, Formulation::Index3, t0, q0, v0).
Vector index3_initial_values(const MechanicalSystem& sys, double t0, const Vector& q0,
                             const Vector& v0);

/// The equivalent MassMatrixDae in x = (y, z), M = diag(I, 0), z tagged with the algebraic
/// index. For index 2 it carries the projector of project_index2.
MassMatrixDae to_mass_matrix_form(const SemiExplicitDae& dae);

/// The stabilised index-1 reformulation (4.10) of 001_6d2dbb58aab0d43f.txt of an index-2 DAE
/// y' = f(t, y, z), 0 = g(t, y) (B = beta I):
///   y' = f(t, y, z),   0 = g_t(t, y) + g_y(t, y) f(t, y, z) + beta g(t, y),
/// index 1 (g_y f_z invertible), on whose solutions g(t, y(t)) = e^{-beta (t - t0)} g(t0, y0):
/// the constraint manifold attracts instead of being merely preserved (the embedding (3.1) with
/// its v eliminated). g_t + g_y f is the derivative of g along (1, f), by fourth-order central
/// differences (relative error about 1e-12). Throws InvalidArgument unless `dae` has index 2
/// and beta >= 0 is finite.
SemiExplicitDae stabilized_index1_form(const SemiExplicitDae& dae, double beta);

/// Projection (2.6) of 001_6d2dbb58aab0d43f.txt (Ascher-Petzold) for index 2:
///   y_{n+1} = y~ + f_z(y_{n+1}, z_{n+1}) gamma,   0 = g(y_{n+1}),
/// z unchanged. Simplified Newton in gamma with f_z and g_y by the shared finite differences,
/// f_z refreshed once at the projected point. Returns false if it does not converge.
/// (Allocates: meant for the projected RK studies, not for large systems.)
bool project_index2(const SemiExplicitDae& dae, double t, VecOut x, VecIn p);

}  // namespace daekit
