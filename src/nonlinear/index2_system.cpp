// Index2System (nonlinear/index2_system.hpp): evaluations, Jacobians and checks of the index-2
// DAEs (a(t, y))' = f(t, y, z), 0 = g(t, y) of paper 002.
#include "nonlinear/index2_system.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dense_spectra.hpp"
#include "core/format.hpp"
#include "nonlinear/consistency.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
const char* const kPartNames[Index2System::kParts] = {"f_1", "f_2", "f_3", "f_4", "f_5"};
const char* const kPartYNames[Index2System::kParts] = {"f_y[0]", "f_y[1]", "f_y[2]", "f_y[3]",
                                                       "f_y[4]"};
const char* const kPartZNames[Index2System::kParts] = {"f_z[0]", "f_z[1]", "f_z[2]", "f_z[3]",
                                                       "f_z[4]"};

std::string fmt(double x) { return format_number(x, 3); }

// The increment in t for differences of a(t, y) and g(t, y) in t.
double time_increment(double t) { return std::sqrt(kEps) * std::max(1.0, std::abs(t)); }

const ImplicitIndex2Dae& validated(const ImplicitIndex2Dae& dae) {
  dae.validate();
  return dae;
}

}  // namespace

Index2System::Index2System(const ImplicitIndex2Dae& dae, CallGuard& guard, Stats& stats)
    : n_(validated(dae).n),
      m_(dae.m),
      name_(dae.name),
      parts_(dae.parts()),
      a_kind_(dae.hessenberg() ? AKind::Identity : AKind::Nonlinear),
      dae_(dae),
      p_(dae.p),
      p_ref_(p_),
      guard_(&guard),
      stats_(&stats),
      fd_a_(dae.n, dae.n, Sparsity::dense()),
      fd_f_(dae.n, dae.n + dae.m, Sparsity::dense()),
      fd_fz_(dae.n, dae.m, Sparsity::dense()),
      fd_g_(dae.m, dae.n, Sparsity::dense()) {
  for (int i = 0; i < n_; ++i) y_pos_.push_back(i);
  for (int i = 0; i < m_; ++i) z_pos_.push_back(n_ + i);
  x_work_.setZero(size());
  F_work_.setZero(size());
  y_work_.setZero(n_);
  z_work_.setZero(m_);
  out_work_.setZero(size());
  t_work_.setZero(std::max(n_, m_));
  allocate_work();
}

void Index2System::allocate_work() {
  monitor_y_.setZero(n_);
  monitor_z_.setZero(m_);
  monitor_g_.setZero(m_);
  jac_x_.setZero(size());
  jac_f0_.setZero(n_);
  jac_g0_.setZero(m_);
  jac_F_.setZero(n_, size());
  diff_a0_.setZero(n_);
  diff_K_.setZero(n_, m_);
}

Index2System::Index2System(const MassMatrixDae& dae, int part, CallGuard& guard, Stats& stats)
    : name_(dae.name), p_ref_(p_), guard_(&guard), stats_(&stats) {
  dae.validate();
  mass_.emplace(dae, LinearSolverKind::Dense, guard, stats);
  setup_mass_form(dae, part);
}

