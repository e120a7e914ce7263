// Formulations of mechanical systems and semi-explicit DAEs as mass-matrix DAEs, their drift
// monitors, projections and consistent values (nonlinear/formulations.hpp).
#include "daekit/nonlinear/formulations.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <limits>
#include <memory>
#include <string>

#include "core/dense_spectra.hpp"
#include "core/format.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

namespace {

std::string fmt(double x) { return format_number(x, 4); }

}  // namespace

void constraint_jacobian(const MechanicalSystem& sys, double t, VecIn q, MatOut G, VecIn p) {
  if (sys.G) {
    sys.G(t, q, G, p);
    return;
  }
  // forward differences of g with the shared increment rule
  const int m = sys.nlambda;
  Vector qq(sys.nq), g0(m), g1(m);
  sys.g(t, q, g0, p);
  FiniteDifferenceJacobian::evaluate_dense(
      [&](const Vector& x, Vector& out) { sys.g(t, x, out, p); }, q, g0, nullptr, qq, g1, G);
}

void constraint_time_derivative(const MechanicalSystem& sys, double t, VecIn q, VecOut out,
                                VecIn p) {
  if (!sys.rheonomic) {
    out.setZero();
    return;
  }
  if (sys.g_t) {
    sys.g_t(t, q, out, p);
    return;
  }
  // central difference in t (the increment of the curvature's differences)
  const double e = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(t));
  Vector gm(sys.nlambda);
  sys.g(t + e, q, out, p);
  sys.g(t - e, q, gm, p);
  out = (out - gm) / (2 * e);
}

namespace {
// Rheonomic curvature: the derivative of s -> G(t + s, q + s v) v + g_t(t + s, q + s v) at
// s = 0, by a central difference, = g_qq(v, v) + 2 g_tq v + g_tt.
void rheonomic_curvature(const MechanicalSystem& sys, double t, VecIn q, VecIn v, VecOut out,
                         VecIn p) {
  const double e = std::cbrt(std::numeric_limits<double>::epsilon()) *
                   std::max({1.0, std::abs(t), q.cwiseAbs().maxCoeff()}) /
                   std::max(1.0, v.cwiseAbs().maxCoeff());
  const int m = sys.nlambda;
  Matrix G(m, sys.nq);
  Vector gt(m);
  const Vector qp = q + e * v, qm = q - e * v;
  constraint_jacobian(sys, t + e, qp, G, p);
  constraint_time_derivative(sys, t + e, qp, gt, p);
  out = G * v + gt;
  constraint_jacobian(sys, t - e, qm, G, p);
  constraint_time_derivative(sys, t - e, qm, gt, p);
  out -= G * v + gt;
  out /= 2 * e;
}
}  // namespace

void constraint_curvature(const MechanicalSystem& sys, double t, VecIn q, VecIn v, VecOut out,
                          VecIn p) {
  if (sys.curvature) {
    sys.curvature(t, q, v, out, p);
    return;
  }
  if (sys.rheonomic) {
    rheonomic_curvature(sys, t, q, v, out, p);
    return;
  }
  // central difference of q -> G(q) v along v: (G(q + e v) - G(q - e v)) v / (2 e)
  const double vn = v.cwiseAbs().maxCoeff();
  if (vn == 0.0) {
    out.setZero();
    return;
  }
  const double e = std::cbrt(std::numeric_limits<double>::epsilon()) *
                   std::max(1.0, q.cwiseAbs().maxCoeff()) / vn;
  Matrix Gp(sys.nlambda, sys.nq), Gm(sys.nlambda, sys.nq);
  const Vector qp = q + e * v, qm = q - e * v;
  constraint_jacobian(sys, t, qp, Gp, p);
  constraint_jacobian(sys, t, qm, Gm, p);
  out = (Gp - Gm) * v / (2 * e);
}

ConstraintResiduals constraint_residuals(const MechanicalSystem& sys, double t, VecIn q, VecIn v,
                                         VecIn vdot) {
  ConstraintResiduals r;
  if (sys.nlambda == 0) return r;
  Vector gv(sys.nlambda), c(sys.nlambda);
  Matrix Gm(sys.nlambda, sys.nq);
  sys.g(t, q, gv, sys.p);
  constraint_jacobian(sys, t, q, Gm, sys.p);
  constraint_curvature(sys, t, q, v, c, sys.p);
  r.position = gv.cwiseAbs().maxCoeff();
  constraint_time_derivative(sys, t, q, gv, sys.p);
  r.velocity = (Gm * v + gv).cwiseAbs().maxCoeff();
  r.acceleration = (Gm * vdot + c).cwiseAbs().maxCoeff();
  return r;
}

