// Finite-difference Jacobians (nonlinear/finite_difference.hpp): the column colouring (valid
// and small for banded and sparse structures, fast for n ~ 1e5), the increment rule, the
// accuracy of grouped forward differences with dense, banded and sparse storage, the number of
// evaluations (colours; with the base value, colours + 1), Jacobian storage larger than the
// coloured structure, the Robertson kinetics at y = (1, 0, 0), failing maps and allocations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include "allocation_counter.hpp"
#include "nonlinear/finite_difference.hpp"

using namespace daekit;

namespace {

constexpr double kSqrtEps = 1.4901161193847656e-08;

SparseMatrix pattern_from(int n, const std::vector<std::pair<int, int>>& entries) {
  std::vector<Eigen::Triplet<double, int>> t;
  for (const auto& [i, j] : entries) t.emplace_back(i, j, 1.0);
  SparseMatrix m(n, n);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

// 5-point Laplacian pattern on an nx x ny grid (unknown k = ix + nx * iy).
SparseMatrix laplacian_pattern(int nx, int ny) {
  std::vector<std::pair<int, int>> e;
  e.reserve(static_cast<size_t>(5) * nx * ny);
  for (int iy = 0; iy < ny; ++iy)
    for (int ix = 0; ix < nx; ++ix) {
      const int k = ix + nx * iy;
      e.emplace_back(k, k);
      if (ix > 0) e.emplace_back(k, k - 1);
      if (ix < nx - 1) e.emplace_back(k, k + 1);
      if (iy > 0) e.emplace_back(k, k - nx);
      if (iy < ny - 1) e.emplace_back(k, k + nx);
    }
  return pattern_from(nx * ny, e);
}

SparseMatrix band_pattern(int n, int lower, int upper) {
  return Sparsity::banded(lower, upper).to_pattern(n);
}

// The colouring is a partition of the columns into groups listed in increasing order, and no
// two columns of one group share a row of the structure.
::testing::AssertionResult valid_colouring(int n, const Sparsity& s, const ColumnColouring& c) {
  if (static_cast<int>(c.colour_of.size()) != n ||
      static_cast<int>(c.group_start.size()) != c.colours + 1 ||
      static_cast<int>(c.group_columns.size()) != n || c.group_start.front() != 0 ||
      c.group_start.back() != n)
    return ::testing::AssertionFailure() << "inconsistent sizes";
  for (int col = 0; col < c.colours; ++col) {
    if (c.group_start[col + 1] <= c.group_start[col])
      return ::testing::AssertionFailure() << "colour " << col << " is empty";
    for (int g = c.group_start[col]; g < c.group_start[col + 1]; ++g) {
      if (c.colour_of[c.group_columns[g]] != col)
        return ::testing::AssertionFailure() << "column " << c.group_columns[g] << " misfiled";
      if (g > c.group_start[col] && c.group_columns[g] <= c.group_columns[g - 1])
        return ::testing::AssertionFailure() << "group " << col << " not increasing";
    }
  }
  const SparseMatrix p = s.to_pattern(n);
  std::vector<int> row_owner(static_cast<size_t>(n), -1);
  for (int col = 0; col < c.colours; ++col)
    for (int g = c.group_start[col]; g < c.group_start[col + 1]; ++g) {
      const int j = c.group_columns[g];
      for (SparseMatrix::InnerIterator it(p, j); it; ++it) {
        const int i = static_cast<int>(it.row());
        if (row_owner[i] >= 0 && c.colour_of[row_owner[i]] == col)
          return ::testing::AssertionFailure() << "columns " << row_owner[i] << " and " << j
                                               << " of colour " << col << " share row " << i;
        row_owner[i] = j;
      }
    }
  return ::testing::AssertionSuccess();
}

// G_i(x) = x_{i-1} x_i + sin(x_{i+1}) + i x_i^2 (tridiagonal Jacobian).
// (A lambda: FunctionRef refers to callable objects, not to functions.)
const auto tridiagonal_map = [](const Vector& x, Vector& out) -> bool {
  const int n = static_cast<int>(x.size());
  for (int i = 0; i < n; ++i) {
    out[i] = i * x[i] * x[i];
    if (i > 0) out[i] += x[i - 1] * x[i];
    if (i < n - 1) out[i] += std::sin(x[i + 1]);
  }
  return true;
};

Matrix tridiagonal_jacobian(const Vector& x) {
  const int n = static_cast<int>(x.size());
  Matrix J = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    J(i, i) = 2.0 * i * x[i] + (i > 0 ? x[i - 1] : 0.0);
    if (i > 0) J(i, i - 1) = x[i];
    if (i < n - 1) J(i, i + 1) = std::cos(x[i + 1]);
  }
  return J;
}

Vector test_point(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  Vector x(n);
  for (int i = 0; i < n; ++i) x[i] = u(rng);
  return x;
}

double matrix_relative_error(const Matrix& A, const Matrix& B) {
  return (A - B).cwiseAbs().maxCoeff() / B.cwiseAbs().maxCoeff();
}

// The FD Jacobian of the tridiagonal map with storage `storage` and coloured structure
// `coloured`; J is filled with garbage first; *evaluations counts the calls of G.
Matrix fd_tridiagonal(int n, const Sparsity& storage, const Sparsity& coloured, int* returned,
                      int* evaluations) {
  const Vector x = test_point(n);
  Vector G0(n);
  tridiagonal_map(x, G0);
  StructuredMatrix<double> J(n, storage);
  for (int j = 0; j < n; ++j) J.for_each_in_column(j, [](int, double& v) { v = 7.0; });
  FiniteDifferenceJacobian fd(n, coloured);
  *evaluations = 0;
  auto G = [&](const Vector& xx, Vector& out) {
    ++*evaluations;
    return tridiagonal_map(xx, out);
  };
  *returned = fd.evaluate(G, x, G0, nullptr, J);
  return J.to_dense();
}

}  // namespace

