// Callback<R(Args...)>: a user function that may take the problem's parameter vector p as an
// extra LAST argument. Both forms are accepted wherever daekit takes a callback:
//
//   dae.f = [](double t, VecIn y, VecOut out) { ... };            // no parameters
//   dae.f = [](double t, VecIn y, VecOut out, VecIn p) { ... };   // reads p
//
// The solver passes its own copy of the problem's p (a solve never modifies the problem; event
// actions may change the solve's copy, which is how discrete modes are kept).
#pragma once

#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>

#include "daekit/core/types.hpp"

namespace daekit {

namespace detail {
// How a callback's parameter travels inside the stored std::function: the Eigen::Ref vectors
// and matrices by const reference (a read-only Ref owns a fallback copy and has a destructor;
// an output Ref is written through its copy), so that a call copies them at most once (into a
// user function that takes them by value); everything else as declared.
template <typename T>
struct Passed {
  using type = T;
};
template <>
struct Passed<VecIn> {
  using type = const VecIn&;
};
template <>
struct Passed<VecOut> {
  using type = const VecOut&;
};
template <>
struct Passed<MatOut> {
  using type = const MatOut&;
};
template <typename T>
using passed_t = typename Passed<T>::type;
}  // namespace detail

template <typename Signature>
class Callback;

template <typename R, typename... Args>
class Callback<R(Args...)> {
 public:
  using Function = std::function<R(detail::passed_t<Args>..., const VecIn&)>;

  Callback() = default;
  Callback(std::nullptr_t) {}  // NOLINT: implicit like std::function
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Callback> &&
                                                    (std::is_invocable_r_v<R, F&, Args..., VecIn> ||
                                                     std::is_invocable_r_v<R, F&, Args...>)>>
  Callback(F f) {  // NOLINT: implicit like std::function
    if constexpr (std::is_invocable_r_v<R, F&, Args..., VecIn>) {
      fn_ = std::move(f);
    } else {
      // parameters by reference: no extra copies of the Eigen::Ref arguments on the way
      fn_ = [g = std::move(f)](detail::passed_t<Args>... args, const VecIn&) mutable -> R {
        return g(args...);
      };
    }
  }

  explicit operator bool() const { return static_cast<bool>(fn_); }
  /// The stored function object if it is a T taking p (std::function::target), else null.
  template <typename T>
  T* target() noexcept {
    return fn_.template target<T>();
  }
  /// Called as f(args..., p) with parameters or f(args...) without (p empty: for user code and
  /// tests that call a problem's functions). Arguments are forwarded, not copied on the way.
  template <typename... A>
  R operator()(A&&... a) const {
    if constexpr (sizeof...(A) == sizeof...(Args)) {
      static const Vector empty;
      return fn_(std::forward<A>(a)..., empty);
    } else {
      static_assert(sizeof...(A) == sizeof...(Args) + 1, "a callback takes its arguments [, p]");
      return fn_(std::forward<A>(a)...);
    }
  }

 private:
  Function fn_;
};

}  // namespace daekit