void Index2System::setup_mass_form(const MassMatrixDae& dae, int part) {
  const std::string who = "problem '" + dae.name + "': ";
  if (part < 1 || part >= kParts)
    throw InvalidArgument(who +
                          "the part of f of a mass-matrix DAE must be 2..5 (it depends on z)");
  g_rows_ = dae.algebraic_rows();
  z_pos_ = dae.algebraic_columns();
  m_ = static_cast<int>(g_rows_.size());
  n_ = dae.n - m_;
  if (m_ == 0 || static_cast<int>(z_pos_.size()) != m_)
    throw InvalidArgument(
        who +
        "not an index-2 DAE in Hessenberg form: M needs as many zero rows (constraints "
        "0 = g(t, y)) as zero columns (multipliers z), and at least one (it has " +
        std::to_string(g_rows_.size()) + " zero rows and " + std::to_string(z_pos_.size()) +
        " zero columns)");
  std::vector<char> is_g(static_cast<size_t>(dae.n), 0), is_z(static_cast<size_t>(dae.n), 0);
  for (int r : g_rows_) is_g[static_cast<size_t>(r)] = 1;
  for (int c : z_pos_) is_z[static_cast<size_t>(c)] = 1;
  for (int i = 0; i < dae.n; ++i) {
    if (!is_g[static_cast<size_t>(i)]) f_rows_.push_back(i);
    if (!is_z[static_cast<size_t>(i)]) y_pos_.push_back(i);
  }
  const Matrix M = dae.dense_mass();
  a_matrix_.resize(n_, n_);
  for (int i = 0; i < n_; ++i)
    for (int j = 0; j < n_; ++j) a_matrix_(i, j) = M(f_rows_[i], y_pos_[j]);
  Eigen::FullPivLU<Matrix> lu(a_matrix_);
  if (!lu.isInvertible())
    throw InvalidArgument(who +
                          "the mass matrix restricted to the differential rows and columns "
                          "is singular: not a Hessenberg index-2 form");
  a_kind_ = a_matrix_.isIdentity(0.0) ? AKind::Identity : AKind::Constant;
  mass_part_ = part;
  parts_ = {part};
  x_work_.setZero(dae.n);
  F_work_.setZero(dae.n);
  mass_->allocate_jacobian(J_work_);
  y_work_.setZero(n_);
  z_work_.setZero(m_);
  out_work_.setZero(dae.n);
  t_work_.setZero(std::max(n_, m_));
  allocate_work();
}

void Index2System::split(const Vector& x, Vector& y, Vector& z) const {
  y.resize(n_);
  z.resize(m_);
  for (int i = 0; i < n_; ++i) y[i] = x[y_pos_[i]];
  for (int i = 0; i < m_; ++i) z[i] = x[z_pos_[i]];
}

void Index2System::join(const Vector& y, const Vector& z, Vector& x) const {
  x.resize(size());
  for (int i = 0; i < n_; ++i) x[y_pos_[i]] = y[i];
  for (int i = 0; i < m_; ++i) x[z_pos_[i]] = z[i];
}

bool Index2System::a(double t, const Vector& y, Vector& out) {
  out.resize(n_);
  switch (a_kind_) {
    case AKind::Identity:
      out = y;
      return true;
    case AKind::Constant:
      out.noalias() = a_matrix_ * y;
      return true;
    case AKind::Nonlinear:
      if (!(*guard_)("a", t, [&] { dae_->a(t, y, out, p_ref_); })) return false;
      return guard_->check_finite("a", t, out);
  }
  return false;
}

bool Index2System::a_t(double t, const Vector& y, Vector& out) {
  out.setZero(n_);
  if (a_kind_ != AKind::Nonlinear) return true;
  const double dt = time_increment(t);
  Vector a0(n_), a1(n_);
  if (!a(t, y, a0) || !a(t + dt, y, a1)) return false;
  out = (a1 - a0) / dt;
  return true;
}

bool Index2System::part(int k, double t, const Vector& y, const Vector& z, VecOut out) {
  if (!(*guard_)(kPartNames[k], t, [&] { dae_->f[static_cast<size_t>(k)](t, y, z, out, p_ref_); }))
    return false;
  return guard_->check_finite(kPartNames[k], t, out);
}

bool Index2System::parts_and_g(double t, const Vector& y, const Vector& z, Matrix& F, Vector& g) {
  F.resize(n_, kParts);
  g.resize(m_);
  if (mass_) {
    join(y, z, x_work_);
    if (!mass_->f(t, x_work_, F_work_)) return false;
    for (int i = 0; i < n_; ++i) F(i, mass_part_) = F_work_[f_rows_[i]];
    for (int i = 0; i < m_; ++i) g[i] = F_work_[g_rows_[i]];
    return true;
  }
  ++stats_->nfev;
  for (int k : parts_)
    if (!part(k, t, y, z, F.col(k))) return false;
  if (!(*guard_)("g", t, [&] { dae_->g(t, y, g, p_ref_); })) return false;
  return guard_->check_finite("g", t, g);
}

