// Finite-difference Jacobians with grouped columns (nonlinear/finite_difference.hpp).
//
// Forward differences J(:, j) ~ (G(x + delta_j e_j) - G(x)) / delta_j, with the columns
// grouped so that one evaluation of G serves all columns of a group: columns that share no row
// of the sparsity structure can be perturbed together, since every row of the difference then
// sees the perturbation of one column only (A. R. Curtis, M. J. D. Powell and J. K. Reid, "On
// the estimation of sparse Jacobian matrices", J. Inst. Maths Applics 13 (1974) 117-119).
// Finding few groups is colouring the column intersection graph, whose vertices are the columns
// and whose edges join columns that share a row (T. F. Coleman and J. J. More, "Estimation of
// sparse Jacobian matrices and graph coloring problems", SIAM J. Numer. Anal. 20 (1983)
// 187-209). Banded structures get the optimal colouring j mod (l + u + 1); general patterns the
// greedy sequential colouring in largest-first order, which Coleman and More found close to the
// lower bound (the largest number of non-zeros in a row) on practical problems.
#include "nonlinear/finite_difference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace daekit {

namespace {

// Counting sort of the columns by colour: group c lists its columns in increasing order.
void fill_groups(int n, ColumnColouring& colouring) {
  colouring.group_start.assign(static_cast<size_t>(colouring.colours) + 1, 0);
  for (int j = 0; j < n; ++j) ++colouring.group_start[colouring.colour_of[j] + 1];
  for (int c = 0; c < colouring.colours; ++c)
    colouring.group_start[c + 1] += colouring.group_start[c];
  std::vector<int> next(colouring.group_start.begin(), colouring.group_start.end() - 1);
  colouring.group_columns.resize(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) colouring.group_columns[next[colouring.colour_of[j]]++] = j;
}

// Greedy largest-first colouring of the column intersection graph of a compressed rows x n
// pattern. Work and memory: O(n + nnz + sum over rows of (row count)^2), no graph is stored:
// the neighbours of column j are the columns of the rows of column j, read from the transposed
// (row-wise) pattern.
void colour_sparse(int rows, int n, const SparseMatrix& pattern, ColumnColouring& colouring) {
  const int* col_start = pattern.outerIndexPtr();
  const int* col_rows = pattern.innerIndexPtr();
  const int nnz = col_start[n];

  // row -> columns (the transpose of the pattern), columns of each row in increasing order
  std::vector<int> row_start(static_cast<size_t>(rows) + 1, 0);
  for (int k = 0; k < nnz; ++k) ++row_start[col_rows[k] + 1];
  for (int i = 0; i < rows; ++i) row_start[i + 1] += row_start[i];
  std::vector<int> row_cols(static_cast<size_t>(nnz));
  {
    std::vector<int> next(row_start.begin(), row_start.end() - 1);
    for (int j = 0; j < n; ++j)
      for (int k = col_start[j]; k < col_start[j + 1]; ++k) row_cols[next[col_rows[k]]++] = j;
  }

  // mark[k] == j: column k already seen from column j (degree count), or, in the colouring,
  // forbidden[c] == j: colour c is taken by a neighbour of column j
  std::vector<int> mark(static_cast<size_t>(n), -1);
  auto for_each_neighbour = [&](int j, auto&& f) {
    for (int p = col_start[j]; p < col_start[j + 1]; ++p) {
      const int i = col_rows[p];
      for (int q = row_start[i]; q < row_start[i + 1]; ++q)
        if (row_cols[q] != j) f(row_cols[q]);
    }
  };

  // degrees in the intersection graph (distinct neighbours)
  std::vector<int> degree(static_cast<size_t>(n), 0);
  int max_degree = 0;
  for (int j = 0; j < n; ++j) {
    int d = 0;
    for_each_neighbour(j, [&](int k) {
      if (mark[k] != j) {
        mark[k] = j;
        ++d;
      }
    });
    degree[j] = d;
    max_degree = std::max(max_degree, d);
  }

  // largest-first order, ties by index: a stable counting sort by decreasing degree
  std::vector<int> order(static_cast<size_t>(n));
  {
    std::vector<int> bucket(static_cast<size_t>(max_degree) + 2, 0);
    for (int j = 0; j < n; ++j) ++bucket[max_degree - degree[j] + 1];
    for (int b = 0; b <= max_degree; ++b) bucket[b + 1] += bucket[b];
    for (int j = 0; j < n; ++j) order[bucket[max_degree - degree[j]]++] = j;
  }

  // greedy: each column takes the smallest colour none of its coloured neighbours has (at most
  // degree + 1 colours are ever looked at, so forbidden needs max_degree + 1 entries)
  colouring.colour_of.assign(static_cast<size_t>(n), -1);
  std::vector<int> forbidden(static_cast<size_t>(max_degree) + 1, -1);
  int colours = 0;
  for (const int j : order) {
    for_each_neighbour(j, [&](int k) {
      const int c = colouring.colour_of[k];
      if (c >= 0 && c <= max_degree) forbidden[c] = j;
    });
    int c = 0;
    while (forbidden[c] == j) ++c;
    colouring.colour_of[j] = c;
    colours = std::max(colours, c + 1);
  }
  colouring.colours = colours;
}

// The one loop of forward differences: the columns of each group (group(c) gives their
// indices as [begin, end)) perturbed together by their increments (kept in slot(j)), G evaluated
// once per group into G_work, then write(j, delta_j) for each column of the group. x_work is x
// on entry and on return (unless an evaluation failed). Returns the number of evaluations or -1.
template <typename Group, typename Slot, typename Write>
int forward_differences(FiniteDifferenceJacobian::Map G, VecIn x, const Vector* typical, int groups,
                        Group&& group, Slot&& slot, Vector& x_work, Vector& G_work, Write&& write) {
  x_work = x;
  for (int c = 0; c < groups; ++c) {
    const auto [begin, end] = group(c);
    for (const int* p = begin; p != end; ++p) {
      const int j = *p;
      double& delta = slot(j);
      delta = FiniteDifferenceJacobian::increment(x[j], typical != nullptr ? (*typical)[j] : 0.0);
      x_work[j] = x[j] + delta;
    }
    if (!G(x_work, G_work)) return -1;
    for (const int* p = begin; p != end; ++p) {
      const int j = *p;
      x_work[j] = x[j];
      write(j, slot(j));
    }
  }
  return groups;
}

// Column j of a dense J from the difference G_work - G0 over delta.
void dense_column(MatOut J, int j, const Vector& G_work, VecIn G0, double delta) {
  J.col(j) = (G_work - G0) / delta;
}

// Column j of J from the difference G_work - G_ref over divisor (forward: delta, central:
// 2 delta), written on the structure s only (zeros elsewhere in the column).
void structured_column(const Sparsity& s, int rows, MatOut J, int j, const Vector& G_work,
                       VecIn G_ref, double divisor) {
  switch (s.kind) {
    case Sparsity::Kind::Dense:
      dense_column(J, j, G_work, G_ref, divisor);
      break;
    case Sparsity::Kind::Banded: {
      const int lo = std::max(0, j - s.upper);
      const int hi = std::min(rows - 1, j + s.lower);
      for (int i = 0; i < rows; ++i)
        J(i, j) = i >= lo && i <= hi ? (G_work[i] - G_ref[i]) / divisor : 0.0;
      break;
    }
    case Sparsity::Kind::Sparse:
      J.col(j).setZero();
      for (SparseMatrix::InnerIterator it(s.pattern, j); it; ++it) {
        const int i = static_cast<int>(it.row());
        J(i, j) = (G_work[i] - G_ref[i]) / divisor;
      }
      break;
  }
}

}  // namespace

