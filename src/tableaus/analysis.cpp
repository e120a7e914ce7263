// Tableau analysis (tableaus/analysis.hpp): order conditions by rooted trees, simplifying
// conditions, linear stability through the polynomials P and Q of R = P / Q and the
// E-polynomial, algebraic stability, AN-stability search, B- and BN-stability checks.
#include "daekit/tableaus/analysis.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>

namespace daekit {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = std::numbers::pi;

// Rooted trees up to order n, each as the multiset of its root's subtrees (indices into the
// list, non-increasing), generated order by order; with order and density gamma.
struct Tree {
  int order = 1;
  double gamma = 1.0;
  std::vector<int> children;
};

std::vector<Tree> rooted_trees(int n) {
  std::vector<Tree> trees;
  if (n < 1) return trees;
  trees.push_back(Tree{});  // the single node
  std::vector<int> current;
  for (int order = 2; order <= n; ++order) {
    const int before = static_cast<int>(trees.size());  // trees of orders < `order`
    std::function<void(int, int)> grow = [&](int remaining, int max_id) {
      if (remaining == 0) {
        Tree t;
        t.order = order;
        t.gamma = order;
        for (int c : current) t.gamma *= trees[static_cast<size_t>(c)].gamma;
        t.children = current;
        trees.push_back(std::move(t));
        return;
      }
      for (int id = max_id; id >= 0; --id) {
        const int o = trees[static_cast<size_t>(id)].order;
        if (o > remaining) continue;
        current.push_back(id);
        grow(remaining - o, id);
        current.pop_back();
      }
    };
    grow(order - 1, before - 1);
  }
  return trees;
}

// max over trees of each order of |gamma b^T Phi - 1| for the weights w.
std::vector<double> tree_residuals(const std::vector<Tree>& trees, const Matrix& A, const Vector& w,
                                   int n) {
  const int s = static_cast<int>(A.rows());
  std::vector<double> res(static_cast<size_t>(n), 0.0);
  Matrix APhi(s, static_cast<Eigen::Index>(trees.size()));
  Vector phi(s);
  for (size_t k = 0; k < trees.size(); ++k) {
    const Tree& t = trees[k];
    phi.setOnes();
    for (int c : t.children) phi = phi.cwiseProduct(APhi.col(c));
    APhi.col(static_cast<Eigen::Index>(k)) = A * phi;
    const double r = std::abs(t.gamma * w.dot(phi) - 1.0);
    double& slot = res[static_cast<size_t>(t.order - 1)];
    slot = std::max(slot, std::isfinite(r) ? r : kInf);
  }
  return res;
}

// Coefficients of det(I - z X) in ascending powers of z (Faddeev-LeVerrier in long double).
Vector det_polynomial(const Matrix& X) {
  const int s = static_cast<int>(X.rows());
  using LMatrix = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;
  const LMatrix A = X.cast<long double>();
  LMatrix Mk = LMatrix::Zero(s, s);
  Vector c(s + 1);
  long double ck = 1.0L;
  c[0] = 1.0;
  for (int k = 1; k <= s; ++k) {
    Mk = A * Mk + ck * LMatrix::Identity(s, s);
    ck = -(A * Mk).trace() / k;
    c[k] = static_cast<double>(ck);
  }
  return c;
}

int degree(const Vector& p, double tol) {
  const double scale = std::max(p.cwiseAbs().maxCoeff(), 1e-300);
  for (int k = static_cast<int>(p.size()) - 1; k >= 0; --k)
    if (std::abs(p[k]) > tol * scale) return k;
  return -1;
}

std::complex<double> eval_poly(const Vector& p, std::complex<double> z) {
  std::complex<double> v = 0.0;
  for (int k = static_cast<int>(p.size()) - 1; k >= 0; --k) v = v * z + p[k];
  return v;
}

double eval_poly(const Vector& p, double x) {
  double v = 0.0;
  for (int k = static_cast<int>(p.size()) - 1; k >= 0; --k) v = v * x + p[k];
  return v;
}

// p(z) p(-z) as a polynomial in x = -z^2 (so that on z = iy it is |p(iy)|^2 in x = y^2).
Vector even_product(const Vector& p) {
  const int n = static_cast<int>(p.size());
  Vector prod = Vector::Zero(2 * n - 1);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) prod[i + j] += p[i] * p[j] * ((j % 2) ? -1.0 : 1.0);
  Vector x = Vector::Zero(n);
  for (int k = 0; k < n; ++k) x[k] = prod[2 * k] * ((k % 2) ? -1.0 : 1.0);  // z^2k = (-x)^k
  return x;
}

