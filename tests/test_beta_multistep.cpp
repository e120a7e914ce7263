// The beta-blocked multistep methods (methods/beta_multistep.hpp) on index-2 Euler-Lagrange
// DAEs: observed orders (printed), the instability of the unblocked schemes, the accuracy
// claims of paper 003 (003_93cd61043aac115a.txt) Section 5, the blocked trapezoidal rule of
// NOTES-004.md ch. 5 (5.12)-(5.15) against an independent implementation, the problem form and
// its adaptors, variable steps, and the refusal of bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

struct MultistepErrors {
  double x = NAN, lambda = NAN;
  bool ok = false;
  std::string message;
};

// Constant steps h on [t0, T]; errors against p.exact: the maximum over the steps (exact
// solutions) or at T only (reference functions that are expensive).
MultistepErrors fixed_step_errors(const BuiltinProblem& p, const BetaMultistepOptions& o, double h,
                                  double T, bool over_steps) {
  Options op;
  op.fixed_step = true;
  op.h0 = h;
  op.rtol = op.atol = 1e-14;  // Newton solved to round-off
  op.store_steps = over_steps;
  const Result r = solve(p.dae, p.t0, T, p.y0, o, op);
  MultistepErrors e;
  e.ok = r.ok();
  e.message = r.message;
  if (!r.ok()) return e;
  const int nx = p.euler_lagrange->nx, m = p.euler_lagrange->nlambda;
  e.x = e.lambda = 0.0;
  auto add = [&](double t, const Vector& y) {
    const Vector d = y - p.exact(t);
    e.x = std::max(e.x, d.head(nx).cwiseAbs().maxCoeff());
    e.lambda = std::max(e.lambda, d.tail(m).cwiseAbs().maxCoeff());
  };
  if (over_steps)
    for (size_t i = 0; i < r.t_steps.size(); ++i) add(r.t_steps[i], r.y_steps[i]);
  else
    add(r.t, r.y);
  return e;
}

struct Rates {
  double x = 0, lambda = 0;  // from the last halving
  MultistepErrors finest;
};

// Three runs at h, h/2, h/4 on the manufactured problem (t in [0, 3]); prints the table.
Rates observed_orders(const BetaMultistepOptions& o, double h) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  MultistepErrors e[3];
  for (int j = 0; j < 3; ++j) e[j] = fixed_step_errors(p, o, h / (1 << j), 3.0, true);
  std::printf("%-26s", o.scheme_name().c_str());
  for (int j = 0; j < 3; ++j) {
    std::printf("  h = %.5f: x %.2e lambda %.2e", h / (1 << j), e[j].x, e[j].lambda);
    if (j > 0)
      std::printf(" (%.2f, %.2f)", std::log2(e[j - 1].x / e[j].x),
                  std::log2(e[j - 1].lambda / e[j].lambda));
  }
  std::printf("\n");
  for (const MultistepErrors& x : e) EXPECT_TRUE(x.ok) << o.scheme_name() << ": " << x.message;
  return {std::log2(e[1].x / e[2].x), std::log2(e[1].lambda / e[2].lambda), e[2]};
}

}  // namespace

// --- the problem form and its adaptors ------------------------------------------------------

