// The predator-prey food web of SUNDIALS' IDA example idaFoodWeb (idaFoodWeb_bnd: banded linear
// solver; Brown, Hindmarsh & Petzold 1994, "Using Krylov methods in the solution of large-scale
// differential-algebraic systems", SIAM J. Sci. Comput. 15, example 2): two species on the
// unit square, prey c_1 and predator c_2 (np = 1),
//     c_1' = d_1 (c_1,xx + c_1,yy) + R_1(x, y, c),
//       0  = d_2 (c_2,xx + c_2,yy) + R_2(x, y, c),          (the predators are quasi-static)
//     R_i = c_i (b_i F(x, y) + sum_j a_ij c_j),   F = 1 + alpha x y + beta sin(4 pi x) sin(4 pi y),
// a = [-1, -0.5e-6; 1e4, -1], b = (1, -1), d = (1, 0.05), alpha = 50, beta = 1000, homogeneous
// Neumann conditions. Central differences on an m x m grid x_i = i dx, y_j = j dy,
// dx = dy = 1 / (m - 1) (idaFoodWeb: m = 20, n = 800), the boundary handled by reflection
// (the ghost value c_{-1} = c_1, so the one-sided neighbour counts twice); unknown k = s + 2
// (i + m j) for species s at grid point (i, j). M = diag(1, 0, 1, 0, ...); index 1: the
// predators' block of df/dc (their discrete Laplacian plus dR_2/dc_2) is nonsingular along the
// solution (the consistent initialization's Newton iteration factors it).
//
// Ours: the mass-matrix form M c' = f(t, c) (idaFoodWeb writes the residual), the analytic
// Jacobian (idaFoodWeb differences it), consistent initial predators by Newton's method on
// their equations (idaFoodWeb calls IDACalcIC) and the size parameter m. As idaFoodWeb: the
// initial prey 10 + (16 x (1 - x) y (1 - y))^2, the predators' initial guess 1e5, t in [0, 1],
// rtol = atol = 1e-5. Jacobian: within the band of half-width 2 m (the grid neighbours in y)
// with 7 non-zero entries a row at most; declared banded (the banded LU's storage, as IDA's
// band solver with mu = ml = 2 m).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "daekit/problems/registry.hpp"
#include "linalg/linear_solver.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

namespace {
constexpr double kA[2][2] = {{-1.0, -0.5e-6}, {1e4, -1.0}};  // a_ij
constexpr double kB[2] = {1.0, -1.0};
constexpr double kD[2] = {1.0, 0.05};
constexpr double kAlpha = 50.0, kBeta = 1000.0;

double web_factor(double x, double y) {
  return 1.0 + kAlpha * x * y + kBeta * std::sin(4.0 * M_PI * x) * std::sin(4.0 * M_PI * y);
}
// The predators' equations at fixed prey, g(c_2) = d_2 Laplace c_2 + c_2 (b_2 F + a_21 c_1 +
// a_22 c_2) = 0 (idaFoodWeb: IDACalcIC), by Newton's method from the given values; the
// Jacobian d_2 Laplace + diag(b_2 F + a_21 c_1 + 2 a_22 c_2) is banded (half-width m in the
// predators' own numbering) and factored by the banded backend.
bool consistent_predators(int m, double co, const std::vector<double>& factor, Vector& c) {
  const int np = m * m;
  auto solver = make_linear_solver<double>(np, Sparsity::banded(m, m), LinearSolverKind::Banded);
  Vector g(np);
  // to |dc_2| <= 1e-13 max |c_2| (of the iterate the step starts from), at most 50 iterations
  NewtonMonitor newton(NewtonMonitor::without_rate(50));
  newton.begin(0.0);
  for (;;) {
    StructuredMatrix<double>& J = solver->matrix();
    J.set_zero();
    double scale = 0.0;
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) {
        const int p = i + m * j;
        const double z = c[2 * p + 1], F = factor[static_cast<size_t>(p)];
        const double reaction = kB[1] * F + kA[1][0] * c[2 * p] + kA[1][1] * z;
        double lap = -4.0 * z;
        for (auto [di, dj] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
          int ii = i + di, jj = j + dj;  // reflected at the boundary
          if (ii < 0 || ii >= m) ii = i - di;
          if (jj < 0 || jj >= m) jj = j - dj;
          const int q = ii + m * jj;
          lap += c[2 * q + 1];
          J.ref(p, q) += co;
        }
        g[p] = co * lap + z * reaction;
        J.ref(p, p) += -4.0 * co + reaction + kA[1][1] * z;
        scale = std::max(scale, std::abs(z));
      }
    if (!solver->factor()) return false;
    solver->solve_in_place(g);
    double step = 0.0;
    for (int p = 0; p < np; ++p) {
      c[2 * p + 1] -= g[p];
      step = std::max(step, std::abs(g[p]));
    }
    newton.settings().tolerance = 1e-13 * scale;
    const NewtonMonitor::Verdict v = newton.next(step);
    if (v != NewtonMonitor::Verdict::Continue) return v == NewtonMonitor::Verdict::Converged;
  }
}

}  // namespace