// The rounding scale of even_product's coefficients: sum over i + j = 2k of |p_i| |p_j|.
Vector even_product_scale(const Vector& p) {
  const int n = static_cast<int>(p.size());
  Vector x = Vector::Zero(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if ((i + j) % 2 == 0) x[(i + j) / 2] += std::abs(p[i] * p[j]);
  return x;
}

// Groups of equal nodes (confluent stages must have equal z_i in Def. 6.1).
std::vector<int> node_groups(const Vector& c, int* count) {
  const int s = static_cast<int>(c.size());
  std::vector<int> group(static_cast<size_t>(s), -1);
  int g = 0;
  for (int i = 0; i < s; ++i) {
    if (group[static_cast<size_t>(i)] >= 0) continue;
    for (int j = i; j < s; ++j)
      if (group[static_cast<size_t>(j)] < 0 && std::abs(c[i] - c[j]) <= 1e-14)
        group[static_cast<size_t>(j)] = g;
    ++g;
  }
  *count = g;
  return group;
}

// One step of the Runge-Kutta method on y' = f(t, y) (dimension d) by Newton's method on the
// s d stage values; false if it did not converge.
using SmallRhs = std::function<void(double t, const Vector& y, Vector& f, Matrix& J)>;
bool rk_step(const RungeKuttaTableau& tab, const SmallRhs& rhs, double t0, const Vector& y0,
             double h, Vector& y1) {
  const int s = tab.stages(), d = static_cast<int>(y0.size());
  Vector Y(s * d), F(s * d), R(s * d), fi(d);
  Matrix Ji(d, d), Jbig(s * d, s * d);
  std::vector<Matrix> J(static_cast<size_t>(s));
  for (int i = 0; i < s; ++i) Y.segment(i * d, d) = y0;
  auto residual = [&](const Vector& Yv, Vector& Rv) {
    for (int i = 0; i < s; ++i) {
      rhs(t0 + tab.c[i] * h, Yv.segment(i * d, d), fi, Ji);
      F.segment(i * d, d) = fi;
      J[static_cast<size_t>(i)] = Ji;
    }
    for (int i = 0; i < s; ++i) {
      Rv.segment(i * d, d) = Yv.segment(i * d, d) - y0;
      for (int j = 0; j < s; ++j) Rv.segment(i * d, d) -= h * tab.A(i, j) * F.segment(j * d, d);
    }
  };
  residual(Y, R);
  bool converged = false;
  for (int it = 0; it < 60 && !converged; ++it) {
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < s; ++j)
        Jbig.block(i * d, j * d, d, d) = -h * tab.A(i, j) * J[static_cast<size_t>(j)];
    Jbig.diagonal().array() += 1.0;
    Eigen::PartialPivLU<Matrix> lu(Jbig);
    const Vector dY = lu.solve(-R);
    if (!dY.allFinite()) return false;
    // damped Newton on |R|
    const double r0 = R.norm();
    double lambda = 1.0;
    Vector Ytry(s * d), Rtry(s * d);
    for (int k = 0; k < 30; ++k) {
      Ytry = Y + lambda * dY;
      residual(Ytry, Rtry);
      if (Rtry.allFinite() && Rtry.norm() < (1 - 1e-4 * lambda) * r0 + 1e-300) break;
      lambda *= 0.5;
    }
    Y = Ytry;
    R = Rtry;
    converged =
        lambda * dY.norm() <= 1e-14 * (1.0 + Y.norm()) || R.norm() <= 1e-15 * (1 + Y.norm());
  }
  if (!converged || !Y.allFinite()) return false;
  residual(Y, R);  // F at the converged stages
  y1 = y0;
  for (int i = 0; i < s; ++i) y1 += h * tab.b[i] * F.segment(i * d, d);
  return y1.allFinite();
}

