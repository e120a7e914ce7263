#include "integrator/controller.hpp"

#include <algorithm>
#include <cmath>

namespace daekit {

namespace {

class ErrorController : public StepController {
 public:
  explicit ErrorController(const Options& o)
      : kind_(o.controller),
        safety_(o.safety),
        max_increase_(o.max_increase),
        max_decrease_(o.max_decrease) {}

  double propose(double h, double err, int k, double safety_scale, bool accepted) override {
    const double inv_k = 1.0 / k;
    const double fac = std::min(safety_, safety_ * safety_scale);
    double q = clamp(std::pow(err, inv_k) / fac);
    if (accepted) {
      if (have_previous_) {
        if (kind_ == Controller::Gustafsson) {
          const double q_pred = clamp((h_acc_ / h) * std::pow(err * err / err_acc_, inv_k) / safety_);
          q = std::max(q, q_pred);
        } else if (kind_ == Controller::PI) {
          q = clamp(std::pow(err, 0.7 * inv_k) * std::pow(err_acc_, -0.4 * inv_k) / fac);
        }
      }
      have_previous_ = true;
      h_acc_ = h;
      err_acc_ = std::max(1e-2, err);
    }
    return h / q;
  }

  void reset() override { have_previous_ = false; }

 private:
  double clamp(double q) const { return std::max(1.0 / max_increase_, std::min(max_decrease_, q)); }
  Controller kind_;
  double safety_, max_increase_, max_decrease_;
  bool have_previous_ = false;
  double h_acc_ = 0.0, err_acc_ = 0.0;
};

}  // namespace

std::unique_ptr<StepController> make_controller(const Options& options) {
  return std::make_unique<ErrorController>(options);
}

}  // namespace daekit
