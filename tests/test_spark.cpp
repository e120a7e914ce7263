// SPARK Lobatto IIIA-B-C-C*-D methods (methods/spark.hpp) on the index-2 DAEs of paper 002:
// the convergence of Fig. 5.1 on (5.1), g = 0 at every step, reversibility (Theorem 3.1),
// the implicit a(t, y) of the knife edge, variable steps, dense output and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "daekit/daekit.hpp"
#include "daekit/problems/index2.hpp"

using namespace daekit;

namespace {

struct JayRun {
  double ey = 0, ez = 0, max_g = 0;
  long steps = 0;
};

// (5.1) at constant h = 1/N up to t = 1, errors at t = 1 (max-norm).
JayRun jay_fixed(int s, int N) {
  SparkOptions m;
  m.stages = s;
  m.newton_tolerance = 1e-3;  // a study: Newton to ~1e-15 (iterations at rate ~0.15)
  m.max_newton_iterations = 30;
  Options o;
  o.fixed_step = true;
  o.h0 = 1.0 / N;
  o.rtol = o.atol = 1e-12;
  const Result r = solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), m, o);
  EXPECT_TRUE(r.ok()) << r.message;
  const Vector e = (r.y - jay_index2_exact(1.0)).cwiseAbs();
  return {e.head(2).maxCoeff(), e[2], r.max_residual.position, r.stats.naccept};
}

