// Statements of paper 003 (003_93cd61043aac115a.txt, Arevalo, Fuehrer and Soederlind) beyond
// the orders of tests/test_beta_multistep.cpp: the collocation property (3.1) of DCBDF, the
// order drop of its one-leg form, (3.3) = (3.2) for a constant G, the error constants of DCBDFk
// against BDF(k+1), and the comparisons of Section 5 on the truck (equal steps, equal accuracy,
// the algebraic variables, a fixed number of Newton iterations). Every test prints what it
// measures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// sum_i c_i v(t_n - i h) for newest-first coefficients c.
double apply_backwards(const Vector& c, const std::function<double(double)>& v, double tn,
                       double h) {
  double s = 0.0;
  for (int i = 0; i < c.size(); ++i) s += c[i] * v(tn - i * h);
  return s;
}

// The scalar ODE x' = -x^2, x(0) = 1, exact x = 1 / (1 + t), by a k-step formula at constant h
// from exact starting values, in linear multistep form h^-1 rho x_n = sigma f_n or in one-leg
// form h^-1 rho x_n = f(sigma x_n) (Dahlquist); error at t = 2 (scalar Newton to round-off).
double scalar_multistep_error(const LinearMultistepFormula& m, bool one_leg, int steps) {
  const double T = 2.0, h = T / steps;
  auto f = [](double x) { return -x * x; };
  std::vector<double> x;  // x_0 .. x_n
  for (int i = 0; i < m.k; ++i) x.push_back(1.0 / (1.0 + i * h));
  for (int n = m.k; n <= steps; ++n) {
    // known parts: r = sum_{i>=1} rho_i x_{n-i} / h, s = sum_{i>=1} sigma_i (f or x)_{n-i}
    double r = 0.0, s = 0.0;
    for (int i = 1; i <= m.k; ++i) {
      r += m.rho[i] * x[n - i] / h;
      s += m.sigma[i] * (one_leg ? x[n - i] : f(x[n - i]));
    }
    double xn = x.back();
    for (int it = 0; it < 50; ++it) {
      double F, dF;
      if (one_leg) {
        const double arg = m.sigma[0] * xn + s;
        F = m.rho[0] * xn / h + r - f(arg);
        dF = m.rho[0] / h + 2.0 * arg * m.sigma[0];
      } else {
        F = m.rho[0] * xn / h + r - m.sigma[0] * f(xn) - s;
        dF = m.rho[0] / h + 2.0 * xn * m.sigma[0];
      }
      const double dx = F / dF;
      xn -= dx;
      if (std::abs(dx) < 1e-16) break;
    }
    x.push_back(xn);
  }
  return std::abs(x.back() - 1.0 / (1.0 + T));
}

// A constant-G Euler-Lagrange DAE: x in R^2, g(x) = x1 - x2 (G = (1, -1)),
//   x' = (x2 - x1^2 / 2, -x1 + x2^3 / 3) - G^T lambda, lambda = (f1 - f2) / 2 on g = 0.
EulerLagrangeDae constant_constraint_dae() {
  EulerLagrangeDae el;
  el.name = "constant G";
  el.nx = 2;
  el.nlambda = 1;
  el.f = [](double, VecIn x, VecOut f) {
    f[0] = x[1] - 0.5 * x[0] * x[0];
    f[1] = -x[0] + x[1] * x[1] * x[1] / 3.0;
  };
  el.g = [](double, VecIn x, VecOut g) { g[0] = x[0] - x[1]; };
  el.G = [](double, VecIn, MatOut G) { G << 1.0, -1.0; };
  return el;
}

Result fixed_step_run(const MassMatrixDae& dae, double T, const Vector& y0,
                      const BetaMultistepOptions& m, double h) {
  Options o;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = 1e-13;
  o.store_steps = false;
  return solve(dae, 0.0, T, y0, m, o);
}

}  // namespace

