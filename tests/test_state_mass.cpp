// State-dependent mass matrices M(t, y) y' = f(t, y) (issue 14, part 1): the two test models
// (a circuit with nonlinear capacitances, the double pendulum in angles) solved by radau5, the
// other implicit methods and the BDF (implicit form) to rtol 1e-8 against references from
// independent formulations solved much more tightly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

Options state_mass_tolerances(double tol) {
  Options o;
  o.rtol = o.atol = tol;
  o.store_steps = false;
  return o;
}

// u(t_end) of the circuit from its charge-oriented form (constant M), radau5 at 1e-12.
Vector circuit_reference(double t_end) {
  const BuiltinProblem c = varactor_circuit_charge_form();
  const Result r = solve(c.dae, c.t0, t_end, c.y0, "radau5", state_mass_tolerances(1e-12));
  EXPECT_TRUE(r.ok()) << r.message;
  return r.y.head(3);
}

// Solve the quasi-linear problem with the BDF through F = M(t, y) y' - f.
Result solve_implicit(const BuiltinProblem& p, double t_end, double tol) {
  const QuasiLinearDae& q = *p.quasi_linear;
  const std::vector<int> D = q.differential_components();
  Vector yp0 = Vector::Zero(q.n);
  for (size_t k = 0; k < D.size(); ++k) yp0[D[k]] = p.y0[q.n + static_cast<int>(k)];
  return solve(to_implicit_form(q), p.t0, t_end, p.y0.head(q.n), yp0, "bdf",
               state_mass_tolerances(tol));
}

double relative_error(VecIn y, VecIn ref) {
  return (y - ref).cwiseAbs().maxCoeff() / std::max(1.0, ref.cwiseAbs().maxCoeff());
}

}  // namespace

TEST(StateMass, ReformulationLayout) {
  const BuiltinProblem p = varactor_circuit();
  ASSERT_TRUE(p.quasi_linear.has_value());
  // x = (u1, u2, u3, u1', u3'): mass diag(1, 0, 1, 0, 0), 5 unknowns for 3 + 2
  EXPECT_EQ(p.dae.n, 5);
  Vector diag(5);
  diag << 1, 0, 1, 0, 0;
  EXPECT_EQ(p.dae.dense_mass().diagonal(), diag);
  EXPECT_EQ(p.dae.component_names.back(), "u3'");
  // the analytic Jacobian (df/dy and d(M u)/dy) agrees with the shared differences
  Vector x = p.y0;
  x << 0.3, 0.2, -0.4, 1.5, -0.7;
  const JacobianCheck jc = check_jacobian(p.dae, 1.3, x);
  EXPECT_TRUE(jc.ok) << jc.report();
  ImplicitDae f = to_implicit_form(*p.quasi_linear);
  const JacobianCheck ji = check_jacobian(f, 1.3, x.head(3), x.tail(3));
  EXPECT_TRUE(ji.ok) << ji.report();
  EXPECT_EQ(f.differential, (std::vector<bool>{true, false, true}));
}

// The circuit: radau5 (y' = w form) and bdf (implicit form) at rtol = atol = 1e-8 against the
// charge-oriented form at 1e-12.
TEST(StateMass, VaractorCircuitRadau5AndBdf) {
  const BuiltinProblem p = varactor_circuit();
  const Vector ref = circuit_reference(p.t_end);
  Options stored = state_mass_tolerances(1e-8);
  stored.store_steps = true;
  const Result r5 = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", stored);
  ASSERT_TRUE(r5.ok()) << r5.message;
  const Result rb = solve_implicit(p, p.t_end, 1e-8);
  ASSERT_TRUE(rb.ok()) << rb.message;
  const double e5 = relative_error(r5.y.head(3), ref), eb = relative_error(rb.y.head(3), ref);
  std::printf(
      "varactor circuit at t = %g: u = (%.10f, %.10f, %.10f); error radau5 %.2e (%ld "
      "steps), bdf %.2e (%ld steps)\n",
      p.t_end, ref[0], ref[1], ref[2], e5, r5.stats.naccept, eb, rb.stats.naccept);
  EXPECT_LT(e5, 1e-7);
  EXPECT_LT(eb, 1e-6);
  // the diode clips node 2 (the model's behaviour): u1 reaches 2.8 V, u2 stays below 0.6 V
  double u1_max = 0.0, u2_max = 0.0;
  for (size_t i = 0; i < r5.t_steps.size(); ++i) {
    u1_max = std::max(u1_max, r5.y_steps[i][0]);
    u2_max = std::max(u2_max, r5.y_steps[i][1]);
  }
  std::printf("max u1 %.3f V, max u2 %.3f V\n", u1_max, u2_max);
  EXPECT_GT(u1_max, 2.5);
  EXPECT_LT(u2_max, 0.6);
}

