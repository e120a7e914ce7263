#include "core/guard.hpp"

#include "core/format.hpp"

namespace daekit {

namespace {
std::string fmt(double x) { return format_number(x, 6); }
}  // namespace

std::string CallbackFailure::describe() const {
  switch (kind) {
    case Kind::None:
      return "";
    case Kind::Recoverable:
      return std::string(callback) + " reported a recoverable error at t = " + fmt(t) + ": " +
             message;
    case Kind::NonFinite:
      return std::string(callback) + " returned NaN/Inf at t = " + fmt(t) + " (" + message + ")";
    case Kind::Exception:
      return std::string(callback) + " threw at t = " + fmt(t) + ": " + message;
    case Kind::WrongSize:
      return std::string(callback) + " returned output of the wrong size at t = " + fmt(t) + ": " +
             message;
    case Kind::BrokenDeclaration:
      return std::string(callback) + " contradicts the problem's declaration at t = " + fmt(t) +
             ": " + message;
  }
  return "";
}

void CallGuard::record(CallbackFailure::Kind kind, const char* callback, double t,
                       const char* what) noexcept {
  if (failure_.fatal()) return;  // keep the first fatal failure
  try {
    failure_.kind = kind;
    failure_.callback = callback;
    failure_.t = t;
    failure_.message = what;
  } catch (...) {  // out of memory for the message: keep the kind
    failure_.message.clear();
  }
}

void CallGuard::non_finite(const char* callback, double t, int component) noexcept {
  if (failure_.fatal()) return;
  try {
    record(CallbackFailure::Kind::NonFinite, callback, t, "");
    failure_.message = "component " + std::to_string(component);
  } catch (...) {
  }
}

void CallGuard::wrong_size(const char* callback, double t, const std::string& what) noexcept {
  record(CallbackFailure::Kind::WrongSize, callback, t, what.c_str());
}

void CallGuard::broken_declaration(const char* callback, double t,
                                   const std::string& what) noexcept {
  record(CallbackFailure::Kind::BrokenDeclaration, callback, t, what.c_str());
}

}  // namespace daekit
