#include "daekit/methods/stepper.hpp"

#include <cmath>
#include <limits>

namespace daekit {

void Stepper::dense_derivative(double t, VecOut out) const {
  const double h = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(t));
  Vector a(out.size()), b(out.size());
  dense(t + h, a);
  dense(t - h, b);
  out = (a - b) / (2 * h);
}

}  // namespace daekit
