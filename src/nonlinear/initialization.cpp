// Consistent initial values (nonlinear/initialization.hpp, nonlinear/consistency.hpp): Newton
// with a backtracking line search on the solve's systems, Jacobians from the systems' one
// source (analytic or the shared finite differences).
#include "daekit/nonlinear/initialization.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/dense_spectra.hpp"
#include "core/format.hpp"
#include "daekit/core/function_ref.hpp"
#include "linalg/dense_kernels.hpp"
#include "linalg/linear_solver.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

void InitOptions::validate() const {
  if (!(tol > 0)) throw InvalidArgument("initialize: tol must be positive");
  if (max_iterations < 1) throw InvalidArgument("initialize: max_iterations must be >= 1");
}

std::string InitResult::report() const {
  std::ostringstream os;
  os << (ok ? "consistent" : "NOT consistent") << (message.empty() ? "" : ": " + message) << "\n";
  char line[128];
  for (int i = 0; i < residual.size(); ++i) {
    std::snprintf(line, sizeof line, "  equation %3d  residual %11.3e\n", i, residual[i]);
    os << line;
  }
  return os.str();
}

namespace {

std::string fmt(double x) { return format_number(x, 4); }

// What a violated algebraic equation of M y' = f asks for, as users write it (initialize()
// handles index 1, 2 and 3; Python's solve_ivp and Integrator call it for initialize=True).
const char* const kInitializeRemedy =
    " (consistent values: daekit::initialize(dae, t0, y0).y in C++, initialize=True in "
    "Python's solve_ivp)";

double max_abs(const Vector& v) {
  return v.allFinite() ? (v.size() ? v.cwiseAbs().maxCoeff() : 0.0)
                       : std::numeric_limits<double>::infinity();
}

// What the guard recorded, as a message ("" if nothing).
std::string guard_message(const CallGuard& guard) { return guard.failure().describe(); }

// Dense df/dy of a mass-matrix system at (t, y) with f0 = f(t, y).
bool dense_jacobian(MassMatrixSystem& sys, double t, const Vector& y, const Vector& f0, Matrix& J) {
  StructuredMatrix<double> Js;
  sys.allocate_jacobian(Js);
  if (!sys.jacobian(t, y, f0, Js)) return false;
  J = Js.to_dense();
  return true;
}

// Algebraic blocks J_AZ up to this size are factored dense (full pivoting, rank-revealing),
// larger ones by the sparse backend (KLU), so that initial_derivative stays O(nnz) for large
// sparse problems with many algebraic equations.
constexpr int kDenseAlgebraicBlock = 200;

// Orthonormal bases N of ker M and L of ker M^T (dense SVD: small problems).
int kernels(const Matrix& M, Matrix& N, Matrix& L) {
  const double n = static_cast<double>(M.rows());
  return null_spaces(M, n * std::numeric_limits<double>::epsilon(), N, L);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// F(t, y, y') = 0

InitResult initialize(ImplicitSystem& sys, double t0, const Vector& y0, const Vector& yp0,
                      InitMode mode, const InitOptions& options) {
  const int n = sys.n();
  InitResult r;
  r.y = y0;
  r.yp = yp0;
  r.residual.setZero(n);
  if (!sys.F(t0, r.y, r.yp, r.residual) && sys.guard().fatal()) {
    r.message = guard_message(sys.guard());
    return r;
  }
  auto violated = [&]() {
    int worst = 0;
    for (int i = 1; i < n; ++i)
      if (!(std::abs(r.residual[i]) <= std::abs(r.residual[worst]))) worst = i;
    return worst;
  };
  if (mode == InitMode::CheckOnly) {
    r.ok = max_abs(r.residual) <= options.tol;
    if (!r.ok) {
      const int i = violated();
      r.message =
          "equation " + std::to_string(i) + " has residual " + fmt(r.residual[i]) + " > tol";
    }
    return r;
  }
  // which unknowns: by_y[j] true -> y_j, false -> y'_j
  std::vector<bool> by_y(n, true);
  if (mode == InitMode::DifferentialGiven)
    for (int j = 0; j < n; ++j) by_y[j] = !sys.is_differential(j);
  Matrix J(n, n), Jy, D;
  StructuredMatrix<double> E(n, sys.iteration_structure());
  Vector trial_y(n), trial_yp(n), trial_res(n);
  for (int it = 0; it < options.max_iterations; ++it) {
    if (!r.residual.allFinite()) {
      r.message = "F is not finite at the current iterate";
      if (sys.guard().failure().kind != CallbackFailure::Kind::None)
        r.message += " (" + guard_message(sys.guard()) + ")";
      return r;
    }
    if (max_abs(r.residual) <= options.tol) {
      r.ok = true;
      r.iterations = it;
      return r;
    }
    // dF/dy (c_j = 0) and dF/dy', then the columns of the unknowns
    if (!sys.iteration_matrix(t0, r.y, r.yp, 0.0, r.residual, nullptr, E) ||
        !sys.dF_dyp_dense(t0, r.y, r.yp, D)) {
      r.message = "the Jacobian could not be evaluated: " + guard_message(sys.guard());
      r.iterations = it;
      return r;
    }
    Jy = E.to_dense();
    for (int j = 0; j < n; ++j) J.col(j) = by_y[j] ? Jy.col(j) : D.col(j);
    Eigen::FullPivLU<Matrix> lu(J);
    if (!lu.isInvertible()) {
      // Name what is singular. A left null vector of J picks the equations that do not
      // determine the unknowns (on an index-2 model: the constraint, which does not contain
      // them); a right null vector the unknowns that no equation determines. An equation
      // with a zero row, or an unknown with a zero column, is named exactly.
      int row = -1, col = -1;
      for (int i = 0; i < n && row < 0; ++i)
        if (J.row(i).cwiseAbs().maxCoeff() == 0.0) row = i;
      for (int j = 0; j < n && col < 0; ++j)
        if (J.col(j).cwiseAbs().maxCoeff() == 0.0) col = j;
      if (row < 0) {
        Eigen::FullPivLU<Matrix> lut(J.transpose());
        lut.kernel().col(0).cwiseAbs().maxCoeff(&row);
      }
      if (col < 0) lu.kernel().col(0).cwiseAbs().maxCoeff(&col);
      auto unknown = [&](int j) {
        return std::string(by_y[j] ? "y" : "y'") + "[" + std::to_string(j) + "]";
      };
      r.message = "the Jacobian of F with respect to the unknowns (" +
                  std::string(mode == InitMode::DifferentialGiven
                                  ? "y' of the differential components, y of the algebraic ones"
                                  : "all of y") +
                  ") is singular: equation " + std::to_string(row) +
                  " does not determine them (it does not depend on them independently of the "
                  "other equations), and " +
                  unknown(col) +
                  " is not determined (the DAE is not index 1 -- an index-2 constraint does not "
                  "contain the unknowns -- or the differential/algebraic tags are wrong)";
      r.iterations = it;
      return r;
    }
    const Vector du = lu.solve(r.residual);
    // backtracking line search on |F|^2 / 2
    const double phi0 = 0.5 * r.residual.squaredNorm();
    double lambda = 1.0;
    bool accepted = false;
    for (int ls = 0; ls < 30; ++ls) {
      trial_y = r.y;
      trial_yp = r.yp;
      for (int j = 0; j < n; ++j) (by_y[j] ? trial_y[j] : trial_yp[j]) -= lambda * du[j];
      const bool ok = sys.F(t0, trial_y, trial_yp, trial_res);
      if (sys.guard().fatal()) {
        r.message = guard_message(sys.guard());
        return r;
      }
      if (ok && 0.5 * trial_res.squaredNorm() <= (1 - 1e-4 * lambda) * phi0) {
        accepted = true;
        break;
      }
      lambda *= 0.5;
    }
    if (!accepted) {
      r.message =
          "Newton with line search made no progress (|F| = " + fmt(max_abs(r.residual)) + ")";
      r.iterations = it;
      return r;
    }
    r.y = trial_y;
    r.yp = trial_yp;
    r.residual = trial_res;
  }
  r.ok = max_abs(r.residual) <= options.tol;
  r.iterations = options.max_iterations;
  if (!r.ok) r.message = "no convergence in max_iterations";
  return r;
}

// ---------------------------------------------------------------------------------------------
// M y' = f(t, y)

namespace {

// J_AZ x = rhs, J_AZ = the rows A and columns Z of J = df/dy (the zero rows and zero columns of
// M, as many of each), in the system's structure (a dense n x n copy would not fit large sparse
// problems): dense up to kDenseAlgebraicBlock, the sparse LU backend above. False when J_AZ is
// singular (index > 1).
bool solve_algebraic_block(StructuredMatrix<double>& J, const std::vector<int>& rows,
                           const std::vector<int>& cols, const Vector& rhs, Vector& x) {
  const int m = static_cast<int>(rows.size());
  // row_of[i]: position of row i among the algebraic rows
  std::vector<int> row_of(static_cast<size_t>(J.size()), -1);
  for (int a = 0; a < m; ++a) row_of[static_cast<size_t>(rows[static_cast<size_t>(a)])] = a;
  if (m <= kDenseAlgebraicBlock) {
    Matrix JAZ = Matrix::Zero(m, m);
    for (int b = 0; b < m; ++b)
      J.for_each_in_column(cols[static_cast<size_t>(b)], [&](int i, double& v) {
        if (row_of[static_cast<size_t>(i)] >= 0) JAZ(row_of[static_cast<size_t>(i)], b) = v;
      });
    Eigen::FullPivLU<Matrix> lu(JAZ);
    if (!lu.isInvertible()) return false;
    x = lu.solve(rhs);
    return true;
  }
  std::vector<Eigen::Triplet<double, int>> entries;
  for (int b = 0; b < m; ++b)
    J.for_each_in_column(cols[static_cast<size_t>(b)], [&](int i, double& v) {
      if (row_of[static_cast<size_t>(i)] >= 0)
        entries.emplace_back(row_of[static_cast<size_t>(i)], b, v);
    });
  SparseMatrix JAZ(m, m);
  JAZ.setFromTriplets(entries.begin(), entries.end());
  JAZ.makeCompressed();
  auto lu = make_linear_solver<double>(m, Sparsity::sparse(JAZ), LinearSolverKind::Sparse);
  std::copy(JAZ.valuePtr(), JAZ.valuePtr() + JAZ.nonZeros(), lu->matrix().sparse().valuePtr());
  if (!lu->factor()) return false;
  x = rhs;
  lu->solve_in_place(x);
  return true;
}

}  // namespace

bool initial_derivative(MassMatrixSystem& sys, double t0, const Vector& y0, Vector& yp) {
  const int n = sys.n();
  const MassOperator& M = sys.mass();
  Vector f(n);
  if (!sys.f(t0, y0, f)) return false;
  if (M.is_identity()) {
    yp = f;
    return true;
  }
  yp.setZero(n);
  const std::vector<int> alg_rows = M.zero_rows(), alg_cols = M.zero_columns();
  if (M.kind() == MassOperator::Kind::Diagonal) {
    for (int i = 0; i < n; ++i)
      if (M.diagonal()[i] != 0.0) yp[i] = f[i] / M.diagonal()[i];
  } else {
    // differential part: least squares on M y' = f (exact where M is invertible on its range)
    std::vector<char> zr(n, 0), zc(n, 0);
    for (int i : alg_rows) zr[i] = 1;
    for (int j : alg_cols) zc[j] = 1;
    // M is block diagonal after a symmetric permutation (its connected blocks): the
    // minimum-norm least-squares solution is that of each block's differential rows and columns
    const SparseMatrix Ms = M.to_sparse();
    for (const std::vector<int>& block : connected_blocks(Ms)) {
      std::vector<int> rows_b, cols_b;
      for (int i : block) {
        if (!zr[i]) rows_b.push_back(i);
        if (!zc[i]) cols_b.push_back(i);
      }
      if (rows_b.empty() || cols_b.empty()) continue;
      Matrix Mdd(rows_b.size(), cols_b.size());
      Vector fd(rows_b.size());
      for (size_t a = 0; a < rows_b.size(); ++a) {
        fd[a] = f[rows_b[a]];
        for (size_t b = 0; b < cols_b.size(); ++b) Mdd(a, b) = Ms.coeff(rows_b[a], cols_b[b]);
      }
      const Vector ypd = Mdd.completeOrthogonalDecomposition().solve(fd);
      for (size_t b = 0; b < cols_b.size(); ++b) yp[cols_b[b]] = ypd[b];
    }
  }
  if (alg_rows.empty() || alg_rows.size() != alg_cols.size()) return true;
  // algebraic part: 0 = d/dt f_A(t, y) = J_AD y'_D + J_AZ z' + df_A/dt, with J = df/dy in the
  // system's structure (a dense n x n copy would not fit large sparse problems)
  StructuredMatrix<double> J;
  sys.allocate_jacobian(J);
  if (!sys.jacobian(t0, y0, f, J)) return false;
  const double dt = std::sqrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(t0));
  Vector f1(n), Jyp(n);
  if (!sys.f(t0 + dt, y0, f1)) return false;
  J.multiply(yp, Jyp);  // y'_Z = 0 so far: J y' = J_AD y'_D in the algebraic rows
  const int m = static_cast<int>(alg_rows.size());
  Vector rhs(m);
  for (int a = 0; a < m; ++a)
    rhs[a] = -((f1[alg_rows[a]] - f[alg_rows[a]]) / dt + Jyp[alg_rows[a]]);
  Vector z;
  if (!solve_algebraic_block(J, alg_rows, alg_cols, rhs, z))
    return true;  // index > 1: leave the algebraic derivatives at 0
  for (int b = 0; b < m; ++b) yp[alg_cols[b]] = z[b];
  return true;
}

// ---------------------------------------------------------------------------------------------
// M y' = f(t, y) of index 2 or 3 (see initialization.hpp): the constraints by the smallest
// change of the differential components, the algebraic variables from the algebraic equations
// and the hidden constraints.

namespace {

// Gauss-Newton on r(x) = 0 (r: `rows` entries, of which the first `exact` are evaluated exactly
// and the others by differences, accurate only to their round-off): steps dx = -J^+ r (the
// minimum-norm least-squares solution, J^+ by a complete orthogonal decomposition), with a
// backtracking line search on |r|_2. Converged when every |r_i| <= tol, or when the exact rows
// are and the differenced ones no longer decrease (their round-off level). The residual and
// Jacobian callbacks return false on a callback failure.
struct GaussNewton {
  using Residual = FunctionRef<bool(const Vector& x, Vector& r)>;
  using Jacobian = FunctionRef<bool(const Vector& x, Matrix& J)>;
  GaussNewton(Residual r, Jacobian j, int exact_rows, const InitOptions& options)
      : residual(r),
        jacobian(j),
        exact(exact_rows),
        tol(options.tol),
        max_iterations(options.max_iterations) {}

