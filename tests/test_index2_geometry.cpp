// The geometric results of 001_6d2dbb58aab0d43f.txt (Schropp) for projected Runge-Kutta
// methods (projected-rk with the projection (2.6)) and half-explicit methods (hem), on the
// sphere limit-cycle DAE of problems/index2.hpp:
//   Theorem 2.1 ii)  the invariant manifold M_{0,h} attracts with contraction |R(inf)| + O(h^(q+1))
//                    per step; after one step for stiffly accurate and half-explicit methods;
//   Theorem 2.1 iii) the in-phase property: a perturbed start keeps the phase of its partner;
//   Theorem 2.1 iv)  lambda_n - psi0(u_n) = O(h^q) [O(h^r)] uniformly in time;
//   Section 3        the embedding (3.1) with B = I: g(u_n) = R(-h)^n g(u_0);
//   (4.10)           the stabilised index-1 reformulation: g(u(t)) = e^{-beta t} g(u_0);
//   Theorem 2.2 /    near the hyperbolic periodic orbit the numerical attractor is a closed
//   Corollary 2.3    curve within O(h^q) [O(h^r)] of the orbit, in g = 0 (on the circle of the
//                    sphere problem and on a Van der Pol cycle lifted to the sphere).
// Every test prints what it measures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "daekit/daekit.hpp"
#include "daekit/problems/index2.hpp"

using namespace daekit;

namespace {

// The theta-method, theta = 2/3: not stiffly accurate, R(inf) = 1 - 1/theta = -1/2, q = p = 1.
RungeKuttaTableau theta_method() {
  RungeKuttaTableau t;
  t.name = "theta-method (theta = 2/3)";
  t.A = Matrix::Constant(1, 1, 2.0 / 3.0);
  t.b = Vector::Ones(1);
  t.c = Vector::Constant(1, 2.0 / 3.0);
  t.order = 1;
  t.stage_order = 1;
  return t;
}

struct Scheme {
  std::string name;
  MethodChoice choice;
  int q;  ///< stage order (projected RK) or lambda order r (half-explicit): Theorem 2.1's rate
  std::function<double(double)> R;  ///< stability function on the real axis
};

std::vector<Scheme> schemes() {
  std::vector<Scheme> s;
  for (const RungeKuttaTableau& t : {theta_method(), radau_iia(3)}) {
    ProjectedRkOptions o;
    o.tableau = t;
    s.push_back({"projected " + t.name, o, t.stage_order,
                 [t](double z) { return stability_function(t, z).real(); }});
  }
  for (const char* name : {"bh3", "hem4"}) {
    const HalfExplicitTableau h = half_explicit_tableau(name);
    HemOptions o;
    o.tableau = name;
    const RungeKuttaTableau t{h.name, h.A, h.b, h.c, h.order, 0};
    s.push_back({std::string("half-explicit ") + name, o, h.order - 1,
                 [t](double z) { return stability_function(t, z).real(); }});
  }
  return s;
}

// x0 = (u0, [v0,] lambda0) with u0 along `direction` scaled to |u0|^2 = 1 + 2 v0.
Vector start(const Eigen::Vector3d& direction, bool embedded, double v0 = 0.0) {
  const Eigen::Vector3d u = direction.normalized() * std::sqrt(1.0 + 2.0 * v0);
  Vector x(embedded ? 5 : 4);
  x.head(3) = u;
  if (embedded) x[3] = v0;
  x[x.size() - 1] = sphere_limit_cycle_lambda(u, v0);
  return x;
}

Result run_scheme(const Scheme& s, bool embedded, const Vector& x0, double h, double T,
                  bool store = true) {
  const MassMatrixDae dae = to_mass_matrix_form(sphere_limit_cycle(embedded));
  Options o;
  o.fixed_step = true;
  o.h0 = h;
  o.rtol = o.atol = 1e-12;
  o.store_steps = store;
  o.check_consistency = false;  // some runs start with a perturbed lambda0
  o.check_jacobian = false;
  if (s.name.find("projected") == 0) o.projection = Projection::Full;
  Result r = solve(dae, 0.0, T, x0, s.choice, o);
  EXPECT_TRUE(r.ok()) << s.name << ": " << r.message;
  return r;
}

double rate(double coarse, double fine) { return std::log2(coarse / fine); }

}  // namespace

