// "The step loop allocates nothing" (developers' brief): count heap allocations (malloc and
// friends, so Eigen temporaries are seen too) between the first and the last accepted step of
// a solve that stores no trajectory.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "allocation_counter.hpp"
#include "daekit/daekit.hpp"
#include "daekit/problems/index2.hpp"

namespace {
std::atomic<long> g_allocations{0};
std::atomic<std::size_t> g_largest{0};

// Counts one allocation of `size` bytes and records the largest.
void count(std::size_t size) {
  ++g_allocations;
  std::size_t largest = g_largest.load(std::memory_order_relaxed);
  while (size > largest && !g_largest.compare_exchange_weak(largest, size)) {
  }
}
}  // namespace

long daekit_testing::heap_allocations() { return g_allocations.load(); }
std::size_t daekit_testing::largest_allocation() { return g_largest.load(); }
void daekit_testing::reset_largest_allocation() { g_largest.store(0); }

// Count every heap allocation: operator new (std::vector, std::function, ...) goes through
// malloc in libstdc++, and Eigen allocates its dynamic temporaries with malloc directly, so
// malloc itself is interposed (glibc: __libc_malloc and friends are the real allocator).
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t size) {
  count(size);
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  count(n * size);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  count(size);
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  count(size);
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12;  // ENOMEM
}
void free(void* p) { __libc_free(p); }
}

using namespace daekit;

namespace {
// Allocations counted from the first accepted step to the last one.
long allocations_in_step_loop(const BuiltinProblem& p, bool analytic_jacobian, long* steps,
                              bool bdf = false, Radau5Options radau5 = {}) {
  MassMatrixDae dae = p.dae;
  if (!analytic_jacobian) dae.jacobian = nullptr;
  Options o;
  o.rtol = o.atol = 1e-8;
  o.h0 = p.h0;
  o.store_steps = false;
  long first = -1, last = -1;
  o.step_callback = [&](const StepInfo&) {
    if (first < 0) first = g_allocations.load();
    last = g_allocations.load();
    return true;
  };
  Result r = bdf ? solve(dae, p.t0, p.t_end, p.y0, BdfOptions{}, o)
                 : solve(dae, p.t0, p.t_end, p.y0, radau5, o);
  EXPECT_TRUE(r.ok()) << r.message;
  *steps = r.stats.nsteps;
  return last - first;
}

// The same for any method chosen by its options.
long allocations_with(const BuiltinProblem& p, bool analytic_jacobian, const MethodChoice& m,
                      double tol, long* steps) {
  MassMatrixDae dae = p.dae;
  if (!analytic_jacobian) dae.jacobian = nullptr;
  Options o;
  o.rtol = o.atol = tol;
  o.h0 = p.h0;
  o.store_steps = false;
  long first = -1, last = -1;
  o.step_callback = [&](const StepInfo&) {
    if (first < 0) first = g_allocations.load();
    last = g_allocations.load();
    return true;
  };
  Result r = solve(dae, p.t0, p.t_end, p.y0, m, o);
  EXPECT_TRUE(r.ok()) << r.message;
  *steps = r.stats.nsteps;
  return last - first;
}
}  // namespace