// (3.1): DCBDFk is a one-leg collocation method: h^-1 rho_k P(t_n) = P'(sigma_k t_n) for
// deg P <= k, and sigma_k Q(t_n) = Q(sigma_k t_n) for deg Q <= k - 1, with the collocation
// point sigma_k t_n = t_n for k >= 2 (for k = 1, the trapezoidal rule, t_n - h/2). Checked
// with the library's coefficients on monomials (relative 1e-11); degree k in (3.1b) fails.
// claim: 003-eq3.1-collocation-point
TEST(MultistepClaims, DcbdfIsAOneLegCollocationMethod) {
  const double tn = 1.3, h = 0.1;
  for (int k = 1; k <= 6; ++k) {
    const LinearMultistepFormula m = dcbdf_formula(k);
    const double point = apply_backwards(
        m.sigma, [](double t) { return t; }, tn, h);
    std::printf("DCBDF%d: sigma_k t_n = t_n %+.2e h\n", k, (point - tn) / h);
    if (k >= 2)
      EXPECT_NEAR(point, tn, 1e-12) << k;
    else
      EXPECT_NEAR(point, tn - h / 2, 1e-12);
    for (int d = 0; d <= k; ++d) {  // (3.1a): deg P <= k
      auto P = [d](double t) { return std::pow(t, d); };
      const double dP = d == 0 ? 0.0 : d * std::pow(point, d - 1);
      EXPECT_NEAR(apply_backwards(m.rho, P, tn, h) / h, dP, 1e-11 * std::max(1.0, std::abs(dP)))
          << k << " " << d;
    }
    for (int d = 0; d <= k - 1; ++d) {  // (3.1b): deg Q <= k - 1
      auto Q = [d](double t) { return std::pow(t, d); };
      EXPECT_NEAR(apply_backwards(m.sigma, Q, tn, h), Q(point), 1e-11 * Q(point)) << k << " " << d;
    }
    if (k >= 2) {  // and not for deg Q = k: sigma_k t^k = t_n^k - k! h^k / (k+1)
      auto Q = [k](double t) { return std::pow(t, k); };
      EXPECT_GT(std::abs(apply_backwards(m.sigma, Q, tn, h) - Q(tn)), 1e-3 * std::pow(h, k)) << k;
    }
  }
}

// Section 3: DCBDFk is of order k+1 as a linear multistep method, but its one-leg form drops
// to order k on nonlinear ODEs (x' = -x^2 here; for linear f the two forms coincide).
// Asserted +-0.3 from the last halving of 40, 80, 160 steps on [0, 2].
// claim: 003-S3-one-leg
TEST(MultistepClaims, OneLegDcbdfDropsToOrderK) {
  for (int k = 2; k <= 4; ++k) {
    const LinearMultistepFormula m = dcbdf_formula(k);
    for (bool one_leg : {false, true}) {
      double e[3];
      for (int j = 0; j < 3; ++j) e[j] = scalar_multistep_error(m, one_leg, 40 << j);
      const double order = std::log2(e[1] / e[2]);
      std::printf("DCBDF%d %-15s errors %.2e %.2e %.2e, order %.2f\n", k,
                  one_leg ? "one-leg" : "linear multistep", e[0], e[1], e[2], order);
      EXPECT_NEAR(order, one_leg ? k : k + 1, 0.3) << k << (one_leg ? " one-leg" : "");
    }
  }
}