TEST(EulerLagrange, MassMatrixFormAndExactSolution) {
  const EulerLagrangeDae el = manufactured_euler_lagrange();
  const MassMatrixDae d = to_mass_matrix_form(el);
  EXPECT_EQ(d.n, 3);
  EXPECT_EQ(d.index, (std::vector<int>{1, 1, 2}));
  EXPECT_EQ(d.algebraic_rows(), std::vector<int>{2});
  EXPECT_EQ(d.algebraic_columns(), std::vector<int>{2});
  // the exact solution satisfies x' = f - G^T lambda (central differences) and g = 0
  double worst = 0.0;
  for (double t = 0.0; t <= 10.0; t += 0.1) {
    const Vector y = manufactured_euler_lagrange_solution(t);
    const Vector yp = (manufactured_euler_lagrange_solution(t + 1e-5) -
                       manufactured_euler_lagrange_solution(t - 1e-5)) /
                      2e-5;
    Vector F(3);
    d.f(t, y, F);
    worst = std::max({worst, std::abs(F[0] - yp[0]), std::abs(F[1] - yp[1]), std::abs(F[2])});
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_NEAR(consistent_multipliers(el, 0.0, Vector::Unit(2, 0))[0], 1.0, 1e-12);
  EXPECT_THROW(initial_values(el, 0.0, Vector::Constant(2, 1.0)), InvalidArgument);  // g != 0
}

// The truck as transcribed: at the published steady state all accelerations vanish and the
// consistent multipliers are the published ones (la = (0, 6.80562088888888e4), daekit's sign
// -la); Andrews' consistent multipliers are the IVP Test Set's.
// claim: 003-S5-truck-model
TEST(EulerLagrange, ConsistentMultipliersOfTheBuiltInModels) {
  const BuiltinProblem truck = truck_euler_lagrange();
  const MechanicalSystem mech = truck_multibody_system();
  const AccelerationAndMultipliers am =
      consistent_acceleration(mech, 0.0, truck.y0.head(9), Vector::Zero(9));
  std::printf("truck at the steady state: max |acceleration| %.2e, lambda (%.6g, %.12g)\n",
              am.w.cwiseAbs().maxCoeff(), am.lambda[0], am.lambda[1]);
  EXPECT_LT(am.w.cwiseAbs().maxCoeff(), 1e-9);
  const Vector lt = consistent_multipliers(*truck.euler_lagrange, 0.0, truck.y0.head(18));
  EXPECT_NEAR(lt[0], 0.0, 1e-6);
  EXPECT_NEAR(lt[1], -6.80562088888888e4, 1e-6);
  EXPECT_EQ(truck.dae.n, 20);  // "20 equations in index 2 form" (paper 003 Section 5)
  const BuiltinProblem a = andrews_euler_lagrange();
  const Vector la = consistent_multipliers(*a.euler_lagrange, 0.0, a.y0.head(14));
  EXPECT_LT((la - a.y0.tail(6)).cwiseAbs().maxCoeff(), 1e-9 * a.y0.tail(6).cwiseAbs().maxCoeff());
}

// SemiExplicitDae of index 2 with f affine in z is taken over; the manufactured problem written
// that way gives the same solution.
TEST(EulerLagrange, AdaptorFromSemiExplicitIndex2) {
  SemiExplicitDae s;
  s.ny = 2;
  s.nz = 1;
  s.algebraic_index = 2;
  s.name = "manufactured, semi-explicit";
  s.f = [](double, VecIn y, VecIn z, VecOut f) {
    const double omega = 1.0 + y[1] / 2.0, phi = 1.0 + y[0];
    f[0] = -omega * y[1] + phi * y[0] - 2.0 * y[0] * z[0];
    f[1] = omega * y[0] + phi * y[1] - 2.0 * y[1] * z[0];
  };
  s.g = [](double, VecIn y, VecIn, VecOut g) { g[0] = y.squaredNorm() - 1.0; };
  const Vector x0 = Vector::Unit(2, 0);
  const EulerLagrangeDae el = euler_lagrange_form(s, 0.0, x0);
  const MassMatrixDae d = to_mass_matrix_form(el);
  const Vector y0 = initial_values(el, 0.0, x0);
  EXPECT_NEAR(y0[2], 1.0, 1e-12);
  Options o;
  o.fixed_step = true;
  o.h0 = 0.01;
  o.rtol = o.atol = 1e-13;
  const Result a = solve(d, 0.0, 1.0, y0, BetaMultistepOptions::dcbdf_beta(3), o);
  const BuiltinProblem m = euler_lagrange_manufactured();
  const Result b = solve(m.dae, 0.0, 1.0, m.y0, BetaMultistepOptions::dcbdf_beta(3), o);
  ASSERT_TRUE(a.ok()) << a.message;
  ASSERT_TRUE(b.ok()) << b.message;
  EXPECT_LT((a.y - b.y).cwiseAbs().maxCoeff(), 1e-12);
  // not of this structure: f quadratic in z, index 1, g depending on z
  SemiExplicitDae q = s;
  q.f = [](double, VecIn y, VecIn z, VecOut f) { f = y * (1.0 + z[0] * z[0]); };
  EXPECT_THROW(euler_lagrange_form(q, 0.0, x0), InvalidArgument);
  SemiExplicitDae i1 = s;
  i1.algebraic_index = 1;
  EXPECT_THROW(euler_lagrange_form(i1, 0.0, x0), InvalidArgument);
  SemiExplicitDae gz = s;
  gz.g = [](double, VecIn y, VecIn z, VecOut g) { g[0] = y.squaredNorm() - 1.0 + z[0]; };
  EXPECT_THROW(euler_lagrange_form(gz, 0.0, x0), InvalidArgument);
}

// --- observed orders (paper 003 Theorem 2.1, Sections 3-4; notes Theorem 5.1) ---------------

// claim: 003-T2.1-x
// claim: 003-T2.1-lambda
// claim: 003-eq3.3-orders
// claim: 004-ch5-beta-blocking
// claim: 004-5.5-observed-error
TEST(BetaMultistepOrders, BetaBlockedDcbdfIsOrderKPlusOneInXAndKInLambda) {
  const double h[] = {0, 0.05, 0.05, 0.05, 0.05, 0.1, 0.1};  // errors stay above round-off
  for (int k = 1; k <= 6; ++k) {
    const Rates r = observed_orders(BetaMultistepOptions::dcbdf_beta(k), h[k]);
    EXPECT_NEAR(r.x, k + 1, 0.3) << "beta-DCBDF" << k;
    EXPECT_NEAR(r.lambda, k, 0.3) << "beta-DCBDF" << k;
  }
}

// claim: 003-T2.1-x
// claim: 003-T2.1-lambda
// claim: 003-S4-am-orders
// claim: 004-ch5-beta-blocking
// claim: 004-5.4.2-order-drop
TEST(BetaMultistepOrders, BetaBlockedAdamsMoultonIsOrderKPlusOneInXAndKInLambda) {
  for (int k = 1; k <= 3; ++k) {
    const Rates r = observed_orders(BetaMultistepOptions::am_beta(k), 0.05);
    EXPECT_NEAR(r.x, k + 1, 0.3) << "beta-AM" << k;
    EXPECT_NEAR(r.lambda, k, 0.3) << "beta-AM" << k;
  }
}

// claim: 003-eq3.2-compound
// claim: 004-5.5-observed-error
// claim: 004-5.4.1-commutative
TEST(BetaMultistepOrders, BdfAndTheCompoundDcbdfBdfAreOrderK) {
  for (int k = 1; k <= 5; ++k) {
    const Rates r = observed_orders(BetaMultistepOptions::bdf(k), k <= 2 ? 0.025 : 0.05);
    EXPECT_NEAR(r.x, k, 0.3) << "BDF" << k;
    EXPECT_NEAR(r.lambda, k, 0.3) << "BDF" << k;
  }
  for (int k = 1; k <= 4; ++k) {  // (3.2) = notes (5.11)
    const Rates r = observed_orders(BetaMultistepOptions::compound(k), 0.05);
    EXPECT_NEAR(r.x, k, 0.3) << "compound " << k;
    EXPECT_NEAR(r.lambda, k, 0.3) << "compound " << k;
  }
}

// Remark 2.1: the commuted variant (2.6) is of order k in all variables. With DCBDF, where
// sigma_k - tau = 1, (2.6) is exactly the compound (3.2): sigma (f - B^T lambda) + tau (B^T
// lambda) = sigma f - (sigma - tau)(B^T lambda) = sigma f - B_n^T lambda_n.
// claim: 003-Fig3.2-commuted
TEST(BetaMultistepOrders, CommutedVariantIsOrderK) {
  for (int k = 2; k <= 3; ++k) {
    const Rates r =
        observed_orders(BetaMultistepOptions::commuted(MultistepFamily::AdamsMoulton, k), 0.05);
    EXPECT_NEAR(r.x, k, 0.3) << "AM" << k << " commuted";
  }
  const BuiltinProblem p = euler_lagrange_manufactured();
  for (int k = 1; k <= 4; ++k) {
    const MultistepErrors a = fixed_step_errors(
        p, BetaMultistepOptions::commuted(MultistepFamily::DCBDF, k), 0.05, 3.0, true);
    const MultistepErrors b =
        fixed_step_errors(p, BetaMultistepOptions::compound(k), 0.05, 3.0, true);
    EXPECT_NEAR(a.x, b.x, 1e-12 + 1e-9 * b.x) << k;
  }
}

// The unblocked standard discretisation (1.2) = notes (5.10) with DCBDF2, DCBDF3 and AM2 blows up
// (sigma has roots -1.366, -1.702, -1.717: lambda errors grow like |root|^n), while the other
// order of "discretise, then constrain", (5.11) = (3.2), converges (previous test).
// claim: 003-eq1.2-needs-strict-sigma
// claim: 004-5.1-adams-unblocked
// claim: 004-5.4.1-commutative
TEST(BetaMultistepOrders, UnblockedStandardSchemesBlowUp) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  const BetaMultistepOptions unstable[] = {
      BetaMultistepOptions::standard(MultistepFamily::DCBDF, 2),
      BetaMultistepOptions::standard(MultistepFamily::DCBDF, 3),
      BetaMultistepOptions::standard(MultistepFamily::AdamsMoulton, 2)};
  for (const BetaMultistepOptions& o : unstable) {
    std::printf("%-22s", o.scheme_name().c_str());
    for (double h : {0.1, 0.05, 0.025}) {
      const MultistepErrors e = fixed_step_errors(p, o, h, 3.0, false);
      if (e.ok)
        std::printf("  h = %.3f: lambda error %.2e", h, e.lambda);
      else
        std::printf("  h = %.3f: %s", h, e.message.substr(0, 40).c_str());
      if (h == 0.025) EXPECT_TRUE(!e.ok || e.lambda > 1.0) << o.scheme_name();
    }
    std::printf("\n");
    // the solve reports the instability among its warnings
    Options op;
    op.fixed_step = true;
    op.h0 = 0.1;
    op.rtol = op.atol = 1e-10;
    const Result r = solve(p.dae, 0.0, 0.3, p.y0, o, op);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("strict root condition"), std::string::npos) << r.warnings[0];
  }
  // the blocked ones at the same step converge
  const MultistepErrors b =
      fixed_step_errors(p, BetaMultistepOptions::dcbdf_beta(3), 0.025, 3.0, false);
  EXPECT_LT(b.lambda, 1e-5);
}