// The circuit through the other implicit methods on the y' = w form.
TEST(StateMass, VaractorCircuitOtherImplicitMethods) {
  const BuiltinProblem p = varactor_circuit();
  const Vector ref = circuit_reference(p.t_end);
  for (const char* method : {"radau", "bdf", "dirk"}) {
    const Result r = solve(p.dae, p.t0, p.t_end, p.y0, method, state_mass_tolerances(1e-8));
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    const double e = relative_error(r.y.head(3), ref);
    std::printf("varactor circuit, %s on the y' = w form: error %.2e\n", method, e);
    EXPECT_LT(e, 1e-6) << method;
  }
}

// The double pendulum in angles (M depends on theta1 - theta2): radau5 and bdf at 1e-8
// against the Cartesian index-3 model (RK4, h = 5e-4, checked converged against h = 1e-3).
TEST(StateMass, DoublePendulumRadau5AndBdf) {
  const BuiltinProblem p = double_pendulum();
  const Vector ref = double_pendulum_reference(p.t_end);
  const Vector coarse = double_pendulum_reference(p.t_end, 1e-3);
  EXPECT_LT((ref - coarse).cwiseAbs().maxCoeff(), 1e-9);  // the reference has converged
  Options stored = state_mass_tolerances(1e-8);
  stored.store_steps = true;
  const Result r5 = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", stored);
  ASSERT_TRUE(r5.ok()) << r5.message;
  const Result rb = solve_implicit(p, p.t_end, 1e-8);
  ASSERT_TRUE(rb.ok()) << rb.message;
  const Result rr = solve(p.dae, p.t0, p.t_end, p.y0, "radau", state_mass_tolerances(1e-8));
  ASSERT_TRUE(rr.ok()) << rr.message;
  const double e5 = relative_error(r5.y.head(4), ref), eb = relative_error(rb.y.head(4), ref),
               er = relative_error(rr.y.head(4), ref);
  std::printf(
      "double pendulum at t = %g: theta = (%.10f, %.10f); error radau5 %.2e, bdf %.2e, "
      "radau %.2e; reference h = 5e-4 vs 1e-3: %.1e\n",
      p.t_end, ref[0], ref[1], e5, eb, er, (ref - coarse).cwiseAbs().maxCoeff());
  EXPECT_LT(e5, 1e-6);
  EXPECT_LT(eb, 1e-5);
  EXPECT_LT(er, 1e-6);
}

// Energy T + V of the double pendulum stays constant along the radau5 solution.
TEST(StateMass, DoublePendulumConservesEnergy) {
  const BuiltinProblem p = double_pendulum();
  Options o = state_mass_tolerances(1e-9);
  o.store_steps = true;
  const Result r = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  auto energy = [](VecIn y) {  // m1 = m2 = l1 = l2 = 1, g = 9.81
    const double c = std::cos(y[0] - y[1]);
    return y[2] * y[2] + c * y[2] * y[3] + 0.5 * y[3] * y[3] -
           9.81 * (2 * std::cos(y[0]) + std::cos(y[1]));
  };
  const double e0 = energy(p.y0);
  double worst = 0.0;
  for (size_t i = 0; i < r.t_steps.size(); ++i)
    worst = std::max(worst, std::abs(energy(r.y_steps[i]) - e0));
  EXPECT_LT(worst, 1e-6 * std::abs(e0));
}

