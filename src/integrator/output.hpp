// Output of the integrator: the continuous solution it reads from (DenseSource: the method's
// interpolant plus the projection's correction) and the sampling of the requested output
// times (Options::output_times) from it as the steps pass them. Internal header.
#pragma once

#include <vector>

#include "daekit/core/types.hpp"
#include "daekit/integrator/result.hpp"

namespace daekit {

/// The continuous solution over the last accepted step.
class DenseSource {
 public:
  virtual ~DenseSource() = default;
  virtual void dense(double t, VecOut out) const = 0;
  virtual void dense_derivative(double t, VecOut out) const = 0;
};

/// Samples the requested output times, in the direction of integration, into Result::t_out /
/// y_out: times equal to t0 from y0, the others from the dense output of the step that
/// reaches them.
class OutputSampler {
 public:
  /// Sorts the times; throws InvalidArgument for a time outside [t0, t_end] (either direction).
  void setup(std::vector<double> times, double t0, double t_end);
  void at_start(const Vector& y0, Result& r);
  /// Every pending time up to and including t_reached.
  void upto(double t_reached, const DenseSource& source, Vector& work, Result& r);
  bool pending() const { return next_ < times_.size(); }

 private:
  std::vector<double> times_;
  size_t next_ = 0;
  double t0_ = 0.0, dir_ = 1.0;
};

}  // namespace daekit
