// The step that ends a solve: a solve never fails within round-off of t_end. The last step is
// stretched (RADAU5: when t + 1.0001 h reaches t_end) or shortened (IDA's tstop) to land on
// t_end, and a rounding of t is never left as a remainder for an extra step: no step below what
// t resolves (10 eps |t|, the integrator's smallest) could take it.
//
// NandGate: the NAND gate of the IVP Test Set (Lioen, de Swart: Test Set for Initial Value
// Problem Solvers, CWI report MAS-R9832, 1998, problem "NAND gate"), a CMOS gate of two
// enhancement and one depletion MOSFET (Shichman-Hodges model) driven by two piecewise-linear
// input pulses, written here as the implicit ODE C(y) y' = f(t, y) with 14 node potentials,
// t in [0, 80]. Both pulses end a falling ramp at t = 80, where the pulse function jumps to
// "low, slope 0": F is discontinuous at t_end. Every step that ended on t = 80 failed its error
// test (err 1e2 .. 1e5), the BDF cut the step to a quarter and doubled it after two steps, which
// landed on t = 80 again (R/4 + R/4 + R/2 = R exactly), halving the remainder R per cycle until
// t + h rounded to one ulp (1.4e-14) below 80. The last-step test, t + h >= t_end - 1e-10 |h|,
// did not take that for the last step (1e-10 |h| < 1 ulp for |h| < 1.4e-4): the step ended one
// ulp short, was accepted, and the remainder was below the smallest step t can resolve there
// (1.8e-13): step_size_too_small at rtol = atol = 1e-8 and 1e-10 (with an accurate y).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

// --- the NAND gate model (IVP Test Set) --------------------------------------------------------

struct NandConstants {
  static constexpr double rgs = 4, rgd = 4, rbs = 10, rbd = 10;                   // resistances
  static constexpr double cgs = 0.6e-4, cgd = 0.6e-4, cbd = 2.4e-5, c9 = 0.5e-4;  // capacitances
  static constexpr double delta = 0.02, curis = 1e-14, vth = 25.85, vdd = 5, vbb = -2.5;
  static constexpr double phib = 0.87;  // junction potential of the bulk capacitances
};
using K = NandConstants;

// Threshold voltage, gain and body-effect constants of a MOSFET type: depletion (the load) or
// enhancement (the two inputs). The Test Set's drain function for V_DS < 0 takes the gain
// 1.748e-4 for the enhancement type (1.748e-3 for V_DS > 0); its reference uses both.
struct NandMosfet {
  double vt0, gamma, phi, beta_forward, beta_reverse;
};
constexpr NandMosfet nand_depletion{-2.43, 0.2, 1.28, 5.35e-4, 5.35e-4};
constexpr NandMosfet nand_enhancement{0.2, 0.035, 1.01, 1.748e-3, 1.748e-4};

// Shichman-Hodges drain current for V_DS > 0 (gate-source voltage vgs, bulk-source vbs); the
// sign convention of the Test Set (current out of the drain node).
double nand_drain_forward(const NandMosfet& m, double vds, double vgs, double vbs) {
  const double vte = m.vt0 + m.gamma * (std::sqrt(m.phi - vbs) - std::sqrt(m.phi));
  const double over = vgs - vte;
  if (over <= 0) return 0;
  if (over <= vds) return -m.beta_forward * over * over * (1 + K::delta * vds);  // saturation
  return -m.beta_forward * vds * (2 * over - vds) * (1 + K::delta * vds);        // linear region
}

// The same with drain and source exchanged (V_DS < 0: gate-drain vgd, bulk-drain vbd).
double nand_drain_reverse(const NandMosfet& m, double vds, double vgd, double vbd) {
  const double vte = m.vt0 + m.gamma * (std::sqrt(m.phi - vbd) - std::sqrt(m.phi));
  const double over = vgd - vte;
  if (over <= 0) return 0;
  if (over <= -vds) return m.beta_reverse * over * over * (1 - K::delta * vds);
  return -m.beta_reverse * vds * (2 * over + vds) * (1 - K::delta * vds);
}

