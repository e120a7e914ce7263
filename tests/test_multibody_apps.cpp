// Multibody models of the lecture notes, chapters 3 and 9 (issue 14, part 4): rheonomic
// constraints and their formulations, the pendulum with general m, l, g in its index-0 (3.7) and
// state-space (9.8) forms, the truck in index-3 form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

Options multibody_tolerances(double tol, bool store = false) {
  Options o;
  o.rtol = o.atol = tol;
  o.store_steps = store;
  return o;
}

constexpr double pi = std::numbers::pi;

// The driven pendulum's support s(t) = A cos(200 t) and the bob's angle from the downward
// vertical, as in src/problems/driven_pendulum.cpp.
double support(double A, double t) { return A * std::cos(200.0 * t); }
double bob_angle(double A, double t, VecIn q) { return std::atan2(q[0], -(q[1] - support(A, t))); }

// Consistent index-3 start of the driven pendulum at phi0 for amplitude A.
Vector driven_start(const MechanicalSystem& s, double A, Formulation form) {
  const double phi0 = pi - 0.2;
  Vector q0(2), v0(2);
  q0 << std::sin(phi0), support(A, 0.0) - std::cos(phi0);
  v0 << 0.0, 0.0;
  return initial_values(s, form, 0.0, q0, v0);
}

}  // namespace

// g_t and the rheonomic curvature g_qq(v, v) + 2 g_tq v + g_tt by differences agree with the
// closed forms v_x^2 + (v_y - s')^2 - (y - s) s''.
TEST(Rheonomic, TimeDerivativesOfTheConstraint) {
  const double A = 0.05, t = 0.0123;
  MechanicalSystem s = driven_pendulum_system(A);
  const Vector q = Eigen::Vector2d(0.3, -0.8), v = Eigen::Vector2d(1.1, -0.6);
  const double sv = -A * 200 * std::sin(200 * t), sa = -A * 40000 * std::cos(200 * t);
  const double dy = q[1] - support(A, t);
  Vector out(1);
  constraint_time_derivative(s, t, q, out, s.p);
  EXPECT_NEAR(out[0], -dy * sv, 1e-14);
  MechanicalSystem differenced = s;  // g_t and the curvature by central differences
  differenced.g_t = nullptr;  // truncation ~ e^2 g_ttt / 6, the fast drive's g_ttt ~ A Omega^3
  differenced.curvature = nullptr;
  constraint_time_derivative(differenced, t, q, out, s.p);
  EXPECT_NEAR(out[0], -dy * sv, 1e-6 * std::abs(dy * sv));
  const double exact = v[0] * v[0] + (v[1] - sv) * (v[1] - sv) - dy * sa;
  constraint_curvature(s, t, q, v, out, s.p);
  EXPECT_NEAR(out[0], exact, 1e-12 * std::abs(exact));
  constraint_curvature(differenced, t, q, v, out, s.p);
  EXPECT_NEAR(out[0], exact, 1e-5 * std::abs(exact));
  MechanicalSystem only_gt = differenced;  // differences of G v + g_t with the analytic g_t
  only_gt.g_t = s.g_t;
  constraint_curvature(only_gt, t, q, v, out, s.p);
  EXPECT_NEAR(out[0], exact, 1e-6 * std::abs(exact));
  // a scleronomic system never evaluates g_t
  MechanicalSystem fixed = s;
  fixed.rheonomic = false;
  fixed.g_t = [](double, VecIn, VecOut) { ADD_FAILURE() << "g_t evaluated"; };
  constraint_time_derivative(fixed, t, q, out, s.p);
  EXPECT_EQ(out[0], 0.0);
}

