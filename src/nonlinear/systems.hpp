// The problem as a method sees it: MassMatrixSystem (M y' = f) and ImplicitSystem
// (F(t, y, y') = 0, also built from a MassMatrixDae as F = M y' - f). They own the solve's copy
// of the problem and of its parameters p (solves are independent objects), and provide the
// shared services every method, the initialization, the projections and the event
// re-initialisation use:
//   - guarded, counted evaluations (core/guard.hpp): exceptions, NaN/Inf and wrong-size output
//     become records, never escape;
//   - Jacobians from ONE source: the analytic dense or sparse callback, or coloured finite
//     differences (finite_difference.hpp) over the declared structure;
//   - the mass matrix in its structure (linalg/mass_operator.hpp);
//   - the linear-solver backend chosen from the structure (linalg/linear_solver.hpp).
// Internal header (not installed).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/guard.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "linalg/linear_solver.hpp"
#include "linalg/mass_operator.hpp"
#include "linalg/second_order.hpp"
#include "nonlinear/finite_difference.hpp"

namespace daekit {

/// Links the drift monitor of a formulation (formulate(), nonlinear/formulations.cpp) to the
/// right-hand side of the same copy of the problem, whose kept G, g and forces it then reuses
/// at the same arguments; nothing for any other problem. MassMatrixSystem links its own copy.
void link_drift_monitor(MassMatrixDae& dae);

class MassMatrixSystem {
 public:
  /// `dae` as its caller validated it (MassMatrixDae::validate: the Integrator's constructors,
  /// initialize() and the adjoint's checks do, before any MassMatrixSystem is made; a second
  /// validation here cost every solve another pass over M).
  MassMatrixSystem(const MassMatrixDae& dae, LinearSolverKind solver, CallGuard& guard,
                   Stats& stats);
  MassMatrixSystem(const MassMatrixSystem&) = delete;  // p_ref_ refers to its own p_
  MassMatrixSystem& operator=(const MassMatrixSystem&) = delete;

  const MassMatrixDae& dae() const { return dae_; }
  int n() const { return dae_.n; }
  /// The solve's parameters (event actions may change them).
  Vector& p() { return p_; }
  const Vector& p() const { return p_; }
  const MassOperator& mass() const { return mass_; }
  int index_of(int i) const { return dae_.index_of(i); }
  CallGuard& guard() { return *guard_; }
  Stats& stats() { return *stats_; }

