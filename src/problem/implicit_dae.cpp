#include "daekit/problem/implicit_dae.hpp"

#include <cmath>
#include <limits>

#include "daekit/problem/finite_difference.hpp"
#include "daekit/problem/initialization.hpp"

namespace daekit {

void ImplicitDae::validate() const {
  const std::string who = "problem '" + name + "': ";
  if (n <= 0) throw InvalidArgument(who + "n must be positive, got " + std::to_string(n));
  if (!F) throw InvalidArgument(who + "the residual F is not set");
  if (!differential.empty() && static_cast<int>(differential.size()) != n)
    throw InvalidArgument(who + "differential tags have size " +
                          std::to_string(differential.size()) +
                          ", expected n = " + std::to_string(n));
}

ImplicitDae to_implicit_form(const MassMatrixDae& dae) {
  dae.validate();
  ImplicitDae d;
  d.n = dae.n;
  d.name = dae.name;
  const Matrix M = dae.has_identity_mass() ? Matrix::Identity(dae.n, dae.n) : dae.mass;
  auto f = dae.f;
  if (dae.has_identity_mass()) {
    d.F = [f](double t, VecIn y, VecIn yp, VecOut out) {
      f(t, y, out);
      out = yp - out;
    };
  } else {
    d.F = [f, M](double t, VecIn y, VecIn yp, VecOut out) {
      f(t, y, out);
      out = -out;
      out.noalias() += M * yp;  // no temporary: the step loop allocates nothing
    };
  }
  if (dae.jacobian) {
    auto jac = dae.jacobian;
    d.dF_dy = [jac](double t, VecIn y, VecIn, Matrix& out) {
      out.setZero();
      jac(t, y, out);
      out = -out;
    };
  }
  d.dF_dyp = [M](double, VecIn, VecIn, Matrix& out) { out = M; };
  d.differential.assign(dae.n, true);
  for (int j = 0; j < dae.n; ++j)
    if (M.col(j).cwiseAbs().maxCoeff() == 0.0) d.differential[j] = false;
  if (!dae.has_identity_mass() && dae.algebraic_rows().empty()) {
    d.reinitialize = [dae](double t, Vector& y, Vector& yp, std::string& message) {
      const InitResult r = initialize(dae, t, y);
      if (!r.ok) {
        message = r.message;
        return false;
      }
      y = r.y;
      yp = r.yp;
      return true;
    };
  }
  return d;
}

void ImplicitDae::check_jacobians(double t, const Vector& y, const Vector& yp) const {
  for (const auto* jac : {&dF_dy, &dF_dyp}) {
    if (!*jac) continue;
    Matrix J = Matrix::Zero(n, n);
    (*jac)(t, y, yp, J);
    const char* which = jac == &dF_dy ? "dF/dy" : "dF/dy'";
    if (J.rows() != n || J.cols() != n)
      throw InvalidArgument("problem '" + name + "': the " + which + " callback returned a " +
                            std::to_string(J.rows()) + " x " + std::to_string(J.cols()) +
                            " matrix, expected " + std::to_string(n) + " x " + std::to_string(n));
    if (!J.allFinite())
      throw InvalidArgument("problem '" + name + "': " + which + " contains NaN/Inf at t0");
  }
}

Vector initial_derivative(const MassMatrixDae& dae, double t0, const Vector& y0) {
  dae.validate();
  const int n = dae.n;
  Vector f(n);
  dae.f(t0, y0, f);
  if (dae.has_identity_mass()) return f;
  // differential part: least squares on M y' = f (exact where M is invertible on its range)
  std::vector<int> diff_rows, alg_rows, diff_cols, alg_cols;
  for (int i = 0; i < n; ++i) {
    (dae.mass.row(i).cwiseAbs().maxCoeff() > 0 ? diff_rows : alg_rows).push_back(i);
    (dae.mass.col(i).cwiseAbs().maxCoeff() > 0 ? diff_cols : alg_cols).push_back(i);
  }
  Vector yp = Vector::Zero(n);
  if (!diff_rows.empty() && !diff_cols.empty()) {
    Matrix Mdd(diff_rows.size(), diff_cols.size());
    Vector fd(diff_rows.size());
    for (size_t a = 0; a < diff_rows.size(); ++a) {
      fd[a] = f[diff_rows[a]];
      for (size_t b = 0; b < diff_cols.size(); ++b)
        Mdd(a, b) = dae.mass(diff_rows[a], diff_cols[b]);
    }
    const Vector ypd = Mdd.completeOrthogonalDecomposition().solve(fd);
    for (size_t b = 0; b < diff_cols.size(); ++b) yp[diff_cols[b]] = ypd[b];
  }
  if (alg_rows.empty() || alg_rows.size() != alg_cols.size()) return yp;
  // algebraic part: 0 = d/dt f_A(t, y) = J_AD y'_D + J_AZ z' + df_A/dt
  Matrix J(n, n);
  if (dae.jacobian) {
    J.setZero();
    dae.jacobian(t0, y0, J);
  } else {
    Vector yw(n), fw(n);
    forward_difference_jacobian(dae.f, t0, y0, f, J, yw, fw);
  }
  const double dt = std::sqrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(t0));
  Vector f1(n);
  dae.f(t0 + dt, y0, f1);
  const int m = static_cast<int>(alg_rows.size());
  Matrix JAZ(m, m);
  Vector rhs(m);
  for (int a = 0; a < m; ++a) {
    double r = (f1[alg_rows[a]] - f[alg_rows[a]]) / dt;
    for (int c : diff_cols) r += J(alg_rows[a], c) * yp[c];
    rhs[a] = -r;
    for (int b = 0; b < m; ++b) JAZ(a, b) = J(alg_rows[a], alg_cols[b]);
  }
  Eigen::FullPivLU<Matrix> lu(JAZ);
  if (!lu.isInvertible()) return yp;  // index > 1: leave the algebraic derivatives at 0
  const Vector z = lu.solve(rhs);
  for (int b = 0; b < m; ++b) yp[alg_cols[b]] = z[b];
  return yp;
}

}  // namespace daekit
