// IrkEngine: one step of an s-stage implicit Runge-Kutta method with invertible A on
// M y' = f(t, y) by the transformed simplified Newton iteration of RADAU5 (Hairer-Wanner II,
// IV.8), generalised to any tableau whose A^{-1} is real-block-diagonalisable
// (tableaus/runge_kutta.hpp, block_diagonalise_inverse):
//   stage system, Z_i = Y_i - y_n:       (A^{-1} (x) M) Z = h F(Z),  F_i = f(t_n + c_i h, y_n +
//   Z_i) T^{-1} A^{-1} T = diag(gamma_1..gamma_r, [alpha_k -beta_k; beta_k alpha_k]),  W = (T^{-1}
//   (x) I) Z each iteration: R = (T^{-1} (x) I) F - (Lambda/h (x) M) W, then one real solve with
//     (gamma_k/h M - J) per real block and one complex solve with ((alpha_k + i beta_k)/h M - J)
//     per pair (real and imaginary parts as the two columns), W += R, Z = (T (x) I) W;
//   y_{n+1} = y_n + sum_i d_i Z_i with d = b^T A^{-1} (= Z_s for stiffly accurate tableaus);
// error estimate (when A^{-1} has a real eigenvalue gamma): the embedded formula of order s of
// embedded_error_weights(), filtered as in RADAU5,
//   err = (gamma/h M - J)^{-1} (f(t_n, y_n) + M (e^T Z)/h),
// refined once at the first step and after a rejection; dense output: the polynomial through
// (t_n, y_n), (t_n + c_i h, Y_i) and (t_{n+1}, y_{n+1}) (the collocation polynomial for Radau
// IIA), in Newton form in theta = (t - t_{n+1}) / h.
// The engine owns the stage storage and the factorised matrices for up to `max_stages` (at most
// 8) stages, `max_real` real and `max_pairs` complex blocks, and switches tableaus without
// allocating (the variable-order radau method). Convergence is judged by the shared NewtonMonitor;
// the weights `scal` come from the method (integrator weights with its scaling). Internal header.
#pragma once

#include <complex>
#include <memory>
#include <utility>
#include <vector>

#include "daekit/tableaus/runge_kutta.hpp"
#include "nonlinear/newton.hpp"
#include "nonlinear/systems.hpp"

namespace daekit {

/// The constants of one tableau for the engine (computed once, outside the step loop).
struct IrkConstants {
  RungeKuttaTableau tableau;
  int s = 0;
  Vector c;
  BlockDiagonalInverse blocks;
  Eigen::RowVectorXd d;           ///< b^T A^{-1}
  bool stiffly_accurate = false;  ///< b = last row of A (then y_{n+1} = y_n + Z_s)
  bool has_error_estimate = false;
  Vector e;                      ///< embedded_error_weights(tableau, gamma_1)
  std::vector<double> nodes;     ///< dense-output nodes in theta, newest first, then -1
  std::vector<int> node_source;  ///< per node: the stage, -1 for y_{n+1}, -2 for y_n
  /// per node its abscissa in units of the step from t_n (c_i, 1, 0): the divided differences
  /// divide by differences of these (c_i - c_j rather than (c_i - 1) - (c_j - 1): RADAU5's
  /// arithmetic, bit for bit at s = 3)
  std::vector<double> node_c;
  int end_node = -1;  ///< index of the node theta = 0 (y_{n+1})
  /// The defect of the collocation polynomial p in the algebraic equations (a stiffly
  /// accurate tableau with distinct nodes 0 < c_1 < ... < c_s = 1 and a real block; the
  /// index-2 estimate of IrkEngine::index2_correction): p(t_n + theta h) = y_n + sum_i
  /// defect_stage_weights[i] Z_i at theta = defect_theta, where |omega(theta)| = |theta
  /// prod_i (theta - c_i)| is largest on [0, 1]; defect_start_weight = l_0(theta) (the Lagrange
  /// polynomial of the node 0); defect_scale = omega'(1) / (gamma_1 omega(theta)).
  bool has_defect_estimate = false;
  double defect_theta = 0.0, defect_start_weight = 0.0, defect_scale = 0.0;
  std::vector<double> defect_stage_weights;

