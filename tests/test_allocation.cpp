// "The step loop allocates nothing" (developers' brief): count heap allocations (malloc and
// friends, so Eigen temporaries are seen too) between the first and the last accepted step of
// a solve that stores no trajectory.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "allocation_counter.hpp"
#include "daekit/daekit.hpp"

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
