#include "daekit/problem/mechanical_system.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

namespace daekit {

namespace {

std::string fmt(double x) {
  std::ostringstream os;
  os.precision(4);
  os << x;
  return os.str();
}

// Scratch storage shared by the closures of one formulation, so that evaluating f allocates
// nothing (the closures are therefore not safe to call concurrently).
struct Workspace {
  Matrix M, G;
  Vector f, g, tmp, tmp2;
  explicit Workspace(int nq, int m) : M(nq, nq), G(m, nq), f(nq), g(m), tmp(nq), tmp2(nq) {}
};

// The drift monitor's storage (MechanicalSystem::residuals without allocations).
struct MonitorWorkspace {
  Matrix G;
  Vector f, vdot, g, c, Gx;
  MonitorWorkspace(int nq, int m) : G(m, nq), f(nq), vdot(nq), g(m), c(m), Gx(m) {}
};

}  // namespace

void MechanicalSystem::validate() const {
  const std::string who = "mechanical system '" + name + "': ";
  if (nq <= 0) throw InvalidArgument(who + "nq must be positive");
  if (nlambda < 0 || nlambda > nq)
    throw InvalidArgument(who + "nlambda must lie in [0, nq], got " + std::to_string(nlambda));
  if (!mass) throw InvalidArgument(who + "mass matrix function not set");
  if (!force) throw InvalidArgument(who + "force function not set");
  if (nlambda > 0 && !g) throw InvalidArgument(who + "constraint function g not set");
}

void MechanicalSystem::eval_G(double t, VecIn q, MatOut G_out) const {
  if (G) {
    G(t, q, G_out);
    return;
  }
  // forward differences of g
  const double eps = std::numeric_limits<double>::epsilon();
  Vector qq = q, g0(nlambda), g1(nlambda);
  g(t, q, g0);
  for (int j = 0; j < nq; ++j) {
    const double delta = std::sqrt(eps * std::max(1e-5, std::abs(q[j])));
    qq[j] = q[j] + delta;
    g(t, qq, g1);
    G_out.col(j) = (g1 - g0) / delta;
    qq[j] = q[j];
  }
}

void MechanicalSystem::eval_curvature(double t, VecIn q, VecIn v, VecOut out) const {
  if (curvature) {
    curvature(t, q, v, out);
    return;
  }
  // central difference of q -> G(q) v along v: (G(q + e v) - G(q - e v)) v / (2 e)
  const double vn = v.cwiseAbs().maxCoeff();
  if (vn == 0.0) {
    out.setZero();
    return;
  }
  const double e = std::cbrt(std::numeric_limits<double>::epsilon()) *
                   std::max(1.0, q.cwiseAbs().maxCoeff()) / vn;
  Matrix Gp(nlambda, nq), Gm(nlambda, nq);
  const Vector qp = q + e * v, qm = q - e * v;
  eval_G(t, qp, Gp);
  eval_G(t, qm, Gm);
  out = (Gp - Gm) * v / (2 * e);
}

ConstraintResiduals MechanicalSystem::residuals(double t, VecIn q, VecIn v, VecIn vdot) const {
  ConstraintResiduals r;
  if (nlambda == 0) return r;
  Vector gv(nlambda), c(nlambda);
  Matrix Gm(nlambda, nq);
  g(t, q, gv);
  eval_G(t, q, Gm);
  eval_curvature(t, q, v, c);
  r.position = gv.cwiseAbs().maxCoeff();
  r.velocity = (Gm * v).cwiseAbs().maxCoeff();
  r.acceleration = (Gm * vdot + c).cwiseAbs().maxCoeff();
  return r;
}

AccelerationAndMultipliers consistent_acceleration(const MechanicalSystem& sys, double t,
                                                   const Vector& q, const Vector& v) {
  sys.validate();
  const int nq = sys.nq, m = sys.nlambda;
  Matrix M(nq, nq), G(m, nq);
  sys.mass(t, q, M);
  sys.eval_G(t, q, G);
  // Rank of G row by row: name the first constraint that depends on the previous ones.
  for (int k = 1; k <= m; ++k) {
    Eigen::FullPivLU<Matrix> lu(G.topRows(k));
    lu.setThreshold(1e-10);
    if (lu.rank() < k)
      throw InvalidArgument("mechanical system '" + sys.name + "': constraint Jacobian G is rank " +
                            "deficient at t0: row " + std::to_string(k - 1) + " (constraint " +
                            std::to_string(k - 1) + ") depends on the previous rows");
  }
  Vector f(nq), c(m);
  sys.force(t, q, v, f);
  sys.eval_curvature(t, q, v, c);
  Matrix K = Matrix::Zero(nq + m, nq + m);
  K.topLeftCorner(nq, nq) = M;
  K.topRightCorner(nq, m) = G.transpose();
  K.bottomLeftCorner(m, nq) = G;
  Vector rhs(nq + m);
  rhs << f, -c;
  Eigen::FullPivLU<Matrix> lu(K);
  if (!lu.isInvertible())
    throw InvalidArgument("mechanical system '" + sys.name +
                          "': the saddle-point matrix [M G^T; G 0] is singular at t0 (M singular "
                          "on the null space of G)");
  const Vector x = lu.solve(rhs);
  return {x.head(nq), x.tail(m)};
}

void check_consistent_positions(const MechanicalSystem& sys, double t, const Vector& q,
                                const Vector& v, double tol) {
  if (sys.nlambda == 0) return;
  Vector gv(sys.nlambda);
  Matrix G(sys.nlambda, sys.nq);
  sys.g(t, q, gv);
  sys.eval_G(t, q, G);
  const Vector Gv = G * v;
  for (int i = 0; i < sys.nlambda; ++i)
    if (!(std::abs(gv[i]) <= tol))
      throw InvalidArgument("mechanical system '" + sys.name + "': initial positions violate " +
                            "constraint " + std::to_string(i) + ": |g_" + std::to_string(i) +
                            "(q0)| = " + fmt(std::abs(gv[i])) + " > " + fmt(tol));
  for (int i = 0; i < sys.nlambda; ++i)
    if (!(std::abs(Gv[i]) <= tol))
      throw InvalidArgument("mechanical system '" + sys.name + "': initial velocities violate " +
                            "the velocity constraint " + std::to_string(i) + ": |(G(q0) v0)_" +
                            std::to_string(i) + "| = " + fmt(std::abs(Gv[i])) + " > " + fmt(tol));
}

ProjectionWorkspace::ProjectionWorkspace(int nq, int nlambda)
    : M(nq, nq),
      G(nlambda, nq),
      MinvGT(nq, nlambda),
      S(nlambda, nlambda),
      g(nlambda),
      mu(nlambda),
      dq(nq),
      llt(nq),
      lu(nlambda) {}

namespace {
// M(q), G(q), M^{-1} G^T and the LU of G M^{-1} G^T at q.
bool prepare_projection(const MechanicalSystem& sys, double t, VecIn q, ProjectionWorkspace& ws) {
  sys.mass(t, q, ws.M);
  ws.llt.compute(ws.M);
  if (ws.llt.info() != Eigen::Success) return false;
  sys.eval_G(t, q, ws.G);
  ws.MinvGT = ws.G.transpose();
  ws.llt.solveInPlace(ws.MinvGT);
  ws.S.noalias() = ws.G * ws.MinvGT;
  ws.lu.compute(ws.S);
  return ws.S.allFinite();
}
}  // namespace

bool project_mechanical(const MechanicalSystem& sys, double t, VecOut q, VecOut v, Projection level,
                        ProjectionWorkspace& ws) {
  if (level == Projection::None || sys.nlambda == 0) return true;
  if (!prepare_projection(sys, t, q, ws)) return false;
  if (level == Projection::Full) {
    const double eps = std::numeric_limits<double>::epsilon();
    bool converged = false;
    for (int it = 0; it < 10 && !converged; ++it) {
      sys.g(t, q, ws.g);
      ws.mu = ws.lu.solve(ws.g);
      ws.dq.noalias() = ws.MinvGT * ws.mu;
      q -= ws.dq;
      const double dq = ws.dq.cwiseAbs().maxCoeff();
      converged = dq <= 4 * eps * std::max(1.0, q.cwiseAbs().maxCoeff());
      if (!std::isfinite(dq)) return false;
    }
    if (!converged) {
      sys.g(t, q, ws.g);  // accept a tiny remaining residual, reject anything else
      if (!(ws.g.cwiseAbs().maxCoeff() <= 1e-12)) return false;
    }
    if (!prepare_projection(sys, t, q, ws)) return false;
  }
  ws.g.noalias() = ws.G * v;
  ws.mu = ws.lu.solve(ws.g);
  v.noalias() -= ws.MinvGT * ws.mu;
  return v.allFinite() && q.allFinite();
}

const char* to_string(Formulation f) {
  switch (f) {
    case Formulation::Index3:
      return "index3";
    case Formulation::Index2:
      return "index2";
    case Formulation::Index1:
      return "index1";
    case Formulation::GGL:
      return "ggl";
  }
  return "unknown";
}

Formulation parse_formulation(const std::string& name) {
  for (Formulation f :
       {Formulation::Index3, Formulation::Index2, Formulation::Index1, Formulation::GGL})
    if (name == to_string(f)) return f;
  throw InvalidArgument("unknown formulation '" + name + "'; choose index3, index2, index1 or ggl");
}

MechanicalLayout mechanical_layout(const MechanicalSystem& sys, Formulation form) {
  MechanicalLayout l;
  l.nq = sys.nq;
  l.m = sys.nlambda;
  l.q = 0;
  l.v = sys.nq;
  l.w = sys.constant_mass ? -1 : 2 * sys.nq;
  l.lambda = (sys.constant_mass ? 2 : 3) * sys.nq;
  l.mu = form == Formulation::GGL ? l.lambda + l.m : -1;
  l.n = l.lambda + l.m + (form == Formulation::GGL ? l.m : 0);
  return l;
}

namespace {

// Index tags (Hairer-Wanner II, VII.6) of the blocks per formulation.
struct Tags {
  int q, v, w, lambda, mu;
};
Tags tags_of(Formulation form) {
  switch (form) {
    case Formulation::Index3:
      return {1, 2, 3, 3, 0};
    case Formulation::Index2:
      return {1, 1, 2, 2, 0};
    case Formulation::Index1:
      return {1, 1, 1, 1, 0};
    case Formulation::GGL:
      return {1, 1, 2, 2, 2};
  }
  return {1, 1, 1, 1, 1};
}

}  // namespace

MassMatrixDae formulate(const MechanicalSystem& sys, Formulation form) {
  sys.validate();
  const MechanicalLayout L = mechanical_layout(sys, form);
  const int nq = L.nq, m = L.m;
  auto ws = std::make_shared<Workspace>(nq, m);
  MassMatrixDae dae;
  dae.name = sys.name + " (" + to_string(form) + ")";
  dae.n = L.n;
  dae.mass = Matrix::Zero(L.n, L.n);
  dae.mass.block(L.q, L.q, nq, nq).setIdentity();
  std::shared_ptr<Eigen::PartialPivLU<Matrix>> Minv;  // constant mass only
  if (sys.constant_mass) {
    Matrix Mc(nq, nq);
    sys.mass(0.0, Vector::Zero(nq), Mc);
    dae.mass.block(L.v, L.v, nq, nq) = Mc;
    Minv = std::make_shared<Eigen::PartialPivLU<Matrix>>(Mc);
  } else {
    dae.mass.block(L.v, L.v, nq, nq).setIdentity();
  }
  const Tags tg = tags_of(form);
  dae.index.assign(L.n, 1);
  auto tag = [&](int start, int count, int value) {
    for (int i = start; i < start + count; ++i) dae.index[i] = value;
  };
  tag(L.q, nq, tg.q);
  tag(L.v, nq, tg.v);
  if (L.w >= 0) tag(L.w, nq, tg.w);
  tag(L.lambda, m, tg.lambda);
  if (L.mu >= 0) tag(L.mu, m, tg.mu);

  dae.f = [sys, ws, Minv, L, form](double t, VecIn y, VecOut out) {
    const int nq = L.nq, m = L.m;
    auto q = y.segment(L.q, nq);
    auto v = y.segment(L.v, nq);
    auto lambda = y.segment(L.lambda, m);
    sys.force(t, q, v, ws->f);
    sys.eval_G(t, q, ws->G);
    // kinematics q' = v  (GGL: q' = v - G^T mu)
    out.segment(L.q, nq) = v;
    if (form == Formulation::GGL)
      out.segment(L.q, nq).noalias() -= ws->G.transpose() * y.segment(L.mu, m);
    // dynamics
    if (L.w < 0) {  // M v' = f - G^T lambda
      out.segment(L.v, nq) = ws->f;
      out.segment(L.v, nq).noalias() -= ws->G.transpose() * lambda;
    } else {  // v' = w,  0 = M(q) w - f + G^T lambda
      auto w = y.segment(L.w, nq);
      out.segment(L.v, nq) = w;
      sys.mass(t, q, ws->M);
      out.segment(L.w, nq).noalias() = ws->M * w;
      out.segment(L.w, nq) -= ws->f;
      out.segment(L.w, nq).noalias() += ws->G.transpose() * lambda;
    }
    // constraints
    auto c = out.segment(L.lambda, m);
    switch (form) {
      case Formulation::Index3:
      case Formulation::GGL:
        sys.g(t, q, ws->g);
        c = ws->g;
        break;
      case Formulation::Index2:
        c.noalias() = ws->G * v;
        break;
      case Formulation::Index1:
        sys.eval_curvature(t, q, v, ws->g);
        if (L.w >= 0) {
          c.noalias() = ws->G * y.segment(L.w, nq);
        } else {  // v' = M^{-1} (f - G^T lambda)
          ws->tmp = ws->f;
          ws->tmp.noalias() -= ws->G.transpose() * lambda;
          ws->tmp2 = Minv->solve(ws->tmp);  // not in place: that would allocate
          c.noalias() = ws->G * ws->tmp2;
        }
        c += ws->g;
        break;
    }
    if (form == Formulation::GGL) out.segment(L.mu, m).noalias() = ws->G * v;
  };

  // drift monitor d1, d2, d3 after every accepted step: preallocated (the step loop allocates
  // nothing when g, G and the curvature are analytic)
  auto mws = std::make_shared<MonitorWorkspace>(nq, m);
  dae.constraint_monitor = [sys, Minv, L, mws](double t, VecIn y) {
    const int nq = L.nq, m = L.m;
    MonitorWorkspace& w = *mws;
    auto q = y.segment(L.q, nq);
    auto v = y.segment(L.v, nq);
    sys.eval_G(t, q, w.G);
    if (L.w >= 0) {
      w.vdot = y.segment(L.w, nq);
    } else {
      sys.force(t, q, v, w.f);
      w.f.noalias() -= w.G.transpose() * y.segment(L.lambda, m);
      w.vdot = Minv->solve(w.f);
    }
    ConstraintResiduals r;
    if (m == 0) return r;
    sys.g(t, q, w.g);
    sys.eval_curvature(t, q, v, w.c);
    r.position = w.g.cwiseAbs().maxCoeff();
    w.Gx.noalias() = w.G * v;
    r.velocity = w.Gx.cwiseAbs().maxCoeff();
    w.Gx.noalias() = w.G * w.vdot;
    w.Gx += w.c;
    r.acceleration = w.Gx.cwiseAbs().maxCoeff();
    return r;
  };
  auto pws = std::make_shared<ProjectionWorkspace>(nq, m);
  dae.project = [sys, pws, L](double t, VecOut y, Projection level) {
    return project_mechanical(sys, t, y.segment(L.q, L.nq), y.segment(L.v, L.nq), level, *pws);
  };
  return dae;
}

Vector initial_values(const MechanicalSystem& sys, Formulation form, double t0, const Vector& q0,
                      const Vector& v0, bool project_velocities) {
  sys.validate();
  if (q0.size() != sys.nq || v0.size() != sys.nq)
    throw InvalidArgument("mechanical system '" + sys.name +
                          "': q0 and v0 must have size nq = " + std::to_string(sys.nq));
  Vector v = v0;
  if (project_velocities && sys.nlambda > 0) {
    ProjectionWorkspace ws(sys.nq, sys.nlambda);
    Vector q = q0;
    if (!project_mechanical(sys, t0, q, v, Projection::Velocity, ws))
      throw InvalidArgument("mechanical system '" + sys.name +
                            "': projecting v0 onto G(q0) v = 0 failed");
  }
  const AccelerationAndMultipliers a = consistent_acceleration(sys, t0, q0, v);
  const MechanicalLayout L = mechanical_layout(sys, form);
  Vector y = Vector::Zero(L.n);
  y.segment(L.q, sys.nq) = q0;
  y.segment(L.v, sys.nq) = v;
  if (L.w >= 0) y.segment(L.w, sys.nq) = a.w;
  y.segment(L.lambda, sys.nlambda) = a.lambda;
  return y;  // GGL: mu = 0 on the exact solution
}

MassMatrixDae index3_form(const MechanicalSystem& sys) {
  return formulate(sys, Formulation::Index3);
}

Vector index3_initial_values(const MechanicalSystem& sys, double t0, const Vector& q0,
                             const Vector& v0) {
  return initial_values(sys, Formulation::Index3, t0, q0, v0);
}

}  // namespace daekit
