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
    const bool predictive = accepted && have_previous_ && kind_ == Controller::Gustafsson;
    double q = 0.0;
    if (predictive) {
      q = gustafsson(h, err, k, fac);
    } else {
      q = clamp(std::pow(err, inv_k) / fac);
    }
    if (accepted) {
      if (have_previous_) {
        if (kind_ == Controller::PI) {
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
  // RADAU5's choice max(q, q_pred) (Hairer-Wanner II, IV.8 (8.21)) with
  //   q = clamp(err^(1/k) / fac),  q_pred = clamp((h_acc / h) (err^2 / err_acc)^(1/k) / safety);
  // for k = 4 the larger one is told by fourth roots through two square roots (within 2 ulps
  // of pow's values, decided with a margin of 1e-9) and only it is computed with pow: one
  // call instead of two, the same result to the bit (clamp is monotone).
  double gustafsson(double h, double err, int k, double fac) const {
    const double inv_k = 1.0 / k;
    const double ratio = err * err / err_acc_;
    const auto q_exact = [&] { return clamp(std::pow(err, inv_k) / fac); };
    const auto q_pred_exact = [&] {
      return clamp((h_acc_ / h) * std::pow(ratio, inv_k) / safety_);
    };
    if (k == 4) {
      const double a = std::sqrt(std::sqrt(err)) / fac;
      const double b = (h_acc_ / h) * std::sqrt(std::sqrt(ratio)) / safety_;
      if (a > b * (1.0 + 1e-9)) return q_exact();
      if (b > a * (1.0 + 1e-9)) return q_pred_exact();
    }
    return std::max(q_exact(), q_pred_exact());
  }

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
