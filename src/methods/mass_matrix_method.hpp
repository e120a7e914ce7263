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

 protected:
  /// Colours of the Jacobian by differences (0 with an analytic Jacobian).
  int differenced_jacobian_colours() const {
    return sys_.dae().jacobian || sys_.dae().sparse_jacobian ? 0 : sys_.jacobian_colours();
  }

  MassMatrixSystem sys_;
};

}  // namespace daekit
