// The method families, one line each (DESIGN.md: a new family is a new file in methods/ plus
// one line here), and the text conversions of method options (factory.hpp's OptionTable).
#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "methods/factory.hpp"

namespace daekit {

MethodRegistration radau5_method();          // methods/radau.cpp (3-stage instance)
MethodRegistration bdf_method();             // methods/bdf.cpp
MethodRegistration projected_rk_method();    // methods/projected_rk.cpp
MethodRegistration radau_method();           // methods/radau.cpp
MethodRegistration dirk_method();            // methods/dirk.cpp
MethodRegistration erk_method();             // methods/erk.cpp
MethodRegistration beta_multistep_method();  // methods/beta_multistep.cpp
MethodRegistration spark_method();           // methods/spark.cpp
MethodRegistration hem_method();             // methods/hem.cpp
MethodRegistration nordsieck_bdf_method();   // methods/nordsieck_bdf.cpp

namespace {

const std::vector<MethodRegistration>& families() {
  static const std::vector<MethodRegistration> all = {
      radau5_method(), bdf_method(),           projected_rk_method(),   radau_method(),
      dirk_method(),   erk_method(),           beta_multistep_method(), spark_method(),
      hem_method(),    nordsieck_bdf_method(),
  };
  return all;
}

/// The index of family `name`; throws InvalidArgument listing the valid names otherwise.
size_t family_index(const std::string& name) {
  const std::vector<MethodRegistration>& all = families();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].info.name == name) return i;
  std::string list;
  for (const MethodRegistration& r : all) list += (list.empty() ? "" : ", ") + r.info.name;
  throw InvalidArgument("unknown method '" + name + "'; valid methods: " + list);
}

/// Family i's MethodInfo with its options, described on first use: the description of a
/// family with a tableau option builds tableaus, which a solve with another method (the
/// Integrator uses the registration only) does not pay for.
const MethodInfo& described(size_t i) {
  struct Described {
    std::once_flag once;
    MethodInfo info;
  };
  static const std::unique_ptr<Described[]> all(new Described[families().size()]);
  Described& d = all[i];
  std::call_once(d.once, [&d, i] {
    const MethodRegistration& r = families()[i];
    d.info = r.info;
    if (r.describe) d.info.options = r.describe();
  });
  return d.info;
}

}  // namespace

const MethodRegistration& method_registration(const std::string& name) {
  return families()[family_index(name)];
}

const std::vector<MethodInfo>& registered_methods() {
  static const std::vector<MethodInfo> infos = [] {
    std::vector<MethodInfo> v;
    for (size_t i = 0; i < families().size(); ++i) v.push_back(described(i));
    return v;
  }();
  return infos;
}

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodInfo& m : registered_methods()) names.push_back(m.name);
  return names;
}

const MethodInfo& method_info(const std::string& name) { return described(family_index(name)); }