// The quadratic velocity terms the Lagrange builder differences from M agree with the
// textbook ones, k = m2 l1 l2 sin(theta1 - theta2) (w2^2, -w1^2).
TEST(StateMass, LagrangeBuilderCoriolisTerms) {
  LagrangeModel m;
  m.nq = 2;
  m.mass = [](double, VecIn q, MatOut M) {
    const double c = std::cos(q[0] - q[1]);
    M << 2.0 * 1.5 * 1.5, 1.0 * 1.5 * 0.7 * c, 1.0 * 1.5 * 0.7 * c, 1.0 * 0.7 * 0.7;
  };
  const Vector q = Eigen::Vector2d(0.9, -0.4), v = Eigen::Vector2d(1.7, -2.3);
  Vector k(2);
  quadratic_velocity_terms(m, 0.0, q, v, k, Vector());
  const double s = 1.0 * 1.5 * 0.7 * std::sin(q[0] - q[1]);
  EXPECT_NEAR(k[0], s * v[1] * v[1], 1e-8);
  EXPECT_NEAR(k[1], -s * v[0] * v[0], 1e-8);
  // given analytically, the user's terms are used as they are
  m.quadratic_velocity = [](double, VecIn, VecIn, VecOut k) { k << 1.0, 2.0; };
  quadratic_velocity_terms(m, 0.0, q, v, k, Vector());
  EXPECT_EQ(k, Eigen::Vector2d(1.0, 2.0));
  LagrangeModel bad;
  bad.nq = 2;
  EXPECT_THROW(mechanical_system(bad), InvalidArgument);
}

// Bad input: clear errors before the solve; NaN from M(t, y) during the solve goes through the
// guarded-callback mechanism (the step is retried, the solve ends with a status, no throw).
TEST(StateMass, BadInput) {
  QuasiLinearDae q = *varactor_circuit().quasi_linear;
  QuasiLinearDae no_mass = q;
  no_mass.mass = nullptr;
  EXPECT_THROW(to_mass_matrix_form(no_mass), InvalidArgument);
  QuasiLinearDae wrong_tags = q;
  wrong_tags.differential = {true, false};
  EXPECT_THROW(to_implicit_form(wrong_tags), InvalidArgument);
  QuasiLinearDae half_jacobian = q;
  half_jacobian.mass_jacobian = nullptr;
  EXPECT_THROW(to_mass_matrix_form(half_jacobian), InvalidArgument);
  EXPECT_THROW(initial_values(q, 0.0, Vector::Zero(2)), InvalidArgument);
  // a differential column of M that is zero at y0: named
  QuasiLinearDae zero_column = q;
  zero_column.mass = [](double, VecIn, MatOut M) { M(0, 0) = 1.0; };
  EXPECT_THROW(initial_values(zero_column, 0.0, Vector::Zero(3)), InvalidArgument);
  // NaN from M once u1 exceeds 1 V
  QuasiLinearDae nan_mass = q;
  nan_mass.mass = [](double, VecIn y, MatOut M) {
    M(0, 0) = y[0] > 1.0 ? std::nan("") : 1.0;
    M(2, 2) = 1.0;
  };
  const Vector x0 = initial_values(nan_mass, 0.0, Vector::Zero(3));
  const Result r =
      solve(to_mass_matrix_form(nan_mass), 0.0, 20.0, x0, "radau5", state_mass_tolerances(1e-6));
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.t, 20.0);
  std::printf("NaN in M: %s at t = %g: %s\n", to_string(r.status), r.t, r.message.c_str());
}

