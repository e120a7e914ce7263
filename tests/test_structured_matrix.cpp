// Unit tests of linalg/structured_matrix.hpp (StructuredMatrix in its dense, banded and sparse
// storage, real and complex: entry access, column visits, products, the assembly operations)
// and of linalg/mass_operator.hpp (structure detection, products, assembly into iteration
// matrices, zero rows and columns), each checked against plain dense arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "linalg/mass_operator.hpp"
#include "linalg/structured_matrix.hpp"

using namespace daekit;

namespace {

using Complex = std::complex<double>;
template <typename Scalar>
using DenseOf = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
template <typename Scalar>
using VectorOf = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

constexpr int kN = 7;

template <typename Scalar>
Scalar structured_random_scalar(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (std::is_same_v<Scalar, double>) {
    return u(rng);
  } else {
    const double re = u(rng);
    return Scalar(re, u(rng));
  }
}

SparseMatrix pattern_of(const std::vector<std::pair<int, int>>& entries, int n) {
  std::vector<Eigen::Triplet<double, int>> t;
  for (auto [i, j] : entries) t.emplace_back(i, j, 1.0);
  SparseMatrix p(n, n);
  p.setFromTriplets(t.begin(), t.end());
  p.makeCompressed();
  return p;
}

// A sparse pattern: the tridiagonal band plus a few far entries.
SparseMatrix test_pattern(int n) {
  std::vector<std::pair<int, int>> e;
  for (int i = 0; i < n; ++i) {
    e.emplace_back(i, i);
    if (i > 0) e.emplace_back(i, i - 1);
    if (i + 1 < n) e.emplace_back(i, i + 1);
  }
  e.emplace_back(n - 1, 0);
  e.emplace_back(0, n - 1);
  if (n > 4) e.emplace_back(4, 1);
  return pattern_of(e, n);
}

struct NamedStructure {
  std::string name;
  Sparsity s;
};

std::vector<NamedStructure> structures() {
  return {{"dense", Sparsity::dense()},
          {"banded(1,2)", Sparsity::banded(1, 2)},
          {"banded(0,0)", Sparsity::banded(0, 0)},
          {"banded(6,6)", Sparsity::banded(kN - 1, kN - 1)},
          {"sparse", Sparsity::sparse(test_pattern(kN))}};
}

// Random values on the structure of m (written through for_each_in_column); returns them as a
// dense matrix.
template <typename Scalar>
DenseOf<Scalar> fill_random(StructuredMatrix<Scalar>& m, std::mt19937& rng) {
  DenseOf<Scalar> d = DenseOf<Scalar>::Zero(m.size(), m.size());
  for (int j = 0; j < m.size(); ++j)
    m.for_each_in_column(
        j, [&](int i, Scalar& v) { d(i, j) = v = structured_random_scalar<Scalar>(rng); });
  return d;
}

template <typename Scalar>
void check_access_and_products() {
  std::mt19937 rng(17);
  for (const NamedStructure& ns : structures()) {
    SCOPED_TRACE(ns.name);
    StructuredMatrix<Scalar> m(kN, ns.s);
    EXPECT_EQ(m.size(), kN);
    EXPECT_EQ(m.kind(), ns.s.kind);
    EXPECT_TRUE(m.to_dense().isZero(0.0));
    const DenseOf<Scalar> d = fill_random(m, rng);
    EXPECT_EQ(m.to_dense(), d);
    for (int j = 0; j < kN; ++j) {
      // for_each_in_column: exactly the structural entries, rows increasing
      std::vector<int> rows;
      m.for_each_in_column(j, [&](int i, Scalar&) { rows.push_back(i); });
      std::vector<int> expected;
      for (int i = 0; i < kN; ++i)
        if (ns.s.contains(i, j)) expected.push_back(i);
      EXPECT_EQ(rows, expected) << "column " << j;
      for (int i = 0; i < kN; ++i) {
        EXPECT_EQ(m.at(i, j), d(i, j));
        if (ns.s.contains(i, j)) {
          m.ref(i, j) += Scalar(1);
          EXPECT_EQ(m.at(i, j), d(i, j) + Scalar(1));
          m.ref(i, j) -= Scalar(1);
        } else {
          EXPECT_EQ(m.at(i, j), Scalar(0));
          EXPECT_THROW(m.ref(i, j), InvalidArgument) << i << ", " << j;
        }
      }
    }
    // garbage in the banded fill rows is not part of the matrix
    if (m.kind() == Sparsity::Kind::Banded && m.lower() > 0)
      m.band().topRows(m.lower()).setConstant(Scalar(1e30));
    EXPECT_EQ(m.to_dense(), d);
    VectorOf<Scalar> x(kN), y(kN);
    for (int i = 0; i < kN; ++i) x[i] = structured_random_scalar<Scalar>(rng);
    m.multiply(x, y);
    EXPECT_LT((y - d * x).norm(), 1e-14);
    m.set_zero();
    EXPECT_TRUE(m.to_dense().isZero(0.0));
  }
}

// The operations E = c J, E += s A, E += s diag(d), E += s I for real J, A whose structure is
// contained in E's (the same structure: the fast paths; a smaller one: the general paths).
template <typename Scalar>
void check_assembly() {
  std::mt19937 rng(29);
  const Sparsity diagonal = Sparsity::sparse(pattern_of({{0, 0}, {2, 2}, {3, 3}, {6, 6}}, kN));
  const std::vector<std::pair<NamedStructure, std::vector<NamedStructure>>> cases = {
      {{"dense", Sparsity::dense()},
       {{"dense", Sparsity::dense()},
        {"banded(1,2)", Sparsity::banded(1, 2)},
        {"sparse", Sparsity::sparse(test_pattern(kN))}}},
      {{"banded(1,2)", Sparsity::banded(1, 2)},
       {{"banded(1,2)", Sparsity::banded(1, 2)},
        {"banded(1,1)", Sparsity::banded(1, 1)},
        {"banded(0,2)", Sparsity::banded(0, 2)},
        {"sparse diagonal", diagonal}}},
      {{"sparse", Sparsity::sparse(test_pattern(kN))},
       {{"sparse", Sparsity::sparse(test_pattern(kN))},
        {"banded(1,1)", Sparsity::banded(1, 1)},
        {"banded(0,0)", Sparsity::banded(0, 0)},
        {"sparse diagonal", diagonal}}},
  };
  for (const auto& [target, sources] : cases) {
    for (const NamedStructure& source : sources) {
      SCOPED_TRACE(target.name + " <- " + source.name);
      StructuredMatrix<double> j(kN, source.s);
      const DenseOf<double> jd = fill_random(j, rng);
      StructuredMatrix<Scalar> e(kN, target.s);
      fill_random(e, rng);  // old contents: must be overwritten
      e.assign_scaled(j, 2.5);
      EXPECT_LT((e.to_dense() - (2.5 * jd).template cast<Scalar>()).norm(), 1e-15);
      const DenseOf<Scalar> before = fill_random(e, rng);
      const Scalar s = structured_random_scalar<Scalar>(rng);
      e.add_scaled(j, s);
      EXPECT_LT((e.to_dense() - (before + s * jd.template cast<Scalar>())).norm(), 1e-14);
    }
    // A dense source that is zero outside the target's structure may be added to it.
    StructuredMatrix<Scalar> e(kN, target.s);
    const DenseOf<Scalar> before = fill_random(e, rng);
    StructuredMatrix<double> a(kN, Sparsity::dense());
    a.dense().diagonal().setConstant(3.0);
    a.dense()(1, 0) = -1.0;
    e.add_scaled(a, Scalar(2));
    EXPECT_LT((e.to_dense() - (before + Scalar(2) * a.dense().template cast<Scalar>())).norm(),
              1e-14);
    // diagonal and identity
    Vector d = Vector::Zero(kN);
    d[1] = 2.0;
    d[5] = -1.0;
    const DenseOf<Scalar> before2 = e.to_dense();
    const Scalar s = structured_random_scalar<Scalar>(rng);
    e.add_diagonal(d, s);
    DenseOf<Scalar> expected = before2;
    expected.diagonal() += s * d.template cast<Scalar>();
    EXPECT_LT((e.to_dense() - expected).norm(), 1e-14);
    e.add_identity(s);
    expected.diagonal().array() += s;
    EXPECT_LT((e.to_dense() - expected).norm(), 1e-14);
  }
}

}  // namespace