  static IrkConstants make(const RungeKuttaTableau& tableau);
  /// The same from the parts make() computes (tabulated constants, radau_tables.hpp): the flags
  /// and dense-output nodes follow from them as in make().
  static IrkConstants from_parts(const RungeKuttaTableau& tableau, BlockDiagonalInverse blocks,
                                 Eigen::RowVectorXd d, Vector e);

 private:
  void set_dense_nodes();
  void set_defect_constants();
};

/// The interpolant of one step in Newton form (nodes in theta = (t - t_{n+1}) / h).
struct IrkDense {
  std::vector<double> nodes;     ///< x_0 = 0, x_1, ..., x_{m-1} (sized once, then reused)
  int m = 0;                     ///< number of nodes used (degree m)
  Matrix coeffs;                 ///< n x (max + 1): columns 0..m used
  double h = 0.0;                ///< the step size
  mutable Vector scratch;        ///< size n (derivative())
  const void* source = nullptr;  ///< the constants `nodes` were copied from
  /// Sizes the storage for n components and up to `max_nodes` nodes.
  void reserve(int n, int max_nodes) {
    nodes.reserve(static_cast<size_t>(max_nodes));
    coeffs.setZero(n, max_nodes);
    scratch.setZero(n);
  }
  /// out = p(theta) - p(0) (the increment from the end of the step).
  void increment(double theta, Eigen::Ref<Vector> out) const;
  void value(double theta, Eigen::Ref<Vector> out) const;
  void derivative(double theta, Eigen::Ref<Vector> out) const;  ///< dp/dtheta
};

class IrkEngine {
 public:
  IrkEngine(MassMatrixSystem& sys, int max_stages, int max_real, int max_pairs);
  ~IrkEngine();

  /// Use the tableau of `k` from now on (the factorisation becomes invalid).
  void use(const IrkConstants& k);
  const IrkConstants& constants() const { return *k_; }
  int stages() const { return k_->s; }

  /// Factorise the block matrices for step size h with the Jacobian J; false if singular.
  bool factor(double h, const StructuredMatrix<double>& J);
  bool lu_valid() const { return lu_valid_; }
  double h_lu() const { return h_lu_; }
  void invalidate() { lu_valid_ = false; }

  /// Starting values: Z = 0, or from the previous step's interpolant at t_n + c_i h.
  void start_zero();
  void start_from(const IrkDense& previous, double h);
  /// Starting values Z_i = c_i h y' from a derivative y' at t_n (a restart, where the
  /// interpolant of the step before belongs to the old piece of the model).
  void start_linear(const Vector& yp, double h);
  /// Starting values of a step of size h from the start t_n of the step `step` (h inside it):
  /// Z_i = p(t_n + c_i h) - y_n on that step's interpolant p (retake_step()).
  void start_within(const IrkDense& step, double h);

  /// The simplified Newton iteration at (t, y) with step h; `scal` the weights of the
  /// increment norm (RMS over the s n values). `monitor` must have begun. Returns the
  /// monitor's verdict that ended it (Converged, or a failure for methods/newton_attempt.hpp;
  /// the update of MaxIterations is applied), or NonFinite with function_failed() when f
  /// failed at a stage.
  NewtonMonitor::Verdict newton(double t, const Vector& y, double h, const Vector& scal,
                                NewtonMonitor& monitor);
  /// The round-off level of the increment norm (0: none): from the second iteration on, an
  /// increment at or below it that shrank by less than half counts as converged (the
  /// iteration has reached the round-off of f, and of the h^-2-scaled index-3 rows, which no
  /// further iteration removes).
  void set_roundoff_level(double level) { roundoff_level_ = level; }
  /// True if the last newton() stopped because f failed (the guard holds the failure).
  bool function_failed() const { return function_failed_; }