bool Index2System::f(double t, const Vector& y, const Vector& z, Vector& out) {
  out.setZero(n_);
  if (mass_) {
    join(y, z, x_work_);
    if (!mass_->f(t, x_work_, F_work_)) return false;
    for (int i = 0; i < n_; ++i) out[i] = F_work_[f_rows_[i]];
    return true;
  }
  ++stats_->nfev;
  for (int k : parts_) {
    if (!part(k, t, y, z, out_work_.head(n_))) return false;
    out += out_work_.head(n_);
  }
  return true;
}

bool Index2System::g(double t, const Vector& y, const Vector& z, Vector& out) {
  out.resize(m_);
  if (mass_) {
    join(y, z, x_work_);
    if (!mass_->f(t, x_work_, F_work_)) return false;
    for (int i = 0; i < m_; ++i) out[i] = F_work_[g_rows_[i]];
    return true;
  }
  if (!(*guard_)("g", t, [&] { dae_->g(t, y, out, p_ref_); })) return false;
  return guard_->check_finite("g", t, out);
}

bool Index2System::jacobians(double t, const Vector& y, const Vector& z, Jacobians& J) {
  ++stats_->njac;
  J.a_y.setZero(n_, n_);
  J.g_y.setZero(m_, n_);
  for (int k = 0; k < kParts; ++k) {
    J.f_y[static_cast<size_t>(k)].setZero(n_, n_);
    J.f_z[static_cast<size_t>(k)].setZero(n_, m_);
  }
  if (a_kind_ == AKind::Identity) J.a_y.setIdentity();
  if (a_kind_ == AKind::Constant) J.a_y = a_matrix_;
  return mass_ ? mass_jacobian(t, y, z, J) : form_jacobians(t, y, z, J);
}

bool Index2System::mass_jacobian(double t, const Vector& y, const Vector& z, Jacobians& J) {
  --stats_->njac;  // counted by the MassMatrixSystem
  join(y, z, x_work_);
  if (!mass_->f(t, x_work_, F_work_)) return false;
  if (!mass_->jacobian(t, x_work_, F_work_, J_work_)) return false;
  const StructuredMatrix<double>& D = J_work_;
  Matrix& Jy = J.f_y[static_cast<size_t>(mass_part_)];
  Matrix& Jz = J.f_z[static_cast<size_t>(mass_part_)];
  for (int i = 0; i < n_; ++i) {
    for (int j = 0; j < n_; ++j) Jy(i, j) = D.at(f_rows_[i], y_pos_[j]);
    for (int j = 0; j < m_; ++j) Jz(i, j) = D.at(f_rows_[i], z_pos_[j]);
  }
  for (int i = 0; i < m_; ++i)
    for (int j = 0; j < n_; ++j) J.g_y(i, j) = D.at(g_rows_[i], y_pos_[j]);
  return true;
}

