// Reference solutions computed independently of the DAE machinery, for problems without a
// published one.
#pragma once

#include "daekit/core/types.hpp"

namespace daekit::bench {

/// The pendulum (4.1) of paper 000 from its underlying ODE in the angle phi (u1 = sin phi,
/// u2 = -cos phi, phi'' = -sin phi, phi(0) = pi/2, phi'(0) = 0), integrated with the classical
/// RK4 at h = 2.5e-5 (error ~ 1e-15): returns (u1, u2, v1, v2, lambda) at t, with
/// lambda = (phi'^2 + cos phi) / 2 from the radial force balance.
Vector pendulum_reference(double t);

}  // namespace daekit::bench
