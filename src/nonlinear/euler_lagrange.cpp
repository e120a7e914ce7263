// Euler-Lagrange index-2 DAEs: mass-matrix form, adaptors, consistent multipliers
// (nonlinear/euler_lagrange.hpp).
#include "daekit/nonlinear/euler_lagrange.hpp"

#include <cmath>

#include "core/format.hpp"
#include "core/guard.hpp"
#include "daekit/nonlinear/formulations.hpp"
#include "nonlinear/euler_lagrange_system.hpp"

namespace daekit {

namespace {

std::string fmt(double x) { return format_number(x, 4); }

}  // namespace

MassMatrixDae to_mass_matrix_form(const EulerLagrangeDae& el) {
  el.validate();
  const int nx = el.nx, m = el.nlambda, n = nx + m;
  MassMatrixDae d;
  d.n = n;
  d.name = el.name;
  d.p = el.p;
  d.component_names = el.component_names;
  d.mass = Matrix::Identity(n, n);
  for (int j = nx; j < n; ++j) d.mass(j, j) = 0.0;
  d.index.assign(static_cast<size_t>(n), 1);
  for (int j = nx; j < n; ++j) d.index[static_cast<size_t>(j)] = 2;
  // scratch storage by value: the solver's copy of the problem has its own
  d.f = [el, nx, m, Bm = Matrix(m, nx)](double t, VecIn y, VecOut out, VecIn p) mutable {
    const auto x = y.head(nx);
    el.f(t, x, out.head(nx), p);
    if (m == 0) return;
    Bm.setZero();
    if (el.B)
      el.B(t, x, Bm, p);
    else
      el.G(t, x, Bm, p);
    out.head(nx).noalias() -= Bm.transpose() * y.tail(m);
    el.g(t, x, out.tail(m), p);
  };
  if (el.monitor) {
    d.constraint_monitor = [el](double t, VecIn y, VecIn p) {
      return el.monitor(t, y.head(el.nx), p);
    };
  } else if (m > 0) {
    d.constraint_monitor = [el, g = Vector(m)](double t, VecIn y, VecIn p) mutable {
      el.g(t, y.head(el.nx), g, p);
      ConstraintResiduals r;
      r.position = g.cwiseAbs().maxCoeff();
      return r;
    };
  }
  return d;
}

EulerLagrangeDae euler_lagrange_form(const MechanicalSystem& sys) {
  sys.validate();
  if (sys.rheonomic)
    throw InvalidArgument("euler_lagrange_form: mechanical system '" + sys.name +
                          "' has rheonomic constraints (G v + g_t = 0 is not of the form "
                          "0 = g(x)); use formulate()");
  const int nq = sys.nq, m = sys.nlambda;
  EulerLagrangeDae el;
  el.nx = 2 * nq;
  el.nlambda = m;
  el.name = sys.name + " (velocity-level Euler-Lagrange form)";
  el.p = sys.p;
  for (const char* prefix : {"q", "v", "lambda"})
    for (int i = 0; i < (prefix[0] == 'l' ? m : nq); ++i) {
      std::string name = prefix;
      name += std::to_string(i + 1);
      el.component_names.push_back(std::move(name));
    }
  // x' = (v, M^{-1} f): the mass matrix factored per call (or once when constant)
  struct MassWork {
    Matrix M;
    Eigen::LLT<Matrix> llt{
        Matrix::Identity(1, 1)};  // info set before any copy (see formulations.cpp)
    bool factored = false;
  };
  auto factor = [sys](MassWork& w, double t, VecIn q, VecIn p) {
    if (w.factored && sys.constant_mass) return;
    w.M.setZero();
    sys.mass(t, q, w.M, p);
    w.llt.compute(w.M);
    if (w.llt.info() != Eigen::Success)
      throw std::runtime_error("the mass matrix M(q) is not positive definite at t = " + fmt(t));
    w.factored = true;
  };
  el.f = [sys, nq, factor, w = MassWork{Matrix(nq, nq), {}, false}](double t, VecIn x, VecOut out,
                                                                    VecIn p) mutable {
    const auto q = x.head(nq);
    const auto v = x.tail(nq);
    out.head(nq) = v;
    sys.force(t, q, v, out.tail(nq), p);
    factor(w, t, q, p);
    w.llt.solveInPlace(out.tail(nq));
  };
  if (m > 0) {
    el.g = [sys, G = Matrix(m, nq)](double t, VecIn x, VecOut out, VecIn p) mutable {
      constraint_jacobian(sys, t, x.head(sys.nq), G, p);
      out.noalias() = G * x.tail(sys.nq);
    };
    // B = (0, G M^{-1}) (M symmetric), so that B^T lambda = (0, M^{-1} G^T lambda)
    el.B = [sys, factor, G = Matrix(m, nq), w = MassWork{Matrix(nq, nq), {}, false}](
               double t, VecIn x, MatOut out, VecIn p) mutable {
      const auto q = x.head(sys.nq);
      constraint_jacobian(sys, t, q, G, p);
      factor(w, t, q, p);
      out.leftCols(sys.nq).setZero();
      out.rightCols(sys.nq) = w.llt.solve(G.transpose()).transpose();
    };
    el.monitor = [sys, g = Vector(m), G = Matrix(m, nq)](double t, VecIn x, VecIn p) mutable {
      const auto q = x.head(sys.nq);
      sys.g(t, q, g, p);
      constraint_jacobian(sys, t, q, G, p);
      ConstraintResiduals r;
      r.position = g.cwiseAbs().maxCoeff();
      r.velocity = (G * x.tail(sys.nq)).cwiseAbs().maxCoeff();
      return r;
    };
  }
  return el;
}

Vector euler_lagrange_state(const MechanicalSystem& sys, double t0, const Vector& q0,
                            const Vector& v0, double tol) {
  if (q0.size() != sys.nq || v0.size() != sys.nq)
    throw InvalidArgument("euler_lagrange_state: q0 and v0 must have size nq = " +
                          std::to_string(sys.nq));
  check_consistent_positions(sys, t0, q0, v0, tol);
  Vector x(2 * sys.nq);
  x << q0, v0;
  return x;
}

EulerLagrangeDae euler_lagrange_form(const SemiExplicitDae& dae, double t0, const Vector& y0) {
  dae.validate();
  if (dae.algebraic_index != 2)
    throw InvalidArgument(
        "euler_lagrange_form: problem '" + dae.name +
        "' is not of index 2 (algebraic_index = " + std::to_string(dae.algebraic_index) + ")");
  const int ny = dae.ny, nz = dae.nz;
  if (y0.size() != ny)
    throw InvalidArgument("euler_lagrange_form: y0 must have size ny = " + std::to_string(ny));
  // the structure at (t0, y0): f(y, z) - f(y, 0) linear in z, g independent of z
  {
    Vector f0(ny), f1(ny), f2(ny), g0(nz), g1(nz);
    const Vector z0 = Vector::Zero(nz);
    Vector z1(nz);
    for (int j = 0; j < nz; ++j) z1[j] = j % 2 ? -0.7 : 1.0;
    dae.f(t0, y0, z0, f0, dae.p);
    dae.f(t0, y0, z1, f1, dae.p);
    dae.f(t0, y0, 2.0 * z1, f2, dae.p);
    dae.g(t0, y0, z0, g0, dae.p);
    dae.g(t0, y0, z1, g1, dae.p);
    const double scale = std::max(
        {f0.cwiseAbs().maxCoeff(), f1.cwiseAbs().maxCoeff(), f2.cwiseAbs().maxCoeff(), 1e-300});
    if ((f2 - 2.0 * f1 + f0).cwiseAbs().maxCoeff() > 1e-9 * scale)
      throw InvalidArgument("euler_lagrange_form: f of '" + dae.name +
                            "' is not affine in z at (t0, y0): not an Euler-Lagrange DAE "
                            "y' = f0(t, y) - B(t, y)^T z");
    if ((g1 - g0).cwiseAbs().maxCoeff() > 1e-12 * std::max(1.0, g0.cwiseAbs().maxCoeff()))
      throw InvalidArgument("euler_lagrange_form: g of '" + dae.name + "' depends on z");
  }
  EulerLagrangeDae el;
  el.nx = ny;
  el.nlambda = nz;
  el.name = dae.name;
  el.p = dae.p;
  el.f = [dae, z = Vector(Vector::Zero(nz))](double t, VecIn x, VecOut out, VecIn p) {
    dae.f(t, x, z, out, p);
  };
  el.g = [dae, z = Vector(Vector::Zero(nz))](double t, VecIn x, VecOut out, VecIn p) {
    dae.g(t, x, z, out, p);
  };
  // B^T e_j = f(t, x, 0) - f(t, x, e_j) (exact for f affine in z)
  el.B = [dae, f0 = Vector(ny), f1 = Vector(ny), z = Vector(nz)](double t, VecIn x, MatOut out,
                                                                 VecIn p) mutable {
    z.setZero();
    dae.f(t, x, z, f0, p);
    for (int j = 0; j < z.size(); ++j) {
      z.setZero();
      z[j] = 1.0;
      dae.f(t, x, z, f1, p);
      out.row(j) = (f0 - f1).transpose();
    }
  };
  return el;
}

Vector consistent_multipliers(const EulerLagrangeDae& el, double t, const Vector& x) {
  el.validate();
  if (x.size() != el.nx)
    throw InvalidArgument("consistent_multipliers: x must have size nx = " + std::to_string(el.nx));
  if (el.nlambda == 0) return Vector();
  const MassMatrixDae d = to_mass_matrix_form(el);
  CallGuard guard;
  Stats stats;
  MassMatrixSystem sys(d, LinearSolverKind::Dense, guard, stats);
  EulerLagrangeSystem els(sys);
  Vector y = Vector::Zero(el.n());
  y.head(el.nx) = x;
  std::string message;
  if (!els.make_multipliers_consistent(t, y, message))
    throw InvalidArgument("consistent_multipliers of '" + el.name + "': " + message);
  return y.tail(el.nlambda);
}

Vector initial_values(const EulerLagrangeDae& el, double t0, const Vector& x0, double tol) {
  el.validate();
  if (x0.size() != el.nx)
    throw InvalidArgument("initial_values: x0 must have size nx = " + std::to_string(el.nx));
  Vector y(el.n());
  y.head(el.nx) = x0;
  if (el.nlambda > 0) {
    Vector g(el.nlambda);
    el.g(t0, x0, g, el.p);
    int worst = 0;
    if (g.cwiseAbs().maxCoeff(&worst) > tol)
      throw InvalidArgument("initial_values: constraint " + std::to_string(worst) + " of '" +
                            el.name + "' is violated at t0 by " + fmt(std::abs(g[worst])) + " > " +
                            fmt(tol));
    y.tail(el.nlambda) = consistent_multipliers(el, t0, x0);
  }
  return y;
}

}  // namespace daekit
