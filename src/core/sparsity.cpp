#include "daekit/core/sparsity.hpp"

#include <algorithm>
#include <vector>

namespace daekit {

Sparsity Sparsity::banded(int lower, int upper) {
  Sparsity s;
  s.kind = Kind::Banded;
  s.lower = lower;
  s.upper = upper;
  return s;
}

Sparsity Sparsity::sparse(SparseMatrix pattern) {
  Sparsity s;
  s.kind = Kind::Sparse;
  pattern.makeCompressed();
  s.pattern = std::move(pattern);
  return s;
}

void Sparsity::validate(int rows, int cols, const char* what) const {
  const auto shape = [](int r, int c) { return std::to_string(r) + " x " + std::to_string(c); };
  switch (kind) {
    case Kind::Dense:
      return;
    case Kind::Banded:
      if (rows == cols &&
          (lower < 0 || upper < 0 || lower >= std::max(rows, 1) || upper >= std::max(rows, 1)))
        throw InvalidArgument(std::string(what) + ": bandwidths must lie in [0, n - 1] for n = " +
                              std::to_string(rows) + ", got lower " + std::to_string(lower) +
                              ", upper " + std::to_string(upper));
      if (lower < 0 || upper < 0 || lower >= std::max(rows, 1) || upper >= std::max(cols, 1))
        throw InvalidArgument(std::string(what) + ": bandwidths of a " + shape(rows, cols) +
                              " matrix must lie in [0, rows - 1] (lower) and [0, cols - 1] "
                              "(upper), got lower " +
                              std::to_string(lower) + ", upper " + std::to_string(upper));
      return;
    case Kind::Sparse:
      if (pattern.rows() != rows || pattern.cols() != cols)
        throw InvalidArgument(
            std::string(what) + ": sparsity pattern is " +
            shape(static_cast<int>(pattern.rows()), static_cast<int>(pattern.cols())) +
            ", expected " + shape(rows, cols));
      return;
  }
}

bool Sparsity::contains(int i, int j) const {
  switch (kind) {
    case Kind::Dense:
      return true;
    case Kind::Banded:
      return i - j <= lower && j - i <= upper;
    case Kind::Sparse: {
      const int* begin = pattern.innerIndexPtr() + pattern.outerIndexPtr()[j];
      const int* end = pattern.innerIndexPtr() + pattern.outerIndexPtr()[j + 1];
      return std::binary_search(begin, end, i);
    }
  }
  return true;
}

long Sparsity::nonzeros(int rows, int cols) const {
  switch (kind) {
    case Kind::Dense:
      return static_cast<long>(rows) * cols;
    case Kind::Banded: {
      long count = 0;  // column j holds rows max(0, j - upper) .. min(rows - 1, j + lower)
      for (int j = 0; j < cols; ++j)
        count += std::max(0, std::min(rows - 1, j + lower) - std::max(0, j - upper) + 1);
      return count;
    }
    case Kind::Sparse:
      return pattern.nonZeros();
  }
  return 0;
}

std::string Sparsity::describe(int n) const {
  switch (kind) {
    case Kind::Dense:
      return "dense";
    case Kind::Banded:
      return "banded (" + std::to_string(lower) + ", " + std::to_string(upper) + ")";
    case Kind::Sparse:
      return "sparse (" + std::to_string(nonzeros(n)) + " non-zeros)";
  }
  return "?";
}

SparseMatrix Sparsity::to_pattern(int rows, int cols) const {
  if (kind == Kind::Sparse) return pattern;
  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(static_cast<size_t>(nonzeros(rows, cols)));
  for (int j = 0; j < cols; ++j) {
    const int lo = kind == Kind::Banded ? std::max(0, j - upper) : 0;
    const int hi = kind == Kind::Banded ? std::min(rows - 1, j + lower) : rows - 1;
    for (int i = lo; i <= hi; ++i) entries.emplace_back(i, j, 1.0);
  }
  SparseMatrix m(rows, cols);
  m.setFromTriplets(entries.begin(), entries.end());
  m.makeCompressed();
  return m;
}

Sparsity structure_union(const Sparsity& a, const Sparsity& b, int n, bool with_diagonal) {
  using Kind = Sparsity::Kind;
  if (a.kind == Kind::Dense || b.kind == Kind::Dense) return Sparsity::dense();
  if (a.kind == Kind::Banded && b.kind == Kind::Banded)
    return Sparsity::banded(std::max(a.lower, b.lower), std::max(a.upper, b.upper));
  // a banded structure absorbs a pattern that lies within its band
  auto within_band = [](const Sparsity& band, const Sparsity& p) {
    for (int j = 0; j < p.pattern.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(p.pattern, j); it; ++it)
        if (!band.contains(it.row(), j)) return false;
    return true;
  };
  if (a.kind == Kind::Banded && within_band(a, b)) return a;
  if (b.kind == Kind::Banded && within_band(b, a)) return b;
  SparseMatrix pa = a.to_pattern(n), pb = b.to_pattern(n);
  pa.coeffs().setOnes();
  pb.coeffs().setOnes();
  SparseMatrix u = pa + pb;
  if (with_diagonal) {
    SparseMatrix eye(n, n);
    eye.setIdentity();
    u = u + eye;
  }
  u.makeCompressed();
  return Sparsity::sparse(u);
}

Sparsity sparsity_of(const SparseMatrix& m) {
  SparseMatrix p = m;
  p.makeCompressed();
  return Sparsity::sparse(p);
}

}  // namespace daekit
