// The linear multistep toolkit (tableaus/multistep.hpp) against paper 003
// (003_93cd61043aac115a.txt) and NOTES-004.md ch. 5: error constants (Table 3.1), orders, the
// root condition of sigma and of sigma - tau, the blocking constants of Adams-Moulton formulas
// (Fig. 4.1, Section 4) and the stability regions of DCBDF (Fig. 3.1). Values are printed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"

using namespace daekit;

// claim: 003-S2-bdf-coeffs
TEST(MultistepToolkit, BackwardDifferencesAndBdfCoefficients) {
  EXPECT_EQ(backward_difference(0), (Vector(1) << 1).finished());
  EXPECT_EQ(backward_difference(3), (Vector(4) << 1, -3, 3, -1).finished());
  // NOTES-004.md ch. 4 [CALC]: BDF3 = (11/6, -3, 3/2, -1/3)
  const Vector b3 = bdf_coefficients(3);
  EXPECT_NEAR(b3[0], 11.0 / 6, 1e-15);
  EXPECT_NEAR(b3[1], -3.0, 1e-15);
  EXPECT_NEAR(b3[2], 1.5, 1e-15);
  EXPECT_NEAR(b3[3], -1.0 / 3, 1e-15);
  for (int k = 1; k <= 6; ++k) EXPECT_TRUE(zero_stable(bdf_coefficients(k))) << k;
  EXPECT_FALSE(zero_stable(bdf_coefficients(7)));
}

