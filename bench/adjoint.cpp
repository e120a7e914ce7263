// Adjoint gradients for many parameters (issue 25): a 1-D reaction-diffusion equation with a
// decay rate per cell,
//     u_i' = D (u_{i-1} - 2 u_i + u_{i+1}) / dx^2 - p_i u_i + s_i,   i = 0 .. n-1,
// u_{-1} = u_n = 0 (Dirichlet), dx = 1 / (n + 1), s a source on the left half, u(0) = 0,
// t in [0, T], and the functional G(p) = dx sum_i u_i(T) + integral_0^T dx sum_i u_i^2 dt.
// n = np = 100 by default; analytic f_y (tridiagonal, declared banded) and f_p (diagonal).
//
// Printed: the CPU time of a forward solve without sensitivities, of the adjoint gradient
// (forward + backward, np = 100) and of the forward-sensitivity gradient (np sensitivity
// systems), their ratios to the plain forward solve, and the agreement of the two gradients.
// CPU: median of repeated runs (bench/timing.hpp).
//
//   build/bench/daekit_adjoint [--n N] [--method radau5|bdf] [--tol TOL] [--time SECONDS]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "daekit/daekit.hpp"
#include "timing.hpp"

using namespace daekit;

namespace {

struct Heat {
  MassMatrixDae dae;
  double T = 0.5;
};

Heat reaction_diffusion(int n) {
  Heat h;
  MassMatrixDae& d = h.dae;
  d.n = n;
  d.name = "reaction-diffusion with a rate per cell";
  const double dx = 1.0 / (n + 1), c = 0.1 / (dx * dx);
  d.p = Vector(n);
  for (int i = 0; i < n; ++i) d.p[i] = 1.0 + 0.5 * std::sin(3.0 * i * dx);
  d.f = [n, c](double, VecIn u, VecOut f, VecIn p) {
    for (int i = 0; i < n; ++i) {
      const double left = i > 0 ? u[i - 1] : 0.0, right = i + 1 < n ? u[i + 1] : 0.0;
      f[i] = c * (left - 2.0 * u[i] + right) - p[i] * u[i] + (2 * i < n ? 1.0 : 0.0);
    }
  };
  d.jacobian_sparsity = Sparsity::banded(1, 1);
  d.sparse_jacobian = [n, c](double, VecIn, SparseMatrix& J, VecIn p) {
    for (int i = 0; i < n; ++i) {
      if (i > 0) J.coeffRef(i, i - 1) = c;
      J.coeffRef(i, i) = -2.0 * c - p[i];
      if (i + 1 < n) J.coeffRef(i, i + 1) = c;
    }
  };
  SparseMatrix diag(n, n);
  for (int i = 0; i < n; ++i) diag.insert(i, i) = 1.0;
  d.parameter_sparsity = Sparsity::sparse(diag);
  d.parameter_jacobian = [n](double, VecIn u, Matrix& Jp) {
    for (int i = 0; i < n; ++i) Jp(i, i) = -u[i];
  };
  return h;
}

AdjointFunctional heat_functional(int n) {
  const double dx = 1.0 / (n + 1);
  AdjointFunctional F;
  F.g = [dx](double, VecIn u) { return dx * u.sum(); };
  F.g_y = [dx](double, VecIn, VecOut out) { out.setConstant(dx); };
  F.g_p = [](double, VecIn, VecOut out) { out.setZero(); };
  F.q = [dx](double, VecIn u) { return dx * u.squaredNorm(); };
  F.q_y = [dx](double, VecIn u, VecOut out) { out = 2.0 * dx * u; };
  F.q_p = [](double, VecIn, VecOut out) { out.setZero(); };
  return F;
}

// The forward-sensitivity gradient: the problem with Q' = q as component n (its row of df/dp
// zero), G = dx sum u(T) + Q(T), dG/dp = (dx 1, 1)^T S(T).
Vector forward_sensitivity_gradient(const Heat& h, const std::string& method, const Options& o,
                                    long& steps) {
  const int n = h.dae.n;
  const double dx = 1.0 / (n + 1);
  MassMatrixDae a = h.dae;
  a.n = n + 1;
  const auto f = h.dae.f;
  a.f = [f, n, dx](double t, VecIn y, VecOut out, VecIn p) {
    f(t, y.head(n), out.head(n), p);
    out[n] = dx * y.head(n).squaredNorm();
  };
  a.jacobian_sparsity = Sparsity::dense();
  a.sparse_jacobian = nullptr;
  a.jacobian = [n, dx, c = 0.1 / (dx * dx)](double, VecIn y, MatOut Jo, VecIn p) {
    for (int i = 0; i < n; ++i) {
      if (i > 0) Jo(i, i - 1) = c;
      Jo(i, i) = -2.0 * c - p[i];
      if (i + 1 < n) Jo(i, i + 1) = c;
      Jo(n, i) = 2.0 * dx * y[i];
    }
  };
  SparseMatrix diag(n + 1, n);
  for (int i = 0; i < n; ++i) diag.insert(i, i) = 1.0;
  a.parameter_sparsity = Sparsity::sparse(diag);
  a.parameter_jacobian = [n](double, VecIn u, Matrix& Jp) {
    for (int i = 0; i < n; ++i) Jp(i, i) = -u[i];
  };
  Options so = o;
  so.sensitivities = true;
  const Result r = solve(a, 0.0, h.T, Vector::Zero(n + 1), method, so);
  if (!r.ok()) std::printf("forward sensitivities failed: %s\n", r.message.c_str());
  steps = r.stats.naccept;
  Vector c = Vector::Constant(n + 1, dx);
  c[n] = 1.0;
  return r.sensitivities.transpose() * c;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 100;
  std::string method = "radau5";
  double tol = 1e-8, min_time = 0.5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n"))
      n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--method"))
      method = argv[i + 1];
    else if (!std::strcmp(argv[i], "--tol"))
      tol = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--time"))
      min_time = std::atof(argv[i + 1]);
  }
  const Heat h = reaction_diffusion(n);
  Options o;
  o.rtol = tol;
  o.atol = tol;
  o.store_steps = false;
  const AdjointFunctional F = heat_functional(n);