TEST(StructuredMatrix, AccessAndProductsReal) { check_access_and_products<double>(); }
TEST(StructuredMatrix, AccessAndProductsComplex) { check_access_and_products<Complex>(); }
TEST(StructuredMatrix, AssemblyReal) { check_assembly<double>(); }
TEST(StructuredMatrix, AssemblyComplex) { check_assembly<Complex>(); }

TEST(StructuredMatrix, Layouts) {
  StructuredMatrix<double> band(5, Sparsity::banded(2, 1));
  EXPECT_EQ(band.band().rows(), 2 * 2 + 1 + 1);
  EXPECT_EQ(band.band().cols(), 5);
  band.ref(3, 1) = 7.0;  // row l + u + i - j = 2 + 1 + 3 - 1
  EXPECT_EQ(band.band()(5, 1), 7.0);
  EXPECT_EQ(band.band_row(3, 1), 5);
  EXPECT_EQ(band.lower(), 2);
  EXPECT_EQ(band.upper(), 1);
  StructuredMatrix<Complex> sparse(kN, Sparsity::sparse(test_pattern(kN)));
  EXPECT_EQ(sparse.sparse().nonZeros(), test_pattern(kN).nonZeros());
  EXPECT_TRUE(sparse.sparse().isCompressed());
  EXPECT_THROW(StructuredMatrix<double>(3, Sparsity::banded(3, 0)), InvalidArgument);
  EXPECT_THROW(StructuredMatrix<double>(3, Sparsity::sparse(test_pattern(4))), InvalidArgument);
}

