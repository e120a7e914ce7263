// The Lobatto IIIA-B-C-C*-D coefficients and the SPARK matrix Q (tableaus/lobatto.hpp), from
// integrals of Lagrange polynomials in long double: no Vandermonde system is solved, and the
// only linear system (for Q) is s x s.
#include "daekit/tableaus/lobatto.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace daekit {

namespace {

using Real = long double;
using Poly = std::vector<Real>;  // monomial coefficients, lowest degree first
using RealMatrix = std::vector<std::vector<Real>>;

// P_n(x) and P'_n(x) by the three-term recurrence (|x| < 1 for the derivative).
void legendre(int n, Real x, Real& p, Real& dp) {
  Real p0 = 1, p1 = x;
  if (n == 0) {
    p = 1;
    dp = 0;
    return;
  }
  for (int k = 1; k < n; ++k) {
    const Real p2 = ((2 * k + 1) * x * p1 - k * p0) / (k + 1);
    p0 = p1;
    p1 = p2;
  }
  p = p1;
  dp = n * (p0 - x * p1) / (1 - x * x);
}

// c_1 = 0, c_s = 1 and the zeros of P'_{s-1}(2x - 1): Newton from the Chebyshev-Lobatto points,
// with P''_n = (2x P'_n - n(n+1) P_n) / (1 - x^2) (Legendre's equation).
std::vector<Real> lobatto_nodes(int s) {
  const int n = s - 1;
  std::vector<Real> c{0};
  for (int k = 1; k < n; ++k) {
    Real x = -std::cos(static_cast<Real>(M_PI) * k / n);
    for (int it = 0; it < 100; ++it) {
      Real p, dp;
      legendre(n, x, p, dp);
      const Real ddp = (2 * x * dp - n * (n + 1) * p) / (1 - x * x);
      const Real dx = dp / ddp;
      x -= dx;
      if (std::abs(dx) < 1e-19L) break;
    }
    c.push_back((x + 1) / 2);
  }
  c.push_back(1);
  return c;
}

// The Lagrange polynomial of node `j` among `nodes`.
Poly lagrange(const std::vector<Real>& nodes, size_t j) {
  Poly p{1};
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (k == j) continue;
    const Real scale = nodes[j] - nodes[k];
    Poly q(p.size() + 1, 0);
    for (size_t d = 0; d < p.size(); ++d) {
      q[d + 1] += p[d] / scale;
      q[d] -= nodes[k] * p[d] / scale;
    }
    p.swap(q);
  }
  return p;
}

// int_0^x p.
Real integral(const Poly& p, Real x) {
  Real sum = 0, power = x;
  for (size_t d = 0; d < p.size(); ++d, power *= x) sum += p[d] * power / static_cast<Real>(d + 1);
  return sum;
}

// A(i, j) = int_0^{c_i} l_{j - first}(nodes) - shift l(0), for j in [first, first + nodes.size()).
void integrated_basis(const std::vector<Real>& c, const std::vector<Real>& nodes, size_t first,
                      Real shift, RealMatrix& A) {
  for (size_t j = 0; j < nodes.size(); ++j) {
    const Poly l = lagrange(nodes, j);
    for (size_t i = 0; i < c.size(); ++i) A[i][first + j] = integral(l, c[i]) - shift * l[0];
  }
}

// X = L^{-1} R for square L (Gaussian elimination with partial pivoting).
RealMatrix solve(RealMatrix L, RealMatrix R) {
  const size_t n = L.size();
  for (size_t k = 0; k < n; ++k) {
    size_t pivot = k;
    for (size_t i = k + 1; i < n; ++i)
      if (std::abs(L[i][k]) > std::abs(L[pivot][k])) pivot = i;
    std::swap(L[k], L[pivot]);
    std::swap(R[k], R[pivot]);
    for (size_t i = k + 1; i < n; ++i) {
      const Real factor = L[i][k] / L[k][k];
      for (size_t j = k; j < n; ++j) L[i][j] -= factor * L[k][j];
      for (size_t j = 0; j < R[i].size(); ++j) R[i][j] -= factor * R[k][j];
    }
  }
  for (size_t k = n; k-- > 0;) {
    for (size_t j = 0; j < R[k].size(); ++j) {
      Real sum = R[k][j];
      for (size_t i = k + 1; i < n; ++i) sum -= L[k][i] * R[i][j];
      R[k][j] = sum / L[k][k];
    }
  }
  return R;
}

