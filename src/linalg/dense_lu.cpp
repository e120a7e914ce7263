#include "linalg/dense_lu.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "linalg/linear_solver.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace daekit {

namespace {
bool finite_nonzero(double x) { return std::isfinite(x) && x != 0.0; }
bool finite_nonzero(const std::complex<double>& x) {
  return std::isfinite(x.real()) && std::isfinite(x.imag()) && x != std::complex<double>(0.0);
}
// Pivot magnitude: |x| for reals, |Re x| + |Im x| for complex numbers (LAPACK's CABS1): no
// hypot in the pivot search.
double magnitude(double x) { return std::abs(x); }
double magnitude(const std::complex<double>& x) { return std::abs(x.real()) + std::abs(x.imag()); }

// The pivot row of column `col` among rows k .. rows - 1: the first of the largest magnitudes.
// False if a candidate is NaN or Inf (then so is the sum of the magnitudes: one test per
// column).
template <typename Scalar>
inline bool pivot_row(const Scalar* col, int k, int rows, int* p) {
  int row = k;
  double best = magnitude(col[k]);
  double sum = best;
  for (int i = k + 1; i < rows; ++i) {
    const double m = magnitude(col[i]);
    sum += m;
    if (m > best) {
      best = m;
      row = i;
    }
  }
  *p = row;
  return std::isfinite(sum);
}

// pivot_row for a size N (a power of two) known at compile time: the same row (the first of
// the largest magnitudes among rows k .. N - 1) chosen by a tree of comparisons (pairs, then
// pairs of pairs, the right one only if strictly larger, so ties keep the lower row) instead of
// one chain through all candidates: the choice, on the path of every column's elimination,
// waits for log2 of the candidates' count instead of N - k - 1 comparisons. The tree spans the
// last W rows, the smallest power of two that holds rows k .. N - 1; rows above k in it take
// part as -1 (no magnitude is below 0). The sum of the magnitudes (the finiteness test) is the
// chain's, in the same order.
template <int N, int W, typename Scalar>
inline bool pivot_row_tree(const Scalar* col, int k, int* p) {
  static_assert(std::has_single_bit(static_cast<unsigned>(N)) && W >= 1 && W <= N);
  if constexpr (W > 1)
    if (k >= N - W / 2) return pivot_row_tree<N, W / 2>(col, k, p);
  constexpr int o = N - W;  // the tree's first row
  double v[W];
  int row[W];
#pragma GCC unroll 16
  for (int i = 0; i < W; ++i) {
    v[i] = o + i >= k ? magnitude(col[o + i]) : -1.0;
    row[i] = o + i;
  }
  double sum = v[k - o];
  for (int i = k - o + 1; i < W; ++i) sum += v[i];
#pragma GCC unroll 8
  for (int w = 1; w < W; w *= 2)
#pragma GCC unroll 16
    for (int i = 0; i + w < W; i += 2 * w)
      if (v[i + w] > v[i]) {
        v[i] = v[i + w];
        row[i] = row[i + w];
      }
  *p = row[0];
  return std::isfinite(sum);
}

// The pivot search of the fixed-size loop kernels: the tree at n = 8 (radau5 on the transistor
// 4-6 % less time, interleaved against the chain), the chain at the other sizes (the tree there,
// from 4 on for complex and 8 on for real matrices: pendulum (n = 5), Akzo (6), truck-index3
// (11) and Andrews (13) within +-1.3 %, no gain; docs/results/small-problem-speed.md).
constexpr int kTreePivotSize = 8;
template <int N, typename Scalar>
inline bool pivot_row_fixed(const Scalar* col, int k, int* p) {
  if constexpr (N == kTreePivotSize) return pivot_row_tree<N, N>(col, k, p);
  return pivot_row(col, k, N, p);
}

// x <- x - a b with b fixed over many a (the updates of the kernels below). For complex numbers
// on SSE2 one packed (re, im) pair per operation: a b = (a_re b_re - a_im b_im,
// a_im b_re + a_re b_im) = a * (b_re, b_re) + (a_im, a_re) * (-b_im, b_im), the products and
// sums of the straightforward formula (Fortran's rules, -fcx-fortran-rules) to the bit; x - y
// and x + (-y) are the same operation. Packed: from n = 4 on (below, setting up b's pairs
// costs more than it saves: Van der Pol, n = 2, +1 %).
template <typename Scalar, bool Packed>
struct SubtractProduct {
  explicit SubtractProduct(Scalar b) : b_(b) {}
  void operator()(Scalar& x, const Scalar& a) const { x -= a * b_; }
  Scalar b_;
};
#if defined(__SSE2__)
template <>
struct SubtractProduct<std::complex<double>, true> {
  explicit SubtractProduct(std::complex<double> b)
      : re_(_mm_set1_pd(b.real())), im_(_mm_set_pd(b.imag(), -b.imag())) {}
  void operator()(std::complex<double>& x, const std::complex<double>& a) const {
    double* xp = reinterpret_cast<double*>(&x);
    const __m128d av = _mm_loadu_pd(reinterpret_cast<const double*>(&a));
    const __m128d swapped = _mm_shuffle_pd(av, av, 1);
    const __m128d product = _mm_add_pd(_mm_mul_pd(av, re_), _mm_mul_pd(swapped, im_));
    _mm_storeu_pd(xp, _mm_sub_pd(_mm_loadu_pd(xp), product));
  }
  __m128d re_, im_;
};
#endif

// Up to these sizes the fixed-size kernels are straight-line code (every loop unrolled: no
// loop control, no peeling for vectorisation; radau5 at 1e-7: transistor (n = 8) 41.4 -> 37.0 M,
// pendulum (n = 5) 4.20 -> 3.81 M instructions per solve, the same results to the bit). Above
// them the loops stay loops over the size known at compile time (the compiler unrolls the inner
// ones partly). Chosen by time, not instructions (interleaved runs of radau5 at 1e-7,
// docs/results/small-problem-speed.md): straight-line code outgrows the instruction cache
// (unrolled up to 16, Andrews' eliminated system (n = 13) took 6 % fewer instructions but 20 %
// more time, 2026-11-24). The complex factor kernel unrolled at n = 8 was 20 KB of code, 1.2 M
// simulated L1i misses per transistor solve; as loops from n = 4 on the transistor takes 9 %
// less time (+1.7 % instructions). The real factor kernel at n = 8 (7 KB, then the most missed
// code) as loops: 4 % less time (+5 % instructions); at n = 6, 7 unrolled is as fast. The
// solve kernels (2 and 4.5 KB at n = 8) stay unrolled: as loops the same time and 3.5 % more
// instructions, unrolled they keep x in registers.
template <typename Scalar>
constexpr int kMaxUnrolledFactor = std::is_same_v<Scalar, double> ? 7 : 3;
constexpr int kMaxUnrolledSolve = 10;
// From this size on the unrolled solve kernels take the row interchanges as one gather
// (interchanged_rows, made once per factorisation): transistor (n = 8) 7 % less time; at
// n = 4, 5 the interchanges in place stay faster (pendulum 2.7 % slower gathered).
constexpr int kMinGather = 6;
// From this size on the unrolled solve kernels keep x in registers (below, in memory: Van der
// Pol, n = 2, took 0.5 % more instructions with x in registers, no less time).
constexpr int kMinInRegisters = 4;

// x == 0 (either sign of zero; NaN is not): for complex numbers one test of the bits of both
// parts instead of two floating-point comparisons with their unordered cases.
inline bool is_zero(double x) { return x == 0.0; }
inline bool is_zero(const std::complex<double>& x) {
  const auto bits = [](double d) { return std::bit_cast<std::uint64_t>(d); };
  return ((bits(x.real()) | bits(x.imag())) << 1) == 0;
}

// factor_kernel's arithmetic for a size N known at compile time, every loop unrolled.
template <typename Scalar, int N>
bool factor_kernel_unrolled(Scalar* a, int* perm, Scalar* inv_diag) {
#pragma GCC unroll 16
  for (int k = 0; k < N; ++k) {
    Scalar* col_k = a + k * N;
    int p = k;
    if (!pivot_row(col_k, k, N, &p)) return false;
    perm[k] = p;
    if (p != k)
#pragma GCC unroll 16
      for (int j = 0; j < N; ++j) std::swap(a[k + N * j], a[p + N * j]);
    const Scalar pivot = col_k[k];
    if (!finite_nonzero(pivot)) return false;
    const Scalar inv = Scalar(1) / pivot;
    inv_diag[k] = inv;
#pragma GCC unroll 16
    for (int i = k + 1; i < N; ++i) col_k[i] *= inv;
#pragma GCC unroll 16
    for (int j = k + 1; j < N; ++j) {
      Scalar* col_j = a + N * j;
      const Scalar a_kj = col_j[k];
      if (is_zero(a_kj)) continue;
      const SubtractProduct<Scalar, (N >= 4)> update(a_kj);
#pragma GCC unroll 16
      for (int i = k + 1; i < N; ++i) update(col_j[i], col_k[i]);
    }
  }
  return true;
}

#if defined(__SSE2__)
// factor_kernel's arithmetic for real matrices of a size N known at compile time above
// kMaxUnrolledFactor, as compact loops: each column update of rows k + 1 .. N - 1 as one row
// alone if k + 1 is odd, then pairs of rows (one packed product and difference each: the
// scalar operations on two rows, so the same bits) and a last row alone if N is odd. The
// compiler's own loops over the same rows (vectorised with peeling and remainder code for
// every trip count) took twice the instructions.
template <int N>
bool factor_kernel_paired(double* a, int* perm, double* inv_diag) {
  for (int k = 0; k < N; ++k) {
    double* col_k = a + k * N;
    int p = k;
    if (!pivot_row_fixed<N>(col_k, k, &p)) return false;
    perm[k] = p;
    if (p != k)
#pragma GCC unroll 16
      for (int j = 0; j < N; ++j) std::swap(a[k + N * j], a[p + N * j]);
    const double pivot = col_k[k];
    if (!finite_nonzero(pivot)) return false;
    const double inv = 1.0 / pivot;
    inv_diag[k] = inv;
    const int first_pair = (k + 2) & ~1;  // the first even row after k
#pragma GCC unroll 1
    for (int i = k + 1; i < N; ++i) col_k[i] *= inv;
#pragma GCC unroll 1
    for (int j = k + 1; j < N; ++j) {
      double* col_j = a + N * j;
      const double a_kj = col_j[k];
      if (a_kj == 0.0) continue;
      if (first_pair != k + 1) col_j[k + 1] -= col_k[k + 1] * a_kj;
      const __m128d b = _mm_set1_pd(a_kj);
#pragma GCC unroll 1
      for (int i = first_pair; i + 1 < N; i += 2)
        _mm_storeu_pd(col_j + i,
                      _mm_sub_pd(_mm_loadu_pd(col_j + i), _mm_mul_pd(_mm_loadu_pd(col_k + i), b)));
      if constexpr (N % 2 == 1) col_j[N - 1] -= col_k[N - 1] * a_kj;
    }
  }
  return true;
}
#endif

// Right-looking Gaussian elimination with partial pivoting on the column-major storage; the
// rank-1 update of the trailing block is done column by column so that it runs contiguously.
// Every pivot candidate is checked for finiteness: a NaN or Inf below the pivot would otherwise
// pass into L unnoticed (it is never the largest candidate), and one in U reaches the pivot
// candidates of its column through the update, so any non-finite entry makes factor() fail.
// N > 0: the size known at compile time (the small-system kernels below, whose loops the
// compiler unrolls and vectorises); N = 0: the size n given at run time. The same arithmetic
// in the same order either way, so the factors agree to the bit.
template <typename Scalar, int N>
bool factor_kernel(Scalar* a, int n_runtime, int* perm, Scalar* inv_diag) {
  if constexpr (N > 0 && N <= kMaxUnrolledFactor<Scalar>)
    return factor_kernel_unrolled<Scalar, N>(a, perm, inv_diag);
#if defined(__SSE2__)
  if constexpr (std::is_same_v<Scalar, double> && N > kMaxUnrolledFactor<Scalar>)
    return factor_kernel_paired<N>(a, perm, inv_diag);
#endif
  const int n = N > 0 ? N : n_runtime;
  const auto at = [a, n](int i, int j) -> Scalar& { return a[i + static_cast<long>(n) * j]; };
  for (int k = 0; k < n; ++k) {
    int p = k;
    if constexpr (N > 0) {
      if (!pivot_row_fixed<N>(&at(0, k), k, &p)) return false;
    } else {
      if (!pivot_row(&at(0, k), k, n, &p)) return false;
    }
    perm[k] = p;
    if (p != k)
      for (int j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
    const Scalar pivot = at(k, k);
    if (!finite_nonzero(pivot)) return false;
    const Scalar inv = Scalar(1) / pivot;
    inv_diag[k] = inv;
    Scalar* col_k = &at(0, k);
    for (int i = k + 1; i < n; ++i) col_k[i] *= inv;
    for (int j = k + 1; j < n; ++j) {
      Scalar* col_j = &at(0, j);
      const Scalar a_kj = col_j[k];
      if (is_zero(a_kj)) continue;
      const SubtractProduct<Scalar, (N >= 4)> update(a_kj);
      for (int i = k + 1; i < n; ++i) update(col_j[i], col_k[i]);
    }
  }
  return true;
}

// One entry of x held in a register by solve_kernel_unrolled, with the operations of the
// substitutions on it: the scalar itself, or for complex numbers from n = 4 on a packed
// (re, im) pair (SSE2) with the products and sums of SubtractProduct and of the complex product
// under Fortran's rules, so the same results to the bit.
template <typename Scalar, bool Packed>
struct InRegister {
  using Type = Scalar;
  using Multiplier = Scalar;
  static Type load(const Scalar* p) { return *p; }
  static void store(Scalar* p, Type v) { *p = v; }
  static bool zero(Type v) { return is_zero(v); }
  static Multiplier multiplier(Type v) { return v; }
  static Type subtract_product(Type v, const Scalar* a, Multiplier b) { return v - *a * b; }
  static Type times(Type v, const Scalar* s) { return v * *s; }
};
#if defined(__SSE2__)
template <>
struct InRegister<std::complex<double>, true> {
  using Scalar = std::complex<double>;
  using Type = __m128d;
  struct Multiplier {
    __m128d re, im;  // (b_re, b_re) and (-b_im, b_im)
  };
  static const double* parts(const Scalar* p) { return reinterpret_cast<const double*>(p); }
  static Type load(const Scalar* p) { return _mm_loadu_pd(parts(p)); }
  static void store(Scalar* p, Type v) { _mm_storeu_pd(reinterpret_cast<double*>(p), v); }
  static bool zero(Type v) { return _mm_movemask_pd(_mm_cmpeq_pd(v, _mm_setzero_pd())) == 3; }
  static Multiplier multiplier(Type v) {
    return {_mm_unpacklo_pd(v, v), _mm_xor_pd(_mm_unpackhi_pd(v, v), _mm_set_pd(0.0, -0.0))};
  }
  // v - a b = v - (a * (b_re, b_re) + (a_im, a_re) * (-b_im, b_im))
  static Type product(Type a, Multiplier b) {
    return _mm_add_pd(_mm_mul_pd(a, b.re), _mm_mul_pd(_mm_shuffle_pd(a, a, 1), b.im));
  }
  static Type subtract_product(Type v, const Scalar* a, Multiplier b) {
    return _mm_sub_pd(v, product(load(a), b));
  }
  static Type times(Type v, const Scalar* s) { return product(v, multiplier(load(s))); }
};
#endif

// The row interchanges perm of a factorisation as one gather: (P x)_i = x[rows[i]] (the
// interchanges applied to 0, 1, ..., n - 1).
inline void interchanged_rows(const int* perm, int n, int* rows) {
  for (int i = 0; i < n; ++i) rows[i] = i;
  for (int k = 0; k < n; ++k) std::swap(rows[k], rows[perm[k]]);
}

// solve_kernel for a size N known at compile time, every loop unrolled and x in registers
// from the row interchanges to the end: in memory every update of x[i] waited for the store of
// the previous one (the substitutions are a chain through x), and each interchange for the
// previous one's. p: the interchanges, from N = kMinGather on their gather (interchanged_rows).
template <typename Scalar, int N>
void solve_kernel_unrolled(const Scalar* a, const int* p, const Scalar* inv_diag, Scalar* x) {
  using R = InRegister<Scalar, (N >= 4)>;
  typename R::Type v[N];
  if constexpr (N >= kMinGather) {
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i) v[i] = R::load(x + p[i]);
  } else {
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i)
      if (p[i] != i) std::swap(x[i], x[p[i]]);
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i) v[i] = R::load(x + i);
  }
