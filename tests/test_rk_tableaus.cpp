// Tableau analysis (tableaus/analysis.hpp) and the published tableaus (tableaus/published.cpp):
// the order conditions of every shipped tableau, the families' orders, linear stability by the
// E-polynomial, the algebraic stability matrices and the examples of NOTES-004.md ch. 6, AN-,
// B- and BN-stability checks, and the block-diagonal transformation of A^{-1} against the
// constants printed in Hairer-Wanner's RADAU code; the tabulated constants of radau5 and radau
// (methods/radau_tables.cpp) against their computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"
#include "daekit/tableaus/analysis.hpp"
#include "methods/radau_tables.hpp"

using namespace daekit;

TEST(RkTableaus, RootedTreeCounts) {
  const std::vector<long> expected = {1, 1, 2, 4, 9, 20, 48, 115, 286, 719, 1842, 4766};
  EXPECT_EQ(rooted_tree_counts(12), expected);
}

// Every published tableau: its order conditions hold up to the published order and fail at
// the next one; the embedded formula has its published order; c_i = sum_j a_ij.
TEST(RkTableaus, PublishedTableausMeetTheirOrderConditions) {
  struct Case {
    RungeKuttaTableau t;
    int stage_order;
    bool stiffly_accurate, l_stable;
  };
  const std::vector<Case> cases = {
      {sdirk4_hw16(), 1, true, true},
      {sdirk4_hw18(), 1, true, true},
      {kvaerno_esdirk3(), 2, true, true},
      {kvaerno_esdirk4(), 2, true, true},
      {kvaerno_esdirk5(), 2, true, true},
      {alexander_sdirk2(), 1, true, true},
      {alexander_sdirk3(), 1, true, true},
      // FSAL: b = the last row of A, stiffly accurate in the formal sense
      {dormand_prince5(), 1, true, false},
      {bogacki_shampine3(), 1, true, false},
      {classical_rk4(), 1, false, false},
      {explicit_euler(), 1, false, false},
  };
  std::printf("%-26s %5s %5s %8s %8s %6s %10s %8s\n", "tableau", "p", "p^", "res(p)", "res(p+1)",
              "q", "R(inf)", "L-stable");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.t.name);
    const TableauAnalysis a = analyse_tableau(c.t);
    const OrderConditions oc = order_conditions(c.t, c.t.order + 1);
    std::printf("%-26s %5d %5d %8.1e %8.1e %6d %10.3g %8s\n", c.t.name.c_str(), a.order.order,
                a.embedded_order, oc.residual[static_cast<size_t>(c.t.order - 1)],
                oc.residual[static_cast<size_t>(c.t.order)], a.stage_order, a.linear.r_inf,
                a.linear.l_stable ? "yes" : "no");
    EXPECT_EQ(a.order.order, c.t.order);
    EXPECT_LT(oc.residual[static_cast<size_t>(c.t.order - 1)], 1e-12);
    EXPECT_GT(oc.residual[static_cast<size_t>(c.t.order)], 1e-4);  // not of higher order
    if (c.t.has_embedded()) EXPECT_EQ(a.embedded_order, c.t.embedded_order);
    EXPECT_LT((c.t.A.rowwise().sum() - c.t.c).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_EQ(a.stage_order, c.stage_order);
    EXPECT_EQ(a.stiffly_accurate, c.stiffly_accurate);
    EXPECT_EQ(a.linear.l_stable, c.l_stable);
    if (c.l_stable) EXPECT_LT(a.linear.max_abs_r_sampled, 1.0 + 1e-10);
  }
  // Kvaerno's estimators are stiffly accurate too: b_hat is the row s-1 of A
  for (const RungeKuttaTableau& t : {kvaerno_esdirk3(), kvaerno_esdirk4(), kvaerno_esdirk5()}) {
    const int s = t.stages();
    EXPECT_LT((t.A.row(s - 2).transpose() - t.b_hat).cwiseAbs().maxCoeff(), 1e-15) << t.name;
  }
}