double nand_drain(const NandMosfet& m, double vds, double vgs, double vbs, double vgd, double vbd) {
  if (vds > 0) return nand_drain_forward(m, vds, vgs, vbs);
  if (vds < 0) return nand_drain_reverse(m, vds, vgd, vbd);
  return 0;
}

// Current of a bulk pn-junction (bulk-source or bulk-drain voltage v).
double nand_junction(double v) { return v <= 0 ? -K::curis * (std::exp(v / K::vth) - 1) : 0.0; }

// Voltage-dependent bulk-source / bulk-drain capacitance.
double nand_junction_capacitance(double v) {
  return v <= 0 ? K::cbd / std::sqrt(1 - v / K::phib) : K::cbd * (1 + v / (2 * K::phib));
}

// Piecewise-linear input pulse from 0 to 5 V: low until `delay`, rising for 5, high for
// `high`, falling for 5, low for the rest of `period`. Value and derivative at t.
struct NandPulse {
  double v, dv;
};
NandPulse nand_pulse(double t, double delay, double high, double period) {
  constexpr double level = 5, ramp = 5;
  const double s = std::fmod(t, period);
  if (s > delay + ramp + high + ramp) return {0, 0};
  if (s > delay + ramp + high)
    return {level / ramp * (delay + ramp + high + ramp - s), -level / ramp};
  if (s > delay + ramp) return {level, 0};
  if (s > delay) return {level / ramp * (s - delay), level / ramp};
  return {0, 0};
}

// f(t, y) of C(y) y' = f(t, y) (node equations: currents into each node).
void nand_rhs(double t, VecIn y, VecOut f) {
  const NandPulse v1 = nand_pulse(t, 5, 5, 20), v2 = nand_pulse(t, 15, 15, 40);
  const double load =
      nand_drain(nand_depletion, y[1] - y[0], y[4] - y[0], y[2] - y[4], y[4] - y[1], y[3] - K::vdd);
  const double input1 =
      nand_drain(nand_enhancement, y[6] - y[5], v1.v - y[5], y[7] - y[9], v1.v - y[6], y[8] - y[4]);
  const double input2 =
      nand_drain(nand_enhancement, y[11] - y[10], v2.v - y[10], y[12], v2.v - y[11], y[13] - y[9]);
  f[0] = -(y[0] - y[4]) / K::rgs - load;
  f[1] = -(y[1] - K::vdd) / K::rgd + load;
  f[2] = -(y[2] - K::vbb) / K::rbs + nand_junction(y[2] - y[4]);
  f[3] = -(y[3] - K::vbb) / K::rbd + nand_junction(y[3] - K::vdd);
  f[4] = -(y[4] - y[0]) / K::rgs - nand_junction(y[2] - y[4]) - (y[4] - y[6]) / K::rgd -
         nand_junction(y[8] - y[4]);
  f[5] = K::cgs * v1.dv - (y[5] - y[9]) / K::rgs - input1;
  f[6] = K::cgd * v1.dv - (y[6] - y[4]) / K::rgd + input1;
  f[7] = -(y[7] - K::vbb) / K::rbs + nand_junction(y[7] - y[9]);
  f[8] = -(y[8] - K::vbb) / K::rbd + nand_junction(y[8] - y[4]);
  f[9] = -(y[9] - y[5]) / K::rgs - nand_junction(y[7] - y[9]) - (y[9] - y[11]) / K::rgd -
         nand_junction(y[13] - y[9]);
  f[10] = K::cgs * v2.dv - y[10] / K::rgs - input2;
  f[11] = K::cgd * v2.dv - (y[11] - y[9]) / K::rgd + input2;
  f[12] = -(y[12] - K::vbb) / K::rbs + nand_junction(y[12]);
  f[13] = -(y[13] - K::vbb) / K::rbd + nand_junction(y[13] - y[9]);
}

