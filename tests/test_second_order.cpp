// The second-order elimination (RADAU5's M1/M2; linalg/second_order.hpp,
// MassMatrixDae::second_order): the reduced solve agrees with the full dense LU to round-off
// (real and complex, chains of one and two blocks); the declaration is validated; the mechanical
// formulations declare it; f contradicting the declaration ends the solve with a clear status;
// Andrews with and without it.
#include <gtest/gtest.h>

#include <complex>
#include <random>

#include "daekit/daekit.hpp"
#include "linalg/linear_solver.hpp"
#include "linalg/second_order.hpp"

using namespace daekit;

namespace {

// E = s M - J for a random J whose first m1 rows are the chain y_i' = y_{i+m2} and M = I on the
// first m1 rows/columns (a random block elsewhere).
template <typename Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> chain_matrix(int n, int m1, int m2, Scalar s,
                                                                   std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Matrix J(n, n), M = Matrix::Zero(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) J(i, j) = u(rng);
  for (int i = 0; i < m1; ++i) {
    J.row(i).setZero();
    J(i, i + m2) = 1.0;
    M(i, i) = 1.0;
  }
  for (int j = m1; j < n; ++j)
    for (int i = m1; i < n; ++i) M(i, j) = i < n - 2 ? u(rng) : 0.0;  // singular M
  return s * M.cast<Scalar>() - J.cast<Scalar>();
}

template <typename Scalar>
void agrees_with_full_lu(Scalar s) {
  std::mt19937 rng(7);
  for (auto [n, m1, m2] : {std::tuple{5, 2, 2}, {20, 7, 7}, {27, 14, 7}, {12, 6, 2}}) {
    const auto E = chain_matrix<Scalar>(n, m1, m2, s, rng);
    auto full = make_linear_solver<Scalar>(n, Sparsity::dense(), LinearSolverKind::Dense);
    auto reduced = make_second_order_solver<Scalar>(n, m1, m2);
    full->matrix().dense() = E;
    reduced->matrix().dense() = E;
    ASSERT_TRUE(full->factor());
    ASSERT_TRUE(reduced->factor());
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::Matrix<Scalar, Eigen::Dynamic, 1> b(n);
    for (int i = 0; i < n; ++i) b[i] = Scalar(u(rng)) * s;
    auto x_full = b, x_red = b;
    full->solve_in_place(x_full);
    reduced->solve_in_place(x_red);
    const double scale = x_full.cwiseAbs().maxCoeff();
    EXPECT_LT((x_red - x_full).cwiseAbs().maxCoeff(), 1e-12 * scale) << n << " " << m1 << " " << m2;
    EXPECT_LT((E * x_red - b).cwiseAbs().maxCoeff(), 1e-11 * b.cwiseAbs().maxCoeff());
  }
}

}  // namespace

TEST(SecondOrder, ReducedSolveAgreesWithFullLu) {
  agrees_with_full_lu<double>(3.7);
  agrees_with_full_lu<std::complex<double>>({2.1, -1.4});
}

TEST(SecondOrder, SingularOrNonFiniteReducedMatrixFails) {
  std::mt19937 rng(3);
  auto E = chain_matrix<double>(20, 7, 7, 2.0, rng);
  auto solver = make_second_order_solver<double>(20, 7, 7);
  E.row(19).setZero();  // a zero algebraic row: the reduced matrix is singular
  solver->matrix().dense() = E;
  EXPECT_FALSE(solver->factor());
  E = chain_matrix<double>(20, 7, 7, 2.0, rng);
  E(15, 3) = std::numeric_limits<double>::quiet_NaN();  // enters the reduced matrix via E_21
  solver->matrix().dense() = E;
  EXPECT_FALSE(solver->factor());
  EXPECT_THROW(make_second_order_solver<double>(10, 5, 2), InvalidArgument);  // m1 % m2 != 0
}

