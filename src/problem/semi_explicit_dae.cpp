#include "daekit/problem/semi_explicit_dae.hpp"

namespace daekit {

void SemiExplicitDae::validate() const {
  // the message prefix is built only when something is wrong (validate runs at every solve)
  auto who = [this] { return std::string("problem '") + name + "': "; };
  if (ny < 0 || nz < 0 || ny + nz == 0)
    throw InvalidArgument(who() + "need ny >= 0, nz >= 0 and ny + nz > 0");
  if (!f && ny > 0) throw InvalidArgument(who() + "f is not set");
  if (!g && nz > 0) throw InvalidArgument(who() + "g is not set");
  if (algebraic_index != 1 && algebraic_index != 2)
    throw InvalidArgument(who() + "algebraic_index must be 1 or 2");
  if (!p.allFinite()) throw InvalidArgument(who() + "the parameters p contain NaN or Inf");
}

}  // namespace daekit
