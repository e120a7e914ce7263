// The contract between a method (one step of one scheme) and the integrator
// (integrator/integrator.hpp), DESIGN.md layers "integrator" and "methods".
//
// The integrator owns the error weights (one meaning of rtol/atol, ErrorWeights below), the
// step-size controller, retries, projection as a post-step hook, events, output and the guard
// around user code. A method takes single steps from its current point (t, y):
//   attempt(h)   solves the step equations and estimates the local error (err < 1: acceptable);
//   candidate()  y_{n+1} of the converged attempt, which post-step hooks (projection) may change;
//   accept()     commits the candidate (and may evaluate f there);
//   dense(t)     the method's interpolant over the last accepted step, built from the
//                candidate as the method computed it (the integrator adds the projection's
//                linear correction so that the dense output is continuous).
// Step sizes are not the method's: the integrator's controller (integrator/controller.hpp)
// chooses every step, the first one included, by the rules the capabilities declare
// (MethodCapabilities::step_rule, starting_step). A method informs it and nothing more:
//   next_order()          its order logic after an accepted or rejected attempt, and the error
//                         estimate of the order chosen (the BDF: DASSL's order selection);
//   step_limits()         what it declares once about its steps (beta-multistep: the largest
//                         increase of its variable-step formulas, a dead band, constant steps
//                         while its equidistant history settles), reported in Result;
//   plan_matrix_reuse()   after an accepted step, what its Newton iteration reuses next (the
//                         Jacobian, and the step ratios for which the factorisation stays
//                         valid: the controller keeps h there, RADAU5's quot1/quot2);
//   derivative(), derivative_at()  y' at the current point and at a probe point, for the
//                         starting-step estimate.
// Numerical trouble is an AttemptOutcome, never an exception; callback failures are recorded
// in the solve's CallGuard. Internal header (not installed).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/guard.hpp"
#include "daekit/core/dense_output.hpp"
#include "daekit/core/stats.hpp"
#include "daekit/core/types.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/nonlinear/initialization.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

/// Tolerances as given or as a method uses them (radau5 transforms rtol).
struct Tolerances {
  double rtol = 1e-6;
  Vector atol;
};

/// Error weights w_i = rtol |y_i| + atol_i of the current point, owned by the integrator
/// (updated after every accepted step) and read by the method's norms. Components may be left
/// out of the error test (`in_test`); Newton iterations use all components (norm_all).
class ErrorWeights {
 public:
  void setup(const Tolerances& tol, const std::vector<char>& in_test);
  /// w_i = rtol |y_i| + atol_i (after setup; y of atol's size).
  void update(const Vector& y);
  /// update(y), and abs_max_i = max(abs_max_i, |y_i|) in the same pass (the step loop's
  /// max |y| so far).
  void update(const Vector& y, Vector& abs_max);
  const Vector& w() const { return w_; }
  double rtol() const { return tol_.rtol; }
  const Vector& atol() const { return tol_.atol; }
  bool in_test(int i) const { return in_test_[static_cast<size_t>(i)] != 0; }
  const std::vector<char>& in_test() const { return in_test_; }
  int test_count() const { return test_count_; }
  /// RMS over the components in the error test of v_i / w_i.
  double norm(const Vector& v) const {
    if (test_count_ == static_cast<int>(w_.size())) return norm_all(v);
    double sum = 0.0;
    for (Eigen::Index i = 0; i < v.size(); ++i)
      if (in_test_[static_cast<size_t>(i)]) {
        const double r = v[i] / w_[i];
        sum += r * r;
      }
    return std::sqrt(sum / std::max(test_count_, 1));
  }
  /// RMS over all components of v_i / w_i.
  double norm_all(const Vector& v) const {
    double sum = 0.0;
    const double* a = v.data();
    const double* w = w_.data();
    for (Eigen::Index i = 0; i < v.size(); ++i) {
      const double r = a[i] / w[i];
      sum += r * r;
    }
    return std::sqrt(sum / static_cast<double>(v.size()));
  }

 private:
  Tolerances tol_;
  std::vector<char> in_test_;
  int test_count_ = 0;
  Vector w_;
};

/// What a method says about a solve before it starts (Method::caveats): notes for
/// Result::notes (full_report(): facts of the design, on every run) and warnings for
/// Result::warnings (something the user should act on).
struct Caveats {
  std::vector<std::string> notes, warnings;
};

