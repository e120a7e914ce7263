#include "daekit/problem/implicit_dae.hpp"

#include <algorithm>

namespace daekit {

void ImplicitDae::validate() const {
  // the message prefix is built only when something is wrong (validate runs at every solve)
  auto who = [this] { return std::string("problem '") + name + "': "; };
  if (n <= 0) throw InvalidArgument(who() + "n must be positive, got " + std::to_string(n));
  if (!F) throw InvalidArgument(who() + "the residual F is not set");
  if (!differential.empty() && static_cast<int>(differential.size()) != n)
    throw InvalidArgument(who() + "differential tags have size " +
                          std::to_string(differential.size()) +
                          ", expected n = " + std::to_string(n));
  if (!index.empty()) {
    if (static_cast<int>(index.size()) != n)
      throw InvalidArgument(who() + "index tags have size " + std::to_string(index.size()) +
                            ", expected n = " + std::to_string(n));
    for (size_t i = 0; i < index.size(); ++i)
      if (index[i] < 1 || index[i] > 3)
        throw InvalidArgument(who() + "index tag of component " + std::to_string(i) +
                              " must be 1, 2 or 3, got " + std::to_string(index[i]));
  }
  if (static_cast<bool>(dF_dy) != static_cast<bool>(dF_dyp))
    throw InvalidArgument(who() + "give both dF_dy and dF_dyp, or neither (finite differences)");
  if (static_cast<bool>(sparse_dF_dy) != static_cast<bool>(sparse_dF_dyp))
    throw InvalidArgument(who() + "give both sparse_dF_dy and sparse_dF_dyp, or neither");
  try {
    jacobian_sparsity.validate(n, "jacobian_sparsity");
    parameter_sparsity.validate(n, static_cast<int>(p.size()), "parameter_sparsity");
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(who() + e.what());
  }
  if (sparse_dF_dy && jacobian_sparsity.kind == Sparsity::Kind::Dense)
    throw InvalidArgument(who() +
                          "sparse_dF_dy needs jacobian_sparsity = Sparsity::sparse(pattern) or "
                          "Sparsity::banded(l, u)");
  if (!component_names.empty() && static_cast<int>(component_names.size()) != n)
    throw InvalidArgument(who() + "component_names has size " +
                          std::to_string(component_names.size()) +
                          ", expected n = " + std::to_string(n));
  if (!p.allFinite()) throw InvalidArgument(who() + "the parameters p contain NaN or Inf");
}

int ImplicitDae::max_index() const {
  return index.empty() ? 1 : *std::max_element(index.begin(), index.end());
}

ImplicitDae to_implicit_form(const MassMatrixDae& dae) {
  dae.validate();
  ImplicitDae d;
  d.n = dae.n;
  d.name = dae.name;
  d.p = dae.p;
  d.parameter_sparsity = dae.parameter_sparsity;  // dF/dp = -df/dp
  d.index = dae.index;
  d.component_names = dae.component_names;
  auto f = dae.f;
  if (dae.mass_sparse.size() != 0 && !dae.has_identity_mass()) {
    const SparseMatrix M = dae.mass_sparse;
    d.F = [f, M](double t, VecIn y, VecIn yp, VecOut out, VecIn p) {
      f(t, y, out, p);
      out = -out;
      for (int j = 0; j < M.outerSize(); ++j)
        for (SparseMatrix::InnerIterator it(M, j); it; ++it) out[it.row()] += it.value() * yp[j];
    };
    if (dae.sparse_jacobian) {
      auto jac = dae.sparse_jacobian;
      d.sparse_dF_dy = [jac](double t, VecIn y, VecIn, SparseMatrix& out, VecIn p) {
        jac(t, y, out, p);
        out.coeffs() = -out.coeffs();
      };
      d.sparse_dF_dyp = [M](double, VecIn, VecIn, SparseMatrix& out) {
        for (int j = 0; j < M.outerSize(); ++j)
          for (SparseMatrix::InnerIterator it(M, j); it; ++it)
            out.coeffRef(static_cast<int>(it.row()), j) = it.value();
      };
    }
    d.differential.assign(dae.n, true);
    for (int j : dae.algebraic_columns()) d.differential[j] = false;
    d.jacobian_sparsity = structure_union(dae.jacobian_sparsity, sparsity_of(M), dae.n, true);
    return d;
  }
  const Matrix M = dae.dense_mass();
  if (dae.has_identity_mass()) {
    d.F = [f](double t, VecIn y, VecIn yp, VecOut out, VecIn p) {
      f(t, y, out, p);
      out = yp - out;
    };
  } else {
    d.F = [f, M](double t, VecIn y, VecIn yp, VecOut out, VecIn p) {
      f(t, y, out, p);
      out = -out;
      out.noalias() += M * yp;  // no temporary: the step loop allocates nothing
    };
  }
  if (dae.jacobian) {
    auto jac = dae.jacobian;
    d.dF_dy = [jac](double t, VecIn y, VecIn, Matrix& out, VecIn p) {
      out.setZero();
      jac(t, y, out, p);
      out = -out;
    };
    d.dF_dyp = [M](double, VecIn, VecIn, Matrix& out) { out = M; };
  }
  d.differential.assign(dae.n, true);
  for (int j : dae.algebraic_columns()) d.differential[j] = false;
  if (!dae.jacobian_sparsity.is_dense())
    d.jacobian_sparsity = structure_union(dae.jacobian_sparsity,
                                          sparsity_of(SparseMatrix(M.sparseView())), dae.n, true);
  return d;
}

}  // namespace daekit
