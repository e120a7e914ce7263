// When a method may keep its Jacobian and its factorised iteration matrix: one policy object
// for every method (DESIGN.md: one Jacobian/LU reuse policy), parameterised by the method's
// published constants.
//   RADAU5 (Hairer-Wanner IV.8): keep J while Newton contracted with theta <= 0.001; keep the
//     LU (and the step size) while h_new / h stays in [1, 1.2].
//   DASSL (Brenan-Campbell-Petzold 5.2): re-evaluate J with every factorisation; keep the
//     factorisation while c_j / c_j,old stays in [0.6, 1 / 0.6] (the correction is then scaled).
// Internal header (not installed).
#pragma once

namespace daekit {

struct ReusePolicy {
  double jacobian_rate = 0.001;  ///< keep J while the Newton contraction is at or below this
  double ratio_low = 1.0;        ///< keep the LU while the shift ratio lies in [low, high]
  double ratio_high = 1.2;

  bool keep_jacobian(double newton_rate) const { return newton_rate <= jacobian_rate; }
  bool keep_factorisation(double shift_ratio) const {
    return shift_ratio >= ratio_low && shift_ratio <= ratio_high;
  }

  static ReusePolicy radau5(double theta, double low, double high) { return {theta, low, high}; }
  static ReusePolicy dassl() { return {-1.0, 0.6, 1.0 / 0.6}; }
};

}  // namespace daekit
