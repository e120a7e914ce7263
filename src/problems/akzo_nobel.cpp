// Chemical Akzo Nobel problem (IVP Test Set, problem CHEMAKZO; F. Mazzia and C. Magherini,
// Test Set for IVP Solvers, release 2.4, Univ. of Bari, report chemakzo.pdf): index 1, n = 6,
//   M y' = f(y),  M = diag(1, 1, 1, 1, 1, 0),  t in [0, 180],
//   f1 = -2 r1 + r2 - r3 - r4,        f2 = -r1/2 - r4 - r5/2 + Fin,   f3 = r1 - r2 + r3,
//   f4 = -r2 + r3 - 2 r4,             f5 = r2 - r3 + r5,              f6 = Ks y1 y4 - y6,
//   r1 = k1 y1^4 sqrt(y2), r2 = k2 y3 y4, r3 = k2/K y1 y5, r4 = k3 y1 y4^2, r5 = k4 y6^2 sqrt(y2),
//   Fin = klA (pCO2/H - y2);  k1 = 18.7, k2 = 0.58, k3 = 0.09, k4 = 0.42, K = 34.4, klA = 3.3,
//   Ks = 115.83, pCO2 = 0.9, H = 737;  y0 = (0.444, 0.00123, 0, 0.007, 0, Ks y1(0) y4(0)).
// Parameters p = (k1, k2, k3, k4, Ks) (sensitivities, fits); y6(0) = Ks y1(0) y4(0) follows Ks.
// Reference y(180): the test set's (PSIDE, rtol = atol = 1e-19, Cray C90 double precision).
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double default_k1 = 18.7, default_k2 = 0.58, default_k3 = 0.09, default_k4 = 0.42;
constexpr double K = 34.4, klA = 3.3, default_Ks = 115.83, pCO2 = 0.9, H = 737.0;
// p = (k1, k2, k3, k4, Ks), or the defaults when a callback is called without p.
constexpr double kAkzoDefaults[5] = {default_k1, default_k2, default_k3, default_k4, default_Ks};
double akzo_parameter(VecIn p, int i) { return p.size() > i ? p[i] : kAkzoDefaults[i]; }
struct AkzoParameters {
  double k1, k2, k3, k4, Ks;
};
// One size test for the usual full p (the callbacks run several hundred times per solve).
AkzoParameters akzo_parameters(VecIn p) {
  if (p.size() >= 5) return {p[0], p[1], p[2], p[3], p[4]};
  return {akzo_parameter(p, 0), akzo_parameter(p, 1), akzo_parameter(p, 2), akzo_parameter(p, 3),
          akzo_parameter(p, 4)};
}
}  // namespace

