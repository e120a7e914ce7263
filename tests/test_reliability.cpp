// Regression tests of the reliability issue (issue 9): each test is named after the item it
// covers; every one of them failed (crashed, threw, or returned a silent wrong answer) on
// db2ab10. Callback failures end in a Status with a message naming the callback and t; sizes
// are checked after every call; bad starts and wrong Jacobians are reported, not integrated.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The reproducer: M = diag(1, 0), f = (-y1, y2 - y1^2), consistent y0 = (1, 1).
MassMatrixDae small_index1() {
  MassMatrixDae d;
  d.n = 2;
  d.name = "small index-1";
  d.mass = Matrix::Zero(2, 2);
  d.mass(0, 0) = 1.0;
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = -y[0];
    f[1] = y[1] - y[0] * y[0];
  };
  d.jacobian = [](double, VecIn y, MatOut J) {
    J(0, 0) = -1;
    J(1, 0) = -2 * y[0];
    J(1, 1) = 1;
  };
  return d;
}

Vector ones(int n) { return Vector::Ones(n); }

// An event at t = 0.5 whose action restarts the method (re-initialisation path).
Event restart_at_half() {
  Event e;
  e.name = "switch";
  e.r = [](double t, VecIn, VecIn) { return t - 0.5; };
  e.action = [](double, Vector&) { return EventAction::Restart; };
  return e;
}

void expect_callback_error(const Result& r, const std::string& what, const char* method) {
  EXPECT_EQ(r.status, Status::CallbackError) << method << ": " << r.message;
  EXPECT_NE(r.message.find(what), std::string::npos) << method << ": " << r.message;
}

}  // namespace

// 1. Heap overflows when a Jacobian resizes its output: before the solver starts (the BDF's
//    y'(t0) on a mass-matrix problem), in the re-initialisation after an event (radau5 and
//    bdf), in initialize(). Now every size is checked after every call.
TEST(Reliability, Overflow1_JacobianResizedBeforeTheSizeCheck) {
  MassMatrixDae d = small_index1();
  d.jacobian = [](double, VecIn, Matrix& J) { J = Matrix::Zero(1, 1); };
  for (const char* method : {"bdf", "radau5"}) {
    const Result r = solve(d, 0, 1, ones(2), method);
    expect_callback_error(r, "1 x 1 matrix, expected 2 x 2", method);
  }
  const InitResult init = initialize(d, 0.0, ones(2));
  EXPECT_FALSE(init.ok);
  EXPECT_NE(init.message.find("1 x 1 matrix"), std::string::npos) << init.message;
}

TEST(Reliability, Overflow2_JacobianResizedAtTheRestartAfterAnEvent) {
  for (const char* method : {"radau5", "bdf"}) {
    MassMatrixDae d = small_index1();
    // the Jacobian misbehaves from the event on (a step attempted beyond t = 0.5 before the
    // event is located must not trip it: the restart is what this test exercises)
    const auto fired = std::make_shared<bool>(false);
    d.jacobian = [fired](double, VecIn y, Matrix& J) {
      if (*fired) {
        J = Matrix::Zero(3, 1);
        return;
      }
      J(0, 0) = -1;
      J(1, 0) = -2 * y[0];
      J(1, 1) = 1;
    };
    Options o;
    Event e = restart_at_half();
    e.action = [fired](double, Vector&) {
      *fired = true;
      return EventAction::Restart;
    };
    o.events = {e};
    const Result r = solve(d, 0, 1, ones(2), method, o);
    expect_callback_error(r, "3 x 1 matrix, expected 2 x 2", method);
    EXPECT_GE(r.t, 0.5 - 1e-12) << method;
  }
}

TEST(Reliability, Overflow3_ImplicitJacobianResizedAtTheRestart) {
  ImplicitDae F;
  F.n = 2;
  F.differential = {true, false};
  F.F = [](double, VecIn y, VecIn yp, VecOut r) {
    r[0] = yp[0] + y[0];
    r[1] = y[1] - y[0] * y[0];
  };
  F.dF_dy = [](double t, VecIn y, VecIn, Matrix& J) {
    if (t >= 0.5) {
      J.resize(5, 5);
      return;
    }
    J(0, 0) = 1;
    J(1, 0) = -2 * y[0];
    J(1, 1) = 1;
  };
  F.dF_dyp = [](double, VecIn, VecIn, Matrix& J) { J(0, 0) = 1; };
  Options o;
  o.events = {restart_at_half()};
  Vector yp0(2);
  yp0 << -1, 0;
  const Result r = solve(F, 0, 1, ones(2), yp0, "bdf", o);
  expect_callback_error(r, "5 x 5 matrix, expected 2 x 2", "bdf");
}

