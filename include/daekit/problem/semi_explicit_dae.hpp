// SemiExplicitDae: the Hessenberg / semi-explicit form
//
//     y' = f(t, y, z),      0 = g(t, y, z)          (index 1 when g_z is invertible),
//     y' = f(t, y, z),      0 = g(t, y)             (index 2 when g_y f_z is invertible),
//
// see NOTES-004.md ch. 1. `to_mass_matrix_form` stacks x = (y, z) into M x' = F(t, x) with
// M = diag(I, 0), tagging z with `algebraic_index` so that RADAU5-type methods scale it right.
#pragma once

#include <functional>
#include <string>

#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct SemiExplicitDae {
  using Part = std::function<void(double t, VecIn y, VecIn z, VecOut out)>;
  int ny = 0;               ///< number of differential components y
  int nz = 0;               ///< number of algebraic components z
  Part f;                   ///< y' = f(t, y, z), output size ny
  Part g;                   ///< 0 = g(t, y, z), output size nz
  int algebraic_index = 1;  ///< 1 (g_z invertible) or 2 (g independent of z)
  std::string name = "user problem";

  void validate() const;
};

/// The equivalent MassMatrixDae in x = (y, z) (finite-difference Jacobian). For index 2 it
/// carries the projector of project_index2.
MassMatrixDae to_mass_matrix_form(const SemiExplicitDae& dae);

/// Projection (2.6) of 001_6d2dbb58aab0d43f.txt (Ascher-Petzold) for index 2:
///   y_{n+1} = y~ + f_z(y_{n+1}, z_{n+1}) gamma,   0 = g(y_{n+1}),
/// z unchanged. Simplified Newton in gamma with f_z and g_y by finite differences, f_z refreshed
/// once at the projected point. Returns false if it does not converge. (Allocates: meant for
/// the projected RK studies, not for large systems.)
bool project_index2(const SemiExplicitDae::Part& f, const SemiExplicitDae::Part& g, int ny, int nz,
                    double t, VecOut x);

}  // namespace daekit
