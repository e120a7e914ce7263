// A declared jacobian_sparsity of F(t, y, y') = 0 is the structure of dF/dy + c dF/dy', both
// matrices. A pattern of dF/dy alone lost the dF/dy' entries from the iteration matrix: the BDF
// stopped at t = 0 with singular matrices or Newton failures and no word about the pattern. The
// first evaluation of F now checks the pattern and throws InvalidArgument naming the entries.
// Below: exact Jacobians (dense, banded, sparse) and df/dp from automatic differentiation
// (problem/autodiff.hpp).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "allocation_counter.hpp"
#include "daekit/daekit.hpp"
#include "daekit/problem/autodiff.hpp"

using namespace daekit;

namespace {

// F_i = y_i' + c y_{i+1}' - y_{i-1} (F_0 = y_0' + c y_1' + y_0): a chain with a coupled dF/dy'
// (diagonal and, for c != 0, superdiagonal) and a dF/dy below the diagonal.
ImplicitDae pattern_chain(int n, double c) {
  ImplicitDae d;
  d.n = n;
  d.name = "coupled chain";
  d.F = [n, c](double, VecIn y, VecIn yp, VecOut F) {
    for (int i = 0; i < n; ++i)
      F[i] = yp[i] + (i + 1 < n ? c * yp[i + 1] : 0.0) + (i > 0 ? -y[i - 1] : y[i]);
  };
  return d;
}

// The pattern with the diagonal (if `diagonal`), the subdiagonal and (if `upper`) the
// superdiagonal.
Sparsity pattern_of_chain(int n, bool diagonal, bool upper) {
  std::vector<Eigen::Triplet<double, int>> entries{{0, 0, 1.0}};
  for (int i = 1; i < n; ++i) {
    entries.emplace_back(i, i - 1, 1.0);
    if (diagonal) entries.emplace_back(i, i, 1.0);
  }
  if (upper)
    for (int i = 0; i + 1 < n; ++i) entries.emplace_back(i, i + 1, 1.0);
  SparseMatrix P(n, n);
  P.setFromTriplets(entries.begin(), entries.end());
  return Sparsity::sparse(P);
}

// Consistent y0 = 1, and y0' from the upper bidiagonal dF/dy'.
void pattern_chain_start(int n, double c, Vector& y0, Vector& yp0) {
  y0 = Vector::Ones(n);
  yp0.resize(n);
  for (int i = n - 1; i >= 0; --i)
    yp0[i] = (i > 0 ? y0[i - 1] : -y0[i]) - (i + 1 < n ? c * yp0[i + 1] : 0.0);
}

std::string pattern_failure(const ImplicitDae& dae, double c, const Options& o = {}) {
  Vector y0, yp0;
  pattern_chain_start(dae.n, c, y0, yp0);
  try {
    const Result r = solve(dae, 0.0, 1.0, y0, yp0, "bdf", o);
    return "no exception: " + std::string(to_string(r.status)) + " " + r.message;
  } catch (const InvalidArgument& e) {
    return e.what();
  }
}

bool names(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

// The pattern of dF/dy alone (no diagonal): the BDF reported singular matrices at t = 0.
TEST(JacobianPatterns, MissingDiagonalOfDFdypIsNamed) {
  ImplicitDae dae = pattern_chain(50, 0.0);
  dae.jacobian_sparsity = pattern_of_chain(50, false, false);
  const std::string message = pattern_failure(dae, 0.0);
  EXPECT_TRUE(names(message, "leaves out entries of dF/dy + c dF/dy'")) << message;
  EXPECT_TRUE(names(message, "dF/dy'(1, 1)")) << message;
  EXPECT_FALSE(names(message, "dF/dy(")) << message;  // dF/dy lies in the pattern
}

// A coupling in dF/dy' outside the pattern (the diagonal declared): named, row and column.
TEST(JacobianPatterns, MissingOffDiagonalOfDFdypIsNamed) {
  ImplicitDae dae = pattern_chain(50, 2.0);
  dae.jacobian_sparsity = pattern_of_chain(50, true, false);
  const std::string message = pattern_failure(dae, 2.0);
  EXPECT_TRUE(names(message, "dF/dy'(0, 1)")) << message;
  EXPECT_TRUE(names(message, "dF/dy'(2, 3)")) << message;
  EXPECT_TRUE(names(message, "and maybe more")) << message;  // 49 entries, 10 listed
  // a banded declaration that leaves out the superdiagonal: the same
  dae.jacobian_sparsity = Sparsity::banded(1, 0);
  EXPECT_TRUE(names(pattern_failure(dae, 2.0), "dF/dy'(1, 2)"));
  // the complete pattern solves (and a missing dF/dy entry is named as such)
  dae.jacobian_sparsity = pattern_of_chain(50, true, true);
  Vector y0, yp0;
  pattern_chain_start(50, 2.0, y0, yp0);
  Options o;
  o.rtol = o.atol = 1e-6;
  const Result r = solve(dae, 0.0, 1.0, y0, yp0, "bdf", o);
  EXPECT_TRUE(r.ok()) << r.message;
  ImplicitDae lower = pattern_chain(50, 0.0);
  std::vector<Eigen::Triplet<double, int>> diagonal;
  for (int i = 0; i < 50; ++i) diagonal.emplace_back(i, i, 1.0);
  SparseMatrix D(50, 50);
  D.setFromTriplets(diagonal.begin(), diagonal.end());
  lower.jacobian_sparsity = Sparsity::sparse(D);
  const std::string below = pattern_failure(lower, 0.0);
  EXPECT_TRUE(names(below, "dF/dy(1, 0)")) << below;
}

// Analytic sparse callbacks write into the pattern: what it leaves out is lost the same way.
// Analytic dense callbacks lose what lies outside the iteration structure (sparse backend).
TEST(JacobianPatterns, AnalyticCallbacksAreCheckedToo) {
  const int n = 40;
  ImplicitDae sparse = pattern_chain(n, 0.5);
  sparse.jacobian_sparsity = pattern_of_chain(n, true, false);
  sparse.sparse_dF_dy = [n](double, VecIn, VecIn, SparseMatrix& J) {
    J.coeffRef(0, 0) = 1.0;
    for (int i = 1; i < n; ++i) J.coeffRef(i, i - 1) = -1.0;
  };
  sparse.sparse_dF_dyp = [n](double, VecIn, VecIn, SparseMatrix& J) {
    for (int i = 0; i < n; ++i) J.coeffRef(i, i) = 1.0;  // the 0.5 couplings have no place
  };
  Options o;
  o.check_jacobian = false;  // the pattern check comes first anyway
  EXPECT_TRUE(names(pattern_failure(sparse, 0.5, o), "dF/dy'(0, 1)"));
  ImplicitDae dense = pattern_chain(n, 0.5);
  dense.jacobian_sparsity = pattern_of_chain(n, true, false);
  dense.dF_dy = [n](double, VecIn, VecIn, Matrix& J) {
    J(0, 0) = 1.0;
    for (int i = 1; i < n; ++i) J(i, i - 1) = -1.0;
  };
  dense.dF_dyp = [n](double, VecIn, VecIn, Matrix& J) {
    for (int i = 0; i < n; ++i) {
      J(i, i) = 1.0;
      if (i + 1 < n) J(i, i + 1) = 0.5;
    }
  };
  o.linear_solver = LinearSolverKind::Sparse;
  EXPECT_TRUE(names(pattern_failure(dense, 0.5, o), "dF/dy'(0, 1)"));
}

// initialize() evaluates F first as well: the same refusal.
TEST(JacobianPatterns, InitializeRefusesTheIncompletePattern) {
  ImplicitDae dae = pattern_chain(20, 0.0);
  dae.jacobian_sparsity = pattern_of_chain(20, false, false);
  Vector y0, yp0;
  pattern_chain_start(20, 0.0, y0, yp0);
  EXPECT_THROW(initialize(dae, 0.0, y0, yp0, InitMode::CheckOnly), InvalidArgument);
}

// ----------------------------------------------------------------------------------------------
// Exact Jacobians from automatic differentiation (problem/autodiff.hpp, issue 25): f written
// once as a template gives df/dy and df/dp to rounding, without evaluations of f for them.

namespace {

// Robertson's kinetics with the rate constants p = (k1, k2, k3).
struct AutodiffRobertson {
  template <class T>
  void operator()(T, const T* y, const T* k, T* out) const {
    const T r1 = k[0] * y[0], r2 = k[1] * y[1] * y[2], r3 = k[2] * y[1] * y[1];
    out[0] = -r1 + r2;
    out[1] = r1 - r2 - r3;
    out[2] = r3;
  }
};

MassMatrixDae autodiff_robertson() {
  MassMatrixDae d;
  d.name = "robertson (autodiff)";
  d.n = 3;
  d.p = Vector(3);
  d.p << 0.04, 1e4, 3e7;
  set_autodiff_rhs(d, AutodiffRobertson{});
  return d;
}

// The same with hand-written df/dy and df/dp (the closed forms the autodiff ones must equal).
MassMatrixDae closed_form_robertson() {
  MassMatrixDae d = autodiff_robertson();
  d.name = "robertson (closed form)";
  d.jacobian = [](double, VecIn y, Matrix& J, VecIn k) {
    J << -k[0], k[1] * y[2], k[1] * y[1],                    //
        k[0], -k[1] * y[2] - 2 * k[2] * y[1], -k[1] * y[1],  //
        0.0, 2 * k[2] * y[1], 0.0;
  };
  d.parameter_jacobian = [](double, VecIn y, Matrix& P, VecIn) {
    P << -y[0], y[1] * y[2], 0.0,          //
        y[0], -y[1] * y[2], -y[1] * y[1],  //
        0.0, 0.0, y[1] * y[1];
  };
  return d;
}

// A nonlinear chain (every function of the dual type once), out_i = g(y_{i-1}, y_i, y_{i+1}, p)
// with a tridiagonal Jacobian:
//   out_i = p0 exp(-y_i) sin(y_{i-1}) + sqrt(1 + y_i^2) / (2 + cos(y_{i+1}))
//           + p1 tanh(y_i) pow(1 + y_{i+1}^2, 1.5) - log(2 + y_i^2) + atan(p0 y_i) / p1
// (y_{-1} = y_n = 0).
struct AutodiffChain {
  template <class T>
  void operator()(T, const T* y, const T* p, T* out) const {
    using std::atan, std::cos, std::exp, std::log, std::pow, std::sin, std::sqrt, std::tanh;
    for (int i = 0; i < n; ++i) {
      const T left = i > 0 ? y[i - 1] : T(0.0), right = i + 1 < n ? y[i + 1] : T(0.0);
      out[i] = p[0] * exp(-y[i]) * sin(left) + sqrt(1.0 + y[i] * y[i]) / (2.0 + cos(right)) +
               p[1] * tanh(y[i]) * pow(1.0 + right * right, 1.5) - log(2.0 + y[i] * y[i]) +
               atan(p[0] * y[i]) / p[1];
    }
  }
  int n;
};

// Its Jacobian and df/dp written out by hand.
void autodiff_chain_closed_form(int n, const Vector& y, const Vector& p, Matrix& J, Matrix& P) {
  J.setZero(n, n);
  P.setZero(n, 2);
  for (int i = 0; i < n; ++i) {
    const double l = i > 0 ? y[i - 1] : 0.0, r = i + 1 < n ? y[i + 1] : 0.0, x = y[i];
    const double root = std::sqrt(1 + x * x), den = 2 + std::cos(r), th = std::tanh(x);
    const double pw = std::pow(1 + r * r, 1.5), u = p[0] * x;
    J(i, i) = -p[0] * std::exp(-x) * std::sin(l) + x / root / den + p[1] * (1 - th * th) * pw -
              2 * x / (2 + x * x) + p[0] / (1 + u * u) / p[1];
    if (i > 0) J(i, i - 1) = p[0] * std::exp(-x) * std::cos(l);
    if (i + 1 < n)
      J(i, i + 1) =
          root * std::sin(r) / (den * den) + p[1] * th * 1.5 * std::sqrt(1 + r * r) * 2 * r;
    P(i, 0) = std::exp(-x) * std::sin(l) + x / (1 + u * u) / p[1];
    P(i, 1) = th * pw - std::atan(u) / (p[1] * p[1]);
  }
}

double autodiff_relative_error(const Matrix& A, const Matrix& B) {
  return (A - B).cwiseAbs().maxCoeff() / B.cwiseAbs().maxCoeff();
}

}  // namespace

// df/dy and df/dp of Robertson equal the closed forms to rounding.
TEST(AutodiffJacobians, RobertsonEqualsTheClosedForm) {
  const MassMatrixDae ad = autodiff_robertson(), exact = closed_form_robertson();
  ASSERT_TRUE(ad.jacobian && ad.parameter_jacobian && !ad.sparse_jacobian);
  Vector y(3);
  y << 0.7, 3e-5, 0.29;
  Matrix J = Matrix::Zero(3, 3), Je = J, P = J, Pe = J;
  ad.jacobian(1.0, y, J, ad.p);
  exact.jacobian(1.0, y, Je, ad.p);
  ad.parameter_jacobian(1.0, y, P, ad.p);
  exact.parameter_jacobian(1.0, y, Pe, ad.p);
  EXPECT_LT(autodiff_relative_error(J, Je), 1e-15) << J << "\n" << Je;
  EXPECT_LT(autodiff_relative_error(P, Pe), 1e-15) << P << "\n" << Pe;
  Vector f(3), fe(3);
  ad.f(1.0, y, f, ad.p);
  make_builtin_problem("robertson").dae.f(1.0, y, fe, ad.p);
  EXPECT_LT((f - fe).cwiseAbs().maxCoeff(), 1e-15 * fe.cwiseAbs().maxCoeff());
}

// A nonlinear chain: dense (10 sweeps of 4), banded (3 colours: one sweep for n = 40) and sparse
// declarations give the closed form to rounding; a coloured parameter_sparsity too.
TEST(AutodiffJacobians, NonlinearChainEqualsTheClosedFormForEveryStructure) {
  const int n = 40;
  Vector y(n), p(2);
  for (int i = 0; i < n; ++i) y[i] = 0.3 + 0.05 * i * std::sin(i);
  p << 1.3, 0.7;
  Matrix Je, Pe;
  autodiff_chain_closed_form(n, y, p, Je, Pe);
  MassMatrixDae dense;
  dense.n = n;
  dense.p = p;
  set_autodiff_rhs<Dual<4>>(dense, AutodiffChain{n});  // 10 sweeps of 4 columns
  Matrix J = Matrix::Zero(n, n), P = Matrix::Zero(n, 2);
  dense.jacobian(0.0, y, J, p);
  dense.parameter_jacobian(0.0, y, P, p);
  EXPECT_LT(autodiff_relative_error(J, Je), 1e-14);
  EXPECT_LT(autodiff_relative_error(P, Pe), 1e-14);
  for (const Sparsity& s :
       {Sparsity::banded(1, 1), Sparsity::sparse(Sparsity::banded(1, 1).to_pattern(n))}) {
    MassMatrixDae structured;
    structured.n = n;
    structured.p = p;
    structured.jacobian_sparsity = s;
    set_autodiff_rhs<Dual<4>>(structured, AutodiffChain{n});
    ASSERT_TRUE(structured.sparse_jacobian && !structured.jacobian) << s.describe(n);
    SparseMatrix Js = s.to_pattern(n);
    Js.coeffs().setZero();
    structured.sparse_jacobian(0.0, y, Js, p);
    EXPECT_LT(autodiff_relative_error(Matrix(Js), Je), 1e-14) << s.describe(n);
  }
  // df/dp with a declared structure whose two columns share rows: one colour each, the same
  MassMatrixDae by_parameter = dense;
  by_parameter.parameter_sparsity = Sparsity::banded(n - 1, 1);
  set_autodiff_rhs<Dual<4>>(by_parameter, AutodiffChain{n});
  P.setZero();
  by_parameter.parameter_jacobian(0.0, y, P, p);
  EXPECT_LT(autodiff_relative_error(P, Pe), 1e-14);
}

// Solves with the autodiff derivatives: the closed-form solve's S (radau5, radau, bdf), a
// Jacobian per step counted in njac and no evaluation of f for a Jacobian or for df/dp.
TEST(AutodiffJacobians, SensitivitiesMatchTheClosedFormSolveWithoutDifferences) {
  const MassMatrixDae ad = autodiff_robertson(), exact = closed_form_robertson();
  Vector y0(3);
  y0 << 1, 0, 0;
  for (const char* method : {"radau5", "radau", "bdf"}) {
    Options o;
    o.rtol = 1e-8;
    o.atol = 1e-12;
    o.sensitivities = true;
    const Result a = solve(ad, 0.0, 40.0, y0, method, o);
    const Result e = solve(exact, 0.0, 40.0, y0, method, o);
    ASSERT_TRUE(a.ok() && e.ok()) << method << ": " << a.message << e.message;
    EXPECT_GT(a.stats.njac, 0) << method;
    EXPECT_EQ(a.stats.nfev_jac, 0) << method;
    EXPECT_EQ(a.jacobian_colours, 0) << method;
    const double rel = autodiff_relative_error(a.sensitivities, e.sensitivities);
    EXPECT_LT(rel, 1e-9) << method << "\n" << a.sensitivities << "\n" << e.sensitivities;
    EXPECT_LT((a.y - e.y).cwiseAbs().maxCoeff(), 1e-12) << method;
  }
}

// A functor called with a p of another size than the one the derivatives were set for ends
// the solve with a callback error naming it, not with a read out of bounds.
TEST(AutodiffJacobians, ParametersOfAnotherSizeAreACallbackError) {
  MassMatrixDae d = autodiff_robertson();
  d.p = Vector::Constant(4, 1.0);  // changed after set_autodiff_rhs
  Options o;
  o.sensitivities = true;
  Vector y0(3);
  y0 << 1, 0, 0;
  const Result r = solve(d, 0.0, 1.0, y0, "radau5", o);
  EXPECT_EQ(r.status, Status::CallbackError) << r.message;
  EXPECT_NE(r.message.find("set_autodiff_rhs"), std::string::npos) << r.message;
}

// The step loop stays allocation-free with the autodiff callbacks (their workspaces are sized
// when they are set): Robertson (dense) and the chain (banded, sparse_jacobian), radau5 and bdf,
// with sensitivities.
TEST(AutodiffJacobians, StepLoopAllocatesNothing) {
  if (daekit_testing::heap_allocations() < 0)
    GTEST_SKIP() << "allocation counting unavailable in this build (sanitizers)";
  const int n = 20;
  MassMatrixDae chain;
  chain.n = n;
  chain.p = Vector(2);
  chain.p << 0.3, 0.2;
  chain.jacobian_sparsity = Sparsity::banded(1, 1);
  set_autodiff_rhs<Dual<4>>(chain, AutodiffChain{n});
  const MassMatrixDae& banded = chain;
  Vector chain_y0 = Vector::Constant(n, 0.1);
  Vector rober_y0(3);
  rober_y0 << 1, 0, 0;
  const MassMatrixDae rober = autodiff_robertson();
  for (const char* method : {"radau5", "bdf"})
    for (const auto& [dae, y0] : {std::pair{&rober, &rober_y0}, std::pair{&banded, &chain_y0}}) {
      Options o;
      o.rtol = o.atol = 1e-7;
      o.sensitivities = true;
      o.store_steps = false;  // the stored steps grow their storage
      daekit_testing::StepAllocations alloc;
      alloc.watch(o);
      const Result r = solve(*dae, 0.0, 1.0, *y0, method, o);
      ASSERT_TRUE(r.ok()) << method << ": " << r.message;
      EXPECT_GT(alloc.steps, 10) << method;
      EXPECT_EQ(r.stats.nfev_jac, 0) << method;
      EXPECT_EQ(alloc.during(), 0) << method << " n = " << dae->n << ": " << alloc.during()
                                   << " allocations in " << alloc.steps << " steps";
    }
}

// F(t, y, y', p) = y' - f(y, p) for Robertson (set_autodiff_residual): dF/dy = -J and
// dF/dy' = I exactly; the BDF's solve without sensitivities spends no evaluation of F on
// Jacobians, and with them its S equals that of the mass-matrix form with autodiff (to the
// BDF's accuracy: the forms step differently).
TEST(AutodiffJacobians, ImplicitResidualOfRobertson) {
  ImplicitDae d;
  d.n = 3;
  d.p = autodiff_robertson().p;
  set_autodiff_residual(d, [](auto t, const auto* y, const auto* yp, const auto* k, auto* out) {
    AutodiffRobertson{}(t, y, k, out);
    for (int i = 0; i < 3; ++i) out[i] = yp[i] - out[i];
  });
  ASSERT_TRUE(d.dF_dy && d.dF_dyp && !d.sparse_dF_dy);
  Vector y(3), yp = Vector::Zero(3);
  y << 0.7, 3e-5, 0.29;
  Matrix A = Matrix::Zero(3, 3), B = A, Je = A;
  d.dF_dy(1.0, y, yp, A, d.p);
  d.dF_dyp(1.0, y, yp, B, d.p);
  closed_form_robertson().jacobian(1.0, y, Je, d.p);
  EXPECT_LT(autodiff_relative_error(-A, Je), 1e-15) << A;
  EXPECT_EQ(B, Matrix::Identity(3, 3));
  Vector y0(3), yp0(3);
  y0 << 1, 0, 0;
  autodiff_robertson().f(0.0, y0, yp0, d.p);
  Options o;
  o.rtol = 1e-8;
  o.atol = 1e-12;
  const Result plain = solve(d, 0.0, 40.0, y0, yp0, "bdf", o);
  ASSERT_TRUE(plain.ok()) << plain.message;
  EXPECT_GT(plain.stats.njac, 0);
  EXPECT_EQ(plain.stats.nfev_jac, 0);
  o.sensitivities = true;
  const Result implicit = solve(d, 0.0, 40.0, y0, yp0, "bdf", o);
  const Result mass = solve(autodiff_robertson(), 0.0, 40.0, y0, "bdf", o);
  ASSERT_TRUE(implicit.ok() && mass.ok()) << implicit.message << mass.message;
  EXPECT_LT(autodiff_relative_error(implicit.sensitivities, mass.sensitivities), 1e-5)
      << implicit.sensitivities << "\n"
      << mass.sensitivities;
}
