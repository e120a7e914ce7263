// with_parameters() on every built-in problem with parameters: each parameter perturbed by a
// few percent gives initial values consistent for the new p (the solve starts: no
// inconsistent_initial_values), and a reference or exact solution kept with the problem is that
// of the new p (none is better than the old one: scd against another p's solution is silently
// wrong).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// The problem with parameter k scaled by 1 + rel (zero parameters, e.g. the default mode 0 of
// the switched problems, have no relative perturbation: none).
bool perturbed_parameters(const BuiltinProblem& base, Eigen::Index k, double rel, Vector& p) {
  p = base.dae.p;
  if (p[k] == 0.0) return false;
  p[k] *= 1.0 + rel;
  return true;
}

Options parameter_test_options(const BuiltinProblem& q) {
  Options o;
  o.rtol = q.rtol;
  o.atol = q.atol;
  o.h0 = q.h0;
  if (q.atol_scale.size() != 0) o.atol_vector = q.atol * q.atol_scale;
  o.nonnegative = q.nonnegative;
  add_model_options(q, o);
  o.store_steps = false;
  return o;
}

}  // namespace

TEST(BuiltinParameters, PerturbedParametersGiveConsistentInitialValues) {
  int perturbed = 0;
  std::vector<std::string> with_parameters_seen;
  for (const std::string& name : builtin_problem_names()) {
    const BuiltinProblem base = make_builtin_problem(name);
    if (base.dae.p.size() == 0) continue;
    with_parameters_seen.push_back(name);
    for (Eigen::Index k = 0; k < base.dae.p.size(); ++k)
      for (const double rel : {0.03, -0.04}) {
        Vector p;
        if (!perturbed_parameters(base, k, rel, p)) continue;
        ++perturbed;
        const std::string what =
            name + " p[" + std::to_string(k) + "] * " + std::to_string(1 + rel);
        const BuiltinProblem q = with_parameters(base, p);
        ASSERT_EQ(q.dae.p, p) << what;
        Options o = parameter_test_options(q);
        o.max_steps = 20;
        const Result r = solve(q.dae, q.t0, q.t_end, q.y0, "radau5", o);
        EXPECT_NE(std::string(to_string(r.status)), "inconsistent_initial_values")
            << what << ": " << r.message;
        EXPECT_GE(r.stats.naccept, 1) << what << ": " << to_string(r.status) << ": " << r.message;
        if (q.exact) {  // an exact solution kept is the new p's: it starts at y0
          EXPECT_LT((q.exact(q.t0) - q.y0).cwiseAbs().maxCoeff(), 1e-12) << what;
        }
        if (q.exact && q.reference) {
          EXPECT_LT((q.exact(q.reference->t) - q.reference->y).cwiseAbs().maxCoeff(), 1e-12)
              << what;
        }
      }
  }
  // the problems with parameters this walk must cover (more may come)
  for (const char* name : {"andrews", "pendulum-driven", "pendulum-index0", "pendulum-ssf",
                           "double-pendulum", "knife-edge"})
    EXPECT_NE(std::find(with_parameters_seen.begin(), with_parameters_seen.end(), name),
              with_parameters_seen.end())
        << name;
  EXPECT_GT(perturbed, 10);
}

// A reference solution belongs to the parameters it was computed for: other parameters drop it
// unless the problem gives one for them; the same parameters keep it.
TEST(BuiltinParameters, ReferenceOfOtherParametersIsDropped) {
  const BuiltinProblem andrews = make_builtin_problem("andrews");
  ASSERT_TRUE(andrews.reference.has_value());
  EXPECT_FALSE(with_parameters(andrews, Vector::Constant(1, 0.04)).reference.has_value());
  EXPECT_TRUE(with_parameters(andrews, andrews.dae.p).reference.has_value());
  const BuiltinProblem driven = make_builtin_problem("pendulum-driven");
  EXPECT_FALSE(with_parameters(driven, Vector::Constant(1, 0.06)).reference.has_value());
}

// Where the exact solution is known for every p, the solve with the new p follows it: the
// model (its mass matrix included: knife-edge's holds m and J) and the solution changed
// together.
TEST(BuiltinParameters, ExactSolutionsFollowTheParameters) {
  struct Case {
    const char* name;
    Vector p;
    double t_end;
  };
  const std::vector<Case> cases = {
      {"knife-edge", (Vector(3) << 2.5, 0.6, 1.3).finished(), 3.0},
      {"pendulum-index0", (Vector(3) << 0.6, 1.8, 9.0).finished(), 2.0},
      {"pendulum-ssf", (Vector(3) << 0.5, 1.5, 9.81).finished(), 5.0},
  };
  for (const Case& c : cases) {
    const BuiltinProblem q = with_parameters(make_builtin_problem(c.name), c.p);
    ASSERT_TRUE(q.exact) << c.name;
    Options o = parameter_test_options(q);
    o.rtol = o.atol = 1e-9;
    const Result r = solve(q.dae, q.t0, c.t_end, q.y0, "radau5", o);
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.message;
    const Vector e = q.exact(c.t_end);
    // positions and velocities (knife-edge's multiplier is an index-2 variable)
    const Eigen::Index n = std::string(c.name) == "knife-edge" ? 6 : e.size();
    EXPECT_LT((r.y - e).head(n).cwiseAbs().maxCoeff(), 1e-6) << c.name;
  }
}
