// Equations of motion from the kinetic energy (004_cf00f948f14222cf.txt ch. 9, Euler-Lagrange
// equations (9.3) -> (9.4)), for small models written in generalized coordinates q:
//
//     T(q, v) = 1/2 v^T M(t, q) v,   applied forces Q(t, q, v), potential V(t, q),
//     d/dt (dT/dv) - dT/dq = Q - dV/dq (+ constraint forces)
//   <=>  M(q) v' = Q(t, q, v) - dV/dq - k(q, v),
//     k(q, v) = (d/ds M(q + s v)|_{s=0}) v - 1/2 d/dq (v^T M(q) v)    (quadratic velocity terms:
//                                                                      Coriolis, centrifugal)
// which is (9.4) with f = Q - T_{vq} v + T_q (there the gradient of V is counted in Q).
//
// What the user gives (LagrangeModel): M(t, q) (symmetric positive definite), the applied
// forces Q(t, q, v) (optional), the potential's gradient dV/dq (optional), and optionally the
// quadratic velocity terms k(q, v) analytically. Without k, daekit obtains it from M alone by
// central differences (increment cbrt(eps) max(1, |q|), as the constraint curvature): the
// directional derivative of M along v (2 evaluations of M) and 1/2 v^T (dM/dq_j) v for every
// j (2 nq evaluations), error ~ 2e-10 relative to |M| |v|^2 (measured on the double pendulum):
// meant for small models (a few dozen coordinates); give k for larger ones. Constraints are added
// to the returned MechanicalSystem afterwards (nlambda, g, G, rheonomic, ...).
#pragma once

#include <string>

#include "daekit/problem/mechanical_system.hpp"

namespace daekit {

struct LagrangeModel {
  using QuadraticVelocityFn = Callback<void(double t, VecIn q, VecIn v, VecOut k)>;
  using GradientFn = Callback<void(double t, VecIn q, VecOut grad)>;

  int nq = 0;
  MechanicalSystem::MassFn mass;            ///< M(t, q) of T = 1/2 v^T M v (required)
  MechanicalSystem::ForceFn applied_force;  ///< Q(t, q, v) (optional: zero)
  GradientFn potential_gradient;            ///< dV/dq (optional: no potential)
  QuadraticVelocityFn quadratic_velocity;   ///< k(q, v) (optional: differences of M)
  Vector p;
  std::string name = "Lagrange model";

  void validate() const;
};

/// The quadratic velocity terms k(q, v) of the model (analytic when given, else the central
/// differences of M described above).
void quadratic_velocity_terms(const LagrangeModel& model, double t, VecIn q, VecIn v, VecOut k,
                              VecIn p);

/// The MechanicalSystem M(q) v' = Q - dV/dq - k(q, v) (nlambda = 0, constant_mass = false):
/// set nlambda and the constraints on the result for a constrained model.
MechanicalSystem mechanical_system(const LagrangeModel& model);

}  // namespace daekit