// --- the blocked trapezoidal rule, notes (5.12)-(5.15) ----------------------------------------

// (5.15), collected form: (x_n - x_{n-1})/h = (f_n + f_{n-1})/2 - G_n^T lambda_n
//   + (G_n - G_{n-1})^T lambda_{n-1} / 2,  0 = g(x_n)  (f_lambda = G^T in the notes' Section
// 5.4 convention y' = f0 - f_lambda lambda), solved here by a separate Newton iteration.
// claim: 003-S4-trapezoid
// claim: 004-5-trapezoid-blocked
// claim: 003-eq2.3-collected
TEST(BetaMultistepTrapezoid, MatchesAnIndependentImplementationOfTheCollectedForm) {
  const EulerLagrangeDae el = manufactured_euler_lagrange();
  const double h = 0.05;
  const int steps = 60;
  Vector x = Vector::Unit(2, 0);
  double lambda = 1.0;
  auto f = [&](const Vector& v) {
    Vector out(2);
    el.f(0.0, v, out);
    return out;
  };
  auto Gt = [&](const Vector& v) { return Vector(2.0 * v); };
  for (int n = 0; n < steps; ++n) {
    const Vector xp = x;
    const double lp = lambda;
    Vector z(3);
    z << xp, lp;
    auto residual = [&](const Vector& w) {
      const Vector xn = w.head(2);
      Vector r(3);
      r.head(2) =
          (xn - xp) / h - (f(xn) + f(xp)) / 2.0 + Gt(xn) * w[2] - (Gt(xn) - Gt(xp)) * lp / 2.0;
      r[2] = xn.squaredNorm() - 1.0;
      return r;
    };
    for (int it = 0; it < 30; ++it) {
      const Vector r0 = residual(z);
      Matrix J(3, 3);
      for (int j = 0; j < 3; ++j) {
        Vector zz = z;
        zz[j] += 1e-7;
        J.col(j) = (residual(zz) - r0) / 1e-7;
      }
      const Vector dz = J.fullPivLu().solve(-r0);
      z += dz;
      if (dz.cwiseAbs().maxCoeff() < 1e-15) break;
    }
    x = z.head(2);
    lambda = z[2];
  }
  const BuiltinProblem p = euler_lagrange_manufactured();
  Options o;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = 1e-14;
  const Result r = solve(p.dae, 0.0, h * steps, p.y0, BetaMultistepOptions::trapezoid_blocked(), o);
  ASSERT_TRUE(r.ok()) << r.message;
  std::printf("blocked trapezoid vs the collected form (5.15): |dx| %.2e, |dlambda| %.2e\n",
              (r.y.head(2) - x).cwiseAbs().maxCoeff(), std::abs(r.y[2] - lambda));
  // (both solved to the Newton floor of ~1e-12 relative; the scheme's own error is ~1e-4)
  EXPECT_LT((r.y.head(2) - x).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT(std::abs(r.y[2] - lambda), 1e-9);
  // DCBDF1 = AM1 = trapezoid with tau = -nabla/2: the same coefficients, the same numbers
  const Result a = solve(p.dae, 0.0, 1.0, p.y0, BetaMultistepOptions::dcbdf_beta(1), o);
  const Result b = solve(p.dae, 0.0, 1.0, p.y0, BetaMultistepOptions::am_beta(1), o);
  EXPECT_EQ(a.y, b.y);
}

// --- accuracy at equal steps (paper 003 Section 5: "about 100 times as accurate as BDF3";
// AM3 more accurate than DCBDF3) -----------------------------------------------------------

// claim: 003-S5-100x-bdf3
// claim: 003-S5-am3-better
TEST(BetaMultistepAccuracy, BlockedDcbdf3AndAm3AgainstBdf3) {
  struct Case {
    BuiltinProblem p;
    double h, T;
    bool over_steps;
  };
  // manufactured: max over the steps of [0, 3] (as NOTES-000-003.md's [R] values, checked
  // below); pendulum: at t = 2 (its reference is expensive)
  const Case cases[] = {{euler_lagrange_manufactured(), 3.0 / 480, 3.0, true},
                        {pendulum_euler_lagrange(), 0.00625, 2.0, false}};
  for (const Case& c : cases) {
    const MultistepErrors bdf3 =
        fixed_step_errors(c.p, BetaMultistepOptions::bdf(3), c.h, c.T, c.over_steps);
    const MultistepErrors dc3 =
        fixed_step_errors(c.p, BetaMultistepOptions::dcbdf_beta(3), c.h, c.T, c.over_steps);
    const MultistepErrors am3 =
        fixed_step_errors(c.p, BetaMultistepOptions::am_beta(3), c.h, c.T, c.over_steps);
    std::printf(
        "%s, h = %.5f, errors %s: BDF3 x %.2e lambda %.2e; beta-DCBDF3 x %.2e lambda %.2e (x "
        "%.0f times smaller); beta-AM3 x %.2e lambda %.2e (x %.0f times smaller)\n",
        c.p.name.c_str(), c.h, c.over_steps ? "max over the steps" : "at t_end", bdf3.x,
        bdf3.lambda, dc3.x, dc3.lambda, bdf3.x / dc3.x, am3.x, am3.lambda, bdf3.x / am3.x);
    EXPECT_GT(bdf3.x / dc3.x, 30.0) << c.p.name;
    EXPECT_GT(bdf3.x / am3.x, 30.0) << c.p.name;
    EXPECT_LT(am3.x, dc3.x) << c.p.name;
  }
}

// NOTES-000-003.md [R] (section 003), manufactured test at h = 3/480, T = 3: beta-DCBDF3 e_x
// 2.7e-9, e_lambda 1.4e-7; BDF3 4.4e-7, 5.8e-7; beta-AM3 6.7e-10, 5.5e-8. They are the maxima
// over [0, 3] of |x - x(t)| (Euclidean) and |lambda - lambda(t)|: confirmed to the digits given.
TEST(BetaMultistepAccuracy, ReadingNotesValuesOfTheManufacturedTest) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  struct Claim {
    BetaMultistepOptions o;
    double ex, el;
  };
  const Claim claims[] = {{BetaMultistepOptions::dcbdf_beta(3), 2.7e-9, 1.4e-7},
                          {BetaMultistepOptions::bdf(3), 4.4e-7, 5.8e-7},
                          {BetaMultistepOptions::am_beta(3), 6.7e-10, 5.5e-8}};
  for (const Claim& c : claims) {
    Options op;
    op.fixed_step = true;
    op.h0 = 3.0 / 480;
    op.rtol = op.atol = 1e-14;
    const Result r = solve(p.dae, 0.0, 3.0, p.y0, c.o, op);
    ASSERT_TRUE(r.ok()) << r.message;
    double ex = 0, el = 0;
    for (size_t i = 0; i < r.t_steps.size(); ++i) {
      const Vector e = r.y_steps[i] - p.exact(r.t_steps[i]);
      ex = std::max(ex, e.head(2).norm());
      el = std::max(el, std::abs(e[2]));
    }
    std::printf("%-22s e_x %.3e (notes: %.1e), e_lambda %.3e (notes: %.1e)\n",
                c.o.scheme_name().c_str(), ex, c.ex, el, c.el);
    EXPECT_NEAR(ex, c.ex, 0.05 * c.ex) << c.o.scheme_name();
    EXPECT_NEAR(el, c.el, 0.05 * c.el) << c.o.scheme_name();
  }
}

