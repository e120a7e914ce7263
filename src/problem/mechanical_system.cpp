#include "daekit/problem/mechanical_system.hpp"

namespace daekit {

void MechanicalSystem::validate() const {
  // the message prefix is built only when something is wrong (validate runs at every solve)
  auto who = [this] { return std::string("mechanical system '") + name + "': "; };
  if (nq <= 0) throw InvalidArgument(who() + "nq must be positive");
  if (nlambda < 0 || nlambda > nq)
    throw InvalidArgument(who() + "nlambda must lie in [0, nq], got " + std::to_string(nlambda));
  if (!mass) throw InvalidArgument(who() + "mass matrix function not set");
  if (!force) throw InvalidArgument(who() + "force function not set");
  if (nlambda > 0 && !g) throw InvalidArgument(who() + "constraint function g not set");
  if (!p.allFinite()) throw InvalidArgument(who() + "the parameters p contain NaN or Inf");
}

const char* to_string(Formulation f) {
  switch (f) {
    case Formulation::Index3:
      return "index3";
    case Formulation::Index2:
      return "index2";
    case Formulation::Index1:
      return "index1";
    case Formulation::GGL:
      return "ggl";
  }
  return "unknown";
}

Formulation parse_formulation(const std::string& name) {
  for (Formulation f :
       {Formulation::Index3, Formulation::Index2, Formulation::Index1, Formulation::GGL})
    if (name == to_string(f)) return f;
  throw InvalidArgument("unknown formulation '" + name + "'; choose index3, index2, index1 or ggl");
}

MechanicalLayout mechanical_layout(const MechanicalSystem& sys, Formulation form) {
  MechanicalLayout l;
  l.nq = sys.nq;
  l.m = sys.nlambda;
  l.q = 0;
  l.v = sys.nq;
  l.w = sys.constant_mass ? -1 : 2 * sys.nq;
  l.lambda = (sys.constant_mass ? 2 : 3) * sys.nq;
  l.mu = form == Formulation::GGL ? l.lambda + l.m : -1;
  l.n = l.lambda + l.m + (form == Formulation::GGL ? l.m : 0);
  return l;
}

}  // namespace daekit