// Section 3: "if G is constant (3.3) reduces to (3.2)": sigma_k (G^T lambda) + G^T nabla^k
// lambda / (k+1) = G^T lambda_n. On a constant-G problem beta-DCBDFk and the compound DCBDF/BDF
// scheme give the same x and lambda to round-off; on the manufactured problem (G = 2 x^T) they
// differ by more than 1e-9.
// claim: 003-eq3.3-constant-g
TEST(MultistepClaims, BetaDcbdfEqualsTheCompoundForConstantG) {
  const EulerLagrangeDae el = constant_constraint_dae();
  const MassMatrixDae dae = to_mass_matrix_form(el);
  Vector y0(3);
  y0 << 0.5, 0.5, 0.0;
  y0[2] = ((0.5 - 0.125) - (-0.5 + 0.125 / 3.0)) / 2.0;  // lambda0 = (f1 - f2) / 2
  const BuiltinProblem manufactured = euler_lagrange_manufactured();
  for (int k = 2; k <= 4; ++k) {
    const Result beta = fixed_step_run(dae, 2.0, y0, BetaMultistepOptions::dcbdf_beta(k), 0.02);
    const Result comp = fixed_step_run(dae, 2.0, y0, BetaMultistepOptions::compound(k), 0.02);
    ASSERT_TRUE(beta.ok() && comp.ok()) << beta.message << comp.message;
    const double d = (beta.y - comp.y).cwiseAbs().maxCoeff();
    const Result mb = fixed_step_run(manufactured.dae, 3.0, manufactured.y0,
                                     BetaMultistepOptions::dcbdf_beta(k), 0.05);
    const Result mc = fixed_step_run(manufactured.dae, 3.0, manufactured.y0,
                                     BetaMultistepOptions::compound(k), 0.05);
    ASSERT_TRUE(mb.ok() && mc.ok());
    const double dm = (mb.y - mc.y).cwiseAbs().maxCoeff();
    std::printf("k = %d: |beta-DCBDF - compound| constant G %.1e, manufactured (G = 2 x^T) %.1e\n",
                k, d, dm);
    EXPECT_LT(d, 1e-12) << k;
    EXPECT_GT(dm, 1e-9) << k;
  }
}

// Section 3: "the error constants of the DCBDFk are less than half those of the BDF(k+1)" (the
// same order k+1): the ratios |C(BDF(k+1))| / |C(DCBDFk)| are 4, 3, 8/3, 5/2, 12/5 for k =
// 1..5 (asserted above 2; Section 5's "2-4 times higher accuracy" is asserted on the truck,
// MultistepClaims.TruckDcbdfAgainstBdfOfTheSameOrder). Printed: the x error ratios at equal
// steps on the manufactured problem (h = 0.05, t = 3): 33 for k = 1 (BDF2's error there is
// dominated by the multiplier coupling), 2.97, 2.73, 2.45, 3.49 for k = 2..5.
// claim: 003-S3-dcbdf-half-bdf
TEST(MultistepClaims, DcbdfAgainstBdfOfTheSameOrder) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  const Vector x_end = p.exact(3.0).head(2);
  for (int k = 1; k <= 5; ++k) {
    const double ratio =
        std::abs(bdf_formula(k + 1).error_constant / dcbdf_formula(k).error_constant);
    EXPECT_GT(ratio, 2.0) << k;
    const double h = 0.05;
    const Result dc = fixed_step_run(p.dae, 3.0, p.y0, BetaMultistepOptions::dcbdf_beta(k), h);
    const Result bdf = fixed_step_run(p.dae, 3.0, p.y0, BetaMultistepOptions::bdf(k + 1), h);
    ASSERT_TRUE(dc.ok() && bdf.ok());
    const double edc = (dc.y.head(2) - x_end).cwiseAbs().maxCoeff();
    const double ebdf = (bdf.y.head(2) - x_end).cwiseAbs().maxCoeff();
    std::printf(
        "k = %d: |C(BDF%d)| / |C(DCBDF%d)| = %.3f; x errors at t = 3, h = %.2f: BDF%d %.2e, "
        "beta-DCBDF%d %.2e, ratio %.2f\n",
        k, k + 1, k, ratio, h, k + 1, ebdf, k, edc, ebdf / edc);
  }
}

