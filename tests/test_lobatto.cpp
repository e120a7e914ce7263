// The Lobatto IIIA-B-C-C*-D coefficients and the SPARK matrix Q (tableaus/lobatto.hpp) against
// the tables of NOTES-000-003.md (s = 2, 3), the assumptions (3.1a-e) and the identities (3.6)
// of paper 002 for s = 2..5, the simplifying assumptions of Corollary 4.6's proof and the
// symmetry of IIIA, IIIB, IIID (Theorem 3.1); and the half-explicit tableaus.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

Matrix rows(int r, int c, std::initializer_list<double> v) {
  Matrix M(r, c);
  auto it = v.begin();
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) M(i, j) = *it++;
  return M;
}

double deviation(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

}  // namespace

// claim: 002-S2-lobatto2
TEST(Lobatto, TwoStagesMatchTheNotes) {
  const LobattoCoefficients k = lobatto_coefficients(2);
  EXPECT_LT(deviation(k.c, rows(2, 1, {0, 1})), 1e-16);
  EXPECT_LT(deviation(k.b, rows(2, 1, {0.5, 0.5})), 1e-16);
  const Matrix expected[5] = {rows(2, 2, {0, 0, 0.5, 0.5}), rows(2, 2, {0.5, 0, 0.5, 0}),
                              rows(2, 2, {0.5, -0.5, 0.5, 0.5}), rows(2, 2, {0, 0, 1, 0}),
                              rows(2, 2, {0.25, -0.25, 0.75, 0.25})};
  for (int f = 0; f < 5; ++f)
    EXPECT_LT(deviation(k.A[f], expected[f]), 1e-15) << to_string(static_cast<LobattoFamily>(f));
}

// claim: 002-S2-lobatto3
TEST(Lobatto, ThreeStagesMatchTheNotes) {
  const LobattoCoefficients k = lobatto_coefficients(3);
  EXPECT_LT(deviation(k.c, rows(3, 1, {0, 0.5, 1})), 1e-16);
  EXPECT_LT(deviation(k.b, rows(3, 1, {1.0 / 6, 2.0 / 3, 1.0 / 6})), 1e-16);
  const Matrix expected[5] = {
      rows(3, 3, {0, 0, 0, 5.0 / 24, 1.0 / 3, -1.0 / 24, 1.0 / 6, 2.0 / 3, 1.0 / 6}),
      rows(3, 3, {1.0 / 6, -1.0 / 6, 0, 1.0 / 6, 1.0 / 3, 0, 1.0 / 6, 5.0 / 6, 0}),
      rows(3, 3,
           {1.0 / 6, -1.0 / 3, 1.0 / 6, 1.0 / 6, 5.0 / 12, -1.0 / 12, 1.0 / 6, 2.0 / 3, 1.0 / 6}),
      rows(3, 3, {0, 0, 0, 0.25, 0.25, 0, 0, 1, 0}),
      rows(3, 3,
           {1.0 / 12, -1.0 / 6, 1.0 / 12, 5.0 / 24, 1.0 / 3, -1.0 / 24, 1.0 / 12, 5.0 / 6,
            1.0 / 12})};
  for (int f = 0; f < 5; ++f)
    EXPECT_LT(deviation(k.A[f], expected[f]), 1e-15) << to_string(static_cast<LobattoFamily>(f));
  // Q = (I_s 0) + (O -p p), p = (A~_1; e_s^T)^{-1} e_s
  EXPECT_LT(deviation(k.Q, rows(3, 4, {1, 0, -1, 1, 0, 1, 0.5, -0.5, 0, 0, 0, 1})), 1e-15);
}

// claim: 002-eq3.1a
// claim: 002-eq3.1b
// claim: 002-eq3.1c
// claim: 002-eq3.1d
// claim: 002-eq3.1e
// claim: 002-eq3.6
TEST(Lobatto, AssumptionsAndIdentitiesOfPaper002) {
  for (int s = 2; s <= 5; ++s) {
    const LobattoCoefficients k = lobatto_coefficients(s);
    const Matrix& A1 = k.A[0];
    double a = A1.row(0).cwiseAbs().maxCoeff();                          // (3.1a)
    double b = (A1.row(s - 1).transpose() - k.b).cwiseAbs().maxCoeff();  // (3.1b)
    double c = 0.0, d_det = 0.0;                                         // (3.1c), (3.1d)
    const Matrix N = (A1 * k.A[1]).bottomRows(s - 1);
    for (int m = 1; m < 5; ++m) {
      const Matrix P = A1 * k.A[m];
      c = std::max({c, P.row(0).cwiseAbs().maxCoeff(), deviation(P.bottomRows(s - 1), N)});
    }
    Matrix Nb(s, s);
    Nb << N, k.b.transpose();
    d_det = Nb.determinant();
    double e = (k.A[2].row(s - 1).transpose() - k.b).cwiseAbs().maxCoeff();  // (3.1e)
    // (3.6): Q alpha_1 = A_1, Q alpha_m = A_3 (m = 2..5)
    double q1 = deviation(k.Q * k.alpha(LobattoFamily::IIIA), A1), qm = 0.0;
    for (int m = 1; m < 5; ++m)
      qm = std::max(qm, deviation(k.Q * k.alpha(static_cast<LobattoFamily>(m)), k.A[2]));
    // Q (c^j; 1) = c^j (c_s = 1), last row of Q = (0 .. 0 1)
    double qc = 0.0;
    for (int j = 0; j < s; ++j) {
      Vector v(s + 1);
      v << k.c.array().pow(j).matrix(), 1.0;
      qc = std::max(qc, (k.Q * v - k.c.array().pow(j).matrix()).cwiseAbs().maxCoeff());
    }
    Vector last = Vector::Zero(s + 1);
    last[s] = 1.0;
    const double qlast = (k.Q.row(s - 1).transpose() - last).cwiseAbs().maxCoeff();
    std::printf(
        "s = %d: (3.1a) %.1e (3.1b) %.1e (3.1c) %.1e det(N; b^T) %.3e (3.1e) %.1e  "
        "Q alpha_1 - A_1 %.1e  Q alpha_m - A_3 %.1e  Q(c^j;1) - c^j %.1e\n",
        s, a, b, c, d_det, e, q1, qm, qc);
    EXPECT_EQ(a, 0.0);
    EXPECT_LT(b, 1e-15);
    EXPECT_LT(c, 1e-14);
    EXPECT_GT(std::abs(d_det), 1e-10);
    EXPECT_LT(e, 1e-14);
    EXPECT_LT(q1, 1e-14);
    EXPECT_LT(qm, 1e-14);
    EXPECT_LT(qc, 1e-14);
    EXPECT_LT(qlast, 1e-15);
  }
}

