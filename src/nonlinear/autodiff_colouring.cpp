// The column colouring of problem/autodiff.hpp: the finite differences' (one colouring for
// both, so a declared structure groups the seeded columns as it groups the differenced ones).
#include <utility>

#include "daekit/problem/autodiff.hpp"
#include "nonlinear/finite_difference.hpp"

namespace daekit {

std::vector<int> column_colours(int rows, int cols, const Sparsity& s, int& colours) {
  ColumnColouring c = colour_columns(rows, cols, s);
  colours = c.colours;
  return std::move(c.colour_of);
}

}  // namespace daekit