namespace {

// The truck (paper 003 Section 5) on [0, 1] at constant steps, errors at t = 1 against a
// reference by beta-DCBDF5 at h = 2^-11 (as tests/test_beta_multistep.cpp): max-norm over the
// 18 positions and velocities and over the 2 multipliers.
struct TruckErrors {
  double x = NAN, lambda = NAN;
  long newton = 0, steps = 0, newton_failures = 0;
};

const Vector& truck_claims_reference() {
  static const Vector ref = [] {
    const BuiltinProblem p = truck_euler_lagrange();
    const Result r =
        fixed_step_run(p.dae, 1.0, p.y0, BetaMultistepOptions::dcbdf_beta(5), 1.0 / 2048);
    EXPECT_TRUE(r.ok()) << r.message;
    return r.y;
  }();
  return ref;
}

TruckErrors truck_claims_errors(BetaMultistepOptions m, double h, int max_newton = 10) {
  const BuiltinProblem p = truck_euler_lagrange();
  m.max_newton_iterations = max_newton;
  Options o;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = 1e-12;
  o.store_steps = false;
  const Result r = solve(p.dae, 0.0, 1.0, p.y0, m, o);
  EXPECT_TRUE(r.ok()) << m.scheme_name() << ": " << r.message;
  TruckErrors e;
  const Vector& ref = truck_claims_reference();
  e.x = (r.y.head(18) - ref.head(18)).cwiseAbs().maxCoeff();
  e.lambda = (r.y.tail(2) - ref.tail(2)).cwiseAbs().maxCoeff();
  e.newton = r.stats.nnewton;
  e.steps = r.stats.naccept;
  e.newton_failures = r.stats.nnewton_fail;
  return e;
}

}  // namespace

// Section 5 on the truck at h = 2^-7 (errors at t = 1; Fig. 4.2's methods): beta-DCBDF3 and
// beta-AM3 are about 100 times as accurate as BDF3 in x (measured 79 and 223 times; asserted
// between 33 and 300, within a factor 3 of 100), while "for the algebraic variable the
// differences between the methods are small": the lambda errors of BDF3, the compound (3.2),
// beta-DCBDF3 and beta-AM3 (3.1e-4, 6.3e-5, 6.6e-5, 2.6e-5) span a factor 12 where the x
// errors span 223 (asserted: lambda within a factor 20, x more than 50, and the lambda spread
// below a tenth of the x spread). The compound scheme's errors equal beta-DCBDF3's to 2 %
// (x 5.67e-11 against 5.75e-11): the truck's constraint gradient G hardly changes over a step,
// and for a constant G (3.3) is (3.2) (MultistepClaims.BetaDcbdfEqualsTheCompoundForConstantG).
// claim: 003-S5-100x-bdf3
// claim: 003-S5-algebraic-small
TEST(MultistepClaims, TruckAccuracyAtEqualSteps) {
  const double h = 1.0 / 128;
  const TruckErrors bdf3 = truck_claims_errors(BetaMultistepOptions::bdf(3), h);
  const TruckErrors comp = truck_claims_errors(BetaMultistepOptions::compound(3), h);
  const TruckErrors dc3 = truck_claims_errors(BetaMultistepOptions::dcbdf_beta(3), h);
  const TruckErrors am3 = truck_claims_errors(BetaMultistepOptions::am_beta(3), h);
  const TruckErrors all[] = {bdf3, comp, dc3, am3};
  double xmin = INFINITY, xmax = 0, lmin = INFINITY, lmax = 0;
  for (const TruckErrors& e : all) {
    xmin = std::min(xmin, e.x), xmax = std::max(xmax, e.x);
    lmin = std::min(lmin, e.lambda), lmax = std::max(lmax, e.lambda);
  }
  std::printf(
      "truck, h = 2^-7, errors at t = 1 (x | lambda): BDF3 %.2e | %.2e, compound %.2e | %.2e, "
      "beta-DCBDF3 %.2e | %.2e, beta-AM3 %.2e | %.2e; BDF3 / beta-DCBDF3 %.0f, BDF3 / beta-AM3 "
      "%.0f in x; spread x %.0f, lambda %.1f\n",
      bdf3.x, bdf3.lambda, comp.x, comp.lambda, dc3.x, dc3.lambda, am3.x, am3.lambda,
      bdf3.x / dc3.x, bdf3.x / am3.x, xmax / xmin, lmax / lmin);
  EXPECT_GT(bdf3.x / dc3.x, 33.0);
  EXPECT_LT(bdf3.x / dc3.x, 300.0);
  EXPECT_GT(bdf3.x / am3.x, 33.0);
  EXPECT_LT(bdf3.x / am3.x, 300.0);
  EXPECT_LT(lmax / lmin, 20.0);
  EXPECT_GT(xmax / xmin, 50.0);
  EXPECT_LT(lmax / lmin, 0.1 * xmax / xmin);
}

