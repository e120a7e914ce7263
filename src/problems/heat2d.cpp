// Two-dimensional heat equation as a mass-matrix DAE (SUNDIALS' idaHeat2D example: idaHeat2D_bnd,
// idaHeat2D_kry, idaHeat2D_klu of the IDA examples, Taylor, Hindmarsh and Serban):
//     u_t = u_xx + u_yy  on the unit square,  u = 0 on the boundary,
//     u(0, x, y) = 16 x (1 - x) y (1 - y),
// central differences on a uniform m x m grid x_i = i dx, y_j = j dx (i, j = 0 .. m - 1,
// dx = 1 / (m - 1)), unknown u_ij at component k = i + m j (n = m^2):
//     interior:  u_ij' = (u_{i+1,j} + u_{i-1,j} + u_{i,j+1} + u_{i,j-1} - 4 u_ij) / dx^2,
//     boundary:  0 = -u_ij  (algebraic: a zero row and column of the diagonal mass matrix).
// As in idaHeat2D the boundary values enter the interior equations of their neighbours, so the
// Jacobian has the 5-point pattern in the interior rows and only the diagonal in the boundary
// rows; index 1 everywhere. The initial values are consistent (u = 0 on the boundary).
//
// Ours: the mass-matrix form (idaHeat2D writes the residual F = u' - (...) and F = u), the
// interval and tolerances, and the reference solution. idaHeat2D prints at t = 0.01, 0.02, ...,
// 10.24 with rtol = 0, atol = 1e-3; we integrate over [0, 0.16] (one of its output times): the
// slowest mode decays like exp(-19.5 t), so at t = 0.16 the maximum is still 0.047, whereas at
// t = 0.64 it is 4e-6 and tolerances of 1e-6 would no longer measure a relative accuracy.
//
// Reference (exact to round-off for the semi-discrete system, any m, any t): the interior
// system is u' = L u with the 5-point Laplacian L = A (x) I + I (x) A, A = tridiag(1, -2, 1) / dx^2
// of size K = m - 2 (Dirichlet). A's eigenvectors are the discrete sine modes
// s_p(i) = sin(p pi i dx), p = 1 .. K, with eigenvalues -mu_p, mu_p = (4 / dx^2) sin^2(p pi dx /
// 2), so
//     u(t) = sum_{p,q} c_pq exp(-(mu_p + mu_q) t) sin(p pi x_i) sin(q pi y_j),
// c_pq the discrete sine transform of u0. Here u0 = g(x) g(y) with g(x) = 4 x (1 - x), so
// c_pq = a_p a_q with a_p = (2 / (K + 1)) sum_i g(x_i) sin(p pi x_i), and the double sum
// factorises: u_ij(t) = v_i(t) v_j(t) with v_i(t) = sum_p a_p exp(-mu_p t) sin(p pi x_i), the
// 1-D solution exp(t A) g. Cost O(m^2) (two K x K sine sums and the outer product).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

// v_i(t) = (exp(t A) g)_i, i = 0 .. m - 1 (v_0 = v_{m-1} = 0), from the sine modes of A.
Vector heat1d_factor(int m, double t) {
  const int K = m - 2;
  const double dx = 1.0 / (m - 1);
  // sin(p pi i / (K + 1)) from a table of sin(k pi / (K + 1)), k = p i mod 2 (K + 1): exact
  // arguments, no argument reduction of large multiples of pi
  const int period = 2 * (K + 1);
  std::vector<double> sine(static_cast<size_t>(period));
  for (int k = 0; k < period; ++k) sine[k] = std::sin(M_PI * k / (K + 1));
  auto s = [&](long p, long i) { return sine[static_cast<size_t>((p * i) % period)]; };
  std::vector<double> a(static_cast<size_t>(K) + 1, 0.0);
  for (int p = 1; p <= K; ++p) {
    double sum = 0.0;
    for (int i = 1; i <= K; ++i) {
      const double x = i * dx;
      sum += 4.0 * x * (1.0 - x) * s(p, i);
    }
    const double half = std::sin(0.5 * M_PI * p * dx);
    const double mu = 4.0 / (dx * dx) * half * half;
    a[p] = 2.0 / (K + 1) * sum * std::exp(-mu * t);
  }
  Vector v = Vector::Zero(m);
  for (int i = 1; i <= K; ++i) {
    double sum = 0.0;
    for (int p = 1; p <= K; ++p) sum += a[p] * s(p, i);
    v[i] = sum;
  }
  return v;
}

bool on_boundary(int i, int j, int m) { return i == 0 || j == 0 || i == m - 1 || j == m - 1; }

}  // namespace

