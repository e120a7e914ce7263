// Automatic differentiation (problem/autodiff.hpp): the time of one Jacobian df/dy (and of
// df/dp) from the library's Dual<W> (Eigen's AutoDiffScalar with a fixed-size derivative vector
// of width W) against a dual number of our own of the same width (below: the library's first
// version, kept here as the measured alternative) and against AutoDiffScalar with a dynamic
// VectorXd, all through the same seeding engine (set_autodiff_rhs), with forward differences of
// f (the solver's default) as the reference, on
//   robertson  n = 3,   np = 3  (the rates k1, k2, k3)
//   akzo       n = 6,   np = 5  (k1..k4, Ks; pow and sqrt)
//   chain100   n = 100, np = 2  (a nonlinear reaction-diffusion chain, exp and tanh),
//              dense and declared tridiagonal (3 colours),
// and whole solves of robertson with sensitivities (radau5, tol 1e-8) with each derivative.
// CPU: the median over repetitions of at least 0.2 s (bench/timing.hpp).
//
//   build/bench/daekit_autodiff
#include "daekit/problem/autodiff.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "daekit/daekit.hpp"
#include "timing.hpp"

using namespace daekit;

// The measured alternative: a dual number of our own (value and W derivatives; each operation
// one loop over them, results written in full), the library's first version.
namespace own {
// ---------------------------------------------------------------------------------------------
// OwnDual<W>: value v and W derivatives d, with the arithmetic of first-order Taylor polynomials.

template <int W>
struct OwnDual {
  static_assert(W >= 1, "a dual number carries at least one derivative");
  double v;
  double d[W];

  /// Left uninitialised (the operators' results, written in full).
  struct Uninitialised {};
  explicit OwnDual(Uninitialised) {}
  OwnDual() : OwnDual(0.0) {}
  OwnDual(double value) : v(value) {  // NOLINT: constants enter expressions implicitly
    for (int k = 0; k < W; ++k) d[k] = 0.0;
  }