// Consistent values of a rheonomic system satisfy all three constraint levels, including the
// time terms; the velocity projection enforces G v + g_t = 0; a start that ignores g_t is
// reported as inconsistent.
TEST(Rheonomic, ConsistentValuesAndProjection) {
  const double A = 0.05;
  const MechanicalSystem s = driven_pendulum_system(A);
  const double t = 0.004;  // s'(t) != 0
  Vector q(2), v(2);
  q << std::sin(2.0), support(A, t) - std::cos(2.0);
  v << 0.5, 0.0;
  ProjectionWorkspace ws(2, 1);
  ASSERT_TRUE(project_mechanical(s, t, q, v, Projection::Velocity, ws, s.p));
  const AccelerationAndMultipliers a = consistent_acceleration(s, t, q, v);
  const ConstraintResiduals r = constraint_residuals(s, t, q, v, a.w);
  EXPECT_LT(r.position, 1e-14);
  EXPECT_LT(r.velocity, 1e-13);
  EXPECT_LT(r.acceleration, 1e-9);
  // the accelerations are those of the angle ODE phi'' = -(g + s'') sin(phi) / l (l = 1): the
  // g_tt term of the acceleration constraint carries the support's acceleration s''
  const double sv = -A * 200 * std::sin(200 * t), sa = -A * 40000 * std::cos(200 * t);
  const double phi = bob_angle(A, t, q), c = std::cos(phi), sn = std::sin(phi);
  const double omega = v[0] * c + (v[1] - sv) * sn;
  const double phidd = -(9.81 + sa) * sn;
  EXPECT_NEAR(a.w[0], phidd * c - omega * omega * sn, 1e-9 * std::abs(sa));
  EXPECT_NEAR(a.w[1], sa + phidd * sn + omega * omega * c, 1e-9 * std::abs(sa));
  // G v = 0 but g_t != 0: the velocity constraint of a moving support is violated
  Vector v_wrong(2);
  v_wrong << -(q[1] - support(A, t)), q[0];  // tangent: G v = 0
  EXPECT_THROW(check_consistent_positions(s, t, q, v_wrong, 1e-8), InvalidArgument);
  EXPECT_THROW(euler_lagrange_form(s), InvalidArgument);
  EXPECT_THROW(index2_form(s), InvalidArgument);
}

// Kapitza's pendulum in every formulation (index 3, 2, 1 with projection, GGL) with radau5
// against the angle ODE phi'' = -(g + s'') sin(phi) / l (RK4, h = 1e-5). Measured at
// rtol = atol = 1e-9: index 2, index 1 (differenced curvature) + projection and GGL 3e-11 ..
// 4e-9; index 3 2.0e-6 (it converges: 3.2e-5, 1.9e-5, 2.0e-6, 5.2e-8, 1.1e-8 at 1e-7 .. 1e-11 --
// radau5 scales the error of the index-2/3 components by h and h^2, so at index 3 the angle is
// less tightly controlled).
TEST(Rheonomic, DrivenPendulumEveryFormulation) {
  const double A = 0.05, T = 1.0;
  const MechanicalSystem s = driven_pendulum_system(A);
  const Vector ref = driven_pendulum_reference(A, T);
  const Vector coarse = driven_pendulum_reference(A, T, 2e-5);
  EXPECT_LT(std::abs(ref[0] - coarse[0]), 1e-10);
  for (Formulation form :
       {Formulation::Index3, Formulation::Index2, Formulation::Index1, Formulation::GGL}) {
    Options o = multibody_tolerances(1e-9);
    if (form == Formulation::Index1) o.projection = Projection::Full;
    MechanicalSystem differenced = s;  // the formulations with the differenced time terms
    differenced.curvature = nullptr;
    const MechanicalSystem& used = form == Formulation::Index1 ? differenced : s;
    const Result r = solve(formulate(used, form), 0.0, T, driven_start(used, A, form), "radau5", o);
    ASSERT_TRUE(r.ok()) << to_string(form) << ": " << r.message;
    const double e = std::abs(bob_angle(A, T, r.y.head(2)) - ref[0]);
    std::printf("driven pendulum, %s: phi(%g) = %.10f, reference %.10f, error %.2e\n",
                to_string(form), T, bob_angle(A, T, r.y.head(2)), ref[0], e);
    EXPECT_LT(e, form == Formulation::Index3 ? 5e-6 : 2e-8) << to_string(form);
  }
}

