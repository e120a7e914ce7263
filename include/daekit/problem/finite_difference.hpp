// Forward-difference Jacobians, with the increment of RADAU5 / DASSL:
//   delta_j = sqrt(eps * max(1e-5, |y_j|)),  J(:, j) = (f(y + delta_j e_j) - f(y)) / delta_j.
#pragma once

#include <functional>

#include "daekit/core/types.hpp"

namespace daekit {

/// J = df/dy by forward differences around (t, y) where f0 = f(t, y) is known. `y_work` and
/// `f_work` are scratch vectors of size n (no allocation). Returns the number of f evaluations.
int forward_difference_jacobian(const std::function<void(double, VecIn, VecOut)>& f, double t,
                                const Vector& y, const Vector& f0, Matrix& J, Vector& y_work,
                                Vector& f_work);

}  // namespace daekit
