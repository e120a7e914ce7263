// The number of heap allocations (malloc and friends) made by the test executable so far, and
// the largest single allocation: test_allocation.cpp interposes malloc and counts; other tests
// use it to check that a code path allocates nothing, or that no allocation exceeds a bound
// (memory O(nnz) on large sparse problems).
#pragma once

#include <cstddef>

namespace daekit_testing {
long heap_allocations();
/// Largest size (bytes) requested by one allocation since the last reset (or the start).
std::size_t largest_allocation();
void reset_largest_allocation();

/// The heap allocations between the first and the last accepted step of one solve (the step
/// loop must make none): watch(o) sets o.step_callback, which reads the counter at every
/// accepted step; after the solve, during() is the count and steps the accepted steps seen.
/// The object must outlive the solve (the callback refers to it).
struct StepAllocations {
  long first = -1, last = -1, steps = 0;
  template <class Options>
  void watch(Options& o) {
    o.step_callback = [this](const auto&) {
      if (first < 0) first = heap_allocations();
      last = heap_allocations();
      ++steps;
      return true;
    };
  }
  long during() const { return last - first; }
};
}  // namespace daekit_testing
