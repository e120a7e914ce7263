// nordsieck-bdf, the BDF of Bendtsen and Thomsen (1999), ch. 10 (DNA): Nordsieck form, Pascal
// prediction, Milne's error estimate, fixed order <= 5. What the notes state, checked: it is the
// BDF (10.6) step for step at constant steps (and agrees with the DASSL-form bdf there), its
// order is the order chosen, Milne's estimate (10.7) measures the corrector's local error, it
// solves an index-1 DAE and a stiff problem under error control.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// y' = -y + cos t, y(0) = 1: y = (cos t + sin t) / 2 + e^-t / 2.
double nordsieck_exact_value(double t) {
  return 0.5 * (std::cos(t) + std::sin(t)) + 0.5 * std::exp(-t);
}
Vector nordsieck_exact(double t) { return Vector::Constant(1, nordsieck_exact_value(t)); }

MassMatrixDae nordsieck_test_ode() {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double t, VecIn y, VecOut f) { f[0] = -y[0] + std::cos(t); };
  d.jacobian = [](double, VecIn, MatOut J) { J(0, 0) = -1; };
  return d;
}

// Semi-explicit index 1: y' = -y + z, 0 = z - cos t (the same y), with z = cos t.
MassMatrixDae nordsieck_test_index1() {
  MassMatrixDae d;
  d.n = 2;
  d.mass = Matrix::Zero(2, 2);
  d.mass(0, 0) = 1;
  d.f = [](double t, VecIn y, VecOut f) {
    f[0] = -y[0] + y[1];
    f[1] = y[1] - std::cos(t);
  };
  return d;
}

// alpha_i of BDFq, sum_i alpha_i y_{n-i} = h y'_n: the derivative at 0 of the Lagrange basis
// polynomials through 0, -1, ..., -q.
std::vector<double> nordsieck_bdf_alphas(int q) {
  std::vector<double> a(static_cast<size_t>(q + 1), 0.0);
  for (int j = 1; j <= q; ++j) a[0] += 1.0 / j;
  for (int i = 1; i <= q; ++i) {
    double p = -1.0 / i;
    for (int j = 1; j <= q; ++j)
      if (j != i) p *= double(j) / (j - i);
    a[static_cast<size_t>(i)] = p;
  }
  return a;
}

Options nordsieck_fixed(double h, double tol = 1e-12) {
  Options o;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = tol;
  return o;
}

}  // namespace

// (10.6) in Nordsieck form: at constant steps every y_n after the start satisfies the BDFq
// formula sum_i alpha_i y_{n-i} = h f(t_n, y_n) to the Newton iteration's accuracy (the
// corrected polynomial interpolates the last q + 1 values), for q = 1..5 and on an index-1 DAE
// as on an ODE.
// claim: 004-10-nordsieck
TEST(NordsieckBdf, IsTheBdfStepForStepAtConstantSteps) {
  const double h = 1.0 / 64;
  for (int form = 0; form < 2; ++form) {
    const MassMatrixDae d = form == 0 ? nordsieck_test_ode() : nordsieck_test_index1();
    Vector y0(d.n);
    y0[0] = 1.0;
    if (d.n == 2) y0[1] = 1.0;
    for (int q = 1; q <= 5; ++q) {
      const Result r =
          solve(d, 0.0, 1.0, y0, MethodChoice("nordsieck-bdf", {{"order", std::to_string(q)}}),
                nordsieck_fixed(h));
      ASSERT_TRUE(r.ok()) << r.message;
      ASSERT_EQ(r.t_steps.size(), 65u);
      const std::vector<double> a = nordsieck_bdf_alphas(q);
      double worst = 0;
      Vector f(d.n);
      for (size_t n = static_cast<size_t>(q) + 1; n < r.t_steps.size(); ++n) {
        d.f(r.t_steps[n], r.y_steps[n], f);
        double lhs = 0;
        for (int i = 0; i <= q; ++i)
          lhs += a[static_cast<size_t>(i)] * r.y_steps[n - static_cast<size_t>(i)][0];
        worst = std::max(worst, std::abs(lhs - h * f[0]));
      }
      std::printf("form %d, q = %d: max |sum alpha_i y_(n-i) - h f_n| = %.2e\n", form, q, worst);
      EXPECT_LT(worst, 1e-12) << "q = " << q;
    }
  }
}

