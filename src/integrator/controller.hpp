// Step-size controllers of the integrator (methods without their own step logic), one
// interface (propose after an accepted or rejected step, reset after a restart):
//   Classical (Hairer-Wanner II, IV.8, eq. (8.21)):
//       h_new = h / q,  q = clamp(err^(1/k) / fac, 1/max_increase, max_decrease);
//   Gustafsson (1994), predictive, RADAU5's default: after an accepted step additionally
//       q_pred = (h_acc / h) (err^2 / err_acc)^(1/k) / safety,  q = max(q, q_pred);
//   PI (Gustafsson-Lundh-Soderlind 1988; Hairer-Wanner I, II.4): after an accepted step
//       q = err^(0.7/k) err_acc^(-0.4/k) / fac (clamped), classical after a rejection;
// k is the method's error exponent (read at every call), fac = safety * (the method's
// Newton-effort factor), h_acc, err_acc the previous accepted step and its error
// (err_acc >= 1e-2). Internal header (not installed).
#pragma once

#include <memory>

#include "daekit/integrator/options.hpp"

namespace daekit {

class StepController {
 public:
  virtual ~StepController() = default;
  /// Proposal for the next step after a step of size h with scaled error err.
  virtual double propose(double h, double err, int k, double safety_scale, bool accepted) = 0;
  virtual void reset() = 0;
};

std::unique_ptr<StepController> make_controller(const Options& options);

}  // namespace daekit
