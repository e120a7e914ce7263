// EulerLagrangeDae: index-2 Euler-Lagrange DAEs
//
//     x' = f(t, x) - B(t, x)^T lambda,      0 = g(t, x),      G = dg/dx,
//
// with G B^T invertible along the solution (index 2). Paper 003 (003_93cd61043aac115a.txt,
// eq. (1.1)) has B = G, autonomous f and g: x' = f(x) - G(x)^T lambda, 0 = g(x), G G^T
// invertible -- that is the default here (B not given). The lecture notes' form (5.1),
// y' = f0(y) + f_lambda(y) lambda, 0 = g(y), is the same with f_lambda = -B^T: constrained
// mechanical systems at velocity level, x = (q, v), have B = (0, G(q) M(q)^{-1}) and
// g(x) = G(q) v (euler_lagrange_form(MechanicalSystem) in nonlinear/euler_lagrange.hpp).
// The right-hand side is affine in lambda -- the structure the beta-blocked multistep methods
// (methods/beta_multistep.hpp) rest on.
//
// Consistent values: g(t0, x0) = 0 and the hidden constraint G x' + g_t = 0, which fixes
// lambda0 = (G B^T)^{-1} (G f + g_t) (consistent_multipliers() in nonlinear/euler_lagrange.hpp).
// Methods take the form through to_mass_matrix_form (nonlinear/euler_lagrange.hpp): y = (x,
// lambda), M = diag(I, 0), index tags x: 1, lambda: 2.
// Callbacks may take the parameter vector p as an extra last argument (core/callback.hpp).
#pragma once

#include <string>
#include <vector>

#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct EulerLagrangeDae {
  using Rhs = Callback<void(double t, VecIn x, VecOut out)>;
  using ConstraintFn = Callback<void(double t, VecIn x, VecOut out)>;
  /// An nlambda x nx matrix written into `out` (zeroed by the caller).
  using ConstraintMatrixFn = Callback<void(double t, VecIn x, MatOut out)>;
  using MonitorFn = Callback<ConstraintResiduals(double t, VecIn x)>;

  int nx = 0;       ///< differential variables x
  int nlambda = 0;  ///< constraints g and multipliers lambda
  Rhs f;            ///< f(t, x), size nx (required)
  ConstraintFn g;   ///< g(t, x), size nlambda (required when nlambda > 0)
  /// G = dg/dx (optional when B is given: the methods and the consistency computations then
  /// difference g; required when B is not given, since G^T lambda is then part of the
  /// equations and differences would change the problem).
  ConstraintMatrixFn G;
  /// B: the directions of the multiplier forces, x' = f - B^T lambda (optional: B = G).
  ConstraintMatrixFn B;
  /// Drift monitor (optional; default: position = |g(t, x)|). Adaptors of mechanical systems
  /// report the position constraint g(q) and the velocity constraint G(q) v.
  MonitorFn monitor;
  Vector p;                                  ///< parameters passed to the callbacks
  std::vector<std::string> component_names;  ///< nx + nlambda names (optional)
  std::string name = "Euler-Lagrange DAE";

  /// Throws InvalidArgument naming the first thing that is wrong.
  void validate() const;
  int n() const { return nx + nlambda; }
};

}  // namespace daekit