#pragma GCC unroll 16
  for (int k = 0; k < N - 1; ++k) {  // forward substitution with the unit lower triangle
    if (R::zero(v[k])) continue;
    const typename R::Multiplier b = R::multiplier(v[k]);
#pragma GCC unroll 16
    for (int i = k + 1; i < N; ++i) v[i] = R::subtract_product(v[i], a + k * N + i, b);
  }
#pragma GCC unroll 16
  for (int k = N - 1; k >= 0; --k) {  // back substitution
    v[k] = R::times(v[k], inv_diag + k);
    if (R::zero(v[k])) continue;
    const typename R::Multiplier b = R::multiplier(v[k]);
#pragma GCC unroll 16
    for (int i = 0; i < k; ++i) v[i] = R::subtract_product(v[i], a + k * N + i, b);
  }
#pragma GCC unroll 16
  for (int i = 0; i < N; ++i) R::store(x + i, v[i]);
}

// Forward and back substitution, as dense_lu_solve in dense_lu.hpp (same order of operations).
// p: the row interchanges of the factorisation, or for kMinGather <= N <= kMaxUnrolledSolve
// their gather (interchanged_rows).
template <typename Scalar, int N>
void solve_kernel(const Scalar* a, int n_runtime, const int* p, const Scalar* inv_diag, Scalar* x) {
  if constexpr (N >= kMinInRegisters && N <= kMaxUnrolledSolve)
    return solve_kernel_unrolled<Scalar, N>(a, p, inv_diag, x);
  if constexpr (N > 0 && N < kMinInRegisters) {  // the same, unrolled, x in memory
#pragma GCC unroll 16
    for (int i = 0; i < N; ++i)
      if (p[i] != i) std::swap(x[i], x[p[i]]);
#pragma GCC unroll 16
    for (int k = 0; k < N - 1; ++k) {
      const Scalar xk = x[k];
      if (is_zero(xk)) continue;
#pragma GCC unroll 16
      for (int i = k + 1; i < N; ++i) x[i] -= a[k * N + i] * xk;
    }
#pragma GCC unroll 16
    for (int k = N - 1; k >= 0; --k) {
      x[k] *= inv_diag[k];
      const Scalar xk = x[k];
      if (is_zero(xk)) continue;
#pragma GCC unroll 16
      for (int i = 0; i < k; ++i) x[i] -= a[k * N + i] * xk;
    }
    return;
  }
  const int n = N > 0 ? N : n_runtime;
  for (int i = 0; i < n; ++i)
    if (p[i] != i) std::swap(x[i], x[p[i]]);
  for (int k = 0; k < n - 1; ++k) {  // forward substitution with the unit lower triangle
    const Scalar xk = x[k];
    if (is_zero(xk)) continue;
    const Scalar* col = a + static_cast<long>(k) * n;
    const SubtractProduct<Scalar, (N >= 4)> update(xk);
    for (int i = k + 1; i < n; ++i) update(x[i], col[i]);
  }
  for (int k = n - 1; k >= 0; --k) {  // back substitution
    x[k] *= inv_diag[k];
    const Scalar xk = x[k];
    if (is_zero(xk)) continue;
    const Scalar* col = a + static_cast<long>(k) * n;
    const SubtractProduct<Scalar, (N >= 4)> update(xk);
    for (int i = 0; i < k; ++i) update(x[i], col[i]);
  }
}