AccelerationAndMultipliers consistent_acceleration(const MechanicalSystem& sys, double t,
                                                   const Vector& q, const Vector& v) {
  sys.validate();
  const int nq = sys.nq, m = sys.nlambda;
  Matrix M(nq, nq), G(m, nq);
  sys.mass(t, q, M, sys.p);
  constraint_jacobian(sys, t, q, G, sys.p);
  // Rank of G row by row: name the first constraint that depends on the previous ones.
  for (int k = 1; k <= m; ++k) {
    Eigen::FullPivLU<Matrix> lu(G.topRows(k));
    lu.setThreshold(1e-10);
    if (lu.rank() < k)
      throw InvalidArgument("mechanical system '" + sys.name + "': constraint Jacobian G is rank " +
                            "deficient at t0: row " + std::to_string(k - 1) + " (constraint " +
                            std::to_string(k - 1) + ") depends on the previous rows");
  }
  Vector f(nq), c(m);
  sys.force(t, q, v, f, sys.p);
  constraint_curvature(sys, t, q, v, c, sys.p);
  Matrix K = Matrix::Zero(nq + m, nq + m);
  K.topLeftCorner(nq, nq) = M;
  K.topRightCorner(nq, m) = G.transpose();
  K.bottomLeftCorner(m, nq) = G;
  Vector rhs(nq + m);
  rhs << f, -c;
  Eigen::FullPivLU<Matrix> lu(K);
  if (!lu.isInvertible())
    throw InvalidArgument("mechanical system '" + sys.name +
                          "': the saddle-point matrix [M G^T; G 0] is singular at t0 (M singular "
                          "on the null space of G)");
  const Vector x = lu.solve(rhs);
  return {x.head(nq), x.tail(m)};
}

void check_consistent_positions(const MechanicalSystem& sys, double t, const Vector& q,
                                const Vector& v, double tol) {
  if (sys.nlambda == 0) return;
  Vector gv(sys.nlambda);
  Matrix G(sys.nlambda, sys.nq);
  sys.g(t, q, gv, sys.p);
  constraint_jacobian(sys, t, q, G, sys.p);
  Vector gt(sys.nlambda);
  constraint_time_derivative(sys, t, q, gt, sys.p);
  const Vector Gv = G * v + gt;
  for (int i = 0; i < sys.nlambda; ++i)
    if (!(std::abs(gv[i]) <= tol))
      throw InvalidArgument("mechanical system '" + sys.name + "': initial positions violate " +
                            "constraint " + std::to_string(i) + ": |g_" + std::to_string(i) +
                            "(q0)| = " + fmt(std::abs(gv[i])) + " > " + fmt(tol));
  for (int i = 0; i < sys.nlambda; ++i)
    if (!(std::abs(Gv[i]) <= tol))
      throw InvalidArgument("mechanical system '" + sys.name + "': initial velocities violate " +
                            "the velocity constraint " + std::to_string(i) +
                            ": |(G(q0) v0 + g_t)_" + std::to_string(i) +
                            "| = " + fmt(std::abs(Gv[i])) + " > " + fmt(tol));
}

ProjectionWorkspace::ProjectionWorkspace(int nq, int nlambda)
    : M(nq, nq),
      G(nlambda, nq),
      MinvGT(nq, nlambda),
      S(nlambda, nlambda),
      g(nlambda),
      mu(nlambda),
      dq(nq),
      llt(Matrix::Identity(nq, nq)),  // Eigen's LLT leaves its info field unset until
      lu(nlambda) {}                  // compute(): moving it before would read it (UBSan)

namespace {
// M(q), G(q), M^{-1} G^T and the LU of G M^{-1} G^T at q.
bool prepare_projection(const MechanicalSystem& sys, double t, VecIn q, ProjectionWorkspace& ws,
                        VecIn p) {
  sys.mass(t, q, ws.M, p);
  ws.llt.compute(ws.M);
  if (ws.llt.info() != Eigen::Success) return false;
  constraint_jacobian(sys, t, q, ws.G, p);
  ws.MinvGT = ws.G.transpose();
  ws.llt.solveInPlace(ws.MinvGT);
  ws.S.noalias() = ws.G * ws.MinvGT;
  ws.lu.compute(ws.S);
  return ws.S.allFinite();
}
}  // namespace

bool project_mechanical(const MechanicalSystem& sys, double t, VecOut q, VecOut v, Projection level,
                        ProjectionWorkspace& ws, VecIn p) {
  if (level == Projection::None || sys.nlambda == 0) return true;
  if (!prepare_projection(sys, t, q, ws, p)) return false;
  if (level == Projection::Full) {
    // simplified Newton (G, M frozen) to the round-off level: |dq| <= 4 eps max(1, |q|)
    const double eps = std::numeric_limits<double>::epsilon();
    NewtonMonitor newton(NewtonMonitor::without_rate(10));
    newton.begin(0.0);
    NewtonMonitor::Verdict v = NewtonMonitor::Verdict::Continue;
    while (v == NewtonMonitor::Verdict::Continue) {
      sys.g(t, q, ws.g, p);
      ws.mu = ws.lu.solve(ws.g);
      ws.dq.noalias() = ws.MinvGT * ws.mu;
      q -= ws.dq;
      newton.settings().tolerance = 4 * eps * std::max(1.0, q.cwiseAbs().maxCoeff());
      v = newton.next(ws.dq.cwiseAbs().maxCoeff());
    }
    if (v == NewtonMonitor::Verdict::NonFinite) return false;
    if (v != NewtonMonitor::Verdict::Converged) {
      sys.g(t, q, ws.g, p);  // accept a tiny remaining residual, reject anything else
      if (!(ws.g.cwiseAbs().maxCoeff() <= 1e-12)) return false;
    }
    if (!prepare_projection(sys, t, q, ws, p)) return false;
  }
  ws.g.noalias() = ws.G * v;
  if (sys.rheonomic) {  // G v + g_t = 0
    constraint_time_derivative(sys, t, q, ws.mu, p);
    ws.g += ws.mu;
  }
  ws.mu = ws.lu.solve(ws.g);
  v.noalias() -= ws.MinvGT * ws.mu;
  return v.allFinite() && q.allFinite();
}