  OwnDual& operator+=(const OwnDual& b) {
    v += b.v;
    for (int k = 0; k < W; ++k) d[k] += b.d[k];
    return *this;
  }
  OwnDual& operator-=(const OwnDual& b) {
    v -= b.v;
    for (int k = 0; k < W; ++k) d[k] -= b.d[k];
    return *this;
  }
  OwnDual& operator*=(const OwnDual& b) {
    for (int k = 0; k < W; ++k) d[k] = d[k] * b.v + v * b.d[k];
    v *= b.v;
    return *this;
  }
  OwnDual& operator/=(const OwnDual& b) {
    v /= b.v;
    for (int k = 0; k < W; ++k) d[k] = (d[k] - v * b.d[k]) / b.v;
    return *this;
  }
  OwnDual& operator+=(double b) {
    v += b;
    return *this;
  }
  OwnDual& operator-=(double b) {
    v -= b;
    return *this;
  }
  OwnDual& operator*=(double b) {
    v *= b;
    for (int k = 0; k < W; ++k) d[k] *= b;
    return *this;
  }
  OwnDual& operator/=(double b) { return *this *= 1.0 / b; }
};

namespace dual_detail {
template <int W>
using U = typename OwnDual<W>::Uninitialised;
/// g(a) for a scalar function g with g(a.v) = value and g'(a.v) = slope (the chain rule).
template <int W>
OwnDual<W> chain(const OwnDual<W>& a, double value, double slope) {
  OwnDual<W> r(U<W>{});
  r.v = value;
  for (int k = 0; k < W; ++k) r.d[k] = slope * a.d[k];
  return r;
}
/// alpha a + beta b with value `value`.
template <int W>
OwnDual<W> combine(double value, double alpha, const OwnDual<W>& a, double beta,
                   const OwnDual<W>& b) {
  OwnDual<W> r(U<W>{});
  r.v = value;
  for (int k = 0; k < W; ++k) r.d[k] = alpha * a.d[k] + beta * b.d[k];
  return r;
}
}  // namespace dual_detail

template <int W>
OwnDual<W> operator+(const OwnDual<W>& a) {
  return a;
}
template <int W>
OwnDual<W> operator-(const OwnDual<W>& a) {
  return dual_detail::chain(a, -a.v, -1.0);
}
template <int W>
OwnDual<W> operator+(const OwnDual<W>& a, const OwnDual<W>& b) {
  return dual_detail::combine(a.v + b.v, 1.0, a, 1.0, b);
}
template <int W>
OwnDual<W> operator+(OwnDual<W> a, double b) {
  return a += b;
}
template <int W>
OwnDual<W> operator+(double a, OwnDual<W> b) {
  return b += a;
}
template <int W>
OwnDual<W> operator-(const OwnDual<W>& a, const OwnDual<W>& b) {
  return dual_detail::combine(a.v - b.v, 1.0, a, -1.0, b);
}
template <int W>
OwnDual<W> operator-(OwnDual<W> a, double b) {
  return a -= b;
}
template <int W>
OwnDual<W> operator-(double a, const OwnDual<W>& b) {
  return dual_detail::chain(b, a - b.v, -1.0);
}
template <int W>
OwnDual<W> operator*(const OwnDual<W>& a, const OwnDual<W>& b) {
  return dual_detail::combine(a.v * b.v, b.v, a, a.v, b);
}
template <int W>
OwnDual<W> operator*(const OwnDual<W>& a, double b) {
  return dual_detail::chain(a, a.v * b, b);
}
template <int W>
OwnDual<W> operator*(double a, const OwnDual<W>& b) {
  return dual_detail::chain(b, a * b.v, a);
}
template <int W>
OwnDual<W> operator/(const OwnDual<W>& a, const OwnDual<W>& b) {
  const double q = a.v / b.v;
  return dual_detail::combine(q, 1.0 / b.v, a, -q / b.v, b);
}
template <int W>
OwnDual<W> operator/(const OwnDual<W>& a, double b) {
  return dual_detail::chain(a, a.v / b, 1.0 / b);
}
template <int W>
OwnDual<W> operator/(double a, const OwnDual<W>& b) {
  const double value = a / b.v;
  return dual_detail::chain(b, value, -value / b.v);
}

// comparisons: as the values compare
#define DAEKIT_DUAL_COMPARISON(op)                             \
  template <int W>                                             \
  bool operator op(const OwnDual<W>& a, const OwnDual<W>& b) { \
    return a.v op b.v;                                         \
  }                                                            \
  template <int W>                                             \
  bool operator op(const OwnDual<W>& a, double b) {            \
    return a.v op b;                                           \
  }                                                            \
  template <int W>                                             \
  bool operator op(double a, const OwnDual<W>& b) {            \
    return a op b.v;                                           \
  }
DAEKIT_DUAL_COMPARISON(==)
DAEKIT_DUAL_COMPARISON(!=)
DAEKIT_DUAL_COMPARISON(<)
DAEKIT_DUAL_COMPARISON(<=)
DAEKIT_DUAL_COMPARISON(>)
DAEKIT_DUAL_COMPARISON(>=)
#undef DAEKIT_DUAL_COMPARISON

template <int W>
OwnDual<W> exp(const OwnDual<W>& a) {
  const double e = std::exp(a.v);
  return dual_detail::chain(a, e, e);
}
template <int W>
OwnDual<W> expm1(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::expm1(a.v), std::exp(a.v));
}
template <int W>
OwnDual<W> log(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::log(a.v), 1.0 / a.v);
}
template <int W>
OwnDual<W> log1p(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::log1p(a.v), 1.0 / (1.0 + a.v));
}
template <int W>
OwnDual<W> sqrt(const OwnDual<W>& a) {
  const double s = std::sqrt(a.v);
  return dual_detail::chain(a, s, 0.5 / s);
}
template <int W>
OwnDual<W> cbrt(const OwnDual<W>& a) {
  const double c = std::cbrt(a.v);
  return dual_detail::chain(a, c, 1.0 / (3.0 * c * c));
}
template <int W>
OwnDual<W> pow(const OwnDual<W>& a, double b) {
  if (b == 0.0) return OwnDual<W>(1.0);
  return dual_detail::chain(a, std::pow(a.v, b), b * std::pow(a.v, b - 1.0));
}
template <int W>
OwnDual<W> pow(const OwnDual<W>& a, int b) {
  return pow(a, static_cast<double>(b));
}
template <int W>
OwnDual<W> pow(double a, const OwnDual<W>& b) {
  const double value = std::pow(a, b.v);
  return dual_detail::chain(b, value, value * std::log(a));
}
template <int W>
OwnDual<W> pow(const OwnDual<W>& a, const OwnDual<W>& b) {  // a^b = exp(b log a), a > 0
  return exp(b * log(a));
}
template <int W>
OwnDual<W> sin(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::sin(a.v), std::cos(a.v));
}
template <int W>
OwnDual<W> cos(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::cos(a.v), -std::sin(a.v));
}
template <int W>
OwnDual<W> tan(const OwnDual<W>& a) {
  const double t = std::tan(a.v);
  return dual_detail::chain(a, t, 1.0 + t * t);
}
template <int W>
OwnDual<W> asin(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::asin(a.v), 1.0 / std::sqrt(1.0 - a.v * a.v));
}
template <int W>
OwnDual<W> acos(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::acos(a.v), -1.0 / std::sqrt(1.0 - a.v * a.v));
}
template <int W>
OwnDual<W> atan(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::atan(a.v), 1.0 / (1.0 + a.v * a.v));
}
template <int W>
OwnDual<W> atan2(const OwnDual<W>& a, const OwnDual<W>& b) {  // d = (b da - a db) / (a^2 + b^2)
  const double r2 = a.v * a.v + b.v * b.v;
  OwnDual<W> r(std::atan2(a.v, b.v));
  for (int k = 0; k < W; ++k) r.d[k] = (b.v * a.d[k] - a.v * b.d[k]) / r2;
  return r;
}
template <int W>
OwnDual<W> sinh(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::sinh(a.v), std::cosh(a.v));
}
template <int W>
OwnDual<W> cosh(const OwnDual<W>& a) {
  return dual_detail::chain(a, std::cosh(a.v), std::sinh(a.v));
}
template <int W>
OwnDual<W> tanh(const OwnDual<W>& a) {
  const double t = std::tanh(a.v);
  return dual_detail::chain(a, t, 1.0 - t * t);
}
template <int W>
OwnDual<W> abs(const OwnDual<W>& a) {
  return a.v < 0.0 ? -a : a;
}
template <int W>
OwnDual<W> fabs(const OwnDual<W>& a) {
  return abs(a);
}
template <int W>
OwnDual<W> hypot(const OwnDual<W>& a, const OwnDual<W>& b) {
  return sqrt(a * a + b * b);
}

}  // namespace own
using own::OwnDual;
template <int W>
struct daekit::DualLanes<OwnDual<W>> {
  static constexpr int width = W;
  /// x = value with all derivatives zero.
  static void set(OwnDual<W>& x, double value) {
    x.v = value;
    for (int k = 0; k < W; ++k) x.d[k] = 0.0;
  }
  static void seed(OwnDual<W>& x, int lane) { x.d[lane] = 1.0; }
  static double value(const OwnDual<W>& x) { return x.v; }
  static double derivative(const OwnDual<W>& x, int lane) { return x.d[lane]; }
};

