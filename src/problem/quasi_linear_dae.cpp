// The two reformulations of M(t, y) y' = f(t, y) (problem/quasi_linear_dae.hpp).
#include "daekit/problem/quasi_linear_dae.hpp"

#include <algorithm>

#include "core/dense_spectra.hpp"

namespace daekit {

void QuasiLinearDae::validate() const {
  auto who = [this] { return std::string("problem '") + name + "': "; };
  if (n <= 0) throw InvalidArgument(who() + "n must be positive, got " + std::to_string(n));
  if (!mass) throw InvalidArgument(who() + "the mass matrix function M(t, y) is not set");
  if (!f) throw InvalidArgument(who() + "the right-hand side f is not set");
  if (static_cast<bool>(jacobian) != static_cast<bool>(mass_jacobian))
    throw InvalidArgument(who() +
                          "give both jacobian and mass_jacobian, or neither (finite differences)");
  if (!differential.empty() && static_cast<int>(differential.size()) != n)
    throw InvalidArgument(who() + "differential tags have size " +
                          std::to_string(differential.size()) +
                          ", expected n = " + std::to_string(n));
  if (differential_components().empty())
    throw InvalidArgument(who() + "no differential component: M(t, y) would be zero");
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
}

std::vector<int> QuasiLinearDae::differential_components() const {
  std::vector<int> D;
  for (int i = 0; i < n; ++i)
    if (is_differential(i)) D.push_back(i);
  return D;
}

namespace {

// Index tag of w = y_i' for y_i of tag `tag` in a DAE whose highest tag is `highest` (the
// rule and its reasoning: quasi_linear_dae.hpp, to_mass_matrix_form).
int derivative_index(int tag, int highest) { return std::min(tag + 1, highest); }

// Row of the reformulated system that holds the original equation r (see the header).
std::vector<int> equation_rows(int n, const std::vector<int>& D) {
  std::vector<int> row(n);
  for (int r = 0; r < n; ++r) row[r] = r;
  for (size_t k = 0; k < D.size(); ++k) row[D[k]] = n + static_cast<int>(k);
  return row;
}

// M(t, y)[:, D] w with M evaluated into the scratch matrix `M` (no allocation).
void mass_times(const QuasiLinearDae::MassFn& mass, double t, VecIn y, const std::vector<int>& D,
                VecIn w, Matrix& M, Vector& out, VecIn p) {
  M.setZero();
  mass(t, y, M, p);
  out.setZero();
  for (size_t k = 0; k < D.size(); ++k) out += M.col(D[k]) * w[static_cast<int>(k)];
}

}  // namespace

MassMatrixDae to_mass_matrix_form(const QuasiLinearDae& dae) {
  dae.validate();
  const int n = dae.n;
  const std::vector<int> D = dae.differential_components();
  const int d = static_cast<int>(D.size());
  const std::vector<int> row = equation_rows(n, D);
  MassMatrixDae out;
  out.n = n + d;
  out.name = dae.name + " (y' = w form)";
  out.p = dae.p;
  out.mass = Matrix::Zero(n + d, n + d);
  for (int i : D) out.mass(i, i) = 1.0;
  out.index.assign(n + d, 1);
  for (int i = 0; i < n; ++i) out.index[i] = dae.index.empty() ? 1 : dae.index[i];
  const int highest = *std::max_element(out.index.begin(), out.index.begin() + n);
  for (int k = 0; k < d; ++k) out.index[n + k] = derivative_index(out.index[D[k]], highest);
  if (!dae.component_names.empty()) {
    out.component_names = dae.component_names;
    for (int i : D) out.component_names.push_back(dae.component_names[i] + "'");
  }
  // 0 = M(t, y)[:, D] w - f(t, y) in the rows `row`; y_i' = w_k in row D_k
  out.f = [mass = dae.mass, f = dae.f, D, row, n, d, M = Matrix(n, n), Mw = Vector(n),
           fy = Vector(n)](double t, VecIn x, VecOut r, VecIn p) mutable {
    const auto y = x.head(n);
    const auto w = x.tail(d);
    f(t, y, fy, p);
    mass_times(mass, t, y, D, w, M, Mw, p);
    for (int i = 0; i < n; ++i) r[row[i]] = Mw[i] - fy[i];
    for (int k = 0; k < d; ++k) r[D[k]] = w[k];
  };
  if (dae.jacobian) {
    out.jacobian = [jac = dae.jacobian, mjac = dae.mass_jacobian, mass = dae.mass, D, row, n, d,
                    M = Matrix(n, n), J = Matrix(n, n), K = Matrix(n, n),
                    u = Vector(n)](double t, VecIn x, MatOut out, VecIn p) mutable {
      const auto y = x.head(n);
      u.setZero();
      for (int k = 0; k < d; ++k) u[D[k]] = x[n + k];  // u = y' with y_A' = 0
      J.setZero();
      jac(t, y, J, p);
      K.setZero();
      mjac(t, y, u, K, p);
      M.setZero();
      mass(t, y, M, p);
      for (int i = 0; i < n; ++i) {
        out.row(row[i]).head(n) = K.row(i) - J.row(i);
        for (int k = 0; k < d; ++k) out(row[i], n + k) = M(i, D[k]);
      }
      for (int k = 0; k < d; ++k) out(D[k], n + k) = 1.0;
    };
  }
  return out;
}

Vector initial_values(const QuasiLinearDae& dae, double t0, const Vector& y0) {
  dae.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("problem '" + dae.name + "': y0 has size " + std::to_string(y0.size()) +
                          ", expected n = " + std::to_string(dae.n));
  const std::vector<int> D = dae.differential_components();
  const int n = dae.n, d = static_cast<int>(D.size());
  Matrix M = Matrix::Zero(n, n), MD(n, d);
  Vector fy(n);
  dae.mass(t0, y0, M, dae.p);
  dae.f(t0, y0, fy, dae.p);
  for (int k = 0; k < d; ++k) MD.col(k) = M.col(D[k]);
  Eigen::ColPivHouseholderQR<Matrix> qr(MD);
  if (qr.rank() < d)
    throw InvalidArgument("problem '" + dae.name +
                          "': M(t0, y0) restricted to the differential columns has rank " +
                          std::to_string(qr.rank()) + " < " + std::to_string(d) +
                          " (a differential column of M is zero or dependent at y0)");
  Vector x(n + d);
  x << y0, qr.solve(fy);
  return x;
}

ImplicitDae to_implicit_form(const QuasiLinearDae& dae) {
  dae.validate();
  const int n = dae.n;
  ImplicitDae out;
  out.n = n;
  out.name = dae.name;
  out.p = dae.p;
  out.index = dae.index;
  out.component_names = dae.component_names;
  out.differential.assign(n, true);
  for (int i = 0; i < n; ++i) out.differential[i] = dae.is_differential(i);
  out.F = [mass = dae.mass, f = dae.f, M = Matrix(n, n)](double t, VecIn y, VecIn yp, VecOut r,
                                                         VecIn p) mutable {
    f(t, y, r, p);
    r = -r;
    M.setZero();
    mass(t, y, M, p);
    r.noalias() += M * yp;
  };
  if (dae.jacobian) {
    out.dF_dy = [jac = dae.jacobian, mjac = dae.mass_jacobian, K = Matrix(n, n)](
                    double t, VecIn y, VecIn yp, Matrix& out, VecIn p) mutable {
      out.setZero();
      jac(t, y, out, p);
      K.setZero();
      mjac(t, y, yp, K, p);
      out = K - out;
    };
    out.dF_dyp = [mass = dae.mass](double t, VecIn y, VecIn, Matrix& out, VecIn p) {
      out.setZero();
      mass(t, y, out, p);
    };
  }
  return out;
}

}  // namespace daekit
