// TEMPORARY: replaced by akzo_nobel.cpp and robertson_dae.cpp.
#include "daekit/problems/registry.hpp"
namespace daekit {
BuiltinProblem akzo_nobel() { throw InvalidArgument("akzo: not yet available"); }
BuiltinProblem robertson_dae() { throw InvalidArgument("robertson-dae: not yet available"); }
}  // namespace daekit