namespace {

// Index tags (Hairer-Wanner II, VII.6) of the blocks per formulation.
struct Tags {
  int q, v, w, lambda, mu;
};
Tags tags_of(Formulation form) {
  switch (form) {
    case Formulation::Index3:
      return {1, 2, 3, 3, 0};
    case Formulation::Index2:
      return {1, 1, 2, 2, 0};
    case Formulation::Index1:
      return {1, 1, 1, 1, 0};
    case Formulation::GGL:
      return {1, 1, 2, 2, 2};
  }
  return {1, 1, 1, 1, 1};
}

// out += alpha G^T x (alpha = 1 or -1) for the m x nq constraint Jacobian G: per component i
// the terms G(j, i) x_j summed as Eigen's row-major matrix-vector kernel sums them with 2-wide
// packets (even and odd j apart from 0, then both sums, then an odd m's last term), so the
// result is the product's to the bit on the default (SSE2) build, without the kernel's
// dispatch, which cost 310 instructions per evaluation of truck-index3's f (m = 2, nq = 9).
// nq = 1 (Eigen takes a dot product there) and m = 0 go to Eigen.
template <class Out>
void add_transpose_product(const Matrix& G, const VecIn& x, double alpha, Out&& out) {
  const Eigen::Index m = G.rows(), nq = G.cols();
  if (nq == 1 || m == 0) {
    out.noalias() += alpha * (G.transpose() * x);
    return;
  }
  const double* xs = x.data();
  double* o = out.data();
  if (m == 2) {  // the common case (a hinge), unrolled
    for (Eigen::Index i = 0; i < nq; ++i) {
      const double* g = G.data() + 2 * i;
      o[i] += alpha * ((g[0] * xs[0] + 0.0) + (g[1] * xs[1] + 0.0));
    }
    return;
  }
  for (Eigen::Index i = 0; i < nq; ++i) {
    const double* g = G.data() + i * m;  // column i of G (column-major)
    double even = 0.0, odd = 0.0;
    Eigen::Index j = 0;
    for (; j + 2 <= m; j += 2) {
      even = g[j] * xs[j] + even;
      odd = g[j + 1] * xs[j + 1] + odd;
    }
    double sum = even + odd;
    for (; j < m; ++j) sum += g[j] * xs[j];
    o[i] += alpha * sum;
  }
}

#if defined(__SSE2__)
// Rows 2 p0 .. 2 (p0 + P) - 1 of out = G x, a pair of rows (adjacent in a column) per SSE2
// register, every pair's two sums in its two lanes over the columns in order.
template <int P>
void constraint_product_pairs(const double* g, Eigen::Index m, Eigen::Index nq, const double* xs,
                              Eigen::Index p0, double* out) {
  __m128d sum[P];
  for (int p = 0; p < P; ++p) sum[p] = _mm_setzero_pd();
  for (Eigen::Index j = 0; j < nq; ++j) {
    const __m128d b = _mm_set1_pd(xs[j]);
    const double* col = g + j * m + 2 * p0;
    for (int p = 0; p < P; ++p)
      sum[p] = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(col + 2 * p), b), sum[p]);
  }
  for (int p = 0; p < P; ++p)
    _mm_storeu_pd(out + 2 * (p0 + p), _mm_add_pd(sum[p], _mm_setzero_pd()));
}
#endif

