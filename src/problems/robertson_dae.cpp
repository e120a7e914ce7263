// Robertson's chemical kinetics as an index-1 DAE (the form of the SUNDIALS IDA example
// idaRoberts_dns, which integrates on [0, 4e10]; here [0, 1e11] as the IVP Test Set's ROBER,
// so that its reference values apply):
//   y1' = -0.04 y1 + 1e4 y2 y3
//   y2' =  0.04 y1 - 1e4 y2 y3 - 3e7 y2^2
//   0   =  y1 + y2 + y3 - 1
// M = diag(1, 1, 0), y(0) = (1, 0, 0). The conservation law of ROBER replaces y3's ODE, so the
// solution is ROBER's and its reference y(1e11) applies.
#include "daekit/problems/registry.hpp"

namespace daekit {

BuiltinProblem robertson_dae() {
  BuiltinProblem p;
  p.name = "robertson-dae";
  p.stiff = true;
  p.title = "Robertson chemical kinetics as an index-1 DAE, t in [0, 1e11]";
  p.description =
      "y1' = -0.04 y1 + 1e4 y2 y3, y2' = 0.04 y1 - 1e4 y2 y3 - 3e7 y2^2,\n"
      "0 = y1 + y2 + y3 - 1; M = diag(1, 1, 0); index 1; stiff; y(0) = (1, 0, 0).";
  p.source = "SUNDIALS IDA example idaRoberts_dns (on [0, 4e10]); IVP Test Set (ROBER)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 3;
  d.mass = Matrix::Identity(3, 3);
  d.mass(2, 2) = 0.0;
  d.index = {1, 1, 1};
  d.component_names = {"y1", "y2", "y3"};
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[1] = -f[0] - 3e7 * y[1] * y[1];
    f[2] = y[0] + y[1] + y[2] - 1.0;
  };
  d.jacobian = [](double, VecIn y, MatOut J) {
    J(0, 0) = -0.04;
    J(0, 1) = 1e4 * y[2];
    J(0, 2) = 1e4 * y[1];
    J(1, 0) = 0.04;
    J(1, 1) = -1e4 * y[2] - 6e7 * y[1];
    J(1, 2) = -1e4 * y[1];
    J(2, 0) = 1.0;
    J(2, 1) = 1.0;
    J(2, 2) = 1.0;
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
  // Concentrations, physically in [0, 1] (see robertson.cpp); no atol_scale, as for ROBER.
  p.nonnegative = {0, 1, 2};
  return p;
}

}  // namespace daekit
