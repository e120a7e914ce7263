// Structure detection by column perturbation (nonlinear/structure_detection.hpp).
#include "nonlinear/structure_detection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "nonlinear/finite_difference.hpp"

namespace daekit {

StructureDetector::StructureDetector(int rows, int cols)
    : rows_(rows), cols_(cols), columns_(static_cast<size_t>(cols)) {}

void StructureDetector::add(int i, int j) {
  std::vector<int>& c = columns_[static_cast<size_t>(j)];
  const auto it = std::lower_bound(c.begin(), c.end(), i);
  if (it == c.end() || *it != i) c.insert(it, i);
}

double detection_increment(double x_j) {
  const double d = 1e-6 * std::max(std::abs(x_j), 1.0);
  return (x_j + d) - x_j;
}

bool StructureDetector::scan_columns(Map G, const Vector& x, const Vector& G0, const int* begin,
                                     const int* end) {
  Vector xj = x, out(rows_);
  for (const int* p = begin; p != end; ++p) {
    const int j = *p;
    xj[j] = x[j] + detection_increment(x[j]);
    ++evaluations_;
    if (!G(xj, out)) return false;
    xj[j] = x[j];
    for (int i = 0; i < rows_; ++i)
      if (out[i] != G0[i]) add(i, j);
  }
  return true;
}

bool StructureDetector::scan(Map G, const Vector& x, const Vector& G0) {
  std::vector<int> all(static_cast<size_t>(cols_));
  for (int j = 0; j < cols_; ++j) all[static_cast<size_t>(j)] = j;
  return scan_columns(G, x, G0, all.data(), all.data() + all.size());
}

bool StructureDetector::confirm(Map G, const Vector& x, const Vector& G0) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  const SparseMatrix P = pattern();
  const ColumnColouring colouring = colour_columns(rows_, cols_, Sparsity::sparse(P));
  std::mt19937 random(20261128u);
  std::uniform_real_distribution<double> uniform(0.5, 1.5);
  Vector w(cols_), delta(cols_);
  for (int j = 0; j < cols_; ++j) {
    w[j] = uniform(random);
    delta[j] = detection_increment(x[j]);
  }
  std::vector<int> owner(static_cast<size_t>(rows_), -1);
  Vector x1 = x, xw = x, G1(rows_), Gw(rows_);
  for (int c = 0; c < colouring.colours; ++c) {
    const int* begin = colouring.group_columns.data() + colouring.group_start[c];
    const int* end = colouring.group_columns.data() + colouring.group_start[c + 1];
    for (const int* p = begin; p != end; ++p) {
      x1[*p] = x[*p] + delta[*p];
      xw[*p] = x[*p] + w[*p] * delta[*p];
      for (SparseMatrix::InnerIterator it(P, *p); it; ++it) owner[it.row()] = *p;
    }
    evaluations_ += 2;
    if (!G(x1, G1) || !G(xw, Gw)) return false;
    bool flagged = false;
    for (int i = 0; i < rows_ && !flagged; ++i) {
      const double d1 = G1[i] - G0[i], dw = Gw[i] - G0[i];
      const int k = owner[i];
      // changes within 16 units in the last place of G_i are round-off (a row of a numpy
      // function moved by one ulp when only other elements of its input changed)
      const double noise =
          16.0 * eps * std::max({std::abs(G0[i]), std::abs(G1[i]), std::abs(Gw[i])});
      if (k < 0)
        flagged = !(std::max(std::abs(d1), std::abs(dw)) <= noise);
      else
        flagged =
            !(std::abs(dw - w[k] * d1) <= 1e-3 * std::max(std::abs(d1), std::abs(dw)) + noise);
    }
    for (const int* p = begin; p != end; ++p) {
      x1[*p] = xw[*p] = x[*p];
      for (SparseMatrix::InnerIterator it(P, *p); it; ++it) owner[it.row()] = -1;
    }
    if (flagged && !scan_columns(G, x, G0, begin, end)) return false;
  }
  return true;
}

void StructureDetector::add_nonzeros(const Matrix& A) {
  for (int j = 0; j < cols_; ++j)
    for (int i = 0; i < rows_; ++i)
      if (A(i, j) != 0.0) add(i, j);
}

void StructureDetector::add_nonzeros(const SparseMatrix& A) {
  for (int j = 0; j < A.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(A, j); it; ++it)
      if (it.value() != 0.0) add(static_cast<int>(it.row()), j);
}

void StructureDetector::add_diagonal() {
  for (int j = 0; j < std::min(rows_, cols_); ++j) add(j, j);
}

SparseMatrix StructureDetector::pattern() const {
  std::vector<Eigen::Triplet<double, int>> entries;
  for (int j = 0; j < cols_; ++j)
    for (int i : columns_[static_cast<size_t>(j)]) entries.emplace_back(i, j, 1.0);
  SparseMatrix P(rows_, cols_);
  P.setFromTriplets(entries.begin(), entries.end());
  P.makeCompressed();
  return P;
}

Vector second_point(const Vector& x0) {
  std::mt19937 random(20261127u);
  std::uniform_real_distribution<double> weight(0.5, 1.5);
  Vector x1 = x0;
  for (Eigen::Index j = 0; j < x0.size(); ++j)
    x1[j] += weight(random) * (1e-3 * std::abs(x0[j]) + 1e-6);
  return x1;
}

void pattern_bandwidths(const SparseMatrix& P, int& lower, int& upper) {
  lower = upper = 0;
  for (int j = 0; j < P.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(P, j); it; ++it) {
      lower = std::max(lower, static_cast<int>(it.row()) - j);
      upper = std::max(upper, j - static_cast<int>(it.row()));
    }
}

LinearSolverKind backend_for_pattern(int n, const SparseMatrix& P) {
  const double nnz = static_cast<double>(P.nonZeros());
  if (n <= 32 || nnz > 0.2 * static_cast<double>(n) * n) return LinearSolverKind::Dense;
  int lower = 0, upper = 0;
  pattern_bandwidths(P, lower, upper);
  if (static_cast<double>(lower + upper + 1) * n <= 4.0 * nnz) return LinearSolverKind::Banded;
  return n < 64 ? LinearSolverKind::Dense : LinearSolverKind::Sparse;
}

}  // namespace daekit