// Orders of the collocation and Lobatto families by the trees (s <= 6) and Butcher's theorem.
// A continuous extension b(theta) of order q: for fixed theta, y_n + h sum b_i(theta) k_i is the
// Runge-Kutta method (A / theta, b(theta) / theta, c / theta) with step theta h, whose order
// conditions are those of the extension (Hairer-Norsett-Wanner I, II.6).
TEST(RkTableaus, ContinuousExtensionOfDopri5HasOrderFour) {
  const RungeKuttaTableau t = dormand_prince5();
  ASSERT_EQ(t.b_theta.rows(), t.stages());
  EXPECT_EQ(t.dense_order, 4);
  EXPECT_LT((t.b_theta.rowwise().sum() - t.b).cwiseAbs().maxCoeff(), 1e-15) << "b(1) = b";
  for (double theta : {0.2, 0.5, 0.8}) {
    RungeKuttaTableau x = t;
    x.A = t.A / theta;
    x.c = t.c / theta;
    x.b.setZero(t.stages());
    double power = theta;
    for (int k = 0; k < t.b_theta.cols(); ++k, power *= theta) x.b += t.b_theta.col(k) * power;
    x.b /= theta;
    x.b_hat.resize(0);
    const OrderConditions oc = order_conditions(x, 6);
    EXPECT_EQ(oc.order_by_trees, 4) << "theta = " << theta;
  }
}

// claim: 000-S2-radau-iia3-orders
// claim: 004-2-tableau-simplifying
TEST(RkTableaus, FamilyOrders) {
  for (int s = 1; s <= 7; ++s) {
    EXPECT_EQ(classical_order(radau_iia(s)).order, 2 * s - 1) << s;
    EXPECT_TRUE(classical_order(radau_iia(s)).exact) << s;
    EXPECT_EQ(classical_order(radau_ia(s)).order, 2 * s - 1) << s;
    EXPECT_EQ(classical_order(gauss(s)).order, 2 * s) << s;
    if (s >= 2) {
      EXPECT_EQ(classical_order(lobatto_iiia(s)).order, 2 * s - 2) << s;
      EXPECT_EQ(classical_order(lobatto_iiic(s)).order, 2 * s - 2) << s;
    }
  }
  // Lobatto IIIC(3) of the notes: B(4) C(2) D(2) [CALC]; IIIC(2) of paper 002's list
  const RungeKuttaTableau c3 = lobatto_iiic(3);
  EXPECT_EQ(simplifying_B(c3), 4);
  EXPECT_EQ(simplifying_C(c3), 2);
  EXPECT_EQ(simplifying_D(c3), 2);
  Matrix A2(2, 2);
  A2 << 0.5, -0.5, 0.5, 0.5;
  EXPECT_LT((lobatto_iiic(2).A - A2).cwiseAbs().maxCoeff(), 1e-15);
  Matrix A3(3, 3);
  A3 << 1.0 / 6, -1.0 / 3, 1.0 / 6, 1.0 / 6, 5.0 / 12, -1.0 / 12, 1.0 / 6, 2.0 / 3, 1.0 / 6;
  EXPECT_LT((c3.A - A3).cwiseAbs().maxCoeff(), 1e-14);
}