ColumnColouring colour_columns(int n, const Sparsity& s) { return colour_columns(n, n, s); }

ColumnColouring colour_columns(int rows, int cols, const Sparsity& s) {
  if (rows < 0 || cols < 0)
    throw InvalidArgument("colour_columns: negative size " + std::to_string(rows) + " x " +
                          std::to_string(cols));
  s.validate(rows, cols, "colour_columns");
  ColumnColouring colouring;
  colouring.colour_of.resize(static_cast<size_t>(cols));
  switch (s.kind) {
    case Sparsity::Kind::Dense:
      colouring.colours = cols;
      for (int j = 0; j < cols; ++j) colouring.colour_of[j] = j;
      break;
    case Sparsity::Kind::Banded: {
      // columns j and k share a row iff |j - k| <= l + u (and the rows reach it)
      const int width = s.lower + s.upper + 1;
      colouring.colours = std::min(cols, width);
      for (int j = 0; j < cols; ++j) colouring.colour_of[j] = j % width;
      break;
    }
    case Sparsity::Kind::Sparse:
      if (cols == 0) break;
      if (s.pattern.isCompressed()) {
        colour_sparse(rows, cols, s.pattern, colouring);
      } else {
        SparseMatrix compressed = s.pattern;
        compressed.makeCompressed();
        colour_sparse(rows, cols, compressed, colouring);
      }
      break;
  }
  fill_groups(cols, colouring);
  return colouring;
}

