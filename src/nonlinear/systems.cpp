#include "nonlinear/systems.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace daekit {

namespace {

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

}  // namespace

// ---------------------------------------------------------------------------------------------
// MassMatrixSystem

MassMatrixSystem::MassMatrixSystem(const MassMatrixDae& dae, LinearSolverKind solver,
                                   CallGuard& guard, Stats& stats)
    : dae_(dae), p_(dae.p), p_ref_(p_), guard_(&guard), stats_(&stats) {
  dae_.validate();
  mass_ = mass_operator_of(dae_);
  const int n = dae_.n;
  const Sparsity& js = dae_.jacobian_sparsity;
  const Sparsity wanted = structure_union(js, mass_.sparsity(), n, true);
  backend_ = choose_backend(n, js.is_dense() ? Sparsity::dense() : wanted, solver);
  iteration_structure_ = backend_structure(n, wanted, backend_);
  if (!dae_.jacobian && !dae_.sparse_jacobian) fd_ = FiniteDifferenceJacobian(n, js);
  if (dae_.sparse_jacobian) sparse_work_ = zero_pattern(js, n);
  if (dae_.jacobian && backend_ != LinearSolverKind::Dense) dense_work_.setZero(n, n);
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
      [&](const Vector& x, Vector& out) {
        ++stats_->nfev_jac;
        if (!(*guard_)("f", t, [&] { dae_.f(t, x, out, p_ref_); })) return false;
        return guard_->check_finite("f", t, out);
      },
      y, f0, nullptr, J);
  return evaluations >= 0;
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
        ++stats_->nfev_jac;
        yp_work_ = yp;
        yp_work_ += cj * (x - y);
        if (!(*guard_)("F", t, [&] { d.F(t, x, yp_work_, out, p_ref_); })) return false;
        return guard_->check_finite("F", t, out);
      },
      y, F0, typical, E);
  return evaluations >= 0;
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
  // differences in y' alone
  Vector F0(n), F1(n);
  if (!F(t, y, yp, F0)) return false;
  yp_work_ = yp;
  for (int j = 0; j < n; ++j) {
    const double delta = FiniteDifferenceJacobian::increment(yp[j], 1.0);
    yp_work_[j] = yp[j] + delta;
    ++stats_->nfev_jac;
    if (!(*guard_)("F", t, [&] { d.F(t, y, yp_work_, F1, p_); })) return false;
    if (!guard_->check_finite("F", t, F1)) return false;
    D.col(j) = (F1 - F0) / delta;
    yp_work_[j] = yp[j];
  }
  return true;
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

std::optional<Vector> ImplicitSystem::constant_diagonal_dF_dyp() const {
  if (!mass_form_) return std::nullopt;
  const MassOperator& M = mass_form_->mass();
  if (M.kind() == MassOperator::Kind::Structured) return std::nullopt;
  return M.diagonal();
}

}  // namespace daekit