  Residual residual;
  Jacobian jacobian;
  int exact = 0;
  double tol = 1e-10;
  int max_iterations = 50;
  int iterations = 0;
  std::string failure;  ///< why it stopped without converging ("" if it converged)

  bool solve(Vector& x, Vector& r) {
    if (!residual(x, r)) return fail("the residual could not be evaluated");
    Matrix J;
    Vector trial, rt;
    for (iterations = 0; iterations < max_iterations; ++iterations) {
      if (r.cwiseAbs().maxCoeff() <= tol) return true;
      if (!jacobian(x, J)) return fail("the Jacobian could not be evaluated");
      const Vector dx = -J.completeOrthogonalDecomposition().solve(r);
      const double norm = r.norm();
      bool progress = false;
      for (double lambda = 1.0; lambda >= 1.0 / 1024; lambda *= 0.5) {
        trial = x + lambda * dx;
        if (!residual(trial, rt)) return fail("the residual could not be evaluated");
        if (rt.norm() < (1.0 - 1e-4 * lambda) * norm) {
          progress = true;
          break;
        }
      }
      if (!progress) {  // at the round-off level of the differenced rows, or stuck
        if (exact_rows_hold(r)) return true;
        return fail("no progress (largest residual " + fmt(r.cwiseAbs().maxCoeff()) + ")");
      }
      x = trial;
      r = rt;
    }
    if (r.cwiseAbs().maxCoeff() <= tol || exact_rows_hold(r)) return true;
    return fail("no convergence in " + std::to_string(max_iterations) + " iterations");
  }

