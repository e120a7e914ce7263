// The Newton monitor's iteration without a rate (RateEstimate::None: the projections, the
// consistency iterations, the explicit methods' algebraic equations) and the one handler of the
// methods' verdicts (methods/newton_attempt.hpp): verdict -> outcome, step factor and detail,
// CallbackError on a fatal guard, the count of Newton failures, RADAU5's Jacobian rule, the
// iterations of an attempt over its solves; and what the shared services fixed on the way: the
// trace of an attempt that fails before its Newton iteration reports no iterations (radau
// reported the previous attempt's), and the differences of a(t, y) and g(t, y) of an index-2
// form cost n evaluations, not n + m.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/guard.hpp"
#include "daekit/daekit.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/index2_system.hpp"

using namespace daekit;

namespace {

using Verdict = NewtonMonitor::Verdict;

// The verdicts of a None-mode monitor for a sequence of norms (stopping at the first that is
// not Continue).
std::vector<Verdict> plain_verdicts(const NewtonMonitor::Settings& s,
                                    const std::vector<double>& norms) {
  NewtonMonitor m(s);
  m.begin(0.0);
  std::vector<Verdict> out;
  for (double x : norms) {
    out.push_back(m.next(x));
    if (out.back() != Verdict::Continue) break;
  }
  return out;
}

}  // namespace

TEST(NewtonWithoutRate, TestsTheNormAgainstTheTolerance) {
  const NewtonMonitor::Settings s = NewtonMonitor::without_rate(4, 1e-3);
  EXPECT_EQ(plain_verdicts(s, {1.0, 0.1, 1e-3}),
            (std::vector<Verdict>{Verdict::Continue, Verdict::Continue, Verdict::Converged}));
  // no rate in the test: a slow contraction is not judged, only the iteration count
  EXPECT_EQ(plain_verdicts(s, {1.0, 0.99, 0.98, 0.97}).back(), Verdict::MaxIterations);
  EXPECT_EQ(plain_verdicts(s, {1.0, std::numeric_limits<double>::quiet_NaN()}).back(),
            Verdict::NonFinite);
  EXPECT_EQ(plain_verdicts(s, {std::numeric_limits<double>::infinity()}).back(),
            Verdict::NonFinite);
  // the rate is reported: the ratio of the last two norms
  NewtonMonitor m(s);
  m.begin(0.0);
  m.next(2.0);
  m.next(0.5);
  EXPECT_EQ(m.rate(), 0.25);
  EXPECT_EQ(m.iterations(), 2);
}

TEST(NewtonWithoutRate, StagnationAndSlowIterations) {
  NewtonMonitor::Settings s = NewtonMonitor::without_rate(10, 1e-3);
  s.stagnation = 1.0;
  // within one weight and shrinking by less than half: converged at the round-off level
  EXPECT_EQ(plain_verdicts(s, {5.0, 0.9, 0.6}).back(), Verdict::Converged);
  EXPECT_EQ(plain_verdicts(s, {5.0, 0.9, 0.6}).size(), 3u);
  // above the stagnation level the same ratio goes on
  EXPECT_EQ(plain_verdicts(s, {50.0, 9.0, 6.0, 0.0}).size(), 4u);
  s.stagnation = 0.0;
  s.slow = 0.2;
  // from the third iteration, an increment above 0.2 times the previous one is too slow
  EXPECT_EQ(plain_verdicts(s, {10.0, 5.0, 1.5}).back(), Verdict::TooSlow);
  EXPECT_EQ(plain_verdicts(s, {10.0, 5.0, 0.9, 0.1, 1e-4}).back(), Verdict::Converged);
}

