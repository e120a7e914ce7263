// Charge pump (IVP Test Set problem PUMP, contributed by Guenther, Denk and Feldmann 1995, "How
// models for MOS transistors reflect charge distribution effects"; Mazzia and Magherini's
// release of the set): two capacitors C_S = 1.6e-12, C_D = 0.4e-12 and an n-channel MOS
// transistor in the charge-oriented modified nodal analysis, M y' = f(t, y), n = 9, index 2,
// t in [0, 1.2e-6] (10 periods of the input):
//   y = (Y_T1, Y_S, Y_T2, Y_D, Y_T3, U_1, U_2, U_3, I) (charges of the gate, of C_S, of the
//   source, of C_D, of the drain; node potentials; the current through the voltage source),
//   Y_T1' = -I,   Y_S' + Y_T2' = 0,   Y_D' + Y_T3' = 0,
//   0 = -U_1 + V_in(t),   0 = Y_T1 - Q_G(v),   0 = Y_S - C_S U_2,
//   0 = Y_T2 - Q_S(v),    0 = Y_D - C_D U_3,   0 = Y_T3 - Q_D(v),
// with v = (v_1, v_2, v_3) = (U_1, U_1 - U_2, U_1 - U_3) (gate-bulk, gate-source, gate-drain
// voltages). I is determined only through the derivative of Y_T1 = Q_G(v(t)): index 2 (tag 2),
// the others index 1.
//
// The MOS charge model (V_T0 = 0.2, gamma = 0.035, phi = 1.01, C_ox = 4e-12): with u_GS, u_GD
// the gate-source and gate-drain voltages after swapping source and drain when v_2 <= v_3, u_GB
// = v_1, U_BS = u_GS - u_GB, V_FB = V_T0 - gamma sqrt(phi) - phi, V_TE = V_T0 + gamma
// (sqrt(phi - U_BS) - sqrt(phi)),
//   accumulation (u_GB <= V_FB):          Q_G = C_ox (u_GB - V_FB),  Q_S = Q_D = 0;
//   depletion (u_GB > V_FB, u_GS <= V_TE): Q_G = C_ox gamma (sqrt(gamma^2/4 + u_GB - V_FB)
//                                                            - gamma/2),  Q_S = Q_D = 0;
//   inversion (u_GS > V_TE):               Q_G = C_ox (2/3 W + gamma sqrt(phi - U_BS)),
//                                          Q_S = Q_D = -C_ox W / 3,
//   W = U_GDT + U_GST - U_GDT U_GST / (U_GDT + U_GST), U_GST = u_GS - V_TE, U_GDT = u_GD - V_TE
//   where u_GD > V_TE, else 0.
// Q_G is continuous at the threshold but its derivative jumps there: the model is not smooth,
// and stepping across the threshold breaks every method's Newton iteration and error estimate
// (radau5 failed at t = 50.1 ns, issue 26). Here the region boundaries are switching functions
// (Options::switches) whose branches live in p: p[0] accumulation (s = u_GB - V_FB), p[1] the
// threshold (s = u_GS - V_TE), p[2] the drain side (s = u_GD - V_TE), p[3] the swap of source
// and drain (s = v_2 - v_3 + p[3] 1e-6 V: a hysteresis of 2 microvolts, see below); inside a
// step the branch is fixed and the model smooth (the square roots are clipped at 0 so that
// Newton's iterates outside the branch's region stay finite). The swap needs the hysteresis:
// while the device is off, Q_S = Q_D = 0 holds U_2 = U_3 = 0, where v_2 - v_3 is round-off of
// either sign, and a switch at exactly v_2 = v_3 chatters on that noise (and a swap decided in f
// puts a kink under Newton's iterates and the difference Jacobian there: radau5's Newton then
// contracts at 0.83 at the threshold and fails). The charges are continuous across the swap, so
// swapping 1e-6 V late changes f by about 1e-6 C_ox: far below the tolerances.
// The drain side needs a hysteresis too: the solution never enters it, but its switching
// function touches 0 at every turn-on and turn-off. With the charges conserved (Y_S = -Y_T2 =
// -Q_S, Y_D = -Y_T3 = -Q_D, all 0 at t = 0) U_2 = C_ox W / (3 C_S) and U_3 = C_ox W / (3 C_D),
// so s_drain = s_threshold - (U_3 - U_2) = s_threshold - 2.5 W; in inversion with the drain
// side off W = U_GST = s_threshold, so s_drain = -1.5 s_threshold < 0, and in depletion
// (W = 0) s_drain = s_threshold < 0: s_drain rises to 0 exactly where the threshold is crossed
// and falls again. Without a hysteresis the interpolant's error (1e-10 ... 1e-9 V) made that a
// crossing 2e-19 s before the threshold's at some tolerances: the drain side switched on, then
// off again at the same instant (radau5 at rtol 1e-7: 14 such events and 40 failed Newton
// attempts at the turn-offs, bdf at 1e-7 a turn-off missed). It switches at s_drain = +-1e-5 V
// instead: f differs from the model's by at most 1e-5 C_ox, and only where a numerical
// solution has strayed into the region, which the exact one never enters (dirk, whose current
// has 1-2 digits, strays 4e-6 V into it at the turn-ons: with 1e-6 V it then failed there).
//
// The input V_in(t) (tau = 1e9 t mod 120): 0 for tau < 50, 20 (tau - 50) / 10 up to 60, 20 up
// to 110, 20 (120 - tau) / 10 up to 120: its corners at tau = 50, 60, 110, 120 of every period
// are the problem's tstops (39 inside the interval).
//
// Consistent initial values: U = 0, I = 0, Y_T1 = Q_G(0, 0, 0) (depletion), the other charges 0.
// Reference y(1.2e-6), exact: at t_end the device has been off (depletion) since tau = 119.9, so
// U_2 = U_3 = 0 and the charges but Y_T1 vanish, U_1 = V_in = 0, Y_T1 = Q_G(0, 0, 0) and
// I = -d/dt Q_G = C_ox gamma / (2 sqrt(gamma^2/4 - V_FB)) 2e9 (V_in falls at 2e9 V/s), the limit
// from the left. The test set's y(1.2e-6) (GAMD in quadruple precision: Y_T1 =
// 0.126280042987675933e-12, I = 0.152255686815577679e-3) agrees to 2e-17 and 6e-6 relative.
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double kVT0 = 0.2, kGamma = 0.035, kPhi = 1.01, kCox = 4e-12;
constexpr double kCD = 0.4e-12, kCS = 1.6e-12;
constexpr double kVHigh = 20.0, kPeriod = 120e-9;
const double kVFB = kVT0 - kGamma * std::sqrt(kPhi) - kPhi;

