// "The step loop allocates nothing" (developers' brief): count heap allocations between the
// first and the last accepted step of a solve that stores no trajectory.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "daekit/integrator/solve.hpp"
#include "daekit/problems/registry.hpp"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace daekit;

namespace {
// Allocations counted from the first accepted step to the last one.
long allocations_in_step_loop(const BuiltinProblem& p, bool analytic_jacobian, long* steps) {
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
  Result r = solve(dae, p.t0, p.t_end, p.y0, Radau5Options{}, o);
  EXPECT_TRUE(r.ok()) << r.message;
  *steps = r.stats.nsteps;
  return last - first;
}
}  // namespace

TEST(Allocation, Radau5StepLoopAllocatesNothing) {
  for (const char* name : {"pendulum", "vanderpol", "robertson"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    for (bool analytic : {true, false}) {
      long steps = 0;
      EXPECT_EQ(allocations_in_step_loop(p, analytic, &steps), 0)
          << name << (analytic ? " analytic" : " finite-difference") << " Jacobian";
      EXPECT_GT(steps, 50);
    }
  }
}
