// Unit tests of the integrator's parts in their own files: the step-size controllers, the event
// locator and the output sampler (src/integrator/), and the reuse policy (src/nonlinear/).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/guard.hpp"
#include "daekit/daekit.hpp"
#include "integrator/controller.hpp"
#include "integrator/events.hpp"
#include "integrator/output.hpp"
#include "nonlinear/reuse.hpp"

using namespace daekit;

namespace {

// y(t) = (t^2 - 0.25, t), y' = (2 t, 1): a continuous solution for the locator and sampler.
class Parabola : public DenseSource {
 public:
  void dense(double t, VecOut out) const override {
    out[0] = t * t - 0.25;
    out[1] = t;
  }
  void dense_derivative(double t, VecOut out) const override {
    out[0] = 2 * t;
    out[1] = 1;
  }
};

Vector at(double t) {
  Vector y(2);
  Parabola().dense(t, y);
  return y;
}

}  // namespace

TEST(Controller, ClassicalGustafssonAndPi) {
  Options o;
  o.safety = 0.9;
  o.max_increase = 8;
  o.max_decrease = 5;
  o.controller = Controller::Classical;
  ErrorProposal c(o, o.max_increase);
  // h_new = h / clamp(err^(1/k) / fac)
  EXPECT_NEAR(c.propose(1.0, 0.5, 4, 1.0, true), 0.9 / std::pow(0.5, 0.25), 1e-14);
  EXPECT_NEAR(c.propose(1.0, 1e-12, 4, 1.0, true), 8.0, 1e-14);  // max_increase
  EXPECT_NEAR(c.propose(1.0, 1e12, 4, 1.0, false), 0.2, 1e-14);  // max_decrease
  EXPECT_NEAR(c.propose(1.0, 0.5, 4, 0.5, true), 0.45 / std::pow(0.5, 0.25), 1e-14);
  // Gustafsson: after a previous accepted step, also (h_acc/h) (err^2/err_acc)^(1/k) / safety
  o.controller = Controller::Gustafsson;
  ErrorProposal g(o, o.max_increase);
  g.propose(1.0, 0.5, 4, 1.0, true);
  const double q_class = std::pow(0.8, 0.25) / 0.9;
  const double q_pred = (1.0 / 2.0) * std::pow(0.8 * 0.8 / 0.5, 0.25) / 0.9;
  EXPECT_NEAR(g.propose(2.0, 0.8, 4, 1.0, true), 2.0 / std::max(q_class, q_pred), 1e-14);
  g.reset();
  EXPECT_NEAR(g.propose(2.0, 0.8, 4, 1.0, true), 2.0 / q_class, 1e-14);
  // PI: err^(0.7/k) err_acc^(-0.4/k) / fac
  o.controller = Controller::PI;
  ErrorProposal pi(o, o.max_increase);
  pi.propose(1.0, 0.5, 4, 1.0, true);
  const double q_pi = std::pow(0.8, 0.7 / 4) * std::pow(0.5, -0.4 / 4) / 0.9;
  EXPECT_NEAR(pi.propose(2.0, 0.8, 4, 1.0, true), 2.0 / q_pi, 1e-14);
}

