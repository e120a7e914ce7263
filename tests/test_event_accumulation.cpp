// Unit tests of the event locator's parts (src/integrator/events.*): roots inside a step found
// from the interior samples of the dense output, and the accumulation monitor's verdicts on
// geometric (Zeno), constant-rate and chirp-like sequences of event times.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/guard.hpp"
#include "daekit/daekit.hpp"
#include "integrator/events.hpp"
#include "integrator/output.hpp"

using namespace daekit;

namespace {

// y(t) = (t^2 - 0.25, t): r = y_0 has two roots in a step over [-1, 1.2] with r > 0 at both ends.
class TwoRootParabola : public DenseSource {
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

Vector parabola_at(double t) {
  Vector y(2);
  TwoRootParabola().dense(t, y);
  return y;
}

// Feeds event times to a monitor; true if it ever converged.
bool ever_converges(const std::vector<double>& times) {
  AccumulationMonitor m;
  for (double t : times) {
    m.record(t, 1.0);
    if (m.converging()) return true;
  }
  return false;
}

}  // namespace

TEST(EventSampling, FindsBothRootsOfAStepWithEqualSignsAtItsEnds) {
  CallGuard guard;
  Stats stats;
  Event both, falling;
  both.name = "both";
  both.r = [](double, VecIn y, VecIn) { return y[0]; };
  falling.name = "falling";
  falling.r = [](double, VecIn y, VecIn) { return y[0]; };
  falling.direction = -1;
  for (int samples : {0, 1, 3}) {
    EventLocator loc({both, falling}, 2, guard, stats);
    Vector p;
    ASSERT_TRUE(loc.initialize(-1.0, parabola_at(-1.0), Vector::Zero(2), p));
    std::vector<EventRecord> records;
    const EventCut cut =
        loc.process(TwoRootParabola(), -1.0, 1.2, parabola_at(1.2), 1.0, p, records, samples);
    EXPECT_EQ(cut.kind, EventCut::None);
    if (samples == 0) {  // the ends alone show no sign change
      EXPECT_TRUE(records.empty());
      continue;
    }
    // in time order: both functions at -0.5 (falling), then "both" at 0.5 (rising)
    ASSERT_EQ(records.size(), 3u) << samples;
    EXPECT_NEAR(records[0].t, -0.5, 1e-14);
    EXPECT_NEAR(records[1].t, -0.5, 1e-14);
    EXPECT_EQ(records[2].name, "both");
    EXPECT_NEAR(records[2].t, 0.5, 1e-14);
    for (const EventRecord& e : records) {
      // on the far side of each root: r has its new sign there
      EXPECT_GE(e.t, e.t < 0 ? -0.5 : 0.5) << e.name;
      EXPECT_TRUE(e.t < 0 ? e.residual <= 0 : e.residual >= 0) << e.name;
    }
  }
}

// Roots in a step are looked for where r comes near zero compared with how much it changes; a
// root function far from zero is evaluated at the step's end only.
TEST(EventSampling, SamplesOnlyNearARoot) {
  CallGuard guard;
  Stats stats;
  Event far;
  far.r = [](double, VecIn y, VecIn) { return y[1] + 100.0; };  // t + 100 on [-1, 1.2]
  EventLocator loc({far}, 2, guard, stats);
  Vector p;
  ASSERT_TRUE(loc.initialize(-1.0, parabola_at(-1.0), Vector::Zero(2), p));
  std::vector<EventRecord> records;
  // the first step after a start is sampled (nothing is known about r's variation yet)
  loc.process(TwoRootParabola(), -1.0, -0.9, parabola_at(-0.9), 1.0, p, records, 3);
  EXPECT_EQ(stats.nroot, 1 + 1 + 3);
  loc.process(TwoRootParabola(), -0.9, -0.8, parabola_at(-0.8), 1.0, p, records, 3);
  EXPECT_EQ(stats.nroot, 1 + 1 + 3 + 1);
  EXPECT_TRUE(records.empty());
}

TEST(EventAccumulation, GeometricIntervalsConvergeToAitkensLimit) {
  // impacts of a ball with restitution 0.8: t_k = t_Z - c 0.8^k
  constexpr double t_zeno = 9.0, q = 0.8;
  AccumulationMonitor m;
  int converged_at = -1;
  for (int k = 0; k < 12; ++k) {
    m.record(t_zeno - 8.0 * std::pow(q, k), 1.0);
    if (m.converging() && converged_at < 0) converged_at = k;
  }
  // 3 intervals give the first limit, kStableRun more agreeing limits make it converge
  EXPECT_EQ(converged_at, 2 + AccumulationMonitor::kStableRun);
  EXPECT_NEAR(m.limit(), t_zeno, 1e-12);
  EXPECT_NEAR(m.ratio(), q, 1e-12);
  EXPECT_EQ(m.count(), 12);
  // the next interval, 8 * 0.8^12 = 0.55, at a slope of 1: resolved unless r is that uncertain
  m.set_slope(1.0);
  EXPECT_FALSE(m.next_unresolved(1e-3));
  EXPECT_TRUE(m.next_unresolved(0.1));
}

TEST(EventAccumulation, IntervalsAtTheResolutionOfTimeAreUnresolved) {
  AccumulationMonitor m;
  for (int k = 0; k < 40; ++k) m.record(1.0 - std::pow(0.5, k), 1.0);
  ASSERT_TRUE(m.converging());
  m.set_slope(1e30);  // r itself well resolved: the time is not
  EXPECT_TRUE(m.next_unresolved(0.0));
}

TEST(EventAccumulation, BackwardInTime) {
  AccumulationMonitor m;
  for (int k = 0; k < 10; ++k) m.record(-3.0 + 2.0 * std::pow(0.7, k), -1.0);
  ASSERT_TRUE(m.converging());
  EXPECT_NEAR(m.limit(), -3.0, 1e-12);
}

TEST(EventAccumulation, NoLimitForFixedRatesOrChirps) {
  std::vector<double> relay, noisy, chirp_exp, chirp_square;
  for (int k = 1; k <= 2000; ++k) {
    relay.push_back(0.25 * k);
    // a fixed rate with round-off in the event times
    noisy.push_back(0.25 * k + 1e-12 * std::sin(12.9898 * k));
    chirp_exp.push_back(std::log(k * M_PI));      // roots of sin(exp t): intervals ~ 1/k
    chirp_square.push_back(std::sqrt(k * M_PI));  // roots of sin(t^2)
  }
  EXPECT_FALSE(ever_converges(relay));
  EXPECT_FALSE(ever_converges(noisy));
  EXPECT_FALSE(ever_converges(chirp_exp));
  EXPECT_FALSE(ever_converges(chirp_square));
}