Matrix to_matrix(const RealMatrix& A) {
  Matrix M(static_cast<Eigen::Index>(A.size()), static_cast<Eigen::Index>(A[0].size()));
  for (size_t i = 0; i < A.size(); ++i)
    for (size_t j = 0; j < A[i].size(); ++j) M(i, j) = static_cast<double>(A[i][j]);
  return M;
}

// Q = (A~_1; e_s^T)^{-1} (A~_1 0; 0^T 1), (3.4).
RealMatrix spark_q(const RealMatrix& iiia, size_t s) {
  RealMatrix L(s, std::vector<Real>(s, 0)), R(s, std::vector<Real>(s + 1, 0));
  for (size_t i = 1; i < s; ++i)
    for (size_t j = 0; j < s; ++j) L[i - 1][j] = R[i - 1][j] = iiia[i][j];
  L[s - 1][s - 1] = 1;
  R[s - 1][s] = 1;
  return solve(L, R);
}

}  // namespace

const char* to_string(LobattoFamily family) {
  switch (family) {
    case LobattoFamily::IIIA:
      return "IIIA";
    case LobattoFamily::IIIB:
      return "IIIB";
    case LobattoFamily::IIIC:
      return "IIIC";
    case LobattoFamily::IIICstar:
      return "IIIC*";
    case LobattoFamily::IIID:
      return "IIID";
  }
  return "?";
}

LobattoCoefficients lobatto_coefficients(int s) {
  if (s < 2 || s > 9)
    throw InvalidArgument("lobatto_coefficients: the number of stages must be in [2, 9], got " +
                          std::to_string(s));
  const size_t n = static_cast<size_t>(s);
  const std::vector<Real> c = lobatto_nodes(s);
  std::vector<Real> b(n);
  for (size_t j = 0; j < n; ++j) b[j] = integral(lagrange(c, j), 1);

  RealMatrix iiia(n, std::vector<Real>(n, 0)), iiib = iiia, iiic = iiia, iiicstar = iiia,
                                               iiid = iiia;
  integrated_basis(c, c, 0, 0, iiia);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) iiib[i][j] = b[j] * (1 - iiia[j][i] / b[i]);
  const std::vector<Real> tail(c.begin() + 1, c.end()), head(c.begin(), c.end() - 1);
  for (size_t i = 0; i < n; ++i) iiic[i][0] = b[0];
  integrated_basis(c, tail, 1, b[0], iiic);
  integrated_basis(c, head, 0, 0, iiicstar);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) iiid[i][j] = (iiic[i][j] + iiicstar[i][j]) / 2;

  LobattoCoefficients k;
  k.s = s;
  k.c.resize(s);
  k.b.resize(s);
  for (size_t i = 0; i < n; ++i) {
    k.c[i] = static_cast<double>(c[i]);
    k.b[i] = static_cast<double>(b[i]);
  }
  k.A = {to_matrix(iiia), to_matrix(iiib), to_matrix(iiic), to_matrix(iiicstar), to_matrix(iiid)};
  k.Q = to_matrix(spark_q(iiia, n));
  k.lagrange.resize(s, s);
  for (size_t j = 0; j < n; ++j) {
    const Poly l = lagrange(c, j);
    for (size_t d = 0; d < n; ++d) k.lagrange(j, d) = static_cast<double>(l[d]);
  }
  return k;
}

Matrix LobattoCoefficients::alpha(LobattoFamily f) const {
  Matrix a(s + 1, s);
  a.topRows(s) = matrix(f);
  a.row(s) = b.transpose();
  return a;
}

RungeKuttaTableau LobattoCoefficients::tableau(LobattoFamily f) const {
  RungeKuttaTableau t;
  t.name = std::string("Lobatto ") + to_string(f) + "(" + std::to_string(s) + ")";
  t.A = matrix(f);
  t.b = b;
  t.c = c;
  t.order = 2 * s - 2;
  const int stage_orders[kLobattoFamilies] = {s, s - 2, s - 1, s - 1, s - 1};
  t.stage_order = stage_orders[static_cast<int>(f)];
  return t;
}

}  // namespace daekit