// The capacitance matrix C(y): gate capacitances, bulk junctions, node capacitances C9.
void nand_capacitance(VecIn y, Matrix& C) {
  C.setZero(14, 14);
  const double c35 = nand_junction_capacitance(y[2] - y[4]);
  const double c95 = nand_junction_capacitance(y[8] - y[4]);
  const double c810 = nand_junction_capacitance(y[7] - y[9]);
  const double c1410 = nand_junction_capacitance(y[13] - y[9]);
  C(0, 0) = K::cgs, C(0, 4) = -K::cgs;
  C(1, 1) = K::cgd, C(1, 4) = -K::cgd;
  C(2, 2) = c35, C(2, 4) = -c35;
  C(3, 3) = nand_junction_capacitance(y[3] - K::vdd);
  C(4, 0) = -K::cgs, C(4, 1) = -K::cgd, C(4, 2) = -c35;
  C(4, 4) = K::cgs + K::cgd + c35 + c95 + K::c9, C(4, 8) = -c95;
  C(5, 5) = K::cgs;
  C(6, 6) = K::cgd;
  C(7, 7) = c810, C(7, 9) = -c810;
  C(8, 4) = -c95, C(8, 8) = c95;
  C(9, 7) = -c810, C(9, 9) = c810 + c1410 + K::c9, C(9, 13) = -c1410;
  C(10, 10) = K::cgs;
  C(11, 11) = K::cgd;
  C(12, 12) = nand_junction_capacitance(y[12]);
  C(13, 9) = -c1410, C(13, 13) = c1410;
}

// F(t, y, y') = C(y) y' - f(t, y), as the user ported it.
ImplicitDae nand_gate() {
  ImplicitDae d;
  d.n = 14;
  d.name = "NAND gate (IVP Test Set)";
  d.F = [](double t, VecIn y, VecIn yp, VecOut F) {
    Matrix C;
    nand_capacitance(y, C);
    Vector f(14);
    nand_rhs(t, y, f);
    F = C * yp - f;
  };
  return d;
}

Vector nand_initial_values() {
  Vector y0(14);
  y0 << 5, 5, K::vbb, K::vbb, 5, 3.62385, 5, K::vbb, K::vbb, 3.62385, 0, 3.62385, K::vbb, K::vbb;
  return y0;
}

// y'(0) = C(y0)^{-1} f(0, y0) (C is regular: an index-0 problem; the Test Set's y'(0) = 0 is
// consistent only to the 6 digits of its y0).
Vector nand_initial_derivative(const Vector& y0) {
  Matrix C;
  nand_capacitance(y0, C);
  Vector f(14);
  nand_rhs(0.0, y0, f);
  return C.partialPivLu().solve(f);
}

// The Test Set's reference y(80) (PSIDE at rtol = atol = 1e-16, nandsoln).
Vector nand_reference() {
  Vector y(14);
  y << 4.971088699385777, 4.999752103929311, -2.499998781491227, -2.499999999999975,
      4.970837023296724, -0.2091214032073855, 4.970593243278363, -2.500077409198803,
      -2.499998781491227, -0.2090289583878100, -0.2399999999966269e-3, -0.2091214032073855,
      -2.499999999999991, -2.500077409198803;
  return y;
}

// The Test Set's mixed error significant correct digits: -log10 max_i |y_i - ref_i| /
// (atol / rtol + |ref_i|).
double nand_mescd(const Vector& y, const Vector& ref, double rtol, double atol) {
  const Vector e = (y - ref).cwiseAbs().cwiseQuotient(
      (Vector::Constant(ref.size(), atol / rtol) + ref.cwiseAbs()));
  return -std::log10(e.maxCoeff());
}

}  // namespace

TEST(LastStep, NandGateBdfReachesTheEnd) {
  const ImplicitDae dae = nand_gate();
  const Vector y0 = nand_initial_values();
  const Vector yp0 = nand_initial_derivative(y0);
  const Vector ref = nand_reference();
  for (const double tol : {1e-8, 1e-10}) {
    Options options;
    options.rtol = options.atol = tol;
    options.store_steps = false;
    const Result r = solve(dae, 0.0, 80.0, y0, yp0, "bdf", options);
    ASSERT_TRUE(r.ok()) << "tol " << tol << ": " << to_string(r.status) << ": " << r.message;
    EXPECT_EQ(r.t, 80.0);
    const double digits = nand_mescd(r.y, ref, tol, tol);
    std::printf("NAND gate bdf tol %g: %ld steps, mescd %.2f\n", tol, r.stats.naccept, digits);
    EXPECT_GE(digits, 7.0) << "tol " << tol;
  }
}