// out = G x for the m x nq constraint Jacobian G: per row i the sum of G(i, j) x_j over j in
// order from +0, plus +0 (alpha = 1 times the sum added to a zeroed result), as Eigen's
// column-major matrix-vector kernel sums it (rows in pairs, each in its own lane, all columns
// in one block below 128), so the result is the product's to the bit, without the kernel's
// dispatch and code (the drift monitor's two products per step were its only use in a
// truck-index3 solve). m = 1 (Eigen takes a dot product there), nq >= 128 and out other than
// a plain vector go to Eigen.
template <class In>
void constraint_product(const Matrix& G, const In& x, Vector& out) {
  const Eigen::Index m = G.rows(), nq = G.cols();
  if (m == 1 || nq >= 128) {
    out.noalias() = G * x;
    return;
  }
  const double* g = G.data();
  const double* xs = x.data();
  double* o = out.data();
  Eigen::Index i = 0;
#if defined(__SSE2__)
  for (Eigen::Index p0 = 0; 2 * p0 + 1 < m;) {  // up to four pairs of rows per pass
    const Eigen::Index pairs = std::min<Eigen::Index>(4, (m - 2 * p0) / 2);
    switch (pairs) {
      case 4:
        constraint_product_pairs<4>(g, m, nq, xs, p0, o);
        break;
      case 3:
        constraint_product_pairs<3>(g, m, nq, xs, p0, o);
        break;
      case 2:
        constraint_product_pairs<2>(g, m, nq, xs, p0, o);
        break;
      default:
        constraint_product_pairs<1>(g, m, nq, xs, p0, o);
        break;
    }
    p0 += pairs;
    i = 2 * p0;
  }
#endif
  for (; i < m; ++i) {
    double sum = 0.0;
    for (Eigen::Index j = 0; j < nq; ++j) sum += g[j * m + i] * xs[j];
    o[i] = sum + 0.0;
  }
}

// Scratch storage of the right-hand side of a formulation (owned by value by its closure),
// sized for what the form uses. G(q), g(q) and M(q) of the last evaluation are kept with their
// arguments (t, q, p), and the forces f(t, q, v) with v as well: an evaluation at the same
// arguments, to the bit, uses them instead of calling the model again (a difference
// Jacobian's columns for v and lambda, half of truck-index3's, move no q; its columns for
// lambda, after the first, move neither q nor v).
struct RhsWorkspace {
  Matrix M, G;
  Vector f, g, gt, tmp, tmp2;
  Vector at_q, at_v, at_p;  // the arguments of G, g, M (and of f: with at_v) above
  double at_t = 0.0;
  bool at_valid = false;    // false until an evaluation completed (or after one threw)
  bool force_held = false;  // f = force(at_t, at_q, at_v, at_p)
  RhsWorkspace(const MechanicalSystem& sys, const MechanicalLayout& L, Formulation form)
      : G(L.m, L.nq), f(L.nq), g(L.m), at_q(L.nq), at_v(L.nq), at_p(sys.p.size()) {
    if (L.w >= 0 || sys.terms) M.resize(L.nq, L.nq);
    if (sys.rheonomic) gt.resize(L.m);
    if (form == Formulation::Index1 && L.w < 0) tmp.resize(L.nq), tmp2.resize(L.nq);
  }

  static bool same_bits(const double* a, const double* b, Eigen::Index n) {
    return n == 0 || std::memcmp(a, b, static_cast<size_t>(n) * sizeof(double)) == 0;
  }
  static void copy_bits(const double* from, double* to, Eigen::Index n) {
    if (n > 0) std::memcpy(to, from, static_cast<size_t>(n) * sizeof(double));
  }
  // The position terms were evaluated at (t, q, p) (bitwise: -0 and 0 differ, NaN never
  // matches a different NaN payload, and no arithmetic comparison is involved).
  bool holds_position_terms(double t, const VecIn& q, const VecIn& p) const {
    return at_valid && same_bits(&t, &at_t, 1) && p.size() == at_p.size() &&
           same_bits(q.data(), at_q.data(), q.size()) && same_bits(p.data(), at_p.data(), p.size());
  }
  // The forces were evaluated at (t, q, v, p), the position terms' arguments and v.
  bool holds_force(const VecIn& v) const {
    return force_held && same_bits(v.data(), at_v.data(), v.size());
  }
  // Records (t, q, p) for the position terms just evaluated (p of another size: not kept,
  // which would allocate).
  void hold_position_terms(double t, const VecIn& q, const VecIn& p) {
    if (p.size() != at_p.size()) return;
    at_t = t;
    copy_bits(q.data(), at_q.data(), q.size());
    copy_bits(p.data(), at_p.data(), p.size());
    at_valid = true;
  }
};

// M is diagonal (every other entry zero) with finite non-zero diagonal entries. Then the
// partial-pivoting LU of M is M itself (no interchanges, zero multipliers) and its solve of M x
// = b for a finite b gives x_i = b_i / M_ii but for the signs of zeros (b_i - 0 x_j with b_i =
// -0 can give +0): |x_i| is the quotient's to the bit, which is what the drift monitor's
// residual |G x + c| uses.
bool is_regular_diagonal(const Matrix& M) {
  for (Eigen::Index j = 0; j < M.cols(); ++j)
    for (Eigen::Index i = 0; i < M.rows(); ++i)
      if (i == j ? !(std::isfinite(M(i, j)) && M(i, j) != 0.0) : M(i, j) != 0.0) return false;
  return true;
}

// The drift monitor's storage.
struct MonitorWorkspace {
  Matrix G;
  Vector f, vdot, g, c, Gx;
  MonitorWorkspace(int nq, int m) : G(m, nq), f(nq), vdot(nq), g(m), c(m), Gx(m) {}
};

