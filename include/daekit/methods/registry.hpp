// The method registry: every method family registers a name, its capabilities, the description
// of its options and a factory (src/methods/registry.cpp lists the families, one line each).
// solve(), the Integrator, the CLI (`daekit methods [NAME]`, `--method`, `--option`) and the
// Python module choose methods by name and set their options by name from here.
//
// Method options. Each family describes its options once, next to its registration
// (src/methods/<family>.cpp): name, type, default, valid range or choices, one line of
// documentation, and the field of the C++ options struct (Radau5Options, SparkOptions, ...)
// it fills. From that one description: `daekit methods NAME` prints them, a MethodChoice is
// built from option values given as text (the CLI's `--option NAME=VALUE`, Python's keyword
// arguments) and checked, and a solve reports the values its method used
// (Result::method_options). Adding an option to a description adds it to every front end.
// Fields of the structs that are not described are C++-only (functions such as
// BdfOptions::exact_history) or duplicates of Options (the structs' `projection`).
#pragma once

#include <any>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "daekit/core/sparsity.hpp"

namespace daekit {

/// A set of linear-solver backends (LinearSolverKind); Automatic belongs to every set.
class LinearSolverSet {
 public:
  /// Automatic and the given backends.
  constexpr LinearSolverSet(std::initializer_list<LinearSolverKind> kinds)
      : bits_(bit(LinearSolverKind::Automatic)) {
    for (LinearSolverKind k : kinds) bits_ |= bit(k);
  }
  /// Every backend.
  static constexpr LinearSolverSet all() {
    return {LinearSolverKind::Dense, LinearSolverKind::Banded, LinearSolverKind::Sparse,
            LinearSolverKind::Iterative};
  }
  constexpr bool contains(LinearSolverKind k) const { return (bits_ & bit(k)) != 0; }
  constexpr bool is_all() const { return bits_ == all().bits_; }
  /// The members by their Options / CLI names, e.g. "auto, dense".
  std::string describe() const {
    std::string s;
    for (LinearSolverKind k :
         {LinearSolverKind::Automatic, LinearSolverKind::Dense, LinearSolverKind::Banded,
          LinearSolverKind::Sparse, LinearSolverKind::Iterative})
      if (contains(k)) s += (s.empty() ? "" : ", ") + std::string(to_string(k));
    return s;
  }

