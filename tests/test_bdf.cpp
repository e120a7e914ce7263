// BDF (NOTES-004.md ch. 4): coefficients and zero stability, the implicit-Euler examples
// (4.1)/(4.2) of the notes, fixed-order constant-step convergence, and accuracy of the
// variable-order code.
#include <gtest/gtest.h>

#include <any>
#include <cmath>

#include "daekit/daekit.hpp"
#include "methods/factory.hpp"

using namespace daekit;

// claim: 004-4-bdf-coefficients
TEST(Bdf, CoefficientsOfChapter4) {
  const std::vector<std::vector<double>> table = {
      {1, -1},
      {3.0 / 2, -2, 1.0 / 2},
      {11.0 / 6, -3, 3.0 / 2, -1.0 / 3},
      {25.0 / 12, -4, 3, -4.0 / 3, 1.0 / 4},
      {137.0 / 60, -5, 5, -10.0 / 3, 5.0 / 4, -1.0 / 5},
      {49.0 / 20, -6, 15.0 / 2, -20.0 / 3, 15.0 / 4, -6.0 / 5, 1.0 / 6}};
  for (int k = 1; k <= 6; ++k) {
    const Vector a = bdf_coefficients(k);
    ASSERT_EQ(a.size(), k + 1);
    for (int i = 0; i <= k; ++i) EXPECT_NEAR(a[i], table[k - 1][i], 1e-14) << k << " " << i;
    EXPECT_NEAR(a.sum(), 0.0, 1e-13);  // consistency rho(1) = 0
  }
}

// claim: 004-4-bdf-zero-stable
TEST(Bdf, ZeroStableUpToOrderSix) {
  for (int k = 1; k <= 6; ++k) EXPECT_TRUE(zero_stable(bdf_coefficients(k))) << k;
  EXPECT_FALSE(zero_stable(bdf_coefficients(7)));
  Vector double_root(3);  // (zeta - 1)^2: not zero-stable
  double_root << 1, -2, 1;
  EXPECT_FALSE(zero_stable(double_root));
}

namespace {
// (4.1) of the notes: y1' = y2, y2' = y3, 0 = y1 - g(x) (index 3) as F(t, y, y') = 0.
ImplicitDae index3_chain(std::function<double(double)> g) {
  ImplicitDae d;
  d.n = 3;
  d.name = "notes (4.1)";
  d.differential = {true, true, false};
  d.F = [g](double t, VecIn y, VecIn yp, VecOut F) {
    F[0] = yp[0] - y[1];
    F[1] = yp[1] - y[2];
    F[2] = y[0] - g(t);
  };
  d.dF_dy = [](double, VecIn, VecIn, MatOut J) {
    J.setZero();
    J(0, 1) = -1;
    J(1, 2) = -1;
    J(2, 0) = 1;
  };
  d.dF_dyp = [](double, VecIn, VecIn, MatOut J) {
    J.setZero();
    J(0, 0) = 1;
    J(1, 1) = 1;
  };
  return d;
}
}  // namespace

// claim: 004-eq4.1-implicit-euler
TEST(Bdf, ImplicitEulerExample41) {
  // implicit Euler from the inconsistent (0.3, 5, -7), g = sin: errors of y2, y3 at x = 1
  const ImplicitDae d = index3_chain([](double t) { return std::sin(t); });
  const double expected[3][2] = {{0.0411, 0.0588}, {0.0208, 0.0282}, {0.0105, 0.0138}};
  int row = 0;
  double previous[2] = {0, 0};
  for (double h : {0.1, 0.05, 0.025}) {
    Vector y0(3), yp0 = Vector::Zero(3);
    y0 << 0.3, 5, -7;
    BdfOptions m;
    m.fixed_order = 1;
    Options o;
    o.fixed_step = true;
    o.h0 = h;
    o.check_consistency = false;
    o.rtol = o.atol = 1e-10;
    const Result r = solve(d, 0.0, 1.0, y0, yp0, m, o);
    ASSERT_TRUE(r.ok()) << r.message;
    const double e1 = std::abs(r.y[0] - std::sin(1.0));
    const double e2 = std::abs(r.y[1] - std::cos(1.0));
    const double e3 = std::abs(r.y[2] + std::sin(1.0));
    std::printf("h = %.3f: e1 %.1e e2 %.4f e3 %.4f\n", h, e1, e2, e3);
    EXPECT_LT(e1, 1e-9);  // y1 = g(x) up to the Newton tolerance
    EXPECT_NEAR(e2, expected[row][0], 6e-4);
    EXPECT_NEAR(e3, expected[row][1], 6e-4);
    if (row > 0) {  // first order: halving h halves the errors
      EXPECT_NEAR(previous[0] / e2, 2.0, 0.1);
      EXPECT_NEAR(previous[1] / e3, 2.0, 0.15);
    }
    previous[0] = e2;
    previous[1] = e3;
    ++row;
  }
}