// claim: 001-T2.1ii-contraction
// claim: 001-T2.1ii-hem-zero
TEST(Index2Geometry, AttractivityOfTheInvariantManifold) {
  // two runs whose lambda0 differ by 0.1: the difference of the lambda_n contracts by R(inf)
  // per step (Theorem 2.1 ii); the u_n differ by O(h^(q+1)) times it
  const double h = 0.05, delta = 0.1;
  const Vector a = start({1.0, 0.2, 0.3}, false);
  Vector b = a;
  b[3] += delta;
  for (const Scheme& s : schemes()) {
    const Result ra = run_scheme(s, false, a, h, 8 * h), rb = run_scheme(s, false, b, h, 8 * h);
    std::printf("%-36s lambda differences:", s.name.c_str());
    std::vector<double> d;
    double du = 0.0;
    for (long n = 0; n < ra.y_steps.size(); ++n) {
      d.push_back(rb.y_steps[n][3] - ra.y_steps[n][3]);
      du = std::max(du, (rb.y_steps[n].head(3) - ra.y_steps[n].head(3)).cwiseAbs().maxCoeff());
      if (n < 6) std::printf(" %.2e", d.back());
    }
    const bool projected = s.name.find("theta") != std::string::npos;
    if (projected) {
      std::printf("  ratios:");
      for (int n = 1; n < 6; ++n) std::printf(" %.4f", d[n] / d[n - 1]);
      for (int n = 1; n < 6; ++n) EXPECT_NEAR(d[n] / d[n - 1], -0.5, 0.01) << s.name;
    } else {
      // lambda0 is only Newton's starting value: the difference is at the Newton tolerance
      for (size_t n = 1; n < d.size(); ++n) EXPECT_LT(std::abs(d[n]), 1e-8) << s.name;
    }
    std::printf("  max |u^a - u^b| = %.1e\n", du);
    EXPECT_LT(du, projected ? 1e-3 : 1e-8) << s.name;
  }
}

// Theorem 2.1 iii), the in-phase property: a start (u0, lambda0) off M_{0,h} has a partner
// (u~0, lambda~0) on it whose evolution it approaches like chi_h^i: |u_i - u~_i| <= c chi^i
// |lambda0 - psi0(u0)|, the same for lambda. For the projected and half-explicit maps the
// stages are determined by u_n alone, so the partner is (u0, ...) itself: measured over 40 steps
// (h = 0.05, t in [0, 2]) with lambda0 perturbed by 0.1 and 0.01, the u_i agree to the Newton
// tolerance (c = 0 in u) and the lambda_i differ by at most 1.011 chi^i delta (down to
// 1e-9, below which the Newton tolerance's level enters), chi = |R(inf)|
// (0.5 for the theta-method; 0 for Radau IIA(3) and the half-explicit methods: in phase after
// one step).
// claim: 001-T2.1iii-in-phase
TEST(Index2Geometry, InPhaseProperty) {
  const double h = 0.05;
  const Vector a = start({1.0, 0.2, 0.3}, false);
  for (const Scheme& s : schemes()) {
    const double chi = s.name.find("theta") != std::string::npos ? 0.5 : 0.0;
    const Result ra = run_scheme(s, false, a, h, 40 * h);
    for (double delta : {0.1, 0.01}) {
      Vector b = a;
      b[3] += delta;
      const Result rb = run_scheme(s, false, b, h, 40 * h);
      ASSERT_EQ(ra.y_steps.size(), rb.y_steps.size());
      double du = 0.0, c = 0.0;  // max |u_i^b - u_i^a|, max |lambda_i^b - lambda_i^a| / chi^i
      for (size_t i = 0; i < ra.y_steps.size(); ++i) {
        du = std::max(du, (rb.y_steps[i].head(3) - ra.y_steps[i].head(3)).cwiseAbs().maxCoeff());
        const double dl = std::abs(rb.y_steps[i][3] - ra.y_steps[i][3]);
        const double bound = std::pow(chi, static_cast<double>(i)) * delta;
        if (bound > 1e-9)
          c = std::max(c, dl / bound);
        else  // below, the Newton tolerance's level enters (chi = 0: on M_{0,h} after one step)
          EXPECT_LT(dl, 2e-9) << s.name << " step " << i;
      }
      std::printf(
          "%-36s delta %.0e: max |u^b - u^a| = %.1e, max |dlambda_i| / (chi^i delta) = "
          "%.6f (chi = %g)\n",
          s.name.c_str(), delta, du, c, chi);
      EXPECT_LT(du, 1e-10) << s.name;
      EXPECT_LT(c, 1.05) << s.name;  // chi_h = |R(inf)| + O(h^(q+1)): measured 1.005, 1.011
    }
  }
}

