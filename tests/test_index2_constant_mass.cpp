// Hessenberg index-2 problems M x' = F with a constant, non-identity M on the differential part
// (a(t, y) = M_yy y) and several multipliers: hem multiplies f_z by M_yy^{-1} column by column
// (it solved the n x m matrix as one vector of length n m, reading and writing past the LU's
// size: a crash for m >= 2).
#include <gtest/gtest.h>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// Two copies of el-manufactured (x' = omega(x) (-x2, x1) + phi(x) x - 2 x lambda on the unit
// circle), started half a time unit apart, both multiplied by M_yy = [2 1; 1 2] per circle:
// M_yy x' = M_yy (f - G^T lambda), 0 = |x|^2 - 1 (the solution of el-manufactured).
MassMatrixDae two_circles_with_mass() {
  MassMatrixDae d;
  d.n = 6;
  d.name = "two circles, M_yy = [2 1; 1 2]";
  d.mass = Matrix::Zero(6, 6);
  for (int c = 0; c < 4; c += 2) d.mass.block(c, c, 2, 2) << 2.0, 1.0, 1.0, 2.0;
  d.index = {1, 1, 1, 1, 2, 2};
  d.f = [](double, VecIn y, VecOut F) {
    for (int k = 0; k < 2; ++k) {
      const int i = 2 * k;
      const double omega = 1.0 + y[i + 1] / 2.0, phi = 1.0 + y[i], lambda = y[4 + k];
      const double r0 = -omega * y[i + 1] + phi * y[i] - 2.0 * y[i] * lambda;
      const double r1 = omega * y[i] + phi * y[i + 1] - 2.0 * y[i + 1] * lambda;
      F[i] = 2.0 * r0 + r1;
      F[i + 1] = r0 + 2.0 * r1;
      F[4 + k] = y[i] * y[i] + y[i + 1] * y[i + 1] - 1.0;
    }
  };
  return d;
}

Vector two_circles_solution(double t) {
  const Vector a = manufactured_euler_lagrange_solution(t);
  const Vector b = manufactured_euler_lagrange_solution(t + 0.5);
  Vector y(6);
  y << a[0], a[1], b[0], b[1], a[2], b[2];
  return y;
}

}  // namespace

TEST(Index2ConstantMass, HemAndSparkSolveTwoMultipliersWithNonIdentityMass) {
  const MassMatrixDae dae = two_circles_with_mass();
  for (const char* method : {"hem", "spark"}) {
    Options o;
    o.rtol = o.atol = 1e-8;
    const Result r = solve(dae, 0.0, 3.0, two_circles_solution(0.0), method, o);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    const double err = (r.y - two_circles_solution(3.0)).head(4).cwiseAbs().maxCoeff();
    EXPECT_LT(err, 1e-6) << method;
    EXPECT_LT(r.max_residual.position, 1e-7) << method;
  }
}
