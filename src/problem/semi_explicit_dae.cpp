#include "daekit/problem/semi_explicit_dae.hpp"

#include <cmath>
#include <limits>

namespace daekit {

void SemiExplicitDae::validate() const {
  const std::string who = "problem '" + name + "': ";
  if (ny < 0 || nz < 0 || ny + nz == 0)
    throw InvalidArgument(who + "need ny >= 0, nz >= 0 and ny + nz > 0");
  if (!f && ny > 0) throw InvalidArgument(who + "f is not set");
  if (!g && nz > 0) throw InvalidArgument(who + "g is not set");
  if (algebraic_index != 1 && algebraic_index != 2)
    throw InvalidArgument(who + "algebraic_index must be 1 or 2");
}

bool project_index2(const SemiExplicitDae::Part& f, const SemiExplicitDae::Part& g, int ny, int nz,
                    double t, VecOut x) {
  const double eps = std::numeric_limits<double>::epsilon();
  const Vector y_tilde = x.head(ny);
  const Vector z = x.tail(nz);
  Vector y = y_tilde, gamma = Vector::Zero(nz), f0(ny), f1(ny), g0(nz), g1(nz);
  Matrix B(ny, nz), G(nz, ny);
  for (int outer = 0; outer < 2; ++outer) {
    // B = f_z(y, z) at the current (projected) point, by forward differences
    f(t, y, z, f0);
    Vector zz = z;
    for (int k = 0; k < nz; ++k) {
      const double delta = std::sqrt(eps * std::max(1e-5, std::abs(z[k])));
      zz[k] = z[k] + delta;
      f(t, y, zz, f1);
      B.col(k) = (f1 - f0) / delta;
      zz[k] = z[k];
    }
    // simplified Newton on g(y~ + B gamma) = 0 with G = g_y frozen at the start
    g(t, y, z, g0);
    Vector yy = y;
    for (int j = 0; j < ny; ++j) {
      const double delta = std::sqrt(eps * std::max(1e-5, std::abs(y[j])));
      yy[j] = y[j] + delta;
      g(t, yy, z, g1);
      G.col(j) = (g1 - g0) / delta;
      yy[j] = y[j];
    }
    Eigen::PartialPivLU<Matrix> lu(G * B);
    bool converged = false;
    for (int it = 0; it < 20 && !converged; ++it) {
      y = y_tilde + B * gamma;
      g(t, y, z, g0);
      const Vector dgamma = lu.solve(g0);
      gamma -= dgamma;
      const double step = (B * dgamma).cwiseAbs().maxCoeff();
      if (!std::isfinite(step)) return false;
      converged = step <= 4 * eps * std::max(1.0, y.cwiseAbs().maxCoeff());
    }
    y = y_tilde + B * gamma;
    g(t, y, z, g0);
    if (!converged && !(g0.cwiseAbs().maxCoeff() <= 1e-12)) return false;
  }
  x.head(ny) = y;
  return true;
}

MassMatrixDae to_mass_matrix_form(const SemiExplicitDae& dae) {
  dae.validate();
  MassMatrixDae m;
  const int ny = dae.ny, nz = dae.nz;
  m.n = ny + nz;
  m.name = dae.name;
  m.mass = Matrix::Zero(m.n, m.n);
  m.mass.topLeftCorner(ny, ny).setIdentity();
  m.index.assign(m.n, 1);
  for (int i = ny; i < m.n; ++i) m.index[i] = dae.algebraic_index;
  auto f = dae.f;
  auto g = dae.g;
  m.f = [f, g, ny, nz](double t, VecIn x, VecOut out) {
    if (ny > 0) f(t, x.head(ny), x.tail(nz), out.head(ny));
    if (nz > 0) g(t, x.head(ny), x.tail(nz), out.tail(nz));
  };
  if (dae.algebraic_index == 2 && nz > 0 && ny > 0) {
    m.project = [f, g, ny, nz](double t, VecOut x, Projection) {
      return project_index2(f, g, ny, nz, t, x);
    };
  }
  return m;
}

}  // namespace daekit