TEST(FiniteDifferenceColouring, DenseHasOneColumnPerColour) {
  const ColumnColouring c = colour_columns(7, Sparsity::dense());
  EXPECT_EQ(c.colours, 7);
  for (int j = 0; j < 7; ++j) EXPECT_EQ(c.colour_of[j], j);
  EXPECT_TRUE(valid_colouring(7, Sparsity::dense(), c));
}

TEST(FiniteDifferenceColouring, BandedIsOptimal) {
  struct Case {
    int n, lower, upper, colours;
  };
  for (const Case& k : {Case{1000, 1, 1, 3}, Case{1000, 2, 1, 4}, Case{1000, 2, 2, 5},
                        Case{1000, 0, 0, 1}, Case{3, 2, 2, 3}, Case{50, 0, 4, 5}}) {
    const Sparsity s = Sparsity::banded(k.lower, k.upper);
    const ColumnColouring c = colour_columns(k.n, s);
    EXPECT_EQ(c.colours, k.colours) << k.lower << " " << k.upper;
    EXPECT_TRUE(valid_colouring(k.n, s, c)) << k.lower << " " << k.upper;
  }
}

// The greedy colouring of a band given as a general pattern finds the optimal l + u + 1 too.
TEST(FiniteDifferenceColouring, GreedyOnBandPatternsIsOptimal) {
  for (const auto& [lower, upper] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{2, 2}}) {
    const Sparsity s = Sparsity::sparse(band_pattern(1000, lower, upper));
    const ColumnColouring c = colour_columns(1000, s);
    EXPECT_EQ(c.colours, lower + upper + 1);
    EXPECT_TRUE(valid_colouring(1000, s, c));
  }
}

TEST(FiniteDifferenceColouring, Laplacian5PointGrid) {
  const Sparsity s = Sparsity::sparse(laplacian_pattern(30, 30));
  const ColumnColouring c = colour_columns(900, s);
  EXPECT_TRUE(valid_colouring(900, s, c));
  EXPECT_GE(c.colours, 5);  // a row has 5 non-zeros
  EXPECT_LE(c.colours, 7);
  std::cout << "5-point Laplacian 30 x 30: " << c.colours << " colours\n";
}

