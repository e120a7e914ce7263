// Every formulation of a MechanicalSystem (index 3, index 2, index 1, GGL) solves the
// pendulum to the accuracy its index allows; the drift of each is what the theory says.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "daekit/daekit.hpp"
#include "nonlinear/systems.hpp"

using namespace daekit;

namespace {
struct FormRun {
  Result r;
  double err_q, err_v;
};
FormRun run_formulation(const MechanicalSystem& sys, Formulation form, double T, double tol) {
  const MassMatrixDae dae = formulate(sys, form);
  Vector q0(2), v0(2);
  q0 << 1, 0;
  v0 << 0, 0;
  const Vector y0 = initial_values(sys, form, 0.0, q0, v0);
  Options o;
  o.rtol = o.atol = tol;
  o.store_steps = false;
  FormRun out{solve(dae, 0.0, T, y0, Radau5Options{}, o), 0, 0};
  const Vector ref = pendulum_reference(T);
  const MechanicalLayout L = mechanical_layout(sys, form);
  out.err_q = (out.r.y.segment(L.q, 2) - ref.head(2)).cwiseAbs().maxCoeff();
  out.err_v = (out.r.y.segment(L.v, 2) - ref.segment(2, 2)).cwiseAbs().maxCoeff();
  return out;
}
}  // namespace

TEST(Formulations, LayoutsAndTags) {
  MechanicalSystem s = pendulum_mechanical_system();
  EXPECT_EQ(formulate(s, Formulation::Index3).index, (std::vector<int>{1, 1, 2, 2, 3}));
  EXPECT_EQ(formulate(s, Formulation::Index2).index, (std::vector<int>{1, 1, 1, 1, 2}));
  EXPECT_EQ(formulate(s, Formulation::Index1).index, (std::vector<int>{1, 1, 1, 1, 1}));
  EXPECT_EQ(formulate(s, Formulation::GGL).index, (std::vector<int>{1, 1, 1, 1, 2, 2}));
  s.constant_mass = false;
  EXPECT_EQ(formulate(s, Formulation::Index3).n, 7);  // q, v, w, lambda
  EXPECT_EQ(formulate(s, Formulation::GGL).n, 8);
  EXPECT_EQ(parse_formulation("ggl"), Formulation::GGL);
  EXPECT_THROW(parse_formulation("index4"), InvalidArgument);
}

// claim: 004-3-pendulum-forms
TEST(Formulations, AllSolveThePendulum) {
  for (bool constant_mass : {true, false}) {
    MechanicalSystem sys = pendulum_mechanical_system();
    sys.constant_mass = constant_mass;
    for (Formulation form :
         {Formulation::Index3, Formulation::Index2, Formulation::Index1, Formulation::GGL}) {
      const FormRun a = run_formulation(sys, form, 10.0, 1e-8);
      ASSERT_TRUE(a.r.ok()) << to_string(form) << ": " << a.r.message;
      std::printf("%-6s %s mass: err q %.1e v %.1e  max|d1| %.1e max|d2| %.1e  nfev %ld\n",
                  to_string(form), constant_mass ? "constant" : "general ", a.err_q, a.err_v,
                  a.r.max_residual.position, a.r.max_residual.velocity, a.r.stats.nfev);
      EXPECT_LT(a.err_q, 1e-4) << to_string(form);
      EXPECT_LT(a.err_v, 1e-4) << to_string(form);
      // constraints the formulation enforces hold to the Newton tolerance
      if (form == Formulation::Index3 || form == Formulation::GGL)
        EXPECT_LT(a.r.max_residual.position, 1e-7) << to_string(form);
      if (form == Formulation::Index2 || form == Formulation::GGL)
        EXPECT_LT(a.r.max_residual.velocity, 1e-7) << to_string(form);
    }
  }
}

// claim: 004-9-index1-drift
TEST(Formulations, Index1DriftsOffAndGrows) {
  const MechanicalSystem sys = pendulum_mechanical_system();
  const FormRun short_run = run_formulation(sys, Formulation::Index1, 10.0, 1e-6);
  const FormRun long_run = run_formulation(sys, Formulation::Index1, 100.0, 1e-6);
  const FormRun ggl = run_formulation(sys, Formulation::GGL, 100.0, 1e-6);
  ASSERT_TRUE(short_run.r.ok() && long_run.r.ok() && ggl.r.ok());
  EXPECT_GT(long_run.r.max_residual.position, 3 * short_run.r.max_residual.position);
  EXPECT_GT(long_run.r.max_residual.position, 100 * ggl.r.max_residual.position);
}

