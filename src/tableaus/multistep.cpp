#include "daekit/tableaus/multistep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dense_spectra.hpp"

namespace daekit {

Vector bdf_coefficients(int k) {
  if (k < 1 || k > 12) throw InvalidArgument("bdf_coefficients: k must lie in [1, 12]");
  Vector alpha = Vector::Zero(k + 1);
  for (int j = 1; j <= k; ++j) alpha.head(j + 1) += backward_difference(j) / j;
  return alpha;
}

std::vector<std::complex<double>> characteristic_roots(const Vector& alpha) {
  const int k = static_cast<int>(alpha.size()) - 1;
  if (k < 1 || alpha[0] == 0.0) throw InvalidArgument("characteristic_roots: need alpha_0 != 0");
  return polynomial_roots(alpha);
}

bool zero_stable(const Vector& alpha, double tol) { return root_condition(alpha, tol).holds; }

Vector backward_difference(int j) {
  if (j < 0) throw InvalidArgument("backward_difference: j must be >= 0");
  Vector c(j + 1);
  double binom = 1.0;
  for (int i = 0; i <= j; ++i) {
    c[i] = (i % 2 ? -1.0 : 1.0) * binom;
    binom = binom * (j - i) / (i + 1);
  }
  return c;
}

double taylor_coefficient(const Vector& rho, const Vector& sigma, int q) {
  if (rho.size() != sigma.size())
    throw InvalidArgument("taylor_coefficient: rho and sigma must have the same size");
  double c = 0.0;
  for (int i = 0; i < rho.size(); ++i) {
    // (-i)^q / q! and (-i)^(q-1) / (q-1)!, with 0^0 = 1
    double a = 1.0, b = 1.0;
    for (int j = 1; j <= q; ++j) a *= -static_cast<double>(i) / j;
    for (int j = 1; j <= q - 1; ++j) b *= -static_cast<double>(i) / j;
    c += rho[i] * a;
    if (q >= 1) c -= sigma[i] * b;
  }
  return c;
}

int formula_order(const Vector& rho, const Vector& sigma, double tol) {
  const double scale = std::max(rho.cwiseAbs().sum(), sigma.cwiseAbs().sum());
  int p = -1;
  for (int q = 0; q <= 2 * static_cast<int>(rho.size()) + 2; ++q) {
    if (std::abs(taylor_coefficient(rho, sigma, q)) > tol * scale) break;
    p = q;
  }
  return p;
}

LinearMultistepFormula make_formula(const std::string& name, const Vector& rho,
                                    const Vector& sigma) {
  if (rho.size() < 2 || rho.size() != sigma.size())
    throw InvalidArgument("make_formula: rho and sigma need the same size k + 1 >= 2");
  LinearMultistepFormula f;
  f.name = name;
  f.k = static_cast<int>(rho.size()) - 1;
  f.rho = rho;
  f.sigma = sigma;
  f.order = formula_order(rho, sigma);
  const double s1 = sigma.sum();
  f.error_constant = s1 != 0.0 ? taylor_coefficient(rho, sigma, f.order + 1) / s1 : 0.0;
  return f;
}

namespace {
void check_k(const char* what, int k, int k_max) {
  if (k < 1 || k > k_max)
    throw InvalidArgument(std::string(what) + ": k must lie in [1, " + std::to_string(k_max) +
                          "], got " + std::to_string(k));
}
}  // namespace

LinearMultistepFormula bdf_formula(int k) {
  check_k("bdf_formula", k, 6);
  Vector sigma = Vector::Zero(k + 1);
  sigma[0] = 1.0;
  return make_formula("BDF" + std::to_string(k), bdf_coefficients(k), sigma);
}

LinearMultistepFormula dcbdf_formula(int k) {
  check_k("dcbdf_formula", k, 6);
  Vector sigma = -backward_difference(k) / (k + 1);
  sigma[0] += 1.0;
  return make_formula("DCBDF" + std::to_string(k), bdf_coefficients(k), sigma);
}

Vector adams_moulton_gammas(int m) {
  Vector g(m + 1);
  g[0] = 1.0;
  for (int q = 1; q <= m; ++q) {
    double s = 0.0;
    for (int j = 0; j < q; ++j) s += g[j] / (q + 1 - j);
    g[q] = -s;
  }
  return g;
}

LinearMultistepFormula adams_moulton_formula(int k) {
  check_k("adams_moulton_formula", k, 12);
  const Vector g = adams_moulton_gammas(k);
  Vector sigma = Vector::Zero(k + 1);
  for (int j = 0; j <= k; ++j) sigma.head(j + 1) += g[j] * backward_difference(j);
  Vector rho = Vector::Zero(k + 1);
  rho[0] = 1.0;
  rho[1] = -1.0;
  return make_formula("AM" + std::to_string(k), rho, sigma);
}

std::vector<std::complex<double>> polynomial_roots(const Vector& c) {
  const int deg = static_cast<int>(c.size()) - 1;
  if (deg < 0 || c[0] == 0.0)
    throw InvalidArgument("polynomial_roots: need a non-zero leading coefficient");
  std::vector<std::complex<double>> roots;
  if (deg == 0) return roots;
  Matrix C = Matrix::Zero(deg, deg);  // companion matrix of the monic polynomial
  for (int j = 0; j < deg; ++j) C(0, j) = -c[j + 1] / c[0];
  for (int i = 1; i < deg; ++i) C(i, i - 1) = 1.0;
  const ComplexVector values = eigenvalues(C);
  for (int i = 0; i < deg; ++i) roots.push_back(values[i]);
  return roots;
}

double max_root_modulus(const Vector& c) {
  if (c.size() == 0) return 0.0;
  if (std::abs(c[0]) <= 1e-14 * c.cwiseAbs().maxCoeff())
    return std::numeric_limits<double>::infinity();
  double m = 0.0;
  for (const auto& r : polynomial_roots(c)) m = std::max(m, std::abs(r));
  return m;
}

RootConditionCheck root_condition(const Vector& c, double tol) {
  RootConditionCheck out;
  out.max_modulus = max_root_modulus(c);
  if (!std::isfinite(out.max_modulus)) return out;
  out.strict = out.max_modulus < 1.0 - tol;
  out.holds = out.max_modulus <= 1.0 + tol;
  if (out.holds) {
    const auto roots = polynomial_roots(c);
    for (size_t i = 0; i < roots.size(); ++i) {
      if (std::abs(roots[i]) <= 1.0 - tol) continue;
      for (size_t j = i + 1; j < roots.size(); ++j)
        if (std::abs(roots[i] - roots[j]) < 1e-6) out.holds = false;  // multiple on the circle
    }
  }
  return out;
}

Vector blocked_sigma(const Vector& sigma, double c, int q) {
  if (q < 0 || q > sigma.size() - 1)
    throw InvalidArgument("blocked_sigma: the blocker nabla^q needs 0 <= q <= k");
  Vector s = sigma;
  s.head(q + 1) -= c * backward_difference(q);
  return s;
}

BlockingConstant best_blocking_constant(const Vector& sigma, int q, double c_low, double c_high,
                                        int samples) {
  if (!(c_high > c_low) || samples < 3)
    throw InvalidArgument("best_blocking_constant: need c_low < c_high and samples >= 3");
  auto value = [&](double c) { return max_root_modulus(blocked_sigma(sigma, c, q)); };
  BlockingConstant best{c_low, value(c_low)};
  const double dc = (c_high - c_low) / (samples - 1);
  for (int i = 1; i < samples; ++i) {
    const double c = c_low + i * dc;
    const double v = value(c);
    if (v < best.max_modulus) best = {c, v};
  }
  // golden-section refinement on [c - dc, c + dc] (the function is continuous but not smooth
  // where two roots exchange the lead: the grid keeps the search honest)
  double a = std::max(c_low, best.c - dc), b = std::min(c_high, best.c + dc);
  const double r = (std::sqrt(5.0) - 1.0) / 2.0;
  double x1 = b - r * (b - a), x2 = a + r * (b - a);
  double f1 = value(x1), f2 = value(x2);
  for (int it = 0; it < 100 && b - a > 1e-14 * std::max(1.0, std::abs(a)); ++it) {
    if (f1 < f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - r * (b - a);
      f1 = value(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + r * (b - a);
      f2 = value(x2);
    }
  }
  const double c = (a + b) / 2, v = value(c);
  if (v < best.max_modulus) best = {c, v};
  return best;
}

namespace {
std::complex<double> poly_at(const Vector& c, std::complex<double> z) {
  std::complex<double> s = 0.0;
  for (int i = 0; i < c.size(); ++i) s = s * z + c[i];  // Horner, newest (highest power) first
  return s;
}
}  // namespace

std::vector<std::complex<double>> boundary_locus(const LinearMultistepFormula& f, int points) {
  if (points < 2) throw InvalidArgument("boundary_locus: need at least 2 points");
  std::vector<std::complex<double>> z;
  z.reserve(static_cast<size_t>(points));
  for (int j = 0; j < points; ++j) {
    const double theta = 2.0 * M_PI * j / (points - 1);
    const std::complex<double> zeta = std::polar(1.0, theta);
    z.push_back(poly_at(f.rho, zeta) / poly_at(f.sigma, zeta));
  }
  return z;
}

bool absolutely_stable(const LinearMultistepFormula& f, std::complex<double> z) {
  // rho(zeta) - z sigma(zeta) with complex coefficients: roots from a complex companion matrix
  const int k = f.k;
  Eigen::VectorXcd c(k + 1);
  for (int i = 0; i <= k; ++i) c[i] = f.rho[i] - z * f.sigma[i];
  if (std::abs(c[0]) <= 1e-14 * c.cwiseAbs().maxCoeff()) return false;
  Eigen::MatrixXcd C = Eigen::MatrixXcd::Zero(k, k);
  for (int j = 0; j < k; ++j) C(0, j) = -c[j + 1] / c[0];
  for (int i = 1; i < k; ++i) C(i, i - 1) = 1.0;
  // the real matrix [Re C, -Im C; Im C, Re C] has the eigenvalues of C and their conjugates:
  // the same moduli, from the real eigensolver
  Matrix R(2 * k, 2 * k);
  R << C.real(), -C.imag(), C.imag(), C.real();
  const ComplexVector roots = eigenvalues(R);
  for (int i = 0; i < 2 * k; ++i)
    if (std::abs(roots[i]) >= 1.0) return false;
  return true;
}

double bdf_milne_factor(int k) {
  const LinearMultistepFormula f = bdf_formula(k);  // InvalidArgument outside 1..6
  const double corrector = taylor_coefficient(f.rho, f.sigma, k + 1) / f.rho[0];
  const Vector predictor = backward_difference(k + 1);
  const double predictor_constant =
      taylor_coefficient(predictor, Vector::Zero(predictor.size()), k + 1);
  return corrector / (corrector - predictor_constant);
}

namespace {
// |arg(-z(theta))| of the boundary locus where Re z(theta) < 0, +infinity elsewhere and at the
// origin (theta = 0, where rho(1) = 0 leaves a round-off z of any sign).
double locus_angle(const LinearMultistepFormula& f, double theta) {
  const std::complex<double> zeta = std::polar(1.0, theta);
  const std::complex<double> z = poly_at(f.rho, zeta) / poly_at(f.sigma, zeta);
  if (!(z.real() < 0) || std::abs(z) < 1e-8) return std::numeric_limits<double>::infinity();
  return std::atan2(std::abs(z.imag()), -z.real());
}
}  // namespace

double stability_angle(const LinearMultistepFormula& f, int points) {
  if (points < 3) throw InvalidArgument("stability_angle: need at least 3 points");
  for (int j = -3; j <= 6; ++j)
    if (!absolutely_stable(f, {-std::pow(10.0, j), 0.0})) return 0.0;
  // the locus is symmetric about the real axis: theta in [0, pi] suffices
  const double step = M_PI / (points - 1);
  int best = -1;
  double smallest = std::numeric_limits<double>::infinity();
  for (int j = 0; j < points; ++j) {
    const double a = locus_angle(f, j * step);
    if (a < smallest) {
      smallest = a;
      best = j;
    }
  }
  if (best < 0) return M_PI / 2;
  // golden-section search on [theta_best - step, theta_best + step]
  const double g = (std::sqrt(5.0) - 1) / 2;
  double lo = std::max(0.0, (best - 1) * step), hi = std::min(M_PI, (best + 1) * step);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = locus_angle(f, x1), f2 = locus_angle(f, x2);
  for (int it = 0; it < 100 && hi - lo > 1e-15; ++it) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = locus_angle(f, x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = locus_angle(f, x2);
    }
  }
  return std::min({smallest, f1, f2});
}

}  // namespace daekit