// claim: 001-T2.1iv-psi-order
TEST(Index2Geometry, MultiplierFollowsTheManifoldUniformlyInTime) {
  // sup over t in [25, 50] of |lambda_n - psi0(u_n)| = O(h^q) [O(h^r)] (Theorem 2.1 iv)
  const Vector x0 = start({1.0, 0.0, 0.5}, false);
  for (const Scheme& s : schemes()) {
    std::vector<double> sup;
    for (double h : {0.1, 0.05, 0.025}) {
      const Result r = run_scheme(s, false, x0, h, 50.0);
      double m = 0.0;
      for (long n = 0; n < r.y_steps.size(); ++n)
        if (r.t_steps[n] >= 25.0)
          m = std::max(m, std::abs(r.y_steps[n][3] - sphere_limit_cycle_lambda(r.y_steps[n])));
      sup.push_back(m);
    }
    const double p = rate(sup[1], sup[2]);
    std::printf(
        "%-36s sup |lambda_n - psi0(u_n)| on [25, 50]: h = 0.1 %.2e, 0.05 %.2e, "
        "0.025 %.2e: rate %.2f (theorem: %d)\n",
        s.name.c_str(), sup[0], sup[1], sup[2], p, s.q);
    // measured 0.99, 3.00, 1.99, 2.97: the bound is attained (issue 28: assert what is measured)
    EXPECT_NEAR(p, s.q, 0.3) << s.name;
  }
}

// claim: 001-eq3.1-attracting
// claim: 001-L3.4-contraction
TEST(Index2Geometry, EmbeddingWithBIdentityContractsTheConstraint) {
  // u' = f(u, lambda), v' = -v, 0 = g(u) - v: the discrete v is the method applied to v' = -v,
  // so g(u_n) = v_n = R(-h)^n g(u0): the constraint manifold attracts (Lemma 3.4)
  const double h = 0.1, v0 = 0.1;
  const Vector x0 = start({1.0, 0.2, 0.3}, true, v0);
  for (const Scheme& s : schemes()) {
    const Result r = run_scheme(s, true, x0, h, 3.0);
    const double R = s.R(-h);
    double worst = 0.0;
    for (long n = 0; n < r.y_steps.size(); ++n) {
      const double g = 0.5 * (r.y_steps[n].head(3).squaredNorm() - 1.0);
      worst = std::max(worst, std::abs(g - std::pow(R, static_cast<double>(n)) * v0));
    }
    const double g_end = 0.5 * (r.y.head(3).squaredNorm() - 1.0);
    std::printf(
        "%-36s R(-h) = %.6f: g(u_n) / g(u_0) at t = 3: %.6f (R^30 = %.6f, e^-3 = %.6f), "
        "max |g(u_n) - R(-h)^n g(u_0)| = %.1e\n",
        s.name.c_str(), R, g_end / v0, std::pow(R, 30.0), std::exp(-3.0), worst);
    EXPECT_LT(worst, 1e-12) << s.name;
  }
}

