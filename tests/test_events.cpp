// State events (NOTES-004.md ch. 10): root location on the dense output, actions that stop or
// change the state / mode with consistent re-initialisation, for radau5 and BDF.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

constexpr double kG = 9.81;

MassMatrixDae falling_ball() {
  MassMatrixDae d;
  d.n = 2;
  d.name = "bouncing ball";
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = -kG;
  };
  d.jacobian = [](double, VecIn, MatOut J) { J(0, 1) = 1; };
  return d;
}

Result run(const MassMatrixDae& d, double t_end, const Vector& y0, const Options& o, bool bdf) {
  return bdf ? solve(d, 0.0, t_end, y0, BdfOptions{}, o) : solve(d, 0.0, t_end, y0, o);
}

class EventsBothMethods : public ::testing::TestWithParam<bool> {};

}  // namespace

TEST_P(EventsBothMethods, BouncingBall) {
  const bool bdf = GetParam();
  Options o;
  o.rtol = o.atol = 1e-10;
  Event ground;
  ground.name = "ground";
  ground.r = [](double, VecIn y, VecIn) { return y[0]; };
  ground.direction = -1;
  ground.action = [](double, Vector& y) {
    y[1] = -0.9 * y[1];
    return EventAction::Restart;
  };
  o.events = {ground};
  Vector y0(2);
  y0 << 10.0, 0.0;
  const Result r = run(falling_ball(), 8.0, y0, o, bdf);
  ASSERT_TRUE(r.ok()) << r.message;
  // impacts: t1 = sqrt(2 h / g), then flights of 2 * 0.9^k * t1
  const double t1 = std::sqrt(2 * 10.0 / kG);
  std::vector<double> expected{t1};
  double flight = 2 * t1;
  while (true) {
    flight *= 0.9;
    if (expected.back() + flight > 8.0) break;
    expected.push_back(expected.back() + flight);
  }
  ASSERT_EQ(r.events.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(r.events[i].t, expected[i], 1e-7) << (bdf ? "bdf" : "radau5") << " event " << i;
    EXPECT_LE(std::abs(r.events[i].residual), 1e-10 * 10.0);  // |r| relative to the height
  }
  for (size_t i = 0; i < r.y_steps.size(); ++i) EXPECT_GE(r.y_steps[i][0], -1e-9);
}

TEST_P(EventsBothMethods, TerminalEvent) {
  const bool bdf = GetParam();
  Options o;
  o.rtol = o.atol = 1e-10;
  Event ground;
  ground.name = "ground";
  ground.r = [](double, VecIn y, VecIn) { return y[0]; };
  ground.action = [](double, Vector&) { return EventAction::Stop; };
  o.events = {ground};
  Vector y0(2);
  y0 << 10.0, 0.0;
  const Result r = run(falling_ball(), 8.0, y0, o, bdf);
  EXPECT_EQ(r.status, Status::TerminalEvent) << r.message;
  EXPECT_NEAR(r.t, std::sqrt(2 * 10.0 / kG), 1e-8);
  EXPECT_NEAR(r.y[0], 0.0, 1e-9);
  EXPECT_NE(r.message.find("ground"), std::string::npos);
}

TEST_P(EventsBothMethods, ContinueEventsAreRecordedWithDirection) {
  const bool bdf = GetParam();
  MassMatrixDae d;
  d.n = 2;
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = -y[0];
  };
  Options o;
  o.rtol = o.atol = 1e-10;
  Event up;
  up.name = "sin rises through 0";
  up.r = [](double, VecIn y, VecIn) { return y[0]; };
  up.direction = +1;
  o.events = {up};
  Vector y0(2);
  y0 << 0.0, 1.0;  // y1 = sin t: rising zeros at 2 pi, 4 pi (t = 0 is the start)
  const Result r = run(d, 13.0, y0, o, bdf);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_NEAR(r.events[0].t, 2 * M_PI, 1e-7);
  EXPECT_NEAR(r.events[1].t, 4 * M_PI, 1e-7);
}

