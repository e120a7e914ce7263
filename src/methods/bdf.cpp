// bdf: the variable-order, variable-step BDF of DASSL / IDA (see methods/bdf.hpp for the
// mathematics), on the shared services: ImplicitSystem (guarded F, the iteration-matrix source,
// M's structure for mass-matrix problems), the linear-solver backends, NewtonAttempt
// (the monitor's FromFirst rate) and the integrator's error weights.
#include "daekit/methods/bdf.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/format.hpp"
#include "linalg/dense_kernels.hpp"
#include "methods/factory.hpp"
#include "methods/mass_matrix_method.hpp"
#include "methods/newton_attempt.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/reuse.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

void BdfOptions::validate() const {
  if (max_order < 1 || max_order > 5)
    throw InvalidArgument("bdf: max_order must lie in [1, 5], got " + std::to_string(max_order));
  if (fixed_order < 0 || fixed_order > max_order)
    throw InvalidArgument("bdf: fixed_order must lie in [0, max_order], got " +
                          std::to_string(fixed_order));
  if (max_newton_iterations < 1) throw InvalidArgument("bdf: max_newton_iterations must be >= 1");
  if (min_newton_iterations < 1 || min_newton_iterations > max_newton_iterations)
    throw InvalidArgument(
        "bdf: min_newton_iterations must lie in [1, max_newton_iterations], got " +
        std::to_string(min_newton_iterations));
  if (!(newton_tolerance > 0)) throw InvalidArgument("bdf: newton_tolerance must be > 0");
  if (exact_history && fixed_order == 0)
    throw InvalidArgument("bdf: exact_history needs fixed_order > 0");
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxOrder = 5;
// Weight of the direct predictor difference in the filtered algebraic error (see error_norm()).
// Measured (bench/bdf_vs_ida.cpp): 0 loses the dense output of algebraic variables driven by
// explicit time functions (5e-6 error at rtol 1e-9 in tests/test_bdf.cpp) and the clamp
// accuracy of the PI valve; 1 does not oscillate either but is more conservative (Akzo scd
// +0.2..0.9 per tolerance) and takes 15-25 % more steps on the transistor and 12557 instead of
// 6500 on Robertson-DAE at 1e-10; 0.3 is the compromise.
constexpr double kAlgebraicSmoothness = 0.3;
// The algebraic directions are computed per connected block of dF/dy' (dense pivoted QR of
// each block): a block larger than this, or a dF/dy' available only as a dense matrix (dense
// callback or differences) of larger n, leaves the filter off.
constexpr int kMaxDenseFilter = 1000;

const OptionTable<BdfOptions>& bdf_option_table();  // next to the registration

// Two rows at a time in the per-row loops over the differences (a GCC/Clang vector of two
// doubles: SSE2's packed operations are IEEE operations lane by lane, so a pair gives the values
// of two scalar rows to the bit); an odd last row as a scalar.
using RowPair = double __attribute__((vector_size(16)));
template <class T>
T load(const double* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(double* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

class Bdf final : public Method {
 public:
  Bdf(const BdfOptions& opt, const MethodInput& in) : opt_(opt), stats_(*in.stats) {
    const LinearSolverKind kind = in.linear_solver;
    if (in.implicit_form) {
      sys_.emplace(*in.implicit_form, kind, *in.guard, *in.stats);
      if (in.structure_detected) sys_->skip_pattern_check();
      yp0_ = *in.yp0;
    } else {
      const MassMatrixDae& dae = *in.mass_form;
      // Variable steps fail at index 3 (the error after a change of h is O(h_n / h_(n+1)),
      // the notes' (4.2)); constant steps of a fixed order converge (Theorem 4.1, Example
      // 4.1), so that study stays open.
      const bool constant_steps = in.fixed_step && opt.fixed_order > 0;
      if (dae.max_index() >= 3 && !constant_steps)
        throw InvalidArgument(
            "solve: BDF does not take index-3 problems ('" + dae.name +
            "' has index-3 components): BDF codes fail at index 3 with variable steps "
            "(Bendtsen and Thomsen 1999, ch. 4); use radau5, or an index-2/index-1 "
            "formulation (constant steps of a fixed order: fixed_step and fixed_order)");
      sys_.emplace(dae, kind, *in.guard, *in.stats);
    }
    n_ = sys_->n();
    maxord_ = opt.fixed_order > 0 ? opt.fixed_order : opt.max_order;
    phi_.setZero(n_, kMaxOrder + 2);
    phi_star_.setZero(n_, kMaxOrder + 2);
    for (Vector* v : {&y_, &yp_, &y_new_, &yp_new_, &y_pred_, &e_, &ef_, &ftmp_, &delta_, &res0_})
      v->setZero(n_);
    if (yp0_.size() != n_) yp0_.setZero(n_);
    lu_ = sys_->make_solver();
    E_ = &lu_->matrix();
    dyp_diagonal_ = sys_->constant_diagonal_dF_dyp();
    if (dyp_diagonal_) E_kept_.resize(n_, E_->sparsity());
    NewtonMonitor::Settings ns;
    ns.max_iterations = opt.max_newton_iterations;
    ns.tolerance = opt.newton_tolerance;
    ns.rate_estimate = NewtonMonitor::RateEstimate::FromFirst;
    ns.divergence = 0.9;
    newton_ = NewtonAttempt(ns, *in.guard, *in.stats);
    newton_.set_failure_factor(0.25);        // DASSL: h / 4 after a failure
    newton_.watch_jacobian(&matrix_valid_);  // DASSL: a new iteration matrix after any failure
    if (in.sensitivities) setup_sensitivities(*in.sensitivities);
  }

  const char* name() const override { return "bdf"; }
  int order() const override { return kold_; }
  int error_order() const override { return k_ + 1; }

  // A fact of the design (DASSL's practice, the default for index-2 components): a note.
  Caveats error_test_caveats(const std::vector<char>& in_test) const override {
    Caveats c;
    for (int i = 0; i < n_; ++i)
      if (sys_->index_of(i) >= 2 && !in_test[static_cast<size_t>(i)]) {
        c.notes.emplace_back(
            "bdf leaves the index-2 components out of the error test (DASSL's practice): "
            "their error is not controlled and reaches the others through the constraint "
            "forces, so the global error can exceed the tolerance many times (knife-edge at "
            "rtol = 5.6e-9: lambda off by up to 1.5e-3, x by 6e-7; docs/benchmarks.md)");
        break;
      }
    return c;
  }

  std::vector<int> default_error_test_exclusions() const override {
    std::vector<int> out;
    for (int i = 0; i < n_; ++i) {
      const bool algebraic = !sys_->is_differential(i);
      if ((opt_.exclude_algebraic_from_error && algebraic) || sys_->index_of(i) >= 2)
        out.push_back(i);
    }
    if (static_cast<int>(out.size()) == n_) out.clear();  // nothing left: keep them all
    return out;
  }

  std::string check_consistency(double t0, const Vector& y0, double tol) override {
    if (MassMatrixSystem* m = sys_->mass_form()) return daekit::check_consistency(*m, t0, y0, tol);
    Vector res(n_);
    if (!sys_->F(t0, y0, yp0_, res)) return sys_->guard().failure().describe();
    for (int i = 0; i < n_; ++i)
      if (!(std::abs(res[i]) <= tol))
        return "equation " + std::to_string(i) + " has residual |F_" + std::to_string(i) +
               "(t0, y0, yp0)| = " + format_number(std::abs(res[i]), 4) + " > " +
               format_number(tol, 4) +
               (sys_->max_index() <= 1
                    ? " (consistent values: daekit::initialize(dae, t0, y0, yp0, "
                      "daekit::InitMode::DifferentialGiven) in C++, its .y and .yp; "
                      "initialize=True in Python's solve_dae)"
                    : " (F(t, y, y') = 0 is initialized at index 1 only: give consistent y0 "
                      "and yp0, or write the model as M y' = f with its index tags, which "
                      "daekit::initialize(dae, t0, y0) initializes at index 2 and 3)");
    return {};
  }

  JacobianCheck check_jacobian(double t0, const Vector& y0) override {
    if (MassMatrixSystem* m = sys_->mass_form()) return daekit::check_jacobian(*m, t0, y0);
    return daekit::check_jacobian(*sys_, t0, y0, yp0_);
  }

  bool start(double t0, const Vector& y0, const ErrorWeights& weights,
             std::string& message) override {
    weights_ = &weights;
    if (MassMatrixSystem* m = sys_->mass_form()) {
      if (!initial_derivative(*m, t0, y0, yp0_)) return false;
    }
    if (!start_at(t0, y0, message)) return false;
    return np_ == 0 || start_sensitivities(t0, y0, message);
  }

  StepAttempt attempt(double h) override {
    StepAttempt a = corrected_step(h);
    if (np_ > 0 && a.outcome == AttemptOutcome::Converged) sensitivity_corrector(a);
    if (a.outcome != AttemptOutcome::Converged) {
      phase_ = 1;  // DASSL: phase 1 after any failure
      reform_from_kept_ = false;
    }
    return a;
  }

  Vector& candidate() override { return y_new_; }

  bool accept() override {
    const int k = k_;  // order of this step (0-based: phi_ columns 0..k+1)
    const int kdiff = k - kold_;
    ns_ = ns_new_;
    kold_ = k;
    hold_ = h_;
    for (int i = 0; i <= k + 1; ++i) psi_[i] = psi_new_[i];
    // phi_ takes phi*'s columns 0 .. k + 1, y and y' the corrected values, by swapping storage
    // (copies were 2 + (k + 2) vector assignments a step): the next attempt rewrites phi*'s
    // columns 0 .. k' + 1 (compute_coefficients) and y_new_, yp_new_ (predict) before reading
    // them; phi_'s columns above k + 1 (stale after the swap) are read only when the order
    // rises to k' = k + 1, as column k' + 1, copied unscaled into phi*, whose value the step
    // at order k' never reads (choose_next_order skips order k' + 1 right after a rise; accept
    // overwrites it with e below maxord).
    phi_.swap(phi_star_);
    t_ += h_;
    y_.swap(y_new_);
    yp_.swap(yp_new_);
    error_failures_ = 0;
    if (std::abs(h_) >= h_climb_) reform_from_kept_ = false;  // back at the step before a tstop
    choose_next_order(kdiff);  // reads phi_ column k + 1 (the previous step's e)
    // update the differences (DASSL block 6, order of the step just taken)
    update_differences(phi_, e_, k, 0, n_, nullptr);
    if (np_ > 0) accept_sensitivities(k);
    if (filter_ != FilterMode::Off) {  // A_j scaled as phi_star_, then the same recurrence
      update_differences(aphi_, ae_, k, 1, m_, beta_.data());  // (not column 0, y)
      if (k < maxord_) aphi_valid_[k + 1] = true;
      bool valid = aphi_valid_[k];  // A_j from A_j .. A_k
      for (int j = k - 1; j >= 1; --j) aphi_valid_[j] = valid = valid && aphi_valid_[j];
    }
    return true;
  }

  // DASSL block 6 on columns `first` .. k + 1 of d (rows 0 .. rows - 1) for the step of order
  // k with correction e: d_j *= scale_j for j = 1 .. k if `scale`, then d_{k+1} = e (below
  // maxord), d_k += e, d_j += d_{j+1} for j = k - 1 down to `first`: the column expressions'
  // operations in their order (the same values to the bit), one pass over the rows unrolled
  // for the order (the expressions' set-up cost more than their arithmetic for small n).
  void update_differences(Matrix& d, const Vector& e, int k, int first, int rows,
                          const double* scale) const {
    switch (k) {
      case 1:
        return update_differences<1>(d, e, first, rows, scale);
      case 2:
        return update_differences<2>(d, e, first, rows, scale);
      case 3:
        return update_differences<3>(d, e, first, rows, scale);
      case 4:
        return update_differences<4>(d, e, first, rows, scale);
      default:
        return update_differences<5>(d, e, first, rows, scale);
    }
  }
  template <int K>
  void update_differences(Matrix& d, const Vector& e, int first, int rows,
                          const double* scale) const {
    static_assert(K <= kMaxOrder);
    const long ld = d.rows();
    double* c = d.data();
    const bool below = K < maxord_;
    int i = 0;
    for (; i + 2 <= rows; i += 2)
      update_row<K, RowPair>(c + i, ld, e.data() + i, first, scale, below);
    if (i < rows) update_row<K, double>(c + i, ld, e.data() + i, first, scale, below);
  }
  // rows i (and i + 1) of update_differences(), c = d + i
  template <int K, class T>
  static void update_row(double* c, long ld, const double* e, int first, const double* scale,
                         bool below) {
    if (scale)
      for (int j = 1; j <= K; ++j) store(c + j * ld, load<T>(c + j * ld) * scale[j]);
    const T ei = load<T>(e);
    if (below) store(c + (K + 1) * ld, ei);
    T v = load<T>(c + K * ld) + ei;
    store(c + K * ld, v);
    for (int j = K - 1; j >= first; --j) {
      v = load<T>(c + j * ld) + v;
      store(c + j * ld, v);
    }
  }

  // DASSL's order logic; its step rule is the controller's (StepRule::Dassl). After an
  // accepted step: the order chosen in accept() and its error estimate. After an error-test
  // failure: the order of the error estimate (order 1 from the third failure in a row).
  StepBasis next_order(const StepAttempt&, bool accepted) override {
    StepBasis b;
    if (accepted) {
      b.err = next_est_;
      b.k = k_ + 1;
      b.start_phase = start_phase_;
      return b;
    }
    phase_ = 1;
    reform_from_kept_ = false;
    ++error_failures_;
    k_ = error_failures_ <= 2 ? knew_ : 1;
    b.err = est_;
    b.k = k_ + 1;
    return b;
  }

  double t() const override { return t_; }
  const Vector& y() const override { return y_; }
  void derivative(VecOut out) const override { out = kold_ == 0 ? yp0_ : yp_; }
  /// M y' = f with diagonal M: f_i / m_ii on the differential components at (t, y);
  /// F(t, y, y') = 0 gives no y' without solving.
  bool derivative_at(double t, const Vector& y, VecOut out) override {
    MassMatrixSystem* m = sys_->mass_form();
    if (!m || m->mass().kind() == MassOperator::Kind::Structured) return false;
    probe_f_.resize(n_);
    if (!m->f(t, y, probe_f_)) return false;
    return differential_derivative(m->mass(), probe_f_, out);
  }

  void dense(double t, VecOut out) const override {
    const double temp1 = t - t_;
    out = phi_.col(0);
    double c = 1.0, gamma = temp1 / psi_[0];
    for (int j = 1; j <= kold_; ++j) {
      c *= gamma;
      gamma = (temp1 + psi_[j - 1]) / psi_[j];
      out += c * phi_.col(j);
    }
  }

  /// y'(t) from the same interpolant.
  void dense_derivative(double t, VecOut out) const override {
    const double temp1 = t - t_;
    out.setZero();
    double c = 1.0, d = 0.0, gamma = temp1 / psi_[0];
    for (int j = 1; j <= kold_; ++j) {
      d = d * gamma + c / psi_[j - 1];
      c *= gamma;
      gamma = (temp1 + psi_[j - 1]) / psi_[j];
      out += d * phi_.col(j);
    }
  }

  bool restart(double t, const Vector& y, std::string& message) override {
    // consistent re-initialisation (differential components kept), then order 1 (as DNA)
    if (MassMatrixSystem* m = sys_->mass_form()) {
      Vector yr = y;
      if (!reinitialize(*m, t, yr, message)) {
        message = "re-initialisation at the event failed: " + message;
        return false;
      }
      // the index-2 components from the hidden constraints of the model from t on (the
      // history of the step before would carry the old branch's values into the predictor),
      // and with them y' of the other components on the piece ahead (the algebraic ones' too,
      // which initial_derivative() leaves at 0 at index 2: at a kink of an input the order-1
      // predictor would otherwise miss their new slope, an error the step halves only as h)
      Vector yp_ahead;
      if (h_ != 0.0 &&
          !consistent_index2_values(*m, t, yr, h_, kRestartDifferenceStep * std::abs(h_), message,
                                    &yp_ahead)) {
        message = "re-initialisation at the event failed: " + message;
        return false;
      }
      if (yp_ahead.size() == n_) {
        yp0_ = yp_ahead;
      } else if (!initial_derivative(*m, t, yr, yp0_)) {
        message = "y' at the event: " + sys_->guard().failure().describe();
        return false;
      }
      return start_at(t, yr, message);
    }
    const InitResult init =
        initialize(*sys_, t, y, yp_, InitMode::DifferentialGiven, InitOptions{});
    if (!init.ok) {
      message = "re-initialisation at the event failed: " + init.message;
      return false;
    }
    yp0_ = init.yp;
    return start_at(t, init.y, message);
  }

  /// At a tstop the state is continuous and df/dy usually is too: as restart(), and the climb
  /// back from order 1 (a new iteration matrix at each doubling of h) re-forms the matrix from
  /// the Jacobian kept from before the tstop, dF/dy + cj dF/dy' for a constant diagonal
  /// dF/dy' (M y' = f with diagonal M), without evaluating a new one, until h is back at the
  /// step before the tstop or an attempt fails. Newton's convergence says when the Jacobian
  /// changed: a corrector that fails with a re-formed matrix is retried with a new Jacobian,
  /// which the further re-forms start from.
  bool restart_at_tstop(double t, const Vector& y, std::string& message) override {
    const double h_before = std::abs(hold_);
    if (!restart(t, y, message)) return false;
    reform_from_kept_ = kept_valid_;
    h_climb_ = h_before;
    return true;
  }

  /// Nothing of F is kept at the current point: the history holds the solution only (its
  /// derivative's jump at a changed model is a kink the error test and the order selection see).
  bool refresh(std::string& message) override {
    (void)message;
    return true;
  }

  DenseSegment segment() const override {
    // The interpolant in Newton form: nodes t_n, t_n - psi_1, ..., i.e. theta_j = -psi_j / h.
    DenseSegment s;
    s.t_left = t_ - hold_;
    s.t_right = t_;
    const int m = kold_;
    s.coeffs.resize(n_, m + 1);
    s.nodes.resize(m);
    for (int j = 0; j < m; ++j) s.nodes[j] = j == 0 ? 0.0 : -psi_[j - 1] / hold_;
    s.coeffs.col(0) = phi_.col(0);
    double scale = 1.0;
    for (int j = 1; j <= m; ++j) {
      scale *= hold_ / psi_[j - 1];
      s.coeffs.col(j) = scale * phi_.col(j);
    }
    return s;
  }

  Vector& parameters() override { return sys_->p(); }
  bool has_monitor() const override {
    return sys_->mass_form() && sys_->mass_form()->has_monitor();
  }
  bool monitor(double t, const Vector& y, ConstraintResiduals& out) override {
    return sys_->mass_form() && sys_->mass_form()->monitor(t, y, out);
  }
  std::string linear_solver() const override { return lu_->name(); }
  int jacobian_colours() const override { return sys_->jacobian_colours(); }

  std::vector<MethodOptionValue> used_options() const override {
    return bdf_option_table().values(opt_);
  }

  // S after an event's jump: as at t0 (start_sensitivities) from the given S at (t_, y_)
  bool jump_sensitivities(const Matrix& S, std::string& message) override {
    if (np_ == 0) return true;
    S_ = S;
    Sp_.setZero();
    if (MassMatrixSystem* m = sys_->mass_form()) {
      if (!m->f(t_, y_, sF0_)) {
        message = "f failed at the restart point: " + sys_->guard().failure().describe();
        return false;
      }
      if (!consistent_initial_sensitivities(*m, t_, y_, sF0_, S_, message, sens_warning_)) {
        message = "sensitivities after the event: " + message;
        return false;
      }
    }
    return true;
  }
  const Matrix* sensitivities() const override { return np_ > 0 ? &S_ : nullptr; }
  // S on the interpolant of y (dense()): the same Newton form on S's differences
  void dense_sensitivities(double t, MatOut out) const override {
    if (np_ == 0) return;
    if (kold_ == 0) {
      out = S_;
      return;
    }
    const double temp1 = t - t_;
    out = s_block(Sphi_, 0);
    double c = 1.0, gamma = temp1 / psi_[0];
    for (int j = 1; j <= kold_; ++j) {
      c *= gamma;
      gamma = (temp1 + psi_[j - 1]) / psi_[j];
      out += c * s_block(Sphi_, j);
    }
  }
  long sensitivity_iterations() const override { return sens_iterations_; }
  std::string sensitivity_warning() const override { return sens_warning_; }

 private:
  // ---- forward sensitivities (IDAS's staggered corrector on DASSL's formulas) ----
  // S = dy/dp keeps its own modified divided differences Sphi_ (block j: n x np), predicted
  // and updated by the state's coefficients; after the state's corrector has converged, the
  // sensitivity corrector solves F_y S + F_y' S' + F_p = 0 with S' = S'^(0) + cj (S - S^(0))
  // by the state's iteration (its factorised matrix F_y + cj_old F_y', DASSL's rescaling for
  // cj != cj_old), the residual's products F_y S + F_y' S' by central differences of F along
  // (S, S') (eps^(2/3) relative: the linear iteration converges below the tolerance) and F_p
  // from parameter_jacobian() (the problem's parameter_sparsity; central differences with
  // the error control, as IDAS's centred difference quotients). Weights as IDAS's:
  // rtol |S_ik| + atol_i / |p_k|. Error control (errconS): ck |e_S| joins the step's error.
  static constexpr int kMaxSensitivityIterations = 10;
  // A stalled sensitivity corrector (increments that no longer shrink) is accepted when its
  // increment is within S's error weights (norm <= 1: S as accurate as the tolerances ask):
  // the residual's central differences carry a round-off of eps^(2/3) of F's terms (4e-11 on
  // an index-1 DAE with terms of order one, more with the transistor's exponentials), which at
  // rtol = atol = 1e-10 is 10-30 % of the weights atol / |p_k|; a linear iteration on an exact
  // residual contracts, so a stall there is that noise. (Rejecting it shrank the step to
  // nothing after an event whose action made a column of S nonzero, and on the transistor at
  // rtol = 1e-9.)
  static constexpr double kStalledSensitivityIncrement = 1.0;
  Eigen::Block<Matrix, -1, -1, true> s_block(Matrix& m, int j) {
    return m.middleCols(j * np_, np_);
  }
  Eigen::Block<const Matrix, -1, -1, true> s_block(const Matrix& m, int j) const {
    return m.middleCols(j * np_, np_);
  }

  void setup_sensitivities(const SensitivityRequest& request) {
    if (opt_.exact_history)
      throw InvalidArgument("bdf: sensitivities are not available with BdfOptions::exact_history");
    sens_request_ = request;
    sys_->set_central_parameter_differences(request.error_control);
    np_ = static_cast<int>(sys_->p().size());
    Sphi_.setZero(n_, (kMaxOrder + 2) * np_);
    Sphi_star_.setZero(n_, (kMaxOrder + 2) * np_);
    for (Matrix* m : {&S_, &Sp_, &S_new_, &Sp_new_, &eS_, &Fp_, &wS_}) m->setZero(n_, np_);
    for (Vector* v : {&sF0_, &sFa_, &sFb_, &sy_, &syp_, &sdelta_}) v->setZero(n_);
    pbar_.resize(np_);
    for (int k = 0; k < np_; ++k) pbar_[k] = sys_->p()[k] != 0.0 ? std::abs(sys_->p()[k]) : 1.0;
  }

  // S at t0: as given (zero by default); for M y' = f its algebraic part made consistent
  // (consistent_initial_sensitivities); for F(t, y, y') = 0 as given (consistent S0 is the
  // user's, as IDAS's yS0 without IDACalcIC). S' = 0.
  bool start_sensitivities(double t0, const Vector& y0, std::string& message) {
    if (sens_request_.initial)
      S_ = *sens_request_.initial;
    else
      S_.setZero();
    Sp_.setZero();
    if (MassMatrixSystem* m = sys_->mass_form()) {
      if (!m->f(t0, y0, sF0_)) return false;
      if (!consistent_initial_sensitivities(*m, t0, y0, sF0_, S_, message, sens_warning_)) {
        message = "initial sensitivities: " + message;
        return false;
      }
    }
    return true;
  }

  // F_y S + F_y' S' + F_p for column k of (S_new_, Sp_new_) at the step's end, into sdelta_.
  // The difference's step `eps` is chosen at the first iteration (eps = 0 on entry) and kept
  // for the column's further iterations: a step that follows the iterate made the residual a
  // non-smooth function of S, whose linear iteration then stalled at the level of the
  // differences' truncation error (the transistor at rtol = 1e-8).
  bool sensitivity_residual(int k, double tn, double& eps) {
    if (eps == 0.0) {
      const double sn = S_new_.col(k).cwiseAbs().maxCoeff();
      const double spn = std::abs(h_) * Sp_new_.col(k).cwiseAbs().maxCoeff();
      if (sn == 0.0 && spn == 0.0) {
        sdelta_ = Fp_.col(k);
        return true;
      }
      const double size = std::max(
          {1.0, y_new_.cwiseAbs().maxCoeff(), std::abs(h_) * yp_new_.cwiseAbs().maxCoeff()});
      eps = std::cbrt(kEps) * size / std::max(sn, spn);
    }
    sy_ = y_new_ + eps * S_new_.col(k);
    syp_ = yp_new_ + eps * Sp_new_.col(k);
    if (!sys_->F(tn, sy_, syp_, sFa_)) return false;
    sy_ = y_new_ - eps * S_new_.col(k);
    syp_ = yp_new_ - eps * Sp_new_.col(k);
    if (!sys_->F(tn, sy_, syp_, sFb_)) return false;
    sdelta_ = (sFa_ - sFb_) / (2.0 * eps) + Fp_.col(k);
    return true;
  }

  // RMS of column k of v in the sensitivities' weights (components out of the error test
  // scaled by min(1, |h|), as newton_norm()).
  double sensitivity_norm(const Eigen::Ref<const Vector>& v, int k) const {
    const double s = std::min(1.0, std::abs(h_));
    double sum = 0.0;
    for (int i = 0; i < n_; ++i) {
      const double r = (weights_->in_test(i) ? v[i] : s * v[i]) / wS_(i, k);
      sum += r * r;
    }
    return std::sqrt(sum / static_cast<double>(n_));
  }

  // The staggered sensitivity corrector of the converged step; `a` becomes a failure if it
  // does not converge or F fails, and takes S's error with error control.
  void sensitivity_corrector(StepAttempt& a) {
    const int k = k_, kp1 = k + 1;
    const double tn = t_ + h_;
    for (int j = 0; j <= kp1; ++j)
      s_block(Sphi_star_, j) = (j < kp1 ? beta_[j] : 1.0) * s_block(Sphi_, j);
    S_new_ = s_block(Sphi_star_, 0);
    Sp_new_.setZero();
    for (int j = 1; j <= k; ++j) {
      S_new_ += s_block(Sphi_star_, j);
      Sp_new_ += gamma_[j] * s_block(Sphi_star_, j);
    }
    eS_.setZero();
    if (!sys_->F(tn, y_new_, yp_new_, sF0_) ||
        !sys_->parameter_jacobian(tn, y_new_, yp_new_, sF0_, Fp_)) {
      a = newton_.failure(
          sys_->guard().fatal() ? AttemptOutcome::CallbackError : AttemptOutcome::NonFinite,
          "F or dF/dp failed (sensitivities)");
      return;
    }
    const Vector& atol = weights_->atol();
    for (int kc = 0; kc < np_; ++kc)
      for (int i = 0; i < n_; ++i)
        wS_(i, kc) = weights_->rtol() * std::abs(S_new_(i, kc)) + atol[i] / pbar_[kc];
    const double scale = 2.0 / (1.0 + cj_ / cjold_);
    const double tol = opt_.newton_tolerance;
    double worst_error = 0.0;
    for (int kc = 0; kc < np_; ++kc) {
      double previous = 0.0;
      bool converged = false;
      double eps = 0.0;  // the residual's difference step (sensitivity_residual)
      for (int it = 0; it < kMaxSensitivityIterations && !converged; ++it) {
        ++sens_iterations_;
        if (!sensitivity_residual(kc, tn, eps)) {
          a = newton_.failure(
              sys_->guard().fatal() ? AttemptOutcome::CallbackError : AttemptOutcome::NonFinite,
              "F failed (sensitivities)");
          return;
        }
        lu_->solve_in_place(sdelta_);
        ++stats_.nsol;
        if (cj_ != cjold_) sdelta_ *= scale;
        S_new_.col(kc) -= sdelta_;
        eS_.col(kc) -= sdelta_;
        Sp_new_.col(kc) -= cj_ * sdelta_;
        const double norm = sensitivity_norm(sdelta_, kc);
        if (!std::isfinite(norm)) break;
        if (it > 0) {
          const double rate = previous > 0.0 ? norm / previous : 0.0;
          if (rate > 0.9) {
            // no contraction: the noise of the residual's differences (kStalledSensitivity-
            // Increment)
            converged = norm <= kStalledSensitivityIncrement;
            break;
          }
          converged = rate / (1.0 - rate) * norm <= tol;
        } else {
          converged = norm <= 1e-3 * tol;
        }
        previous = norm;
      }
      if (!converged) {
        matrix_valid_ = false;  // DASSL: a new iteration matrix after a failure
        a = newton_.failure(AttemptOutcome::NewtonFailed,
                            "the sensitivities' corrector did not converge");
        return;
      }
      if (sens_request_.error_control)
        worst_error = std::max(worst_error, sensitivity_norm(eS_.col(kc), kc));
    }
    if (sens_request_.error_control) {
      // the test's error (ck |e|) and the estimate the step size follows (sigma_k |e|, est_)
      a.err = std::max(a.err, ck_ * worst_error);
      est_ = std::max(est_, sigma_[kp1 - 1] * worst_error);
    }
  }

  // DASSL block 6 for S's differences (the state's update of phi_ in accept()).
  void accept_sensitivities(int k) {
    Sphi_.leftCols((k + 2) * np_) = Sphi_star_.leftCols((k + 2) * np_);
    if (k < maxord_) s_block(Sphi_, k + 1) = eS_;
    s_block(Sphi_, k) += eS_;
    for (int j = k - 1; j >= 0; --j) s_block(Sphi_, j) += s_block(Sphi_, j + 1);
    S_.swap(S_new_);
    Sp_.swap(Sp_new_);
  }

  bool start_at(double t0, const Vector& y0, std::string& message) {
    if (opt_.filter_algebraic_error && !setup_algebraic_filter(t0, y0)) {
      message = "dF/dy' at t0: " + sys_->guard().failure().describe();
      return false;
    }
    t_ = t0;
    y_ = y0;
    yp_ = yp0_;
    if (!sys_->F(t_, y_, yp_, res0_)) return false;
    k_ = 1;
    kold_ = 0;
    hold_ = 0.0;
    ns_ = 0;
    phase_ = 0;
    error_failures_ = 0;
    knew_ = 1;
    matrix_valid_ = false;
    reform_from_kept_ = evaluate_next_ = false;
    cjold_ = 0.0;
    newton_.reset_factor(100.0);
    return true;
  }

  // The step's predictor and corrector (modified Newton), the corrector retried once with a
  // fresh matrix if it used an old one.
  StepAttempt corrected_step(double h) {
    h_ = h;
    newton_.begin_attempt();
    if (kold_ == 0) start_history(h);
    const int k = k_;
    compute_coefficients(h, k);
    scale_and_predict(k);
    for (;;) {
      const bool fresh = ensure_matrix();
      if (!matrix_valid_) {
        // a failed Jacobian is first retried at the same step (a transient failure of the
        // user's Jacobian must not shrink h: the step-doubling start then never got going),
        // then with the step divided by 4 as DASSL does
        if (matrix_failed_)
          return newton_.failure(AttemptOutcome::NonFinite, "F or its Jacobian failed (NaN/Inf)",
                                 ++jacobian_failures_ == 1 ? 1.0 : 0.25);
        return newton_.failure(AttemptOutcome::Singular, lu_->singular_reason());
      }
      jacobian_failures_ = 0;
      const NewtonMonitor::Verdict v = correct();
      if (v == NewtonMonitor::Verdict::Converged) break;
      if (residual_failed_) return newton_.failure(AttemptOutcome::NonFinite, "F returned NaN/Inf");
      if (fresh) return newton_.failure(v, lu_->solve_failure());
      ++stats_.nnewton_fail;
      matrix_valid_ = false;               // stale matrix: recompute and retry with the same h
      evaluate_next_ = reform_from_kept_;  // (a new Jacobian, kept for the climb's re-forms)
      predict(k);
    }
    return newton_.converged(error_estimate(k));
  }

  // First step: phi_1 = y0, phi_2 = h y'0 (order 1), or exact back values (fixed order).
  void start_history(double h) {
    phi_.setZero();
    aphi_valid_.fill(false);
    psi_.fill(0.0);
    if (opt_.exact_history) {
      // Newton divided differences of y at t0, t0 - h, ..., t0 - k h, scaled to DASSL's phi
      // (phi_{j+1} = h^j j! [t0, ..., t0 - j h]y for constant steps), and psi_j = j h.
      const int k = maxord_;
      Matrix dd(n_, k + 1);
      for (int j = 0; j <= k; ++j) dd.col(j) = opt_.exact_history(t_ - j * h);
      for (int level = 1; level <= k; ++level)
        for (int j = k; j >= level; --j)
          dd.col(j) = (dd.col(j - 1) - dd.col(j)) / (level * h);  // in units of nodes t0 - j h
      double fact = 1.0;
      for (int j = 0; j <= k; ++j) {
        if (j > 0) fact *= j * h;
        phi_.col(j) = fact * dd.col(j);
        psi_[j] = (j + 1) * h;
      }
      k_ = k;
      kold_ = k;
      hold_ = h;
      ns_ = k + 1;
      phase_ = 1;
      y_ = opt_.exact_history(t_);
      return;
    }
    phi_.col(0) = y_;
    phi_.col(1) = h * yp0_;
    psi_[0] = h;
    if (np_ > 0) {  // S and h S' (S' = 0 at a start: the corrector makes S, the predictor errs)
      Sphi_.setZero();
      s_block(Sphi_, 0) = S_;
      s_block(Sphi_, 1) = h * Sp_;
    }
  }

  // DASSL block 1: psi, alpha, beta, gamma, sigma for order k and step h (into *_new arrays).
  void compute_coefficients(double h, int k) {
    const int kp1 = k + 1;
    ns_new_ = (h != hold_ || k != kold_) ? 0 : ns_;
    ns_new_ = std::min(ns_new_ + 1, kold_ + 2);
    beta_[0] = 1.0;
    alpha_[0] = 1.0;
    gamma_[0] = 0.0;
    sigma_[0] = 1.0;
    double temp1 = h;
    for (int i = 1; i < kp1; ++i) {
      const double temp2 = psi_[i - 1];
      psi_new_[i - 1] = temp1;
      beta_[i] = beta_[i - 1] * psi_new_[i - 1] / temp2;
      temp1 = temp2 + h;
      alpha_[i] = h / temp1;
      sigma_[i] = i * sigma_[i - 1] * alpha_[i];
      gamma_[i] = gamma_[i - 1] + alpha_[i - 1] / h;
    }
    psi_new_[kp1 - 1] = temp1;
    double alphas = 0.0, alpha0 = 0.0;
    for (int i = 0; i < k; ++i) {
      alphas -= 1.0 / (i + 1);
      alpha0 -= alpha_[i];
    }
    cj_ = -alphas / h;
    ck_ = std::max(std::abs(alpha_[kp1 - 1] + alphas - alpha0), alpha_[kp1 - 1]);
  }

  // phi*_j = beta_j phi_j (j <= k), phi*_{k+1} = phi_{k+1} (DASSL block 1) and predict(k), in
  // one pass over the components unrolled for the order (orders 1 .. kMaxOrder): the same
  // operations in the same order, so the same values to the bit (the two passes cost twice
  // the arithmetic in loop overhead for small n).
  void scale_and_predict(int k) {
    switch (k) {
      case 1:
        return scale_and_predict<1>();
      case 2:
        return scale_and_predict<2>();
      case 3:
        return scale_and_predict<3>();
      case 4:
        return scale_and_predict<4>();
      default:
        return scale_and_predict<5>();
    }
  }
  template <int K>
  void scale_and_predict() {
    static_assert(K <= kMaxOrder);
    const long ld = phi_.rows();
    double b[K + 1], g[K + 1];
    for (int j = 0; j <= K; ++j) {
      b[j] = beta_[j];
      g[j] = gamma_[j];
    }
    const auto row = [&]<class T>(int i) {
      const double* from = phi_.data() + i;
      double* to = phi_star_.data() + i;
      T y = b[0] * load<T>(from), yp = T{};
      store(to, y);
      for (int j = 1; j <= K; ++j) {
        const T v = b[j] * load<T>(from + j * ld);
        store(to + j * ld, v);
        y += v;
        yp += g[j] * v;
      }
      store(to + (K + 1) * ld, 1.0 * load<T>(from + (K + 1) * ld));
      store(y_pred_.data() + i, y);
      store(y_new_.data() + i, y);
      store(yp_new_.data() + i, yp);
      store(e_.data() + i, T{});
    };
    int i = 0;
    for (; i + 2 <= n_; i += 2) row.template operator()<RowPair>(i);
    if (i < n_) row.template operator()<double>(i);
  }

  // y^(0) = sum_{j<=k} phi*_j, y'^(0) = sum_j gamma_j phi*_j: one pass over the components
  // (the column-by-column Eigen expressions cost more than the arithmetic for small n)
  void predict(int k) {
    const double* phi = phi_star_.data();
    const long ld = phi_star_.rows();
    for (int i = 0; i < n_; ++i) {
      double y = phi[i], yp = 0.0;
      for (int j = 1; j <= k; ++j) {
        const double v = phi[j * ld + i];
        y += v;
        yp += gamma_[j] * v;
      }
      y_pred_[i] = y;
      y_new_[i] = y;
      yp_new_[i] = yp;
      e_[i] = 0.0;
    }
  }

  // Iteration matrix dF/dy + cj dF/dy' at the predicted point; returns true if (re)computed.
  bool ensure_matrix() {
    if (matrix_valid_ && reuse_.keep_factorisation(cj_ / cjold_)) return false;
    if (reform_from_kept_ && !std::exchange(evaluate_next_, false) && reformed_from_kept_jacobian())
      return false;
    const double tn = t_ + h_;
    matrix_failed_ = false;
    matrix_valid_ = false;
    cjold_ = cj_;
    newton_.reset_factor(100.0);
    if (sys_->jacobian_by_differences()) {  // the base value of the differences
      const bool ok = sys_->F(tn, y_new_, yp_new_, res0_);
      --stats_.nfev;
      ++stats_.nfev_jac;
      if (!ok) {
        matrix_failed_ = true;
        return true;
      }
    }
    // typical magnitudes of the increments: the change |h y'| over the step (DASSL)
    ftmp_ = (h_ * yp_new_).cwiseAbs();
    if (!sys_->iteration_matrix(tn, y_new_, yp_new_, cj_, res0_, &ftmp_, *E_)) {
      matrix_failed_ = true;
      return true;
    }
    keep_jacobian();
    ++stats_.nlu;
    matrix_valid_ = lu_->factor();
    if (matrix_valid_ && filter_ != FilterMode::Off) filter_after_factorisation();
    return true;
  }

  // E before its factorisation, for restart_at_tstop (the factors overwrite E).
  void keep_jacobian() {
    if (!dyp_diagonal_) return;
    E_kept_.assign_scaled(*E_, 1.0);
    cj_kept_ = cj_;
    kept_valid_ = true;
  }

  // E(cj) = E(cj_kept) + (cj - cj_kept) diag(dF/dy') from the kept Jacobian, factored; not a
  // fresh matrix (a Newton failure with it evaluates one). False (and no more re-forms) if
  // the factorisation failed.
  bool reformed_from_kept_jacobian() {
    cjold_ = cj_;
    newton_.reset_factor(100.0);
    E_->assign_scaled(E_kept_, 1.0);
    E_->add_diagonal(*dyp_diagonal_, cj_ - cj_kept_);
    ++stats_.nlu;
    matrix_valid_ = lu_->factor();
    if (matrix_valid_ && filter_ != FilterMode::Off) filter_after_factorisation();
    if (!matrix_valid_) reform_from_kept_ = false;
    return matrix_valid_;
  }

  // The norm of the Newton convergence test: every component, those left out of the error
  // test (the index-2 multipliers) weighted by min(1, |h|) as RADAU5 scales index-2
  // components by h. A multiplier is computed from the residual through a 1/h (its increment
  // moves y by ~h times as much) and carries a round-off floor ~ eps |F| / h: unscaled, that
  // floor exceeds the weights at tight tolerances and small h (jay-index2 at rtol = atol = h0 =
  // 3.2e-9: Newton's increments stalled at rate ~1, every other step failed, h stuck at 1e-12).
  double newton_norm(const Vector& v) const {
    if (weights_->test_count() == n_) return weights_->norm_all(v);
    const double s = std::min(1.0, std::abs(h_));
    const Vector& w = weights_->w();
    double sum = 0.0;
    for (int i = 0; i < n_; ++i) {
      const double r = (weights_->in_test(i) ? v[i] : s * v[i]) / w[i];
      sum += r * r;
    }
    return std::sqrt(sum / static_cast<double>(n_));
  }

  // The corrector's verdict (NonFinite with residual_failed_ when F failed). The convergence
  // test uses every component (newton_norm), also those left out of the error test; at least
  // min_newton_iterations iterations (methods/bdf.hpp).
  NewtonMonitor::Verdict correct() {
    const double pnorm = newton_norm(y_pred_);
    const double scale = 2.0 / (1.0 + cj_ / cjold_);
    const double roundoff = 100 * kEps * pnorm;  // an increment below: converged
    residual_failed_ = false;
    newton_.begin(newton_.rate(), roundoff);
    // F's arguments as references made once (each is an out-of-line construction, 2 per
    // iteration otherwise)
    const VecIn y(y_new_), yp(yp_new_);
    for (;;) {
      if (!sys_->F(t_ + h_, y, yp, delta_)) {
        residual_failed_ = true;
        return NewtonMonitor::Verdict::NonFinite;
      }
      lu_->solve_in_place(delta_);
      ++stats_.nsol;
      ++stats_.nnewton;
      apply_increment(cj_ != cjold_ ? scale : 1.0);
      const double norm = newton_norm(delta_);
      const NewtonMonitor::Verdict v = newton_.next(norm);
      if (v == NewtonMonitor::Verdict::Continue) continue;
      // below min_newton_iterations only an increment at round-off level ends it
      if (v == NewtonMonitor::Verdict::Converged &&
          newton_.iterations() < opt_.min_newton_iterations && norm > roundoff)
        continue;
      return v;
    }
  }

  // delta_ *= s (DASSL's rescaling for a changed cj; s = 1 leaves it), then y -= delta_,
  // e -= delta_, y' -= cj delta_ in one pass (the same values as the vector expressions).
  void apply_increment(double s) {
    const double cj = cj_;
    const auto row = [&]<class T>(int i) {
      const T di = load<T>(delta_.data() + i) * s;
      store(delta_.data() + i, di);
      store(y_new_.data() + i, load<T>(y_new_.data() + i) - di);
      store(e_.data() + i, load<T>(e_.data() + i) - di);
      store(yp_new_.data() + i, load<T>(yp_new_.data() + i) - cj * di);
    };
    int i = 0;
    for (; i + 2 <= n_; i += 2) row.template operator()<RowPair>(i);
    if (i < n_) row.template operator()<double>(i);
  }

  // The algebraic directions: Q = orthogonal projector onto ker D, D = dF/dy' at (t0, y0, yp0)
  // (M for mass-matrix problems). D is block diagonal after a symmetric permutation: its
  // connected blocks (components of the graph of D + D^T) are independent, so ker D is the
  // direct sum of the blocks' kernels and Q = N N^T with N = blockdiag(N_c), N_c an
  // orthonormal basis of ker D_c (pivoted QR, linalg/dense_kernels.hpp; rank decided against
  // the largest column norm of the whole of D, as one QR of D would; a 1 x 1 block with
  // D_ii = 0 -- semi-explicit problems, zero columns of M -- is a unit vector). N is kept row
  // by row on the components it touches (alg_), so that Q costs O(nnz(N)) and nothing where D
  // is nonsingular. Set-up O(nnz(D) + sum s_c^3). No algebraic directions (an ODE) or only
  // algebraic ones: no filter.
  bool setup_algebraic_filter(double t0, const Vector& y0) {
    filter_ = FilterMode::Off;
    alg_.clear();
    n_start_.assign(1, 0);
    n_col_.clear();
    n_val_.clear();
    bool available = true;
    SparseMatrix D;
    if (!sys_->dF_dyp_sparse(t0, y0, yp0_, kMaxDenseFilter, D, available)) return false;
    if (!available) return true;
    const int n = n_;
    double scale = 0.0;  // largest column norm of D
    for (int j = 0; j < n; ++j) {
      double sq = 0.0;
      for (SparseMatrix::InnerIterator it(D, j); it; ++it) sq += it.value() * it.value();
      scale = std::max(scale, std::sqrt(sq));
    }
    const std::vector<std::vector<int>> members = connected_blocks(D);
    int m = 0;  // dim ker D: the columns of N
    for (const std::vector<int>& c : members) {
      const int size = static_cast<int>(c.size());
      if (size == 0) continue;
      if (size == 1) {
        if (D.coeff(c[0], c[0]) != 0.0) continue;
        alg_.push_back(c[0]);
        n_col_.push_back(m++);
        n_val_.push_back(1.0);
        n_start_.push_back(static_cast<int>(n_col_.size()));
        continue;
      }
      if (size > kMaxDenseFilter) return true;  // too large a block for a dense QR: no filter
      const Matrix block = dense_block(D, c);
      double block_scale = 0.0;
      for (int a = 0; a < size; ++a) block_scale = std::max(block_scale, block.col(a).norm());
      Matrix N, L;
      const int mc = null_spaces(block, 1e3 * kEps * n * scale / block_scale, N, L);
      if (mc == 0) continue;
      for (int a = 0; a < size; ++a) {
        alg_.push_back(c[a]);
        for (int k = 0; k < mc; ++k)
          if (N(a, k) != 0.0) {
            n_col_.push_back(m + k);
            n_val_.push_back(N(a, k));
          }
        n_start_.push_back(static_cast<int>(n_col_.size()));
      }
      m += mc;
    }
    if (m == 0 || m == n) {
      alg_.clear();
      return true;
    }
    m_ = m;
    D_ = std::move(D);
    nt_start_.assign(static_cast<size_t>(m) + 1, 0);  // N by columns
    for (int c : n_col_) ++nt_start_[c + 1];
    for (int c = 0; c < m; ++c) nt_start_[c + 1] += nt_start_[c];
    nt_row_.assign(n_col_.size(), 0);
    nt_val_.assign(n_col_.size(), 0.0);
    {
      std::vector<int> next(nt_start_.begin(), nt_start_.end() - 1);
      for (size_t p = 0; p + 1 < n_start_.size(); ++p)
        for (int k = n_start_[p]; k < n_start_[p + 1]; ++k) {
          const int slot = next[n_col_[k]]++;
          nt_row_[slot] = static_cast<int>(p);
          nt_val_[slot] = n_val_[k];
        }
    }
    for (Vector* v : {&ae_, &za_, &zb_, &z1_}) v->setZero(m);
    xy_.setZero(static_cast<Eigen::Index>(alg_.size()));
    column_ranges_ = n_col_.size() == alg_.size();  // one entry a row, rows of c contiguous
    for (int c = 0; c < m && column_ranges_; ++c)
      for (int k = nt_start_[c]; k < nt_start_[c + 1]; ++k)
        column_ranges_ = column_ranges_ && nt_row_[k] == k;
    aphi_.setZero(m, kMaxOrder + 2);
    aphi_valid_.fill(false);
    // H = N^T E^{-1} D after every factorisation if the backend solves with E^T and m n is
    // well below the n^2 of a dense solve; else one solve per attempt (see below)
    filter_ = lu_->supports_transposed_solve() && 5 * m <= 2 * n ? FilterMode::Transposed
                                                                 : FilterMode::Recurrence;
    if (filter_ == FilterMode::Transposed) {
      h_cols_.clear();
      for (int j = 0; j < n; ++j)
        if (D_.outerIndexPtr()[j + 1] > D_.outerIndexPtr()[j]) h_cols_.push_back(j);
      H_.setZero(static_cast<Eigen::Index>(h_cols_.size()), m);  // H^T
      W_.setZero(n, m);
      xh_.setZero(static_cast<Eigen::Index>(h_cols_.size()));
    }
    return true;
  }

  // The filter needs the algebraic coordinates of P v = E^{-1} cj D v (E the factored
  // iteration matrix), N^T P v = cj N^T R v with R = E^{-1} D, for the step's error e and the
  // differences of orders k - 1, k - 2 and k + 1: e plus multiples of the back differences
  // phi_j. Round 1 solved with E for each of them (up to four solves a step). By linearity,
  // a_e = N^T R e and A_j = N^T R phi_j (m numbers each) give them all: the A_j follow the
  // recurrences of phi_ at every accepted step while E is kept and are recomputed (only the
  // columns a norm asks for) after E is refactored. Where the backend solves with E^T (dense)
  // and m <= 0.4 n, H = N^T R = (E^{-T} N)^T D is formed after each factorisation (m solves
  // with E^T) and then N^T R v = H v costs O(m n), no solve (Transposed); otherwise one solve
  // for R e per attempt and one per recomputed A_j (Recurrence). Either way the same P v as
  // round 1 up to round-off.
  [[gnu::noinline]] void filter_after_factorisation() {
    aphi_valid_.fill(false);
    if (filter_ != FilterMode::Transposed) return;
    const int* col_start = D_.outerIndexPtr();
    const int* row = D_.innerIndexPtr();
    const double* val = D_.valuePtr();
    const Eigen::Index nh = H_.rows();
    W_.setZero();  // W = E^{-T} N, then row c of H = (W e_c)^T D, stored as column c of H_
    for (int c = 0; c < m_; ++c)
      for (int k = nt_start_[c]; k < nt_start_[c + 1]; ++k) W_(alg_[nt_row_[k]], c) = nt_val_[k];
    lu_->solve_transposed_in_place(W_);
    stats_.nsol += m_;
    for (int c = 0; c < m_; ++c) {
      const double* w = W_.col(c).data();
      double* h = H_.col(c).data();
      for (Eigen::Index jj = 0; jj < nh; ++jj) {
        const int j = h_cols_[static_cast<size_t>(jj)];
        double sum = 0.0;
        for (int k = col_start[j]; k < col_start[j + 1]; ++k) sum += w[row[k]] * val[k];
        h[jj] = sum;
      }
    }
  }

  // out = N^T R x (m numbers).
  [[gnu::noinline]] void filter_coordinates(const double* x, double* out) {
    if (filter_ == FilterMode::Transposed) {  // H x
      const int nh = static_cast<int>(h_cols_.size());
      const double* xh = x;  // all columns of D non-zero: no gather
      if (nh < n_) {
        for (int j = 0; j < nh; ++j) xh_[j] = x[h_cols_[j]];
        xh = xh_.data();
      }
      int c = 0;  // up to four rows of H in one sweep over x
      for (; c + 4 <= m_; c += 4) h_times<4>(xh, nh, c, out);
      if (m_ - c == 3) h_times<3>(xh, nh, c, out);
      if (m_ - c == 2) h_times<2>(xh, nh, c, out);
      if (m_ - c == 1) h_times<1>(xh, nh, c, out);
      return;
    }
    ef_.setZero();  // Recurrence: solve E (R x) = D x, then N^T on alg_
    bool zero = true;
    for (int j = 0; j < n_; ++j) {
      const double xj = x[j];
      if (xj == 0.0) continue;
      zero = false;
      for (SparseMatrix::InnerIterator it(D_, j); it; ++it) ef_[it.row()] += it.value() * xj;
    }
    if (!zero) {
      lu_->solve_in_place(ef_);
      ++stats_.nsol;
    }
    for (int c = 0; c < m_; ++c) {
      double sum = 0.0;
      for (int k = nt_start_[c]; k < nt_start_[c + 1]; ++k)
        sum += nt_val_[k] * ef_[alg_[nt_row_[k]]];
      out[c] = sum;
    }
  }

  // out[c0 .. c0 + R) = rows c0 .. c0 + R of H times xh (H_ holds H^T: row c = column c).
  template <int R>
  void h_times(const double* xh, int nh, int c0, double* out) const {
    const double* h[R];
    double acc[R];
    for (int c = 0; c < R; ++c) {
      h[c] = H_.data() + static_cast<long>(c0 + c) * nh;
      acc[c] = 0.0;
    }
    for (int j = 0; j < nh; ++j) {
      const double xj = xh[j];
      for (int c = 0; c < R; ++c) acc[c] += h[c][j] * xj;
    }
    for (int c = 0; c < R; ++c) out[c0 + c] = acc[c];
  }

  // A_j for the current E (phi_ as stored: before the scaling by beta of an attempt, after it
  // once the step is accepted).
  const double* aphi(int j) {
    if (!aphi_valid_[j]) {
      filter_coordinates(phi_.col(j).data(), aphi_.col(j).data());
      aphi_valid_[j] = true;
    }
    return aphi_.col(j).data();
  }

  // Error norm of a difference v: weighted RMS over the error-test components. With the
  // algebraic filter, of v + Q (P v - v), whose algebraic directions are those of P v (the
  // algebraic equations' response to the error of the differential ones; Q P v depends on the
  // differential directions of v only), combined (root sum of squares) with
  // kAlgebraicSmoothness Q v, the direct difference in the algebraic directions: it measures
  // how well the interpolant follows the algebraic variables (dense output, predictor,
  // explicit time dependence of the algebraic equations, invisible to P v). With the filter,
  // za_ holds N^T R v.
  double error_norm(const Vector& v) {
    if (filter_ == FilterMode::Off) return weights_->norm(v);
    const double* x = v.data();
    const double* wt = weights_->w().data();
    const bool all = weights_->test_count() == n_;
    double sum = 0.0;
    for (int i = 0; i < n_; ++i) {
      if (!all && !weights_->in_test(i)) continue;
      const double r = x[i] / wt[i];
      sum += r * r;
    }
    sum += filter_terms(x, wt, all);
    return std::sqrt(sum / std::max(1, weights_->test_count()));
  }

  // error_norm() of x and of x + y in one pass (with the filter: coordinates za_, z1_).
  std::pair<double, double> error_norms(const Vector& xv, const Eigen::Ref<const Vector>& yv) {
    const double* x = xv.data();
    const double* y = yv.data();
    const double* wt = weights_->w().data();
    const bool all = weights_->test_count() == n_;
    double sum0 = 0.0, sum1 = 0.0;
    for (int i = 0; i < n_; ++i) {
      if (!all && !weights_->in_test(i)) continue;
      const double r0 = x[i] / wt[i], r1 = (x[i] + y[i]) / wt[i];
      sum0 += r0 * r0;
      sum1 += r1 * r1;
    }
    if (filter_ != FilterMode::Off) {
      const auto [f0, f1] = filter_terms2<2>(x, y, za_.data(), z1_.data(), wt, all);
      sum0 += f0;
      sum1 += f1;
    }
    const double count = std::max(1, weights_->test_count());
    return {std::sqrt(sum0 / count), std::sqrt(sum1 / count)};
  }

  // The filter's part of error_norm(): on alg_, v_i^2 replaced by (v - Q v + Q P v)_i^2 +
  // (kAlgebraicSmoothness (Q v)_i)^2, all over w_i^2, with Q v = N (N^T v) and
  // Q P v = N (cj za_). Not inlined: its cost is the filter's (callgrind, docs/benchmarks.md).
  double filter_terms(const double* x, const double* wt, bool all) {
    return filter_terms2<1>(x, nullptr, za_.data(), nullptr, wt, all).first;
  }

  // The filter terms of one difference x (P-coordinates z0) or, with Two, also of x + y
  // (coordinates z1), in one pass.
  template <int Count>
  [[gnu::noinline]] std::pair<double, double> filter_terms2(const double* x, const double* y,
                                                            const double* z0, const double* z1,
                                                            const double* wt, bool all) {
    const int na = static_cast<int>(alg_.size());
    const int* alg = alg_.data();
    constexpr double s2 = kAlgebraicSmoothness * kAlgebraicSmoothness;
    if (column_ranges_) {  // each column of N on its own contiguous rows, one entry a row
      const double* val = n_val_.data();  // (1 x 1 blocks, blocks with a 1-dim null space)
      const int* range = nt_start_.data();
      double sum0 = 0.0, sum1 = 0.0;
      const double cj = cj_;
      for (int c = 0, m = m_; c < m; ++c) {
        double b0 = 0.0, b1 = 0.0;  // (N^T x)_c, (N^T (x + y))_c
        for (int p = range[c]; p < range[c + 1]; ++p) {
          b0 += val[p] * x[alg[p]];
          if constexpr (Count == 2) b1 += val[p] * (x[alg[p]] + y[alg[p]]);
        }
        const double r0 = cj * z0[c], r1 = Count == 2 ? cj * z1[c] : 0.0;
        for (int p = range[c]; p < range[c + 1]; ++p) {
          const int i = alg[p];
          if (!all && !weights_->in_test(i)) continue;
          const double iw2 = 1.0 / (wt[i] * wt[i]);
          const double qv = val[p] * b0, xi = x[i], f = xi - qv + val[p] * r0;
          sum0 += (f * f - xi * xi + s2 * qv * qv) * iw2;
          if constexpr (Count == 2) {
            const double qv1 = val[p] * b1, x1 = xi + y[i], f1 = x1 - qv1 + val[p] * r1;
            sum1 += (f1 * f1 - x1 * x1 + s2 * qv1 * qv1) * iw2;
          }
        }
      }
      return {sum0, sum1};
    }
    if constexpr (Count == 2) {  // general N: one difference at a time
      for (int p = 0; p < na; ++p) xy_[p] = x[alg[p]] + y[alg[p]];
      double* xy = ef_.data();  // x + y on alg_ scattered to full length (scratch)
      for (int p = 0; p < na; ++p) xy[alg[p]] = xy_[p];
      const double first = filter_terms2<1>(x, nullptr, z0, nullptr, wt, all).first;
      return {first, filter_terms2<1>(xy, nullptr, z1, nullptr, wt, all).first};
    }
    double* b = zb_.data();  // N^T v
    const int* cstart = nt_start_.data();
    const int* crow = nt_row_.data();
    const double* cval = nt_val_.data();
    for (int c = 0; c < m_; ++c) {
      double sum = 0.0;
      for (int k = cstart[c]; k < cstart[c + 1]; ++k) sum += cval[k] * x[alg[crow[k]]];
      b[c] = sum;
    }
    const double* a = z0;
    const int* start = n_start_.data();
    const int* col = n_col_.data();
    const double* val = n_val_.data();
    double sum = 0.0;
    for (int p = 0; p < na; ++p) {
      const int i = alg[p];
      if (!all && !weights_->in_test(i)) continue;
      double qrv = 0.0, qv = 0.0;  // (Q R v)_i, (Q v)_i
      for (int k = start[p]; k < start[p + 1]; ++k) {
        qrv += val[k] * a[col[k]];
        qv += val[k] * b[col[k]];
      }
      const double xi = x[i], f = xi - qv + cj_ * qrv;
      sum += (f * f - xi * xi + s2 * qv * qv) / (wt[i] * wt[i]);
    }
    return {sum, 0.0};
  }

  // target = a_e + c1 A_j1 (+ c2 A_j2): the coordinates of the difference e + c1 phi_j1 (+ c2
  // phi_j2).
  void filter_difference(Vector& target, int j1 = 0, double c1 = 0.0, int j2 = 0, double c2 = 0.0) {
    double* __restrict z = target.data();
    const double* __restrict ae = ae_.data();
    const int m = m_;
    if (c1 == 0.0) {
      std::copy_n(ae, m, z);
      return;
    }
    const double* __restrict A1 = aphi(j1);
    if (c2 == 0.0) {
      for (int c = 0; c < m; ++c) z[c] = ae[c] + c1 * A1[c];
      return;
    }
    const double* __restrict A2 = aphi(j2);
    for (int c = 0; c < m; ++c) z[c] = ae[c] + c1 * A1[c] + c2 * A2[c];
  }

  // DASSL block 4: error test quantities, candidate lower order (norms by error_norm). The
  // order k - 2 term is only formed when it can change the decision.
  double error_estimate(int k) {
    const int kp1 = k + 1;
    const bool filter = filter_ != FilterMode::Off;
    if (filter) {
      filter_coordinates(e_.data(), ae_.data());
      filter_difference(za_);
    }
    // the norms of e and (order k - 1) e + phi*_k together (one pass)
    const bool lower_order = k > 1 && opt_.fixed_order == 0;
    double enorm, enorm1 = 0.0;
    if (lower_order) {
      if (filter) filter_difference(z1_, kp1 - 1, beta_[kp1 - 1]);
      std::tie(enorm, enorm1) = error_norms(e_, phi_star_.col(kp1 - 1));
    } else {
      enorm = error_norm(e_);
    }
    const double erk = sigma_[kp1 - 1] * enorm;
    terk_ = (k + 1) * erk;
    est_ = erk;
    knew_ = k;
    terkm1_ = 0.0;
    erkm1_ = 0.0;
    if (lower_order) {
      erkm1_ = sigma_[k - 1] * enorm1;
      terkm1_ = k * erkm1_;
      bool lower;
      if (k > 2) {
        lower = terkm1_ <= terk_;
        if (lower) {  // else max(terkm1, terkm2) <= terk fails whatever terkm2 is
          delta_ = phi_star_.col(kp1 - 1) + e_;
          delta_ += phi_star_.col(k - 1);
          if (filter) filter_difference(za_, kp1 - 1, beta_[kp1 - 1], k - 1, beta_[k - 1]);
          const double erkm2 = sigma_[k - 2] * error_norm(delta_);
          const double terkm2 = (k - 1) * erkm2;
          lower = terkm2 <= terk_;
        }
      } else {
        lower = terkm1_ <= 0.5 * terk_;
      }
      if (lower) {
        knew_ = k - 1;
        est_ = erkm1_;
      }
    }
    return ck_ * enorm;
  }

  // DASSL block 6: the order of the next step and its error estimate (before the difference
  // update); the step follows from them in the controller (DASSL's rule).
  void choose_next_order(int kdiff) {
    const int k = kold_;  // order of the step just taken
    const int kp1 = k + 1;
    if (knew_ == k - 1 || k == maxord_) phase_ = 1;
    start_phase_ = phase_ == 0;
    if (start_phase_) {  // initial phase: raise the order (and double the step)
      k_ = k + 1;
      return;
    }
    int knext = k;
    double est = est_;
    if (opt_.fixed_order == 0) {
      if (knew_ == k - 1) {
        knext = k - 1;
        est = erkm1_;
      } else if (!(k == maxord_ || kp1 >= ns_ || kdiff == 1)) {
        delta_ = e_ - phi_.col(k + 1);
        if (filter_ != FilterMode::Off) filter_difference(za_, k + 1, -1.0);
        const double terkp1 = error_norm(delta_);
        const double erkp1 = terkp1 / (k + 2);
        if (k == 1) {
          if (terkp1 < 0.5 * terk_) {
            knext = k + 1;
            est = erkp1;
          }
        } else if (terkm1_ <= std::min(terk_, terkp1)) {
          knext = k - 1;
          est = erkm1_;
        } else if (!(terkp1 >= terk_ || k == maxord_)) {
          knext = k + 1;
          est = erkp1;
        }
      }
    } else if (k < maxord_) {
      knext = k + 1;  // fixed order: raise until reached
    }
    k_ = knext;
    next_est_ = est;
  }

  enum class FilterMode { Off, Transposed, Recurrence };
  // the algebraic error filter (see setup_algebraic_filter() and filter_after_factorisation()):
  // dF/dy' at t0, the components the algebraic directions touch, N row by row on them (columns
  // 0 .. m_ - 1), H = N^T E^{-1} D on the non-zero columns h_cols_ of D (Transposed), or
  // R e and R phi_j on alg_ (Recurrence); scratch
  std::optional<ImplicitSystem> sys_;
  BdfOptions opt_;
  Stats& stats_;
  int n_ = 0;
  const ErrorWeights* weights_ = nullptr;
  NewtonAttempt newton_;
  const ReusePolicy reuse_ = ReusePolicy::dassl();
  Vector yp0_;
  int maxord_ = 5;
  int k_ = 1, kold_ = 0, ns_ = 0, ns_new_ = 0, phase_ = 0, error_failures_ = 0, knew_ = 1;
  double t_ = 0, h_ = 0, hold_ = 0, next_est_ = 0;
  bool start_phase_ = false;  // DASSL's initial phase at the last accepted step
  double cj_ = 0, cjold_ = 0, ck_ = 0;
  double est_ = 0, terk_ = 0, terkm1_ = 0, erkm1_ = 0;
  bool matrix_valid_ = false, matrix_failed_ = false;
  int jacobian_failures_ = 0;
  bool residual_failed_ = false;  // the corrector stopped because F failed
  std::array<double, kMaxOrder + 2> psi_{}, psi_new_{}, alpha_{}, beta_{}, gamma_{}, sigma_{};
  Matrix phi_, phi_star_;
  FilterMode filter_ = FilterMode::Off;
  SparseMatrix D_;
  std::vector<int> alg_, n_start_, n_col_, nt_start_, nt_row_, h_cols_;
  std::vector<double> n_val_, nt_val_;
  int m_ = 0;
  bool column_ranges_ = false;
  Matrix H_, W_, aphi_;
  std::array<bool, kMaxOrder + 2> aphi_valid_{};
  Vector ae_, za_, zb_, z1_, xh_, xy_;
  Vector ef_, ftmp_, y_, yp_, y_new_, yp_new_, y_pred_, e_, delta_, res0_;
  Vector probe_f_;  // f at the point of derivative_at()
  std::unique_ptr<RealLinearSolver> lu_;
  StructuredMatrix<double>* E_ = nullptr;
  // The Jacobian kept for restart_at_tstop: E at cj_kept_ (before its factorisation), for a
  // constant diagonal dF/dy' (dyp_diagonal_); re-formed while reform_from_kept_, i.e. in the
  // climb after a tstop until |h| >= h_climb_ (the step before the tstop).
  std::optional<Vector> dyp_diagonal_;
  StructuredMatrix<double> E_kept_;
  double cj_kept_ = 0.0, h_climb_ = 0.0;
  bool kept_valid_ = false, reform_from_kept_ = false, evaluate_next_ = false;
  // forward sensitivities (np_ = 0: none)
  SensitivityRequest sens_request_;
  int np_ = 0;
  long sens_iterations_ = 0;
  std::string sens_warning_;
  Vector pbar_;
  Matrix Sphi_, Sphi_star_, S_, Sp_, S_new_, Sp_new_, eS_, Fp_, wS_;
  Vector sF0_, sFa_, sFb_, sy_, syp_, sdelta_;
};

}  // namespace

namespace {

/// The options of "bdf" (BdfOptions; exact_history is for C++ tests and studies only).
const OptionTable<BdfOptions>& bdf_option_table() {
  using O = BdfOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .integer("max_order", &O::max_order, 1, 5, "highest order of the variable-order BDF")
          .integer("fixed_order", &O::fixed_order, 0, 5,
                   "0: variable order; k: the order is held at k once reached (k <= max_order)")
          .flag("exclude_algebraic_from_error", &O::exclude_algebraic_from_error,
                "leave every algebraic component out of the error test (IDA's suppressalg) "
                "instead of the default, the components of index >= 2")
          .flag("filter_algebraic_error", &O::filter_algebraic_error,
                "filter the algebraic directions of the error estimate through the iteration "
                "matrix (no effect on ODEs)")
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "corrector iterations per step before the step is retried (DASSL's MAXIT)")
          .integer("min_newton_iterations", &O::min_newton_iterations, 1, kNoLimit,
                   "iterations before a converged iterate is accepted (1: DASSL's and IDA's "
                   "rule)")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::above(0),
                "bound on the estimated error of the Newton iterate (weighted norm)");
  return table;
}

}  // namespace