// Section 5: "or equivalently 3-4 times faster for a given accuracy". BDF3's x errors on the
// truck at h = 2^-7, 2^-8, 2^-9 (order 3.0) give the step it needs for the accuracy of
// beta-DCBDF3 and beta-AM3 at h = 2^-7: 4.3 and 6.1 times as many steps. With BDF3's order 3,
// 100 times the accuracy is 100^(1/3) = 4.6 times the steps, not 3-4 (docs/multistep.md);
// counted in Newton iterations (2.2 per step for BDF3 there, 3.6 and 3.1 for the blocked
// methods at 2^-7) the factors are 2.7 and 4.3. Asserted: the step factors within 15 % of the
// measured 4.3 and 6.1, both above 4.
// claim: 003-S5-faster (deviation: BDF3 needs 4.3 and 6.1 times the steps, not 3-4)
TEST(MultistepClaims, TruckStepsForAGivenAccuracy) {
  double e[3];
  long newton = 0, steps = 0;
  for (int j = 0; j < 3; ++j) {
    const TruckErrors b = truck_claims_errors(BetaMultistepOptions::bdf(3), 1.0 / (128 << j));
    e[j] = b.x;
    newton = b.newton, steps = b.steps;
  }
  const double p = std::log2(e[1] / e[2]);
  struct Blocked {
    BetaMultistepOptions m;
    double measured;
  };
  for (const Blocked& b : {Blocked{BetaMultistepOptions::dcbdf_beta(3), 4.3},
                           Blocked{BetaMultistepOptions::am_beta(3), 6.1}}) {
    const TruckErrors t = truck_claims_errors(b.m, 1.0 / 128);
    // BDF3's step for the error t.x: h = 2^-7 (t.x / e[0])^(1/p)
    const double factor = std::pow(e[0] / t.x, 1.0 / p);
    const double work = factor * (double(newton) / steps) / (double(t.newton) / t.steps);
    std::printf(
        "truck: BDF3 (order %.2f) needs %.2f times the steps of %s at h = 2^-7 for its x error "
        "%.2e (%.2f times the Newton iterations)\n",
        p, factor, b.m.scheme_name().c_str(), t.x, work);
    EXPECT_NEAR(factor, b.measured, 0.15 * b.measured) << b.m.scheme_name();
    EXPECT_GT(factor, 4.0) << b.m.scheme_name();
  }
}

// Section 5: DCBDFk has the order of BDF(k+1) with an error constant 2.4-4 times smaller, "a
// 2-4 times higher accuracy". On the truck at h = 2^-7 the x error ratios BDF(k+1) /
// beta-DCBDFk are 3.97, 3.02, 2.65, 2.54 for k = 1..4 -- the constants' ratios 4, 3, 8/3, 5/2
// (asserted within 10 % of them; k = 5 reaches the round-off floor at 2^-7).
// claim: 003-S5-dcbdf-vs-bdf
TEST(MultistepClaims, TruckDcbdfAgainstBdfOfTheSameOrder) {
  for (int k = 1; k <= 4; ++k) {
    const TruckErrors d = truck_claims_errors(BetaMultistepOptions::dcbdf_beta(k), 1.0 / 128);
    const TruckErrors b = truck_claims_errors(BetaMultistepOptions::bdf(k + 1), 1.0 / 128);
    const double constants =
        std::abs(bdf_formula(k + 1).error_constant / dcbdf_formula(k).error_constant);
    std::printf(
        "truck, h = 2^-7: x errors BDF%d %.3e, beta-DCBDF%d %.3e: ratio %.2f "
        "(constants %.2f)\n",
        k + 1, b.x, k, d.x, b.x / d.x, constants);
    EXPECT_NEAR(b.x / d.x, constants, 0.1 * constants) << k;
  }
}

