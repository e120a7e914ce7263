// The finite-difference service on rectangular Jacobians (nonlinear/finite_difference.hpp):
// maps R^cols -> R^rows in dense, banded and sparse structures against their analytic
// Jacobians, the colouring of a rectangular pattern, the stateless dense loop (the same
// numbers as the prepared one), central differences (one column at a time, and coloured);
// df/dp of a MassMatrixDae and dF/dp of an
// ImplicitDae (the sensitivities' parameter Jacobians) against analytic ones, dense and
// coloured by a declared parameter_sparsity (the same numbers in fewer evaluations), and the
// refusal of a parameter_sparsity of the wrong shape.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/guard.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/systems.hpp"

using namespace daekit;

namespace {

// G: R^5 -> R^3 with a known Jacobian; rect_map_jacobian is dG/dx.
bool rect_map(const Vector& x, Vector& out) {
  out.resize(3);
  out[0] = x[0] * x[1] + std::sin(x[2]);
  out[1] = x[1] * x[1] - 3.0 * x[3];
  out[2] = std::exp(0.1 * x[4]) + x[2] * x[3];
  return true;
}

// rect_map as a callable object (FunctionRef takes objects, not function pointers)
constexpr auto rect_fn = [](const Vector& x, Vector& out) { return rect_map(x, out); };

Matrix rect_map_jacobian(const Vector& x) {
  Matrix J = Matrix::Zero(3, 5);
  J(0, 0) = x[1];
  J(0, 1) = x[0];
  J(0, 2) = std::cos(x[2]);
  J(1, 1) = 2.0 * x[1];
  J(1, 3) = -3.0;
  J(2, 2) = x[3];
  J(2, 3) = x[2];
  J(2, 4) = 0.1 * std::exp(0.1 * x[4]);
  return J;
}

SparseMatrix rect_pattern(int rows, int cols, const std::vector<std::pair<int, int>>& entries) {
  SparseMatrix m(rows, cols);
  for (const auto& [i, j] : entries) m.insert(i, j) = 1.0;  // the entries are distinct
  m.makeCompressed();
  return m;
}

// Relative agreement of forward differences with the analytic values.
::testing::AssertionResult close_to(const Matrix& D, const Matrix& A, double tol) {
  if (D.rows() != A.rows() || D.cols() != A.cols())
    return ::testing::AssertionFailure() << "shape " << D.rows() << " x " << D.cols();
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i)
      if (!(std::abs(D(i, j) - A(i, j)) <= tol * (1.0 + std::abs(A(i, j)))))
        return ::testing::AssertionFailure()
               << "(" << i << ", " << j << "): " << D(i, j) << " vs " << A(i, j);
  return ::testing::AssertionSuccess();
}

// A model whose right-hand side depends on 4 parameters: row i on p_(i mod 4) and
// p_((i + 1) mod 4), so that df/dp has two structural entries per row and its columns fall
// into two groups {0, 2} and {1, 3}.
constexpr int kParamRows = 8, kParams = 4;

double param_rhs(double t, const VecIn& y, const VecIn& p, int i) {
  const double a = p[i % kParams], b = p[(i + 1) % kParams];
  return y[(i + 1) % kParamRows] - a * a * y[i] + std::sin(b * t) * b;
}

Matrix param_rhs_dp(double t, const Vector& y, const Vector& p) {
  Matrix J = Matrix::Zero(kParamRows, kParams);
  for (int i = 0; i < kParamRows; ++i) {
    const int ka = i % kParams, kb = (i + 1) % kParams;
    const double b = p[kb];
    J(i, ka) += -2.0 * p[ka] * y[i];
    J(i, kb) += t * std::cos(b * t) * b + std::sin(b * t);
  }
  return J;
}

SparseMatrix param_pattern() {
  std::vector<std::pair<int, int>> e;
  for (int i = 0; i < kParamRows; ++i) {
    e.emplace_back(i, i % kParams);
    e.emplace_back(i, (i + 1) % kParams);
  }
  return rect_pattern(kParamRows, kParams, e);
}

MassMatrixDae param_model() {
  MassMatrixDae d;
  d.n = kParamRows;
  d.name = "parameter model";
  d.p = Vector(kParams);
  d.p << 0.7, -1.3, 2.1, 0.4;
  d.f = [](double t, VecIn y, VecOut out, VecIn p) {
    for (int i = 0; i < kParamRows; ++i) out[i] = param_rhs(t, y, p, i);
  };
  return d;
}

