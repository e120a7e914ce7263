#include "nonlinear/euler_lagrange_system.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dense_spectra.hpp"
#include "core/format.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

namespace {

std::string fmt(double x) { return format_number(x, 4); }

// x = S^{-1} r from the full-pivoting LU of S of full rank: the steps of Eigen's
// FullPivLU::solve (P S Q = L U: c = P r, L U c' = c, x = Q c') in storage of the caller, so that
// nothing is allocated (the library's solve allocates its intermediate c).
void solve_full_rank(const Eigen::FullPivLU<Matrix>& lu, const Vector& r, Vector& c, Vector& x) {
  c = lu.permutationP() * r;
  lu.matrixLU().triangularView<Eigen::UnitLower>().solveInPlace(c);
  lu.matrixLU().triangularView<Eigen::Upper>().solveInPlace(c);
  const auto& q = lu.permutationQ().indices();
  for (Eigen::Index i = 0; i < c.size(); ++i) x[q[i]] = c[i];
}

std::vector<int> complement(const std::vector<int>& v, int n) {
  std::vector<int> out;
  std::vector<char> in(static_cast<size_t>(n), 0);
  for (int i : v) in[static_cast<size_t>(i)] = 1;
  for (int i = 0; i < n; ++i)
    if (!in[static_cast<size_t>(i)]) out.push_back(i);
  return out;
}

}  // namespace

EulerLagrangeSystem::EulerLagrangeSystem(MassMatrixSystem& sys) : sys_(&sys), n_(sys.n()) {
  const MassOperator& M = sys.mass();
  arows_ = M.zero_rows();
  lcols_ = M.zero_columns();
  if (arows_.size() != lcols_.size())
    throw InvalidArgument("problem '" + sys.dae().name + "': M has " +
                          std::to_string(arows_.size()) + " zero rows but " +
                          std::to_string(lcols_.size()) +
                          " zero columns; an Euler-Lagrange DAE has one constraint (zero row) per "
                          "multiplier (zero column)");
  m_ = static_cast<int>(arows_.size());
  nx_ = n_ - m_;
  drows_ = complement(arows_, n_);
  xcols_ = complement(lcols_, n_);
  const Matrix Md = M.to_dense();
  MD_.resize(nx_, n_);
  for (int i = 0; i < nx_; ++i) MD_.row(i) = Md.row(drows_[static_cast<size_t>(i)]);
  Matrix Mxx(nx_, nx_);
  for (int j = 0; j < nx_; ++j) Mxx.col(j) = MD_.col(xcols_[static_cast<size_t>(j)]);
  Eigen::FullPivLU<Matrix> check(Mxx);
  if (nx_ > 0 && !check.isInvertible())
    throw InvalidArgument("problem '" + sys.dae().name +
                          "': the mass matrix restricted to the differential rows and columns is "
                          "singular; an Euler-Lagrange DAE needs M = diag(M_xx, 0), M_xx "
                          "nonsingular");
  Mxx_lu_.compute(Mxx);
  work_.setZero(n_);
  work2_.setZero(n_);
  fy_.setZero(n_);
  xp_.setZero(nx_);
  ytmp_.setZero(n_);
  sys.allocate_jacobian(J_);
  Bt_.setZero(nx_, m_);
  G_.setZero(m_, nx_);
  MinvBt_.setZero(nx_, m_);
  S_.setZero(m_, m_);
  S_lu_ = Eigen::FullPivLU<Matrix>(m_, m_);
  for (Vector* v : {&l_, &r_, &dl_, &lu_work_, &mu_}) v->setZero(m_);
  rhs_x_.setZero(nx_);
  for (Vector& g : g_steps_) g.setZero(m_);
}

Vector EulerLagrangeSystem::lambda(const Vector& y) const {
  Vector l(m_);
  lambda(y, l);
  return l;
}

void EulerLagrangeSystem::lambda(const Eigen::Ref<const Vector>& y, Vector& out) const {
  for (int j = 0; j < m_; ++j) out[j] = y[lcols_[static_cast<size_t>(j)]];
}

void EulerLagrangeSystem::set_lambda(Vector& y, const Vector& l) const {
  for (int j = 0; j < m_; ++j) y[lcols_[static_cast<size_t>(j)]] = l[j];
}

bool EulerLagrangeSystem::f_with(double t, const Vector& y, const Vector& mu, Vector& out) {
  ytmp_ = y;
  set_lambda(ytmp_, mu);
  return sys_->f(t, ytmp_, out);
}

std::string EulerLagrangeSystem::check_structure(double t, const Vector& y) {
  if (m_ == 0) return {};
  const Vector l0 = lambda(y);
  Vector d(m_);
  for (int j = 0; j < m_; ++j) d[j] = 1e-2 * (1.0 + std::abs(l0[j])) * (j % 2 ? -0.7 : 1.0);
  Vector F0(n_), F1(n_), F2(n_);
  auto failed = [&] { return "F failed: " + sys_->guard().failure().describe(); };
  if (!f_with(t, y, l0, F0) || !f_with(t, y, l0 + d, F1) || !f_with(t, y, l0 + 2.0 * d, F2))
    return failed();
  const double scale = std::max(
      {F0.cwiseAbs().maxCoeff(), F1.cwiseAbs().maxCoeff(), F2.cwiseAbs().maxCoeff(), 1e-300});
  for (int i : arows_)
    if (std::abs(F1[i] - F0[i]) > 1e-12 * scale)
      return "constraint equation " + std::to_string(i) +
             " (a zero row of M) depends on the multipliers (the zero columns of M): "
             "not an index-2 Euler-Lagrange problem (0 = g(t, x) must not contain lambda)";
  for (int i : drows_)
    if (std::abs(F2[i] - 2.0 * F1[i] + F0[i]) > 1e-9 * scale)
      return "equation " + std::to_string(i) +
             " is not affine in the multipliers: not of Euler-Lagrange form "
             "M x' = f(t, x) - B(t, x)^T lambda";
  return {};
}