  /// out = f(t, y); false if the callback failed or returned NaN/Inf (recorded in the guard).
  bool f(double t, const VecIn& y, const VecOut& out) {
    ++stats_->nfev;
    if (!(*guard_)("f", t, [&] { dae_.f(t, y, out, p_ref_); })) return false;
    if (!guard_->check_finite("f", t, out)) return false;
    return chain_m1_ == 0 || second_order_holds(t, y, out);
  }
  /// out_i = f(t + c_i h, y_i), i < s (the stages of a Runge-Kutta step): the same as s calls
  /// of f() (the same evaluations, stopping at the first failure), within one guarded region.
  bool f_stages(double t, double h, const double* c, int s, const VecIn* y, const VecOut* out) {
    double ti = t;
    int i = 0;
    bool finite = true;
    const bool ran = (*guard_)("f", ti, [&] {
      for (; i < s; ++i) {
        ti = t + c[i] * h;
        ++stats_->nfev;
        dae_.f(ti, y[i], out[i], p_ref_);
        if (!all_finite(out[i].data(), out[i].size()) ||
            (chain_m1_ != 0 && !second_order_holds(ti, y[i], out[i]))) {
          finite = false;
          return;
        }
      }
    });
    if (!ran) return false;
    // the stage that stopped: records its NaN/Inf (a broken declaration is recorded already)
    if (!finite) guard_->check_finite("f", ti, out[i]);
    return finite;
  }
  /// J = df/dy at (t, y) with f0 = f(t, y); J sized by allocate_jacobian(). Counts njac and
  /// the f-evaluations of differences. False on a callback failure, wrong size or NaN/Inf.
  bool jacobian(double t, const Vector& y, const Vector& f0, StructuredMatrix<double>& J);
  /// Sizes J with the iteration-matrix structure (so E = s M - J is assembled by a copy).
  void allocate_jacobian(StructuredMatrix<double>& J) const { J.resize(n(), iteration_structure_); }
  /// Jp = df/dp at (t, y) with f0 = f(t, y) (n x np, dense storage, zero outside the declared
  /// MassMatrixDae::parameter_sparsity) by forward differences in p with the one increment rule
  /// (`typical`: magnitudes of the parameters, size np; null: parameter_typical(), which makes
  /// the increments at least sqrt(eps) |p_k|), in column groups of that
  /// structure (the sensitivities' df/dp), or from MassMatrixDae::parameter_jacobian when
  /// given. Counts the evaluations of f in nfev_jac. False on a callback
  /// failure, wrong size or NaN/Inf. The first call prepares the colouring.
  bool parameter_jacobian(double t, const Vector& y, const Vector& f0, MatOut Jp,
                          const Vector* typical = nullptr);
  /// Difference df/dp centrally (2 evaluations of f per colour instead of 1; error
  /// O(eps^(2/3)) against O(sqrt(eps))), increments cbrt(eps) max(|p_k|, 1e-5): for the
  /// sensitivities' error control, whose estimate of S otherwise sits at the forward
  /// differences' noise (1e-8 of df/dp) once rtol is near it (Robertson at rtol = 1e-8:
  /// radau5 took 84 000 steps to t = 6.6 with forward differences, 748 to t = 40 with the exact
  /// df/dp).
  void set_central_parameter_differences(bool central) { central_parameter_differences_ = central; }
  /// The typical magnitudes of the parameters for the increment rule of their differences:
  /// p_k^2, so that the rule's sqrt(eps max(|p_k|, typical_k, 1e-5)) is at least the relative
  /// sqrt(eps) |p_k| (IDAS's increments scale with pbar = |p_k| the same way). The rule's own
  /// sqrt(eps |p_k|), made for states scaled to order one, is sqrt(eps / |p_k|) relative: for
  /// Robertson's k3 = 3e7 an increment of 3e-12 relative, whose change of f (1e-13) is within
  /// 1e-4 of f's round-off: df/dk3 came out 1e-5 accurate (1e-8 with sqrt(eps) |p_k|), and
  /// noisy from stage to stage, a floor of the sensitivities' error estimate that did not
  /// shrink with h and multiplied the steps under their error control (radau5 at rtol = 1e-4,
  /// atol = 1e-10: 9045 steps against 82 with the exact df/dp; Sensitivities.ErrorControlOn-
  /// RobertsonTakesTheStepsOfTheAnalyticDfDp).
  static void parameter_typical(const Vector& p, Vector& typical) { typical = p.cwiseAbs2(); }
  /// Evaluations of f per differenced df/dp (the colours of parameter_sparsity).
  int parameter_colours();
  /// The structure of df/dy as declared (dense by default).
  const Sparsity& jacobian_structure() const { return dae_.jacobian_sparsity; }
  /// The structure of s M - J in the chosen backend's storage.
  const Sparsity& iteration_structure() const { return iteration_structure_; }
  LinearSolverKind backend() const { return backend_; }
  template <typename Scalar>
  std::unique_ptr<LinearSolver<Scalar>> make_solver() const {
    if (eliminates_second_order())
      return make_second_order_solver<Scalar>(n(), dae_.second_order.m1, dae_.second_order.m2);
    auto solver = make_linear_solver<Scalar>(n(), iteration_structure_, backend_);
    solver->count_iterations_in(&stats_->nli);
    return solver;
  }
  /// The solvers of make_solver() eliminate the declared second-order block
  /// (MassMatrixDae::second_order): dense backend, n > 16 (below, the fixed-size LU kernels of
  /// the whole system cost less: radau5 at 1e-7 on the pendulum, n = 5 -> 3, 4.67 M
  /// instructions per solve against 4.25 M; Van der Pol, 2 -> 1, 4.02 M against 3.08 M;
  /// Andrews, 27 -> 13, 15.8 M against 21.2 M).
  bool eliminates_second_order() const {
    return dae_.second_order.m1 > 0 && backend_ == LinearSolverKind::Dense && n() > 16;
  }