TEST(NewtonAttemptReport, VerdictsBecomeStepAttempts) {
  CallGuard guard;
  Stats stats;
  NewtonMonitor::Settings s;
  s.max_iterations = 7;
  s.tolerance = 1e-9;
  s.predict_slow = true;
  NewtonAttempt newton(s, guard, stats);
  newton.begin_attempt();
  newton.begin(0.5);
  ASSERT_EQ(newton.next(1.0), Verdict::Continue);
  ASSERT_EQ(newton.next(0.9), Verdict::TooSlow);  // rate 0.9: 1e-9 out of reach
  StepAttempt a = newton.failure(Verdict::TooSlow);
  EXPECT_EQ(a.outcome, AttemptOutcome::NewtonFailed);
  EXPECT_EQ(a.h_factor, newton.step_factor());  // RADAU5's factor from the predicted error
  EXPECT_NE(a.h_factor, 0.5);
  EXPECT_STREQ(a.detail, "Newton converges too slowly");
  EXPECT_EQ(a.newton_iterations, 2);
  EXPECT_EQ(stats.nnewton_fail, 1);

  a = newton.failure(Verdict::Diverging);
  EXPECT_EQ(a.outcome, AttemptOutcome::NewtonFailed);
  EXPECT_EQ(a.h_factor, 0.5);
  EXPECT_STREQ(a.detail, "Newton diverges");
  newton.set_failure_factor(0.25);
  a = newton.failure(Verdict::MaxIterations);
  EXPECT_EQ(a.h_factor, 0.25);
  EXPECT_NE(std::string(a.detail).find("max_newton_iterations"), std::string::npos);
  EXPECT_EQ(stats.nnewton_fail, 3);
  // a non-finite increment: the linear solver's reason when it has one; not a Newton failure
  a = newton.failure(Verdict::NonFinite, "GMRES stagnated");
  EXPECT_EQ(a.outcome, AttemptOutcome::NonFinite);
  EXPECT_STREQ(a.detail, "GMRES stagnated");
  EXPECT_STREQ(newton.failure(Verdict::NonFinite).detail, "Newton increment not finite");
  EXPECT_EQ(stats.nnewton_fail, 3);
  // other failures keep their outcome and text, and become CallbackError on a fatal guard
  a = newton.failure(AttemptOutcome::Singular, "iteration matrix singular");
  EXPECT_EQ(a.outcome, AttemptOutcome::Singular);
  EXPECT_EQ(a.h_factor, 0.25);
  guard.wrong_size("f", 0.0, "it returned 3 values, expected 2");
  ASSERT_TRUE(guard.fatal());
  EXPECT_EQ(newton.failure(Verdict::Diverging).outcome, AttemptOutcome::CallbackError);
  EXPECT_EQ(newton.failure(AttemptOutcome::NonFinite, "f failed").outcome,
            AttemptOutcome::CallbackError);
}

TEST(NewtonAttemptReport, JacobianRenewedUnlessFresh) {
  CallGuard guard;
  Stats stats;
  NewtonAttempt newton(NewtonMonitor::Settings{}, guard, stats);
  bool valid = true, fresh = true;
  newton.watch_jacobian(&valid, &fresh);
  newton.failure(Verdict::Diverging);
  EXPECT_TRUE(valid);  // evaluated at the step's start: the retry would evaluate the same
  newton.failure(AttemptOutcome::Singular, "singular");
  EXPECT_TRUE(valid);
  fresh = false;
  newton.failure(AttemptOutcome::Singular, "singular");
  EXPECT_FALSE(valid);  // from an earlier point: anew for the retry
  valid = true;
  newton.watch_jacobian(&valid);  // never fresh (multistep: at the failed step's prediction)
  newton.failure(AttemptOutcome::NonFinite, "f failed");
  EXPECT_FALSE(valid);
}

