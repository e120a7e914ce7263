#include "daekit/problem/mass_matrix_dae.hpp"

#include <algorithm>
#include <cmath>

#include "daekit/problem/finite_difference.hpp"
#include "daekit/problem/initialization.hpp"

namespace daekit {

void MassMatrixDae::validate() const {
  const std::string who = "problem '" + name + "': ";
  if (n <= 0) throw InvalidArgument(who + "n must be positive, got " + std::to_string(n));
  if (!f) throw InvalidArgument(who + "the right-hand side f is not set");
  if (mass.size() != 0 && (mass.rows() != n || mass.cols() != n))
    throw InvalidArgument(who + "mass matrix is " + std::to_string(mass.rows()) + " x " +
                          std::to_string(mass.cols()) + ", expected " + std::to_string(n) + " x " +
                          std::to_string(n));
  if (mass.size() != 0 && !mass.allFinite())
    throw InvalidArgument(who + "mass matrix contains NaN or Inf");
  if (!index.empty()) {
    if (static_cast<int>(index.size()) != n)
      throw InvalidArgument(who + "index tags have size " + std::to_string(index.size()) +
                            ", expected n = " + std::to_string(n));
    for (size_t i = 0; i < index.size(); ++i)
      if (index[i] < 1 || index[i] > 3)
        throw InvalidArgument(who + "index tag of component " + std::to_string(i) +
                              " must be 1, 2 or 3, got " + std::to_string(index[i]));
  }
  if (!component_names.empty() && static_cast<int>(component_names.size()) != n)
    throw InvalidArgument(who + "component_names has size " +
                          std::to_string(component_names.size()) +
                          ", expected n = " + std::to_string(n));
}

void MassMatrixDae::check_jacobian(double t, const Vector& y) const {
  if (!jacobian) return;
  Matrix J = Matrix::Zero(n, n);
  jacobian(t, y, J);
  if (J.rows() != n || J.cols() != n)
    throw InvalidArgument("problem '" + name + "': the Jacobian callback returned a " +
                          std::to_string(J.rows()) + " x " + std::to_string(J.cols()) +
                          " matrix, expected " + std::to_string(n) + " x " + std::to_string(n));
  if (!J.allFinite())
    throw InvalidArgument("problem '" + name + "': the Jacobian contains NaN/Inf at t0");
}

int MassMatrixDae::max_index() const {
  return index.empty() ? 1 : *std::max_element(index.begin(), index.end());
}

std::vector<int> MassMatrixDae::algebraic_rows() const {
  std::vector<int> rows;
  if (mass.size() == 0) return rows;
  for (int i = 0; i < n; ++i)
    if (mass.row(i).cwiseAbs().maxCoeff() == 0.0) rows.push_back(i);
  return rows;
}

std::vector<int> MassMatrixDae::algebraic_columns() const {
  std::vector<int> cols;
  if (mass.size() == 0) return cols;
  for (int j = 0; j < n; ++j)
    if (mass.col(j).cwiseAbs().maxCoeff() == 0.0) cols.push_back(j);
  return cols;
}

bool MassMatrixDae::solve_algebraic(double t, Vector& y, std::string& message) const {
  const std::vector<int> rows = algebraic_rows(), cols = algebraic_columns();
  if (rows.empty() && !has_identity_mass()) {
    // singular M without zero rows (algebraic equations in combinations of rows): Newton on
    // L^T f along ker M (initialize(MassMatrixDae)); nothing to do when M is nonsingular
    const InitResult r = initialize(*this, t, y);
    if (!r.ok) {
      message = r.message;
      return false;
    }
    y = r.y;
    return true;
  }
  if (rows.empty() || rows.size() != cols.size()) return true;
  const int m = static_cast<int>(rows.size());
  Vector fv(n), yw(n), fw(n), r(m);
  Matrix J(n, n), JA(m, m);
  for (int it = 0; it < 20; ++it) {
    f(t, y, fv);
    double worst = 0.0;
    for (int a = 0; a < m; ++a) {
      r[a] = fv[rows[a]];
      worst = std::max(worst, std::abs(r[a]));
    }
    if (!std::isfinite(worst)) {
      message = "f not finite while solving the algebraic equations";
      return false;
    }
    if (worst <= 1e-12 * (1.0 + y.cwiseAbs().maxCoeff())) return true;
    if (jacobian) {
      J.setZero();
      jacobian(t, y, J);
    } else {
      forward_difference_jacobian(f, t, y, fv, J, yw, fw);
    }
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b) JA(a, b) = J(rows[a], cols[b]);
    Eigen::FullPivLU<Matrix> lu(JA);
    if (!lu.isInvertible()) {
      message =
          "the Jacobian of the algebraic equations with respect to the algebraic "
          "variables is singular (not index 1)";
      return false;
    }
    const Vector dz = lu.solve(r);
    for (int b = 0; b < m; ++b) y[cols[b]] -= dz[b];
  }
  message = "Newton on the algebraic equations did not converge";
  return false;
}

}  // namespace daekit
