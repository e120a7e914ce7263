#include "daekit/problem/initialization.hpp"

#include <Eigen/SVD>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "daekit/problem/finite_difference.hpp"

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

// Jacobian of F with respect to the unknowns u: column j is dF/dy_j (if by_y[j]) or dF/dy'_j.
void jacobian(const ImplicitDae& dae, double t, const Vector& y, const Vector& yp,
              const std::vector<bool>& by_y, Matrix& J) {
  const int n = dae.n;
  if (dae.dF_dy && dae.dF_dyp) {
    Matrix Jy = Matrix::Zero(n, n), Jyp = Matrix::Zero(n, n);
    dae.dF_dy(t, y, yp, Jy);
    dae.dF_dyp(t, y, yp, Jyp);
    for (int j = 0; j < n; ++j) J.col(j) = by_y[j] ? Jy.col(j) : Jyp.col(j);
    return;
  }
  const double eps = std::numeric_limits<double>::epsilon();
  Vector f0(n), f1(n), yy = y, yyp = yp;
  dae.F(t, y, yp, f0);
  for (int j = 0; j < n; ++j) {
    double& x = by_y[j] ? yy[j] : yyp[j];
    const double x0 = x;
    const double delta = std::sqrt(eps) * std::max(1.0, std::abs(x0));
    x = x0 + delta;
    dae.F(t, yy, yyp, f1);
    J.col(j) = (f1 - f0) / delta;
    x = x0;
  }
}

}  // namespace

InitResult initialize(const ImplicitDae& dae, double t0, const Vector& y0, const Vector& yp0,
                      InitMode mode, const InitOptions& options) {
  dae.validate();
  options.validate();
  const int n = dae.n;
  if (y0.size() != n || yp0.size() != n)
    throw InvalidArgument("initialize: y0 and yp0 must have size n = " + std::to_string(n));
  InitResult r;
  r.y = y0;
  r.yp = yp0;
  r.residual.resize(n);
  dae.F(t0, r.y, r.yp, r.residual);
  auto violated = [&]() {
    int worst = 0;
    for (int i = 1; i < n; ++i)
      if (!(std::abs(r.residual[i]) <= std::abs(r.residual[worst]))) worst = i;
    return worst;
  };
  auto norm = [](const Vector& v) { return v.allFinite() ? v.cwiseAbs().maxCoeff() : INFINITY; };
  if (mode == InitMode::CheckOnly) {
    r.ok = norm(r.residual) <= options.tol;
    if (!r.ok) {
      const int i = violated();
      r.message = "equation " + std::to_string(i) + " has residual " +
                  std::to_string(r.residual[i]) + " > tol";
    }
    return r;
  }
  // which unknowns: by_y[j] true -> y_j, false -> y'_j
  std::vector<bool> by_y(n, true);
  if (mode == InitMode::DifferentialGiven) {
    for (int j = 0; j < n; ++j) by_y[j] = !dae.differential.empty() && !dae.differential[j];
  }
  Matrix J(n, n);
  Vector trial_y(n), trial_yp(n), trial_res(n);
  for (int it = 0; it < options.max_iterations; ++it) {
    if (!r.residual.allFinite()) {
      r.message = "F is not finite at the current iterate";
      return r;
    }
    if (norm(r.residual) <= options.tol) {
      r.ok = true;
      r.iterations = it;
      return r;
    }
    jacobian(dae, t0, r.y, r.yp, by_y, J);
    Eigen::FullPivLU<Matrix> lu(J);
    if (!lu.isInvertible()) {
      // name an unknown that is not determined: a column in the kernel of J
      const Matrix kernel = lu.kernel();
      int j = 0;
      kernel.col(0).cwiseAbs().maxCoeff(&j);
      r.message = std::string("the Jacobian of F with respect to the unknowns is singular: ") +
                  (by_y[j] ? "y" : "y'") + "[" + std::to_string(j) +
                  "] is not determined by the equations (the DAE is not index 1, or the " +
                  "differential/algebraic tags are wrong)";
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
      dae.F(t0, trial_y, trial_yp, trial_res);
      if (trial_res.allFinite() && 0.5 * trial_res.squaredNorm() <= (1 - 1e-4 * lambda) * phi0) {
        accepted = true;
        break;
      }
      lambda *= 0.5;
    }
    if (!accepted) {
      r.message =
          "Newton with line search made no progress (|F| = " + std::to_string(norm(r.residual)) +
          ")";
      r.iterations = it;
      return r;
    }
    r.y = trial_y;
    r.yp = trial_yp;
    r.residual = trial_res;
  }
  r.ok = norm(r.residual) <= options.tol;
  r.iterations = options.max_iterations;
  if (!r.ok) r.message = "no convergence in max_iterations";
  return r;
}

InitResult initialize(const MassMatrixDae& dae, double t0, const Vector& y0,
                      const InitOptions& options) {
  dae.validate();
  options.validate();
  const int n = dae.n;
  if (y0.size() != n)
    throw InvalidArgument("initialize: y0 has size " + std::to_string(y0.size()) +
                          ", expected n = " + std::to_string(n));
  InitResult r;
  r.y = y0;
  Vector fv(n), yw(n), fw(n);
  auto finish = [&](bool ok, const std::string& message) {
    r.ok = ok;
    r.message = message;
    dae.f(t0, r.y, fv);
    r.yp = ok ? initial_derivative(dae, t0, r.y) : Vector::Zero(n);
    r.residual = (dae.has_identity_mass() ? r.yp : Vector(dae.mass * r.yp)) - fv;
    return r;
  };
  if (dae.has_identity_mass()) return finish(true, "");
  Eigen::JacobiSVD<Matrix> svd(dae.mass, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Vector& sv = svd.singularValues();
  int rank = 0;
  for (int i = 0; i < n; ++i)
    if (sv[i] > n * std::numeric_limits<double>::epsilon() * sv[0]) ++rank;
  const int m = n - rank;
  if (m == 0) return finish(true, "");
  const Matrix N = svd.matrixV().rightCols(m), L = svd.matrixU().rightCols(m);
  Matrix J(n, n), A(m, m);
  Vector g(m), dc(m);
  auto residual = [&](const Vector& y, Vector& out) {
    dae.f(t0, y, fv);
    out = L.transpose() * fv;
    return out.allFinite() ? out.norm() : std::numeric_limits<double>::infinity();
  };
  double gnorm = residual(r.y, g);
  for (r.iterations = 0; r.iterations < options.max_iterations; ++r.iterations) {
    if (!std::isfinite(gnorm)) return finish(false, "f is not finite at the initial values");
    if (g.cwiseAbs().maxCoeff() <= options.tol) return finish(true, "");
    J.setZero();
    if (dae.jacobian)
      dae.jacobian(t0, r.y, J);
    else
      forward_difference_jacobian(dae.f, t0, r.y, fv, J, yw, fw);
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
    Vector trial(n), gt(m);
    for (;;) {
      trial = r.y - lambda * (N * dc);
      const double tn = residual(trial, gt);
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

}  // namespace daekit
