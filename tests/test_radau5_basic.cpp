#include <gtest/gtest.h>

#include <cmath>

#include "daekit/daekit.hpp"

using namespace daekit;

TEST(Radau5Basic, ExponentialDecay) {
  MassMatrixDae dae;
  dae.n = 1;
  dae.f = [](double, VecIn y, VecOut f) { f[0] = -y[0]; };
  Options opt;
  opt.rtol = 1e-8;
  opt.atol = 1e-10;
  Vector y0(1);
  y0 << 1.0;
  Result r = solve(dae, 0.0, 2.0, y0, Radau5Options{}, opt);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NEAR(r.y[0], std::exp(-2.0), 1e-8);
}
