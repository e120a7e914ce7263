// The pendulum and Andrews' squeezer in the index-2 form of paper 002 (problems/index2.hpp).
#include "daekit/nonlinear/index2.hpp"
#include "daekit/problems/index2.hpp"

namespace daekit {

ImplicitIndex2Dae pendulum_index2_form() {
  ImplicitIndex2Dae d;
  d.name = "pendulum (index-2 form)";
  d.n = 4;
  d.m = 1;
  d.component_names = {"u1", "u2", "v1", "v2", "lambda"};
  d.f[0] = [](double, VecIn y, VecIn, VecOut out) { out << y[2], y[3], 0.0, -1.0; };
  d.f[1] = [](double, VecIn y, VecIn z, VecOut out) {
    out << 0.0, 0.0, -2 * y[0] * z[0], -2 * y[1] * z[0];
  };
  d.f_y[0] = [](double, VecIn, VecIn, MatOut J) {
    J(0, 2) = 1.0;
    J(1, 3) = 1.0;
  };
  d.f_y[1] = [](double, VecIn, VecIn z, MatOut J) {
    J(2, 0) = -2 * z[0];
    J(3, 1) = -2 * z[0];
  };
  d.f_z[1] = [](double, VecIn y, VecIn, MatOut J) {
    J(2, 0) = -2 * y[0];
    J(3, 0) = -2 * y[1];
  };
  d.g = [](double, VecIn y, VecOut g) { g[0] = y[0] * y[2] + y[1] * y[3]; };
  d.g_y = [](double, VecIn y, MatOut G) { G << y[2], y[3], y[0], y[1]; };
  return d;
}

ImplicitIndex2Dae andrews_index2_form() {
  ImplicitIndex2Dae d = index2_form(*andrews().mechanical);
  d.name = "andrews (index-2 form)";
  return d;
}

Vector andrews_index2_initial_values() {
  const BuiltinProblem p = andrews();  // y = (q, v, w, lambda): 7, 7, 7, 6
  Vector x(20);
  x << p.y0.head(14), p.y0.tail(6);
  return x;
}

}  // namespace daekit