// Steps of 0.1 (hmax) from t0 = 1e6: 1e6 + 0.1 + 0.1 + 0.1 is one ulp of t (1.2e-10) short of
// t_end = 1e6 + 0.3, below the smallest step t can resolve there (10 eps |t| = 2.2e-9). The third
// step must land on t_end instead of leaving that remainder (radau5 and the BDF, which chooses
// its own steps, both capped by hmax).
TEST(LastStep, RoundingOfTIsNotLeftAsARemainder) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn y, VecOut f) { f[0] = -1e-3 * y[0]; };
  const double t0 = 1e6, t_end = 1e6 + 0.3, step = 0.1;
  const double sum = t0 + step + step + step;  // the integrator's t after three steps
  ASSERT_LT(sum, t_end);
  ASSERT_LT(t_end - sum, 10 * std::numeric_limits<double>::epsilon() * t_end);
  for (const char* method : {"radau5", "bdf"}) {
    Options o;
    o.rtol = o.atol = 1e-6;
    o.h0 = o.hmax = step;
    const Result r = solve(d, t0, t_end, Vector::Ones(1), method, o);
    ASSERT_TRUE(r.ok()) << method << ": " << r.message;
    EXPECT_EQ(r.t, t_end) << method;
    EXPECT_EQ(r.stats.naccept, 3) << method;
  }
}

// RADAU5's rule: a step that ends short of t_end by at most 1e-4 of its size is stretched to
// t_end rather than followed by a step of 2e-6 (steps of 0.1 to t_end = 1 + 2e-6).
TEST(LastStep, StepWithinOneTenThousandthIsStretched) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn y, VecOut f) { f[0] = -y[0]; };
  Options o;
  o.rtol = o.atol = 1e-3;
  o.h0 = o.hmax = 0.1;
  const double t_end = 1.0 + 2e-6;
  const Result r = solve(d, 0.0, t_end, Vector::Ones(1), "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.t, t_end);
  EXPECT_EQ(r.stats.naccept, 10);
  EXPECT_NEAR(r.h_last, 0.1 + 2e-6, 1e-12);
}

// An event located within round-off before t_end (1 ulp, 1e-15, 1e-14 before t_end = 1) that
// restarts the method: the rest of the interval is either one step (when t resolves it) or no
// step at all, and the solve reaches t_end (it failed with step_size_too_small: the BDF's
// restart step was 4 eps, the rest below the smallest step).
TEST(LastStep, EventWithinRoundOffOfTheEnd) {
  MassMatrixDae d;
  d.n = 1;
  d.f = [](double, VecIn, VecOut f) { f[0] = 1.0; };
  const double t_end = 1.0;
  for (const double before : {std::numeric_limits<double>::epsilon() / 2, 1e-15, 1e-14})
    for (const char* method : {"radau5", "bdf"}) {
      Options o;
      o.rtol = o.atol = 1e-6;
      o.output_times = {0.5, t_end};
      Event e;
      e.name = "just before the end";
      const double t_event = t_end - before;
      e.r = [t_event](double t, VecIn, VecIn) { return t - t_event; };
      e.action = [](double, Vector&) { return EventAction::Restart; };
      o.events.push_back(e);
      const Result r = solve(d, 0.0, t_end, Vector::Zero(1), method, o);
      ASSERT_TRUE(r.ok()) << method << ", event " << before << " before t_end: " << r.message;
      EXPECT_EQ(r.t, t_end) << method << " " << before;
      ASSERT_EQ(r.events.size(), 1u) << method << " " << before;
      EXPECT_NEAR(r.y[0], t_end, 1e-13) << method << " " << before;
      ASSERT_EQ(r.t_out.size(), 2u) << method << " " << before;
      EXPECT_NEAR(r.y_out[1][0], t_end, 1e-13) << method << " " << before;
    }
}