// The Radau IIA starting procedure is as good as exact starting values.
TEST(BetaMultistepStart, RadauStartEqualsExactStart) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  for (int k : {2, 4, 6}) {
    BetaMultistepOptions o = BetaMultistepOptions::dcbdf_beta(k);
    const MultistepErrors radau = fixed_step_errors(p, o, 0.05, 3.0, true);
    o.exact_start = p.exact;
    const MultistepErrors exact = fixed_step_errors(p, o, 0.05, 3.0, true);
    std::printf("beta-DCBDF%d, h = 0.05: x error %.3e (Radau IIA start), %.3e (exact start)\n", k,
                radau.x, exact.x);
    EXPECT_NEAR(radau.x, exact.x, 0.05 * exact.x);
    EXPECT_NEAR(radau.lambda, exact.lambda, 0.05 * exact.lambda);
  }
}

// --- the truck (paper 003 Section 5) and variable steps -------------------------------------

// Every scheme on the 20-equation truck, published scenario, constant steps h = 2^-7 and 2^-8
// on [0, 1]: the observed orders of the positions and velocities x and of the multipliers
// lambda against a reference by beta-DCBDF5 at h = 2^-11 (radau5 at rtol = atol = 1e-13 is off
// by 4.5e-11 in x and 1.1e-6 in lambda, the floor that hid every order >= 3 before issue 28).
// Asserted within +-0.3 of paper 003's Theorem 2.1 where the errors are above the reference's
// (x k+1 and lambda k for beta-DCBDFk and beta-AMk, x and lambda k for BDFk; the compound
// scheme (3.2), of order k "in all", shows x of order k + 1 at k = 3 (asserted as measured;
// 2.24 and 2.77 at k = 1, 2, and at k = 4 its x errors reach the reference's 4e-14); the
// unblocked DCBDF2/AM2 blow up.
// claim: 003-Fig4.2-dcbdf3-orders
// claim: 003-Fig4.2-am3-orders
// claim: 003-Fig4.2-bdf-orders
TEST(BetaMultistepTruck, RunsWithEveryScheme) {
  const BuiltinProblem p = truck_euler_lagrange();
  Options fo;
  fo.fixed_step = true;
  fo.h0 = 1.0 / 2048;
  fo.rtol = fo.atol = 1e-13;
  fo.store_steps = false;
  const Result ref = solve(p.dae, 0.0, 1.0, p.y0, BetaMultistepOptions::dcbdf_beta(5), fo);
  ASSERT_TRUE(ref.ok()) << ref.message;
  struct Scheme {
    BetaMultistepOptions m;
    double x, lambda;  // asserted orders (< 0: at the reference's floor, printed only)
  };
  std::vector<Scheme> stable;
  for (int k = 1; k <= 6; ++k)
    stable.push_back(
        {BetaMultistepOptions::dcbdf_beta(k), k <= 4 ? k + 1.0 : -1, k <= 4 ? k : -1.0});
  for (int k = 1; k <= 3; ++k)
    stable.push_back({BetaMultistepOptions::am_beta(k), k + 1.0, 1.0 * k});
  for (int k = 1; k <= 6; ++k)
    stable.push_back({BetaMultistepOptions::bdf(k), k <= 5 ? k : -1.0, k <= 5 ? k : -1.0});
  for (int k = 1; k <= 6; ++k)
    stable.push_back({BetaMultistepOptions::compound(k), k == 3 ? k + 1.0 : -1, k <= 4 ? k : -1.0});
  for (int k = 2; k <= 3; ++k)
    stable.push_back(
        {BetaMultistepOptions::commuted(MultistepFamily::AdamsMoulton, k), k + 1.0, 1.0 * k});
  stable.push_back({BetaMultistepOptions::trapezoid_blocked(), 2, 1});
  Options o;
  o.fixed_step = true;
  o.rtol = o.atol = 1e-12;
  o.store_steps = false;
  for (const Scheme& sc : stable) {
    double ex[2], el[2];
    for (int k = 0; k < 2; ++k) {
      o.h0 = 1.0 / (128 << k);
      const Result r = solve(p.dae, 0.0, 1.0, p.y0, sc.m, o);
      ASSERT_TRUE(r.ok()) << sc.m.scheme_name() << ": " << r.message;
      ex[k] = (r.y.head(18) - ref.y.head(18)).cwiseAbs().maxCoeff();
      el[k] = (r.y.tail(2) - ref.y.tail(2)).cwiseAbs().maxCoeff();
    }
    const double ox = std::log2(ex[0] / ex[1]), ol = std::log2(el[0] / el[1]);
    std::printf(
        "truck %-30s x %.2e -> %.2e order %5.2f (%g) | lambda %.2e -> %.2e order %5.2f (%g)\n",
        sc.m.scheme_name().c_str(), ex[0], ex[1], ox, sc.x, el[0], el[1], ol, sc.lambda);
    if (sc.x > 0) EXPECT_NEAR(ox, sc.x, 0.3) << sc.m.scheme_name();
    if (sc.lambda > 0) EXPECT_NEAR(ol, sc.lambda, 0.3) << sc.m.scheme_name();
  }
  o.h0 = 1.0 / 256;
  for (const BetaMultistepOptions& m :
       {BetaMultistepOptions::standard(MultistepFamily::DCBDF, 2),
        BetaMultistepOptions::standard(MultistepFamily::AdamsMoulton, 2)}) {
    const Result r = solve(p.dae, 0.0, 1.0, p.y0, m, o);
    const double el = r.ok() ? (r.y.tail(2) - ref.y.tail(2)).cwiseAbs().maxCoeff() : INFINITY;
    std::printf("truck, %s: %s, lambda error %.2e\n", m.scheme_name().c_str(), to_string(r.status),
                el);
    EXPECT_GT(el, 1.0) << m.scheme_name();
  }
}

