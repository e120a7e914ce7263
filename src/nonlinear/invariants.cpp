#include "daekit/nonlinear/invariants.hpp"

#include <cmath>
#include <string>

#include "nonlinear/finite_difference.hpp"

namespace daekit {

namespace {

// c, C = dc/dy, D and the factored C D at one point, with storage allocated once.
class InvariantGeometry {
 public:
  explicit InvariantGeometry(const OdeWithInvariants& ode)
      : ode_(ode),
        k_(ode.invariants.k),
        c_(k_),
        c1_(k_),
        yy_(ode.n),
        C_(k_, ode.n),
        D_(ode.n, k_),
        CD_(k_, k_),
        lu_(k_),
        w_(k_) {}

  // Evaluates c, C and D at (t, y) and factors C D; false if C D is singular.
  bool evaluate(double t, VecIn y) {
    ode_.invariants.c(t, y, c_);
    constraint_jacobian(t, y);
    if (ode_.d) {
      D_.setZero();
      ode_.d(t, y, D_);
    } else {
      D_ = C_.transpose();
    }
    CD_.noalias() = C_ * D_;
    lu_.compute(CD_);
    const double det = lu_.determinant();  // (PartialPivLU: no rank test of its own)
    return std::isfinite(det) && std::abs(det) > 1e-300;
  }

  const Vector& c() const { return c_; }
  const Matrix& C() const { return C_; }
  const Matrix& D() const { return D_; }
  // out = F v = D (C D)^{-1} v.
  void apply_F(const Vector& v, VecOut out) {
    w_ = lu_.solve(v);  // into w_ (PartialPivLU's solve needs no temporary)
    out.noalias() = D_ * w_;
  }
  // (C D)^{-1} v.
  const Vector& solve_CD(const Vector& v) {
    w_ = lu_.solve(v);
    return w_;
  }

 private:
  void constraint_jacobian(double t, VecIn y) {
    if (ode_.invariants.jacobian) {
      C_.setZero();
      ode_.invariants.jacobian(t, y, C_);
      return;
    }
    FiniteDifferenceJacobian::evaluate_dense(
        [&](const Vector& x, Vector& out) { ode_.invariants.c(t, x, out); }, y, c_, nullptr, yy_,
        c1_, C_);
  }

  OdeWithInvariants ode_;
  int k_;
  Vector c_, c1_, yy_;
  Matrix C_, D_, CD_;
  Eigen::PartialPivLU<Matrix> lu_;  // solves without temporaries (FullPivLU allocates)
  Vector w_;
};

MassMatrixDae base_problem(const OdeWithInvariants& ode, int n) {
  MassMatrixDae d;
  d.n = n;
  d.name = ode.name;
  d.component_names = ode.component_names;
  return d;
}

}  // namespace

void OdeWithInvariants::validate() const {
  if (n < 1) throw InvalidArgument("ode with invariants: n must be >= 1, got " + std::to_string(n));
  if (!f) throw InvalidArgument("ode with invariants: the right-hand side f is missing");
  if (invariants.k < 1 || invariants.k > n)
    throw InvalidArgument("ode with invariants: the number of invariants k must be in [1, n = " +
                          std::to_string(n) + "], got " + std::to_string(invariants.k));
  if (!invariants.c)
    throw InvalidArgument("ode with invariants: the invariants c(t, y) are missing");
  if (!component_names.empty() && static_cast<int>(component_names.size()) != n)
    throw InvalidArgument("ode with invariants: component_names has " +
                          std::to_string(component_names.size()) +
                          " names for n = " + std::to_string(n));
}

MassMatrixDae projected_ode(const OdeWithInvariants& ode) {
  ode.validate();
  MassMatrixDae d = base_problem(ode, ode.n);
  d.f = [f = ode.f](double t, VecIn y, VecOut out) { f(t, y, out); };
  if (ode.jacobian)
    d.jacobian = [J = ode.jacobian](double t, VecIn y, MatOut out) { J(t, y, out); };
  d.project = coordinate_projector(ode.invariants);
  return d;
}

MassMatrixDae stabilized_ode(const OdeWithInvariants& ode, double gamma) {
  ode.validate();
  if (!(gamma > 0) || !std::isfinite(gamma))
    throw InvalidArgument("stabilized_ode: gamma of (8.5) must be positive and finite, got " +
                          std::to_string(gamma));
  MassMatrixDae d = base_problem(ode, ode.n);
  // The geometry (scratch storage) is captured by value: every solve's copy has its own.
  d.f = [f = ode.f, geometry = InvariantGeometry(ode), Fc = Vector(ode.n), gamma](
            double t, VecIn y, VecOut out) mutable {
    f(t, y, out);
    if (!geometry.evaluate(t, y))
      throw RecoverableError("stabilized_ode: C D is singular at t = " + std::to_string(t));
    geometry.apply_F(geometry.c(), Fc);
    out -= gamma * Fc;
  };
  return d;
}

MassMatrixDae dae_reformulation(const OdeWithInvariants& ode) {
  ode.validate();
  const int n = ode.n, k = ode.invariants.k;
  MassMatrixDae d = base_problem(ode, n + k);
  d.mass = Matrix::Identity(n + k, n + k);
  d.mass.bottomRightCorner(k, k).setZero();
  d.index.assign(static_cast<size_t>(n + k), 1);
  for (int i = n; i < n + k; ++i) d.index[static_cast<size_t>(i)] = 2;
  if (!d.component_names.empty())
    for (int i = 0; i < k; ++i) d.component_names.push_back("z" + std::to_string(i + 1));
  // y' = f - D z, 0 = c: only D is needed here, C only when D defaults to C^T.
  d.f = [f = ode.f, geometry = InvariantGeometry(ode), n, k](double t, VecIn x,
                                                             VecOut out) mutable {
    auto y = x.head(n);
    f(t, y, out.head(n));
    geometry.evaluate(t, y);
    out.head(n).noalias() -= geometry.D() * x.tail(k);
    out.tail(k) = geometry.c();
  };
  return d;
}

Vector dae_reformulation_initial_values(const OdeWithInvariants& ode, double t0, const Vector& y0) {
  ode.validate();
  if (y0.size() != ode.n)
    throw InvalidArgument("dae_reformulation_initial_values: y0 has size " +
                          std::to_string(y0.size()) + ", n = " + std::to_string(ode.n));
  InvariantGeometry geometry(ode);
  if (!geometry.evaluate(t0, y0))
    throw InvalidArgument("dae_reformulation_initial_values: C D is singular at y0");
  // the hidden constraint d/dt c = C (f - D z) + c_t = 0, c_t by a forward difference in t
  const int k = ode.invariants.k;
  Vector f(ode.n), c_later(k);
  ode.f(t0, y0, f);
  const double dt = FiniteDifferenceJacobian::increment(t0, 0.0);
  ode.invariants.c(t0 + dt, y0, c_later);
  const Vector rhs = geometry.C() * f + (c_later - geometry.c()) / dt;
  Vector x(ode.n + k);
  x.head(ode.n) = y0;
  x.tail(k) = geometry.solve_CD(rhs);
  return x;
}

}  // namespace daekit
