// Statements of paper 000 (000_da456d5bdd91ee80.txt, projected Runge-Kutta methods for
// index-3 Hessenberg DAEs) beyond tests/test_projection.cpp and tests/test_projected_rk.cpp:
// Lemma 3.2's bounds on the stages (3.2) and on the projection multipliers (3.3), Lemma 3.3's
// local errors (3.21), the solutions plotted in Fig. 1 (pendulum) and Fig. 4 (Andrews'
// squeezer), and the index-3 defect d3 as printed in Section 4. Every test prints what it
// measures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// The consistent multiplier of the pendulum (4.1) at (u, v): lambda = psi0(u, v) =
// (|v|^2 - u2) / (2 |u|^2), from the acceleration constraint.
double pendulum_psi0(const Vector& y) {
  return (y[2] * y[2] + y[3] * y[3] - y[1]) / (2.0 * (y[0] * y[0] + y[1] * y[1]));
}

// Projected RK on the pendulum at constant step h from (1, 0, 0, 0, 0), Newton to round-off.
Result pendulum_projected_rk(const RungeKuttaTableau& tab, Projection projection, double h,
                             double T, std::vector<double> output_times = {}) {
  const BuiltinProblem p = pendulum_index3();
  ProjectedRkOptions m;
  m.tableau = tab;
  Options o;
  o.projection = projection;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = 1e-13;
  o.store_steps = true;
  o.output_times = std::move(output_times);
  const Result r = solve(p.dae, 0.0, T, p.y0, m, o);
  EXPECT_TRUE(r.ok()) << r.message;
  return r;
}

// The tableau's (B3) stage order q (simplifying assumption C(q) and B(q)).
int stage_order_of(const RungeKuttaTableau& t) {
  return std::min(simplifying_B(t, 30, 1e-11), simplifying_C(t, 30, 1e-11));
}

}  // namespace

// Lemma 3.2 (3.2): the stages stay within O(dt) of (1 x u, 1 x v, 1 x psi0(u, v)). The stage
// values are the dense output at t_n + c_i dt (projected-rk's continuous extension interpolates
// the stages; the projection's change, O(dt^(q+1)), is added linearly). Projected Radau IIA(3)
// with the velocity projection (2.8) and Radau IA(3) with (2.7), the first step and the step
// starting at t = 0.5: the largest deviation of U, V and Lambda falls with order 1 (+-0.3) as
// dt = 0.05, 0.025, 0.0125 (the stages move like c_i dt times the derivative).
// claim: 000-L3.2-stage-bound
TEST(ProjectionClaims, StagesStayWithinOrderDtOfTheStep) {
  struct Case {
    RungeKuttaTableau tab;
    Projection projection;
  };
  for (const Case& c :
       {Case{radau_iia(3), Projection::Velocity}, Case{radau_ia(3), Projection::Full}}) {
    double dev[3][3];  // [dt][u, v, lambda]
    for (int j = 0; j < 3; ++j) {
      const double dt = 0.05 / (1 << j);
      std::vector<double> times;
      for (double tn : {0.0, 0.5})
        for (int i = 0; i < c.tab.c.size(); ++i)
          if (c.tab.c[i] > 0) times.push_back(tn + c.tab.c[i] * dt);
      const Result r = pendulum_projected_rk(c.tab, c.projection, dt, 0.5 + 2 * dt, times);
      ASSERT_EQ(r.t_out.size(), times.size());
      dev[j][0] = dev[j][1] = dev[j][2] = 0.0;
      for (size_t k = 0; k < r.t_out.size(); ++k) {
        const long n = std::lround(std::floor(r.t_out[k] / dt + 1e-9));
        const Vector yn = r.y_steps[n];  // the step's start (u_n, v_n) on S0
        const Vector stage = r.y_out[k];
        dev[j][0] = std::max(dev[j][0], (stage.head(2) - yn.head(2)).cwiseAbs().maxCoeff());
        dev[j][1] =
            std::max(dev[j][1], (stage.segment(2, 2) - yn.segment(2, 2)).cwiseAbs().maxCoeff());
        dev[j][2] = std::max(dev[j][2], std::abs(stage[4] - pendulum_psi0(yn)));
      }
      std::printf("%-14s dt = %.4f: max stage deviation U %.2e V %.2e Lambda %.2e\n",
                  c.tab.name.c_str(), dt, dev[j][0], dev[j][1], dev[j][2]);
    }
    for (int comp = 0; comp < 3; ++comp) {
      const double order = std::log2(dev[1][comp] / dev[2][comp]);
      std::printf("%-14s order of the deviation (%s): %.2f\n", c.tab.name.c_str(),
                  comp == 0   ? "U"
                  : comp == 1 ? "V"
                              : "Lambda",
                  order);
      EXPECT_NEAR(order, 1.0, 0.3) << c.tab.name << " " << comp;
    }
  }
}

