// Bad input gets a clear error, never a crash or a silent wrong answer (developers' brief):
// wrong sizes, bad tolerances, NaN/Inf from user functions, singular iteration matrices,
// inconsistent initial values, step size underflow, too many steps.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

MassMatrixDae decay(int n = 2) {
  MassMatrixDae d;
  d.n = n;
  d.name = "decay";
  d.f = [](double, VecIn y, VecOut f) { f = -y; };
  return d;
}

// Runs f and returns the InvalidArgument message (empty if none was thrown).
template <typename F>
std::string message_of(F f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(Errors, WrongSizes) {
  MassMatrixDae d = decay();
  EXPECT_NE(message_of([&] { solve(d, 0, 1, Vector::Ones(3)); }).find("size 3"), std::string::npos);
  d.mass = Matrix::Identity(3, 3);
  EXPECT_NE(message_of([&] { solve(d, 0, 1, Vector::Ones(2)); }).find("mass matrix is 3 x 3"),
            std::string::npos);
  d = decay();
  d.index = {1, 4};
  EXPECT_NE(message_of([&] { solve(d, 0, 1, Vector::Ones(2)); }).find("index tag"),
            std::string::npos);
  d = decay();
  d.index = {1};
  EXPECT_NE(message_of([&] { solve(d, 0, 1, Vector::Ones(2)); }).find("index tags have size"),
            std::string::npos);
  d = decay();
  Options o;
  o.atol_vector = Vector::Ones(5);
  EXPECT_NE(
      message_of([&] { solve(d, 0, 1, Vector::Ones(2), Radau5Options{}, o); }).find("atol_vector"),
      std::string::npos);
  MassMatrixDae empty;
  EXPECT_NE(message_of([&] { solve(empty, 0, 1, Vector::Ones(1)); }).find("n must be positive"),
            std::string::npos);
  MassMatrixDae nof;
  nof.n = 1;
  EXPECT_NE(message_of([&] { solve(nof, 0, 1, Vector::Ones(1)); }).find("f is not set"),
            std::string::npos);
}

TEST(Errors, BadTolerancesAndOptions) {
  const MassMatrixDae d = decay();
  const Vector y0 = Vector::Ones(2);
  for (double rtol : {0.0, -1e-6, 1.0, std::numeric_limits<double>::quiet_NaN()}) {
    Options o;
    o.rtol = rtol;
    EXPECT_NE(message_of([&] { solve(d, 0, 1, y0, Radau5Options{}, o); }).find("rtol"),
              std::string::npos);
  }
  for (double atol : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    Options o;
    o.atol = atol;
    EXPECT_NE(message_of([&] { solve(d, 0, 1, y0, Radau5Options{}, o); }).find("atol"),
              std::string::npos);
  }
  Options o;
  o.atol_vector = Vector::Ones(2);
  o.atol_vector[1] = 0.0;
  EXPECT_NE(message_of([&] { solve(d, 0, 1, y0, Radau5Options{}, o); }).find("atol_vector[1]"),
            std::string::npos);
  EXPECT_NE(message_of([&] { solve(d, 1, 1, y0); }).find("t_end equals t0"), std::string::npos);
  Options fixed;
  fixed.fixed_step = true;
  EXPECT_NE(message_of([&] { solve(d, 0, 1, y0, Radau5Options{}, fixed); }).find("h0"),
            std::string::npos);
  Options out;
  out.output_times = {2.0};
  EXPECT_NE(message_of([&] { solve(d, 0, 1, y0, Radau5Options{}, out); }).find("outside"),
            std::string::npos);
  Radau5Options m;
  m.max_newton_iterations = 0;
  EXPECT_NE(message_of([&] { solve(d, 0, 1, y0, m); }).find("max_newton_iterations"),
            std::string::npos);
  for (int min_iterations : {0, 5}) {  // outside [1, max_newton_iterations = 4]
    BdfOptions b;
    b.min_newton_iterations = min_iterations;
    EXPECT_NE(message_of([&] { solve(d, 0, 1, y0, b); }).find("min_newton_iterations"),
              std::string::npos);
  }
  Vector bad = y0;
  bad[0] = std::nan("");
  EXPECT_NE(message_of([&] { solve(d, 0, 1, bad); }).find("NaN"), std::string::npos);
}

TEST(Errors, PersistentNaNStopsWithClearStatus) {
  MassMatrixDae d = decay(1);
  d.f = [](double t, VecIn y, VecOut f) {
    f[0] = t > 0.5 ? std::numeric_limits<double>::quiet_NaN() : -y[0];
  };
  Result r = solve(d, 0, 1, Vector::Ones(1));
  EXPECT_EQ(r.status, Status::NonFiniteFunction) << r.message;
  EXPECT_NE(r.message.find("NaN"), std::string::npos) << r.message;
  EXPECT_LE(r.t, 0.5);
  EXPECT_TRUE(std::isfinite(r.y[0]));
}

TEST(Errors, NaNAtStartIsReported) {
  MassMatrixDae d = decay(1);
  d.f = [](double, VecIn, VecOut f) { f[0] = std::numeric_limits<double>::infinity(); };
  Result r = solve(d, 0, 1, Vector::Ones(1));
  EXPECT_EQ(r.status, Status::NonFiniteFunction);
  EXPECT_NE(r.message.find("f returned NaN/Inf at t = 0"), std::string::npos) << r.message;
}

TEST(Errors, TransientNaNIsRecoveredByShrinkingTheStep) {
  // f is NaN where y < 0, which the stages of too large steps visit for y' = -sqrt(y)-like
  // decay; the solver must shrink the step and still reach the right answer.
  MassMatrixDae d = decay(1);
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[0] < 0 ? std::numeric_limits<double>::quiet_NaN() : -50.0 * y[0];
  };
  Options o;
  o.h0 = 0.5;  // far too large: the first stages overshoot
  o.rtol = o.atol = 1e-8;
  Result r = solve(d, 0, 1, Vector::Ones(1), Radau5Options{}, o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NEAR(r.y[0], std::exp(-50.0), 1e-8);
}

TEST(Errors, SingularIterationMatrix) {
  // 0 = y1 - y2, 0 = y1 - y2: the algebraic part has a singular Jacobian (not index 1).
  MassMatrixDae d;
  d.n = 2;
  d.mass = Matrix::Zero(2, 2);
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[0] - y[1];
    f[1] = y[0] - y[1];
  };
  Result r = solve(d, 0, 1, Vector::Ones(2));
  EXPECT_EQ(r.status, Status::SingularMatrix) << r.message;
  EXPECT_NE(r.message.find("singular"), std::string::npos);
}

