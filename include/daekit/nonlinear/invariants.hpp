// ODEs with invariants (Bendtsen and Thomsen 1999, ch. 8): y' = f(t, y) whose solutions keep c(t,
// y) = 0 (k invariants, e.g. c = phi(y) - phi(y0) for first integrals phi), and the three ways of
// the notes to keep c = 0 numerically, each giving a problem any solver can take:
//
//   DAE reformulation (§8.2.2):  y' = f(t, y) - D(y) z,  0 = c(t, y)          (n + k unknowns)
//       with C = dc/dy and D chosen so that C D is boundedly invertible (default D = C^T, the
//       orthogonal choice [AP98]); index 2, z tagged index 2 (z = 0 on exact solutions).
//   stabilisation (8.5):         y' = f(t, y) - gamma F(y) c(t, y),  F = D (C D)^{-1}
//       (then C F = I, lambda_0 = 1, and any gamma > gamma_0 with |C f| <= gamma_0 |c| makes
//       c = 0 attracting; gamma_0 = 0 for first integrals, the "integral" invariants of §8.2.3).
//   projection (post-stabilisation, §8.2.3 and ch. 3 (3.13)): the ODE unchanged plus a projector
//       onto c = 0 after every step (nonlinear/projection.hpp; Options::projection = Full).
//
// C comes from the user's jacobian_c or from forward differences with the shared increment rule
// (nonlinear/finite_difference.hpp); the stabilised right-hand side keeps its scratch storage
// in the callback, so the step loop allocates nothing.
#pragma once

#include <functional>

#include "daekit/nonlinear/projection.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct OdeWithInvariants {
  int n = 0;                                                  ///< dimension of y
  std::function<void(double t, VecIn y, VecOut f)> f;         ///< right-hand side (required)
  std::function<void(double t, VecIn y, MatOut J)> jacobian;  ///< optional df/dy (n x n)
  ManifoldEquations invariants;  ///< c(t, y) = 0 (k = invariants.k >= 1), optional C = dc/dy
  /// Optional D(t, y) (n x k) of §8.2.2 / (8.5); empty: D = C^T.
  std::function<void(double t, VecIn y, MatOut D)> d;
  std::vector<std::string> component_names;  ///< optional names of y
  std::string name = "ode with invariants";

  /// Throws InvalidArgument naming what is missing or inconsistent.
  void validate() const;
};

/// The ODE as it is (M = I) with `project` set to the projection onto c = 0.
MassMatrixDae projected_ode(const OdeWithInvariants& ode);
/// The stabilised ODE (8.5) with the given gamma > 0 (M = I, n unknowns).
MassMatrixDae stabilized_ode(const OdeWithInvariants& ode, double gamma);
/// The index-2 DAE reformulation of §8.2.2 in (y, z), M = diag(I_n, 0_k), z tagged index 2.
MassMatrixDae dae_reformulation(const OdeWithInvariants& ode);
/// Consistent start (y0, z0) of dae_reformulation for y0 on the manifold: z0 = (C D)^{-1}
/// (C f + c_t) from the hidden constraint C y' + c_t = 0 of index 2 (c_t by a difference in t;
/// z0 = 0 when c is an invariant of the ODE itself, as first integrals are).
Vector dae_reformulation_initial_values(const OdeWithInvariants& ode, double t0, const Vector& y0);

}  // namespace daekit
