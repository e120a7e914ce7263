// A circuit with nonlinear capacitances (issue 14, part 1): the state-dependent mass matrix
// test model. Units V, mA, kOhm, microF, ms. Node voltages u1, u2, u3:
//   source V(t) = 5 sin(2 pi t / 10) -- R0 -- node 1 -- R1 -- node 2 -- R3 -- node 3,
//   node 1: capacitance C_a(u1) to ground (charge Q_a(u) = Ca0 Uc asinh(u / Uc),
//           C_a = Q_a' = Ca0 / sqrt(1 + (u/Uc)^2): a saturating, varactor-like element),
//   node 2: diode i_D = Is (exp(u2 / UT) - 1) and R2 to ground (no capacitance: algebraic),
//   node 3: capacitance C_b(u3) (Q_b(u) = Cb0 (u + u^3 / (3 Ub^2)), C_b = Cb0 (1 + (u/Ub)^2))
//           and R4 to ground.
// Kirchhoff's current law, capacitance (quasi-linear) form M(y) y' = f(t, y):
//   C_a(u1) u1' = (V(t) - u1)/R0 - (u1 - u2)/R1,
//   0           = (u1 - u2)/R1 - i_D(u2) - u2/R2 - (u2 - u3)/R3,
//   C_b(u3) u3' = (u2 - u3)/R3 - u3/R4,
// M = diag(C_a(u1), 0, C_b(u3)): singular and state-dependent, index 1 (the node-2 equation
// has d/du2 = -(1/R1 + i_D' + 1/R2 + 1/R3) < 0). Charge-oriented form (modified nodal
// analysis with charges as unknowns, x = (u1, u2, u3, q_a, q_b), constant M = diag(0,0,0,1,1)):
//   q_a' = (V - u1)/R0 - (u1 - u2)/R1,  q_b' = (u2 - u3)/R3 - u3/R4,
//   0 = q_a - Q_a(u1),  0 = node-2 equation,  0 = q_b - Q_b(u3),
// the same solutions, written independently of C_a, C_b: the reference for the tests. The
// parameters are ours (no published model): a diode limiter with two varactors, chosen so that
// the diode clips u2 at 0.55 V on the positive half-waves; over [0, 20] u1 spans [-3.9, 2.8] V,
// so C_a varies by a factor 4 (1 .. 0.25), and C_b by 1.8 (0.5 .. 0.89).
// y(0) = 0 (consistent: V(0) = 0), t in [0, 20] (two periods).
#include <cmath>
#include <numbers>

#include "daekit/integrator/solve.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

constexpr double R0 = 1.0, R1 = 1.0, R2 = 10.0, R3 = 2.0, R4 = 5.0;
constexpr double Ca0 = 1.0, Uc = 1.0, Cb0 = 0.5, Ub = 2.0;
constexpr double Is = 1e-9, UT = 0.02585;
constexpr double amplitude = 5.0, period = 10.0;

double source(double t) { return amplitude * std::sin(2 * std::numbers::pi * t / period); }
double charge_a(double u) { return Ca0 * Uc * std::asinh(u / Uc); }
double capacitance_a(double u) { return Ca0 / std::sqrt(1 + (u / Uc) * (u / Uc)); }
double capacitance_a_derivative(double u) {
  const double s = 1 + (u / Uc) * (u / Uc);
  return -Ca0 * u / (Uc * Uc) / (s * std::sqrt(s));
}
double charge_b(double u) { return Cb0 * (u + u * u * u / (3 * Ub * Ub)); }
double capacitance_b(double u) { return Cb0 * (1 + (u / Ub) * (u / Ub)); }
double capacitance_b_derivative(double u) { return 2 * Cb0 * u / (Ub * Ub); }
double diode(double u) { return Is * std::expm1(u / UT); }
double diode_derivative(double u) { return Is / UT * std::exp(u / UT); }

// Currents into the capacitive nodes and the node-2 balance.
double node1_current(double t, double u1, double u2) {
  return (source(t) - u1) / R0 - (u1 - u2) / R1;
}
double node2_balance(double u1, double u2, double u3) {
  return (u1 - u2) / R1 - diode(u2) - u2 / R2 - (u2 - u3) / R3;
}
double node3_current(double u2, double u3) { return (u2 - u3) / R3 - u3 / R4; }

const char* circuit_source =
    "daekit's own test circuit (issue 14): diode limiter with two nonlinear capacitances; "
    "reference from the charge-oriented form (varactor_circuit_charge_form)";