TEST(Reliability, Overflow4_EventActionResizesTheState) {
  for (const char* method : {"radau5", "bdf"}) {
    Options o;
    Event e = restart_at_half();
    e.action = [](double, Vector& y) {
      y.resize(7);
      y.setZero();
      return EventAction::Restart;
    };
    o.events = {e};
    MassMatrixDae d = small_index1();
    d.jacobian = nullptr;  // the write happened in the difference Jacobian after the resize
    const Result r = solve(d, 0, 1, ones(2), method, o);
    expect_callback_error(r, "resized the state (2 -> 7)", method);
  }
}

// 3. Exceptions escaped solve(): NaN from f right at a BDF restart after an event, and a NaN
//    Jacobian there. Now a status at the event's time, with the trajectory so far.
TEST(Reliability, EscapedException_NaNDuringTheBdfRestart) {
  MassMatrixDae d = small_index1();
  d.f = [](double t, VecIn y, VecOut f) {
    f[0] = -y[0];
    f[1] = t >= 0.5 && t < 0.5 + 1e-9 ? kNaN : y[1] - y[0] * y[0];
  };
  d.jacobian = nullptr;
  Options o;
  o.events = {restart_at_half()};
  Result r;
  EXPECT_NO_THROW(r = solve(d, 0, 1, ones(2), "bdf", o));
  EXPECT_EQ(r.status, Status::RestartFailed) << r.message;
  EXPECT_NE(r.message.find("t = 0.5"), std::string::npos) << r.message;
  EXPECT_GT(r.t_steps.size(), 2u);
}

TEST(Reliability, EscapedException_NaNJacobianAfterTheRestart) {
  MassMatrixDae d = small_index1();
  d.jacobian = [](double t, VecIn y, MatOut J) {
    J(0, 0) = -1;
    J(1, 0) = t >= 0.5 ? kNaN : -2 * y[0];
    J(1, 1) = 1;
  };
  Options o;
  o.events = {restart_at_half()};
  for (const char* method : {"radau5", "bdf"}) {
    Result r;
    EXPECT_NO_THROW(r = solve(d, 0, 1, ones(2), method, o)) << method;
    EXPECT_FALSE(r.ok()) << method;
    EXPECT_NE(r.message.find("Jacobian"), std::string::npos) << method << ": " << r.message;
    EXPECT_GE(r.t, 0.5 - 1e-12) << method;
  }
}

// 4a. A wrong but finite analytic Jacobian (Van der Pol, mu = 100, one entry 1e10 or 1e20):
//     radau5 and bdf returned success with y1 = 3730 / 6210 (true 1.94) or y1 frozen at 2.
TEST(Reliability, SilentWrongAnswer4a_WrongAnalyticJacobianIsCaught) {
  MassMatrixDae d;
  d.n = 2;
  d.name = "van der pol mu = 100";
  const double mu = 100.0;
  d.f = [mu](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = mu * ((1 - y[0] * y[0]) * y[1] - y[0]);
  };
  for (double wrong : {1e10, 1e20}) {
    d.jacobian = [mu, wrong](double, VecIn y, MatOut J) {
      J(0, 1) = wrong;  // should be 1
      J(1, 0) = mu * (-2 * y[0] * y[1] - 1);
      J(1, 1) = mu * (1 - y[0] * y[0]);
    };
    Vector y0(2);
    y0 << 2, 0;
    for (const char* method : {"radau5", "bdf"}) {
      const Result r = solve(d, 0, 1, y0, method);
      EXPECT_EQ(r.status, Status::InvalidInput) << method << " " << wrong;
      EXPECT_NE(r.message.find("(0, 1)"), std::string::npos) << r.message;
    }
    const JacobianCheck c = check_jacobian(d, 0.0, y0);
    EXPECT_FALSE(c.ok);
    ASSERT_FALSE(c.entries.empty());
    EXPECT_EQ(c.entries[0].row, 0);
    EXPECT_EQ(c.entries[0].col, 1);
  }
}