// Lemma 3.2 (3.3): the projection multipliers mu_i are of order dt^(q+1) on S0 (q the stage
// order). One step from the consistent start with and without the projection: the difference
// is the projection's correction f_v k_lambda mu1 (positions) and k_lambda mu2 (velocities),
// and k_lambda = -2 u has norm 2, so |mu| is half the correction. Measured (dt = 0.1 ..
// 0.0125): Radau IA(3) with (2.7) (q = 2): mu of order 3 = q + 1, as the lemma says; Radau
// IIA(3) with (2.8) (q = 3): mu of order 3 = q, one less than the lemma's q + 1 = 4. The
// lemma's source (3.14), G(u~) f(u~, v~) = O(dt^(q+1)), fails there: the unprojected v~ has
// the local error O(dt^q) of the index-3 Runge-Kutta step (Hairer, Lubich and Roche, Lemma
// 6.3; printed below: order 3), and its normal part is what mu2 removes (docs/rk-theory.md).
// Asserted: the measured orders +-0.3.
// claim: 000-L3.2-mu-size (deviation: Radau IIA(3) gives mu = O(dt^q), not O(dt^(q+1)))
TEST(ProjectionClaims, ProjectionMultipliersAreOfOrderDtQPlusOne) {
  struct Case {
    RungeKuttaTableau tab;
    Projection projection;
    double measured;
  };
  for (const Case& c :
       {Case{radau_ia(3), Projection::Full, 3.0}, Case{radau_iia(3), Projection::Velocity, 3.0}}) {
    const int q = stage_order_of(c.tab);
    double mu[4], ev[4];
    for (int j = 0; j < 4; ++j) {
      const double dt = 0.1 / (1 << j);
      const Result with = pendulum_projected_rk(c.tab, c.projection, dt, dt);
      const Result without = pendulum_projected_rk(c.tab, Projection::None, dt, dt);
      mu[j] = 0.5 * (with.y.head(4) - without.y.head(4)).cwiseAbs().maxCoeff();
      ev[j] =
          (without.y.segment(2, 2) - pendulum_reference(dt).segment(2, 2)).cwiseAbs().maxCoeff();
    }
    for (int j = 1; j < 4; ++j) {
      const double order = std::log2(mu[j - 1] / mu[j]);
      std::printf(
          "%-14s q = %d, dt = %.4f: |mu| %.2e, order %.2f (Lemma 3.2: q + 1 = %d); unprojected "
          "v~ local error %.2e, order %.2f\n",
          c.tab.name.c_str(), q, 0.1 / (1 << j), mu[j], order, q + 1, ev[j],
          std::log2(ev[j - 1] / ev[j]));
      if (j >= 2) EXPECT_NEAR(order, c.measured, 0.3) << c.tab.name;
    }
  }
}