// The behaviour Kapitza predicts: with A^2 Omega^2 > 2 g l the upright pendulum (started
// 0.2 rad off) swings about the top; without the drive it falls.
TEST(Rheonomic, KapitzaPendulumStaysUp) {
  for (double A : {0.05, 0.0}) {
    const MechanicalSystem s = driven_pendulum_system(A);
    const Result r =
        solve(formulate(s, Formulation::Index3), 0.0, 2.0, driven_start(s, A, Formulation::Index3),
              "radau5", multibody_tolerances(1e-7, true));
    ASSERT_TRUE(r.ok()) << r.message;
    double furthest = 0.0;  // from the top
    for (size_t i = 0; i < r.t_steps.size(); ++i) {
      const double phi = bob_angle(A, r.t_steps[i], r.y_steps[i].head(2));
      furthest = std::max(furthest, pi - std::abs(phi));
    }
    std::printf("driven pendulum, A = %g: largest distance from the top %.3f rad\n", A, furthest);
    if (A > 0)
      EXPECT_LT(furthest, 0.5);
    else
      EXPECT_GT(furthest, 2.0);
  }
  // the built-in problem is this model at A = 0.05
  const BuiltinProblem p = make_builtin_problem("pendulum-driven");
  EXPECT_TRUE(p.mechanical->rheonomic);
  EXPECT_EQ(p.dae.p[0], 0.05);
}

// The slider-crank driven by theta = omega0 t + alpha t^2 / 2 (five constraints, one rheonomic,
// g_t and curvature differenced) follows its exact kinematics in every formulation, and the
// drive torque lambda5 balances the energy: d(T + V)/dt = -lambda5 theta' (the joint forces of
// the scleronomic joints do no work).
TEST(Rheonomic, SliderCrankExactKinematicsAndDrivePower) {
  const BuiltinProblem p = slider_crank();
  const MechanicalSystem& s = *p.mechanical;
  const Vector exact = slider_crank_exact(p.t_end);
  auto energy = [](double t) {  // T + V along the exact motion (M = diag(J1, m2, m2, J2, m3))
    const Vector y = slider_crank_exact(t);
    const Vector m = (Vector(5) << 0.01, 1.0, 1.0, 0.09 / 12, 0.5).finished();
    return 0.5 * (m.array() * y.tail(5).array().square()).sum() + 1.0 * 9.81 * y[2];
  };
  const double h = 1e-3, t = p.t_end;  // fourth-order central difference of T + V
  const double power =
      (8 * (energy(t + h) - energy(t - h)) - (energy(t + 2 * h) - energy(t - 2 * h))) / (12 * h);
  for (Formulation form : {Formulation::Index3, Formulation::Index2, Formulation::GGL}) {
    const Vector y0 = initial_values(s, form, p.t0, slider_crank_exact(0.0).head(5),
                                     slider_crank_exact(0.0).tail(5));
    const Result r =
        solve(formulate(s, form), p.t0, p.t_end, y0, "radau5", multibody_tolerances(1e-8));
    ASSERT_TRUE(r.ok()) << to_string(form) << ": " << r.message;
    const double eq = (r.y.head(5) - exact.head(5)).cwiseAbs().maxCoeff();
    const double ev = (r.y.segment(5, 5) - exact.tail(5)).cwiseAbs().maxCoeff();
    const double drive = -r.y[10 + 4] * exact[5];
    std::printf(
        "slider-crank, %s: position error %.2e, velocity error %.2e, drive power %.6f "
        "(d(T + V)/dt of the exact motion %.6f)\n",
        to_string(form), eq, ev, drive, power);
    // measured at 1e-8: index 3 positions 2e-12 (g itself is solved), velocities 1.1e-4 and the
    // torque 1.1e-2 relative; at 1e-7 .. 1e-11 the index-3 torque errors are 2e-2, 1e-2, 2e-4,
    // 6e-4, 2e-3 -- not monotone: radau5 controls v and lambda only through the h- and
    // h^2-scaled error of index-2/3 components, and lambda at index 3 converges with order 2 at
    // best. Index 2 and GGL: velocities < 1e-9, torque 1e-6 and 4e-5 relative.
    const bool index3 = form == Formulation::Index3;
    EXPECT_LT(eq, 1e-8) << to_string(form);
    EXPECT_LT(ev, index3 ? 2e-4 : 1e-8) << to_string(form);
    EXPECT_NEAR(drive, power, (index3 ? 3e-2 : 1e-4) * std::abs(power)) << to_string(form);
  }
}

