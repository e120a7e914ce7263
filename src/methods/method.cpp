#include "methods/method.hpp"

#include <cmath>

namespace daekit {

void ErrorWeights::setup(const Tolerances& tol, const std::vector<char>& in_test) {
  tol_ = tol;
  in_test_ = in_test;
  test_count_ = 0;
  for (char c : in_test_) test_count_ += c != 0;
  w_ = tol_.atol;
}

void ErrorWeights::update(const Vector& y) { w_ = tol_.rtol * y.cwiseAbs() + tol_.atol; }

double ErrorWeights::norm(const Vector& v) const {
  double sum = 0.0;
  const int n = static_cast<int>(v.size());
  for (int i = 0; i < n; ++i)
    if (in_test_[static_cast<size_t>(i)]) {
      const double r = v[i] / w_[i];
      sum += r * r;
    }
  return std::sqrt(sum / std::max(test_count_, 1));
}

double ErrorWeights::norm_all(const Vector& v) const {
  return std::sqrt((v.array() / w_.array()).square().sum() / static_cast<double>(v.size()));
}

}  // namespace daekit