Vector param_state() {
  Vector y(kParamRows);
  for (int i = 0; i < kParamRows; ++i) y[i] = 0.3 + 0.25 * i - 0.05 * i * i;
  return y;
}

}  // namespace

TEST(RectangularDifferences, DenseBandedAndSparseMatchTheAnalyticJacobian) {
  Vector x(5);
  x << 0.4, -1.2, 0.9, 2.5, -0.3;
  Vector G0;
  rect_map(x, G0);
  const Matrix A = rect_map_jacobian(x);
  // the exact structure of dG/dx, a band containing it (rows 3, cols 5: l = 1, u = 2) and dense
  const Sparsity exact = Sparsity::sparse(
      rect_pattern(3, 5, {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 3}, {2, 2}, {2, 3}, {2, 4}}));
  for (const Sparsity& s : {Sparsity::dense(), Sparsity::banded(1, 2), exact}) {
    FiniteDifferenceJacobian fd(3, 5, s);
    Matrix D = Matrix::Constant(3, 5, 99.0);  // entries outside the structure become zero
    int calls = 0;
    const int evaluations = fd.evaluate(
        [&](const Vector& v, Vector& out) {
          ++calls;
          return rect_map(v, out);
        },
        x, G0, nullptr, D);
    EXPECT_EQ(evaluations, fd.colours());
    EXPECT_EQ(calls, fd.colours());
    EXPECT_TRUE(close_to(D, A, 1e-6)) << s.describe(5);
    if (s.kind != Sparsity::Kind::Dense) EXPECT_LT(fd.colours(), 5) << s.describe(5);
  }
  // rows 0 and 2 reach columns 0-2 and 2-4: columns 0 and 4 share no row, nor 1 and 4
  FiniteDifferenceJacobian fd(3, 5, exact);
  EXPECT_EQ(fd.colours(), 3);
}

TEST(RectangularDifferences, ColouringOfARectangularPatternIsValid) {
  // 4 x 9: row r holds columns 2r, 2r + 1 and 8
  std::vector<std::pair<int, int>> e;
  for (int r = 0; r < 4; ++r) {
    e.emplace_back(r, 2 * r);
    e.emplace_back(r, 2 * r + 1);
    e.emplace_back(r, 8);
  }
  const Sparsity s = Sparsity::sparse(rect_pattern(4, 9, e));
  const ColumnColouring c = colour_columns(4, 9, s);
  ASSERT_EQ(static_cast<int>(c.colour_of.size()), 9);
  EXPECT_EQ(c.colours, 3);  // column 8 meets every row; the pairs of a row differ
  for (int r = 0; r < 4; ++r)
    for (const auto& [i, j] : e)
      for (const auto& [i2, k] : e)
        if (i == r && i2 == r && j != k) EXPECT_NE(c.colour_of[j], c.colour_of[k]);
  EXPECT_THROW(colour_columns(5, 9, s), InvalidArgument);  // the pattern is 4 x 9
  EXPECT_THROW(colour_columns(3, 5, Sparsity::banded(3, 1)), InvalidArgument);
}

TEST(RectangularDifferences, StatelessDenseLoopGivesTheSameNumbers) {
  Vector x(5);
  x << 1e-9, 3.0, -7.5e6, 0.0, 12.0;
  Vector G0;
  rect_map(x, G0);
  const Vector typical = Vector::Constant(5, 0.5);
  Matrix D1(3, 5), D2(3, 5);
  FiniteDifferenceJacobian fd(3, 5, Sparsity::dense());
  ASSERT_EQ(fd.evaluate(rect_fn, x, G0, &typical, D1), 5);
  Vector x_work, G_work;
  ASSERT_EQ(FiniteDifferenceJacobian::evaluate_dense(rect_fn, x, G0, &typical, x_work, G_work, D2),
            5);
  EXPECT_EQ(x_work, x);  // left at x
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 3; ++i) EXPECT_EQ(D1(i, j), D2(i, j)) << i << ", " << j;
  // the increments are the rule's: column 1 is (G(x + d e_1) - G0) / d exactly
  const double d = FiniteDifferenceJacobian::increment(x[1], typical[1]);
  Vector xp = x, Gp;
  xp[1] += d;
  rect_map(xp, Gp);
  EXPECT_EQ(D2(1, 1), (Gp[1] - G0[1]) / d);
}