BuiltinProblem food_web(int m) {
  if (m < 3 || m > 2000)
    throw InvalidArgument("food_web: m must lie in [3, 2000], got " + std::to_string(m));
  const int n = 2 * m * m, half = 2 * m;
  const double dx = 1.0 / (m - 1);
  const double co[2] = {kD[0] / (dx * dx), kD[1] / (dx * dx)};  // dx = dy
  std::vector<double> factor(static_cast<size_t>(m) * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) factor[i + static_cast<size_t>(m) * j] = web_factor(i * dx, j * dx);

  BuiltinProblem p;
  p.name = "food-web";
  p.title = "predator-prey food web (idaFoodWeb), " + std::to_string(m) + " x " +
            std::to_string(m) + " grid, n = " + std::to_string(n) + ", banded, t in [0, 1]";
  p.description =
      "M c' = f(t, c): prey c_1' = d_1 Laplace c_1 + R_1, predators 0 = d_2 Laplace c_2 + R_2,\n"
      "R_i = c_i (b_i F(x, y) + sum_j a_ij c_j) on the unit square, Neumann boundary,\n"
      "central differences on an m x m grid; index 1, stiff; Jacobian in the band 2m (banded LU).\n"
      "No stored reference (bench/scaling.cpp computes one with radau5 at 1e-11).";
  p.source =
      "SUNDIALS IDA example idaFoodWeb_bnd (Taylor, Hindmarsh, Serban; Brown, Hindmarsh & "
      "Petzold 1994); mass-matrix form, analytic Jacobian, grid size parameter ours";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = n;
  std::vector<Eigen::Triplet<double, int>> mass;
  for (int k = 0; k < n; k += 2) mass.emplace_back(k, k, 1.0);
  SparseMatrix M(n, n);
  M.setFromTriplets(mass.begin(), mass.end());
  M.makeCompressed();
  d.mass_sparse = std::move(M);
  d.jacobian_sparsity = Sparsity::banded(half, half);
  d.index.assign(static_cast<size_t>(n), 1);

  // f: diffusion (reflected at the boundary) plus the interaction rates
  d.f = [m, co, factor](double, VecIn c, VecOut f) {
    const long row = 2L * m;  // offset of the next grid line
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) {
        const long k = 2L * (i + static_cast<long>(m) * j);
        const long left = i > 0 ? -2 : 2, right = i < m - 1 ? 2 : -2;
        const long down = j > 0 ? -row : row, up = j < m - 1 ? row : -row;
        const double F = factor[static_cast<size_t>(i) + static_cast<size_t>(m) * j];
        for (int s = 0; s < 2; ++s) {
          const long q = k + s;
          const double rate = c[q] * (kB[s] * F + kA[s][0] * c[k] + kA[s][1] * c[k + 1]);
          f[q] = co[s] * (c[q + up] + c[q + down] - 2.0 * c[q]) +
                 co[s] * (c[q + right] + c[q + left] - 2.0 * c[q]) + rate;
        }
      }
  };
  // df/dc on the band pattern: each entry's value from (row, column)
  d.sparse_jacobian = [m, co, factor](double, VecIn c, SparseMatrix& J) {
    for (int col = 0; col < J.outerSize(); ++col) {
      const int sc = col % 2, pc = col / 2, ic = pc % m, jc = pc / m;
      for (SparseMatrix::InnerIterator it(J, col); it; ++it) {
        const int row = static_cast<int>(it.row());
        const int sr = row % 2, pr = row / 2, ir = pr % m, jr = pr / m;
        double v = 0.0;
        if (pr == pc) {  // same grid point: the rates, and the centre of the stencil
          const long k = 2L * pr;
          const double F = factor[static_cast<size_t>(pr)];
          v = c[row] * kA[sr][sc];
          if (sr == sc) v += kB[sr] * F + kA[sr][0] * c[k] + kA[sr][1] * c[k + 1] - 4.0 * co[sr];
        } else if (sr == sc &&
                   ((jr == jc && std::abs(ir - ic) == 1) || (ir == ic && std::abs(jr - jc) == 1))) {
          // a grid neighbour; on the boundary the reflected neighbour counts twice
          const bool x_edge = jr == jc && (ir == 0 || ir == m - 1);
          const bool y_edge = ir == ic && (jr == 0 || jr == m - 1);
          v = (x_edge || y_edge ? 2.0 : 1.0) * co[sr];
        }
        it.valueRef() = v;
      }
    }
  };

  p.t0 = 0.0;
  p.t_end = 1.0;
  Vector guess(n);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      const double x = i * dx, y = j * dx;
      double xy = 16.0 * x * (1.0 - x) * y * (1.0 - y);
      xy *= xy;
      const long k = 2L * (i + static_cast<long>(m) * j);
      guess[k] = 10.0 + xy;
      guess[k + 1] = 1e5;
    }
  p.y0 = guess;
  if (!consistent_predators(m, co[1], factor, p.y0))
    throw InvalidArgument("food_web: no consistent initial predators found (Newton diverged)");
  p.rtol = p.atol = 1e-5;
  // plot: the prey and predator at the bottom-left and top-right corners (idaFoodWeb's output)
  p.plot_components = {0, 1, n - 2, n - 1};
  return p;
}

}  // namespace daekit