enum class AttemptOutcome {
  Converged,      ///< step equations solved; `err` is meaningful
  NewtonFailed,   ///< Newton diverged or was too slow: retry with h * h_factor
  Singular,       ///< iteration matrix singular: retry with h * h_factor
  NonFinite,      ///< a user function returned NaN/Inf (or failed recoverably): retry smaller
  CallbackError,  ///< a user function failed fatally (see the guard): stop
};

/// What the controller chooses the next step size from (Method::next_order): the scaled error
/// err expected of the scheme of the next step at the size of the step just tried, and the
/// exponent k of its error model err ~ C h^k.
struct StepBasis {
  double err = 0.0;
  int k = 1;
  bool start_phase = false;  ///< DASSL's initial phase: the order was raised, double the step
};

/// What a method declares about its step sizes (Method::step_limits, read once before the solve;
/// the controller applies it and Result::step_control reports it). The reasons are static text.
struct StepLimits {
  /// The largest h_new / h the method's formulas allow (the controller uses the smaller of this
  /// and Options::max_increase).
  double max_increase = std::numeric_limits<double>::infinity();
  const char* max_increase_reason = "";
  /// A dead band: proposals h_new / h in [hold_low, hold_high] keep h (none if low > high).
  double hold_low = 1.0, hold_high = 0.0;
  const char* hold_reason = "";
  /// After a change of h, h is kept for this many accepted steps (counted from the step that
  /// changed it; also from the start and after a restart).
  int settle_steps = 0;
  const char* settle_reason = "";
};

/// What the Newton iteration of the next step reuses, decided by the method after an accepted
/// step (Method::plan_matrix_reuse; not a step-size decision): with `keeps_factorisation` the
/// factorised iteration matrix stays valid for step ratios h_next / h in [low, high], and the
/// controller keeps h when its proposal falls there (RADAU5's quot1, quot2).
struct MatrixReuse {
  bool keeps_factorisation = false;
  double low = 1.0, high = 1.0;
};

struct StepAttempt {
  AttemptOutcome outcome = AttemptOutcome::Converged;
  double err = 0.0;           ///< scaled error norm (accept if < 1)
  double h_factor = 0.5;      ///< suggested step reduction when not converged
  double safety_scale = 1.0;  ///< multiplies the controller's safety factor (Newton effort)
  int newton_iterations = 0;  ///< of this attempt (trace)
  double newton_rate = 0.0;   ///< contraction estimate of this attempt (trace)
  const char* detail = "";    ///< what went wrong (static text: no allocation in the loop)
};

/// Forward sensitivities asked of a method with MethodCapabilities::sensitivities
/// (Options::sensitivities; MethodInput::sensitivities): S = dy/dp with respect to the problem's
/// p, from `initial` (n x np: its differential part; null: zero) made consistent.
struct SensitivityRequest {
  bool error_control = false;       ///< Options::sensitivity_error_control (IDAS's errconS)
  const Matrix* initial = nullptr;  ///< Options::initial_sensitivities, or null
};

