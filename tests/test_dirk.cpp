// DIRK/SDIRK/ESDIRK (methods/dirk.hpp) and explicit RK with the state-space form
// (methods/erk.hpp): the fixed-step order of every shipped tableau on a smooth ODE and on a
// nonlinear index-1 DAE, and with error control the stiff test problems solved to their
// tolerances.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// y1' = y2, y2' = -y1, y3' = y3 (1 - y3); y(0) = (1, 0, 1/2)
MassMatrixDae smooth_ode() {
  MassMatrixDae d;
  d.n = 3;
  d.name = "smooth";
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = -y[0];
    f[2] = y[2] * (1 - y[2]);
  };
  return d;
}
Vector ode_exact(double t) {
  Vector y(3);
  y << std::cos(t), -std::sin(t), 1.0 / (1.0 + std::exp(-t));
  return y;
}

// index 1, nonlinear constraint: y' = z, 0 = y^2 + z^2 - 1 (g_z = 2z != 0), y = sin t, z = cos t
MassMatrixDae index1_dae() {
  MassMatrixDae d;
  d.n = 2;
  d.name = "circle index 1";
  d.mass = Matrix::Zero(2, 2);
  d.mass(0, 0) = 1.0;
  d.f = [](double, VecIn x, VecOut f) {
    f[0] = x[1];
    f[1] = x[0] * x[0] + x[1] * x[1] - 1.0;
  };
  return d;
}
Vector dae_exact(double t) {
  Vector x(2);
  x << std::sin(t), std::cos(t);
  return x;
}

Result fixed(const MassMatrixDae& d, const Vector& y0, double T, int steps, MethodChoice m) {
  Options o;
  o.fixed_step = true;
  o.h0 = T / steps;
  o.rtol = o.atol = 1e-13;
  o.store_steps = false;
  return solve(d, 0.0, T, y0, m, o);
}

MethodChoice with_tableau(const RungeKuttaTableau& t) {
  if (t.explicit_method()) {
    ErkOptions m;
    m.tableau = t;
    return m;
  }
  DirkOptions m;
  m.tableau = t;
  m.max_newton_iterations = 30;
  return m;
}

// observed orders (last pair) in y (all components of the ODE; differential and algebraic
// parts of the DAE)
void expect_orders(const RungeKuttaTableau& t, int n0) {
  const int p = t.order;
  double e_ode[2], e_y[2], e_z[2];
  for (int k = 0; k < 2; ++k) {
    const int steps = n0 * (1 << k);
    const Result a = fixed(smooth_ode(), ode_exact(0), 2.0, steps, with_tableau(t));
    const Result b = fixed(index1_dae(), dae_exact(0), 1.0, steps, with_tableau(t));
    ASSERT_TRUE(a.ok()) << t.name << ": " << a.message;
    ASSERT_TRUE(b.ok()) << t.name << ": " << b.message;
    e_ode[k] = (a.y - ode_exact(2.0)).cwiseAbs().maxCoeff();
    e_y[k] = std::abs(b.y[0] - std::sin(1.0));
    e_z[k] = std::abs(b.y[1] - std::cos(1.0));
  }
  const double o_ode = std::log2(e_ode[0] / e_ode[1]), o_y = std::log2(e_y[0] / e_y[1]),
               o_z = std::log2(e_z[0] / e_z[1]);
  std::printf(
      "%-24s p = %d: ODE %.2e -> %.2e order %.2f; DAE y order %.2f, z order %.2f "
      "(errors %.1e, %.1e)\n",
      t.name.c_str(), p, e_ode[0], e_ode[1], o_ode, o_y, o_z, e_y[1], e_z[1]);
  EXPECT_NEAR(o_ode, p, 0.35) << t.name;
  EXPECT_NEAR(o_y, p, 0.35) << t.name;
  EXPECT_NEAR(o_z, p, 0.35) << t.name;
}

}  // namespace

TEST(Dirk, FixedStepOrdersOfEveryShippedTableau) {
  expect_orders(sdirk4_hw16(), 20);
  expect_orders(sdirk4_hw18(), 10);
  expect_orders(kvaerno_esdirk3(), 20);
  expect_orders(kvaerno_esdirk4(), 20);
  expect_orders(kvaerno_esdirk5(), 8);
  expect_orders(alexander_sdirk2(), 40);
  expect_orders(alexander_sdirk3(), 20);
}