// ---------------------------------------------------------------------------------------------
// Large matrices: recursive blocked LU (Toledo 1997; LAPACK's dgetrf2), n >= the size of
// dense_lu_blocked_min_size() (dense_lu.hpp).
// The right-looking kernel above streams the whole trailing matrix through the cache once per
// column (2/3 n^3 flops at memory speed); the recursion splits the columns [A1 A2] in halves,
//     factor [A11; A21] = P1 [L11; L21] U11            (recursively)
//     apply P1 to [A12; A22];  U12 = L11^{-1} A12       (recursive triangular solve)
//     A22 <- A22 - L21 U12                              (matrix product)
//     factor A22 = P2 L22 U22                           (recursively), apply P2 to L21,
// so that almost all flops are in matrix products, done by Eigen's cache-blocked GEMM kernel
// (general_matrix_matrix_product, the kernel of Eigen's own PartialPivLU) with packing buffers
// owned by the caller (BlockedWorkspace): no allocation in factor(). Panels of at most kLeaf
// columns use a right-looking kernel (the one above, on a rows x cols panel with leading
// dimension lda), with the same pivot rule (largest |x|, |Re| + |Im| for complex numbers) and
// the same checks: each column's pivot candidates are the entries of that column on and below
// the diagonal after every update from the columns before it, and an entry above the diagonal
// reaches them through the product (a NaN or Inf times anything, zero included, is NaN), so a
// zero or non-finite pivot and any non-finite entry make factor() return false. The factors
// are those of the right-looking kernel up to round-off (the same pivots unless two
// candidates tie to round-off).
constexpr int kLeaf = 16;