 private:
  bool exact_rows_hold(const Vector& r) const {
    return exact == 0 || r.head(exact).cwiseAbs().maxCoeff() <= tol;
  }
  bool fail(std::string why) {
    failure = std::move(why);
    return false;
  }
};

// The structure the index-2/3 initialization works on: the algebraic equations are the zero
// rows A of M, the algebraic variables its zero columns Z (as many), D and R the other columns
// and rows, M[R, D] invertible. The flow y'_D = M[R, D]^{-1} f_R(t, y) (with y'_Z = 0) defines
// the derivative levels of the constraints:
//   level 0: c0 = L^T f_A with L spanning ker (df_A/dz)^T: the combinations of the algebraic
//            equations that do not contain z -- the rows of f_A without z when the other rows
//            are independent in z (the constraints of a Hessenberg DAE: exact selections),
//            else a basis of the null space,
//   level 1: c1 = d/dt c0 along the flow (central differences of fourth order in t and along
//            y', the step from the time scale |y_D| / |y_D'| of the motion),
//   level 2: c2 = d/dt c1 for the rows of c1 that do not contain z either (index 3).
class HigherIndexStart {
 public:
  HigherIndexStart(MassMatrixSystem& sys, double t0, const InitOptions& options)
      : sys_(sys), t0_(t0), options_(options), n_(sys.n()) {}

  // Reads the structure at y; false with `message` if it is not one this method handles.
  bool setup(const Vector& y, std::string& message) {
    const MassOperator& M = sys_.mass();
    A_ = M.zero_rows();
    Z_ = M.zero_columns();
    m_ = static_cast<int>(A_.size());
    if (m_ == 0 || static_cast<int>(Z_.size()) != m_) {
      message =
          "initialize() for index 2 and 3 needs the algebraic equations in zero rows of M and "
          "as many algebraic variables in zero columns (M has " +
          std::to_string(A_.size()) + " zero rows and " + std::to_string(Z_.size()) +
          " zero columns)";
      return false;
    }
    R_ = complement(A_);
    D_ = complement(Z_);
    const Matrix Md = M.to_dense();
    Matrix MRD(R_.size(), D_.size());
    for (size_t a = 0; a < R_.size(); ++a)
      for (size_t b = 0; b < D_.size(); ++b) MRD(a, b) = Md(R_[a], D_[b]);
    mrd_.compute(MRD);
    if (!mrd_.isInvertible()) {
      message = "M restricted to its non-zero rows and columns is singular";
      return false;
    }
    if (!jacobian_at(y)) return callback_failure(message);
    // level 0: the rows of df_A/dz that vanish, or (when the others are dependent) ker of its
    // transpose
    const Matrix JAZ = J_(A_, Z_);
    std::vector<int> zero_rows;
    for (int a = 0; a < m_; ++a)
      if (JAZ.row(a).cwiseAbs().maxCoeff() == 0.0) zero_rows.push_back(a);
    const std::vector<int> others = complement(zero_rows, m_);
    if (others.empty() || Eigen::FullPivLU<Matrix>(JAZ(others, Eigen::all)).rank() ==
                              static_cast<int>(others.size())) {
      L_.setZero(m_, static_cast<Eigen::Index>(zero_rows.size()));
      for (size_t c = 0; c < zero_rows.size(); ++c) L_(zero_rows[c], c) = 1.0;
    } else {
      Matrix N;
      null_spaces(JAZ, static_cast<double>(m_) * kEps, N, L_);
    }
    k_ = static_cast<int>(L_.cols());
    if (k_ == 0) return true;  // index 1 after all: Newton on z alone
    // level 1: which rows contain z (equations for z) and which do not (constraints on y_D)
    const Matrix B1 = level1_z_jacobian();
    const double scale = B1.cwiseAbs().maxCoeff();
    for (int i = 0; i < k_; ++i)
      (B1.row(i).cwiseAbs().maxCoeff() <= 1e-8 * scale ? free1_ : tied1_).push_back(i);
    Vector yp;
    if (!flow(t0_, y, yp)) return callback_failure(message);
    double ynorm = 0.0, ypnorm = 0.0;
    for (int j : D_) {
      ynorm = std::max(ynorm, std::abs(y[j]));
      ypnorm = std::max(ypnorm, std::abs(yp[j]));
    }
    // the time scale of the motion, for the difference steps along it
    double tau = std::max(1.0, std::abs(t0_));
    if (ypnorm > 0.0) tau = std::min(tau, (ynorm + 1e-3) / ypnorm);
    // fourth-order differences: truncation (s / tau)^4 / 30, round-off eps tau / s, relative
    step_ = std::max(std::pow(kEps, 0.2) * tau, 1e3 * kEps * std::abs(t0_));
    return true;
  }

  // Projects y_D onto the constraints (c0 and the free rows of c1), then solves for z.
  bool run(Vector& y, std::string& message, int& iterations) {
    if (k_ > 0 && !project(y, message, iterations)) return false;
    return algebraic_variables(y, message, iterations);
  }

 private:
  static constexpr double kEps = std::numeric_limits<double>::epsilon();

  std::vector<int> complement(const std::vector<int>& set, int size = -1) const {
    if (size < 0) size = n_;
    std::vector<char> in(static_cast<size_t>(size), 0);
    for (int i : set) in[i] = 1;
    std::vector<int> out;
    for (int i = 0; i < size; ++i)
      if (!in[i]) out.push_back(i);
    return out;
  }
  bool callback_failure(std::string& message) {
    message = sys_.guard().failure().describe();
    if (message.empty()) message = "f is not finite";
    return false;
  }
  bool jacobian_at(const Vector& y) {
    fv_.resize(n_);
    return sys_.f(t0_, y, fv_) && dense_jacobian(sys_, t0_, y, fv_, J_);
  }
  // y' along the flow: y'_D = M[R, D]^{-1} f_R(t, y), y'_Z = 0
  bool flow(double t, const Vector& y, Vector& yp) {
    Vector f(n_);
    if (!sys_.f(t, y, f)) return false;
    yp.setZero(n_);
    const Vector ypd = mrd_.solve(Vector(f(R_)));
    for (size_t b = 0; b < D_.size(); ++b) yp[D_[b]] = ypd[static_cast<Eigen::Index>(b)];
    return true;
  }
  bool level0(double t, const Vector& y, Vector& c) {
    Vector f(n_);
    if (!sys_.f(t, y, f)) return false;
    c = L_.transpose() * Vector(f(A_));
    return true;
  }
  // d/ds g(t + s, y + s y'(t, y)) at s = 0 by the central differences of fourth order,
  // (8 (g(h) - g(-h)) - (g(2h) - g(-2h))) / (12 h), h = step_
  template <typename G>
  bool along_flow(G&& g, double t, const Vector& y, Vector& out) {
    Vector yp, g1, g2, g3, g4;
    const double h = step_;
    if (!flow(t, y, yp) || !g(t + h, Vector(y + h * yp), g1) || !g(t - h, Vector(y - h * yp), g2) ||
        !g(t + 2 * h, Vector(y + 2 * h * yp), g3) || !g(t - 2 * h, Vector(y - 2 * h * yp), g4))
      return false;
    out = (8.0 * (g1 - g2) - (g3 - g4)) / (12.0 * h);
    return true;
  }
  bool level1(double t, const Vector& y, Vector& c) {
    return along_flow([&](double tt, const Vector& yy, Vector& o) { return level0(tt, yy, o); }, t,
                      y, c);
  }
  bool level1_free(double t, const Vector& y, Vector& c) {
    Vector all;
    if (!level1(t, y, all)) return false;
    c = all(free1_);
    return true;
  }
  bool level2(double t, const Vector& y, Vector& c) {
    return along_flow(
        [&](double tt, const Vector& yy, Vector& o) { return level1_free(tt, yy, o); }, t, y, c);
  }
  // d y'_D / dz = M[R, D]^{-1} df_R/dz (from J_)
  Matrix flow_z_jacobian() const { return mrd_.solve(Matrix(J_(R_, Z_))); }
  // dc1/dz = L^T df_A/dy_D dy'_D/dz (c0 does not contain z)
  Matrix level1_z_jacobian() const {
    return L_.transpose() * Matrix(J_(A_, D_)) * flow_z_jacobian();
  }
  // d(c1 free rows)/dy_D by central differences
  bool level1_free_y_jacobian(const Vector& y, Matrix& C) {
    double typical = 1e-8;
    for (int j : D_) typical = std::max(typical, 1e-3 * std::abs(y[j]));
    Vector x = y;
    return FiniteDifferenceJacobian::central(
        [&](const Vector& yd, Vector& out) {
          x(D_) = yd;
          return level1_free(t0_, x, out);
        },
        static_cast<int>(free1_.size()), Vector(y(D_)), typical, C);
  }

