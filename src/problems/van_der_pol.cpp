// Van der Pol's equation in singular-perturbation form (Bendtsen and Thomsen (1999), ch. 1, form
// (c)):
//   y1' = y2,  eps y2' = (1 - y1^2) y2 - y1,  eps = 1e-6,  y(0) = (2, 0),  t in [0, 2],
// written as M y' = f with M = diag(1, eps). Reference y(2) from the IVP Test Set (problem
// VDPOL, which scales the second equation by 1/eps instead).
#include "daekit/problems/registry.hpp"

namespace daekit {

BuiltinProblem van_der_pol() {
  constexpr double eps = 1e-6;
  BuiltinProblem p;
  p.name = "vanderpol";
  p.stiff = true;
  p.title = "Van der Pol, singular perturbation form, eps = 1e-6";
  p.description =
      "y1' = y2, eps y2' = (1 - y1^2) y2 - y1, eps = 1e-6, y(0) = (2, 0), t in [0, 2];\n"
      "very stiff relaxation oscillation.";
  p.source = "IVP Test Set (VDPOL); Hairer-Wanner II, IV.10; Bendtsen and Thomsen (1999), ch. 1";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 2;
  d.mass = Matrix::Identity(2, 2);
  d.mass(1, 1) = eps;
  d.component_names = {"y1", "y2"};
  d.f = [](double, VecIn y, VecOut f) {
    f[0] = y[1];
    f[1] = (1 - y[0] * y[0]) * y[1] - y[0];
  };
  d.jacobian = [](double, VecIn y, MatOut J) {
    J(0, 1) = 1;
    J(1, 0) = -2 * y[0] * y[1] - 1;
    J(1, 1) = 1 - y[0] * y[0];
  };
  p.t0 = 0;
  p.t_end = 2;
  p.y0 = Vector(2);
  p.y0 << 2, 0;
  p.rtol = p.atol = 1e-6;
  p.plot_components = {0};  // y2 has spikes of ~1e6 at the jumps
  ReferenceSolution ref;
  ref.t = 2;
  ref.y = Vector(2);
  ref.y << 1.706167732170469, -0.8928097010248125;
  ref.source = "IVP Test Set, VDPOL (eps = 1e-6), y(2)";
  p.reference = ref;
  return p;
}

}  // namespace daekit