INSTANTIATE_TEST_SUITE_P(Methods, EventsBothMethods, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "bdf" : "radau5"; });

namespace {

// A temperature loop in the spirit of NOTES-004.md (10.13) (the notes give no parameters):
//   T' = (T_in(t) - T) / tau - Ks z,   I' = (Kp / Ti) e while the valve is free (0 when clamped:
//   anti-windup), e = T - T_set, z_c = Kp e + I, and the valve position z (algebraic) with
//   0 = z - z_c (free), 0 = z - 1 (clamped open), 0 = z (clamped shut).
// T_in ramps 450 -> 520 -> 380 -> 450 so the valve saturates at both ends.
struct ValveModel {
  enum Mode { Free, Open, Shut };
  std::shared_ptr<int> mode = std::make_shared<int>(Free);
  static constexpr double tau = 10, Ks = 10, Tset = 400, Kp = 0.05, Ti = 20;
  static double step(double x) { return 0.5 * (1 + std::tanh(x / 2)); }
  static double T_in(double t) {
    return 450 + 70 * step(t - 50) - 140 * step(t - 150) + 70 * step(t - 250);
  }
  static double zc(VecIn y) { return Kp * (y[0] - Tset) + y[1]; }
  MassMatrixDae dae() const {
    MassMatrixDae d;
    d.n = 3;
    d.name = "PI valve";
    d.mass = Matrix::Zero(3, 3);
    d.mass(0, 0) = d.mass(1, 1) = 1;
    auto m = mode;
    d.f = [m](double t, VecIn y, VecOut f) {
      f[0] = (T_in(t) - y[0]) / tau - Ks * y[2];
      f[1] = *m == Free ? Kp / Ti * (y[0] - Tset) : 0.0;
      f[2] = *m == Free ? y[2] - zc(y) : *m == Open ? y[2] - 1.0 : y[2];
    };
    return d;
  }
  std::vector<Event> events() const {
    auto m = mode;
    Event upper;
    upper.name = "valve at upper limit";
    upper.r = [](double, VecIn y, VecIn) { return zc(y) - 1.0; };
    upper.action = [m](double, Vector&) {
      if (*m == Shut) return EventAction::Continue;
      *m = *m == Free ? Open : Free;
      return EventAction::Restart;
    };
    Event lower;
    lower.name = "valve at lower limit";
    lower.r = [](double, VecIn y, VecIn) { return zc(y); };
    lower.action = [m](double, Vector&) {
      if (*m == Open) return EventAction::Continue;
      *m = *m == Free ? Shut : Free;
      return EventAction::Restart;
    };
    return {upper, lower};
  }
};

}  // namespace

TEST_P(EventsBothMethods, ClampedPiValve) {
  const bool bdf = GetParam();
  ValveModel model;
  const MassMatrixDae d = model.dae();
  Options o;
  o.rtol = o.atol = 1e-8;
  o.events = model.events();
  Vector y0(3);
  y0 << 400, 0.5, 0.5;
  const Result r = run(d, 350.0, y0, o, bdf);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 4u);  // opens fully, frees, shuts, frees
  EXPECT_EQ(r.events[0].name, "valve at upper limit");
  EXPECT_EQ(r.events[2].name, "valve at lower limit");
  for (const EventRecord& e : r.events) EXPECT_LE(std::abs(e.residual), 1e-10) << e.t;
  // The clamp is never violated beyond the integration tolerance: z = z_c holds to the Newton
  // tolerance before a switch (measured overshoot at the located switch: 2.2e-8 with BDF at
  // rtol = atol = 1e-8), and z = 0 or 1 exactly while clamped.
  for (const Vector& y : r.y_steps) {
    EXPECT_GE(y[2], -5 * o.atol);
    EXPECT_LE(y[2], 1.0 + 5 * o.atol) << y[2] - 1.0;
  }
  EXPECT_EQ(*model.mode, ValveModel::Free);
}