// The right-hand side of a formulation (MassMatrixDae::f), with the model's copy, its scratch
// storage and the kept position terms and forces (RhsWorkspace).
struct MechanicalRhs {
  unsigned long origin;  // the formulate() call that made it (its drift monitor's)
  MechanicalSystem sys;
  RhsWorkspace ws;
  std::shared_ptr<const Eigen::PartialPivLU<Matrix>> Minv;  // constant mass only (immutable)
  MechanicalLayout L;
  Formulation form;

  // The forms whose right-hand side evaluates the position constraint g (index 3, GGL).
  bool evaluates_g() const { return form == Formulation::Index3 || form == Formulation::GGL; }

  void operator()(double t, const VecIn& y, VecOut out, const VecIn& p) {
    const int nq = L.nq, m = L.m;
    // views made once: a callback's VecIn built from a segment at each call cost a Ref (and
    // its destructor's free of the unused fallback copy) per argument and call
    const VecIn q(y.segment(L.q, nq)), v(y.segment(L.v, nq)), lambda(y.segment(L.lambda, m));
    const bool need_g = evaluates_g();
    if (sys.terms) {  // evaluated at every call; its arguments kept for the drift monitor
      ws.at_valid = ws.force_held = false;
      sys.terms(t, q, v, ws.M, ws.f, ws.g, ws.G, p);
      ws.hold_position_terms(t, q, p);
      ws.copy_bits(v.data(), ws.at_v.data(), nq);
      ws.force_held = ws.at_valid;
    } else {
      const bool same_position = ws.holds_position_terms(t, q, p);
      const bool same_force =
          same_position && ws.force_held && ws.same_bits(v.data(), ws.at_v.data(), nq);
      if (!same_force) {
        ws.force_held = false;  // stays false if a callback throws
        sys.force(t, q, v, ws.f, p);
      }
      if (!same_position) {
        ws.at_valid = false;
        constraint_jacobian(sys, t, q, ws.G, p);
        if (L.w >= 0) sys.mass(t, q, ws.M, p);
        if (need_g) sys.g(t, q, ws.g, p);
        ws.hold_position_terms(t, q, p);
      }
      if (!same_force) {
        ws.copy_bits(v.data(), ws.at_v.data(), nq);
        ws.force_held = ws.at_valid;
      }
    }
    // kinematics q' = v  (GGL: q' = v - G^T mu)
    out.segment(L.q, nq) = v;
    if (form == Formulation::GGL)
      add_transpose_product(ws.G, y.segment(L.mu, m), -1.0, out.segment(L.q, nq));
    // dynamics
    if (L.w < 0) {  // M v' = f - G^T lambda
      out.segment(L.v, nq) = ws.f;
      add_transpose_product(ws.G, lambda, -1.0, out.segment(L.v, nq));
    } else {  // v' = w,  0 = M(q) w - f + G^T lambda
      auto w = y.segment(L.w, nq);
      out.segment(L.v, nq) = w;
      out.segment(L.w, nq).noalias() = ws.M * w;
      out.segment(L.w, nq) -= ws.f;
      add_transpose_product(ws.G, lambda, 1.0, out.segment(L.w, nq));
    }
    // constraints
    auto c = out.segment(L.lambda, m);
    switch (form) {
      case Formulation::Index3:
      case Formulation::GGL:
        c = ws.g;
        break;
      case Formulation::Index2:
        c.noalias() = ws.G * v;
        if (sys.rheonomic) {  // G v + g_t
          constraint_time_derivative(sys, t, q, ws.gt, p);
          c += ws.gt;
        }
        break;
      case Formulation::Index1:
        constraint_curvature(sys, t, q, v, ws.g, p);
        if (L.w >= 0) {
          c.noalias() = ws.G * y.segment(L.w, nq);
        } else {  // v' = M^{-1} (f - G^T lambda)
          ws.tmp = ws.f;
          add_transpose_product(ws.G, lambda, -1.0, ws.tmp);
          ws.tmp2 = Minv->solve(ws.tmp);  // not in place: that would allocate
          c.noalias() = ws.G * ws.tmp2;
        }
        c += ws.g;
        break;
    }
    if (form == Formulation::GGL) {
      out.segment(L.mu, m).noalias() = ws.G * v;
      if (sys.rheonomic) {
        constraint_time_derivative(sys, t, q, ws.gt, p);
        out.segment(L.mu, m) += ws.gt;
      }
    }
  }
};

// A drift monitor's link to the right-hand side of the same copy of the problem
// (link_drift_monitor): unset in every copy of the monitor, which then evaluates everything
// itself (copies of a problem are independent objects, e.g. on other threads).
struct RhsLink {
  const RhsWorkspace* ws = nullptr;
  bool holds_g = false;  // the right-hand side evaluates g (index-3 and GGL forms)
  RhsLink() = default;
  RhsLink(const RhsLink&) {}
  RhsLink& operator=(const RhsLink&) {
    ws = nullptr;
    holds_g = false;
    return *this;
  }
};

