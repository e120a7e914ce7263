#include "daekit/problems/registry.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "daekit/problems/index2.hpp"

namespace daekit {

namespace {
const std::vector<std::pair<std::string, std::function<BuiltinProblem()>>>& table() {
  static const std::vector<std::pair<std::string, std::function<BuiltinProblem()>>> t = {
      {"pendulum", pendulum_index3},
      {"pendulum-index2", pendulum_index2},
      {"pendulum-index1", pendulum_index1},
      {"pendulum-long", pendulum_long},
      {"vanderpol", van_der_pol},
      {"robertson", robertson},
      {"robertson-dae", robertson_dae},
      {"akzo", akzo_nobel},
      {"pi-valve", pi_valve},
      {"index3-chain", index3_chain},
      {"andrews", andrews},
      {"transistor", transistor_amplifier},
      {"truck", truck_suspension},
      {"moon", [] { return moon_flight(); }},
      {"heat2d", [] { return heat2d(10); }},
      {"circuit-chain", [] { return circuit_chain(40); }},
      {"food-web", [] { return food_web(20); }},
      {"el-manufactured", euler_lagrange_manufactured},
      {"pendulum-el", pendulum_euler_lagrange},
      {"andrews-el", andrews_euler_lagrange},
      {"truck-el", truck_euler_lagrange},
      {"jay-index2", jay_index2_builtin},
      {"knife-edge", knife_edge_builtin},
  };
  return t;
}
}  // namespace

std::vector<std::string> builtin_problem_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : table()) names.push_back(name);
  return names;
}

BuiltinProblem make_builtin_problem(const std::string& name) {
  for (const auto& [n, make] : table())
    if (n == name) return make();
  std::string list;
  for (const auto& [n, make] : table()) list += (list.empty() ? "" : ", ") + n;
  throw InvalidArgument("unknown problem '" + name + "'; built-in problems: " + list);
}

BuiltinProblem with_parameters(BuiltinProblem problem, const Vector& params) {
  if (params.size() != problem.dae.p.size()) {
    std::string names;
    for (const auto& n : problem.parameter_names) names += (names.empty() ? "" : ", ") + n;
    throw InvalidArgument("problem '" + problem.name + "' has " +
                          std::to_string(problem.dae.p.size()) + " parameter(s)" +
                          (names.empty() ? std::string() : " (" + names + ")") + ", got " +
                          std::to_string(params.size()));
  }
  if (!params.allFinite())
    throw InvalidArgument("parameters of problem '" + problem.name + "' must be finite");
  problem.dae.p = params;
  if (problem.mechanical && problem.mechanical->p.size() == params.size()) {
    MechanicalSystem& sys = *problem.mechanical;
    sys.p = params;
    const MechanicalLayout layout = mechanical_layout(sys, Formulation::Index3);
    if (problem.dae.n == layout.n) {
      const Vector q0 = problem.y0.segment(layout.q, sys.nq);
      const Vector v0 = problem.y0.segment(layout.v, sys.nq);
      problem.y0 = initial_values(sys, Formulation::Index3, problem.t0, q0, v0);
    }
  }
  return problem;
}

double scd(const Vector& y, const Vector& ref, const std::vector<int>& components) {
  if (y.size() != ref.size()) throw InvalidArgument("scd: solution and reference sizes differ");
  double worst = 0.0;
  auto visit = [&](int i) {
    const double e = std::abs(y[i] - ref[i]);
    worst = std::max(worst, ref[i] != 0.0 ? e / std::abs(ref[i]) : e);
  };
  if (components.empty())
    for (int i = 0; i < y.size(); ++i) visit(i);
  else
    for (int i : components) visit(i);
  if (!std::isfinite(worst)) return -std::numeric_limits<double>::infinity();
  return worst > 0.0 ? -std::log10(worst) : 16.0;
}

}  // namespace daekit
