// The row kernels behind radau5's and the iterative backend's speed (issue 10), each against
// the plain code it replaces, to the bit:
//   - Pack<W> (core/pack.hpp): a row loop run two components per instruction, with n known at
//     run time or at compile time, gives the scalar loop's values exactly; complex loads and
//     stores split and join real and imaginary parts;
//   - MassMatrixSystem::f_stages: the s stage evaluations in one guarded region stop at the
//     first non-finite stage, as s separate calls did (same nfev, the failure recorded at that
//     stage's t);
//   - AmgHierarchy::apply(b, x, Ax): the product A x formed within the cycle's last sweep is
//     A x of the cycle's x, for a banded matrix (lagged rows) and for one of full bandwidth.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "core/guard.hpp"
#include "core/pack.hpp"
#include "daekit/daekit.hpp"
#include "linalg/amg.hpp"
#include "nonlinear/systems.hpp"

using namespace daekit;

namespace {

std::vector<double> random_values(int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(gen) * std::pow(10.0, u(gen));
  return v;
}

// out_i = (a_i * b_i - c_i) / (a_i + c_i) + b_i, the kinds of operations the kernels use
template <long N>
void packed(long n, const double* a, const double* b, const double* c, double* out) {
  for_rows<N>(n, [&]<int W>(long i) {
    using P = Pack<W>;
    const P x = P::load(a + i), y = P::load(b + i), z = P::load(c + i);
    ((x * y - z) / (x + z) + y).store(out + i);
  });
}

}  // namespace

TEST(RowKernels, PackedRowsEqualTheScalarLoopToTheBit) {
  for (int n : {1, 2, 3, 5, 8, 17}) {
    const std::vector<double> a = random_values(n, 1), b = random_values(n, 2),
                              c = random_values(n, 3);
    std::vector<double> plain(static_cast<size_t>(n)), run_time(plain), fixed(plain);
    for (int i = 0; i < n; ++i) plain[i] = (a[i] * b[i] - c[i]) / (a[i] + c[i]) + b[i];
    packed<0>(n, a.data(), b.data(), c.data(), run_time.data());
    switch (n) {  // n known at compile time, as newton_rows<3, N>
      case 1:
        packed<1>(n, a.data(), b.data(), c.data(), fixed.data());
        break;
      case 2:
        packed<2>(n, a.data(), b.data(), c.data(), fixed.data());
        break;
      case 3:
        packed<3>(n, a.data(), b.data(), c.data(), fixed.data());
        break;
      case 5:
        packed<5>(n, a.data(), b.data(), c.data(), fixed.data());
        break;
      case 8:
        packed<8>(n, a.data(), b.data(), c.data(), fixed.data());
        break;
      default:
        packed<0>(n, a.data(), b.data(), c.data(), fixed.data());
    }
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(run_time[i], plain[i]) << "n = " << n << ", row " << i;
      EXPECT_EQ(fixed[i], plain[i]) << "n = " << n << ", row " << i;
    }
  }
}

TEST(RowKernels, PackedComplexLoadsAndStoresKeepTheParts) {
  std::vector<std::complex<double>> z = {{1.5, -2.0}, {3.25, 4.0}, {-5.0, 0.5}}, w(3);
  for_rows(3, [&]<int W>(long i) {
    using P = Pack<W>;
    P re, im;
    P::load_complex(z.data() + i, re, im);
    P::store_complex(w.data() + i, im, re);  // swapped on purpose
  });
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(w[i].real(), z[i].imag());
    EXPECT_EQ(w[i].imag(), z[i].real());
  }
}

TEST(RowKernels, StageEvaluationsStopAtTheFirstNonFiniteStage) {
  MassMatrixDae dae;
  dae.n = 2;
  dae.f = [](double t, VecIn y, VecOut out) {
    out[0] = y[1];
    out[1] = t > 0.5 ? std::numeric_limits<double>::quiet_NaN() : -y[0];
  };
  CallGuard guard;
  Stats stats;
  MassMatrixSystem sys(dae, LinearSolverKind::Dense, guard, stats);
  Matrix Y = Matrix::Ones(2, 3), F = Matrix::Zero(2, 3);
  std::vector<VecIn> y;
  std::vector<VecOut> f;
  for (int i = 0; i < 3; ++i) {
    y.emplace_back(Y.col(i));
    f.emplace_back(F.col(i));
  }
  const double c[3] = {0.2, 0.6, 1.0};
  EXPECT_FALSE(sys.f_stages(0.0, 1.0, c, 3, y.data(), f.data()));
  EXPECT_EQ(stats.nfev, 2);  // the third stage is not evaluated, as with separate calls
  EXPECT_EQ(guard.failure().kind, CallbackFailure::Kind::NonFinite);
  EXPECT_DOUBLE_EQ(guard.failure().t, 0.6);
  guard.clear();
  const double early[3] = {0.1, 0.2, 0.3};
  EXPECT_TRUE(sys.f_stages(0.0, 1.0, early, 3, y.data(), f.data()));
  EXPECT_EQ(stats.nfev, 5);
  EXPECT_EQ(F(1, 2), -1.0);
}

TEST(RowKernels, AmgProductWithinTheLastSweepIsTheProductOfTheResult) {
  for (int wide = 0; wide < 2; ++wide) {
    // a shifted five-point Laplacian on an m x m grid; wide: plus a far coupling per row, so
    // that the bandwidth is the whole matrix and the passes run one after the other
    const int m = 40, n = m * m;
    std::vector<Eigen::Triplet<double, int>> t;
    for (int i = 0; i < n; ++i) {
      const int r = i / m, c = i % m;
      t.emplace_back(i, i, 4.2);
      if (r > 0) t.emplace_back(i, i - m, -1.0);
      if (r < m - 1) t.emplace_back(i, i + m, -1.0);
      if (c > 0) t.emplace_back(i, i - 1, -1.0);
      if (c < m - 1) t.emplace_back(i, i + 1, -1.0);
      if (wide && i < n / 2) t.emplace_back(i, n - 1 - i, -0.01);
    }
    Eigen::SparseMatrix<double, Eigen::ColMajor, int> A(n, n);
    A.setFromTriplets(t.begin(), t.end());
    AmgHierarchy<double> amg;
    ASSERT_TRUE(amg.setup(A)) << amg.failure();
    ASSERT_GT(amg.levels(), 1);
    const std::vector<double> b = random_values(n, 7);
    Vector x(n), x2(n), Ax(n), reference(n);
    amg.apply(b.data(), x.data(), Ax.data());
    amg.apply(b.data(), x2.data());
    csr_multiply(amg.fine(), x.data(), reference.data());
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(x[i], x2[i]) << "row " << i;  // the same cycle with and without the product
      ASSERT_EQ(Ax[i], reference[i]) << "row " << i;
    }
  }
}