// A- and L-stability from the E-polynomial against the sampled |R| (and the known answers).
TEST(RkTableaus, LinearStabilityByEPolynomial) {
  struct Case {
    RungeKuttaTableau t;
    bool a_stable, l_stable;
  };
  std::vector<Case> cases;
  for (int s = 1; s <= 5; ++s) {
    cases.push_back({radau_iia(s), true, true});
    cases.push_back({radau_ia(s), true, true});
    cases.push_back({gauss(s), true, false});
  }
  for (int s = 2; s <= 5; ++s) {
    cases.push_back({lobatto_iiic(s), true, true});
    cases.push_back({lobatto_iiia(s), true, false});
  }
  cases.push_back({classical_rk4(), false, false});
  cases.push_back({dormand_prince5(), false, false});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.t.name);
    const LinearStability ls = linear_stability(c.t);
    EXPECT_EQ(ls.a_stable_e, c.a_stable);
    EXPECT_EQ(ls.a_stable_sampled, c.a_stable);  // both ways agree
    EXPECT_EQ(ls.l_stable, c.l_stable);
  }
  // R(inf): Gauss (-1)^s, Lobatto IIIA (-1)^(s-1)
  EXPECT_NEAR(r_infinity(gauss(3)), -1.0, 1e-12);
  EXPECT_NEAR(r_infinity(lobatto_iiia(3)), 1.0, 1e-12);
  EXPECT_NEAR(r_infinity(lobatto_iiia(2)), -1.0, 1e-12);  // trapezoid
  EXPECT_TRUE(std::isinf(r_infinity(classical_rk4())));
  // R = P/Q agrees with the resolvent formula
  const RungeKuttaTableau k5 = kvaerno_esdirk5();
  const StabilityPolynomials R = stability_polynomials(k5);
  for (std::complex<double> z : {std::complex<double>(-3.0, 1.0), std::complex<double>(0.5, 7)})
    EXPECT_LT(std::abs(R(z) - stability_function(k5, z)), 1e-13 * std::abs(R(z)));
  EXPECT_LT(std::abs(stability_polynomials(radau_iia(3))({-2.0, 1.0}) -
                     stability_function(radau_iia(3), {-2.0, 1.0})),
            1e-13);
}

// NOTES-004.md ch. 6 [CALC]: eigenvalues of M = BA + A^T B - b b^T, and the AN counterexample
// of the trapezoidal rule.
// claim: 004-ch6-algebraic-stability
// claim: 004-ch6-eig-values
// claim: 004-ch6-trapezoid-not-an
TEST(RkTableaus, AlgebraicStabilityMatricesOfChapter6) {
  struct Case {
    RungeKuttaTableau t;
    std::vector<double> eig;
  };
  const std::vector<Case> cases = {
      {radau_iia(2), {0.0, 0.125}},           {radau_iia(3), {0.0, 0.0, 1.0 / 18}},
      {lobatto_iiic(3), {0.0, 0.0, 1.0 / 6}}, {lobatto_iiia(3), {-0.0481, 0.0, 0.0481}},
      {lobatto_iiia(2), {-0.25, 0.25}},  // trapezoid
  };
  for (const Case& c : cases) {
    const Vector e = algebraic_stability_eigenvalues(c.t);
    std::printf("%-18s eig(M):", c.t.name.c_str());
    for (int k = 0; k < e.size(); ++k) std::printf(" %9.5f", e[k]);
    std::printf("\n");
    for (size_t k = 0; k < c.eig.size(); ++k)
      EXPECT_NEAR(e[static_cast<Eigen::Index>(k)], c.eig[k], 5e-5) << c.t.name << " " << k;
  }
  // m_ij = b_i a_ij + b_j a_ji - b_i b_j (6.13)
  const RungeKuttaTableau t = radau_ia(3);
  const Matrix M = algebraic_stability_matrix(t);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(M(i, j), t.b[i] * t.A(i, j) + t.b[j] * t.A(j, i) - t.b[i] * t.b[j], 1e-15);
  // trapezoid, Z = diag(2i, 0): |R(Z)| = sqrt(2) (not AN-stable)
  Eigen::VectorXcd z(2);
  z << std::complex<double>(0, 2), 0.0;
  EXPECT_NEAR(std::abs(stability_function_z(lobatto_iiia(2), z)), std::sqrt(2.0), 1e-14);
}

