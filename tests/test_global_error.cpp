// Options::global_error_check (issue 9): the estimated global error of a solve from a second
// solve at tolerances / 10. The BDF's error on the conservative pendulum (pendulum-ssf)
// accumulates to 100-250 times the tolerance at rtol 1e-8 ... 1e-10 although every step meets
// it (IDA's does the same): without the check nothing says so, with it the report does.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "daekit/daekit.hpp"

namespace daekit {
namespace {

double ge_tolerance(int m) { return std::pow(10.0, -4.0 - m / 4.0); }

Options ge_options(int m, bool check) {
  Options o;
  o.rtol = o.atol = o.h0 = ge_tolerance(m);
  o.store_steps = false;
  o.global_error_check = check;
  return o;
}

// The true error against the reference in units of the tolerance (the estimate's measure).
double ge_true_error(const BuiltinProblem& p, const Result& r, const Options& o) {
  double worst = 0.0;
  for (int i = 0; i < p.dae.n; ++i) {
    const double ref = p.reference->y[i];
    worst = std::max(worst, std::abs(r.y[i] - ref) / (o.atol + o.rtol * std::abs(ref)));
  }
  return worst;
}

bool ge_has_warning(const Result& r, const std::string& text) {
  for (const std::string& w : r.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

TEST(GlobalErrorCheck, WarnsWhereTheBdfsErrorsAccumulate) {
  const BuiltinProblem p = make_builtin_problem("pendulum-ssf");
  const Options plain = ge_options(21, false);
  const Result quiet = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("bdf"), plain);
  ASSERT_TRUE(quiet.ok()) << quiet.message;
  const double actual = ge_true_error(p, quiet, plain);
  EXPECT_GT(actual, 100.0);  // every step met the tolerance; the answer is off by > 100x
  EXPECT_TRUE(std::isnan(quiet.global_error));
  EXPECT_FALSE(ge_has_warning(quiet, "estimated global error"));

  const Options checked = ge_options(21, true);
  const Result r = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("bdf"), checked);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.y, quiet.y);  // the answer is the same solve's
  EXPECT_EQ(r.stats.nsteps, quiet.stats.nsteps);
  EXPECT_GT(r.global_error, 0.5 * actual);  // measured: 231 against 247
  EXPECT_LT(r.global_error, 2.0 * actual);
  EXPECT_GE(r.global_error_component, 0);
  EXPECT_TRUE(ge_has_warning(r, "estimated global error at t = 10"));
  EXPECT_GT(r.global_error_cpu_seconds, 0.0);
  EXPECT_NE(r.report().find("global error"), std::string::npos);
}

TEST(GlobalErrorCheck, QuietWhereTheAnswerIsWithinTheTolerance) {
  const BuiltinProblem p = make_builtin_problem("pendulum-ssf");
  for (int m : {12, 21}) {
    const Options o = ge_options(m, true);
    const Result r = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("radau"), o);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_LT(r.global_error, 10.0) << m;  // measured 1.3 and 0.8
    EXPECT_LT(ge_true_error(p, r, o), 10.0) << m;
    EXPECT_FALSE(ge_has_warning(r, "global error")) << m;
  }
  // the transistor (index 1, driven, dissipative) with the BDF: 0.07 at the default tolerances
  const BuiltinProblem t = make_builtin_problem("transistor");
  Options o;
  o.global_error_check = true;
  const Result r = solve(t.dae, t.t0, t.t_end, t.y0, MethodChoice("bdf"), o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(r.global_error, 1.0);
  EXPECT_FALSE(ge_has_warning(r, "global error"));
}

TEST(GlobalErrorCheck, SaysSoWhenTheCheckCannotRun) {
  const BuiltinProblem p = make_builtin_problem("pendulum-ssf");
  // the check's run obeys the same max_steps: just enough for the solve, too few for the check
  Options o = ge_options(12, false);
  const Result first = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("bdf"), o);
  ASSERT_TRUE(first.ok());
  o.max_steps = first.stats.nsteps;
  o.global_error_check = true;
  Result r = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("bdf"), o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(std::isnan(r.global_error));
  EXPECT_EQ(r.global_error_component, -1);
  EXPECT_TRUE(ge_has_warning(r, "global error not estimated")) << r.report();
  EXPECT_TRUE(ge_has_warning(r, "max_steps_exceeded")) << r.report();
  // rtol / 10 below 10 eps
  o = ge_options(0, true);
  o.rtol = 3e-15;
  r = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("radau"), o);
  EXPECT_TRUE(std::isnan(r.global_error));
  EXPECT_TRUE(ge_has_warning(r, "below the smallest relative tolerance")) << r.report();
  // a solve that stops at a terminal event: its end point moves with the tolerance
  {
    MassMatrixDae ball;
    ball.n = 2;
    ball.f = [](double, VecIn y, VecOut f) {
      f[0] = y[1];
      f[1] = -9.81;
    };
    Options e;
    e.global_error_check = true;
    Event ground;
    ground.name = "ground";
    ground.r = [](double, VecIn y, VecIn) { return y[0]; };
    ground.action = [](double, Vector&) { return EventAction::Stop; };
    e.events = {ground};
    Vector y0(2);
    y0 << 10.0, 0.0;
    const Result rb = solve(ball, 0.0, 8.0, y0, MethodChoice("radau5"), e);
    EXPECT_EQ(rb.status, Status::TerminalEvent) << rb.message;
    EXPECT_TRUE(std::isnan(rb.global_error));
    EXPECT_TRUE(ge_has_warning(rb, "stopped at a terminal event")) << rb.report();
  }
  // a failed solve is not assessed
  o = ge_options(4, true);
  o.max_steps = 5;
  r = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("bdf"), o);
  EXPECT_EQ(r.status, Status::MaxStepsExceeded);
  EXPECT_TRUE(std::isnan(r.global_error));
  EXPECT_FALSE(ge_has_warning(r, "global error"));
}

// The check leaves out the error of index-2/3 components (the methods scale it by h, h^2 or
// leave it out of the error test) and works for ImplicitDae (F(t, y, y') = 0) as well.
TEST(GlobalErrorCheck, IndexTagsAndImplicitDae) {
  // y1' = -y1, y2' = ... written implicitly: F = y' - (-y1, y1 - y2)
  ImplicitDae d;
  d.n = 2;
  d.F = [](double, VecIn y, VecIn yp, VecOut out) {
    out[0] = yp[0] + y[0];
    out[1] = yp[1] - y[0] + y[1];
  };
  Vector y0(2), yp0(2);
  y0 << 1.0, 0.0;
  yp0 << -1.0, 1.0;
  Options o;
  o.rtol = o.atol = 1e-6;
  o.global_error_check = true;
  const Result r = solve(d, 0.0, 2.0, y0, yp0, MethodChoice("bdf"), o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GE(r.global_error, 0.0);
  EXPECT_LT(r.global_error, 10.0);
  // exact: y1 = e^-t, y2 = t e^-t
  EXPECT_NEAR(r.y[0], std::exp(-2.0), 20 * (1e-6 + 1e-6 * std::exp(-2.0)));

  // the index-3 pendulum: radau5's multiplier and velocity errors are h-scaled by design; the
  // estimate is over the positions (index tag 1) only
  const BuiltinProblem p = make_builtin_problem("pendulum");
  Options q = ge_options(8, true);
  const Result rp = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("radau5"), q);
  ASSERT_TRUE(rp.ok()) << rp.message;
  ASSERT_GE(rp.global_error_component, 0);
  EXPECT_LE(p.dae.index_of(rp.global_error_component), 1);
}

}  // namespace
}  // namespace daekit
