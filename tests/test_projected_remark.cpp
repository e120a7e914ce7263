// The remark after Theorem 2.1 of paper 000: "for p >= q+2, q >= 2 in (B3) the consistency and
// convergence order in the u-component can be improved by one to q+1". Measured on the
// pendulum (4.1) at constant steps, for the unprojected method, the reduced projection (2.8)
// (velocities only) and the full projection (2.7), with the tableaus that satisfy (B1)-(B3)
// and p >= q+2 and are not stiffly accurate (Radau IA(3): p = 5, q = 2; Radau IA(4): p = 7,
// q = 3), and stiffly accurate ones for comparison.
//
// Finding (docs/rk-theory.md): the remark holds for the unprojected method (u of order q+1, as
// Hairer-Lubich-Roche's Theorem 6.4 says) and for the reduced projection (2.8), but not for the
// full projection (2.7): its u is of order q. (2.7) is implemented as the paper writes it --
// for the pendulum f_v k_lambda(u_{n+1}) = -2 u_{n+1} is radial, so the position step is the
// radial projection u~/|u~| whether the direction is taken at u~ (daekit) or at u_{n+1} (the
// paper), and the velocity step removes the radial part at the new point; the first test checks
// exactly that -- so the lost order is a property of (2.7), not of its implementation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"

using namespace daekit;

// The projection as implemented is the paper's (2.7) for the pendulum: u_{n+1} = u~ + f_v
// k_lambda(u_{n+1}) mu1 with g(u_{n+1}) = 0 is u~ / |u~|; v_{n+1} = v~ + k_lambda(u_{n+1}) mu2
// with u_{n+1}.v_{n+1} = 0 is v~ - (u_{n+1}.v~) u_{n+1}.
TEST(ProjectedRemark, FullProjectionIsThePapers27) {
  const BuiltinProblem p = pendulum_index3();
  Vector y(5);
  y << 0.83, -0.61, 0.37, 0.52, 0.4;  // off both constraints
  Vector expected = y;
  const Eigen::Vector2d u(y[0], y[1]);
  const Eigen::Vector2d un = u / u.norm();
  const Eigen::Vector2d v(y[2], y[3]);
  const Eigen::Vector2d vn = v - un.dot(v) * un;
  expected << un[0], un[1], vn[0], vn[1], y[4];
  ASSERT_TRUE(p.dae.project(0.0, y, Projection::Full, p.dae.p));
  EXPECT_LT((y - expected).cwiseAbs().maxCoeff(), 1e-15) << y.transpose();
}

TEST(ProjectedRemark, PositionOrderWithAndWithoutProjection) {
  const BuiltinProblem p = pendulum_index3();
  struct Row {
    RungeKuttaTableau tab;
    double T;
    int steps;
  };
  const std::vector<Row> rows = {{radau_ia(3), 1.0, 20},
                                 {radau_ia(4), 2.0, 20},
                                 {radau_iia(3), 1.0, 80},
                                 {lobatto_iiic(3), 1.0, 20},
                                 {radau_iia(2), 1.0, 40}};
  std::printf("%-16s %2s %2s %-5s | %-8s %6s %6s %6s | remark: u order\n", "tableau", "p", "q",
              "p>=q+2", "project", "u", "v", "lambda");
  for (const Row& r : rows) {
    const int pc = classical_order(r.tab).order;
    const int q = std::min(simplifying_B(r.tab), simplifying_C(r.tab));
    const bool stiffly_accurate =
        (r.tab.A.row(r.tab.stages() - 1).transpose() - r.tab.b).norm() < 1e-14;
    double order[3][3];
    int row = 0;
    for (Projection projection : {Projection::None, Projection::Velocity, Projection::Full}) {
      double e[2][3];
      for (int k = 0; k < 2; ++k) {
        ProjectedRkOptions m;
        m.tableau = r.tab;
        m.allow_unproven_tableau = true;  // Radau IIA(2) has p < q + 2 only (it meets (B3))
        Options o;
        o.projection = projection;
        o.fixed_step = true;
        o.h0 = r.T / (r.steps << k);
        o.rtol = o.atol = 1e-13;
        o.store_steps = false;
        const Result res = solve(p.dae, 0.0, r.T, p.y0, m, o);
        ASSERT_TRUE(res.ok()) << res.message;
        const Vector ref = pendulum_reference(r.T);
        e[k][0] = (res.y.head(2) - ref.head(2)).cwiseAbs().maxCoeff();
        e[k][1] = (res.y.segment(2, 2) - ref.segment(2, 2)).cwiseAbs().maxCoeff();
        e[k][2] = std::abs(res.y[4] - ref[4]);
      }
      for (int c = 0; c < 3; ++c) order[row][c] = std::log2(e[0][c] / e[1][c]);
      std::printf("%-16s %2d %2d %-6s | %-8s %6.2f %6.2f %6.2f | %s\n", r.tab.name.c_str(), pc, q,
                  pc >= q + 2 ? "yes" : "no", to_string(projection), order[row][0], order[row][1],
                  order[row][2],
                  pc >= q + 2 ? (std::to_string(q + 1) + " claimed").c_str() : "no claim");
      ++row;
    }
    // Theorem 2.1: u, v at least O(h^q), lambda O(h^(q-1)), with every projection
    for (int k = 0; k < 3; ++k) {
      EXPECT_GT(order[k][0], q - 0.3) << r.tab.name;
      EXPECT_GT(order[k][1], q - 0.3) << r.tab.name;
      EXPECT_GT(order[k][2], q - 1 - 0.3) << r.tab.name;
    }
    if (pc >= q + 2 && !stiffly_accurate) {
      EXPECT_NEAR(order[0][0], q + 1, 0.3) << r.tab.name << ": unprojected u of order q+1";
      EXPECT_NEAR(order[1][0], q + 1, 0.3) << r.tab.name << ": (2.8) keeps u of order q+1";
      EXPECT_NEAR(order[2][0], q, 0.3) << r.tab.name << ": (2.7) gives u of order q only";
    }
    // stiffly accurate: (2.7) = (2.8) (the positions satisfy g = 0 already), and the remark
    // holds
    if (stiffly_accurate && pc >= q + 2)
      for (int k = 0; k < 3; ++k) EXPECT_GT(order[k][0], q + 1 - 0.3) << r.tab.name;
  }
}
