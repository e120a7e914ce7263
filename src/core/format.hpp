// format_number: a double as the messages print it (the stream's default float format with
// `digits` significant digits: "0.5", "1e-08", "nan"), one helper for every layer's messages.
// printf's %.*g is that format (the C++ standard defines the stream's default float output by
// it; a negative precision means 6, as for a stream), without the cost of constructing a
// stream. Internal header (not installed).
#pragma once

#include <cstdio>
#include <string>

namespace daekit {

inline std::string format_number(double x, int digits) {
  const int precision = digits < 0 ? 6 : digits;
  char text[48];
  const int length = std::snprintf(text, sizeof text, "%.*g", precision, x);
  if (length < 0) return std::string();  // an encoding error: not for %g of a double
  if (length < static_cast<int>(sizeof text)) return std::string(text, static_cast<size_t>(length));
  std::string long_text(static_cast<size_t>(length), '\0');  // more than 40 digits asked for
  std::snprintf(long_text.data(), long_text.size() + 1, "%.*g", precision, x);
  return long_text;
}

}  // namespace daekit