// claim: 002-C4.6-simplifying
TEST(Lobatto, SimplifyingAssumptionsOfCorollary46) {
  // B(2s-2); C_m(q_m), D_m(r_m) with q = (s, s-2, s-1, s-1, s-1), r = (s-2, s, s-1, s-1, s-1)
  for (int s = 2; s <= 6; ++s) {
    const LobattoCoefficients k = lobatto_coefficients(s);
    const int q[5] = {s, s - 2, s - 1, s - 1, s - 1}, r[5] = {s - 2, s, s - 1, s - 1, s - 1};
    for (int f = 0; f < 5; ++f) {
      const RungeKuttaTableau t = k.tableau(static_cast<LobattoFamily>(f));
      EXPECT_GE(simplifying_B(t), 2 * s - 2) << t.name;
      EXPECT_GE(simplifying_C(t, 20, 1e-13), q[f]) << t.name;
      EXPECT_GE(simplifying_D(t, 20, 1e-13), r[f]) << t.name;
    }
  }
}

// claim: 002-T3.1-symmetric-coeffs
TEST(Lobatto, IIIAIIIBIIIDAreSymmetricIIICIsNot) {
  // a_{s+1-i, s+1-j} + a_ij = b_j (Theorem 3.1's condition), c_i = 1 - c_{s+1-i}
  for (int s = 2; s <= 5; ++s) {
    const LobattoCoefficients k = lobatto_coefficients(s);
    for (int f = 0; f < 5; ++f) {
      const Matrix& A = k.A[f];
      double worst = 0.0;
      for (int i = 0; i < s; ++i)
        for (int j = 0; j < s; ++j)
          worst = std::max(worst, std::abs(A(s - 1 - i, s - 1 - j) + A(i, j) - k.b[j]));
      const auto family = static_cast<LobattoFamily>(f);
      if (family == LobattoFamily::IIIC || family == LobattoFamily::IIICstar)
        EXPECT_GT(worst, 0.1) << to_string(family) << " s = " << s;
      else
        EXPECT_LT(worst, 1e-14) << to_string(family) << " s = " << s;
    }
  }
}

TEST(Lobatto, RejectsBadStageCounts) {
  EXPECT_THROW(lobatto_coefficients(1), InvalidArgument);
  EXPECT_THROW(lobatto_coefficients(10), InvalidArgument);
}

TEST(HalfExplicitTableau, StructureOrdersAndEmbeddedWeights) {
  for (const HalfExplicitTableau& t : {brasey_hairer_3(), brasey_hairer_hem4()}) {
    const int s = t.stages();
    for (int i = 0; i < s; ++i)
      for (int j = i; j < s; ++j) EXPECT_EQ(t.A(i, j), 0.0) << t.name;
    for (int i = 0; i + 1 < s; ++i) EXPECT_NE(t.A(i + 1, i), 0.0) << t.name;  // (B1')
    EXPECT_NE(t.b[s - 1], 0.0);
    EXPECT_EQ(t.c[s - 1], 1.0);
    EXPECT_LT((t.A.rowwise().sum() - t.c).cwiseAbs().maxCoeff(), 1e-15);
    RungeKuttaTableau rk{t.name, t.A, t.b, t.c, t.order, 0};
    EXPECT_GE(simplifying_B(rk, 20, 1e-14), t.order) << t.name;  // quadrature order
    RungeKuttaTableau emb{t.name, t.A, t.b_embedded, t.c, t.embedded_order, 0};
    EXPECT_EQ(simplifying_B(emb, 20, 1e-14), t.embedded_order) << t.name;
    EXPECT_GT((t.b - t.b_embedded).cwiseAbs().maxCoeff(), 1e-3);
  }
  EXPECT_THROW(half_explicit_tableau("hem5"), InvalidArgument);
}