TEST(Formulations, InitialVelocityProjectionOnRequest) {
  const MechanicalSystem sys = pendulum_mechanical_system();
  Vector q0(2), v0(2);
  q0 << 1, 0;
  v0 << 0.3, 0.5;  // violates u.v = 0
  const Vector y = initial_values(sys, Formulation::Index3, 0.0, q0, v0, true);
  EXPECT_NEAR(y[2], 0.0, 1e-15);
  EXPECT_NEAR(y[3], 0.5, 1e-15);
  EXPECT_NO_THROW(check_consistent_positions(sys, 0.0, q0, y.segment(2, 2), 1e-14));
}

// Issue 3: every formulation also solves Andrews' squeezer (7 positions, 6 constraints) to
// the accuracy its index allows; positions against the IVP Test Set reference at t = 0.03.
TEST(Formulations, AllSolveAndrews) {
  const BuiltinProblem p = make_builtin_problem("andrews");
  ASSERT_TRUE(p.mechanical.has_value());
  const MechanicalSystem& sys = *p.mechanical;
  const int nq = sys.nq;
  const Vector q0 = p.y0.head(nq), v0 = p.y0.segment(nq, nq);
  const Vector ref_q = p.reference->y.head(nq);
  struct Variant {
    Formulation form;
    Projection projection;
    double min_scd_q;
  };
  // index 3 scales the error of v by h and of lambda by h^2: its positions are the least
  // accurate, and vary with the start by tenths of a digit (4.30 from the estimated first
  // step, 4.33 from the test set's h0 = 1e-7, 4.4 from h0 = 1e-6); the projection (2.8)
  // removes the drift of G v
  for (const Variant& var : {Variant{Formulation::Index3, Projection::None, 4.2},
                             Variant{Formulation::Index3, Projection::Velocity, 4.4},
                             Variant{Formulation::Index2, Projection::None, 5.0},
                             Variant{Formulation::Index1, Projection::None, 5.0},
                             Variant{Formulation::GGL, Projection::None, 5.0}}) {
    const MassMatrixDae dae = formulate(sys, var.form);
    const Vector y0 = initial_values(sys, var.form, 0.0, q0, v0);
    Options o;
    o.rtol = o.atol = 1e-7;
    o.store_steps = false;
    Radau5Options m;
    m.projection = var.projection;
    const Result r = solve(dae, 0.0, 0.03, y0, m, o);
    ASSERT_TRUE(r.ok()) << to_string(var.form) << ": " << r.message;
    const MechanicalLayout L = mechanical_layout(sys, var.form);
    const double digits = scd(Vector(r.y.segment(L.q, nq)), ref_q);
    std::printf("andrews %-6s%s: scd(q) %.2f, nfev %ld, max|g| %.1e, max|G v| %.1e\n",
                to_string(var.form), var.projection == Projection::None ? "       " : " + proj",
                digits, r.stats.nfev, r.max_residual.position, r.max_residual.velocity);
    EXPECT_GT(digits, var.min_scd_q) << to_string(var.form);
    if (var.projection == Projection::Velocity) EXPECT_LT(r.max_residual.velocity, 1e-12);
    if (var.form == Formulation::Index3 && var.projection == Projection::None)
      EXPECT_GT(r.max_residual.velocity, 1e-6);  // the hidden constraint drifts
    if (var.form == Formulation::Index2 || var.form == Formulation::GGL)
      EXPECT_LT(r.max_residual.velocity, 1e-6);
  }
}

