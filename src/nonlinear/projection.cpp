#include "daekit/nonlinear/projection.hpp"

#include <cmath>
#include <limits>
#include <memory>

#include "daekit/nonlinear/formulations.hpp"
#include "nonlinear/finite_difference.hpp"

namespace daekit {

bool coordinate_projection(const ManifoldEquations& eq, double t, VecOut y, double tol) {
  const int n = static_cast<int>(y.size()), k = eq.k;
  if (k == 0) return true;
  Vector c(k), c1(k), yy = y;
  Matrix C(k, n);
  eq.c(t, y, c);
  if (eq.jacobian) {
    C.setZero();
    eq.jacobian(t, y, C);
  } else {
    for (int j = 0; j < n; ++j) {
      const double delta = FiniteDifferenceJacobian::increment(y[j], 0.0);
      yy[j] = y[j] + delta;
      eq.c(t, yy, c1);
      C.col(j) = (c1 - c) / delta;
      yy[j] = y[j];
    }
  }
  Eigen::LDLT<Matrix> ldlt(C * C.transpose());
  if (ldlt.info() != Eigen::Success) return false;
  const double limit = tol > 0 ? tol : 1e-12 * (1.0 + y.cwiseAbs().maxCoeff());
  for (int it = 0; it < 20; ++it) {
    if (!c.allFinite()) return false;
    if (c.cwiseAbs().maxCoeff() <= limit) return true;
    y -= C.transpose() * ldlt.solve(c);
    eq.c(t, y, c);
  }
  return c.allFinite() && c.cwiseAbs().maxCoeff() <= limit;
}

MassMatrixDae::Projector coordinate_projector(ManifoldEquations eq) {
  return [eq = std::move(eq)](double t, VecOut y, Projection) {
    return coordinate_projection(eq, t, y);
  };
}

ManifoldEquations mechanical_constraints(const MechanicalSystem& sys, Formulation form) {
  const MechanicalLayout L = mechanical_layout(sys, form);
  ManifoldEquations eq;
  eq.k = 2 * L.m;
  eq.c = [sys, L](double t, VecIn y, VecOut c) {
    auto q = y.segment(L.q, L.nq);
    auto v = y.segment(L.v, L.nq);
    sys.g(t, q, c.head(L.m), sys.p);
    Matrix G(L.m, L.nq);
    constraint_jacobian(sys, t, q, G, sys.p);
    c.tail(L.m) = G * v;
    if (sys.rheonomic) {  // G v + g_t = 0
      Vector gt(L.m);
      constraint_time_derivative(sys, t, q, gt, sys.p);
      c.tail(L.m) += gt;
    }
  };
  return eq;
}

ManifoldEquations invariants(int k, std::function<void(VecIn y, VecOut phi)> phi,
                             const Vector& y0) {
  Vector phi0(k);
  phi(y0, phi0);
  ManifoldEquations eq;
  eq.k = k;
  eq.c = [phi = std::move(phi), phi0](double, VecIn y, VecOut c) {
    phi(y, c);
    c -= phi0;
  };
  return eq;
}

}  // namespace daekit