// Where d(M(t, y) w)/dy matters: the varactor circuit solved with a Newton matrix that leaves it
// out (mass_jacobian returning zero; Options::check_jacobian off, which would report it) needs
// more Newton iterations and fails more Newton iterations than with the exact matrix. Measured at
// 1e-8: radau5 1373 iterations / 38 failures with it, 1611 / 78 without; bdf (DASSL rule) 3112 / 0
// and 3737 / 13. The differenced Jacobian of the whole residual gives radau5 the same run as the
// analytic one.
TEST(StateMass, MassDerivativeInTheNewtonMatrix) {
  const BuiltinProblem p = varactor_circuit();
  QuasiLinearDae without = *p.quasi_linear;
  without.mass_jacobian = [](double, VecIn, VecIn, MatOut) {};
  QuasiLinearDae differenced = *p.quasi_linear;
  differenced.jacobian = nullptr;
  differenced.mass_jacobian = nullptr;
  Options o = state_mass_tolerances(1e-8);
  o.check_jacobian = false;
  // the bdf with DASSL's rule (one iteration accepted when the rate predicts convergence):
  // with its default two iterations per step both matrices converge within them (2641 / 36
  // and 2611 / 36 iterations / failures at 1e-8)
  BdfOptions dassl;
  dassl.min_newton_iterations = 1;
  for (const MethodChoice& method : {MethodChoice("radau5"), MethodChoice(dassl)}) {
    const Result exact = solve(p.dae, p.t0, p.t_end, p.y0, method, o);
    const Result crude = solve(to_mass_matrix_form(without), p.t0, p.t_end, p.y0, method, o);
    const std::string name = exact.method;
    ASSERT_TRUE(exact.ok() && crude.ok()) << name;
    std::printf("%s: Newton iterations / failures with d(M w)/dy %ld / %ld, without %ld / %ld\n",
                name.c_str(), exact.stats.nnewton, exact.stats.nnewton_fail, crude.stats.nnewton,
                crude.stats.nnewton_fail);
    EXPECT_GT(crude.stats.nnewton, exact.stats.nnewton) << name;
    EXPECT_GT(crude.stats.nnewton_fail, exact.stats.nnewton_fail) << name;
  }
  const Result a = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  const Result d = solve(to_mass_matrix_form(differenced), p.t0, p.t_end, p.y0, "radau5", o);
  EXPECT_EQ(a.stats.naccept, d.stats.naccept);
  EXPECT_LT((a.y - d.y).cwiseAbs().maxCoeff(), 1e-9);
}

// ----------------------------------------------------------------------------------------------
// Sensitivities of M(t, y, p) y' = f(t, y, p) (issue 25): radau5 and radau through the y' = w
// form, the BDF through F = M y' - f, against central differences of whole solves (Richardson-
// extrapolated, delta = 1e-3 |p_k|, radau5 at 1e-12). The model, y = (u, v, z), p = (a, b, c),
//     (1 + a u^2) u' = -u + z,   (2 + sin v) v' = b u - v,   0 = z - c u v,
// has an M that depends on p (the term M_p y' of the sensitivity equations) and an algebraic z
// whose start z0 = c u0 v0 depends on p (dz0/dc = u0 v0: the consistent S0 of the algebraic
// part, made from the given S0 = 0).
namespace {

QuasiLinearDae quasi_linear_sens_model() {
  QuasiLinearDae q;
  q.name = "quasi-linear with parameters";
  q.n = 3;
  q.differential = {true, true, false};
  q.p = Vector(3);
  q.p << 0.8, 1.5, 2.0;
  q.mass = [](double, VecIn y, MatOut M, VecIn p) {
    M(0, 0) = 1.0 + p[0] * y[0] * y[0];
    M(1, 1) = 2.0 + std::sin(y[1]);
  };
  q.f = [](double, VecIn y, VecOut f, VecIn p) {
    f[0] = -y[0] + y[2];
    f[1] = p[1] * y[0] - y[1];
    f[2] = y[2] - p[2] * y[0] * y[1];
  };
  return q;
}

Vector quasi_linear_sens_start(const Vector& p) {
  Vector y0(3);
  y0 << 1.0, 0.5, p[2] * 0.5;
  return y0;
}

Vector quasi_linear_sens_end(const Vector& p, double tol) {
  QuasiLinearDae q = quasi_linear_sens_model();
  q.p = p;
  const Result r =
      solve(q, 0.0, 2.0, quasi_linear_sens_start(p), "radau5", state_mass_tolerances(tol));
  EXPECT_TRUE(r.ok()) << r.message;
  return r.y;
}

Matrix quasi_linear_sens_reference() {
  const Vector p0 = quasi_linear_sens_model().p;
  Matrix D(3, 3);
  for (int k = 0; k < 3; ++k) {
    const double delta = 1e-3 * std::abs(p0[k]);
    Vector central[2];
    for (int m = 1; m <= 2; ++m) {
      Vector plus = p0, minus = p0;
      plus[k] += m * delta;
      minus[k] -= m * delta;
      central[m - 1] = (quasi_linear_sens_end(plus, 1e-12) - quasi_linear_sens_end(minus, 1e-12)) /
                       (2.0 * m * delta);
    }
    D.col(k) = (4.0 * central[0] - central[1]) / 3.0;
  }
  return D;
}

}  // namespace

