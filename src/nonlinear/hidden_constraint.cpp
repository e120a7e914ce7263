#include "nonlinear/hidden_constraint.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "nonlinear/newton.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

namespace {
std::vector<int> complement(const std::vector<int>& excluded, int n) {
  std::vector<int> rest;
  size_t k = 0;
  for (int i = 0; i < n; ++i) {
    if (k < excluded.size() && excluded[k] == i)
      ++k;
    else
      rest.push_back(i);
  }
  return rest;
}
}  // namespace

HiddenConstraintSolver::HiddenConstraintSolver(MassMatrixSystem& sys) : sys_(sys) {
  const int n = sys.n();
  a_rows_ = sys.mass().zero_rows();
  A_cols_ = sys.mass().zero_columns();
  const std::string what =
      "the hidden-constraint update of z (Hairer-Wanner II, p. 470; IMM-REP-1999-8 (3.11b))";
  if (A_cols_.empty() || a_rows_.size() != A_cols_.size())
    throw InvalidArgument(what +
                          " needs a semi-explicit index-2 system: M with as many zero rows "
                          "(the constraints g) as zero columns (the algebraic variables z), "
                          "here " +
                          std::to_string(a_rows_.size()) + " and " +
                          std::to_string(A_cols_.size()));
  for (int c : A_cols_)
    if (sys.index_of(c) != 2)
      throw InvalidArgument(what + " is for index-2 algebraic variables; component " +
                            std::to_string(c) + " is tagged index " +
                            std::to_string(sys.index_of(c)));
  d_rows_ = complement(a_rows_, n);
  D_cols_ = complement(A_cols_, n);
  const int nd = static_cast<int>(d_rows_.size()), na = static_cast<int>(a_rows_.size());
  const Matrix M = sys.mass().to_dense();
  Matrix MdD(nd, nd);
  for (int i = 0; i < nd; ++i)
    for (int j = 0; j < nd; ++j) MdD(i, j) = M(d_rows_[i], D_cols_[j]);
  Eigen::FullPivLU<Matrix> lu(MdD);
  if (!lu.isInvertible())
    throw InvalidArgument(what + " needs M invertible on the differential rows and columns");
  Minv_ = lu.inverse();
  G_.setZero(na, nd);
  GMinv_.setZero(na, nd);
  fd_.setZero(nd);
  v_.setZero(nd);
  r_.setZero(na);
  f_.setZero(n);
  fp_.setZero(n);
  x_.setZero(n);
  z_.setZero(n);
  sys.allocate_jacobian(J_);
  lu_ = make_dense_solver<double>(na);
}

// g_t + g_y M^{-1} f_d(t, y, z) = d/ds g(t + s, y + s v) at s = 0 with v = M^{-1} f_d: by
// fourth-order central differences along (1, v) (error O(d^4) + O(eps / d)), not from the
// Jacobian, which may be differenced itself (its 1e-8 error would end up in z)
bool HiddenConstraintSolver::hidden_residual(double t, const Vector& x, Vector& r) {
  if (!sys_.f(t, x, f_)) return false;
  for (size_t i = 0; i < d_rows_.size(); ++i) fd_[static_cast<int>(i)] = f_[d_rows_[i]];
  v_.noalias() = Minv_ * fd_;
  const double vmax = std::max(1.0, v_.cwiseAbs().maxCoeff());
  double ymax = 1.0;
  for (int c : D_cols_) ymax = std::max(ymax, std::abs(x[c]));
  const double delta =
      std::pow(std::numeric_limits<double>::epsilon(), 0.2) * std::max(ymax, std::abs(t)) / vmax;
  r.setZero();
  for (int m = 1; m <= 2; ++m) {
    for (int sign : {+1, -1}) {
      x_ = x;
      const double s = sign * m * delta;
      for (size_t k = 0; k < D_cols_.size(); ++k) x_[D_cols_[k]] += s * v_[static_cast<int>(k)];
      if (!sys_.f(t + s, x_, fp_)) return false;
      const double w = sign * (m == 1 ? 8.0 : -1.0) / (12.0 * delta);
      for (size_t i = 0; i < a_rows_.size(); ++i) r[static_cast<int>(i)] += w * fp_[a_rows_[i]];
    }
  }
  return true;
}

bool HiddenConstraintSolver::solve(double t, VecOut x) {
  const int na = static_cast<int>(a_rows_.size()), nd = static_cast<int>(d_rows_.size());
  z_ = x;  // the iterate (x_ is the differencing point)
  // g_y, f_z at the projected point; H = g_y M^{-1} f_z (the Newton matrix only)
  if (!sys_.f(t, z_, f_) || !sys_.jacobian(t, z_, f_, J_)) return false;
  for (int i = 0; i < na; ++i)
    for (int j = 0; j < nd; ++j) G_(i, j) = J_.at(a_rows_[i], D_cols_[j]);
  GMinv_.noalias() = G_ * Minv_;
  Matrix& H = lu_->matrix().dense();
  for (int i = 0; i < na; ++i)
    for (int j = 0; j < na; ++j) {
      double s = 0;
      for (int k = 0; k < nd; ++k) s += GMinv_(i, k) * J_.at(d_rows_[k], A_cols_[j]);
      H(i, j) = s;
    }
  if (!lu_->factor()) return false;  // g_y f_z singular: not index 2 here
  NewtonMonitor newton(NewtonMonitor::without_rate(10));
  newton.begin(0.0);
  for (;;) {
    if (!hidden_residual(t, z_, r_)) return false;
    lu_->solve_in_place(r_);
    double change = 0.0, size = 1.0;
    for (int j = 0; j < na; ++j) {
      double& z = z_[A_cols_[j]];
      z -= r_[j];
      change = std::max(change, std::abs(r_[j]));
      size = std::max(size, std::abs(z));
    }
    newton.settings().tolerance = 4 * std::numeric_limits<double>::epsilon() * size;
    newton.settings().stagnation = 1e-10 * size;  // round-off reached, stops shrinking
    const NewtonMonitor::Verdict v = newton.next(change);
    if (v == NewtonMonitor::Verdict::Converged) break;
    if (v != NewtonMonitor::Verdict::Continue) return false;
  }
  for (int c : A_cols_) x[c] = z_[c];
  return true;
}

}  // namespace daekit