TEST(Events, BuiltinPiValveProblem) {
  for (bool bdf : {false, true}) {
    BuiltinProblem p = make_builtin_problem("pi-valve");
    Options o;
    o.rtol = o.atol = p.rtol;
    o.events = p.events;
    const Result r = run(p.dae, p.t_end, p.y0, o, bdf);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.events.size(), 4u) << (bdf ? "bdf" : "radau5");
  }
}

// claim: 004-10-bdf-restart-order1
TEST(Events, BdfRestartsAtOrderOne) {
  ValveModel model;
  const MassMatrixDae d = model.dae();
  Options o;
  o.rtol = o.atol = 1e-8;
  o.events = model.events();
  size_t events_before = 0;
  std::vector<int> first_orders;
  bool expect_restart_step = false;
  o.step_callback = [&](const StepInfo& info) {
    if (expect_restart_step) first_orders.push_back(info.order);
    expect_restart_step = false;
    return true;
  };
  // detect restarts through an event action wrapper
  for (Event& e : o.events) {
    auto inner = e.action;
    e.action = [inner, &expect_restart_step, &events_before](double t, Vector& y, Vector& p) {
      const EventAction a = inner(t, y, p);
      if (a == EventAction::Restart) expect_restart_step = true;
      ++events_before;
      return a;
    };
  }
  Vector y0(3);
  y0 << 400, 0.5, 0.5;
  const Result r = solve(d, 0.0, 350.0, y0, BdfOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(first_orders.size(), 4u);
  for (int k : first_orders) EXPECT_EQ(k, 1);
}

// ---------------------------------------------------------------------------------------------
// Roots inside a step: the root functions are sampled at interior points of the dense output.

namespace {

// y'' = -y, y = sin t; r = y - 0.999 has two roots 0.089 apart near every peak, usually within
// one step (before the interior samples, radau5 at rtol 1e-6 found 14 of the 40).
MassMatrixDae sampling_oscillator() {
  MassMatrixDae d;
  d.n = 2;
  d.name = "oscillator";
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = -y[0];
  };
  d.jacobian = [](double, VecIn, MatOut J) {
    J(0, 1) = 1;
    J(1, 0) = -1;
  };
  return d;
}

Result solve_with(const MassMatrixDae& d, double t_end, const Vector& y0, const Options& o,
                  const std::string& method) {
  if (method == "bdf") return solve(d, 0.0, t_end, y0, BdfOptions{}, o);
  if (method == "dirk") return solve(d, 0.0, t_end, y0, DirkOptions{}, o);
  return solve(d, 0.0, t_end, y0, o);
}

class EventsThreeMethods : public ::testing::TestWithParam<std::string> {};

}  // namespace

// Periodic events in close pairs, 2 per period over 50 periods: all found, at the right times
// (to what the global error allows: the BDF's phase drifts by 2e-3 over 90 periods), and the
// alternating intervals are no accumulation.
TEST_P(EventsThreeMethods, PairsOfRootsWithinOneStep) {
  constexpr double c = 0.999;
  constexpr int periods = 50;
  Options o;
  o.rtol = o.atol = 1e-6;
  Event level;
  level.name = "near the peak";
  level.r = [](double, VecIn y, VecIn) { return y[0] - c; };
  o.events = {level};
  Vector y0(2);
  y0 << 0.0, 1.0;
  const Result r = solve_with(sampling_oscillator(), 2 * M_PI * periods, y0, o, GetParam());
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 2u * periods);
  const double a = std::asin(c);
  for (size_t k = 0; k < r.events.size(); ++k) {
    const double exact = 2 * M_PI * static_cast<double>(k / 2) + (k % 2 == 0 ? a : M_PI - a);
    // |y'| = 0.045 at the roots: a time error of 20 times the error in y
    EXPECT_NEAR(r.events[k].t, exact, 3e-3) << GetParam() << " event " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, EventsThreeMethods, ::testing::Values("radau5", "bdf", "dirk"),
                         [](const auto& info) { return info.param; });

