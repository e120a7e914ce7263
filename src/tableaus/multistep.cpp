#include "daekit/tableaus/multistep.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

namespace daekit {

Vector bdf_coefficients(int k) {
  if (k < 1 || k > 12) throw InvalidArgument("bdf_coefficients: k must lie in [1, 12]");
  // nabla^j y_n = sum_i (-1)^i C(j, i) y_{n-i}
  Vector alpha = Vector::Zero(k + 1);
  for (int j = 1; j <= k; ++j) {
    double binom = 1.0;
    for (int i = 0; i <= j; ++i) {
      alpha[i] += (i % 2 ? -1.0 : 1.0) * binom / j;
      binom = binom * (j - i) / (i + 1);
    }
  }
  return alpha;
}

std::vector<std::complex<double>> characteristic_roots(const Vector& alpha) {
  const int k = static_cast<int>(alpha.size()) - 1;
  if (k < 1 || alpha[0] == 0.0) throw InvalidArgument("characteristic_roots: need alpha_0 != 0");
  Matrix C = Matrix::Zero(k, k);  // companion matrix of zeta^k + (alpha_1/alpha_0) zeta^{k-1} ...
  for (int j = 0; j < k; ++j) C(0, j) = -alpha[j + 1] / alpha[0];
  for (int i = 1; i < k; ++i) C(i, i - 1) = 1.0;
  Eigen::EigenSolver<Matrix> es(C, false);
  std::vector<std::complex<double>> roots;
  for (int i = 0; i < k; ++i) roots.push_back(es.eigenvalues()[i]);
  return roots;
}

bool zero_stable(const Vector& alpha, double tol) {
  const auto roots = characteristic_roots(alpha);
  for (size_t i = 0; i < roots.size(); ++i) {
    const double r = std::abs(roots[i]);
    if (r > 1.0 + tol) return false;
    if (r > 1.0 - tol)
      for (size_t j = i + 1; j < roots.size(); ++j)
        if (std::abs(roots[i] - roots[j]) < 1e-6) return false;  // multiple root on the circle
  }
  return true;
}

}  // namespace daekit
