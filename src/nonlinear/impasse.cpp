#include "daekit/nonlinear/impasse.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "core/dense_spectra.hpp"
#include "nonlinear/finite_difference.hpp"
#include "nonlinear/newton.hpp"

namespace daekit {

namespace {

// Dg2(x): the user's Jacobian or forward differences with the shared increment rule.
void algebraic_jacobian(const SplitQuasiLinearDae& dae, VecIn x, Matrix& G) {
  const int m = dae.n - dae.r;
  G.setZero(m, dae.n);
  if (dae.dg2) {
    dae.dg2(x, G);
    return;
  }
  Vector g0(m), g1(m), xx(dae.n);
  dae.g2(x, g0);
  FiniteDifferenceJacobian::evaluate_dense([&](const Vector& v, Vector& out) { dae.g2(v, out); }, x,
                                           g0, nullptr, xx, g1, G);
}

Matrix leading_matrix(const SplitQuasiLinearDae& dae, VecIn x) {
  Matrix A = Matrix::Zero(dae.r, dae.n);
  dae.a1(x, A);
  return A;
}

Vector differential_rhs(const SplitQuasiLinearDae& dae, VecIn x) {
  Vector g(dae.r);
  dae.g1(x, g);
  return g;
}

// The local chart of Fig. 7.2 centred at x_c: QR (7.24) of Dg2(x_c)^T, U_c = Q2, and the chord
// Newton iteration Eval_phi with R and Q1 frozen.
class Chart {
 public:
  Chart(const SplitQuasiLinearDae& dae, const Vector& xc, const SingDaeOptions& o)
      : dae_(dae), xc_(xc), o_(o) {
    const int m = dae.n - dae.r;
    Matrix G;
    algebraic_jacobian(dae, xc, G);
    Eigen::HouseholderQR<Matrix> qr(G.transpose());
    const Matrix Q = qr.householderQ() * Matrix::Identity(dae.n, dae.n);
    Q1_ = Q.leftCols(m);
    Uc_ = Q.rightCols(dae.r);
    R_ = qr.matrixQR().topRows(m).triangularView<Eigen::Upper>();
  }

  // Eval_phi: x = x_c + U_c y, then x <- x - Q1 z with R^T z = g2(x). False if it fails.
  bool phi(const Vector& y, Vector& x) const {
    const int m = dae_.n - dae_.r;
    x = xc_ + Uc_ * y;
    Vector g(m);
    const double limit = o_.chart_tol * (1.0 + x.cwiseAbs().maxCoeff());
    // the residual |g2|_max tested before each of at most chart_iterations iterations and after
    // the last
    NewtonMonitor newton(NewtonMonitor::without_rate(o_.chart_iterations + 1, limit));
    newton.begin(0.0);
    for (;;) {
      dae_.g2(x, g);
      const NewtonMonitor::Verdict v = newton.next(
          g.allFinite() ? g.cwiseAbs().maxCoeff() : std::numeric_limits<double>::quiet_NaN());
      if (v == NewtonMonitor::Verdict::Converged) return true;
      if (v != NewtonMonitor::Verdict::Continue) return false;
      const Vector z = R_.transpose().triangularView<Eigen::Lower>().solve(g);
      x -= Q1_ * z;
    }
  }

  // D phi(y) at x = phi(y): (I - Q1 (Dg2 Q1)^{-1} Dg2) U_c, the matrix of (7.11).
  Matrix dphi(const Vector& x) const {
    Matrix G;
    algebraic_jacobian(dae_, x, G);
    const Matrix GQ1 = G * Q1_;
    return Uc_ - Q1_ * GQ1.partialPivLu().solve(G * Uc_);
  }

  // B(y) = A1(phi(y)) D phi(y), h(y) = g1(phi(y)) of (7.5)-(7.7).
  void projected_ode(const Vector& x, Matrix& B, Vector& h) const {
    B = leading_matrix(dae_, x) * dphi(x);
    h = differential_rhs(dae_, x);
  }

