// IrkEngine (irk_engine.hpp): the transformed simplified Newton iteration of an s-stage
// implicit Runge-Kutta method, its error estimate and dense output.
#include "methods/irk_engine.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/pack.hpp"

namespace daekit {

IrkConstants IrkConstants::make(const RungeKuttaTableau& tableau) {
  BlockDiagonalInverse blocks = block_diagonalise_inverse(tableau.A);  // throws: singular A
  const Matrix Ainv = tableau.A.inverse();
  Eigen::RowVectorXd d = tableau.b.transpose() * Ainv;
  Vector e;
  if (blocks.real_blocks() > 0) e = embedded_error_weights(tableau, blocks.gamma[0]);
  return from_parts(tableau, std::move(blocks), std::move(d), std::move(e));
}

IrkConstants IrkConstants::from_parts(const RungeKuttaTableau& tableau, BlockDiagonalInverse blocks,
                                      Eigen::RowVectorXd d, Vector e) {
  IrkConstants k;
  k.tableau = tableau;
  k.s = tableau.stages();
  k.c = tableau.c;
  k.blocks = std::move(blocks);
  k.d = std::move(d);
  k.stiffly_accurate =
      (tableau.A.row(k.s - 1).transpose() - tableau.b).cwiseAbs().maxCoeff() <= 1e-12;
  k.has_error_estimate = k.blocks.real_blocks() > 0;
  if (k.has_error_estimate) k.e = std::move(e);
  k.set_dense_nodes();
  k.set_defect_constants();
  return k;
}

void IrkConstants::set_defect_constants() {
  has_defect_estimate = false;
  if (!stiffly_accurate || !has_error_estimate || std::abs(c[s - 1] - 1.0) > 1e-14) return;
  for (int i = 0; i < s; ++i)
    if (c[i] <= 0.0 || (i > 0 && c[i] <= c[i - 1] + 1e-14)) return;
  const auto omega = [&](double x) {
    double w = x;
    for (int i = 0; i < s; ++i) w *= x - c[i];
    return w;
  };
  // the node of the largest |omega| on [0, 1], to a hundredth (any node where |omega| is not
  // small serves: the constants below are those of the node chosen)
  constexpr int kGrid = 100;
  double best = 0.0;
  for (int j = 1; j < kGrid; ++j) {
    const double x = static_cast<double>(j) / kGrid;
    if (std::abs(omega(x)) > std::abs(omega(defect_theta))) defect_theta = x;
    best = std::max(best, std::abs(omega(x)));
  }
  if (!(best > 0.0)) return;
  const double x = defect_theta;
  // Lagrange polynomials of the nodes 0, c_1, ..., c_s at x
  defect_start_weight = 1.0;
  for (int i = 0; i < s; ++i) defect_start_weight *= (x - c[i]) / (0.0 - c[i]);
  defect_stage_weights.assign(static_cast<size_t>(s), 0.0);
  for (int j = 0; j < s; ++j) {
    double l = (x - 0.0) / (c[j] - 0.0);
    for (int i = 0; i < s; ++i)
      if (i != j) l *= (x - c[i]) / (c[j] - c[i]);
    defect_stage_weights[static_cast<size_t>(j)] = l;
  }
  double omega_prime_1 = 1.0;  // d/dx (x prod_i (x - c_i)) at x = c_s = 1
  for (int i = 0; i + 1 < s; ++i) omega_prime_1 *= 1.0 - c[i];
  defect_scale = omega_prime_1 / (blocks.gamma[0] * omega(x));
  has_defect_estimate = true;
}

void IrkConstants::set_dense_nodes() {
  // dense-output nodes: theta = 0 (the end value: the stage with c = 1 of a stiffly accurate
  // tableau, else y_{n+1}), the other distinct nodes c_i - 1 with 0 < c_i < 1 descending, and
  // theta = -1 (y_n; stages with c_i = 0 are not y_n unless a_ij = 0, so they are left out)
  nodes.push_back(0.0);
  std::vector<std::pair<double, int>> inner;
  for (int i = 0; i < s; ++i) {
    const double ci = c[i];
    if (ci <= 0.0 || ci >= 1.0) continue;
    bool duplicate = false;
    for (const auto& p : inner) duplicate = duplicate || std::abs(p.first - ci) <= 1e-14;
    if (!duplicate) inner.push_back({ci, i});
  }
  std::sort(inner.begin(), inner.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  end_node = 0;
  node_source.push_back(-1);
  node_c.push_back(1.0);
  for (const auto& p : inner) {
    nodes.push_back(p.first - 1.0);
    node_source.push_back(p.second);
    node_c.push_back(p.first);
  }
  nodes.push_back(-1.0);
  node_source.push_back(-2);
  node_c.push_back(0.0);
}

void IrkDense::increment(double theta, Eigen::Ref<Vector> out) const {
  if (m == 0) {
    out.setZero();
    return;
  }
  out = coeffs.col(m);
  for (int k = m - 1; k >= 1; --k)
    out = coeffs.col(k) + (theta - nodes[static_cast<size_t>(k)]) * out;
  out *= theta;  // x_0 = 0
}

void IrkDense::value(double theta, Eigen::Ref<Vector> out) const {
  increment(theta, out);
  out += coeffs.col(0);
}

void IrkDense::derivative(double theta, Eigen::Ref<Vector> out) const {
  // Horner for p and p' together: p <- d_k + (theta - x_k) p, p' <- p + (theta - x_k) p'
  out.setZero();
  scratch = coeffs.col(m);
  for (int k = m - 1; k >= 0; --k) {
    const double x = theta - nodes[static_cast<size_t>(k)];
    out = scratch + x * out;
    scratch = coeffs.col(k) + x * scratch;
  }
}

IrkEngine::IrkEngine(MassMatrixSystem& sys, int max_stages, int max_real, int max_pairs)
    : sys_(sys), n_(sys.n()) {
  for (int r = 0; r < max_real; ++r) real_.push_back(sys.make_solver<double>());
  for (int p = 0; p < max_pairs; ++p) complex_.push_back(sys.make_solver<std::complex<double>>());
  Z_.setZero(n_, max_stages);
  W_.setZero(n_, max_stages);
  F_.setZero(n_, max_stages);
  Y_.setZero(n_, max_stages);
  for (int i = 0; i < max_stages; ++i) {
    y_cols_.emplace_back(Y_.col(i));
    f_cols_.emplace_back(F_.col(i));
  }
  R_.setZero(n_, max_stages);
  tmp_.setZero(n_);
  tmp2_.setZero(n_);
  err_.setZero(n_);
  ynew_.setZero(n_);
  if (sys.mass().kind() == MassOperator::Kind::Structured) MW_.setZero(n_, max_stages);
  cpairs_.assign(static_cast<size_t>(max_pairs), Eigen::VectorXcd::Zero(n_));
}

void IrkEngine::use(const IrkConstants& k) {
  if (k.s > Z_.cols() || k.s > kMaxStages ||
      k.blocks.real_blocks() > static_cast<int>(real_.size()) ||
      k.blocks.complex_blocks() > static_cast<int>(complex_.size()))
    throw InvalidArgument("IrkEngine: tableau '" + k.tableau.name +
                          "' exceeds the engine's size (at most " + std::to_string(kMaxStages) +
                          " stages)");
  k_ = &k;
  lu_valid_ = false;
  const BlockDiagonalInverse& b = k.blocks;
  // Radau IIA(3)'s layout: stiffly accurate, nodes 0, c2 - 1, c1 - 1, -1 from Z3, Z2, Z1, y_n
  radau3_ = k.s == 3 && k.stiffly_accurate && b.real_blocks() == 1 && k.node_source.size() == 4 &&
            k.node_source[0] == -1 && k.node_source[1] == 1 && k.node_source[2] == 0 &&
            k.node_source[3] == -2 && k.c[0] > 0.0 && k.c[1] > k.c[0] && k.c[1] < 1.0;
  tinv_gain_ = 0.0;
  for (int r = 0; r < k.s; ++r)
    tinv_gain_ = std::max(tinv_gain_, b.T_inverse.row(r).cwiseAbs().sum());
  for (int r = 0; r < k.s; ++r)
    for (int c = 0; c < k.s; ++c) {
      t_rows_[r * k.s + c] = b.T(r, c);
      ti_rows_[r * k.s + c] = b.T_inverse(r, c);
      splat_pair(t_rows_[r * k.s + c], t_pairs_ + 2 * (r * k.s + c));
      splat_pair(ti_rows_[r * k.s + c], ti_pairs_ + 2 * (r * k.s + c));
    }
}

bool IrkEngine::factor(double h, const StructuredMatrix<double>& J) {
  const BlockDiagonalInverse& b = k_->blocks;
  ++sys_.stats().nlu;
  h_lu_ = h;
  if (b.real_blocks() == 1 && b.complex_blocks() == 1) {  // Radau IIA(3): RADAU5's DECOMR/C
    sys_.assemble(b.gamma[0] / h, J, real_[0]->matrix());
    sys_.assemble(std::complex<double>(b.alpha[0] / h, b.beta[0] / h), J, complex_[0]->matrix());
    failed_ = !real_[0]->factor()      ? real_[0]->singular_reason()
              : !complex_[0]->factor() ? complex_[0]->singular_reason()
                                       : nullptr;
    lu_valid_ = failed_ == nullptr;
    return lu_valid_;
  }
  failed_ = nullptr;
  for (int r = 0; r < b.real_blocks() && !failed_; ++r) {
    RealLinearSolver& lu = *real_[static_cast<size_t>(r)];
    sys_.assemble(b.gamma[r] / h, J, lu.matrix());
    if (!lu.factor()) failed_ = lu.singular_reason();
  }
  for (int p = 0; p < b.complex_blocks() && !failed_; ++p) {
    ComplexLinearSolver& lu = *complex_[static_cast<size_t>(p)];
    sys_.assemble(std::complex<double>(b.alpha[p] / h, b.beta[p] / h), J, lu.matrix());
    if (!lu.factor()) failed_ = lu.singular_reason();
  }
  lu_valid_ = failed_ == nullptr;
  return lu_valid_;
}

namespace {
// Row r of a 3 x 3 matrix held as splat pairs (row-major, IrkEngine's t_pairs_ / ti_pairs_)
// times (v0, v1, v2): m_r0 v0 + m_r1 v1 + m_r2 v2, summed in that order (as the scalar loops).
template <int W>
[[gnu::always_inline]] inline Pack<W> product_row3(const double* row, Pack<W> v0, Pack<W> v1,
                                                   Pack<W> v2) {
  using P = Pack<W>;
  return P::pair(row) * v0 + P::pair(row + 2) * v1 + P::pair(row + 4) * v2;
}
// The three rows' products stored in three columns of stride n from out.
template <int W>
[[gnu::always_inline]] inline void store_product3(const double* m, Pack<W> v0, Pack<W> v1,
                                                  Pack<W> v2, double* out, long n) {
  product_row3(m, v0, v1, v2).store(out);
  product_row3(m + 6, v0, v1, v2).store(out + n);
  product_row3(m + 12, v0, v1, v2).store(out + 2 * n);
}
// Row r of an S x S matrix held as splat pairs (row-major) times v: m_r0 v_0 + ... + m_r,S-1
// v_S-1, summed in that order (as the scalar loops).
template <int S, int W>
[[gnu::always_inline]] inline Pack<W> product_row(const double* row, const Pack<W> (&v)[S]) {
  using P = Pack<W>;
  P acc = P::pair(row) * v[0];
  for (int j = 1; j < S; ++j) acc = acc + P::pair(row + 2 * j) * v[j];
  return acc;
}
}  // namespace

void IrkEngine::start_zero() {
  Z_.setZero();
  W_.setZero();
}

void IrkEngine::start_from(const IrkDense& previous, double h) {
  if (k_->s == 3 && previous.m == 3) return start_rows<3, 3>(previous, h);
  switch (k_->s) {
    case 1:
      return start_rows<1, 0>(previous, h);
    case 3:
      return start_rows<3, 0>(previous, h);
    case 5:
      return start_rows<5, 0>(previous, h);
    case 7:
      return start_rows<7, 0>(previous, h);
    default:
      return start_rows<0, 0>(previous, h);
  }
}

// W = (T^{-1} (x) I) Z for starting values Z set column by column
void IrkEngine::transform_starting_values() {
  const int s = k_->s;
  for (int k = 0; k < s; ++k) {
    W_.col(k) = ti_rows_[k * s] * Z_.col(0);
    for (int j = 1; j < s; ++j) W_.col(k) += ti_rows_[k * s + j] * Z_.col(j);
  }
}

void IrkEngine::start_linear(const Vector& yp, double h) {
  const int s = k_->s;
  for (int k = 0; k < s; ++k) Z_.col(k) = (k_->c[k] * h) * yp;
  transform_starting_values();
}

void IrkEngine::start_within(const IrkDense& step, double h) {
  const int s = k_->s;
  step.increment(-1.0, tmp2_);  // p(t_n) - p(t_n+1)
  for (int k = 0; k < s; ++k) {
    step.increment(k_->c[k] * h / step.h - 1.0, tmp_);
    Z_.col(k) = tmp_ - tmp2_;
  }
  transform_starting_values();
}

// Z_k(t_n + c_k h) from the previous interpolant, p(theta) - p(0) by Horner in theta = c_k q,
// then W = (T^{-1} (x) I) Z, in one pass over the components.
template <int S, int M>
void IrkEngine::start_rows(const IrkDense& previous, double h) {
  if constexpr (S == 3 && M == 3) {  // written out (the same operations as below)
    const long n = n_, ld = previous.coeffs.rows();
    const double q = h / previous.h;
    const double x1 = previous.nodes[1], x2 = previous.nodes[2];
    const double* c1 = previous.coeffs.data() + ld;
    const double* c2 = c1 + ld;
    const double* c3 = c2 + ld;
    double th[3], s1[3], s2[3];
    for (int k = 0; k < 3; ++k) {
      th[k] = k_->c[k] * q;
      s1[k] = th[k] - x1;
      s2[k] = th[k] - x2;
    }
    const double* ti = ti_pairs_;
    double* z = Z_.data();
    double* w = W_.data();
    for_rows(n, [&]<int W>(long i) {
      using P = Pack<W>;
      const P a = P::load(c1 + i), b = P::load(c2 + i), c = P::load(c3 + i);
      const P z0 = (a + P::splat(s1[0]) * (b + P::splat(s2[0]) * c)) * P::splat(th[0]);
      const P z1 = (a + P::splat(s1[1]) * (b + P::splat(s2[1]) * c)) * P::splat(th[1]);
      const P z2 = (a + P::splat(s1[2]) * (b + P::splat(s2[2]) * c)) * P::splat(th[2]);
      z0.store(z + i);
      z1.store(z + n + i);
      z2.store(z + 2 * n + i);
      store_product3(ti, z0, z1, z2, w + i, n);
    });
    return;
  }
  const long n = n_;
  const int s = S > 0 ? S : k_->s;
  const int m = M > 0 ? M : previous.m;
  const double q = h / previous.h;
  double theta[kMaxStages], z[kMaxStages], shift[kMaxStages][kMaxStages + 1];
  for (int k = 0; k < s; ++k) {
    theta[k] = k_->c[k] * q;
    for (int j = 1; j < m; ++j) shift[k][j] = theta[k] - previous.nodes[static_cast<size_t>(j)];
  }
  const double* coeffs = previous.coeffs.data();
  const long ld = previous.coeffs.rows();
  double* zc = Z_.data();
  double* wc = W_.data();
  for (long i = 0; i < n; ++i) {
    for (int k = 0; k < s; ++k) {
      if (m == 0) {
        z[k] = 0.0;
        continue;
      }
      double p = coeffs[m * ld + i];
      for (int j = m - 1; j >= 1; --j) p = coeffs[j * ld + i] + shift[k][j] * p;
      z[k] = p * theta[k];
      zc[k * n + i] = z[k];
    }
    if (m == 0)
      for (int k = 0; k < s; ++k) zc[k * n + i] = 0.0;
    for (int k = 0; k < s; ++k) {
      double acc = ti_rows_[k * s] * z[0];
      for (int j = 1; j < s; ++j) acc += ti_rows_[k * s + j] * z[j];
      wc[k * n + i] = acc;
    }
  }
}

// Radau IIA(3)'s passes of newton_rows<3> (one real block, one complex pair) with kPackWidth
// rows per instruction (core/pack.hpp): each row's values are those of the general row loops
// below, to the bit (the same operations in the same order per lane).
// The stage arguments Y_i = y + Z_i of every stage, in one pass over the components (any s).
template <int S, long N>
void IrkEngine::stage_arguments(const Vector& y) {
  const long n = N > 0 ? N : n_;
  const int s = S > 0 ? S : k_->s;
  const double* yv = y.data();
  const double* z = Z_.data();
  double* ya = Y_.data();
  auto rows = [&]<int W>(long i) {
    using P = Pack<W>;
    const P yi = P::load(yv + i);
    for (int c = 0; c < s; ++c) (yi + P::load(z + c * n + i)).store(ya + c * n + i);
  };
  for_rows<N>(n, rows);
}

template <long N>
void IrkEngine::residual3(const double* mw, const double* diag, double g, double al, double be) {
  const long n = N > 0 ? N : n_;
  const double* f = F_.data();
  double* rr = R_.data();
  std::complex<double>* cp = cpairs_[0].data();
  alignas(16) double gp[2], alp[2], bep[2];
  splat_pair(g, gp);
  splat_pair(al, alp);
  splat_pair(be, bep);
  const double* ti = ti_pairs_;
  auto rows = [&]<int W>(long i) {
    using P = Pack<W>;
    const P f0 = P::load(f + i), f1 = P::load(f + n + i), f2 = P::load(f + 2 * n + i);
    P w0 = P::load(mw + i), w1 = P::load(mw + n + i), w2 = P::load(mw + 2 * n + i);
    if (diag) {
      const P m = P::load(diag + i);
      w0 = m * w0;
      w1 = m * w1;
      w2 = m * w2;
    }
    const P r0 = product_row3(ti, f0, f1, f2);
    const P r1 = product_row3(ti + 6, f0, f1, f2);
    const P r2 = product_row3(ti + 12, f0, f1, f2);
    (r0 - P::pair(gp) * w0).store(rr + i);
    const P a = P::pair(alp), b = P::pair(bep);
    P::store_complex(cp + i, r1 - (a * w1 - b * w2), r2 - (b * w1 + a * w2));
  };
  for_rows<N>(n, rows);
}

template <long N>
void IrkEngine::update3() {
  const long n = N > 0 ? N : n_;
  const double* rr = R_.data();
  const std::complex<double>* cp = cpairs_[0].data();
  double* wc = W_.data();
  double* zc = Z_.data();
  const double* t = t_pairs_;
  auto rows = [&]<int W>(long i) {
    using P = Pack<W>;
    P re, im;
    P::load_complex(cp + i, re, im);
    const P w0 = P::load(wc + i) + P::load(rr + i);
    const P w1 = P::load(wc + n + i) + re;
    const P w2 = P::load(wc + 2 * n + i) + im;
    w0.store(wc + i);
    w1.store(wc + n + i);
    w2.store(wc + 2 * n + i);
    store_product3(t, w0, w1, w2, zc + i, n);
  };
  for_rows<N>(n, rows);
}

// Radau IIA(5), (7): the general row loops of newton_rows below with kPackWidth rows per
// instruction (each lane does the scalar loop's operations in its order: the same bits).
template <int S, long N>
void IrkEngine::residual_packed(const double* mw, const double* diag, double g, const double* al,
                                const double* be) {
  constexpr int np = (S - 1) / 2;
  const long n = N > 0 ? N : n_;
  const double* f = F_.data();
  double* rr = R_.data();
  std::complex<double>* cp[np];
  alignas(16) double gp[2], alp[np][2], bep[np][2];
  splat_pair(g, gp);
  for (int p = 0; p < np; ++p) {
    cp[p] = cpairs_[static_cast<size_t>(p)].data();
    splat_pair(al[p], alp[p]);
    splat_pair(be[p], bep[p]);
  }
  const double* ti = ti_pairs_;
  auto rows = [&]<int W>(long i) {
    using P = Pack<W>;
    P fv[S], w[S];
    for (int c = 0; c < S; ++c) fv[c] = P::load(f + c * n + i);
    for (int c = 0; c < S; ++c) w[c] = P::load(mw + c * n + i);
    if (diag) {
      const P m = P::load(diag + i);
      for (int c = 0; c < S; ++c) w[c] = m * w[c];
    }
    (product_row<S>(ti, fv) - P::pair(gp) * w[0]).store(rr + i);
    for (int p = 0; p < np; ++p) {
      const int a = 1 + 2 * p;
      const P re = product_row<S>(ti + 2 * S * a, fv),
              im = product_row<S>(ti + 2 * S * (a + 1), fv);
      const P A = P::pair(alp[p]), B = P::pair(bep[p]);
      P::store_complex(cp[p] + i, re - (A * w[a] - B * w[a + 1]), im - (B * w[a] + A * w[a + 1]));
    }
  };
  for_rows<N>(n, rows);
}

template <int S, long N>
void IrkEngine::update_packed() {
  constexpr int np = (S - 1) / 2;
  const long n = N > 0 ? N : n_;
  const double* rr = R_.data();
  const std::complex<double>* cp[np];
  for (int p = 0; p < np; ++p) cp[p] = cpairs_[static_cast<size_t>(p)].data();
  double* wc = W_.data();
  double* zc = Z_.data();
  const double* t = t_pairs_;
  auto rows = [&]<int W>(long i) {
    using P = Pack<W>;
    P w[S];
    w[0] = P::load(wc + i) + P::load(rr + i);
    for (int p = 0; p < np; ++p) {
      const int a = 1 + 2 * p;
      P re, im;
      P::load_complex(cp[p] + i, re, im);
      w[a] = P::load(wc + a * n + i) + re;
      w[a + 1] = P::load(wc + (a + 1) * n + i) + im;
    }
    for (int c = 0; c < S; ++c) w[c].store(wc + c * n + i);
    for (int c = 0; c < S; ++c) product_row<S>(t + 2 * S * c, w).store(zc + c * n + i);
  };
  for_rows<N>(n, rows);
}

// One pass over the components per iteration for each of: the transformed residual and the
// right-hand sides of the real and complex solves, the increment norm (column by column, as
// the column form sums), the update of W and Z = (T (x) I) W.
template <int S, long N, bool Noise>
[[gnu::flatten]] NewtonMonitor::Verdict IrkEngine::newton_rows(double t, const Vector& y, double h,
                                                               const Vector& scal,
                                                               NewtonMonitor& monitor) {
  using Verdict = NewtonMonitor::Verdict;
  const IrkConstants& k = *k_;
  // S > 0: Radau IIA's layout, one real block and (S - 1)/2 pairs (checked by the caller)
  const int s = S > 0 ? S : k.s;
  const int nr = S > 0 ? 1 : k.blocks.real_blocks();
  const int np = S > 0 ? (S - 1) / 2 : k.blocks.complex_blocks();
  std::complex<double>* cp[kMaxStages];
  for (int p = 0; p < np; ++p) cp[p] = cpairs_[static_cast<size_t>(p)].data();
  const long n = N > 0 ? N : n_;
  const MassOperator& M = sys_.mass();
  Stats& stats = sys_.stats();
  double g[kMaxStages], al[kMaxStages], be[kMaxStages];
  for (int r = 0; r < nr; ++r) g[r] = k.blocks.gamma[r] / h;
  for (int p = 0; p < np; ++p) {
    al[p] = k.blocks.alpha[p] / h;
    be[p] = k.blocks.beta[p] / h;
  }
  const double* diag = M.kind() == MassOperator::Kind::Diagonal ? M.diagonal().data() : nullptr;
  previous_norm_ = 0.0;
  for (;;) {
    stage_arguments<S, N>(y);
    bool f_ok;
    if constexpr (Noise)
      f_ok = stage_values_elsewhere(t, h);
    else
      f_ok = sys_.f_stages(t, h, k.c.data(), s, y_cols_.data(), f_cols_.data());
    if (!f_ok) {
      function_failed_ = true;
      return Verdict::NonFinite;
    }
    const double* mw = W_.data();  // M W: W itself for identity and diagonal M (scaled below)
    if (M.kind() == MassOperator::Kind::Structured) {
      M.apply_columns<S, N>(W_, s, MW_);
      mw = MW_.data();
    }
    const double* f = F_.data();
    double* rr = R_.data();
    if constexpr (S == 3)
      residual3<N>(mw, diag, g[0], al[0], be[0]);
    else if constexpr (S == 5 || S == 7)
      residual_packed<S, N>(mw, diag, g[0], al, be);
    else
      for (long i = 0; i < n; ++i) {
        double fv[kMaxStages], w[kMaxStages];
        for (int c = 0; c < s; ++c) fv[c] = f[c * n + i];
        const double m = diag ? diag[i] : 1.0;
        for (int c = 0; c < s; ++c) w[c] = m * mw[c * n + i];  // m w = w exactly for m = 1
        double r[kMaxStages];
        for (int c = 0; c < s; ++c) {
          double acc = ti_rows_[c * s] * fv[0];
          for (int j = 1; j < s; ++j) acc += ti_rows_[c * s + j] * fv[j];
          r[c] = acc;
        }
        for (int c = 0; c < nr; ++c) rr[c * n + i] = r[c] - g[c] * w[c];
        for (int p = 0; p < np; ++p) {
          const int a = nr + 2 * p;
          cp[p][i] = std::complex<double>(r[a] - (al[p] * w[a] - be[p] * w[a + 1]),
                                          r[a + 1] - (be[p] * w[a] + al[p] * w[a + 1]));
        }
      }
    for (int c = 0; c < nr; ++c) real_[static_cast<size_t>(c)]->solve_in_place(R_.col(c));
    for (int p = 0; p < np; ++p)
      complex_[static_cast<size_t>(p)]->solve_in_place(cpairs_[static_cast<size_t>(p)]);
    ++stats.nsol;
    ++stats.nnewton;
    double sum = 0.0;
    const double* sc = scal.data();
    for (int c = 0; c < nr; ++c)
      for (long i = 0; i < n; ++i) {
        const double v = rr[c * n + i] / sc[i];
        sum += v * v;
      }
    for (int p = 0; p < np; ++p) {
      const std::complex<double>* x = cp[p];
      for (long i = 0; i < n; ++i) {
        const double v = x[i].real() / sc[i];
        sum += v * v;
      }
      for (long i = 0; i < n; ++i) {
        const double v = x[i].imag() / sc[i];
        sum += v * v;
      }
    }
    double norm = std::sqrt(sum / (static_cast<double>(s) * n));  // n = n_
    // the increments less the constraints' round-off (weigh_constraint_roundoff())
    if constexpr (Noise) norm = noise_discounted_norm(scal);
    // at the round-off level (set_roundoff_level) and no longer contracting; the level test
    // first: the level is 0 unless set
    bool at_roundoff = false;
    if (norm <= roundoff_level_) [[unlikely]]
      at_roundoff = monitor.iterations() >= 1 && norm > 0.5 * previous_norm_;
    previous_norm_ = norm;
    Verdict v = monitor.next_inlined(norm);
    if (at_roundoff && v != Verdict::NonFinite) v = Verdict::Converged;
    // the verdicts that end the iteration before its update
    if (v == Verdict::NonFinite || v == Verdict::Diverging || v == Verdict::TooSlow) return v;
    double* wc = W_.data();
    double* zc = Z_.data();
    if constexpr (S == 3)
      update3<N>();
    else if constexpr (S == 5 || S == 7)
      update_packed<S, N>();
    else
      for (long i = 0; i < n; ++i) {
        double w[kMaxStages];
        for (int c = 0; c < nr; ++c) w[c] = (wc[c * n + i] += rr[c * n + i]);
        for (int p = 0; p < np; ++p) {
          const std::complex<double> x = cp[p][i];
          const int a = nr + 2 * p;
          w[a] = (wc[a * n + i] += x.real());
          w[a + 1] = (wc[(a + 1) * n + i] += x.imag());
        }
        for (int c = 0; c < s; ++c) {
          double acc = t_rows_[c * s] * w[0];
          for (int j = 1; j < s; ++j) acc += t_rows_[c * s + j] * w[j];
          zc[c * n + i] = acc;
        }
      }
    if (v != Verdict::Continue) return v;  // Converged or MaxIterations
  }
}

// Radau IIA(3) with n <= kMaxFixedRows: the rows' count known at compile time (every row loop
// written out), else the general loops.
template <long... N>
NewtonMonitor::Verdict IrkEngine::newton3(double t, const Vector& y, double h, const Vector& scal,
                                          NewtonMonitor& monitor,
                                          std::integer_sequence<long, N...>) {
  NewtonMonitor::Verdict o = NewtonMonitor::Verdict::Converged;
  const bool fixed =
      ((N > 0 && n_ == N ? (o = newton_rows<3, N>(t, y, h, scal, monitor), true) : false) || ...);
  return fixed ? o : newton_rows<3, 0>(t, y, h, scal, monitor);
}

NewtonMonitor::Verdict IrkEngine::newton(double t, const Vector& y, double h, const Vector& scal,
                                         NewtonMonitor& monitor) {
  function_failed_ = false;
  if (ro_ && ro_->active) [[unlikely]]  // the general loops (the same values), another norm
    return newton_rows<0, 0, true>(t, y, h, scal, monitor);
  switch (k_->blocks.real_blocks() == 1 ? k_->s : 0) {
    case 1:
      return newton_rows<1, 0>(t, y, h, scal, monitor);
    case 3:
      return newton3(t, y, h, scal, monitor, std::make_integer_sequence<long, kMaxFixedRows + 1>{});
    case 5:
      return newton_rows<5, 0>(t, y, h, scal, monitor);
    case 7:
      return newton_rows<7, 0>(t, y, h, scal, monitor);
    default:
      return newton_rows<0, 0>(t, y, h, scal, monitor);
  }
}

bool IrkEngine::index2_correction(double t, const Vector& y, const Vector& f0, double h,
                                  const std::vector<int>& rows, Vector& out) {
  const IrkConstants& k = *k_;
  // p(t_n + theta h) = y_n + sum_i L_i(theta) Z_i, row by row
  const long n = n_;
  const double* yv = y.data();
  const double* z = Z_.data();
  const double* l = k.defect_stage_weights.data();
  double* p = tmp_.data();
  for (long r = 0; r < n; ++r) {
    double acc = yv[r];
    for (int i = 0; i < k.s; ++i) acc += l[i] * z[i * n + r];
    p[r] = acc;
  }
  if (!sys_.f(t + k.defect_theta * h, tmp_, tmp2_)) return false;
  out.setZero();
  for (int a : rows) out[a] = (tmp2_[a] - k.defect_start_weight * f0[a]) * k.defect_scale;
  real_[0]->solve_in_place(out);
  ++sys_.stats().nsol;
  return true;
}

void IrkEngine::end_value(const Vector& y, Vector& out) const {
  const IrkConstants& k = *k_;
  if (k.stiffly_accurate) {
    out = y + Z_.col(k.s - 1);
    return;
  }
  out = y;
  for (int i = 0; i < k.s; ++i) out += k.d[i] * Z_.col(i);
}

void IrkEngine::dense(const Vector& y, double h, IrkDense& out) {
  const IrkConstants& k = *k_;
  const int m = static_cast<int>(k.nodes.size()) - 1;
  out.m = m;
  out.h = h;
  if (out.source != &k) {  // capacity reserved by the owner: no allocation
    out.nodes = k.nodes;
    out.source = &k;
  }
  if (radau3_) {
    // Radau IIA(3) (RADAU5's CONT): nodes 0, c2 - 1, c1 - 1, -1 from y_n + Z3, Z2, Z1, y_n;
    // the same divided differences as below, written out
    const double c1 = k.c[0], c2 = k.c[1];
    const long n = n_, ld = out.coeffs.rows();
    const double* z = Z_.data();
    const double* yv = y.data();
    double* c = out.coeffs.data();
    for_rows(n, [&]<int W>(long i) {
      using P = Pack<W>;
      const P z1 = P::load(z + i), z2 = P::load(z + n + i), z3 = P::load(z + 2 * n + i);
      const P d1 = (z2 - z3) / P::splat(c2 - 1.0);
      const P a = (z1 - z2) / P::splat(c1 - c2);
      const P b = (a - z1 / P::splat(c1)) / P::splat(c2);
      const P d2 = (a - d1) / P::splat(c1 - 1.0);
      (P::load(yv + i) + z3).store(c + i);
      d1.store(c + ld + i);
      d2.store(c + 2 * ld + i);
      (d2 - b).store(c + 3 * ld + i);
    });
    return;
  }
  end_value(y, ynew_);
  interpolate(k, y, ynew_, Z_.data(), out);
}

void IrkEngine::interpolate(const IrkConstants& k, const Vector& y, const Vector& y_new,
                            const double* Z, IrkDense& out) {
  const int m = static_cast<int>(k.nodes.size()) - 1;
  out.m = m;
  if (out.source != &k) {  // capacity reserved by the owner: no allocation
    out.nodes = k.nodes;
    out.source = &k;
  }
  const long n = y.size();
  auto z_col = [&](int i) { return Eigen::Map<const Vector>(Z + i * n, n); };
  // divided differences of the increments Y - y_n (those of the values without the
  // cancellation y + Z_i - (y + Z_j) of a small step), y_n added to the constant term
  for (int j = 0; j <= m; ++j) {
    const int src = k.node_source[static_cast<size_t>(j)];
    if (src == -1 && k.stiffly_accurate)
      out.coeffs.col(j) = z_col(k.s - 1);
    else if (src == -1)
      out.coeffs.col(j) = y_new - y;
    else if (src == -2)
      out.coeffs.col(j).setZero();
    else
      out.coeffs.col(j) = z_col(src);
  }
  // the divided-difference table row by row (m <= s + 1 nodes)
  double den[kMaxStages + 2][kMaxStages + 2];
  for (int l = 1; l <= m; ++l)
    for (int j = m; j >= l; --j)
      den[l][j] = k.node_c[static_cast<size_t>(j)] - k.node_c[static_cast<size_t>(j - l)];
  const long ld = out.coeffs.rows();
  double* c = out.coeffs.data();
  for (long i = 0; i < n; ++i) {
    double v[kMaxStages + 2];
    for (int j = 0; j <= m; ++j) v[j] = c[j * ld + i];
    for (int l = 1; l <= m; ++l)
      for (int j = m; j >= l; --j) v[j] = (v[j] - v[j - 1]) / den[l][j];
    for (int j = 1; j <= m; ++j) c[j * ld + i] = v[j];
  }
  out.coeffs.col(0) = y_new;
}

}  // namespace daekit