bool EulerLagrangeSystem::multiplier_directions(double t, const Vector& y, Matrix& Bt) {
  Bt.resize(nx_, m_);
  Vector& mu = mu_;
  mu.setZero();
  if (!f_with(t, y, mu, work_)) return false;
  for (int j = 0; j < m_; ++j) {
    mu.setZero();
    mu[j] = 1.0;
    if (!f_with(t, y, mu, work2_)) return false;
    for (int i = 0; i < nx_; ++i) {
      const int r = drows_[static_cast<size_t>(i)];
      Bt(i, j) = work_[r] - work2_[r];
    }
  }
  return true;
}

bool EulerLagrangeSystem::constraint_jacobian(double t, const Vector& y, Matrix& G) {
  if (!sys_->f(t, y, fy_)) return false;
  if (!sys_->jacobian(t, y, fy_, J_)) return false;
  G.resize(m_, nx_);
  for (int a = 0; a < m_; ++a)
    for (int j = 0; j < nx_; ++j)
      G(a, j) = J_.at(arows_[static_cast<size_t>(a)], xcols_[static_cast<size_t>(j)]);
  return true;
}

void EulerLagrangeSystem::velocity(const Vector& Fy, Vector& xp) {
  for (int i = 0; i < nx_; ++i) rhs_x_[i] = Fy[drows_[static_cast<size_t>(i)]];
  xp = Mxx_lu_.solve(rhs_x_);
}

bool EulerLagrangeSystem::hidden_constraint(double t, const Vector& y, Vector& r) {
  r.setZero(m_);
  if (m_ == 0) return true;
  if (!sys_->f(t, y, fy_)) return false;
  velocity(fy_, xp_);
  double xnorm = 0.0;
  for (int j = 0; j < nx_; ++j)
    xnorm = std::max(xnorm, std::abs(y[xcols_[static_cast<size_t>(j)]]));
  const double vnorm = xp_.cwiseAbs().maxCoeff();
  // fourth-order central difference along (1, x'): e^4 |g^(5)| + eps |g| / e balanced at
  // e ~ eps^(1/5) in the units of t and of |x| / |x'|
  double e = std::max(1.0, std::abs(t));
  if (vnorm > 0.0) e = std::min(e, std::max(1.0, xnorm) / vnorm);
  e *= 7e-4;
  std::array<Vector, 4>& g = g_steps_;
  const double steps[4] = {e, -e, 2 * e, -2 * e};
  for (int s = 0; s < 4; ++s) {
    ytmp_ = y;
    for (int j = 0; j < nx_; ++j) ytmp_[xcols_[static_cast<size_t>(j)]] += steps[s] * xp_[j];
    if (!sys_->f(t + steps[s], ytmp_, work_)) return false;
    for (int a = 0; a < m_; ++a) g[s][a] = work_[arows_[static_cast<size_t>(a)]];
  }
  r = (8.0 * (g[0] - g[1]) - (g[2] - g[3])) / (12.0 * e);
  return true;
}

bool EulerLagrangeSystem::make_multipliers_consistent(double t, Vector& y, std::string& message) {
  if (m_ == 0) return true;
  auto failed = [&](const char* what) {
    message = std::string(what) + ": " + sys_->guard().failure().describe();
    return false;
  };
  if (!multiplier_directions(t, y, Bt_)) return failed("F failed");
  if (!constraint_jacobian(t, y, G_)) return failed("the Jacobian failed");
  MinvBt_ = Mxx_lu_.solve(Bt_);
  S_.noalias() = G_ * MinvBt_;
  Eigen::FullPivLU<Matrix>& lu = S_lu_;
  lu.setThreshold(1e-11);
  lu.compute(S_);
  if (lu.rank() < m_) {
    message =
        "G B^T (G G^T in the form x' = f - G^T lambda of Arevalo, Fuhrer and Soderlind (1996)) is "
        "singular at t = " +
        fmt(t) + " (rank " + std::to_string(lu.rank()) + " < " + std::to_string(m_) +
        "): the problem is not of index 2 there; the multipliers are not determined";
    return false;
  }
  Vector &l = l_, &r = r_, &dl = dl_;
  lambda(y, l);
  // simplified Newton (S frozen) to the round-off level |dl| <= 1e-14 (1 + |l|); six iterations
  // refine enough when the hidden constraint is affine in the multipliers (they are kept)
  NewtonMonitor newton(NewtonMonitor::without_rate(6));
  newton.begin(0.0);
  for (;;) {
    if (!hidden_constraint(t, y, r)) return failed("F failed");
    solve_full_rank(lu, r, lu_work_, dl);
    l += dl;
    set_lambda(y, l);
    if (!l.allFinite()) {
      message = "the consistent multipliers are not finite at t = " + fmt(t);
      return false;
    }
    newton.settings().tolerance = 1e-14 * (1.0 + l.cwiseAbs().maxCoeff());
    if (newton.next(dl.cwiseAbs().maxCoeff()) != NewtonMonitor::Verdict::Continue) return true;
  }
}

}  // namespace daekit
