// Regressions of the 25-tolerance sweep (bench/sweep.cpp, issue 9): the single tolerances that
// failed, rtol = atol = h0 = 10^(-4-m/4) as in the IVP Test Set protocol.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "daekit/daekit.hpp"

namespace daekit {
namespace {

double protocol_tolerance(int m) { return std::pow(10.0, -4.0 - m / 4.0); }

Result solve_at(const std::string& problem, const std::string& method, int m) {
  const BuiltinProblem p = make_builtin_problem(problem);
  Options o;
  o.rtol = o.atol = o.h0 = protocol_tolerance(m);
  if (p.atol_scale.size()) o.atol_vector = o.atol * p.atol_scale;
  o.nonnegative = p.nonnegative;
  o.events = p.events;
  o.store_steps = false;
  return solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice(method), o);
}

TEST(SweepRegressions, ExplicitMethodsAreNotApplicableToStiffProblems) {
  EXPECT_TRUE(method_info("erk").capabilities.explicit_method);
  EXPECT_TRUE(method_info("hem").capabilities.explicit_method);
  EXPECT_FALSE(method_info("radau5").capabilities.explicit_method);
  EXPECT_FALSE(method_info("bdf").capabilities.explicit_method);
  for (const char* name :
       {"vanderpol", "robertson", "robertson-dae", "transistor", "circuit-chain"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    EXPECT_TRUE(p.stiff) << name;
    const std::string why = method_not_applicable(method_info("erk"), p);
    EXPECT_NE(why.find("explicit method on a stiff problem"), std::string::npos) << name;
    EXPECT_EQ(method_not_applicable(method_info("radau5"), p), "") << name;
  }
  // erk solves akzo and heat2d 25/25: not marked stiff
  for (const char* name : {"akzo", "heat2d"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    EXPECT_FALSE(p.stiff) << name;
    EXPECT_EQ(method_not_applicable(method_info("erk"), p), "") << name;
  }
  // the index still comes first
  EXPECT_NE(method_not_applicable(method_info("erk"), make_builtin_problem("pendulum"))
                .find("max_index 1 < problem index 3"),
            std::string::npos);
}

// radau on the index-3 pendulum, m = 5: at t = 11.67 the 7-stage error estimate stayed at ~1.14
// from h = 1e-2 down to 2.4e-14 (step_size_too_small); a non-falling error after a rejection now
// lowers the order.
TEST(SweepRegressions, RadauPendulumAtM5) {
  const Result r = solve_at("pendulum", "radau", 5);
  ASSERT_TRUE(r.ok()) << r.message;
  const BuiltinProblem p = make_builtin_problem("pendulum");
  EXPECT_EQ(r.t, p.reference->t);
  EXPECT_GT(scd(r.y, p.reference->y, p.scd_components), 2.0);
}

// bdf on jay-index2, m = 18: the multiplier's round-off floor eps |F| / h stalled the Newton
// iteration at h ~ 1e-12 (max_steps_exceeded at t = 1e-8).
TEST(SweepRegressions, BdfJayIndex2AtM18) {
  const Result r = solve_at("jay-index2", "bdf", 18);
  ASSERT_TRUE(r.ok()) << r.message;
  const BuiltinProblem p = make_builtin_problem("jay-index2");
  EXPECT_EQ(r.t, p.reference->t);
  EXPECT_GT(scd(r.y, p.reference->y, p.scd_components), 6.0);
}

// dirk on the index-2 problems: its Jacobian by differences took the last stage's F (the
// constraint rows zero from the stage relation, not g(y)) as the base value, and its
// constraint rows came out wrong; Newton then left the stages off the constraint and the next
// steps failed with step_size_too_small (el-manufactured m = 2; knife-edge m = 0, 1, 6, 7, 11).
TEST(SweepRegressions, DirkIndex2Problems) {
  for (const auto& [problem, m] : std::vector<std::pair<std::string, int>>{
           {"el-manufactured", 2}, {"knife-edge", 0}, {"knife-edge", 1}, {"knife-edge", 11}}) {
    const Result r = solve_at(problem, "dirk", m);
    ASSERT_TRUE(r.ok()) << problem << " m = " << m << ": " << r.message;
    const BuiltinProblem p = make_builtin_problem(problem);
    EXPECT_EQ(r.t, p.reference->t);
    EXPECT_GT(scd(r.y, p.reference->y, p.scd_components), 3.5) << problem << " m = " << m;
  }
}

}  // namespace
}  // namespace daekit