// Paper 001 (4.10): the index-1 problem u' = f(u, lambda), 0 = Dg(u) f(u, lambda) + B g(u)
// (B = beta I, the embedding (3.1) with v eliminated): along its solutions g(u(t)) =
// e^{-beta t} g(u0), the constraint manifold attracts; from a consistent start it has the
// index-2 problem's solution. radau5 at rtol = atol = 1e-10 on [0, 3].
// claim: 001-eq4.10-index1
TEST(Index2Geometry, StabilisedIndex1FormulationAttractsTheConstraint) {
  Options o;
  o.rtol = o.atol = 1e-10;
  for (double beta : {0.0, 1.0, 4.0}) {
    const SemiExplicitDae s = stabilized_index1_form(sphere_limit_cycle(false), beta);
    EXPECT_EQ(s.algebraic_index, 1);
    const MassMatrixDae dae = to_mass_matrix_form(s);
    const double g0 = 0.1;  // |u0|^2 = 1 + 2 g0
    const Eigen::Vector3d u0 = Eigen::Vector3d(1.0, 0.2, 0.3).normalized() * std::sqrt(1 + 2 * g0);
    Vector x0(4);
    x0.head(3) = u0;
    x0[3] = sphere_limit_cycle_lambda(u0, beta * g0);  // 0 = u.F - |u|^2 lambda + beta g
    const Result r = solve(dae, 0.0, 3.0, x0, "radau5", o);
    ASSERT_TRUE(r.ok()) << r.message;
    double worst = 0.0;
    for (size_t n = 0; n < r.y_steps.size(); ++n) {
      const double g = 0.5 * (r.y_steps[n].head(3).squaredNorm() - 1.0);
      worst = std::max(worst, std::abs(g - g0 * std::exp(-beta * r.t_steps[n])));
    }
    std::printf(
        "(4.10), beta = %g: g(u(3)) / g(u0) = %.8f (e^(-3 beta) = %.8f), max |g - g0 "
        "e^(-beta t)| = %.1e over %zu steps\n",
        beta, 0.5 * (r.y.head(3).squaredNorm() - 1.0) / g0, std::exp(-3 * beta), worst,
        r.y_steps.size());
    EXPECT_LT(worst, 1e-10) << beta;  // measured <= 4.1e-12
  }
  // from a consistent start on the sphere: the index-2 problem's solution
  const Vector on = start({1.0, 0.0, 0.5}, false);
  const Result r2 =
      solve(to_mass_matrix_form(sphere_limit_cycle(false)), 0.0, 3.0, on, "radau5", o);
  const Result r1 =
      solve(to_mass_matrix_form(stabilized_index1_form(sphere_limit_cycle(false), 1.0)), 0.0, 3.0,
            on, "radau5", o);
  ASSERT_TRUE(r1.ok() && r2.ok()) << r1.message << r2.message;
  const double diff = (r1.y - r2.y).cwiseAbs().maxCoeff();
  std::printf("(4.10) vs the index-2 form from a consistent start: max difference at t = 3 %.1e\n",
              diff);
  EXPECT_LT(diff, 1e-7);
  EXPECT_THROW(stabilized_index1_form(sphere_limit_cycle(false), -1.0), InvalidArgument);
}