TEST(SecondOrder, DeclarationIsValidated) {
  MassMatrixDae d;
  d.n = 4;
  d.f = [](double, VecIn y, VecOut f) { f = -y; };
  d.second_order = {2, 2};
  EXPECT_NO_THROW(d.validate());
  d.second_order = {3, 2};
  EXPECT_THROW(d.validate(), InvalidArgument);
  d.second_order = {2, 3};
  EXPECT_THROW(d.validate(), InvalidArgument);
  d.second_order = {2, 2};
  d.mass = Matrix::Identity(4, 4);
  d.mass(0, 3) = 0.5;  // couples a chain row to another variable
  try {
    d.validate();
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("identity in rows and columns 0..1"), std::string::npos)
        << e.what();
  }
  d.mass(0, 3) = 0.0;
  d.mass(3, 3) = 0.0;  // singular outside the chain: fine
  EXPECT_NO_THROW(d.validate());
  d.mass_sparse = d.mass.sparseView();
  d.mass.resize(0, 0);
  EXPECT_NO_THROW(d.validate());
  d.mass_sparse.coeffRef(1, 1) = 2.0;
  EXPECT_THROW(d.validate(), InvalidArgument);
}

TEST(SecondOrder, MechanicalFormulationsDeclareIt) {
  const BuiltinProblem andrews = make_builtin_problem("andrews");
  EXPECT_EQ(andrews.dae.second_order.m1, 14);  // q' = v, v' = w (general mass)
  EXPECT_EQ(andrews.dae.second_order.m2, 7);
  const MechanicalSystem& sys = *andrews.mechanical;
  EXPECT_EQ(formulate(sys, Formulation::Index2).second_order.m1, 14);
  EXPECT_EQ(formulate(sys, Formulation::GGL).second_order.m1, 0);  // q' = v - G^T mu
}

TEST(SecondOrder, BrokenDeclarationIsACallbackError) {
  BuiltinProblem p = make_builtin_problem("andrews");
  MassMatrixDae d = p.dae;
  auto f = d.f;
  d.f = [f](double t, VecIn y, VecOut out, VecIn par) {
    f(t, y, out, par);
    out[3] *= 1.5;  // q_3' = 1.5 v_3: not the declared chain
  };
  Options o;
  o.rtol = o.atol = 1e-6;
  o.check_consistency = false;
  o.check_jacobian = false;  // it would catch the mismatch first (J(3, 10) = 1 against 1.5)
  const Result r = solve(d, p.t0, p.t_end, p.y0, "radau5", o);
  EXPECT_EQ(r.status, Status::CallbackError);
  EXPECT_NE(r.message.find("contradicts the problem's declaration"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("f_3"), std::string::npos) << r.message;
}

// The elimination changes only the rounding of the linear solves: the same steps and digits.
TEST(SecondOrder, AndrewsWithAndWithoutElimination) {
  const BuiltinProblem p = make_builtin_problem("andrews");
  MassMatrixDae plain = p.dae;
  plain.second_order = {};
  // (not below 1e-8: at rtol = 1e-9 radau5 worked at its floor on DAEs then, rtol' = 1e-9, where
  // the Newton iteration was close to stalling and rounding moved scd by 0.06)
  for (double tol : {1e-5, 1e-7, 1e-8}) {
    Options o;
    o.rtol = o.atol = o.h0 = tol;
    const Result a = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
    const Result b = solve(plain, p.t0, p.t_end, p.y0, "radau5", o);
    ASSERT_TRUE(a.ok()) << a.message;
    ASSERT_TRUE(b.ok()) << b.message;
    EXPECT_NE(a.linear_solver.find("second-order"), std::string::npos) << a.linear_solver;
    const double da = scd(a.y.head(7), p.reference->y.head(7));
    const double db = scd(b.y.head(7), p.reference->y.head(7));
    std::printf("andrews tol %.0e: eliminated %ld steps scd %.2f; full %ld steps scd %.2f\n", tol,
                a.stats.nsteps, da, b.stats.nsteps, db);
    EXPECT_NEAR(static_cast<double>(a.stats.nsteps), static_cast<double>(b.stats.nsteps),
                0.02 * b.stats.nsteps + 1);
    EXPECT_NEAR(da, db, 0.05);
  }
}