// Least-squares slope of log(err) against log(h) over the points above `floor`.
double slope(const std::vector<double>& h, const std::vector<double>& err, double floor) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    if (err[i] <= floor) continue;
    const double x = std::log(h[i]), y = std::log(err[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
    ++n;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

// claim: 002-eq3.7-g-exact
// claim: 002-C4.6-order
// claim: 002-eq5.1-exact
// claim: 002-Fig5.1-s2
// claim: 002-Fig5.1-s3
// claim: 002-Fig5.1-z
// claim: 002-S6-super-not-sa
TEST(Spark, ConvergenceOnJayProblem51) {
  // Fig. 5.1 of paper 002: y error at t = 1 with slope 2s - 2; z = Z_s of order s - 1
  for (int s = 2; s <= 4; ++s) {
    std::vector<double> hs, ey, ez;
    double max_g = 0.0;
    for (int N : {16, 32, 64, 128}) {
      const JayRun r = jay_fixed(s, N);
      hs.push_back(1.0 / N);
      ey.push_back(r.ey);
      ez.push_back(r.ez);
      max_g = std::max(max_g, r.max_g);
      std::printf("s = %d h = 1/%-3d  |y - y(1)| = %.3e  |z - z(1)| = %.3e  max |g| = %.1e\n", s, N,
                  r.ey, r.ez, r.max_g);
    }
    // round-off floor: s = 4 reaches 1e-15 at h = 1/128
    const double py = slope(hs, ey, 1e-13), pz = slope(hs, ez, 1e-13);
    std::printf("s = %d: slope in y %.2f (2s - 2 = %d), in z %.2f (s - 1 = %d)\n", s, py, 2 * s - 2,
                pz, s - 1);
    EXPECT_NEAR(py, 2 * s - 2, 0.3);
    EXPECT_NEAR(pz, s - 1, 0.3);  // measured 0.95, 1.92, 2.95
    EXPECT_LT(max_g, 1e-13);      // g(t_n, y_n) = 0 to the Newton tolerance at every step
  }
}

namespace {

// One step h from (0, y0, z0) and one step -h back; |y_back - y0| (max-norm).
double there_and_back(const ImplicitIndex2Dae& dae, int s, double h) {
  const Vector y0 = jay_index2_exact(0.0).head(2);
  const Vector z0 = consistent_algebraic(dae, 0.0, y0, Vector::Ones(1));
  Vector x0(3);
  x0 << y0, z0;
  SparkOptions m;
  m.stages = s;
  m.newton_tolerance = 1e-2;  // increments below 1e-14: Newton to round-off
  m.max_newton_iterations = 40;
  Options o;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = 1e-12;
  const Result forward = solve(dae, 0.0, h, x0, m, o);
  EXPECT_TRUE(forward.ok()) << forward.message;
  o.check_consistency = false;  // z1 = Z_s is not consistent (and does not matter, Remark 3.1)
  const Result back = solve(dae, h, 0.0, forward.y, m, o);
  EXPECT_TRUE(back.ok()) << back.message;
  EXPECT_GT((forward.y.head(2) - y0).cwiseAbs().maxCoeff(), 1e-3);  // the step moved y
  return (back.y.head(2) - y0).cwiseAbs().maxCoeff();
}

}  // namespace

// claim: 002-T3.1-reversible
// claim: 002-C4.6-reversible-f3f4
TEST(Spark, ReversibleWithoutIIICParts) {
  // Theorem 3.1 / Corollary 4.6: symmetric coefficients (IIIA, IIIB, IIID) give a symmetric
  // method when f_3 = f_4 = 0; with f_3 (IIIC) or f_4 (IIIC*) active it is not.
  const std::array<bool, 5> symmetric[] = {{true, true, false, false, false},     // IIIA-B
                                           {true, true, false, false, true}};     // IIIA-B-D
  const std::array<bool, 5> not_symmetric[] = {{true, true, true, true, true},    // all five
                                               {true, true, false, true, true},   // with IIIC*
                                               {true, true, true, false, true}};  // with IIIC
  const double h = 0.1;
  for (int s = 2; s <= 4; ++s) {
    for (const auto& parts : symmetric) {
      const double d = there_and_back(jay_index2(parts), s, h);
      std::printf("s = %d parts %d%d%d%d%d: |y(h, -h) - y0| = %.1e (symmetric)\n", s, parts[0],
                  parts[1], parts[2], parts[3], parts[4], d);
      EXPECT_LT(d, 1e-13);
    }
    for (const auto& parts : not_symmetric) {
      const double d = there_and_back(jay_index2(parts), s, h);
      std::printf("s = %d parts %d%d%d%d%d: |y(h, -h) - y0| = %.1e (f_3 or f_4 active)\n", s,
                  parts[0], parts[1], parts[2], parts[3], parts[4], d);
      EXPECT_GT(d, 1e-12);  // O(h^(2s-1)): 100 times the symmetric round-off and more
    }
  }
}

// claim: 002-C4.6-order
// claim: 002-S1-nonlinear-a
TEST(Spark, ImplicitKnifeEdgeConverges) {
  // the nonlinear a(t, y) of the body-frame momenta: order 2s - 2 in y as in Hessenberg form
  for (int s = 2; s <= 3; ++s) {
    std::vector<double> hs, err;
    for (int N : {20, 40, 80}) {
      SparkOptions m;
      m.stages = s;
      m.max_newton_iterations = 30;
      Options o;
      o.fixed_step = true;
      o.h0 = 2.0 / N;
      o.rtol = o.atol = 1e-12;
      const Result r = solve(knife_edge(true), 0.0, 2.0, knife_edge_exact(0.0), m, o);
      ASSERT_TRUE(r.ok()) << r.message;
      hs.push_back(o.h0);
      err.push_back((r.y - knife_edge_exact(2.0)).head(6).cwiseAbs().maxCoeff());
      std::printf("knife edge (implicit a) s = %d h = %.4f |y - y(2)| = %.3e max |g| = %.1e\n", s,
                  o.h0, err.back(), r.max_residual.position);
      EXPECT_LT(r.max_residual.position, 1e-12);
    }
    const double p = slope(hs, err, 1e-13);
    std::printf("knife edge (implicit a) s = %d: slope %.2f (2s - 2 = %d)\n", s, p, 2 * s - 2);
    EXPECT_NEAR(p, 2 * s - 2, 0.3);
  }
}

namespace {

struct VariableRun {
  double err = 0, max_g = 0;
  long steps = 0;
};

VariableRun variable(const ImplicitIndex2Dae& dae, double T, const Vector& x0, const Vector& ref,
                     int s, double tol) {
  SparkOptions m;
  m.stages = s;
  Options o;
  o.rtol = o.atol = tol;
  const Result r = solve(dae, 0.0, T, x0, m, o);
  EXPECT_TRUE(r.ok()) << dae.name << ": " << r.message;
  const double err = (r.y - ref).head(dae.n).cwiseAbs().maxCoeff();
  std::printf(
      "spark s = %d rtol = atol = %.0e  %-28s steps %4ld (rejected %3ld, failed %3ld) "
      "f evaluations %5ld  |y - y_ref| = %.2e  max |g| = %.1e\n",
      s, tol, dae.name.c_str(), r.stats.nsteps, r.stats.nreject, r.stats.nfail,
      r.stats.nfev + r.stats.nfev_jac, err, r.max_residual.position);
  return {err, r.max_residual.position, r.stats.nsteps};
}

}  // namespace

TEST(Spark, VariableStepKnifeEdgeAndPendulumAtRtol1e8) {
  const double tol = 1e-8;
  Vector pendulum0(5);
  pendulum0 << 1, 0, 0, 0, 0;
  Vector pendulum_ref = pendulum_reference(2.0);
  for (int s = 3; s <= 4; ++s) {
    const VariableRun k =
        variable(knife_edge(true), 10.0, knife_edge_exact(0.0), knife_edge_exact(10.0), s, tol);
    const VariableRun p = variable(pendulum_index2_form(), 2.0, pendulum0, pendulum_ref, s, tol);
    // error per step controlled: the global error stays within a few hundred tolerances (the
    // knife edge's position error grows linearly in t from velocity errors)
    EXPECT_LT(k.err, 300 * tol);
    EXPECT_LT(p.err, 100 * tol);
    EXPECT_LT(k.max_g, 0.1 * tol);  // g(t_n, y_n) = 0 to the Newton tolerance
    EXPECT_LT(p.max_g, 0.1 * tol);
  }
  // tolerance proportionality: ten times tighter, errors 5 to 20 times smaller (order 4)
  const VariableRun a =
      variable(knife_edge(true), 10.0, knife_edge_exact(0.0), knife_edge_exact(10.0), 3, 1e-7);
  const VariableRun b =
      variable(knife_edge(true), 10.0, knife_edge_exact(0.0), knife_edge_exact(10.0), 3, 1e-8);
  EXPECT_GT(a.err / b.err, 3.0);
  EXPECT_GT(b.steps, a.steps);
}

TEST(Spark, MassMatrixFormOfBuiltinProblems) {
  // a MassMatrixDae of Hessenberg structure: f goes into one part (default IIIC)
  for (const char* name : {"jay-index2", "knife-edge", "pendulum-index2"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    Options o;
    o.rtol = o.atol = 1e-8;
    const double T = p.reference ? p.reference->t : p.t_end;
    const Result r = solve(p.dae, p.t0, T, p.y0, "spark", o);
    ASSERT_TRUE(r.ok()) << name << ": " << r.message;
    const Vector ref = p.reference ? p.reference->y : pendulum_reference(T);
    const double err = (r.y - ref).head(p.dae.n - 1).cwiseAbs().maxCoeff();
    std::printf("spark (IIIC part) %-16s steps %4ld |y - y_ref| = %.2e max |g| = %.1e\n", name,
                r.stats.nsteps, err, r.max_residual.position);
    EXPECT_LT(err, 1e-5);
    EXPECT_LT(r.max_residual.position, 1e-9);
  }
}

TEST(Spark, DenseOutputFollowsTheSolution) {
  // continuous output between the steps of (5.1): after the first step the polynomial through
  // the five solution values of two steps (interpolation error O(h^5)); the first step uses the
  // IIIA continuous extension (order s: its stage derivatives carry z's O(h^(s-1)) error)
  SparkOptions m;
  m.stages = 3;
  Options o;
  o.rtol = o.atol = 1e-9;
  o.output_times.clear();
  for (int k = 0; k <= 40; ++k) o.output_times.push_back(k / 40.0);
  const Result r = solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), m, o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.t_out.size(), 41u);
  double ey = 0.0, ez = 0.0;
  for (size_t k = 0; k < r.t_out.size(); ++k) {
    const Vector e = (r.y_out[static_cast<long>(k)] - jay_index2_exact(r.t_out[k])).cwiseAbs();
    ey = std::max(ey, e.head(2).maxCoeff());
    ez = std::max(ez, e[2] / jay_index2_exact(r.t_out[k])[2]);
  }
  std::printf(
      "dense output on (5.1), %ld steps: max |y - y(t)| = %.2e, max relative z error "
      "= %.2e\n",
      r.stats.naccept, ey, ez);
  EXPECT_LT(ey, 1e-7);
  EXPECT_LT(ez, 1e-3);
}

TEST(Spark, BadInputGivesClearErrors) {
  Options o;
  o.rtol = o.atol = 1e-6;
  // inconsistent y0: g(y0) != 0
  Vector x0 = jay_index2_exact(0.0);
  x0[0] = 1.1;
  Result r = solve(jay_index2(), 0.0, 1.0, x0, "spark", o);
  EXPECT_EQ(r.status, Status::InconsistentInitialValues);
  EXPECT_NE(r.message.find("0 = g(t0, y0) is violated"), std::string::npos) << r.message;
  // inconsistent z0: the hidden constraint (2.1b)
  x0 = jay_index2_exact(0.0);
  x0[2] = 2.0;
  r = solve(jay_index2(), 0.0, 1.0, x0, "spark", o);
  EXPECT_EQ(r.status, Status::InconsistentInitialValues);
  EXPECT_NE(r.message.find("hidden constraint"), std::string::npos) << r.message;
  // g_y a_y^{-1} f_z singular at t0: y1' = y2 z, 0 = y1 with y2(0) = 0
  ImplicitIndex2Dae singular;
  singular.name = "singular at t0";
  singular.n = 2;
  singular.m = 1;
  singular.f[0] = [](double, VecIn, VecIn, VecOut out) { out << 0.0, 1.0; };
  singular.f[1] = [](double, VecIn y, VecIn z, VecOut out) { out << y[1] * z[0], 0.0; };
  singular.g = [](double, VecIn y, VecOut g) { g[0] = y[0]; };
  r = solve(singular, 0.0, 1.0, Vector::Zero(3), "spark", o);
  EXPECT_EQ(r.status, Status::InvalidInput);
  EXPECT_NE(r.message.find("is singular at t0"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("not of index 2"), std::string::npos) << r.message;
  // f_1 must not depend on z (2.4b)
  ImplicitIndex2Dae f1z = jay_index2();
  f1z.f[0] = [](double, VecIn y, VecIn z, VecOut out) { out << y[1] * z[0], -y[0] * y[0]; };
  f1z.f_y[0] = nullptr;
  r = solve(f1z, 0.0, 1.0, jay_index2_exact(0.0), "spark", o);
  EXPECT_EQ(r.status, Status::InvalidInput);
  EXPECT_NE(r.message.find("f_1 depends on z"), std::string::npos) << r.message;
  // a mass-matrix DAE that is not of Hessenberg index 2 is refused at t0 ...
  const BuiltinProblem rob = make_builtin_problem("robertson-dae");
  r = solve(rob.dae, rob.t0, 1.0, rob.y0, "spark", o);
  EXPECT_EQ(r.status, Status::InvalidInput);
  EXPECT_NE(r.message.find("depend on the algebraic variables"), std::string::npos) << r.message;
  // ... or before integrating when M has no algebraic part
  const BuiltinProblem vdp = make_builtin_problem("vanderpol");
  try {
    solve(vdp.dae, vdp.t0, 1.0, vdp.y0, "spark", o);
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("Hessenberg"), std::string::npos) << e.what();
  }
  // a callback that throws ends the solve with CallbackError naming it
  ImplicitIndex2Dae throwing = jay_index2();
  throwing.g = [](double t, VecIn y, VecOut g) {
    if (t > 0.5) throw std::runtime_error("boom");
    g[0] = y[0] * y[0] * y[1] - 1;
  };
  r = solve(throwing, 0.0, 1.0, jay_index2_exact(0.0), "spark", o);
  EXPECT_EQ(r.status, Status::CallbackError);
  EXPECT_NE(r.message.find("g"), std::string::npos) << r.message;
  // a wrong analytic Jacobian is caught at t0 (Options::check_jacobian)
  ImplicitIndex2Dae wrong = jay_index2();
  wrong.g_y = [](double, VecIn y, MatOut G) {
    G(0, 0) = y[0] * y[1];  // should be 2 y1 y2
    G(0, 1) = y[0] * y[0];
  };
  r = solve(wrong, 0.0, 1.0, jay_index2_exact(0.0), "spark", o);
  EXPECT_EQ(r.status, Status::InvalidInput);
  EXPECT_NE(r.message.find("disagrees with finite differences"), std::string::npos) << r.message;
  // wrong sizes and invalid options throw InvalidArgument
  EXPECT_THROW(solve(jay_index2(), 0.0, 1.0, Vector::Ones(2), "spark", o), InvalidArgument);
  SparkOptions bad;
  bad.stages = 1;
  EXPECT_THROW(solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), bad, o), InvalidArgument);
  EXPECT_THROW(solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), "radau5", o), InvalidArgument);
}

