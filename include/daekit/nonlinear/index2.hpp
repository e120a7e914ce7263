// Services for the index-2 implicit DAEs (a(t, y))' = f(t, y, z), 0 = g(t, y) of
// 002_749bc8912438bec0.txt (problem/implicit_index2_dae.hpp): consistent multipliers, the check
// of initial values, and the index-2 form of a constrained mechanical system.
#pragma once

#include <string>

#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/mechanical_system.hpp"

namespace daekit {

/// z with the hidden constraint (2.1b), 0 = g_y a_y^{-1} (f(t0, y0, z) - a_t) + g_t, by Newton
/// from z_guess (Jacobians analytic or by the shared differences). Throws InvalidArgument if
/// g_y a_y^{-1} f_z is singular or Newton does not converge.
Vector consistent_algebraic(const ImplicitIndex2Dae& dae, double t0, const Vector& y0,
                            const Vector& z_guess);

/// Empty if x0 = (y0, z0) satisfies g = 0 and (2.1b) to `tol` (max-norm) and
/// g_y a_y^{-1} f_z is invertible at t0; else what is wrong (what solve() reports).
std::string check_initial_values(const ImplicitIndex2Dae& dae, double t0, const Vector& x0,
                                 double tol);

/// The mechanical system q' = v, M(q) v' = f(t, q, v) - G(q)^T lambda, 0 = g(q) with the
/// position constraint differentiated once (paper 002, Section 1), in Hessenberg index-2 form
/// y = (q, v), z = lambda:
///   f_1 = (v, M^{-1} f(t, q, v))       (Lobatto IIIA in the SPARK methods),
///   f_2 = (0, -M^{-1} G(q)^T lambda)   (Lobatto IIIB: the IIIA-IIIB pair of RATTLE),
///   0   = G(q) v.
/// M is factored (Cholesky) at every evaluation, once for a constant mass. The position
/// constraint g(q) = 0 is not enforced (it drifts like the index-2 formulation's).
ImplicitIndex2Dae index2_form(const MechanicalSystem& sys);
/// x0 = (q0, v0, lambda0) of index2_form with the consistent multipliers of
/// consistent_acceleration(); throws InvalidArgument if G(q0) v0 != 0 (to 1e-10) or G is rank
/// deficient.
Vector index2_initial_values(const MechanicalSystem& sys, double t0, const Vector& q0,
                             const Vector& v0);

}  // namespace daekit