// Fig. 1: the pendulum's (u1, u2) on [0, 20], released horizontally at rest: it swings on the
// unit circle between (1, 0) and (-1, 0) through the bottom (0, -1), with the period of the
// pendulum of amplitude pi/2, T = 4 K(1/sqrt 2) = 7.41629870920549 (K the complete elliptic
// integral of the first kind). RADAU5 with the projection at tol 1e-10: |u| = 1 to 1e-9, u2 in
// [-1, 0], u(T/2) = (-1, 0), u(T) = u(2T) = (1, 0) and u(T/4) = (0, -1) to 1e-6, and the
// positions at t = 0, 1, .., 20 agree with the independent reference (RK4 on the angle ODE)
// to 1e-6 (measured 1.4e-9).
// claim: 000-Fig1-pendulum
TEST(ProjectionClaims, PendulumSwingsOfFigure1) {
  const BuiltinProblem p = pendulum_index3();
  const double period = 7.41629870920549;
  std::vector<double> times;
  for (int i = 0; i <= 200; ++i) times.push_back(0.1 * i);
  for (double f : {0.25, 0.5, 1.0, 2.0}) times.push_back(f * period);
  std::sort(times.begin(), times.end());
  Options o;
  o.rtol = o.atol = 1e-10;
  o.output_times = times;
  o.store_steps = false;
  Radau5Options m;
  m.projection = Projection::Velocity;
  const Result r = solve(p.dae, 0.0, 20.0, p.y0, m, o);
  ASSERT_TRUE(r.ok()) << r.message;
  double max_radius = 0, max_u2 = -1, min_u2 = 1, max_ref = 0, max_marks = 0;
  for (size_t k = 0; k < r.t_out.size(); ++k) {
    const double t = r.t_out[k];
    const Vector& y = r.y_out[k];
    max_radius = std::max(max_radius, std::abs(std::hypot(y[0], y[1]) - 1.0));
    max_u2 = std::max(max_u2, y[1]);
    min_u2 = std::min(min_u2, y[1]);
    if (std::abs(t - std::round(t)) < 1e-12)  // the reference integrates from 0 on every call
      max_ref =
          std::max(max_ref, (y.head(2) - pendulum_reference(t).head(2)).cwiseAbs().maxCoeff());
    const double phase = std::fmod(t / period, 1.0);
    Eigen::Vector2d mark(NAN, NAN);
    if (std::abs(phase - 0.25) < 1e-9) mark << 0.0, -1.0;
    if (std::abs(phase - 0.5) < 1e-9) mark << -1.0, 0.0;
    if (t > 1 && (phase < 1e-9 || phase > 1 - 1e-9)) mark << 1.0, 0.0;
    if (!std::isnan(mark[0]))
      max_marks = std::max(max_marks, (y.head(2) - Vector(mark)).cwiseAbs().maxCoeff());
  }
  std::printf(
      "pendulum on [0, 20]: max ||u| - 1| %.1e, u2 in [%.6f, %.1e], distance to the marks "
      "(0, -1), (-1, 0), (1, 0) at T/4, T/2, T, 2T: %.1e, to the RK4 reference %.1e\n",
      max_radius, min_u2, max_u2, max_marks, max_ref);
  EXPECT_LT(max_radius, 1e-9);
  EXPECT_LE(max_u2, 1e-9);
  EXPECT_NEAR(min_u2, -1.0, 1e-6);
  EXPECT_LT(max_marks, 1e-6);
  EXPECT_LT(max_ref, 1e-6);
}

