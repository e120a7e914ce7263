// Claims of Bendtsen and Thomsen (1999) in chapters 8, 9 and 10 checked on the built-in models:
// Runge-Kutta methods keep linear invariants (8.2.1); an explicit Runge-Kutta method like ode45
// does not keep the moon flight's Jacobi integral, its changes gathering near the planets
// (8.3.1-8.3.2); the index-3 pendulum is harder to solve than the index-1 one (9.5.3); the
// index-1 pendulum's multiplier (3.6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

// Robertson's y1 + y2 + y3 is a linear invariant (the rows of f sum to zero): every Runge-Kutta
// method keeps it to round-off at every step, whatever its error or the Newton iteration's
// (e^T f = 0 makes e^T of every Newton update vanish).
// claim: 004-8.2.1-linear-invariants
TEST(Notes004Claims, RungeKuttaMethodsKeepLinearInvariants) {
  const BuiltinProblem p = make_builtin_problem("robertson");
  for (const char* method : {"radau5", "radau", "dirk"}) {
    Options o;
    o.rtol = 1e-4;
    o.atol = 1e-10;
    o.store_steps = true;
    const Result r = solve(p.dae, 0.0, 40.0, p.y0, method, o);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    double worst = 0;
    for (const Vector& y : r.y_steps) worst = std::max(worst, std::abs(y.sum() - 1.0));
    std::printf("%-7s %4zu steps: max |y1 + y2 + y3 - 1| = %.2e\n", method, r.y_steps.size(),
                worst);
    EXPECT_LT(worst, 1e-13) << method;
  }
  // the explicit method at the same tolerances, on the non-stiff start
  Options o;
  o.rtol = 1e-4;
  o.atol = 1e-10;
  o.store_steps = true;
  const Result r = solve(p.dae, 0.0, 1e-3, p.y0, "erk", o);
  ASSERT_TRUE(r.ok()) << r.message;
  double worst = 0;
  for (const Vector& y : r.y_steps) worst = std::max(worst, std::abs(y.sum() - 1.0));
  std::printf("erk     %4zu steps: max |y1 + y2 + y3 - 1| = %.2e\n", r.y_steps.size(), worst);
  EXPECT_LT(worst, 1e-13);
}