// Without Options::fixed_step: interpolated history, Milne-type error estimate on x.
TEST(BetaMultistepVariableStep, ErrorFollowsTheTolerance) {
  for (const char* name : {"el-manufactured", "pendulum-el"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    double previous = INFINITY;
    for (double tol : {1e-5, 1e-7, 1e-9}) {
      Options o;
      o.rtol = o.atol = tol;
      const Result r = solve(p.dae, p.t0, p.t_end, p.y0, BetaMultistepOptions::dcbdf_beta(3), o);
      ASSERT_TRUE(r.ok()) << name << ": " << r.message;
      const double e = (r.y.head(2) - p.reference->y.head(2)).cwiseAbs().maxCoeff();
      std::printf("%s, beta-DCBDF3, tol %.0e: error %.2e, %ld steps (%ld rejected)\n", name, tol, e,
                  r.stats.naccept, r.stats.nreject);
      EXPECT_LT(e, 200 * tol) << name;
      EXPECT_LT(e, previous) << name;
      previous = e;
      EXPECT_EQ(r.excluded_from_error_test, std::vector<int>{p.dae.n - 1});  // lambda
    }
  }
}

// Dense output between the steps and a restart at an event.
TEST(BetaMultistepVariableStep, DenseOutputAndRestart) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  Options o;
  o.fixed_step = true;
  o.h0 = 0.0125;
  o.rtol = o.atol = 1e-13;
  o.output_times = {0.50625, 1.00625, 2.55};
  const Result r = solve(p.dae, 0.0, 3.0, p.y0, BetaMultistepOptions::dcbdf_beta(3), o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.t_out.size(), 3u);
  for (size_t i = 0; i < r.t_out.size(); ++i)
    EXPECT_LT((r.y_out[i] - p.exact(r.t_out[i])).cwiseAbs().maxCoeff(), 1e-6) << r.t_out[i];
  // an event restarting the method when x2 crosses 0.5 (state unchanged)
  Options e;
  e.rtol = e.atol = 1e-8;
  Event ev;
  ev.name = "x2 = 0.5";
  ev.r = [](double, VecIn y, VecIn) { return y[1] - 0.5; };
  ev.action = [](double, Vector&) { return EventAction::Restart; };
  e.events = {ev};
  const Result s = solve(p.dae, 0.0, 3.0, p.y0, BetaMultistepOptions::dcbdf_beta(3), e);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_GE(s.events.size(), 1u);
  EXPECT_LT((s.y.head(2) - p.exact(3.0).head(2)).cwiseAbs().maxCoeff(), 1e-5);
}