TEST(RectangularDifferences, CentralDifferencesAreSecondOrder) {
  Vector x(5);
  x << 0.4, -1.2, 0.9, 2.5, -0.3;
  Matrix D;
  Vector delta;
  ASSERT_TRUE(FiniteDifferenceJacobian::central(rect_fn, 3, x, 1e-3, D, &delta));
  EXPECT_TRUE(close_to(D, rect_map_jacobian(x), 1e-9));
  for (int j = 0; j < 5; ++j)
    EXPECT_EQ(delta[j], FiniteDifferenceJacobian::central_increment(x[j], 1e-3));
}

// The coloured central differences (evaluate_central): 2 evaluations per colour, the numbers of
// the one-column central() where each group holds one column, and O(eps^(2/3)) accurate where
// the forward differences are not (1e-9 against their 1e-6).
TEST(RectangularDifferences, ColouredCentralDifferencesAreSecondOrder) {
  Vector x(5);
  x << 0.4, -1.2, 0.9, 2.5, -0.3;
  const Matrix A = rect_map_jacobian(x);
  const Sparsity exact = Sparsity::sparse(
      rect_pattern(3, 5, {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 3}, {2, 2}, {2, 3}, {2, 4}}));
  for (const Sparsity& s : {Sparsity::dense(), Sparsity::banded(1, 2), exact}) {
    FiniteDifferenceJacobian fd(3, 5, s);
    Matrix D = Matrix::Constant(3, 5, 99.0);
    int calls = 0;
    const int evaluations = fd.evaluate_central(
        [&](const Vector& v, Vector& out) {
          ++calls;
          return rect_map(v, out);
        },
        x, 1e-3, D);
    EXPECT_EQ(evaluations, 2 * fd.colours());
    EXPECT_EQ(calls, 2 * fd.colours());
    EXPECT_TRUE(close_to(D, A, 1e-9)) << s.describe(5);
    if (s.kind == Sparsity::Kind::Dense) {
      Matrix C;
      ASSERT_TRUE(FiniteDifferenceJacobian::central(rect_fn, 3, x, 1e-3, C));
      EXPECT_EQ(D, C);  // one column per group: the same evaluations
    }
  }
}

TEST(ParameterJacobian, MassMatrixDenseAndColouredMatchTheAnalyticDfDp) {
  const Vector y = param_state();
  const double t = 0.37;
  for (const bool coloured : {false, true}) {
    MassMatrixDae dae = param_model();
    if (coloured) dae.parameter_sparsity = Sparsity::sparse(param_pattern());
    CallGuard guard;
    Stats stats;
    MassMatrixSystem sys(dae, LinearSolverKind::Dense, guard, stats);
    Vector f0(kParamRows);
    ASSERT_TRUE(sys.f(t, y, f0));
    Matrix Jp(kParamRows, kParams);
    const long before = stats.nfev_jac;
    ASSERT_TRUE(sys.parameter_jacobian(t, y, f0, Jp));
    EXPECT_EQ(sys.parameter_colours(), coloured ? 2 : kParams);
    EXPECT_EQ(stats.nfev_jac - before, coloured ? 2 : kParams);
    EXPECT_TRUE(close_to(Jp, param_rhs_dp(t, y, dae.p), 1e-6)) << "coloured " << coloured;
  }
}

TEST(ParameterJacobian, ColouredGroupsGiveTheDenseNumbersBitForBit) {
  // a row sees only its own parameters' perturbations: perturbing a group at once changes no
  // row's value
  const Vector y = param_state();
  Matrix J[2];
  for (int c = 0; c < 2; ++c) {
    MassMatrixDae dae = param_model();
    if (c == 1) dae.parameter_sparsity = Sparsity::sparse(param_pattern());
    CallGuard guard;
    Stats stats;
    MassMatrixSystem sys(dae, LinearSolverKind::Dense, guard, stats);
    Vector f0(kParamRows);
    ASSERT_TRUE(sys.f(1.5, y, f0));
    J[c].resize(kParamRows, kParams);
    ASSERT_TRUE(sys.parameter_jacobian(1.5, y, f0, J[c]));
  }
  const Matrix A = param_rhs_dp(1.5, y, param_model().p);
  for (int j = 0; j < kParams; ++j)
    for (int i = 0; i < kParamRows; ++i) {
      EXPECT_EQ(J[1](i, j), J[0](i, j)) << i << ", " << j;
      if (A(i, j) == 0.0) EXPECT_EQ(J[1](i, j), 0.0);
    }
}