  // y_D onto c0 = 0 (and c1 = 0 for its rows free of z) by the smallest change
  bool project(Vector& y, std::string& message, int& iterations) {
    const int nfree = static_cast<int>(free1_.size());
    Vector yy = y;
    auto residual = [&](const Vector& yd, Vector& r) {
      yy(D_) = yd;
      Vector c0, c1;
      if (!level0(t0_, yy, c0)) return false;
      if (nfree > 0 && !level1_free(t0_, yy, c1)) return false;
      r.resize(k_ + nfree);
      r << c0, c1;
      return true;
    };
    auto jacobian = [&](const Vector& yd, Matrix& C) {
      yy(D_) = yd;
      if (!jacobian_at(yy)) return false;
      C.resize(k_ + nfree, static_cast<Eigen::Index>(D_.size()));
      C.topRows(k_) = L_.transpose() * Matrix(J_(A_, D_));
      if (nfree == 0) return true;
      Matrix C1;
      if (!level1_free_y_jacobian(yy, C1)) return false;
      C.bottomRows(nfree) = C1;
      return true;
    };
    return solve_for(D_, residual, jacobian, k_,
                     "projecting the differential components onto "
                     "the constraints",
                     y, message, iterations);
  }

  // z from f_A = 0 and the hidden constraints (tied rows of c1, c2 of the free rows)
  bool algebraic_variables(Vector& y, std::string& message, int& iterations) {
    const int ntied = static_cast<int>(tied1_.size()), nfree = static_cast<int>(free1_.size());
    Matrix C1;  // d(c1 free rows)/dy_D: y_D no longer changes
    if (nfree > 0 && !level1_free_y_jacobian(y, C1)) return callback_failure(message);
    Vector yy = y;
    auto residual = [&](const Vector& z, Vector& r) {
      yy(Z_) = z;
      Vector f(n_), c1, c2;
      if (!sys_.f(t0_, yy, f)) return false;
      if (ntied > 0 && !level1(t0_, yy, c1)) return false;
      if (nfree > 0 && !level2(t0_, yy, c2)) return false;
      r.resize(m_ + ntied + nfree);
      r.head(m_) = f(A_);
      if (ntied > 0) r.segment(m_, ntied) = c1(tied1_);
      if (nfree > 0) r.tail(nfree) = c2;
      return true;
    };
    bool rank_checked = false;
    auto jacobian = [&](const Vector& z, Matrix& Jz) {
      yy(Z_) = z;
      if (!jacobian_at(yy)) return false;
      Jz.resize(m_ + ntied + nfree, m_);
      Jz.topRows(m_) = J_(A_, Z_);
      if (ntied > 0) Jz.middleRows(m_, ntied) = level1_z_jacobian()(tied1_, Eigen::all);
      if (nfree > 0) Jz.bottomRows(nfree) = C1 * flow_z_jacobian();
      if (!rank_checked) {
        rank_checked = true;
        const Eigen::Index rank = Jz.completeOrthogonalDecomposition().rank();
        if (rank < m_) {
          rank_deficient_ = static_cast<int>(m_ - rank);
          return false;
        }
      }
      return true;
    };
    return solve_for(Z_, residual, jacobian, m_, "solving for the algebraic variables", y, message,
                     iterations);
  }

  // The components `unknowns` of y by Gauss-Newton (the first `exact` rows of the residual
  // exact); false with the message of a callback failure, of the rank deficiency the Jacobian
  // found, or `what: why it stopped`.
  bool solve_for(const std::vector<int>& unknowns, GaussNewton::Residual residual,
                 GaussNewton::Jacobian jacobian, int exact, const char* what, Vector& y,
                 std::string& message, int& iterations) {
    GaussNewton gn(residual, jacobian, exact, options_);
    Vector x = y(unknowns), r;
    const bool ok = gn.solve(x, r);
    iterations += gn.iterations;
    if (ok) {
      y(unknowns) = x;
      return true;
    }
    if (sys_.guard().failure().kind != CallbackFailure::Kind::None)
      return callback_failure(message);
    if (rank_deficient_ > 0) {
      message =
          "the algebraic equations and the derivatives of the constraints (to the "
          "second) leave " +
          std::to_string(rank_deficient_) +
          " directions of the algebraic variables undetermined (index higher than 3, "
          "or constraints that are not rows of a Hessenberg DAE)";
      return false;
    }
    message = std::string(what) + ": " + gn.failure;
    return false;
  }