// The formulations' f sums G^T lambda in its own loop (no matrix-vector kernel per call): its
// values are Eigen's product's to the bit, for every number of constraints (the loop's even
// and odd sums, an odd last term, the fall-back for nq = 1) and signed zeros, in the forms
// with constant mass (M v' = f - G^T lambda), general mass (0 = M w - f + G^T lambda) and GGL
// (q' = v - G^T mu).
TEST(Formulations, ConstraintForceSumsAsEigenToTheBit) {
  for (const auto& [nq, m] :
       std::vector<std::pair<int, int>>{{1, 1}, {6, 1}, {6, 2}, {6, 3}, {6, 5}, {7, 7}}) {
    std::srand(static_cast<unsigned>(17 * nq + m));
    const Matrix A = Matrix::Random(m, nq);
    const Vector Mdiag = Vector::Random(nq).cwiseAbs().array() + 1.0;
    for (bool constant_mass : {true, false}) {
      MechanicalSystem sys;
      sys.nq = nq;
      sys.nlambda = m;
      sys.constant_mass = constant_mass;
      sys.mass = [Mdiag](double, VecIn, MatOut M) { M = Mdiag.asDiagonal(); };
      sys.force = [](double, VecIn q, VecIn v, VecOut f) { f = q.array().sin() - v.array(); };
      sys.g = [A](double, VecIn q, VecOut g) { g = A * q; };
      sys.G = [A](double, VecIn, MatOut G) { G = A; };
      for (Formulation form : {Formulation::Index3, Formulation::GGL}) {
        const MassMatrixDae dae = formulate(sys, form);
        const MechanicalLayout L = mechanical_layout(sys, form);
        for (bool zeros : {false, true}) {
          Vector y = Vector::Random(L.n);
          if (zeros) {  // lambda, mu and f all -0: the signs of the sums' zeros show
            y.setConstant(-0.0);
          }
          Vector out(L.n);
          dae.f(0.5, y, out, dae.p);
          const Vector q = y.segment(L.q, nq), v = y.segment(L.v, nq);
          const Vector lambda = y.segment(L.lambda, m);
          Vector f(nq);
          f = q.array().sin() - v.array();
          Vector expect(nq);
          if (L.w < 0) {
            expect = f;
            expect.noalias() -= A.transpose() * lambda;
            for (int i = 0; i < nq; ++i)
              EXPECT_EQ(std::bit_cast<std::uint64_t>(out[L.v + i]),
                        std::bit_cast<std::uint64_t>(expect[i]))
                  << "nq " << nq << " m " << m << " " << to_string(form) << " i " << i;
          } else {
            const Vector w = y.segment(L.w, nq);
            expect.noalias() = Matrix(Mdiag.asDiagonal()) * w;
            expect -= f;
            expect.noalias() += A.transpose() * lambda;
            for (int i = 0; i < nq; ++i)
              EXPECT_EQ(std::bit_cast<std::uint64_t>(out[L.w + i]),
                        std::bit_cast<std::uint64_t>(expect[i]))
                  << "nq " << nq << " m " << m << " " << to_string(form) << " w-row " << i;
          }
          if (form == Formulation::GGL) {
            expect = v;
            expect.noalias() -= A.transpose() * y.segment(L.mu, m);
            for (int i = 0; i < nq; ++i)
              EXPECT_EQ(std::bit_cast<std::uint64_t>(out[L.q + i]),
                        std::bit_cast<std::uint64_t>(expect[i]))
                  << "nq " << nq << " m " << m << " ggl q-row " << i;
          }
        }
      }
    }
  }
}