// A sparse pattern without (part of) the diagonal: the identity cannot be added to it, a
// diagonal that is zero there can.
TEST(StructuredMatrix, SparsePatternWithoutDiagonal) {
  const Sparsity s = Sparsity::sparse(pattern_of({{0, 0}, {1, 2}, {2, 1}}, 3));
  EXPECT_THROW(StructuredMatrix<double>(3, s).add_identity(1.0), InvalidArgument);
  StructuredMatrix<double> m(3, s);
  Vector d = Vector::Zero(3);
  d[0] = 4.0;
  m.add_diagonal(d, 0.5);
  EXPECT_EQ(m.at(0, 0), 2.0);
}

// ---------------------------------------------------------------------------------------------
// MassOperator

namespace {

// y = M x and E += s M against the dense M, for an operator whose dense matrix is `dense`.
void check_mass_operator(const MassOperator& op, const Matrix& dense) {
  const int n = op.size();
  ASSERT_EQ(op.to_dense().rows(), n);
  EXPECT_EQ(op.to_dense(), dense);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) EXPECT_EQ(op.at(i, j), dense(i, j));
  std::mt19937 rng(3);
  Vector x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = structured_random_scalar<double>(rng);
  op.apply(x, y);
  EXPECT_LT((y - dense * x).norm(), 1e-14);
  Vector z = x;
  op.apply_add(x, z);  // z = x + M x
  EXPECT_LT((z - x - dense * x).norm(), 1e-14);
  // E += s M into structures containing M's (its own, and a dense one), real and complex
  std::vector<Sparsity> targets = {Sparsity::dense(), op.sparsity()};
  if (op.kind() != MassOperator::Kind::Structured) targets.push_back(Sparsity::banded(1, 0));
  for (const Sparsity& s : targets) {
    StructuredMatrix<double> e(n, s);
    const DenseOf<double> before = fill_random(e, rng);
    op.add_to(e, 1.5);
    EXPECT_LT((e.to_dense() - (before + 1.5 * dense)).norm(), 1e-14);
    StructuredMatrix<Complex> ec(n, s);
    const DenseOf<Complex> beforec = fill_random(ec, rng);
    const Complex sc(0.5, -2.0);
    op.add_to(ec, sc);
    EXPECT_LT((ec.to_dense() - (beforec + sc * dense.cast<Complex>())).norm(), 1e-14);
  }
  // zero rows and columns
  std::vector<int> rows, cols;
  for (int i = 0; i < n; ++i) {
    if (dense.row(i).isZero(0.0)) rows.push_back(i);
    if (dense.col(i).isZero(0.0)) cols.push_back(i);
  }
  EXPECT_EQ(op.zero_rows(), rows);
  EXPECT_EQ(op.zero_columns(), cols);
}

}  // namespace