  // The round-off of the constraints (index-2/3 components; irk_roundoff.cpp). The residual
  // of an algebraic equation (a zero row of M) is known to its rounding, r_a = eps (sum_j
  // |J_aj| |y_j| + |f_a|); the iteration matrix (gamma_1/h M - J) lifts it into the components
  // that are zero columns of M by 1/h (index 2) or 1/h^2 (index 3): below noise() =
  // |(gamma_1/h M - J)^{-1} r| their Newton increments and error estimates are round-off,
  // whatever |y_j| or the tolerance (the truck's hinge force lambda_1 = 0 at atol' = 1e-9 N;
  // jay-index2's y1^2 y2 - 1 = 0). Set up once; computed once per factorisation, when first
  // asked for (one pass over J's entries and one real solve, about a tenth of a small
  // system's factorisation; no allocation).
  /// The components measured against the constraints' round-off (`cols`) and the rows whose
  /// rounding is counted (`rows`, M's zero rows); empty: none (the default).
  void set_roundoff_components(const std::vector<int>& cols, const std::vector<int>& rows);
  /// The components of set_roundoff_components() (empty: none).
  const std::vector<int>& roundoff_components() const;
  /// noise() for the last factor() at (y, f = f(t, y)) with its Jacobian J, unless computed
  /// for that factorisation already.
  void constraint_roundoff(const Vector& y, const Vector& f, const StructuredMatrix<double>& J);
  /// |(gamma_1/h M - J)^{-1} r| per component (used on the components of
  /// set_roundoff_components()).
  const Vector& noise() const;
  /// kNewtonNoise times noise() times T^{-1}'s gain on the round-off components, 0 elsewhere:
  /// the level below which newton()'s increments of those components are round-off.
  const Vector& newton_noise() const;
  /// Before newton() with the weights `scal` and the Newton tolerance (constraint_roundoff()
  /// first): the increments are measured less newton_noise() when it reaches kNoiseRelevant
  /// times the tolerance in the weights (noise_active()), else as they are (bit for bit).
  void weigh_constraint_roundoff(const Vector& scal, double tolerance);
  bool noise_active() const;
  /// out = (gamma_1/h M - J)^{-1} b with b = f0 on M's zero rows (those of
  /// set_roundoff_components()) and 0 elsewhere: the part of error_estimate() that the start
  /// point's residual in the algebraic equations makes (its inconsistency, which no smaller
  /// step removes; lifted by 1/h or 1/h^2 into the index-2/3 components).
  void start_residual_part(const Vector& f0, Vector& out) const;
  /// The levels below which the error estimate's index-2/3 components are what no smaller
  /// step removes, per component (0 elsewhere): |start_residual_part(f0)| + newton_noise()
  /// (constraint_roundoff() first). The engine's scratch: the caller may change it.
  Vector& error_levels(const Vector& f0);

  /// y_{n+1} = y + sum_i d_i Z_i.
  void end_value(const Vector& y, Vector& out) const;
  /// err_vec = (gamma/h M - J)^{-1} (f0 + M e^T Z / h); with `refine` (first step, after a
  /// rejection, when the first estimate is >= 1) once more with f(t, y + err_vec) instead of
  /// f0. Returns the norm norm(err_vec) (at least 1e-10); false in `ok` if f failed.
  template <typename Norm>
  double error_estimate(double t, const Vector& y, const Vector& f0, double h, bool refine,
                        Norm norm, bool* ok);

  /// The correction of the index-2 components of the converged step's end value implied by
  /// the hidden constraints (IrkConstants::defect_*): along the collocation polynomial p the
  /// residual of each algebraic equation 0 = f_a(t, y) (a in `rows`, M's zero rows) vanishes
  /// at the nodes up to its value r_a at y_n, so r_a(t) - l_0 r_a(t_n) = C_a omega(theta) +
  /// O(h^(s+2)); one evaluation of f at the node theta of the largest |omega| gives C_a, and
  /// d/dt f_a(t, p(t)) at t_{n+1} is C_a omega'(1) / h: the hidden constraint's residual at
  /// the end of the step, the truncation error the derivative of p carries into the index-2
  /// values (the inconsistency r_a(t_n) of the start, which no smaller step removes, is taken
  /// out). out = (gamma_1/h M - J)^{-1} b with b = 0 on the other rows and b_a = C_a omega'(1)
  /// / (gamma_1 omega(theta)) on `rows`: its index-2 components are the corrections dz with
  /// f_a,y v = -d/dt f_a, M v = f_z dz (to O(h J) on stiff differential rows). False if f
  /// failed.
  bool index2_correction(double t, const Vector& y, const Vector& f0, double h,
                         const std::vector<int>& rows, Vector& out);

  /// The interpolant of the converged step from (t_n, y_n) (the values as computed).
  /// (y_{n+1} = end_value(y) as computed: the integrator adds a projection's change.)
  void dense(const Vector& y, double h, IrkDense& out);