// The analytic callbacks where given, else forward differences of the maps y -> a(t, y),
// (y, z) -> f_k(t, y, z) and y -> g(t, y).
bool Index2System::form_jacobians(double t, const Vector& y, const Vector& z, Jacobians& J) {
  const ImplicitIndex2Dae& d = *dae_;
  auto difference = [&](FiniteDifferenceJacobian& fd, auto&& map, const Vector& x, Vector& G0,
                        MatOut D) {
    if (!map(x, G0)) return false;
    return fd.evaluate(
               [&](const Vector& xx, Vector& out) {
                 ++stats_->nfev_jac;
                 return map(xx, out);
               },
               x, G0, nullptr, D) >= 0;
  };
  auto analytic = [&](const char* what, auto&& call, Matrix& out) {
    if (!(*guard_)(what, t, call)) return false;
    if (!all_finite(out.data(), out.size())) {
      guard_->non_finite(what, t, 0);
      return false;
    }
    return true;
  };
  if (a_kind_ == AKind::Nonlinear) {
    if (d.a_y) {
      if (!analytic(
              "a_y", [&] { d.a_y(t, y, J.a_y, p_ref_); }, J.a_y))
        return false;
    } else {
      auto map = [&](const Vector& yy, Vector& out) {
        if (!(*guard_)("a", t, [&] { d.a(t, yy, out, p_ref_); })) return false;
        return guard_->check_finite("a", t, out);
      };
      if (!difference(fd_a_, map, y, diff_a0_, J.a_y)) return false;
    }
  }
  for (int k : parts_) {
    const size_t kk = static_cast<size_t>(k);
    const bool have_y = static_cast<bool>(d.f_y[kk]);
    const bool have_z = k == 0 || static_cast<bool>(d.f_z[kk]);
    if (have_y && !analytic(
                      kPartYNames[k], [&] { d.f_y[kk](t, y, z, J.f_y[kk], p_ref_); }, J.f_y[kk]))
      return false;
    if (k != 0 && have_z &&
        !analytic(
            kPartZNames[k], [&] { d.f_z[kk](t, y, z, J.f_z[kk], p_ref_); }, J.f_z[kk]))
      return false;
    if (have_y && have_z) continue;
    auto map = [&](const Vector& xx, Vector& out) {
      y_work_ = xx.head(n_);
      z_work_ = xx.tail(m_);
      return part(k, t, y_work_, z_work_, out);
    };
    Vector& x = jac_x_;
    x << y, z;
    if (!difference(fd_f_, map, x, jac_f0_, jac_F_)) return false;
    if (!have_y) J.f_y[kk] = jac_F_.leftCols(n_);
    if (!have_z) J.f_z[kk] = jac_F_.rightCols(m_);
  }
  if (d.g_y)
    return analytic(
        "g_y", [&] { d.g_y(t, y, J.g_y, p_ref_); }, J.g_y);
  auto map = [&](const Vector& yy, Vector& out) {
    if (!(*guard_)("g", t, [&] { d.g(t, yy, out, p_ref_); })) return false;
    return guard_->check_finite("g", t, out);
  };
  return difference(fd_g_, map, y, jac_g0_, J.g_y);
}

bool Index2System::constraint_jacobians(double t, const Vector& y, const Vector& z, Matrix& g_y,
                                        Matrix& f_z) {
  g_y.setZero(m_, n_);
  f_z.setZero(n_, m_);
  if (mass_) {
    Jacobians& J = constraint_jac_;
    if (!jacobians(t, y, z, J)) return false;
    g_y = J.g_y;
    f_z = J.f_z[static_cast<size_t>(mass_part_)];
    return true;
  }
  ++stats_->njac;
  const ImplicitIndex2Dae& d = *dae_;
  if (d.g_y) {
    if (!(*guard_)("g_y", t, [&] { d.g_y(t, y, g_y, p_ref_); })) return false;
    if (!all_finite(g_y.data(), g_y.size())) {
      guard_->non_finite("g_y", t, 0);
      return false;
    }
  } else {
    Vector& g0 = jac_g0_;
    if (!g(t, y, z, g0)) return false;
    if (fd_g_.evaluate([&](const Vector& yy, Vector& out) { return g(t, yy, z, out); }, y, g0,
                       nullptr, g_y) < 0)
      return false;
  }
  Matrix& K = diff_K_;
  for (int k : parts_) {
    if (k == 0) continue;
    const size_t kk = static_cast<size_t>(k);
    if (d.f_z[kk]) {
      K.setZero();
      if (!(*guard_)(kPartZNames[k], t, [&] { d.f_z[kk](t, y, z, K, p_ref_); })) return false;
      if (!all_finite(K.data(), K.size())) {
        guard_->non_finite(kPartZNames[k], t, 0);
        return false;
      }
      f_z += K;
      continue;
    }
    Vector& f0 = jac_f0_;
    if (!part(k, t, y, z, f0)) return false;
    const int evaluations = fd_fz_.evaluate(
        [&](const Vector& zz, Vector& out) {
          ++stats_->nfev_jac;
          return part(k, t, y, zz, out);
        },
        z, f0, nullptr, K);
    if (evaluations < 0) return false;
    f_z += K;
  }
  return true;
}