// At constant steps from the same exact back values the Nordsieck form and the DASSL form
// (bdf, fixed-leading-coefficient, divided differences) are the same BDF: their answers agree
// to the Newton iterations' accuracy, far below the error of either.
// claim: 004-10-nordsieck
TEST(NordsieckBdf, AgreesWithTheDasslFormAtConstantSteps) {
  const MassMatrixDae d = nordsieck_test_ode();
  for (int q = 1; q <= 5; ++q) {
    NordsieckBdfOptions nm;
    nm.order = q;
    nm.exact_history = nordsieck_exact;
    BdfOptions bm;
    bm.fixed_order = q;
    bm.max_order = q;
    bm.exact_history = nordsieck_exact;
    const Options o = nordsieck_fixed(1.0 / 32, 1e-13);
    const Result rn = solve(d, 0.0, 1.0, nordsieck_exact(0), nm, o);
    const Result rb = solve(d, 0.0, 1.0, nordsieck_exact(0), bm, o);
    ASSERT_TRUE(rn.ok()) << rn.message;
    ASSERT_TRUE(rb.ok()) << rb.message;
    const double diff = std::abs(rn.y[0] - rb.y[0]);
    const double err = std::abs(rn.y[0] - nordsieck_exact_value(1.0));
    std::printf("q = %d: |nordsieck - bdf| = %.2e, error %.2e\n", q, diff, err);
    EXPECT_LT(diff, 1e-12);
    EXPECT_GT(err, 100 * diff);
  }
}

// The order is the order chosen (1..5; DNA's 4 by default): errors at t = 1 for h = 1/32 and
// 1/64 from the radau5 start.
// claim: 004-10-order-limit
TEST(NordsieckBdf, ConvergesWithTheChosenOrder) {
  const MassMatrixDae d = nordsieck_test_ode();
  for (int q = 1; q <= 5; ++q) {
    double err[2];
    for (int k = 0; k < 2; ++k) {
      const Result r = solve(d, 0.0, 1.0, nordsieck_exact(0),
                             MethodChoice("nordsieck-bdf", {{"order", std::to_string(q)}}),
                             nordsieck_fixed(1.0 / (32 << k), 1e-13));
      ASSERT_TRUE(r.ok()) << r.message;
      EXPECT_EQ(r.order, q);
      err[k] = std::abs(r.y[0] - nordsieck_exact_value(1.0));
    }
    const double order = std::log2(err[0] / err[1]);
    std::printf("nordsieck-bdf q = %d: errors %.3e %.3e, observed order %.2f\n", q, err[0], err[1],
                order);
    EXPECT_NEAR(order, q, 0.3) << "q = " << q;
  }
  // the default is DNA's order 4
  EXPECT_EQ(method_info("nordsieck-bdf").option("order")->default_value, "4");
}

// Milne's estimate (10.7), C / (C - C^P) (y^C - y^P), against the true local error of one step
// from exact back values, on y' = y (y = e^t: no derivative vanishes): their ratio tends to 1 as
// h -> 0 (the deviation is O(h)).
// claim: 004-ch10-milne-estimate
TEST(NordsieckBdf, MilnesEstimateIsTheLocalError) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn y, VecOut f) { f[0] = y[0]; };
  const auto exact = [](double t) { return Vector::Constant(1, std::exp(t)); };
  for (int q = 1; q <= 5; ++q) {
    double deviation[2];
    for (int k = 0; k < 2; ++k) {
      const double h = 0.02 / (1 << k);
      NordsieckBdfOptions m;
      m.order = q;
      m.exact_history = exact;
      m.newton_tolerance = 1e-6;
      Options o = nordsieck_fixed(h, 1e-13);
      double scaled = 0;
      o.trace = [&scaled](const StepTrace& s) {
        if (scaled == 0) scaled = s.error;
      };
      const Result r = solve(d, 0.0, h, exact(0.0), m, o);
      ASSERT_TRUE(r.ok()) << r.message;
      const double estimate = scaled * 2e-13;  // the weight rtol |y0| + atol, y0 = 1
      const double local = std::abs(r.y[0] - std::exp(h));
      deviation[k] = std::abs(estimate / local - 1);
      std::printf("q = %d, h = %.3f: local error %.4e, Milne's estimate %.4e (ratio %.4f)\n", q, h,
                  local, estimate, estimate / local);
    }
    EXPECT_LT(deviation[1], 0.05) << "q = " << q;
    EXPECT_LT(deviation[1], deviation[0]) << "q = " << q;
  }
}

