// SemiExplicitDae: the Hessenberg / semi-explicit form
//
//     y' = f(t, y, z),      0 = g(t, y, z)          (index 1 when g_z is invertible),
//     y' = f(t, y, z),      0 = g(t, y)             (index 2 when g_y f_z is invertible),
//
// see Bendtsen and Thomsen (1999), ch. 1. to_mass_matrix_form (nonlinear/formulations.hpp) stacks x
// = (y, z) into M x' = F(t, x) with M = diag(I, 0), tagging z with `algebraic_index` so that
// RADAU5-type methods scale it right. Callbacks may take p as an extra last argument.
#pragma once

#include <string>

#include "daekit/core/callback.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

struct SemiExplicitDae {
  using Part = Callback<void(double t, VecIn y, VecIn z, VecOut out)>;
  int ny = 0;               ///< number of differential components y
  int nz = 0;               ///< number of algebraic components z
  Part f;                   ///< y' = f(t, y, z), output size ny
  Part g;                   ///< 0 = g(t, y, z), output size nz
  int algebraic_index = 1;  ///< 1 (g_z invertible) or 2 (g independent of z)
  Vector p;                 ///< parameters passed to the callbacks (may be empty)
  std::string name = "user problem";

  void validate() const;
};

}  // namespace daekit