// The formulations' f evaluates G, g and M once per (t, q, p): a second evaluation at the same
// arguments to the bit (a difference Jacobian's columns for v and lambda) uses the kept terms,
// and the values are those of a fresh evaluation; any other t, q (also -0 for 0) or p, and
// any evaluation after one whose G threw, calls the model again.
TEST(Formulations, PositionTermsKeptForTheSameArguments) {
  auto calls = std::make_shared<std::vector<int>>(4, 0);  // G, g, M, forces
  auto throw_next = std::make_shared<bool>(false);
  MechanicalSystem sys;
  sys.nq = 2;
  sys.nlambda = 1;
  sys.mass = [calls](double, VecIn q, MatOut M, VecIn) {
    ++(*calls)[2];
    M.setIdentity();
    M(0, 0) = 2 + q[0] * q[0];
  };
  sys.force = [calls](double t, VecIn q, VecIn v, VecOut f, VecIn) {
    ++(*calls)[3];
    f = q.array().sin() - t * v.array();
  };
  sys.g = [calls](double t, VecIn q, VecOut g, VecIn p) {
    ++(*calls)[1];
    g[0] = q.squaredNorm() - 1 + t * p[0];
  };
  sys.G = [calls, throw_next](double, VecIn q, MatOut G, VecIn p) {
    ++(*calls)[0];
    if (*throw_next) {
      *throw_next = false;
      throw std::runtime_error("G failed");
    }
    G = 2 * q.transpose() * p[0];
  };
  sys.p = Vector::Constant(1, 1.5);
  for (Formulation form : {Formulation::Index3, Formulation::Index2, Formulation::GGL}) {
    for (bool general_mass : {false, true}) {
      sys.constant_mass = !general_mass;
      MassMatrixDae dae = formulate(sys, form);
      const MechanicalLayout L = mechanical_layout(sys, form);
      const std::string what = std::string(to_string(form)) + (general_mass ? " M(q)" : " M");
      Vector y = Vector::LinSpaced(L.n, 0.3, 1.1), out(L.n), expect(L.n);
      const auto counts = [&] { return *calls; };
      const auto same_as_fresh = [&](double t, const Vector& yy, const Vector& p) {
        dae.f(t, yy, out, p);
        const std::vector<int> after = counts();
        formulate(sys, form).f(t, yy, expect, p);  // nothing kept: evaluates everything
        *calls = after;
        for (int i = 0; i < L.n; ++i)
          EXPECT_EQ(std::bit_cast<std::uint64_t>(out[i]), std::bit_cast<std::uint64_t>(expect[i]))
              << what << " component " << i;
      };
      const int g_per_call = form == Formulation::Index2 ? 0 : 1;
      const int m_per_call = L.w >= 0 ? 1 : 0;
      same_as_fresh(0.5, y, sys.p);
      std::vector<int> before = counts();
      // v and lambda moved, q kept: G, g and M kept
      Vector y2 = y;
      y2.segment(L.v, 2) *= 3.0;
      y2.segment(L.lambda, 1) *= -2.0;
      same_as_fresh(0.5, y2, sys.p);
      EXPECT_EQ(counts()[3], before[3] + 1) << what;  // the forces for the new v
      before[3] += 1;
      EXPECT_EQ(counts(), before) << what;
      // lambda moved, q and v kept: the forces kept too
      y2.segment(L.lambda, 1) *= 0.5;
      same_as_fresh(0.5, y2, sys.p);
      EXPECT_EQ(counts(), before) << what;
      // another q, t or p, or q[0] = -0 after +0: evaluated again
      Vector y3 = y;
      y3[L.q] = 0.0;
      same_as_fresh(0.5, y3, sys.p);
      y3[L.q] = -0.0;
      same_as_fresh(0.5, y3, sys.p);
      same_as_fresh(0.7, y3, sys.p);
      same_as_fresh(0.7, y3, Vector::Constant(1, 2.5));
      const std::vector<int> now = counts();
      EXPECT_EQ(now[0] - before[0], 4) << what;
      EXPECT_EQ(now[1] - before[1], 4 * g_per_call) << what;
      EXPECT_EQ(now[2] - before[2], 4 * m_per_call) << what;
      // a G that threw leaves nothing kept: the next call at the same arguments evaluates
      *throw_next = true;
      EXPECT_THROW(dae.f(0.9, y, out, sys.p), std::runtime_error) << what;
      before = counts();
      same_as_fresh(0.9, y, sys.p);
      EXPECT_EQ(counts()[0] - before[0], 1) << what;
    }
  }
}

