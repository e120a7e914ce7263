#include "daekit/problem/mass_matrix_dae.hpp"

#include <algorithm>

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
                          std::to_string(component_names.size()) + ", expected n = " +
                          std::to_string(n));
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

}  // namespace daekit