TEST(NewtonAttemptReport, IterationsOfAnAttemptAddUpOverItsSolves) {
  CallGuard guard;
  Stats stats;
  NewtonMonitor::Settings s;
  s.tolerance = 1e-3;
  s.memory = 0.0;
  NewtonAttempt newton(s, guard, stats);
  newton.begin_attempt();
  EXPECT_EQ(newton.attempt_iterations(), 0);
  newton.begin(0.01);  // a first stage: three iterations
  newton.next(1.0);
  newton.next(0.3);
  ASSERT_EQ(newton.next(0.001), Verdict::Converged);
  const double first_rate = newton.rate();
  newton.begin(0.01);  // a second stage: converged at once
  ASSERT_EQ(newton.next(1e-6), Verdict::Converged);
  const StepAttempt a = newton.converged(0.4);
  EXPECT_EQ(a.outcome, AttemptOutcome::Converged);
  EXPECT_EQ(a.err, 0.4);
  EXPECT_EQ(a.newton_iterations, 4);
  EXPECT_EQ(a.newton_rate, std::max(first_rate, 0.01));
  newton.begin_attempt();  // the next attempt starts from nothing
  EXPECT_EQ(newton.attempt_iterations(), 0);
  EXPECT_EQ(newton.attempt_rate(), 0.0);
}

