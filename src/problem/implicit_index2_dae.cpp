#include "daekit/problem/implicit_index2_dae.hpp"

namespace daekit {

void ImplicitIndex2Dae::validate() const {
  // the message prefix is built only when something is wrong (validate runs at every solve)
  auto who = [this] { return std::string("problem '") + name + "': "; };
  if (n <= 0 || m <= 0)
    throw InvalidArgument(who() + "need n > 0 and m > 0 (index 2: m constraints)");
  if (m > n) throw InvalidArgument(who() + "more constraints (m) than differential components (n)");
  if (!g) throw InvalidArgument(who() + "the constraint g is not set");
  if (parts().empty()) throw InvalidArgument(who() + "no part f_1 .. f_5 of f is set");
  if (!has_part(1) && !has_part(2) && !has_part(3) && !has_part(4))
    throw InvalidArgument(who() +
                          "only f_1 is set, but f_1 must not depend on z: put the terms with z in "
                          "f_2 .. f_5");
  if (f_z[0]) throw InvalidArgument(who() + "f_z[0] is set, but f_1 must not depend on z (2.4b)");
  for (int k = 0; k < kParts; ++k)
    if ((f_y[static_cast<size_t>(k)] || f_z[static_cast<size_t>(k)]) && !has_part(k))
      throw InvalidArgument(who() + "a Jacobian of f_" + std::to_string(k + 1) + " is set but f_" +
                            std::to_string(k + 1) + " is not");
  if (a_y && !a) throw InvalidArgument(who() + "a_y is set but a is not (a(t, y) = y)");
  if (!component_names.empty() && static_cast<int>(component_names.size()) != n + m)
    throw InvalidArgument(who() + "component_names must have n + m = " + std::to_string(n + m) +
                          " entries");
  if (!p.allFinite()) throw InvalidArgument(who() + "the parameters p contain NaN or Inf");
}

std::vector<int> ImplicitIndex2Dae::parts() const {
  std::vector<int> k;
  for (int i = 0; i < kParts; ++i)
    if (has_part(i)) k.push_back(i);
  return k;
}

}  // namespace daekit