bool Index2System::hidden_constraint(double t, const Vector& y, const Vector& z, Vector& residual,
                                     Matrix* S, double* scale) {
  Jacobians J;
  Vector fy(n_), at(n_), g0(m_), g1(m_);
  if (!jacobians(t, y, z, J) || !f(t, y, z, fy) || !a_t(t, y, at)) return false;
  const double dt = time_increment(t);
  if (!g(t, y, z, g0) || !g(t + dt, y, z, g1)) return false;
  Eigen::FullPivLU<Matrix> lu(J.a_y);
  const Matrix GA = J.g_y * lu.inverse();  // g_y a_y^{-1} (small problems: called at t0 only)
  const Vector gt = (g1 - g0) / dt;
  residual = GA * (fy - at) + gt;
  // size of the terms: the differences (Jacobians, g_t) are accurate to ~sqrt(eps) of it
  if (scale) *scale = (GA.cwiseAbs() * (fy - at).cwiseAbs()).maxCoeff() + gt.cwiseAbs().maxCoeff();
  if (S) {
    Matrix fz = Matrix::Zero(n_, m_);
    for (int k : parts_) fz += J.f_z[static_cast<size_t>(k)];
    *S = GA * fz;
  }
  return true;
}

std::string Index2System::check_consistency(double t, const Vector& x, double tol) {
  Vector y, z, gv, r;
  split(x, y, z);
  if (!g(t, y, z, gv)) return "";  // the guard holds the failure
  Eigen::Index i = 0;
  if (gv.size() && gv.cwiseAbs().maxCoeff(&i) > tol)
    return "the constraint 0 = g(t0, y0) is violated: |g_" + std::to_string(i) +
           "| = " + fmt(std::abs(gv[i])) + " > " + fmt(tol);
  double scale = 0.0;
  if (!hidden_constraint(t, y, z, r, nullptr, &scale)) return "";
  // the residual is known to the accuracy of the differences only (1e-7 of its terms)
  if (r.cwiseAbs().maxCoeff(&i) > std::max(tol, 1e-7 * scale))
    return "the hidden constraint 0 = g_y a_y^{-1} (f - a_t) + g_t (Jay (2003) (2.1b)) is violated "
           "in component " +
           std::to_string(i) + " by " + fmt(std::abs(r[i])) + " > " + fmt(tol) +
           ": z0 is not consistent with y0 (consistent_algebraic() computes it)";
  return "";
}

std::string Index2System::check_index(double t, const Vector& x) {
  Vector y, z, r;
  split(x, y, z);
  Jacobians J;
  if (!jacobians(t, y, z, J)) return "";
  if (a_kind_ == AKind::Nonlinear && !Eigen::FullPivLU<Matrix>(J.a_y).isInvertible())
    return "a_y is singular at t0 = " + fmt(t) + ": (a(t, y))' = f does not determine y'";
  if (mass_) {
    // the constraints must not depend on z (else the algebraic equations are of index 1)
    join(y, z, x_work_);
    if (!mass_->f(t, x_work_, F_work_) || !mass_->jacobian(t, x_work_, F_work_, J_work_)) return "";
    const Matrix D = J_work_.to_dense();
    double gz = 0.0, scale = 1.0;
    for (int i = 0; i < m_; ++i) {
      for (int j = 0; j < m_; ++j) gz = std::max(gz, std::abs(D(g_rows_[i], z_pos_[j])));
      for (int j = 0; j < n_; ++j) scale = std::max(scale, std::abs(D(g_rows_[i], y_pos_[j])));
    }
    if (gz > 1e-6 * scale)
      return "the algebraic equations depend on the algebraic variables (|dg/dz| = " + fmt(gz) +
             "): not the index-2 form 0 = g(t, y) these methods solve (use radau5 or bdf)";
  } else if (parts_.front() == 0 && !dae_->f_y[0]) {
    // (2.4b): f_1 must not depend on z; its differenced z-columns show it
    auto map = [&](const Vector& xx, Vector& out) {
      y_work_ = xx.head(n_);
      z_work_ = xx.tail(m_);
      return part(0, t, y_work_, z_work_, out);
    };
    Vector xx(size()), G0(n_);
    xx << y, z;
    Matrix D(n_, size());
    if (!map(xx, G0) || fd_f_.evaluate(map, xx, G0, nullptr, D) < 0) return "";
    const double dz = D.rightCols(m_).cwiseAbs().maxCoeff();
    if (dz > 1e-6 * std::max(1.0, D.leftCols(n_).cwiseAbs().maxCoeff()))
      return "f_1 depends on z (|d f_1/dz| = " + fmt(dz) +
             "), which Jay (2003) (2.4b) excludes: move those terms to f_2 .. f_5";
  }
  Matrix S;
  if (!hidden_constraint(t, y, z, r, &S, nullptr)) return "";
  Eigen::FullPivLU<Matrix> lu(S);
  lu.setThreshold(1e-10);
  if (lu.rank() < m_)
    return "g_y a_y^{-1} f_z (" + std::to_string(m_) + " x " + std::to_string(m_) +
           ") is singular at t0 = " + fmt(t) + " (rank " + std::to_string(lu.rank()) +
           "): the DAE is not of index 2 there (Jay (2003) (1.1) assumes it invertible)";
  return "";
}