  /// E = s M - J (E from make_solver(), J from jacobian()).
  template <typename Scalar>
  void assemble(Scalar s, const StructuredMatrix<double>& J, StructuredMatrix<Scalar>& E) const {
    if (mass_.kind() != MassOperator::Kind::Structured &&
        E.assign_shifted_negative(J, mass_.diagonal(), s))
      return;
    E.assign_scaled(J, -1.0);
    if (E.kind() == Sparsity::Kind::Sparse && E.sparse().nonZeros() == pattern_nnz_) {
      // M's entries at their positions in the iteration pattern (found once): O(nnz(M))
      Scalar* v = E.sparse().valuePtr();
      for (size_t k = 0; k < mass_positions_.size(); ++k)
        v[mass_positions_[k]] += s * mass_values_[k];
      return;
    }
    mass_.add_to(E, s);
  }
  /// Colours of the finite-difference Jacobian (n for dense).
  int jacobian_colours() const { return fd_.colours(); }

  bool has_monitor() const { return static_cast<bool>(dae_.constraint_monitor); }
  bool monitor(double t, const Vector& y, ConstraintResiduals& out);
  bool has_projector() const { return static_cast<bool>(dae_.project); }
  /// Projects y in place; false if the projector failed (or threw: recorded in the guard).
  bool project(double t, VecOut y, Projection level);

 private:
  // f_i = y_{i+m2} for i < m1 while the second-order block is eliminated (the linear solves
  // rely on it): otherwise a fatal failure naming the component
  bool second_order_holds(double t, const VecIn& y, const VecOut& f);
  // out = f(t, y, p) for a difference quotient: guarded, counted in nfev_jac
  bool f_for_differences(double t, const VecIn& y, Vector& out, const VecIn& p);
  /// Jp = the problem's df/dp callback at (t, y), checked for its size and NaN/Inf.
  bool analytic_parameter_jacobian(double t, const Vector& y, MatOut Jp);
  int chain_m1_ = 0;
  MassMatrixDae dae_;
  Vector p_;
  // p_ as the callbacks' argument, made once (event actions change p_'s values, never its size)
  const VecIn p_ref_;
  CallGuard* guard_;
  Stats* stats_;
  MassOperator mass_;
  LinearSolverKind backend_;
  Sparsity iteration_structure_;
  FiniteDifferenceJacobian fd_;
  FiniteDifferenceJacobian fd_p_;  // df/dp (n x np), made at the first parameter_jacobian()
  Vector p_typical_;               // parameter_typical() of p (size np)
  bool central_parameter_differences_ = false;
  Matrix parameter_work_;  // the analytic df/dp (MassMatrixDae::parameter_jacobian)
  Matrix dense_work_;
  SparseMatrix sparse_work_;
  // sparse iteration pattern (KLU): where M's non-zero entries (values mass_values_) and the
  // entries of the declared sparse Jacobian (sparse_work_'s storage order) lie in its value
  // array, so that E = s M - J is assembled without searching the pattern
  long pattern_nnz_ = -1;
  std::vector<int> mass_positions_, jacobian_positions_;
  std::vector<double> mass_values_;
};

class ImplicitSystem {
 public:
  ImplicitSystem(const ImplicitDae& dae, LinearSolverKind solver, CallGuard& guard, Stats& stats);
  ImplicitSystem(const ImplicitSystem&) = delete;  // p_ref_ refers to its own p_
  ImplicitSystem& operator=(const ImplicitSystem&) = delete;
  /// F(t, y, y') = M y' - f(t, y), keeping M's structure (the BDF on a MassMatrixDae).
  ImplicitSystem(const MassMatrixDae& dae, LinearSolverKind solver, CallGuard& guard, Stats& stats);