TEST(MassOperator, FromDenseDetectsStructure) {
  const int n = 12;
  {
    const MassOperator op = MassOperator::from_dense(n, Matrix());
    EXPECT_EQ(op.kind(), MassOperator::Kind::Identity);
    EXPECT_TRUE(op.is_identity());
    EXPECT_EQ(op.diagonal(), Vector::Ones(n));
    check_mass_operator(op, Matrix::Identity(n, n));
  }
  {
    const MassOperator op = MassOperator::from_dense(n, Matrix::Identity(n, n));
    EXPECT_EQ(op.kind(), MassOperator::Kind::Identity);
    check_mass_operator(op, Matrix::Identity(n, n));
  }
  {
    Matrix m = Matrix::Identity(n, n);
    m(3, 3) = 0.0;
    m(5, 5) = 2.0;
    const MassOperator op = MassOperator::from_dense(n, m);
    EXPECT_EQ(op.kind(), MassOperator::Kind::Diagonal);
    EXPECT_FALSE(op.is_identity());
    EXPECT_EQ(op.diagonal(), Vector(m.diagonal()));
    EXPECT_EQ(op.zero_rows(), std::vector<int>{3});
    check_mass_operator(op, m);
  }
  {
    // tridiagonal with a zero row and a zero column: banded (1, 1) from n = 64 on (below, Eigen's
    // dense product is cheaper: kept dense)
    for (const int nb : {n, 80}) {
      Matrix m = Matrix::Zero(nb, nb);
      for (int i = 0; i < nb; ++i) {
        m(i, i) = 2.0;
        if (i > 0) m(i, i - 1) = -1.0;
        if (i + 1 < nb) m(i, i + 1) = -0.5;
      }
      m.row(4).setZero();
      m.col(7).setZero();
      const MassOperator op = MassOperator::from_dense(nb, m);
      EXPECT_EQ(op.kind(), MassOperator::Kind::Structured);
      if (nb >= 64) {
        EXPECT_EQ(op.sparsity().kind, Sparsity::Kind::Banded);
        EXPECT_EQ(op.sparsity().lower, 1);
        EXPECT_EQ(op.sparsity().upper, 1);
      } else {
        EXPECT_EQ(op.sparsity().kind, Sparsity::Kind::Dense);
      }
      check_mass_operator(op, m);
    }
  }
  {
    // a wide band (or a full matrix) stays dense
    Matrix m = Matrix::Identity(n, n);
    m(0, 5) = 1.0;
    const MassOperator op = MassOperator::from_dense(n, m);
    EXPECT_EQ(op.kind(), MassOperator::Kind::Structured);
    EXPECT_EQ(op.sparsity().kind, Sparsity::Kind::Dense);
    check_mass_operator(op, m);
  }
  EXPECT_THROW(MassOperator::from_dense(n, Matrix::Identity(n + 1, n + 1)), InvalidArgument);
}