bool Index2System::consistent_z(double t, const Vector& y, Vector& z, std::string& message) {
  Vector r;
  Matrix S;
  // Newton (S anew at every iterate) to |dz| <= 1e-12 (1 + |z|)
  NewtonMonitor newton(NewtonMonitor::without_rate(20));
  newton.begin(0.0);
  for (;;) {
    if (!hidden_constraint(t, y, z, r, &S, nullptr)) {
      message = "a callback failed: " + guard_->failure().describe();
      return false;
    }
    Eigen::FullPivLU<Matrix> lu(S);
    if (!lu.isInvertible()) {
      message = "g_y a_y^{-1} f_z is singular at t = " + fmt(t);
      return false;
    }
    const Vector dz = lu.solve(r);
    z -= dz;
    if (!z.allFinite()) break;
    newton.settings().tolerance = 1e-12 * (1.0 + z.cwiseAbs().maxCoeff());
    const NewtonMonitor::Verdict v = newton.next(dz.cwiseAbs().maxCoeff());
    if (v == NewtonMonitor::Verdict::Converged) return true;
    if (v != NewtonMonitor::Verdict::Continue) break;
  }
  message = "Newton on the hidden constraint (2.1b) for z did not converge at t = " + fmt(t);
  return false;
}

bool Index2System::consistent_state(double t, Vector& y, Vector& z, std::string& message) {
  Vector gv;
  Jacobians J;
  // Newton (Jacobians anew at every iterate) on the residual, |g| <= 1e-14 (1 + |y|), at most
  // ten iterations; z follows from the hidden constraint
  NewtonMonitor newton(NewtonMonitor::without_rate(10));
  newton.begin(0.0);
  for (NewtonMonitor::Verdict v = NewtonMonitor::Verdict::Continue;
       v == NewtonMonitor::Verdict::Continue;) {
    if (!g(t, y, z, gv) || !jacobians(t, y, z, J)) {
      message = "a callback failed: " + guard_->failure().describe();
      return false;
    }
    newton.settings().tolerance = 1e-14 * (1.0 + y.cwiseAbs().maxCoeff());
    v = newton.next(gv.cwiseAbs().maxCoeff());
    if (v == NewtonMonitor::Verdict::Converged) break;
    Matrix fz = Matrix::Zero(n_, m_);
    for (int k : parts_) fz += J.f_z[static_cast<size_t>(k)];
    const Matrix D = Eigen::FullPivLU<Matrix>(J.a_y).solve(fz);  // a_y^{-1} f_z
    Eigen::FullPivLU<Matrix> lu(J.g_y * D);
    if (!lu.isInvertible()) {
      message = "g_y a_y^{-1} f_z is singular at t = " + fmt(t);
      return false;
    }
    y -= D * lu.solve(gv);
    if (!y.allFinite()) {
      message = "the projection onto g = 0 failed at t = " + fmt(t);
      return false;
    }
  }
  return consistent_z(t, y, z, message);
}

