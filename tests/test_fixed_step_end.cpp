// Options::fixed_step over many steps: t accumulates the rounding of every addition, and the
// step that reaches t_end must absorb it instead of leaving a remainder of a few ulps for an
// extra step of size ~1e-14 (which for index-2 DAEs gives a multiplier of size eps / h).
#include <gtest/gtest.h>

#include "daekit/daekit.hpp"

using namespace daekit;

TEST(FixedStep, NoRoundOffRemainderAfterManySteps) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn y, VecOut f) { f[0] = -y[0]; };
  const double T = 0.03;
  const int n = 16384;  // T / n is not a binary fraction: t drifts by ~1e-14 over the steps
  Options o;
  o.fixed_step = true;
  o.h0 = T / n;
  o.store_steps = false;
  ProjectedRkOptions m;
  m.tableau = radau_iia(1);  // implicit Euler: cheap
  const Result r = solve(d, 0.0, T, Vector::Ones(1), m, o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.stats.naccept, n);
  EXPECT_EQ(r.t, T);
  EXPECT_NEAR(r.h_last, T / n, 1e-6 * T / n);  // the last step absorbs the drift of t
}
