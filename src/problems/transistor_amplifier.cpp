// Transistor amplifier (IVP Test Set problem TRANSAMP, Mazzia & Magherini, release 2.4,
// transamp.f; Hairer, Lubich & Roche 1989; Hairer-Wanner II, VII.1): an 8-node circuit with two
// transistors, index 1, M y' = f(t, y), t in [0, 0.2], with the constant singular (rank 5) mass
// matrix of the capacitors C_k = k 1e-6:
//   row pairs (0,1), (3,4), (6,7):  -C y_a' + C y_b' = f_a,  C y_a' - C y_b' = f_b  (C1, C3, C5),
//   rows 2, 5:                      -C2 y3' = f3,  -C4 y6' = f6,
//   f1 = (y1 - Ue(t))/R0,  f2 = y2/R1 + (y2 - Ub)/R2 + (1 - alpha) g(y2 - y3),
//   f3 = y3/R3 - g(y2 - y3),  f4 = (y4 - Ub)/R4 + alpha g(y2 - y3),
//   f5 = y5/R5 + (y5 - Ub)/R6 + (1 - alpha) g(y5 - y6),  f6 = y6/R7 - g(y5 - y6),
//   f7 = (y7 - Ub)/R8 + alpha g(y5 - y6),  f8 = y8/R9,  g(x) = beta (exp(x/UF) - 1),
// Ue(t) = 0.1 sin(200 pi t), Ub = 6, UF = 0.026, alpha = 0.99, beta = 1e-6, R0 = 1000,
// R1..R9 = 9000. The sums of the row pairs are the 3 algebraic equations (0 = f1 + f2, ...).
// y0 = (0, Ub R1/(R1+R2), same, Ub, Ub R5/(R5+R6), same, Ub, 0) is consistent. Analytic Jacobian.
// Parameter p = (Ub) (sensitivities); y0 follows it (with_parameters).
// Reference y(0.2): the test set's (PSIDE, rtol = atol = 1e-14, Cray C90).
// Tolerances: the test-set driver has no defaults (it asks for rtol, atol and h0); we follow the
// set's convention rtol = atol = h0 and use h0 = rtol = atol = 1e-6 as defaults.
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double default_Ub = 6.0, UF = 0.026, alpha = 0.99, beta = 1e-6;
constexpr double R0 = 1000.0, R1 = 9000.0, R2 = 9000.0, R3 = 9000.0, R4 = 9000.0, R5 = 9000.0,
                 R6 = 9000.0, R7 = 9000.0, R8 = 9000.0, R9 = 9000.0;
constexpr double C1 = 1e-6, C2 = 2e-6, C3 = 3e-6, C4 = 4e-6, C5 = 5e-6;

double input_voltage(double t) { return 0.1 * std::sin(200.0 * M_PI * t); }

// The consistent y0 of the test set for the supply voltage Ub.
Vector transistor_y0(double Ub) {
  Vector y0(8);
  const double u2 = Ub * R1 / (R1 + R2), u5 = Ub * R5 / (R5 + R6);
  y0 << 0.0, u2, u2, Ub, u5, u5, Ub, 0.0;
  return y0;
}
}  // namespace