// DASSL's rule after an accepted step decides most steps by comparisons instead of pow
// (controller.hpp): the same step sizes to the bit as the formula, also next to its bounds.
TEST(Controller, DasslRuleAfterAcceptIsThePowFormula) {
  const auto formula = [](double h, double err, int k) {
    const double r = std::pow(2.0 * err + 1e-4, -1.0 / k);
    if (r >= 2.0) return 2.0 * h;
    if (r <= 1.0) return h * std::clamp(r, 0.5, 0.9);
    return h;
  };
  long checked = 0;
  for (int k = 1; k <= 7; ++k) {
    std::vector<double> xs;  // x = 2 err + 1e-4 at and next to the bounds 2^-k, 1, 0.9^-k, 2^k
    for (double bound : {std::ldexp(1.0, -k), 1.0, std::pow(0.9, -k), std::ldexp(1.0, k)})
      for (double rel : {0.0, 1e-16, 1e-12, 1e-10, 1e-9, 2e-9, 1e-8, 1e-3, 0.1})
        for (double sign : {-1.0, 1.0}) {
          double x = bound * (1.0 + sign * rel);
          xs.push_back(x);
          for (int u = 0; u < 3; ++u) xs.push_back(x = std::nextafter(x, sign * 1e300));
        }
    for (double e = -12; e <= 6; e += 0.01) xs.push_back(std::pow(10.0, e));
    for (double x : xs) {
      const double err = (x - 1e-4) / 2.0;
      for (double h : {1e-3, -0.25}) {
        StepBasis b;
        b.err = err;
        b.k = k;
        const double got = DasslStepRule::after_accept(h, b), want = formula(h, err, k);
        ASSERT_EQ(got, want) << "k " << k << " err " << err << " h " << h;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000);
  StepBasis b;
  b.k = 3;
  b.err = std::numeric_limits<double>::infinity();
  EXPECT_EQ(DasslStepRule::after_accept(1.0, b), 0.5);
  b.err = std::numeric_limits<double>::quiet_NaN();  // as the formula: r = NaN keeps h
  EXPECT_EQ(DasslStepRule::after_accept(1.0, b), 1.0);
  b.err = 0.0;
  b.start_phase = true;
  EXPECT_EQ(DasslStepRule::after_accept(1.0, b), 2.0);
}

TEST(EventLocator, LocatesRootsHonoursDirectionsAndStops) {
  CallGuard guard;
  Stats stats;
  Event up, down, stop;
  up.name = "up";
  up.r = [](double, VecIn y, VecIn) { return y[0]; };  // root at t = 0.5, rising
  up.direction = 1;
  down.name = "down";
  down.r = [](double, VecIn y, VecIn) { return y[0]; };
  down.direction = -1;  // the falling crossing: none in [0, 1]
  stop.name = "stop";
  stop.r = [](double, VecIn y, VecIn yp) { return y[1] - 0.75 + 0 * yp[0]; };
  stop.action = [](double, Vector&) { return EventAction::Stop; };
  EventLocator loc({up, down, stop}, 2, guard, stats);
  Vector p;
  ASSERT_TRUE(loc.initialize(0.0, at(0.0), Vector::Zero(2), p));
  std::vector<EventRecord> records;
  const EventCut cut = loc.process(Parabola(), 0.0, 1.0, at(1.0), 1.0, p, records);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name, "up");
  EXPECT_NEAR(records[0].t, 0.5, 1e-14);
  EXPECT_GE(records[0].t, 0.5);  // on the far side of the root
  EXPECT_EQ(records[1].name, "stop");
  EXPECT_NEAR(records[1].t, 0.75, 1e-14);
  EXPECT_EQ(cut.kind, EventCut::Stop);
  EXPECT_GT(stats.nroot, 6);
  EXPECT_EQ(stats.nevents, 2);
}

TEST(EventLocator, NaNFromARootFunctionIsAFailure) {
  CallGuard guard;
  Stats stats;
  Event e;
  e.name = "broken";
  e.r = [](double t, VecIn, VecIn) {
    return t > 0.5 ? std::numeric_limits<double>::quiet_NaN() : -1.0;
  };
  EventLocator loc({e}, 2, guard, stats);
  Vector p;
  ASSERT_TRUE(loc.initialize(0.0, at(0.0), Vector::Zero(2), p));
  std::vector<EventRecord> records;
  const EventCut cut = loc.process(Parabola(), 0.0, 1.0, at(1.0), 1.0, p, records);
  EXPECT_EQ(cut.kind, EventCut::Failure);
  EXPECT_TRUE(guard.fatal());
  EXPECT_NE(guard.failure().describe().find("broken"), std::string::npos);
}

TEST(OutputSampler, SamplesInEitherDirection) {
  Result r;
  OutputSampler s;
  s.setup({1.0, 0.0, 0.25, 0.5}, 0.0, 1.0);
  s.at_start(at(0.0), r);
  ASSERT_EQ(r.t_out.size(), 1u);
  Vector work(2);
  s.upto(0.4, Parabola(), work, r);
  ASSERT_EQ(r.t_out.size(), 2u);
  EXPECT_EQ(r.t_out[1], 0.25);
  EXPECT_NEAR(r.y_out[1][0], 0.25 * 0.25 - 0.25, 1e-15);
  s.upto(1.0, Parabola(), work, r);
  EXPECT_EQ(r.t_out.size(), 4u);
  EXPECT_FALSE(s.pending());
  // backwards
  Result b;
  OutputSampler back;
  back.setup({0.2, 0.8}, 1.0, 0.0);
  back.upto(0.5, Parabola(), work, b);
  ASSERT_EQ(b.t_out.size(), 1u);
  EXPECT_EQ(b.t_out[0], 0.8);
  EXPECT_THROW(back.setup({1.5}, 1.0, 0.0), InvalidArgument);
}

TEST(ReusePolicy, RadauAndDasslConstants) {
  const ReusePolicy r = ReusePolicy::radau5(0.001, 1.0, 1.2);
  EXPECT_TRUE(r.keep_jacobian(0.001));
  EXPECT_FALSE(r.keep_jacobian(0.01));
  EXPECT_TRUE(r.keep_factorisation(1.1));
  EXPECT_FALSE(r.keep_factorisation(0.99));
  const ReusePolicy d = ReusePolicy::dassl();
  EXPECT_FALSE(d.keep_jacobian(0.0));
  EXPECT_TRUE(d.keep_factorisation(0.6));
  EXPECT_TRUE(d.keep_factorisation(1.6));
  EXPECT_FALSE(d.keep_factorisation(1.7));
}