// claim: 001-T2.2-curve
// claim: 001-C2.3-curve-in-g0
TEST(Index2Geometry, InvariantClosedCurveNearTheLimitCycle) {
  // Theorem 2.2 / Corollary 2.3: after the transient (e^-t), the iterates lie on a closed curve
  // within O(h^q) [O(h^r)] of the periodic orbit, and in g = 0
  const Vector x0 = start({1.0, 0.0, 0.5}, false);
  for (const Scheme& s : schemes()) {
    std::vector<double> dist;
    double max_g = 0.0;
    for (double h : {0.2, 0.1, 0.05}) {
      const Result r = run_scheme(s, false, x0, h, 60.0);
      double d = 0.0;
      for (long n = 0; n < r.y_steps.size(); ++n) {
        if (r.t_steps[n] < 40.0) continue;
        d = std::max(d, sphere_limit_cycle_distance(r.y_steps[n]));
        max_g = std::max(max_g, std::abs(0.5 * (r.y_steps[n].head(3).squaredNorm() - 1.0)));
      }
      dist.push_back(d);
    }
    const double p = rate(dist[1], dist[2]);
    std::printf(
        "%-36s distance of the invariant curve from the orbit: h = 0.2 %.2e, 0.1 %.2e, "
        "0.05 %.2e: rate %.2f (theorem: >= %d); max |g| %.1e\n",
        s.name.c_str(), dist[0], dist[1], dist[2], p, s.q, max_g);
    EXPECT_GE(p, s.q - 0.3) << s.name;
    // measured 0.98, 5.08, 3.23, 3.95: the classical order of each scheme (as on the Van der Pol
    // cycle below), above the theorem's h^q [h^r] for all but the theta-method
    const double measured = s.name.find("theta") != std::string::npos   ? 1.0
                            : s.name.find("Radau") != std::string::npos ? 5.0
                            : s.name.find("bh3") != std::string::npos   ? 3.0
                                                                        : 4.0;
    EXPECT_NEAR(p, measured, 0.3) << s.name;
    EXPECT_GT(dist[2], 0.0) << s.name;  // not pinned by a symmetry
    EXPECT_LT(max_g, 1e-12) << s.name;
  }
}

namespace {
// A limit cycle that no symmetry makes a circle: Van der Pol (mu = 1) scaled by 1/4 into the
// (u1, u2) plane and lifted onto the upper unit hemisphere,
//   u' = F(u) - u lambda,  0 = g(u) = (|u|^2 - 1) / 2,
//   F(u) = (V1, V2, -(u1 V1 + u2 V2) / u3) + u rho(u),  V = s vdp(u1 / s, u2 / s), s = 1/4,
// rho = 1 + u1: the first part is tangent to every sphere |u| = const, so lambda = psi0(u) =
// rho(u) on the unit sphere, and (u1, u2) / s follows Van der Pol exactly: the orbit is the
// Van der Pol cycle (period 6.663, attracting) lifted to the sphere.
constexpr double kVdpScale = 0.25;
SemiExplicitDae vdp_on_sphere() {
  SemiExplicitDae d;
  d.name = "Van der Pol cycle on the sphere";
  d.ny = 3;
  d.nz = 1;
  d.algebraic_index = 2;
  d.f = [](double, VecIn u, VecIn z, VecOut out) {
    const double s = kVdpScale, x = u[0] / s, y = u[1] / s;
    const double v1 = s * y, v2 = s * ((1 - x * x) * y - x);
    const double rho = 1 + u[0];
    out[0] = v1 + (rho - z[0]) * u[0];
    out[1] = v2 + (rho - z[0]) * u[1];
    out[2] = -(u[0] * v1 + u[1] * v2) / u[2] + (rho - z[0]) * u[2];
  };
  d.g = [](double, VecIn u, VecIn, VecOut g) { g[0] = 0.5 * (u.squaredNorm() - 1.0); };
  return d;
}

// The Van der Pol cycle by radau5 at 1e-12 (one period after the transient), and the distance
// of a point (x, y) from it: nearest of 20000 samples, refined by golden-section search on the
// dense output around it.
struct VdpCycle {
  Result r;
  double t0 = 0, period = 0;
  std::vector<Eigen::Vector2d> samples;
  VdpCycle() {
    MassMatrixDae vdp;
    vdp.n = 2;
    vdp.f = [](double, VecIn x, VecOut f) {
      f[0] = x[1];
      f[1] = (1 - x[0] * x[0]) * x[1] - x[0];
    };
    Options o;
    o.rtol = o.atol = 1e-12;
    o.store_dense = true;
    r = solve(vdp, 0.0, 60.0, (Vector(2) << 2.0, 0.0).finished(), "radau5", o);
    EXPECT_TRUE(r.ok()) << r.message;
    t0 = 50.0;
    period = 6.6632868593;
    for (int k = 0; k < 20000; ++k) {
      const Vector x = r.sol(t0 + period * k / 20000.0);
      samples.emplace_back(x[0], x[1]);
    }
  }
  double distance(const Eigen::Vector2d& p) const {
    int best = 0;
    for (int k = 1; k < static_cast<int>(samples.size()); ++k)
      if ((samples[k] - p).squaredNorm() < (samples[best] - p).squaredNorm()) best = k;
    auto d2 = [&](double t) {
      const Vector x = r.sol(t);
      return (Eigen::Vector2d(x[0], x[1]) - p).squaredNorm();
    };
    const double dt = period / 20000.0, g = (std::sqrt(5.0) - 1) / 2;
    double lo = t0 + period * best / 20000.0 - dt, hi = lo + 2 * dt;
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = d2(x1), f2 = d2(x2);
    for (int it = 0; it < 60; ++it) {
      if (f1 <= f2) {
        hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = d2(x1);
      } else {
        lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = d2(x2);
      }
    }
    return std::sqrt(std::min(f1, f2));
  }
};
}  // namespace