TEST(FiniteDifferenceColouring, LargeLaplacianColoursQuickly) {
  const int m = 450;  // n = 202500
  const Sparsity s = Sparsity::sparse(laplacian_pattern(m, m));
  const ColumnColouring c = colour_columns(m * m, s);
  EXPECT_TRUE(valid_colouring(m * m, s, c));
  EXPECT_LE(c.colours, 7);
  std::cout << "5-point Laplacian " << m << " x " << m << ": " << c.colours << " colours\n";
}

TEST(FiniteDifferenceColouring, BlockArrowAndRandomPatterns) {
  // block arrow: 4 x 4 diagonal blocks, the last two rows and columns full
  const int n = 102;
  std::vector<std::pair<int, int>> arrow;
  for (int b = 0; b < 25; ++b)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) arrow.emplace_back(4 * b + i, 4 * b + j);
  for (int k = 0; k < n; ++k)
    for (int last = n - 2; last < n; ++last) {
      arrow.emplace_back(last, k);
      arrow.emplace_back(k, last);
    }
  const Sparsity s_arrow = Sparsity::sparse(pattern_from(n, arrow));
  const ColumnColouring c_arrow = colour_columns(n, s_arrow);
  EXPECT_TRUE(valid_colouring(n, s_arrow, c_arrow));
  EXPECT_EQ(c_arrow.colours, n);  // the full rows make every pair of columns conflict

  // arrow without the full rows: full last columns only, blocks of 4 -> 4 + 2 colours
  std::vector<std::pair<int, int>> cols_only;
  for (int b = 0; b < 25; ++b)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) cols_only.emplace_back(4 * b + i, 4 * b + j);
  for (int k = 0; k < n; ++k) {
    cols_only.emplace_back(k, n - 2);
    cols_only.emplace_back(k, n - 1);
  }
  const Sparsity s_cols = Sparsity::sparse(pattern_from(n, cols_only));
  const ColumnColouring c_cols = colour_columns(n, s_cols);
  EXPECT_TRUE(valid_colouring(n, s_cols, c_cols));
  EXPECT_EQ(c_cols.colours, 6);

  // random patterns with the diagonal and ~6 entries per column, some empty columns
  std::mt19937 rng(42);
  for (int trial = 0; trial < 5; ++trial) {
    const int m = 2000;
    std::uniform_int_distribution<int> row(0, m - 1);
    std::vector<std::pair<int, int>> e;
    for (int j = 0; j < m; ++j) {
      if (j % 97 == 5) continue;  // empty column
      e.emplace_back(j, j);
      for (int k = 0; k < 5; ++k) e.emplace_back(row(rng), j);
    }
    const Sparsity s = Sparsity::sparse(pattern_from(m, e));
    const ColumnColouring c = colour_columns(m, s);
    EXPECT_TRUE(valid_colouring(m, s, c)) << trial;
    EXPECT_LT(c.colours, 60) << trial;
  }
}

TEST(FiniteDifferenceColouring, EmptyMatrix) {
  for (const Sparsity& s : {Sparsity::dense(), Sparsity::sparse(SparseMatrix(0, 0))}) {
    const ColumnColouring c = colour_columns(0, s);
    EXPECT_EQ(c.colours, 0);
    ASSERT_EQ(c.group_start.size(), 1u);
    EXPECT_EQ(c.group_start[0], 0);
  }
}

