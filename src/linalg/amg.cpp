#include "linalg/amg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace daekit {

namespace {

double re(double x) { return x; }
double re(const std::complex<double>& x) { return x.real(); }
bool finite(double x) { return std::isfinite(x); }
bool finite(const std::complex<double>& x) {
  return std::isfinite(x.real()) && std::isfinite(x.imag());
}

// The aggregates of the strength graph (ptr, idx): agg[i] in [0, count) or -1 (no strong
// neighbour: left out of the coarse space). Vanek-Mandel-Brezina's three passes.
int aggregate(int n, const std::vector<int>& ptr, const std::vector<int>& idx,
              const std::vector<double>& strength, std::vector<int>& agg) {
  agg.assign(static_cast<size_t>(n), -1);
  int count = 0;
  for (int i = 0; i < n; ++i) {  // pass 1: whole free neighbourhoods
    if (agg[i] != -1 || ptr[i] == ptr[i + 1]) continue;
    bool free = true;
    for (int k = ptr[i]; k < ptr[i + 1] && free; ++k) free = agg[idx[k]] == -1;
    if (!free) continue;
    agg[i] = count;
    for (int k = ptr[i]; k < ptr[i + 1]; ++k) agg[idx[k]] = count;
    ++count;
  }
  const std::vector<int> first = agg;
  for (int i = 0; i < n; ++i) {  // pass 2: join the most strongly connected pass-1 aggregate
    if (agg[i] != -1) continue;
    double best = -1.0;
    for (int k = ptr[i]; k < ptr[i + 1]; ++k)
      if (first[idx[k]] != -1 && strength[k] > best) {
        best = strength[k];
        agg[i] = first[idx[k]];
      }
  }
  for (int i = 0; i < n; ++i) {  // pass 3: the rest with their free strong neighbours
    if (agg[i] != -1 || ptr[i] == ptr[i + 1]) continue;
    agg[i] = count;
    for (int k = ptr[i]; k < ptr[i + 1]; ++k)
      if (agg[idx[k]] == -1) agg[idx[k]] = count;
    ++count;
  }
  return count;
}

}  // namespace

