// Euler-Lagrange equations from the kinetic energy (nonlinear/lagrange.hpp).
#include "daekit/nonlinear/lagrange.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace daekit {

void LagrangeModel::validate() const {
  auto who = [this] { return std::string("Lagrange model '") + name + "': "; };
  if (nq <= 0) throw InvalidArgument(who() + "nq must be positive");
  if (!mass) throw InvalidArgument(who() + "the mass matrix M(t, q) is not set");
  if (!p.allFinite()) throw InvalidArgument(who() + "the parameters p contain NaN or Inf");
}

namespace {

// Scratch storage of the differences (owned by the closure: no allocation per evaluation).
struct QuadraticWorkspace {
  Matrix Mp, Mm;
  Vector qq, Mv;
  explicit QuadraticWorkspace(int nq) : Mp(nq, nq), Mm(nq, nq), qq(nq), Mv(nq) {}
};

double central_increment(double x) {
  return std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(x));
}

// k = (M'(q)[v]) v - 1/2 grad_q (v^T M(q) v) by central differences of M.
void differenced_quadratic_terms(const LagrangeModel& model, double t, VecIn q, VecIn v, VecOut k,
                                 VecIn p, QuadraticWorkspace& w) {
  const int nq = model.nq;
  const double vmax = v.cwiseAbs().maxCoeff();
  if (vmax == 0.0) {
    k.setZero();
    return;
  }
  // directional derivative of M along v, applied to v
  const double e = central_increment(q.cwiseAbs().maxCoeff()) / vmax;
  w.qq = q + e * v;
  w.Mp.setZero();
  model.mass(t, w.qq, w.Mp, p);
  w.qq = q - e * v;
  w.Mm.setZero();
  model.mass(t, w.qq, w.Mm, p);
  w.Mp -= w.Mm;
  k.noalias() = w.Mp * v;
  k /= 2 * e;
  // 1/2 v^T (dM/dq_j) v
  w.qq = q;
  for (int j = 0; j < nq; ++j) {
    const double h = central_increment(q[j]);
    w.qq[j] = q[j] + h;
    w.Mp.setZero();
    model.mass(t, w.qq, w.Mp, p);
    w.qq[j] = q[j] - h;
    w.Mm.setZero();
    model.mass(t, w.qq, w.Mm, p);
    w.qq[j] = q[j];
    w.Mp -= w.Mm;
    w.Mv.noalias() = w.Mp * v;
    k[j] -= 0.5 * v.dot(w.Mv) / (2 * h);
  }
}

}  // namespace

void quadratic_velocity_terms(const LagrangeModel& model, double t, VecIn q, VecIn v, VecOut k,
                              VecIn p) {
  if (model.quadratic_velocity) {
    model.quadratic_velocity(t, q, v, k, p);
    return;
  }
  QuadraticWorkspace w(model.nq);
  differenced_quadratic_terms(model, t, q, v, k, p, w);
}

MechanicalSystem mechanical_system(const LagrangeModel& model) {
  model.validate();
  MechanicalSystem sys;
  sys.nq = model.nq;
  sys.nlambda = 0;
  sys.name = model.name;
  sys.p = model.p;
  sys.constant_mass = false;
  sys.mass = [mass = model.mass](double t, VecIn q, MatOut M, VecIn p) {
    M.setZero();
    mass(t, q, M, p);
  };
  // f = Q - dV/dq - k(q, v)
  sys.force = [model, w = QuadraticWorkspace(model.nq), grad = Vector(model.nq)](
                  double t, VecIn q, VecIn v, VecOut f, VecIn p) mutable {
    if (model.quadratic_velocity)
      model.quadratic_velocity(t, q, v, f, p);
    else
      differenced_quadratic_terms(model, t, q, v, f, p, w);
    f = -f;
    if (model.applied_force) {
      model.applied_force(t, q, v, grad, p);
      f += grad;
    }
    if (model.potential_gradient) {
      model.potential_gradient(t, q, grad, p);
      f -= grad;
    }
  };
  return sys;
}

}  // namespace daekit