 private:
  static constexpr unsigned bit(LinearSolverKind k) { return 1u << static_cast<unsigned>(k); }
  unsigned bits_;
};

/// The rule by which the integrator's step-size controller (src/integrator/controller.hpp)
/// chooses a method's next step; every step of every method is chosen there.
enum class StepRule {
  /// Options::controller (classical, Gustafsson, PI) from the error estimate of the step and
  /// the exponent of its error model (Method::error_order).
  ErrorPerStep,
  /// DASSL's step selection (Brenan-Campbell-Petzold 5.2) from the error estimate of the order
  /// the method's own order logic chose for the next step (the BDF): doubling in the initial
  /// phase, r = (2 est + 1e-4)^(-1/(k+1)) with a dead band [1, 2], and its reductions after
  /// error-test failures (0.25 <= r <= 0.9, then 0.25).
  Dassl,
};

/// How the controller chooses the first step (and the step after a restart) when Options::h0
/// is 0 (src/integrator/controller.hpp).
enum class StartingStep {
  /// From |y0|, |y'(t0)| in the error weights, one explicit Euler probe for the second
  /// derivative and the exponent of the error model (Hairer-Norsett-Wanner I, II.4;
  /// Gladwell-Shampine-Brankin 1987).
  Estimate,
  /// DASSL's (Brenan-Campbell-Petzold 5.2): h0 = 0.001 |t_end - t0|, reduced so that
  /// |h0 y'(t0)| <= 0.5 in the weights; the small start the doubling initial phase of DASSL's
  /// step rule ramps up from.
  Dassl,
};

const char* to_string(StepRule rule);
const char* to_string(StartingStep rule);

struct MethodCapabilities {
  bool mass_matrix_form = false;  ///< solves MassMatrixDae M y' = f
  bool implicit_form = false;     ///< solves ImplicitDae F(t, y, y') = 0
  bool index2_form = false;       ///< solves ImplicitIndex2Dae (a(t, y))' = f, 0 = g(t, y)
  int max_index = 1;              ///< highest index tag it handles
  bool error_estimate = true;     ///< false: constant steps only (Options::fixed_step)
  bool variable_step = true;
  bool variable_order = false;
  int order = 0;               ///< order (the highest, for variable-order methods)
  int dense_output_order = 0;  ///< order of the continuous output
  /// Chooses its order itself and has its step rule (step_rule != ErrorPerStep: Options'
  /// controller, safety, max_increase and max_decrease are unused); kept equal to
  /// `step_rule != StepRule::ErrorPerStep` for the listings of the front ends.
  bool own_step_control = false;
  StepRule step_rule = StepRule::ErrorPerStep;          ///< how the controller chooses h
  StartingStep starting_step = StartingStep::Estimate;  ///< how it chooses the first h
  bool projection = false;  ///< supports the post-step projection (paper 000)
  /// Computes forward sensitivities dy/dp (Options::sensitivities); the integrator refuses a
  /// request to the others with InvalidArgument (tests/test_conformance.cpp walks the registry).
  bool sensitivities = false;
  /// An explicit or half-explicit method (explicit stages for the differential part): its step
  /// is bounded by stability, not accuracy, on a stiff problem (BuiltinProblem::stiff), where it
  /// is not applicable (the sweep skips the pair, `daekit solve` warns).
  bool explicit_method = false;
  /// The values of Options::linear_solver the method honours: the backends its iteration
  /// matrices can be solved with (Automatic always). Integrator setup refuses the others with
  /// InvalidArgument; Result::linear_solver names the backend used.
  LinearSolverSet linear_solvers = LinearSolverSet::all();
};

/// The type of a method option's value (its text form: "true"/"false", an integer, a plain
/// decimal number, one of the choices, a tableau name of tableau_by_name()).
enum class OptionType { Bool, Int, Double, Choice, Tableau };
/// "bool", "int", "double", "choice", "tableau".
const char* to_string(OptionType type);

/// One option of a method, as registered with it.
struct MethodOption {
  std::string name;  ///< e.g. "stages"
  OptionType type = OptionType::Int;
  std::string default_value;  ///< as text: the default of the C++ options struct
  std::string doc;            ///< one line
  /// Int and Double: the valid interval (a bound is included unless it is open; infinite: none).
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false, max_open = false;
  /// Choice: the valid values. Int: when not empty, the only valid values (radau's stages).
  std::vector<std::string> choices;
  /// Double: a word standing for "chosen by the method" (NaN in the struct), e.g. "auto".
  std::string automatic;
  /// The valid values in words: "2..9", ">= 1", "(0, 1)", "true or false", "hem4, bh3",
  /// "a tableau name" (method_option_values() lists the named tableaus a method accepts).
  std::string range() const;
};

/// An option's value in a solve, as the method object reports it (Result::method_options).
struct MethodOptionValue {
  std::string name;
  OptionType type = OptionType::Int;
  std::string value;  ///< as text, in the form the option takes
};

/// Whether `s` is a number in plain decimal syntax, the only one option values (and the CLI's
/// numbers) accept: [+-] digits [. digits] [e [+-] digits] with at least one digit before or
/// after the point; no hexadecimal, inf, nan, blanks or empty text (strtod alone would take
/// "0x10", "inf", " 5" and, partly, "1e").
bool plain_decimal(const std::string& s);

/// Option values as text, by name: the CLI's `--option NAME=VALUE`, Python's keywords.
using OptionValues = std::vector<std::pair<std::string, std::string>>;

struct MethodInfo {
  std::string name;       ///< e.g. "radau5"
  std::string title;      ///< one line
  std::string reference;  ///< papers / codes it follows
  MethodCapabilities capabilities;
  /// The method's options, in the order of its description.
  std::vector<MethodOption> options;
  /// "M y' = f", "F(t, y, y') = 0" or both, the index range and the order, for listings.
  std::string summary() const;
  /// The option called `name`, or nullptr.
  const MethodOption* option(const std::string& name) const;
};

/// All registered methods, in registration order.
const std::vector<MethodInfo>& registered_methods();
std::vector<std::string> method_names();
/// The method called `name`; throws InvalidArgument listing the valid names otherwise.
const MethodInfo& method_info(const std::string& name);
/// The valid values of option `option` of method `method` where they form a list: a Choice's
/// choices, an Int's set, and for a Tableau the tableaus of tableau_names() the method accepts
/// (found by trying each; computed once per process). Empty for intervals and booleans.
/// Throws InvalidArgument for an unknown method or option.
std::vector<std::string> method_option_values(const std::string& method, const std::string& option);

/// The method of method "auto" (the CLI's default, Python's method="auto") for M y' = f
/// (implicit_form false) or F(t, y, y') = 0 (true) with n unknowns whose highest index tag is
/// max_index, at relative tolerance rtol (the smallest entry for a vector), and the rule that
/// chose it, one line for reports. The rules, first match (auto_method_rules() in words, with
/// their measurements; docs/results/method-auto.md has the default run of every built-in
/// problem with auto and with radau5):
///   F(t, y, y') = 0: bdf (the only registered method for that form);
///   index-2 or index-3 components: radau (the variable-order Radau IIA);
///   rtol < 1e-6: radau (variable order up to 13: 0.39-0.94x radau5's time at 7-9 digits);
///   otherwise radau5, at every size (bdf wins on some large problems and loses 4.5x on
///     others, see auto_method_rules()).
struct AutoMethod {
  std::string method;  ///< a registered method name
  std::string rule;    ///< why, e.g. "radau: index-3 components (...)"
};
AutoMethod auto_method(int n, int max_index, double rtol, bool implicit_form = false);
/// The rules of auto_method, one line each, with the measurements behind them (for
/// `daekit methods` and the help).
std::vector<std::string> auto_method_rules();
/// The largest index tag of `index` (1 if empty).
int max_index_tag(const std::vector<int>& index);

/// A method chosen by name ("radau5"), by its options struct (Radau5Options{...}, whose
/// static member `method_name` names it), or by name and option values as text.
class MethodChoice {
 public:
  MethodChoice(const char* name) : name_(name) {}             // NOLINT: implicit by design
  MethodChoice(std::string name) : name_(std::move(name)) {}  // NOLINT
  /// Method `name` with the options `values` (the others at their defaults), converted by the
  /// method's registered description into its options struct and validated. Throws
  /// InvalidArgument naming the method, the option and the valid values or range for an
  /// unknown method or option, an option given twice, a value of the wrong type or out of
  /// range, or a combination the method refuses (its options struct's validate()).
  MethodChoice(std::string name, const OptionValues& values);
  template <typename Options, typename = decltype(Options::method_name)>
  MethodChoice(const Options& options)  // NOLINT
      : name_(Options::method_name), options_(options) {}
  const std::string& name() const { return name_; }
  /// The options struct, or empty (the method's defaults).
  const std::any& options() const { return options_; }

 private:
  std::string name_;
  std::any options_;
};

}  // namespace daekit