TEST(StateMass, SensitivitiesMatchDifferencesOfWholeSolves) {
  const QuasiLinearDae q = quasi_linear_sens_model();
  const Matrix D = quasi_linear_sens_reference();
  for (const char* method : {"radau5", "radau", "bdf"}) {
    Options o = state_mass_tolerances(1e-9);
    o.sensitivities = true;
    o.output_times = {1.0, 2.0};
    const Result r = solve(q, 0.0, 2.0, quasi_linear_sens_start(q.p), method, o);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    ASSERT_EQ(r.sensitivities.rows(), 3) << method;  // S of y, not of the reformulation
    ASSERT_EQ(r.sensitivities.cols(), 3) << method;
    ASSERT_EQ(r.s_out.size(), 2) << method;
    EXPECT_LT((r.sensitivity_out(1) - r.sensitivities).cwiseAbs().maxCoeff(), 1e-12) << method;
    double worst = 0.0;
    for (int k = 0; k < 3; ++k)
      worst = std::max(worst, (r.sensitivities.col(k) - D.col(k)).cwiseAbs().maxCoeff() /
                                  D.col(k).cwiseAbs().maxCoeff());
    EXPECT_LT(worst, 1e-6) << method << ": S =\n" << r.sensitivities << "\ndifferences =\n" << D;
    std::printf("[sensitivities] quasi-linear %s: relative disagreement %.2e\n", method, worst);
  }
}

// The given S0 is dy0/dp (n x np, n of the quasi-linear problem): another size is refused
// naming it; its algebraic part is made consistent (dz0/dc = u0 v0 = 0.5 from S0 = 0).
TEST(StateMass, InitialSensitivitiesOfTheQuasiLinearForm) {
  const QuasiLinearDae q = quasi_linear_sens_model();
  Options o = state_mass_tolerances(1e-9);
  o.sensitivities = true;
  o.initial_sensitivities = Matrix::Zero(5, 3);  // the size of the y' = w form
  for (const char* method : {"radau5", "bdf"}) {
    try {
      solve(q, 0.0, 1.0, quasi_linear_sens_start(q.p), method, o);
      ADD_FAILURE() << method << " accepted a 5 x 3 S0 for n = 3";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("n x np = 3 x 3"), std::string::npos) << e.what();
    }
  }
  o.initial_sensitivities = Matrix::Zero(3, 3);
  o.output_times = {0.0};
  for (const char* method : {"radau5", "bdf"}) {
    const Result r = solve(q, 0.0, 1e-3, quasi_linear_sens_start(q.p), method, o);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    ASSERT_EQ(r.s_out.size(), 1) << method;
    EXPECT_NEAR(r.sensitivity_out(0)(2, 2), 0.5, 1e-12) << method;
  }
}
