#include "daekit/problem/mass_matrix_dae.hpp"

#include <algorithm>

namespace daekit {

void MassMatrixDae::validate() const {
  // the message prefix is built only when something is wrong (validate runs at every solve)
  auto who = [this] { return std::string("problem '") + name + "': "; };
  if (n <= 0) throw InvalidArgument(who() + "n must be positive, got " + std::to_string(n));
  if (!f) throw InvalidArgument(who() + "the right-hand side f is not set");
  if (mass.size() != 0 && mass_sparse.size() != 0)
    throw InvalidArgument(who() +
                          "give the mass matrix either dense (mass) or sparse (mass_sparse)");
  if (mass.size() != 0 && (mass.rows() != n || mass.cols() != n))
    throw InvalidArgument(who() + "mass matrix is " + std::to_string(mass.rows()) + " x " +
                          std::to_string(mass.cols()) + ", expected " + std::to_string(n) + " x " +
                          std::to_string(n));
  if (mass.size() != 0 && !mass.allFinite())
    throw InvalidArgument(who() + "mass matrix contains NaN or Inf");
  if (mass_sparse.size() != 0) {
    if (mass_sparse.rows() != n || mass_sparse.cols() != n)
      throw InvalidArgument(who() + "sparse mass matrix is " + std::to_string(mass_sparse.rows()) +
                            " x " + std::to_string(mass_sparse.cols()) + ", expected " +
                            std::to_string(n) + " x " + std::to_string(n));
    for (int k = 0; k < mass_sparse.nonZeros(); ++k)
      if (!std::isfinite(mass_sparse.valuePtr()[k]))
        throw InvalidArgument(who() + "sparse mass matrix contains NaN or Inf");
  }
  try {
    jacobian_sparsity.validate(n, "jacobian_sparsity");
    parameter_sparsity.validate(n, static_cast<int>(p.size()), "parameter_sparsity");
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(who() + e.what());
  }
  if (sparse_jacobian && jacobian_sparsity.kind == Sparsity::Kind::Dense)
    throw InvalidArgument(who() +
                          "sparse_jacobian needs jacobian_sparsity = Sparsity::sparse(pattern) or "
                          "Sparsity::banded(l, u)");
  if (!index.empty()) {
    if (static_cast<int>(index.size()) != n)
      throw InvalidArgument(who() + "index tags have size " + std::to_string(index.size()) +
                            ", expected n = " + std::to_string(n));
    for (size_t i = 0; i < index.size(); ++i)
      if (index[i] < 1 || index[i] > 3)
        throw InvalidArgument(who() + "index tag of component " + std::to_string(i) +
                              " must be 1, 2 or 3, got " + std::to_string(index[i]));
  }
  if (!component_names.empty() && static_cast<int>(component_names.size()) != n)
    throw InvalidArgument(who() + "component_names has size " +
                          std::to_string(component_names.size()) +
                          ", expected n = " + std::to_string(n));
  if (!p.allFinite()) throw InvalidArgument(who() + "the parameters p contain NaN or Inf");
  validate_second_order();
}

void MassMatrixDae::validate_second_order() const {
  const int m1 = second_order.m1, m2 = second_order.m2;
  if (m1 == 0 && m2 == 0) return;
  auto fail = [this, m1, m2](const std::string& why) {
    throw InvalidArgument("problem '" + name + "': second_order (m1 = " + std::to_string(m1) +
                          ", m2 = " + std::to_string(m2) + "): " + why);
  };
  if (m1 <= 0 || m2 <= 0 || m1 % m2 != 0 || m1 + m2 > n)
    fail("needs m1 > 0, m2 > 0, m1 a multiple of m2 and m1 + m2 <= n = " + std::to_string(n));
  // rows and columns 0..m1-1 of M: those of the identity (the message built only on failure:
  // this runs at every solve)
  auto bad = [&](int i, int j) {
    fail("the mass matrix must be the identity in rows and columns 0.." + std::to_string(m1 - 1) +
         ", M(" + std::to_string(i) + ", " + std::to_string(j) + ") is not");
  };
  if (mass_sparse.size() != 0) {  // O(nnz): every stored entry in those rows or columns
    std::vector<char> one(static_cast<size_t>(m1), 0);
    for (int j = 0; j < mass_sparse.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(mass_sparse, j); it; ++it) {
        const int i = static_cast<int>(it.row());
        if (i >= m1 && j >= m1) continue;
        if (i != j ? it.value() != 0.0 : it.value() != 1.0) bad(i, j);
        if (i == j) one[static_cast<size_t>(i)] = 1;
      }
    for (int i = 0; i < m1; ++i)
      if (!one[static_cast<size_t>(i)]) bad(i, i);
  } else if (mass.size() != 0) {
    for (int j = 0; j < m1; ++j)
      for (int i = 0; i < n; ++i) {
        const double expected = i == j ? 1.0 : 0.0;
        if (mass(i, j) != expected) bad(i, j);
        if (mass(j, i) != expected) bad(j, i);
      }
  }
}

bool MassMatrixDae::has_identity_mass() const {
  if (mass_sparse.size() != 0) {
    int ones = 0;
    for (int j = 0; j < mass_sparse.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(mass_sparse, j); it; ++it) {
        if (it.value() != (it.row() == j ? 1.0 : 0.0)) return false;
        if (it.row() == j) ++ones;
      }
    return ones == n;
  }
  return mass.size() == 0 || mass.isIdentity(0.0);
}

int MassMatrixDae::max_index() const {
  return index.empty() ? 1 : *std::max_element(index.begin(), index.end());
}

Matrix MassMatrixDae::dense_mass() const {
  if (mass_sparse.size() != 0) return Matrix(mass_sparse);
  if (mass.size() == 0) return Matrix::Identity(n, n);
  return mass;
}

std::vector<int> MassMatrixDae::algebraic_rows() const {
  std::vector<int> rows;
  if (mass_sparse.size() != 0) {
    std::vector<char> nonzero(static_cast<size_t>(n), 0);
    for (int j = 0; j < mass_sparse.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(mass_sparse, j); it; ++it)
        if (it.value() != 0.0) nonzero[it.row()] = 1;
    for (int i = 0; i < n; ++i)
      if (!nonzero[i]) rows.push_back(i);
    return rows;
  }
  if (mass.size() == 0) return rows;
  for (int i = 0; i < n; ++i)
    if (mass.row(i).cwiseAbs().maxCoeff() == 0.0) rows.push_back(i);
  return rows;
}

std::vector<int> MassMatrixDae::algebraic_columns() const {
  std::vector<int> cols;
  if (mass_sparse.size() != 0) {
    for (int j = 0; j < mass_sparse.outerSize(); ++j) {
      bool zero = true;
      for (SparseMatrix::InnerIterator it(mass_sparse, j); it; ++it)
        zero = zero && it.value() == 0.0;
      if (zero) cols.push_back(j);
    }
    return cols;
  }
  if (mass.size() == 0) return cols;
  for (int j = 0; j < n; ++j)
    if (mass.col(j).cwiseAbs().maxCoeff() == 0.0) cols.push_back(j);
  return cols;
}

std::string component_name(const MassMatrixDae& dae, int i) {
  const auto k = static_cast<size_t>(i);
  if (k < dae.component_names.size() && !dae.component_names[k].empty())
    return dae.component_names[k];
  std::string name = "y";  // (+= : "y" + std::string trips GCC 12's -Wrestrict)
  name += std::to_string(i);
  return name;
}

}  // namespace daekit