// u(t_end) from the charge-oriented form, radau5 at 1e-12 (computed once, ~10 ms).
Vector charge_form_reference();

}  // namespace

BuiltinProblem varactor_circuit() {
  QuasiLinearDae q;
  q.name = "varactor-circuit";
  q.n = 3;
  q.component_names = {"u1", "u2", "u3"};
  q.differential = {true, false, true};
  q.mass = [](double, VecIn y, MatOut M) {
    M(0, 0) = capacitance_a(y[0]);
    M(2, 2) = capacitance_b(y[2]);
  };
  q.f = [](double t, VecIn y, VecOut f) {
    f[0] = node1_current(t, y[0], y[1]);
    f[1] = node2_balance(y[0], y[1], y[2]);
    f[2] = node3_current(y[1], y[2]);
  };
  q.jacobian = [](double, VecIn y, MatOut J) {
    J(0, 0) = -1 / R0 - 1 / R1;
    J(0, 1) = 1 / R1;
    J(1, 0) = 1 / R1;
    J(1, 1) = -1 / R1 - diode_derivative(y[1]) - 1 / R2 - 1 / R3;
    J(1, 2) = 1 / R3;
    J(2, 1) = 1 / R3;
    J(2, 2) = -1 / R3 - 1 / R4;
  };
  q.mass_jacobian = [](double, VecIn y, VecIn u, MatOut K) {  // d(M(y) u)/dy
    K(0, 0) = capacitance_a_derivative(y[0]) * u[0];
    K(2, 2) = capacitance_b_derivative(y[2]) * u[2];
  };
  BuiltinProblem p;
  p.name = q.name;
  p.title = "circuit with nonlinear capacitances C_a(u1), C_b(u3) and a diode, M(y) y' = f";
  p.description =
      "C_a(u1) u1' = (V(t) - u1)/R0 - (u1 - u2)/R1,  0 = node-2 current balance (diode),\n"
      "C_b(u3) u3' = (u2 - u3)/R3 - u3/R4; M = diag(C_a, 0, C_b) singular and state-dependent,\n"
      "index 1; solved through y' = w, 0 = M(y) w - f (dae) or F = M(y) y' - f (bdf).";
  p.source = circuit_source;
  p.t0 = 0.0;
  p.t_end = 20.0;
  p.dae = to_mass_matrix_form(q);
  p.dae.name = p.name;
  p.y0 = initial_values(q, p.t0, Vector::Zero(3));
  p.rtol = p.atol = 1e-8;
  static const Vector reference_at_end = initial_values(q, p.t_end, charge_form_reference());
  p.reference = ReferenceSolution{p.t_end, reference_at_end,
                                  "charge-oriented form, radau5 at rtol = atol = 1e-12"};
  p.plot_components = {0, 1, 2};
  p.scd_components = {0, 1, 2};
  p.quasi_linear = std::move(q);
  return p;
}

BuiltinProblem varactor_circuit_charge_form() {
  BuiltinProblem p;
  p.name = "varactor-circuit-charge";
  p.title = "the varactor circuit in charge-oriented form (constant mass matrix)";
  p.description =
      "x = (u1, u2, u3, q_a, q_b): q_a' = node-1 current, q_b' = node-3 current,\n"
      "0 = q_a - Q_a(u1), 0 = node-2 balance, 0 = q_b - Q_b(u3); index 1.";
  p.source = circuit_source;
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 5;
  d.component_names = {"u1", "u2", "u3", "q_a", "q_b"};
  d.mass = Matrix::Zero(5, 5);
  d.mass(3, 3) = d.mass(4, 4) = 1.0;
  d.f = [](double t, VecIn x, VecOut f) {
    f[0] = x[3] - charge_a(x[0]);
    f[1] = node2_balance(x[0], x[1], x[2]);
    f[2] = x[4] - charge_b(x[2]);
    f[3] = node1_current(t, x[0], x[1]);
    f[4] = node3_current(x[1], x[2]);
  };
  p.t0 = 0.0;
  p.t_end = 20.0;
  p.y0 = Vector::Zero(5);
  p.rtol = p.atol = 1e-8;
  return p;
}

namespace {
Vector charge_form_reference() {
  const BuiltinProblem c = varactor_circuit_charge_form();
  Options o;
  o.rtol = o.atol = 1e-12;
  o.store_steps = false;
  const Result r = solve(c.dae, c.t0, c.t_end, c.y0, "radau5", o);
  if (!r.ok()) throw std::runtime_error("varactor circuit reference: " + r.message);
  return r.y.head(3);
}
}  // namespace

}  // namespace daekit
