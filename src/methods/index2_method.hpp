// Index2Method: the part of a method over Index2System (paper 002's (a(t, y))' = f(t, y, z),
// 0 = g(t, y); spark and hem) that does not depend on the scheme: the problem, the dense segment
// of the last step, the monitor of the constraints, the consistency and Jacobian checks, and
// the restart at an event (consistent (y, z) for the hidden constraint, then the method's own
// set_point()). Internal header.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "methods/method.hpp"
#include "nonlinear/index2_system.hpp"

namespace daekit {

class Index2Method : public Method {
 public:
  explicit Index2Method(std::unique_ptr<Index2System> sys) : sys_(std::move(sys)) {}

  void dense(double t, VecOut out) const override { seg_.evaluate(t, out); }
  DenseSegment segment() const override { return seg_; }
  Vector& parameters() override { return sys_->p(); }
  bool has_monitor() const override { return true; }
  bool monitor(double t, const Vector& x, ConstraintResiduals& out) override {
    return sys_->monitor(t, x, out);
  }
  std::string check_consistency(double t0, const Vector& x0, double tol) override {
    if (!sys_->check_index(t0, x0).empty()) return "";  // start() reports it (InvalidInput)
    // the hidden constraint is evaluated with the Jacobians: wrong analytic ones are reported
    // by check_jacobian(), not as inconsistent values
    if (!sys_->check_jacobian(t0, x0).ok) return "";
    return sys_->check_consistency(t0, x0, tol);
  }
  JacobianCheck check_jacobian(double t0, const Vector& x0) override {
    return sys_->check_jacobian(t0, x0);
  }
  int jacobian_colours() const override {
    return sys_->has_analytic_jacobians() ? 0 : sys_->size();
  }
  bool restart(double t, const Vector& x, std::string& message) override {
    forget_history();
    Vector y, z;
    sys_->split(x, y, z);
    if (!sys_->consistent_state(t, y, z, message)) return false;
    Vector xx;
    sys_->join(y, z, xx);
    h_last_ = 0.0;
    jac_valid_ = false;
    if (!set_point(t, xx, true)) {
      message = "evaluation failed at the restart point: " + sys_->guard().failure().describe();
      return false;
    }
    return true;
  }

 protected:
  /// Makes (t, x) the point the next step starts from; `fresh`: a new start (Jacobians and
  /// derivatives anew) rather than the end of an accepted step. False if an evaluation failed.
  virtual bool set_point(double t, const Vector& x, bool fresh) = 0;
  /// Forgets what the method keeps from earlier steps (restart()).
  virtual void forget_history() {}

  std::unique_ptr<Index2System> sys_;
  DenseSegment seg_;  ///< the last accepted step's interpolant
  double h_last_ = 0.0;
  bool jac_valid_ = false;
};

}  // namespace daekit