  const Matrix& Z() const { return Z_; }
  /// The factorised real (gamma_r/h M - J) and complex ((alpha_p + i beta_p)/h M - J) matrices
  /// of the last factor() (the sensitivities' stage equations share them).
  const RealLinearSolver& real_solver(int r) const { return *real_[static_cast<size_t>(r)]; }
  const ComplexLinearSolver& complex_solver(int p) const {
    return *complex_[static_cast<size_t>(p)];
  }
  /// The interpolant through (t_n, y), the stages y + Z_i (Z: n x s, column-major, leading
  /// dimension n) and (t_{n+1}, y_new) in the Newton form of dense() (the general path).
  static void interpolate(const IrkConstants& k, const Vector& y, const Vector& y_new,
                          const double* Z, IrkDense& out);
  /// The backend of the real iteration matrices ("dense LU", "banded LU", "KLU").
  const char* solver_name() const { return real_.empty() ? "" : real_[0]->name(); }
  /// Why the last solves gave no answer (the iterative backend), or nullptr.
  const char* solve_failure() const {
    for (const auto& r : real_)
      if (const char* w = r->solve_failure()) return w;
    for (const auto& c : complex_)
      if (const char* w = c->solve_failure()) return w;
    return nullptr;
  }
  /// Why the last factor() failed, in the words of the backend that failed.
  const char* singular_reason() const { return failed_ ? failed_ : "iteration matrix singular"; }
  Vector& work() { return tmp_; }

 private:
  void transform_starting_values();
  // (irk_roundoff.cpp)
  void compute_constraint_roundoff(const Vector& y, const Vector& f,
                                   const StructuredMatrix<double>& J);
  // The increment norm of newton_rows with the increments of the round-off components less
  // their round-off level (kNewtonNoise noise_ times the transformation's gain)
  double noise_discounted_norm(const Vector& scal) const;
  // The Newton iteration and the starting values row by row: one pass over the components per
  // iteration for the transformed residual and the right-hand sides of the real and complex
  // solves, one for W and Z = (T (x) I) W; real blocks first, then the pairs. Each value is
  // formed in the order RADAU5 forms it (bitwise RADAU5's results at s = 3); S > 0 fixes s
  // at compile time (Radau IIA 1, 3, 5, 7), M > 0 the previous interpolant's degree.
  static constexpr int kMaxStages = 8;
  // n <= kMaxFixedRows: newton_rows<3, n> (Radau IIA(3), every row loop written out)
  static constexpr long kMaxFixedRows = 8;
  // Noise: the increments less the constraints' round-off (noise_discounted_norm()), f at the
  // stages by stage_values_elsewhere() (irk_roundoff.cpp): a second call of f_stages() here
  // made GCC stop inlining it into newton_rows<7> (1.3 % more instructions per radau solve)
  bool stage_values_elsewhere(double t, double h);
  template <int S, long N, bool Noise = false>
  NewtonMonitor::Verdict newton_rows(double t, const Vector& y, double h, const Vector& scal,
                                     NewtonMonitor& monitor);
  template <long... N>
  NewtonMonitor::Verdict newton3(double t, const Vector& y, double h, const Vector& scal,
                                 NewtonMonitor& monitor, std::integer_sequence<long, N...>);
  template <int S, int M>
  void start_rows(const IrkDense& previous, double h);
  template <int S, long N>
  [[gnu::always_inline]] inline void stage_arguments(const Vector& y);
  template <long N>
  [[gnu::always_inline]] inline void residual3(const double* mw, const double* diag, double g,
                                               double al, double be);
  template <long N>
  [[gnu::always_inline]] inline void update3();
  // Radau IIA(5) and (7) (one real block, (S - 1)/2 pairs): the same passes with kPackWidth rows
  // per instruction (the general loops' values to the bit)
  template <int S, long N>
  [[gnu::always_inline]] inline void residual_packed(const double* mw, const double* diag, double g,
                                                     const double* al, const double* be);
  template <int S, long N>
  [[gnu::always_inline]] inline void update_packed();
  bool radau3_ = false;                           // Radau IIA(3): dense() as RADAU5 writes it
  double t_rows_[kMaxStages * kMaxStages] = {};   // T, row-major
  double ti_rows_[kMaxStages * kMaxStages] = {};  // T^{-1}, row-major
  // the same, each entry twice (a constant of Pack<2>, core/pack.hpp)
  alignas(16) double t_pairs_[2 * kMaxStages * kMaxStages] = {};
  alignas(16) double ti_pairs_[2 * kMaxStages * kMaxStages] = {};

