#include "daekit/core/dense_output.hpp"

namespace daekit {

void DenseSegment::evaluate(double t, VecOut out) const {
  const double h = t_right - t_left;
  const double theta = h != 0.0 ? (t - t_right) / h : 0.0;
  const int m = static_cast<int>(coeffs.cols()) - 1;
  out = coeffs.col(m);
  for (int k = m - 1; k >= 0; --k) out = coeffs.col(k) + (theta - nodes[k]) * out;
  if (correction.size() != 0) out += (theta + 1.0) * correction;
}

Vector DenseSegment::evaluate(double t) const {
  Vector out(coeffs.rows());
  evaluate(t, out);
  return out;
}

}  // namespace daekit