  int n() const { return n_; }
  const std::string& name() const { return name_; }
  Vector& p() { return mass_form_ ? mass_form_->p() : p_; }
  bool is_differential(int i) const { return differential_[static_cast<size_t>(i)]; }
  int index_of(int i) const { return index_.empty() ? 1 : index_[static_cast<size_t>(i)]; }
  int max_index() const { return max_index_; }
  /// The mass-matrix problem this system was built from (nullptr for an ImplicitDae).
  MassMatrixSystem* mass_form() { return mass_form_ ? &*mass_form_ : nullptr; }
  const MassMatrixSystem* mass_form() const { return mass_form_ ? &*mass_form_ : nullptr; }
  /// True if iteration_matrix() differentiates numerically (it then needs F0).
  bool jacobian_by_differences() const {
    if (mass_form_) return !mass_form_->dae().jacobian && !mass_form_->dae().sparse_jacobian;
    return !implicit_->dF_dy && !implicit_->sparse_dF_dy;
  }
  CallGuard& guard() { return *guard_; }
  Stats& stats() { return *stats_; }

  /// out = F(t, y, yp); false on a callback failure or NaN/Inf. The first evaluation of an
  /// ImplicitDae with a declared jacobian_sparsity (at t0: the solve's consistency check or
  /// start, initialize()) checks the pattern, missing_pattern_entries(), and throws
  /// InvalidArgument naming the entries it leaves out (their values would be lost from the
  /// iteration matrix dF/dy + c dF/dy': singular matrices or Newton failures at t0).
  bool F(double t, const VecIn& y, const VecIn& yp, VecOut out) {
    if (mass_form_) {  // F = M y' - f(t, y)
      if (!mass_form_->f(t, y, out)) return false;
      out = -out;
      mass_form_->mass().apply_add(yp, out);
      return true;
    }
    ++stats_->nfev;
    if (!(*guard_)("F", t, [&] { implicit_->F(t, y, yp, out, p_ref_); })) return false;
    if (!guard_->check_finite("F", t, out)) return false;
    if (pattern_unchecked_) check_declared_pattern(t, y, yp, out);
    return true;
  }
  /// The entries of dF/dy and dF/dy' at (t, y, yp) (F0 = F(t, y, yp)) that are not zero but lie
  /// outside the structure their values are kept in -- the declared jacobian_sparsity for
  /// differences and the sparse callbacks, the iteration structure for the dense callbacks --
  /// as a message naming them (at most 10); empty when none, or when no pattern is declared.
  /// Differences: two evaluations of F per column group of the pattern and per matrix (the
  /// groups' columns perturbed by 1 and by random weights v: a row whose one pattern column k
  /// in the group does not explain the change, Delta^v_i != v_k Delta^1_i, or that changes
  /// without a pattern column, has an entry outside), then bisection of the flagged groups,
  /// two evaluations per halving: about 4 colours + 2 log2(n) per missing entry, O(nnz) work
  /// besides. Entries below 1e-4 of their row's largest response, or that vanish at this point,
  /// are not seen. Not counted in the statistics; a failed evaluation abandons the check.
  std::string missing_pattern_entries(double t, const Vector& y, const Vector& yp,
                                      const Vector& F0);
  /// No check of the pattern at the first evaluation (a pattern detected by perturbation,
  /// integrator/structure.hpp, holds every entry the check could find).
  void skip_pattern_check() { pattern_unchecked_ = false; }
  /// E = dF/dy + cj dF/dy' at (t, y, yp), with F0 = F(t, y, yp) (used by the differences,
  /// taken along (e_j, cj e_j) with typical magnitudes `typical`, e.g. |h y'|).
  bool iteration_matrix(double t, const Vector& y, const Vector& yp, double cj, const Vector& F0,
                        const Vector* typical, StructuredMatrix<double>& E);
  /// D = dF/dy' at (t, y, yp) as a dense matrix (the BDF's algebraic error filter; n small).
  bool dF_dyp_dense(double t, const Vector& y, const Vector& yp, Matrix& D);
  /// D = dF/dy' at (t, y, yp) as a sparse matrix of its non-zero entries: M (mass-matrix
  /// problems, in its structure), the sparse callback, or, for n <= max_dense only, the dense
  /// callback or differences in y'. False on a callback failure or a non-finite entry;
  /// `available` false (and true returned) when only a dense evaluation exists and n > max_dense.
  bool dF_dyp_sparse(double t, const Vector& y, const Vector& yp, int max_dense, SparseMatrix& D,
                     bool& available);
  /// True if dF/dy' is a constant diagonal (identity or diagonal mass matrix): its diagonal.
  std::optional<Vector> constant_diagonal_dF_dyp() const;
  /// Central differences for dF/dp (MassMatrixSystem::set_central_parameter_differences).
  void set_central_parameter_differences(bool central) {
    if (mass_form_)
      mass_form_->set_central_parameter_differences(central);
    else
      central_parameter_differences_ = central;
  }
  /// Jp = dF/dp at (t, y, yp) with F0 = F(t, y, yp), as MassMatrixSystem::parameter_jacobian
  /// (ImplicitDae::parameter_sparsity; for a MassMatrixDae -df/dp of the mass form).
  bool parameter_jacobian(double t, const Vector& y, const Vector& yp, const Vector& F0, MatOut Jp,
                          const Vector* typical = nullptr);
  int parameter_colours();

