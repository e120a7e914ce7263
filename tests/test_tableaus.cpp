#include <gtest/gtest.h>

#include <cmath>

#include "daekit/daekit.hpp"

using namespace daekit;

TEST(Tableaus, RadauIIA3MatchesClosedForm) {
  const double r6 = std::sqrt(6.0);
  const RungeKuttaTableau t = radau_iia(3);
  Matrix A(3, 3);
  A << (88 - 7 * r6) / 360, (296 - 169 * r6) / 1800, (-2 + 3 * r6) / 225,  //
      (296 + 169 * r6) / 1800, (88 + 7 * r6) / 360, (-2 - 3 * r6) / 225,   //
      (16 - r6) / 36, (16 + r6) / 36, 1.0 / 9;
  EXPECT_LT((t.A - A).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_NEAR(t.c[0], (4 - r6) / 10, 1e-15);
  EXPECT_NEAR(t.c[1], (4 + r6) / 10, 1e-15);
  EXPECT_EQ(t.c[2], 1.0);
  EXPECT_LT((t.b - A.row(2).transpose()).cwiseAbs().maxCoeff(), 1e-15);  // stiffly accurate
}

TEST(Tableaus, LowStageRadauIIA) {
  const RungeKuttaTableau t1 = radau_iia(1);  // implicit Euler
  EXPECT_DOUBLE_EQ(t1.A(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(t1.c[0], 1.0);
  const RungeKuttaTableau t2 = radau_iia(2);
  Matrix A(2, 2);
  A << 5.0 / 12, -1.0 / 12, 3.0 / 4, 1.0 / 4;
  EXPECT_LT((t2.A - A).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_NEAR(t2.c[0], 1.0 / 3, 1e-15);
}

// Simplifying conditions (NOTES-004.md ch. 2): B(p) C(q) D(r) of the families.
struct Expect {
  RungeKuttaTableau t;
  int B, C, D;
};

// claim: 004-2-simplifying-families
// claim: 004-2-butcher-theorem
// claim: 004-2.1.4-collocation
TEST(Tableaus, SimplifyingConditions) {
  const std::vector<Expect> cases = {
      {radau_iia(1), 1, 1, 0}, {radau_iia(2), 3, 2, 1}, {radau_iia(3), 5, 3, 2},
      {radau_iia(4), 7, 4, 3}, {radau_ia(2), 3, 1, 2},  {radau_ia(3), 5, 2, 3},
      {gauss(2), 4, 2, 2},     {gauss(3), 6, 3, 3},     {lobatto_iiia(3), 4, 3, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.t.name);
    EXPECT_EQ(simplifying_B(c.t), c.B);
    EXPECT_EQ(simplifying_C(c.t), c.C);
    EXPECT_EQ(simplifying_D(c.t), c.D);
    // Butcher's theorem: order p >= min(B, C + D + 1, 2 C + 2)
    EXPECT_GE(c.t.order, std::min({c.B, c.C + c.D + 1, 2 * c.C + 2}));
  }
}

TEST(Tableaus, StabilityAtInfinity) {
  for (int s = 1; s <= 5; ++s) {
    EXPECT_NEAR(stability_at_infinity(radau_iia(s)), 0.0, 1e-12) << s;  // L-stable
    EXPECT_NEAR(stability_at_infinity(radau_ia(s)), 0.0, 1e-12) << s;
    EXPECT_NEAR(stability_at_infinity(gauss(s)), s % 2 ? -1.0 : 1.0, 1e-12) << s;
  }
  // R(z) on the imaginary axis has modulus <= 1 (A-stability, sampled) for Radau IIA(3).
  const RungeKuttaTableau t = radau_iia(3);
  for (double y = 0.1; y < 1e4; y *= 1.7)
    EXPECT_LE(std::abs(stability_function(t, {0.0, y})), 1.0 + 1e-12);
  // and R(z) ~ e^z for small z (order 5): error O(z^6)
  const std::complex<double> z(0.01, 0.0);
  EXPECT_NEAR(std::abs(stability_function(t, z) - std::exp(z)), 0.0, 1e-12);
}

TEST(Tableaus, TransformedRadauMatchesRadau5) {
  const RungeKuttaTableau t = radau_iia(3);
  const TransformedTableau tt = transform_inverse(t);
  // block form T^{-1} A^{-1} T = diag(gamma, [alpha -beta; beta alpha])
  Matrix L = Matrix::Zero(3, 3);
  L(0, 0) = tt.gamma;
  L(1, 1) = L(2, 2) = tt.alpha[0];
  L(1, 2) = -tt.beta[0];
  L(2, 1) = tt.beta[0];
  EXPECT_LT((tt.T_inverse * t.A.inverse() * tt.T - L).cwiseAbs().maxCoeff(), 1e-13);
  // closed forms of the eigenvalues (Hairer-Wanner II, IV.8)
  const double c81 = std::cbrt(81.0), c9 = std::cbrt(9.0);
  EXPECT_NEAR(tt.gamma, 30.0 / (6 + c81 - c9), 1e-13);
  const double a = (12 - c81 + c9) / 60, b = (c81 + c9) * std::sqrt(3.0) / 60;
  EXPECT_NEAR(tt.alpha[0], a / (a * a + b * b), 1e-13);
  EXPECT_NEAR(tt.beta[0], b / (a * a + b * b), 1e-13);
  // RADAU5's T (same normalisation)
  Matrix T(3, 3);
  T << 9.1232394870892942792e-02, -0.14125529502095420843, -3.0029194105147424492e-02,
      0.24171793270710701896, 0.20412935229379993199, 0.38294211275726193779,
      0.96604818261509293619, 1.0, 0.0;
  EXPECT_LT((tt.T - T).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(Tableaus, EmbeddedErrorWeightsMatchRadau5) {
  const RungeKuttaTableau t = radau_iia(3);
  const TransformedTableau tt = transform_inverse(t);
  const Vector e = embedded_error_weights(t, tt.gamma);
  const double r6 = std::sqrt(6.0);
  EXPECT_NEAR(e[0], -(13 + 7 * r6) / 3, 1e-12);
  EXPECT_NEAR(e[1], (-13 + 7 * r6) / 3, 1e-12);
  EXPECT_NEAR(e[2], -1.0 / 3, 1e-12);
}

TEST(Tableaus, BadStageCounts) {
  EXPECT_THROW(radau_iia(0), InvalidArgument);
  EXPECT_THROW(lobatto_iiia(1), InvalidArgument);
  EXPECT_THROW(transform_inverse(radau_iia(2)), InvalidArgument);
}