class Method {
 public:
  virtual ~Method() = default;
  virtual const char* name() const = 0;
  /// Order of the method for the step just taken (variable-order methods: current order).
  virtual int order() const = 0;
  /// Exponent k of the error model err ~ C h^k used by the step-size controller (read before
  /// every proposal: a variable-order method changes it).
  virtual int error_order() const = 0;
  /// The tolerances the method works with for the given ones (default: unchanged).
  virtual Tolerances used_tolerances(const Tolerances& given) const { return given; }
  /// What the error control of this solve means, given the tolerances as given (default:
  /// nothing to say): facts of the method's design go to `notes` (Result::notes, e.g. radau5's
  /// h and h^2 scaling of index-2/3 errors), a combination the user should change to
  /// `warnings` (Result::warnings, e.g. a tableau without an error estimate).
  virtual Caveats caveats(const Tolerances& given) const {
    (void)given;
    return {};
  }
  /// Components left out of the error test unless Options says otherwise (default: none).
  virtual std::vector<int> default_error_test_exclusions() const { return {}; }
  /// What leaving out the components the error test actually leaves out (`in_test[i] == 0`:
  /// Options::exclude_from_error_test or the method's default) means, as caveats().
  virtual Caveats error_test_caveats(const std::vector<char>& in_test) const {
    (void)in_test;
    return {};
  }
  /// A projection the method's own options ask for (kept for Radau5Options::projection).
  virtual Projection requested_projection() const { return Projection::None; }
  /// Called once before the solve with the post-step projection that will be applied (from
  /// Options or requested_projection()): a non-empty message refuses the combination (the
  /// solve throws InvalidArgument with it); `warnings` collects caveats for Result::warnings
  /// (projected-rk: the tableau conditions (B1)-(B3) of paper 000 at index 3).
  virtual std::string check_projection(Projection projection, std::vector<std::string>& warnings) {
    (void)projection, (void)warnings;
    return {};
  }
  /// Prepare to integrate from (t0, y0) with the integrator's weights (which must outlive the
  /// method). False on a failure: the guard holds a callback failure, or `message` says why.
  virtual bool start(double t0, const Vector& y0, const ErrorWeights& weights,
                     std::string& message) = 0;
  virtual StepAttempt attempt(double h) = 0;
  /// y_{n+1} of the last converged attempt (post-step hooks may change it before accept()).
  virtual Vector& candidate() = 0;
  /// Commits the candidate: the current point moves to t + h. Returns false (state unchanged)
  /// if the method could not evaluate what it needs there (the guard says why) or found the
  /// step inconsistent (accept_failure() says so).
  virtual bool accept() = 0;
  /// Why the last accept() returned false, if not a failed evaluation: the attempt outcome to
  /// retry with and a static text (default: f returned NaN/Inf at the end of the step).
  virtual StepAttempt accept_failure() const {
    StepAttempt a;
    a.outcome = AttemptOutcome::NonFinite;
    a.detail = "f returned NaN/Inf at the end of the step";
    return a;
  }
  /// The method's order logic after a converged attempt `last`, accepted (called after
  /// accept()) or rejected by the error test: a variable-order method may choose the order of
  /// the next step here. Returns the basis of the controller's step size: by default the
  /// attempt's error and error_order(); the BDF the estimate of the order it chose.
  virtual StepBasis next_order(const StepAttempt& last, bool accepted) {
    (void)accepted;
    StepBasis b;
    b.err = last.err;
    b.k = error_order();
    return b;
  }
  /// The method's declarations about its step sizes (default: none).
  virtual StepLimits step_limits() const { return {}; }
  /// After an accepted step (and its events): the method decides what its next Newton
  /// iteration reuses (Jacobian, factorisation) and says for which step ratios the
  /// factorisation stays valid (default: nothing is reused across steps).
  virtual MatrixReuse plan_matrix_reuse() { return {}; }
  /// The controller kept h within the band plan_matrix_reuse() gave: the factorisation is
  /// reused at the next step.
  virtual void matrix_reuse_granted() {}
  virtual double t() const = 0;
  virtual const Vector& y() const = 0;
  /// y'(t) at the current point, if the method knows it (else a derivative of the interpolant).
  virtual void derivative(VecOut out) const { dense_derivative(t(), out); }
  /// y' at a point (t, y) near the current one where the problem's form gives it without
  /// solving (M y' = f with diagonal M: f_i / m_ii on the differential components), for the
  /// starting-step estimate's probe; the other components of `out` are left as they are. One
  /// f-evaluation. False if the form gives none (default) or the evaluation failed (the guard
  /// says why).
  virtual bool derivative_at(double t, const Vector& y, VecOut out) {
    (void)t, (void)y, (void)out;
    return false;
  }
  /// The interpolant over the last accepted step (valid after the first accept()).
  virtual void dense(double t, VecOut out) const = 0;
  virtual void dense_derivative(double t, VecOut out) const = 0;
  /// Restart at (t, y) after an event changed the state or the model: make the algebraic part
  /// consistent where the method can, and start afresh (BDF: order 1). False with a message
  /// (or a failure in the guard) if no consistent state was found.
  virtual bool restart(double t, const Vector& y, std::string& message) = 0;
  /// Restart at a known discontinuity of f's smoothness (Options::tstops), the state
  /// continuous: as restart(), but the method may keep its Jacobian (a tstop changes the
  /// smoothness of f, not necessarily df/dy; Newton's convergence says when it did). Default:
  /// restart().
  virtual bool restart_at_tstop(double t, const Vector& y, std::string& message) {
    return restart(t, y, message);
  }
  /// What retake_step() did.
  enum class Retake {
    Unsupported,  ///< the method cannot (default): the caller keeps the interpolant's value
    Failed,       ///< the step's equations did not converge: the caller keeps the interpolant's
    Done,         ///< `out` holds the state at t from the step's equations
  };
  /// A switch or an event that restarts at t inside the last accepted step (t_n, t_n+1]: the
  /// state at t from the step's equations solved again from (t_n, y_n) with h = t - t_n (the
  /// model as during the step: the caller sets the parameters() of the old branch), instead of
  /// the step's interpolant. For a stiffly accurate Runge-Kutta method the end value of a
  /// step satisfies the algebraic equations 0 = g(y) to the Newton tolerance (an interpolant
  /// between the stages does not, and at index 2 a violated g makes the next step's index-2
  /// values of size g/h). The method's state for the next step is set by restart() after it.
  virtual Retake retake_step(double t, Vector& out) {
    (void)t, (void)out;
    return Retake::Unsupported;
  }
  /// The model may have changed at the current point (the integrator stopped exactly there,
  /// Integrator::solve_until): evaluate again what the method keeps of f at (t, y) -- f(t, y)
  /// itself, a first-same-as-last stage, the base point of difference Jacobians -- so that no
  /// value of the old model enters the next step; the solution's history stays. False with a
  /// message (or a failure in the guard) if that failed. Default: a full restart().
  virtual bool refresh(std::string& message) {
    const Vector y_now = y();
    return restart(t(), y_now, message);
  }
  /// Copy of the last step's interpolant (allocates: only used when the user stores it).
  virtual DenseSegment segment() const = 0;
  /// S = dy/dp (n x np) at t() when the solve computes sensitivities (MethodInput::
  /// sensitivities), else null.
  virtual const Matrix* sensitivities() const { return nullptr; }
  /// S on the last accepted step's interpolant (the same continuous extension as dense()).
  virtual void dense_sensitivities(double t, MatOut out) const {
    (void)t;
    if (const Matrix* S = sensitivities()) out = *S;
  }
  /// After restart() at an event whose action changed the state: S = dy/dp just after it (the
  /// integrator's jump, EventLocator::action_sensitivity) replaces the method's S, its
  /// algebraic part made consistent at the new point where the method can (M y' = f: as at
  /// t0), and the sensitivities start afresh as the state did. False with a message if that
  /// failed. Default (methods without sensitivities): nothing to replace.
  virtual bool jump_sensitivities(const Matrix& S, std::string& message) {
    (void)S;
    (void)message;
    return true;
  }
  /// A warning about the sensitivities from start() (Result::warnings), or empty.
  virtual std::string sensitivity_warning() const { return {}; }
  /// Iterations of the sensitivities' stage equations so far (0 without sensitivities).
  virtual long sensitivity_iterations() const { return 0; }
  /// The parameters the method's callbacks see (the solve's copy; event actions change it).
  virtual Vector& parameters() = 0;
  /// Constraint monitor / projector of the problem, where the form has them.
  virtual bool has_monitor() const { return false; }
  virtual bool monitor(double t, const Vector& y, ConstraintResiduals& out) {
    (void)t, (void)y, (void)out;
    return false;
  }
  virtual bool has_projector() const { return false; }
  virtual bool project(double t, VecOut y, Projection level) {
    (void)t, (void)y, (void)level;
    return false;
  }
  /// Algebraic equations and constraints at (t0, y0) for the consistency check: returns an
  /// empty string if consistent to `tol`, else what is violated (default: no check).
  virtual std::string check_consistency(double t0, const Vector& y0, double tol) {
    (void)t0, (void)y0, (void)tol;
    return {};
  }
  /// The problem's analytic Jacobian against differences at (t0, y0) (Options::check_jacobian);
  /// default: nothing to check.
  virtual JacobianCheck check_jacobian(double t0, const Vector& y0) {
    (void)t0, (void)y0;
    return {};
  }
  /// The linear-solver backend in use ("dense LU", "banded LU", "KLU") and the number of
  /// columns groups of its finite-difference Jacobian (0 for analytic Jacobians).
  virtual std::string linear_solver() const { return ""; }
  virtual int jacobian_colours() const { return 0; }
  /// The values of the method's registered options (MethodInfo::options) in this solve, read
  /// from the options the method object holds (Result::method_options; default: none).
  virtual std::vector<MethodOptionValue> used_options() const { return {}; }
};

}  // namespace daekit