std::string fmt(double x, const char* f = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

}  // namespace

std::vector<long> rooted_tree_counts(int n) {
  std::vector<long> counts(static_cast<size_t>(std::max(n, 0)), 0);
  for (const Tree& t : rooted_trees(n)) ++counts[static_cast<size_t>(t.order - 1)];
  return counts;
}

OrderConditions order_conditions(const RungeKuttaTableau& t, int max_order, double tol) {
  OrderConditions oc;
  const std::vector<Tree> trees = rooted_trees(max_order);
  oc.checked_up_to = max_order;
  oc.residual = tree_residuals(trees, t.A, t.b, max_order);
  oc.trees.assign(static_cast<size_t>(max_order), 0);
  for (const Tree& tr : trees) ++oc.trees[static_cast<size_t>(tr.order - 1)];
  oc.order_by_trees = 0;
  for (int k = 1; k <= max_order && oc.residual[static_cast<size_t>(k - 1)] <= tol; ++k)
    oc.order_by_trees = k;
  return oc;
}

OrderResult classical_order(const RungeKuttaTableau& t, int max_tree_order) {
  OrderResult r;
  r.by_trees = order_conditions(t, max_tree_order).order_by_trees;
  const int B = simplifying_B(t, 30, 1e-11), C = simplifying_C(t, 30, 1e-11),
            D = simplifying_D(t, 30, 1e-11);
  r.by_simplifying = std::min({B, C + D + 1, 2 * C + 2});
  if (r.by_trees < max_tree_order) {
    r.order = r.by_trees;
    r.exact = true;
    return r;
  }
  r.order = std::max(r.by_trees, r.by_simplifying);
  r.exact = r.order == B;  // B(p+1) fails: no higher order
  return r;
}

std::complex<double> StabilityPolynomials::operator()(std::complex<double> z) const {
  return eval_poly(P, z) / eval_poly(Q, z);
}

// Coefficients of det(I - z X) at the rounding level of their size rho^k (rho a norm of X) are
// zero (an exactly singular A of an ESDIRK, P's vanishing top coefficient of an L-stable method)
void clean_polynomial(Vector& c, double rho) {
  for (int k = 1; k < c.size(); ++k)
    if (std::abs(c[k]) <= 1e-13 * std::pow(std::max(rho, 1e-300), k)) c[k] = 0.0;
}

StabilityPolynomials stability_polynomials(const RungeKuttaTableau& t) {
  StabilityPolynomials R;
  const int s = t.stages();
  const Matrix X = t.A - Vector::Ones(s) * t.b.transpose();
  R.Q = det_polynomial(t.A);
  R.P = det_polynomial(X);
  clean_polynomial(R.Q, t.A.cwiseAbs().rowwise().sum().maxCoeff());
  clean_polynomial(R.P, X.cwiseAbs().rowwise().sum().maxCoeff());
  return R;
}

double r_infinity(const RungeKuttaTableau& t) {
  const StabilityPolynomials R = stability_polynomials(t);
  const int dq = degree(R.Q, 0.0), dp = degree(R.P, 0.0);
  if (dp > dq) return kInf;
  if (dp < dq) return 0.0;
  return R.P[dp] / R.Q[dq];
}

Vector e_polynomial(const StabilityPolynomials& R) {
  const Vector q = even_product(R.Q), p = even_product(R.P);
  Vector e = Vector::Zero(std::max(q.size(), p.size()));
  e.head(q.size()) += q;
  e.head(p.size()) -= p;
  return e;
}