// Unblocked right-looking LU of a rows x cols panel (rows >= cols) with leading dimension lda;
// row interchanges within the panel's columns only (the caller applies them elsewhere); perm
// relative to the panel's first row.
template <typename Scalar>
bool panel_kernel(Scalar* a, long lda, int rows, int cols, int* perm, Scalar* inv_diag) {
  for (int k = 0; k < cols; ++k) {
    Scalar* col_k = a + lda * k;
    int p = k;
    if (!pivot_row(col_k, k, rows, &p)) return false;
    perm[k] = p;
    if (p != k)
      for (int j = 0; j < cols; ++j) std::swap(a[k + lda * j], a[p + lda * j]);
    const Scalar pivot = col_k[k];
    if (!finite_nonzero(pivot)) return false;
    const Scalar inv = Scalar(1) / pivot;
    inv_diag[k] = inv;
    for (int i = k + 1; i < rows; ++i) col_k[i] *= inv;
    for (int j = k + 1; j < cols; ++j) {
      Scalar* col_j = a + lda * j;
      const Scalar a_kj = col_j[k];
      if (is_zero(a_kj)) continue;
      for (int i = k + 1; i < rows; ++i) col_j[i] -= col_k[i] * a_kj;
    }
  }
  return true;
}

// The packing buffers of Eigen's GEMM kernel for products up to n x n, allocated once.
template <typename Scalar>
class BlockedWorkspace {
 public:
  BlockedWorkspace() = default;
  explicit BlockedWorkspace(int n) { resize(n); }
  void resize(int n) {
    // Eigen's depth blocking for the largest product: a bound on every later kc
    Eigen::Index k = n, m = n, c = n;
    Eigen::internal::computeProductBlockingSizes<Scalar, Scalar, 1, Eigen::Index>(k, m, c,
                                                                                  Eigen::Index(1));
    kc_cap_ = k;
    block_a_.resize(kc_cap_ * n);
    block_b_.resize(kc_cap_ * n);
    n_ = n;
  }
  /// C (rows x cols, ldc) -= A (rows x depth, lda) B (depth x cols, ldb), column-major.
  void subtract_product(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth, const Scalar* A,
                        long lda, const Scalar* B, long ldb, Scalar* C, long ldc) {
    if (rows == 0 || cols == 0 || depth == 0) return;
    Eigen::Index kc = depth, mc = rows, nc = cols;  // Eigen's blocking for this shape
    Eigen::internal::computeProductBlockingSizes<Scalar, Scalar, 1, Eigen::Index>(kc, mc, nc,
                                                                                  Eigen::Index(1));
    kc = std::min<Eigen::Index>(kc, kc_cap_);
    mc = std::min<Eigen::Index>(mc, n_);
    nc = std::min<Eigen::Index>(nc, n_);
    Blocking blocking(block_a_.data(), block_b_.data(), mc, nc, kc);
    Eigen::internal::general_matrix_matrix_product<Eigen::Index, Scalar, Eigen::ColMajor, false,
                                                   Scalar, Eigen::ColMajor, false, Eigen::ColMajor,
                                                   1>::run(rows, cols, depth, A, lda, B, ldb, C, 1,
                                                           ldc, Scalar(-1), blocking, nullptr);
  }

