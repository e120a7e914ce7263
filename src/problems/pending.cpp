// TEMPORARY: replaced by andrews.cpp, transistor_amplifier.cpp, truck_suspension.cpp.
#include "daekit/problems/registry.hpp"
namespace daekit {
BuiltinProblem andrews() { throw InvalidArgument("andrews: not yet available"); }
BuiltinProblem transistor_amplifier() { throw InvalidArgument("transistor: not yet available"); }
BuiltinProblem truck_suspension() { throw InvalidArgument("truck: not yet available"); }
}  // namespace daekit
