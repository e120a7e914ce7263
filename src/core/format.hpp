// format_number: a double as the messages print it (the stream's default float format with
// `digits` significant digits: "0.5", "1e-08", "nan"), one helper for every layer's messages.
// Internal header (not installed).
#pragma once

#include <sstream>
#include <string>

namespace daekit {

inline std::string format_number(double x, int digits) {
  std::ostringstream os;
  os.precision(digits);
  os << x;
  return os.str();
}

}  // namespace daekit