// Acceptance: M positive semidefinite for Radau IIA, Radau IA, Gauss and Lobatto IIIC, not for
// Lobatto IIIA; AN-stability found or refuted accordingly; the B- and BN-checks agree.
// claim: 004-T6.1-an-stability
// claim: 004-T6.2-b-stability
// claim: 004-T6.3-bn-stability
TEST(RkTableaus, AlgebraicAnBAndBnStability) {
  std::printf("%-18s %9s %6s %6s %10s %10s %10s\n", "tableau", "min eig M", "alg.", "AN",
              "max|R(Z)|", "B ratio", "BN ratio");
  auto row = [](const RungeKuttaTableau& t, bool stable) {
    SCOPED_TRACE(t.name);
    const TableauAnalysis a = analyse_tableau(t);
    std::printf("%-18s %9.2e %6s %6s %10.4g %10.4g %10.4g\n", t.name.c_str(),
                a.M_eigenvalues.minCoeff(), a.algebraically_stable ? "yes" : "no",
                a.an.an_stable ? "yes" : "no", a.an.max_abs_r, a.b_check.max_ratio,
                a.bn_check.max_ratio);
    EXPECT_EQ(a.algebraically_stable, stable);
    EXPECT_EQ(a.an.an_stable, stable);
    EXPECT_GT(a.b_check.trials, 100);
    if (stable) {
      EXPECT_LE(a.an.max_abs_r, 1.0 + 1e-12);
      EXPECT_TRUE(a.b_check.contractive(1e-9)) << a.b_check.max_ratio;
      EXPECT_TRUE(a.bn_check.contractive(1e-9)) << a.bn_check.max_ratio;
    } else {
      EXPECT_GT(a.an.max_abs_r, 1.0 + 1e-6);
      EXPECT_GT(a.bn_check.max_ratio, 1.0 + 1e-6);  // a contractive problem that expands
    }
  };
  for (int s = 1; s <= 4; ++s) {
    row(radau_iia(s), true);
    row(radau_ia(s), true);
    row(gauss(s), true);
  }
  for (int s = 2; s <= 4; ++s) {
    row(lobatto_iiic(s), true);
    row(lobatto_iiia(s), false);
  }
  // the trapezoidal rule and Lobatto IIIA(3) are not B-stable either: y' = -y^3 expands
  EXPECT_GT(b_stability_check(lobatto_iiia(2)).max_ratio, 1.01);
  EXPECT_GT(b_stability_check(lobatto_iiia(3)).max_ratio, 1.01);
  EXPECT_GT(b_stability_check(classical_rk4()).max_ratio, 1.01);
  // SDIRK4 (6.16) has a negative weight: not algebraically stable
  EXPECT_FALSE(algebraically_stable(sdirk4_hw16()));
}

