// Test problem (5.1) of 002_749bc8912438bec0.txt (Jay, Section 5): a Hessenberg index-2 DAE
// with the right-hand side split into five parts and a known exact solution (see
// problems/index2.hpp). Analytic Jacobians of every part and of g.
#include <cmath>

#include "daekit/problems/index2.hpp"

namespace daekit {

namespace {

void add_parts(double t, VecIn y, VecIn z, const std::array<bool, 5>& on, VecOut out) {
  const double y1 = y[0], y2 = y[1], z1 = z[0];
  out.setZero();
  if (on[0]) out += Eigen::Vector2d(y2 - 2 * y1 * y1 * y2, -y1 * y1);
  if (on[1]) out += Eigen::Vector2d(y1 * y2 * y2 * z1 * z1, std::exp(-t) * z1 - y1);
  if (on[2]) out += Eigen::Vector2d(-y2 * y2 * z1, -3 * y2 * y2 * z1);
  if (on[3]) out += Eigen::Vector2d(2 * y1 * y2 * y2 - 2 * std::exp(-2 * t) * y1 * y2, z1);
  if (on[4]) out += Eigen::Vector2d(2 * y2 * y2 * z1 * z1, y1 * y1 * y2 * y2);
}

// d f_k / d(y1, y2, z1) as a 2 x 3 matrix.
Eigen::Matrix<double, 2, 3> part_jacobian(int k, double t, VecIn y, VecIn z) {
  const double y1 = y[0], y2 = y[1], z1 = z[0];
  Eigen::Matrix<double, 2, 3> J;
  switch (k) {
    case 0:
      J << -4 * y1 * y2, 1 - 2 * y1 * y1, 0, -2 * y1, 0, 0;
      break;
    case 1:
      J << y2 * y2 * z1 * z1, 2 * y1 * y2 * z1 * z1, 2 * y1 * y2 * y2 * z1, -1, 0, std::exp(-t);
      break;
    case 2:
      J << 0, -2 * y2 * z1, -y2 * y2, 0, -6 * y2 * z1, -3 * y2 * y2;
      break;
    case 3: {
      const double e = std::exp(-2 * t);
      J << 2 * y2 * y2 - 2 * e * y2, 4 * y1 * y2 - 2 * e * y1, 0, 0, 0, 1;
      break;
    }
    default:
      J << 0, 4 * y2 * z1 * z1, 4 * y2 * y2 * z1, 2 * y1 * y2 * y2, 2 * y1 * y1 * y2, 0;
      break;
  }
  return J;
}

}  // namespace

ImplicitIndex2Dae jay_index2(const std::array<bool, 5>& active) {
  ImplicitIndex2Dae d;
  d.name = "jay-index2";
  d.n = 2;
  d.m = 1;
  d.component_names = {"y1", "y2", "z1"};
  for (int k = 0; k < 5; ++k) {
    if (!active[static_cast<size_t>(k)]) continue;
    std::array<bool, 5> only{};
    only[static_cast<size_t>(k)] = true;
    d.f[static_cast<size_t>(k)] = [only](double t, VecIn y, VecIn z, VecOut out) {
      add_parts(t, y, z, only, out);
    };
    d.f_y[static_cast<size_t>(k)] = [k](double t, VecIn y, VecIn z, MatOut J) {
      J = part_jacobian(k, t, y, z).leftCols(2);
    };
    if (k > 0)
      d.f_z[static_cast<size_t>(k)] = [k](double t, VecIn y, VecIn z, MatOut J) {
        J = part_jacobian(k, t, y, z).rightCols(1);
      };
  }
  d.g = [](double, VecIn y, VecOut g) { g[0] = y[0] * y[0] * y[1] - 1; };
  d.g_y = [](double, VecIn y, MatOut G) {
    G(0, 0) = 2 * y[0] * y[1];
    G(0, 1) = y[0] * y[0];
  };
  return d;
}

Vector jay_index2_exact(double t) {
  Vector x(3);
  x << std::exp(t), std::exp(-2 * t), std::exp(2 * t);
  return x;
}

BuiltinProblem jay_index2_builtin() {
  BuiltinProblem p;
  p.name = "jay-index2";
  p.title = "Jay's test problem (5.1), Hessenberg index 2, exact solution";
  p.description =
      "y' = f_1(y) + .. + f_5(t, y, z), 0 = y1^2 y2 - 1 (Jay (2003), (5.1)); y = (e^t, e^-2t),\n"
      "z = e^2t; index tags (1, 1, 2). As an ImplicitIndex2Dae with its five parts:\n"
      "jay_index2() in problems/index2.hpp (the SPARK convergence test of Fig. 5.1).";
  p.source = "L. O. Jay, BIT 43 (2003), Section 5";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 3;
  d.mass = Matrix::Identity(3, 3);
  d.mass(2, 2) = 0.0;
  d.index = {1, 1, 2};
  d.component_names = {"y1", "y2", "z1"};
  const std::array<bool, 5> all{true, true, true, true, true};
  d.f = [all](double t, VecIn x, VecOut out) {
    add_parts(t, x.head(2), x.tail(1), all, out.head(2));
    out[2] = x[0] * x[0] * x[1] - 1;
  };
  d.jacobian = [](double t, VecIn x, MatOut J) {
    for (int k = 0; k < 5; ++k) J.topRows(2) += part_jacobian(k, t, x.head(2), x.tail(1));
    J(2, 0) = 2 * x[0] * x[1];
    J(2, 1) = x[0] * x[0];
  };
  p.t0 = 0.0;
  p.t_end = 1.0;
  p.y0 = jay_index2_exact(0.0);
  p.rtol = p.atol = 1e-6;
  p.scd_components = {0, 1};  // y (z: index 2, accurate to stage order only)
  p.reference =
      ReferenceSolution{1.0, jay_index2_exact(1.0), "exact solution (Jay (2003), Section 5)"};
  return p;
}

}  // namespace daekit
