// Sanitizer builds (DAEKIT_SANITIZE): the sanitizers own malloc, so test_allocation.cpp's
// interposer is left out and the counter reports "unavailable" (-1): the tests that count
// allocations skip themselves and say why; the largest allocation is 0.
#include "allocation_counter.hpp"

long daekit_testing::heap_allocations() { return -1; }
std::size_t daekit_testing::largest_allocation() { return 0; }
void daekit_testing::reset_largest_allocation() {}