// Fig. 5.1: precision against step size of beta-DCBDFk (k = 1..5) and beta-AMk (k = 1..3) on
// the truck: the position errors fall with slope k+1, the algebraic ones with slope k. From h =
// 2^-6 to 2^-7 (errors at t = 1): asserted +-0.3 for x with k <= 4 and AM1-3 and for lambda
// with every k (beta-DCBDF5's x error at 2^-7, 1.6e-13, is at the round-off floor: its slope
// 6 is asserted on the manufactured problem, BetaMultistepOrders.
// BetaBlockedDcbdfIsOrderKPlusOneInXAndKInLambda); AM1 (c = -1/2) gives DCBDF1's numbers.
// claim: 003-Fig5.1-effort
TEST(MultistepClaims, Figure51SlopesOnTheTruck) {
  std::vector<BetaMultistepOptions> methods;
  for (int k = 1; k <= 5; ++k) methods.push_back(BetaMultistepOptions::dcbdf_beta(k));
  for (int k = 1; k <= 3; ++k) methods.push_back(BetaMultistepOptions::am_beta(k));
  for (const BetaMultistepOptions& m : methods) {
    const TruckErrors a = truck_claims_errors(m, 1.0 / 64), b = truck_claims_errors(m, 1.0 / 128);
    const double ox = std::log2(a.x / b.x), ol = std::log2(a.lambda / b.lambda);
    std::printf(
        "truck %-22s 2^-6 -> 2^-7: x %.2e -> %.2e slope %.2f (k+1 = %d), lambda %.2e -> "
        "%.2e slope %.2f (k = %d)\n",
        m.scheme_name().c_str(), a.x, b.x, ox, m.k + 1, a.lambda, b.lambda, ol, m.k);
    if (!(m.family == MultistepFamily::DCBDF && m.k == 5))
      EXPECT_NEAR(ox, m.k + 1, 0.3) << m.scheme_name();
    EXPECT_NEAR(ol, m.k, 0.3) << m.scheme_name();
  }
  const TruckErrors am1 = truck_claims_errors(BetaMultistepOptions::am_beta(1), 1.0 / 128);
  const TruckErrors dc1 = truck_claims_errors(BetaMultistepOptions::dcbdf_beta(1), 1.0 / 128);
  EXPECT_NEAR(am1.x, dc1.x, 1e-12 * dc1.x + 1e-16);
  EXPECT_NEAR(am1.lambda, dc1.lambda, 1e-12 * dc1.lambda + 1e-16);
}

// Section 5: "a fixed number of Newton iterations" per step at the steps 2^-7 .. 2^-15. With
// at most 3 iterations (max_newton_iterations = 3) beta-DCBDF3 takes every step of h = 2^-7,
// 2^-9, .., 2^-15 on the truck without a Newton failure (1.1 to 2.9 iterations per step) and
// its errors equal those with the default 10 iterations (within 2 % or 1e-13).
// claim: 003-S5-fixed-newton
TEST(MultistepClaims, TruckFixedNumberOfNewtonIterations) {
  for (int j = 7; j <= 15; j += 2) {
    const double h = std::pow(2.0, -j);
    const TruckErrors three = truck_claims_errors(BetaMultistepOptions::dcbdf_beta(3), h, 3);
    const TruckErrors ten = truck_claims_errors(BetaMultistepOptions::dcbdf_beta(3), h, 10);
    std::printf(
        "truck beta-DCBDF3, h = 2^-%d, at most 3 Newton iterations: %ld failures, %.2f "
        "per step, x %.2e lambda %.2e (10 iterations: x %.2e lambda %.2e)\n",
        j, three.newton_failures, double(three.newton) / three.steps, three.x, three.lambda, ten.x,
        ten.lambda);
    EXPECT_EQ(three.newton_failures, 0) << j;
    EXPECT_LE(three.newton, 3 * three.steps) << j;
    EXPECT_NEAR(three.x, ten.x, 0.02 * ten.x + 1e-13) << j;
    EXPECT_NEAR(three.lambda, ten.lambda, 0.02 * ten.lambda + 1e-13) << j;
  }
}

