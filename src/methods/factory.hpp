// How the registry creates methods: each family's .cpp defines a MethodRegistration (name,
// capabilities, the description of its options, factory) and registry.cpp lists the
// families, one line each. Internal header.
//
// The description of a family's options is an OptionTable over its options struct, one line
// per option, e.g.
//   OptionTable<SparkOptions>()
//       .integer("stages", &SparkOptions::stages, 2, 9, "Lobatto stages s (order 2s - 2 in y)")
// The default is read from the struct (SparkOptions{}.stages); the table converts option
// values given as text into the struct (the only conversion: the CLI and Python pass text),
// checks types and ranges with messages naming the method, the option and the valid values,
// and turns a struct back into text (Method::used_options()).
#pragma once

#include <any>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/guard.hpp"
#include "daekit/core/sparsity.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "daekit/tableaus/runge_kutta.hpp"
#include "methods/method.hpp"

namespace daekit {

/// What a factory gets: the problem in one of the forms (the other pointers null), y'(t0) for
/// the implicit form, the method's options (the family's options struct, or empty for its
/// defaults), the linear-solver choice, whether the integrator runs constant steps without
/// error control (Options::fixed_step), and the solve's guard and statistics.
struct MethodInput {
  const MassMatrixDae* mass_form = nullptr;
  const ImplicitDae* implicit_form = nullptr;
  const ImplicitIndex2Dae* index2_form = nullptr;
  const Vector* yp0 = nullptr;
  double t0 = 0.0;
  const std::any* options = nullptr;
  LinearSolverKind linear_solver = LinearSolverKind::Automatic;
  bool fixed_step = false;
  /// The problem's jacobian_sparsity was detected at t0 (integrator/structure.hpp), not
  /// declared: the check of a declared pattern at the first evaluation is skipped.
  bool structure_detected = false;
  CallGuard* guard = nullptr;
  Stats* stats = nullptr;
  /// Forward sensitivities to compute (null: none); only for MethodCapabilities::sensitivities.
  const SensitivityRequest* sensitivities = nullptr;
};

using MethodFactory = std::unique_ptr<Method> (*)(const MethodInput&);

struct MethodRegistration {
  /// Name, capabilities; info.options stays empty here: method_info() and
  /// registered_methods() fill it from `describe` on first use.
  MethodInfo info;
  MethodFactory make = nullptr;
  /// The family's option description (set by describe_options()).
  std::function<std::vector<MethodOption>()> describe;
  /// The options struct (in a std::any, validated) from option values as text.
  std::function<std::any(const OptionValues&)> parse_options;
};

/// The registration of `name`; throws InvalidArgument listing the valid names otherwise.
const MethodRegistration& method_registration(const std::string& name);

/// The family's options from a MethodInput: the struct given, or defaults when none was;
/// throws InvalidArgument if options of another family were given.
template <typename O>
O method_options(const MethodInput& in, const char* method) {
  if (!in.options || !in.options->has_value()) return O{};
  if (const O* o = std::any_cast<O>(in.options)) return *o;
  throw InvalidArgument(std::string("method '") + method + "' got the options of another method");
}

// ---------------------------------------------------------------------------------------------
// Option descriptions.

/// No upper bound for OptionTable::integer.
inline constexpr int kNoLimit = std::numeric_limits<int>::max();

/// The interval of a Double option: [min, max] with open ends where said.
struct Bounds {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false, max_open = false;
  static Bounds any() { return {}; }
  static Bounds at_least(double a) { return {a, Bounds{}.max, false, false}; }
  static Bounds above(double a) { return {a, Bounds{}.max, true, false}; }
  static Bounds open(double a, double b) { return {a, b, true, true}; }
  static Bounds left_open(double a, double b) { return {a, b, true, false}; }   ///< (a, b]
  static Bounds right_open(double a, double b) { return {a, b, false, true}; }  ///< [a, b)
};

/// The text conversions of option values (registry.cpp). Each parse_* checks the text's form
/// and the option's range and throws InvalidArgument naming `method`, the option and the
/// valid values otherwise.
bool parse_bool_option(const std::string& method, const MethodOption& o, const std::string& text);
int parse_int_option(const std::string& method, const MethodOption& o, const std::string& text);
double parse_double_option(const std::string& method, const MethodOption& o,
                           const std::string& text);
/// The index of `text` in o.choices.
size_t parse_choice_option(const std::string& method, const MethodOption& o,
                           const std::string& text);
RungeKuttaTableau parse_tableau_option(const std::string& method, const MethodOption& o,
                                       const std::string& text);
/// Shortest text that reads back as x ("auto"-style word for NaN when `automatic` is set).
std::string double_text(double x, const std::string& automatic = {});
/// The name tableau_by_name() knows a tableau by ("radau-iia-3", "kvaerno4"), or its own
/// name for a tableau built otherwise.
std::string tableau_text(const RungeKuttaTableau& t);
/// InvalidArgument "method 'M', option 'O': <why>".
[[noreturn]] void refuse_option(const std::string& method, const std::string& option,
                                const std::string& why);

/// The description of the options of one family, over its options struct O (see the header).
template <typename O>
class OptionTable {
 public:
  OptionTable& flag(const char* name, bool O::*field, const char* doc) {
    MethodOption o = option(name, OptionType::Bool, doc, defaults_.*field ? "true" : "false");
    return add(
        std::move(o),
        [field](O& s, const std::string& m, const MethodOption& d, const std::string& t) {
          s.*field = parse_bool_option(m, d, t);
        },
        [field](const O& s) { return std::string(s.*field ? "true" : "false"); });
  }
  /// An integer in [lo, hi] (hi = max int: no upper bound).
  OptionTable& integer(const char* name, int O::*field, int lo, int hi, const char* doc) {
    MethodOption o = option(name, OptionType::Int, doc, std::to_string(defaults_.*field));
    o.min = lo;
    o.max = hi == std::numeric_limits<int>::max() ? o.max : hi;
    return add_int(std::move(o), field);
  }
  /// An integer from a set of values.
  OptionTable& integer_of(const char* name, int O::*field, const std::vector<int>& values,
                          const char* doc) {
    MethodOption o = option(name, OptionType::Int, doc, std::to_string(defaults_.*field));
    for (int v : values) o.choices.push_back(std::to_string(v));
    return add_int(std::move(o), field);
  }
  /// A finite number in `bounds`; `automatic` (e.g. "auto") names NaN, the method's choice.
  OptionTable& real(const char* name, double O::*field, Bounds bounds, const char* doc,
                    const char* automatic = "") {
    MethodOption o = option(name, OptionType::Double, doc, "");
    o.min = bounds.min, o.max = bounds.max, o.min_open = bounds.min_open,
    o.max_open = bounds.max_open, o.automatic = automatic;
    o.default_value = double_text(defaults_.*field, o.automatic);
    // a value equal to the default to the bit has the default's text (no formatting per solve;
    // captured before o is moved: the order of the arguments' initialisation is unspecified)
    const double default_number = defaults_.*field;
    std::string default_text = o.default_value, automatic_text = o.automatic;
    return add(
        std::move(o),
        [field](O& s, const std::string& m, const MethodOption& d, const std::string& t) {
          s.*field = parse_double_option(m, d, t);
        },
        [field, default_number, default_text = std::move(default_text),
         automatic = std::move(automatic_text)](const O& s) {
          const double x = s.*field;
          return std::memcmp(&x, &default_number, sizeof x) == 0 ? default_text
                                                                 : double_text(x, automatic);
        });
  }
  /// One of named values of any type T (an enum, a string): {{"dcbdf", Family::DCBDF}, ...}.
  template <typename T>
  OptionTable& choice(const char* name, T O::*field,
                      const std::vector<std::pair<std::string, T>>& values, const char* doc) {
    MethodOption o = option(name, OptionType::Choice, doc, "");
    for (const auto& [text, value] : values) {
      o.choices.push_back(text);
      if (value == defaults_.*field) o.default_value = text;
    }
    return add(
        std::move(o),
        [field, values](O& s, const std::string& m, const MethodOption& d, const std::string& t) {
          s.*field = values[parse_choice_option(m, d, t)].second;
        },
        [field, values](const O& s) {
          for (const auto& [text, value] : values)
            if (value == s.*field) return text;
          return std::string("?");
        });
  }
  /// A Runge-Kutta tableau by name (tableau_by_name()); the struct's validate() says which
  /// tableaus the method accepts (method_option_values() lists the named ones).
  OptionTable& tableau(const char* name, RungeKuttaTableau O::*field, const char* doc) {
    MethodOption o = option(name, OptionType::Tableau, doc, tableau_text(defaults_.*field));
    return add(
        std::move(o),
        [field](O& s, const std::string& m, const MethodOption& d, const std::string& t) {
          s.*field = parse_tableau_option(m, d, t);
          O alone;  // the tableau's own requirements, before any combination
          alone.*field = s.*field;
          try {
            alone.validate();
          } catch (const InvalidArgument& e) {
            refuse_option(m, d.name, "tableau '" + t + "' is refused: " + e.what());
          }
        },
        [field](const O& s) { return tableau_text(s.*field); });
  }