TEST(Spark, EventsOnTheKnifeEdgeWithSparkAndHem) {
  // x(t) = sin^2 t / 2 crosses 0.2 at asin(sqrt 0.4) (there the slope is halved: a restart with
  // new parameters, lambda made consistent again) and, without the change, 0.4 at
  // asin(sqrt 0.8) (terminal): event location on the dense output of both methods (measured:
  // spark 3e-8, hem 7e-10 off at rtol 1e-9)
  for (const char* method : {"spark", "hem"}) {
    Options o;
    o.rtol = o.atol = 1e-9;
    Event stop;
    stop.name = "x = 0.4";
    stop.r = [](double, VecIn x, VecIn) { return x[0] - 0.4; };
    stop.action = [](double, Vector&, Vector&) { return EventAction::Stop; };
    o.events = {stop};
    Result r = solve(knife_edge(false), 0.0, 3.0, knife_edge_exact(0.0), method, o);
    ASSERT_EQ(r.status, Status::TerminalEvent) << method << ": " << r.message;
    const double t_stop = std::asin(std::sqrt(0.8));
    std::printf("%-5s terminal event at t = %.12f (exact %.12f)\n", method, r.events[0].t, t_stop);
    EXPECT_NEAR(r.events[0].t, t_stop, 1e-7);

    Event slope;
    slope.name = "x = 0.2";
    slope.r = [](double, VecIn x, VecIn) { return x[0] - 0.2; };
    slope.direction = 1;
    slope.action = [](double, Vector&, Vector& p) {
      p[2] = 0.5;  // g sin(alpha) halved
      return EventAction::Restart;
    };
    o.events = {slope};
    r = solve(knife_edge(false), 0.0, 3.0, knife_edge_exact(0.0), method, o);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_NEAR(r.events[0].t, std::asin(std::sqrt(0.4)), 1e-7);
    // the restart projects y onto g = 0 (the dense output at the event is off by its error)
    const double g_end = -r.y[3] * std::sin(r.y[2]) + r.y[4] * std::cos(r.y[2]);
    EXPECT_LT(std::abs(g_end), 1e-9);
  }
}
