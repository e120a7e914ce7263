// MassMatrixDae: the RADAU5 problem form
//
//     M y' = f(t, y),   y(t0) = y0,
//
// with a constant, possibly singular n x n mass matrix M. Rows of M that are zero are algebraic
// equations 0 = f_i(t, y). Each component carries its index (1, 2 or 3) in the sense of
// Hairer-Wanner II, VII.6 (the RADAU5 convention): for a mechanical system positions are index 1,
// velocities index 2, accelerations and multipliers index 3. Methods use the tags to scale the
// error of higher-index components (index-2 components by h, index-3 components by h^2).
#pragma once

#include <functional>
#include <string>
#include <vector>

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
  using Rhs = std::function<void(double t, VecIn y, VecOut out)>;
  /// df/dy written into `out` (n x n, zero-initialised by the caller). A callback taking
  /// MatOut works too; one that resizes `out` is caught (wrong size: InvalidArgument).
  using Jacobian = std::function<void(double t, VecIn y, Matrix& out)>;
  /// Constraint residuals for drift monitoring (optional).
  using Monitor = std::function<ConstraintResiduals(double t, VecIn y)>;
  /// Projects y in place onto the constraint manifold (Projection::Velocity or Full); returns
  /// false if the projection's Newton iteration fails. Provided by structured forms such as
  /// index3_form(MechanicalSystem).
  using Projector = std::function<bool(double t, VecOut y, Projection level)>;

  int n = 0;                   ///< number of components
  Rhs f;                       ///< right-hand side (required)
  Jacobian jacobian;           ///< analytic df/dy (optional: finite differences otherwise)
  Matrix mass;                 ///< n x n mass matrix; empty means the identity
  std::vector<int> index;      ///< index tag 1, 2 or 3 per component; empty means all 1
  Monitor constraint_monitor;  ///< optional: residuals of g, G v (and acceleration level)
  Projector project;           ///< optional: projection onto g = 0, G v = 0 (paper 000)
  std::vector<std::string> component_names;  ///< optional names (CSV headers, reports)
  std::string name = "user problem";

  /// Throws InvalidArgument naming the first thing that is wrong (sizes, tags, missing f).
  void validate() const;
  /// Evaluates the analytic Jacobian (if any) once at (t, y) and throws InvalidArgument if it
  /// does not come back n x n or contains NaN/Inf.
  void check_jacobian(double t, const Vector& y) const;
  /// True when M is the identity (no mass matrix given).
  bool has_identity_mass() const { return mass.size() == 0; }
  /// Index tag of component i (1 if no tags were given).
  int index_of(int i) const { return index.empty() ? 1 : index[static_cast<size_t>(i)]; }
  /// Highest index tag.
  int max_index() const;
  /// Indices of the rows of M that are identically zero (the algebraic equations).
  std::vector<int> algebraic_rows() const;
  /// Indices of the columns of M that are identically zero (the algebraic variables).
  std::vector<int> algebraic_columns() const;
  /// Newton on the algebraic equations for the algebraic variables at fixed differential
  /// ones (index-1 re-initialisation after events). Returns false with a message when the
  /// algebraic Jacobian is singular or Newton fails; does nothing if M is nonsingular or the
  /// numbers of zero rows and zero columns differ. A singular M without zero rows (algebraic
  /// equations in combinations of rows, e.g. the transistor amplifier) is handled by
  /// initialize(MassMatrixDae): M y is kept, L^T f = 0 solved along ker M.
  bool solve_algebraic(double t, Vector& y, std::string& message) const;
};

}  // namespace daekit