TEST(FiniteDifferenceIncrement, Rule) {
  // a component at zero: sqrt(eps * 1e-5) = 4.7e-11, whatever the tolerances
  const double at_zero = kSqrtEps * std::sqrt(1e-5);
  EXPECT_EQ(FiniteDifferenceJacobian::increment(0.0, 0.0), at_zero);
  EXPECT_NEAR(FiniteDifferenceJacobian::increment(0.0, 0.0), 4.71e-11, 1e-13);
  // large components: sqrt(eps |x|) (rounded to the spacing of x)
  for (double x : {1.0, -3.0, 1e3, 123.456, -7.5e8}) {
    const double d = FiniteDifferenceJacobian::increment(x, 0.0);
    const double expected = kSqrtEps * std::sqrt(std::abs(x));
    EXPECT_NEAR(d, expected, 1e-12 * expected + 1e-16 * std::abs(x)) << x;
    EXPECT_GT(d, 0.0);
  }
  // typical_j is honoured when it is the largest
  // (each rounded to the spacing of x: x + delta - x is exact)
  EXPECT_NEAR(FiniteDifferenceJacobian::increment(1e-3, 10.0), kSqrtEps * std::sqrt(10.0), 1e-18);
  EXPECT_NEAR(FiniteDifferenceJacobian::increment(0.0, 1e-2), kSqrtEps * 0.1, 1e-22);
  EXPECT_NEAR(FiniteDifferenceJacobian::increment(2.0, 1e-2), kSqrtEps * std::sqrt(2.0), 1e-15);
  // huge components: the relative increment stays at least 1e3 eps (x + delta != x)
  EXPECT_NEAR(FiniteDifferenceJacobian::increment(1e18, 0.0), 1e3 * kSqrtEps * kSqrtEps * 1e18,
              1e3);
  // below the floor typical_j does not matter
  EXPECT_EQ(FiniteDifferenceJacobian::increment(0.0, 1e-9), at_zero);
}

TEST(FiniteDifferenceIncrement, StepIsExact) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (int k = 0; k < 100000; ++k) {
    const double x = mantissa(rng) * std::pow(10.0, exponent(rng));
    const double typical = k % 3 == 0 ? std::abs(mantissa(rng)) * 1e-3 : 0.0;
    const double d = FiniteDifferenceJacobian::increment(x, typical);
    const volatile double perturbed = x + d;
    ASSERT_EQ(perturbed - x, d) << x;
    ASSERT_GT(d, 0.0) << x;
  }
}

TEST(FiniteDifferenceJacobianTest, TridiagonalMatchesAnalyticInEveryStorage) {
  const int n = 40;
  const Matrix exact = tridiagonal_jacobian(test_point(n));
  struct Case {
    const char* name;
    Sparsity storage, coloured;
    int colours;
  };
  const Sparsity tri = Sparsity::sparse(band_pattern(n, 1, 1));
  for (const Case& k :
       {Case{"dense", Sparsity::dense(), Sparsity::dense(), n},
        Case{"banded", Sparsity::banded(1, 1), Sparsity::banded(1, 1), 3},
        Case{"sparse", tri, tri, 3},
        Case{"dense storage, banded colouring", Sparsity::dense(), Sparsity::banded(1, 1), 3},
        Case{"wider band storage", Sparsity::banded(2, 3), Sparsity::banded(1, 1), 3},
        Case{"sparse storage, banded colouring", tri, Sparsity::banded(1, 1), 3},
        Case{"dense storage, sparse colouring", Sparsity::dense(), tri, 3}}) {
    int returned = 0, evaluations = 0;
    const Matrix J = fd_tridiagonal(n, k.storage, k.coloured, &returned, &evaluations);
    EXPECT_EQ(returned, k.colours) << k.name;
    EXPECT_EQ(evaluations, k.colours) << k.name;  // + G0 by the caller: colours + 1
    EXPECT_LT(matrix_relative_error(J, exact), 1e-7) << k.name;
    // entries outside the band are exactly zero (J was filled with 7 before)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (std::abs(i - j) > 1) ASSERT_EQ(J(i, j), 0.0) << k.name << " " << i << " " << j;
  }
}

