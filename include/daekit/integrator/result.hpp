// Result of a solve: status and message, the trajectory (every accepted step and/or the
// requested output times), dense output over the whole interval when requested, statistics,
// constraint drift monitors, CPU time, and a readable report().
#pragma once

#include <string>
#include <vector>

#include "daekit/core/dense_output.hpp"
#include "daekit/core/types.hpp"
#include "daekit/integrator/options.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

struct Result {
  Status status = Status::InvalidInput;
  std::string message;
  std::string method;
  std::string problem;

  double t = 0.0;  ///< time reached (t_end on success)
  Vector y;        ///< state at t

  std::vector<double> t_steps;  ///< accepted steps (t0 first) if Options::store_steps
  std::vector<Vector> y_steps;
  std::vector<double> t_out;  ///< Options::output_times that were reached
  std::vector<Vector> y_out;

  std::vector<DenseSegment> segments;  ///< if Options::store_dense
  std::vector<EventRecord> events;     ///< located events, in order

  Stats stats;
  double cpu_seconds = 0.0;

  bool has_constraints = false;                     ///< the problem has a constraint monitor
  ConstraintResiduals max_residual;                 ///< max over accepted steps (and t0)
  std::vector<ConstraintResiduals> residual_steps;  ///< per stored step

  bool ok() const { return status == Status::Success; }
  /// Dense solution at t (needs Options::store_dense). Throws InvalidArgument outside the range.
  Vector sol(double t) const;
  /// Multi-line human-readable summary (status, statistics, drift, timing).
  std::string report() const;
};

}  // namespace daekit