// 4b. radau5 on Robertson with rtol = atol returned success with y = (-4.7e7, -4e-6, 4.7e7) at 8
//     of the 25 tolerances of the IVP Test Set protocol (y1 drifts below zero, and the
//     problem is unstable there). The problem carries its non-negative components
//     (Options::nonnegative, kept within the tolerance): every tolerance now ends in success
//     within 100 times the tolerance asked for, as the sweep benchmark checks for every method.
TEST(Reliability, SilentWrongAnswer4b_RobertsonAtEveryToleranceOfTheProtocol) {
  const BuiltinProblem p = make_builtin_problem("robertson");
  ASSERT_FALSE(p.nonnegative.empty());
  const Vector& ref = p.reference->y;
  for (int m = 0; m <= 24; ++m) {
    Options o;
    o.rtol = o.atol = o.h0 = std::pow(10.0, -4.0 - m / 4.0);
    o.nonnegative = p.nonnegative;
    const Result r = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
    ASSERT_TRUE(r.ok()) << "m = " << m << ": " << r.message;
    for (int i = 0; i < 3; ++i)
      EXPECT_LE(std::abs(r.y[i] - ref[i]), 100 * (o.atol + o.rtol * std::abs(ref[i])))
          << "m = " << m << ", y" << i + 1 << " = " << r.y[i] << " (reference " << ref[i] << ")";
  }
}

// 4c. An event function returning NaN: radau5 missed a root, bdf placed it at 0.51 instead of
//     0.5, no status. Now a callback error at once.
TEST(Reliability, SilentWrongAnswer4c_EventFunctionReturningNaN) {
  for (const char* method : {"radau5", "bdf"}) {
    Options o;
    Event e;
    e.name = "nan switch";
    e.r = [](double t, VecIn, VecIn) { return t > 0.3 && t < 0.6 ? kNaN : t - 0.5; };
    o.events = {e};
    const Result r = solve(small_index1(), 0, 1, ones(2), method, o);
    expect_callback_error(r, "returned NaN or Inf", method);
    EXPECT_NE(r.message.find("nan switch"), std::string::npos) << r.message;
  }
}