  MassMatrixSystem& sys_;
  const IrkConstants* k_ = nullptr;
  int n_;
  std::vector<std::unique_ptr<RealLinearSolver>> real_;
  std::vector<std::unique_ptr<ComplexLinearSolver>> complex_;
  bool lu_valid_ = false;
  bool function_failed_ = false;
  const char* failed_ = nullptr;  // singular_reason() of the solver whose factor() failed
  double h_lu_ = 0.0;
  double roundoff_level_ = 0.0;
  double previous_norm_ = 0.0;     // newton_rows: the last iteration's increment norm
  Matrix Z_, W_, F_, R_, MW_, Y_;  // Y_: the stage arguments y + Z_i
  // f's arguments Y_.col(i) and F_.col(i), made once: a call then passes them as they are
  // (no Eigen::Ref built and destroyed per call: a fifth of a small system's f-call cost)
  std::vector<VecIn> y_cols_;
  std::vector<VecOut> f_cols_;
  Vector tmp_, tmp2_, err_, ynew_;
  std::vector<Eigen::VectorXcd> cpairs_;  // the row forms' complex right-hand sides, per pair
  // the constraints' round-off (constraint_roundoff()), made by set_roundoff_components();
  // ~IrkEngine() is in irk_roundoff.cpp: inlined into its owners' destructors, this member's
  // destructor made GCC stop inlining f into radau.cpp's Radau::accept() (0.5 % more
  // instructions per radau5 solve of Van der Pol)
  struct Roundoff {
    std::vector<int> cols, rows;  // the components and M's zero rows
    Vector noise, newton_noise;   // noise(); its level in the transformed increments
    bool active = false;          // weigh_constraint_roundoff()
    long nlu = -1;                // the factorisation count (Stats::nlu) noise belongs to
    Vector levels;                // error_levels()
  };
  std::unique_ptr<Roundoff> ro_;
  double tinv_gain_ = 1.0;  // max_k sum_j |(T^{-1})_kj|: the stages' noise in W
};

template <typename Norm>
double IrkEngine::error_estimate(double t, const Vector& y, const Vector& f0, double h, bool refine,
                                 Norm norm, bool* ok) {
  *ok = true;
  const IrkConstants& k = *k_;
  {  // tmp = (sum_i e_i Z_i) / h, row by row (the same sums as column by column)
    const long n = n_, s = k.s;
    const double* z = Z_.data();
    const double* e = k.e.data();
    double* out = tmp_.data();
    if (s == 3) {
      const double e0 = e[0], e1 = e[1], e2 = e[2];
      for (long i = 0; i < n; ++i) out[i] = (e0 * z[i] + e1 * z[n + i] + e2 * z[2 * n + i]) / h;
    } else {
      for (long i = 0; i < n; ++i) {
        double acc = e[0] * z[i];
        for (long j = 1; j < s; ++j) acc += e[j] * z[j * n + i];
        out[i] = acc / h;
      }
    }
  }
  const MassOperator& M = sys_.mass();
  if (M.kind() == MassOperator::Kind::Structured) {
    M.apply(tmp_, tmp2_);  // M e^T Z / h
    err_ = f0 + tmp2_;
  } else {  // the same products and sums in one pass
    const long n = n_;
    const double* d = M.kind() == MassOperator::Kind::Diagonal ? M.diagonal().data() : nullptr;
    const double* a = tmp_.data();
    const double* f = f0.data();
    double* b = tmp2_.data();
    double* out = err_.data();
    if (d) {
      for (long i = 0; i < n; ++i) {
        b[i] = d[i] * a[i];
        out[i] = f[i] + b[i];
      }
    } else {
      for (long i = 0; i < n; ++i) {
        b[i] = a[i];
        out[i] = f[i] + a[i];
      }
    }
  }
  real_[0]->solve_in_place(err_);
  ++sys_.stats().nsol;
  double err = std::max(norm(err_), 1e-10);
  if (err >= 1.0 && refine) {
    tmp_ = y + err_;
    if (!sys_.f(t, tmp_, err_)) {
      *ok = false;
      return err;
    }
    err_ += tmp2_;
    real_[0]->solve_in_place(err_);
    ++sys_.stats().nsol;
    err = std::max(norm(err_), 1e-10);
  }
  return err;
}

}  // namespace daekit
