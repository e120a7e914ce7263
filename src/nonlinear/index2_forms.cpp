// The public services of nonlinear/index2.hpp: consistent multipliers and the check of initial
// values of an ImplicitIndex2Dae (through Index2System), and the Hessenberg index-2 form of a
// mechanical system.
#include <memory>

#include "daekit/nonlinear/formulations.hpp"
#include "daekit/nonlinear/index2.hpp"
#include "nonlinear/index2_system.hpp"

namespace daekit {

Vector consistent_algebraic(const ImplicitIndex2Dae& dae, double t0, const Vector& y0,
                            const Vector& z_guess) {
  if (y0.size() != dae.n || z_guess.size() != dae.m)
    throw InvalidArgument("consistent_algebraic: y0 and z_guess must have sizes n = " +
                          std::to_string(dae.n) + " and m = " + std::to_string(dae.m));
  CallGuard guard;
  Stats stats;
  Index2System sys(dae, guard, stats);
  Vector z = z_guess;
  std::string message;
  if (!sys.consistent_z(t0, y0, z, message))
    throw InvalidArgument("consistent_algebraic for problem '" + dae.name + "': " + message);
  return z;
}

std::string check_initial_values(const ImplicitIndex2Dae& dae, double t0, const Vector& x0,
                                 double tol) {
  if (x0.size() != dae.n + dae.m)
    throw InvalidArgument("check_initial_values: x0 must have size n + m = " +
                          std::to_string(dae.n + dae.m));
  CallGuard guard;
  Stats stats;
  Index2System sys(dae, guard, stats);
  std::string message = sys.check_index(t0, x0);
  if (message.empty()) message = sys.check_consistency(t0, x0, tol);
  if (message.empty() && guard.failure().kind != CallbackFailure::Kind::None)
    message = guard.failure().describe();
  return message;
}

namespace {

// Scratch storage of the mechanical parts (captured by value: each copy of the problem has its
// own).
struct MechanicalWork {
  // llt computed once on I: Eigen's LLT leaves its info field unset until compute(), and the
  // copies of the problem copy it (UBSan: load of an invalid enum value)
  MechanicalWork(int nq, int m)
      : M(nq, nq), G(m, nq), f(nq), g(m), rhs(nq), llt(Matrix::Identity(nq, nq)) {}
  Matrix M, G;
  Vector f, g, rhs;
  Eigen::LLT<Matrix> llt;
};

}  // namespace

ImplicitIndex2Dae index2_form(const MechanicalSystem& sys) {
  sys.validate();
  const int nq = sys.nq, m = sys.nlambda;
  if (m == 0)
    throw InvalidArgument("index2_form: mechanical system '" + sys.name + "' has no constraints");
  ImplicitIndex2Dae dae;
  dae.name = sys.name + " (index-2 form)";
  dae.n = 2 * nq;
  dae.m = m;
  dae.p = sys.p;
  std::shared_ptr<const Eigen::LLT<Matrix>> constant;
  if (sys.constant_mass) {
    Matrix M(nq, nq);
    sys.mass(0.0, Vector::Zero(nq), M, sys.p);
    constant = std::make_shared<const Eigen::LLT<Matrix>>(M);
  }
  // M(q), f and G at (t, q, v): one call of `terms` when the model has it
  auto evaluate = [sys, constant](MechanicalWork& w, double t, VecIn q, VecIn v, VecIn p,
                                  bool need_f, bool need_G) {
    if (sys.terms) {
      sys.terms(t, q, v, w.M, w.f, w.g, w.G, p);
    } else {
      if (!constant) sys.mass(t, q, w.M, p);
      if (need_f) sys.force(t, q, v, w.f, p);
      if (need_G) constraint_jacobian(sys, t, q, w.G, p);
    }
    if (!constant) w.llt.compute(w.M);
  };
  auto solve = [constant](MechanicalWork& w, VecOut x) {
    x = constant ? constant->solve(w.rhs) : w.llt.solve(w.rhs);
  };
  dae.f[0] = [evaluate, solve, w = MechanicalWork(nq, m), nq](double t, VecIn y, VecIn, VecOut out,
                                                              VecIn p) mutable {
    auto q = y.head(nq);
    auto v = y.tail(nq);
    evaluate(w, t, q, v, p, true, false);
    out.head(nq) = v;
    w.rhs = w.f;
    solve(w, out.tail(nq));
  };
  dae.f[1] = [evaluate, solve, w = MechanicalWork(nq, m), nq](double t, VecIn y, VecIn z,
                                                              VecOut out, VecIn p) mutable {
    evaluate(w, t, y.head(nq), y.tail(nq), p, false, true);
    out.head(nq).setZero();
    w.rhs.noalias() = -(w.G.transpose() * z);
    solve(w, out.tail(nq));
  };
  dae.g = [sys, G = Matrix(m, nq), nq](double t, VecIn y, VecOut out, VecIn p) mutable {
    constraint_jacobian(sys, t, y.head(nq), G, p);
    out.noalias() = G * y.tail(nq);
  };
  return dae;
}

Vector index2_initial_values(const MechanicalSystem& sys, double t0, const Vector& q0,
                             const Vector& v0) {
  check_consistent_positions(sys, t0, q0, v0, 1e-10);
  const AccelerationAndMultipliers a = consistent_acceleration(sys, t0, q0, v0);
  Vector x(2 * sys.nq + sys.nlambda);
  x << q0, v0, a.lambda;
  return x;
}

}  // namespace daekit
