// Dense output as a polynomial in Newton form over one step [t_left, t_right]:
//   p(theta) = d_0 + (theta - x_0)(d_1 + (theta - x_1)(d_2 + ... (theta - x_{m-1}) d_m)),
//   theta = (t - t_right) / h,  h = t_right - t_left,
// which every method here can produce (a collocation polynomial for Radau IIA, an
// interpolation polynomial through back values for BDF). Evaluation allocates nothing.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "daekit/core/types.hpp"

namespace daekit {

struct DenseSegment {
  double t_left = 0.0;
  double t_right = 0.0;
  std::vector<double> nodes;  ///< x_0 .. x_{m-1} in theta units
  Matrix coeffs;              ///< n x (m + 1): column k holds d_k
  /// Optional linear correction (theta + 1) c, zero at t_left: the change a post-step
  /// projection made to the end value, so that the output is continuous (empty: none).
  Vector correction;
  /// End of the part of [t_left, t_right] that belongs to the solution: an event that stopped
  /// or restarted the integration inside the step ends it there (NaN: t_right).
  double t_stop = std::numeric_limits<double>::quiet_NaN();
  double valid_end() const { return std::isnan(t_stop) ? t_right : t_stop; }

  /// p at time t (meant for t in [t_left, t_right]; extrapolates outside).
  void evaluate(double t, VecOut out) const;
  Vector evaluate(double t) const;
};

}  // namespace daekit
