#include "daekit/problem/finite_difference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace daekit {

int forward_difference_jacobian(const std::function<void(double, VecIn, VecOut)>& f, double t,
                                const Vector& y, const Vector& f0, Matrix& J, Vector& y_work,
                                Vector& f_work) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  const int n = static_cast<int>(y.size());
  y_work = y;
  for (int j = 0; j < n; ++j) {
    const double delta = std::sqrt(eps * std::max(1e-5, std::abs(y[j])));
    y_work[j] = y[j] + delta;
    f(t, y_work, f_work);
    J.col(j) = (f_work - f0) / delta;
    y_work[j] = y[j];
  }
  return n;
}

}  // namespace daekit