TEST(MassOperator, FromSparse) {
  const int n = 8;
  {
    SparseMatrix eye(n, n);
    eye.setIdentity();
    const MassOperator op = MassOperator::from_sparse(n, eye);
    EXPECT_EQ(op.kind(), MassOperator::Kind::Identity);
    check_mass_operator(op, Matrix::Identity(n, n));
  }
  {
    // diagonal, with an explicitly stored zero off the diagonal and a zero on it
    std::vector<Eigen::Triplet<double, int>> t;
    for (int i = 0; i < n; ++i) t.emplace_back(i, i, i == 2 ? 0.0 : 1.0 + i);
    t.emplace_back(0, 3, 0.0);
    SparseMatrix m(n, n);
    m.setFromTriplets(t.begin(), t.end());
    const MassOperator op = MassOperator::from_sparse(n, m);
    EXPECT_EQ(op.kind(), MassOperator::Kind::Diagonal);
    EXPECT_EQ(op.zero_rows(), std::vector<int>{2});
    check_mass_operator(op, Matrix(m));
  }
  {
    // general sparse, not compressed on input, with a zero row and column
    SparseMatrix m(n, n);
    for (int i = 0; i < n; ++i)
      if (i != 6) m.insert(i, i) = 1.0;
    m.insert(0, 4) = 3.0;
    m.insert(5, 1) = -2.0;
    m.insert(6, 1) = 0.0;  // stored zero: row 6 stays a zero row
    ASSERT_FALSE(m.isCompressed());
    const MassOperator op = MassOperator::from_sparse(n, m);
    EXPECT_EQ(op.kind(), MassOperator::Kind::Structured);
    EXPECT_EQ(op.sparsity().kind, Sparsity::Kind::Sparse);
    check_mass_operator(op, Matrix(m));
  }
  {
    // empty: the identity, as for from_dense
    const MassOperator op = MassOperator::from_sparse(n, SparseMatrix());
    EXPECT_EQ(op.kind(), MassOperator::Kind::Identity);
    check_mass_operator(op, Matrix::Identity(n, n));
  }
  EXPECT_THROW(MassOperator::from_sparse(n, SparseMatrix(n, n + 1)), InvalidArgument);
}

// apply_columns<3, N> (n known at compile time: at most two nonzeros per row take the padded
// path, more the compressed rows) gives M X column by column to the bit, as apply() does,
// signed zeros included: a row whose two products cancel, a row with one entry, a zero row.
TEST(MassOperator, ColumnProductsAtCompileTimeSizeBitwise) {
  constexpr int n = 8;
  auto check = [&](const Matrix& m) {
    const MassOperator op = MassOperator::from_dense(n, m);
    ASSERT_EQ(op.kind(), MassOperator::Kind::Structured);
    std::mt19937 rng(11);
    Matrix x(n, 3), out(n, 3);
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < n; ++i) x(i, c) = structured_random_scalar<double>(rng);
    x(0, 1) = x(1, 1);  // row 0's products cancel in column 1: +0
    x(3, 2) = -0.0;     // row 3's one product is -0 in column 2: the sum is +0
    op.apply_columns<3, n>(x, 3, out);
    for (int c = 0; c < 3; ++c) {
      Vector y(n);
      op.apply(x.col(c), y);
      for (int i = 0; i < n; ++i) {
        double sum = 0.0;  // the compressed rows' sum: the nonzeros of row i in column order
        for (int j = 0; j < n; ++j)
          if (m(i, j) != 0.0) sum += m(i, j) * x(j, c);
        for (const double v : {out(i, c), y[i]}) {
          EXPECT_EQ(v, sum) << i << ", " << c;
          EXPECT_EQ(std::signbit(v), std::signbit(sum)) << i << ", " << c;
        }
      }
    }
  };
  Matrix m = Matrix::Zero(n, n);  // the transistor's pattern: rows of two and one, one zero row
  m(0, 0) = -2.0, m(0, 1) = 2.0, m(1, 0) = 2.0, m(1, 1) = -2.0, m(3, 3) = 3.0;
  m(4, 4) = -1.5, m(4, 5) = 1.5, m(5, 4) = 1.5, m(5, 5) = -1.5, m(6, 6) = 0.5, m(7, 2) = 4.0;
  check(m);
  m(7, 0) = 1.0;  // three nonzeros in row 7: the compressed rows
  m(7, 6) = -3.0;
  check(m);
}
