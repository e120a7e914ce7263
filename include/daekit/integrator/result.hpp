// Result of a solve: status and message, the trajectory (every accepted step and/or the
// requested output times) as n x N matrices, dense output over the whole interval when
// requested, events, statistics (core/stats.hpp), constraint drift monitors, what was given
// and what was used (tolerances, linear solver, the method's options, options a method does
// not use), warnings, and
// a brief and a full report (Ceres' BriefReport / FullReport). The CLI prints report() and
// adds nothing of its own.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "daekit/core/dense_output.hpp"
#include "daekit/core/types.hpp"
#include "daekit/integrator/options.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

/// A sequence of states of one size n stored contiguously (an n x N matrix, grown by
/// amortised doubling: no heap block per step). Reads like std::vector<Vector>:
/// seq[i] (a column), seq.size(), seq.back(); seq.matrix() is the n x N matrix.
class StateSequence {
 public:
  using Column = Eigen::Map<const Vector>;
  int n() const { return n_; }
  long size() const { return count_; }
  bool empty() const { return count_ == 0; }
  Column operator[](long i) const { return Column(data_.data() + i * n_, n_); }
  Column front() const { return (*this)[0]; }
  Column back() const { return (*this)[count_ - 1]; }
  Eigen::Map<const Matrix> matrix() const {
    return Eigen::Map<const Matrix>(data_.data(), n_, count_);
  }
  void push_back(const Eigen::Ref<const Vector>& y);
  void reserve(int n, long count);
  void clear() { count_ = 0; }

  class const_iterator {
   public:
    const_iterator(const StateSequence* s, long i) : s_(s), i_(i) {}
    Column operator*() const { return (*s_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const StateSequence* s_;
    long i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, count_}; }

 private:
  int n_ = 0;
  long count_ = 0;
  std::vector<double> data_;
};

struct Result {
  Status status = Status::InvalidInput;
  std::string message;
  std::string method;
  /// The method "auto" (auto_method, registry.hpp): the rule that chose `method`, one line
  /// (set by the front ends that resolve "auto": the CLI, Python); empty when the method was
  /// named. The reports print it after their first line.
  std::string method_choice;
  std::string problem;

  double t = 0.0;  ///< time reached (t_end on success)
  Vector y;        ///< state at t
  Vector yp;       ///< y'(t) from the method (its derivative or interpolant)

  std::vector<double> t_steps;  ///< accepted steps (t0 first) if Options::store_steps
  StateSequence y_steps;        ///< the states there (n x N, y_steps[i] is a column)
  std::vector<double> t_out;    ///< Options::output_times that were reached
  StateSequence y_out;

  /// Options::sensitivities: S = dy/dp (n x np) at t, and at the output times and stored steps
  /// (s_out[i], s_steps[i]: S flattened column by column, n np values; sensitivity_out(i)).
  int n_parameters = 0;  ///< np (0: no sensitivities computed)
  Matrix sensitivities;
  StateSequence s_out, s_steps;
  long sensitivity_iterations = 0;  ///< iterations of the sensitivities' stage equations
  /// S at t_out[i] (resp. t_steps[i]) as an n x np matrix.
  Matrix sensitivity_out(long i) const {
    return Eigen::Map<const Matrix>(s_out[i].data(), y.size(), n_parameters);
  }
  Matrix sensitivity_step(long i) const {
    return Eigen::Map<const Matrix>(s_steps[i].data(), y.size(), n_parameters);
  }

  std::vector<DenseSegment> segments;  ///< if Options::store_dense
  std::vector<EventRecord> events;     ///< located events, in order

  Stats stats;
  double cpu_seconds = 0.0;
  double h_last = 0.0;  ///< size of the last accepted step
  double h_next = 0.0;  ///< step size the integrator would try next
  int order = 0;        ///< method order of the last step

  // Given and used.
  double rtol = 0.0, atol = 0.0;            ///< as given (atol: the scalar one)
  double rtol_used = 0.0, atol_used = 0.0;  ///< as the method works with them (radau5: rtol')
  std::string linear_solver;                ///< backend of the iteration matrices
  /// The structure of the Jacobian the solve used and where it came from: "declared banded
  /// (2, 2)", "detected sparse (2998 non-zeros), bandwidths (1, 1)", "dense (not detected:
  /// n = 8 < detect_sparsity_min_n = 33)" (Options::detect_sparsity).
  std::string jacobian_structure;
  Projection projection = Projection::None;        ///< the post-step projection used
  bool fixed_step = false;                         ///< constant steps without error control
  Controller controller = Controller::Gustafsson;  ///< step-size controller (unused by bdf)
  /// The step-size rule as applied: the controller or the method's declared rule, the limits
  /// the method declares (beta-multistep: max_increase 2, its dead band and settling), and
  /// the first step and what chose it (src/integrator/controller.hpp).
  std::string step_control;
  int jacobian_colours = 0;  ///< f-evaluations per difference Jacobian (0: analytic)
  std::vector<int> excluded_from_error_test;
  /// The values of the method's registered options in this solve, as the method object reports
  /// them (MethodInfo::options; `daekit methods NAME`), in the order of its description.
  std::vector<MethodOptionValue> method_options;
  std::vector<std::string> warnings;  ///< options not honoured, suspicious results
  /// Facts of the method's design that qualify what its tolerance means (radau5's margin on
  /// rtol, the h and h^2 scaling of index-2/3 errors, components a method leaves out of its
  /// error test): the same on every run, so full_report() lists them, report() does not.
  std::vector<std::string> notes;

  /// Options::global_error_check: the estimated error of y in units of the tolerance (max over
  /// the components in the error test of index tag <= 1 of |y_i - y~_i| / (atol_i + rtol
  /// |y~_i|), y~ the answer of the check's run at tolerances / 10); NaN when not estimated.
  double global_error = std::numeric_limits<double>::quiet_NaN();
  int global_error_component = -1;        ///< where it is largest (-1: not estimated)
  double global_error_cpu_seconds = 0.0;  ///< the check's run (not in cpu_seconds)

  bool has_constraints = false;                     ///< the problem has a constraint monitor
  ConstraintResiduals max_residual;                 ///< max over accepted steps (and t0)
  std::vector<ConstraintResiduals> residual_steps;  ///< per stored step

  bool ok() const { return status == Status::Success; }
  /// Dense solution at t (needs Options::store_dense). Throws InvalidArgument outside the range.
  Vector sol(double t) const;
  /// A few lines: status, reached t, steps, evaluations, time.
  std::string brief_report() const;
  /// Everything: given/used settings, every counter with its meaning, drift, notes, warnings.
  std::string full_report() const;
  /// The CLI's report: brief_report plus the drift line, events, warnings and `extra` (lines
  /// a caller adds, e.g. the scd of a built-in problem), all before the CPU-time line.
  std::string report(const std::string& extra = "") const;
};

}  // namespace daekit
