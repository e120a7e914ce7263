// Adjoint gradients (integrator/adjoint.hpp) against the forward sensitivities' gradient: a
// terminal functional on Robertson's kinetics (ODE, three rate constants), an integral
// functional (the forward reference integrates q as one more component, Q' = q, whose forward
// sensitivity is dQ/dp), Robertson as an index-1 DAE with a singular M (a functional of the
// algebraic component: the terminal term -nu^T L^T f_p), the memory bound of the
// checkpointing, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// Robertson's kinetics with p = (k1, k2, k3); M = diag(1, 1, 0) and the conservation law for
// y3 when `dae` (index 1); a fourth component Q' = q(y) when `with_q` (the forward reference
// of an integral functional).
MassMatrixDae adjoint_test_robertson(bool dae, bool with_q) {
  MassMatrixDae d;
  d.n = with_q ? 4 : 3;
  d.p = Vector(3);
  d.p << 0.04, 1e4, 3e7;
  d.f = [dae, with_q](double, VecIn y, VecOut f, VecIn p) {
    const double r1 = p[0] * y[0], r2 = p[1] * y[1] * y[2], r3 = p[2] * y[1] * y[1];
    f[0] = -r1 + r2;
    f[1] = r1 - r2 - r3;
    f[2] = dae ? y[0] + y[1] + y[2] - 1.0 : r3;
    if (with_q) f[3] = y[1] * 1e4 + y[2] * y[2];  // q of adjoint_test_q
  };
  // analytic df/dy: differenced Jacobians limit both gradients to about 1e-6
  d.jacobian = [dae, with_q](double, VecIn y, MatOut J, VecIn p) {
    J(0, 0) = -p[0];
    J(0, 1) = p[1] * y[2];
    J(0, 2) = p[1] * y[1];
    J(1, 0) = p[0];
    J(1, 1) = -p[1] * y[2] - 2.0 * p[2] * y[1];
    J(1, 2) = -p[1] * y[1];
    if (dae) {
      J(2, 0) = J(2, 1) = J(2, 2) = 1.0;
    } else {
      J(2, 1) = 2.0 * p[2] * y[1];
    }
    if (with_q) {
      J(3, 1) = 1e4;
      J(3, 2) = 2.0 * y[2];
    }
  };
  if (dae) {
    d.mass = Matrix::Identity(d.n, d.n);
    d.mass(2, 2) = 0.0;
  }
  return d;
}

double adjoint_test_q(double, VecIn y) { return y[1] * 1e4 + y[2] * y[2]; }

// dG/dp from forward sensitivities: G = c^T y(T) (+ Q(T) when the problem carries Q)
Vector forward_gradient(const MassMatrixDae& d, double T, const Vector& c,
                        const std::string& method, double tol) {
  Options o;
  o.rtol = tol;
  o.atol = tol * 1e-4;
  o.sensitivities = true;
  o.store_steps = false;
  const Result r = solve(d, 0.0, T, Vector::Unit(d.n, 0), method, o);
  EXPECT_TRUE(r.ok()) << r.message;
  return r.sensitivities.transpose() * c;
}

double max_relative_difference(const Vector& a, const Vector& b) {
  double m = 0.0;
  for (Eigen::Index k = 0; k < a.size(); ++k)
    m = std::max(m, std::abs(a[k] - b[k]) / std::abs(b[k]));
  return m;
}

Options adjoint_test_options(double tol) {
  Options o;
  o.rtol = tol;
  o.atol = tol * 1e-4;
  return o;
}

}  // namespace