Vector heat2d_reference(int m, double t) {
  if (m < 3)
    throw InvalidArgument("heat2d_reference: m must be at least 3, got " + std::to_string(m));
  const Vector v = heat1d_factor(m, t);
  Vector u(static_cast<Eigen::Index>(m) * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) u[i + static_cast<Eigen::Index>(m) * j] = v[i] * v[j];
  return u;
}

BuiltinProblem heat2d(int m) {
  if (m < 3 || m > 20000)  // the 5 m^2 non-zeros must fit the 32-bit sparse indices
    throw InvalidArgument("heat2d: m must lie in [3, 20000], got " + std::to_string(m));
  const int n = m * m;
  const double dx = 1.0 / (m - 1), c = 1.0 / (dx * dx);
  BuiltinProblem p;
  p.name = "heat2d";
  p.title = "2-D heat equation (idaHeat2D), " + std::to_string(m) + " x " + std::to_string(m) +
            " grid, n = " + std::to_string(n) + ", sparse, t in [0, 0.16]";
  p.description =
      "M u' = f(u): u_t = u_xx + u_yy on the unit square, 5-point differences on an m x m grid\n"
      "(dx = 1/(m-1)), u = 0 on the boundary as algebraic equations (zero rows and columns of\n"
      "the diagonal M), u0 = 16 x(1-x) y(1-y); index 1, linear, stiffness ~ 8/dx^2; sparse\n"
      "Jacobian (5-point pattern), KLU. Reference: exact solution of the semi-discrete system\n"
      "from the discrete sine modes (heat2d_reference).";
  p.source =
      "SUNDIALS IDA example idaHeat2D (Taylor, Hindmarsh, Serban); mass-matrix form, interval "
      "and reference ours";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = n;

  // the 5-point pattern (interior rows) plus the diagonal (boundary rows), and the mass matrix
  std::vector<Eigen::Triplet<double, int>> pattern, mass;
  pattern.reserve(static_cast<size_t>(5) * n);
  mass.reserve(static_cast<size_t>(n));
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      const int k = i + m * j;
      pattern.emplace_back(k, k, 1.0);
      if (on_boundary(i, j, m)) continue;
      mass.emplace_back(k, k, 1.0);
      for (int nb : {k - 1, k + 1, k - m, k + m}) pattern.emplace_back(k, nb, 1.0);
    }
  SparseMatrix P(n, n), M(n, n);
  P.setFromTriplets(pattern.begin(), pattern.end());
  M.setFromTriplets(mass.begin(), mass.end());
  d.jacobian_sparsity = Sparsity::sparse(std::move(P));
  M.makeCompressed();
  d.mass_sparse = std::move(M);
  d.index.assign(static_cast<size_t>(n), 1);

  d.f = [m, c](double, VecIn u, VecOut f) {
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) {
        const int k = i + m * j;
        f[k] = on_boundary(i, j, m) ? -u[k]
                                    : c * (u[k + 1] + u[k - 1] + u[k + m] + u[k - m] - 4.0 * u[k]);
      }
  };
  // df/du: constant; the value of an entry follows from (row, column) alone: diagonal -4/dx^2
  // (interior row) or -1 (boundary row), grid neighbours in interior rows 1/dx^2, anything else
  // (entries of a larger pattern, e.g. the union with M of to_implicit_form) zero
  d.sparse_jacobian = [m, c](double, VecIn, SparseMatrix& J) {
    for (int col = 0; col < J.outerSize(); ++col)
      for (SparseMatrix::InnerIterator it(J, col); it; ++it) {
        const int row = static_cast<int>(it.row());
        const bool boundary = on_boundary(row % m, row / m, m);
        const int d = std::abs(row - col);
        if (row == col)
          it.valueRef() = boundary ? -1.0 : -4.0 * c;
        else
          it.valueRef() = !boundary && (d == 1 || d == m) ? c : 0.0;
      }
  };

  p.t0 = 0.0;
  p.t_end = 0.16;
  p.y0 = Vector::Zero(n);
  for (int j = 1; j < m - 1; ++j)
    for (int i = 1; i < m - 1; ++i) {
      const double x = i * dx, y = j * dx;
      p.y0[i + m * j] = 16.0 * x * (1.0 - x) * y * (1.0 - y);
    }
  p.rtol = p.atol = 1e-6;
  ReferenceSolution ref;
  ref.t = p.t_end;
  ref.y = heat2d_reference(m, p.t_end);
  ref.source =
      "exact solution of the semi-discrete system at t = 0.16 by its discrete sine modes "
      "(heat2d_reference: separable, exact to round-off)";
  p.reference = std::move(ref);
  const int mid = (m - 1) / 2, quarter = (m - 1) / 4;
  p.plot_components = {mid + m * mid, quarter + m * mid, quarter + m * quarter};
  return p;
}

}  // namespace daekit
