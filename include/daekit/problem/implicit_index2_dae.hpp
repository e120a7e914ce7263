// ImplicitIndex2Dae: the index-2 implicit DAEs of 002_749bc8912438bec0.txt (Jay), (1.1),
//
//     (a(t, y))' = f(t, y, z) = f_1(t, y) + f_2(t, y, z) + ... + f_5(t, y, z),     (1.1a), (2.4)
//              0 = g(t, y),                                                     (1.1b)
//
// y in R^n differential, z in R^m algebraic (Lagrange multipliers), a_y and g_y a_y^{-1} f_z
// invertible near the solution (then the DAE has index 2). Differentiating g gives the hidden
// constraint (2.1b): 0 = g_y a_y^{-1} (f - a_t) + g_t, which consistent initial values (y0, z0)
// satisfy together with g(t0, y0) = 0. With a(t, y) = y this is the Hessenberg index-2 form
// y' = f(t, y, z), 0 = g(t, y) (paper 001 (2.1)); mechanical systems with holonomic constraints
// differentiated once and nonholonomic (velocity) constraints take this form.
//
// The split of f into parts is a choice of the user that the SPARK methods (methods/spark.hpp)
// exploit: part k is integrated with the k-th Lobatto family (IIIA, IIIB, IIIC, IIIC*, IIID);
// f_1 must not depend on z ((2.4b): the IIIA part has e_1^T A_1 = 0). Parts left empty are
// zero; at least one part must depend on z. Half-explicit methods use the sum f only.
//
// Jacobians are optional; missing ones come from the shared finite differences. The state the
// solvers work with (y0 of solve(), Result::y) is x = (y, z) of size n + m.
// Callbacks may take p as an extra last argument (core/callback.hpp).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "daekit/core/callback.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

struct ImplicitIndex2Dae {
  static constexpr int kParts = 5;
  /// a(t, y) (size n) or g(t, y) (size m).
  using Map = Callback<void(double t, VecIn y, VecOut out)>;
  /// a_y (n x n) or g_y (m x n), zeroed by the caller.
  using MapJacobian = Callback<void(double t, VecIn y, MatOut out)>;
  /// f_k(t, y, z) (size n).
  using Part = Callback<void(double t, VecIn y, VecIn z, VecOut out)>;
  /// d f_k / dy (n x n) or d f_k / dz (n x m), zeroed by the caller.
  using PartJacobian = Callback<void(double t, VecIn y, VecIn z, MatOut out)>;

  int n = 0;  ///< size of y
  int m = 0;  ///< size of z (number of constraints)
  /// a(t, y); empty means a(t, y) = y (Hessenberg form).
  Map a;
  MapJacobian a_y;  ///< optional analytic a_y (with a)
  /// The parts f_1 .. f_5 (f[0] = f_1 must not depend on z); empty parts are zero.
  std::array<Part, kParts> f;
  std::array<PartJacobian, kParts> f_y;  ///< optional analytic d f_k / dy
  std::array<PartJacobian, kParts> f_z;  ///< optional analytic d f_k / dz
  Map g;                                 ///< constraints (required)
  MapJacobian g_y;                       ///< optional analytic g_y
  Vector p;                              ///< parameters passed to the callbacks (may be empty)
  /// Optional names of the n + m components of x = (y, z) (CSV headers, reports).
  std::vector<std::string> component_names;
  std::string name = "user problem";

  /// Throws InvalidArgument naming the first thing that is wrong (sizes, missing g or parts,
  /// Jacobians without their function, a derivative of f_1 with respect to z).
  void validate() const;
  bool has_part(int k) const { return static_cast<bool>(f[static_cast<size_t>(k)]); }
  /// Indices k (0-based) of the parts that are set.
  std::vector<int> parts() const;
  /// True when a was not given: a(t, y) = y.
  bool hessenberg() const { return !a; }
};

}  // namespace daekit
