// CallGuard: every call into user code (f, F, Jacobians, event functions, event actions,
// projectors, monitors, initial-value callbacks) goes through one guard per solve, which turns
// what can go wrong into a record the integrator reports as a Status, so that nothing escapes
// solve():
//   - daekit::RecoverableError thrown, or NaN/Inf in the output: recoverable (the step is
//     rejected and retried smaller; Status::NonFiniteFunction if that never helps);
//   - any other exception, output of the wrong size, or output that contradicts a declared
//     structure (MassMatrixDae::second_order): fatal (Status::CallbackError at once,
//     the message names the callback, t and the cause).
// Internal header (not installed).
#pragma once

#include <cmath>
#include <exception>
#include <string>

#include "daekit/core/types.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace daekit {

/// True if no entry of x[0..n) is NaN or Inf: x * 0 is 0 for finite x and NaN otherwise, so one
/// pass of multiply-adds decides (a fraction of Eigen's allFinite()); two entries per SSE2
/// operation, four per iteration.
inline bool all_finite(const double* x, Eigen::Index n) {
  if (n < 4) {  // a few components: the packed set-up costs more than it saves
    for (Eigen::Index i = 0; i < n; ++i)
      if (!(x[i] * 0.0 == 0.0)) return false;
    return true;
  }
#if defined(__SSE2__)
  const __m128d zero = _mm_setzero_pd();
  __m128d a = zero, b = zero;
  Eigen::Index i = 0;
  for (; i + 4 <= n; i += 4) {
    a = _mm_add_pd(a, _mm_mul_pd(_mm_loadu_pd(x + i), zero));
    b = _mm_add_pd(b, _mm_mul_pd(_mm_loadu_pd(x + i + 2), zero));
  }
  if (i + 2 <= n) {
    a = _mm_add_pd(a, _mm_mul_pd(_mm_loadu_pd(x + i), zero));
    i += 2;
  }
  if (i < n) b = _mm_add_pd(b, _mm_mul_pd(_mm_load_sd(x + i), zero));
  // every lane is 0 unless an entry was NaN or Inf
  return _mm_movemask_pd(_mm_cmpeq_pd(_mm_add_pd(a, b), zero)) == 3;
#else
  double acc = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) acc += x[i] * 0.0;
  return acc == 0.0;
#endif
}

struct CallbackFailure {
  enum class Kind { None, Recoverable, NonFinite, Exception, WrongSize, BrokenDeclaration };
  Kind kind = Kind::None;
  const char* callback = "";  ///< e.g. "f", "the Jacobian", "event function 'valve'"
  double t = 0.0;
  std::string message;  ///< the exception's text, or what was wrong
  bool fatal() const {
    return kind == Kind::Exception || kind == Kind::WrongSize || kind == Kind::BrokenDeclaration;
  }
  /// "f threw at t = 0.5: <what>" and the like.
  std::string describe() const;
};

class CallGuard {
 public:
  /// Runs body(); returns false (and records why) if it threw. t is read when the failure is
  /// recorded (a body that calls back several times keeps it at the current call's time).
  template <typename Body>
  bool operator()(const char* callback, const double& t, Body&& body) noexcept {
    try {
      body();
      return true;
    } catch (const RecoverableError& e) {
      record(CallbackFailure::Kind::Recoverable, callback, t, e.what());
    } catch (const std::exception& e) {
      record(CallbackFailure::Kind::Exception, callback, t, e.what());
    } catch (...) {
      record(CallbackFailure::Kind::Exception, callback, t,
             "an exception not derived from std::exception");
    }
    return false;
  }

  /// Checks a vector a callback wrote: returns false and records the first NaN/Inf.
  template <typename V>
  bool check_finite(const char* callback, double t, const V& v) noexcept {
    if (all_finite(v.data(), v.size())) return true;
    for (Eigen::Index i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i])) {
        non_finite(callback, t, static_cast<int>(i));
        break;
      }
    return false;
  }

  void non_finite(const char* callback, double t, int component) noexcept;
  void wrong_size(const char* callback, double t, const std::string& what) noexcept;
  /// Output that contradicts what the problem declares about it (fatal).
  void broken_declaration(const char* callback, double t, const std::string& what) noexcept;

  /// A fatal failure is pending: the solve must stop.
  bool fatal() const { return failure_.fatal(); }
  const CallbackFailure& failure() const { return failure_; }
  /// Forgets a recoverable failure (after the step that caused it was retried successfully).
  void clear_recoverable() {
    if (failure_.kind != CallbackFailure::Kind::None && !failure_.fatal())
      failure_ = CallbackFailure{};
  }
  void clear() { failure_ = CallbackFailure{}; }

 private:
  void record(CallbackFailure::Kind kind, const char* callback, double t,
              const char* what) noexcept;
  CallbackFailure failure_;
};

}  // namespace daekit
