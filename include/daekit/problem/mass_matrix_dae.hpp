// MassMatrixDae: the RADAU5 problem form
//
//     M y' = f(t, y, p),   y(t0) = y0,
//
// with a constant, possibly singular n x n mass matrix M (dense `mass`, or `mass_sparse` for
// large problems; its structure -- identity, diagonal, banded, sparse -- is detected once and
// kept). Rows of M that are zero are algebraic equations 0 = f_i(t, y). Each component carries
// its index (1, 2 or 3) in the sense of Hairer-Wanner II, VII.6 (the RADAU5 convention): for a
// mechanical system positions are index 1, velocities index 2, accelerations and multipliers
// index 3. Methods use the tags to scale the error of higher-index components (radau5: by h and
// h^2) or to leave them out of the error test (bdf).
//
// Every callback may take the parameter vector p as an extra last argument (core/callback.hpp).
// A problem holds data and callbacks, not algorithms: the solver copies it at the start of a
// solve, so callbacks may keep scratch storage by value (mutable lambdas) and solves of the same
// problem on different threads are independent. Shared mutable state (a pointer captured by
// several callbacks, thread_local caches) breaks that: keep discrete modes in p instead and let
// event actions change them.
#pragma once

#include <string>
#include <vector>

#include "daekit/core/callback.hpp"
#include "daekit/core/sparsity.hpp"
#include "daekit/core/types.hpp"

namespace daekit {

/// Residuals of the constraints of a constrained (mechanical) problem at one point: position
/// level g(q), velocity level G(q) v and, when known, acceleration level (max-norms).
struct ConstraintResiduals {
  double position = 0.0;
  double velocity = 0.0;
  double acceleration = 0.0;
};

struct MassMatrixDae {
  /// f(t, y) written into `out` (size n).
  using Rhs = Callback<void(double t, VecIn y, VecOut out)>;
  /// df/dy written into `out` (n x n, zeroed by the caller). A callback taking MatOut works
  /// too. Resizing `out` is reported (Status::CallbackError), never read.
  using Jacobian = Callback<void(double t, VecIn y, Matrix& out)>;
  /// df/dy for large problems: `out` comes with the pattern of jacobian_sparsity (all values
  /// zero); write the values of its entries (out.coeffRef(i, j) = ...), do not add entries.
  using SparseJacobian = Callback<void(double t, VecIn y, SparseMatrix& out)>;
  /// df/dp written into `out` (n x p.size(), zeroed by the caller), for the sensitivities.
  using ParameterJacobian = Callback<void(double t, VecIn y, Matrix& out)>;
  /// Constraint residuals for drift monitoring (optional).
  using Monitor = Callback<ConstraintResiduals(double t, VecIn y)>;
  /// Projects y in place onto the constraint manifold (Projection::Velocity or Full); returns
  /// false if the projection's Newton iteration fails. Provided by structured forms such as
  /// formulate(MechanicalSystem).
  using Projector = Callback<bool(double t, VecOut y, Projection level)>;

  int n = 0;          ///< number of components
  Rhs f;              ///< right-hand side (required)
  Jacobian jacobian;  ///< analytic df/dy, dense (optional)
  /// analytic df/dy, sparse (optional): `out` has the pattern of jacobian_sparsity (a sparse
  /// pattern, or every entry of a banded structure's band)
  SparseJacobian sparse_jacobian;
  /// Structure of df/dy: dense (default), banded or a sparse pattern. It selects the linear
  /// solver (Options::linear_solver = auto) and groups finite-difference columns.
  Sparsity jacobian_sparsity;
  Matrix mass;               ///< n x n mass matrix; empty (and no mass_sparse) means identity
  SparseMatrix mass_sparse;  ///< the mass matrix in sparse form (large problems), instead of mass
  std::vector<int> index;    ///< index tag 1, 2 or 3 per component; empty means all 1
  /// Second-order structure (RADAU5's M1 and M2, Hairer-Wanner's code radau5 IWORK(9..10)):
  /// the first m1 equations read y_i' = y_{i + m2} exactly (0 <= i < m1, m1 a multiple of m2),
  /// e.g. q' = v of a mechanical system (m1 = m2 = nq), or q' = v, v' = w (m1 = 2 nq, m2 = nq);
  /// M is the identity in rows and columns 0..m1-1. The dense linear solvers then eliminate
  /// those m1 unknowns (radau5 factors (n - m1) x (n - m1) matrices instead of n x n) and the
  /// Jacobian's first m1 rows are never read. formulate(MechanicalSystem) declares it; checked
  /// against f(t0, y0) at the start of a solve. m1 = 0: none.
  struct SecondOrder {
    int m1 = 0, m2 = 0;
  } second_order;
  Monitor constraint_monitor;  ///< optional: residuals of g, G v (and acceleration level)
  Projector project;           ///< optional: projection onto g = 0, G v = 0 (paper 000)
  Vector p;                    ///< parameters passed to the callbacks (may be empty)
  /// Structure of df/dp (n x p.size(); dense by default): the parameters whose columns share
  /// no row are perturbed together when df/dp is differenced (the sensitivities), so that a
  /// parameter entering one equation each costs one evaluation of f for all of them.
  Sparsity parameter_sparsity;
  /// analytic df/dp (optional; the sensitivities, as IDAS's resS / CVODES's fS): used instead
  /// of the differences over parameter_sparsity. A wrong size or NaN/Inf ends the solve with
  /// Status::CallbackError, as for `jacobian`.
  ParameterJacobian parameter_jacobian;
  std::vector<std::string> component_names;  ///< optional names (CSV headers, reports)
  std::string name = "user problem";

  /// Throws InvalidArgument naming the first thing that is wrong (sizes, tags, missing f).
  void validate() const;
  /// The part of validate() for second_order (the sizes and the identity rows of M).
  void validate_second_order() const;
  /// True when M is the identity (no mass matrix given, or an identity one).
  bool has_identity_mass() const;
  /// Index tag of component i (1 if no tags were given).
  int index_of(int i) const { return index.empty() ? 1 : index[static_cast<size_t>(i)]; }
  /// Highest index tag.
  int max_index() const;
  /// M as a dense matrix (identity if none was given; small problems and tests).
  Matrix dense_mass() const;
  /// Indices of the rows of M that are identically zero (the algebraic equations).
  std::vector<int> algebraic_rows() const;
  /// Indices of the columns of M that are identically zero (the algebraic variables).
  std::vector<int> algebraic_columns() const;
};

/// Name of component i: dae.component_names[i] when given, else "y<i>" (0-based, as the CSV
/// headers and the JSON of the daekit command have always written it).
std::string component_name(const MassMatrixDae& dae, int i);

}  // namespace daekit
