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
}  // namespace daekit_testing
