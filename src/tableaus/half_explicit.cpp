// Half-explicit Runge-Kutta tableaus (tableaus/half_explicit.hpp): the published coefficients of
// Brasey and Hairer (1993) and the embedded weights computed from their order conditions.
#include "daekit/tableaus/half_explicit.hpp"

#include <cmath>

namespace daekit {

namespace {

// bh with sum_j bh_j phi_k(j) = rhs_k for the classical conditions phi_k (rows of V) and
// bh_1 fixed: a square system solved by elimination (at most 5 x 5).
Vector embedded_weights(const Matrix& V, const Vector& rhs, double bh1) {
  const int s = static_cast<int>(V.cols());
  Matrix M = Matrix::Zero(s, s);
  Vector r(s);
  M.topRows(s - 1) = V;
  r.head(s - 1) = rhs;
  M(s - 1, 0) = 1.0;
  r[s - 1] = bh1;
  return M.partialPivLu().solve(r);
}

}  // namespace

HalfExplicitTableau brasey_hairer_3() {
  HalfExplicitTableau t;
  t.name = "Brasey-Hairer 3-stage (order 3)";
  t.A = Matrix::Zero(3, 3);
  t.A(1, 0) = 1.0 / 3.0;
  t.A(2, 0) = -1.0;
  t.A(2, 1) = 2.0;
  t.b = Vector::Zero(3);
  t.b << 0.0, 0.75, 0.25;
  t.c = Vector::Zero(3);
  t.c << 0.0, 1.0 / 3.0, 1.0;
  t.order = 3;
  t.embedded_order = 2;
  Matrix V(2, 3);
  V.row(0).setOnes();
  V.row(1) = t.c.transpose();
  Vector rhs(2);
  rhs << 1.0, 0.5;
  t.b_embedded = embedded_weights(V, rhs, 1.0 / 6.0);
  return t;
}

HalfExplicitTableau brasey_hairer_hem4() {
  const double r6 = std::sqrt(6.0);
  HalfExplicitTableau t;
  t.name = "Brasey-Hairer HEM4 (5 stages, order 4)";
  t.A = Matrix::Zero(5, 5);
  t.A(1, 0) = 3.0 / 10.0;
  t.A(2, 0) = (1.0 + r6) / 30.0;
  t.A(2, 1) = (11.0 - 4.0 * r6) / 30.0;
  t.A(3, 0) = (-79.0 - 31.0 * r6) / 150.0;
  t.A(3, 1) = (-1.0 - 4.0 * r6) / 30.0;
  t.A(3, 2) = (24.0 + 11.0 * r6) / 25.0;
  t.A(4, 0) = (14.0 + 5.0 * r6) / 6.0;
  t.A(4, 1) = (-8.0 + 7.0 * r6) / 6.0;
  t.A(4, 2) = (-9.0 - 7.0 * r6) / 4.0;
  t.A(4, 3) = (9.0 - r6) / 4.0;
  t.b = Vector::Zero(5);
  t.b << 0.0, 0.0, (16.0 - r6) / 36.0, (16.0 + r6) / 36.0, 1.0 / 9.0;
  t.c = Vector::Zero(5);
  t.c << 0.0, 0.3, (4.0 - r6) / 10.0, (4.0 + r6) / 10.0, 1.0;
  t.order = 4;
  t.embedded_order = 3;
  Matrix V(4, 5);
  V.row(0).setOnes();
  V.row(1) = t.c.transpose();
  V.row(2) = t.c.array().square().matrix().transpose();
  V.row(3) = (t.A * t.c).transpose();
  Vector rhs(4);
  rhs << 1.0, 0.5, 1.0 / 3.0, 1.0 / 6.0;
  t.b_embedded = embedded_weights(V, rhs, 0.1);
  return t;
}

HalfExplicitTableau half_explicit_tableau(const std::string& name) {
  if (name == "bh3") return brasey_hairer_3();
  if (name == "hem4") return brasey_hairer_hem4();
  throw InvalidArgument("unknown half-explicit tableau '" + name + "'; valid: hem4, bh3");
}

}  // namespace daekit