// claim: 004-eq4.2-variable-step
TEST(Bdf, ImplicitEulerVariableStepExample42) {
  // g = x^2: after steps h_n, h_{n+1} the index-3 component is y3 = 1 + h_n / h_{n+1}
  const ImplicitDae d = index3_chain([](double t) { return t * t; });
  for (double ratio : {1.0, 0.1, 0.01, 0.001}) {
    BdfOptions m;
    m.fixed_order = 1;
    Vector y0(3), yp0(3);
    y0 << 0, 0, 2;
    yp0 << 0, 2, 0;
    // the method by itself (internal interface): three steps of chosen sizes
    CallGuard guard;
    Stats stats;
    const std::any options = m;
    MethodInput in;
    in.implicit_form = &d;
    in.yp0 = &yp0;
    in.options = &options;
    in.guard = &guard;
    in.stats = &stats;
    auto st = method_registration("bdf").make(in);
    Tolerances tol;
    tol.rtol = 1e-12;
    tol.atol = Vector::Constant(3, 1e-12);
    ErrorWeights w;
    w.setup(tol, std::vector<char>(3, 1));
    w.update(y0);
    std::string message;
    ASSERT_TRUE(st->start(0.0, y0, w, message)) << message;
    const double h = 0.1;
    for (double step : {h, h, ratio * h}) {
      const StepAttempt a = st->attempt(step);
      ASSERT_EQ(a.outcome, AttemptOutcome::Converged);
      ASSERT_TRUE(st->accept());
      w.update(st->y());
    }
    EXPECT_NEAR(st->y()[2], 1.0 + 1.0 / ratio, 1e-6 / ratio) << ratio;
  }
}

namespace {
// y1' = y2, 0 = y1 - g(x): index 2, the index-2 analogue of (4.1).
ImplicitDae index2_chain(std::function<double(double)> g) {
  ImplicitDae d;
  d.n = 2;
  d.name = "index-2 chain";
  d.differential = {true, false};
  d.F = [g](double t, VecIn y, VecIn yp, VecOut F) {
    F[0] = yp[0] - y[1];
    F[1] = y[0] - g(t);
  };
  return d;
}

// Implicit Euler (BDF1) through the method's own interface with the given steps; the state
// at the end.
Vector implicit_euler_steps(const ImplicitDae& d, const Vector& y0, const Vector& yp0,
                            const std::vector<double>& steps) {
  BdfOptions m;
  m.fixed_order = 1;
  CallGuard guard;
  Stats stats;
  const std::any options = m;
  MethodInput in;
  in.implicit_form = &d;
  in.yp0 = &yp0;
  in.options = &options;
  in.guard = &guard;
  in.stats = &stats;
  auto st = method_registration("bdf").make(in);
  Tolerances tol;
  tol.rtol = 1e-12;
  tol.atol = Vector::Constant(d.n, 1e-12);
  ErrorWeights w;
  w.setup(tol, std::vector<char>(static_cast<size_t>(d.n), 1));
  w.update(y0);
  std::string message;
  EXPECT_TRUE(st->start(0.0, y0, w, message)) << message;
  for (double h : steps) {
    const StepAttempt a = st->attempt(h);
    EXPECT_EQ(a.outcome, AttemptOutcome::Converged);
    EXPECT_TRUE(st->accept());
    w.update(st->y());
  }
  return st->y();
}
}  // namespace

// Ch. 4 (Brenan-Campbell-Petzold): at variable steps BDF k is O(h_max^q), q = min(k, k - nu + 2).
// Checked for k = 1 with steps alternating h, h/10 (ratio 0.1, then 10) up to x = 0.44:
// index 2, q = 1: the error of y2 falls like h_max; index 3, q = 0: the error of y3 does not
// fall at all (O(1): y3 ~ (1 + h_n / h_(n+1)) g''/2 after a step shrinks by 10).
// claim: 004-4-variable-step-order
TEST(Bdf, VariableStepOrderIsMinOfKAndKMinusIndexPlusTwo) {
  auto g = [](double t) { return std::sin(t + 0.5); };
  double e2[3], e3[3];
  int i = 0;
  for (double h : {0.1, 0.01, 0.001}) {
    std::vector<double> steps;
    const int pairs = static_cast<int>(std::lround(0.4 / h));  // to x = 0.44 every time
    for (int j = 0; j < pairs; ++j) {
      steps.push_back(h);
      steps.push_back(h / 10);
    }
    double x = 0;
    for (double s : steps) x += s;
    Vector y0(2), yp0(2);
    y0 << g(0), std::cos(0.5);
    yp0 << std::cos(0.5), -std::sin(0.5);
    e2[i] = std::abs(implicit_euler_steps(index2_chain(g), y0, yp0, steps)[1] - std::cos(x + 0.5));
    Vector z0(3), zp0(3);
    z0 << g(0), std::cos(0.5), -std::sin(0.5);
    zp0 << std::cos(0.5), -std::sin(0.5), -std::cos(0.5);
    e3[i] = std::abs(implicit_euler_steps(index3_chain(g), z0, zp0, steps)[2] + std::sin(x + 0.5));
    std::printf("h_max %.0e: index 2 error of y2 %.3e, index 3 error of y3 %.3e\n", h, e2[i],
                e3[i]);
    ++i;
  }
  for (int j = 1; j < 3; ++j) {
    EXPECT_NEAR(std::log10(e2[j - 1] / e2[j]), 1.0, 0.15);  // q = 1
    EXPECT_GT(e3[j], 0.5 * e3[j - 1]);                      // q = 0: no convergence
  }
  EXPECT_GT(e3[2], 1.0);
}