// The drift monitor of a formulation (MassMatrixDae::constraint_monitor): |g|, |G v + g_t| and
// |G v' + curvature| at a point. Linked to its right-hand side, it copies G(q), g(q) and the
// forces f(t, q, v) of f's last evaluation when that was at the same (t, q, v, p) to the bit
// (after an accepted step the method has just evaluated f there): the same numbers without
// calling the model again. (Copies into its own storage, out of line, not references to f's:
// with two sources for G and g, GCC compiled the monitor about 30 instructions longer per call
// where it is not linked; arranged otherwise, it outlined Eigen's Ref constructor in f.)
struct DriftMonitor {
  unsigned long origin;  // the formulate() call that made it (its right-hand side's)
  MechanicalSystem sys;
  std::shared_ptr<const Eigen::PartialPivLU<Matrix>> Minv;
  std::shared_ptr<const Vector> Mdiag;  // M's diagonal if M is constant and diagonal
  MechanicalLayout L;
  MonitorWorkspace w;
  RhsLink rhs;

  ConstraintResiduals operator()(double t, const VecIn& y, const VecIn& p) {
    const int nq = L.nq, m = L.m;
    const VecIn q(y.segment(L.q, nq)), v(y.segment(L.v, nq));
    ConstraintResiduals r;
    if (m == 0) return r;
    const unsigned held = rhs.ws ? from_rhs(t, q, v, p) : 0;
    if (!(held & kHeldG)) constraint_jacobian(sys, t, q, w.G, p);
    if (L.w >= 0) {
      w.vdot = y.segment(L.w, nq);
    } else {
      if (!(held & kHeldForce)) sys.force(t, q, v, w.f, p);
      add_transpose_product(w.G, y.segment(L.lambda, m), -1.0, w.f);
      if (Mdiag && w.f.allFinite())  // |vdot_i| as the LU's solve gives it, without the solve
        w.vdot = w.f.cwiseQuotient(*Mdiag);
      else
        w.vdot = Minv->solve(w.f);
    }
    if (!(held & kHeldConstraint)) sys.g(t, q, w.g, p);
    constraint_curvature(sys, t, q, v, w.c, p);
    r.position = w.g.cwiseAbs().maxCoeff();
    constraint_product(w.G, v, w.Gx);
    if (sys.rheonomic) {
      constraint_time_derivative(sys, t, q, w.g, p);
      w.Gx += w.g;
    }
    r.velocity = w.Gx.cwiseAbs().maxCoeff();
    constraint_product(w.G, w.vdot, w.Gx);
    w.Gx += w.c;
    r.acceleration = w.Gx.cwiseAbs().maxCoeff();
    return r;
  }

 private:
  static constexpr unsigned kHeldG = 1, kHeldForce = 2, kHeldConstraint = 4;
  // Copies what the linked right-hand side holds at (t, q, v, p) into w: G (and g where f
  // evaluates it) at the same (t, q, p), the forces at the same v too; which, as kHeld* bits.
  [[gnu::noinline]] unsigned from_rhs(double t, const VecIn& q, const VecIn& v, const VecIn& p) {
    const RhsWorkspace& ws = *rhs.ws;
    if (!ws.holds_position_terms(t, q, p)) return 0;
    RhsWorkspace::copy_bits(ws.G.data(), w.G.data(), w.G.size());
    unsigned held = kHeldG;
    if (L.w < 0 && ws.holds_force(v)) {
      RhsWorkspace::copy_bits(ws.f.data(), w.f.data(), L.nq);
      held |= kHeldForce;
    }
    if (rhs.holds_g) {
      RhsWorkspace::copy_bits(ws.g.data(), w.g.data(), L.m);
      held |= kHeldConstraint;
    }
    return held;
  }
};
}  // namespace

