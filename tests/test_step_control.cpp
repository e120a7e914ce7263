// The integrator's step-size controller as the one place where steps are chosen (issue 24):
// DASSL's rule for the BDF applied by the controller, beta-multistep's declared limits
// (reported, and refused options named), the factorisation reuse of radau5 and dirk held by
// the controller, and the starting-step estimate on DAEs (the algebraic components, which
// have no f-derivative, do not spoil it). The registry-wide checks are in test_conformance.cpp
// (StepSizesAreChosenByTheController, StartsWithAnEstimatedStep).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

std::vector<StepTrace> traced_solve(const BuiltinProblem& p, const MethodChoice& method, Options o,
                                    Result& r) {
  std::vector<StepTrace> trace;
  o.trace = [&trace](const StepTrace& s) { trace.push_back(s); };
  r = solve(p.dae, p.t0, p.t_end, p.y0, method, o);
  return trace;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// y' = -y + cos t (first component) with an algebraic z = scale * y (second): a DAE whose
// algebraic component is large against its weight and moves fast.
MassMatrixDae step_control_index1(double scale) {
  MassMatrixDae dae;
  dae.name = "y' = -y + cos t, 0 = z - scale y";
  dae.n = 2;
  dae.mass = Matrix::Zero(2, 2);
  dae.mass(0, 0) = 1.0;
  dae.f = [scale](double t, VecIn y, VecOut f) {
    f[0] = -y[0] + std::cos(t);
    f[1] = y[1] - scale * y[0];
  };
  return dae;
}

}  // namespace

