// A minimal hand-written JSON writer for the daekit command (no external library): objects,
// arrays, strings with escaping, numbers with full precision (%.17g) and NaN/Inf as null.
// Output is pretty-printed with two-space indentation; short numeric arrays stay on one line.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace daekit::cli {

class JsonWriter {
 public:
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

  /// A number with 17 significant digits (round-trips a double); null if not finite.
  static std::string number(double x) {
    if (!std::isfinite(x)) return "null";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
  }

  void begin_object(const std::string& key = {}) { open(key, '{'); }
  void end_object() { close('}'); }
  void begin_array(const std::string& key = {}) { open(key, '['); }
  void end_array() { close(']'); }

  void string(const std::string& key, const std::string& value) {
    item(key, "\"" + escape(value) + "\"");
  }
  void number(const std::string& key, double value) { item(key, number(value)); }
  void integer(const std::string& key, long long value) { item(key, std::to_string(value)); }
  void boolean(const std::string& key, bool value) { item(key, value ? "true" : "false"); }
  void null(const std::string& key) { item(key, "null"); }
  /// An array of numbers on one line.
  void numbers(const std::string& key, const std::vector<double>& values) {
    std::string s = "[";
    for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + number(values[i]);
    item(key, s + "]");
  }
  /// An array of strings on one line.
  void strings(const std::string& key, const std::vector<std::string>& values) {
    std::string s = "[";
    for (size_t i = 0; i < values.size(); ++i)
      s += std::string(i ? ", " : "") + "\"" + escape(values[i]) + "\"";
    item(key, s + "]");
  }

  /// The document written so far (complete once every object/array is closed).
  const std::string& str() const { return out_; }

 private:
  void prefix(const std::string& key) {
    if (!first_.empty()) {
      if (!first_.back()) out_ += ",";
      first_.back() = false;
      out_ += "\n" + std::string(2 * first_.size(), ' ');
    }
    if (!key.empty()) out_ += "\"" + escape(key) + "\": ";
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
    if (!empty) out_ += "\n" + std::string(2 * first_.size(), ' ');
    out_ += bracket;
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written into it yet
};

}  // namespace daekit::cli