TEST(Errors, StepSizeUnderflowAtABlowUp) {
  // y' = y^2, y(0) = 1 blows up at t = 1.
  MassMatrixDae d = decay(1);
  d.f = [](double, VecIn y, VecOut f) { f[0] = y[0] * y[0]; };
  Options o;
  o.max_steps = 1000000;
  Result r = solve(d, 0, 2, Vector::Ones(1), Radau5Options{}, o);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status == Status::StepSizeTooSmall || r.status == Status::NonFiniteFunction ||
              r.status == Status::RepeatedNewtonFailure)
      << to_string(r.status) << ": " << r.message;
  EXPECT_LE(r.t, 1.0 + 1e-4) << r.message << " y = " << r.y[0];
  EXPECT_GT(r.t, 0.99);
  EXPECT_GT(r.y[0], 1e6);  // stopped on the way up, not on some other branch
  EXPECT_FALSE(r.message.empty());
}

TEST(Errors, TooManySteps) {
  const BuiltinProblem p = van_der_pol();
  Options o;
  o.max_steps = 10;
  Result r = solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
  EXPECT_EQ(r.status, Status::MaxStepsExceeded);
  EXPECT_NE(r.message.find("max_steps = 10"), std::string::npos);
  EXPECT_GT(r.t, p.t0);
}