// Section 4 prints the index-3 defect as d3 = -2 lambda |u|^2 - 2 u2 + 2 |v|^2. With (4.1)'s
// v' = -2 u lambda - (0, 1) the time derivative of d2 = 2 u.v is 2 |v|^2 + 2 u.v' =
// 2 |v|^2 - 4 lambda |u|^2 - 2 u2 (daekit's monitor, ConstraintResiduals::acceleration): the
// printed d3 lacks a factor 2 on lambda (it is the defect for v' = -u lambda - (0, 1)), so on
// the exact solution it equals 2 lambda |u|^2 = 2 lambda, not 0 (lambda = 3/2 at the bottom).
// Measured on the independent reference (RK4 on the angle ODE) at t = k T / 8 in [0, 20] (T the
// period of Fig. 1, so the bottom passages are among them): the printed d3 is 2 lambda to 1e-9
// and reaches 3, daekit's d3 stays below 1e-9; along RADAU5
// with the projection (tol 1e-10) the printed d3 reaches 3 as well while daekit's d3 stays at
// the multiplier's accuracy (measured 1.7e-4, asserted 1e-3).
// claim: 000-d3-definition (deviation: the printed d3 equals 2 lambda on the solution)
TEST(ProjectionClaims, PrintedD3IsNotADefect) {
  auto printed_d3 = [](const Vector& y) {
    return -2 * y[4] * (y[0] * y[0] + y[1] * y[1]) - 2 * y[1] + 2 * (y[2] * y[2] + y[3] * y[3]);
  };
  auto defect = [](const Vector& y) {
    return 2 * (y[2] * y[2] + y[3] * y[3]) - 4 * y[4] * (y[0] * y[0] + y[1] * y[1]) - 2 * y[1];
  };
  double ref_printed = 0, ref_minus_2lambda = 0, ref_defect = 0;
  for (int i = 0; i * 7.41629870920549 / 8 <= 20.0; ++i) {
    const Vector y = pendulum_reference(i * 7.41629870920549 / 8);
    ref_printed = std::max(ref_printed, std::abs(printed_d3(y)));
    ref_minus_2lambda = std::max(ref_minus_2lambda, std::abs(printed_d3(y) - 2 * y[4]));
    ref_defect = std::max(ref_defect, std::abs(defect(y)));
  }
  const BuiltinProblem p = pendulum_index3();
  Options o;
  o.rtol = o.atol = 1e-10;
  Radau5Options m;
  m.projection = Projection::Velocity;
  const Result r = solve(p.dae, 0.0, 20.0, p.y0, m, o);
  ASSERT_TRUE(r.ok()) << r.message;
  double run_printed = 0;
  for (size_t i = 0; i < r.t_steps.size(); ++i)
    run_printed = std::max(run_printed, std::abs(printed_d3(r.y_steps[i])));
  std::printf(
      "pendulum [0, 20], reference: max |printed d3| %.6f, max |printed d3 - 2 lambda| %.1e, max "
      "|2|v|^2 + 2 u.v'| %.1e; radau5 with projection, tol 1e-10: max |printed d3| %.4f, max "
      "|2|v|^2 + 2 u.v'| %.1e\n",
      ref_printed, ref_minus_2lambda, ref_defect, run_printed, r.max_residual.acceleration);
  EXPECT_NEAR(ref_printed, 3.0, 1e-6);
  EXPECT_LT(ref_minus_2lambda, 1e-9);
  EXPECT_LT(ref_defect, 1e-9);
  EXPECT_NEAR(run_printed, 3.0, 1e-3);
  EXPECT_LT(r.max_residual.acceleration, 1e-3);
}

// Fig. 4: the squeezer's seven angles u = (beta, Theta, gamma, Phi, delta, Omega, epsilon) on
// [0, 0.05] (initial values of Hairer-Wanner II, VII.7). RADAU5 with the projection (2.8) at
// tol 1e-10 against the IVP Test Set's reference at t = 0.03 (angles within 1e-6; measured
// 1.4e-7, beta = 15.8 there), and on the whole of [0, 0.05] against RADAU5 without projection
// at tol 1e-12 (the curves of the figure, 51 points, within 1e-6; measured 1.1e-8); the
// driving angle beta grows monotonically (the crank turns).
// claim: 000-Fig4-andrews
TEST(ProjectionClaims, AndrewsAnglesOfFigure4) {
  const BuiltinProblem p = make_builtin_problem("andrews");
  ASSERT_TRUE(p.reference.has_value());
  std::vector<double> times;
  for (int i = 0; i <= 50; ++i) times.push_back(0.001 * i);
  auto run = [&](double tol, Projection projection) {
    Options o;
    o.rtol = o.atol = tol;
    o.output_times = times;
    o.store_steps = false;
    Radau5Options m;
    m.projection = projection;
    const Result r = solve(p.dae, 0.0, 0.05, p.y0, m, o);
    EXPECT_TRUE(r.ok()) << r.message;
    return r;
  };
  const Result proj = run(1e-10, Projection::Velocity), none = run(1e-12, Projection::None);
  ASSERT_EQ(proj.t_out.size(), times.size());
  ASSERT_EQ(none.t_out.size(), times.size());
  const long i30 = 30;  // t = 0.03
  const double at_ref = (proj.y_out[i30].head(7) - p.reference->y.head(7)).cwiseAbs().maxCoeff();
  double curves = 0, min_dbeta = INFINITY;
  for (size_t k = 0; k < times.size(); ++k) {
    curves =
        std::max(curves, (proj.y_out[k].head(7) - none.y_out[k].head(7)).cwiseAbs().maxCoeff());
    if (k > 0) min_dbeta = std::min(min_dbeta, proj.y_out[k][0] - proj.y_out[k - 1][0]);
  }
  std::printf(
      "Andrews on [0, 0.05]: angles at t = 0.03 vs the test set %.1e; projected (1e-10) vs "
      "unprojected (1e-12) curves %.1e; beta from %.4f to %.4f (smallest increase per 0.001: "
      "%.2e)\n",
      at_ref, curves, proj.y_out[0][0], proj.y_out[50][0], min_dbeta);
  EXPECT_LT(at_ref, 1e-6);
  EXPECT_LT(curves, 1e-6);
  EXPECT_GT(min_dbeta, 0.0);
}