TEST(Adjoint, TerminalFunctionalOnRobertsonMatchesForwardSensitivities) {
  const MassMatrixDae d = adjoint_test_robertson(false, false);
  const double T = 40.0;
  // the reference: forward sensitivities at 1e-12 (at 1e-10 they are 1.4e-6 off dy1/dk of
  // the solution at 1e-13, the adjoint 3.5e-7); the BDF's adjoint needs 1e-11 for 1e-6
  const struct {
    const char* method;
    double tol;
  } cases[] = {{"radau5", 1e-10}, {"bdf", 1e-11}};
  for (const auto& [method, tol] : cases) {
    for (int comp : {0, 2}) {
      AdjointFunctional F;
      F.g = [comp](double, VecIn y) { return y[comp]; };  // g_y by differences
      const AdjointResult a =
          adjoint_gradient(d, 0.0, T, Vector::Unit(3, 0), F, method, adjoint_test_options(tol));
      ASSERT_TRUE(a.ok()) << a.message;
      const Vector fwd = forward_gradient(d, T, Vector::Unit(3, comp), "radau5", 1e-12);
      const double rel = max_relative_difference(a.gradient, fwd);
      std::printf("[adjoint] %s robertson dy%d(40)/dk: adjoint vs forward %.2e\n", method, comp,
                  rel);
      EXPECT_LT(rel, 1e-6) << method << " component " << comp;
      EXPECT_EQ(a.forward_runs, 1);  // fits in the default memory: no recomputation
      EXPECT_EQ(a.recomputed_steps, 0);
    }
  }
}

TEST(Adjoint, IntegralFunctionalMatchesForwardSensitivitiesOfTheQuadrature) {
  const double T = 10.0;
  AdjointFunctional F;
  F.q = adjoint_test_q;
  F.q_y = [](double, VecIn y, VecOut out) {
    out[0] = 0.0;
    out[1] = 1e4;
    out[2] = 2.0 * y[2];
  };
  F.g = [](double, VecIn y) { return y[0]; };
  const AdjointResult a =
      adjoint_gradient(adjoint_test_robertson(false, false), 0.0, T, Vector::Unit(3, 0), F,
                       "radau5", adjoint_test_options(1e-10));
  ASSERT_TRUE(a.ok()) << a.message;
  Vector c = Vector::Zero(4);
  c[0] = 1.0;
  c[3] = 1.0;
  const MassMatrixDae aug = adjoint_test_robertson(false, true);
  const Vector fwd = forward_gradient(aug, T, c, "radau5", 1e-12);
  const double rel = max_relative_difference(a.gradient, fwd);
  std::printf("[adjoint] radau5 robertson y1(10) + int q: adjoint vs forward %.2e\n", rel);
  EXPECT_LT(rel, 1e-6);
  // G itself: y1(T) + Q(T) of the augmented solve
  const Result r = solve(aug, 0.0, T, Vector::Unit(4, 0), "radau5", adjoint_test_options(1e-10));
  EXPECT_NEAR(a.value, r.y[0] + r.y[3], 1e-8 * std::abs(a.value));
}