// A solve's copy of a formulation (MassMatrixSystem) links its drift monitor to its right-hand
// side: right after f at a point (as after an accepted step) the monitor takes G, g and the
// forces from f's evaluation instead of calling the model, and its residuals are an unlinked
// monitor's to the bit; at other arguments, and in any copy of the problem (copies are
// independent objects), the monitor evaluates the model itself. The same for a model whose f
// is one call for M, f, g and G (`terms`).
TEST(Formulations, LinkedDriftMonitorReusesTheRightHandSide) {
  auto calls = std::make_shared<std::vector<int>>(3, 0);  // G, g, forces
  MechanicalSystem sys;
  sys.nq = 3;
  sys.nlambda = 1;
  sys.constant_mass = true;
  sys.mass = [](double, VecIn, MatOut M) {
    M.setIdentity();
    M(0, 1) = M(1, 0) = 0.25;  // not diagonal: the monitor solves with M's LU
  };
  sys.force = [calls](double t, VecIn q, VecIn v, VecOut f, VecIn p) {
    ++(*calls)[2];
    f = p[0] * q.array().sin() - t * v.array();
  };
  sys.g = [calls](double, VecIn q, VecOut g) {
    ++(*calls)[1];
    g[0] = q.squaredNorm() - 1;
  };
  sys.G = [calls](double, VecIn q, MatOut G) {
    ++(*calls)[0];
    G = 2 * q.transpose();
  };
  // analytic (a difference curvature would call G twice more)
  sys.curvature = [](double, VecIn, VecIn v, VecOut c) { c[0] = 2 * v.squaredNorm(); };
  sys.p = Vector::Constant(1, 1.5);
  const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  for (int variant = 0; variant < 8; ++variant) {
    const Formulation form =
        std::vector<Formulation>{Formulation::Index3, Formulation::Index2, Formulation::Index1,
                                 Formulation::GGL}[variant % 4];
    const bool with_terms = variant >= 4;  // one call for M, f, g, G (as Andrews' model)
    sys.terms = nullptr;
    if (with_terms)
      sys.terms = [sys](double t, VecIn q, VecIn v, MatOut M, VecOut f, VecOut g, MatOut G,
                        VecIn p) {
        sys.mass(t, q, M, p);
        sys.force(t, q, v, f, p);
        sys.g(t, q, g, p);
        sys.G(t, q, G, p);
      };
    const std::string what = std::string(to_string(form)) + (with_terms ? " terms" : "");
    const MassMatrixDae dae = formulate(sys, form);
    const MechanicalLayout L = mechanical_layout(sys, form);
    CallGuard guard;
    Stats stats;
    MassMatrixSystem S(dae, LinearSolverKind::Dense, guard, stats);
    const Vector y = Vector::LinSpaced(L.n, 0.3, 1.1);
    Vector out(L.n);
    const auto expect_unlinked = [&](const Vector& at, const ConstraintResiduals& r) {
      const std::vector<int> before = *calls;
      const ConstraintResiduals e = dae.constraint_monitor(0.5, at, sys.p);
      EXPECT_EQ((*calls)[0], before[0] + 1) << what << ": the original is not linked";
      EXPECT_EQ(bits(r.position), bits(e.position)) << what;
      EXPECT_EQ(bits(r.velocity), bits(e.velocity)) << what;
      EXPECT_EQ(bits(r.acceleration), bits(e.acceleration)) << what;
    };
    ASSERT_TRUE(S.f(0.5, y, out)) << what;
    std::vector<int> before = *calls;
    ConstraintResiduals r;
    ASSERT_TRUE(S.monitor(0.5, y, r)) << what;
    // G and the forces from f; g too where f evaluates it (index 3, GGL)
    const bool f_has_g = form == Formulation::Index3 || form == Formulation::GGL;
    EXPECT_EQ((*calls)[0], before[0]) << what;
    EXPECT_EQ((*calls)[1], before[1] + (f_has_g ? 0 : 1)) << what;
    EXPECT_EQ((*calls)[2], before[2]) << what;
    expect_unlinked(y, r);
    // another q: the monitor evaluates G, g and the forces itself
    Vector y2 = y;
    y2[L.q] += 0.25;
    before = *calls;
    ASSERT_TRUE(S.monitor(0.5, y2, r)) << what;
    EXPECT_EQ(*calls, (std::vector<int>{before[0] + 1, before[1] + 1, before[2] + 1})) << what;
    expect_unlinked(y2, r);
    // the same q, another v: G and g from f, the forces evaluated
    ASSERT_TRUE(S.f(0.5, y, out)) << what;
    y2 = y;
    y2[L.v] += 0.5;
    before = *calls;
    ASSERT_TRUE(S.monitor(0.5, y2, r)) << what;
    EXPECT_EQ((*calls)[0], before[0]) << what;
    EXPECT_EQ((*calls)[2], before[2] + 1) << what;
    expect_unlinked(y2, r);
    // a copy of the solve's problem is not linked to anything
    MassMatrixDae copy = S.dae();
    ASSERT_TRUE(S.f(0.5, y, out)) << what;
    before = *calls;
    const ConstraintResiduals c = copy.constraint_monitor(0.5, y, sys.p);
    EXPECT_EQ((*calls)[0], before[0] + 1) << what;
    expect_unlinked(y, c);
  }
}