TEST(ParameterJacobian, ImplicitDaeAndTheMassMatrixFormGiveDFDp) {
  const Vector y = param_state();
  const double t = 0.8;
  Vector yp(kParamRows);
  for (int i = 0; i < kParamRows; ++i) yp[i] = 0.1 * i - 0.2;
  const MassMatrixDae mass_form = param_model();
  const Matrix expected = -param_rhs_dp(t, y, mass_form.p);
  // F = y' - f(t, y, p) written by hand, dense and coloured
  for (const bool coloured : {false, true}) {
    ImplicitDae d;
    d.n = kParamRows;
    d.p = mass_form.p;
    d.F = [](double tt, VecIn yy, VecIn ypp, VecOut out, VecIn p) {
      for (int i = 0; i < kParamRows; ++i) out[i] = ypp[i] - param_rhs(tt, yy, p, i);
    };
    if (coloured) d.parameter_sparsity = Sparsity::sparse(param_pattern());
    CallGuard guard;
    Stats stats;
    ImplicitSystem sys(d, LinearSolverKind::Dense, guard, stats);
    Vector F0(kParamRows);
    ASSERT_TRUE(sys.F(t, y, yp, F0));
    Matrix Jp(kParamRows, kParams);
    ASSERT_TRUE(sys.parameter_jacobian(t, y, yp, F0, Jp));
    EXPECT_EQ(sys.parameter_colours(), coloured ? 2 : kParams);
    EXPECT_TRUE(close_to(Jp, expected, 1e-6)) << "coloured " << coloured;
  }
  // the BDF's view of a MassMatrixDae: dF/dp = -df/dp, the mass system's differences
  CallGuard guard;
  Stats stats;
  ImplicitSystem sys(mass_form, LinearSolverKind::Dense, guard, stats);
  MassMatrixSystem msys(mass_form, LinearSolverKind::Dense, guard, stats);
  Vector F0(kParamRows), f0(kParamRows);
  ASSERT_TRUE(sys.F(t, y, yp, F0));
  ASSERT_TRUE(msys.f(t, y, f0));
  Matrix Jp(kParamRows, kParams), Jf(kParamRows, kParams);
  ASSERT_TRUE(sys.parameter_jacobian(t, y, yp, F0, Jp));
  ASSERT_TRUE(msys.parameter_jacobian(t, y, f0, Jf));
  EXPECT_TRUE(close_to(Jp, expected, 1e-6));
  EXPECT_EQ(Jp, -Jf);
}

TEST(ParameterJacobian, FailingEvaluationIsReported) {
  MassMatrixDae dae = param_model();
  dae.f = [](double t, VecIn y, VecOut out, VecIn p) {
    for (int i = 0; i < kParamRows; ++i) out[i] = param_rhs(t, y, p, i);
    if (p[2] > 2.1) out[3] = std::nan("");  // the perturbed third parameter
  };
  CallGuard guard;
  Stats stats;
  MassMatrixSystem sys(dae, LinearSolverKind::Dense, guard, stats);
  const Vector y = param_state();
  Vector f0(kParamRows);
  ASSERT_TRUE(sys.f(0.0, y, f0));
  Matrix Jp(kParamRows, kParams);
  EXPECT_FALSE(sys.parameter_jacobian(0.0, y, f0, Jp));
  EXPECT_NE(guard.failure().kind, CallbackFailure::Kind::None);
}

TEST(ParameterJacobian, ParameterSparsityOfTheWrongShapeIsRefused) {
  MassMatrixDae dae = param_model();
  dae.parameter_sparsity = Sparsity::sparse(rect_pattern(kParamRows, kParams + 1, {{0, 0}}));
  EXPECT_THROW(dae.validate(), InvalidArgument);
  dae.parameter_sparsity = Sparsity::banded(0, kParams);  // upper bandwidth beyond the columns
  EXPECT_THROW(dae.validate(), InvalidArgument);
  dae.parameter_sparsity = Sparsity::banded(kParamRows - 1, kParams - 1);
  EXPECT_NO_THROW(dae.validate());
  ImplicitDae d = to_implicit_form(param_model());
  d.parameter_sparsity = Sparsity::sparse(rect_pattern(kParams, kParamRows, {{0, 0}}));
  EXPECT_THROW(d.validate(), InvalidArgument);
}