// 4d. radau5 accepted inconsistent index-1 initial values (its dense output near t0 was wrong:
//     z(1e-9) = 4.96, consistent 1) where bdf refused them: now both refuse them clearly.
TEST(Reliability, SilentWrongAnswer4d_InconsistentIndex1StartIsRefused) {
  Vector y0(2);
  y0 << 1, 5;  // consistent: y2 = y1^2 = 1
  for (const char* method : {"radau5", "bdf"}) {
    const Result r = solve(small_index1(), 0, 1, y0, method);
    EXPECT_EQ(r.status, Status::InconsistentInitialValues) << method;
    EXPECT_NE(r.message.find("algebraic equation 1"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("daekit::initialize"), std::string::npos) << r.message;
  }
  const InitResult fixed = initialize(small_index1(), 0.0, y0);
  ASSERT_TRUE(fixed.ok) << fixed.message;
  EXPECT_NEAR(fixed.y[1], 1.0, 1e-12);
  EXPECT_TRUE(solve(small_index1(), 0, 1, fixed.y, "radau5").ok());
}

// 4f. Absurd tolerances were accepted and returned success with garbage.
TEST(Reliability, SilentWrongAnswer4f_AbsurdTolerancesAreRejected) {
  for (double atol : {1e308, 1e100, std::numeric_limits<double>::infinity(), kNaN, 0.0, -1.0}) {
    Options o;
    o.atol = atol;
    EXPECT_THROW(solve(small_index1(), 0, 1, ones(2), "radau5", o), InvalidArgument) << atol;
  }
  for (double rtol : {1.0, 2.0, 1e-300, kNaN}) {
    Options o;
    o.rtol = rtol;
    EXPECT_THROW(solve(small_index1(), 0, 1, ones(2), "bdf", o), InvalidArgument) << rtol;
  }
}

// 5. Misleading messages.
TEST(Reliability, Message5_WrongSizeJacobianAfterT0IsNamedAsSuch) {
  for (const char* method : {"radau5", "bdf"}) {
    MassMatrixDae d = small_index1();
    int calls = 0;
    d.jacobian = [&calls](double, VecIn y, Matrix& J) {
      if (++calls > 3) {
        J = Matrix::Identity(4, 4);
        return;
      }
      J(0, 0) = -1;
      J(1, 0) = -2 * y[0];
      J(1, 1) = 1;
    };
    Options o;
    o.rtol = o.atol = 1e-10;
    const Result r = solve(d, 0, 30, ones(2), method, o);
    expect_callback_error(r, "returned output of the wrong size", method);
    EXPECT_NE(r.message.find("4 x 4 matrix"), std::string::npos) << r.message;
  }
}

// An h0 below the resolution of t is invalid input, refused before integrating with the
// reason (it used to end in step_size_too_small after 0 steps, "the solution may be blowing up").
TEST(Reliability, Message5_TinyH0IsRefusedAsBelowTheResolutionOfT) {
  Options o;
  o.h0 = 1e-320;
  for (const char* method : {"radau5", "bdf"}) {
    try {
      solve(small_index1(), 0, 1, ones(2), method, o);
      ADD_FAILURE() << method << ": h0 = 1e-320 accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("below what t can resolve"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Reliability, Message5_BdfNaNAtT0NamesF) {
  MassMatrixDae d = small_index1();
  d.f = [](double, VecIn, VecOut f) { f.setConstant(kNaN); };
  d.jacobian = nullptr;
  Options o;
  o.check_consistency = false;
  const Result r = solve(d, 0, 1, ones(2), "bdf", o);
  EXPECT_EQ(r.status, Status::NonFiniteFunction) << r.message;
  EXPECT_NE(r.message.find("f returned NaN/Inf at t = 0"), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("yp0"), std::string::npos) << r.message;
}

TEST(Reliability, Message5_InfJacobianEveryThirdCallIsSurvivedOrNamed) {
  const BuiltinProblem p = make_builtin_problem("vanderpol");
  for (const char* method : {"radau5", "bdf"}) {
    MassMatrixDae d = p.dae;
    int calls = 0;
    const MassMatrixDae::Jacobian inner = p.dae.jacobian;
    d.jacobian = [&calls, inner](double t, VecIn y, Matrix& J) {
      inner(t, y, J);
      if (++calls % 3 == 0) J(0, 0) = std::numeric_limits<double>::infinity();
    };
    Options o;
    o.rtol = o.atol = 1e-6;
    const Result r = solve(d, p.t0, p.t_end, p.y0, method, o);
    if (!r.ok()) {
      EXPECT_NE(r.message.find("Jacobian"), std::string::npos) << r.message;
    }
    EXPECT_NE(r.status, Status::MaxStepsExceeded) << method << ": " << r.message;
  }
}

// 6. Starting trouble: at t0 = 0 the step could shrink to 3e-168 (|h| < 10 eps |t| never
//    triggers at t = 0); now the floor eps^2 |t_end - t0| ends it with a clear status.
TEST(Reliability, Start6_StepUnderflowAtTZeroIsCaught) {
  for (const char* method : {"radau5", "bdf"}) {
    MassMatrixDae d;
    d.n = 1;
    d.f = [](double, VecIn, VecOut) { throw RecoverableError("outside the model's domain"); };
    Options o;
    o.check_consistency = false;
    o.max_consecutive_failures = 100000;
    const Result r = solve(d, 0, 1, ones(1), method, o);
    EXPECT_FALSE(r.ok());
    EXPECT_LT(r.stats.nsteps, 2000) << method;
    EXPECT_NE(r.message.find("outside the model's domain"), std::string::npos)
        << method << ": " << r.message;
  }
}

// 6. The consistency tolerance follows the tolerances (it was fixed at 1e-6): initial values
//    that meet an algebraic equation to 2.3e-7 are refused at atol = 1e-10, accepted at 1e-6.
TEST(Reliability, Start6_ConsistencyToleranceFollowsAtol) {
  Vector y0(2);
  y0 << 1, 1 + 2.3e-7;
  Options tight;
  tight.rtol = tight.atol = 1e-10;
  EXPECT_EQ(solve(small_index1(), 0, 1, y0, "radau5", tight).status,
            Status::InconsistentInitialValues);
  Options loose;
  loose.rtol = loose.atol = 1e-6;
  EXPECT_TRUE(solve(small_index1(), 0, 1, y0, "radau5", loose).ok());
}

// 6. initialize() on an index-2 model names the constraint equation that does not contain the
//    unknowns (it named an unknown that happened to sit in the kernel).
TEST(Reliability, Start6_Index2InitializationNamesTheConstraint) {
  const BuiltinProblem p = make_builtin_problem("pendulum-index2");
  const ImplicitDae F = to_implicit_form(p.dae);
  Vector y0 = p.y0;
  y0[2] += 0.1;  // inconsistent velocity: Newton must move the unknowns
  const InitResult r = initialize(F, 0.0, y0, Vector::Zero(5), InitMode::DifferentialGiven);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("equation 4 does not determine them"), std::string::npos) << r.message;
}

// "When Newton converges suspiciously (tiny steps, no progress in t) say so": a solution that
// creeps forward in steps near the resolution of t ends with a warning in the report.
TEST(Reliability, SuspiciousProgressIsReported) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn, VecOut f) { f[0] = 0.0; };
  Options o;
  o.fixed_step = true;
  o.h0 = 1e-12;  // 1000 eps-resolution steps: fixed, so the solve does what it is told
  o.max_steps = 500;
  const Result r = solve(d, 1.0, 1.0 + 400e-12, Vector::Ones(1), "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  bool warned = false;
  for (const std::string& w : r.warnings)
    warned = warned || w.find("very slow progress") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_NE(r.report().find("very slow progress"), std::string::npos);
}
