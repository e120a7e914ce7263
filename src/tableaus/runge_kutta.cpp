#include "daekit/tableaus/runge_kutta.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/dense_spectra.hpp"

namespace daekit {

namespace {

// Legendre polynomial P_n on [-1, 1] by the three-term recurrence.
double legendre(int n, double x) {
  if (n == 0) return 1.0;
  double p0 = 1.0, p1 = x;
  for (int k = 1; k < n; ++k) {
    const double p2 = ((2.0 * k + 1.0) * x * p1 - k * p0) / (k + 1.0);
    p0 = p1;
    p1 = p2;
  }
  return p1;
}

// The bisection of interior_zeros on a bracket [a, b] with p(a) = fa, to round-off.
template <typename Polynomial>
double bisect_to_round_off(const Polynomial& p, double a, double b, double fa) {
  for (int it = 0; it < 200 && b - a > 0.0; ++it) {
    const double m = 0.5 * (a + b);
    if (m <= a || m >= b) break;
    const double fm = p(m);
    if (fa * fm <= 0.0) {
      b = m;
    } else {
      a = m;
      fa = fm;
    }
  }
  return 0.5 * (a + b);
}

// Zeros of p in the open interval (lo, hi): sign changes on a fine grid of 4000 cells, then
// bisection to round-off. Adequate for the well separated zeros of the low-degree node
// polynomials here (s <= 9: zeros at least 0.015 apart). The fine grid is scanned only inside
// the coarse cells (40 fine cells each, 0.01 wide) whose ends do not have one sign: the same
// brackets and zeros to the bit as scanning all of it (all four node families, s = 1 .. 9) at
// a tenth of the evaluations (radau_iia(3): 4100 -> ~400; it is part of every radau5 solve's
// set-up, a third of Akzo's solve at 1e-7).
template <typename Polynomial>
std::vector<double> interior_zeros(const Polynomial& p, double lo, double hi) {
  constexpr int kGrid = 4000, kCoarse = 40;
  const auto x_at = [lo, hi](int k) {
    const double u = k == 0 ? 1e-9 : k == kGrid ? 1.0 - 1e-9 : static_cast<double>(k) / kGrid;
    return lo + (hi - lo) * u;
  };
  std::vector<double> zeros;
  double f_start = p(x_at(0));
  for (int k0 = 0; k0 < kGrid; k0 += kCoarse) {
    const double f_end = p(x_at(k0 + kCoarse));
    if (f_start != 0.0 && f_start * f_end > 0.0) {  // one sign at both ends: no zero inside
      f_start = f_end;
      continue;
    }
    double x0 = x_at(k0), f0 = f_start;
    for (int k = k0 + 1; k <= k0 + kCoarse; ++k) {
      const double x1 = x_at(k);
      const double f1 = k == k0 + kCoarse ? f_end : p(x1);
      if (f0 == 0.0)
        zeros.push_back(x0);
      else if (f0 * f1 < 0.0)
        zeros.push_back(bisect_to_round_off(p, x0, x1, f0));
      x0 = x1;
      f0 = f1;
    }
    f_start = f_end;
  }
  return zeros;
}

Vector to_vector(const std::vector<double>& v) {
  Vector out(static_cast<Eigen::Index>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) out[static_cast<Eigen::Index>(i)] = v[i];
  return out;
}

// Quadrature weights b from B(s): sum_i b_i c_i^{k-1} = 1/k.
Vector quadrature_weights(const Vector& c) {
  const int s = static_cast<int>(c.size());
  Matrix V(s, s);
  Vector rhs(s);
  for (int k = 0; k < s; ++k) {
    for (int i = 0; i < s; ++i) V(k, i) = std::pow(c[i], k);
    rhs[k] = 1.0 / (k + 1);
  }
  return V.fullPivLu().solve(rhs);
}

// Collocation matrix from C(s): sum_j a_ij c_j^{k-1} = c_i^k / k.
Matrix collocation_matrix(const Vector& c) {
  const int s = static_cast<int>(c.size());
  Matrix V(s, s), R(s, s);
  for (int j = 0; j < s; ++j)
    for (int k = 0; k < s; ++k) V(j, k) = std::pow(c[j], k);
  for (int i = 0; i < s; ++i)
    for (int k = 0; k < s; ++k) R(i, k) = std::pow(c[i], k + 1) / (k + 1);
  // A V = R  =>  V^T A^T = R^T
  return V.transpose().fullPivLu().solve(R.transpose()).transpose();
}

void require_stages(int s, int min_s) {
  if (s < min_s || s > 9)
    throw InvalidArgument("tableau: number of stages must be in [" + std::to_string(min_s) +
                          ", 9], got " + std::to_string(s));
}

}  // namespace

RungeKuttaTableau radau_iia(int s) {
  require_stages(s, 1);
  auto p = [s](double x) { return legendre(s, 2 * x - 1) - legendre(s - 1, 2 * x - 1); };
  std::vector<double> c = interior_zeros(p, 0.0, 1.0);
  c.push_back(1.0);
  RungeKuttaTableau t;
  t.name = "Radau IIA(" + std::to_string(s) + ")";
  t.c = to_vector(c);
  t.b = quadrature_weights(t.c);
  t.A = collocation_matrix(t.c);
  t.order = 2 * s - 1;
  t.stage_order = s;
  return t;
}

RungeKuttaTableau radau_ia(int s) {
  require_stages(s, 1);
  auto p = [s](double x) { return legendre(s, 2 * x - 1) + legendre(s - 1, 2 * x - 1); };
  std::vector<double> c{0.0};
  for (double z : interior_zeros(p, 0.0, 1.0)) c.push_back(z);
  RungeKuttaTableau t;
  t.name = "Radau IA(" + std::to_string(s) + ")";
  t.c = to_vector(c);
  t.b = quadrature_weights(t.c);
  // D(s): sum_i b_i c_i^{k-1} a_ij = b_j (1 - c_j^k) / k
  Matrix W(s, s), R(s, s);
  for (int k = 0; k < s; ++k) {
    for (int i = 0; i < s; ++i) W(k, i) = t.b[i] * std::pow(t.c[i], k);
    for (int j = 0; j < s; ++j) R(k, j) = t.b[j] * (1.0 - std::pow(t.c[j], k + 1)) / (k + 1);
  }
  t.A = W.fullPivLu().solve(R);
  t.order = 2 * s - 1;
  t.stage_order = s - 1;
  return t;
}

RungeKuttaTableau gauss(int s) {
  require_stages(s, 1);
  auto p = [s](double x) { return legendre(s, 2 * x - 1); };
  RungeKuttaTableau t;
  t.name = "Gauss(" + std::to_string(s) + ")";
  t.c = to_vector(interior_zeros(p, 0.0, 1.0));
  t.b = quadrature_weights(t.c);
  t.A = collocation_matrix(t.c);
  t.order = 2 * s;
  t.stage_order = s;
  return t;
}

RungeKuttaTableau lobatto_iiia(int s) {
  require_stages(s, 2);
  // (1 - x^2) P'_{s-1}(x) is proportional to P_{s-2}(x) - P_s(x).
  auto p = [s](double x) { return legendre(s, 2 * x - 1) - legendre(s - 2, 2 * x - 1); };
  std::vector<double> c{0.0};
  for (double z : interior_zeros(p, 0.0, 1.0)) c.push_back(z);
  c.push_back(1.0);
  RungeKuttaTableau t;
  t.name = "Lobatto IIIA(" + std::to_string(s) + ")";
  t.c = to_vector(c);
  t.b = quadrature_weights(t.c);
  t.A = collocation_matrix(t.c);
  t.order = 2 * s - 2;
  t.stage_order = s;
  return t;
}

RungeKuttaTableau lobatto_iiic(int s) {
  require_stages(s, 2);
  const RungeKuttaTableau iiia = lobatto_iiia(s);
  RungeKuttaTableau t;
  t.name = "Lobatto IIIC(" + std::to_string(s) + ")";
  t.c = iiia.c;
  t.b = iiia.b;
  // a_i1 = b_1 and C(s-1): sum_{j>=2} a_ij c_j^{k-1} = c_i^k / k - b_1 c_1^{k-1}, k = 1..s-1
  // (c_1 = 0, so the first column only enters the k = 1 equation)
  t.A.resize(s, s);
  Matrix V(s - 1, s - 1);
  for (int k = 0; k < s - 1; ++k)
    for (int j = 1; j < s; ++j) V(k, j - 1) = std::pow(t.c[j], k);
  for (int i = 0; i < s; ++i) {
    Vector rhs(s - 1);
    for (int k = 0; k < s - 1; ++k)
      rhs[k] = std::pow(t.c[i], k + 1) / (k + 1) - (k == 0 ? t.b[0] : 0.0);
    t.A(i, 0) = t.b[0];
    t.A.row(i).tail(s - 1) = V.fullPivLu().solve(rhs).transpose();
  }
  t.order = 2 * s - 2;
  t.stage_order = s - 1;
  t.reference = "Hairer-Wanner II, IV.5 (Lobatto IIIC: a_i1 = b_1, C(s-1))";
  return t;
}

bool RungeKuttaTableau::lower_triangular() const {
  for (int i = 0; i < A.rows(); ++i)
    for (int j = i + 1; j < A.cols(); ++j)
      if (A(i, j) != 0.0) return false;
  return true;
}

bool RungeKuttaTableau::explicit_method() const {
  if (!lower_triangular()) return false;
  for (int i = 0; i < A.rows(); ++i)
    if (A(i, i) != 0.0) return false;
  return true;
}

namespace {

struct Published {
  const char* name;
  RungeKuttaTableau (*make)();
};

const std::vector<Published>& published_tableaus() {
  static const std::vector<Published> all = {
      {"sdirk4-hw16", sdirk4_hw16},       {"sdirk4-hw18", sdirk4_hw18},
      {"kvaerno3", kvaerno_esdirk3},      {"kvaerno4", kvaerno_esdirk4},
      {"kvaerno5", kvaerno_esdirk5},      {"alexander2", alexander_sdirk2},
      {"alexander3", alexander_sdirk3},   {"dopri5", dormand_prince5},
      {"bs3", bogacki_shampine3},         {"rk4", classical_rk4},
      {"explicit-euler", explicit_euler},
  };
  return all;
}

}  // namespace

std::vector<std::string> tableau_names() {
  std::vector<std::string> names;
  for (int s = 1; s <= 5; ++s) names.push_back("radau-iia-" + std::to_string(s));
  names.push_back("radau-iia-7");
  for (int s = 1; s <= 4; ++s) names.push_back("radau-ia-" + std::to_string(s));
  for (int s = 1; s <= 4; ++s) names.push_back("gauss-" + std::to_string(s));
  for (int s = 2; s <= 5; ++s) names.push_back("lobatto-iiia-" + std::to_string(s));
  for (int s = 2; s <= 5; ++s) names.push_back("lobatto-iiic-" + std::to_string(s));
  for (const Published& p : published_tableaus()) names.push_back(p.name);
  return names;
}

RungeKuttaTableau tableau_by_name(const std::string& name) {
  struct Family {
    const char* prefix;
    RungeKuttaTableau (*make)(int);
    int min_stages;
  };
  static const Family families[] = {{"radau-iia-", radau_iia, 1},
                                    {"radau-ia-", radau_ia, 1},
                                    {"gauss-", gauss, 1},
                                    {"lobatto-iiia-", lobatto_iiia, 2},
                                    {"lobatto-iiic-", lobatto_iiic, 2}};
  std::string published;
  for (const Published& p : published_tableaus()) {
    if (name == p.name) return p.make();
    published += std::string(published.empty() ? "" : ", ") + p.name;
  }
  const std::string valid =
      "valid tableaus: radau-iia-S, radau-ia-S, gauss-S (S = 1..9 stages), lobatto-iiia-S, "
      "lobatto-iiic-S (S = 2..9), e.g. radau-iia-3, or " +
      published;
  for (const Family& f : families) {
    const std::string prefix = f.prefix;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    // one digit without sign or leading zero: the stage counts the families support
    if (digits.size() == 1 && digits[0] >= '0' && digits[0] <= '9') {
      const int s = digits[0] - '0';
      if (s >= f.min_stages) return f.make(s);
    }
    throw InvalidArgument("tableau '" + name + "': the number of stages S of " + prefix +
                          "S must be in " + std::to_string(f.min_stages) + "..9; " + valid);
  }
  throw InvalidArgument("unknown tableau '" + name + "'; " + valid);
}

int simplifying_B(const RungeKuttaTableau& t, int max_p, double tol) {
  int p = 0;
  for (int k = 1; k <= max_p; ++k) {
    double sum = 0.0;
    for (int i = 0; i < t.stages(); ++i) sum += t.b[i] * std::pow(t.c[i], k - 1);
    if (std::abs(sum - 1.0 / k) > tol) break;
    p = k;
  }
  return p;
}

int simplifying_C(const RungeKuttaTableau& t, int max_q, double tol) {
  const int s = t.stages();
  int q = 0;
  for (int k = 1; k <= max_q; ++k) {
    for (int i = 0; i < s; ++i) {
      double sum = 0.0;
      for (int j = 0; j < s; ++j) sum += t.A(i, j) * std::pow(t.c[j], k - 1);
      if (std::abs(sum - std::pow(t.c[i], k) / k) > tol) return q;
    }
    q = k;
  }
  return q;
}

int simplifying_D(const RungeKuttaTableau& t, int max_r, double tol) {
  const int s = t.stages();
  int r = 0;
  for (int k = 1; k <= max_r; ++k) {
    for (int j = 0; j < s; ++j) {
      double sum = 0.0;
      for (int i = 0; i < s; ++i) sum += t.b[i] * std::pow(t.c[i], k - 1) * t.A(i, j);
      if (std::abs(sum - t.b[j] * (1.0 - std::pow(t.c[j], k)) / k) > tol) return r;
    }
    r = k;
  }
  return r;
}

double stability_at_infinity(const RungeKuttaTableau& t) {
  const Vector ones = Vector::Ones(t.stages());
  return 1.0 - t.b.dot(t.A.fullPivLu().solve(ones));
}

std::complex<double> stability_function(const RungeKuttaTableau& t, std::complex<double> z) {
  const int s = t.stages();
  using CMatrix = Eigen::MatrixXcd;
  using CVector = Eigen::VectorXcd;
  CMatrix I_minus_zA = CMatrix::Identity(s, s) - z * t.A.cast<std::complex<double>>();
  CVector x = I_minus_zA.fullPivLu().solve(CVector::Ones(s));
  return 1.0 + z * (t.b.cast<std::complex<double>>().transpose() * x)(0);
}

TransformedTableau transform_inverse(const RungeKuttaTableau& t) {
  const int s = t.stages();
  if (s % 2 == 0) throw InvalidArgument("transform_inverse: needs an odd number of stages");
  const Matrix Ainv = t.A.inverse();
  ComplexVector lambda;
  ComplexMatrix V;
  eigen_decomposition(Ainv, lambda, V);
  TransformedTableau tt;
  tt.T.resize(s, s);
  tt.alpha.resize((s - 1) / 2);
  tt.beta.resize((s - 1) / 2);
  int pair = 0;
  bool have_real = false;
  for (int k = 0; k < s; ++k) {
    const double re = lambda[k].real(), im = lambda[k].imag();
    if (std::abs(im) < 1e-10 * std::abs(lambda[k])) {
      if (have_real) throw InvalidArgument("transform_inverse: more than one real eigenvalue");
      have_real = true;
      tt.gamma = re;
      Vector v = V.col(k).real();
      v /= v.norm();
      if (v[s - 1] < 0) v = -v;
      tt.T.col(0) = v;
    } else if (im > 0) {
      // A^{-1} (vr + i vi) = (alpha + i beta)(vr + i vi) gives, with T = [vr, -vi], the block
      // [alpha -beta; beta alpha]. Normalise the eigenvector so its last entry is 1.
      const Eigen::VectorXcd v = V.col(k) / V(s - 1, k);
      tt.alpha[pair] = re;
      tt.beta[pair] = im;
      tt.T.col(1 + 2 * pair) = v.real();
      tt.T.col(2 + 2 * pair) = -v.imag();
      ++pair;
    }
  }
  if (!have_real || pair != (s - 1) / 2)
    throw InvalidArgument("transform_inverse: eigenvalues of A^{-1} are not 1 real + pairs");
  tt.T_inverse = tt.T.inverse();
  return tt;
}

BlockDiagonalInverse block_diagonalise_inverse(const Matrix& A) {
  const int s = static_cast<int>(A.rows());
  if (s == 0 || A.cols() != s || !Eigen::FullPivLU<Matrix>(A).isInvertible())
    throw InvalidArgument("block_diagonalise_inverse: A must be square and invertible");
  const Matrix Ainv = A.inverse();  // as transform_inverse(): the same constants for s = 3
  ComplexVector lambda;
  ComplexMatrix V;
  eigen_decomposition(Ainv, lambda, V);
  std::vector<int> reals, pairs;
  for (int k = 0; k < s; ++k) {
    const double im = lambda[k].imag();
    if (std::abs(im) <= 1e-10 * std::abs(lambda[k]))
      reals.push_back(k);
    else if (im > 0)
      pairs.push_back(k);
  }
  if (static_cast<int>(reals.size() + 2 * pairs.size()) != s)
    throw InvalidArgument("block_diagonalise_inverse: unpaired complex eigenvalues");
  std::sort(reals.begin(), reals.end(),
            [&](int a, int b) { return lambda[a].real() < lambda[b].real(); });
  std::sort(pairs.begin(), pairs.end(),
            [&](int a, int b) { return std::abs(lambda[a]) < std::abs(lambda[b]); });
  BlockDiagonalInverse d;
  d.gamma.resize(static_cast<Eigen::Index>(reals.size()));
  d.alpha.resize(static_cast<Eigen::Index>(pairs.size()));
  d.beta.resize(static_cast<Eigen::Index>(pairs.size()));
  d.T.resize(s, s);
  int col = 0;
  for (size_t r = 0; r < reals.size(); ++r) {
    const int k = reals[r];
    Vector v = V.col(k).real();
    v /= v.norm();
    if (v[s - 1] < 0) v = -v;
    d.gamma[static_cast<Eigen::Index>(r)] = lambda[k].real();
    d.T.col(col++) = v;
  }
  for (size_t p = 0; p < pairs.size(); ++p) {
    const int k = pairs[p];
    // scale the eigenvector to last entry 1 (RADAU5), or to unit norm if that entry vanishes
    Eigen::VectorXcd v = V.col(k);
    if (std::abs(v[s - 1]) > 1e-8 * v.norm())
      v /= v[s - 1];
    else
      v /= v.norm();
    d.alpha[static_cast<Eigen::Index>(p)] = lambda[k].real();
    d.beta[static_cast<Eigen::Index>(p)] = lambda[k].imag();
    d.T.col(col++) = v.real();
    d.T.col(col++) = -v.imag();
  }
  Eigen::FullPivLU<Matrix> tlu(d.T);
  if (!tlu.isInvertible() || tlu.rcond() < 1e-12)
    throw InvalidArgument(
        "block_diagonalise_inverse: A^{-1} is not diagonalisable (defective "
        "eigenvalues); use a full stage Newton matrix");
  d.T_inverse = d.T.inverse();
  return d;
}

Vector embedded_error_weights(const RungeKuttaTableau& t, double gamma) {
  const int s = t.stages();
  Matrix V(s, s);
  Vector rhs(s);
  for (int k = 0; k < s; ++k) {
    for (int i = 0; i < s; ++i) V(k, i) = std::pow(t.c[i], k);
    rhs[k] = 1.0 / (k + 1) - (k == 0 ? 1.0 / gamma : 0.0);
  }
  const Vector bhat = V.fullPivLu().solve(rhs);
  return gamma * t.A.transpose().fullPivLu().solve(bhat - t.b);
}

}  // namespace daekit