// Under error control on stiff problems (Van der Pol, Robertson to t = 1e11) the Milne estimate
// controls the step: the digits grow with the tolerance, and they stay within 1.5 digits of the
// DASSL-form bdf's at the same tolerance (the fixed-coefficient form interpolates its history
// after every change of h; measured 3.5 and 4.9 digits on Robertson at rtol 1e-6 and 1e-8
// against bdf's 4.3 and 6.1, Van der Pol 4.4 and 6.2 against 4.7 and 6.6).
TEST(NordsieckBdf, SolvesStiffProblemsUnderErrorControl) {
  for (const char* name : {"vanderpol", "robertson"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    double previous = 0;
    for (double tol : {1e-6, 1e-8}) {
      Options o;
      o.rtol = tol;
      o.atol = std::string(name) == "robertson" ? tol * 1e-6 : tol;
      o.h0 = p.h0;
      o.store_steps = false;
      const Result r = solve(p.dae, p.t0, p.t_end, p.y0, "nordsieck-bdf", o);
      const Result rb = solve(p.dae, p.t0, p.t_end, p.y0, "bdf", o);
      ASSERT_TRUE(r.ok()) << name << ": " << r.message;
      ASSERT_TRUE(rb.ok()) << name << ": " << rb.message;
      const double digits = *problem_scd(p, r), bdf_digits = *problem_scd(p, rb);
      std::printf("%s, rtol %.0e: scd %.2f in %ld steps (%ld rejected); bdf scd %.2f in %ld\n",
                  name, tol, digits, r.stats.naccept, r.stats.nreject, bdf_digits,
                  rb.stats.naccept);
      EXPECT_GT(digits, bdf_digits - 1.5) << name;
      EXPECT_GT(digits, previous + 1.0) << name;
      previous = digits;
    }
  }
}

// DNA's step size (10.11), h_(n+1) = c h_n (eps / d)^(1/(k+1)), is the integrator's classical
// controller with the Milne estimate and k = q: every step chosen by error control after an
// accepted step (not after a retry) is c h_n err^(-1/(q+1)), c = Options::safety, within the
// bounds on h_new / h.
// claim: 004-10-step-size-formula
TEST(NordsieckBdf, StepSizesFollowTheDnaFormula) {
  const BuiltinProblem p = make_builtin_problem("vanderpol");
  for (int q : {2, 4}) {
    Options o;
    o.rtol = o.atol = 1e-6;
    o.controller = Controller::Classical;
    o.safety = 0.8;
    std::vector<StepTrace> trace;
    o.trace = [&trace](const StepTrace& s) { trace.push_back(s); };
    const Result r = solve(p.dae, p.t0, 0.5, p.y0,
                           MethodChoice("nordsieck-bdf", {{"order", std::to_string(q)}}), o);
    ASSERT_TRUE(r.ok()) << r.message;
    int checked = 0;
    double worst = 0;
    for (size_t i = 1; i + 1 < trace.size(); ++i) {
      const StepTrace& a = trace[i];
      const StepTrace& b = trace[i + 1];
      if (a.outcome != StepTrace::Outcome::Accepted ||
          trace[i - 1].outcome != StepTrace::Outcome::Accepted ||
          b.chosen_by != StepChoice::ErrorControl)
        continue;
      const double ratio = 0.8 * std::pow(a.error, -1.0 / (q + 1));
      if (ratio < 1 / 5.0 || ratio > 8.0) continue;
      worst = std::max(worst, std::abs(b.h / a.h - ratio) / ratio);
      ++checked;
    }
    std::printf("q = %d: %d steps by (10.11), max relative deviation %.2e\n", q, checked, worst);
    EXPECT_GT(checked, 20);
    EXPECT_LT(worst, 1e-12);
  }
}

// (10.9): a change of step size multiplies Y(j) by alpha^j, which leaves the polynomial in t
// unchanged; with the correction vanishing at the previous step (Lambda(-1) = 0) every step's
// interpolant passes through the previous step's value. Under error control (h changes at
// almost every step) on Van der Pol, each stored segment at its left end against the value
// there: round-off.
// claim: 004-10-nordsieck-rescale
TEST(NordsieckBdf, RescalingKeepsThePolynomial) {
  const BuiltinProblem p = make_builtin_problem("vanderpol");
  Options o;
  o.rtol = o.atol = 1e-6;
  o.store_dense = true;
  o.store_steps = true;
  const Result r = solve(p.dae, p.t0, 0.5, p.y0, "nordsieck-bdf", o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.segments.size() + 1, r.t_steps.size());
  int changes = 0;
  double worst = 0;
  for (size_t k = 5; k < r.segments.size(); ++k) {  // past the radau5 start
    const DenseSegment& s = r.segments[k];
    const Vector left = s.evaluate(s.t_left);
    worst = std::max(worst, (left - r.y_steps[k]).cwiseAbs().maxCoeff() /
                                (1 + r.y_steps[k].cwiseAbs().maxCoeff()));
    const DenseSegment& before = r.segments[k - 1];
    if (std::abs((s.t_right - s.t_left) / (before.t_right - before.t_left) - 1) > 1e-3) ++changes;
  }
  std::printf("%zu steps, %d changes of h: max |p_(n+1)(t_n) - y_n| / (1 + |y_n|) = %.2e\n",
              r.segments.size(), changes, worst);
  EXPECT_GT(changes, 50);
  EXPECT_LT(worst, 1e-13);
}

// An index-1 method: problems tagged index 2 or 3 are refused before the solve with a message
// naming the methods that take them (they ran and failed numerically: the index-3 pendulum
// with 30 Newton failures in a row at t = 0.18).
TEST(NordsieckBdf, RefusesHigherIndexProblems) {
  for (const char* name : {"pendulum", "pendulum-index2"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    try {
      solve(p.dae, p.t0, p.t_end, p.y0, "nordsieck-bdf", Options{});
      ADD_FAILURE() << name << " was not refused";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("index-1 problems only"), std::string::npos) << e.what();
    }
  }
  const BuiltinProblem p = make_builtin_problem("pendulum-index1");
  EXPECT_TRUE(solve(p.dae, p.t0, p.t_end, p.y0, "nordsieck-bdf", Options{}).ok());
}
