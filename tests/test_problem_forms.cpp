// Problem forms and their adaptors: SemiExplicitDae -> MassMatrixDae, MassMatrixDae ->
// ImplicitDae, MechanicalSystem -> index-3 form (both variants), and the pendulum in its
// index-3, index-2 and index-1 formulations.
#include <gtest/gtest.h>

#include <cmath>

#include "daekit/daekit.hpp"

using namespace daekit;

TEST(ProblemForms, SemiExplicitIndex1) {
  // y' = -y + z, 0 = z - sin(t): y = exact solution of y' = -y + sin t, y(0) = 0.
  SemiExplicitDae s;
  s.ny = 1;
  s.nz = 1;
  s.name = "semi-explicit";
  s.f = [](double, VecIn y, VecIn z, VecOut out) { out[0] = -y[0] + z[0]; };
  s.g = [](double t, VecIn, VecIn z, VecOut out) { out[0] = z[0] - std::sin(t); };
  const MassMatrixDae d = to_mass_matrix_form(s);
  EXPECT_EQ(d.n, 2);
  EXPECT_EQ(d.algebraic_rows(), std::vector<int>{1});
  Options o;
  o.rtol = o.atol = 1e-10;
  Result r = solve(d, 0.0, 3.0, Vector::Zero(2), Radau5Options{}, o);
  ASSERT_TRUE(r.ok()) << r.message;
  const double t = 3.0, exact = 0.5 * (std::sin(t) - std::cos(t) + std::exp(-t));
  EXPECT_NEAR(r.y[0], exact, 1e-9);
  EXPECT_NEAR(r.y[1], std::sin(t), 1e-9);
  // the same SemiExplicitDae through the BDF (issue 4: BDF usable on all problem forms)
  r = solve(d, 0.0, 3.0, Vector::Zero(2), BdfOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NEAR(r.y[0], exact, 1e-8);
  EXPECT_NEAR(r.y[1], std::sin(t), 1e-8);
}

TEST(ProblemForms, ImplicitFormOfAMassMatrixDae) {
  const BuiltinProblem p = pendulum_index3();
  const ImplicitDae F = to_implicit_form(p.dae);
  EXPECT_EQ(F.n, 5);
  EXPECT_EQ(F.differential, (std::vector<bool>{true, true, true, true, false}));
  Vector yp(5), f(5), res(5);
  p.dae.f(0.0, p.y0, f);
  yp = f;  // M y' = f on the differential rows
  yp[4] = 0.3;
  F.F(0.0, p.y0, yp, res);
  EXPECT_LT(res.head(4).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_NEAR(res[4], -f[4], 1e-15);
  Matrix Jp(5, 5), Jy(5, 5);
  F.dF_dyp(0.0, p.y0, yp, Jp);
  EXPECT_EQ(Jp, p.dae.mass);
  F.dF_dy(0.0, p.y0, yp, Jy);
  EXPECT_EQ(Jy(2, 4), 2.0);  // -(-2 u1)
}

TEST(ProblemForms, MechanicalSystemGeneralMassForm) {
  // The pendulum with the mass matrix treated as q-dependent: y = (q, v, w, lambda).
  MechanicalSystem s = pendulum_mechanical_system();
  s.constant_mass = false;
  s.G = nullptr;          // finite-difference G
  s.curvature = nullptr;  // finite-difference curvature
  const MassMatrixDae d = index3_form(s);
  EXPECT_EQ(d.n, 7);
  EXPECT_EQ(d.index, (std::vector<int>{1, 1, 2, 2, 3, 3, 3}));
  Vector q(2), v(2);
  q << 1, 0;
  v << 0, 0;
  const Vector y0 = index3_initial_values(s, 0.0, q, v);
  EXPECT_NEAR(y0[4], 0.0, 1e-7);   // w1
  EXPECT_NEAR(y0[5], -1.0, 1e-7);  // w2 = -g
  EXPECT_NEAR(y0[6], 0.0, 1e-7);   // lambda
  Options o;
  o.rtol = o.atol = 1e-8;
  Result a = solve(d, 0.0, 3.0, y0, Radau5Options{}, o);
  const BuiltinProblem p = pendulum_index3();
  Result b = solve(p.dae, 0.0, 3.0, p.y0, Radau5Options{}, o);
  ASSERT_TRUE(a.ok()) << a.message;
  ASSERT_TRUE(b.ok());
  // both carry a global error of a few 1e-6 at this tolerance (the index-3 multiplier more)
  EXPECT_LT((a.y.head(4) - b.y.head(4)).cwiseAbs().maxCoeff(), 2e-5);
  EXPECT_NEAR(a.y[6], b.y[4], 1e-3);  // lambda
  EXPECT_LT(a.max_residual.position, 1e-8);
}

TEST(ProblemForms, ConsistentAccelerationOfThePendulumInMotion) {
  const MechanicalSystem s = pendulum_mechanical_system();
  Vector q(2), v(2);
  const double phi = 0.3, omega = 0.7;
  q << std::sin(phi), -std::cos(phi);
  v << std::cos(phi) * omega, std::sin(phi) * omega;
  const AccelerationAndMultipliers a = consistent_acceleration(s, 0.0, q, v);
  EXPECT_NEAR(a.lambda[0], 0.5 * (omega * omega + std::cos(phi)), 1e-12);
  EXPECT_NO_THROW(check_consistent_positions(s, 0.0, q, v, 1e-12));
  const ConstraintResiduals r = constraint_residuals(s, 0.0, q, v, a.w);
  EXPECT_LT(r.acceleration, 1e-12);
}

// The three pendulum formulations: index 3 keeps g = 0; index 2 keeps G v = 0 and lets g
// drift slowly; index 1 drifts in both (NOTES-004.md ch. 3, drift-off).
// claim: 004-3-pendulum-drift
TEST(ProblemForms, PendulumFormulationsAndDrift) {
  Options o;
  o.rtol = o.atol = 1e-6;
  Result r3 = solve(pendulum_index3().dae, 0, 20, pendulum_index3().y0, Radau5Options{}, o);
  Result r2 = solve(pendulum_index2().dae, 0, 20, pendulum_index2().y0, Radau5Options{}, o);
  Result r1 = solve(pendulum_index1().dae, 0, 20, pendulum_index1().y0, Radau5Options{}, o);
  ASSERT_TRUE(r3.ok() && r2.ok() && r1.ok());
  std::printf(
      "max |d1|, |d2| over [0, 20] at tol 1e-6: index 3: %.1e %.1e, index 2: %.1e %.1e, "
      "index 1: %.1e %.1e\n",
      r3.max_residual.position, r3.max_residual.velocity, r2.max_residual.position,
      r2.max_residual.velocity, r1.max_residual.position, r1.max_residual.velocity);
  EXPECT_LT(r3.max_residual.position, 1e-6);
  EXPECT_LT(r2.max_residual.velocity, 1e-5);  // solved to the Newton tolerance
  EXPECT_GT(r1.max_residual.position, 10 * r3.max_residual.position);
  // index-1 drift grows with time: the residual at t = 20 exceeds the one at t = 5
  const auto at = [&](double t) {
    size_t k = 0;
    while (k + 1 < r1.t_steps.size() && r1.t_steps[k] < t) ++k;
    return r1.residual_steps[k].position;
  };
  EXPECT_GT(at(20.0), at(5.0));
}
