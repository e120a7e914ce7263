// ImplicitDae: the fully implicit DASSL / IDA form
//
//     F(t, y, y', p) = 0,   y(t0) = y0, y'(t0) = yp0,
//
// with a tag per component saying whether it is differential (y_i' appears in F) or algebraic,
// and optionally its index (1, 2, 3) as in MassMatrixDae. Newton-type methods for this form
// iterate with the matrix dF/dy + c_j dF/dy' (Bendtsen and Thomsen 1999, ch. 4). The BDF works on
// this form; a MassMatrixDae M y' = f converts to it by F = M y' - f (to_implicit_form), though the
// BDF also takes a MassMatrixDae directly and then keeps M's structure. Callbacks may take p as an
// extra last argument (core/callback.hpp).
#pragma once

#include <string>
#include <vector>

#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct ImplicitDae {
  using Residual = Callback<void(double t, VecIn y, VecIn yp, VecOut out)>;
  /// Writes an n x n matrix into `out` (zeroed by the caller; callbacks taking MatOut work too).
  using Jacobian = Callback<void(double t, VecIn y, VecIn yp, Matrix& out)>;
  /// Sparse Jacobian: `out` has the pattern of jacobian_sparsity (a sparse pattern, or every
  /// entry of a banded structure's band); write values only.
  using SparseJacobian = Callback<void(double t, VecIn y, VecIn yp, SparseMatrix& out)>;

  int n = 0;
  Residual F;                    ///< residual F(t, y, y') (required)
  Jacobian dF_dy;                ///< optional analytic dF/dy (dense; with dF_dyp)
  Jacobian dF_dyp;               ///< optional analytic dF/dy'
  SparseJacobian sparse_dF_dy;   ///< optional analytic dF/dy (sparse; with sparse_dF_dyp)
  SparseJacobian sparse_dF_dyp;  ///< optional analytic dF/dy'
  /// Structure of dF/dy + c dF/dy' (dense by default; banded or a pattern for large problems).
  Sparsity jacobian_sparsity;
  std::vector<bool> differential;  ///< true for differential components; empty = all true
  std::vector<int> index;          ///< index tag 1, 2 or 3 per component; empty = all 1
  Vector p;                        ///< parameters passed to the callbacks (may be empty)
  /// Structure of dF/dp (n x p.size(); dense by default), as MassMatrixDae::parameter_sparsity.
  Sparsity parameter_sparsity;
  std::vector<std::string> component_names;
  std::string name = "user problem";

  void validate() const;
  bool is_differential(int i) const {
    return differential.empty() || differential[static_cast<size_t>(i)];
  }
  int index_of(int i) const { return index.empty() ? 1 : index[static_cast<size_t>(i)]; }
  int max_index() const;
};

/// F(t, y, y') = M y' - f(t, y); components whose column of M is zero are tagged algebraic;
/// index tags, parameters, names and the Jacobian structure are carried over.
ImplicitDae to_implicit_form(const MassMatrixDae& dae);

}  // namespace daekit
