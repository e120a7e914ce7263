// Index-2 Euler-Lagrange test problems (problem/euler_lagrange_dae.hpp) for the beta-blocked
// multistep methods of paper 003 (Arévalo, Führer, Söderlind, BIT 36 (1996)):
//
// el-manufactured (manufactured for paper 003's methods): x in R^2,
//   x' = omega(x) (-x2, x1) + phi(x) x - G(x)^T lambda,  0 = g(x) = |x|^2 - 1,  G = 2 x^T,
//   omega = 1 + x2/2, phi = 1 + x1, x(0) = (1, 0), t in [0, 3].
//   On |x| = 1 the radial part of x' must vanish: phi - 2 lambda = 0, so lambda = (1 + x1)/2,
//   and x = (cos th, sin th) with th' = omega = 1 + sin(th)/2. Separating variables,
//   t = (4/sqrt3) (atan((2 tan(th/2) + 1)/sqrt3) - pi/6), i.e. with phi_t = sqrt3 t/4 + pi/6:
//   tan(th/2) = (sqrt3 tan(phi_t) - 1)/2, the branch of th/2 continuing th/2(0) = 0
//   (th/2 - (phi_t - pi/6) stays within (-pi/2, pi/2): both advance by pi per period).
//   This is paper 003's form exactly (B = G, autonomous), with a closed-form solution.
// pendulum-el: the normalized pendulum (paper 000 (4.1)) at velocity level,
//   x = (u, v), u' = v, v' = -(0, 1) - 2 u lambda, 0 = u.v... written as G(u) v = 2 u.v;
//   reference: pendulum_reference (RK4 on the angle ODE, independent of the DAE solvers).
// andrews-el: Andrews' squeezer at velocity level (euler_lagrange_form of the 7-body model),
//   x = (q, v) in R^14, 6 multipliers; the IVP Test Set's initial values and y(0.03).
#include <cmath>

#include "daekit/nonlinear/euler_lagrange.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

EulerLagrangeDae manufactured_euler_lagrange() {
  EulerLagrangeDae el;
  el.name = "el-manufactured";
  el.nx = 2;
  el.nlambda = 1;
  el.f = [](double, VecIn x, VecOut f) {
    const double omega = 1.0 + x[1] / 2.0, phi = 1.0 + x[0];
    f[0] = -omega * x[1] + phi * x[0];
    f[1] = omega * x[0] + phi * x[1];
  };
  el.g = [](double, VecIn x, VecOut g) { g[0] = x.squaredNorm() - 1.0; };
  el.G = [](double, VecIn x, MatOut G) { G << 2.0 * x[0], 2.0 * x[1]; };
  el.component_names = {"x1", "x2", "lambda"};
  return el;
}

Vector manufactured_euler_lagrange_solution(double t) {
  const double s3 = std::sqrt(3.0);
  const double phi = s3 * t / 4.0 + M_PI / 6.0;
  const double psi0 = std::atan2(s3 * std::sin(phi) - std::cos(phi), 2.0 * std::cos(phi));
  const double psi = psi0 + M_PI * std::round((phi - M_PI / 6.0 - psi0) / M_PI);
  const double th = 2.0 * psi;
  Vector y(3);
  y << std::cos(th), std::sin(th), (1.0 + std::cos(th)) / 2.0;
  return y;
}

