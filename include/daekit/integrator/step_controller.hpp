// Step-size controllers (Hairer-Wanner II, IV.8, eq. (8.21) and Gustafsson 1994):
//   classical:   h_new = h / q,  q = clamp(err^(1/k) / fac, 1/max_increase, max_decrease)
//   predictive:  after an accepted step, additionally
//                q_pred = (h_acc / h) (err^2 / err_acc)^(1/k) / safety, and q = max(q, q_pred),
// where k is the method's error exponent, fac = safety * (the method's Newton-effort factor),
// h_acc, err_acc the previous accepted step and its error (err_acc >= 1e-2).
#pragma once

namespace daekit {

class StepController {
 public:
  StepController(double safety, double max_increase, double max_decrease, bool predictive)
      : safety_(safety),
        max_increase_(max_increase),
        max_decrease_(max_decrease),
        predictive_(predictive) {}

  /// Proposal for the next step after a step of size h with scaled error err.
  double propose(double h, double err, int k, double safety_scale, bool accepted);
  void reset() { have_previous_ = false; }

 private:
  double clamp_quotient(double q) const;
  double safety_, max_increase_, max_decrease_;
  bool predictive_;
  bool have_previous_ = false;
  double h_acc_ = 0.0, err_acc_ = 0.0;
};

}  // namespace daekit