MassMatrixDae formulate(const MechanicalSystem& sys, Formulation form) {
  sys.validate();
  const MechanicalLayout L = mechanical_layout(sys, form);
  const int nq = L.nq, m = L.m;
  MassMatrixDae dae;
  dae.name = sys.name + " (" + to_string(form) + ")";
  dae.n = L.n;
  dae.p = sys.p;
  dae.mass = Matrix::Zero(L.n, L.n);
  dae.mass.block(L.q, L.q, nq, nq).setIdentity();
  std::shared_ptr<const Eigen::PartialPivLU<Matrix>> Minv;  // constant mass only (immutable)
  std::shared_ptr<const Vector> Mdiag;  // and its diagonal if M is diagonal (immutable)
  if (sys.constant_mass) {
    Matrix Mc(nq, nq);
    sys.mass(0.0, Vector::Zero(nq), Mc, sys.p);
    dae.mass.block(L.v, L.v, nq, nq) = Mc;
    Minv = std::make_shared<const Eigen::PartialPivLU<Matrix>>(Mc);
    if (is_regular_diagonal(Mc)) Mdiag = std::make_shared<const Vector>(Mc.diagonal());
  } else {
    dae.mass.block(L.v, L.v, nq, nq).setIdentity();
  }
  // q' = v exactly (all forms but GGL), and v' = w with a general mass: RADAU5's M1/M2, so
  // the dense solvers eliminate q (and v) from the iteration matrices
  if (form != Formulation::GGL && L.q == 0 && L.v == nq) {
    const bool chain_w = L.w == 2 * nq;
    dae.second_order = {chain_w ? 2 * nq : nq, nq};
  }
  const Tags tg = tags_of(form);
  dae.index.assign(L.n, 1);
  auto tag = [&](int start, int count, int value) {
    for (int i = start; i < start + count; ++i) dae.index[i] = value;
  };
  tag(L.q, nq, tg.q);
  tag(L.v, nq, tg.v);
  if (L.w >= 0) tag(L.w, nq, tg.w);
  tag(L.lambda, m, tg.lambda);
  if (L.mu >= 0) tag(L.mu, m, tg.mu);

  // y and p by reference (as Callback passes them): a Ref<const> taken by value is a copy whose
  // destructor frees its (empty) fallback storage, twice per call
  // the closures' copies of the model without its name and p (they take p as an argument and
  // name nothing): copying the problem copies three closures, a string less each
  MechanicalSystem model = sys;
  model.name.clear();
  model.p = Vector();
  static std::atomic<unsigned long> formulations{0};
  const unsigned long origin = ++formulations;
  dae.f = MechanicalRhs{origin, model, RhsWorkspace(sys, L, form), Minv, L, form};
  // drift monitor d1, d2, d3 after every accepted step: preallocated (the step loop allocates
  // nothing when g, G and the curvature are analytic)
  dae.constraint_monitor = DriftMonitor{origin, model, Minv, Mdiag, L, MonitorWorkspace(nq, m), {}};
  dae.project = [sys = model, L, ws = ProjectionWorkspace(nq, m)](
                    double t, VecOut y, Projection level, VecIn p) mutable {
    return project_mechanical(sys, t, y.segment(L.q, L.nq), y.segment(L.v, L.nq), level, ws, p);
  };
  return dae;
}

void link_drift_monitor(MassMatrixDae& dae) {
  auto* rhs = dae.f.target<MechanicalRhs>();
  auto* monitor = dae.constraint_monitor.target<DriftMonitor>();
  if (!rhs || !monitor || rhs->origin != monitor->origin) return;
  monitor->rhs.ws = &rhs->ws;
  monitor->rhs.holds_g = rhs->evaluates_g();
}

Vector initial_values(const MechanicalSystem& sys, Formulation form, double t0, const Vector& q0,
                      const Vector& v0, bool project_velocities) {
  sys.validate();
  if (q0.size() != sys.nq || v0.size() != sys.nq)
    throw InvalidArgument("mechanical system '" + sys.name +
                          "': q0 and v0 must have size nq = " + std::to_string(sys.nq));
  Vector v = v0;
  if (project_velocities && sys.nlambda > 0) {
    ProjectionWorkspace ws(sys.nq, sys.nlambda);
    Vector q = q0;
    if (!project_mechanical(sys, t0, q, v, Projection::Velocity, ws, sys.p))
      throw InvalidArgument("mechanical system '" + sys.name +
                            "': projecting v0 onto G(q0) v = 0 failed");
  }
  const AccelerationAndMultipliers a = consistent_acceleration(sys, t0, q0, v);
  const MechanicalLayout L = mechanical_layout(sys, form);
  Vector y = Vector::Zero(L.n);
  y.segment(L.q, sys.nq) = q0;
  y.segment(L.v, sys.nq) = v;
  if (L.w >= 0) y.segment(L.w, sys.nq) = a.w;
  y.segment(L.lambda, sys.nlambda) = a.lambda;
  return y;  // GGL: mu = 0 on the exact solution
}

MassMatrixDae index3_form(const MechanicalSystem& sys) {
  return formulate(sys, Formulation::Index3);
}

Vector index3_initial_values(const MechanicalSystem& sys, double t0, const Vector& q0,
                             const Vector& v0) {
  return initial_values(sys, Formulation::Index3, t0, q0, v0);
}

// ---------------------------------------------------------------------------------------------
// Semi-explicit DAEs