BuiltinProblem euler_lagrange_manufactured() {
  BuiltinProblem p;
  p.name = "el-manufactured";
  p.title = "manufactured index-2 Euler-Lagrange DAE on the unit circle, exact solution";
  p.description =
      "x' = omega(x)(-x2, x1) + phi(x) x - 2 x lambda, 0 = |x|^2 - 1, omega = 1 + x2/2,\n"
      "phi = 1 + x1; exact x = (cos th, sin th), th' = 1 + sin(th)/2, lambda = (1 + cos th)/2;\n"
      "the form x' = f(x) - G^T lambda; t in [0, 3].";
  p.source = "manufactured for Arevalo, Fuhrer, Soderlind, BIT 36 (1996) 1-13";
  p.euler_lagrange = manufactured_euler_lagrange();
  p.dae = to_mass_matrix_form(*p.euler_lagrange);
  p.exact = manufactured_euler_lagrange_solution;
  p.t0 = 0.0;
  p.t_end = 3.0;
  p.y0 = manufactured_euler_lagrange_solution(0.0);
  p.rtol = p.atol = 1e-8;
  p.reference = ReferenceSolution{3.0, manufactured_euler_lagrange_solution(3.0), "exact"};
  p.scd_components = {0, 1};
  return p;
}

BuiltinProblem pendulum_euler_lagrange() {
  BuiltinProblem p;
  p.name = "pendulum-el";
  p.title = "normalized pendulum, velocity-level Euler-Lagrange form (index 2), t in [0, 2]";
  p.description =
      "x = (u, v): u' = v, v' = -(0, 1) - G^T lambda, 0 = G(u) v = 2 u.v, G = 2 u^T;\n"
      "euler_lagrange_form(pendulum_mechanical_system()); |u|^2 - 1 drifts (monitored).";
  p.source =
      "000_da456d5bdd91ee80.txt (4.1) at velocity level; Bendtsen and Thomsen (1999), ch. 3 (3.5)";
  p.mechanical = pendulum_mechanical_system();
  p.euler_lagrange = euler_lagrange_form(*p.mechanical);
  p.euler_lagrange->name = p.name;
  p.dae = to_mass_matrix_form(*p.euler_lagrange);
  p.dae.component_names = {"u1", "u2", "v1", "v2", "lambda"};
  p.exact = pendulum_reference;
  p.t0 = 0.0;
  p.t_end = 2.0;
  p.y0 = Vector::Zero(5);
  p.y0[0] = 1.0;  // lambda(0) = 0 is consistent (v = 0, gravity orthogonal to u)
  p.rtol = p.atol = 1e-8;
  static const Vector reference_at_2 = pendulum_reference(2.0);
  p.reference = ReferenceSolution{
      2.0, reference_at_2, "RK4 (h = 1e-4, compensated sums) on the angle ODE phi'' = -sin phi"};
  p.scd_components = {0, 1, 2, 3};
  return p;
}

BuiltinProblem andrews_euler_lagrange() {
  const BuiltinProblem a = andrews();
  BuiltinProblem p;
  p.name = "andrews-el";
  p.title = "Andrews' squeezer, velocity-level Euler-Lagrange form (index 2), t in [0, 0.03]";
  p.description =
      "x = (q, v) in R^14: q' = v, v' = M(q)^{-1} (f - G^T lambda), 0 = G(q) v (6 constraints);\n"
      "euler_lagrange_form of the 7-body model; the test set's initial values and y(0.03).";
  p.source = a.source + "; velocity-level form (euler_lagrange_form)";
  p.mechanical = a.mechanical;
  p.euler_lagrange = euler_lagrange_form(*p.mechanical);
  p.euler_lagrange->name = p.name;
  p.dae = to_mass_matrix_form(*p.euler_lagrange);
  p.t0 = 0.0;
  p.t_end = 0.03;
  // (q, v, lambda) of the test set's (q, v, w, lambda)
  auto pick = [](const Vector& y27) {
    Vector y(20);
    y << y27.segment(0, 14), y27.segment(21, 6);
    return y;
  };
  p.y0 = pick(a.y0);
  p.rtol = p.atol = 1e-7;
  p.h0 = 1e-6;
  p.reference = ReferenceSolution{0.03, pick(a.reference->y), a.reference->source};
  p.scd_components = {0, 1, 2, 3, 4, 5, 6};
  p.plot_components = {0, 1, 2, 6};
  return p;
}

}  // namespace daekit