template <typename Scalar>
bool AmgHierarchy<Scalar>::setup(const ColMatrix& A) {
  failure_.clear();
  levels_.clear();
  coarse_direct_ = false;
  levels_.emplace_back();
  levels_.back().A = A;
  levels_.back().A.makeCompressed();
  for (;;) {
    Level& L = levels_.back();
    const int n = static_cast<int>(L.A.rows());
    const int* ptr = L.A.outerIndexPtr();
    const int* idx = L.A.innerIndexPtr();
    const Scalar* val = L.A.valuePtr();
    if (levels_.size() > 1) {  // the coarse levels' vectors (the finest uses apply()'s)
      L.x.setZero(n);
      L.b.setZero(n);
    }
    L.lower = L.upper = 0;  // the bandwidths: the fused passes' lags
    for (int i = 0; i < n; ++i)
      for (int k = ptr[i]; k < ptr[i + 1]; ++k) {
        L.lower = std::max(L.lower, i - idx[k]);
        L.upper = std::max(L.upper, idx[k] - i);
        if (k > ptr[i] && idx[k] <= idx[k - 1]) {  // the sweeps read rows in ascending j
          failure_ = "unsorted or repeated column indices in row " + std::to_string(i) +
                     " of an AMG level (internal error)";
          return false;
        }
      }
    // a dense LU: no smoothing, any nonsingular matrix (the whole matrix up to kDirectSize)
    if (n <= (levels_.size() == 1 ? kDirectSize : kCoarseSize)) break;
    L.inv_diag.setZero(n);
    std::vector<double> bdiag(static_cast<size_t>(n), 0.0);  // |Re a_ii|
    for (int i = 0; i < n; ++i) {
      Scalar d(0);
      for (int k = ptr[i]; k < ptr[i + 1]; ++k)
        if (idx[k] == i) d = val[k];
      if (d == Scalar(0) || !finite(d)) {
        failure_ = "a zero or non-finite diagonal entry (row " + std::to_string(i) +
                   "): the iterative linear solver's Gauss-Seidel smoothing divides by it";
        return false;
      }
      L.inv_diag[i] = Scalar(1) / d;
      bdiag[static_cast<size_t>(i)] = std::abs(re(d));
    }
    if (levels() == kMaxLevels) break;
    // strength graph of B = Re A
    std::vector<int> sptr(static_cast<size_t>(n) + 1, 0), sidx;
    std::vector<double> sval;
    sidx.reserve(static_cast<size_t>(L.A.nonZeros()));
    sval.reserve(static_cast<size_t>(L.A.nonZeros()));
    double rho = 0.0;  // Gershgorin bound of D^{-1} B
    for (int i = 0; i < n; ++i) {
      double row = 0.0;
      for (int k = ptr[i]; k < ptr[i + 1]; ++k) {
        const int j = idx[k];
        const double b = std::abs(re(val[k]));
        row += b;
        if (j != i && b > 0.0 && b >= kTheta * std::sqrt(bdiag[i] * bdiag[j])) {
          sidx.push_back(j);
          sval.push_back(b);
        }
      }
      if (bdiag[i] > 0.0) rho = std::max(rho, row / bdiag[i]);
      sptr[static_cast<size_t>(i) + 1] = static_cast<int>(sidx.size());
    }
    std::vector<int> agg;
    const int nc = aggregate(n, sptr, sidx, sval, agg);
    if (nc == 0 || nc > 0.85 * n) break;  // coarsening stalls: smoothing only on this level
    // P0: aggregate indicators scaled to unit columns; P = (I - omega D^{-1} B) P0
    std::vector<int> size(static_cast<size_t>(nc), 0);
    for (int a : agg)
      if (a >= 0) ++size[static_cast<size_t>(a)];
    using RealRow = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
    std::vector<Eigen::Triplet<double, int>> t;
    t.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      if (agg[i] >= 0) t.emplace_back(i, agg[i], 1.0 / std::sqrt(size[agg[i]]));
    RealRow P0(n, nc);
    P0.setFromTriplets(t.begin(), t.end());
    const double omega = rho > 0.0 ? (4.0 / 3.0) / rho : 0.0;
    t.clear();
    t.reserve(static_cast<size_t>(L.A.nonZeros()));
    for (int i = 0; i < n; ++i) {
      const double scale = bdiag[i] > 0.0 ? omega / bdiag[i] : 0.0;
      t.emplace_back(i, i, 1.0);
      for (int k = ptr[i]; k < ptr[i + 1]; ++k) {
        const double b = re(val[k]);
        if (b != 0.0 && scale != 0.0) t.emplace_back(i, idx[k], -scale * b);
      }
    }
    RealRow S(n, n);
    S.setFromTriplets(t.begin(), t.end());
    L.P = (S * P0).pruned();
    const RowMatrix Ps = L.P.template cast<Scalar>();
    const RowMatrix Rs = RealRow(L.P.transpose()).template cast<Scalar>();
    RowMatrix coarse = Rs * (L.A * Ps);
    coarse.makeCompressed();
    levels_.emplace_back();
    levels_.back().A = std::move(coarse);
  }
  Level& last = levels_.back();
  if (last.A.rows() <= (levels_.size() == 1 ? kDirectSize : kCoarseSize)) {
    coarse_lu_.compute(Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>(last.A));
    const auto& lu = coarse_lu_.matrixLU();
    for (Eigen::Index i = 0; i < lu.rows(); ++i)  // a zero or non-finite pivot: singular
      if (lu(i, i) == Scalar(0) || !finite(lu(i, i))) {
        failure_ = "a zero pivot in the LU of the coarsest level (the matrix is singular)";
        return false;
      }
    coarse_direct_ = true;
  }
  return true;
}

template <typename Scalar>
std::vector<int> AmgHierarchy<Scalar>::sizes() const {
  std::vector<int> out;
  for (const Level& L : levels_) out.push_back(static_cast<int>(L.A.rows()));
  return out;
}

namespace {
// Row i of a forward Gauss-Seidel sweep from x = 0: x_i = (b_i - sum_{j < i} a_ij x_j) / a_ii
// (the entries j > i meet x_j = 0 and are skipped; rows are sorted, setup() checks it).
template <typename M, typename Scalar>
void forward_row_from_zero(const M& A, const Scalar* inv_diag, const Scalar* b, Scalar* x, int i) {
  const int* ptr = A.outerIndexPtr();
  const int* idx = A.innerIndexPtr();
  const Scalar* val = A.valuePtr();
  Scalar s = b[i];
  for (int k = ptr[i]; k < ptr[i + 1] && idx[k] < i; ++k) s -= val[k] * x[idx[k]];
  x[i] = s * inv_diag[i];
}
}  // namespace

// The sweeps of one cycle on a level, each fused with the pass that follows or precedes it:
// the pass's row k runs as soon as every x_j it reads is final (a lag of the level's bandwidth
// in rows), while the rows it shares with the sweep are still in the cache. For a banded level
// (heat2d's finest: bandwidth m = sqrt(n), a lag of m rows of A ~ 60 kB) the matrix is read
// from memory once for the two passes instead of twice; for a level of large bandwidth the lag
// covers the whole level and each pass runs after the sweep as it would on its own. Either way
// every row does the same operations in the same order as the separate passes.

