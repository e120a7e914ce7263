// MechanicalSystem: constrained multibody equations of motion in descriptor form
//
//     q' = v,
//     M(q) v' = f(t, q, v) - G(q)^T lambda,       G = dg/dq,
//     0 = g(q),
//
// (000_da456d5bdd91ee80.txt eq. (2.1) with u = q, NOTES-004.md ch. 9). Differentiating the
// constraint gives the hidden constraints 0 = G(q) v (velocity level) and
// 0 = G(q) v' + g_qq(q)(v, v) (acceleration level); consistent initial values satisfy all three.
//
// `index3_form` builds the index-3 mass-matrix form used by RADAU5 for Andrews' squeezer in the
// IVP Test Set: with the accelerations w = v' as extra unknowns,
//
//     q' = v,  v' = w,  0 = M(q) w - f(t, q, v) + G(q)^T lambda,  0 = g(q),
//
// y = (q, v, w, lambda), index tags (1, 2, 3, 3). When the mass matrix is constant
// (`constant_mass`), the smaller form y = (q, v, lambda) with mass matrix diag(I, M, 0) is used
// instead, as for the pendulum (4.1) of paper 000.
#pragma once

#include <functional>
#include <string>

#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct MechanicalSystem {
  using MassFn = std::function<void(double t, VecIn q, MatOut M)>;
  using ForceFn = std::function<void(double t, VecIn q, VecIn v, VecOut f)>;
  using ConstraintFn = std::function<void(double t, VecIn q, VecOut g)>;
  using ConstraintJacobianFn = std::function<void(double t, VecIn q, MatOut G)>;
  using CurvatureFn = std::function<void(double t, VecIn q, VecIn v, VecOut out)>;

  int nq = 0;                  ///< number of positions (= number of velocities)
  int nlambda = 0;             ///< number of constraints / multipliers
  MassFn mass;                 ///< M(q), nq x nq symmetric positive definite (required)
  bool constant_mass = false;  ///< M does not depend on q or t
  ForceFn force;               ///< applied forces f(t, q, v) (required)
  ConstraintFn g;              ///< position constraints g(q) (required)
  ConstraintJacobianFn G;      ///< G = dg/dq (optional: finite differences otherwise)
  CurvatureFn curvature;       ///< g_qq(q)(v, v) = (d/dq (G(q) v)) v (optional: finite differences)
  std::string name = "mechanical system";

  void validate() const;

  // Evaluation helpers (use the analytic parts when given, finite differences otherwise).
  void eval_G(double t, VecIn q, MatOut G_out) const;
  void eval_curvature(double t, VecIn q, VecIn v, VecOut out) const;
  ConstraintResiduals residuals(double t, VecIn q, VecIn v, VecIn vdot) const;
};

/// Consistent accelerations and multipliers for given (q, v): solves the saddle-point system
///   [M  G^T] [w     ]   [f(t, q, v)    ]
///   [G   0 ] [lambda] = [-g_qq(q)(v, v)]
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
                        ProjectionWorkspace& ws);

/// The formulations daekit builds from one MechanicalSystem (NOTES-004.md ch. 3 and 9,
/// Hairer-Wanner II, VII.1):
///   Index3: 0 = g(q)                           tags q 1, v 2, (w 3), lambda 3
///   Index2: 0 = G(q) v                         tags q 1, v 1, (w 2), lambda 2   (g drifts)
///   Index1: 0 = G(q) v' + g_qq(q)(v, v)        all tags 1                      (g, G v drift)
///   GGL:    q' = v - G^T mu, 0 = g(q), 0 = G(q) v   tags q, v 1, (w 2), lambda, mu 2
/// (Gear-Gupta-Leimkuhler stabilized index 2: both constraints hold, mu = 0 on solutions).
enum class Formulation { Index3, Index2, Index1, GGL };
const char* to_string(Formulation f);
/// "index3", "index2", "index1" or "ggl"; throws InvalidArgument otherwise.
Formulation parse_formulation(const std::string& name);

/// Where the blocks sit in y: q, v, w (general mass only, else -1), lambda, mu (GGL only).
struct MechanicalLayout {
  int n = 0, nq = 0, m = 0;
  int q = 0, v = 0, w = -1, lambda = 0, mu = -1;
};
MechanicalLayout mechanical_layout(const MechanicalSystem& sys, Formulation form);

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

}  // namespace daekit