// Theorem 2.2 on an orbit that is not a circle: the Van der Pol cycle on the sphere. After the
// transient (t in [40, 60]) the iterates lie within C h^q [C h^r] of the orbit (distance of
// (u1, u2) from the scaled cycle) and on g = 0.
// claim: 001-T2.2-curve
// claim: 001-T2.2-noncircular
// claim: 001-C2.3-curve-in-g0
TEST(Index2Geometry, InvariantCurveNearANonCircularLimitCycle) {
  const VdpCycle cycle;
  const MassMatrixDae dae = to_mass_matrix_form(vdp_on_sphere());
  Vector x0(4);
  x0 << 0.5 * kVdpScale, 0.0, std::sqrt(1 - 0.25 * kVdpScale * kVdpScale), 0.0;
  x0[3] = 1 + x0[0];  // lambda0 = rho(u0)
  for (const Scheme& s : schemes()) {
    std::vector<double> dist;
    for (double h : {0.1, 0.05}) {
      Options o;
      o.fixed_step = true;
      o.h0 = h;
      o.rtol = o.atol = 1e-12;
      o.check_jacobian = false;
      if (s.name.find("projected") == 0) o.projection = Projection::Full;
      const Result r = solve(dae, 0.0, 60.0, x0, s.choice, o);
      ASSERT_TRUE(r.ok()) << s.name << ": " << r.message;
      double d = 0.0, max_g = 0.0;
      for (size_t n = 0; n < r.y_steps.size(); ++n) {
        if (r.t_steps[n] < 40.0) continue;
        const Vector& u = r.y_steps[n];
        d = std::max(d, kVdpScale * cycle.distance({u[0] / kVdpScale, u[1] / kVdpScale}));
        max_g = std::max(max_g, std::abs(0.5 * (u.head(3).squaredNorm() - 1.0)));
      }
      dist.push_back(d);
      EXPECT_LT(max_g, 1e-12) << s.name;
    }
    const double p = rate(dist[0], dist[1]);
    // measured: the classical order of each scheme (theta 1, Radau IIA(3) 5 = 2s - 1, bh3 3,
    // hem4 4), above the theorem's h^q [h^r]
    const double measured = s.name.find("theta") != std::string::npos   ? 1.0
                            : s.name.find("Radau") != std::string::npos ? 5.0
                            : s.name.find("bh3") != std::string::npos   ? 3.0
                                                                        : 4.0;
    std::printf(
        "%-36s Van der Pol cycle on the sphere: distance h = 0.1 %.2e, 0.05 %.2e: rate "
        "%.2f (theorem: >= %d, asserted %g +- 0.3)\n",
        s.name.c_str(), dist[0], dist[1], p, s.q, measured);
    EXPECT_GE(p, s.q - 0.3) << s.name;
    EXPECT_NEAR(p, measured, 0.3) << s.name;
  }
}
