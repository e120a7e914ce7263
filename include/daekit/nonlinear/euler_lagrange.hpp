// Euler-Lagrange index-2 DAEs (problem/euler_lagrange_dae.hpp): the mass-matrix form the
// methods solve, adaptors from the other forms, and consistent multipliers.
//
// to_mass_matrix_form(el): y = (x, lambda), M = diag(I, 0),
//     F(t, y) = (f(t, x) - B(t, x)^T lambda, g(t, x)),  index tags x: 1, lambda: 2
//   (the RADAU5 convention for index 2), with the problem's monitor (default |g|). Every method
//   taking M y' = f solves it; the beta-blocked multistep methods (methods/beta_multistep.hpp)
//   read the Euler-Lagrange structure back from M's zero rows and columns.
// euler_lagrange_form(MechanicalSystem): the velocity-level (index-2) form of
//     q' = v, M(q) v' = f(t, q, v) - G(q)^T lambda, 0 = G(q) v,
//   i.e. x = (q, v), f(t, x) = (v, M^{-1} f), B = (0, G M^{-1}), g(t, x) = G(q) v (the
//   position constraint g(q) drifts, as for formulate(sys, Formulation::Index2)); nx = 2 nq:
//   the truck of paper 003 Section 5 has nq = 9, nlambda = 2, 20 equations. Constraints must not
//   depend on t (as for formulate()). Monitor: position |g(q)|, velocity |G(q) v|.
// euler_lagrange_form(SemiExplicitDae of index 2): y' = f(t, y, z), 0 = g(t, y) is of this form
//   when f is affine in z: f = f(t, y, 0) - B^T z with B^T z = f(t, y, 0) - f(t, y, z); the
//   structure is checked at a given point (f affine in z there, g independent of z).
// consistent_multipliers(el, t, x): lambda from the hidden constraint G x' + g_t = 0, i.e.
//   G B^T lambda = G f + g_t, computed as in nonlinear/euler_lagrange_system.hpp (differences of
//   g along the solution direction, accurate to ~1e-13 even when G is differenced).
#pragma once

#include "daekit/problem/euler_lagrange_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "daekit/problem/mechanical_system.hpp"
#include "daekit/problem/semi_explicit_dae.hpp"

namespace daekit {

/// The mass-matrix DAE of an Euler-Lagrange DAE (see above).
MassMatrixDae to_mass_matrix_form(const EulerLagrangeDae& el);

/// The velocity-level Euler-Lagrange form of a mechanical system (see above).
EulerLagrangeDae euler_lagrange_form(const MechanicalSystem& sys);
/// (q0, v0) -> x0 = (q0, v0), with the consistency of g(q0) and G(q0) v0 checked to `tol`
/// (InvalidArgument naming the constraint otherwise).
Vector euler_lagrange_state(const MechanicalSystem& sys, double t0, const Vector& q0,
                            const Vector& v0, double tol = 1e-10);

/// The Euler-Lagrange form of an index-2 semi-explicit DAE, x = y, lambda = z. Throws
/// InvalidArgument if dae is not of index 2, if f is not affine in z at (t0, y0) or g depends
/// on z there.
EulerLagrangeDae euler_lagrange_form(const SemiExplicitDae& dae, double t0, const Vector& y0);

/// The multipliers lambda(t, x) consistent with the hidden constraint (see above). Throws
/// InvalidArgument if G B^T is singular at (t, x) (not index 2) or a callback fails.
Vector consistent_multipliers(const EulerLagrangeDae& el, double t, const Vector& x);
/// y0 = (x0, consistent_multipliers(el, t0, x0)) for to_mass_matrix_form(el); throws
/// InvalidArgument if g(t0, x0) exceeds `tol` (max-norm).
Vector initial_values(const EulerLagrangeDae& el, double t0, const Vector& x0, double tol = 1e-10);

}  // namespace daekit