  const Sparsity& iteration_structure() const { return iteration_structure_; }
  /// The structure of dF/dy + c dF/dy' as declared (df/dy of the mass form).
  const Sparsity& jacobian_structure() const {
    return mass_form_ ? mass_form_->jacobian_structure() : implicit_->jacobian_sparsity;
  }
  LinearSolverKind backend() const { return backend_; }
  std::unique_ptr<LinearSolver<double>> make_solver() const {
    auto solver = make_linear_solver<double>(n_, iteration_structure_, backend_);
    solver->count_iterations_in(&stats_->nli);
    return solver;
  }
  int jacobian_colours() const {
    return mass_form_ ? mass_form_->jacobian_colours() : fd_.colours();
  }

 private:
  void setup_tags(int n, const std::vector<int>& index);
  // out = F(t, y, yp, p) for a difference quotient: guarded, counted in nfev_jac
  bool F_for_differences(double t, const VecIn& y, const VecIn& yp, Vector& out, const VecIn& p);
  void check_declared_pattern(double t, const VecIn& y, const VecIn& yp, const VecOut& F0);
  bool pattern_unchecked_ = false;
  int n_ = 0;
  std::string name_;
  std::optional<ImplicitDae> implicit_;
  std::optional<MassMatrixSystem> mass_form_;
  Vector p_;
  const VecIn p_ref_;
  CallGuard* guard_;
  Stats* stats_;
  std::vector<bool> differential_;
  std::vector<int> index_;
  int max_index_ = 1;
  LinearSolverKind backend_ = LinearSolverKind::Dense;
  Sparsity iteration_structure_;
  FiniteDifferenceJacobian fd_;
  FiniteDifferenceJacobian fd_p_;  // dF/dp (n x np), made at the first parameter_jacobian()
  Vector p_typical_;               // MassMatrixSystem::parameter_typical() of p
  bool central_parameter_differences_ = false;
  StructuredMatrix<double> J_;  // df/dy (mass form)
  Matrix dense_a_, dense_b_;
  SparseMatrix sparse_a_, sparse_b_;
  Vector yp_work_, y_work_, out_work_;
};

}  // namespace daekit
