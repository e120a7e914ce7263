#include "daekit/problems/registry.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <utility>

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