bool Index2System::monitor(double t, const Vector& x, ConstraintResiduals& out) {
  split(x, monitor_y_, monitor_z_);
  if (!g(t, monitor_y_, monitor_z_, monitor_g_)) return false;
  out = ConstraintResiduals{};
  out.position = monitor_g_.size() ? monitor_g_.cwiseAbs().maxCoeff() : 0.0;
  return true;
}

bool Index2System::has_analytic_jacobians() const {
  if (mass_)
    return static_cast<bool>(mass_->dae().jacobian) ||
           static_cast<bool>(mass_->dae().sparse_jacobian);
  if (dae_->a_y || dae_->g_y) return true;
  for (int k = 0; k < kParts; ++k)
    if (dae_->f_y[static_cast<size_t>(k)] || dae_->f_z[static_cast<size_t>(k)]) return true;
  return false;
}

JacobianCheck Index2System::check_jacobian(double t, const Vector& x) {
  if (mass_) return daekit::check_jacobian(*mass_, t, x);
  JacobianCheck c;
  if (!has_analytic_jacobians()) return c;
  const Stats saved = *stats_;
  Vector y, z;
  split(x, y, z);
  Jacobians A;
  if (!jacobians(t, y, z, A)) {
    *stats_ = saved;
    c.ok = false;
    c.message = guard_->failure().describe();
    c.callback_error = guard_->fatal();
    return c;
  }
  // central differences of every map in (y, z), compared with the analytic blocks
  const int N = size();
  Vector xx(N);
  xx << y, z;
  auto compare = [&](const Matrix& analytic, int row0, auto&& map, int cols, int col0) {
    // the central differences of map in (y, z)'s columns col0 .. col0 + cols - 1
    Vector moved = xx;
    Matrix D;
    const bool ran = FiniteDifferenceJacobian::central(
        [&](const Vector& v, Vector& out) {
          moved.segment(col0, cols) = v;
          return map(moved, out);
        },
        static_cast<int>(analytic.rows()), xx.segment(col0, cols), 1.0, D);
    if (!ran) return false;
    for (int j = 0; j < cols; ++j) {
      for (int i = 0; i < analytic.rows(); ++i) {
        const double d = D(i, j);
        const double a = analytic(i, j);
        if (std::abs(a - d) > 1e-5 * (std::abs(a) + std::abs(d)) + 1e-7 * (1.0 + std::abs(d))) {
          c.ok = false;
          ++c.disagreeing;
          if (c.entries.size() < 20) c.entries.push_back({row0 + i, col0 + j, a, d});
        }
      }
    }
    return true;
  };
  const ImplicitIndex2Dae& d = *dae_;
  bool ok = true;
  if (d.a_y)
    ok = ok && compare(
                   A.a_y, 0,
                   [&](const Vector& v, Vector& out) {
                     y_work_ = v.head(n_);
                     return a(t, y_work_, out);
                   },
                   n_, 0);
  for (int k : parts_) {
    const size_t kk = static_cast<size_t>(k);
    auto map = [&](const Vector& v, Vector& out) {
      y_work_ = v.head(n_);
      z_work_ = v.tail(m_);
      out.resize(n_);
      return part(k, t, y_work_, z_work_, out);
    };
    if (d.f_y[kk]) ok = ok && compare(A.f_y[kk], 0, map, n_, 0);
    if (d.f_z[kk]) ok = ok && compare(A.f_z[kk], 0, map, m_, n_);
  }
  if (d.g_y)
    ok = ok && compare(
                   A.g_y, 0,
                   [&](const Vector& v, Vector& out) {
                     y_work_ = v.head(n_);
                     return g(t, y_work_, z_work_, out);
                   },
                   n_, 0);
  *stats_ = saved;
  if (!ok) {
    c.ok = false;
    c.message = guard_->failure().describe();
    c.callback_error = guard_->fatal();
  }
  return c;
}

}  // namespace daekit
