// An energy-system-style control loop with a clamped valve: a different model from the steam
// attemperation (10.13a-f) of Bendtsen and Thomsen (1999), ch. 10, which is the built-in
// "attemperator" (energy.cpp). This one is a first-order temperature loop with an anti-windup PI
// controller, no valve law and no wall, driven through both clamps by an inlet-temperature
// schedule; it is kept as an event test problem (parameters ours, chosen so that the valve
// saturates at both ends):
//   T' = (T_in(t) - T) / tau - Ks z                 (temperature, cooled by spray through z)
//   I' = (Kp / Ti) (T - T_set)  while the valve is free, 0 while clamped (anti-windup)
//   0  = z - z_c (free),  0 = z - 1 (clamped open),  0 = z (clamped shut),
//   z_c = Kp (T - T_set) + I                         (PI controller output)
// tau = 10, Ks = 10, T_set = 400, Kp = 0.05, Ti = 20; T_in ramps 450 -> 520 -> 380 -> 450
// (smooth tanh ramps at t = 50, 150, 250), t in [0, 350]. The switches are state events on
// z_c - 1 and z_c; the mode is captured by the model's functions and changed by the events,
// after which the solver re-initialises z consistently (DNA's restart, ch. 10). The valve's mode
// (free / clamped open / clamped shut) is the parameter p[0]: the event actions change the
// solve's copy of p, so the problem object itself never changes and solves are independent.
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
enum Mode { kFree = 0, kOpen = 1, kShut = 2 };
int mode_of(VecIn p) { return static_cast<int>(p[0]); }
constexpr double kTau = 10, kKs = 10, kTset = 400, kKp = 0.05, kTi = 20;
double ramp(double x) { return 0.5 * (1 + std::tanh(x / 2)); }
double inflow_temperature(double t) {
  return 450 + 70 * ramp(t - 50) - 140 * ramp(t - 150) + 70 * ramp(t - 250);
}
double controller_output(VecIn y) { return kKp * (y[0] - kTset) + y[1]; }
}  // namespace

BuiltinProblem pi_valve() {
  BuiltinProblem p;
  p.name = "pi-valve";
  p.title = "PI temperature control with a clamped valve (state events)";
  p.description =
      "T' = (T_in - T)/tau - Ks z, PI controller z_c = Kp e + I with anti-windup, valve z\n"
      "clamped to [0, 1]; index 1 with switches located as state events.";
  p.source =
      "daekit's event test model (anti-windup PI loop); not the notes' (10.13), see "
      "'attemperator'";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 3;
  d.mass = Matrix::Zero(3, 3);
  d.mass(0, 0) = d.mass(1, 1) = 1;
  d.component_names = {"T", "I", "z"};
  d.p = Vector::Constant(1, kFree);
  p.parameter_names = {"mode"};  // 0 free, 1 clamped open, 2 clamped shut (kFree, kOpen, kShut)
  d.f = [](double t, VecIn y, VecOut f, VecIn p) {
    const int mode = mode_of(p);
    f[0] = (inflow_temperature(t) - y[0]) / kTau - kKs * y[2];
    f[1] = mode == kFree ? kKp / kTi * (y[0] - kTset) : 0.0;
    f[2] = mode == kFree ? y[2] - controller_output(y) : mode == kOpen ? y[2] - 1.0 : y[2];
  };
  d.jacobian = [](double, VecIn, MatOut J, VecIn p) {
    J(0, 0) = -1.0 / kTau;
    J(0, 2) = -kKs;
    if (mode_of(p) == kFree) {
      J(1, 0) = kKp / kTi;
      J(2, 0) = -kKp;
      J(2, 1) = -1.0;
    }
    J(2, 2) = 1.0;
  };
  Event upper;
  upper.name = "valve at upper limit";
  upper.r = [](double, VecIn y, VecIn) { return controller_output(y) - 1.0; };
  upper.action = [](double, Vector&, Vector& p) {
    if (mode_of(p) == kShut) return EventAction::Continue;
    p[0] = mode_of(p) == kFree ? kOpen : kFree;
    return EventAction::Restart;
  };
  Event lower;
  lower.name = "valve at lower limit";
  lower.r = [](double, VecIn y, VecIn) { return controller_output(y); };
  lower.action = [](double, Vector&, Vector& p) {
    if (mode_of(p) == kOpen) return EventAction::Continue;
    p[0] = mode_of(p) == kFree ? kShut : kFree;
    return EventAction::Restart;
  };
  p.events = {upper, lower};
  p.t0 = 0;
  p.t_end = 350;
  p.y0 = Vector(3);
  p.y0 << 400, 0.5, 0.5;  // steady state at T_in = 450
  p.rtol = p.atol = 1e-8;
  p.plot_components = {2};
  return p;
}

BuiltinProblem index3_chain() {
  BuiltinProblem p;
  p.name = "index3-chain";
  p.title = "index-3 chain y1' = y2, y2' = y3, 0 = y1 - sin x (notes (4.1))";
  p.description =
      "the worked example (4.1) of Bendtsen and Thomsen (1999), ch. 4: implicit Euler / BDF on an "
      "index-3\n"
      "system; consistent start (0, 1, 0); the notes start from (0.3, 5, -7).";
  p.source = "Bendtsen and Thomsen (1999), ch. 4, example (4.1)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 3;
  d.mass = Matrix::Zero(3, 3);
  d.mass(0, 0) = d.mass(1, 1) = 1;
  d.index = {1, 2, 3};
  d.component_names = {"y1", "y2", "y3"};
  d.f = [](double t, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = y[2];
    f[2] = y[0] - std::sin(t);
  };
  d.jacobian = [](double, VecIn, MatOut J) {
    J(0, 1) = 1;
    J(1, 2) = 1;
    J(2, 0) = 1;
  };
  p.t0 = 0;
  p.t_end = 1;
  p.y0 = Vector(3);
  p.y0 << 0, 1, 0;
  ReferenceSolution ref;
  ref.t = 1;
  ref.y = Vector(3);
  ref.y << std::sin(1.0), std::cos(1.0), -std::sin(1.0);
  ref.source = "exact solution y = (sin x, cos x, -sin x)";
  p.reference = ref;
  // scd over y1 and y2, as on every other built-in problem with index-3 components (the
  // multipliers of pendulum and andrews): Radau IIA with s stages gives an index-3 component
  // to O(h^(s-1)) only (Hairer-Wanner II, VII.4), and its round-off grows like eps / h^2 (y3 is
  // y1 = sin x differenced twice), so that radau5 (s = 3) reaches at most 8 digits of y3 at any
  // step size in double precision (BuiltinIndex3Chain.Radau5ConstantStepFloorOfTheIndex3Component).
  // The report and --json (component_digits) still give y3's digits.
  p.scd_components = {0, 1};
  p.rtol = p.atol = 1e-6;
  return p;
}

}  // namespace daekit