 private:
  // Eigen's blocking descriptor pointing at our buffers (level3_blocking's members are
  // protected: Eigen's own gemm_blocking_space sets them the same way)
  struct Blocking : Eigen::internal::level3_blocking<Scalar, Scalar> {
    Blocking(Scalar* a, Scalar* b, Eigen::Index mc, Eigen::Index nc, Eigen::Index kc) {
      this->m_blockA = a;
      this->m_blockB = b;
      this->m_mc = mc;
      this->m_nc = nc;
      this->m_kc = kc;
    }
  };
  Eigen::Matrix<Scalar, Eigen::Dynamic, 1> block_a_, block_b_;
  Eigen::Index kc_cap_ = 0, n_ = 0;
};

// B (m x cols, ldb) <- L^{-1} B for the unit lower triangle L (m x m, lda): recursive halves,
// the coupling block by a product.
template <typename Scalar>
void unit_lower_solve(const Scalar* L, long lda, int m, Scalar* B, long ldb, int cols,
                      BlockedWorkspace<Scalar>& ws) {
  if (m <= kLeaf) {  // forward substitution, four columns of B at a time (each L column once)
    int j = 0;
    for (; j + 4 <= cols; j += 4) {
      Scalar* b0 = B + ldb * j;
      Scalar* b1 = b0 + ldb;
      Scalar* b2 = b1 + ldb;
      Scalar* b3 = b2 + ldb;
      for (int k = 0; k < m - 1; ++k) {
        const Scalar* l = L + lda * k;
        const Scalar x0 = b0[k], x1 = b1[k], x2 = b2[k], x3 = b3[k];
        for (int i = k + 1; i < m; ++i) {
          const Scalar li = l[i];
          b0[i] -= li * x0;
          b1[i] -= li * x1;
          b2[i] -= li * x2;
          b3[i] -= li * x3;
        }
      }
    }
    for (; j < cols; ++j) {
      Scalar* b = B + ldb * j;
      for (int k = 0; k < m - 1; ++k) {
        const Scalar bk = b[k];
        const Scalar* l = L + lda * k;
        for (int i = k + 1; i < m; ++i) b[i] -= l[i] * bk;
      }
    }
    return;
  }
  const int m1 = m / 2;
  unit_lower_solve(L, lda, m1, B, ldb, cols, ws);
  ws.subtract_product(m - m1, cols, m1, L + m1, lda, B, ldb, B + m1, ldb);
  unit_lower_solve(L + m1 + lda * m1, lda, m - m1, B + m1, ldb, cols, ws);
}

