// Projections onto manifolds given by equations, usable after the steps of any one-step method
// (through MassMatrixDae::project and Options::projection):
//
//   coordinate projection (Bendtsen and Thomsen (1999), ch. 3, (3.10)):  min ||y - y~||_2  s.t.
//   c(t, y) = 0, invariant projection  (ch. 3, (3.13); ch. 8):        min ||y - y~||_2  s.t. phi(y)
//   = phi(y0),
//
// solved by the Gauss-Newton-type iteration  y <- y - C^T (C C^T)^{-1} c(y)  with C = dc/dy
// frozen at y~ (C by the shared finite differences unless given): it converges to the nearest
// point of the manifold up to O(|y~ - y|^2), the standard practical choice
// (Hairer-Lubich-Wanner, IV.4).
#pragma once

#include <functional>

#include "daekit/problem/mass_matrix_dae.hpp"
#include "daekit/problem/mechanical_system.hpp"

namespace daekit {

/// Equations c(t, y) = 0 (k of them) defining the manifold, optionally with their Jacobian.
struct ManifoldEquations {
  int k = 0;
  std::function<void(double t, VecIn y, VecOut c)> c;
  std::function<void(double t, VecIn y, MatOut C)> jacobian;  ///< optional (k x n)
};

/// Projects y in place onto c(t, y) = 0 (Euclidean). Returns false if the iteration does not
/// reach |c| <= tol (default: 1e-12 relative to 1 + |y|) within 20 iterations.
bool coordinate_projection(const ManifoldEquations& eq, double t, VecOut y, double tol = 0.0);

/// A projector for MassMatrixDae::project from manifold equations (the projection level is
/// ignored: all equations are always enforced).
MassMatrixDae::Projector coordinate_projector(ManifoldEquations eq);

/// Manifold equations of the position and velocity constraints g(q) = 0, G(q) v = 0 of a
/// formulation of `sys` (q and v read from the formulation's layout).
ManifoldEquations mechanical_constraints(const MechanicalSystem& sys, Formulation form);

/// Manifold equations phi(y) - phi(y0) = 0 of first integrals phi (k of them) of an ODE
/// (e.g. energy, the Jacobi integral of the restricted three-body problem).
ManifoldEquations invariants(int k, std::function<void(VecIn y, VecOut phi)> phi, const Vector& y0);

}  // namespace daekit