// Fig. 4.2 plots the compound DCBDF3/BDF3 (3.2) apart from beta-DCBDF3 (3.3), and (3.2) is of
// order k = 3 in all variables. On the transcribed truck they coincide: x errors at t = 1 within
// 2 % of each other at h = 2^-7 and 2^-8 (5.67e-11 / 5.75e-11, 3.60e-12 / 3.60e-12), the
// compound's x order 4, not 3. The reason: (3.3) - (3.2) is sigma_k (G^T lambda) - G_n^T
// sigma_k lambda, which vanishes for a constant G (MultistepClaims.
// BetaDcbdfEqualsTheCompoundForConstantG), and the truck's constraint Jacobian G(q) (the load's
// hinge) changes by only 1.9e-5 relative over [0, 1] (asserted below 1e-3). The paper's
// separate curves need a truck whose hinge turns; its excitation is not published
// (docs/multistep.md, "The truck").
// claim: 003-Fig4.2-compound (deviation: equals beta-DCBDF3 on our truck, whose G is ~constant)
TEST(MultistepClaims, TruckCompoundCoincidesWithBetaDcbdf) {
  double ec[2], eb[2];
  for (int j = 0; j < 2; ++j) {
    ec[j] = truck_claims_errors(BetaMultistepOptions::compound(3), 1.0 / (128 << j)).x;
    eb[j] = truck_claims_errors(BetaMultistepOptions::dcbdf_beta(3), 1.0 / (128 << j)).x;
  }
  const BuiltinProblem p = truck_euler_lagrange();
  const MechanicalSystem sys = truck_multibody_system();
  Options o;
  o.fixed_step = true;
  o.h0 = 1.0 / 128;
  o.rtol = o.atol = 1e-12;
  const Result r = solve(p.dae, 0.0, 1.0, p.y0, BetaMultistepOptions::dcbdf_beta(3), o);
  ASSERT_TRUE(r.ok()) << r.message;
  Matrix G0 = Matrix::Zero(2, 9), G = Matrix::Zero(2, 9);
  sys.G(0.0, Vector(p.y0.head(9)), G0);
  double change = 0.0;
  for (size_t i = 0; i < r.t_steps.size(); ++i) {
    G.setZero();
    sys.G(r.t_steps[i], Vector(r.y_steps[i].head(9)), G);
    change = std::max(change, (G - G0).norm() / G0.norm());
  }
  const double order = std::log2(ec[0] / ec[1]);
  std::printf(
      "truck, x errors compound / beta-DCBDF3: h = 2^-7 %.3e / %.3e, 2^-8 %.3e / %.3e; compound "
      "x order %.2f; max |G(q(t)) - G(q0)| / |G(q0)| over [0, 1] %.1e\n",
      ec[0], eb[0], ec[1], eb[1], order, change);
  for (int j = 0; j < 2; ++j) EXPECT_NEAR(ec[j], eb[j], 0.02 * eb[j]) << j;
  EXPECT_NEAR(order, 4.0, 0.3);
  EXPECT_LT(change, 1e-3);
}

