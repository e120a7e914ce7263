// Consistent initialization of F(t, y, y') = 0: modes (a) differential components given,
// (b) derivatives given, (c) check only; singular systems get a clear message.
#include <gtest/gtest.h>

#include <cmath>

#include "daekit/daekit.hpp"

using namespace daekit;

TEST(Initialization, Index1PendulumFromInconsistentMultiplier) {
  const BuiltinProblem p = pendulum_index1();
  const ImplicitDae d = to_implicit_form(p.dae);
  Vector y0 = p.y0, yp0 = Vector::Zero(5);
  y0[4] = 3.0;  // lambda far from consistent (0)
  const InitResult r = initialize(d, 0.0, y0, yp0, InitMode::DifferentialGiven);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_NEAR(r.y[4], 0.0, 1e-10);
  EXPECT_EQ(r.y.head(4), p.y0.head(4));  // differential components untouched
  EXPECT_NEAR(r.yp[3], -1.0, 1e-10);     // v2' = -1 - 2 u2 lambda
  EXPECT_LE(r.residual.cwiseAbs().maxCoeff(), 1e-10);
  // and the BDF then runs from these values
  Options o;
  o.rtol = o.atol = 1e-8;
  const Result s = solve(d, 0.0, 3.0, r.y, r.yp, BdfOptions{}, o);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_LT((s.y.head(4) - pendulum_reference(3.0).head(4)).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(Initialization, InMotionWithMovingPendulum) {
  // u on the circle, v tangential: lambda = (|v|^2 - u2) / 2
  const BuiltinProblem p = pendulum_index1();
  const ImplicitDae d = to_implicit_form(p.dae);
  const double phi = 0.4, omega = 1.3;
  Vector y0(5);
  y0 << std::sin(phi), -std::cos(phi), std::cos(phi) * omega, std::sin(phi) * omega, -7.0;
  const InitResult r = initialize(d, 0.0, y0, Vector::Zero(5), InitMode::DifferentialGiven);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_NEAR(r.y[4], 0.5 * (omega * omega + std::cos(phi)), 1e-10);
}

TEST(Initialization, SingularAlgebraicJacobianIsReported) {
  // the index-3 pendulum: lambda does not appear in 0 = |u|^2 - 1, so (a) cannot determine it
  const BuiltinProblem p = pendulum_index3();
  const ImplicitDae d = to_implicit_form(p.dae);
  Vector y0 = p.y0;
  y0[0] = 1.1;  // make the residual nonzero so that Newton must solve
  const InitResult r = initialize(d, 0.0, y0, Vector::Zero(5), InitMode::DifferentialGiven);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("singular"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("not index 1"), std::string::npos) << r.message;
}

TEST(Initialization, DerivativeGivenComputesState) {
  // F = (y1' + y1 - y2, y2 - sin t): given y', find y
  ImplicitDae d;
  d.n = 2;
  d.differential = {true, false};
  d.F = [](double t, VecIn y, VecIn yp, VecOut F) {
    F[0] = yp[0] + y[0] - y[1];
    F[1] = y[1] - std::sin(t);
  };
  Vector yp(2);
  yp << 0.25, 0.0;
  const InitResult r = initialize(d, 0.5, Vector::Zero(2), yp, InitMode::DerivativeGiven);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_NEAR(r.y[1], std::sin(0.5), 1e-12);
  EXPECT_NEAR(r.y[0], std::sin(0.5) - 0.25, 1e-12);
}

TEST(Initialization, CheckOnlyReportsPerEquation) {
  const BuiltinProblem p = pendulum_index1();
  const ImplicitDae d = to_implicit_form(p.dae);
  Vector y0 = p.y0;
  y0[4] = 0.5;
  Vector yp0(5);
  yp0 << 0, 0, 0, -1, 0;
  const InitResult bad = initialize(d, 0.0, y0, yp0, InitMode::CheckOnly);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.report().find("equation   4"), std::string::npos) << bad.report();
  const InitResult good = initialize(d, 0.0, p.y0, yp0, InitMode::CheckOnly);
  EXPECT_TRUE(good.ok) << good.report();
}

// Mass-matrix form with the algebraic part in sums of rows (transistor amplifier: M has no
// zero row or column): initialize() keeps M y0 and solves L^T f = 0 along ker M.
TEST(Initialization, TransistorFromInconsistentAlgebraicValues) {
  const BuiltinProblem p = make_builtin_problem("transistor");
  Vector y0 = p.y0;
  y0[0] += 0.3;  // node 1: moves both the differential state M y and the algebraic sum
  y0[4] -= 0.2;
  y0[7] += 0.5;
  {  // the BDF refuses the inconsistent start with a clear message
    const Result bad = solve(p.dae, p.t0, p.t_end, y0, BdfOptions{}, Options{});
    EXPECT_EQ(bad.status, Status::InconsistentInitialValues) << bad.message;
  }
  const InitResult r = initialize(p.dae, p.t0, y0);
  ASSERT_TRUE(r.ok) << r.message;
  std::printf("transistor initialisation: %d Newton iterations, max residual %.2e\n", r.iterations,
              r.residual.cwiseAbs().maxCoeff());
  EXPECT_LE(r.residual.cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LE((p.dae.mass * (r.y - y0)).cwiseAbs().maxCoeff(), 1e-15);  // M y kept
  Options o;
  o.rtol = o.atol = 1e-6;
  o.h0 = p.h0;
  const Result s = solve(p.dae, p.t0, p.t_end, r.y, BdfOptions{}, o);
  EXPECT_TRUE(s.ok()) << s.message;
  // from the consistent original values nothing moves
  const InitResult same = initialize(p.dae, p.t0, p.y0);
  ASSERT_TRUE(same.ok);
  EXPECT_LE((same.y - p.y0).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(Initialization, MassMatrixNotIndex1IsReported) {
  MassMatrixDae d;  // x' = z, 0 = x + y: the algebraic equation does not contain z
  d.n = 3;
  d.mass = Matrix::Zero(3, 3);
  d.mass(0, 0) = 1;
  d.mass(1, 1) = 1;  // y' = 0
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[2];
    f[1] = 0;
    f[2] = y[0] + y[1] - 1;
  };
  Vector y0(3);
  y0 << 0.2, 0.3, 0.0;
  const InitResult r = initialize(d, 0.0, y0);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("not index 1"), std::string::npos) << r.message;
}

// An event that kicks the output node 8 of the transistor amplifier leaves the algebraic sum
// of rows 7 and 8 violated; both methods re-initialise along ker M at the restart and go on.
// (A kick at the input node is amplified twice by ~160 through the algebraic equations: 10 mV
// at node 1 asks for a 0.3 V correction at node 5 and 14 V at the output, the linearisation
// fails and the line search stalls: initialize() reports non-convergence at t = 0.0123.)
TEST(Initialization, TransistorRestartAfterStateChangingEvent) {
  const BuiltinProblem p = make_builtin_problem("transistor");
  for (int bdf = 0; bdf < 2; ++bdf) {
    Options o;
    o.rtol = o.atol = 1e-6;
    o.h0 = p.h0;
    Event kick;
    kick.name = "kick";
    kick.r = [](double t, VecIn, VecIn) { return t - 0.0123; };
    kick.action = [](double, Vector& y) {
      y[7] += 0.5;
      return EventAction::Restart;
    };
    o.events = {kick};
    const Result r = bdf ? solve(p.dae, p.t0, 0.05, p.y0, BdfOptions{}, o)
                         : solve(p.dae, p.t0, 0.05, p.y0, Radau5Options{}, o);
    ASSERT_TRUE(r.ok()) << (bdf ? "bdf: " : "radau5: ") << r.message;
    ASSERT_EQ(r.events.size(), 1u);
    // every step, also right after the event, is consistent: L^T f = 0 (the sums of the row
    // pairs of f) to the Newton tolerance; without the re-initialisation the kick leaves
    // |f7 + f8| = 0.5 / R9 = 5.6e-5
    for (size_t k = 0; k < r.t_steps.size(); ++k) {
      Vector f(8);
      p.dae.f(r.t_steps[k], r.y_steps[k], f);
      EXPECT_LE(std::abs(f[3] + f[4]), 1e-7) << "t = " << r.t_steps[k];
      EXPECT_LE(std::abs(f[6] + f[7]), 1e-7) << "t = " << r.t_steps[k];
    }
  }
}

// The start's consistency check measures an algebraic residual by the Newton correction it asks
// of the algebraic variables (units of y, those of atol), not by the residual itself (units of
// f): x' = -x, 0 = 1e10 (z - x) with z0 one rounding away from x0 has |f_1| = 2.2e-6 > 10 atol
// but is consistent to round-off (dz = 2.2e-16); the built-in food web (predators ~ 1e5, their
// equations' terms ~ 1e10) was refused at rtol = atol <= 1e-8 ("|f_1(t0, y0)| = 6.14e-07 >
// 1e-07") before. A real inconsistency in the same units is still refused.
TEST(Initialization, ConsistencyCheckInTheUnitsOfTheAlgebraicVariables) {
  MassMatrixDae d;
  d.n = 2;
  d.mass = Matrix::Zero(2, 2);
  d.mass(0, 0) = 1;
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = -y[0];
    f[1] = 1e10 * (y[1] - y[0]);
  };
  Options o;
  o.rtol = o.atol = 1e-8;
  Vector y0(2);
  y0 << 1.0, std::nextafter(std::nextafter(1.0, 2.0), 2.0);
  const Result r = solve(d, 0.0, 1.0, y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NEAR(r.y[1], std::exp(-1.0), 1e-7);
  y0[1] = 1.0 + 1e-6;  // dz = 1e-6 > 10 atol
  const Result bad = solve(d, 0.0, 1.0, y0, "radau5", o);
  EXPECT_EQ(bad.status, Status::InconsistentInitialValues) << bad.message;

  const BuiltinProblem web = make_builtin_problem("food-web");
  Options w;
  w.rtol = w.atol = 1e-8;
  w.atol_vector = 1e-8 * web.atol_scale;
  const Result s = solve(web.dae, web.t0, web.t_end, web.y0, "bdf", w);
  EXPECT_TRUE(s.ok()) << s.message;
}
