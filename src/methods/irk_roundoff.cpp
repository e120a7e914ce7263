// IrkEngine (irk_engine.hpp): the round-off of the constraints in the index-2/3 components
// (set_roundoff_components(), constraint_roundoff() and what uses it), and ~IrkEngine(). Apart
// from irk_engine.cpp, in a unity group with the set-up code: GCC's inlining of the step code
// there changes with what else its unit holds (docs/results/tolerance-meaning.md, seventh
// session), and none of this runs at every step.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "methods/irk_engine.hpp"

namespace daekit {

namespace irk_roundoff {
constexpr double kRoundoffEps = std::numeric_limits<double>::epsilon();
// The Newton increments of a round-off component below kNewtonNoise times its noise level are
// round-off; the level is used when it reaches kNoiseRelevant times the Newton tolerance in the
// weights (below, the norm is left bit for bit as it was)
constexpr double kNewtonNoise = 10.0;
constexpr double kNoiseRelevant = 0.1;

// out_i = sum_j |J_ij| |y_j| for every row i (J dense, banded or sparse)
void absolute_product(const StructuredMatrix<double>& J, const Vector& y, Vector& out) {
  out.setZero();
  for (int j = 0; j < J.size(); ++j) {
    const double yj = std::abs(y[j]);
    J.for_each_in_column(j, [&](int i, double v) { out[i] += std::abs(v) * yj; });
  }
}
}  // namespace irk_roundoff

using irk_roundoff::absolute_product;
using irk_roundoff::kNewtonNoise;
using irk_roundoff::kNoiseRelevant;
using irk_roundoff::kRoundoffEps;

IrkEngine::~IrkEngine() = default;

const Vector& IrkEngine::noise() const { return ro_->noise; }
const Vector& IrkEngine::newton_noise() const { return ro_->newton_noise; }
bool IrkEngine::noise_active() const { return ro_ && ro_->active; }

void IrkEngine::constraint_roundoff(const Vector& y, const Vector& f,
                                    const StructuredMatrix<double>& J) {
  if (ro_ && ro_->nlu != sys_.stats().nlu) compute_constraint_roundoff(y, f, J);
}

const std::vector<int>& IrkEngine::roundoff_components() const {
  static const std::vector<int> none;
  return ro_ ? ro_->cols : none;
}

void IrkEngine::set_roundoff_components(const std::vector<int>& cols,
                                        const std::vector<int>& rows) {
  ro_.reset();
  if (cols.empty() || rows.empty()) return;
  ro_ = std::make_unique<Roundoff>();
  ro_->cols = cols;
  ro_->rows = rows;
  ro_->noise.setZero(n_);
  ro_->newton_noise.setZero(n_);
  ro_->levels.setZero(n_);
}

void IrkEngine::compute_constraint_roundoff(const Vector& y, const Vector& f,
                                            const StructuredMatrix<double>& J) {
  Roundoff& r = *ro_;
  absolute_product(J, y, tmp_);
  r.noise.setZero();
  for (int a : r.rows) r.noise[a] = kRoundoffEps * (tmp_[a] + std::abs(f[a]));
  real_[0]->solve_in_place(r.noise);
  r.noise = r.noise.cwiseAbs();
  r.newton_noise.setZero();
  for (int j : r.cols) r.newton_noise[j] = kNewtonNoise * tinv_gain_ * r.noise[j];
  r.nlu = sys_.stats().nlu;
}

void IrkEngine::start_residual_part(const Vector& f0, Vector& out) const {
  out.setZero();
  for (int a : ro_->rows) out[a] = f0[a];
  real_[0]->solve_in_place(out);
  ++sys_.stats().nsol;
}

Vector& IrkEngine::error_levels(const Vector& f0) {
  Roundoff& r = *ro_;
  start_residual_part(f0, tmp_);  // (tmp_ is free while error_estimate() takes the norm)
  r.levels.setZero();
  for (int j : r.cols) r.levels[j] = std::abs(tmp_[j]) + r.newton_noise[j];
  return r.levels;
}

void IrkEngine::weigh_constraint_roundoff(const Vector& scal, double tolerance) {
  double most = 0.0;
  for (int j : ro_->cols) most = std::max(most, ro_->newton_noise[j] / scal[j]);
  ro_->active = most >= kNoiseRelevant * tolerance;
}

bool IrkEngine::stage_values_elsewhere(double t, double h) {
  return sys_.f_stages(t, h, k_->c.data(), k_->s, y_cols_.data(), f_cols_.data());
}

double IrkEngine::noise_discounted_norm(const Vector& scal) const {
  const BlockDiagonalInverse& b = k_->blocks;
  const long n = n_;
  const double* sc = scal.data();
  const double* lv = ro_->newton_noise.data();
  double sum = 0.0;
  auto add = [&](double x, long i) {
    const double v = std::max(std::abs(x) - lv[i], 0.0) / sc[i];
    sum += v * v;
  };
  for (int c = 0; c < b.real_blocks(); ++c)
    for (long i = 0; i < n; ++i) add(R_(i, c), i);
  for (int p = 0; p < b.complex_blocks(); ++p) {
    const Eigen::VectorXcd& x = cpairs_[static_cast<size_t>(p)];
    for (long i = 0; i < n; ++i) add(x[i].real(), i);
    for (long i = 0; i < n; ++i) add(x[i].imag(), i);
  }
  return std::sqrt(sum / (static_cast<double>(k_->s) * n));
}

}  // namespace daekit