  MassMatrixSystem& sys_;
  double t0_;
  InitOptions options_;
  int n_, m_ = 0, k_ = 0, rank_deficient_ = 0;
  std::vector<int> A_, Z_, R_, D_, free1_, tied1_;
  Eigen::FullPivLU<Matrix> mrd_;
  Matrix L_, J_;
  Vector fv_;
  double step_ = 0.0;  // of the differences along the motion
};

}  // namespace

InitResult initialize(MassMatrixSystem& sys, double t0, const Vector& y0,
                      const InitOptions& options) {
  const int n = sys.n();
  InitResult r;
  r.y = y0;
  Vector fv(n);
  auto finish = [&](bool ok, const std::string& message) {
    r.ok = ok;
    r.message = message;
    r.yp.setZero(n);
    r.residual.setZero(n);
    if (!sys.f(t0, r.y, fv)) {
      if (r.ok) r.message = guard_message(sys.guard());
      r.ok = false;
      return r;
    }
    if (ok && !initial_derivative(sys, t0, r.y, r.yp)) {
      r.ok = false;
      r.message = guard_message(sys.guard());
    }
    sys.mass().apply(r.yp, r.residual);
    r.residual -= fv;
    return r;
  };
  // index 2 and 3 with the algebraic equations in zero rows of M (without zero rows there is
  // nothing of the kind: a nonsingular M, or the index-1 treatment of L^T f below)
  if (sys.dae().max_index() >= 2 && !sys.mass().zero_rows().empty()) {
    HigherIndexStart start(sys, t0, options);
    std::string message;
    if (!start.setup(r.y, message)) return finish(false, message);
    const bool ok = start.run(r.y, message, r.iterations);
    return finish(ok, message);
  }
  if (sys.mass().is_identity() || sys.mass().kind() == MassOperator::Kind::Diagonal) {
    // diagonal M: the algebraic equations are the zero rows
    std::string message;
    const bool ok = reinitialize(sys, t0, r.y, message);
    return finish(ok, message);
  }
  Matrix N, L;
  const int m = kernels(sys.mass().to_dense(), N, L);
  if (m == 0) return finish(true, "");
  Matrix J(n, n), A(m, m);
  Vector g(m), dc(m), trial(n), gt(m);
  auto residual = [&](const Vector& y, Vector& out) {
    if (!sys.f(t0, y, fv)) return std::numeric_limits<double>::infinity();
    out = L.transpose() * fv;
    return out.norm();
  };
  double gnorm = residual(r.y, g);
  for (r.iterations = 0; r.iterations < options.max_iterations; ++r.iterations) {
    if (!std::isfinite(gnorm))
      return finish(false, "f is not finite at the initial values" +
                               (sys.guard().failure().kind != CallbackFailure::Kind::None
                                    ? " (" + guard_message(sys.guard()) + ")"
                                    : std::string()));
    if (g.cwiseAbs().maxCoeff() <= options.tol) return finish(true, "");
    if (!dense_jacobian(sys, t0, r.y, fv, J))
      return finish(false, "the Jacobian could not be evaluated: " + guard_message(sys.guard()));
    A = L.transpose() * J * N;
    Eigen::FullPivLU<Matrix> lu(A);
    if (!lu.isInvertible())
      return finish(false,
                    "the algebraic equations L^T f are singular with respect to the algebraic "
                    "directions ker M (rank " +
                        std::to_string(lu.rank()) + " < " + std::to_string(m) +
                        "): the model is not index 1 at t0");
    dc = lu.solve(g);
    double lambda = 1.0;  // backtracking on |L^T f|
    for (;;) {
      trial = r.y - lambda * (N * dc);
      const double tn = residual(trial, gt);
      if (sys.guard().fatal()) return finish(false, guard_message(sys.guard()));
      if (tn < (1.0 - 1e-4 * lambda) * gnorm || lambda < 1e-4) {
        r.y = trial;
        g = gt;
        gnorm = tn;
        break;
      }
      lambda *= 0.5;
    }
  }
  if (g.cwiseAbs().maxCoeff() <= options.tol) return finish(true, "");
  return finish(false, "Newton on the algebraic equations did not converge in " +
                           std::to_string(options.max_iterations) + " iterations");
}

bool reinitialize(MassMatrixSystem& sys, double t, Vector& y, std::string& message) {
  const MassOperator& M = sys.mass();
  if (M.is_identity()) return true;
  const std::vector<int> rows = M.zero_rows(), cols = M.zero_columns();
  const int n = sys.n();
  if (rows.empty()) {
    if (M.kind() == MassOperator::Kind::Diagonal) return true;  // nonsingular diagonal
    // singular M without zero rows (algebraic equations in combinations of rows): Newton on
    // L^T f along ker M; nothing to do when M is nonsingular
    Matrix N, L;
    if (kernels(M.to_dense(), N, L) == 0) return true;
    const InitResult r = initialize(sys, t, y, InitOptions{});
    if (!r.ok) {
      message = r.message;
      return false;
    }
    y = r.y;
    return true;
  }
  if (rows.size() != cols.size()) return true;
  const int m = static_cast<int>(rows.size());
  Vector fv(n), r(m);
  Matrix J, JA(m, m);
  // Newton (the Jacobian anew at every iterate) on the residual, |f_A| <= 1e-12 (1 + |y|), at
  // most 20 iterations
  NewtonMonitor newton(NewtonMonitor::without_rate(20));
  newton.begin(0.0);
  for (NewtonMonitor::Verdict v = NewtonMonitor::Verdict::Continue;
       v == NewtonMonitor::Verdict::Continue;) {
    if (!sys.f(t, y, fv)) {
      message = "f failed while solving the algebraic equations: " + guard_message(sys.guard());
      return false;
    }
    double worst = 0.0;
    for (int a = 0; a < m; ++a) {
      r[a] = fv[rows[a]];
      worst = std::max(worst, std::abs(r[a]));
    }
    newton.settings().tolerance = 1e-12 * (1.0 + y.cwiseAbs().maxCoeff());
    v = newton.next(worst);
    if (v == NewtonMonitor::Verdict::Converged) return true;
    if (!dense_jacobian(sys, t, y, fv, J)) {
      message = "the Jacobian failed while solving the algebraic equations: " +
                guard_message(sys.guard());
      return false;
    }
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b) JA(a, b) = J(rows[a], cols[b]);
    Eigen::FullPivLU<Matrix> lu(JA);
    if (!lu.isInvertible()) {
      message =
          "the Jacobian of the algebraic equations with respect to the algebraic "
          "variables is singular (not index 1; an index-2 or index-3 model needs its index "
          "tags, MassMatrixDae::index, for initialize() to project it onto its constraints)";
      return false;
    }
    const Vector dz = lu.solve(r);
    for (int b = 0; b < m; ++b) y[cols[b]] -= dz[b];
  }
  message = "Newton on the algebraic equations did not converge";
  return false;
}

namespace {

// The zero columns of M tagged 2, or none when consistent_index2_values() has nothing to do
// (an ODE, no zero rows, a zero column tagged 3, n above the dense limit).
std::vector<int> restart_index2_columns(MassMatrixSystem& sys) {
  const MassMatrixDae& dae = sys.dae();
  const MassOperator& M = sys.mass();
  if (dae.max_index() < 2 || sys.n() > kIndex2RestartMaxN || M.is_identity()) return {};
  if (M.zero_rows().empty()) return {};
  std::vector<int> z;
  for (int j : M.zero_columns()) {
    if (dae.index_of(j) >= 3) return {};
    if (dae.index_of(j) == 2) z.push_back(j);
  }
  return z;
}

}  // namespace

bool consistent_index2_values(MassMatrixSystem& sys, double t, Vector& y, Vector& f0,
                              const Matrix& J, double direction, double dt, std::string& message,
                              Vector* yp) {
  if (yp != nullptr) yp->resize(0);
  const std::vector<int> Z = restart_index2_columns(sys);
  if (Z.empty()) return true;
  const int n = sys.n(), nz = static_cast<int>(Z.size()), nv = n - nz;
  std::vector<char> in_z(static_cast<size_t>(n), 0), in_a(static_cast<size_t>(n), 0);
  for (int j : Z) in_z[static_cast<size_t>(j)] = 1;
  for (int a : sys.mass().zero_rows()) in_a[static_cast<size_t>(a)] = 1;
  std::vector<int> V;  // the components whose derivatives are unknowns
  for (int j = 0; j < n; ++j)
    if (!in_z[static_cast<size_t>(j)]) V.push_back(j);
  // keeps z when a callback failed without being fatal (f not finite off the branch's region)
  const auto callback = [&]() {
    if (!sys.guard().fatal()) return true;
    message = guard_message(sys.guard());
    return false;
  };
  // the Newton matrix in the unknowns x = (v on V, z): rows R [M_RV, -f_R,z], rows A [f_A,V, 0]
  const Matrix Md = sys.mass().to_dense();
  Matrix K = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    const bool a = in_a[static_cast<size_t>(i)];
    for (int b = 0; b < nv; ++b) K(i, b) = a ? J(i, V[b]) : Md(i, V[b]);
    if (!a)
      for (int c = 0; c < nz; ++c) K(i, nv + c) = -J(i, Z[c]);
  }
  const Eigen::FullPivLU<Matrix> lu(K);
  if (!lu.isInvertible()) return true;  // not the index-2 structure this solves
  // the increment of the differences in t rounded so that t + s - t is exact
  const double s = (t + (direction < 0 ? -1.0 : 1.0) * dt) - t;
  if (s == 0.0) return true;
  Vector f1(n), f2(n);
  // f_t by one-sided differences of second order towards the integration
  if (!sys.f(t + s, y, f1) || !sys.f(t + 2.0 * s, y, f2)) return callback();
  const Vector ft = (4.0 * f1 - 3.0 * f0 - f2) / (2.0 * s);
  // Newton from (v, z) = (0, z before); f = f(t, yz) throughout
  Vector x = Vector::Zero(n), r(n), yz = y, f = f0;
  x.tail(nz) = y(Z);
  double first = 0.0;
  for (int it = 0; it < 5; ++it) {
    for (int i = 0; i < n; ++i) {
      const bool a = in_a[static_cast<size_t>(i)];
      double acc = a ? ft[i] : -f[i];
      for (int b = 0; b < nv; ++b) acc += (a ? J(i, V[b]) : Md(i, V[b])) * x[b];
      r[i] = acc;
    }
    const Vector dx = lu.solve(r);
    const double change = dx.tail(nz).cwiseAbs().maxCoeff();
    if (it == 0) first = change;
    if (it > 0 && change <= 1e-10 * std::max(first, x.tail(nz).cwiseAbs().maxCoeff())) {
      y = yz;  // (the last, negligible increment not applied: f is f(t, y))
      f0 = f;
      if (yp != nullptr) {
        yp->setZero(n);
        for (int b = 0; b < nv; ++b) (*yp)[V[b]] = x[b];
      }
      return true;
    }
    x -= dx;
    if (!x.allFinite()) return true;
    yz(Z) = x.tail(nz);
    if (!sys.f(t, yz, f)) return callback();
  }
  return true;  // no convergence: z as it was
}