// Recursive LU of the rows x cols panel a (rows >= cols, leading dimension lda); perm relative
// to the panel's first row, interchanges applied to the panel's columns.
template <typename Scalar>
bool recursive_factor(Scalar* a, long lda, int rows, int cols, int* perm, Scalar* inv_diag,
                      BlockedWorkspace<Scalar>& ws) {
  if (cols <= kLeaf) return panel_kernel(a, lda, rows, cols, perm, inv_diag);
  const int n1 = cols / 2, n2 = cols - n1;
  Scalar* right = a + lda * n1;
  if (!recursive_factor(a, lda, rows, n1, perm, inv_diag, ws)) return false;
  for (int i = 0; i < n1; ++i)
    if (perm[i] != i)
      for (int j = 0; j < n2; ++j) std::swap(right[i + lda * j], right[perm[i] + lda * j]);
  unit_lower_solve(a, lda, n1, right, lda, n2, ws);                                  // U12
  ws.subtract_product(rows - n1, n2, n1, a + n1, lda, right, lda, right + n1, lda);  // A22
  if (!recursive_factor(right + n1, lda, rows - n1, n2, perm + n1, inv_diag + n1, ws)) return false;
  for (int i = n1; i < cols; ++i) {
    perm[i] += n1;
    if (perm[i] != i)
      for (int j = 0; j < n1; ++j) std::swap(a[i + lda * j], a[perm[i] + lda * j]);
  }
  return true;
}

