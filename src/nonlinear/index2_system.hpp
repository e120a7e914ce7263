// Index2System: an index-2 DAE (a(t, y))' = f_1 + .. + f_5, 0 = g(t, y) (002_749bc8912438bec0.txt
// (1.1), problem/implicit_index2_dae.hpp) as the SPARK and half-explicit methods see it, built
// either from an ImplicitIndex2Dae or from a MassMatrixDae M x' = F(t, x) of Hessenberg
// structure:
//   - the zero rows of M are the constraints g (they must not depend on the variables of the
//     zero columns, which are z), as many zero rows as zero columns;
//   - M on the other rows and columns is a constant invertible matrix M_yy: a(t, y) = M_yy y;
//   - the other rows of F are f, put into one part (the caller chooses which family).
// It owns the solve's copy of the problem and of p, and provides the shared services:
// guarded, counted evaluations (core/guard.hpp), Jacobians from the analytic callbacks or the
// shared finite differences (finite_difference.hpp), the consistency checks of the initial
// values (g = 0 and the hidden constraint (2.1b)), the index condition (g_y a_y^{-1} f_z
// invertible), consistent z for given y (Newton on (2.1b)) and the check of analytic Jacobians.
// The state x of the integrator is (y, z) for an ImplicitIndex2Dae and the MassMatrixDae's own
// ordering otherwise (split/join translate). Internal header (not installed).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/guard.hpp"
#include "daekit/nonlinear/initialization.hpp"
#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

class Index2System {
 public:
  static constexpr int kParts = ImplicitIndex2Dae::kParts;
  enum class AKind { Identity, Constant, Nonlinear };

  /// Derivatives at one point: a_y (n x n), d f_k / dy (n x n) and d f_k / dz (n x m) of the
  /// parts that are set, g_y (m x n).
  struct Jacobians {
    Matrix a_y;
    std::array<Matrix, kParts> f_y, f_z;
    Matrix g_y;
  };

  Index2System(const ImplicitIndex2Dae& dae, CallGuard& guard, Stats& stats);
  /// The Hessenberg structure of M (see above); f goes into part `part` (0-based, 1..4: it
  /// depends on z). Throws InvalidArgument naming what is missing.
  Index2System(const MassMatrixDae& dae, int part, CallGuard& guard, Stats& stats);
  Index2System(const Index2System&) = delete;  // p_ref_ refers to its own p_
  Index2System& operator=(const Index2System&) = delete;

  int n() const { return n_; }
  int m() const { return m_; }
  int size() const { return n_ + m_; }
  const std::string& name() const { return name_; }
  const std::vector<int>& parts() const { return parts_; }
  AKind a_kind() const { return a_kind_; }
  /// M_yy when a_kind() == Constant.
  const Matrix& a_matrix() const { return a_matrix_; }
  Vector& p() { return mass_ ? mass_->p() : p_; }
  CallGuard& guard() { return *guard_; }
  Stats& stats() { return *stats_; }
  /// Positions of the components of y and of z in x.
  const std::vector<int>& y_positions() const { return y_pos_; }
  const std::vector<int>& z_positions() const { return z_pos_; }

  /// x -> (y, z) and back.
  void split(const Vector& x, Vector& y, Vector& z) const;
  void join(const Vector& y, const Vector& z, Vector& x) const;

  // Guarded, counted evaluations; false on a callback failure or NaN/Inf (in the guard).
  bool a(double t, const Vector& y, Vector& out);
  /// a(t, y) for a nonlinear a only needs y; the others need nothing: a_t = 0.
  bool a_t(double t, const Vector& y, Vector& out);
  /// F.col(k) = f_k(t, y, z) for the parts k in parts() (F is n x kParts), and g(t, y).
  bool parts_and_g(double t, const Vector& y, const Vector& z, Matrix& F, Vector& g);
  /// f = sum of the parts.
  bool f(double t, const Vector& y, const Vector& z, Vector& out);
  /// g(t, y) (z only serves the mass form, whose F needs the whole x).
  bool g(double t, const Vector& y, const Vector& z, Vector& out);
  /// All Jacobians at (t, y, z) (counted as one Jacobian evaluation).
  bool jacobians(double t, const Vector& y, const Vector& z, Jacobians& J);
  /// Only g_y (m x n) and f_z = sum_k d f_k / dz (n x m), what half-explicit methods need
  /// (differences cost n evaluations of g and m of each part with z).
  bool constraint_jacobians(double t, const Vector& y, const Vector& z, Matrix& g_y, Matrix& f_z);