MethodRegistration bdf_method() {
  MethodRegistration r;
  r.info.name = "bdf";
  r.info.title = "variable-order (1-5), variable-step BDF in DASSL/IDA form, index 1-2";
  r.info.reference =
      "Brenan-Campbell-Petzold ch. 5 (DASSL); Bendtsen-Thomsen (eds.), IMM-REP-1999-8, ch. 4";
  MethodCapabilities& c = r.info.capabilities;
  c.mass_matrix_form = true;
  c.implicit_form = true;
  c.max_index = 2;
  c.order = 5;
  c.variable_order = true;
  c.dense_output_order = 5;
  c.own_step_control = true;
  c.step_rule = StepRule::Dassl;
  // DASSL's start (the estimate, measured: 3.8% fewer steps over the sweep without h0, but the
  // doubling initial phase no longer ramps the order up from a small step, and after event
  // restarts and on oscillators the BDF loses accuracy: docs/benchmarks.md)
  c.starting_step = StartingStep::Dassl;
  c.sensitivities = true;
  r.make = [](const MethodInput& in) -> std::unique_ptr<Method> {
    const BdfOptions o = method_options<BdfOptions>(in, "bdf");
    o.validate();
    return std::make_unique<Bdf>(o, in);
  };
  describe_options(r, bdf_option_table);
  return r;
}

}  // namespace daekit