// The pendulum's index-0 form (3.7) with general m, l, g: on a short interval it is the
// pendulum (exact solution from Jacobi elliptic functions); over longer times it drifts off
// the constraints (ch. 3.2.4) unless projected (3.10).
// claim: 004-3-index0-exact
TEST(PendulumForms, IndexZeroAgainstExactSolution) {
  const BuiltinProblem p = pendulum_index0();
  Options o = multibody_tolerances(1e-10);
  const Result r = solve(p.dae, p.t0, 2.0, p.y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT((r.y - p.exact(2.0)).cwiseAbs().maxCoeff(), 1e-7);
  // other m, l, g: the exact solution scales with sqrt(g / l), lambda with m
  const double m = 3.0, l = 0.7, g = 2.5, phi0 = 1.2;
  BuiltinProblem q = with_parameters(p, Eigen::Vector3d(m, l, g));
  Vector y0(5);
  y0 << l * std::sin(phi0), -l * std::cos(phi0), 0, 0, m * g * std::cos(phi0) / (2 * l);
  const Result rq = solve(q.dae, 0.0, 2.0, y0, "radau5", o);
  ASSERT_TRUE(rq.ok()) << rq.message;
  const Vector a = pendulum_exact_angle(phi0, g / l, 2.0);
  const double lambda = m * (l * l * a[1] * a[1] + g * l * std::cos(a[0])) / (2 * l * l);
  EXPECT_NEAR(rq.y[0], l * std::sin(a[0]), 1e-7);
  EXPECT_NEAR(rq.y[1], -l * std::cos(a[0]), 1e-7);
  EXPECT_NEAR(rq.y[4], lambda, 1e-6);
}

// claim: 004-3-index0-drift-projection
TEST(PendulumForms, IndexZeroDriftsAndProjectionRemovesIt) {
  const BuiltinProblem p = pendulum_index0();
  Options o = multibody_tolerances(1e-6, true);
  const Result r = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  const double l = 2.0;
  auto drift = [l](VecIn y) { return std::abs(y[0] * y[0] + y[1] * y[1] - l * l); };
  const double early = drift(r.y_steps[std::min<size_t>(5, r.t_steps.size() - 1)]);
  const double late = drift(r.y);
  o.projection = Projection::Full;
  const Result rp = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  ASSERT_TRUE(rp.ok()) << rp.message;
  std::printf(
      "pendulum index 0, rtol 1e-6: | |p|^2 - l^2 | after 5 steps %.2e, at t = %g "
      "%.2e; projected %.2e (%ld projections)\n",
      early, p.t_end, late, drift(rp.y), rp.stats.nproject);
  EXPECT_GT(late, 10 * early);
  EXPECT_GT(late, 1e-6);
  EXPECT_LT(drift(rp.y), 1e-10);
  EXPECT_LT((rp.y - p.exact(p.t_end)).head(2).cwiseAbs().maxCoeff(),
            (r.y - p.exact(p.t_end)).head(2).cwiseAbs().maxCoeff());
}

// The state-space form: phi'' = -(g/l) sin(phi) against the exact solution; (9.8) as printed,
// phi2' = -g phi1 (l = 1), is its linearization: right for small swings only.
// claim: 004-9-pendulum-linearization
TEST(PendulumForms, StateSpaceFormAndThePrintedLinearization) {
  const BuiltinProblem p = pendulum_state_space();
  const Result r = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", multibody_tolerances(1e-10));
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT((r.y - p.exact(p.t_end)).cwiseAbs().maxCoeff(), 1e-7);
  const double Omega = std::sqrt(9.81 / 2.0);
  for (double phi0 : {0.01, pi / 2}) {
    const Vector exact = pendulum_exact_angle(phi0, 9.81 / 2.0, p.t_end);
    const double linear = phi0 * std::cos(Omega * p.t_end);
    const double gap = std::abs(exact[0] - linear) / phi0;
    std::printf("phi0 = %g: exact phi(10) = %.6f, linearized %.6f, relative gap %.2e\n", phi0,
                exact[0], linear, gap);
    if (phi0 < 0.1)
      EXPECT_LT(gap, 1e-3);
    else
      EXPECT_GT(gap, 0.3);
  }
  // the exact solution itself: period 4 K(k) / Omega and energy
  const double k = std::sin(0.6);
  double a = 1.0, b = std::sqrt(1 - k * k);  // K(k) = pi / (2 AGM(1, k'))
  for (int i = 0; i < 10; ++i) {
    const double an = (a + b) / 2;
    b = std::sqrt(a * b);
    a = an;
  }
  const double period = 4 * (pi / (2 * a)) / std::sqrt(3.0);
  const Vector back = pendulum_exact_angle(1.2, 3.0, period);
  EXPECT_NEAR(back[0], 1.2, 1e-12);
  EXPECT_NEAR(back[1], 0.0, 1e-11);
  const Vector mid = pendulum_exact_angle(1.2, 3.0, 0.37);
  EXPECT_NEAR(0.5 * mid[1] * mid[1] - 3.0 * std::cos(mid[0]), -3.0 * std::cos(1.2), 1e-13);
}

// The truck of notes 9.5.1 in its index-3 form agrees with its index-2 Euler-Lagrange form.
// claim: 004-9-truck-index3-index2
TEST(TruckIndex3, AgreesWithTheIndex2Form) {
  const BuiltinProblem p = truck_index3();
  const BuiltinProblem el = truck_euler_lagrange();
  EXPECT_EQ(p.dae.n, 20);
  EXPECT_NEAR(p.y0[19], el.y0[19], 1e-6);  // consistent multipliers: the published ones
  const double T = p.t_end;
  const Result r3 = solve(p.dae, 0.0, T, p.y0, "radau5", multibody_tolerances(1e-6));
  ASSERT_TRUE(r3.ok()) << r3.message;
  const Result r2 = solve(el.dae, 0.0, T, el.y0, "radau5", multibody_tolerances(1e-6));
  ASSERT_TRUE(r2.ok()) << r2.message;
  const double e = (r3.y.head(9) - r2.y.head(9)).cwiseAbs().maxCoeff();
  std::printf("truck at t = %g: chassis height %.8f (index 3) vs %.8f (index 2), max diff %.2e\n",
              T, r3.y[1], r2.y[1], e);
  EXPECT_LT(e, 1e-6);
  EXPECT_GT(std::abs(r3.y[1] - p.y0[1]), 1e-3);  // the road hump has moved the chassis
}

TEST(ApplicationsRegistry, NewProblemsAreBuiltIn) {
  const std::vector<std::string> names = builtin_problem_names();
  for (const char* n : {"varactor-circuit", "double-pendulum", "pendulum-index0", "pendulum-ssf",
                        "pendulum-driven", "slider-crank", "truck-index3"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    const BuiltinProblem p = make_builtin_problem(n);
    EXPECT_EQ(p.y0.size(), p.dae.n) << n;
    EXPECT_EQ(check_initial_values(p.dae, p.t0, p.y0, 1e-8), "") << n;
  }
}