// J's sparse pattern contains the diagonal, the map's does not: the diagonal comes out zero
// (it would otherwise pick up the perturbation of another column of the same colour).
TEST(FiniteDifferenceJacobianTest, StorageLargerThanColouredPattern) {
  const int n = 30;
  // G_i = x_{i-1} x_{i+1} + sin(x_{i+1}): no dependence on x_i
  auto map = [n](const Vector& x, Vector& out) {
    for (int i = 0; i < n; ++i) {
      out[i] = 0.0;
      if (i > 0 && i < n - 1) out[i] += x[i - 1] * x[i + 1];
      if (i < n - 1) out[i] += std::sin(x[i + 1]);
    }
    return true;
  };
  std::vector<std::pair<int, int>> off;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && i < n - 1) off.emplace_back(i, i - 1);
    if (i < n - 1) off.emplace_back(i, i + 1);
  }
  const Sparsity coloured = Sparsity::sparse(pattern_from(n, off));
  const Vector x = test_point(n);
  Matrix exact = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    if (i > 0 && i < n - 1) {
      exact(i, i - 1) = x[i + 1];
      exact(i, i + 1) = x[i - 1];
    }
    if (i < n - 1) exact(i, i + 1) += std::cos(x[i + 1]);
  }
  Vector G0(n);
  map(x, G0);
  FiniteDifferenceJacobian fd(n, coloured);
  EXPECT_EQ(fd.colours(), 2);  // columns j, j + 1 share no row
  for (const Sparsity& storage :
       {Sparsity::sparse(band_pattern(n, 1, 1)), Sparsity::banded(1, 1), Sparsity::dense()}) {
    StructuredMatrix<double> J(n, storage);
    for (int j = 0; j < n; ++j) J.for_each_in_column(j, [](int, double& v) { v = 7.0; });
    int evaluations = 0;
    auto G = [&](const Vector& xx, Vector& out) {
      ++evaluations;
      return map(xx, out);
    };
    EXPECT_EQ(fd.evaluate(G, x, G0, nullptr, J), 2);
    EXPECT_EQ(evaluations, 2);
    EXPECT_LT(matrix_relative_error(J.to_dense(), exact), 1e-7) << storage.describe(n);
    for (int i = 0; i < n; ++i) EXPECT_EQ(J.at(i, i), 0.0) << storage.describe(n);
  }
}

TEST(FiniteDifferenceJacobianTest, StorageSmallerThanColouredStructureThrows) {
  const int n = 10;
  FiniteDifferenceJacobian fd(n, Sparsity::banded(2, 1));
  StructuredMatrix<double> J(n, Sparsity::banded(1, 1));
  const Vector x = test_point(n);
  Vector G0(n);
  tridiagonal_map(x, G0);
  EXPECT_THROW(fd.evaluate(tridiagonal_map, x, G0, nullptr, J), InvalidArgument);
  StructuredMatrix<double> J_ok(n, Sparsity::banded(2, 1));
  EXPECT_THROW(fd.evaluate(tridiagonal_map, x.head(n - 1), G0, nullptr, J_ok), InvalidArgument);
}