LinearStability linear_stability(const RungeKuttaTableau& t) {
  LinearStability ls;
  const StabilityPolynomials R = stability_polynomials(t);
  ls.r_inf = r_infinity(t);
  // poles: z = 1 / lambda for the nonzero eigenvalues lambda of A
  ls.poles_right = true;
  Eigen::EigenSolver<Matrix> es(t.A);
  for (int k = 0; k < t.stages(); ++k) {
    const std::complex<double> l = es.eigenvalues()[k];
    if (std::abs(l) > 1e-13 && l.real() <= 1e-13 * std::abs(l)) ls.poles_right = false;
  }
  // E(x) >= 0 on x >= 0: sign of the lowest and highest coefficients, and no sign change at a
  // positive real root
  // a coefficient is zero when it is at the rounding level of the two terms it is the
  // difference of (Gauss: E = 0 identically; Radau: only the top coefficient det(A)^2 is not)
  Vector e = e_polynomial(R);
  const Vector qq = even_product_scale(R.Q), pp = even_product_scale(R.P);
  for (int k = 0; k < e.size(); ++k) {
    const double terms =
        (k < qq.size() ? std::abs(qq[k]) : 0.0) + (k < pp.size() ? std::abs(pp[k]) : 0.0);
    if (std::abs(e[k]) <= 1e-11 * terms) e[k] = 0.0;
  }
  int lo = -1, hi = -1;
  for (int k = 0; k < e.size(); ++k)
    if (e[k] != 0.0) {
      if (lo < 0) lo = k;
      hi = k;
    }
  bool e_ok = true;
  if (lo >= 0) {
    e_ok = e[lo] > 0 && e[hi] > 0;
    if (e_ok && hi > lo) {
      // roots of e_lo + e_{lo+1} x + ... + e_hi x^{hi-lo} (companion matrix)
      const int m = hi - lo;
      Matrix Cm = Matrix::Zero(m, m);
      for (int k = 0; k < m; ++k) Cm(0, k) = -e[hi - 1 - k] / e[hi];
      for (int k = 1; k < m; ++k) Cm(k, k - 1) = 1.0;
      Eigen::EigenSolver<Matrix> ce(Cm);
      for (int k = 0; k < m; ++k) {
        const std::complex<double> x = ce.eigenvalues()[k];
        if (x.real() <= 0 || std::abs(x.imag()) > 1e-6 * std::abs(x)) continue;
        const double below = eval_poly(e, x.real() * (1 - 1e-5)),
                     above = eval_poly(e, x.real() * (1 + 1e-5));
        if (below < 0 || above < 0) e_ok = false;
      }
    }
  }
  ls.a_stable_e = e_ok && ls.poles_right;
  // scaled minimum on a grid (for the report)
  ls.e_min = kInf;
  for (int k = -80; k <= 80; ++k) {
    const double x = std::pow(10.0, k / 10.0);
    const double v = eval_poly(e, x) / (1.0 + std::pow(x, std::max(hi, 0)));
    ls.e_min = std::min(ls.e_min, v);
  }
  if (lo < 0) ls.e_min = 0.0;
  // sampled |R| on the imaginary axis and in the left half plane
  double mx = 0.0;
  for (int k = -60; k <= 120; ++k) {
    const double y = std::pow(10.0, k / 20.0);
    mx = std::max(mx, std::abs(R({0.0, y})));
    for (int j = 1; j < 12; ++j) {
      const double phi = kPi / 2 + kPi * j / 12.0;
      mx = std::max(mx, std::abs(R(std::polar(y, phi))));
    }
  }
  ls.max_abs_r_sampled = mx;
  ls.a_stable_sampled = mx <= 1.0 + 1e-10;
  ls.l_stable = ls.a_stable_e && std::abs(ls.r_inf) <= 1e-12;
  return ls;
}

Matrix algebraic_stability_matrix(const RungeKuttaTableau& t) {
  const Matrix B = t.b.asDiagonal();
  return B * t.A + t.A.transpose() * B - t.b * t.b.transpose();
}

