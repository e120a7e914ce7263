#include "daekit/integrator/step_controller.hpp"

#include <algorithm>
#include <cmath>

namespace daekit {

double StepController::clamp_quotient(double q) const {
  return std::max(1.0 / max_increase_, std::min(max_decrease_, q));
}

double StepController::propose(double h, double err, int k, double safety_scale, bool accepted) {
  const double inv_k = 1.0 / k;
  const double fac = std::min(safety_, safety_ * safety_scale);
  double q = clamp_quotient(std::pow(err, inv_k) / fac);
  if (accepted) {
    if (predictive_ && have_previous_) {
      const double q_pred =
          clamp_quotient((h_acc_ / h) * std::pow(err * err / err_acc_, inv_k) / safety_);
      q = std::max(q, q_pred);
    }
    have_previous_ = true;
    h_acc_ = h;
    err_acc_ = std::max(1e-2, err);
  }
  return h / q;
}

}  // namespace daekit