// The kernels of one size: run-time size for N = 0. solve_gathers: solve takes the gather of
// the row interchanges (interchanged_rows) instead of the interchanges.
template <typename Scalar>
struct LuKernels {
  bool (*factor)(Scalar*, int, int*, Scalar*, int*);
  void (*solve)(const Scalar*, int, const int*, const Scalar*, Scalar*);
  bool solve_gathers;
};

constexpr int kMaxFixed = 16;  // fixed-size kernels for n = 1 .. kMaxFixed

// factor_kernel for the solver: also the gather of the interchanges (rows) for the solve
// kernels that take one.
template <typename Scalar, int N>
bool factor_and_gather(Scalar* a, int n, int* perm, Scalar* inv_diag, int* rows) {
  if (!factor_kernel<Scalar, N>(a, n, perm, inv_diag)) return false;
  if constexpr (N >= kMinGather && N <= kMaxUnrolledSolve) interchanged_rows(perm, N, rows);
  return true;
}

template <typename Scalar, int... N>
LuKernels<Scalar> kernels_for(int n, std::integer_sequence<int, N...>) {
  LuKernels<Scalar> k{&factor_and_gather<Scalar, 0>, &solve_kernel<Scalar, 0>, false};
  ((n == N + 1 ? (k = {&factor_and_gather<Scalar, N + 1>, &solve_kernel<Scalar, N + 1>,
                       N + 1 <= kMaxUnrolledSolve && N + 1 >= kMinGather},
                  0)
               : 0),
   ...);
  return k;
}

template <typename Scalar>
LuKernels<Scalar> lu_kernels(int n) {
  return kernels_for<Scalar>(n, std::make_integer_sequence<int, kMaxFixed>{});
}

}  // namespace

template <typename Scalar>
bool dense_lu_factor(Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>& lu,
                     Eigen::VectorXi& perm, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& inv_diag) {
  const int n = static_cast<int>(lu.rows());
  if (perm.size() != n) perm.resize(n);
  if (inv_diag.size() != n) inv_diag.resize(n);
  if (n >= dense_lu_blocked_min_size<Scalar>()) {
    BlockedWorkspace<Scalar> ws(n);
    return recursive_factor(lu.data(), n, n, n, perm.data(), inv_diag.data(), ws);
  }
  return factor_kernel<Scalar, 0>(lu.data(), n, perm.data(), inv_diag.data());
}

template bool dense_lu_factor<double>(Eigen::MatrixXd&, Eigen::VectorXi&, Eigen::VectorXd&);
template bool dense_lu_factor<std::complex<double>>(Eigen::MatrixXcd&, Eigen::VectorXi&,
                                                    Eigen::VectorXcd&);