// A sparse map on a grid: every colour costs one evaluation, the result is exact to FD accuracy.
TEST(FiniteDifferenceJacobianTest, SparseGridMap) {
  const int m = 30, n = m * m;
  const SparseMatrix p = laplacian_pattern(m, m);
  // G_k = sum over the stencil of (x_l)^3 / (1 + k + l)
  auto map = [&](const Vector& x, Vector& out) {
    out.setZero();
    for (int l = 0; l < n; ++l)
      for (SparseMatrix::InnerIterator it(p, l); it; ++it) {
        const int k = static_cast<int>(it.row());
        out[k] += x[l] * x[l] * x[l] / (1.0 + k + l);
      }
    return true;
  };
  const Vector x = test_point(n);
  Matrix exact = Matrix::Zero(n, n);
  for (int l = 0; l < n; ++l)
    for (SparseMatrix::InnerIterator it(p, l); it; ++it) {
      const int k = static_cast<int>(it.row());
      exact(k, l) = 3.0 * x[l] * x[l] / (1.0 + k + l);
    }
  Vector G0(n);
  map(x, G0);
  const Sparsity s = Sparsity::sparse(p);
  FiniteDifferenceJacobian fd(n, s);
  StructuredMatrix<double> J(n, s);
  int evaluations = 0;
  auto G = [&](const Vector& xx, Vector& out) {
    ++evaluations;
    return map(xx, out);
  };
  EXPECT_EQ(fd.evaluate(G, x, G0, nullptr, J), fd.colours());
  EXPECT_EQ(evaluations, fd.colours());
  EXPECT_LE(fd.colours(), 7);
  const Matrix Jd = J.to_dense();
  for (int l = 0; l < n; ++l)
    for (SparseMatrix::InnerIterator it(p, l); it; ++it) {
      const int k = static_cast<int>(it.row());
      // truncation O(delta) and the round-off of G, eps |G_k| / delta_l
      const double roundoff = 4.0 * std::numeric_limits<double>::epsilon() * std::abs(G0[k]) /
                              FiniteDifferenceJacobian::increment(x[l], 0.0);
      ASSERT_NEAR(Jd(k, l), exact(k, l), 1e-7 * std::abs(exact(k, l)) + roundoff) << k << " " << l;
    }
}

// The increment used in evaluate is the rule's, with typical honoured: for G(x) = x^2 (per
// component) the forward difference is exactly 2 x + delta.
TEST(FiniteDifferenceJacobianTest, EvaluateUsesTheIncrementRule) {
  const int n = 4;
  Vector x(n), typical(n);
  x << 0.0, 1.0, -2.0, 1e-3;
  typical << 0.0, 0.0, 1e3, 10.0;
  auto square = [](const Vector& xx, Vector& out) {
    out = xx.cwiseProduct(xx);
    return true;
  };
  Vector G0(n);
  square(x, G0);
  FiniteDifferenceJacobian fd(n, Sparsity::banded(0, 0));
  EXPECT_EQ(fd.colours(), 1);
  StructuredMatrix<double> J(n, Sparsity::banded(0, 0));
  for (const Vector* t : std::initializer_list<const Vector*>{nullptr, &typical}) {
    EXPECT_EQ(fd.evaluate(square, x, G0, t, J), 1);
    for (int j = 0; j < n; ++j) {
      const double d = FiniteDifferenceJacobian::increment(x[j], t ? typical[j] : 0.0);
      EXPECT_NEAR(J.at(j, j), 2.0 * x[j] + d, 1e-6 * std::abs(2.0 * x[j] + d) + 1e-12) << j;
    }
  }
  EXPECT_NEAR(J.at(2, 2), -4.0 + kSqrtEps * std::sqrt(1e3), 1e-9);
}