TEST(Errors, InconsistentInitialValuesNameTheConstraint) {
  const BuiltinProblem p = pendulum_index3();
  Vector y0 = p.y0;
  y0[0] = 1.1;  // |u|^2 - 1 = 0.21
  Result r = solve(p.dae, p.t0, p.t_end, y0);
  EXPECT_EQ(r.status, Status::InconsistentInitialValues);
  EXPECT_NE(r.message.find("algebraic equation 4"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("0.21"), std::string::npos) << r.message;
  // velocity level: the hidden constraint u.v = 0 is checked through the monitor
  y0 = p.y0;
  y0[2] = 0.3;  // v1 != 0 at u = (1, 0)
  r = solve(p.dae, p.t0, p.t_end, y0);
  EXPECT_EQ(r.status, Status::InconsistentInitialValues);
  EXPECT_NE(r.message.find("velocity constraint"), std::string::npos) << r.message;
  // the check can be switched off
  Options o;
  o.check_consistency = false;
  o.max_steps = 50;
  r = solve(p.dae, p.t0, p.t_end, y0, Radau5Options{}, o);
  EXPECT_NE(r.status, Status::InconsistentInitialValues);
}

TEST(Errors, MechanicalSystemDiagnostics) {
  MechanicalSystem s = pendulum_mechanical_system();
  Vector q(2), v(2);
  q << 0.8, 0.0;
  v << 0.0, 0.0;
  EXPECT_NE(message_of([&] {
              check_consistent_positions(s, 0, q, v, 1e-10);
            }).find("violate constraint 0"),
            std::string::npos);
  // rank-deficient G: a duplicated constraint
  MechanicalSystem twice = s;
  twice.nlambda = 2;
  twice.g = [](double, VecIn q, VecOut g) { g[0] = g[1] = q.squaredNorm() - 1; };
  twice.G = [](double, VecIn q, MatOut G) {
    G.row(0) << 2 * q[0], 2 * q[1];
    G.row(1) << 2 * q[0], 2 * q[1];
  };
  twice.curvature = nullptr;
  q << 1.0, 0.0;
  EXPECT_NE(message_of([&] { consistent_acceleration(twice, 0, q, v); }).find("constraint 1"),
            std::string::npos);
}

TEST(Errors, SemiExplicitValidation) {
  SemiExplicitDae s;
  s.ny = 1;
  s.nz = 1;
  s.f = [](double, VecIn, VecIn z, VecOut f) { f[0] = z[0]; };
  EXPECT_NE(message_of([&] { to_mass_matrix_form(s); }).find("g is not set"), std::string::npos);
}

TEST(Errors, JacobianOfTheWrongSize) {
  MassMatrixDae d = decay(2);
  d.jacobian = [](double, VecIn, Matrix& J) { J = Matrix::Identity(3, 3); };
  // a callback's output of the wrong size is a callback error at the time it happens, with the
  // sizes named (checked after every call, never read)
  for (const MethodChoice& m : {MethodChoice("radau5"), MethodChoice("bdf")}) {
    const Result r = solve(d, 0, 1, Vector::Ones(2), m);
    EXPECT_EQ(r.status, Status::CallbackError) << m.name();
    EXPECT_NE(r.message.find("the Jacobian returned output of the wrong size at t = "),
              std::string::npos)
        << r.message;
    EXPECT_NE(r.message.find("3 x 3 matrix, expected 2 x 2"), std::string::npos) << r.message;
  }
  ImplicitDae F;
  F.n = 2;
  F.F = [](double, VecIn y, VecIn yp, VecOut r) { r = yp + y; };
  F.dF_dy = [](double, VecIn, VecIn, Matrix& J) { J = Matrix::Identity(2, 2); };
  F.dF_dyp = [](double, VecIn, VecIn, Matrix& J) { J.resize(1, 2); };
  const Result r2 = solve(F, 0, 1, Vector::Ones(2), -Vector::Ones(2), BdfOptions{}, Options{});
  EXPECT_EQ(r2.status, Status::CallbackError);
  EXPECT_NE(r2.message.find("dF/dy' returned output of the wrong size"), std::string::npos)
      << r2.message;
}

TEST(Errors, BdfBadInput) {
  ImplicitDae F;
  F.n = 1;
  F.F = [](double t, VecIn y, VecIn yp, VecOut r) {
    r[0] = t > 0.5 ? std::numeric_limits<double>::quiet_NaN() : yp[0] + y[0];
  };
  const Vector y0 = Vector::Ones(1), yp0 = -Vector::Ones(1);
  const Result nan = solve(F, 0, 1, y0, yp0, BdfOptions{}, Options{});
  EXPECT_EQ(nan.status, Status::NonFiniteFunction) << nan.message;
  EXPECT_LE(nan.t, 0.5);
  Options bad;
  bad.rtol = -1;
  EXPECT_NE(message_of([&] { solve(F, 0, 1, y0, yp0, BdfOptions{}, bad); }).find("rtol"),
            std::string::npos);
  bad = Options{};
  bad.atol = 0;
  EXPECT_NE(message_of([&] { solve(F, 0, 1, y0, yp0, BdfOptions{}, bad); }).find("atol"),
            std::string::npos);
  // an unreachable t_end: y' = y^2 blows up at t = 1
  ImplicitDae blow;
  blow.n = 1;
  blow.F = [](double, VecIn y, VecIn yp, VecOut r) { r[0] = yp[0] - y[0] * y[0]; };
  const Result r = solve(blow, 0, 2, y0, Vector::Ones(1), BdfOptions{}, Options{});
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.t, 1.0 + 1e-3);
  EXPECT_FALSE(r.message.empty());
  std::printf("BDF beyond a blow-up: %s: %s\n", to_string(r.status), r.message.c_str());
}

TEST(Errors, BdfRefusesIndex3) {
  const BuiltinProblem p = pendulum_index3();
  EXPECT_NE(message_of([&] { solve(p.dae, p.t0, p.t_end, p.y0, BdfOptions{}); }).find("index-3"),
            std::string::npos);
}
