// Knife edge on an inclined plane: a nonholonomic mechanical system with an exact solution,
// in the implicit index-2 form of paper 002 (body-frame momenta, nonlinear a(t, y)) and in
// Hessenberg form (see problems/index2.hpp for the equations and the solution).
#include <cmath>

#include "daekit/problems/index2.hpp"

namespace daekit {

namespace {

// p = (m, J, g sin alpha)
const Vector& knife_parameters() {
  static const Vector p = (Vector(3) << 2.0, 0.5, 1.0).finished();
  return p;
}

// The Hessenberg right-hand side without / with the constraint force.
void knife_forces(VecIn y, VecIn p, VecOut out) {
  out.head(3) = y.segment(3, 3);
  out[3] = p[2];  // g sin(alpha) (= force / m)
  out[4] = 0.0;
  out[5] = 0.0;
}
void knife_constraint_force(VecIn y, VecIn z, VecIn p, VecOut out) {
  const double phi = y[2], lambda = z[0], m = p[0];
  out.setZero();
  out[3] = lambda * std::sin(phi) / m;
  out[4] = -lambda * std::cos(phi) / m;
}
double knife_constraint(VecIn y) {
  const double phi = y[2];
  return -y[3] * std::sin(phi) + y[4] * std::cos(phi);
}

}  // namespace

ImplicitIndex2Dae knife_edge(bool implicit) {
  ImplicitIndex2Dae d;
  d.name = implicit ? "knife edge (implicit form)" : "knife edge (Hessenberg form)";
  d.n = 6;
  d.m = 1;
  d.p = knife_parameters();
  d.component_names = {"x", "y", "phi", "vx", "vy", "omega", "lambda"};
  d.g = [](double, VecIn y, VecOut g) { g[0] = knife_constraint(y); };
  if (!implicit) {
    d.f[0] = [](double, VecIn y, VecIn, VecOut out, VecIn p) { knife_forces(y, p, out); };
    d.f[1] = [](double, VecIn y, VecIn z, VecOut out, VecIn p) {
      knife_constraint_force(y, z, p, out);
    };
    return d;
  }
  // a = (q, p_par, p_perp, J omega), body-frame momenta
  d.a = [](double, VecIn y, VecOut a, VecIn p) {
    const double c = std::cos(y[2]), s = std::sin(y[2]), m = p[0];
    a.head(3) = y.head(3);
    a[3] = m * (c * y[3] + s * y[4]);
    a[4] = m * (-s * y[3] + c * y[4]);
    a[5] = p[1] * y[5];
  };
  d.a_y = [](double, VecIn y, MatOut A, VecIn p) {
    const double c = std::cos(y[2]), s = std::sin(y[2]), m = p[0];
    A.topLeftCorner(3, 3).setIdentity();
    A(3, 2) = m * (-s * y[3] + c * y[4]);
    A(3, 3) = m * c;
    A(3, 4) = m * s;
    A(4, 2) = m * (-c * y[3] - s * y[4]);
    A(4, 3) = -m * s;
    A(4, 4) = m * c;
    A(5, 5) = p[1];
  };
  d.f[0] = [](double, VecIn y, VecIn, VecOut out, VecIn p) {
    const double c = std::cos(y[2]), s = std::sin(y[2]), m = p[0], w = y[5];
    const double p_par = m * (c * y[3] + s * y[4]), p_perp = m * (-s * y[3] + c * y[4]);
    out.head(3) = y.segment(3, 3);
    out[3] = m * p[2] * c + w * p_perp;
    out[4] = -m * p[2] * s - w * p_par;
    out[5] = 0.0;
  };
  d.f[1] = [](double, VecIn, VecIn z, VecOut out) {
    out.setZero();
    out[4] = -z[0];
  };
  return d;
}

namespace {
// The exact solution for parameters p = (m, J, g sin alpha) (J does not enter: omega = 1).
Vector knife_exact(double t, VecIn p) {
  const double m = p[0], gs = p[2], s = std::sin(t), c = std::cos(t), u = gs * s;
  Vector x(7);
  x << gs * s * s / 2, gs * (t - std::sin(2 * t) / 2) / 2, t, u * c, u * s, 1.0, -2 * m * gs * s;
  return x;
}
}  // namespace

Vector knife_edge_exact(double t) { return knife_exact(t, knife_parameters()); }

BuiltinProblem knife_edge_builtin() {
  BuiltinProblem p;
  p.name = "knife-edge";
  p.title = "knife edge on an inclined plane, nonholonomic, index 2, exact solution";
  p.description =
      "q = (x, y, phi), m v' = (m g sin a + lambda sin phi, -lambda cos phi), J omega' = 0,\n"
      "0 = -v_x sin phi + v_y cos phi (velocity along the blade); M = diag(1, 1, 1, m, m, J, 0),\n"
      "index tags (1 x6, 2). Implicit form with body-frame momenta: knife_edge(true).";
  p.source = "Neimark-Fufaev, Dynamics of Nonholonomic Systems; Rabier-Rheinboldt (2000)";
  const Vector& par = knife_parameters();
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 7;
  d.p = par;
  d.mass = Matrix::Identity(7, 7);  // diag(1, 1, 1, m, m, J, 0): m, J by apply_parameters
  d.mass(6, 6) = 0.0;
  d.index = {1, 1, 1, 1, 1, 1, 2};
  d.component_names = {"x", "y", "phi", "vx", "vy", "omega", "lambda"};
  d.f = [](double, VecIn x, VecOut out, VecIn p) {
    const double phi = x[2], lambda = x[6], m = p[0];
    out.head(3) = x.segment(3, 3);
    out[3] = m * p[2] + lambda * std::sin(phi);
    out[4] = -lambda * std::cos(phi);
    out[5] = 0.0;
    out[6] = knife_constraint(x.head(6));
  };
  p.t0 = 0.0;
  p.t_end = 10.0;
  p.rtol = p.atol = 1e-6;
  p.plot_components = {0, 1};
  p.scd_components = {0, 1, 2, 3, 4, 5};  // positions and velocities (lambda: index 2)
  // m and J sit in the mass matrix too; y0 and the exact solution follow p
  p.apply_parameters = [](BuiltinProblem& q) {
    const Vector k = q.dae.p;
    q.dae.mass(3, 3) = q.dae.mass(4, 4) = k[0];
    q.dae.mass(5, 5) = k[1];
    q.y0 = knife_exact(q.t0, k);
    q.exact = [k](double t) { return knife_exact(t, k); };
    q.reference = ReferenceSolution{q.t_end, q.exact(q.t_end), "exact solution"};
  };
  p.apply_parameters(p);
  return p;
}

}  // namespace daekit