// Sec. 8.3: the flights computed with ode45 (Dormand-Prince 5(4), MATLAB's defaults rtol 1e-3,
// atol 1e-6): "the value of the Jacobi integral changes a lot over the path" and "changes in the
// integral value are distinct whenever the ship is near the planet". erk (Dormand-Prince 5(4)) at
// those tolerances on the 0.5 and 1.1 flights: J drifts by far more than the tolerance, and the
// steps where it changes most are those closest to the Earth.
// claim: 004-8-ode45-drift
// claim: 004-8.3.2-drift-near-planet
TEST(Notes004Claims, Ode45DoesNotKeepTheJacobiIntegral) {
  for (const char* name : {"moon-0.5", "moon-1.1"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    Options o;
    o.rtol = 1e-3;
    o.atol = 1e-6;
    o.store_steps = true;
    add_model_options(p, o);
    const Result r = solve(p.dae, p.t0, p.t_end, p.y0, "erk", o);
    ASSERT_EQ(r.status, Status::TerminalEvent) << name << ": " << r.message;
    const double J0 = moon_jacobi_integral(p.y0);
    double drift = 0, biggest = 0, r1_at_biggest = 0, r1_min = 1e9, r1_max = 0;
    for (size_t i = 1; i < r.y_steps.size(); ++i) {
      const Vector& y = r.y_steps[i];
      const double r1 = std::hypot(y[0] + 0.01215, y[1]);
      r1_min = std::min(r1_min, r1);
      r1_max = std::max(r1_max, r1);
      drift = std::max(drift, std::abs(moon_jacobi_integral(y) - J0));
      const double change =
          std::abs(moon_jacobi_integral(y) - moon_jacobi_integral(r.y_steps[i - 1]));
      if (change > biggest) {
        biggest = change;
        r1_at_biggest = r1;
      }
    }
    std::printf(
        "%s: %zu steps, max |J - J0| = %.2e, largest change per step %.2e at r1 = %.4f "
        "(r1 in [%.4f, %.4f])\n",
        name, r.y_steps.size() - 1, drift, biggest, r1_at_biggest, r1_min, r1_max);
    EXPECT_GT(drift, 1e-3) << name;
    EXPECT_LT(r1_at_biggest, r1_min + 0.1 * (r1_max - r1_min)) << name;
  }
}

// Sec. 9.5.3: "In general it is harder to solve the index-3 formulation than the index-1
// formulation." The pendulum as a MechanicalSystem in both forms, radau5 at rtol = atol = 1e-6
// over [0, 10]: the index-3 form needs more steps and more Newton iterations; and the BDF does
// not take index 3 at all (ch. 4: BDF codes fail there) while it solves the index-1 form.
// claim: 004-9-index3-harder
TEST(Notes004Claims, Index3PendulumIsHarderThanIndex1) {
  const MechanicalSystem sys = pendulum_mechanical_system();
  Vector q0(2), v0(2);
  q0 << 1, 0;
  v0 << 0, 0;
  Result r[2];
  const Formulation forms[2] = {Formulation::Index3, Formulation::Index1};
  for (int k = 0; k < 2; ++k) {
    const MassMatrixDae dae = formulate(sys, forms[k]);
    Options o;
    o.rtol = o.atol = 1e-6;
    o.store_steps = false;
    r[k] = solve(dae, 0.0, 10.0, initial_values(sys, forms[k], 0.0, q0, v0), "radau5", o);
    ASSERT_TRUE(r[k].ok()) << to_string(forms[k]) << ": " << r[k].message;
    std::printf("%-6s: %ld steps, %ld rejected, %ld Newton iterations, %ld f evaluations\n",
                to_string(forms[k]), r[k].stats.naccept, r[k].stats.nreject, r[k].stats.nnewton,
                r[k].stats.nfev);
  }
  EXPECT_GT(r[0].stats.naccept, r[1].stats.naccept);
  EXPECT_GT(r[0].stats.nnewton, r[1].stats.nnewton);
  const MassMatrixDae index3 = formulate(sys, Formulation::Index3);
  EXPECT_THROW(solve(index3, 0.0, 1.0, initial_values(sys, Formulation::Index3, 0.0, q0, v0), "bdf",
                     Options{}),
               InvalidArgument);
  const MassMatrixDae index1 = formulate(sys, Formulation::Index1);
  EXPECT_TRUE(solve(index1, 0.0, 1.0, initial_values(sys, Formulation::Index1, 0.0, q0, v0), "bdf",
                    Options{})
                  .ok());
}

// (3.5)-(3.6): differentiating the pendulum's velocity constraint 0 = p.v once (v' from the
// equations, m v' = -2 p lambda - m g e_y) gives 0 = |v|^2 - g p_y - 2 l^2 lambda / m, an
// algebraic equation whose derivative in lambda, -2 l^2 / m (= g_y f_z of the index-2 form), is
// invertible: index 1, lambda = m (|v|^2 - g p_y) / (2 l^2). Checked on the index-2 solution
// (which never uses (3.6)): radau5 on `pendulum-index2` (m = l = 1) with g = 1.7 at rtol 1e-10,
// every step's lambda against the formula; and the index-1 form `pendulum-index1` (tags all 1)
// solves to the same state.
// claim: 004-3-index1-lambda
// claim: 004-1-index-reduction
TEST(Notes004Claims, Index1PendulumMultiplierFormula) {
  const double g = 1.7;
  const BuiltinProblem p3 =
      with_parameters(make_builtin_problem("pendulum-index2"), Vector::Constant(1, g));
  const BuiltinProblem p1 =
      with_parameters(make_builtin_problem("pendulum-index1"), Vector::Constant(1, g));
  Options o;
  o.rtol = o.atol = 1e-10;
  o.store_steps = true;
  const Result r3 = solve(p3.dae, 0.0, 3.0, p3.y0, "radau5", o);
  ASSERT_TRUE(r3.ok()) << r3.message;
  double worst = 0;
  for (const Vector& y : r3.y_steps) {
    const double formula = (y[2] * y[2] + y[3] * y[3] - g * y[1]) / 2.0;  // m = l = 1
    worst = std::max(worst, std::abs(y[4] - formula));
  }
  std::printf("index 2, g = %.1f: max |lambda - (|v|^2 - g p_y) / 2| over %zu steps = %.2e\n", g,
              r3.y_steps.size(), worst);
  EXPECT_LT(worst, 1e-6);
  EXPECT_EQ(p1.dae.max_index(), 1);
  const Result r1 = solve(p1.dae, 0.0, 3.0, p1.y0, "radau5", o);
  ASSERT_TRUE(r1.ok()) << r1.message;
  std::printf("index 1 vs index 2 at t = 3: max difference %.2e\n",
              (r1.y - r3.y).cwiseAbs().maxCoeff());
  EXPECT_LT((r1.y - r3.y).cwiseAbs().maxCoeff(), 1e-6);
}

// Example 4.1 of the notes from the built-in problem (mass-matrix form, the form the command line
// and Python's problem objects solve): implicit Euler (bdf, fixed_order = 1) at constant steps on
// y1' = y2, y2' = y3, 0 = y1 - sin x (index 3, consistent start): y1 = sin x to the Newton
// tolerance, y2 and y3 of order 1 with the errors of the notes' table (which starts from the
// inconsistent (0.3, 5, -7): at index 3 implicit Euler forgets its start within two steps).
// Variable steps stay refused at index 3. (Before, the mass-matrix form was refused at index 3
// even at constant steps.)
// claim: 004-eq4.1-implicit-euler
TEST(Notes004Claims, Example41FromTheBuiltinIndex3Chain) {
  const BuiltinProblem p = make_builtin_problem("index3-chain");
  BdfOptions m;
  m.fixed_order = 1;
  const double table[3][2] = {{0.0411, 0.0588}, {0.0208, 0.0282}, {0.0105, 0.0138}};
  double previous[2] = {0, 0};
  int row = 0;
  for (double h : {0.1, 0.05, 0.025}) {
    Options o;
    o.fixed_step = true;
    o.h0 = h;
    o.rtol = o.atol = 1e-10;
    const Result r = solve(p.dae, 0.0, 1.0, p.y0, m, o);
    ASSERT_TRUE(r.ok()) << r.message;
    const double e1 = std::abs(r.y[0] - std::sin(1.0));
    const double e2 = std::abs(r.y[1] - std::cos(1.0));
    const double e3 = std::abs(r.y[2] + std::sin(1.0));
    std::printf("index3-chain, implicit Euler, h = %.3f: e1 %.1e e2 %.4f e3 %.4f\n", h, e1, e2, e3);
    EXPECT_LT(e1, 1e-9);
    EXPECT_NEAR(e2, table[row][0], 6e-4);
    EXPECT_NEAR(e3, table[row][1], 6e-4);
    ++row;
    if (previous[0] > 0) {
      EXPECT_NEAR(previous[0] / e2, 2.0, 0.15);
      EXPECT_NEAR(previous[1] / e3, 2.0, 0.15);
    }
    previous[0] = e2;
    previous[1] = e3;
  }
  Options variable;
  EXPECT_THROW(solve(p.dae, 0.0, 1.0, p.y0, "bdf", variable), InvalidArgument);
  Options fixed_any_order;  // constant steps, but the order left to the method: refused too
  fixed_any_order.fixed_step = true;
  fixed_any_order.h0 = 0.1;
  EXPECT_THROW(solve(p.dae, 0.0, 1.0, p.y0, "bdf", fixed_any_order), InvalidArgument);
}

// Sec. 2.2.1: the state-space form method (the algebraic equations solved at every stage, the
// explicit Runge-Kutta method applied to y' = f(y, z(y))) keeps the classical order in y and in
// z at index 1. erk with the classical RK4 at constant steps on
// y' = y^2 + sin t - z - y cos^2(y), 0 = z - y^2 - sin t (on the manifold y' = -y cos^2 y;
// z = y^2 + sin t depends on y): orders 4 in both, against a radau solution at rtol 1e-13.
// claim: 004-2.2.1-state-space-form
TEST(Notes004Claims, StateSpaceFormKeepsTheClassicalOrder) {
  MassMatrixDae d;
  d.n = 2;
  d.mass = Matrix::Zero(2, 2);
  d.mass(0, 0) = 1;
  d.f = [](double t, VecIn y, VecOut f) {
    const double c = std::cos(y[0]);
    f[0] = y[0] * y[0] + std::sin(t) - y[1] - y[0] * c * c;
    f[1] = y[1] - y[0] * y[0] - std::sin(t);
  };
  Vector y0(2);
  y0 << 1.0, 1.0;
  Options ref;
  ref.rtol = ref.atol = 1e-13;
  const Result reference = solve(d, 0.0, 1.0, y0, "radau", ref);
  ASSERT_TRUE(reference.ok()) << reference.message;
  ErkOptions m;
  m.tableau = classical_rk4();
  double ey[2], ez[2];
  for (int k = 0; k < 2; ++k) {
    Options o;
    o.fixed_step = true;
    o.h0 = 1.0 / (16 << k);
    o.rtol = o.atol = 1e-12;
    const Result r = solve(d, 0.0, 1.0, y0, m, o);
    ASSERT_TRUE(r.ok()) << r.message;
    ey[k] = std::abs(r.y[0] - reference.y[0]);
    ez[k] = std::abs(r.y[1] - reference.y[1]);
  }
  const double oy = std::log2(ey[0] / ey[1]), oz = std::log2(ez[0] / ez[1]);
  std::printf(
      "state-space form, RK4: y errors %.2e %.2e (order %.2f), z errors %.2e %.2e (order "
      "%.2f)\n",
      ey[0], ey[1], oy, ez[0], ez[1], oz);
  EXPECT_NEAR(oy, 4.0, 0.3);
  EXPECT_NEAR(oz, 4.0, 0.3);
}

// Def. 1.2 (perturbation index): y' = f(y, z), 0 = g(y) has perturbation index 2: a defect
// delta(t) in the constraint changes z by delta' (its derivative), not by delta. Here
// y' = -y + z, 0 = y - sin t - delta(t), delta = eps sin(w t) with eps = 1e-5, w = 1e3:
// y moves by eps, z = y' + y by eps w = 1e-2 (radau5, z tagged index 2).
// claim: 004-1-perturbation-index
TEST(Notes004Claims, PerturbationIndexTwoFeelsTheDefectsDerivative) {
  const double eps = 1e-5, w = 1e3;
  auto problem = [](double e, double om) {
    MassMatrixDae d;
    d.n = 2;
    d.mass = Matrix::Zero(2, 2);
    d.mass(0, 0) = 1;
    d.index = {1, 2};
    d.f = [e, om](double t, VecIn y, VecOut f) {
      f[0] = -y[0] + y[1];
      f[1] = y[0] - std::sin(t) - e * std::sin(om * t);
    };
    return d;
  };
  Options o;
  o.rtol = o.atol = 1e-10;
  o.store_steps = false;
  double dy = 0, dz = 0;
  for (double t_end : {0.3, 0.7, 1.0}) {
    Vector y0(2);
    y0 << 0.0, 1.0 + eps * w;  // consistent: y = sin t + delta, z = y' + y
    const Result r = solve(problem(eps, w), 0.0, t_end, y0, "radau5", o);
    ASSERT_TRUE(r.ok()) << r.message;
    const double y_plain = std::sin(t_end), z_plain = std::cos(t_end) + std::sin(t_end);
    dy = std::max(dy, std::abs(r.y[0] - y_plain));
    dz = std::max(dz, std::abs(r.y[1] - z_plain));
    // the perturbed solution: y = sin t + delta, z = y' + y
    EXPECT_NEAR(r.y[1], z_plain + eps * w * std::cos(w * t_end) + eps * std::sin(w * t_end), 1e-5);
  }
  std::printf("defect eps = %.0e, eps w = %.0e: max |dy| = %.2e, max |dz| = %.2e\n", eps, eps * w,
              dy, dz);
  EXPECT_LE(dy, 1.01 * eps);
  EXPECT_GT(dz, 0.3 * eps * w);
}