Vector algebraic_stability_eigenvalues(const RungeKuttaTableau& t) {
  Eigen::SelfAdjointEigenSolver<Matrix> es(algebraic_stability_matrix(t));
  return es.eigenvalues();
}

bool algebraically_stable(const RungeKuttaTableau& t, double tol) {
  const Matrix M = algebraic_stability_matrix(t);
  const double scale = std::max(1.0, M.cwiseAbs().maxCoeff());
  if (t.b.minCoeff() < -tol) return false;
  return algebraic_stability_eigenvalues(t).minCoeff() >= -tol * scale;
}

std::complex<double> stability_function_z(const RungeKuttaTableau& t, const Eigen::VectorXcd& z) {
  const int s = t.stages();
  using CMatrix = Eigen::MatrixXcd;
  const CMatrix Z = z.asDiagonal();
  const CMatrix I_AZ = CMatrix::Identity(s, s) - t.A.cast<std::complex<double>>() * Z;
  Eigen::FullPivLU<CMatrix> lu(I_AZ);
  if (!lu.isInvertible()) return {std::nan(""), 0.0};
  const Eigen::VectorXcd x = lu.solve(Eigen::VectorXcd::Ones(s));
  return 1.0 + (t.b.cast<std::complex<double>>().transpose() * Z * x)(0);
}

AnStability an_stability(const RungeKuttaTableau& t, int samples) {
  AnStability an;
  const int s = t.stages();
  int ng = 0;
  const std::vector<int> group = node_groups(t.c, &ng);
  auto expand = [&](const Eigen::VectorXcd& w) {
    Eigen::VectorXcd z(s);
    for (int i = 0; i < s; ++i) z[i] = w[group[static_cast<size_t>(i)]];
    return z;
  };
  an.worst_z = Eigen::VectorXcd::Zero(s);
  auto consider = [&](const Eigen::VectorXcd& w, const char* how) {
    const Eigen::VectorXcd z = expand(w);
    const double r = std::abs(stability_function_z(t, z));
    if (std::isfinite(r) && r > an.max_abs_r) {
      an.max_abs_r = r;
      an.worst_z = z;
      an.how = how;
    }
  };
  // Theorem 6.1, first part: a negative weight b_i (grouped)
  Vector bg = Vector::Zero(ng);
  for (int i = 0; i < s; ++i) bg[group[static_cast<size_t>(i)]] += t.b[i];
  for (int g = 0; g < ng; ++g)
    if (bg[g] < 0)
      for (double eps : {1e-3, 1e-2, 1e-1, 1.0}) {
        Eigen::VectorXcd w = Eigen::VectorXcd::Zero(ng);
        w[g] = -eps;
        consider(w, "negative weight b_i (proof of Theorem 6.1)");
      }
  // second part: Z = i eps diag(v), v an eigenvector of (the grouped) M with eigenvalue < 0
  Matrix G = Matrix::Zero(s, ng);
  for (int i = 0; i < s; ++i) G(i, group[static_cast<size_t>(i)]) = 1.0;
  const Matrix Mg = G.transpose() * algebraic_stability_matrix(t) * G;
  Eigen::SelfAdjointEigenSolver<Matrix> es(Mg);
  for (int k = 0; k < ng; ++k) {
    if (es.eigenvalues()[k] >= 0) continue;
    const Vector v = es.eigenvectors().col(k);
    for (double eps : {1e-2, 0.1, 0.5, 1.0, 2.0, 5.0}) {
      for (double sign : {1.0, -1.0}) {
        Eigen::VectorXcd w = std::complex<double>(0.0, sign * eps) * v.cast<std::complex<double>>();
        consider(w, "Z = i eps diag(v), v an eigenvector of M with a negative eigenvalue");
        // keep only the positive part of v on the imaginary axis: (e.g. the trapezoid's
        // Z = diag(2i, 0) of the notes)
        for (int g = 0; g < ng; ++g)
          if (v[g] * sign < 0) w[g] = 0.0;
        consider(w, "Z = i eps diag(v+), v an eigenvector of M with a negative eigenvalue");
      }
    }
  }
  // random samples in the closed left half plane (deterministic)
  std::mt19937 rng(20240613u);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int k = 0; k < samples; ++k) {
    Eigen::VectorXcd w(ng);
    for (int g = 0; g < ng; ++g) {
      const double u = U(rng);
      if (u < 0.2) {
        w[g] = 0.0;
        continue;
      }
      const double r = std::pow(10.0, -2.0 + 5.0 * U(rng));
      const double phi = u < 0.5 ? (U(rng) < 0.5 ? kPi / 2 : -kPi / 2) : kPi / 2 + kPi * U(rng);
      w[g] = std::polar(r, phi);
      if (w[g].real() > 0) w[g] = {0.0, w[g].imag()};
    }
    consider(w, "random sample");
  }
  const bool algebraic = algebraically_stable(t);
  an.an_stable = an.max_abs_r <= 1.0 + 1e-12 && (algebraic || ng < s);
  if (an.max_abs_r <= 1.0 + 1e-12)
    an.how = algebraic ? "algebraically stable (implies AN-stability); no sample above 1"
                       : (ng < s ? "confluent nodes, no sample above 1 (not proven)"
                                 : "no sample above 1, but not algebraically stable: for "
                                   "non-confluent methods AN-stability needs it");
  return an;
}