bool consistent_index2_values(MassMatrixSystem& sys, double t, Vector& y, double direction,
                              double dt, std::string& message, Vector* yp) {
  if (yp != nullptr) yp->resize(0);
  if (restart_index2_columns(sys).empty()) return true;
  Vector f(sys.n());
  Matrix J;
  if (!sys.f(t, y, f) || !dense_jacobian(sys, t, y, f, J)) {
    if (!sys.guard().fatal()) return true;
    message = guard_message(sys.guard());
    return false;
  }
  return consistent_index2_values(sys, t, y, f, J, direction, dt, message, yp);
}

namespace {

// Whether the algebraic residuals f_A(t0, y0) (zero rows A of M, f = f(t0, y0)) move the
// algebraic variables z (zero columns) by at most tol: the Newton correction J_AZ dz = -f_A in
// the units of y, in which tol is given. A residual compared with tol directly is in the units
// of f: an equation whose terms are 1e10 (the food web's predators, c ~ 1e5) is consistent to
// round-off at |f_A| = 1e-6. Only where J_AZ is invertible (index 1, as many zero rows as
// zero columns); otherwise false (the residual decides). Evaluates df/dy once.
bool algebraic_residual_within(MassMatrixSystem& sys, double t0, const Vector& y0, const Vector& f,
                               double tol) {
  const std::vector<int> rows = sys.mass().zero_rows(), cols = sys.mass().zero_columns();
  if (rows.empty() || rows.size() != cols.size()) return false;
  StructuredMatrix<double> J;
  sys.allocate_jacobian(J);
  if (!sys.jacobian(t0, y0, f, J)) return false;
  const int m = static_cast<int>(rows.size());
  Vector rhs(m), dz;
  for (int a = 0; a < m; ++a) rhs[a] = -f[rows[static_cast<size_t>(a)]];
  if (!solve_algebraic_block(J, rows, cols, rhs, dz)) return false;
  return dz.allFinite() && dz.cwiseAbs().maxCoeff() <= tol;
}

}  // namespace

