#include "daekit/nonlinear/projection.hpp"

#include <cmath>
#include <limits>
#include <memory>

#include "daekit/nonlinear/formulations.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

namespace {
// Storage of one coordinate projection, sized at the first call: the projector of a solve keeps
// it, so that the projection after every step allocates nothing.
struct CoordinateProjectionStorage {
  Vector c, c1, yy, w;
  Matrix C, CCt;
  // computed on I from the start: Eigen's LDLT leaves its info field unset until compute(), and
  // copying or moving the storage read it (UBSan: invalid ComputationInfo)
  Eigen::LDLT<Matrix> ldlt{Matrix::Identity(1, 1)};
  void resize(int k, int n) {
    if (c.size() == k && yy.size() == n) return;
    c.resize(k);
    c1.resize(k);
    w.resize(k);
    yy.resize(n);
    C.resize(k, n);
    CCt.resize(k, k);
    ldlt.compute(Matrix::Identity(k, k));  // sizes its storage
  }
};

bool project(const ManifoldEquations& eq, double t, VecOut y, double tol,
             CoordinateProjectionStorage& ws) {
  const int n = static_cast<int>(y.size()), k = eq.k;
  if (k == 0) return true;
  ws.resize(k, n);
  eq.c(t, y, ws.c);
  if (eq.jacobian) {
    ws.C.setZero();
    eq.jacobian(t, y, ws.C);
  } else {
    FiniteDifferenceJacobian::evaluate_dense([&](const Vector& x, Vector& out) { eq.c(t, x, out); },
                                             y, ws.c, nullptr, ws.yy, ws.c1, ws.C);
  }
  ws.CCt.noalias() = ws.C * ws.C.transpose();
  ws.ldlt.compute(ws.CCt);
  if (ws.ldlt.info() != Eigen::Success) return false;
  const double limit = tol > 0 ? tol : 1e-12 * (1.0 + y.cwiseAbs().maxCoeff());
  // simplified Newton with C frozen, the residual |c|_max tested at the start and after each
  // of at most 20 iterations
  NewtonMonitor newton(NewtonMonitor::without_rate(21, limit));
  newton.begin(0.0);
  for (;;) {
    const double residual =
        ws.c.allFinite() ? ws.c.cwiseAbs().maxCoeff() : std::numeric_limits<double>::quiet_NaN();
    const NewtonMonitor::Verdict v = newton.next(residual);
    if (v == NewtonMonitor::Verdict::Converged) return true;
    if (v != NewtonMonitor::Verdict::Continue) return false;
    ws.w = ws.ldlt.solve(ws.c);
    y.noalias() -= ws.C.transpose() * ws.w;
    eq.c(t, y, ws.c);
  }
}
}  // namespace

bool coordinate_projection(const ManifoldEquations& eq, double t, VecOut y, double tol) {
  CoordinateProjectionStorage ws;
  return project(eq, t, y, tol, ws);
}

MassMatrixDae::Projector coordinate_projector(ManifoldEquations eq) {
  return [eq = std::move(eq), ws = CoordinateProjectionStorage()](
             double t, VecOut y, Projection) mutable { return project(eq, t, y, 0.0, ws); };
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