Contractivity b_stability_check(const RungeKuttaTableau& t) {
  Contractivity c;
  const SmallRhs rhs = [](double, const Vector& y, Vector& f, Matrix& J) {
    f.resize(1);
    J.resize(1, 1);
    f[0] = -y[0] * y[0] * y[0];
    J(0, 0) = -3 * y[0] * y[0];
  };
  for (double h : {0.05, 0.2, 0.5, 1.0, 2.0, 5.0, 20.0})
    for (double y0 : {-2.0, -1.0, -0.3, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0})
      for (double d : {1e-3, 0.1, 0.5, 1.0}) {
        Vector a(1), b(1), a1(1), b1(1);
        a[0] = y0;
        b[0] = y0 + d;
        if (!rk_step(t, rhs, 0.0, a, h, a1) || !rk_step(t, rhs, 0.0, b, h, b1)) {
          ++c.unsolved;
          continue;
        }
        ++c.trials;
        const double ratio = std::abs(a1[0] - b1[0]) / d;
        if (ratio > c.max_ratio) {
          c.max_ratio = ratio;
          c.h = h;
          c.y0 = y0;
          c.z0 = y0 + d;
        }
      }
  return c;
}

Contractivity bn_stability_check(const RungeKuttaTableau& t) {
  Contractivity c;
  const int s = t.stages();
  const AnStability an = an_stability(t, 400);
  // the worst Z found, plus random ones
  std::vector<Eigen::VectorXcd> zs = {an.worst_z};
  int ng = 0;
  const std::vector<int> group = node_groups(t.c, &ng);
  std::mt19937 rng(7u);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int k = 0; k < 200; ++k) {
    Eigen::VectorXcd w(ng);
    for (int g = 0; g < ng; ++g)
      w[g] = std::polar(std::pow(10.0, -1 + 3 * U(rng)), kPi / 2 + kPi * U(rng));
    Eigen::VectorXcd z(s);
    for (int i = 0; i < s; ++i) z[i] = w[group[static_cast<size_t>(i)]];
    zs.push_back(z);
  }
  // nodes sorted for the piecewise linear q
  std::vector<int> order(static_cast<size_t>(s));
  for (int i = 0; i < s; ++i) order[static_cast<size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return t.c[a] < t.c[b]; });
  const double h = 1.0;
  for (const Eigen::VectorXcd& z : zs) {
    auto q = [&](double tt) -> std::complex<double> {
      const double x = tt / h;
      const int first = order.front(), last = order.back();
      if (x <= t.c[first]) return z[first] / h;
      if (x >= t.c[last]) return z[last] / h;
      for (size_t k = 0; k + 1 < order.size(); ++k) {
        const int i = order[k], j = order[k + 1];
        if (x >= t.c[i] && x <= t.c[j]) {
          if (t.c[j] - t.c[i] <= 1e-14) return z[i] / h;
          const double w = (x - t.c[i]) / (t.c[j] - t.c[i]);
          return ((1 - w) * z[i] + w * z[j]) / h;
        }
      }
      return z[last] / h;
    };
    const SmallRhs rhs = [&](double tt, const Vector& y, Vector& f, Matrix& J) {
      const std::complex<double> qq = q(tt);
      J.resize(2, 2);
      J << qq.real(), -qq.imag(), qq.imag(), qq.real();
      f = J * y;
    };
    Vector y0(2), y1(2);
    y0 << 1.0, 0.0;  // difference of two solutions (the problem is linear)
    if (!rk_step(t, rhs, 0.0, y0, h, y1)) {
      ++c.unsolved;
      continue;
    }
    ++c.trials;
    const double ratio = y1.norm();
    if (ratio > c.max_ratio) {
      c.max_ratio = ratio;
      c.h = h;
    }
  }
  return c;
}