// The DAE's solution is the ODE's (y3 = 1 - y1 - y2): the reference is the forward-sensitivity
// gradient of the ODE form at 1e-12 with Q' = y3^2 appended. (The forward sensitivities of the
// DAE form stop at radau5's floor rtol' = 1e-9 on DAEs: their dG/dk3 is 4e-6 off the ODE's;
// the adjoint's, on the same floored forward solve: radau5 7e-7, radau 4.5e-6; asserted to
// 1e-5.)
TEST(Adjoint, SingularMassIndexOneWithAlgebraicComponentInTheFunctional) {
  const double T = 40.0;
  MassMatrixDae ode = adjoint_test_robertson(false, true);
  ode.f = [](double, VecIn y, VecOut f, VecIn p) {
    const double r1 = p[0] * y[0], r2 = p[1] * y[1] * y[2], r3 = p[2] * y[1] * y[1];
    f[0] = -r1 + r2;
    f[1] = r1 - r2 - r3;
    f[2] = r3;
    f[3] = y[2] * y[2];
  };
  const auto jac = ode.jacobian;
  ode.jacobian = [jac](double t, VecIn y, Matrix& J, VecIn p) {
    jac(t, y, J, p);
    J(3, 1) = 0.0;  // Q' = y3^2
  };
  Vector c = Vector::Zero(4);
  c[1] = 1e4;
  c[2] = 1.0;
  c[3] = 1.0;
  const Vector fwd = forward_gradient(ode, T, c, "radau5", 1e-12);
  for (const char* method : {"radau5", "radau"}) {
    AdjointFunctional F;
    F.g = [](double, VecIn y) { return y[1] * 1e4 + y[2]; };  // y3 algebraic: the nu term
    F.q = [](double, VecIn y) { return y[2] * y[2]; };
    const AdjointResult a =
        adjoint_gradient(adjoint_test_robertson(true, false), 0.0, T, Vector::Unit(3, 0), F, method,
                         adjoint_test_options(1e-10));
    ASSERT_TRUE(a.ok()) << a.message;
    const double rel = max_relative_difference(a.gradient, fwd);
    std::printf("[adjoint] %s robertson-dae 1e4 y2 + y3 + int y3^2: adjoint vs forward %.2e\n",
                method, rel);
    EXPECT_LT(rel, 1e-5) << method;
  }
  // (the BDF's backward solve of this adjoint DAE fails at tight tolerances: not claimed)
}

TEST(Adjoint, CheckpointingKeepsTheStoredStatesWithinTheBound) {
  const MassMatrixDae d = adjoint_test_robertson(true, false);
  AdjointFunctional F;
  F.g = [](double, VecIn y) { return y[2]; };
  const Options o = adjoint_test_options(1e-9);
  const AdjointResult all = adjoint_gradient(d, 0.0, 1e4, Vector::Unit(3, 0), F, "radau5", o);
  ASSERT_TRUE(all.ok()) << all.message;
  for (long bound : {64L, 32L}) {
    AdjointOptions ao;
    ao.max_stored_steps = bound;
    const AdjointResult a = adjoint_gradient(d, 0.0, 1e4, Vector::Unit(3, 0), F, "radau5", o, ao);
    ASSERT_TRUE(a.ok()) << a.message;
    std::printf(
        "[adjoint] bound %ld: peak %ld stored (%ld checkpoints), %ld steps forward "
        "(%ld recomputed, %d runs) for %ld\n",
        bound, a.peak_stored_states, a.peak_checkpoints, a.forward_steps, a.recomputed_steps,
        a.forward_runs, all.forward_steps);
    EXPECT_LE(a.peak_stored_states, bound);
    EXPECT_GT(a.recomputed_steps, 0);
    EXPECT_GT(a.forward_runs, 1);
    EXPECT_LT(max_relative_difference(a.gradient, all.gradient), 1e-5) << bound;
  }
  EXPECT_EQ(all.peak_stored_states, all.forward_steps);  // everything stored: one per step
  // too little memory for this many steps: a status naming the option, not a crash
  AdjointOptions tiny;
  tiny.max_stored_steps = 4;
  const AdjointResult t = adjoint_gradient(d, 0.0, 1e4, Vector::Unit(3, 0), F, "radau5", o, tiny);
  EXPECT_FALSE(t.ok());
  EXPECT_NE(t.message.find("max_stored_steps"), std::string::npos) << t.message;
  EXPECT_LE(t.peak_stored_states, 4);
}

