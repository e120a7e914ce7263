// A minimal hand-written JSON writer for the daekit command (no external library): objects,
// arrays, strings with escaping, numbers with full precision (the shortest of %.15g..%.17g
// that reads back exactly) and NaN/Inf as null.
// Output is pretty-printed with two-space indentation (short numeric arrays stay on one line),
// or compact on one line (JsonWriter(true): the JSON lines of `daekit sweep`).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace daekit::cli {

class JsonWriter {
 public:
  explicit JsonWriter(bool compact = false) : compact_(compact) {}

  /// Escapes a string for use inside JSON quotes (", \, control characters).
  static std::string escape(const std::string& s) {
    std::string out;
    out.reserve(s.size() + 2);
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
    }
    return out;
  }

  /// A number with full precision: the shortest of %.15g, %.16g, %.17g that reads back as
  /// exactly x (1e-06 rather than 9.9999999999999995e-07); null if not finite.
  static std::string number(double x) {
    if (!std::isfinite(x)) return "null";
    return full_precision(x);
  }
  /// The shortest of %.15g, %.16g, %.17g that round-trips x ("nan", "inf" for non-finite x).
  static std::string full_precision(double x) {
    char buf[40];
    for (int digits = 15; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, x);
      if (digits == 17 || !std::isfinite(x) || std::strtod(buf, nullptr) == x) break;
    }
    return buf;
  }

  void begin_object(const std::string& key = {}) { open(key, '{'); }
  void end_object() { close('}'); }
  void begin_array(const std::string& key = {}) { open(key, '['); }
  void end_array() { close(']'); }

  void string(const std::string& key, const std::string& value) {
    prefix(key);
    quoted(value);
  }
  void number(const std::string& key, double value) { item(key, number(value)); }
  void integer(const std::string& key, long long value) { item(key, std::to_string(value)); }
  void boolean(const std::string& key, bool value) { item(key, value ? "true" : "false"); }
  void null(const std::string& key) { item(key, "null"); }
  /// An array of numbers on one line.
  void numbers(const std::string& key, const std::vector<double>& values) {
    prefix(key);
    out_ += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out_ += ", ";
      out_ += number(values[i]);
    }
    out_ += ']';
  }
  /// An array of integers on one line.
  void integers(const std::string& key, const std::vector<int>& values) {
    prefix(key);
    out_ += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out_ += ", ";
      out_ += std::to_string(values[i]);
    }
    out_ += ']';
  }
  /// An array of strings on one line.
  void strings(const std::string& key, const std::vector<std::string>& values) {
    prefix(key);
    out_ += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out_ += ", ";
      quoted(values[i]);
    }
    out_ += ']';
  }

  /// The document written so far (complete once every object/array is closed).
  const std::string& str() const { return out_; }

 private:
  // (Strings are appended piecewise: "literal" + std::string trips GCC 12's -Wrestrict.)
  void quoted(const std::string& s) {
    out_ += '"';
    out_ += escape(s);
    out_ += '"';
  }
  void newline() {
    if (compact_) {
      if (out_.back() == ',') out_ += ' ';
      return;
    }
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
  }
  void prefix(const std::string& key) {
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
      newline();
    }
    if (!key.empty()) {
      quoted(key);
      out_ += ": ";
    }
  }
  void item(const std::string& key, const std::string& value) {
    prefix(key);
    out_ += value;
  }
  void open(const std::string& key, char bracket) {
    prefix(key);
    out_ += bracket;
    first_.push_back(true);
  }
  void close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += bracket;
  }

  bool compact_ = false;
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written into it yet
};

}  // namespace daekit::cli