namespace {
// Smooth index-1 test: y' = -y + z, 0 = z - sin t; y = (sin t - cos t + e^{-t}) / 2.
ImplicitDae smooth_index1() {
  ImplicitDae d;
  d.n = 2;
  d.name = "smooth index 1";
  d.differential = {true, false};
  d.F = [](double t, VecIn y, VecIn yp, VecOut F) {
    F[0] = yp[0] + y[0] - y[1];
    F[1] = y[1] - std::sin(t);
  };
  return d;
}
Vector smooth_exact(double t) {
  Vector y(2);
  y << 0.5 * (std::sin(t) - std::cos(t) + std::exp(-t)), std::sin(t);
  return y;
}
Vector smooth_exact_derivative(double t) {
  Vector yp(2);
  yp << 0.5 * (std::cos(t) + std::sin(t) - std::exp(-t)), std::cos(t);
  return yp;
}
}  // namespace

// y1' = -y1 + sin t (z = sin t): BDF k of order k, implicit Euler (k = 1) of order 1.
// claim: 004-4.1.1-implicit-euler
TEST(Bdf, FixedOrderConstantStepConvergence) {
  const ImplicitDae d = smooth_index1();
  const double T = 2.0;
  for (int k = 1; k <= 5; ++k) {
    std::vector<double> err;
    for (int steps : {40, 80, 160}) {
      BdfOptions m;
      m.fixed_order = k;
      m.exact_history = smooth_exact;
      Options o;
      o.fixed_step = true;
      o.h0 = T / steps;
      o.rtol = o.atol = 1e-13;
      o.store_steps = false;
      const Result r = solve(d, 0.0, T, smooth_exact(0), smooth_exact_derivative(0), m, o);
      ASSERT_TRUE(r.ok()) << r.message;
      err.push_back((r.y - smooth_exact(T)).cwiseAbs().maxCoeff());
    }
    const double order = std::log2(err[1] / err[2]);
    std::printf("BDF%d: errors %.2e %.2e %.2e, observed order %.2f\n", k, err[0], err[1], err[2],
                order);
    EXPECT_NEAR(order, k, 0.3) << "k = " << k;
  }
}

TEST(Bdf, AccuracyGrowsWithToleranceOnStiffProblems) {
  for (const char* name : {"vanderpol", "robertson"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    double previous = -1;
    for (double tol : {1e-4, 1e-6, 1e-8}) {
      Options o;
      o.rtol = tol;
      o.atol = tol * (std::string(name) == "robertson" ? 1e-6 : 1.0);
      o.store_steps = false;
      const Result r = solve(p.dae, p.t0, p.t_end, p.y0, BdfOptions{}, o);
      ASSERT_TRUE(r.ok()) << name << ": " << r.message;
      const double digits = scd(r.y, p.reference->y, p.scd_components);
      std::printf("bdf %-10s tol %.0e: scd %.2f, steps %ld, nfev %ld, njac %ld\n", name, tol,
                  digits, r.stats.naccept, r.stats.nfev, r.stats.njac);
      EXPECT_GT(digits, previous + 0.5);
      EXPECT_GT(digits, 2.0);
      previous = digits;
    }
  }
}

TEST(Bdf, DenseOutputOfYAndConsistencyCheck) {
  const ImplicitDae d = smooth_index1();
  Options o;
  o.rtol = o.atol = 1e-9;
  for (int i = 1; i < 20; ++i) o.output_times.push_back(0.1 * i);
  const Result r = solve(d, 0.0, 2.0, smooth_exact(0), smooth_exact_derivative(0), BdfOptions{}, o);
  ASSERT_TRUE(r.ok()) << r.message;
  for (size_t i = 0; i < r.t_out.size(); ++i)
    EXPECT_LT((r.y_out[i] - smooth_exact(r.t_out[i])).cwiseAbs().maxCoeff(), 1e-6);
  Vector bad = smooth_exact(0);
  bad[1] = 0.5;  // violates 0 = z - sin t
  const Result inconsistent =
      solve(d, 0.0, 2.0, bad, smooth_exact_derivative(0), BdfOptions{}, Options{});
  EXPECT_EQ(inconsistent.status, Status::InconsistentInitialValues);
  EXPECT_NE(inconsistent.message.find("residual"), std::string::npos) << inconsistent.message;
}

TEST(Bdf, BadOptions) {
  const ImplicitDae d = smooth_index1();
  BdfOptions m;
  m.max_order = 6;
  const Vector y0 = smooth_exact(0), yp0 = smooth_exact_derivative(0);
  EXPECT_THROW(solve(d, 0.0, 1.0, y0, yp0, m), InvalidArgument);
  EXPECT_THROW(solve(d, 0.0, 1.0, y0, Vector::Zero(3), BdfOptions{}), InvalidArgument);
}
