// The "food-web" built-in problem (SUNDIALS' idaFoodWeb, src/problems/food_web.cpp) and what it
// needs: a sparse Jacobian callback on a banded structure (the band's entries as the pattern).
// Checked here: sizes, the banded structure and M; the analytic Jacobian against differences
// (inside the band: every non-zero entry of df/dc lies in it); the consistent initial predators;
// radau5 and bdf on the banded backend agree with each other over the transient; a sparse
// callback with a dense structure is still refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

Options food_web_tolerances(double tol) {
  Options o;
  o.rtol = o.atol = tol;
  o.store_steps = false;
  // the predators' terms reach 1e10: at consistent values their residual is ~1e-6 (rounding)
  o.consistency_tol = 1e-4;
  return o;
}

}  // namespace

TEST(FoodWeb, SizesBandAndMass) {
  const BuiltinProblem p = make_builtin_problem("food-web");
  EXPECT_EQ(p.name, "food-web");
  const int m = 20, n = 2 * m * m;
  ASSERT_EQ(p.dae.n, n);
  ASSERT_EQ(p.y0.size(), n);
  EXPECT_EQ(p.dae.jacobian_sparsity.kind, Sparsity::Kind::Banded);
  EXPECT_EQ(p.dae.jacobian_sparsity.lower, 2 * m);
  EXPECT_EQ(p.dae.jacobian_sparsity.upper, 2 * m);
  EXPECT_EQ(p.dae.index, std::vector<int>(n, 1));
  EXPECT_NO_THROW(p.dae.validate());
  const Matrix M = Matrix(p.dae.mass_sparse);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_EQ(M(i, j), i == j && i % 2 == 0 ? 1.0 : 0.0);
  EXPECT_EQ(p.dae.algebraic_rows().size(), static_cast<size_t>(m * m));  // the predators
  EXPECT_THROW(food_web(2), InvalidArgument);
}

// The analytic Jacobian against differences (check_jacobian) at y0 and at a later state, on a
// small grid (all entries) and on idaFoodWeb's; the predators at y0 solve their equations.
TEST(FoodWeb, JacobianAndConsistentPredators) {
  for (int m : {4, 20}) {
    const BuiltinProblem p = food_web(m);
    EXPECT_EQ(check_initial_values(p.dae, p.t0, p.y0, 1e-4), "") << m;
    Vector f(p.dae.n);
    p.dae.f(p.t0, p.y0, f);
    double scale = 0.0;
    for (int k = 1; k < p.dae.n; k += 2) scale = std::max(scale, std::abs(p.y0[k]));
    for (int k = 1; k < p.dae.n; k += 2) EXPECT_LT(std::abs(f[k]), 1e-9 * scale * scale) << k;
    const Result r = solve(p.dae, p.t0, 1e-3, p.y0, Radau5Options{}, food_web_tolerances(1e-6));
    ASSERT_TRUE(r.ok()) << r.message;
    for (const Vector* y : {&p.y0, &r.y}) {
      const JacobianCheck c = check_jacobian(p.dae, 0.0, *y);
      EXPECT_TRUE(c.ok) << m << ": " << c.report();
    }
  }
}

// radau5 and bdf, both on the banded LU (the automatic backend), over the transient [0, 0.01]
// at rtol = atol = 1e-8: the same state to 5 digits (scd between them; the web's values span
// 10 ... 1e7).
TEST(FoodWeb, RadauAndBdfAgreeOnBandedBackend) {
  const BuiltinProblem p = make_builtin_problem("food-web");
  const Result a = solve(p.dae, p.t0, 0.01, p.y0, Radau5Options{}, food_web_tolerances(1e-8));
  const Result b = solve(p.dae, p.t0, 0.01, p.y0, BdfOptions{}, food_web_tolerances(1e-8));
  ASSERT_TRUE(a.ok()) << a.message;
  ASSERT_TRUE(b.ok()) << b.message;
  EXPECT_EQ(a.linear_solver, "banded LU");
  EXPECT_EQ(b.linear_solver, "banded LU");
  EXPECT_GT(scd(b.y, a.y), 5.0);
}

// A sparse Jacobian callback needs a sparse or banded structure: dense is refused.
TEST(FoodWeb, SparseCallbackNeedsSparseOrBandedStructure) {
  BuiltinProblem p = food_web(4);
  EXPECT_NO_THROW(p.dae.validate());
  p.dae.jacobian_sparsity = Sparsity::dense();
  EXPECT_THROW(p.dae.validate(), InvalidArgument);
  ImplicitDae dae = to_implicit_form(food_web(4).dae);
  EXPECT_NO_THROW(dae.validate());
  dae.jacobian_sparsity = Sparsity::dense();
  if (dae.sparse_dF_dy) EXPECT_THROW(dae.validate(), InvalidArgument);
}