// Variable-order Radau (all three orders are visited at 1e-10 on these problems), the DIRK
// engine with an ESDIRK and an SDIRK tableau, and the explicit methods on an ODE and on the
// state-space form of an index-1 DAE.
TEST(Allocation, RadauDirkErkStepLoopsAllocateNothing) {
  for (const char* name : {"pendulum", "vanderpol", "andrews", "transistor", "akzo"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (bool analytic : {true, false}) {
      long steps = 0;
      EXPECT_EQ(allocations_with(p, analytic, RadauOptions{}, 1e-10, &steps), 0)
          << "radau " << name << (analytic ? " analytic" : " finite-difference");
      EXPECT_GT(steps, 20);
    }
  }
  for (const char* name : {"vanderpol", "robertson-dae", "transistor"})
    for (const RungeKuttaTableau& t : {kvaerno_esdirk4(), sdirk4_hw16()}) {
      const BuiltinProblem p = make_builtin_problem(name);
      DirkOptions m;
      m.tableau = t;
      long steps = 0;
      EXPECT_EQ(allocations_with(p, true, m, 1e-6, &steps), 0) << "dirk " << t.name << " " << name;
      EXPECT_GT(steps, 20);
    }
  // erk: an ODE (Van der Pol with eps = 1, not stiff) and the index-1 form of the pendulum
  MassMatrixDae ode;
  ode.n = 2;
  ode.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = (1 - y[0] * y[0]) * y[1] - y[0];
  };
  BuiltinProblem vdp;
  vdp.dae = ode;
  vdp.t0 = 0;
  vdp.t_end = 10;
  vdp.y0 = Vector::Zero(2);
  vdp.y0[0] = 2;
  const BuiltinProblem pend = make_builtin_problem("pendulum");
  BuiltinProblem pend1 = pend;
  const MechanicalSystem& sys = *pend.mechanical;
  pend1.dae = formulate(sys, Formulation::Index1);
  pend1.y0 = initial_values(sys, Formulation::Index1, pend.t0, pend.y0.head(sys.nq),
                            pend.y0.segment(sys.nq, sys.nq));
  pend1.t_end = 5;
  for (const BuiltinProblem* p : {&vdp, &pend1})
    for (const RungeKuttaTableau& t : {dormand_prince5(), bogacki_shampine3()}) {
      ErkOptions m;
      m.tableau = t;
      long steps = 0;
      EXPECT_EQ(allocations_with(*p, true, m, 1e-8, &steps), 0) << "erk " << t.name;
      EXPECT_GT(steps, 20);
    }
}