// --- bad input -----------------------------------------------------------------------------

TEST(BetaMultistepErrors, OrderOutOfRangeAndUnblockableAdams) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  Options o;
  o.fixed_step = true;
  o.h0 = 0.1;
  auto message = [&](const BetaMultistepOptions& m) {
    try {
      solve(p.dae, 0.0, 1.0, p.y0, m, o);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message(BetaMultistepOptions::dcbdf_beta(7)).find("k must lie in [1, 6]"),
            std::string::npos);
  EXPECT_NE(message(BetaMultistepOptions::bdf(0)).find("k must lie in"), std::string::npos);
  const std::string am4 = message(BetaMultistepOptions::am_beta(4));
  std::printf("AM4: %s\n", am4.c_str());
  EXPECT_NE(am4.find("cannot be beta-blocked"), std::string::npos) << am4;
  EXPECT_NE(message(BetaMultistepOptions::am_beta(2, 0.5)).find("not stable"), std::string::npos);
  BetaMultistepOptions bad = BetaMultistepOptions::dcbdf_beta(2);
  bad.start_substeps = 0;
  EXPECT_NE(message(bad).find("start_substeps"), std::string::npos);
  // an index-3 problem, and options of another method
  const BuiltinProblem pend = make_builtin_problem("pendulum");
  EXPECT_THROW(solve(pend.dae, 0.0, 1.0, pend.y0, BetaMultistepOptions::dcbdf_beta(2), o),
               InvalidArgument);
}