namespace {
// method "auto" (the measurements: docs/results/method-auto.md). Below this rtol the
// variable-order radau: at scd 7, 8, 9 0.60x, 0.39x, 0.59x radau5's time on Andrews, 0.83x,
// 0.65x, 0.46x Van der Pol, 0.94x, 0.75x, 0.51x the transistor, 0.76x, 0.65x, 0.54x Robertson
// (the work-precision diagrams of docs/benchmarks.md, measured at 52bcfc5); at looser
// tolerances it runs as radau5 (order 5) and radau5 is as fast or faster.
constexpr double kAutoTightRtol = 1e-6;

std::string auto_rule(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string auto_rule(const char* format, ...) {
  char line[400];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  return line;
}
}  // namespace

int max_index_tag(const std::vector<int>& index) {
  return index.empty() ? 1 : std::max(1, *std::max_element(index.begin(), index.end()));
}

AutoMethod auto_method(int n, int max_index, double rtol, bool implicit_form) {
  if (implicit_form)
    return {"bdf", auto_rule("bdf: F(t, y, y') = 0 (the only method for the fully implicit "
                             "form; n = %d, rtol %.0e)",
                             n, rtol)};
  if (max_index > 1)
    return {"radau", auto_rule("radau: index-%d components (the variable-order Radau IIA: "
                               "Andrews 0.6x radau5's time at 7 digits; 0.28-1.0x radau5's "
                               "instructions on 15 of the 17 built-in problems of index 2, 3)",
                               max_index)};
  if (rtol < kAutoTightRtol)
    return {"radau", auto_rule("radau: rtol %.0e < %.0e (variable order up to 13: 0.39-0.94x "
                               "radau5's time at 7-9 digits)",
                               rtol, kAutoTightRtol)};
  return {"radau5", auto_rule("radau5: index 1, rtol %.0e >= %.0e, n = %d (the fastest at 3-5 "
                              "digits on Akzo Nobel, Robertson and Van der Pol, bdf on the "
                              "transistor; at large n bdf can be 0.3x "
                              "(circuit-chain, food-web) or 4.9x (air-pipe-1000): try it)",
                              rtol, kAutoTightRtol, n)};
}

std::vector<std::string> auto_method_rules() {
  char tight[16];
  std::snprintf(tight, sizeof tight, "%.0e", kAutoTightRtol);
  return {
      "F(t, y, y') = 0: bdf, the only method for the fully implicit form",
      "index-2 or index-3 components: radau (the variable-order Radau IIA; Andrews 0.6x "
      "radau5's time at 7 digits; the default runs of 15 of the 17 built-in problems of index 2 "
      "and 3 take 0.28-1.0x radau5's instructions, truck-index3 1.55x, charge-pump "
      "1.05x)",
      std::string("rtol < ") + tight +
          ": radau (variable order up to 13: 0.39-0.94x radau5's time at 7-9 digits on Andrews, "
          "Van der Pol, the transistor and Robertson; the default runs of 19 of the 20 built-in "
          "problems at rtol 1e-7 and 1e-8 take 0.15-0.77x radau5's instructions)",
      "otherwise radau5, at every size (the fastest at 3-5 digits on Akzo Nobel, Robertson and "
      "Van der Pol, bdf on the transistor amplifier; bdf "
      "is 0.3x radau5's time at the default rtol on circuit-chain (320 unknowns) and food-web "
      "(800) but 4.9x on air-pipe-1000 (6000; its orders 3-5 held to small steps), and on "
      "heat2d with 1e4-1e5 unknowns it misses -log10(rtol) - 1 digits: give --method bdf to "
      "try it)"};
}

const MethodOption* MethodInfo::option(const std::string& option_name) const {
  for (const MethodOption& o : options)
    if (o.name == option_name) return &o;
  return nullptr;
}

MethodChoice::MethodChoice(std::string name, const OptionValues& values) : name_(std::move(name)) {
  const MethodRegistration& r = method_registration(name_);
  if (values.empty()) return;  // the defaults, as MethodChoice(name)
  if (!r.parse_options) refuse_option(name_, values.front().first, "the method has no options");
  options_ = r.parse_options(values);
}

namespace {

/// The tableaus of tableau_names() that method `method` accepts for option `option`.
std::vector<std::string> accepted_tableaus(const MethodRegistration& r, const std::string& option) {
  std::vector<std::string> accepted;
  for (const std::string& t : tableau_names()) {
    try {
      r.parse_options({{option, t}});
      accepted.push_back(t);
    } catch (const InvalidArgument&) {
    }
  }
  return accepted;
}

}  // namespace

std::vector<std::string> method_option_values(const std::string& method,
                                              const std::string& option) {
  const MethodRegistration& r = method_registration(method);
  const MethodOption* o = method_info(method).option(option);
  if (!o) refuse_option(method, option, "no such option");
  if (o->type != OptionType::Tableau) return o->choices;
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::vector<std::string>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = cache.try_emplace({method, option});
  if (inserted) it->second = accepted_tableaus(r, option);
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Option values as text.

const char* to_string(OptionType type) {
  switch (type) {
    case OptionType::Bool:
      return "bool";
    case OptionType::Int:
      return "int";
    case OptionType::Double:
      return "double";
    case OptionType::Choice:
      return "choice";
    case OptionType::Tableau:
      return "tableau";
  }
  return "?";
}

namespace {

std::string join_choices(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// A value for a message: quoted, cut after 40 characters.
std::string quoted(const std::string& text) {
  return "'" + (text.size() > 40 ? text.substr(0, 40) + "..." : text) + "'";
}

bool in_bounds(const MethodOption& o, double x) {
  const bool above_min = o.min_open ? x > o.min : x >= o.min;
  const bool below_max = o.max_open ? x < o.max : x <= o.max;
  return above_min && below_max;
}

}  // namespace

bool plain_decimal(const std::string& s) {
  size_t i = 0, digits = 0;
  const size_t n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  while (i < n && is_digit(s[i])) ++i, ++digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exponent_digits = 0;
    while (i < n && is_digit(s[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == n;
}

std::string double_text(double x, const std::string& automatic) {
  if (std::isnan(x) && !automatic.empty()) return automatic;
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string MethodOption::range() const {
  switch (type) {
    case OptionType::Bool:
      return "true or false";
    case OptionType::Choice:
      return join_choices(choices);
    case OptionType::Tableau:
      return "a tableau name";
    case OptionType::Int:
      if (!choices.empty()) return join_choices(choices);
      [[fallthrough]];
    case OptionType::Double: {
      const bool has_min = std::isfinite(min), has_max = std::isfinite(max);
      auto num = [this](double x) {
        return type == OptionType::Int ? std::to_string(static_cast<long>(x)) : double_text(x);
      };
      std::string r;
      if (has_min && has_max && type == OptionType::Int)
        r = num(min) + ".." + num(max);
      else if (has_min && has_max)
        r = std::string(min_open ? "(" : "[") + num(min) + ", " + num(max) + (max_open ? ")" : "]");
      else if (has_min)
        r = std::string(min_open ? "> " : ">= ") + num(min);
      else if (has_max)
        r = std::string(max_open ? "< " : "<= ") + num(max);
      else
        r = "any finite number";
      if (!automatic.empty()) r += ", or " + automatic;
      return r;
    }
  }
  return "";
}

void refuse_option(const std::string& method, const std::string& option, const std::string& why) {
  throw InvalidArgument("method '" + method + "', option '" + option + "': " + why);
}

bool parse_bool_option(const std::string& method, const MethodOption& o, const std::string& text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  refuse_option(method, o.name, quoted(text) + " is not a boolean; valid: true or false");
}

int parse_int_option(const std::string& method, const MethodOption& o, const std::string& text) {
  size_t i = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  bool digits = i < text.size() && text.size() - i <= 10;
  for (; digits && i < text.size(); ++i) digits = is_digit(text[i]);
  const long long x = digits ? std::strtoll(text.c_str(), nullptr, 10) : 0;
  if (!digits || x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
    refuse_option(method, o.name, quoted(text) + " is not an integer; valid: " + o.range());
  const int v = static_cast<int>(x);
  if (!o.choices.empty()) {
    for (const std::string& c : o.choices)
      if (c == std::to_string(v)) return v;
    refuse_option(method, o.name, quoted(text) + " is not one of " + o.range());
  }
  if (!in_bounds(o, v)) refuse_option(method, o.name, text + " is outside " + o.range());
  return v;
}

double parse_double_option(const std::string& method, const MethodOption& o,
                           const std::string& text) {
  if (!o.automatic.empty() && text == o.automatic) return std::numeric_limits<double>::quiet_NaN();
  double x = 0.0;
  bool ok = plain_decimal(text);
  if (ok) {
    errno = 0;
    x = std::strtod(text.c_str(), nullptr);
    ok = std::isfinite(x);
  }
  if (!ok)
    refuse_option(method, o.name,
                  quoted(text) + " is not a finite number in plain decimal notation (e.g. 1e-3)" +
                      "; valid: " + o.range());
  if (!in_bounds(o, x)) refuse_option(method, o.name, text + " is outside " + o.range());
  return x;
}

size_t parse_choice_option(const std::string& method, const MethodOption& o,
                           const std::string& text) {
  for (size_t i = 0; i < o.choices.size(); ++i)
    if (o.choices[i] == text) return i;
  refuse_option(method, o.name, quoted(text) + " is not one of " + o.range());
}

RungeKuttaTableau parse_tableau_option(const std::string& method, const MethodOption& o,
                                       const std::string& text) {
  try {
    return tableau_by_name(text);
  } catch (const InvalidArgument& e) {
    refuse_option(method, o.name, e.what());
  }
}

namespace {

/// The tableau tableau_by_name(key) (made once: some are computed numerically).
const RungeKuttaTableau& named_tableau(const std::string& key) {
  static std::mutex mutex;
  static std::map<std::string, RungeKuttaTableau> made;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = made.find(key);
  if (it == made.end()) it = made.emplace(key, tableau_by_name(key)).first;
  return it->second;
}

bool same_coefficients(const RungeKuttaTableau& a, const RungeKuttaTableau& b) {
  return a.stages() == b.stages() && a.A == b.A && a.b == b.b && a.c == b.c;
}

/// The key of a family tableau from its name ("Radau IIA(3)" -> "radau-iia-3"), or "".
std::string family_key(const std::string& name) {
  static const std::pair<const char*, const char*> families[] = {
      {"Radau IIA(", "radau-iia-"},       {"Radau IA(", "radau-ia-"},         {"Gauss(", "gauss-"},
      {"Lobatto IIIA(", "lobatto-iiia-"}, {"Lobatto IIIC(", "lobatto-iiic-"},
  };
  for (const auto& [prefix, key] : families) {
    const std::string p = prefix;
    if (name.size() == p.size() + 2 && name.compare(0, p.size(), p) == 0 &&
        is_digit(name[p.size()]) && name.back() == ')')
      return key + name.substr(p.size(), 1);
  }
  return "";
}

bool is_family_key(const std::string& key) {
  for (const char* prefix : {"radau-iia-", "radau-ia-", "gauss-", "lobatto-iiia-", "lobatto-iiic-"})
    if (key.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

std::string tableau_text(const RungeKuttaTableau& t) {
  std::vector<std::string> keys;  // the family tableau of t's name, every published one
  if (const std::string k = family_key(t.name); !k.empty()) keys.push_back(k);
  for (const std::string& k : tableau_names())
    if (!is_family_key(k)) keys.push_back(k);
  for (const std::string& k : keys) {
    try {
      if (same_coefficients(t, named_tableau(k))) return k;
    } catch (const InvalidArgument&) {
    }
  }
  return t.name;
}

std::string MethodInfo::summary() const {
  const MethodCapabilities& c = capabilities;
  std::string forms;
  if (c.mass_matrix_form) forms += "M y' = f";
  if (c.implicit_form) forms += std::string(forms.empty() ? "" : ", ") + "F(t, y, y') = 0";
  if (c.index2_form)
    forms += std::string(forms.empty() ? "" : ", ") + "(a(t, y))' = f, 0 = g(t, y)";
  std::string s = forms + "; index <= " + std::to_string(c.max_index) + "; order " +
                  (c.order > 0 ? std::to_string(c.order) : std::string("of the tableau")) +
                  (c.variable_order ? " (variable)" : "");
  s += c.error_estimate ? "; variable step" : "; constant step only";
  if (c.dense_output_order > 0) s += "; dense output order " + std::to_string(c.dense_output_order);
  if (c.projection) s += "; projection";
  if (c.own_step_control) s += "; own step/order control";
  if (c.explicit_method) s += "; explicit (not for stiff problems)";
  if (!c.linear_solvers.is_all()) s += "; linear solvers: " + c.linear_solvers.describe();
  return s;
}

}  // namespace daekit
