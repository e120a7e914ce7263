#include "daekit/problem/semi_explicit_dae.hpp"

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
  return m;
}

}  // namespace daekit