  int r() const { return dae_.r; }

 private:
  const SplitQuasiLinearDae& dae_;
  Vector xc_;
  const SingDaeOptions& o_;
  Matrix Q1_, Uc_, R_;
};

// The augmentation of (7.9)/(7.12)-(7.17) with the SVD vectors of (B_c, -h_c) at the centre.
class Augmentation {
 public:
  Augmentation(const Chart& chart, const Matrix& Bc, const Vector& hc) : r_(chart.r()) {
    Matrix Bh(r_, r_ + 1);
    Bh << Bc, -hc;
    Eigen::JacobiSVD<Matrix> svd(Bh, Eigen::ComputeFullU | Eigen::ComputeFullV);
    n1_ = svd.matrixV().col(r_);      // (u1, omega1): V_R e_{r+1}   (7.14)
    n2_ = svd.matrixV().col(r_ - 1);  // (u2, omega2): V_R e_r
    e_ = svd.matrixU().col(r_ - 1);   // e* = V_L e_r                 (7.15)
  }

  // (v, gamma) at a point with projected ODE (B, h): the bordered system (7.12) [FIX rows].
  bool field(const Matrix& B, const Vector& h, Vector& v, double& gamma) const {
    const int k = r_ + 2;
    Matrix K = Matrix::Zero(k, k);
    K.topLeftCorner(r_, r_) = B;
    K.block(0, r_, r_, 1) = -h;
    K.block(0, r_ + 1, r_, 1) = e_;
    K.block(r_, 0, 1, r_ + 1) = n1_.transpose();
    K.block(r_ + 1, 0, 1, r_ + 1) = n2_.transpose();
    Matrix rhs = Matrix::Zero(k, 2);
    rhs(r_, 0) = 1;
    rhs(r_ + 1, 1) = 1;
    Eigen::FullPivLU<Matrix> lu(K);
    if (!lu.isInvertible()) return false;
    const Matrix sol = lu.solve(rhs);
    const double z1 = sol(r_ + 1, 0), z2 = sol(r_ + 1, 1);
    v = z2 * sol.col(0).head(r_) - z1 * sol.col(1).head(r_);  // (7.16)
    gamma = z2 * sol(r_, 0) - z1 * sol(r_, 1);                // (7.17)
    return true;
  }

