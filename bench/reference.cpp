#include "reference.hpp"

#include <cmath>

namespace daekit::bench {

Vector pendulum_reference(double t_end) {
  auto rhs = [](double phi, double omega, double& dphi, double& domega) {
    dphi = omega;
    domega = -std::sin(phi);
  };
  const int steps = static_cast<int>(std::ceil(std::abs(t_end) / 2.5e-5));
  const double h = t_end / steps;
  double phi = M_PI / 2, omega = 0.0;
  for (int i = 0; i < steps; ++i) {
    double k1p, k1o, k2p, k2o, k3p, k3o, k4p, k4o;
    rhs(phi, omega, k1p, k1o);
    rhs(phi + 0.5 * h * k1p, omega + 0.5 * h * k1o, k2p, k2o);
    rhs(phi + 0.5 * h * k2p, omega + 0.5 * h * k2o, k3p, k3o);
    rhs(phi + h * k3p, omega + h * k3o, k4p, k4o);
    phi += h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
    omega += h / 6 * (k1o + 2 * k2o + 2 * k3o + k4o);
  }
  Vector y(5);
  y << std::sin(phi), -std::cos(phi), std::cos(phi) * omega, std::sin(phi) * omega,
      0.5 * (omega * omega + std::cos(phi));
  return y;
}

}  // namespace daekit::bench