// The transformation of A^{-1} for s = 1..7 (and tableaus with no real eigenvalue), and the
// constants of Hairer-Wanner's RADAU code for 5 and 7 stages.
TEST(RkTableaus, BlockDiagonalInverse) {
  for (const RungeKuttaTableau& t :
       {radau_iia(1), radau_iia(2), radau_iia(3), radau_iia(4), radau_iia(5), radau_iia(7),
        gauss(2), gauss(3), radau_ia(3), lobatto_iiic(3)}) {
    const BlockDiagonalInverse d = block_diagonalise_inverse(t.A);
    const int s = t.stages();
    Matrix L = Matrix::Zero(s, s);
    int k = 0;
    for (int r = 0; r < d.real_blocks(); ++r, ++k) L(k, k) = d.gamma[r];
    for (int p = 0; p < d.complex_blocks(); ++p, k += 2) {
      L(k, k) = L(k + 1, k + 1) = d.alpha[p];
      L(k, k + 1) = -d.beta[p];
      L(k + 1, k) = d.beta[p];
    }
    EXPECT_LT((d.T_inverse * t.A.inverse() * d.T - L).cwiseAbs().maxCoeff(),
              1e-11 * L.cwiseAbs().maxCoeff())
        << t.name;
  }
  // with one real eigenvalue it is transform_inverse (radau5's constants)
  const TransformedTableau tt = transform_inverse(radau_iia(3));
  const BlockDiagonalInverse d3 = block_diagonalise_inverse(radau_iia(3).A);
  EXPECT_EQ(tt.T, d3.T);  // bit for bit: radau5's constants
  EXPECT_EQ(tt.T_inverse, d3.T_inverse);
  EXPECT_EQ(tt.gamma, d3.gamma[0]);
  // a defective A^{-1} (SDIRK: one eigenvalue 1/gamma of multiplicity s) is refused
  EXPECT_THROW(block_diagonalise_inverse(sdirk4_hw16().A), InvalidArgument);
  // RADAU (Hairer-Wanner), COERCV: U1, ALPH, BETA, DD for NS = 5 and 7
  struct Radau {
    int s;
    double u1;
    std::vector<double> alph, beta, dd;
  };
  const std::vector<Radau> radau = {
      {5,
       6.286704751729276645173,
       {5.700953298671789419170, 3.655694325463572258243},
       {3.210265600308549888425, 6.543736899360077294021},
       {-27.78093394406463730479, 3.641478498049213152712, -1.252547721169118720491,
        0.5920031671845428725662, -0.2}},
      {7,
       8.936832788405216337302,
       {8.511834825102945723051, 7.141055219187640105775, 4.378693561506806002523},
       {3.281013624325058830036, 6.623045922639275970621, 10.16969328379501162732},
       {-54.37443689412861451458, 7.000024004259186512041, -2.355661091987557192256,
        1.132289066106134386384, -0.6468913267673587118673, 0.3875333853753523774248,
        -0.1428571428571428571429}}};
  for (const Radau& r : radau) {
    const RungeKuttaTableau t = radau_iia(r.s);
    const BlockDiagonalInverse d = block_diagonalise_inverse(t.A);
    ASSERT_EQ(d.real_blocks(), 1);
    EXPECT_NEAR(d.gamma[0], r.u1, 1e-12 * r.u1);
    for (size_t k = 0; k < r.alph.size(); ++k) {
      EXPECT_NEAR(d.alpha[static_cast<Eigen::Index>(k)], r.alph[k], 1e-11) << r.s;
      EXPECT_NEAR(d.beta[static_cast<Eigen::Index>(k)], r.beta[k], 1e-11) << r.s;
    }
    const Vector e = embedded_error_weights(t, d.gamma[0]);
    for (size_t k = 0; k < r.dd.size(); ++k)
      EXPECT_NEAR(e[static_cast<Eigen::Index>(k)], r.dd[k], 1e-10 * std::abs(r.dd[0])) << r.s;
  }
}

TEST(RkTableaus, NamesAndReport) {
  for (const std::string& name : tableau_names()) {
    const RungeKuttaTableau t = tableau_by_name(name);
    EXPECT_GT(t.stages(), 0) << name;
  }
  const std::string report = analyse_tableau(tableau_by_name("kvaerno4")).report();
  EXPECT_NE(report.find("order: 4"), std::string::npos) << report;
  EXPECT_NE(report.find("ESDIRK"), std::string::npos) << report;
  EXPECT_NE(report.find("L-stable: yes"), std::string::npos) << report;
  EXPECT_THROW(tableau_by_name("kvaerno6"), InvalidArgument);
}