FiniteDifferenceJacobian::FiniteDifferenceJacobian(int rows, int cols, const Sparsity& s)
    : rows_(rows), cols_(cols), colouring_(colour_columns(rows, cols, s)), sparsity_(s) {
  if (sparsity_.kind == Sparsity::Kind::Sparse) sparsity_.pattern.makeCompressed();
  x_work_.resize(cols);
  G_work_.resize(rows);
  G_minus_.resize(rows);
  delta_.resize(cols);
}

double FiniteDifferenceJacobian::increment(double x_j, double typical_j) {
  constexpr double kSqrtEps = 1.4901161193847656e-08;  // sqrt(2^-52) = 2^-26, exact
  static_assert(kSqrtEps * kSqrtEps == std::numeric_limits<double>::epsilon());
  // RADAU5's sqrt(eps max(|x|, 1e-5)), extended by the typical magnitude, and never below
  // 1e3 eps |x| (for |x| > 5e9 sqrt(eps |x|) would fall to the spacing of x)
  const double delta =
      std::max(kSqrtEps * std::sqrt(std::max({std::abs(x_j), std::abs(typical_j), 1e-5})),
               1e3 * kSqrtEps * kSqrtEps * std::abs(x_j));
  // the increment actually representable at x_j: x_j + rounded - x_j is then exact
  const double rounded = (x_j + delta) - x_j;
  return rounded != 0.0 ? rounded : delta;
}

double FiniteDifferenceJacobian::central_increment(double x_j, double typical) {
  return std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(std::abs(x_j), typical);
}

bool FiniteDifferenceJacobian::central(Map G, int rows, const Vector& x, double typical, Matrix& D,
                                       Vector* delta) {
  const int n = static_cast<int>(x.size());
  Vector xp = x, gp(rows), gm(rows);
  D.resize(rows, n);
  if (delta) delta->resize(n);
  for (int j = 0; j < n; ++j) {
    const double d = central_increment(x[j], typical);
    xp[j] = x[j] + d;
    if (!G(xp, gp)) return false;
    xp[j] = x[j] - d;
    if (!G(xp, gm)) return false;
    xp[j] = x[j];
    D.col(j) = (gp - gm) / (2 * d);
    if (delta) (*delta)[j] = d;
  }
  return true;
}

int FiniteDifferenceJacobian::evaluate_central(Map G, const Vector& x, double typical, MatOut J) {
  check_sizes(x, G_work_, nullptr, J.rows(), J.cols());
  const ColumnColouring& k = colouring_;
  x_work_ = x;
  for (int c = 0; c < k.colours; ++c) {
    const int* begin = k.group_columns.data() + k.group_start[c];
    const int* end = k.group_columns.data() + k.group_start[c + 1];
    for (const int* p = begin; p != end; ++p) {
      delta_[*p] = central_increment(x[*p], typical);
      x_work_[*p] = x[*p] + delta_[*p];
    }
    if (!G(x_work_, G_work_)) return -1;
    for (const int* p = begin; p != end; ++p) x_work_[*p] = x[*p] - delta_[*p];
    if (!G(x_work_, G_minus_)) return -1;
    for (const int* p = begin; p != end; ++p) {
      const int j = *p;
      x_work_[j] = x[j];
      structured_column(sparsity_, rows_, J, j, G_work_, G_minus_, 2.0 * delta_[j]);
    }
  }
  return 2 * k.colours;
}

template <typename Write>
int FiniteDifferenceJacobian::differences(Map G, const Vector& x, const Vector* typical,
                                          Write&& write) {
  const ColumnColouring& k = colouring_;
  return forward_differences(
      G, x, typical, k.colours,
      [&](int c) {
        const int* columns = k.group_columns.data();
        return std::pair<const int*, const int*>(columns + k.group_start[c],
                                                 columns + k.group_start[c + 1]);
      },
      [&](int j) -> double& { return delta_[j]; }, x_work_, G_work_, write);
}