// A root function with its own fast time scale (a carrier, sin(40 t)) on a slow solution: the
// steps follow the solution and cover several half periods of r, so that roots hide between
// the sample points; Event::max_step bounds the step and every root is found.
TEST(Events, MaxStepResolvesAFastRootFunction) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn y, VecOut f) { f[0] = -0.1 * y[0]; };
  Options o;
  o.rtol = o.atol = 1e-6;
  Event carrier;
  carrier.name = "carrier";
  carrier.r = [](double t, VecIn, VecIn) { return std::sin(40 * t); };
  o.events = {carrier};
  Vector y0(1);
  y0 << 1.0;
  const double t_end = 10.0;
  const size_t roots = static_cast<size_t>(std::floor(40 * t_end / M_PI));  // k pi / 40
  const Result loose = solve(d, 0.0, t_end, y0, o);
  ASSERT_TRUE(loose.ok()) << loose.message;
  EXPECT_LT(loose.events.size(), roots);  // what the bound is for
  o.events[0].max_step = M_PI / 40 / 4;   // a quarter of the half period
  const Result r = solve(d, 0.0, t_end, y0, o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), roots);
  for (size_t k = 0; k < roots; ++k)
    EXPECT_NEAR(r.events[k].t, static_cast<double>(k + 1) * M_PI / 40, 1e-9) << k;
  for (size_t k = 1; k < r.t_steps.size(); ++k)
    EXPECT_LE(r.t_steps[k] - r.t_steps[k - 1], o.events[0].max_step * (1 + 1e-12));
}