// The branches in p: +1 / -1 as the integrator keeps them (Options::switches).
enum PumpBranch { kAccumulation = 0, kThreshold = 1, kDrain = 2, kSwap = 3 };
constexpr double kSwapHysteresis = 1e-6;   // volts
constexpr double kDrainHysteresis = 1e-5;  // volts

double pump_input(double t) {
  const double tau = std::fmod(t, kPeriod) * 1e9;
  if (tau < 50.0) return 0.0;
  if (tau < 60.0) return kVHigh * (tau - 50.0) / 10.0;
  if (tau < 110.0) return kVHigh;
  return kVHigh * (120.0 - tau) / 10.0;
}

// The terminal voltages of the device on the branch p: u_GS, u_GD (after the swap), u_GB, V_TE.
struct PumpTerminals {
  double ugs, ugd, ugb, ubs, vte;
};

PumpTerminals pump_terminals(VecIn y, const VecIn& p) {
  const double v1 = y[5], v2 = y[5] - y[6], v3 = y[5] - y[7];
  PumpTerminals d;
  const bool swapped = p[kSwap] < 0;
  d.ugs = swapped ? v3 : v2;
  d.ugd = swapped ? v2 : v3;
  d.ugb = v1;
  d.ubs = d.ugs - d.ugb;
  d.vte = kVT0 + kGamma * (std::sqrt(std::max(kPhi - d.ubs, 0.0)) - std::sqrt(kPhi));
  return d;
}

// Q_G and Q_S = Q_D on the branch p.
void pump_charges(VecIn y, const VecIn& p, double& qg, double& qs) {
  const PumpTerminals d = pump_terminals(y, p);
  qs = 0.0;
  if (p[kAccumulation] < 0) {
    qg = kCox * (d.ugb - kVFB);
    return;
  }
  if (p[kThreshold] < 0) {
    qg = kCox * kGamma *
         (std::sqrt(std::max(0.25 * kGamma * kGamma + d.ugb - kVFB, 0.0)) - 0.5 * kGamma);
    return;
  }
  const double ugst = d.ugs - d.vte;
  const double ugdt = p[kDrain] > 0 ? d.ugd - d.vte : 0.0;
  // W = U_GDT + U_GST - U_GDT U_GST / (U_GDT + U_GST): on the branch's region (both >= 0) as
  // published; outside it, where Newton's iterates and a step overshooting the turn-off go
  // (U_GST and U_GDT of opposite signs), the denominator is kept at least half of |U_GDT| +
  // |U_GST| so that the extension has no pole at U_GDT = -U_GST (bdf's Newton diverged there,
  // right after the drain's switch at the turn-off, at every step size).
  const double sum = ugdt + ugst;
  const double denominator = std::max(sum, 0.5 * (std::abs(ugdt) + std::abs(ugst)));
  const double w = sum - (denominator > 0.0 ? ugdt * ugst / denominator : 0.0);
  qg = kCox * (2.0 / 3.0 * w + kGamma * std::sqrt(std::max(kPhi - d.ubs, 0.0)));
  qs = -kCox * w / 3.0;
}