// The table of docs/rk-theory.md: every tableau of tableau_names() analysed (printed as
// markdown rows); the analysis agrees with the orders the constructors declare.
TEST(RkTableaus, ShippedTableauTable) {
  std::printf(
      "| name | tableau | s | type | p | p^ | q | B C D | stiffly acc. | R(inf) | A-stable "
      "(E-poly / sampled) | L-stable | alg. stable (min eig M) | AN | B / BN ratio |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& name : tableau_names()) {
    const RungeKuttaTableau t = tableau_by_name(name);
    const TableauAnalysis a = analyse_tableau(t);
    SCOPED_TRACE(name);
    EXPECT_EQ(a.order.order, t.order);
    const char* type = a.explicit_method        ? "ERK"
                       : !a.diagonally_implicit ? "FIRK"
                       : a.explicit_first_stage ? "ESDIRK"
                       : a.singly_diagonal      ? "SDIRK"
                                                : "DIRK";
    char rinf[32];
    if (std::isfinite(a.linear.r_inf))
      std::snprintf(rinf, sizeof rinf, "%.3g",
                    std::abs(a.linear.r_inf) < 1e-14 ? 0.0 : a.linear.r_inf);
    else
      std::snprintf(rinf, sizeof rinf, "inf");
    char phat[8] = "-";
    if (a.embedded_order >= 0) std::snprintf(phat, sizeof phat, "%d", a.embedded_order);
    std::printf(
        "| %s | %s | %d | %s | %d%s | %s | %d | %d %d %d | %s | %s | %s / %s | %s | %s (%.2g) "
        "| %s | %.3g / %.3g |\n",
        name.c_str(), t.name.c_str(), t.stages(), type, a.order.order, a.order.exact ? "" : "+",
        phat, a.stage_order, a.B, a.C, a.D, a.stiffly_accurate ? "yes" : "no", rinf,
        a.linear.a_stable_e ? "yes" : "no", a.linear.a_stable_sampled ? "yes" : "no",
        a.linear.l_stable ? "yes" : "no", a.algebraically_stable ? "yes" : "no",
        a.M_eigenvalues.minCoeff(), a.an.an_stable ? "yes" : "no", a.b_check.max_ratio,
        a.bn_check.max_ratio);
    // the E-polynomial and the samples agree on A-stability
    EXPECT_EQ(a.linear.a_stable_e, a.linear.a_stable_sampled);
    // algebraic stability implies B- and BN-contractivity on the test problems
    if (a.algebraically_stable) {
      EXPECT_TRUE(a.b_check.contractive(1e-9));
      EXPECT_TRUE(a.bn_check.contractive(1e-9));
    }
  }
}

// radau5's and radau's constants come from tables (methods/radau_tables.cpp): every entry is
// what IrkConstants::make(radau_iia(s)) computes, to the bit on this platform (the tables were
// printed from it; anywhere else within a few ulps), and so are the flags and dense-output nodes.
TEST(RkTableaus, TabulatedRadauConstantsAreTheComputedOnes) {
  const auto expect_same = [](const Eigen::MatrixXd& tab, const Eigen::MatrixXd& made,
                              const char* what, int s) {
    ASSERT_EQ(tab.rows(), made.rows()) << what << ", s = " << s;
    ASSERT_EQ(tab.cols(), made.cols()) << what << ", s = " << s;
    const double scale = made.size() ? std::max(1.0, made.cwiseAbs().maxCoeff()) : 1.0;
    for (Eigen::Index i = 0; i < made.size(); ++i)
      EXPECT_LE(std::abs(tab.data()[i] - made.data()[i]), 4e-16 * scale)
          << what << "[" << i << "], s = " << s;
  };
  for (int s : {1, 3, 5, 7}) {
    const IrkConstants tab = radau_iia_constants(s);
    const IrkConstants made = IrkConstants::make(radau_iia(s));
    EXPECT_EQ(tab.tableau.name, made.tableau.name);
    EXPECT_EQ(tab.tableau.order, made.tableau.order);
    EXPECT_EQ(tab.tableau.stage_order, made.tableau.stage_order);
    expect_same(tab.tableau.A, made.tableau.A, "A", s);
    expect_same(tab.tableau.b, made.tableau.b, "b", s);
    expect_same(tab.c, made.c, "c", s);
    expect_same(tab.blocks.gamma, made.blocks.gamma, "gamma", s);
    expect_same(tab.blocks.alpha, made.blocks.alpha, "alpha", s);
    expect_same(tab.blocks.beta, made.blocks.beta, "beta", s);
    expect_same(tab.blocks.T, made.blocks.T, "T", s);
    expect_same(tab.blocks.T_inverse, made.blocks.T_inverse, "T^-1", s);
    expect_same(tab.d, made.d, "d", s);
    expect_same(tab.e, made.e, "e", s);
    EXPECT_EQ(tab.stiffly_accurate, made.stiffly_accurate);
    EXPECT_EQ(tab.has_error_estimate, made.has_error_estimate);
    EXPECT_EQ(tab.nodes, made.nodes);
    EXPECT_EQ(tab.node_source, made.node_source);
    EXPECT_EQ(tab.node_c, made.node_c);
    EXPECT_EQ(tab.end_node, made.end_node);
  }
  EXPECT_THROW(radau_iia_constants(2), InvalidArgument);
}
