#include "methods/method.hpp"

#include <algorithm>
#include <cmath>

namespace daekit {

void ErrorWeights::setup(const Tolerances& tol, const std::vector<char>& in_test) {
  tol_ = tol;
  in_test_ = in_test;
  test_count_ = 0;
  for (char c : in_test_) test_count_ += c != 0;
  w_ = tol_.atol;
}

// w_i = rtol |y_i| + atol_i, element by element (as the Eigen expression
// rtol * y.cwiseAbs() + atol, without its size checks and evaluator set-up per call).
// (scalar loops: the vectorised ones' alias checks and remainder handling cost more than they
// save at the sizes where this call matters)
[[gnu::optimize("no-tree-vectorize")]] void ErrorWeights::update(const Vector& y) {
  const Eigen::Index n = y.size();  // = atol's size = w_'s (setup)
  const double rtol = tol_.rtol;
  const double* a = y.data();
  const double* atol = tol_.atol.data();
  double* w = w_.data();
  for (Eigen::Index i = 0; i < n; ++i) w[i] = rtol * std::abs(a[i]) + atol[i];
}

[[gnu::optimize("no-tree-vectorize")]] void ErrorWeights::update(const Vector& y, Vector& abs_max) {
  const Eigen::Index n = y.size();
  const double rtol = tol_.rtol;
  const double* a = y.data();
  const double* atol = tol_.atol.data();
  double* w = w_.data();
  double* m = abs_max.data();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double v = std::abs(a[i]);
    w[i] = rtol * v + atol[i];
    m[i] = std::max(m[i], v);
  }
}

}  // namespace daekit