TEST(Events, MaxStepIsValidated) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn y, VecOut f) { f[0] = -y[0]; };
  Vector y0(1);
  y0 << 1.0;
  for (double bad :
       {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    Options o;
    Event e;
    e.r = [](double, VecIn y, VecIn) { return y[0] - 0.5; };
    e.max_step = bad;
    o.events = {e};
    try {
      solve(d, 0.0, 1.0, y0, o);
      ADD_FAILURE() << "max_step " << bad << " accepted";
    } catch (const InvalidArgument& ex) {
      EXPECT_NE(std::string(ex.what()).find("events[0].max_step"), std::string::npos) << ex.what();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Accumulation of events (Zeno behaviour).

namespace {

constexpr double kZenoG = 9.81, kZenoHeight = 10.0, kRestitution = 0.8;

// y'' = -g from rest at height H, v <- -e v at the floor. Impacts at t_1 = sqrt(2 H / g) and
// then after flights of 2 e^k v_1 / g = 2 e^k t_1 (k = 1, 2, ...): they accumulate at
//   t_Z = t_1 + 2 t_1 (e + e^2 + ...) = t_1 (1 + 2 e / (1 - e)) = t_1 (1 + e) / (1 - e).
Options zeno_ball_options(double tol) {
  Options o;
  o.rtol = o.atol = tol;
  Event floor;
  floor.name = "floor";
  floor.r = [](double, VecIn y, VecIn) { return y[0]; };
  floor.direction = -1;
  floor.action = [](double, Vector& y) {
    y[1] = -kRestitution * y[1];
    return EventAction::Restart;
  };
  o.events = {floor};
  return o;
}

MassMatrixDae zeno_ball() {
  MassMatrixDae d;
  d.n = 2;
  d.name = "bouncing ball";
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = -kZenoG;
  };
  d.jacobian = [](double, VecIn, MatOut J) { J(0, 1) = 1; };
  return d;
}

// The number after `key` in a message.
double number_after(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return std::numeric_limits<double>::quiet_NaN();
  return std::stod(text.substr(at + key.size()));
}

}  // namespace

TEST_P(EventsThreeMethods, BouncingBallEndsAtTheAccumulationPoint) {
  const double t1 = std::sqrt(2 * kZenoHeight / kZenoG);
  const double t_zeno = t1 * (1 + kRestitution) / (1 - kRestitution);
  Vector y0(2);
  y0 << kZenoHeight, 0.0;
  double distance = 1.0;
  for (double tol : {1e-4, 1e-6, 1e-8}) {
    const Options o = zeno_ball_options(tol);
    const Result r = solve_with(zeno_ball(), 20.0, y0, o, GetParam());
    const std::string what = GetParam() + " at tol " + std::to_string(tol);
    ASSERT_EQ(r.status, Status::EventAccumulation) << what << ": " << r.message;
    // stopped at the last resolved impact, before t_Z and close to it (the bounce after it
    // would be below 10 times the tolerance: closer at tighter tolerances)
    EXPECT_LT(r.t, t_zeno) << what;
    EXPECT_LT(t_zeno - r.t, 0.05 * t_zeno) << what;
    EXPECT_LE(t_zeno - r.t, distance) << what;
    distance = t_zeno - r.t;
    ASSERT_FALSE(r.events.empty());
    EXPECT_EQ(r.events.back().t, r.t);
    EXPECT_GE(r.y[0], -tol) << what;  // on the floor, not through it
    for (const auto& y : r.y_steps) EXPECT_GE(y[0], -tol) << what;
    // the message: which event, near which time (Aitken's limit of the impact times), how many
    EXPECT_NE(r.message.find("'floor'"), std::string::npos) << r.message;
    EXPECT_NEAR(number_after(r.message, "near t = "), t_zeno, 1e-6 * t_zeno) << r.message;
    EXPECT_EQ(number_after(r.message, "): "), static_cast<double>(r.events.size())) << r.message;
    EXPECT_NE(r.message.find("new phase"), std::string::npos) << r.message;
  }
}

// Events at a fixed rate many times over are no accumulation: a relay switching a ramp between
// +-1 (a triangle wave, 400 switches, at t = 1, 3, ..., 799) and a sawtooth reset to 0 (300
// resets).
TEST(Events, FrequentEventsAtAFixedRateAreNoAccumulation) {
  MassMatrixDae relay;
  relay.n = 1;
  relay.p = Vector::Ones(1);  // the relay's output, +-1
  relay.f = [](double, VecIn, VecOut f, VecIn p) { f[0] = p[0]; };
  Options o;
  Event upper, lower;
  upper.name = "upper";
  upper.r = [](double, VecIn y, VecIn) { return y[0] - 1.0; };
  upper.direction = 1;
  upper.action = [](double, Vector&, Vector& p) {
    p[0] = -1;
    return EventAction::Restart;
  };
  lower.name = "lower";
  lower.r = [](double, VecIn y, VecIn) { return y[0] + 1.0; };
  lower.direction = -1;
  lower.action = [](double, Vector&, Vector& p) {
    p[0] = 1;
    return EventAction::Restart;
  };
  o.events = {upper, lower};
  Vector y0(1);
  y0 << 0.0;
  for (const std::string method : {"radau5", "bdf", "dirk"}) {
    const Result r = solve_with(relay, 800.0, y0, o, method);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    EXPECT_EQ(r.events.size(), 400u) << method;
  }

  MassMatrixDae ramp;
  ramp.n = 1;
  ramp.f = [](double, VecIn, VecOut f) { f[0] = 1.0; };
  Options s;
  Event reset;
  reset.name = "reset";
  reset.r = [](double, VecIn y, VecIn) { return y[0] - 1.0; };
  reset.action = [](double, Vector& y) {
    y[0] = 0.0;
    return EventAction::Restart;
  };
  s.events = {reset};
  for (const std::string method : {"radau5", "bdf", "dirk"}) {
    const Result r = solve_with(ramp, 300.5, y0, s, method);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    EXPECT_EQ(r.events.size(), 300u) << method;
  }
}