TableauAnalysis analyse_tableau(const RungeKuttaTableau& t) {
  TableauAnalysis a;
  a.tableau = t;
  const int s = t.stages();
  a.order = classical_order(t);
  a.conditions = order_conditions(t, std::min(12, std::max(a.order.order + 1, 2)));
  a.B = simplifying_B(t, 30, 1e-11);
  a.C = simplifying_C(t, 30, 1e-11);
  a.D = simplifying_D(t, 30, 1e-11);
  a.stage_order = std::min(a.B, a.C);
  a.stiffly_accurate = (t.A.row(s - 1).transpose() - t.b).cwiseAbs().maxCoeff() <= 1e-12;
  a.explicit_method = t.explicit_method();
  a.diagonally_implicit = t.lower_triangular() && !a.explicit_method;
  if (a.diagonally_implicit) {
    a.explicit_first_stage = t.A(0, 0) == 0.0;
    const double g = t.A(s - 1, s - 1);
    a.singly_diagonal = true;
    for (int i = a.explicit_first_stage ? 1 : 0; i < s; ++i)
      if (std::abs(t.A(i, i) - g) > 1e-15) a.singly_diagonal = false;
  }
  a.invertible_A = Eigen::FullPivLU<Matrix>(t.A).isInvertible();
  if (t.has_embedded()) {
    const std::vector<Tree> trees = rooted_trees(std::max(t.order, 2) + 1);
    const std::vector<double> r = tree_residuals(trees, t.A, t.b_hat, std::max(t.order, 2) + 1);
    a.embedded_order = 0;
    for (size_t k = 0; k < r.size() && r[k] <= 1e-9; ++k)
      a.embedded_order = static_cast<int>(k) + 1;
  }
  a.R = stability_polynomials(t);
  a.linear = linear_stability(t);
  a.M = algebraic_stability_matrix(t);
  a.M_eigenvalues = algebraic_stability_eigenvalues(t);
  a.algebraically_stable = algebraically_stable(t);
  a.an = an_stability(t);
  a.b_check = b_stability_check(t);
  a.bn_check = bn_stability_check(t);
  return a;
}

