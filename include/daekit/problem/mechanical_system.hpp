// MechanicalSystem: constrained multibody equations of motion in descriptor form
//
//     q' = v,
//     M(q) v' = f(t, q, v) - G(q)^T lambda,       G = dg/dq,
//     0 = g(t, q),
//
// (000_da456d5bdd91ee80.txt eq. (2.1) with u = q, Bendtsen and Thomsen (1999), ch. 9).
// Differentiating the constraint gives the hidden constraints 0 = G(q) v (velocity level) and 0 =
// G(q) v' + g_qq(q)(v, v) (acceleration level); consistent initial values satisfy all three.
// Rheonomic (time-dependent) constraints, prescribed motions such as a driven crank or a moving
// suspension point (rheonomic = true), add the explicit time derivatives (004 ch. 3.2.1 carried
// out with t in g):
//     velocity level      0 = G(t, q) v + g_t(t, q),
//     acceleration level  0 = G(t, q) v' + g_qq(v, v) + 2 g_tq v + g_tt,
// and the curvature term c(t, q, v) = g_qq(v, v) + 2 g_tq v + g_tt is the second derivative of
// s -> g(t + s, q + s v) at s = 0 (what `curvature` must return for a rheonomic system; by
// central differences of G v + g_t along (1, v) when it is not given).
// The formulations daekit solves (index 3, 2, 1, GGL), the projections and consistent values
// are built from it in nonlinear/formulations.hpp. Callbacks may take p as an extra last
// argument (core/callback.hpp).
#pragma once

#include <string>

#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct MechanicalSystem {
  using MassFn = Callback<void(double t, VecIn q, MatOut M)>;
  using ForceFn = Callback<void(double t, VecIn q, VecIn v, VecOut f)>;
  using ConstraintFn = Callback<void(double t, VecIn q, VecOut g)>;
  using ConstraintJacobianFn = Callback<void(double t, VecIn q, MatOut G)>;
  using CurvatureFn = Callback<void(double t, VecIn q, VecIn v, VecOut out)>;
  using ConstraintTimeFn = Callback<void(double t, VecIn q, VecOut g_t)>;
  using TermsFn =
      Callback<void(double t, VecIn q, VecIn v, MatOut M, VecOut f, VecOut g, MatOut G)>;

  int nq = 0;                  ///< number of positions (= number of velocities)
  int nlambda = 0;             ///< number of constraints / multipliers
  MassFn mass;                 ///< M(q), nq x nq symmetric positive definite (required)
  bool constant_mass = false;  ///< M does not depend on q or t
  ForceFn force;               ///< applied forces f(t, q, v) (required)
  ConstraintFn g;              ///< position constraints g(t, q) (required if nlambda > 0)
  ConstraintJacobianFn G;      ///< G = dg/dq (optional: finite differences otherwise)
  /// g_qq(q)(v, v) = (d/dq (G(q) v)) v, plus 2 g_tq v + g_tt when rheonomic (optional:
  /// differences)
  CurvatureFn curvature;
  /// g depends on t explicitly (prescribed motion): the velocity and acceleration constraints
  /// get the g_t, g_tq and g_tt terms above. false: g_t is never evaluated (no cost).
  bool rheonomic = false;
  /// dg/dt (t, q) for a rheonomic system (optional: central differences in t otherwise)
  ConstraintTimeFn g_t;
  /// Optional: M(q), f(t, q, v), g(q) and G(q) in one call, for models whose terms share work
  /// (the sines and cosines of Andrews' angles); the formulations' f then calls it instead of
  /// the four callbacks above (which remain required for the other uses).
  TermsFn terms;
  Vector p;  ///< parameters passed to the callbacks (may be empty)
  std::string name = "mechanical system";

  void validate() const;
};

/// The formulations daekit builds from one MechanicalSystem (Bendtsen and Thomsen (1999), ch. 3 and
/// 9, Hairer-Wanner II, VII.1):
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

}  // namespace daekit