bool project_index2(const SemiExplicitDae& dae, double t, VecOut x, VecIn p) {
  const int ny = dae.ny, nz = dae.nz;
  const Vector y_tilde = x.head(ny);
  const Vector z = x.tail(nz);
  Vector y = y_tilde, gamma = Vector::Zero(nz), f0(ny), f1(ny), g0(nz), g1(nz), yw(ny), zw(nz);
  Matrix B(ny, nz), G(nz, ny);
  const double eps = std::numeric_limits<double>::epsilon();
  for (int outer = 0; outer < 2; ++outer) {
    // B = f_z(y, z) at the current (projected) point, by forward differences
    dae.f(t, y, z, f0, p);
    FiniteDifferenceJacobian::evaluate_dense(
        [&](const Vector& zz, Vector& out) { dae.f(t, y, zz, out, p); }, z, f0, nullptr, zw, f1, B);
    // simplified Newton on g(y~ + B gamma) = 0 with G = g_y frozen at the start
    dae.g(t, y, z, g0, p);
    FiniteDifferenceJacobian::evaluate_dense(
        [&](const Vector& yy, Vector& out) { dae.g(t, yy, z, out, p); }, y, g0, nullptr, yw, g1, G);
    Eigen::PartialPivLU<Matrix> lu(G * B);
    NewtonMonitor newton(NewtonMonitor::without_rate(20));  // |B dgamma| <= 4 eps max(1, |y|)
    newton.begin(0.0);
    NewtonMonitor::Verdict v = NewtonMonitor::Verdict::Continue;
    while (v == NewtonMonitor::Verdict::Continue) {
      y = y_tilde + B * gamma;
      dae.g(t, y, z, g0, p);
      const Vector dgamma = lu.solve(g0);
      gamma -= dgamma;
      newton.settings().tolerance = 4 * eps * std::max(1.0, y.cwiseAbs().maxCoeff());
      v = newton.next((B * dgamma).cwiseAbs().maxCoeff());
    }
    if (v == NewtonMonitor::Verdict::NonFinite) return false;
    y = y_tilde + B * gamma;
    dae.g(t, y, z, g0, p);
    if (v != NewtonMonitor::Verdict::Converged && !(g0.cwiseAbs().maxCoeff() <= 1e-12))
      return false;
  }
  x.head(ny) = y;
  return true;
}

namespace {
// Storage of the stabilised constraint (owned by value by its closure: copies of the problem
// on other threads have their own).
struct StabilizedWorkspace {
  Vector fy, ys, gs;
  StabilizedWorkspace(int ny, int nz) : fy(ny), ys(ny), gs(nz) {}
};
}  // namespace

SemiExplicitDae stabilized_index1_form(const SemiExplicitDae& dae, double beta) {
  dae.validate();
  if (dae.algebraic_index != 2)
    throw InvalidArgument("stabilized_index1_form: '" + dae.name +
                          "' is not an index-2 system (algebraic_index = " +
                          std::to_string(dae.algebraic_index) + ")");
  if (!(beta >= 0) || !std::isfinite(beta))
    throw InvalidArgument("stabilized_index1_form: beta must be finite and >= 0, got " +
                          std::to_string(beta));
  SemiExplicitDae s = dae;
  s.name = dae.name + " (stabilised index 1, (4.10))";
  s.algebraic_index = 1;
  auto f = dae.f;
  auto g = dae.g;
  s.g = [f, g, beta, ws = StabilizedWorkspace(dae.ny, dae.nz)](
            double t, const VecIn& y, const VecIn& z, VecOut out, const VecIn& p) mutable {
    // d/ds g(t + s, y + s f) at s = 0 = g_t + g_y f, by (8 (D(d) - D(-d)) - (D(2d) - D(-2d)))/12d
    f(t, y, z, ws.fy, p);
    const double scale = std::max({1.0, std::abs(t), y.cwiseAbs().maxCoeff()});
    const double d = std::pow(std::numeric_limits<double>::epsilon(), 0.2) * scale /
                     std::max(1.0, ws.fy.cwiseAbs().maxCoeff());
    g(t, y, z, out, p);
    out *= beta;
    for (int m = 1; m <= 2; ++m)
      for (int sign : {+1, -1}) {
        const double step = sign * m * d;
        ws.ys = y;
        ws.ys += step * ws.fy;
        g(t + step, ws.ys, z, ws.gs, p);
        out += (sign * (m == 1 ? 8.0 : -1.0) / (12.0 * d)) * ws.gs;
      }
  };
  return s;
}

MassMatrixDae to_mass_matrix_form(const SemiExplicitDae& dae) {
  dae.validate();
  MassMatrixDae m;
  const int ny = dae.ny, nz = dae.nz;
  m.n = ny + nz;
  m.name = dae.name;
  m.p = dae.p;
  m.mass = Matrix::Zero(m.n, m.n);
  m.mass.topLeftCorner(ny, ny).setIdentity();
  m.index.assign(m.n, 1);
  for (int i = ny; i < m.n; ++i) m.index[i] = dae.algebraic_index;
  auto f = dae.f;
  auto g = dae.g;
  m.f = [f, g, ny, nz](double t, const VecIn& x, VecOut out, const VecIn& p) {
    if (ny > 0) f(t, x.head(ny), x.tail(nz), out.head(ny), p);
    if (nz > 0) g(t, x.head(ny), x.tail(nz), out.tail(nz), p);
  };
  if (dae.algebraic_index == 2 && nz > 0 && ny > 0) {
    m.project = [dae](double t, VecOut x, Projection, VecIn p) {
      return project_index2(dae, t, x, p);
    };
  }
  return m;
}

}  // namespace daekit
