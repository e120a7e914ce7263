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

}  // namespace daekit
