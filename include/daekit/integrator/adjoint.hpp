// Adjoint sensitivities: the gradient dG/dp of a functional of the solution
//
//     G(p) = g(T, y(T), p) + integral_{t0}^{T} q(t, y(t), p) dt
//
// for an index-1 DAE in mass-matrix form M y' = f(t, y, p) (M constant, possibly singular),
// at the cost of one forward solve and one backward solve of size n + np + 1, whatever the
// number of parameters np (forward sensitivities cost np linear solves per step).
//
// The adjoint system (Cao, Li, Petzold and Serban 2003, sections 2-3, for F = M y' - f):
// adjoining the DAE with a multiplier lambda(t) and integrating lambda^T M s' by parts gives,
// for s = dy/dp, the adjoint DAE (backwards from T)
//
//     M^T lambda' = -f_y^T lambda - q_y^T,
//     dG/dp = g_p + [g_y s - lambda^T M s]_{t=T} + lambda(t0)^T M s(t0)
//             + integral_{t0}^{T} (lambda^T f_p + q_p) dt.
//
// Terminal values. The bracket must vanish for every s(T) the DAE allows. With N and L
// orthonormal bases of ker M and ker M^T (k columns each; k = 0 for a nonsingular M), the
// admissible s(T) are those with L^T (f_y s + f_p) = 0 (the derivative of the algebraic
// equations L^T f = 0). Writing g_y^T = M^T lambda_T + f_y^T L nu turns the bracket into
// -nu^T L^T f_p, a known term, and index 1 (L^T f_y N nonsingular) makes lambda_T and nu the
// unique solution of the bordered system
//
//     [ M^T         f_y^T L ] [lambda_T]   [ g_y^T      ]
//     [ N^T f_y^T   0       ] [nu      ] = [ -N^T q_y^T ]          at (T, y(T)),
//
// whose second row is the algebraic part of the adjoint DAE (lambda_T consistent: Cao et al.
// 2003, section 3.2, which for the semi-explicit case M = diag(I, 0) gives their
// lambda_x(T) = g_x^T - f_{2,x}^T f_{2,z}^{-T} g_z^T and the extra term
// -g_z f_{2,z}^{-1} f_{2,p}). Hence
//
//     dG/dp = g_p - nu^T L^T f_p(T) + mu(t0) + (M^T lambda(t0))^T S0,
//     mu(t) = integral_t^T (f_p^T lambda + q_p^T) dt,   S0 = Options::initial_sensitivities
//
// (only M S0 enters: the algebraic part of S0 needs not be consistent; zero by default).
//
// The backward solve runs the same method on the adjoint DAE in tau = T - t (forwards in
// tau), together with its quadratures, as one MassMatrixDae of size n + np + 1:
//     M^T dlambda/dtau = f_y^T lambda + q_y^T,  dmu/dtau = f_p^T lambda + q_p^T,
//     dQ/dtau = q  (G = g + Q),
// f_y, f_p at y(T - tau) from the forward solve's dense output (the problem's analytic
// Jacobians, else the shared coloured differences; q_y, q_p, g_y, g_p likewise by forward
// differences where not given), its Jacobian [f_y^T 0; f_p^T 0; 0 0] with its sparsity.
//
// Checkpointing (memory): the forward solve keeps the dense output of its steps (one stored
// state per step) up to AdjointOptions::max_stored_steps = B. A longer solve switches to
// checkpoints: states at every s-th step start (s doubling whenever more than B/2 are held),
// the interval between two checkpoints recomputed forwards (restarted at the checkpoint with
// the step size there) before its backward solve, recursively with the budget the checkpoints
// leave. The stored states (dense steps plus checkpoints) never exceed B
// (AdjointResult::peak_stored_states); the price is recomputation (AdjointResult::
// forward_steps counts every forward step, the recomputed ones included). A recomputed
// trajectory is a solution of the same tolerance, not bitwise the first one.
// A budget too small for the solve (an interval between checkpoints needing more stored steps
// than are left) ends in Status::InvalidInput naming max_stored_steps. The BDF restarts at
// order 1 at each checkpoint: its recomputations take several times the steps of the first
// solve (radau5's about as many).
//
// Refused (InvalidArgument): problems without p, index tags >= 2, events, switches, tstops,
// projections, forward sensitivities in the same call, t_end <= t0, B < 4. Numerical trouble
// (the forward or backward solve failing, a singular bordered system: not index 1) ends in
// AdjointResult::status with a message. Measured (tests/test_adjoint.cpp): agreement with the
// forward sensitivities' gradient 5e-8 ... 3e-7 on Robertson (radau5 at rtol 1e-10, bdf at
// 1e-11), 7e-7 on its index-1 DAE form (radau5); the BDF's backward solve of that singular
// adjoint DAE fails at tight tolerances (step size too small): use radau5 or radau there.
#pragma once

#include <string>

#include "daekit/core/callback.hpp"
#include "daekit/core/stats.hpp"
#include "daekit/integrator/options.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

/// G(p) = g(T, y(T), p) + integral q(t, y, p) dt, with optional derivatives (forward
/// differences through the shared service where not given; each costs n (resp. np)
/// evaluations of g or q). Unset g or q: that term is zero.
struct AdjointFunctional {
  using Value = Callback<double(double t, VecIn y)>;
  /// A gradient written into out: dg/dy or dq/dy (size n), dg/dp or dq/dp (size np).
  using Gradient = Callback<void(double t, VecIn y, VecOut out)>;
  Value g;
  Gradient g_y, g_p;
  Value q;
  Gradient q_y, q_p;
};

struct AdjointOptions {
  /// Memory bound: stored states (dense steps of the forward solve plus checkpoints), >= 4.
  long max_stored_steps = 2000;
  /// Absolute tolerance of the quadratures mu = dG/dp parts and Q (0: Options::atol).
  double quadrature_atol = 0.0;
};

struct AdjointResult {
  Status status = Status::InvalidInput;
  std::string message;
  double value = 0.0;                   ///< G
  Vector gradient;                      ///< dG/dp (size np)
  Vector lambda0;                       ///< the adjoint lambda(t0) (dG/dy0 = M^T lambda(t0))
  long forward_steps = 0;               ///< accepted forward steps, recomputations included
  long recomputed_steps = 0;            ///< of which recomputations between checkpoints
  long backward_steps = 0;              ///< accepted steps of the backward solves
  int forward_runs = 0;                 ///< forward solves (1 without recomputation)
  int backward_runs = 0;                ///< backward solves (one per recomputed interval)
  long peak_stored_states = 0;          ///< the most dense steps plus checkpoints held at once
  long peak_checkpoints = 0;            ///< the most checkpoints held at once
  Stats forward_stats, backward_stats;  ///< summed over the runs
  double cpu_seconds = 0.0;
  bool ok() const { return status == Status::Success; }
};

/// dG/dp of G above for M y' = f(t, y, p) on [t0, t_end] from y0 (consistent), by the adjoint
/// method; `options` are the forward solve's and, with quadrature_atol, the backward solve's.
AdjointResult adjoint_gradient(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
                               const AdjointFunctional& functional,
                               const MethodChoice& method = "radau5", const Options& options = {},
                               const AdjointOptions& adjoint = {});

}  // namespace daekit