Switch pump_switch(const char* name, PumpBranch branch) {
  Switch s;
  s.name = name;
  s.parameter = branch;
  s.s = [branch](double, VecIn y, VecIn p) {
    const PumpTerminals d = pump_terminals(y, p);
    switch (branch) {
      case kSwap:  // v_2 - v_3 with the hysteresis: leaves +1 below -1e-6, -1 above +1e-6
        return (y[7] - y[6]) + p[kSwap] * kSwapHysteresis;
      case kAccumulation:
        return d.ugb - kVFB;
      case kThreshold:
        return d.ugs - d.vte;
      case kDrain:
        return d.ugd - d.vte + p[kDrain] * kDrainHysteresis;
    }
    return 0.0;
  };
  return s;
}
}  // namespace

BuiltinProblem charge_pump() {
  BuiltinProblem p;
  p.name = "charge-pump";
  p.stiff = true;
  p.title = "Charge pump (IVP Test Set PUMP), MOS charge model, index 2, 9 variables";
  p.description =
      "M y' = f(t, y): two capacitors and an n-channel MOS transistor in the charge-oriented\n"
      "nodal analysis; index 2 (the source current); the MOS charges are non-smooth at the\n"
      "device's region boundaries (4 switching functions, branches in p) and the input is a\n"
      "trapezoidal pulse train (its 39 corners are tstops).";
  p.source =
      "IVP Test Set (PUMP), Mazzia & Magherini; Guenther, Denk & Feldmann 1995 (TH Darmstadt "
      "preprint 1745)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 9;
  d.mass = Matrix::Zero(9, 9);
  d.mass(0, 0) = 1.0;
  d.mass(1, 1) = d.mass(1, 2) = 1.0;
  d.mass(2, 3) = d.mass(2, 4) = 1.0;
  d.index = {1, 1, 1, 1, 1, 1, 1, 1, 2};
  d.component_names = {"Y_T1", "Y_S", "Y_T2", "Y_D", "Y_T3", "U_1", "U_2", "U_3", "I"};
  d.p = Vector::Ones(4);
  d.p[kThreshold] = d.p[kDrain] = -1.0;  // the branches at y0 (the integrator sets them anyway)
  d.f = [](double t, VecIn y, VecOut f, VecIn p) {
    double qg = 0.0, qs = 0.0;
    pump_charges(y, p, qg, qs);
    f[0] = -y[8];
    f[1] = 0.0;
    f[2] = 0.0;
    f[3] = -y[5] + pump_input(t);
    f[4] = y[0] - qg;
    f[5] = y[1] - kCS * y[6];
    f[6] = y[2] - qs;
    f[7] = y[3] - kCD * y[7];
    f[8] = y[4] - qs;  // Q_D = Q_S
  };
  p.parameter_names = {"branch: accumulation", "branch: threshold (inversion)",
                       "branch: drain side", "branch: source/drain swap"};
  p.switches = {pump_switch("accumulation", kAccumulation), pump_switch("threshold", kThreshold),
                pump_switch("drain threshold", kDrain), pump_switch("source/drain swap", kSwap)};
  p.t0 = 0.0;
  p.t_end = 1.2e-6;
  for (int k = 0; k < 10; ++k)
    for (double tau : {50.0, 60.0, 110.0, 120.0}) {
      const double t = (k * 120.0 + tau) * 1e-9;
      if (t < p.t_end * (1.0 - 1e-12)) p.tstops.push_back(t);
    }
  p.y0 = Vector::Zero(9);
  {
    double qg = 0.0, qs = 0.0;
    pump_charges(p.y0, d.p, qg, qs);
    p.y0[0] = qg;
  }
  p.rtol = p.atol = 1e-6;
  // charges ~ 1e-12 C (C_ox times a volt), the current ~ 1e-4 A: atol per component
  p.atol_scale = Vector::Ones(9);
  for (int i = 0; i < 5; ++i) p.atol_scale[i] = 1e-12;
  p.atol_scale[8] = 1e-4;
  ReferenceSolution ref;
  ref.t = p.t_end;
  ref.y = Vector::Zero(9);
  ref.y[0] = p.y0[0];  // Q_G(0, 0, 0)
  ref.y[8] = kCox * kGamma / (2.0 * std::sqrt(0.25 * kGamma * kGamma - kVFB)) * kVHigh / 10e-9;
  ref.source =
      "exact (the device off since tau = 119.9 ns: Y_T1 = Q_G(0), I = -dQ_G/dt); the IVP Test "
      "Set's (GAMD) agrees to 6e-6";
  p.reference = ref;
  p.scd_components = {0, 8};
  p.plot_components = {5, 6, 7};
  return p;
}

}  // namespace daekit