  std::vector<MethodOption> describe() const {
    std::vector<MethodOption> v;
    for (const Entry& e : entries_) v.push_back(e.info);
    return v;
  }
  /// The struct with `values` set (the rest at their defaults), validated. Throws
  /// InvalidArgument naming the method and option (unknown, given twice, ill-typed, out of
  /// range) or the combination refused by O::validate().
  O parse(const OptionValues& values, const std::string& method) const {
    O s;
    std::string given;
    for (size_t i = 0; i < values.size(); ++i) {
      const auto& [name, text] = values[i];
      for (size_t j = 0; j < i; ++j)
        if (values[j].first == name) refuse_option(method, name, "given twice");
      set(s, method, name, text);
      given += (given.empty() ? "" : ", ") + name + "=" + text;
    }
    try {
      s.validate();
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("method '" + method + "' refuses the options given (" + given +
                            "): " + e.what());
    }
    return s;
  }
  /// The struct's described fields as text, in the order of the description.
  std::vector<MethodOptionValue> values(const O& s) const {
    std::vector<MethodOptionValue> v;
    for (const Entry& e : entries_) v.push_back({e.info.name, e.info.type, e.get(s)});
    return v;
  }

 private:
  using Setter =
      std::function<void(O&, const std::string&, const MethodOption&, const std::string&)>;
  using Getter = std::function<std::string(const O&)>;
  struct Entry {
    MethodOption info;
    Setter set;
    Getter get;
  };

