// Coordinate projection (3.10) and invariant projection (3.13) of NOTES-004.md ch. 3, used
// after the steps of radau5: the Jacobi integral of the moon flight (ch. 8) and the drift of
// the index-1 pendulum.
#include <gtest/gtest.h>

#include <cmath>

#include "daekit/daekit.hpp"

using namespace daekit;

// claim: 004-8-jacobi-values
TEST(Invariants, JacobiIntegralValuesOfChapter8) {
  // NOTES-004.md ch. 8 [CALC]: J0 = -1.7525030, -1.2725030, -0.8975030, +0.1224970
  const double expected[] = {-1.7525030, -1.2725030, -0.8975030, 0.1224970};
  int k = 0;
  for (double v : {0.5, 1.1, 1.4, 2.0}) {
    const BuiltinProblem p = moon_flight(v);
    EXPECT_NEAR(moon_jacobi_integral(p.y0), expected[k++], 5e-8) << v;
  }
}

// claim: 004-3-invariant-projection
TEST(Invariants, ProjectionKeepsTheJacobiIntegral) {
  BuiltinProblem p = moon_flight(1.4);
  Options o;
  o.rtol = o.atol = 1e-6;
  o.store_steps = true;
  const Vector y0 = p.y0;
  auto drift = [&](const Result& r) {
    double worst = 0.0;
    for (const Vector& y : r.y_steps)
      worst = std::max(worst, std::abs(moon_jacobi_integral(y) - moon_jacobi_integral(y0)));
    return worst;
  };
  const Result plain = solve(p.dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
  p.dae.project = coordinate_projector(invariants(
      1, [](VecIn y, VecOut phi) { phi[0] = moon_jacobi_integral(y); }, y0));
  Radau5Options m;
  m.projection = Projection::Full;
  const Result projected = solve(p.dae, p.t0, p.t_end, p.y0, m, o);
  ASSERT_TRUE(plain.ok() && projected.ok()) << projected.message;
  std::printf(
      "moon flight, tol 1e-6: max |J - J0| %.2e without, %.2e with projection (%ld / %ld "
      "steps)\n",
      drift(plain), drift(projected), plain.stats.naccept, projected.stats.naccept);
  EXPECT_GT(drift(plain), 1e-8);
  EXPECT_LT(drift(projected), 1e-11);
  EXPECT_EQ(projected.stats.nproject, projected.stats.naccept);
  // the projected trajectory still reaches the moon's neighbourhood like the plain one
  EXPECT_LT((projected.y.head(2) - plain.y.head(2)).norm(), 1e-2);
}

// claim: 004-3-coordinate-projection
TEST(Invariants, CoordinateProjectionRemovesIndex1Drift) {
  const MechanicalSystem sys = pendulum_mechanical_system();
  MassMatrixDae dae = formulate(sys, Formulation::Index1);
  Vector q0(2), v0(2);
  q0 << 1, 0;
  v0 << 0, 0;
  const Vector y0 = initial_values(sys, Formulation::Index1, 0.0, q0, v0);
  Options o;
  o.rtol = o.atol = 1e-4;  // radau5 works at rtol' = 1e-5: the index-1 form drifts visibly
  const Result drifting = solve(dae, 0.0, 50.0, y0, Radau5Options{}, o);
  dae.project = coordinate_projector(mechanical_constraints(sys, Formulation::Index1));
  Radau5Options m;
  m.projection = Projection::Full;
  const Result projected = solve(dae, 0.0, 50.0, y0, m, o);
  ASSERT_TRUE(drifting.ok() && projected.ok()) << projected.message;
  EXPECT_GT(drifting.max_residual.position, 1e-6);
  EXPECT_LT(projected.max_residual.position, 1e-12);
  EXPECT_LT(projected.max_residual.velocity, 1e-12);
  const Vector ref = pendulum_reference(50.0);
  EXPECT_LT((projected.y.head(4) - ref.head(4)).cwiseAbs().maxCoeff(),
            (drifting.y.head(4) - ref.head(4)).cwiseAbs().maxCoeff() * 2);
}

TEST(Invariants, FailingProjectionIsReported) {
  // c(y) = y1^2 + 1 has no zero: the projection fails, the step is rejected, and the solve
  // stops with a clear status instead of a wrong answer.
  MassMatrixDae d;
  d.n = 2;
  d.f = [](double, VecIn y, VecOut f) { f = -y; };
  ManifoldEquations eq;
  eq.k = 1;
  eq.c = [](double, VecIn y, VecOut c) { c[0] = y[0] * y[0] + 1.0; };
  d.project = coordinate_projector(eq);
  Radau5Options m;
  m.projection = Projection::Full;
  const Result r = solve(d, 0.0, 1.0, Vector::Ones(2), m);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("projection"), std::string::npos) << r.message;
}