// Forward Gauss-Seidel from x = 0 (x written, not read: the entries j < i only), then
// cb = P^T (b - A x): r_k = b_k - (A x)_k added to the coarse entries of P's row k at once (never
// stored), in ascending k as the product with P^T sums them.
template <typename Scalar>
void AmgHierarchy<Scalar>::forward_restrict(const Level& L, const Scalar* b, Scalar* x,
                                            Scalar* cb) const {
  const int n = static_cast<int>(L.A.rows());
  const Scalar* inv_diag = L.inv_diag.data();
  const int* pptr = L.P.outerIndexPtr();
  const int* pidx = L.P.innerIndexPtr();
  const double* pval = L.P.valuePtr();
  std::fill(cb, cb + L.P.cols(), Scalar(0));
  const auto restrict_row = [&](int k) {
    const Scalar r = b[k] - csr_row(L.A, k, x);
    for (int q = pptr[k]; q < pptr[k + 1]; ++q) cb[pidx[q]] += pval[q] * r;
  };
  const int lag = L.upper;  // row k reads x_j, j <= k + upper: final after row k + upper
  for (int i = 0; i < n; ++i) {
    forward_row_from_zero(L.A, inv_diag, b, x, i);
    if (i >= lag) restrict_row(i - lag);
  }
  for (int k = std::max(0, n - lag); k < n; ++k) restrict_row(k);
}

// x += P x_c (the coarse correction), then backward Gauss-Seidel, then (Ax non-null)
// Ax = A x, all in one descending sweep: row p is corrected before any row reads it (rows
// i <= p + lower), and product row k is formed once x_j, j >= k - lower, is final.
template <typename Scalar>
void AmgHierarchy<Scalar>::correct_backward(const Level& L, const Scalar* b, Scalar* x,
                                            const Scalar* cx, Scalar* Ax) const {
  const int n = static_cast<int>(L.A.rows());
  const int* ptr = L.A.outerIndexPtr();
  const int* idx = L.A.innerIndexPtr();
  const Scalar* val = L.A.valuePtr();
  const Scalar* inv_diag = L.inv_diag.data();
  const int lag = L.lower;
  int p = n - 1;  // the next row to correct
  for (int i = n - 1; i >= 0; --i) {
    if (cx)
      for (; p >= 0 && p >= i - lag; --p) x[p] = x[p] + csr_row(L.P, p, cx);
    Scalar s = b[i];
    for (int k = ptr[i]; k < ptr[i + 1]; ++k)
      if (idx[k] != i) s -= val[k] * x[idx[k]];
    x[i] = s * inv_diag[i];
    if (Ax && i + lag < n) Ax[i + lag] = csr_row(L.A, i + lag, x);
  }
  if (Ax)
    for (int k = std::min(n, lag) - 1; k >= 0; --k) Ax[k] = csr_row(L.A, k, x);
}

// One V(1,1) cycle on level l for A x = b from x = 0 (x written); Ax non-null: also A x.
template <typename Scalar>
void AmgHierarchy<Scalar>::cycle(int l, const Scalar* b, Scalar* x, Scalar* Ax) const {
  const Level& L = levels_[static_cast<size_t>(l)];
  const Eigen::Index n = L.A.rows();
  if (l + 1 == levels()) {
    if (coarse_direct_) {
      Eigen::Map<VectorType>(x, n) = coarse_lu_.solve(Eigen::Map<const VectorType>(b, n));
      if (Ax) csr_multiply(L.A, x, Ax);
    } else {  // smoothing only: a forward sweep from zero, a backward one
      for (int i = 0; i < static_cast<int>(n); ++i)
        forward_row_from_zero(L.A, L.inv_diag.data(), b, x, i);
      correct_backward(L, b, x, nullptr, Ax);
    }
    return;
  }
  const Level& C = levels_[static_cast<size_t>(l) + 1];
  forward_restrict(L, b, x, C.b.data());
  cycle(l + 1, C.b.data(), C.x.data(), nullptr);
  correct_backward(L, b, x, C.x.data(), Ax);
}

template <typename Scalar>
void AmgHierarchy<Scalar>::apply(const Scalar* b, Scalar* x, Scalar* Ax) const {
  cycle(0, b, x, Ax);  // the finest level on b and x themselves
}

template class AmgHierarchy<double>;
template class AmgHierarchy<std::complex<double>>;

}  // namespace daekit