TEST(BetaMultistepErrors, SingularConstraintJacobianAtT0) {
  // g = (x1 - 1)^2 holds at x0 = (1, 0) but G = (2 (x1 - 1), 0) = 0 there: G G^T singular
  EulerLagrangeDae el = manufactured_euler_lagrange();
  el.g = [](double, VecIn x, VecOut g) { g[0] = (x[0] - 1.0) * (x[0] - 1.0); };
  el.G = [](double, VecIn x, MatOut G) { G << 2.0 * (x[0] - 1.0), 0.0; };
  const MassMatrixDae d = to_mass_matrix_form(el);
  Options o;
  o.fixed_step = true;
  o.h0 = 0.1;
  const Vector y0 = Vector::Unit(3, 0);
  const Result r = solve(d, 0.0, 1.0, y0, BetaMultistepOptions::dcbdf_beta(2), o);
  std::printf("singular G G^T: %s: %s\n", to_string(r.status), r.message.c_str());
  EXPECT_EQ(r.status, Status::InvalidInput);
  EXPECT_NE(r.message.find("singular"), std::string::npos) << r.message;
  EXPECT_THROW(consistent_multipliers(el, 0.0, y0.head(2)), InvalidArgument);
}

TEST(BetaMultistepErrors, InconsistentInitialValues) {
  const BuiltinProblem p = euler_lagrange_manufactured();
  Options o;
  o.fixed_step = true;
  o.h0 = 0.1;
  Vector y0 = p.y0;
  y0[0] = 1.1;  // g(x0) = 0.21
  Result r = solve(p.dae, 0.0, 1.0, y0, BetaMultistepOptions::dcbdf_beta(2), o);
  EXPECT_EQ(r.status, Status::InconsistentInitialValues) << r.message;
  y0 = p.y0;
  y0[2] = 0.5;  // lambda0 = 1 is the consistent one
  r = solve(p.dae, 0.0, 1.0, y0, BetaMultistepOptions::dcbdf_beta(2), o);
  std::printf("wrong lambda0: %s\n", r.message.c_str());
  EXPECT_EQ(r.status, Status::InconsistentInitialValues);
  EXPECT_NE(r.message.find("hidden constraint"), std::string::npos) << r.message;
}