  /// Empty if g(t, x) and the hidden constraint (2.1b) hold to `tol` (max-norm; the latter to
  /// max(tol, 1e-7 times the size of its terms): it is evaluated with differences), else what is
  /// violated and by how much.
  std::string check_consistency(double t, const Vector& x, double tol);
  /// Empty if g_y a_y^{-1} f_z is invertible at (t, x) (and, for the mass form, the constraints
  /// do not depend on z), else why not.
  std::string check_index(double t, const Vector& x);
  /// z with the hidden constraint (2.1b) at (t, y) by Newton from the given z; false with a
  /// message if it does not converge.
  bool consistent_z(double t, const Vector& y, Vector& z, std::string& message);
  /// Consistent (y, z) near the given ones (after events): y moved onto g(t, y) = 0 along
  /// a_y^{-1} f_z (the projection (2.6) of paper 001 for a(t, y) = y), then consistent_z.
  bool consistent_state(double t, Vector& y, Vector& z, std::string& message);
  /// |g(t, y)| (max-norm) as ConstraintResiduals::position.
  bool monitor(double t, const Vector& x, ConstraintResiduals& out);
  /// The analytic Jacobians against central differences (nothing to check without them).
  JacobianCheck check_jacobian(double t, const Vector& x);
  bool has_analytic_jacobians() const;

 private:
  void setup_mass_form(const MassMatrixDae& dae, int part);
  /// Sizes the storage of the evaluations in the step loop (below).
  void allocate_work();
  bool mass_jacobian(double t, const Vector& y, const Vector& z, Jacobians& J);
  bool form_jacobians(double t, const Vector& y, const Vector& z, Jacobians& J);
  /// S = g_y a_y^{-1} sum_k f_k,z and the hidden constraint residual at (t, y, z); `scale`: the
  /// size of its terms.
  bool hidden_constraint(double t, const Vector& y, const Vector& z, Vector& residual, Matrix* S,
                         double* scale);
  bool part(int k, double t, const Vector& y, const Vector& z, VecOut out);

  int n_ = 0, m_ = 0;
  std::string name_;
  std::vector<int> parts_;
  AKind a_kind_ = AKind::Identity;
  Matrix a_matrix_;
  // ImplicitIndex2Dae form
  std::optional<ImplicitIndex2Dae> dae_;
  Vector p_;
  const VecIn p_ref_;
  // mass form
  std::optional<MassMatrixSystem> mass_;
  std::vector<int> y_pos_, z_pos_, f_rows_, g_rows_;
  int mass_part_ = 2;
  Vector x_work_, F_work_;
  StructuredMatrix<double> J_work_;
  CallGuard* guard_;
  Stats* stats_;
  // the differences of the form's maps (dense, sized once): y -> a(t, y) (n x n),
  // (y, z) -> f_k(t, y, z) (n x (n + m)), z -> f_k(t, y, z) (n x m), y -> g(t, y) (m x n)
  FiniteDifferenceJacobian fd_a_, fd_f_, fd_fz_, fd_g_;
  Vector y_work_, z_work_, out_work_, t_work_;
  // storage of the evaluations in the step loop, sized once (the step loop allocates nothing)
  Vector monitor_y_, monitor_z_, monitor_g_;  // monitor()
  Vector jac_x_, jac_f0_, jac_g0_;            // form_jacobians(): (y, z), f_k and g there
  Matrix jac_F_;                              // d f_k / d(y, z) of one part
  Jacobians constraint_jac_;                  // constraint_jacobians() of the mass form
  Vector diff_a0_;                            // a(t, y) for its differences
  Matrix diff_K_;                             // d f_k / dz of one part
};

}  // namespace daekit
