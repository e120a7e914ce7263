// EulerLagrangeSystem: the Euler-Lagrange structure of a mass-matrix DAE, read from a
// MassMatrixSystem (nonlinear/systems.hpp) for the methods and consistency computations that
// need it (the beta-blocked multistep methods, methods/beta_multistep.hpp).
//
// A MassMatrixDae M y' = F(t, y) has Euler-Lagrange index-2 structure when, after ordering,
//   y = (x, lambda),   M = [M_xx 0; 0 0] (M_xx constant, nonsingular),
//   F = (F_D(t, x, lambda), F_A(t, x)),   F_D affine in lambda: F_D = f(t, x) - B(t, x)^T lambda,
// i.e. M_xx x' = f - B^T lambda, 0 = g(t, x) = F_A (paper 003 (1.1) with M_xx = I and B = G;
// notes (5.1) with f_lambda = -B^T); the zero rows of M are the constraints, its zero columns the
// multipliers. Everything here is computed from F alone, with the solve's guard and statistics:
//   f(t, x) = F_D(t, x, 0) and B^T mu = F_D(t, x, 0) - F_D(t, x, mu)  (exact by affinity);
//   G = dg/dx from the system's Jacobian source (analytic or differences);
//   the consistent multipliers lambda = psi(t, x) from the hidden constraint
//     0 = d/dt g(t, x(t)) = G x' + g_t,  x' = M_xx^{-1} (f - B^T lambda),
//   i.e. S lambda = G M_xx^{-1} f + g_t with S = G M_xx^{-1} B^T (nonsingular: index 2), then
//   refined by Newton steps lambda += S^{-1} r(lambda) on the residual
//     r(lambda) = d/de g(t + e, x + e x'(lambda)) at e = 0,
//   taken by a fourth-order central difference along the solution direction (error ~1e-13
//   relative) so that the result does not inherit the O(sqrt(eps)) error of a differenced G.
// Internal header (not installed).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/dense_spectra.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

class EulerLagrangeSystem {
 public:
  /// Reads the structure of sys's mass matrix; throws InvalidArgument when M is not of the
  /// form above (as many zero rows as zero columns, M_xx nonsingular).
  explicit EulerLagrangeSystem(MassMatrixSystem& sys);

  MassMatrixSystem& sys() { return *sys_; }
  int n() const { return n_; }
  int nx() const { return nx_; }
  int m() const { return m_; }
  const std::vector<int>& x_columns() const { return xcols_; }
  const std::vector<int>& lambda_columns() const { return lcols_; }
  const std::vector<int>& differential_rows() const { return drows_; }
  const std::vector<int>& constraint_rows() const { return arows_; }
  /// M restricted to the differential rows (all n columns; zero on the multiplier columns).
  const Matrix& mass_rows() const { return MD_; }

  /// The multipliers of y (size m) / writes them into y.
  Vector lambda(const Vector& y) const;
  /// The multipliers of y into out (sized m: allocates nothing).
  void lambda(const Eigen::Ref<const Vector>& y, Vector& out) const;
  void set_lambda(Vector& y, const Vector& lambda) const;

  /// F(t, y) with the multipliers of y replaced by mu (all n rows into out).
  bool f_with(double t, const Vector& y, const Vector& mu, Vector& out);

  /// The structure at (t, y): F_A independent of lambda and F_D affine in lambda (checked with
  /// increments of lambda). Empty if it holds, else what is wrong (or a callback failure).
  std::string check_structure(double t, const Vector& y);

  /// B^T in the differential rows (|D| x m): column j = F_D(t, x, 0) - F_D(t, x, e_j).
  bool multiplier_directions(double t, const Vector& y, Matrix& Bt);
  /// G = dF_A/dx (m x nx, columns in the order of x_columns()) at (t, y).
  bool constraint_jacobian(double t, const Vector& y, Matrix& G);
  /// x' = M_xx^{-1} F_D(t, x, lambda) in the order of x_columns(), from F(t, y) = Fy.
  void velocity(const Vector& Fy, Vector& xp);

  /// Replaces the multipliers of y by the consistent ones psi(t, x) (see above). False with a
  /// message if S = G M_xx^{-1} B^T is singular (not index 2 at t) or a callback failed.
  /// Allocates nothing but the message (the storage is sized by the constructor).
  bool make_multipliers_consistent(double t, Vector& y, std::string& message);
  /// The hidden-constraint residual r(lambda) of y (size m), see above.
  bool hidden_constraint(double t, const Vector& y, Vector& r);

 private:
  MassMatrixSystem* sys_;
  int n_ = 0, nx_ = 0, m_ = 0;
  std::vector<int> xcols_, lcols_, drows_, arows_;
  Matrix MD_;                           // rows D of M
  Eigen::PartialPivLU<Matrix> Mxx_lu_;  // M[D, X]
  Vector work_, work2_, fy_, xp_, ytmp_;
  StructuredMatrix<double> J_;
  // make_multipliers_consistent(): B^T, G, M_xx^{-1} B^T, S and its LU, lambda, the residual,
  // the increment and the LU solve's intermediate; mu, the right-hand side of velocity(), and
  // the constraint values of the difference in hidden_constraint()
  Matrix Bt_, G_, MinvBt_, S_;
  Eigen::FullPivLU<Matrix> S_lu_;
  Vector l_, r_, dl_, lu_work_, mu_, rhs_x_;
  std::array<Vector, 4> g_steps_;
};

}  // namespace daekit
