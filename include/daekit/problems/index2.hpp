// Index-2 test problems in the form of paper 002 (problem/implicit_index2_dae.hpp), with the
// parts f_1 .. f_5 split as the SPARK methods use them. The Hessenberg ones are also built-in
// MassMatrixDae problems ("jay-index2", "knife-edge", and the existing "pendulum-index2").
#pragma once

#include <array>

#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/semi_explicit_dae.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

/// Test problem (5.1) of 002_749bc8912438bec0.txt (Jay), y = (y1, y2), z = z1:
///   f_1 = (y2 - 2 y1^2 y2, -y1^2),            f_2 = (y1 y2^2 z1^2, e^{-t} z1 - y1),
///   f_3 = (-y2^2 z1, -3 y2^2 z1),             f_4 = (2 y1 y2^2 - 2 e^{-2t} y1 y2, z1),
///   f_5 = (2 y2^2 z1^2, y1^2 y2^2),           g = y1^2 y2 - 1,
/// y(0) = (1, 1), z(0) = 1, exact solution y = (e^t, e^{-2t}), z = e^{2t}. `active[k]` false
/// leaves part k + 1 out (then the exact solution is not that of the modified problem).
ImplicitIndex2Dae jay_index2(const std::array<bool, 5>& active = {true, true, true, true, true});
/// (y1, y2, z1)(t) of (5.1).
Vector jay_index2_exact(double t);
/// (5.1) as M x' = F(t, x), x = (y1, y2, z1), M = diag(1, 1, 0), t in [0, 1], exact reference.
BuiltinProblem jay_index2_builtin();

/// Knife edge (a skate) sliding on a plane inclined at angle alpha, the nonholonomic constraint
/// that its velocity is along the blade: q = (x, y, phi) (x down the slope), v = q',
///   m v_x' = m g sin(alpha) + lambda sin phi,  m v_y' = -lambda cos phi,  J omega' = 0,
///   0 = -v_x sin phi + v_y cos phi
/// (Neimark-Fufaev; Rabier-Rheinboldt). Parameters p = (m, J, g sin alpha) = (2, 0.5, 1),
/// phi(0) = 0, omega = 1, at rest: exact solution u = g sin(alpha) sin t (speed along the blade),
///   x = sin^2 t / 2, y = (t - sin 2t / 2) / 2, phi = t, v = u (cos t, sin t),
///   lambda = -2 m g sin(alpha) sin t.
/// implicit = true: the genuinely implicit form of paper 002 with the body-frame momenta
///   a(t, y) = (q, p_par, p_perp, J omega), p_par = m v.e_par, p_perp = m v.e_perp,
///   (e_par, e_perp) = ((cos phi, sin phi), (-sin phi, cos phi)):
///   p_par' = m g sin(alpha) cos phi + omega p_perp   (f_1, IIIA),
///   p_perp' = -m g sin(alpha) sin phi - omega p_par - lambda   (-lambda in f_2, IIIB);
/// implicit = false: the Hessenberg form y' = f (f_1 = forces, f_2 = the constraint force).
/// State x = (x, y, phi, v_x, v_y, omega, lambda) in both.
ImplicitIndex2Dae knife_edge(bool implicit);
Vector knife_edge_exact(double t);
/// The Hessenberg knife edge as M x' = F(t, x), M = diag(1, 1, 1, m, m, J, 0), t in [0, 10].
BuiltinProblem knife_edge_builtin();

/// The pendulum of paper 000 (4.1) in index-2 form: y = (u, v), z = lambda, g = u.v,
/// f_1 = (v, 0, -1) (IIIA), f_2 = (0, 0, -2 u lambda) (IIIB); x0 = (1, 0, 0, 0, 0); the same
/// equations as the built-in "pendulum-index2".
ImplicitIndex2Dae pendulum_index2_form();
/// Andrews' squeezer as index2_form(andrews().mechanical): y = (q, v) (14), z = lambda (6).
ImplicitIndex2Dae andrews_index2_form();
/// Consistent x0 of andrews_index2_form() (the test set's q0, v0, lambda0).
Vector andrews_index2_initial_values();

/// An index-2 DAE with a hyperbolic limit cycle for the geometric tests of
/// 001_6d2dbb58aab0d43f.txt (Theorems 2.1, 2.2): u in R^3 on the unit sphere,
///   u' = F(u) - u lambda,   0 = g(u) = (|u|^2 - 1) / 2,
///   F(u) = (-u2, u1, 0) - (u3 - c)(e3 - u3 u) + u rho(u),  c = 1/2,  rho = 1 + u1 + 2 u3.
/// The first two terms are tangent to the sphere on it, so lambda = psi0(u) = u.F(u) / |u|^2 =
/// rho(u) there (g_u f_lambda = -|u|^2: index 2), and on the sphere u3' = -(u3 - c)(1 - u3^2):
/// the latitude circle u = (r cos t, r sin t, c), r = sqrt(1 - c^2), lambda = 1 + r cos t + 2c
/// is a periodic orbit of period 2 pi, hyperbolic and attracting (Floquet exponent
/// -(1 - c^2)). Its plane is not invariant for f off the orbit (f_3 = c (rho - lambda) there),
/// and rho breaks the rotation symmetry, so the numerical invariant curve is not pinned to it.
/// embedded = true: the embedding (3.1) of paper 001 with B = I, y = (u, v),
///   u' = F(u) - u lambda,  v' = -v,  0 = g(u) - v,
/// on which g(u(t)) = e^{-t} g(u0) (the constraint manifold attracts). z = lambda.
SemiExplicitDae sphere_limit_cycle(bool embedded = false);
/// psi0(u) = (u.F(u) + v) / |u|^2 (the consistent lambda; v = 0 without the embedding).
double sphere_limit_cycle_lambda(VecIn u, double v = 0.0);
/// Distance of u from the periodic orbit (the latitude circle u3 = 1/2 of the unit sphere).
double sphere_limit_cycle_distance(VecIn u);

}  // namespace daekit