void FiniteDifferenceJacobian::check_sizes(const Vector& x, const Vector& G0, const Vector* typical,
                                           long J_rows, long J_cols) const {
  if (x.size() == cols_ && G0.size() == rows_ && J_rows == rows_ && J_cols == cols_ &&
      (typical == nullptr || typical->size() == cols_))
    return;
  throw InvalidArgument(
      "FiniteDifferenceJacobian::evaluate: sizes of x (" + std::to_string(x.size()) + "), G0 (" +
      std::to_string(G0.size()) + "), typical (" +
      (typical != nullptr ? std::to_string(typical->size()) : "none") + ") and J (" +
      std::to_string(J_rows) + " x " + std::to_string(J_cols) + ") must be " +
      std::to_string(cols_) + ", " + std::to_string(rows_) + ", " + std::to_string(cols_) +
      " and " + std::to_string(rows_) + " x " + std::to_string(cols_));
}

int FiniteDifferenceJacobian::evaluate_dense(Map G, VecIn x, VecIn G0, const Vector* typical,
                                             Vector& x_work, Vector& G_work, MatOut J) {
  const int cols = static_cast<int>(x.size());
  if (J.rows() != G0.size() || J.cols() != cols || (typical && typical->size() != cols))
    throw InvalidArgument("FiniteDifferenceJacobian::evaluate_dense: J is " +
                          std::to_string(J.rows()) + " x " + std::to_string(J.cols()) +
                          ", expected " + std::to_string(G0.size()) + " x " + std::to_string(cols));
  G_work.resize(G0.size());
  int column = 0;
  double delta = 0.0;
  return forward_differences(
      G, x, typical, cols,
      [&](int c) {
        column = c;
        return std::pair<const int*, const int*>(&column, &column + 1);
      },
      [&](int) -> double& { return delta; }, x_work, G_work,
      [&](int j, double d) { dense_column(J, j, G_work, G0, d); });
}

int FiniteDifferenceJacobian::evaluate(Map G, const Vector& x, const Vector& G0,
                                       const Vector* typical, StructuredMatrix<double>& J) {
  check_sizes(x, G0, typical, J.size(), J.size());
  const int* pattern_start = sparsity_.pattern.outerIndexPtr();
  const int* pattern_rows = sparsity_.pattern.innerIndexPtr();
  const int n = rows_, lower = sparsity_.lower, upper = sparsity_.upper;
  return differences(G, x, typical, [&](int j, double delta) {
    // Entries of J's column outside the coloured structure are zero by that structure (and
    // would read other columns' perturbations); every coloured entry must be in J.
    int written = 0, expected = 0;
    switch (sparsity_.kind) {
      case Sparsity::Kind::Dense:
        expected = n;
        J.for_each_in_column(j, [&](int i, double& value) {
          value = (G_work_[i] - G0[i]) / delta;
          ++written;
        });
        break;
      case Sparsity::Kind::Banded:
        expected = std::min(n - 1, j + lower) - std::max(0, j - upper) + 1;
        J.for_each_in_column(j, [&](int i, double& value) {
          if (i - j <= lower && j - i <= upper) {
            value = (G_work_[i] - G0[i]) / delta;
            ++written;
          } else {
            value = 0.0;
          }
        });
        break;
      case Sparsity::Kind::Sparse: {
        // merge of two sorted row lists; one comparison per entry when they are equal
        int p = pattern_start[j];
        const int p_end = pattern_start[j + 1];
        expected = p_end - p;
        J.for_each_in_column(j, [&](int i, double& value) {
          while (p < p_end && pattern_rows[p] < i) ++p;
          if (p < p_end && pattern_rows[p] == i) {
            value = (G_work_[i] - G0[i]) / delta;
            ++written;
            ++p;
          } else {
            value = 0.0;
          }
        });
        break;
      }
    }
    if (written != expected)
      throw InvalidArgument("FiniteDifferenceJacobian::evaluate: the structure of J (" +
                            J.sparsity().describe(n) +
                            ") does not contain the coloured structure (" + sparsity_.describe(n) +
                            ") in column " + std::to_string(j));
  });
}

int FiniteDifferenceJacobian::evaluate(Map G, const Vector& x, const Vector& G0,
                                       const Vector* typical, MatOut J) {
  check_sizes(x, G0, typical, J.rows(), J.cols());
  return differences(G, x, typical, [&](int j, double delta) {
    structured_column(sparsity_, rows_, J, j, G_work_, G0, delta);
  });
}

}  // namespace daekit
