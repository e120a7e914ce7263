// QuasiLinearDae: DAEs with a state-dependent leading matrix (issue 14, part 1)
//
//     M(t, y, p) y' = f(t, y, p),   y(t0) = y0,
//
// the quasi-linear form A(x) x' = g(x) of 004_cf00f948f14222cf.txt ch. 7 and of circuits with
// nonlinear capacitances (C(u) u' = i(u)) and multibody models in minimal coordinates
// (M(q) q'' = f(q, q'), notes (9.4)). M may be singular; its columns that are zero for every
// (t, y) (the algebraic variables) are declared in `differential` (empty: every column may be
// non-zero, i.e. M(t, y) is invertible).
//
// How daekit solves it (docs/applications.md, "State-dependent mass matrices"): no method needs
// to know about a state-dependent M. Two exact reformulations reach all implicit methods:
//
//   (a) to_mass_matrix_form: with D the differential components (d of them) and w = y_D',
//           y_D' = w,   0 = M(t, y)[:, D] w - f(t, y),
//       a constant, diagonal mass matrix diag(1 on D, 0 elsewhere) of size n + d. radau5, radau,
//       dirk and bdf solve it as any mass-matrix DAE; their Newton matrix contains
//       d(M(t, y) w)/dy exactly (finite differences of the whole residual, or the analytic
//       df/dy and mass_jacobian). The index of an index-1 problem stays 1: the new algebraic
//       unknowns w enter through the invertible block M[R, D] (R the rows that are not zero);
//       at index 2 and 3 w is tagged one level above the component it differentiates, up to
//       the DAE's index (see to_mass_matrix_form below).
//   (b) to_implicit_form: F(t, y, y') = M(t, y) y' - f(t, y), for the BDF (DASSL's form), with
//       dF/dy' = M(t, y), dF/dy = d(M(t, y) y')/dy - df/dy.
//
// Every callback may take p as an extra last argument (core/callback.hpp).
#pragma once

#include <string>
#include <vector>

#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct QuasiLinearDae {
  /// M(t, y) written into `out` (n x n, zeroed by the caller).
  using MassFn = Callback<void(double t, VecIn y, MatOut out)>;
  using Rhs = MassMatrixDae::Rhs;
  /// df/dy (n x n, zeroed by the caller).
  using Jacobian = Callback<void(double t, VecIn y, MatOut out)>;
  /// d(M(t, y) u)/dy for a given vector u (n x n, zeroed by the caller).
  using MassJacobian = Callback<void(double t, VecIn y, VecIn u, MatOut out)>;

  int n = 0;
  MassFn mass;                 ///< M(t, y) (required)
  Rhs f;                       ///< f(t, y) (required)
  Jacobian jacobian;           ///< optional analytic df/dy (used together with mass_jacobian)
  MassJacobian mass_jacobian;  ///< optional analytic d(M u)/dy; both or neither
  /// Columns of M that may be non-zero (true) and columns that are zero for all (t, y) (false:
  /// algebraic variables). Empty: all true.
  std::vector<bool> differential;
  std::vector<int> index;  ///< index tag 1, 2 or 3 per component; empty: all 1
  Vector p;
  std::vector<std::string> component_names;
  std::string name = "user problem";

  /// Throws InvalidArgument naming the first thing that is wrong.
  void validate() const;
  bool is_differential(int i) const {
    return differential.empty() || differential[static_cast<size_t>(i)];
  }
  /// The differential components D, in increasing order.
  std::vector<int> differential_components() const;
};

/// Reformulation (a): x = (y, w) with w = y_D' (size n + d), mass diag(1 on D, 0 elsewhere).
/// Equation rows: row i in D is y_i' = w_k (D_k = i); row i not in D is the original equation i;
/// row n + k is the original equation D_k. Analytic Jacobian when both jacobian and
/// mass_jacobian are given, else none (the methods' shared finite differences). Names: y's,
/// then "<name>'" for w.
///
/// Tags: y keeps its tags; w_k gets min(tag(y_{D_k}) + 1, K), K the highest tag of y. Why: w is
/// fixed by M(t, y)[:, D] w = f(t, y) through the invertible block M[R, D], a smooth function of
/// (t, y), so its index (the power of h its error loses, HW II VII.6) is that of the highest-
/// index component it depends on: never above K, and never more than one level above y_{D_k},
/// since w_k is the derivative of y_{D_k} (a derivative loses one power of h). The bound is
/// exact where y_{D_k}' contains a component of the next level -- the differential equations of
/// a Hessenberg index-2 DAE contain its multipliers (x' = f(x, z), z tagged 2: x' is index 2);
/// at index 3, q' = v is index 2 and v' (containing lambda) index 3 -- and the index of an
/// index-1 DAE stays 1. It over-tags only derivatives that contain no higher component, such
/// as w = q' = v of an index-2 model with a velocity constraint (v tagged 1): that only relaxes
/// the error test of a copy of v, which keeps its own tag. The rule before, w_k tagged as
/// y_{D_k}, put index-2 quantities into the index-1 error test: radau5 took 1.4 to 2.4 times
/// the steps on an index-2 pendulum at 1e-4 ... 1e-8 (tests/test_real_problems.cpp).
MassMatrixDae to_mass_matrix_form(const QuasiLinearDae& dae);

/// Consistent x0 = (y0, y0'_D) for to_mass_matrix_form from a consistent y0: w0 solves
/// M(t0, y0)[:, D] w = f(t0, y0) in the least-squares sense (exact when y0 is consistent and
/// M[R, D] is invertible). Throws InvalidArgument if M[:, D] has not full column rank at y0.
Vector initial_values(const QuasiLinearDae& dae, double t0, const Vector& y0);

/// Reformulation (b): F(t, y, y') = M(t, y) y' - f(t, y); differential tags from `differential`.
ImplicitDae to_implicit_form(const QuasiLinearDae& dae);

}  // namespace daekit