  static MethodOption option(const char* name, OptionType type, const char* doc,
                             std::string default_value) {
    MethodOption o;
    o.name = name;
    o.type = type;
    o.doc = doc;
    o.default_value = std::move(default_value);
    return o;
  }
  OptionTable& add(MethodOption info, Setter set, Getter get) {
    entries_.push_back({std::move(info), std::move(set), std::move(get)});
    return *this;
  }
  OptionTable& add_int(MethodOption o, int O::*field) {
    return add(
        std::move(o),
        [field](O& s, const std::string& m, const MethodOption& d, const std::string& t) {
          s.*field = parse_int_option(m, d, t);
        },
        [field](const O& s) { return std::to_string(s.*field); });
  }
  void set(O& s, const std::string& method, const std::string& name,
           const std::string& text) const {
    for (const Entry& e : entries_)
      if (e.info.name == name) return e.set(s, method, e.info, text);
    std::string names;
    for (const Entry& e : entries_) names += (names.empty() ? "" : ", ") + e.info.name;
    refuse_option(method, name, "no such option; its options: " + (names.empty() ? "none" : names));
  }

  O defaults_{};
  std::vector<Entry> entries_;
};

/// Registers `table()` (a function returning the family's table, made on its first use) as
/// the family's option description: describe and parse_options.
template <typename O>
void describe_options(MethodRegistration& r, const OptionTable<O>& (*table)()) {
  r.describe = [table] { return table().describe(); };
  r.parse_options = [table, method = r.info.name](const OptionValues& values) {
    return std::any(table().parse(values, method));
  };
}

/// The checks of the Newton and reuse options shared by the RADAU5-style methods (radau5, radau,
/// dirk): newton_tolerance >= 0 and finite (0 = automatic), jacobian_reuse_theta in (0, 1),
/// 0 < lu_reuse_low <= 1 <= lu_reuse_high. Throws InvalidArgument naming `method` otherwise.
template <typename O>
void validate_newton_reuse(const O& o, const char* method) {
  const std::string m(method);
  if (o.newton_tolerance < 0 || !std::isfinite(o.newton_tolerance))
    throw InvalidArgument(m + ": newton_tolerance must be >= 0 (0 = automatic)");
  if (!(o.jacobian_reuse_theta > 0) || !(o.jacobian_reuse_theta < 1))
    throw InvalidArgument(m + ": jacobian_reuse_theta must lie in (0, 1)");
  if (!(o.lu_reuse_low > 0) || !(o.lu_reuse_low <= 1.0) || !(o.lu_reuse_high >= 1.0))
    throw InvalidArgument(m + ": need 0 < lu_reuse_low <= 1 <= lu_reuse_high");
}

}  // namespace daekit