BuiltinProblem akzo_nobel() {
  BuiltinProblem p;
  p.name = "akzo";
  p.title = "Chemical Akzo Nobel problem (CHEMAKZO), index 1, t in [0, 180]";
  p.description =
      "two species mixed while CO2 is added continuously: 5 kinetic ODEs in y1..y5 and the\n"
      "equilibrium 0 = Ks y1 y4 - y6; M = diag(1, 1, 1, 1, 1, 0); index 1; stiff; sqrt(y2) needs\n"
      "y2 >= 0 (f returns NaN otherwise).";
  p.source = "IVP Test Set (CHEMAKZO), Mazzia & Magherini, release 2.4";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 6;
  d.mass = Matrix::Identity(6, 6);
  d.mass(5, 5) = 0.0;
  d.index = {1, 1, 1, 1, 1, 1};
  d.component_names = {"y1", "y2", "y3", "y4", "y5", "y6"};
  d.p = Vector(5);
  d.p << default_k1, default_k2, default_k3, default_k4, default_Ks;
  p.parameter_names = {"k1", "k2", "k3", "k4", "Ks"};
  d.f = [](double, VecIn y, VecOut f, VecIn p) {
    // y2 < 0 is outside the model (the test set returns an error flag): NaN makes the solver
    // reject the step.
    // pow first, y and p read after it: nothing is kept across the call
    const double y1_4 = std::pow(y[0], 4);
    const double s2 = std::sqrt(y[1]);
    const auto [k1, k2, k3, k4, Ks] = akzo_parameters(p);
    const double r1 = k1 * y1_4 * s2;
    const double r2 = k2 * y[2] * y[3];
    const double r3 = k2 / K * y[0] * y[4];
    const double r4 = k3 * y[0] * y[3] * y[3];
    const double r5 = k4 * y[5] * y[5] * s2;
    const double fin = klA * (pCO2 / H - y[1]);
    f[0] = -2.0 * r1 + r2 - r3 - r4;
    f[1] = -0.5 * r1 - r4 - 0.5 * r5 + fin;
    f[2] = r1 - r2 + r3;
    f[3] = -r2 + r3 - 2.0 * r4;
    f[4] = r2 - r3 + r5;
    f[5] = Ks * y[0] * y[3] - y[5];
  };
  d.jacobian = [](double, VecIn y, MatOut J, VecIn p) {
    const double y1_4 = std::pow(y[0], 4);
    const double s2 = std::sqrt(y[1]);
    const auto [k1, k2, k3, k4, Ks] = akzo_parameters(p);
    // partial derivatives of the rates: dr_i/dy_j
    const double r1_1 = 4.0 * k1 * y[0] * y[0] * y[0] * s2;
    const double r1_2 = 0.5 * k1 * y1_4 / s2;
    const double r2_3 = k2 * y[3], r2_4 = k2 * y[2];
    const double r3_1 = k2 / K * y[4], r3_5 = k2 / K * y[0];
    const double r4_1 = k3 * y[3] * y[3], r4_4 = 2.0 * k3 * y[0] * y[3];
    const double r5_2 = 0.5 * k4 * y[5] * y[5] / s2, r5_6 = 2.0 * k4 * y[5] * s2;
    J(0, 0) = -2.0 * r1_1 - r3_1 - r4_1;
    J(0, 1) = -2.0 * r1_2;
    J(0, 2) = r2_3;
    J(0, 3) = r2_4 - r4_4;
    J(0, 4) = -r3_5;
    J(1, 0) = -0.5 * r1_1 - r4_1;
    J(1, 1) = -0.5 * r1_2 - 0.5 * r5_2 - klA;
    J(1, 3) = -r4_4;
    J(1, 5) = -0.5 * r5_6;
    J(2, 0) = r1_1 + r3_1;
    J(2, 1) = r1_2;
    J(2, 2) = -r2_3;
    J(2, 3) = -r2_4;
    J(2, 4) = r3_5;
    J(3, 0) = r3_1 - 2.0 * r4_1;
    J(3, 2) = -r2_3;
    J(3, 3) = -r2_4 - 2.0 * r4_4;
    J(3, 4) = r3_5;
    J(4, 0) = -r3_1;
    J(4, 1) = r5_2;
    J(4, 2) = r2_3;
    J(4, 3) = r2_4;
    J(4, 4) = -r3_5;
    J(4, 5) = r5_6;
    J(5, 0) = Ks * y[3];
    J(5, 3) = Ks * y[0];
    J(5, 5) = -1.0;
  };
  p.t0 = 0;
  p.t_end = 180;
  p.y0 = Vector(6);
  p.y0 << 0.444, 0.00123, 0.0, 0.007, 0.0, default_Ks * 0.444 * 0.007;
  p.apply_parameters = [](BuiltinProblem& q) { q.y0[5] = q.dae.p[4] * q.y0[0] * q.y0[3]; };
  p.rtol = p.atol = 1e-7;
  p.h0 = 1e-10;  // the initial step of the test set's runs of this problem
  ReferenceSolution ref;
  ref.t = 180;
  ref.y = Vector(6);
  ref.y << 0.1150794920661702, 0.1203831471567715e-2, 0.1611562887407974, 0.3656156421249283e-3,
      0.1708010885264404e-1, 0.4873531310307455e-2;
  ref.source = "IVP Test Set, CHEMAKZO, y(180) (PSIDE, rtol = atol = 1e-19)";
  p.reference = ref;
  p.scd_components = {0, 1, 2, 3, 4, 5};
  // y1..y6 are concentrations; y2 is required to be >= 0 by the model itself (sqrt(y2) in r1
  // and r5: f is NaN for y2 < 0).
  p.nonnegative = {0, 1, 2, 3, 4, 5};
  return p;
}

}  // namespace daekit