namespace {

// The dense backend: factors matrix().dense() in place.
template <typename Scalar>
class DenseSolver final : public LinearSolver<Scalar> {
 public:
  using typename LinearSolver<Scalar>::VectorType;
  DenseSolver(int n, int blocked_min_size)
      : kernels_(lu_kernels<Scalar>(n)), blocked_(n >= blocked_min_size) {
    this->matrix_.resize(n, Sparsity::dense());
    perm_.resize(n);
    rows_.resize(n);
    inv_diag_.resize(n);
    if (blocked_) workspace_.resize(n);
    solve_order_ = kernels_.solve_gathers ? rows_.data() : perm_.data();
  }
  const char* name() const override { return "dense LU"; }
  LinearSolverKind kind() const override { return LinearSolverKind::Dense; }
  bool factor() override {
    auto& a = this->matrix_.dense();
    const int n = static_cast<int>(a.rows());
    if (blocked_) {
      if (!recursive_factor(a.data(), n, n, n, perm_.data(), inv_diag_.data(), workspace_))
        return false;
      if (kernels_.solve_gathers) interchanged_rows(perm_.data(), n, rows_.data());
      return true;
    }
    return kernels_.factor(a.data(), n, perm_.data(), inv_diag_.data(), rows_.data());
  }
  void solve_in_place(Eigen::Ref<VectorType> b) const override {
    const auto& a = this->matrix_.dense();
    kernels_.solve(a.data(), static_cast<int>(a.rows()), solve_order_, inv_diag_.data(), b.data());
  }
  // A^T X = B with P A = L U (P the row swaps): U^T Z = B (forward), L^T W = Z (backward),
  // then X = P^T W (the swaps in reverse order); dot products along the columns of the
  // factors, up to four right-hand sides in one sweep.
  using typename LinearSolver<Scalar>::BlockType;
  bool supports_transposed_solve() const override { return true; }
  bool solve_transposed_in_place(Eigen::Ref<BlockType> B) const override {
    const int r = static_cast<int>(B.cols());
    int c = 0;
    for (; c + 4 <= r; c += 4) transposed_sweep<4>(B, c);
    if (r - c == 3) transposed_sweep<3>(B, c);
    if (r - c == 2) transposed_sweep<2>(B, c);
    if (r - c == 1) transposed_sweep<1>(B, c);
    return true;
  }

 private:
  template <int R>  // columns c .. c + R - 1 of B
  void transposed_sweep(Eigen::Ref<BlockType>& B, int c0) const {
    const auto& lu = this->matrix_.dense();
    const int n = static_cast<int>(lu.rows());
    const long ld = B.outerStride();
    const Scalar* a = lu.data();
    Scalar* x[R];
    for (int c = 0; c < R; ++c) x[c] = B.data() + (c0 + c) * ld;
    for (int k = 0; k < n; ++k) {  // U^T z = b
      const Scalar* col = a + static_cast<long>(k) * n;
      Scalar s[R];
      for (int c = 0; c < R; ++c) s[c] = x[c][k];
      for (int i = 0; i < k; ++i)
        for (int c = 0; c < R; ++c) s[c] -= col[i] * x[c][i];
      for (int c = 0; c < R; ++c) x[c][k] = s[c] * inv_diag_[k];
    }
    for (int k = n - 2; k >= 0; --k) {  // L^T w = z
      const Scalar* col = a + static_cast<long>(k) * n;
      Scalar s[R];
      for (int c = 0; c < R; ++c) s[c] = x[c][k];
      for (int i = k + 1; i < n; ++i)
        for (int c = 0; c < R; ++c) s[c] -= col[i] * x[c][i];
      for (int c = 0; c < R; ++c) x[c][k] = s[c];
    }
    for (int k = n - 1; k >= 0; --k)  // x = P^T w
      if (perm_[k] != k)
        for (int c = 0; c < R; ++c) std::swap(x[c][k], x[c][perm_[k]]);
  }

  DenseSolver(const DenseSolver&) = delete;  // solve_order_ points into its own members
  DenseSolver& operator=(const DenseSolver&) = delete;

  LuKernels<Scalar> kernels_;
  bool blocked_;
  BlockedWorkspace<Scalar> workspace_;
  Eigen::VectorXi perm_;
  Eigen::VectorXi rows_;    // interchanged_rows(perm_) for kernels_.solve_gathers
  const int* solve_order_;  // what kernels_.solve takes: rows_ or perm_
  VectorType inv_diag_;
};

}  // namespace

template <typename Scalar>
std::unique_ptr<LinearSolver<Scalar>> make_dense_solver(int n, int blocked_min_size) {
  if (blocked_min_size < 0) blocked_min_size = dense_lu_blocked_min_size<Scalar>();
  return std::make_unique<DenseSolver<Scalar>>(n, blocked_min_size);
}

template std::unique_ptr<LinearSolver<double>> make_dense_solver<double>(int, int);
template std::unique_ptr<LinearSolver<std::complex<double>>>
make_dense_solver<std::complex<double>>(int, int);

}  // namespace daekit
