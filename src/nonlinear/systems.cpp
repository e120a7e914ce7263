#include "nonlinear/systems.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/format.hpp"

namespace daekit {

namespace {

// The smallest magnitude of a parameter for its central increment, cbrt(eps) max(|p_k|, this).
constexpr double kCentralParameterFloor = 1e-5;

std::string size_text(long rows, long cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

MassOperator mass_operator_of(const MassMatrixDae& dae) {
  if (dae.mass_sparse.size() != 0) return MassOperator::from_sparse(dae.n, dae.mass_sparse);
  return MassOperator::from_dense(dae.n, dae.mass);
}

// Copies a dense matrix into a structured one (entries outside the structure must be zero).
void copy_dense(const Matrix& A, StructuredMatrix<double>& J) {
  if (J.kind() == Sparsity::Kind::Dense) {
    J.dense() = A;
    return;
  }
  const int n = J.size();
  for (int j = 0; j < n; ++j) J.for_each_in_column(j, [&](int i, double& v) { v = A(i, j); });
}

// Copies the values of a sparse matrix (pattern contained in J's) into J.
void copy_sparse(const SparseMatrix& A, StructuredMatrix<double>& J) {
  if (J.kind() == Sparsity::Kind::Sparse && J.sparse().nonZeros() == A.nonZeros()) {
    std::copy(A.valuePtr(), A.valuePtr() + A.nonZeros(), J.sparse().valuePtr());
    return;
  }
  J.set_zero();
  for (int j = 0; j < A.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(A, j); it; ++it)
      J.ref(static_cast<int>(it.row()), j) = it.value();
}

SparseMatrix zero_pattern(const Sparsity& s, int n) {
  SparseMatrix m = s.to_pattern(n);
  m.coeffs().setZero();
  return m;
}

// Entries of dG/dx outside a declared pattern P, G = F with x in place of y or y' (see
// ImplicitSystem::missing_pattern_entries): probes over column sets S inside one colour group
// of P, where each row has at most one pattern column.
class PatternProbe {
 public:
  using Map = FunctionRef<bool(const Vector& x, Vector& out)>;

  PatternProbe(const SparseMatrix& P, const ColumnColouring& colouring, Map G, const Vector& x,
               const Vector& G0, const Vector& delta)
      : P_(P), colouring_(colouring), G_(G), x_(x), G0_(G0), delta_(delta) {
    const int n = static_cast<int>(x.size());
    owner_.assign(static_cast<size_t>(n), -1);
    scale_.setZero(n);
    std::mt19937 random(20240611u);
    std::uniform_real_distribution<double> weight(0.5, 1.5);
    v_.resize(n);
    for (int j = 0; j < n; ++j) v_[j] = weight(random);
  }

  // Appends the entries found (row, column), at most `cap` in all; false if G failed.
  bool find(std::vector<std::pair<int, int>>& missing, size_t cap) {
    const int n = static_cast<int>(x_.size());
    std::vector<int> all(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all[i] = i;
    // every group once: the rows' scales, and the residuals to flag against them
    std::vector<std::vector<std::pair<int, double>>> residual(colouring_.colours);
    for (int c = 0; c < colouring_.colours; ++c) {
      if (!probe(group(c), all, residual[c])) return false;
    }
    for (int c = 0; c < colouring_.colours && missing.size() < cap; ++c) {
      std::vector<int> rows = flagged(residual[c]);
      if (!rows.empty() && !bisect(group(c), rows, missing, cap)) return false;
    }
    return true;
  }

 private:
  std::vector<int> group(int c) const {
    return {colouring_.group_columns.begin() + colouring_.group_start[c],
            colouring_.group_columns.begin() + colouring_.group_start[c + 1]};
  }
  // r_i over `rows` for the columns S: |Delta^v_i - v_k Delta^1_i| with k the pattern column of
  // row i in S, or max(|Delta^1_i|, |Delta^v_i|) when row i has none; nonzero ones kept
  bool probe(const std::vector<int>& S, const std::vector<int>& rows,
             std::vector<std::pair<int, double>>& out) {
    Vector x1 = x_, xv = x_, d1(x_.size()), dv(x_.size());
    for (int j : S) {
      x1[j] += delta_[j];
      xv[j] += v_[j] * delta_[j];
    }
    if (!G_(x1, d1) || !G_(xv, dv)) return false;
    d1 -= G0_;
    dv -= G0_;
    for (int j : S)
      for (SparseMatrix::InnerIterator it(P_, j); it; ++it) owner_[it.row()] = j;
    out.clear();
    for (int i : rows) {
      scale_[i] = std::max({scale_[i], std::abs(d1[i]), std::abs(dv[i])});
      const int k = owner_[i];
      const double r =
          k >= 0 ? std::abs(dv[i] - v_[k] * d1[i]) : std::max(std::abs(d1[i]), std::abs(dv[i]));
      if (r > 0.0) out.emplace_back(i, r);
    }
    for (int j : S)
      for (SparseMatrix::InnerIterator it(P_, j); it; ++it) owner_[it.row()] = -1;
    return true;
  }
  std::vector<int> flagged(const std::vector<std::pair<int, double>>& residual) const {
    std::vector<int> rows;
    for (const auto& [i, r] : residual)
      if (r > 1e-4 * scale_[i]) rows.push_back(i);
    return rows;
  }
  bool bisect(const std::vector<int>& S, const std::vector<int>& rows,
              std::vector<std::pair<int, int>>& missing, size_t cap) {
    if (S.size() == 1) {
      for (int i : rows)
        if (missing.size() < cap && !stored(i, S[0])) missing.emplace_back(i, S[0]);
      return true;
    }
    const auto middle = S.begin() + static_cast<std::ptrdiff_t>(S.size() / 2);
    for (const std::vector<int>& half :
         {std::vector<int>(S.begin(), middle), std::vector<int>(middle, S.end())}) {
      if (missing.size() >= cap) return true;
      std::vector<std::pair<int, double>> residual;
      if (!probe(half, rows, residual)) return false;
      const std::vector<int> still = flagged(residual);
      if (!still.empty() && !bisect(half, still, missing, cap)) return false;
    }
    return true;
  }
  // (i, j) stored in P (an explicit zero counts as declared)
  bool stored(int i, int j) const {
    for (SparseMatrix::InnerIterator it(P_, j); it; ++it)
      if (it.row() == i) return true;
    return false;
  }

  const SparseMatrix& P_;
  const ColumnColouring& colouring_;
  Map G_;
  const Vector &x_, &G0_, &delta_;
  Vector v_, scale_;
  std::vector<int> owner_;
};
}  // namespace

// ---------------------------------------------------------------------------------------------
// MassMatrixSystem

MassMatrixSystem::MassMatrixSystem(const MassMatrixDae& dae, LinearSolverKind solver,
                                   CallGuard& guard, Stats& stats)
    : dae_(dae), p_(dae.p), p_ref_(p_), guard_(&guard), stats_(&stats) {
  link_drift_monitor(dae_);
  mass_ = mass_operator_of(dae_);
  const int n = dae_.n;
  const Sparsity& js = dae_.jacobian_sparsity;
  const Sparsity wanted = structure_union(js, mass_.sparsity(), n, true);
  backend_ = choose_backend(n, js.is_dense() ? Sparsity::dense() : wanted, solver);
  iteration_structure_ = backend_structure(n, wanted, backend_);
  if (!dae_.jacobian && !dae_.sparse_jacobian) fd_ = FiniteDifferenceJacobian(n, js);
  if (dae_.sparse_jacobian) sparse_work_ = zero_pattern(js, n);
  if (dae_.jacobian && backend_ != LinearSolverKind::Dense) dense_work_.setZero(n, n);
  if (dae_.parameter_jacobian) parameter_work_.setZero(n, p_.size());
  if (iteration_structure_.kind == Sparsity::Kind::Sparse) {
    const SparseMatrix& P = iteration_structure_.pattern;
    auto position = [&](int i, int j) {  // in P's value array (the entry lies in P)
      const int* begin = P.innerIndexPtr() + P.outerIndexPtr()[j];
      const int* end = P.innerIndexPtr() + P.outerIndexPtr()[j + 1];
      const int* it = std::lower_bound(begin, end, i);
      return it != end && *it == i ? static_cast<int>(it - P.innerIndexPtr()) : -1;
    };
    bool ok = P.isCompressed();
    const SparseMatrix M = mass_.to_sparse();
    for (int j = 0; j < n && ok; ++j)
      for (SparseMatrix::InnerIterator it(M, j); it; ++it) {
        mass_positions_.push_back(position(static_cast<int>(it.row()), j));
        mass_values_.push_back(it.value());
        ok = ok && mass_positions_.back() >= 0;
      }
    for (int j = 0; j < sparse_work_.outerSize() && ok; ++j)
      for (SparseMatrix::InnerIterator it(sparse_work_, j); it; ++it) {
        jacobian_positions_.push_back(position(static_cast<int>(it.row()), j));
        ok = ok && jacobian_positions_.back() >= 0;
      }
    if (ok) {
      pattern_nnz_ = P.nonZeros();
    } else {
      mass_positions_.clear();
      mass_values_.clear();
      jacobian_positions_.clear();
    }
  }
  if (eliminates_second_order()) chain_m1_ = dae_.second_order.m1;
}

bool MassMatrixSystem::second_order_holds(double t, const VecIn& y, const VecOut& f) {
  const int m2 = dae_.second_order.m2;
  for (int i = 0; i < chain_m1_; ++i)
    if (f[i] != y[i + m2]) {
      guard_->broken_declaration(
          "f", t,
          "second_order = {" + std::to_string(chain_m1_) + ", " + std::to_string(m2) +
              "} declares f_i = y_{i+m2} for i < m1, but f_" + std::to_string(i) + " = " +
              std::to_string(f[i]) + " and y_" + std::to_string(i + m2) + " = " +
              std::to_string(y[i + m2]) + " (clear second_order if the equations are not so)");
      return false;
    }
  return true;
}

bool MassMatrixSystem::jacobian(double t, const Vector& y, const Vector& f0,
                                StructuredMatrix<double>& J) {
  const int n = dae_.n;
  ++stats_->njac;
  if (dae_.jacobian) {
    const bool direct = J.kind() == Sparsity::Kind::Dense;
    Matrix& A = direct ? J.dense() : dense_work_;
    A.setZero();
    if (!(*guard_)("the Jacobian", t, [&] { dae_.jacobian(t, y, A, p_); })) return false;
    if (A.rows() != n || A.cols() != n) {
      guard_->wrong_size("the Jacobian", t,
                         "it returned a " + size_text(A.rows(), A.cols()) + " matrix, expected " +
                             size_text(n, n));
      A.setZero(n, n);
      return false;
    }
    if (!all_finite(A.data(), A.size())) {
      guard_->non_finite("the Jacobian", t, 0);
      return false;
    }
    if (!direct) copy_dense(A, J);
    return true;
  }
  if (dae_.sparse_jacobian) {
    const long nnz = sparse_work_.nonZeros();
    sparse_work_.coeffs().setZero();
    if (!(*guard_)("the sparse Jacobian", t, [&] { dae_.sparse_jacobian(t, y, sparse_work_, p_); }))
      return false;
    if (sparse_work_.rows() != n || sparse_work_.cols() != n || sparse_work_.nonZeros() != nnz ||
        !sparse_work_.isCompressed()) {
      guard_->wrong_size("the sparse Jacobian", t,
                         "its pattern changed (write values of the given entries only)");
      sparse_work_ = zero_pattern(dae_.jacobian_sparsity, n);
      return false;
    }
    for (long k = 0; k < nnz; ++k)
      if (!std::isfinite(sparse_work_.valuePtr()[k])) {
        guard_->non_finite("the sparse Jacobian", t, sparse_work_.innerIndexPtr()[k]);
        return false;
      }
    if (J.kind() == Sparsity::Kind::Sparse && J.sparse().nonZeros() == pattern_nnz_ &&
        !jacobian_positions_.empty()) {  // into the iteration pattern, positions found once
      double* v = J.sparse().valuePtr();
      std::fill(v, v + pattern_nnz_, 0.0);
      const double* a = sparse_work_.valuePtr();
      for (long k = 0; k < nnz; ++k) v[jacobian_positions_[k]] = a[k];
      return true;
    }
    copy_sparse(sparse_work_, J);
    return true;
  }
  const int evaluations = fd_.evaluate(
      [&](const Vector& x, Vector& out) { return f_for_differences(t, x, out, p_ref_); }, y, f0,
      nullptr, J);
  return evaluations >= 0;
}

bool MassMatrixSystem::f_for_differences(double t, const VecIn& y, Vector& out, const VecIn& p) {
  ++stats_->nfev_jac;
  if (!(*guard_)("f", t, [&] { dae_.f(t, y, out, p); })) return false;
  return guard_->check_finite("f", t, out);
}

int MassMatrixSystem::parameter_colours() {
  const int np = static_cast<int>(p_.size());
  if (fd_p_.rows() != n() || fd_p_.cols() != np)
    fd_p_ = FiniteDifferenceJacobian(n(), np, dae_.parameter_sparsity);
  return fd_p_.colours();
}

bool MassMatrixSystem::parameter_jacobian(double t, const Vector& y, const Vector& f0, MatOut Jp,
                                          const Vector* typical) {
  if (dae_.parameter_jacobian) return analytic_parameter_jacobian(t, y, Jp);
  parameter_colours();  // prepares the colouring
  if (central_parameter_differences_)
    return fd_p_.evaluate_central(
               [&](const Vector& q, Vector& out) { return f_for_differences(t, y, out, q); }, p_,
               kCentralParameterFloor, Jp) >= 0;
  if (typical == nullptr) {
    parameter_typical(p_, p_typical_);  // (sized at the first call)
    typical = &p_typical_;
  }
  const int evaluations =
      fd_p_.evaluate([&](const Vector& q, Vector& out) { return f_for_differences(t, y, out, q); },
                     p_, f0, typical, Jp);
  return evaluations >= 0;
}

bool MassMatrixSystem::analytic_parameter_jacobian(double t, const Vector& y, MatOut Jp) {
  const int n = dae_.n, np = static_cast<int>(p_.size());
  if (parameter_work_.rows() != n || parameter_work_.cols() != np)
    parameter_work_.resize(n, np);  // once: the first call of the solve
  parameter_work_.setZero();
  if (!(*guard_)("df/dp (parameter_jacobian)", t,
                 [&] { dae_.parameter_jacobian(t, y, parameter_work_, p_); }))
    return false;
  if (parameter_work_.rows() != n || parameter_work_.cols() != np) {
    guard_->wrong_size("df/dp (parameter_jacobian)", t,
                       "it returned a " +
                           size_text(parameter_work_.rows(), parameter_work_.cols()) +
                           " matrix, expected " + size_text(n, np));
    parameter_work_.setZero(n, np);
    return false;
  }
  if (!all_finite(parameter_work_.data(), parameter_work_.size())) {
    guard_->non_finite("df/dp (parameter_jacobian)", t, 0);
    return false;
  }
  Jp = parameter_work_;
  return true;
}

bool MassMatrixSystem::monitor(double t, const Vector& y, ConstraintResiduals& out) {
  return (*guard_)("the constraint monitor", t, [&] { out = dae_.constraint_monitor(t, y, p_); });
}

bool MassMatrixSystem::project(double t, VecOut y, Projection level) {
  ++stats_->nproject;
  bool ok = false;
  if (!(*guard_)("the projector", t, [&] { ok = dae_.project(t, y, level, p_); })) return false;
  return ok && all_finite(y.data(), y.size());
}

// ---------------------------------------------------------------------------------------------
// ImplicitSystem

void ImplicitSystem::setup_tags(int n, const std::vector<int>& index) {
  index_ = index;
  max_index_ = index.empty() ? 1 : *std::max_element(index.begin(), index.end());
  yp_work_.setZero(n);
  y_work_.setZero(n);
  out_work_.setZero(n);
}

ImplicitSystem::ImplicitSystem(const ImplicitDae& dae, LinearSolverKind solver, CallGuard& guard,
                               Stats& stats)
    : n_(dae.n),
      name_(dae.name),
      implicit_(dae),
      p_(dae.p),
      p_ref_(p_),
      guard_(&guard),
      stats_(&stats) {
  implicit_->validate();
  const int n = n_;
  differential_.assign(n, true);
  for (int i = 0; i < n; ++i) differential_[i] = dae.is_differential(i);
  setup_tags(n, dae.index);
  const Sparsity& js = dae.jacobian_sparsity;
  backend_ = choose_backend(n, js, solver);
  iteration_structure_ = backend_structure(n, structure_union(js, js, n, !js.is_dense()), backend_);
  if (!dae.dF_dy && !dae.sparse_dF_dy) fd_ = FiniteDifferenceJacobian(n, js);
  if (dae.dF_dy) {
    dense_a_.setZero(n, n);
    dense_b_.setZero(n, n);
  }
  if (dae.sparse_dF_dy) {
    sparse_a_ = zero_pattern(js, n);
    sparse_b_ = sparse_a_;
  }
  pattern_unchecked_ = !js.is_dense();
}

void ImplicitSystem::check_declared_pattern(double t, const VecIn& y, const VecIn& yp,
                                            const VecOut& F0) {
  pattern_unchecked_ = false;
  const std::string missing = missing_pattern_entries(t, y, yp, F0);
  if (!missing.empty()) throw InvalidArgument(missing);
}

std::string ImplicitSystem::missing_pattern_entries(double t, const Vector& y, const Vector& yp,
                                                    const Vector& F0) {
  if (!implicit_ || implicit_->jacobian_sparsity.is_dense()) return {};
  const ImplicitDae& d = *implicit_;
  const int n = n_;
  const Stats saved = *stats_;
  const bool clean = guard_->failure().kind == CallbackFailure::Kind::None;
  // (row, column) of dF/dy (first) and of dF/dy' (second)
  std::vector<std::pair<int, int>> missing[2];
  constexpr size_t kCap = 10;
  bool ok = true;
  if (d.dF_dy) {  // dense callbacks: their values outside the iteration structure are dropped
    ok = !iteration_structure_.is_dense() &&
         (*guard_)("dF/dy", t, [&] { d.dF_dy(t, y, yp, dense_a_, p_); }) &&
         (*guard_)("dF/dy'", t, [&] { d.dF_dyp(t, y, yp, dense_b_, p_); }) &&
         dense_a_.rows() == n && dense_a_.cols() == n && dense_b_.rows() == n &&
         dense_b_.cols() == n;
    for (int m = 0; m < 2 && ok; ++m) {
      const Matrix& A = m == 0 ? dense_a_ : dense_b_;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if (A(i, j) != 0.0 && !iteration_structure_.contains(i, j) && missing[m].size() < kCap)
            missing[m].emplace_back(i, j);
    }
    dense_a_.setZero(n, n);
    dense_b_.setZero(n, n);
  } else {  // differences and sparse callbacks: the values kept are those of the pattern
    SparseMatrix P = d.jacobian_sparsity.to_pattern(n);
    P.makeCompressed();
    // the differences' colouring when there is one (the same structure), else computed
    const ColumnColouring colouring =
        fd_.size() == n ? fd_.colouring() : colour_columns(n, d.jacobian_sparsity);
    Vector moved(n), delta(n);
    for (int m = 0; m < 2 && ok; ++m) {
      const Vector& x = m == 0 ? y : yp;
      for (int j = 0; j < n; ++j)
        delta[j] = FiniteDifferenceJacobian::increment(x[j], m == 0 ? 0.0 : 1.0);
      auto G = [&](const Vector& xx, Vector& out) {
        const bool ran = (*guard_)("F", t, [&] {
          if (m == 0)
            d.F(t, xx, yp, out, p_ref_);
          else
            d.F(t, y, xx, out, p_ref_);
        });
        return ran && out.allFinite();
      };
      PatternProbe probe(P, colouring, G, x, F0, delta);
      ok = probe.find(missing[m], kCap);
    }
  }
  *stats_ = saved;
  if (clean) guard_->clear();  // a failed probe leaves no record: the check is abandoned
  if (!ok || (missing[0].empty() && missing[1].empty())) return {};
  std::string list;
  for (int m = 0; m < 2; ++m)
    for (const auto& [i, j] : missing[m])
      list += (list.empty() ? "" : ", ") + std::string(m == 0 ? "dF/dy" : "dF/dy'") + "(" +
              std::to_string(i) + ", " + std::to_string(j) + ")";
  return "problem '" + name_ +
         "': jacobian_sparsity (jac_sparsity in Python) leaves out entries of "
         "dF/dy + c dF/dy' " +
         "that are not zero at t = " + format_number(t, 6) + ": " + list +
         (missing[0].size() + missing[1].size() >= kCap ? " (and maybe more)" : "") +
         " (row, column); declare the structure of both matrices (their values outside it " +
         "are lost from the iteration matrix: singular matrices, Newton failures)";
}

ImplicitSystem::ImplicitSystem(const MassMatrixDae& dae, LinearSolverKind solver, CallGuard& guard,
                               Stats& stats)
    : n_(dae.n), name_(dae.name), p_ref_(p_), guard_(&guard), stats_(&stats) {
  mass_form_.emplace(dae, solver, guard, stats);
  const int n = n_;
  differential_.assign(n, true);
  for (int j : mass_form_->mass().zero_columns()) differential_[j] = false;
  setup_tags(n, dae.index);
  backend_ = mass_form_->backend();
  iteration_structure_ = mass_form_->iteration_structure();
  mass_form_->allocate_jacobian(J_);
}

bool ImplicitSystem::iteration_matrix(double t, const Vector& y, const Vector& yp, double cj,
                                      const Vector& F0, const Vector* typical,
                                      StructuredMatrix<double>& E) {
  if (mass_form_) {  // E = cj M - J with J = df/dy; f0 = M y' - F0 is not needed by the
    // differences of f, which need f(t, y) itself: recompute it from F0 = M y' - f.
    mass_form_->mass().apply(yp, out_work_);
    y_work_ = out_work_ - F0;  // f(t, y)
    if (!mass_form_->jacobian(t, y, y_work_, J_)) return false;
    mass_form_->assemble(cj, J_, E);
    return true;
  }
  const int n = n_;
  ++stats_->njac;
  const ImplicitDae& d = *implicit_;
  if (d.dF_dy) {
    dense_a_.setZero();
    dense_b_.setZero();
    if (!(*guard_)("dF/dy", t, [&] { d.dF_dy(t, y, yp, dense_a_, p_); })) return false;
    if (!(*guard_)("dF/dy'", t, [&] { d.dF_dyp(t, y, yp, dense_b_, p_); })) return false;
    for (auto* m : {&dense_a_, &dense_b_})
      if (m->rows() != n || m->cols() != n) {
        guard_->wrong_size(m == &dense_a_ ? "dF/dy" : "dF/dy'", t,
                           "it returned a " + size_text(m->rows(), m->cols()) +
                               " matrix, expected " + size_text(n, n));
        m->setZero(n, n);
        return false;
      }
    if (!all_finite(dense_a_.data(), dense_a_.size()) ||
        !all_finite(dense_b_.data(), dense_b_.size())) {
      guard_->non_finite(dense_a_.allFinite() ? "dF/dy'" : "dF/dy", t, 0);
      return false;
    }
    if (E.kind() == Sparsity::Kind::Dense) {
      E.dense() = dense_a_;
      E.dense() += cj * dense_b_;
    } else {
      dense_a_ += cj * dense_b_;
      copy_dense(dense_a_, E);
    }
    return true;
  }
  if (d.sparse_dF_dy) {
    const long nnz = sparse_a_.nonZeros();
    sparse_a_.coeffs().setZero();
    sparse_b_.coeffs().setZero();
    if (!(*guard_)("dF/dy", t, [&] { d.sparse_dF_dy(t, y, yp, sparse_a_, p_); })) return false;
    if (!(*guard_)("dF/dy'", t, [&] { d.sparse_dF_dyp(t, y, yp, sparse_b_, p_); })) return false;
    for (auto* m : {&sparse_a_, &sparse_b_})
      if (m->rows() != n || m->cols() != n || m->nonZeros() != nnz || !m->isCompressed()) {
        guard_->wrong_size(m == &sparse_a_ ? "dF/dy" : "dF/dy'", t,
                           "its pattern changed (write values of the given entries only)");
        *m = zero_pattern(d.jacobian_sparsity, n);
        return false;
      }
    sparse_a_.coeffs() += cj * sparse_b_.coeffs();
    for (long k = 0; k < nnz; ++k)
      if (!std::isfinite(sparse_a_.valuePtr()[k])) {
        guard_->non_finite("dF/dy", t, sparse_a_.innerIndexPtr()[k]);
        return false;
      }
    copy_sparse(sparse_a_, E);
    return true;
  }
  // differences along (e_j, cj e_j): G(x) = F(t, x, yp + cj (x - y))
  const int evaluations = fd_.evaluate(
      [&](const Vector& x, Vector& out) {
        yp_work_ = yp;
        yp_work_ += cj * (x - y);
        return F_for_differences(t, x, yp_work_, out, p_ref_);
      },
      y, F0, typical, E);
  return evaluations >= 0;
}

bool ImplicitSystem::F_for_differences(double t, const VecIn& y, const VecIn& yp, Vector& out,
                                       const VecIn& p) {
  ++stats_->nfev_jac;
  if (!(*guard_)("F", t, [&] { implicit_->F(t, y, yp, out, p); })) return false;
  return guard_->check_finite("F", t, out);
}

bool ImplicitSystem::dF_dyp_dense(double t, const Vector& y, const Vector& yp, Matrix& D) {
  const int n = n_;
  if (mass_form_) {
    D = mass_form_->mass().to_dense();
    return true;
  }
  const ImplicitDae& d = *implicit_;
  D.setZero(n, n);
  if (d.dF_dyp) {
    if (!(*guard_)("dF/dy'", t, [&] { d.dF_dyp(t, y, yp, D, p_); })) return false;
    if (D.rows() != n || D.cols() != n) {
      guard_->wrong_size("dF/dy'", t,
                         "it returned a " + size_text(D.rows(), D.cols()) + " matrix, expected " +
                             size_text(n, n));
      return false;
    }
    return D.allFinite();
  }
  if (d.sparse_dF_dyp) {
    sparse_b_.coeffs().setZero();
    if (!(*guard_)("dF/dy'", t, [&] { d.sparse_dF_dyp(t, y, yp, sparse_b_, p_); })) return false;
    D = Matrix(sparse_b_);
    return D.allFinite();
  }
  // differences in y' alone (typical magnitude 1: y' is often 0 on algebraic components)
  Vector F0(n), F1(n);
  if (!F(t, y, yp, F0)) return false;
  const Vector ones = Vector::Ones(n);
  return FiniteDifferenceJacobian::evaluate_dense(
             [&](const Vector& x, Vector& out) { return F_for_differences(t, y, x, out, p_ref_); },
             yp, F0, &ones, yp_work_, F1, D) >= 0;
}

bool ImplicitSystem::dF_dyp_sparse(double t, const Vector& y, const Vector& yp, int max_dense,
                                   SparseMatrix& D, bool& available) {
  const int n = n_;
  available = true;
  std::vector<Eigen::Triplet<double, int>> entries;
  if (mass_form_) {
    D = mass_form_->mass().to_sparse();
    return true;
  } else if (implicit_->sparse_dF_dyp) {
    sparse_b_.coeffs().setZero();
    if (!(*guard_)("dF/dy'", t, [&] { implicit_->sparse_dF_dyp(t, y, yp, sparse_b_, p_); }))
      return false;
    for (int j = 0; j < sparse_b_.outerSize(); ++j)
      for (SparseMatrix::InnerIterator it(sparse_b_, j); it; ++it) {
        if (!std::isfinite(it.value())) return false;
        if (it.value() != 0.0) entries.emplace_back(static_cast<int>(it.row()), j, it.value());
      }
  } else {
    if (n > max_dense) {
      available = false;
      return true;
    }
    Matrix dense;
    if (!dF_dyp_dense(t, y, yp, dense)) return false;
    if (!dense.allFinite()) {  // differences through a non-finite F: no usable D
      available = false;
      return true;
    }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (dense(i, j) != 0.0) entries.emplace_back(i, j, dense(i, j));
  }
  D.resize(n, n);
  D.setFromTriplets(entries.begin(), entries.end());
  D.makeCompressed();
  return true;
}

int ImplicitSystem::parameter_colours() {
  if (mass_form_) return mass_form_->parameter_colours();
  const int np = static_cast<int>(p_.size());
  if (fd_p_.rows() != n_ || fd_p_.cols() != np)
    fd_p_ = FiniteDifferenceJacobian(n_, np, implicit_->parameter_sparsity);
  return fd_p_.colours();
}

bool ImplicitSystem::parameter_jacobian(double t, const Vector& y, const Vector& yp,
                                        const Vector& F0, MatOut Jp, const Vector* typical) {
  if (mass_form_) {  // F = M y' - f(t, y, p): dF/dp = -df/dp, differenced from f(t, y) itself
    mass_form_->mass().apply(yp, out_work_);
    y_work_ = out_work_ - F0;  // f(t, y)
    if (!mass_form_->parameter_jacobian(t, y, y_work_, Jp, typical)) return false;
    Jp = -Jp;
    return true;
  }
  parameter_colours();
  if (central_parameter_differences_)
    return fd_p_.evaluate_central(
               [&](const Vector& q, Vector& out) { return F_for_differences(t, y, yp, out, q); },
               p_, kCentralParameterFloor, Jp) >= 0;
  if (typical == nullptr) {
    MassMatrixSystem::parameter_typical(p_, p_typical_);
    typical = &p_typical_;
  }
  const int evaluations = fd_p_.evaluate(
      [&](const Vector& q, Vector& out) { return F_for_differences(t, y, yp, out, q); }, p_, F0,
      typical, Jp);
  return evaluations >= 0;
}

std::optional<Vector> ImplicitSystem::constant_diagonal_dF_dyp() const {
  if (!mass_form_) return std::nullopt;
  const MassOperator& M = mass_form_->mass();
  if (M.kind() == MassOperator::Kind::Structured) return std::nullopt;
  return M.diagonal();
}

}  // namespace daekit