  Result plain;
  const double t_forward = daekit_bench::median_cpu(
      [&] { plain = solve(h.dae, 0.0, h.T, Vector::Zero(n), method, o); }, min_time);
  AdjointResult adj;
  const double t_adjoint = daekit_bench::median_cpu(
      [&] { adj = adjoint_gradient(h.dae, 0.0, h.T, Vector::Zero(n), F, method, o); }, min_time);
  Vector fwd;
  long fwd_steps = 0;
  const double t_sens = daekit_bench::median_cpu(
      [&] { fwd = forward_sensitivity_gradient(h, method, o, fwd_steps); }, min_time);
  if (!plain.ok() || !adj.ok()) {
    std::printf("failed: %s / %s\n", plain.message.c_str(), adj.message.c_str());
    return 1;
  }
  const double rel = ((adj.gradient - fwd).cwiseAbs().array() / fwd.cwiseAbs().array()).maxCoeff();
  std::printf("reaction-diffusion, n = np = %d, t in [0, %g], %s, rtol = atol = %g\n", n, h.T,
              method.c_str(), tol);
  std::printf("%-34s %10s %8s %8s\n", "", "CPU [ms]", "ratio", "steps");
  std::printf("%-34s %10.3f %8.2f %8ld\n", "forward solve (no sensitivities)", 1e3 * t_forward, 1.0,
              plain.stats.naccept);
  std::printf("%-34s %10.3f %8.2f %8ld\n", "adjoint gradient (fwd + bwd)", 1e3 * t_adjoint,
              t_adjoint / t_forward, adj.forward_steps + adj.backward_steps);
  std::printf("%-34s %10.3f %8.2f %8ld\n", "forward-sensitivity gradient", 1e3 * t_sens,
              t_sens / t_forward, fwd_steps);
  std::printf("adjoint: %ld forward + %ld backward steps, peak %ld stored states, G = %.12g\n",
              adj.forward_steps, adj.backward_steps, adj.peak_stored_states, adj.value);
  std::printf("max relative difference adjoint vs forward-sensitivity gradient: %.2e\n", rel);
  std::printf("rerun: build/bench/daekit_adjoint --n %d --method %s --tol %g\n", n, method.c_str(),
              tol);
  return 0;
}