// An attempt that fails at its Jacobian ran no Newton iteration: radau's report carried the
// previous attempt's count into the trace.
TEST(NewtonAttemptReport, JacobianFailureReportsNoIterations) {
  MassMatrixDae dae;
  dae.n = 2;
  dae.name = "van der Pol, mu = 10";
  dae.f = [](double, VecIn y, VecOut out) {
    out[0] = y[1];
    out[1] = 10.0 * (1.0 - y[0] * y[0]) * y[1] - y[0];
  };
  int calls = 0;
  dae.jacobian = [&calls](double, VecIn y, Matrix& J) {
    if (++calls == 4) throw RecoverableError("transient failure of the Jacobian");
    J(0, 1) = 1.0;
    J(1, 0) = -20.0 * y[0] * y[1] - 1.0;
    J(1, 1) = 10.0 * (1.0 - y[0] * y[0]);
  };
  Options o;
  o.rtol = o.atol = 1e-6;
  std::vector<StepTrace> trace;
  o.trace = [&](const StepTrace& s) { trace.push_back(s); };
  Vector y0(2);
  y0 << 2.0, 0.0;
  const Result r = solve(dae, 0.0, 3.0, y0, Radau5Options{}, o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_GE(calls, 4);
  int failed = 0;
  for (const StepTrace& s : trace)
    if (s.outcome == StepTrace::Outcome::NonFinite) {
      ++failed;
      EXPECT_STREQ(s.detail, "Jacobian failed");
      EXPECT_EQ(s.newton_iterations, 0) << "at t = " << s.t;
    }
  EXPECT_EQ(failed, 1);
}

// The differences of a(t, y) and g(t, y) perturb y only (n evaluations each); f_k's perturb
// (y, z). They perturbed every component of (y, z), z's evaluations wasted.
TEST(NewtonAttemptReport, Index2DifferencesPerturbOnlyTheArgumentsOfEachMap) {
  ImplicitIndex2Dae dae;
  dae.n = 3;
  dae.m = 1;
  dae.name = "index-2 form without Jacobians";
  dae.a = [](double, VecIn y, VecOut out) {
    out = y;
    out[0] += 0.1 * y[0] * y[0] * y[0];
  };
  dae.f[0] = [](double, VecIn y, VecIn, VecOut out) {
    out[0] = y[1];
    out[1] = -y[0];
    out[2] = 0.5 * y[2];
  };
  dae.f[1] = [](double, VecIn y, VecIn z, VecOut out) {
    out[0] = -2.0 * y[0] * z[0];
    out[1] = -2.0 * y[1] * z[0];
    out[2] = -z[0];
  };
  dae.g = [](double, VecIn y, VecOut out) { out[0] = y[0] * y[0] + y[1] * y[1] + y[2] - 1.0; };
  CallGuard guard;
  Stats stats;
  Index2System sys(dae, guard, stats);
  Vector y(3), z(1);
  y << 0.6, 0.5, 0.39;
  z << 0.3;
  Index2System::Jacobians J;
  ASSERT_TRUE(sys.jacobians(0.0, y, z, J));
  // a: n, f_1 and f_2: n + m each, g: n
  EXPECT_EQ(stats.nfev_jac, 3 + 4 + 4 + 3);
  EXPECT_NEAR(J.a_y(0, 0), 1.0 + 0.3 * y[0] * y[0], 1e-7);
  EXPECT_NEAR(J.g_y(0, 0), 2.0 * y[0], 1e-7);
  EXPECT_NEAR(J.g_y(0, 2), 1.0, 1e-7);
  EXPECT_NEAR(J.f_z[1](0, 0), -2.0 * y[0], 1e-7);
  EXPECT_NEAR(J.f_y[1](1, 1), -2.0 * z[0], 1e-7);
  Matrix g_y, f_z;
  const long before = stats.nfev_jac;
  ASSERT_TRUE(sys.constraint_jacobians(0.0, y, z, g_y, f_z));
  EXPECT_EQ(stats.nfev_jac - before, 1);  // f_z: m evaluations of the part with z (g: none counted)
  EXPECT_NEAR(f_z(1, 0), -2.0 * y[1], 1e-7);
  EXPECT_EQ(g_y, J.g_y);
}

// hem evaluates g_y and f_z at the start of every step (the projection of its error estimate
// needs them there): after a failed attempt the retry starts from the same point, and the
// Jacobians it had are the ones it would evaluate. They were evaluated anew after every failure
// (andrews-el at 1e-4: 108 Jacobians for 89 step starts).
TEST(NewtonAttemptReport, HemKeepsItsJacobiansForARetryAtTheSamePoint) {
  const BuiltinProblem b = make_builtin_problem("andrews-el");
  Options o;
  o.rtol = 1e-4;
  o.atol = 1e-4 * (b.atol / b.rtol);
  o.h0 = b.h0;
  // the Jacobians of the start (the checks of the initial values, the first point): a run
  // that stops after its first attempt
  o.max_steps = 1;
  const long at_start = solve(b.dae, b.t0, b.t_end, b.y0, "hem", o).stats.njac;
  o.max_steps = 100000;
  std::vector<double> starts;
  int failed = 0;
  o.trace = [&](const StepTrace& s) {
    if (starts.empty() || starts.back() != s.t) starts.push_back(s.t);
    failed +=
        s.outcome != StepTrace::Outcome::Accepted && s.outcome != StepTrace::Outcome::Rejected;
  };
  const Result r = solve(b.dae, b.t0, b.t_end, b.y0, "hem", o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_GT(failed, 0);  // the run has failed attempts to retry
  // one Jacobian per further step start (the attempts from one point follow each other)
  EXPECT_EQ(r.stats.njac, at_start + static_cast<long>(starts.size()) - 1)
      << starts.size() << " step starts, " << failed << " failed attempts";
}

// The explicit methods' algebraic equations: a g_z that is singular where the step starts is
// a singular iteration matrix (it was reported as "did not converge", a Newton failure).
TEST(NewtonAttemptReport, ErkReportsASingularAlgebraicJacobian) {
  MassMatrixDae dae;
  dae.n = 2;
  dae.name = "y1' = 1, 0 = y2^2 (g_z = 0 at y2 = 0)";
  dae.mass = Eigen::Vector2d(1.0, 0.0).asDiagonal();
  dae.f = [](double, VecIn y, VecOut out) { out << 1.0, y[1] * y[1]; };
  dae.jacobian = [](double, VecIn y, Matrix& J) { J(1, 1) = 2.0 * y[1]; };  // exactly 0 at 0
  Options o;
  o.rtol = o.atol = 1e-6;
  const Result r = solve(dae, 0.0, 1.0, Vector::Zero(2), "erk", o);
  EXPECT_EQ(r.status, Status::SingularMatrix) << r.message;
  EXPECT_NE(r.message.find("g_z"), std::string::npos) << r.message;
}