// The state-space form method (notes 2.2.1): explicit tableaus keep their classical order in
// y and z on the index-1 DAE.
TEST(Erk, FixedStepOrdersOfEveryShippedTableau) {
  expect_orders(dormand_prince5(), 8);
  expect_orders(bogacki_shampine3(), 20);
  expect_orders(classical_rk4(), 10);
  expect_orders(explicit_euler(), 200);
}

namespace {
struct Solved {
  double scd;
  Result r;
};
Solved solve_builtin_dirk(const char* name, MethodChoice m, double tol) {
  const BuiltinProblem p = make_builtin_problem(name);
  Options o;
  o.rtol = tol;
  o.atol = tol * (p.atol / p.rtol);
  if (p.atol_scale.size()) o.atol_vector = o.atol * p.atol_scale;
  o.h0 = p.h0;
  o.store_steps = false;
  Result r = solve(p.dae, p.t0, p.t_end, p.y0, m, o);
  const double digits = r.ok() ? scd(r.y, p.reference->y, p.scd_components) : 0.0;
  return {digits, std::move(r)};
}
}  // namespace

// Acceptance: with error control the DIRK methods solve Van der Pol, Robertson-DAE, Akzo and
// the transistor to their tolerances.
TEST(Dirk, ErrorControlSolvesTheStiffProblems) {
  struct Case {
    const char* problem;
    double tol;
    double min_scd;
  };
  const std::vector<Case> cases = {{"vanderpol", 1e-6, 4.0},
                                   {"robertson-dae", 1e-6, 4.0},
                                   {"akzo", 1e-6, 4.5},
                                   {"transistor", 1e-6, 4.0}};
  for (const RungeKuttaTableau& t :
       {kvaerno_esdirk3(), kvaerno_esdirk4(), kvaerno_esdirk5(), sdirk4_hw16()}) {
    for (const Case& c : cases) {
      DirkOptions m;
      m.tableau = t;
      const Solved s = solve_builtin_dirk(c.problem, m, c.tol);
      std::printf("%-24s %-13s tol %.0e: %-8s scd %5.2f  steps %5ld  rejected %4ld  nfev %6ld\n",
                  t.name.c_str(), c.problem, c.tol, to_string(s.r.status), s.scd, s.r.stats.naccept,
                  s.r.stats.nreject, s.r.stats.nfev);
      EXPECT_TRUE(s.r.ok()) << t.name << " " << c.problem << ": " << s.r.message;
      EXPECT_GT(s.scd, c.min_scd) << t.name << " " << c.problem;
    }
  }
  // tighter tolerance: more digits
  DirkOptions m;
  const Solved a = solve_builtin_dirk("vanderpol", m, 1e-5),
               b = solve_builtin_dirk("vanderpol", m, 1e-8);
  EXPECT_GT(b.scd, a.scd + 1.5);
}

TEST(Dirk, DenseOutputAndOptions) {
  // dense output between the steps to the stage order of the tableau
  const MassMatrixDae d = smooth_ode();
  Options o;
  o.rtol = o.atol = 1e-9;
  for (int k = 1; k < 20; ++k) o.output_times.push_back(0.1 * k);
  const Result r = solve(d, 0.0, 2.0, ode_exact(0), DirkOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.message;
  double worst = 0.0;
  for (size_t k = 0; k < r.t_out.size(); ++k)
    worst = std::max(worst, (r.y_out[k] - ode_exact(r.t_out[k])).cwiseAbs().maxCoeff());
  std::printf("dirk dense output at tol 1e-9: max error %.2e\n", worst);
  EXPECT_LT(worst, 1e-6);
  DirkOptions bad;
  bad.tableau = radau_iia(3);
  EXPECT_THROW(solve(d, 0.0, 1.0, ode_exact(0), bad, Options{}), InvalidArgument);
  bad.tableau = dormand_prince5();
  EXPECT_THROW(solve(d, 0.0, 1.0, ode_exact(0), bad, Options{}), InvalidArgument);
  ErkOptions bad_erk;
  bad_erk.tableau = kvaerno_esdirk4();
  EXPECT_THROW(solve(d, 0.0, 1.0, ode_exact(0), bad_erk, Options{}), InvalidArgument);
  // the explicit method on a non-stiff ODE with error control
  Options oe;
  oe.rtol = oe.atol = 1e-8;
  const Result e = solve(d, 0.0, 2.0, ode_exact(0), "erk", oe);
  ASSERT_TRUE(e.ok()) << e.message;
  EXPECT_LT((e.y - ode_exact(2.0)).cwiseAbs().maxCoeff(), 1e-6);
}
