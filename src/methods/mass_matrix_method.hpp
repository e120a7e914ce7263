// MassMatrixMethod: the part of a one-step method on M y' = f (radau, radau5, dirk,
// projected-rk) that does not depend on the scheme: the problem as a MassMatrixSystem (guarded,
// counted callbacks, the Jacobian source, M's structure), its parameters, the constraint
// monitor and projector a formulation brings, and the consistency and Jacobian checks before
// the first step. Internal header.
#pragma once

#include <string>

#include "methods/method.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

/// y'_i = f_i / m_ii on the differential components of M y' = f (m_ii != 0) for an identity or
/// diagonal M, from f at the point; the algebraic components of `out` are left as they are.
/// False for a structured M (no y' without solving). Method::derivative_at's helper.
inline bool differential_derivative(const MassOperator& M, const Vector& f, VecOut out) {
  if (M.kind() == MassOperator::Kind::Structured) return false;
  if (M.is_identity()) {
    out = f;
    return true;
  }
  for (Eigen::Index i = 0; i < f.size(); ++i)
    if (M.diagonal()[i] != 0.0) out[i] = f[i] / M.diagonal()[i];
  return true;
}

class MassMatrixMethod : public Method {
 public:
  MassMatrixMethod(const MassMatrixDae& dae, LinearSolverKind solver, CallGuard& guard,
                   Stats& stats)
      : sys_(dae, solver, guard, stats) {}

  Vector& parameters() override { return sys_.p(); }
  bool has_monitor() const override { return sys_.has_monitor(); }
  bool monitor(double t, const Vector& y, ConstraintResiduals& out) override {
    return sys_.monitor(t, y, out);
  }
  bool has_projector() const override { return sys_.has_projector(); }
  bool project(double t, VecOut y, Projection level) override { return sys_.project(t, y, level); }
  std::string check_consistency(double t0, const Vector& y0, double tol) override {
    return daekit::check_consistency(sys_, t0, y0, tol);
  }
  JacobianCheck check_jacobian(double t0, const Vector& y0) override {
    return daekit::check_jacobian(sys_, t0, y0);
  }
  /// The differential part of y' = M^{-1} f at (t, y) for diagonal M, for the starting-step
  /// estimate.
  bool derivative_at(double t, const Vector& y, VecOut out) override {
    if (sys_.mass().kind() == MassOperator::Kind::Structured) return false;
    probe_f_.resize(y.size());
    if (!sys_.f(t, y, probe_f_)) return false;
    return differential_derivative(sys_.mass(), probe_f_, out);
  }

 protected:
  /// Colours of the Jacobian by differences (0 with an analytic Jacobian).
  int differenced_jacobian_colours() const {
    return sys_.dae().jacobian || sys_.dae().sparse_jacobian ? 0 : sys_.jacobian_colours();
  }

  MassMatrixSystem sys_;
  Vector probe_f_;  ///< f at the point of derivative_at()
};

}  // namespace daekit