// Lemma 3.3 (3.21): from a consistent start the local errors of the projected method are
// u O(dt^min(q+2, p)), v O(dt^(q+1)), lambda O(dt^(q-1)) (the exponents are garbled in the
// text copy: u and v read as printed, lambda's from Hairer, Lubich and Roche's Lemma 6.3, which
// the proof cites for it and which Theorem 2.1's global O(dt^(q-1)) needs). One step of dt =
// 0.2 .. 0.025 against the independent reference; measured orders (at dt = 0.05): Radau IA(3)
// (p = 5, q = 2) u 6, v 5, lambda 2; Radau IIA(3) (p = 5, q = 3) u 6, v 7, lambda 2 = q - 1
// (lambda's bound is sharp there; an exponent q would fail). Asserted: measured +-0.3, and each
// at least the lemma's exponent - 0.3.
// claim: 000-L3.3-local-errors
TEST(ProjectionClaims, LocalErrorsOfLemma33) {
  struct Case {
    RungeKuttaTableau tab;
    Projection projection;
    double u, v, lambda;  // measured orders
  };
  for (const Case& c : {Case{radau_ia(3), Projection::Full, 6, 5, 2},
                        Case{radau_iia(3), Projection::Velocity, 6, 7, 2}}) {
    const int q = stage_order_of(c.tab), p = classical_order(c.tab).order;
    const double bound[3] = {double(std::min(q + 2, p)), double(q + 1), double(q - 1)};
    double e[4][3];
    for (int j = 0; j < 4; ++j) {
      const double dt = 0.2 / (1 << j);
      const Result r = pendulum_projected_rk(c.tab, c.projection, dt, dt);
      const Vector ref = pendulum_reference(dt);
      e[j][0] = (r.y.head(2) - ref.head(2)).cwiseAbs().maxCoeff();
      e[j][1] = (r.y.segment(2, 2) - ref.segment(2, 2)).cwiseAbs().maxCoeff();
      e[j][2] = std::abs(r.y[4] - ref[4]);
    }
    for (int j = 1; j < 4; ++j) {
      double order[3];
      for (int k = 0; k < 3; ++k) order[k] = std::log2(e[j - 1][k] / e[j][k]);
      std::printf(
          "%-14s p = %d q = %d, dt = %.4f: local errors u %.2e v %.2e lambda %.2e, orders %.2f "
          "%.2f %.2f (Lemma 3.3: %g %g %g)\n",
          c.tab.name.c_str(), p, q, 0.2 / (1 << j), e[j][0], e[j][1], e[j][2], order[0], order[1],
          order[2], bound[0], bound[1], bound[2]);
      if (j == 2) {
        const double measured[3] = {c.u, c.v, c.lambda};
        for (int k = 0; k < 3; ++k) {
          EXPECT_NEAR(order[k], measured[k], 0.3) << c.tab.name << " " << k;
          EXPECT_GE(order[k], bound[k] - 0.3) << c.tab.name << " " << k;
        }
      }
    }
  }
}