// Eigen's AutoDiffScalar with a dynamic derivative vector (a VectorXd of size W per set()).
constexpr int kDynamicWidth = 8;
template <>
struct daekit::DualLanes<Eigen::AutoDiffScalar<Eigen::VectorXd>> {
  using S = Eigen::AutoDiffScalar<Eigen::VectorXd>;
  static constexpr int width = kDynamicWidth;
  static void set(S& x, double v) {
    x.value() = v;
    x.derivatives().setZero(width);
  }
  static void seed(S& x, int k) { x.derivatives()[k] = 1.0; }
  static double derivative(const S& x, int k) {
    return k < x.derivatives().size() ? x.derivatives()[k] : 0.0;
  }
};

namespace {

struct Robertson {
  template <class T>
  void operator()(T, const T* y, const T* k, T* out) const {
    const T r1 = k[0] * y[0], r2 = k[1] * y[1] * y[2], r3 = k[2] * y[1] * y[1];
    out[0] = -r1 + r2;
    out[1] = r1 - r2 - r3;
    out[2] = r3;
  }
};

// Akzo Nobel (the built-in problem's f, src/problems/akzo_nobel.cpp) with p = (k1..k4, Ks).
struct Akzo {
  template <class T>
  void operator()(T, const T* y, const T* p, T* f) const {
    using std::pow, std::sqrt;
    const double K = 34.4, klA = 3.3, pCO2 = 0.9, H = 737.0;
    const T s2 = sqrt(y[1]);
    const T r1 = p[0] * pow(y[0], 4) * s2, r2 = p[1] * y[2] * y[3];
    const T r3 = p[1] / K * y[0] * y[4], r4 = p[2] * y[0] * y[3] * y[3];
    const T r5 = p[3] * y[5] * y[5] * s2, fin = klA * (pCO2 / H - y[1]);
    f[0] = -2.0 * r1 + r2 - r3 - r4;
    f[1] = -0.5 * r1 - r4 - 0.5 * r5 + fin;
    f[2] = r1 - r2 + r3;
    f[3] = -r2 + r3 - 2.0 * r4;
    f[4] = r2 - r3 + r5;
    f[5] = p[4] * y[0] * y[3] - y[5];
  }
};

// u_i' = D (u_{i-1} - 2 u_i + u_{i+1}) - p0 u_i exp(-1 / (1 + u_i)) + p1 tanh(u_i), n = 100.
struct Chain {
  template <class T>
  void operator()(T, const T* u, const T* p, T* out) const {
    using std::exp, std::tanh;
    const double D = 50.0;
    for (int i = 0; i < n; ++i) {
      const T left = i > 0 ? u[i - 1] : T(0.0), right = i + 1 < n ? u[i + 1] : T(0.0);
      out[i] = D * (left - 2.0 * u[i] + right) - p[0] * u[i] * exp(-1.0 / (1.0 + u[i])) +
               p[1] * tanh(u[i]);
    }
  }
  int n = 100;
};

using EigenDynamic = Eigen::AutoDiffScalar<Eigen::VectorXd>;

struct Case {
  std::string name;
  MassMatrixDae dae;
  Vector y;
};

// Microseconds per call of `call`.
template <class Call>
double micros(Call&& call) {
  const int reps = 200;
  return 1e6 *
         daekit_bench::median_cpu(
             [&] {
               for (int r = 0; r < reps; ++r) call();
             },
             0.2) /
         reps;
}

// One row: the time of df/dy and df/dp with the scalar type S (largest difference to `ref`).
template <class S, class Fn>
void row(const Case& c, const char* scalar, Fn fn, const Matrix& J_ref, const Matrix& P_ref) {
  MassMatrixDae d = c.dae;
  set_autodiff_rhs<S>(d, fn);
  const int n = d.n, np = static_cast<int>(d.p.size());
  Matrix J = Matrix::Zero(n, n), P = Matrix::Zero(n, np);
  SparseMatrix Js;
  double t_J = 0.0;
  if (d.jacobian) {
    t_J = micros([&] { d.jacobian(0.0, c.y, J, d.p); });
  } else {
    Js = d.jacobian_sparsity.to_pattern(n);
    Js.coeffs().setZero();
    t_J = micros([&] { d.sparse_jacobian(0.0, c.y, Js, d.p); });
    J = Matrix(Js);
  }
  const double t_P = micros([&] { d.parameter_jacobian(0.0, c.y, P, d.p); });
  const double err = std::max((J - J_ref).cwiseAbs().maxCoeff() / J_ref.cwiseAbs().maxCoeff(),
                              (P - P_ref).cwiseAbs().maxCoeff() / P_ref.cwiseAbs().maxCoeff());
  std::printf("| %-10s | %-28s | %10.3f | %10.3f | %9.1e |\n", c.name.c_str(), scalar, t_J, t_P,
              err);
}

// Forward differences of f (the solver's default without a Jacobian): n + 1 evaluations, and
// the reference Jacobians by Dual<8>.
template <class Fn>
void rows(const Case& c, Fn fn) {
  MassMatrixDae ref = c.dae;
  set_autodiff_rhs<Dual<8>>(ref, fn);
  const int n = ref.n, np = static_cast<int>(ref.p.size());
  Matrix J_ref = Matrix::Zero(n, n), P_ref = Matrix::Zero(n, np);
  MassMatrixDae dense_ref = ref;
  dense_ref.jacobian_sparsity = Sparsity::dense();
  set_autodiff_rhs<Dual<8>>(dense_ref, fn);
  dense_ref.jacobian(0.0, c.y, J_ref, ref.p);
  dense_ref.parameter_jacobian(0.0, c.y, P_ref, ref.p);
  {  // forward differences, dense (one column per evaluation)
    Vector f0(n), f1(n), y = c.y, q = ref.p;
    Matrix J(n, n), P(n, np);
    auto fd = [&] {
      ref.f(0.0, y, f0, q);
      for (int j = 0; j < n; ++j) {
        const double yj = y[j], dj = 1.5e-8 * std::max(std::abs(yj), 1e-5);
        y[j] = yj + dj;
        ref.f(0.0, y, f1, q);
        J.col(j) = (f1 - f0) / dj;
        y[j] = yj;
      }
    };
    auto fd_p = [&] {
      ref.f(0.0, y, f0, q);
      for (int k = 0; k < np; ++k) {
        const double qk = q[k], dk = 1.5e-8 * std::max(std::abs(qk), 1e-5);
        q[k] = qk + dk;
        ref.f(0.0, y, f1, q);
        P.col(k) = (f1 - f0) / dk;
        q[k] = qk;
      }
    };
    const double t_J = micros(fd), t_P = micros(fd_p);
    fd();
    fd_p();
    const double err = std::max((J - J_ref).cwiseAbs().maxCoeff() / J_ref.cwiseAbs().maxCoeff(),
                                (P - P_ref).cwiseAbs().maxCoeff() / P_ref.cwiseAbs().maxCoeff());
    std::printf("| %-10s | %-28s | %10.3f | %10.3f | %9.1e |\n", c.name.c_str(),
                "forward differences (dense)", t_J, t_P, err);
  }
  row<OwnDual<4>>(c, "own dual, W = 4", fn, J_ref, P_ref);
  row<OwnDual<8>>(c, "own dual, W = 8", fn, J_ref, P_ref);
  row<OwnDual<16>>(c, "own dual, W = 16", fn, J_ref, P_ref);
  row<Dual<4>>(c, "Eigen AutoDiffScalar, W = 4", fn, J_ref, P_ref);
  row<Dual<8>>(c, "Eigen AutoDiffScalar, W = 8", fn, J_ref, P_ref);
  row<Dual<16>>(c, "Eigen AutoDiffScalar, W = 16", fn, J_ref, P_ref);
  row<EigenDynamic>(c, "Eigen AutoDiffScalar, VectorXd", fn, J_ref, P_ref);
}

void solves() {
  const BuiltinProblem rober = make_builtin_problem("robertson");
  MassMatrixDae ad;
  ad.n = 3;
  ad.p = rober.dae.p;
  set_autodiff_rhs(ad, Robertson{});
  MassMatrixDae fd = ad;
  fd.jacobian = nullptr;
  fd.parameter_jacobian = nullptr;
  MassMatrixDae analytic = ad;
  analytic.jacobian = rober.dae.jacobian;
  analytic.parameter_jacobian = [](double, VecIn y, Matrix& P, VecIn) {
    P << -y[0], y[1] * y[2], 0.0, y[0], -y[1] * y[2], -y[1] * y[1], 0.0, 0.0, y[1] * y[1];
  };
  std::printf("\nrobertson to t = 40 with sensitivities (radau5, rtol 1e-8, atol 1e-12):\n\n");
  std::printf("| derivatives | ms per solve | steps | njac | nfev | nfev_jac |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  Options o;
  o.rtol = 1e-8;
  o.atol = 1e-12;
  o.sensitivities = true;
  o.store_steps = false;
  for (const auto& [name, dae] :
       {std::pair<const char*, const MassMatrixDae*>{"autodiff (Dual<8>)", &ad},
        {"hand-written", &analytic},
        {"forward differences", &fd}}) {
    Result r;
    const double t =
        daekit_bench::median_cpu([&] { r = solve(*dae, 0.0, 40.0, rober.y0, "radau5", o); }, 0.5);
    std::printf("| %s | %.3f | %ld | %ld | %ld | %ld |\n", name, 1e3 * t, r.stats.naccept,
                r.stats.njac, r.stats.nfev, r.stats.nfev_jac);
  }
}

// The chain (n = 100, declared tridiagonal) solved to t = 1 by radau5 and bdf at rtol = atol =
// 1e-8, with sensitivities for its two parameters: autodiff (Dual<4>: the 3 colours in one
// sweep) against coloured forward differences.
void chain_solves() {
  MassMatrixDae ad;
  ad.n = 100;
  ad.p = Vector(2);
  ad.p << 2.0, 0.5;
  ad.jacobian_sparsity = Sparsity::banded(1, 1);
  set_autodiff_rhs<Dual<4>>(ad, Chain{});
  MassMatrixDae fd = ad;
  fd.sparse_jacobian = nullptr;
  fd.parameter_jacobian = nullptr;
  Vector u0(100);
  for (int i = 0; i < 100; ++i) u0[i] = 0.5 + 0.4 * std::sin(0.1 * i);
  std::printf("\nchain100 (banded) to t = 1 with sensitivities (rtol = atol = 1e-8):\n\n");
  std::printf("| method | derivatives | ms per solve | steps | njac | nfev | nfev_jac |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  Options o;
  o.rtol = o.atol = 1e-8;
  o.sensitivities = true;
  o.store_steps = false;
  for (const char* method : {"radau5", "bdf"})
    for (const auto& [name, dae] :
         {std::pair<const char*, const MassMatrixDae*>{"autodiff (Dual<4>)", &ad},
          {"coloured differences", &fd}}) {
      Result r;
      const double t =
          daekit_bench::median_cpu([&] { r = solve(*dae, 0.0, 1.0, u0, method, o); }, 0.5);
      std::printf("| %s | %s | %.3f | %ld | %ld | %ld | %ld |\n", method, name, 1e3 * t,
                  r.stats.naccept, r.stats.njac, r.stats.nfev, r.stats.nfev_jac);
    }
}

}  // namespace

int main() {
  std::printf(
      "CPU microseconds per df/dy and per df/dp (median), and the largest difference to\n"
      "Dual<8> (relative to the largest entry):\n\n");
  std::printf(
      "| problem    | scalar                       |  df/dy us  |  df/dp us  | max diff  |\n");
  std::printf(
      "|------------|------------------------------|-----------:|-----------:|----------:|\n");
  {
    Case c{"robertson", {}, Vector(3)};
    c.dae.n = 3;
    c.dae.p = make_builtin_problem("robertson").dae.p;
    c.y << 0.7, 3e-5, 0.29;
    rows(c, Robertson{});
  }
  {
    const BuiltinProblem akzo = make_builtin_problem("akzo");
    Case c{"akzo", {}, akzo.y0};
    c.dae.n = 6;
    c.dae.p = akzo.dae.p;
    c.y[2] = 0.01;
    c.y[4] = 0.002;
    rows(c, Akzo{});
  }
  {
    Case c{"chain100", {}, Vector(100)};
    c.dae.n = 100;
    c.dae.p = Vector(2);
    c.dae.p << 2.0, 0.5;
    for (int i = 0; i < 100; ++i) c.y[i] = 0.5 + 0.4 * std::sin(0.1 * i);
    rows(c, Chain{});
    Case banded = c;
    banded.name = "chain100 b";
    banded.dae.jacobian_sparsity = Sparsity::banded(1, 1);
    rows(banded, Chain{});
  }
  solves();
  chain_solves();
}