std::string TableauAnalysis::report() const {
  const RungeKuttaTableau& t = tableau;
  const int s = t.stages();
  std::ostringstream os;
  os << t.name << " (" << s << " stages)";
  if (!t.reference.empty()) os << "\n  reference: " << t.reference;
  os << "\n  c | A:\n";
  for (int i = 0; i < s; ++i) {
    os << "    " << fmt(t.c[i], "%11.6g") << " |";
    for (int j = 0; j < s; ++j) os << " " << fmt(t.A(i, j), "%11.6g");
    os << "\n";
  }
  os << "    " << std::string(11, ' ') << " |";
  for (int j = 0; j < s; ++j) os << " " << fmt(t.b[j], "%11.6g");
  os << "   (b)\n";
  if (t.has_embedded()) {
    os << "    " << std::string(11, ' ') << " |";
    for (int j = 0; j < s; ++j) os << " " << fmt(t.b_hat[j], "%11.6g");
    os << "   (b_hat, order " << embedded_order << ")\n";
  }
  const char* type = explicit_method        ? "explicit (ERK)"
                     : !diagonally_implicit ? "fully implicit (FIRK)"
                     : explicit_first_stage ? (singly_diagonal ? "ESDIRK" : "EDIRK")
                     : singly_diagonal      ? "SDIRK"
                                            : "DIRK";
  os << "  type: " << type << "; A " << (invertible_A ? "invertible" : "singular") << "\n";
  os << "  order: " << order.order << (order.exact ? "" : " (at least)") << " (order conditions "
     << "of the " <<
      [&] {
        long n = 0;
        for (long k : conditions.trees) n += k;
        return n;
      }()
     << " rooted trees up to order " << conditions.checked_up_to << ": met up to "
     << conditions.order_by_trees;
  if (order.by_trees >= 12) os << "; beyond: Butcher's theorem gives " << order.by_simplifying;
  os << ")\n  residuals |gamma(t) b^T Phi(t) - 1| by order:";
  for (size_t k = 0; k < conditions.residual.size(); ++k)
    os << " " << (k + 1) << ":" << fmt(conditions.residual[k], "%.1e");
  os << "\n  simplifying conditions: B(" << B << ") C(" << C << ") D(" << D << "); stage order "
     << stage_order << "; stiffly accurate: " << (stiffly_accurate ? "yes" : "no") << "\n";
  os << "  R(z) = P(z)/Q(z), P:";
  for (int k = 0; k < R.P.size(); ++k) os << " " << fmt(R.P[k], "%.6g");
  os << "; Q:";
  for (int k = 0; k < R.Q.size(); ++k) os << " " << fmt(R.Q[k], "%.6g");
  os << "\n  R(inf) = " << (std::isfinite(linear.r_inf) ? fmt(linear.r_inf, "%.6g") : "inf")
     << "; A-stable: " << (linear.a_stable_e ? "yes" : "no") << " (E-polynomial"
     << (linear.poles_right ? "" : "; a pole in Re z <= 0")
     << "), sampled max |R| = " << fmt(linear.max_abs_r_sampled, "%.6g")
     << "; L-stable: " << (linear.l_stable ? "yes" : "no") << "\n";
  os << "  algebraic stability matrix M = BA + A^T B - b b^T, eigenvalues:";
  for (int k = 0; k < M_eigenvalues.size(); ++k) os << " " << fmt(M_eigenvalues[k], "%.4g");
  os << "\n  algebraically stable: " << (algebraically_stable ? "yes" : "no")
     << " (b >= 0: " << (t.b.minCoeff() >= 0 ? "yes" : "no") << ")\n";
  os << "  AN-stable: " << (an.an_stable ? "yes" : "no") << "; max |R(Z)| found "
     << fmt(an.max_abs_r, "%.6g") << " (" << an.how << ")\n";
  os << "  B-stability check (y' = -y^3, " << b_check.trials
     << " steps): max |y1 - z1|/|y0 - z0| = " << fmt(b_check.max_ratio, "%.6g");
  if (b_check.max_ratio > 1 + 1e-10)
    os << " at h = " << fmt(b_check.h) << ", y0 = " << fmt(b_check.y0)
       << ", z0 = " << fmt(b_check.z0) << " (not contractive)";
  if (b_check.unsolved) os << "; " << b_check.unsolved << " stage systems unsolved";
  os << "\n  BN-stability check (y' = q(t) y, Re q <= 0, " << bn_check.trials
     << " steps): max ratio " << fmt(bn_check.max_ratio, "%.6g")
     << (bn_check.max_ratio > 1 + 1e-10 ? " (not contractive)" : "") << "\n";
  return os.str();
}

}  // namespace daekit