namespace {

// Max over the steps of [0, 3] of the x and lambda errors on the manufactured problem at h,
// h/2, h/4; returns the orders of the last halving.
std::pair<double, double> manufactured_claims_orders(const BetaMultistepOptions& m, double h) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  double ex[3], el[3];
  for (int j = 0; j < 3; ++j) {
    Options o;
    o.fixed_step = true;
    o.h0 = h / (1 << j);
    o.rtol = o.atol = 1e-14;
    const Result r = solve(p.dae, 0.0, 3.0, p.y0, m, o);
    EXPECT_TRUE(r.ok()) << m.scheme_name() << ": " << r.message;
    ex[j] = el[j] = 0.0;
    for (size_t i = 0; i < r.t_steps.size(); ++i) {
      const Vector d = r.y_steps[i] - p.exact(r.t_steps[i]);
      ex[j] = std::max(ex[j], d.head(2).cwiseAbs().maxCoeff());
      el[j] = std::max(el[j], std::abs(d[2]));
    }
  }
  const double ox = std::log2(ex[1] / ex[2]), ol = std::log2(el[1] / el[2]);
  std::printf(
      "%-40s h = %.4f .. %.4f: x %.2e %.2e %.2e (order %.2f), lambda %.2e %.2e %.2e "
      "(order %.2f)\n",
      m.scheme_name().c_str(), h, h / 4, ex[0], ex[1], ex[2], ox, el[0], el[1], el[2], ol);
  return {ox, ol};
}

}  // namespace

// Remark 2.2: with a blocker tau = O(h^q) of general q the method converges with x of order
// min(p, q + 1) and lambda of order min(p, q) (p the order of (rho, sigma)). Section 2: "if
// further order drops are acceptable, then we can also stabilize AM4": no c makes sigma -
// c nabla^4 strictly stable (MultistepToolkit.AdamsMoultonBlockingConstants), but c nabla^3
// does (c = -0.164, largest root 0.54). On the manufactured problem (max error over [0, 3],
// h = 0.05 .. 0.0125), last halving: AM4 (p = 5) and AM5 (p = 6) with q = 3: x 4.01 and 4.03 =
// q + 1, lambda 3.00 = q: the bounds, attained; DCBDF4 (p = 5) with q = 2 and 3: lambda 2.00 and
// 3.00 = q, x 4.11 and 5.00 = q + 2, one better than the bound. Asserted +-0.3 (x at least
// min(p, q + 1) - 0.3).
// claim: 003-R2.2-extended
// claim: 003-S2-am4-lower-order
TEST(MultistepClaims, BlockerOfLowerOrderGivesTheOrdersOfRemark22) {
  struct Case {
    MultistepFamily family;
    int k, q;
    double x_measured;
  };
  const Case cases[] = {{MultistepFamily::DCBDF, 4, 2, 4.0},
                        {MultistepFamily::DCBDF, 4, 3, 5.0},
                        {MultistepFamily::AdamsMoulton, 4, 3, 4.0},
                        {MultistepFamily::AdamsMoulton, 5, 3, 4.0}};
  for (const Case& c : cases) {
    BetaMultistepOptions m = c.family == MultistepFamily::DCBDF
                                 ? BetaMultistepOptions::dcbdf_beta(c.k)
                                 : BetaMultistepOptions::am_beta(c.k);
    m.blocker_order = c.q;
    const int p = m.formula().order;
    const double root =
        max_root_modulus(blocked_sigma(m.formula().sigma, m.blocking_constant(), c.q));
    std::printf("%s: p = %d, q = %d, c = %.5f, largest root of sigma - tau %.4f\n",
                m.scheme_name().c_str(), p, c.q, m.blocking_constant(), root);
    EXPECT_LT(root, 1.0) << m.scheme_name();
    const auto [ox, ol] = manufactured_claims_orders(m, 0.05);
    EXPECT_GE(ox, std::min(p, c.q + 1) - 0.3) << m.scheme_name();
    EXPECT_NEAR(ox, c.x_measured, 0.3) << m.scheme_name();
    EXPECT_NEAR(ol, std::min(p, c.q), 0.3) << m.scheme_name();
  }
  // AM4 with the default q = k is still refused
  EXPECT_THROW(BetaMultistepOptions::am_beta(4).validate(), InvalidArgument);
  BetaMultistepOptions bad = BetaMultistepOptions::am_beta(4);
  bad.blocker_order = 5;
  EXPECT_THROW(bad.validate(), InvalidArgument);
}
