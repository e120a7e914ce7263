// An index-2 DAE on the unit sphere with a hyperbolic limit cycle (problems/index2.hpp), for
// the invariant-manifold and invariant-curve results of paper 001.
#include <cmath>

#include "daekit/problems/index2.hpp"

namespace daekit {

namespace {

constexpr double kLatitude = 0.5;

Eigen::Vector3d field(VecIn u) {
  const double u1 = u[0], u2 = u[1], u3 = u[2];
  const double rho = 1.0 + u1 + 2.0 * u3;
  const Eigen::Vector3d x(u1, u2, u3);
  const Eigen::Vector3d meridian = Eigen::Vector3d::UnitZ() - u3 * x;
  return Eigen::Vector3d(-u2, u1, 0.0) - (u3 - kLatitude) * meridian + rho * x;
}

}  // namespace

SemiExplicitDae sphere_limit_cycle(bool embedded) {
  SemiExplicitDae d;
  d.name = embedded ? "sphere limit cycle (embedding (3.1), B = I)" : "sphere limit cycle";
  d.ny = embedded ? 4 : 3;
  d.nz = 1;
  d.algebraic_index = 2;
  d.f = [embedded](double, VecIn y, VecIn z, VecOut out) {
    out.head(3) = field(y.head(3)) - z[0] * y.head(3);
    if (embedded) out[3] = -y[3];
  };
  d.g = [embedded](double, VecIn y, VecIn, VecOut g) {
    g[0] = 0.5 * (y.head(3).squaredNorm() - 1.0) - (embedded ? y[3] : 0.0);
  };
  return d;
}

double sphere_limit_cycle_lambda(VecIn u, double v) {
  return (u.head(3).dot(field(u.head(3))) + v) / u.head(3).squaredNorm();
}

double sphere_limit_cycle_distance(VecIn u) {
  const double r = std::sqrt(1.0 - kLatitude * kLatitude);
  return std::hypot(std::hypot(u[0], u[1]) - r, u[2] - kLatitude);
}

}  // namespace daekit