 private:
  int r_;
  Vector n1_, n2_, e_;
};

// One Eval_v: the unit tangent (dy/ds, dt/ds) in chart coordinates, oriented along `reference`
// (a tangent (dx/ds, dt/ds) in x), and its image dx/ds.
struct Tangent {
  Vector dy, dx;
  double dt = 0.0;
};

bool eval_v(const Chart& chart, const Augmentation& aug, const Vector& y, const Vector& ref_dx,
            double ref_dt, Tangent& out) {
  Vector x;
  if (!chart.phi(y, x)) return false;
  Matrix B;
  Vector h, v;
  chart.projected_ode(x, B, h);
  double gamma = 0;
  if (!aug.field(B, h, v, gamma)) return false;
  Vector dx = chart.dphi(x) * v;
  double scale = std::sqrt(dx.squaredNorm() + gamma * gamma);
  if (!(scale > 0) || !std::isfinite(scale)) return false;
  if (dx.dot(ref_dx) + gamma * ref_dt < 0) scale = -scale;
  out.dy = v / scale;
  out.dx = dx / scale;
  out.dt = gamma / scale;
  return true;
}

// One classical RK4 step of length ds on (7.22) in the chart: (y, t) from (0, t0).
bool rk4_step(const Chart& chart, const Augmentation& aug, const Tangent& start, double t0,
              double ds, Vector& x1, double& t1) {
  const int r = chart.r();
  Tangent k2, k3, k4;
  const Vector y0 = Vector::Zero(r);
  if (!eval_v(chart, aug, y0 + 0.5 * ds * start.dy, start.dx, start.dt, k2)) return false;
  if (!eval_v(chart, aug, y0 + 0.5 * ds * k2.dy, start.dx, start.dt, k3)) return false;
  if (!eval_v(chart, aug, y0 + ds * k3.dy, start.dx, start.dt, k4)) return false;
  const Vector y1 = ds / 6 * (start.dy + 2 * k2.dy + 2 * k3.dy + k4.dy);
  t1 = t0 + ds / 6 * (start.dt + 2 * k2.dt + 2 * k3.dt + k4.dt);
  return chart.phi(y1, x1);
}

// The tangent at the centre of a chart at x (with its augmentation), oriented along ref.
struct Centre {
  std::unique_ptr<Chart> chart;
  std::unique_ptr<Augmentation> aug;
  Tangent tangent;
};

bool centre_at(const SplitQuasiLinearDae& dae, const Vector& x, const SingDaeOptions& o,
               const Vector& ref_dx, double ref_dt, Centre& c) {
  c.chart = std::make_unique<Chart>(dae, x, o);
  Matrix Bc;
  Vector hc;
  c.chart->projected_ode(x, Bc, hc);
  c.aug = std::make_unique<Augmentation>(*c.chart, Bc, hc);
  return eval_v(*c.chart, *c.aug, Vector::Zero(dae.r), ref_dx, ref_dt, c.tangent);
}

}  // namespace

void SplitQuasiLinearDae::validate() const {
  if (n < 2) throw InvalidArgument("quasi-linear DAE: n must be >= 2, got " + std::to_string(n));
  if (r < 1 || r >= n)
    throw InvalidArgument("quasi-linear DAE: the rank r must be in [1, n - 1] = [1, " +
                          std::to_string(n - 1) + "], got " + std::to_string(r));
  if (!a1 || !g1 || !g2) throw InvalidArgument("quasi-linear DAE: A1, g1 and g2 are all required");
}

void SingDaeOptions::validate() const {
  if (!(ds > 0) || !(arc_length > 0) || !(chart_tol > 0) || chart_iterations < 1 ||
      !(gamma_tol > 0) || !(gamma_tol < 1))
    throw InvalidArgument(
        "SingDAE options: ds, arc_length, chart_tol must be > 0, chart_iterations >= 1 and "
        "gamma_tol in (0, 1)");
}

SplitQuasiLinearDae quasi_linear_form(const MassMatrixDae& dae) {
  dae.validate();
  const int n = dae.n;
  const Matrix M = dae.dense_mass();
  Eigen::JacobiSVD<Matrix> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Vector sigma = svd.singularValues();
  int rank = 0;
  while (rank < n && sigma[rank] > 1e-12 * sigma[0]) ++rank;
  if (rank == n)
    throw InvalidArgument("quasi_linear_form: the mass matrix of '" + dae.name +
                          "' is regular: an ODE has no impasse points");
  const Matrix Ur = svd.matrixU().leftCols(rank), U0 = svd.matrixU().rightCols(n - rank);
  const Matrix A = sigma.head(rank).asDiagonal() * svd.matrixV().leftCols(rank).transpose();
  SplitQuasiLinearDae q;
  q.n = n + 1;
  q.r = rank + 1;
  q.time_component = n;
  q.a1 = [A, rank, n](VecIn, MatOut A1) {
    A1.topLeftCorner(rank, n) = A;
    A1(rank, n) = 1.0;
  };
  auto f = dae.f;
  const Vector p = dae.p;
  q.g1 = [f, p, Ur, rank, n, fx = Vector(n)](VecIn x, VecOut g) mutable {
    f(x[n], x.head(n), fx, p);
    g.head(rank).noalias() = Ur.transpose() * fx;
    g[rank] = 1.0;
  };
  q.g2 = [f, p, U0, n, fx = Vector(n)](VecIn x, VecOut g) mutable {
    f(x[n], x.head(n), fx, p);
    g.noalias() = U0.transpose() * fx;
  };
  return q;
}

ImpasseMonitor::ImpasseMonitor(const SplitQuasiLinearDae& dae)
    : dae_((dae.validate(), dae)),
      g0_(dae.n - dae.r),
      g1_(dae.n - dae.r),
      xx_(dae.n),
      h_(dae.r),
      G_(dae.n - dae.r, dae.n),
      E_(dae.n, dae.n),
      K_(dae.n, dae.n + 1),
      svd_e_(dae.n, dae.n),
      svd_k_(dae.n, dae.n + 1, Eigen::ComputeFullV) {
  out_.tangent.resize(dae.n);
}

const ImpasseIndicator& ImpasseMonitor::operator()(VecIn x) {
  const int n = dae_.n, r = dae_.r, m = n - r;
  // E = [A1; Dg2] (Dg2 as in algebraic_jacobian, into the preallocated storage)
  E_.setZero();
  dae_.a1(x, E_.topRows(r));
  if (dae_.dg2) {
    G_.setZero();
    dae_.dg2(x, G_);
  } else {
    dae_.g2(x, g0_);
    FiniteDifferenceJacobian::evaluate_dense([&](const Vector& v, Vector& out) { dae_.g2(v, out); },
                                             x, g0_, nullptr, xx_, g1_, G_);
  }
  E_.bottomRows(m) = G_;
  svd_e_.compute(E_);
  const auto& s = svd_e_.singularValues();
  out_.sigma_ratio = s[0] > 0 ? s[n - 1] / s[0] : 0.0;
  // the curve's tangent: the kernel of [A1, -g1; Dg2, 0] (n x (n + 1))
  dae_.g1(x, h_);
  K_.leftCols(n) = E_;
  K_.col(n).head(r) = -h_;
  K_.col(n).tail(m).setZero();
  svd_k_.compute(K_, Eigen::ComputeFullV);
  const double sign = svd_k_.matrixV()(n, n) < 0 ? -1.0 : 1.0;
  out_.gamma = sign * svd_k_.matrixV()(n, n);
  out_.tangent = sign * svd_k_.matrixV().col(n).head(n);
  return out_;
}

ImpasseIndicator impasse_indicator(const SplitQuasiLinearDae& dae, VecIn x) {
  ImpasseMonitor monitor(dae);
  return monitor(x);
}

double impasse_alpha(const SplitQuasiLinearDae& dae, VecIn x) {
  dae.validate();
  SingDaeOptions o;
  const Chart chart(dae, x, o);
  Matrix B0, Bp, Bm;
  Vector h0, h, xp, xm;
  chart.projected_ode(x, B0, h0);
  Eigen::JacobiSVD<Matrix> svd(B0, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Vector u = svd.matrixV().col(dae.r - 1), v = svd.matrixU().col(dae.r - 1);
  const double delta = 1e-5;
  if (!chart.phi(delta * u, xp) || !chart.phi(-delta * u, xm))
    throw InvalidArgument("impasse_alpha: the chart iteration failed near x");
  chart.projected_ode(xp, Bp, h);
  chart.projected_ode(xm, Bm, h);
  const Vector DBuu = (Bp - Bm) / (2 * delta) * u;
  return h0.dot(v) * DBuu.dot(v);  // (7.2)
}

ImpassePassage pass_impasse(const SplitQuasiLinearDae& dae, double t0, const Vector& x0,
                            const SingDaeOptions& o) {
  dae.validate();
  o.validate();
  if (x0.size() != dae.n)
    throw InvalidArgument("pass_impasse: x0 has size " + std::to_string(x0.size()) +
                          ", the DAE has n = " + std::to_string(dae.n));
  Vector g(dae.n - dae.r);
  dae.g2(x0, g);
  if (!(g.cwiseAbs().maxCoeff() <= 1e-6 * (1 + x0.cwiseAbs().maxCoeff())))
    throw InvalidArgument("pass_impasse: x0 is not on the manifold g2 = 0 (|g2| = " +
                          std::to_string(g.cwiseAbs().maxCoeff()) + ")");
  ImpassePassage out;
  Vector x = x0;
  double t = t0, s = 0;
  // initial orientation: forward in t
  Centre c;
  if (!centre_at(dae, x, o, Vector::Zero(dae.n), 1.0, c)) {
    out.message = "SingDAE: the augmented system is singular at the start";
    return out;
  }
  auto record = [&](double gamma) {
    out.s.push_back(s);
    out.t.push_back(t);
    out.x.push_back(x);
    out.gamma.push_back(gamma);
  };
  record(c.tangent.dt);
  const int steps = static_cast<int>(std::ceil(o.arc_length / o.ds));
  for (int k = 0; k < steps; ++k) {
    Vector x1;
    double t1 = 0;
    if (!rk4_step(*c.chart, *c.aug, c.tangent, t, o.ds, x1, t1)) {
      out.message = "SingDAE: the chart iteration failed at s = " + std::to_string(s);
      return out;
    }
    Centre next;
    if (!centre_at(dae, x1, o, c.tangent.dx, c.tangent.dt, next)) {
      out.message = "SingDAE: the augmented system is singular at s = " + std::to_string(s + o.ds);
      return out;
    }
    if (!out.passed && (c.tangent.dt > 0) != (next.tangent.dt > 0)) {
      // sign test of gamma: locate gamma = 0 by the secant method on the step length
      // (Illinois variant of regula falsi: the value kept twice in a row is halved)
      double a = 0, b = o.ds, ga = c.tangent.dt, gb = next.tangent.dt;
      Vector xs = x1;
      double ts = t1;
      int kept = 0;
      for (int it = 0; it < 60 && std::abs(b - a) > 1e-15 * o.ds; ++it) {
        const double m = std::clamp(b - gb * (b - a) / (gb - ga), std::min(a, b), std::max(a, b));
        Centre probe;
        if (!rk4_step(*c.chart, *c.aug, c.tangent, t, m, xs, ts) ||
            !centre_at(dae, xs, o, c.tangent.dx, c.tangent.dt, probe))
          break;
        const double gm = probe.tangent.dt;
        if (gm == 0.0) break;
        if ((gm > 0) == (ga > 0)) {
          a = m;
          ga = gm;
          if (kept == -1) gb *= 0.5;
          kept = -1;
        } else {
          b = m;
          gb = gm;
          if (kept == 1) ga *= 0.5;
          kept = 1;
        }
      }
      out.passed = true;
      out.point.t = ts;
      out.point.x = xs;
      out.point.s = s + 0.5 * (a + b);
      out.point.alpha = impasse_alpha(dae, xs);
      out.point.accessible = out.point.alpha < 0;
    }
    x = x1;
    t = t1;
    s += o.ds;
    c = std::move(next);
    record(c.tangent.dt);
  }
  out.message = out.passed ? impasse_message(out.point)
                           : "SingDAE: gamma kept its sign over arc length " +
                                 std::to_string(o.arc_length) + ": no impasse point passed";
  return out;
}

std::string impasse_message(const ImpassePoint& p) {
  std::ostringstream m;
  m.precision(10);
  m << "impasse point of the DAE at t = " << p.t << " (x = [";
  for (int i = 0; i < p.x.size(); ++i) m << (i ? ", " : "") << p.x[i];
  m << "]): the algebraic part is singular there and x' is unbounded (Bendtsen and Thomsen 1999, "
       "ch. 7); "
    << (p.accessible ? "accessible (alpha = " : "inaccessible (alpha = ") << p.alpha
    << (p.accessible ? " < 0): the solution ends at this point in forward time; the augmented "
                       "system (7.22) continues on the other branch backward in t"
                     : " > 0): solutions leave this point; the augmented system (7.22) "
                       "continues forward in t");
  return m.str();
}

}  // namespace daekit
