// Forward sensitivities S = dy/dp (Options::sensitivities; radau5 and radau,
// methods/irk_sensitivities.hpp) against differences of whole solves, on the built-in problems
// with parameters (robertson, akzo, transistor, andrews at index 3 w.r.t. its drive torque,
// the index-3 pendulum w.r.t. gravity), and the front end's refusals.
//
// The reference dy(t)/dp_k: central differences of whole solves at tolerance 1e-12 with
// Richardson extrapolation, D = (4 D(delta) - D(2 delta)) / 3, delta = 1e-3 |p_k|: the
// extrapolation removes the delta^2 term (what is left, delta^4 ~ 1e-12, is far below the
// comparison), and a step that large keeps the solves' own error (rtol' = 1e-9 on the DAEs,
// radau5's floor) divided by delta at 1e-6 at worst.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "allocation_counter.hpp"
#include "daekit/daekit.hpp"

using namespace daekit;

struct SensitivityCase {
  std::string problem;
  double t_end;
  std::vector<int> components;  // compared (empty: all); index-3 ones are less accurate by design
};

// gtest's name of a case (instead of its bytes)
void PrintTo(const SensitivityCase& c, std::ostream* os) { *os << c.problem << " to " << c.t_end; }

namespace {

Options sensitivity_case_options(const BuiltinProblem& p, double tol) {
  Options o;
  o.rtol = tol;
  o.atol = tol * (p.atol / p.rtol);
  if (p.atol_scale.size() != 0) o.atol_vector = o.atol * p.atol_scale;
  o.h0 = p.h0;
  o.store_steps = false;
  return o;
}

// y(t_end) of the problem with parameters q at tolerance tol.
Vector whole_solve_end(const BuiltinProblem& base, const Vector& q, double t_end,
                       const std::string& method, double tol) {
  const BuiltinProblem p = with_parameters(base, q);
  const Result r = solve(p.dae, p.t0, t_end, p.y0, method, sensitivity_case_options(p, tol));
  EXPECT_TRUE(r.ok()) << p.name << " with perturbed p: " << r.message;
  return r.y;
}

// The Richardson-extrapolated central differences of whole solves (see the file's header).
// (radau5's whole solves for every method: the variable-order radau stops at rtol' = 1e-8 on a
// DAE, radau5 at 1e-9.)
Matrix whole_solve_sensitivities(const BuiltinProblem& p, double t_end) {
  const std::string method = "radau5";
  const Vector& p0 = p.dae.p;
  Matrix D(p.y0.size(), p0.size());
  for (Eigen::Index k = 0; k < p0.size(); ++k) {
    const double delta = 1e-3 * std::abs(p0[k]);
    Vector central[2];
    for (int m = 1; m <= 2; ++m) {
      Vector q = p0;
      q[k] = p0[k] + m * delta;
      const Vector plus = whole_solve_end(p, q, t_end, method, 1e-12);
      q[k] = p0[k] - m * delta;
      const Vector minus = whole_solve_end(p, q, t_end, method, 1e-12);
      central[m - 1] = (plus - minus) / (2.0 * m * delta);
    }
    D.col(k) = (4.0 * central[0] - central[1]) / 3.0;
  }
  return D;
}

// max over the compared components of |S_ik - D_ik|, relative to the column's largest |D_ik|.
double relative_disagreement(const Matrix& S, const Matrix& D, const std::vector<int>& rows) {
  double worst = 0.0;
  for (Eigen::Index k = 0; k < D.cols(); ++k) {
    double scale = 0.0, diff = 0.0;
    for (Eigen::Index i = 0; i < D.rows(); ++i) {
      if (!rows.empty() && std::find(rows.begin(), rows.end(), i) == rows.end()) continue;
      scale = std::max(scale, std::abs(D(i, k)));
      diff = std::max(diff, std::abs(S(i, k) - D(i, k)));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

Result solve_with_sensitivities(const BuiltinProblem& p, double t_end, const std::string& method,
                                double tol, bool error_control = false) {
  Options o = sensitivity_case_options(p, tol);
  o.sensitivities = true;
  o.sensitivity_error_control = error_control;
  o.initial_sensitivities = initial_sensitivities(p);
  return solve(p.dae, p.t0, t_end, p.y0, method, o);
}

std::string sensitivity_case_label(
    const ::testing::TestParamInfo<std::tuple<std::string, SensitivityCase>>& info) {
  std::string s = std::get<0>(info.param) + "_" + std::get<1>(info.param).problem;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

const std::vector<SensitivityCase>& sensitivity_cases() {
  static const std::vector<SensitivityCase> cases = {
      {"robertson", 40.0, {}},
      {"akzo", 180.0, {}},
      {"transistor", 0.05, {}},
      {"andrews", 0.03, {0, 1, 2, 3, 4, 5, 6}},  // the angles (index 1)
      {"pendulum", 5.0, {0, 1, 2, 3}},           // positions and velocities
  };
  return cases;
}

// The BDF takes index 1 and 2 (the pendulum in its index-2 form, w.r.t. gravity).
const std::vector<SensitivityCase>& bdf_sensitivity_cases() {
  static const std::vector<SensitivityCase> cases = {
      {"robertson", 40.0, {}},
      {"akzo", 180.0, {}},
      {"transistor", 0.05, {}},
      {"pendulum-index2", 5.0, {0, 1, 2, 3}},
  };
  return cases;
}

}  // namespace

class SensitivityAgreement
    : public ::testing::TestWithParam<std::tuple<std::string, SensitivityCase>> {};

// The acceptance of issue 25 for the Radau methods: S(t_end) at tolerance 1e-8 agrees with the
// whole-solve differences to 1e-5 relative.
TEST_P(SensitivityAgreement, MatchesDifferencesOfWholeSolves) {
  const std::string method = std::get<0>(GetParam());
  const SensitivityCase& c = std::get<1>(GetParam());
  const BuiltinProblem p = make_builtin_problem(c.problem);
  ASSERT_GT(p.dae.p.size(), 0) << c.problem << " has no parameters";
  const Result r = solve_with_sensitivities(p, c.t_end, method, 1e-8);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.n_parameters, p.dae.p.size());
  ASSERT_EQ(r.sensitivities.rows(), p.dae.n);
  const Matrix D = whole_solve_sensitivities(p, c.t_end);
  const double rel = relative_disagreement(r.sensitivities, D, c.components);
  EXPECT_LT(rel, 1e-5) << c.problem << " (" << method << "): S =\n"
                       << r.sensitivities << "\nwhole-solve differences =\n"
                       << D;
  RecordProperty("relative_disagreement", std::to_string(rel));
  std::printf("[sensitivities] %s %s: relative disagreement %.2e\n", method.c_str(),
              c.problem.c_str(), rel);
}

INSTANTIATE_TEST_SUITE_P(RadauMethods, SensitivityAgreement,
                         ::testing::Combine(::testing::Values("radau5", "radau"),
                                            ::testing::ValuesIn(sensitivity_cases())),
                         sensitivity_case_label);
INSTANTIATE_TEST_SUITE_P(Bdf, SensitivityAgreement,
                         ::testing::Combine(::testing::Values("bdf"),
                                            ::testing::ValuesIn(bdf_sensitivity_cases())),
                         sensitivity_case_label);

// F(t, y, y', p) = 0 (the BDF): Robertson written as y' - f(y, p) = 0 gives the S of its
// mass-matrix form (radau5) to the methods' accuracy.
TEST(Sensitivities, ImplicitFormWithTheBdf) {
  const BuiltinProblem p = make_builtin_problem("robertson");
  ImplicitDae d;
  d.name = "robertson as F = y' - f";
  d.n = 3;
  d.p = p.dae.p;
  const auto f = p.dae.f;
  d.F = [f](double t, VecIn y, VecIn yp, VecOut F, VecIn k) {
    f(t, y, F, k);
    F = yp - F;
  };
  Options o = sensitivity_case_options(p, 1e-8);
  o.sensitivities = true;
  Vector yp0(3);
  f(0.0, p.y0, yp0, p.dae.p);
  const Result implicit = solve(d, 0.0, 40.0, p.y0, yp0, "bdf", o);
  ASSERT_TRUE(implicit.ok()) << implicit.message;
  const Result mass = solve_with_sensitivities(p, 40.0, "radau5", 1e-8);
  ASSERT_TRUE(mass.ok()) << mass.message;
  const double rel = relative_disagreement(implicit.sensitivities, mass.sensitivities, {});
  EXPECT_LT(rel, 1e-5) << implicit.sensitivities << "\n" << mass.sensitivities;
  std::printf("[sensitivities] bdf robertson as F(t, y, y', p) = 0 against radau5: %.2e\n", rel);
}

namespace {

// y' = -p0 y + p1, y(0) = 1: S = (dy/dp0, dy/dp1) in closed form.
MassMatrixDae linear_relaxation_problem() {
  MassMatrixDae d;
  d.name = "linear relaxation";
  d.n = 1;
  d.p = Vector(2);
  d.p << 2.0, 3.0;
  d.f = [](double, VecIn y, VecOut f, VecIn p) { f[0] = -p[0] * y[0] + p[1]; };
  return d;
}
Vector linear_relaxation_exact(double t, double a, double b) {
  // y = b/a + (1 - b/a) e^{-a t}
  const double e = std::exp(-a * t), c = b / a;
  Vector s(2);
  s[0] = -b / (a * a) + (b / (a * a)) * e - (1.0 - c) * t * e;  // dy/da
  s[1] = (1.0 - e) / a;                                         // dy/db
  return s;
}

}  // namespace

// The request is refused with a clear message where it cannot be met (InvalidArgument before
// integrating): a method without the capability, a problem without p, S0 of the wrong size.
TEST(Sensitivities, RefusedWhereTheyCannotBeComputed) {
  const MassMatrixDae d = linear_relaxation_problem();
  Options o;
  o.sensitivities = true;
  try {
    solve(d, 0.0, 1.0, Vector::Ones(1), "dirk", o);
    FAIL() << "dirk accepted a sensitivity request";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("does not compute sensitivities"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("radau5"), std::string::npos) << e.what();
  }
  MassMatrixDae no_p = d;
  no_p.p.resize(0);
  no_p.f = [](double, VecIn y, VecOut f) { f[0] = -y[0]; };
  EXPECT_THROW(solve(no_p, 0.0, 1.0, Vector::Ones(1), "radau5", o), InvalidArgument);
  o.initial_sensitivities = Matrix::Zero(1, 3);
  EXPECT_THROW(solve(d, 0.0, 1.0, Vector::Ones(1), "radau5", o), InvalidArgument);
}

// Without the request nothing changes: no sensitivities in the result, and the same steps.
TEST(Sensitivities, OffByDefaultAndTheStateUnchangedByThem) {
  const MassMatrixDae d = linear_relaxation_problem();
  Options o;
  o.rtol = o.atol = 1e-8;
  const Result plain = solve(d, 0.0, 2.0, Vector::Ones(1), "radau5", o);
  EXPECT_EQ(plain.n_parameters, 0);
  EXPECT_EQ(plain.sensitivities.size(), 0);
  o.sensitivities = true;
  const Result with = solve(d, 0.0, 2.0, Vector::Ones(1), "radau5", o);
  ASSERT_TRUE(with.ok()) << with.message;
  EXPECT_EQ(with.y, plain.y);  // staggered: the state's steps are the same, bit for bit
  EXPECT_EQ(with.t_steps, plain.t_steps);
}

// Dense output of S at output times and S at the stored steps against the closed form.
TEST(Sensitivities, DenseOutputAndStepsMatchTheClosedForm) {
  const MassMatrixDae d = linear_relaxation_problem();
  for (const char* method : {"radau5", "radau"}) {
    Options o;
    o.rtol = o.atol = 1e-10;
    o.sensitivities = true;
    o.output_times = {0.0, 0.013, 0.37, 1.1, 2.9, 3.0};
    const Result r = solve(d, 0.0, 3.0, Vector::Ones(1), method, o);
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(r.s_out.size(), static_cast<long>(r.t_out.size()));
    ASSERT_EQ(r.s_steps.size(), static_cast<long>(r.t_steps.size()));
    for (long i = 0; i < r.s_out.size(); ++i) {
      const Vector exact = linear_relaxation_exact(r.t_out[i], 2.0, 3.0);
      const Matrix S = r.sensitivity_out(i);
      EXPECT_NEAR(S(0, 0), exact[0], 1e-7) << method << " at t = " << r.t_out[i];
      EXPECT_NEAR(S(0, 1), exact[1], 1e-7) << method << " at t = " << r.t_out[i];
    }
    for (long i = 0; i < r.s_steps.size(); ++i) {
      const Vector exact = linear_relaxation_exact(r.t_steps[i], 2.0, 3.0);
      EXPECT_NEAR(r.sensitivity_step(i)(0, 0), exact[0], 1e-8) << method;
    }
    EXPECT_EQ(r.sensitivities, r.sensitivity_step(r.s_steps.size() - 1));
  }
}

// The fixed point of the sensitivity iteration is the exact derivative of the discrete steps:
// at constant steps (the same steps for every p) central differences of whole solves in p
// agree with S to the differences' own error, far below the discretisation error. Stage
// Jacobians taken at y_n instead of at the stages would leave an O(h) error per step here.
TEST(Sensitivities, AreTheDerivativeOfTheDiscreteStepsAtConstantSteps) {
  const BuiltinProblem p = make_builtin_problem("akzo");
  Options o;
  o.fixed_step = true;
  o.h0 = 0.01;
  o.store_steps = false;
  o.rtol = o.atol = 1e-10;
  o.initial_sensitivities = initial_sensitivities(p);
  const double t_end = 2.0;
  o.sensitivities = true;
  const Result r = solve(p.dae, 0.0, t_end, p.y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  o.sensitivities = false;
  for (int k = 0; k < 5; ++k) {
    const double delta = 1e-5 * p.dae.p[k];
    Vector q = p.dae.p;
    q[k] += delta;
    const BuiltinProblem plus_p = with_parameters(p, q);
    const Vector plus = solve(plus_p.dae, 0.0, t_end, plus_p.y0, "radau5", o).y;
    q[k] -= 2 * delta;
    const BuiltinProblem minus_p = with_parameters(p, q);
    const Vector minus = solve(minus_p.dae, 0.0, t_end, minus_p.y0, "radau5", o).y;
    const Vector D = (plus - minus) / (2 * delta);
    EXPECT_LT((r.sensitivities.col(k) - D).cwiseAbs().maxCoeff(), 1e-7 * D.cwiseAbs().maxCoeff())
        << "k = " << k << ": S = " << r.sensitivities.col(k).transpose()
        << ", D = " << D.transpose();
  }
}

// The stage iteration converges as the state's simplified Newton iteration does: a few
// iterations per parameter and step.
TEST(Sensitivities, StageIterationConvergesInFewIterations) {
  const BuiltinProblem p = make_builtin_problem("akzo");
  const Result r = solve_with_sensitivities(p, p.t_end, "radau5", 1e-8);
  ASSERT_TRUE(r.ok()) << r.message;
  const double per_step = static_cast<double>(r.sensitivity_iterations) /
                          (static_cast<double>(r.stats.naccept + r.stats.nreject) * 5);
  EXPECT_GT(per_step, 1.0);
  EXPECT_LT(per_step, 6.0) << r.sensitivity_iterations << " iterations";
}

// Consistent initial sensitivities from S0 = 0: akzo (index 1, y6 = Ks y1 y4: dy6/dKs = y1 y4
// from the linearised algebraic equation) against differences of with_parameters' y0, and the
// index-3 pendulum started at an angle phi (lambda = g cos(phi) / 2 from the hidden
// constraint at acceleration level: dlambda/dg = cos(phi) / 2).
TEST(Sensitivities, InitialSensitivitiesAreConsistent) {
  const BuiltinProblem akzo = make_builtin_problem("akzo");
  Options o = sensitivity_case_options(akzo, 1e-8);
  o.sensitivities = true;
  o.output_times = {akzo.t0};
  const Result r = solve(akzo.dae, akzo.t0, 1e-3, akzo.y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  const Matrix D = initial_sensitivities(akzo);
  EXPECT_LT((r.sensitivity_out(0) - D).cwiseAbs().maxCoeff(), 1e-6 * D.cwiseAbs().maxCoeff())
      << "S0 =\n"
      << r.sensitivity_out(0) << "\ndifferences =\n"
      << D;

  const BuiltinProblem pend = make_builtin_problem("pendulum");
  const double phi = 0.7;
  Vector y0(5);
  y0 << std::sin(phi), -std::cos(phi), 0.0, 0.0, 0.5 * std::cos(phi);
  Options po;
  po.sensitivities = true;
  po.output_times = {0.0};
  const Result rp = solve(pend.dae, 0.0, 0.1, y0, "radau5", po);
  ASSERT_TRUE(rp.ok()) << rp.message;
  EXPECT_TRUE(rp.warnings.empty()) << rp.warnings.front();
  const Matrix S0 = rp.sensitivity_out(0);
  // (the hidden constraint is differenced: about 1e-5 relative)
  EXPECT_NEAR(S0(4, 0), 0.5 * std::cos(phi), 1e-5 * 0.5 * std::cos(phi));
  EXPECT_EQ(S0.topRows(4).cwiseAbs().maxCoeff(), 0.0);  // the differential part as given
}

// Andrews' squeezer: its consistent initialization does not reach the round-off level of its
// differenced hidden constraints, so S0's algebraic part cannot be differenced: a warning when
// S0 is not given; none when the given S0 (the built-in problem's, exact) satisfies the
// linearised algebraic equations; S(t_end) the same either way (Radau does not read it).
TEST(Sensitivities, AlgebraicPartOfAGivenInitialSensitivityIsChecked) {
  const BuiltinProblem p = make_builtin_problem("andrews");
  Options o = sensitivity_case_options(p, 1e-7);
  o.sensitivities = true;
  const Result without = solve(p.dae, p.t0, 0.003, p.y0, "radau5", o);
  ASSERT_TRUE(without.ok()) << without.message;
  ASSERT_FALSE(without.warnings.empty());
  EXPECT_NE(without.warnings.back().find("initial sensitivities"), std::string::npos);
  o.initial_sensitivities = initial_sensitivities(p);
  const Result with = solve(p.dae, p.t0, 0.003, p.y0, "radau5", o);
  ASSERT_TRUE(with.ok()) << with.message;
  for (const std::string& w : with.warnings)
    EXPECT_EQ(w.find("initial sensitivities"), std::string::npos) << w;
  EXPECT_LT((with.sensitivities - without.sensitivities).cwiseAbs().maxCoeff(),
            1e-9 * with.sensitivities.cwiseAbs().maxCoeff());
}

// Error control of the sensitivities (IDAS's errconS): more steps, S more accurate.
TEST(Sensitivities, ErrorControlOfSensitivitiesTakesMoreSteps) {
  const BuiltinProblem p = make_builtin_problem("akzo");
  const Result off = solve_with_sensitivities(p, p.t_end, "radau5", 1e-4, false);
  const Result on = solve_with_sensitivities(p, p.t_end, "radau5", 1e-4, true);
  ASSERT_TRUE(off.ok()) << off.message;
  ASSERT_TRUE(on.ok()) << on.message;
  EXPECT_GT(on.stats.naccept, off.stats.naccept);
  const Result tight = solve_with_sensitivities(p, p.t_end, "radau5", 1e-10, false);
  const double err_off = relative_disagreement(off.sensitivities, tight.sensitivities, {});
  const double err_on = relative_disagreement(on.sensitivities, tight.sensitivities, {});
  EXPECT_LT(err_on, err_off) << "off " << err_off << ", on " << err_on;
  std::printf(
      "[sensitivities] akzo at 1e-4: %ld steps, error of S %.2e without error control; "
      "%ld steps, %.2e with\n",
      off.stats.naccept, err_off, on.stats.naccept, err_on);
}

// Robertson's rate constants k = (0.04, 1e4, 3e7) differenced in p with increments relative
// to |p_k| (MassMatrixSystem::parameter_typical): under the sensitivities' error control the
// steps are those of the analytic df/dp. With the state's increment rule, sqrt(eps |k3|) is
// 3e-12 relative, df/dk3 came out 1e-5 accurate and noisy, and the estimate of S sat at a floor
// that did not shrink with h: radau5 took 9045 steps against 82 (bdf 6928 against 145). At
// rtol = 1e-8 the forward differences' own noise (1e-8 of df/dp) was the floor: df/dp is
// differenced centrally under the error control (radau5: 84 000 steps to t = 6.6, now 748).
TEST(Sensitivities, ErrorControlOnRobertsonTakesTheStepsOfTheAnalyticDfDp) {
  const BuiltinProblem p = make_builtin_problem("robertson");
  MassMatrixDae analytic = p.dae;
  analytic.parameter_jacobian = [](double, VecIn y, Matrix& Jp) {
    Jp.setZero();
    Jp(0, 0) = -y[0];
    Jp(1, 0) = y[0];
    Jp(0, 1) = y[1] * y[2];
    Jp(1, 1) = -y[1] * y[2];
    Jp(1, 2) = -y[1] * y[1];
    Jp(2, 2) = y[1] * y[1];
  };
  MassMatrixDae differenced = p.dae;
  differenced.parameter_jacobian = nullptr;
  for (const char* method : {"radau5", "bdf"})
    for (double rtol : {1e-4, 1e-8}) {
      Options o;
      o.rtol = rtol;
      o.atol = 1e-6 * rtol;
      o.sensitivities = o.sensitivity_error_control = true;
      o.max_steps = 20000;
      const Result a = solve(analytic, p.t0, 40.0, p.y0, method, o);
      const Result d = solve(differenced, p.t0, 40.0, p.y0, method, o);
      ASSERT_TRUE(a.ok() && d.ok()) << method << " at " << rtol << ": " << a.message << d.message;
      std::printf(
          "[sensitivities] %s robertson, errconS at %g: %ld steps (df/dp differenced), "
          "%ld (analytic)\n",
          method, rtol, d.stats.naccept, a.stats.naccept);
      EXPECT_LT(d.stats.naccept, 1.3 * a.stats.naccept) << method << " at " << rtol;
    }
}

// The same for the BDF (its sensitivities' error joins the error test and the estimate its
// step size follows), on y' = -a y + sin(b t): more steps, S more accurate.
TEST(Sensitivities, ErrorControlOfSensitivitiesWithTheBdf) {
  MassMatrixDae d;
  d.name = "forced relaxation";
  d.n = 1;
  d.p = Vector(2);
  d.p << 2.0, 3.0;
  d.f = [](double t, VecIn y, VecOut f, VecIn p) { f[0] = -p[0] * y[0] + std::sin(p[1] * t); };
  Options o;
  o.rtol = 1e-4;
  o.atol = 1e-6;
  o.sensitivities = true;
  const Result off = solve(d, 0.0, 10.0, Vector::Ones(1), "bdf", o);
  o.sensitivity_error_control = true;
  const Result on = solve(d, 0.0, 10.0, Vector::Ones(1), "bdf", o);
  ASSERT_TRUE(off.ok()) << off.message;
  ASSERT_TRUE(on.ok()) << on.message;
  EXPECT_GT(on.stats.naccept, off.stats.naccept);
  Options tight;
  tight.rtol = 1e-11;
  tight.atol = 1e-12;
  tight.sensitivities = true;
  const Result ref = solve(d, 0.0, 10.0, Vector::Ones(1), "radau5", tight);
  const double err_off = relative_disagreement(off.sensitivities, ref.sensitivities, {});
  const double err_on = relative_disagreement(on.sensitivities, ref.sensitivities, {});
  EXPECT_LT(err_on, err_off) << "off " << err_off << ", on " << err_on;
  std::printf(
      "[sensitivities] bdf, y' = -a y + sin(b t) at 1e-4: %ld steps, error of S %.2e without "
      "error control; %ld steps, %.2e with\n",
      off.stats.naccept, err_off, on.stats.naccept, err_on);
}

// The step loop stays allocation-free with sensitivities (index 1 with differenced df/dp and an
// analytic Jacobian; index 3 with the second-order elimination of Andrews' squeezer).
TEST(Sensitivities, StepLoopAllocatesNothing) {
  if (daekit_testing::heap_allocations() < 0)
    GTEST_SKIP() << "allocation counting unavailable in this build (sanitizers)";
  for (const auto& [name, method] : std::vector<std::pair<std::string, std::string>>{
           {"akzo", "radau5"}, {"akzo", "radau"}, {"akzo", "bdf"}, {"andrews", "radau5"}}) {
    const BuiltinProblem p = make_builtin_problem(name);
    Options o = sensitivity_case_options(p, 1e-7);
    o.sensitivities = true;
    o.sensitivity_error_control = true;
    o.initial_sensitivities = initial_sensitivities(p);
    daekit_testing::StepAllocations alloc;
    alloc.watch(o);
    const Result r = solve(p.dae, p.t0, name == "andrews" ? 0.01 : 20.0, p.y0, method, o);
    ASSERT_TRUE(r.ok()) << name << " " << method << ": " << r.message;
    EXPECT_GT(alloc.steps, 10);
    EXPECT_EQ(alloc.during(), 0) << name << " " << method << ": " << alloc.during()
                                 << " allocations in " << alloc.steps << " steps";
  }
}

// MassMatrixDae::parameter_jacobian (the analytic df/dp) replaces the differences in p: the
// same S as with differences (to their error) and the closed form, no evaluations of f for
// df/dp (nfev_jac drops by np per stage), with radau5, radau and the BDF; a wrong size ends
// the solve with a callback error, a NaN as a NaN of f does; both messages name the callback.
TEST(Sensitivities, AnalyticParameterJacobianReplacesTheDifferences) {
  MassMatrixDae d = linear_relaxation_problem();
  MassMatrixDae analytic = d;
  long calls = 0;
  analytic.parameter_jacobian = [&calls](double, VecIn y, Matrix& out, VecIn) {
    ++calls;
    out(0, 0) = -y[0];  // d(-a y + b)/da
    out(0, 1) = 1.0;    // d/db
  };
  for (const char* method : {"radau5", "radau", "bdf"}) {
    Options o;
    o.rtol = o.atol = 1e-10;
    o.sensitivities = true;
    calls = 0;
    const Result fd = solve(d, 0.0, 2.0, Vector::Ones(1), method, o);
    const Result an = solve(analytic, 0.0, 2.0, Vector::Ones(1), method, o);
    ASSERT_TRUE(fd.ok() && an.ok()) << method << ": " << fd.message << an.message;
    EXPECT_GT(calls, an.stats.naccept) << method;
    EXPECT_EQ(an.t_steps, fd.t_steps) << method;  // the state's steps are the same
    const Vector exact = linear_relaxation_exact(2.0, 2.0, 3.0);
    EXPECT_LT((an.sensitivities.row(0).transpose() - exact).cwiseAbs().maxCoeff(), 1e-8) << method;
    EXPECT_LT((an.sensitivities - fd.sensitivities).cwiseAbs().maxCoeff(), 1e-7) << method;
    EXPECT_LT(an.stats.nfev_jac, fd.stats.nfev_jac) << method;
  }
  MassMatrixDae wrong_size = d;
  wrong_size.parameter_jacobian = [](double, VecIn, Matrix& out, VecIn) { out.resize(1, 3); };
  MassMatrixDae not_finite = d;
  not_finite.parameter_jacobian = [](double, VecIn, Matrix& out, VecIn) { out(0, 1) = NAN; };
  for (const auto& [bad, status] : {std::pair{&wrong_size, Status::CallbackError},
                                    std::pair{&not_finite, Status::NonFiniteFunction}}) {
    Options o;
    o.sensitivities = true;
    const Result r = solve(*bad, 0.0, 1.0, Vector::Ones(1), "radau5", o);
    EXPECT_EQ(r.status, status) << r.message;
    EXPECT_NE(r.message.find("parameter_jacobian"), std::string::npos) << r.message;
  }
}

// ----------------------------------------------------------------------------------------------
// Sensitivities of event times: a ball falling from h0 = 10 (y = [height, velocity],
// y' = [v, -g]) crosses the level H at t* = sqrt(2 (h0 - H) / g), so dt*/dg = -t* / (2 g) and
// dt*/dH = -1 / (g t*); p = [g, H], the event r = y0 - H reads H from p. A level crossed on
// the way (no action) and the ground (terminal); an action that changes the state ends the
// solve naming the jump of dy/dp it would need.
namespace {
MassMatrixDae event_sens_ball() {
  MassMatrixDae d;
  d.name = "falling ball with parameters";
  d.n = 2;
  d.f = [](double, VecIn y, VecOut out, VecIn p) {
    out[0] = y[1];
    out[1] = -p[0];
  };
  d.p = Vector(2);
  d.p << 9.81, 4.0;
  return d;
}
Event event_sens_level(bool terminal) {
  Event e;
  e.name = terminal ? "ground" : "level";
  if (terminal) {
    e.r = [](double, VecIn y, VecIn) { return y[0]; };
    e.action = [](double, Vector&) { return EventAction::Stop; };
  } else {
    e.r = [](double, VecIn y, VecIn, VecIn p) { return y[0] - p[1]; };
  }
  return e;
}
}  // namespace

TEST(EventTimeSensitivities, FallingBallCrossingTimesMatchTheirDerivatives) {
  for (const char* method : {"radau5", "radau", "bdf"}) {
    const MassMatrixDae d = event_sens_ball();
    Options o;
    o.rtol = o.atol = 1e-10;
    o.sensitivities = true;
    o.events = {event_sens_level(false), event_sens_level(true)};
    Vector y0(2);
    y0 << 10.0, 0.0;
    const Result r = solve(d, 0.0, 5.0, y0, method, o);
    ASSERT_EQ(r.status, Status::TerminalEvent) << method << ": " << r.message;
    ASSERT_EQ(r.events.size(), 2u) << method;
    const double g = 9.81, H = 4.0;
    const double t_level = std::sqrt(2 * (10.0 - H) / g), t_ground = std::sqrt(2 * 10.0 / g);
    const EventRecord& level = r.events[0];
    const EventRecord& ground = r.events[1];
    ASSERT_EQ(level.dt_dp.size(), 2);
    ASSERT_EQ(ground.dt_dp.size(), 2);
    EXPECT_NEAR(level.t, t_level, 1e-8) << method;
    EXPECT_NEAR(level.dt_dp[0], -t_level / (2 * g), 1e-6) << method;
    EXPECT_NEAR(level.dt_dp[1], -1.0 / (g * t_level), 1e-6) << method;
    EXPECT_NEAR(ground.dt_dp[0], -t_ground / (2 * g), 1e-6) << method;
    EXPECT_NEAR(ground.dt_dp[1], 0.0, 1e-8) << method;  // the ground does not depend on H
    std::printf("%-7s dt/dg level %.10f (exact %.10f), dt/dH %.10f (exact %.10f)\n", method,
                level.dt_dp[0], -t_level / (2 * g), level.dt_dp[1], -1.0 / (g * t_level));
  }
}

// A terminal event returns S at the event time (with the state there, before the action, which
// may change y: it is not applied), not at the end of the step that found it:
// y = 10 - g t^2 / 2, v = -g t give dy/dg = -t*^2 / 2, dv/dg = -t*.
TEST(EventTimeSensitivities, TerminalEventReturnsSAtTheEvent) {
  for (const char* method : {"radau5", "radau", "bdf"})
    for (bool changes_y : {false, true}) {
      const MassMatrixDae d = event_sens_ball();
      Options o;
      o.rtol = o.atol = 1e-10;
      o.sensitivities = true;
      o.events = {event_sens_level(true)};
      if (changes_y)
        o.events[0].action = [](double, Vector& y) {
          y[1] = 0.0;  // at rest (the solve returns the state before it)
          return EventAction::Stop;
        };
      Vector y0(2);
      y0 << 10.0, 0.0;
      const Result r = solve(d, 0.0, 5.0, y0, method, o);
      ASSERT_EQ(r.status, Status::TerminalEvent) << method << ": " << r.message;
      const double t_ground = std::sqrt(2 * 10.0 / 9.81);
      ASSERT_NEAR(r.t, t_ground, 1e-9) << method;
      EXPECT_NEAR(r.sensitivities(0, 0), -0.5 * r.t * r.t, 1e-8) << method;
      EXPECT_NEAR(r.sensitivities(1, 0), -r.t, 1e-8) << method;
      EXPECT_NEAR(r.y[1], -9.81 * r.t, 1e-8) << method;
    }
}

// An action that changes the parameters ends the solve (dy/dp across it is not implemented).
TEST(EventTimeSensitivities, AnActionThatChangesTheParametersEndsTheSolve) {
  const MassMatrixDae d = event_sens_ball();
  Options o;
  o.rtol = o.atol = 1e-8;
  o.sensitivities = true;
  Event bounce = event_sens_level(true);
  bounce.action = [](double, Vector& y, Vector& p) {
    y[1] = -0.9 * y[1];
    p[0] = 1.62;  // on to the moon
    return EventAction::Restart;
  };
  o.events = {bounce};
  Vector y0(2);
  y0 << 10.0, 0.0;
  const Result r = solve(d, 0.0, 5.0, y0, "radau5", o);
  EXPECT_EQ(r.status, Status::CallbackError);
  EXPECT_NE(r.message.find("changed the parameters"), std::string::npos) << r.message;
  EXPECT_NEAR(r.events.at(0).dt_dp[0], -std::sqrt(2 * 10.0 / 9.81) / (2 * 9.81), 1e-5);
}

// ----------------------------------------------------------------------------------------------
// The jump of S at an action that changes the state. A ball dropped from h0 = 10 bounces with
// v+ = -e v- (y = [height, velocity], p = [g, e]); between bounces
//   h = w_k (t - t_k) - g (t - t_k)^2 / 2,   v = w_k - g (t - t_k),
// with t_1 = V / g, V = sqrt(2 g h0), w_k = e^k V, t_{k+1} = t_k + 2 w_k / g: closed-form
// derivatives in g and e, propagated bounce by bounce below.
namespace {
MassMatrixDae bouncing_sens_ball() {
  MassMatrixDae d;
  d.name = "bouncing ball with g and e as parameters";
  d.n = 2;
  d.f = [](double, VecIn y, VecOut out, VecIn p) {
    out[0] = y[1];
    out[1] = -p[0];
  };
  d.p = Vector(2);
  d.p << 9.81, 0.8;
  return d;
}
Event bouncing_sens_floor() {
  Event e;
  e.name = "floor";
  e.direction = -1;
  e.r = [](double, VecIn y, VecIn) { return y[0]; };
  e.action = [](double, Vector& y, Vector& p) {
    y[1] = -p[1] * y[1];
    return EventAction::Restart;
  };
  return e;
}
// [h, v] at T and d[h, v]/d[g, e] (2 x 2) from the closed form.
Matrix bouncing_sens_exact(double g, double e, double h0, double T, Vector& y) {
  const double V = std::sqrt(2 * g * h0);
  double t = V / g, dt_dg = -V / (2 * g * g), dt_de = 0.0;  // first impact
  double w = e * V, dw_dg = e * V / (2 * g), dw_de = V;     // velocity after it
  for (;;) {
    const double t_next = t + 2 * w / g;
    if (t_next > T) break;
    dt_dg += 2 * dw_dg / g - 2 * w / (g * g);
    dt_de += 2 * dw_de / g;
    t = t_next;
    dw_dg *= e;
    dw_de = w + e * dw_de;
    w *= e;
  }
  const double tau = T - t;
  y.resize(2);
  y << w * tau - 0.5 * g * tau * tau, w - g * tau;
  Matrix S(2, 2);
  S(0, 0) = dw_dg * tau - w * dt_dg - 0.5 * tau * tau + g * tau * dt_dg;
  S(0, 1) = dw_de * tau - w * dt_de + g * tau * dt_de;
  S(1, 0) = dw_dg - tau + g * dt_dg;
  S(1, 1) = dw_de + g * dt_de;
  return S;
}
}  // namespace

TEST(EventSensitivityJump, BouncingBallMatchesTheClosedFormAfterOneAndTwoBounces) {
  const double g = 9.81, e = 0.8, h0 = 10.0;
  // bounces at 1.428, 3.713, 5.540: after one at 2.5, after two at 4.5
  for (const char* method : {"radau5", "radau", "bdf"})
    for (double T : {2.5, 4.5}) {
      const MassMatrixDae d = bouncing_sens_ball();
      Options o;
      o.rtol = o.atol = 1e-12;
      o.sensitivities = true;
      o.sensitivity_error_control = true;  // (without it the bdf's S is 1e-7 off here)
      o.events = {bouncing_sens_floor()};
      Vector y0(2);
      y0 << h0, 0.0;
      const Result r = solve(d, 0.0, T, y0, method, o);
      ASSERT_TRUE(r.ok()) << method << ": " << r.message;
      ASSERT_EQ(r.events.size(), T < 3 ? 1u : 2u) << method;
      Vector y;
      const Matrix S = bouncing_sens_exact(g, e, h0, T, y);
      EXPECT_NEAR((r.y - y).cwiseAbs().maxCoeff(), 0.0, 1e-8) << method << " at " << T;
      EXPECT_NEAR((r.sensitivities - S).cwiseAbs().maxCoeff(), 0.0, 1e-8)
          << method << " at " << T << ":\n"
          << r.sensitivities << "\nexact\n"
          << S;
    }
}

// A nonlinear DAE with a nonlinear action: a pendulum-like oscillator x' = v,
// v' = -k sin x - c v z, with the algebraic z = 1 + x^2 / 2 (index 1); where x falls through
// 0.2 the action sets v+ = -e v- / (1 + 0.1 v-^2) + 0.05 sin t (reading t, y and p).
// dy(T)/dp against the central differences of whole solves (Richardson, as above).
namespace {
MassMatrixDae kicked_sens_oscillator() {
  MassMatrixDae d;
  d.name = "kicked oscillator";
  d.n = 3;
  d.f = [](double, VecIn y, VecOut out, VecIn p) {
    out[0] = y[1];
    out[1] = -p[0] * std::sin(y[0]) - p[1] * y[1] * y[2];
    out[2] = 1.0 + 0.5 * y[0] * y[0] - y[2];
  };
  d.mass = Matrix::Zero(3, 3);
  d.mass(0, 0) = d.mass(1, 1) = 1.0;
  d.p = Vector((Vector(3) << 4.0, 0.1, 0.7).finished());
  return d;
}
Options kicked_sens_options(double tol, bool sensitivities) {
  Options o;
  o.rtol = o.atol = tol;
  o.sensitivities = sensitivities;
  Event kick;
  kick.name = "kick";
  kick.direction = -1;
  kick.r = [](double, VecIn y, VecIn) { return y[0] - 0.2; };
  kick.action = [](double t, Vector& y, Vector& p) {
    y[1] = -p[2] * y[1] / (1.0 + 0.1 * y[1] * y[1]) + 0.05 * std::sin(t);
    return EventAction::Restart;
  };
  o.events = {kick};
  return o;
}
}  // namespace

TEST(EventSensitivityJump, NonlinearDaeMatchesDifferencesOfWholeSolves) {
  const double T = 3.0;
  Vector y0(3);
  y0 << 1.0, 0.0, 1.5;
  const MassMatrixDae base = kicked_sens_oscillator();
  Matrix D(3, 3);
  size_t events = 0;
  for (Eigen::Index k = 0; k < 3; ++k) {
    const double delta = 1e-3 * std::abs(base.p[k]);
    Vector central[2];
    for (int m = 1; m <= 2; ++m) {
      Vector ends[2];
      for (int side = 0; side < 2; ++side) {
        MassMatrixDae d = base;
        d.p[k] += (side == 0 ? m : -m) * delta;
        const Result r = solve(d, 0.0, T, y0, "radau5", kicked_sens_options(1e-12, false));
        ASSERT_TRUE(r.ok()) << r.message;
        events = r.events.size();
        ends[side] = r.y;
      }
      central[m - 1] = (ends[0] - ends[1]) / (2.0 * m * delta);
    }
    D.col(k) = (4.0 * central[0] - central[1]) / 3.0;
  }
  ASSERT_GE(events, 2u);  // the kicks inside [0, T]
  for (const char* method : {"radau5", "radau", "bdf"}) {
    const Result r = solve(base, 0.0, T, y0, method, kicked_sens_options(1e-10, true));
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    ASSERT_EQ(r.events.size(), events) << method;
    const double worst = relative_disagreement(r.sensitivities, D, {});
    std::printf("%-7s kicked oscillator, %zu kicks: S against whole-solve differences %.2e\n",
                method, events, worst);
    EXPECT_LT(worst, 1e-5) << method << "\n" << r.sensitivities << "\nwhole solves\n" << D;
  }
}

TEST(EventTimeSensitivities, WithoutSensitivitiesTheRecordHasNone) {
  const MassMatrixDae d = event_sens_ball();
  Options o;
  o.events = {event_sens_level(true)};
  Vector y0(2);
  y0 << 10.0, 0.0;
  const Result r = solve(d, 0.0, 5.0, y0, "radau5", o);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].dt_dp.size(), 0);
}
