// Pack<W>: W doubles that one instruction processes together (W = 2: an SSE2 register; W = 1: a
// plain double), with the few operations the methods' row loops need. A loop body written once
// for Pack<W> does in every lane exactly the scalar operation, so its packed rows and its scalar
// tail give the values of the scalar loop to the bit (no fused multiply-add, no reordering).
// Used where a loop runs over the components of small systems (radau5's Newton iteration: two
// rows per instruction), where the compiler does not vectorise (strided columns, aliasing).
// Internal header (not installed).
#pragma once

#include <complex>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace daekit {

template <int W>
struct Pack;

template <>
struct Pack<1> {
  double v;
  static Pack load(const double* p) { return {*p}; }
  /// The value of a pair made by splat_pair() (its first entry).
  static Pack pair(const double* p) { return {*p}; }
  static Pack splat(double x) { return {x}; }
  void store(double* p) const { *p = v; }
  /// re, im of one complex number.
  static void load_complex(const std::complex<double>* c, Pack& re, Pack& im) {
    re.v = c->real();
    im.v = c->imag();
  }
  static void store_complex(std::complex<double>* c, Pack re, Pack im) {
    *c = std::complex<double>(re.v, im.v);
  }
  friend Pack operator+(Pack a, Pack b) { return {a.v + b.v}; }
  friend Pack operator-(Pack a, Pack b) { return {a.v - b.v}; }
  friend Pack operator*(Pack a, Pack b) { return {a.v * b.v}; }
  friend Pack operator/(Pack a, Pack b) { return {a.v / b.v}; }
};

#if defined(__SSE2__)
constexpr int kPackWidth = 2;

template <>
struct Pack<2> {
  __m128d v;
  static Pack load(const double* p) { return {_mm_loadu_pd(p)}; }
  /// A 16-byte aligned pair of equal values (splat_pair()), read as one operand.
  static Pack pair(const double* p) { return {_mm_load_pd(p)}; }
  static Pack splat(double x) { return {_mm_set1_pd(x)}; }
  void store(double* p) const { _mm_storeu_pd(p, v); }
  /// The real and imaginary parts of c[0], c[1].
  static void load_complex(const std::complex<double>* c, Pack& re, Pack& im) {
    const double* d = reinterpret_cast<const double*>(c);
    const __m128d a = _mm_loadu_pd(d), b = _mm_loadu_pd(d + 2);
    re.v = _mm_unpacklo_pd(a, b);
    im.v = _mm_unpackhi_pd(a, b);
  }
  static void store_complex(std::complex<double>* c, Pack re, Pack im) {
    double* d = reinterpret_cast<double*>(c);
    _mm_storeu_pd(d, _mm_unpacklo_pd(re.v, im.v));
    _mm_storeu_pd(d + 2, _mm_unpackhi_pd(re.v, im.v));
  }
  friend Pack operator+(Pack a, Pack b) { return {_mm_add_pd(a.v, b.v)}; }
  friend Pack operator-(Pack a, Pack b) { return {_mm_sub_pd(a.v, b.v)}; }
  friend Pack operator*(Pack a, Pack b) { return {_mm_mul_pd(a.v, b.v)}; }
  friend Pack operator/(Pack a, Pack b) { return {_mm_div_pd(a.v, b.v)}; }
};
#else
constexpr int kPackWidth = 1;
#endif

/// body.template operator()<W>(i) for i = 0, W, 2W, ... with W = kPackWidth while W rows
/// remain, then W = 1 for the rest: a row loop over n components. N > 0: n = N known at
/// compile time, the loop written out (no loop control: the small systems' code path).
template <long N = 0, typename Body>
inline void for_rows(long n, Body&& body) {
  if constexpr (N > 0) {
    [&]<long... P>(std::integer_sequence<long, P...>) {
      (body.template operator()<kPackWidth>(P * kPackWidth), ...);
    }
    (std::make_integer_sequence<long, N / kPackWidth>{});
    [&]<long... P>(std::integer_sequence<long, P...>) {
      (body.template operator()<1>(N / kPackWidth * kPackWidth + P), ...);
    }
    (std::make_integer_sequence<long, N % kPackWidth>{});
  } else {
    long i = 0;
    for (; i + kPackWidth <= n; i += kPackWidth) body.template operator()<kPackWidth>(i);
    for (; i < n; ++i) body.template operator()<1>(i);
  }
}

/// out[0] = out[1] = x: a constant for Pack<W>::pair() (out 16-byte aligned).
inline void splat_pair(double x, double* out) { out[0] = out[1] = x; }

}  // namespace daekit