TEST(Adjoint, RefusesWhatItDoesNotSupport) {
  const MassMatrixDae d = adjoint_test_robertson(false, false);
  AdjointFunctional F;
  F.g = [](double, VecIn y) { return y[0]; };
  const Vector y0 = Vector::Unit(3, 0);
  auto refused = [&](const MassMatrixDae& dae, const Options& o, const AdjointOptions& ao,
                     const std::string& word) {
    try {
      adjoint_gradient(dae, 0.0, 1.0, y0, F, "radau5", o, ao);
      ADD_FAILURE() << "not refused: " << word;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  Options o;
  o.events.push_back(Event{});
  refused(d, o, {}, "events");
  o = Options();
  o.tstops = {0.5};
  refused(d, o, {}, "tstops");
  AdjointOptions small;
  small.max_stored_steps = 2;
  refused(d, Options(), small, "max_stored_steps");
  MassMatrixDae no_p = d;
  no_p.p = Vector();
  no_p.f = [](double, VecIn y, VecOut f) { f = -y; };
  refused(no_p, Options(), {}, "no parameters");
  MassMatrixDae index2 = adjoint_test_robertson(true, false);
  index2.index = {1, 1, 2};
  refused(index2, Options(), {}, "index");
  EXPECT_THROW(adjoint_gradient(d, 1.0, 0.0, y0, F), InvalidArgument);
}

TEST(Adjoint, AFailingFunctionalEndsInAStatusNotAnException) {
  const MassMatrixDae d = adjoint_test_robertson(false, false);
  AdjointFunctional F;
  F.q = [](double t, VecIn y) {
    if (t < 0.5) throw std::runtime_error("q cannot be evaluated here");
    return y[0];
  };
  const AdjointResult a = adjoint_gradient(d, 0.0, 1.0, Vector::Unit(3, 0), F);
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.message.find("q cannot be evaluated here"), std::string::npos) << a.message;
  F.q = nullptr;
  F.g = [](double, VecIn) { return std::nan(""); };
  const AdjointResult b = adjoint_gradient(d, 0.0, 1.0, Vector::Unit(3, 0), F);
  EXPECT_EQ(b.status, Status::CallbackError);
  EXPECT_NE(b.message.find("NaN"), std::string::npos) << b.message;
}

// The gradient of a linear problem in closed form: y' = -p y, G = y(T) + int y dt.
TEST(Adjoint, ScalarDecayInClosedForm) {
  MassMatrixDae d;
  d.n = 1;
  d.p = Vector::Constant(1, 0.7);
  d.f = [](double, VecIn y, VecOut f, VecIn p) { f[0] = -p[0] * y[0]; };
  AdjointFunctional F;
  F.g = [](double, VecIn y) { return y[0]; };
  F.q = [](double, VecIn y) { return y[0]; };
  const double T = 2.0, p = 0.7, e = std::exp(-p * T);
  const AdjointResult a =
      adjoint_gradient(d, 0.0, T, Vector::Ones(1), F, "radau5", adjoint_test_options(1e-11));
  ASSERT_TRUE(a.ok()) << a.message;
  // G = e + (1 - e)/p; dG/dp = -T e + (T e p - (1 - e)) / p^2
  EXPECT_NEAR(a.value, e + (1 - e) / p, 1e-9);
  EXPECT_NEAR(a.gradient[0], -T * e + (T * e * p - (1 - e)) / (p * p), 1e-9);
  EXPECT_NEAR(a.lambda0[0], e + (1 - e) / p, 1e-9);  // dG/dy0
}

// Integrator::last_segment(): the step's continuous output the checkpointing stores.
TEST(Adjoint, LastSegmentIsTheContinuousOutputOfTheLastStep) {
  const MassMatrixDae d = adjoint_test_robertson(false, false);
  Integrator it(d, 0.0, 1.0, Vector::Unit(3, 0), "radau5");
  EXPECT_THROW(it.last_segment(), InvalidArgument);
  it.step();
  it.step();
  const DenseSegment s = it.last_segment();
  EXPECT_EQ(s.t_right, it.t());
  EXPECT_LT(s.t_left, s.t_right);
  EXPECT_LT((s.evaluate(it.t()) - it.y()).cwiseAbs().maxCoeff(), 1e-15);
  const double tm = 0.5 * (s.t_left + s.t_right);
  EXPECT_LT((s.evaluate(tm) - it.y_at(tm)).cwiseAbs().maxCoeff(), 1e-15);
}