// Robertson's kinetics as G(y) = (f1, f2, y1 + y2 + y3 - 1) at y = (1, 0, 0): the columns of
// y2 and y3, which sit at zero, are the analytic ones (an increment tied to atol would be tiny
// there and give round-off garbage).
TEST(FiniteDifferenceJacobianTest, RobertsonAtInitialValue) {
  auto G = [](const Vector& y, Vector& out) {
    out[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    out[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
    out[2] = y[0] + y[1] + y[2] - 1.0;
    return true;
  };
  const Vector y = Vector::Unit(3, 0);
  Matrix exact(3, 3);
  exact << -0.04, 1e4 * y[2], 1e4 * y[1],           //
      0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1],  //
      1.0, 1.0, 1.0;
  Vector G0(3);
  G(y, G0);
  for (const Sparsity& s :
       {Sparsity::dense(),
        Sparsity::sparse(pattern_from(
            3, {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}}))}) {
    FiniteDifferenceJacobian fd(3, s);
    StructuredMatrix<double> J(3, s);
    ASSERT_EQ(fd.evaluate(G, y, G0, nullptr, J), 3);
    const Matrix Jd = J.to_dense();
    EXPECT_TRUE(Jd.allFinite());
    // Forward-difference error: truncation delta_j |G_ij,j| / 2 (the y2^2 term: 3e7 delta_2)
    // plus the round-off of G_i, about eps * (magnitude of the terms of G_i) / delta_j. With
    // y2 = y3 = 0 the increments are 4.7e-11: accurate enough for Newton, and far from the
    // zero column an atol-tied increment gives.
    const double row_scale[3] = {0.04, 0.04, 1.0};
    const double second[3][3] = {{0, 0, 0}, {0, 3e7, 0}, {0, 0, 0}};  // |d2 G_i / d y_j^2| / 2
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double delta = FiniteDifferenceJacobian::increment(y[j], 0.0);
        const double tol = 1e-6 * std::max(1.0, std::abs(exact(i, j))) +
                           2.0 * std::numeric_limits<double>::epsilon() * row_scale[i] / delta +
                           1.01 * second[i][j] * delta;
        EXPECT_NEAR(Jd(i, j), exact(i, j), tol) << i << " " << j;
      }
    // the y2 and y3 columns of the conservation row are 1, not 0 or garbage
    EXPECT_NEAR(Jd(2, 1), 1.0, 2e-3);
    EXPECT_NEAR(Jd(2, 2), 1.0, 2e-3);
    EXPECT_NEAR(Jd(0, 0), -0.04, 1e-8);
    EXPECT_NEAR(Jd(1, 0), 0.04, 1e-8);
  }
}

TEST(FiniteDifferenceJacobianTest, FailingMapReturnsMinusOne) {
  const int n = 10;
  const Vector x = test_point(n);
  Vector G0(n);
  tridiagonal_map(x, G0);
  FiniteDifferenceJacobian fd(n, Sparsity::banded(1, 1));
  StructuredMatrix<double> J(n, Sparsity::banded(1, 1));
  int calls = 0;
  auto fails_second = [&](const Vector& xx, Vector& out) {
    tridiagonal_map(xx, out);
    return ++calls < 2;
  };
  EXPECT_EQ(fd.evaluate(fails_second, x, G0, nullptr, J), -1);
  EXPECT_EQ(calls, 2);
  // the object is usable again afterwards
  EXPECT_EQ(fd.evaluate(tridiagonal_map, x, G0, nullptr, J), 3);
  EXPECT_LT(matrix_relative_error(J.to_dense(), tridiagonal_jacobian(x)), 1e-7);
}

TEST(FiniteDifferenceJacobianTest, EvaluateAllocatesNothing) {
  if (daekit_testing::heap_allocations() < 0)
    GTEST_SKIP() << "malloc is not counted in this build (sanitizers)";
  {  // the counter sees Eigen's allocations
    const long before = daekit_testing::heap_allocations();
    Vector v = Vector::Constant(1000, 1.0);
    const volatile double sum = v.sum();
    EXPECT_GT(daekit_testing::heap_allocations() - before, 0) << sum;
  }
  const int n = 200;
  const Vector x = test_point(n);
  Vector G0(n), typical = Vector::Constant(n, 0.1);
  tridiagonal_map(x, G0);
  const Sparsity tri = Sparsity::sparse(band_pattern(n, 1, 1));
  struct Case {
    Sparsity storage, coloured;
  };
  for (const Case& k :
       {Case{Sparsity::dense(), Sparsity::dense()},
        Case{Sparsity::banded(1, 1), Sparsity::banded(1, 1)}, Case{tri, tri},
        Case{Sparsity::dense(), Sparsity::banded(1, 1)}, Case{Sparsity::dense(), tri}}) {
    FiniteDifferenceJacobian fd(n, k.coloured);
    StructuredMatrix<double> J(n, k.storage);
    const long before = daekit_testing::heap_allocations();
    const int evaluations = fd.evaluate(tridiagonal_map, x, G0, &typical, J);
    const long allocations = daekit_testing::heap_allocations() - before;
    EXPECT_GT(evaluations, 0);
    EXPECT_EQ(allocations, 0) << k.coloured.describe(n) << " in " << k.storage.describe(n);
  }
}
