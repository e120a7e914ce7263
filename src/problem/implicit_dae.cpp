#include "daekit/problem/implicit_dae.hpp"

namespace daekit {

void ImplicitDae::validate() const {
  const std::string who = "problem '" + name + "': ";
  if (n <= 0) throw InvalidArgument(who + "n must be positive, got " + std::to_string(n));
  if (!F) throw InvalidArgument(who + "the residual F is not set");
  if (!differential.empty() && static_cast<int>(differential.size()) != n)
    throw InvalidArgument(who + "differential tags have size " +
                          std::to_string(differential.size()) + ", expected n = " +
                          std::to_string(n));
}

ImplicitDae to_implicit_form(const MassMatrixDae& dae) {
  dae.validate();
  ImplicitDae d;
  d.n = dae.n;
  d.name = dae.name;
  const Matrix M = dae.has_identity_mass() ? Matrix::Identity(dae.n, dae.n) : dae.mass;
  auto f = dae.f;
  d.F = [f, M](double t, VecIn y, VecIn yp, VecOut out) {
    f(t, y, out);
    out = M * yp - out;
  };
  if (dae.jacobian) {
    auto jac = dae.jacobian;
    d.dF_dy = [jac](double t, VecIn y, VecIn, MatOut out) {
      out.setZero();
      jac(t, y, out);
      out = -out;
    };
  }
  d.dF_dyp = [M](double, VecIn, VecIn, MatOut out) { out = M; };
  d.differential.assign(dae.n, true);
  for (int j = 0; j < dae.n; ++j)
    if (M.col(j).cwiseAbs().maxCoeff() == 0.0) d.differential[j] = false;
  return d;
}

}  // namespace daekit
