#include "daekit/problems/registry.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "daekit/methods/beta_multistep.hpp"
#include "daekit/methods/registry.hpp"
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
      // issue 14, parts 1 and 4 (docs/applications.md)
      {"varactor-circuit", varactor_circuit},
      {"double-pendulum", double_pendulum},
      {"pendulum-index0", pendulum_index0},
      {"pendulum-ssf", pendulum_state_space},
      {"pendulum-driven", driven_pendulum},
      {"slider-crank", slider_crank},
      {"truck-index3", truck_index3},
      // Bendtsen and Thomsen (1999), ch. 1, 7, 8, 10 (docs/applications.md)
      {"singular-perturbation", singular_perturbation},
      {"vanderpol-a", van_der_pol_form_a},
      {"vanderpol-b", van_der_pol_form_b},
      {"singular-constraint-0", [] { return singular_constraint(0); }},
      {"singular-constraint-1", [] { return singular_constraint(1); }},
      {"moon-0.5", [] { return moon_flight(0.5); }},
      {"moon-1.1", [] { return moon_flight(1.1); }},
      {"moon-2.0", [] { return moon_flight(2.0); }},
      {"moon-stabilised-0.5", [] { return moon_flight_stabilised(0.5); }},
      {"moon-stabilised-1.1", [] { return moon_flight_stabilised(1.1); }},
      {"moon-stabilised-1.4", [] { return moon_flight_stabilised(1.4); }},
      {"moon-stabilised-2.0", [] { return moon_flight_stabilised(2.0); }},
      {"moon-dae", moon_flight_dae},
      {"impasse", impasse_example},
      {"air-pipe", [] { return air_pipe(10); }},
      {"air-pipe-1000", [] { return air_pipe(1000); }},
      {"attemperator", attemperator},
      // issue 26: models with switches
      {"charge-pump", charge_pump},
      {"attemperator-switched", attemperator_switched},
  };
  return t;
}
}  // namespace

void add_model_options(const BuiltinProblem& p, Options& o) {
  o.events.insert(o.events.end(), p.events.begin(), p.events.end());
  o.switches.insert(o.switches.end(), p.switches.begin(), p.switches.end());
  if (p.tstops.empty()) return;
  const bool finite =
      std::all_of(o.tstops.begin(), o.tstops.end(), [](double t) { return std::isfinite(t); });
  if (!finite) return;  // (the solve refuses them, naming the entry)
  const double lo = std::min(p.t0, p.t_end), hi = std::max(p.t0, p.t_end);
  for (double t : p.tstops)
    if (lo <= t && t <= hi) o.tstops.push_back(t);
  std::sort(o.tstops.begin(), o.tstops.end());
  o.tstops.erase(std::unique(o.tstops.begin(), o.tstops.end()), o.tstops.end());
  if (p.t_end < p.t0) std::reverse(o.tstops.begin(), o.tstops.end());
}

std::string method_not_applicable(const MethodInfo& m, const BuiltinProblem& p) {
  const MethodCapabilities& c = m.capabilities;
  if (!c.mass_matrix_form) return "does not take M y' = f";
  if (c.max_index < p.dae.max_index())
    return "max_index " + std::to_string(c.max_index) + " < problem index " +
           std::to_string(p.dae.max_index());
  if (!c.error_estimate) return "no error estimate (constant steps only)";
  if (m.name == BetaMultistepOptions::method_name && !p.euler_lagrange)
    return "index-2 Euler-Lagrange problems only";
  if (c.index2_form && p.dae.max_index() != 2) return "solves Hessenberg index-2 problems only";
  if (c.index2_form)  // Hessenberg: every algebraic variable is a multiplier (tag 2)
    for (int j : p.dae.algebraic_columns())
      if (p.dae.index.empty() || p.dae.index[j] != 2)
        return "solves Hessenberg index-2 problems only (algebraic variable " + std::to_string(j) +
               " is tagged index 1)";
  if (c.explicit_method && p.stiff)
    return "explicit method on a stiff problem (its step is bounded by stability)";
  return "";
}

Projection recommended_projection(const BuiltinProblem& p, const MethodInfo& m) {
  if (!m.capabilities.projection || !p.dae.project) return Projection::None;
  return p.projection;
}

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
  if (params != problem.dae.p) {  // the reference solution is that of the old parameters
    problem.reference.reset();
    problem.exact = nullptr;
  }
  problem.dae.p = params;
  if (problem.apply_parameters) {
    if (problem.mechanical) problem.mechanical->p = params;
    const auto apply = problem.apply_parameters;  // (it may replace the problem's members)
    apply(problem);
    return problem;
  }
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

Matrix initial_sensitivities(const BuiltinProblem& problem) {
  const Vector& p = problem.dae.p;
  Matrix S(problem.y0.size(), p.size());
  for (Eigen::Index k = 0; k < p.size(); ++k) {
    const double delta =
        std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(std::abs(p[k]), 1.0);
    Vector q = p;
    q[k] = p[k] + delta;
    const Vector plus = with_parameters(problem, q).y0;
    q[k] = p[k] - delta;
    const Vector minus = with_parameters(problem, q).y0;
    S.col(k) = (plus - minus) / (2.0 * delta);
  }
  return S;
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