// Paper 003 Table 3.1 and Section 3: DCBDFk has order k+1 and the error constants
// -1/12, -1/12, -3/40, -1/15, -5/84, -3/56; AMk (k-step Adams-Moulton) order k+1 with
// -1/12, -1/24, -19/720, -3/160, -863/60480, -275/24192; BDFk order k, -1/(k+1).
// claim: 003-S3-dcbdf-order
// claim: 003-S3-dcbdf-coeffs
// claim: 003-Tab3.1-am
// claim: 003-Tab3.1-dcbdf
// claim: 004-5.2.2-dcbdf-order
TEST(MultistepToolkit, ErrorConstantsOfTable31) {
  const double dcbdf[] = {-1.0 / 12, -1.0 / 12, -3.0 / 40, -1.0 / 15, -5.0 / 84, -3.0 / 56};
  const double am[] = {-1.0 / 12,  -1.0 / 24,      -19.0 / 720,
                       -3.0 / 160, -863.0 / 60480, -275.0 / 24192};
  std::printf("k  DCBDFk: order  C           AMk: order  C           BDFk: order  C\n");
  for (int k = 1; k <= 6; ++k) {
    const LinearMultistepFormula d = dcbdf_formula(k), a = adams_moulton_formula(k),
                                 b = bdf_formula(k);
    std::printf("%d  %d  %+.9f (1/C = %+.4f)  %d  %+.9f  %d  %+.6f\n", k, d.order, d.error_constant,
                1 / d.error_constant, a.order, a.error_constant, b.order, b.error_constant);
    EXPECT_EQ(d.order, k + 1);
    EXPECT_EQ(a.order, k + 1);
    EXPECT_EQ(b.order, k);
    EXPECT_NEAR(d.error_constant, dcbdf[k - 1], 1e-13) << d.name;
    EXPECT_NEAR(a.error_constant, am[k - 1], 1e-13) << a.name;
    EXPECT_NEAR(b.error_constant, -1.0 / (k + 1), 1e-13) << b.name;
    // sigma(1) = 1 and rho(1) = 0 (consistency), rho of DCBDF is BDF's
    EXPECT_NEAR(d.sigma.sum(), 1.0, 1e-14);
    EXPECT_NEAR(a.sigma.sum(), 1.0, 1e-14);
    EXPECT_EQ(d.rho, b.rho);
  }
  // NOTES-000-003.md [R] coefficients: DCBDF3 sigma = (3/4, 3/4, -3/4, 1/4), AM3 (9,19,-5,1)/24
  const Vector s3 = dcbdf_formula(3).sigma, a3 = adams_moulton_formula(3).sigma;
  const Vector s3e = (Vector(4) << 0.75, 0.75, -0.75, 0.25).finished();
  const Vector a3e = (Vector(4) << 9, 19, -5, 1).finished() / 24;
  EXPECT_LT((s3 - s3e).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT((a3 - a3e).cwiseAbs().maxCoeff(), 1e-15);
  // DCBDF1 = AM1 = the trapezoidal rule (notes (5.12)-(5.14))
  EXPECT_LT((dcbdf_formula(1).sigma - adams_moulton_formula(1).sigma).norm(), 1e-16);
}

// (3.3): with tau = -nabla^k/(k+1), sigma_k - tau = 1 exactly (all roots 0, optimal damping).
// claim: 003-eq2.4-sigma-tau
// claim: 003-eq3.3-sigma-minus-tau
TEST(MultistepToolkit, BetaBlockedDcbdfHasSigmaMinusTauEqualOne) {
  for (int k = 1; k <= 6; ++k) {
    const Vector st = blocked_sigma(dcbdf_formula(k).sigma, -1.0 / (k + 1), k);
    Vector one = Vector::Zero(k + 1);
    one[0] = 1.0;
    EXPECT_LT((st - one).cwiseAbs().maxCoeff(), 1e-15) << "k = " << k;
    EXPECT_TRUE(root_condition(st).strict);
  }
}

// Unblocked DCBDF (k >= 2) and AM (k >= 2): sigma violates the root condition; NOTES-004.md
// ch. 5 [CALC]: roots of sigma_DC, k = 2: -1.366, 0.366; k = 3: -1.702.
// claim: 003-eq1.2-needs-strict-sigma
// claim: 004-5-unblocked-blow-up
// claim: 003-eq2.1-trapezoid-not-strict
// claim: 004-5.4.2-trapezoid-root
TEST(MultistepToolkit, UnblockedSigmaViolatesTheRootCondition) {
  for (int k = 2; k <= 6; ++k) {
    const RootConditionCheck dc = root_condition(dcbdf_formula(k).sigma);
    const RootConditionCheck am = root_condition(adams_moulton_formula(k).sigma);
    std::printf("k = %d: largest root of sigma: DCBDF %.6f, AM %.6f\n", k, dc.max_modulus,
                am.max_modulus);
    EXPECT_FALSE(dc.holds) << k;
    EXPECT_FALSE(am.holds) << k;
  }
  EXPECT_NEAR(max_root_modulus(dcbdf_formula(2).sigma), (1.0 + std::sqrt(3.0)) / 2.0, 1e-12);
  EXPECT_NEAR(max_root_modulus(dcbdf_formula(3).sigma), 1.702, 1e-3);
  // the trapezoidal rule: root -1 on the circle (root condition, but not the strict one)
  const RootConditionCheck tr = root_condition(dcbdf_formula(1).sigma);
  EXPECT_TRUE(tr.holds);
  EXPECT_FALSE(tr.strict);
}

// Paper 003 Section 4 and Fig. 4.1: AM2 with c = -0.15 and AM3 with c = -0.1 are blocked
// (largest root of sigma - c nabla^k below 0.35 and 0.72); AM4 cannot be stabilised by any c.
// claim: 003-S4-am-constants
// claim: 003-Fig4.1-no-k4
// claim: 004-5-adams-k3
TEST(MultistepToolkit, AdamsMoultonBlockingConstants) {
  const double am2 = max_root_modulus(blocked_sigma(adams_moulton_formula(2).sigma, -0.15, 2));
  const double am3 = max_root_modulus(blocked_sigma(adams_moulton_formula(3).sigma, -0.1, 3));
  std::printf("largest root of sigma - c nabla^k: AM2 (c = -0.15) %.6f, AM3 (c = -0.1) %.6f\n", am2,
              am3);
  EXPECT_LT(am2, 0.35);
  EXPECT_LT(am3, 0.72);
  // AM1 = trapezoid: c = -1/2 is optimal (sigma - tau = 1)
  EXPECT_NEAR(max_root_modulus(blocked_sigma(adams_moulton_formula(1).sigma, -0.5, 1)), 0.0, 1e-15);
  // search c in [-10, 10] for the smallest largest root
  for (int k = 1; k <= 6; ++k) {
    const BlockingConstant b = best_blocking_constant(adams_moulton_formula(k).sigma, k, -10, 10);
    std::printf("AM%d: best c = %+.6f, largest root %.6f\n", k, b.c, b.max_modulus);
    if (k <= 3)
      EXPECT_LT(b.max_modulus, 0.7) << k;
    else
      EXPECT_GE(b.max_modulus, 1.0 - 1e-9) << "AM" << k << " would be stabilised at c = " << b.c;
  }
  // a grid over a much wider range finds nothing below 1 for AM4 either
  double worst_best = 1e300;
  for (double c = -100; c <= 100; c += 0.005)
    worst_best =
        std::min(worst_best, max_root_modulus(blocked_sigma(adams_moulton_formula(4).sigma, c, 4)));
  EXPECT_GE(worst_best, 1.0 - 1e-9);
}

// Fig. 3.1: DCBDF stability regions are bounded (non-stiff), "largest circle k = 2, smallest
// k = 6"; BDF and the trapezoidal rule (DCBDF1) are A(alpha)/A-stable. The boundary locus gives
// the intercept with the negative real axis at theta = pi.
// claim: 003-Fig3.1-bounded
// claim: 003-Fig3.1-shrink
TEST(MultistepToolkit, DcbdfStabilityRegionsShrinkWithK) {
  double previous = -1e300;
  for (int k = 2; k <= 6; ++k) {
    const LinearMultistepFormula f = dcbdf_formula(k);
    const auto locus = boundary_locus(f, 721);
    double leftmost = 0.0, extent = 0.0;
    for (const auto& z : locus) {
      leftmost = std::min(leftmost, z.real());
      extent = std::max(extent, std::abs(z));
    }
    std::printf("DCBDF%d: boundary locus reaches Re z = %.4f, |z| <= %.4f\n", k, leftmost, extent);
    EXPECT_TRUE(std::isfinite(extent));
    EXPECT_GT(leftmost, previous) << "region of DCBDF" << k << " not inside that of k-1";
    previous = leftmost;
    EXPECT_TRUE(absolutely_stable(f, {0.5 * leftmost, 0.0})) << k;
    EXPECT_FALSE(absolutely_stable(f, {2.0 * leftmost, 0.0})) << k;
    EXPECT_FALSE(absolutely_stable(f, {-100.0, 0.0})) << k;
    EXPECT_TRUE(absolutely_stable(bdf_formula(k), {-100.0, 0.0})) << k;
  }
  EXPECT_TRUE(absolutely_stable(dcbdf_formula(1), {-1e4, 1.0}));  // trapezoid: A-stable
}

// Notes ch. 4 (Fig. 4.1): BDFk is A(alpha)-stable with alpha = 90 (k = 1, 2), 86.03, 73.35,
// 51.84, 17.84 degrees (k = 3..6). The angle from the boundary locus, and independently from
// the roots of rho - z sigma: rays at alpha - 0.05 degrees are stable out to |z| = 1e4, the ray
// at alpha + 0.05 degrees has unstable points.
// claim: 004-Fig4.1-bdf-angles
// claim: 003-Fig3.1-bounded
TEST(MultistepToolkit, BdfStabilityAngles) {
  const double expected[] = {90.0, 90.0, 86.03, 73.35, 51.84, 17.84};
  const double deg = 180.0 / M_PI;
  for (int k = 1; k <= 6; ++k) {
    const LinearMultistepFormula f = bdf_formula(k);
    const double alpha = stability_angle(f) * deg;
    std::printf("BDF%d: A(alpha) with alpha = %.4f degrees (notes %.2f)\n", k, alpha,
                expected[k - 1]);
    EXPECT_NEAR(alpha, expected[k - 1], 0.006) << "BDF" << k;
    if (k <= 2) continue;
    auto ray_stable = [&](double angle_deg) {
      for (double r = 1e-3; r <= 1e4; r *= 1.02)
        if (!absolutely_stable(f, std::polar(r, M_PI - angle_deg / deg))) return false;
      return true;
    };
    EXPECT_TRUE(ray_stable(alpha - 0.05)) << "BDF" << k;
    EXPECT_FALSE(ray_stable(alpha + 0.05)) << "BDF" << k;
  }
  EXPECT_EQ(stability_angle(dcbdf_formula(3)), 0.0);  // bounded region (paper 003 Fig. 3.1)
  EXPECT_NEAR(stability_angle(dcbdf_formula(1)) * deg, 90.0, 1e-9);  // the trapezoidal rule
}

// Notes 4.1: Milne's method y_n = y_{n-2} + h/3 (f_{n-2} + 4 f_{n-1} + f_n) (Simpson's rule):
// implicit, order 4 with error constant C_5 / sigma(1) = (-1/90) / 2, zero-stable only weakly
// (rho = zeta^2 - 1 has the roots +1 and -1 on the unit circle), and therefore absolutely
// stable nowhere on the negative real axis: the parasitic root -1 leaves the unit disc for
// every small h lambda < 0 (why the stiff codes use BDF, not Milne).
// claim: 004-4.1-milne-method
TEST(MultistepToolkit, MilnesMethod) {
  const LinearMultistepFormula milne =
      make_formula("Milne", (Vector(3) << 1.0, 0.0, -1.0).finished(),
                   (Vector(3) << 1.0 / 3, 4.0 / 3, 1.0 / 3).finished());
  std::printf("Milne: order %d, error constant %.9f\n", milne.order, milne.error_constant);
  EXPECT_EQ(milne.order, 4);
  EXPECT_NEAR(milne.error_constant, -1.0 / 180, 1e-14);
  EXPECT_NE(milne.sigma[0], 0.0);  // implicit
  const RootConditionCheck rc = root_condition(milne.rho);
  EXPECT_TRUE(rc.holds);
  EXPECT_FALSE(rc.strict);
  EXPECT_NEAR(rc.max_modulus, 1.0, 1e-12);
  for (double z : {-1e-3, -0.1, -1.0, -100.0})
    EXPECT_FALSE(absolutely_stable(milne, {z, 0.0})) << z;
  // on the imaginary axis the roots stay on the circle: not strictly inside either
  EXPECT_FALSE(absolutely_stable(milne, {0.0, 0.5}));
  EXPECT_EQ(stability_angle(milne), 0.0);
}

// The notes' ch. 10 (DNA's BDF, order <= 4): Milne's estimate of the local error,
// eps = C_{k+1} / (C_{k+1} - C^P_{k+1}) (y^C - y^P), with the factors 1/3, 2/11, 3/25, 12/137 for
// k = 1..4 (= beta_k / (beta_k + k + 1)), from the library's BDF coefficients and the
// extrapolating predictor's error constant. And the estimate itself: on y' = y (exact history,
// one BDFk step at h = 0.01 with the extrapolated predictor), the factor times y^C - y^P equals
// the true local error of y^C to within 2 % (its next-order term).
// claim: 004-ch10-milne-estimate
TEST(MultistepToolkit, MilnesEstimateForTheBdfOfTheNotes) {
  const double expected[] = {1.0 / 3, 2.0 / 11, 3.0 / 25, 12.0 / 137};
  for (int k = 1; k <= 4; ++k) {
    const double factor = bdf_milne_factor(k);
    const Vector rho = bdf_formula(k).rho;  // newest first, sigma = 1
    const double h = 0.01;
    // corrector: rho_0 y_{n+1} + sum_{i>=1} rho_i y(t_{n+1-i}) = h y_{n+1} (y' = y), t_{n+1} = 0
    double rest = 0;
    for (int i = 1; i <= k; ++i) rest += rho[i] * std::exp(-i * h);
    const double yc = -rest / (rho[0] - h);
    // predictor: y^P = y_{n+1} - nabla^(k+1) y_{n+1} with the exact back values
    const Vector nabla = backward_difference(k + 1);
    double yp = 0;
    for (int i = 1; i <= k + 1; ++i) yp -= nabla[i] * std::exp(-i * h);
    const double true_error = yc - 1.0, estimate = factor * (yc - yp);
    std::printf("BDF%d: Milne factor %.6f (notes %.6f), local error %.3e, estimate %.3e\n", k,
                factor, expected[k - 1], true_error, estimate);
    EXPECT_NEAR(factor, expected[k - 1], 1e-14) << k;
    EXPECT_NEAR(estimate / true_error, 1.0, 0.02) << k;
  }
}

TEST(MultistepToolkit, RejectsBadArguments) {
  EXPECT_THROW(dcbdf_formula(0), InvalidArgument);
  EXPECT_THROW(dcbdf_formula(7), InvalidArgument);
  EXPECT_THROW(adams_moulton_formula(13), InvalidArgument);
  EXPECT_THROW(blocked_sigma(dcbdf_formula(2).sigma, 1.0, 3), InvalidArgument);
  EXPECT_THROW(polynomial_roots(Vector::Zero(3)), InvalidArgument);
  EXPECT_THROW(best_blocking_constant(dcbdf_formula(2).sigma, 2, 1.0, -1.0), InvalidArgument);
  EXPECT_TRUE(std::isinf(max_root_modulus((Vector(3) << 0.0, 1.0, 0.5).finished())));
}