// DASSL's step rule (Brenan-Campbell-Petzold 5.2) is the controller's: every step of the BDF
// after an accepted one is 2 h, h or h r with r in [0.5, 0.9]; after an error-test failure
// h r with r in [0.25, 0.9], and 0.25 h after a second one in a row.
TEST(StepControlDassl, TheBdfStepsFollowDasslsRule) {
  for (const char* name : {"vanderpol", "robertson", "andrews-el"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    if (p.dae.max_index() > 2) continue;
    Options o;
    o.rtol = o.atol = 1e-6;
    if (p.atol_scale.size()) o.atol_vector = o.atol * p.atol_scale;
    Result r;
    const std::vector<StepTrace> trace = traced_solve(p, "bdf", o, r);
    ASSERT_TRUE(r.ok()) << name << ": " << r.message;
    EXPECT_TRUE(contains(r.step_control, "DASSL")) << r.step_control;
    int rule_steps = 0, failures_in_row = 0;
    for (size_t i = 1; i < trace.size(); ++i) {
      const StepTrace &prev = trace[i - 1], &s = trace[i];
      const double ratio = s.h / prev.h;
      if (prev.outcome == StepTrace::Outcome::Rejected)
        ++failures_in_row;
      else if (prev.outcome == StepTrace::Outcome::Accepted)
        failures_in_row = 0;
      if (s.chosen_by == StepChoice::Bounded) continue;
      if (s.chosen_by == StepChoice::MethodRule) {
        ++rule_steps;
        ASSERT_EQ(prev.outcome, StepTrace::Outcome::Accepted);
        const double e = 1e-12;  // the ratio of two rounded step sizes
        const bool dassl = std::abs(ratio - 2.0) <= 2 * e || std::abs(ratio - 1.0) <= e ||
                           (ratio >= 0.5 * (1 - e) && ratio <= 0.9 * (1 + e));
        EXPECT_TRUE(dassl) << name << " attempt " << i << ": ratio " << ratio;
      } else if (s.chosen_by == StepChoice::AfterRejection) {
        if (failures_in_row == 1) {
          EXPECT_GE(ratio, 0.25 * (1 - 1e-12)) << name << " attempt " << i;
          EXPECT_LE(ratio, 0.9 * (1 + 1e-12)) << name << " attempt " << i;
        } else {
          EXPECT_NEAR(ratio, 0.25, 1e-12) << name << " attempt " << i;
        }
      } else {
        EXPECT_EQ(s.chosen_by, StepChoice::AfterFailure) << name << " attempt " << i;
      }
    }
    EXPECT_GT(rule_steps, 20) << name;
  }
}

// beta-multistep's limits are declared and applied by the controller: step ratios at most 2,
// h kept while its history settles (k + 1 steps after a change) and within its dead band; the
// report says so, and a larger max_increase asked for is named as not used.
TEST(StepControlLimits, BetaMultistepDeclaresItsMaxIncrease) {
  const BuiltinProblem p = make_builtin_problem("pendulum-el");
  Options o;
  o.rtol = o.atol = 1e-7;
  Result r;
  const std::vector<StepTrace> trace = traced_solve(p, "beta-multistep", o, r);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(contains(r.step_control, "max_increase 2")) << r.step_control;
  EXPECT_TRUE(contains(r.full_report(), "max_increase 2")) << r.full_report();
  for (const std::string& w : r.warnings) EXPECT_FALSE(contains(w, "max_increase")) << w;
  int held = 0, changes = 0;
  for (size_t i = 1; i < trace.size(); ++i) {
    if (trace[i - 1].outcome != StepTrace::Outcome::Accepted) continue;
    const double ratio = trace[i].h / trace[i - 1].h;
    EXPECT_LE(ratio, 2.0 * (1 + 1e-12)) << "attempt " << i;
    if (trace[i].chosen_by == StepChoice::Held) {
      ++held;
      EXPECT_EQ(ratio, 1.0);
    }
    if (trace[i].chosen_by == StepChoice::ErrorControl) ++changes;
  }
  EXPECT_GT(held, 0);
  EXPECT_GT(changes, 0);

  o.max_increase = 5.0;
  const Result asked = solve(p.dae, p.t0, p.t_end, p.y0, "beta-multistep", o);
  ASSERT_TRUE(asked.ok()) << asked.message;
  bool named = false;
  for (const std::string& w : asked.warnings) named = named || contains(w, "max_increase = 5");
  EXPECT_TRUE(named) << "a max_increase above the method's limit must be reported as not used";
  EXPECT_EQ(asked.stats.nsteps, r.stats.nsteps) << "the limit applies either way";
}

// radau5 and dirk decide in plan_matrix_reuse() whether their Jacobian stays; the controller
// keeps h when the proposal lies in the factorisation's band (RADAU5's quot1 = 1, quot2 = 1.2):
// the trace shows such steps with h exactly unchanged after an accepted step. With the band
// narrowed to [1, 1] (Radau5Options::lu_reuse_high = 1) the controller keeps h only for a
// proposal of exactly h, so the kept steps almost vanish.
TEST(StepControlReuse, RadauAndDirkKeepHForTheirFactorisation) {
  const BuiltinProblem p = make_builtin_problem("vanderpol");
  Options o;
  o.rtol = o.atol = 1e-6;
  const auto held_steps = [&](const MethodChoice& method) {
    Result r;
    const std::vector<StepTrace> trace = traced_solve(p, method, o, r);
    EXPECT_TRUE(r.ok()) << method.name() << ": " << r.message;
    int held = 0;
    for (size_t i = 1; i < trace.size(); ++i)
      if (trace[i].chosen_by == StepChoice::Held) {
        ++held;
        EXPECT_EQ(trace[i].h, trace[i - 1].h) << method.name();
        EXPECT_EQ(trace[i - 1].outcome, StepTrace::Outcome::Accepted) << method.name();
      }
    return held;
  };
  const int radau5_held = held_steps("radau5");
  EXPECT_GT(radau5_held, 5) << "radau5 reuses its factorisation through kept steps";
  EXPECT_GT(held_steps("dirk"), 5) << "dirk reuses its factorisation through kept steps";
  Radau5Options narrow;
  narrow.lu_reuse_high = 1.0;
  EXPECT_LT(held_steps(narrow), radau5_held / 5);
}

// The starting-step estimate on a DAE (y(0) = 2: y' = -1 and y'' = 1 at t0): the algebraic
// component z = 1e6 y moves a million times faster than y in the weights, but it has no
// f-derivative (M y' = f gives none), so the start is that of the ODE y' = -y + cos t alone (the
// same first step within a factor 3), far above the 1e-6 every method but two started with (the
// methods with the estimate; the BDF keeps DASSL's start).
TEST(StepControlStart, AlgebraicComponentsDoNotShrinkTheFirstStep) {
  MassMatrixDae ode;
  ode.name = "y' = -y + cos t";
  ode.n = 1;
  ode.f = [](double t, VecIn y, VecOut f) { f[0] = -y[0] + std::cos(t); };
  Vector y0(1), x0(2);
  y0[0] = 2.0;
  x0 << 2.0, 2e6;
  const MassMatrixDae dae = step_control_index1(1e6);
  for (const char* method : {"radau5", "radau", "dirk", "erk"}) {
    ASSERT_EQ(method_info(method).capabilities.starting_step, StartingStep::Estimate);
    Options o;
    o.rtol = 1e-6;
    o.atol = 1e-8;
    std::vector<StepTrace> t_ode, t_dae;
    o.trace = [&t_ode](const StepTrace& s) { t_ode.push_back(s); };
    const Result r_ode = solve(ode, 0.0, 2.0, y0, method, o);
    o.trace = [&t_dae](const StepTrace& s) { t_dae.push_back(s); };
    const Result r_dae = solve(dae, 0.0, 2.0, x0, method, o);
    ASSERT_TRUE(r_ode.ok()) << method << ": " << r_ode.message;
    ASSERT_TRUE(r_dae.ok()) << method << ": " << r_dae.message;
    const double h_ode = t_ode.front().h, h_dae = t_dae.front().h;
    EXPECT_GT(h_dae, h_ode / 3) << method << ": " << r_dae.step_control;
    EXPECT_LT(h_dae, h_ode * 3) << method << ": " << r_dae.step_control;
    EXPECT_GT(h_dae, 1e-4) << method << ": " << r_dae.step_control;
    EXPECT_NEAR(r_dae.y[1], 1e6 * r_dae.y[0], 1e-6 * 1e6) << method;
  }
}

// The estimate after a restart: an event action that restarts the method starts again with
// the estimate at the new point (not with 1e-6 as before for most methods), so a sawtooth of
// restarts costs about as much per tooth as the first tooth.
TEST(StepControlStart, RestartsStartWithTheEstimate) {
  MassMatrixDae ode;
  ode.name = "y' = -y + 1";
  ode.n = 1;
  ode.f = [](double, VecIn y, VecOut f) { f[0] = -y[0] + 1.0; };
  Vector y0 = Vector::Zero(1);
  Event e;
  e.name = "reset";
  e.direction = 1;
  e.r = [](double, VecIn y, VecIn) { return y[0] - 0.5; };
  e.action = [](double, Vector& y) {
    y[0] = 0.0;
    return EventAction::Restart;
  };
  for (const char* method : {"radau5", "dirk", "erk"}) {
    Options o;
    o.rtol = 1e-6;
    o.atol = 1e-8;
    o.events = {e};
    std::vector<StepTrace> trace;
    o.trace = [&trace](const StepTrace& s) { trace.push_back(s); };
    const Result r = solve(ode, 0.0, 3.0, y0, method, o);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    ASSERT_EQ(r.events.size(), 4u) << method;
    int estimated = 0;
    for (const StepTrace& s : trace)
      if (s.chosen_by == StepChoice::Estimated) {
        ++estimated;
        EXPECT_GT(s.h, 0.99e-4) << method;
      }
    EXPECT_EQ(estimated, 5) << method << ": the start and the four restarts";
  }
}
