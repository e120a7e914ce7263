// Robertson's chemical kinetics (IVP Test Set, problem ROBER; Hairer-Wanner II, IV.10):
//   y1' = -0.04 y1 + 1e4 y2 y3
//   y2' =  0.04 y1 - 1e4 y2 y3 - 3e7 y2^2
//   y3' =  3e7 y2^2
// y(0) = (1, 0, 0), t in [0, 1e11]. Stiff ODE with a conservation law y1 + y2 + y3 = 1.
// Parameters p = (k1, k2, k3) = (0.04, 1e4, 3e7), the rate constants (sensitivities, fits).
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
// The rate constants: p, or the defaults when a callback is called without p (tests, users).
constexpr double kRobertsonRates[3] = {0.04, 1e4, 3e7};
double rate(VecIn p, int i) { return p.size() > i ? p[i] : kRobertsonRates[i]; }
}  // namespace

BuiltinProblem robertson() {
  BuiltinProblem p;
  p.name = "robertson";
  p.stiff = true;
  p.title = "Robertson chemical kinetics (ROBER), t in [0, 1e11]";
  p.description =
      "three species, rate constants 0.04, 1e4, 3e7; stiff; y1 + y2 + y3 = 1 is conserved.";
  p.source = "IVP Test Set (ROBER); Hairer-Wanner II, IV.10";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 3;
  d.component_names = {"y1", "y2", "y3"};
  d.p = Vector(3);
  d.p << kRobertsonRates[0], kRobertsonRates[1], kRobertsonRates[2];
  p.parameter_names = {"k1", "k2", "k3"};
  d.f = [](double, VecIn y, VecOut f, VecIn p) {
    const double k1 = rate(p, 0), k2 = rate(p, 1), k3 = rate(p, 2);
    f[0] = -k1 * y[0] + k2 * y[1] * y[2];
    f[2] = k3 * y[1] * y[1];
    f[1] = -f[0] - f[2];
  };
  d.jacobian = [](double, VecIn y, MatOut J, VecIn p) {
    const double k1 = rate(p, 0), k2 = rate(p, 1), k3 = rate(p, 2);
    J(0, 0) = -k1;
    J(0, 1) = k2 * y[2];
    J(0, 2) = k2 * y[1];
    J(2, 1) = 2 * k3 * y[1];
    J(1, 0) = k1;
    J(1, 1) = -k2 * y[2] - 2 * k3 * y[1];
    J(1, 2) = -k2 * y[1];
  };
  p.t0 = 0;
  p.t_end = 1e11;
  p.y0 = Vector(3);
  p.y0 << 1, 0, 0;
  p.rtol = 1e-6;
  p.atol = 1e-12;
  p.h0 = 1e-6;
  ReferenceSolution ref;
  ref.t = 1e11;
  ref.y = Vector(3);
  ref.y << 0.2083340149701255e-07, 0.8333360770334713e-13, 0.9999999791665050;
  ref.source = "IVP Test Set, ROBER, y(1e11)";
  p.reference = ref;
  // y1, y2, y3 are concentrations (mass fractions, y1 + y2 + y3 = 1), physically in [0, 1]. At
  // t = 1e11 y1 ~ 2e-8 and y2 ~ 8e-14 lie far below any absolute tolerance, so without the
  // constraint a solver may return (and continue from) negative concentrations, and negative
  // values are unstable: for y2 < -1e4 y3 / 6e7 ~ -1.7e-4, df2/dy2 > 0 (radau5 at rtol = atol in
  // [1.8e-6, 5.6e-5] returned y1 ~ -1e7 as a success without it: docs/benchmarks.md, sweep).
  // No per-component absolute tolerances (atol_scale): the IVP Test Set prescribes none for ROBER
  // (rober.f, settolerances: tolvec = .false., one scalar atol for all components); its report.f
  // measures tiny components such as y2 with the mixed error (mescd) instead.
  p.nonnegative = {0, 1, 2};
  return p;
}

}  // namespace daekit
