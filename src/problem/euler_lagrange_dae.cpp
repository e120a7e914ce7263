#include "daekit/problem/euler_lagrange_dae.hpp"

namespace daekit {

void EulerLagrangeDae::validate() const {
  auto who = [this] { return std::string("Euler-Lagrange problem '") + name + "': "; };
  if (nx <= 0) throw InvalidArgument(who() + "nx must be positive");
  if (nlambda < 0 || nlambda > nx)
    throw InvalidArgument(who() + "nlambda must lie in [0, nx], got " + std::to_string(nlambda));
  if (!f) throw InvalidArgument(who() + "f is not set");
  if (nlambda > 0 && !g) throw InvalidArgument(who() + "the constraint g is not set");
  if (nlambda > 0 && !G && !B)
    throw InvalidArgument(who() +
                          "neither G = dg/dx nor B is set: the multiplier term B^T lambda (B = G "
                          "by default) is part of the equations and must be given analytically");
  if (!component_names.empty() && static_cast<int>(component_names.size()) != n())
    throw InvalidArgument(
        who() + "component_names must have nx + nlambda = " + std::to_string(n()) + " entries");
  if (!p.allFinite()) throw InvalidArgument(who() + "the parameters p contain NaN or Inf");
}

}  // namespace daekit