TEST(BetaMultistepErrors, NotAnEulerLagrangeProblemAndFailingCallbacks) {
  // index 1 (the algebraic equation contains the algebraic variable)
  const BuiltinProblem rob = make_builtin_problem("robertson-dae");
  Options o;
  o.fixed_step = true;
  o.h0 = 1e-3;
  const Result r = solve(rob.dae, 0.0, 1e-2, rob.y0, BetaMultistepOptions::dcbdf_beta(2), o);
  EXPECT_EQ(r.status, Status::InvalidInput) << r.message;
  EXPECT_NE(r.message.find("depends on the multipliers"), std::string::npos) << r.message;
  // a throwing callback ends the solve with CallbackError, nothing escapes
  BuiltinProblem p = euler_lagrange_manufactured();
  EulerLagrangeDae el = *p.euler_lagrange;
  el.f = [](double t, VecIn x, VecOut f) {
    if (t > 0.5) throw std::runtime_error("model failure");
    f[0] = -x[1];
    f[1] = x[0];
  };
  Vector y0 = p.y0;
  y0[2] = 0.0;  // consistent for f = (-x2, x1)
  const Result c =
      solve(to_mass_matrix_form(el), 0.0, 1.0, y0, BetaMultistepOptions::dcbdf_beta(3), o);
  EXPECT_EQ(c.status, Status::CallbackError);
  EXPECT_NE(c.message.find("model failure"), std::string::npos) << c.message;
}