BuiltinProblem transistor_amplifier() {
  BuiltinProblem p;
  p.name = "transistor";
  p.stiff = true;
  p.title = "Transistor amplifier (TRANSAMP), index 1, 8 variables, t in [0, 0.2]";
  p.description =
      "M y' = f(t, y): node voltages of a two-transistor amplifier; M (capacitors C_k = k 1e-6)\n"
      "is singular of rank 5; index 1; input Ue(t) = 0.1 sin(200 pi t), supply Ub = 6 (p[0]); "
      "stiff,\n"
      "with exponential transistor currents beta (exp(x/UF) - 1).";
  p.source =
      "IVP Test Set (TRANSAMP), Mazzia & Magherini, release 2.4; Hairer, Lubich & Roche 1989; "
      "Hairer-Wanner II, VII.1";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 8;
  d.mass = Matrix::Zero(8, 8);
  auto pair = [&d](int i, double C) {  // rows/cols i, i+1: [-C C; C -C]
    d.mass(i, i) = -C;
    d.mass(i, i + 1) = C;
    d.mass(i + 1, i) = C;
    d.mass(i + 1, i + 1) = -C;
  };
  pair(0, C1);
  d.mass(2, 2) = -C2;
  pair(3, C3);
  d.mass(5, 5) = -C4;
  pair(6, C5);
  d.index.assign(8, 1);
  d.component_names = {"U1", "U2", "U3", "U4", "U5", "U6", "U7", "U8"};
  d.p = Vector::Constant(1, default_Ub);
  p.parameter_names = {"Ub"};
  d.f = [](double t, VecIn y, VecOut f, VecIn p) {
    const double Ub = p.size() > 0 ? p[0] : default_Ub;  // (called without p: the default)
    const double g1 = beta * (std::exp((y[1] - y[2]) / UF) - 1.0);
    const double g2 = beta * (std::exp((y[4] - y[5]) / UF) - 1.0);
    f[0] = (y[0] - input_voltage(t)) / R0;
    f[1] = y[1] / R1 + (y[1] - Ub) / R2 + (1.0 - alpha) * g1;
    f[2] = y[2] / R3 - g1;
    f[3] = (y[3] - Ub) / R4 + alpha * g1;
    f[4] = y[4] / R5 + (y[4] - Ub) / R6 + (1.0 - alpha) * g2;
    f[5] = y[5] / R7 - g2;
    f[6] = (y[6] - Ub) / R8 + alpha * g2;
    f[7] = y[7] / R9;
  };
  d.jacobian = [](double, VecIn y, MatOut J) {
    const double e1 = beta / UF * std::exp((y[1] - y[2]) / UF);  // d g1 / d y2 = -d g1 / d y3
    const double e2 = beta / UF * std::exp((y[4] - y[5]) / UF);
    J(0, 0) = 1.0 / R0;
    J(1, 1) = 1.0 / R1 + 1.0 / R2 + (1.0 - alpha) * e1;
    J(1, 2) = -(1.0 - alpha) * e1;
    J(2, 1) = -e1;
    J(2, 2) = 1.0 / R3 + e1;
    J(3, 1) = alpha * e1;
    J(3, 2) = -alpha * e1;
    J(3, 3) = 1.0 / R4;
    J(4, 4) = 1.0 / R5 + 1.0 / R6 + (1.0 - alpha) * e2;
    J(4, 5) = -(1.0 - alpha) * e2;
    J(5, 4) = -e2;
    J(5, 5) = 1.0 / R7 + e2;
    J(6, 4) = alpha * e2;
    J(6, 5) = -alpha * e2;
    J(6, 6) = 1.0 / R8;
    J(7, 7) = 1.0 / R9;
  };
  p.t0 = 0;
  p.t_end = 0.2;
  p.y0 = transistor_y0(default_Ub);
  p.apply_parameters = [](BuiltinProblem& q) { q.y0 = transistor_y0(q.dae.p[0]); };
  p.h0 = 1e-6;
  p.rtol = p.atol = 1e-6;
  ReferenceSolution ref;
  ref.t = 0.2;
  ref.y = Vector(8);
  ref.y << -0.5562145012262709e-2, 0.3006522471903042e+1, 0.2849958788608128e+1,
      0.2926422536206241e+1, 0.2704617865010554e+1, 0.2761837778393145e+1, 0.4770927631616772e+1,
      0.1236995868091548e+1;
  ref.source = "IVP Test Set, TRANSAMP, y(0.2) (PSIDE, rtol = atol = 1e-14, Cray C90)";
  p.reference = ref;
  p.scd_components = {0, 1, 2, 3, 4, 5, 6, 7};
  p.plot_components = {0, 7};  // input node U1 and output node U8
  return p;
}

}  // namespace daekit