std::string check_consistency(MassMatrixSystem& sys, double t0, const Vector& y0, double tol) {
  const int n = sys.n();
  const MassOperator& M = sys.mass();
  if (!M.is_identity()) {
    Vector f(n);
    if (!sys.f(t0, y0, f)) {
      if (sys.guard().fatal()) return guard_message(sys.guard());
      return "f is not finite at t0 (" + guard_message(sys.guard()) + ")";
    }
    const std::vector<int> rows = M.zero_rows();
    for (int i : rows)
      if (!(std::abs(f[i]) <= tol)) {
        if (algebraic_residual_within(sys, t0, y0, f, tol)) break;
        return "algebraic equation " + std::to_string(i) +
               " (zero row of M) is violated at t0: " + "|f_" + std::to_string(i) +
               "(t0, y0)| = " + fmt(std::abs(f[i])) + " > " + fmt(tol) + kInitializeRemedy;
      }
    if (rows.empty() && M.kind() == MassOperator::Kind::Structured) {
      // ker M^T block by block (connected blocks of M, linalg/dense_kernels.hpp): the rank
      // decided against the largest column norm of the whole of M, as one QR of M would
      const SparseMatrix Ms = M.to_sparse();
      double scale = 0.0;
      for (int j = 0; j < n; ++j) scale = std::max(scale, Ms.col(j).norm());
      for (const std::vector<int>& block : connected_blocks(Ms)) {
        if (block.size() < 2 || block.size() > 2000) continue;  // 1 x 1: no zero rows here
        const Matrix B = dense_block(Ms, block);
        double block_scale = 0.0;
        for (int a = 0; a < B.cols(); ++a) block_scale = std::max(block_scale, B.col(a).norm());
        Matrix N, L;
        if (null_spaces(B, n * std::numeric_limits<double>::epsilon() * scale / block_scale, N,
                        L) == 0)
          continue;
        Vector fb(static_cast<Eigen::Index>(block.size()));
        for (size_t a = 0; a < block.size(); ++a) fb[static_cast<Eigen::Index>(a)] = f[block[a]];
        const Vector g = L.transpose() * fb;
        int worst = 0;
        g.cwiseAbs().maxCoeff(&worst);
        if (!(std::abs(g[worst]) <= tol))
          return "the algebraic part of M y' = f (L^T f, L spanning ker M^T) is violated at t0 "
                 "by " +
                 fmt(std::abs(g[worst])) + " > " + fmt(tol) + kInitializeRemedy;
      }
    }
  }
  if (sys.has_monitor()) {
    ConstraintResiduals c;
    if (!sys.monitor(t0, y0, c)) return guard_message(sys.guard());
    if (!(c.position <= tol))
      return "position constraint g(q) = 0 is violated at t0 by " + fmt(c.position) + " > " +
             fmt(tol);
    if (!(c.velocity <= tol))
      return "velocity constraint G(q) v = 0 is violated at t0 by " + fmt(c.velocity) + " > " +
             fmt(tol);
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Public entry points: a system of their own, failures as messages.

InitResult initialize(const ImplicitDae& dae, double t0, const Vector& y0, const Vector& yp0,
                      InitMode mode, const InitOptions& options) {
  dae.validate();
  options.validate();
  if (y0.size() != dae.n || yp0.size() != dae.n)
    throw InvalidArgument("initialize: y0 and yp0 must have size n = " + std::to_string(dae.n));
  CallGuard guard;
  Stats stats;
  ImplicitSystem sys(dae, LinearSolverKind::Dense, guard, stats);
  return initialize(sys, t0, y0, yp0, mode, options);
}

InitResult initialize(const MassMatrixDae& dae, double t0, const Vector& y0,
                      const InitOptions& options) {
  dae.validate();
  options.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("initialize: y0 has size " + std::to_string(y0.size()) +
                          ", expected n = " + std::to_string(dae.n));
  CallGuard guard;
  Stats stats;
  MassMatrixSystem sys(dae, LinearSolverKind::Dense, guard, stats);
  return initialize(sys, t0, y0, options);
}

Vector initial_derivative(const MassMatrixDae& dae, double t0, const Vector& y0) {
  dae.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("initial_derivative: y0 has size " + std::to_string(y0.size()) +
                          ", expected n = " + std::to_string(dae.n));
  CallGuard guard;
  Stats stats;
  // the automatic backend: a large sparse problem keeps its Jacobian sparse (no n x n matrix)
  MassMatrixSystem sys(dae, LinearSolverKind::Automatic, guard, stats);
  Vector yp;
  if (!initial_derivative(sys, t0, y0, yp))
    throw InvalidArgument("initial_derivative: " + guard_message(guard));
  return yp;
}

}  // namespace daekit

namespace daekit {

std::string check_initial_values(const MassMatrixDae& dae, double t0, const Vector& y0,
                                 double tol) {
  dae.validate();
  if (y0.size() != dae.n)
    throw InvalidArgument("check_initial_values: y0 has size " + std::to_string(y0.size()) +
                          ", expected n = " + std::to_string(dae.n));
  CallGuard guard;
  Stats stats;
  MassMatrixSystem sys(dae, LinearSolverKind::Dense, guard, stats);
  return check_consistency(sys, t0, y0, tol);
}

std::string JacobianCheck::report() const {
  std::ostringstream os;
  if (!message.empty()) os << message << "\n";
  if (ok && message.empty()) os << "the analytic Jacobian agrees with finite differences\n";
  if (disagreeing > 0)
    os << disagreeing << " entries disagree with finite differences (worst first):\n";
  char line[160];
  for (const Entry& e : entries) {
    std::snprintf(line, sizeof line, "  (%d, %d)  analytic %14.6e  differences %14.6e\n", e.row,
                  e.col, e.analytic, e.difference);
    os << line;
  }
  return os.str();
}

namespace {

// Central differences, the reference of the check (FiniteDifferenceJacobian::central):
// increments delta_j = cbrt(eps) max(|x_j|, 1e-3), truncation O(delta^2) (exact on quadratic
// terms, unlike the forward differences the solvers use, whose O(delta) error would flag
// correct Jacobians of models with large second derivatives, e.g. Robertson's 3e7 y2^2),
// round-off O(eps / delta).
bool central_differences(FiniteDifferenceJacobian::Map G, const Vector& x, Matrix& D,
                         Vector& delta) {
  return FiniteDifferenceJacobian::central(G, static_cast<int>(x.size()), x, 1e-3, D, &delta);
}

// Compares A (analytic) with D (central differences with increments delta, base values G0): an
// entry disagrees beyond the relative tolerance 1e-3 plus the differences' round-off (eps times
// the magnitude of the terms of G_i, estimated by |G0_i| + sum_k |A_ik x_k|, over delta_j, with
// a safety factor 1e3) and truncation (1e-6 times the column's scale).
JacobianCheck compare(const Matrix& A, const Matrix& D, const Vector& G0, const Vector& x,
                      const Vector& delta) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  JacobianCheck c;
  const int n = static_cast<int>(A.rows());
  std::vector<std::pair<double, JacobianCheck::Entry>> bad;
  const Vector terms = G0.cwiseAbs() + A.cwiseAbs() * x.cwiseAbs();
  for (int j = 0; j < n; ++j) {
    const double col = std::max(A.col(j).cwiseAbs().maxCoeff(), D.col(j).cwiseAbs().maxCoeff());
    for (int i = 0; i < n; ++i) {
      const double a = A(i, j), d = D(i, j);
      const double allowed =
          1e-3 * std::max(std::abs(a), std::abs(d)) + 1e3 * eps * terms[i] / delta[j] + 1e-6 * col;
      const double diff = std::abs(a - d);
      if (!(diff <= allowed)) bad.push_back({diff / std::max(allowed, 1e-300), {i, j, a, d}});
    }
  }
  std::sort(bad.begin(), bad.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  c.disagreeing = static_cast<long>(bad.size());
  for (size_t k = 0; k < bad.size() && k < 20; ++k) c.entries.push_back(bad[k].second);
  c.ok = bad.empty();
  return c;
}

}  // namespace

namespace {

// The check of A = dG/dx (structured, structure S) over column groups of S's colouring (see
// check_jacobian in consistency.hpp): at most kCheckGroups groups spread evenly over the
// colours, each differenced centrally by one pair of evaluations; each row takes the value of
// its one structural column in the group, rows without one are compared with zero. Counts the
// evaluations in `evaluations`; false if one failed.
bool check_by_groups(FiniteDifferenceJacobian::Map G, const Vector& x, const Vector& G0,
                     const StructuredMatrix<double>& A, const Sparsity& S, JacobianCheck& c,
                     long& evaluations) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  const int n = static_cast<int>(x.size());
  const SparseMatrix P = S.to_pattern(n);
  const ColumnColouring colouring = colour_columns(n, S);
  const int groups = std::min(colouring.colours, kCheckGroups);
  // the magnitude of the terms of G_i: |G0_i| + sum_k |A_ik x_k| (the differences' round-off)
  Vector terms = G0.cwiseAbs();
  for (int j = 0; j < n; ++j)
    for (SparseMatrix::InnerIterator it(P, j); it; ++it)
      terms[it.row()] += std::abs(A.at(static_cast<int>(it.row()), j) * x[j]);
  std::vector<int> owner(static_cast<size_t>(n), -1);
  Vector xp = x, xm = x, Gp(n), Gm(n), delta = Vector::Zero(n);
  std::vector<std::pair<double, JacobianCheck::Entry>> bad;
  for (int g = 0; g < groups; ++g) {
    const int colour = static_cast<int>(static_cast<long>(g) * colouring.colours / groups);
    const int* begin = colouring.group_columns.data() + colouring.group_start[colour];
    const int* end = colouring.group_columns.data() + colouring.group_start[colour + 1];
    double delta_min = std::numeric_limits<double>::infinity(), column_scale = 0.0;
    for (const int* p = begin; p != end; ++p) {
      const int j = *p;
      delta[j] = FiniteDifferenceJacobian::central_increment(x[j], 1e-3);
      xp[j] = x[j] + delta[j];
      xm[j] = x[j] - delta[j];
      delta_min = std::min(delta_min, delta[j]);
      for (SparseMatrix::InnerIterator it(P, j); it; ++it) {
        owner[it.row()] = j;
        column_scale = std::max(column_scale, std::abs(A.at(static_cast<int>(it.row()), j)));
      }
    }
    evaluations += 2;
    if (!G(xp, Gp) || !G(xm, Gm)) return false;
    for (int i = 0; i < n; ++i) {
      const int k = owner[i];
      const double step = k >= 0 ? delta[k] : delta_min;
      const double d = (Gp[i] - Gm[i]) / (2.0 * step);
      const double a = k >= 0 ? A.at(i, k) : 0.0;
      const double allowed = 1e-3 * std::max(std::abs(a), std::abs(d)) +
                             1e3 * eps * terms[i] / step + 1e-6 * column_scale;
      const double diff = std::abs(a - d);
      if (!(diff <= allowed)) bad.push_back({diff / std::max(allowed, 1e-300), {i, k, a, d}});
    }
    for (const int* p = begin; p != end; ++p) {
      xp[*p] = xm[*p] = x[*p];
      for (SparseMatrix::InnerIterator it(P, *p); it; ++it) owner[it.row()] = -1;
    }
  }
  std::sort(bad.begin(), bad.end(), [](const auto& u, const auto& v) { return u.first > v.first; });
  c.disagreeing = static_cast<long>(bad.size());
  for (size_t k = 0; k < bad.size() && k < 20; ++k) c.entries.push_back(bad[k].second);
  c.ok = bad.empty();
  return true;
}

JacobianCheck failed_check(CallGuard& guard) {
  JacobianCheck c;
  c.ok = false;
  c.message = guard_message(guard);
  c.callback_error = guard.fatal();
  return c;
}

}  // namespace

JacobianCheck check_jacobian(MassMatrixSystem& sys, double t, const Vector& y, int max_full_n) {
  JacobianCheck c;
  const MassMatrixDae& dae = sys.dae();
  if (!dae.jacobian && !dae.sparse_jacobian) return c;
  const int n = dae.n;
  const Stats saved = sys.stats();
  long evaluations = 1;
  Vector f0(n), delta;
  auto G = [&](const Vector& x, Vector& out) { return sys.f(t, x, out); };
  bool ok = sys.f(t, y, f0);
  if (n <= max_full_n) {
    Matrix A, D;
    ok = ok && dense_jacobian(sys, t, y, f0, A);
    evaluations += 2L * n;
    ok = ok && central_differences(G, y, D, delta);
    if (ok) c = compare(A, D, f0, y, delta);
  } else {
    StructuredMatrix<double> A;
    sys.allocate_jacobian(A);
    ok = ok && sys.jacobian(t, y, f0, A) &&
         check_by_groups(G, y, f0, A, sys.jacobian_structure(), c, evaluations);
  }
  sys.stats() = saved;
  sys.stats().nfev_check += evaluations;
  return ok ? c : failed_check(sys.guard());
}

JacobianCheck check_jacobian(ImplicitSystem& sys, double t, const Vector& y, const Vector& yp,
                             int max_full_n) {
  JacobianCheck c;
  if (sys.jacobian_by_differences()) return c;
  const int n = sys.n();
  const Stats saved = sys.stats();
  long evaluations = 1;
  Vector F0(n), delta, ypx(n);
  StructuredMatrix<double> EA(n, sys.iteration_structure());
  // G(x) = F(t, x, yp + (x - y)): its Jacobian is dF/dy + dF/dy' (c_j = 1)
  auto G = [&](const Vector& x, Vector& out) {
    ypx = yp + (x - y);
    return sys.F(t, x, ypx, out);
  };
  bool ok = sys.F(t, y, yp, F0) && sys.iteration_matrix(t, y, yp, 1.0, F0, nullptr, EA);
  if (n <= max_full_n) {
    Matrix D;
    evaluations += 2L * n;
    ok = ok && central_differences(G, y, D, delta);
    if (ok) c = compare(EA.to_dense(), D, F0, y, delta);
  } else {
    ok = ok && check_by_groups(G, y, F0, EA, sys.jacobian_structure(), c, evaluations);
  }
  sys.stats() = saved;
  sys.stats().nfev_check += evaluations;
  return ok ? c : failed_check(sys.guard());
}

JacobianCheck check_jacobian(const MassMatrixDae& dae, double t, const Vector& y) {
  dae.validate();
  if (y.size() != dae.n)
    throw InvalidArgument("check_jacobian: y has size " + std::to_string(y.size()) +
                          ", expected n = " + std::to_string(dae.n));
  CallGuard guard;
  Stats stats;
  MassMatrixSystem sys(dae, LinearSolverKind::Dense, guard, stats);
  return check_jacobian(sys, t, y, dae.n);
}

JacobianCheck check_jacobian(const ImplicitDae& dae, double t, const Vector& y, const Vector& yp) {
  dae.validate();
  if (y.size() != dae.n || yp.size() != dae.n)
    throw InvalidArgument("check_jacobian: y and yp must have size n = " + std::to_string(dae.n));
  CallGuard guard;
  Stats stats;
  ImplicitSystem sys(dae, LinearSolverKind::Dense, guard, stats);
  return check_jacobian(sys, t, y, yp, dae.n);
}

// ---------------------------------------------------------------------------------------------
// Consistent initial sensitivities (consistency.hpp)

namespace {

// Index 1: S += N C with (L^T J N) C = -L^T (J S + Jp), column by column.
bool linearised_algebraic_sensitivities(MassMatrixSystem& sys, double t0, const Vector& y0,
                                        const Vector& f0, Matrix& S, std::string& message) {
  Matrix N, L;
  if (kernels(sys.mass().to_dense(), N, L) == 0) return true;  // M nonsingular: nothing to do
  Matrix J;
  if (!dense_jacobian(sys, t0, y0, f0, J)) {
    message = "the Jacobian failed at t0: " + guard_message(sys.guard());
    return false;
  }
  Matrix Jp(sys.n(), sys.p().size());
  if (!sys.parameter_jacobian(t0, y0, f0, Jp)) {
    message = "df/dp failed at t0: " + guard_message(sys.guard());
    return false;
  }
  const Matrix A = L.transpose() * J * N;
  const Eigen::FullPivLU<Matrix> lu(A);
  if (!lu.isInvertible()) {
    message =
        "the algebraic equations' Jacobian L^T (df/dy) N is singular at t0: the initial "
        "sensitivities of the algebraic variables are not determined (not index 1?)";
    return false;
  }
  const Matrix rhs = -(L.transpose() * (J * S + Jp));
  S += N * lu.solve(rhs);
  return true;
}

// Index 2 and 3: central differences in p of the state's consistent initialization.
bool differenced_algebraic_sensitivities(MassMatrixSystem& sys, double t0, const Vector& y0,
                                         Matrix& S, std::string& message) {
  Matrix Sz = S;
  const InitOptions tight;  // iterates to the round-off level of the differenced constraints
  const std::vector<int> z = sys.mass().zero_columns();
  Vector& p = sys.p();
  for (Eigen::Index k = 0; k < p.size(); ++k) {
    const double pk = p[k];
    const double delta =
        std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(std::abs(pk), 1.0);
    p[k] = pk + delta;
    const InitResult plus = initialize(sys, t0, y0, tight);
    p[k] = pk - delta;
    const InitResult minus = initialize(sys, t0, y0, tight);
    p[k] = pk;
    if (!plus.ok || !minus.ok) {
      message = "the consistent initialization failed for p[" + std::to_string(k) + "] +- " +
                fmt(delta) + ": " + (plus.ok ? minus.message : plus.message);
      return false;
    }
    for (int i : z) Sz(i, k) = (plus.y[i] - minus.y[i]) / (2.0 * delta);
  }
  S = Sz;
  return true;
}

// True if S satisfies the linearised algebraic equations (zero rows A of M), f_A,y S + f_A,p = 0,
// to 1e-6 of the size of their terms, max_j |J_ij| max_j |S_jk| + |f_p,ik| (S given by the user,
// itself perhaps from differences: checked where the differences cannot make it).
bool satisfies_linearised_algebraic_equations(MassMatrixSystem& sys, double t0, const Vector& y0,
                                              const Vector& f0, const Matrix& S) {
  Matrix J, Jp(sys.n(), sys.p().size());
  if (!dense_jacobian(sys, t0, y0, f0, J) || !sys.parameter_jacobian(t0, y0, f0, Jp)) return false;
  for (int i : sys.mass().zero_rows()) {
    const Eigen::RowVectorXd r = J.row(i) * S + Jp.row(i);
    const Eigen::RowVectorXd scale =
        J.row(i).cwiseAbs().maxCoeff() * S.cwiseAbs().colwise().maxCoeff() + Jp.row(i).cwiseAbs();
    for (Eigen::Index k = 0; k < r.size(); ++k)
      if (std::abs(r[k]) > 1e-6 * scale[k] + 1e-300) return false;
  }
  return true;
}

}  // namespace

bool consistent_initial_sensitivities(MassMatrixSystem& sys, double t0, const Vector& y0,
                                      const Vector& f0, Matrix& S, std::string& message,
                                      std::string& warning) {
  if (sys.p().size() == 0) return true;
  if (sys.dae().max_index() >= 2 && !sys.mass().zero_rows().empty()) {
    std::string why;
    if (!differenced_algebraic_sensitivities(sys, t0, y0, S, why)) {
      if (sys.guard().fatal()) {
        message = why;
        return false;
      }
      sys.guard().clear_recoverable();
      if (S.cwiseAbs().maxCoeff() > 0.0 &&
          satisfies_linearised_algebraic_equations(sys, t0, y0, f0, S))
        return true;
      sys.guard().clear_recoverable();
      warning =
          "the initial sensitivities of the algebraic variables (index 2/3) were not made "
          "consistent (" +
          why +
          "): they are as given (Options::initial_sensitivities) in the output at t0; the "
          "Radau methods' later values do not depend on them";
    }
    return true;
  }
  return linearised_algebraic_sensitivities(sys, t0, y0, f0, S, message);
}

}  // namespace daekit