// The index-3 drift monitor of a system with a constant diagonal mass divides by the diagonal
// instead of solving with M's LU: the residuals are the LU's to the bit (signed zeros in the
// forces among them), and a non-finite force still goes through the LU.
TEST(Formulations, DiagonalMassMonitorAsTheLuSolve) {
  for (bool non_finite : {false, true}) {
    MechanicalSystem sys;
    sys.nq = 5;
    sys.nlambda = 2;
    sys.constant_mass = true;
    sys.mass = [](double, VecIn, MatOut M) {
      M.setZero();
      for (int i = 0; i < 5; ++i) M(i, i) = std::ldexp(1.0 + 0.3 * i, 3 * i - 6) * (i % 2 ? -1 : 1);
    };
    sys.force = [non_finite](double t, VecIn q, VecIn v, VecOut f) {
      for (int i = 0; i < 5; ++i) f[i] = i == 2 ? -0.0 : std::sin(7 * q[i] + t) * v[i];
      if (non_finite) f[3] = HUGE_VAL;
    };
    sys.g = [](double, VecIn q, VecOut g) {
      g[0] = q[0] * q[1] - q[2];
      g[1] = q[3] * q[3] + q[4] - 1.0;
    };
    sys.G = [](double, VecIn q, MatOut G) {
      G.setZero();
      G(0, 0) = q[1], G(0, 1) = q[0], G(0, 2) = -1.0;
      G(1, 3) = 2 * q[3], G(1, 4) = 1.0;
    };
    sys.curvature = [](double, VecIn, VecIn v, VecOut c) {
      c[0] = 2 * v[0] * v[1];
      c[1] = 2 * v[3] * v[3];
    };
    const MassMatrixDae dae = formulate(sys, Formulation::Index3);
    const MechanicalLayout L = mechanical_layout(sys, Formulation::Index3);
    Vector y = Vector::LinSpaced(L.n, -0.7, 1.3);
    y[L.v + 2] = -0.0;
    const ConstraintResiduals r = dae.constraint_monitor(0.25, y, dae.p);
    // the monitor as it was: vdot by the LU of M
    Matrix M(5, 5), G(2, 5);
    sys.mass(0.0, Vector::Zero(5), M);
    Vector f(5);
    const Vector q = y.segment(L.q, 5), v = y.segment(L.v, 5), lambda = y.segment(L.lambda, 2);
    sys.force(0.25, q, v, f);
    sys.G(0.25, q, G);
    f.noalias() -= G.transpose() * lambda;
    const Vector vdot = Eigen::PartialPivLU<Matrix>(M).solve(f);
    const ConstraintResiduals expect = constraint_residuals(sys, 0.25, q, v, vdot);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(r.position),
              std::bit_cast<std::uint64_t>(expect.position));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(r.velocity),
              std::bit_cast<std::uint64_t>(expect.velocity));
    if (non_finite)
      EXPECT_TRUE(std::isnan(r.acceleration) && std::isnan(expect.acceleration)) << r.acceleration;
    else
      EXPECT_EQ(std::bit_cast<std::uint64_t>(r.acceleration),
                std::bit_cast<std::uint64_t>(expect.acceleration));
  }
}

// The drift monitor forms G v and G v' in its own loop (no matrix-vector kernel per step): the
// residuals are those of Eigen's product to the bit for every shape (one constraint: Eigen's
// dot product), with terms of mixed magnitudes whose sum depends on the order.
TEST(Formulations, MonitorProductsAsEigenToTheBit) {
  for (int m = 1; m <= 9; ++m)
    for (int nq : {1, 2, 5, 9, 12}) {
      if (m > nq) continue;  // at most nq constraints
      std::srand(static_cast<unsigned>(31 * m + nq));
      Matrix A = Matrix::Random(m, nq);
      for (Eigen::Index k = 0; k < A.size(); ++k)
        A.data()[k] = std::ldexp(A.data()[k], static_cast<int>(k % 7) * 9 - 27);
      MechanicalSystem sys;
      sys.nq = nq;
      sys.nlambda = m;
      sys.mass = [](double, VecIn, MatOut M) { M.setIdentity(); };
      sys.force = [](double, VecIn q, VecIn v, VecOut f) { f = q - v; };
      sys.g = [A](double, VecIn q, VecOut g) { g = A * q; };
      sys.G = [A](double, VecIn, MatOut G) { G = A; };
      sys.curvature = [](double, VecIn, VecIn v, VecOut c) { c.setConstant(v.sum()); };
      const MassMatrixDae dae = formulate(sys, Formulation::Index3);
      const MechanicalLayout L = mechanical_layout(sys, Formulation::Index3);
      ASSERT_GE(L.w, 0);  // general mass: v' = w is read from y
      Vector y = Vector::Random(L.n);
      for (Eigen::Index k = 0; k < y.size(); ++k)
        y[k] = k % 5 == 3 ? -0.0 : std::ldexp(y[k], static_cast<int>(k % 4) * 11 - 15);
      const ConstraintResiduals r = dae.constraint_monitor(0.0, y, dae.p);
      const ConstraintResiduals expect = constraint_residuals(
          sys, 0.0, y.segment(L.q, nq), y.segment(L.v, nq), y.segment(L.w, nq));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(r.velocity),
                std::bit_cast<std::uint64_t>(expect.velocity))
          << "m " << m << " nq " << nq;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(r.acceleration),
                std::bit_cast<std::uint64_t>(expect.acceleration))
          << "m " << m << " nq " << nq;
    }
}