TEST(Allocation, Radau5StepLoopAllocatesNothing) {
  for (const char* name : {"pendulum", "vanderpol", "robertson", "andrews", "transistor"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (bool analytic : {true, false}) {
      long steps = 0;
      EXPECT_EQ(allocations_in_step_loop(p, analytic, &steps), 0)
          << name << (analytic ? " analytic" : " finite-difference") << " Jacobian";
      EXPECT_GT(steps, 50);
    }
  }
}

// The BDF's step loop, with the algebraic error filter active (transistor: singular M without
// zero rows; akzo, robertson-dae: zero rows) and on an ODE.
TEST(Allocation, BdfStepLoopAllocatesNothing) {
  for (const char* name : {"transistor", "akzo", "robertson-dae", "vanderpol"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (bool analytic : {true, false}) {
      long steps = 0;
      EXPECT_EQ(allocations_in_step_loop(p, analytic, &steps, true), 0)
          << name << (analytic ? " analytic" : " finite-difference") << " Jacobian";
      EXPECT_GT(steps, 50);
    }
  }
}

// The projection (2.8) after every step and the drift monitor of every formulation.
TEST(Allocation, ProjectionAndFormulationsAllocateNothing) {
  for (const char* name : {"pendulum", "andrews"}) {
    BuiltinProblem p = make_builtin_problem(name);
    Radau5Options m;
    m.projection = Projection::Velocity;
    long steps = 0;
    EXPECT_EQ(allocations_in_step_loop(p, true, &steps, false, m), 0) << name << " projected";
    const MechanicalSystem& sys = *p.mechanical;
    const Vector q0 = p.y0.head(sys.nq), v0 = p.y0.segment(sys.nq, sys.nq);
    for (Formulation form : {Formulation::Index2, Formulation::Index1, Formulation::GGL}) {
      BuiltinProblem f = p;
      f.dae = formulate(sys, form);
      f.y0 = initial_values(sys, form, p.t0, q0, v0);
      EXPECT_EQ(allocations_in_step_loop(f, true, &steps), 0) << name << " " << to_string(form);
    }
  }
}

// Issue 14: the y' = w form of state-dependent mass matrices (analytic and differenced
// Jacobians; the double pendulum's Coriolis terms differenced from M in the closure's scratch
// storage) and a rheonomic mechanical system with analytic g_t and curvature.
TEST(Allocation, StateDependentMassAndRheonomicAllocateNothing) {
  for (const char* name : {"varactor-circuit", "double-pendulum", "pendulum-driven"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (bool analytic : {true, false}) {
      long steps = 0;
      EXPECT_EQ(allocations_in_step_loop(p, analytic, &steps), 0)
          << name << (analytic ? " analytic" : " finite-difference") << " Jacobian";
      EXPECT_GT(steps, 50);
    }
  }
}

// The applications of notes ch. 8 and 10 (docs/applications.md): the stabilised ODE (8.5), the
// DAE reformulation (§8.2.2) and the projection onto the Jacobi integral of the moon flight
// keep their scratch storage in the callbacks; the attemperator (without its events here).
TEST(Allocation, ApplicationsStepLoopsAllocateNothing) {
  // (The air pipe is not here: its iteration matrices are badly scaled -- pressure rows of
  // order R T / (V R_f) against temperature rows of order 1 -- and KLU replaces some
  // refactorisations by fresh factorisations, which allocate by design, linalg/klu_solver.cpp:
  // 34 allocations over its ~100 steps, with the Jacobian by differences as for heat2d and
  // circuit-chain, which allocate nothing.)
  for (const char* name : {"moon-stabilised-1.4", "moon-dae", "attemperator"}) {
    long steps = 0;
    EXPECT_EQ(allocations_in_step_loop(make_builtin_problem(name), true, &steps), 0) << name;
    EXPECT_GT(steps, 20) << name;
  }
  Radau5Options projected;
  projected.projection = Projection::Full;
  long steps = 0;
  EXPECT_EQ(allocations_in_step_loop(make_builtin_problem("moon"), true, &steps, false, projected),
            0)
      << "moon with the projection onto J = J0";
  EXPECT_GT(steps, 20);
}

// The impasse monitor of solve_with_impasses (notes ch. 7) runs after every accepted step.
TEST(Allocation, ImpasseMonitorAllocatesNothing) {
  const BuiltinProblem p = make_builtin_problem("impasse");
  Options o;
  o.rtol = o.atol = 1e-8;
  o.store_steps = false;
  long first = -1, last = -1;
  o.step_callback = [&](const StepInfo&) {
    if (first < 0) first = g_allocations.load();
    last = g_allocations.load();
    return true;
  };
  const ImpasseSolve s = solve_with_impasses(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  ASSERT_TRUE(s.impasse) << s.result.message;
  EXPECT_GT(s.result.stats.naccept, 20);
  EXPECT_EQ(last - first, 0);
}

namespace {
// Allocations from the first accepted step to the last of the solve `run(o)` (o: the given
// options without a stored trajectory); *steps: the accepted steps.
template <typename Run>
long allocations_of_run(Options o, long* steps, Run&& run) {
  o.store_steps = false;
  long first = -1, last = -1;
  o.step_callback = [&](const StepInfo&) {
    if (first < 0) first = g_allocations.load();
    last = g_allocations.load();
    return true;
  };
  const Result r = run(o);
  EXPECT_TRUE(r.ok()) << r.message;
  *steps = r.stats.naccept;
  return last - first;
}

Options options_with_tolerance(double tol) {
  Options o;
  o.rtol = o.atol = tol;
  return o;
}
}  // namespace

// spark (step doubling, and constant steps) and hem on the Hessenberg built-in problems (read
// from M y' = f) and on the ImplicitIndex2Dae form of paper 002, with analytic Jacobians and
// with differences: the Jacobians, the Newton matrices, the dense output and the constraint
// monitor after every step work in storage sized at the start.
TEST(Allocation, SparkAndHemStepLoopsAllocateNothing) {
  SparkOptions two_stages;
  two_stages.stages = 2;
  for (const char* name : {"pendulum-index2", "knife-edge", "jay-index2"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (const MethodChoice& m :
         {MethodChoice("spark"), MethodChoice(two_stages), MethodChoice("hem")}) {
      long steps = 0;
      const long a = allocations_of_run(options_with_tolerance(1e-8), &steps, [&](Options o) {
        return solve(p.dae, p.t0, p.t_end, p.y0, m, o);
      });
      EXPECT_EQ(a, 0) << m.name() << " " << name;
      EXPECT_GT(steps, 10) << m.name() << " " << name;  // (13 from the estimated start)
    }
    Options fixed = options_with_tolerance(1e-8);
    fixed.fixed_step = true;
    fixed.h0 = (p.t_end - p.t0) / 100;
    long steps = 0;
    EXPECT_EQ(allocations_of_run(
                  fixed, &steps,
                  [&](Options o) { return solve(p.dae, p.t0, p.t_end, p.y0, "spark", o); }),
              0)
        << "spark, constant steps, " << name;
    EXPECT_EQ(steps, 100);
  }
  struct Form {
    ImplicitIndex2Dae dae;
    double t_end;
    Vector x0;
    bool half_explicit;  // y' = f (hem applies)
  };
  const std::vector<Form> forms = {{jay_index2(), 1.0, jay_index2_exact(0.0), true},
                                   {knife_edge(true), 2.0, knife_edge_exact(0.0), false},
                                   {knife_edge(false), 2.0, knife_edge_exact(0.0), true}};
  for (const Form& f : forms)
    for (bool analytic : {true, false}) {
      ImplicitIndex2Dae dae = f.dae;
      if (!analytic) {
        dae.a_y = nullptr;
        dae.g_y = nullptr;
        for (auto& d : dae.f_y) d = nullptr;
        for (auto& d : dae.f_z) d = nullptr;
      }
      for (const char* method : {"spark", "hem"}) {
        if (std::string(method) == "hem" && !f.half_explicit) continue;
        long steps = 0;
        const long a = allocations_of_run(options_with_tolerance(1e-8), &steps, [&](Options o) {
          return solve(dae, 0.0, f.t_end, f.x0, method, o);
        });
        EXPECT_EQ(a, 0) << method << " " << dae.name << (analytic ? " analytic" : " differences");
        EXPECT_GT(steps, 10);
      }
    }
}

namespace {
// Two copies of el-manufactured (x' = omega(x) (-x2, x1) + phi(x) x - 2 x lambda on the unit
// circle), started half a time unit apart: two multipliers, callbacks that allocate nothing.
BuiltinProblem two_manufactured_circles() {
  EulerLagrangeDae el;
  el.name = "two circles";
  el.nx = 4;
  el.nlambda = 2;
  el.f = [](double, VecIn x, VecOut f) {
    for (int c = 0; c < 4; c += 2) {
      const double omega = 1.0 + x[c + 1] / 2.0, phi = 1.0 + x[c];
      f[c] = -omega * x[c + 1] + phi * x[c];
      f[c + 1] = omega * x[c] + phi * x[c + 1];
    }
  };
  el.g = [](double, VecIn x, VecOut g) {
    g[0] = x[0] * x[0] + x[1] * x[1] - 1.0;
    g[1] = x[2] * x[2] + x[3] * x[3] - 1.0;
  };
  el.G = [](double, VecIn x, MatOut G) {  // zeroed by the caller
    G(0, 0) = 2.0 * x[0];
    G(0, 1) = 2.0 * x[1];
    G(1, 2) = 2.0 * x[2];
    G(1, 3) = 2.0 * x[3];
  };
  BuiltinProblem p;
  p.dae = to_mass_matrix_form(el);
  p.t0 = 0.0;
  p.t_end = 3.0;
  Vector x0(4);
  x0 << manufactured_euler_lagrange_solution(0.0).head(2),
      manufactured_euler_lagrange_solution(0.5).head(2);
  p.y0 = initial_values(el, p.t0, x0);
  return p;
}
}  // namespace

// beta-multistep in every multiplier scheme, its Radau IIA starting steps (projected-rk) and
// their consistent multipliers included, on Euler-Lagrange problems with one and two
// multipliers. (Not on the built-in mechanical ones, pendulum-el, andrews-el, truck-el: the
// callbacks of euler_lagrange_form(MechanicalSystem) allocate themselves, 5-8 times per step.)
TEST(Allocation, BetaMultistepStepLoopAllocatesNothing) {
  for (const BuiltinProblem& p :
       {make_builtin_problem("el-manufactured"), two_manufactured_circles()}) {
    for (const BetaMultistepOptions& m :
         {BetaMultistepOptions{}, BetaMultistepOptions::am_beta(2), BetaMultistepOptions::bdf(4),
          BetaMultistepOptions::compound(3),
          BetaMultistepOptions::commuted(MultistepFamily::AdamsMoulton, 3),
          BetaMultistepOptions::dcbdf_beta(5)}) {
      long steps = 0;
      const long a = allocations_of_run(options_with_tolerance(1e-7), &steps, [&](Options o) {
        return solve(p.dae, p.t0, p.t_end, p.y0, m, o);
      });
      EXPECT_EQ(a, 0) << m.scheme_name() << " " << p.dae.name;
      EXPECT_GT(steps, 30) << m.scheme_name() << " " << p.dae.name;
    }
  }
}

// projected-rk at constant steps: index 3 with and without the projection, and the
// state-space update (2.7e) of an index-1 problem.
TEST(Allocation, ProjectedRkStepLoopAllocatesNothing) {
  ProjectedRkOptions projected;
  projected.projection = Projection::Full;
  ProjectedRkOptions state_space;
  state_space.algebraic_update = ProjectedRkOptions::AlgebraicUpdate::StateSpace;
  const struct {
    const char* problem;
    ProjectedRkOptions method;
  } cases[] = {{"pendulum", {}},
               {"pendulum", projected},
               {"andrews", {}},
               {"pendulum-index2", {}},
               {"pendulum-index1", state_space}};
  for (const auto& c : cases) {
    const BuiltinProblem p = make_builtin_problem(c.problem);
    Options o = options_with_tolerance(1e-8);
    o.fixed_step = true;
    o.h0 = (p.t_end - p.t0) / 200;
    long steps = 0;
    const long a = allocations_of_run(
        o, &steps, [&](Options oo) { return solve(p.dae, p.t0, p.t_end, p.y0, c.method, oo); });
    EXPECT_EQ(a, 0) << c.problem << " projection " << to_string(c.method.projection);
    EXPECT_EQ(steps, 200);
  }
}

// With an event watched (never located): its function is evaluated after every step with the
// dense output's derivative, which allocates nothing either.
TEST(Allocation, WatchedEventWithIndex2AndConstantStepMethodsAllocatesNothing) {
  Event watch;
  watch.name = "never";
  watch.r = [](double, VecIn y, VecIn yp) { return y[0] + 0.0 * yp[0] - 10.0; };
  const struct {
    const char* problem;
    MethodChoice method;
    bool fixed_step;
  } cases[] = {{"pendulum-index2", "spark", false},
               {"pendulum-index2", "hem", false},
               {"el-manufactured", "beta-multistep", false},
               {"pendulum", "projected-rk", true}};
  for (const auto& c : cases) {
    const BuiltinProblem p = make_builtin_problem(c.problem);
    Options o = options_with_tolerance(1e-7);
    o.events = {watch};
    if (c.fixed_step) {
      o.fixed_step = true;
      o.h0 = (p.t_end - p.t0) / 200;
    }
    long steps = 0;
    const long a = allocations_of_run(
        o, &steps, [&](Options oo) { return solve(p.dae, p.t0, p.t_end, p.y0, c.method, oo); });
    EXPECT_EQ(a, 0) << c.method.name() << " " << c.problem;
    EXPECT_GT(steps, 50) << c.method.name() << " " << c.problem;
  }
}
