// The number of heap allocations (malloc and friends) made by the test executable so far:
// test_allocation.cpp interposes malloc and counts; other tests use it to check that a code
// path allocates nothing.
#pragma once

namespace daekit_testing {
long heap_allocations();
}  // namespace daekit_testing
