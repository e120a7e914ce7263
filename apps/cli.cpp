// The daekit command (run_cli, see cli.hpp): the command-line front end of the library.
//
//   daekit list                     the built-in problems
//   daekit methods                  the registered methods and what they can do
//   daekit solve PROBLEM [options]  solve one of them (report, JSON, CSV, trace, PNG)
//   daekit demo [--outdir DIR]      solve several problems, write CSV files and a plot
//   daekit sweep PROBLEM --params FILE | --values LIST [options]
//                                   one solve per parameter set, one JSON line per run
//   daekit help | --help            usage
//
// Exit status: 0 success (t_end reached, or a terminal event: the outcome the model or the
// user asked to stop at); 1 a solve ended with another status, or writing an output
// (report, CSV, trace, plot) failed; 2 bad command line (unknown problem/option/method, bad
// value, missing argument) or the library rejected the input (InvalidArgument).
#include "cli.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "csv_plot.hpp"
#include "daekit/daekit.hpp"
#include "json.hpp"

#ifndef DAEKIT_VERSION
#define DAEKIT_VERSION "unknown"
#endif

namespace daekit::cli {
namespace {

/// Bad command line: message on err, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Where a command writes: `out` the report / JSON / tables, `err` diagnostics.
struct Io {
  std::FILE* out;
  std::FILE* err;
  mutable int out_errno = 0;  ///< errno of the first failed flush of `out`
  /// Flushes `out` (the report before the messages on `err`), keeping the first failure.
  void flush_out() const {
    errno = 0;
    if ((std::fflush(out) != 0 || std::ferror(out)) && out_errno == 0)
      out_errno = errno != 0 ? errno : EIO;
  }
};

const char* const kUsage =
    R"(daekit - solve differential-algebraic equations (built-in test problems)

Usage:
  daekit list                      table of the built-in problems
  daekit methods                   table of the methods (forms, index, order, step control)
  daekit methods NAME              a method: what it solves and its options (name, type,
                                   default, valid values, meaning)
  daekit solve PROBLEM [options]   solve a built-in problem and print a report
  daekit demo [--outdir DIR]       solve pendulum, vanderpol, robertson, andrews and
                                   transistor; write DIR/<problem>.csv and
                                   DIR/pendulum.png (default DIR: demo-output)
  daekit tableau [NAME]            analysis of a Runge-Kutta tableau: order conditions,
                                   B/C/D, stage order, R(inf), A-/L-stability, algebraic
                                   stability matrix, AN/B/BN checks (no NAME: the names)
  daekit sweep PROBLEM --params FILE | --values LIST [options]
                                   solve PROBLEM once per parameter set (its vector p,
                                   see the problem's parameters) and print one JSON object
                                   per run, one per line, in the order of the sets
  daekit help | --help | -h        this text
  daekit --version                 the library version

Options of 'solve' (defaults: the problem's recommended values, see 'daekit list'):
  --method NAME     @METHODS@
  --option NAME=VALUE
                    an option of the method (repeatable), e.g. --method spark --option
                    stages=4; 'daekit methods METHOD' lists them with their types,
                    defaults and valid values
  --tableau NAME    @TABLEAU@
  --fixed-step      constant steps of size --h0 without error control (needs --h0)
  --projection P    @PROJECTION@
  --formulation F   mechanical problems (pendulum, pendulum-long, andrews) only: solve the
                    index3 (default), index2 (velocity constraint), index1 (acceleration
                    constraint) or ggl (stabilised index 2) form of the same model, from
                    consistent initial values; scd is taken over positions and velocities
  --rtol R          relative tolerance, 10 eps < R < 1
  --atol A          absolute tolerance, 0 < A < 1e100 (times the problem's per-component
                    factors where it has them)
  --h0 H            initial step size (0: the method's default)
  --t-end T         end of the integration interval
  --max-steps N     maximal number of step attempts, N >= 1 (default 100000)
  --linear-solver S auto (default: from the Jacobian's structure), dense, banded, sparse
                    (KLU) or iterative (GMRES with an algebraic multigrid preconditioner, for
                    large mesh problems; needs nonzero diagonal entries)
  --controller C    step-size controller: gustafsson (default), classical or pi
  --exclude-from-error LIST
                    components left out of the error test: comma-separated indices (from 0)
                    or names, or none (every component in the test); default: the method's
  --nonnegative LIST
                    components that must stay >= 0 (same syntax; default: the problem's)
  --tstops T1,T2,...
                    known discontinuity times (inputs with corners) in the interval,
                    increasing: no step crosses one, the method restarts there (added to the
                    problem's own)
  --no-jacobian-check
                    do not compare an analytic Jacobian with finite differences at t0
  --no-structure-detection
                    keep a dense Jacobian structure when the problem declares none (default:
                    detected at t0 from n = 33 on, Options::detect_sparsity)
  --global-error    estimate the global error at t_end by a second solve at tolerances / 10
                    (reported, with a warning above 10 times the tolerance)
  --out FILE        write every accepted step as CSV: t, the components and, for
                    constrained problems, position_residual, velocity_residual
  --trace FILE      write every attempted step as CSV: t,h,outcome,order,
                    newton_iterations,newton_rate,error,detail
  --plot FILE       plot the problem's plot components over t into a PNG (needs gnuplot)
  --sensitivities   also compute dy/dp with respect to the problem's parameters (radau5,
                    radau, bdf; problems with parameters: robertson, akzo, transistor, andrews,
                    pendulum, ...); with --json the field sensitivities, the n x np
                    matrix dy(t)/dp as a list of n rows
  --impasse        for a DAE M y' = f with constant singular M: watch for impasse points
                    (Bendtsen and Thomsen (1999), ch. 7); at one, locate it, pass it on the
                    augmented system (7.22) and report it (exit 0); JSON field impasse
  --impasse-arc-length L
                    how far SingDAE follows the augmented curve (default 0.5)
  --json            print one JSON object on stdout instead of the report
  --full-report     the full report (settings given and used, every counter, warnings)
Options also take the form --name=value. Numbers are plain decimals (0.5, 1e-6, -2). A
value is never another option (--out --json is refused), and --out, --trace and --plot
must name different files.

Options of 'sweep' (each p gets initial values consistent for it):
  --params FILE     one parameter set per line: numbers separated by commas or blanks;
                    empty lines and lines starting with # are skipped; - reads stdin.
                    Read, solved and written one set at a time; a file is checked whole
                    before the first solve, stdin and pipes as each line arrives
  --values LIST     comma-separated values of a problem with one parameter (andrews: the
                    torque), one run each
  --first I         the first set to solve (from 0; default 0) and
  --count N         how many (default: the rest): a scheduler's share of a large sweep
  --method, --option, --rtol, --atol, --h0, --t-end, --max-steps, --linear-solver as for
                    'solve'
Each line: {"format_version": 1, "run": I, "problem", "method", "p", "status", "ok",
"message", "t", "y", "stats", "cpu_seconds", "method_options", "method_requested",
"method_choice"}; fields are only ever added. The method (default auto) is chosen once.

Exit status: 0 success (status 'success', or 'terminal_event': stopped at an event as asked);
1 the solve failed (any other status) or an output could not be written; 2 bad command line or
input rejected by the library.
)";

const char* const kCommands = "list, solve, demo, help, methods, tableau, sweep";

/// `text` wrapped at 92 columns, continuation lines indented by `indent` spaces; `first` is the
/// column the text starts at.
std::string wrap(const std::string& text, size_t first, size_t indent) {
  std::string out, word;
  size_t column = first;
  auto flush = [&] {
    if (word.empty()) return;
    if (column > indent && column + 1 + word.size() > 92) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (column > first || !out.empty()) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    word.clear();
  };
  for (char c : text) {
    if (c == ' ')
      flush();
    else
      word += c;
  }
  flush();
  return out;
}

/// The usage text, with what it says about the methods taken from the registry: what each
/// solves (its index), the methods with a tableau option and those with projection.
std::string usage() {
  std::string methods, tableau, projection;
  for (const MethodInfo& m : registered_methods()) {
    const MethodCapabilities& c = m.capabilities;
    std::string what = "index <= " + std::to_string(c.max_index);
    if (!c.mass_matrix_form) what = "F(t, y, y') = 0 only, " + what;
    if (c.implicit_form && c.mass_matrix_form) what = "also F(t, y, y') = 0, " + what;
    if (!c.error_estimate) what += "; constant steps: needs --fixed-step and --h0";
    if (c.explicit_method) what += "; not for stiff problems";
    methods += (methods.empty() ? "" : ", ") + m.name + " (" + what + ")";
    if (m.option("tableau")) tableau += (tableau.empty() ? "" : ", ") + m.name;
    if (c.projection) projection += (projection.empty() ? "" : ", ") + m.name;
  }
  const std::pair<std::string, std::string> texts[] = {
      {"@METHODS@",
       "auto (the default: a method chosen from the problem's form, index, size "
       "and rtol by the rules 'daekit methods' lists with their measurements; the "
       "report, and --json's method_choice, name the rule) or a method of "
       "'daekit methods': " +
           methods},
      {"@TABLEAU@", "the same as --option tableau=NAME (methods with a tableau option: " + tableau +
                        "); 'daekit tableau' lists the Runge-Kutta tableaus"},
      {"@PROJECTION@",
       "methods with projection (" + projection +
           "): none (default; a problem's recommended projection, pendulum-driven: velocity), "
           "velocity (projection (2.8) of Schropp (2006) onto g(q) = 0, G(q) v = 0 after every "
           "step) "
           "or full (also the multipliers' manifold)"}};
  std::string text = kUsage;
  for (const auto& [key, description] : texts) {
    const size_t at = text.find(key);
    text.replace(at, key.size(), wrap(description, at - text.rfind('\n', at) - 1, 20));
  }
  return text;
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

std::string fmt_g(double x, int digits = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

/// A command-line value for a message: quoted, control characters escaped (\n, \xNN), cut
/// after 80 characters.
std::string show(const std::string& value) {
  std::string s = "'";
  size_t shown = 0;
  for (unsigned char c : value) {
    if (++shown > 80) {
      s += "...";
      break;
    }
    if (c == '\n') {
      s += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      s += buf;
    } else {
      s += static_cast<char>(c);
    }
  }
  return s + "'";
}

// ---------------------------------------------------------------------------------------------
// Progress bar on err: only when err is a terminal, and only once a run has taken more than a
// second (short runs print nothing).

class ProgressBar {
 public:
  ProgressBar(std::string label, std::FILE* err)
      : label_(std::move(label)),
        err_(err),
        enabled_(err != nullptr && fileno(err) >= 0 && isatty(fileno(err)) == 1),
        start_(std::chrono::steady_clock::now()),
        last_(start_) {}
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(double fraction) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1)) return;
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    if (!(fraction >= 0)) fraction = 0;
    if (fraction > 1) fraction = 1;
    constexpr int width = 40;
    const int filled = static_cast<int>(fraction * width);
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::fprintf(err_, "\r%s [%s%s] %5.1f%%  %.1f s ", label_.c_str(),
                 std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                 100 * fraction, elapsed);
    std::fflush(err_);
  }
  /// Whether err is a terminal (the bar is drawn only there).
  bool enabled() const { return enabled_; }
  /// Clears the bar (if one was drawn).
  void finish() {
    if (!drawn_) return;
    std::fprintf(err_, "\r%s\r", std::string(label_.size() + 62, ' ').c_str());
    std::fflush(err_);
    drawn_ = false;
  }

 private:
  std::string label_;
  std::FILE* err_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// ---------------------------------------------------------------------------------------------
// Parsing.

bool is_digit(char c) { return c >= '0' && c <= '9'; }

double parse_double(const std::string& option, const std::string& text) {
  if (plain_decimal(text)) {
    errno = 0;
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    // (underflow to 0 or a subnormal is accepted: the value is that small)
    if (end == text.c_str() + text.size() && std::isfinite(x)) return x;
  }
  throw UsageError("option " + option + " needs a finite number, got " + show(text) +
                   " (plain decimal notation, e.g. 1e-6)");
}

/// A comma-separated list of finite numbers (--tstops T1,T2,...).
std::vector<double> parse_times(const std::string& option, const std::string& text) {
  std::vector<double> times;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    times.push_back(parse_double(
        option,
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return times;
    start = comma + 1;
  }
}

/// A positive count that fits in a long (--max-steps).
long parse_count(const std::string& option, const std::string& text) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) i = 1;
  bool digits = i < text.size();
  for (size_t k = i; k < text.size(); ++k) digits = digits && is_digit(text[k]);
  if (!digits) throw UsageError("option " + option + " needs an integer, got " + show(text));
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (negative || x <= 0)
    throw UsageError("option " + option + " must be a positive integer, got " + show(text));
  if (errno == ERANGE || x > std::numeric_limits<long>::max())
    throw UsageError("option " + option + " is too large: " + show(text) + " (at most " +
                     std::to_string(std::numeric_limits<long>::max()) + ")");
  return static_cast<long>(x);
}

/// A value that looks like an option ("--json"): in `--out --json` the file name was forgotten
/// and the next option taken as it. ("-" alone is stdin for --params, "-5" a number.)
bool looks_like_option(const std::string& value) { return value.rfind("--", 0) == 0; }

/// An output path from the command line: not empty, no control characters (a newline in a
/// file name is almost certainly a mistake, and an attack on anything that parses it), not
/// starting with "--" (`--out=--json` names a file "--json" by mistake; ./--json is allowed).
std::string output_path(const std::string& option, const std::string& value,
                        const std::string& what = "a file name") {
  if (value.empty()) throw UsageError("option " + option + " needs " + what);
  if (looks_like_option(value))
    throw UsageError("option " + option + " needs " + what + ", got " + show(value) +
                     " (an option, not a name; write ./" + value + " for one starting with --)");
  for (unsigned char c : value)
    if (c < 0x20 || c == 0x7f)
      throw UsageError("option " + option + ": the file name " + show(value) +
                       " contains a control character (newline, tab, ...)");
  return value;
}

/// Whether the paths a and b name the same file: an existing file by its identity (links,
/// "./x" and "x"), a file still to be created by its normalised absolute path.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  if (a == b) return true;
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;  // (false, with ec set, unless both exist)
  std::error_code ea, eb;
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, ea), ea);
  const fs::path pb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  return !ea && !eb && pa == pb;
}

/// Refuses two output options (name, path; empty path: not given) that name the same file:
/// the one written last would silently replace the other.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i)
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [name_i, path_i] = outputs[i];
      const auto& [name_j, path_j] = outputs[j];
      if (path_i.empty() || path_j.empty() || !same_file(path_i, path_j)) continue;
      throw UsageError(name_i + " and " + name_j + " name the same file (" + show(path_i) +
                       (path_i == path_j ? std::string() : " and " + show(path_j)) +
                       "): one would overwrite the other; give each its own file");
    }
}

/// An option that takes a value, and what the value is (for messages): {"--out", "a file name"}.
struct ValueOption {
  const char* name;
  const char* value;
};

// What the options' values are, for the messages of parse_args.
const char* const kMethodValue = "a method name (see 'daekit methods')";
const char* const kNumberValue = "a number";
const char* const kCountValue = "a positive integer";
const char* const kFileValue = "a file name";
const char* const kLinearSolverValue = "auto, dense, banded, sparse or iterative";
const char* const kComponentsValue = "a list of components or none";
const char* const kMethodOptionValue = "NAME=VALUE (see 'daekit methods METHOD')";

/// Splits "--name=value" / "--name value" command lines. `with_value` lists the options that
/// take a value, `flags` those that do not; anything else starting with '-' is an error. A value
/// given as the next argument must not look like an option (`--out --json`: the value is
/// missing); the "--name=value" form takes any text (each option's parser judges it).
struct ParsedArgs {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  // in order; flags have value ""
};

ParsedArgs parse_args(const std::vector<std::string>& args, const std::string& command,
                      const std::vector<ValueOption>& with_value,
                      const std::vector<std::string>& flags) {
  auto find_value_option = [&](const std::string& name) -> const ValueOption* {
    for (const ValueOption& o : with_value)
      if (name == o.name) return &o;
    return nullptr;
  };
  auto is_flag = [&](const std::string& name) {
    return std::find(flags.begin(), flags.end(), name) != flags.end();
  };
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || (a[1] != '-' && is_digit(a[1]))) {
      parsed.positional.push_back(a);
      continue;
    }
    std::string name = a, value;
    bool inline_value = false;
    if (const size_t eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    if (const ValueOption* o = find_value_option(name)) {
      if (!inline_value) {
        if (i + 1 >= args.size())
          throw UsageError("option " + name + " of '" + command + "' needs a value (" + o->value +
                           ")");
        value = args[++i];
        if (looks_like_option(value))
          throw UsageError("option " + name + " needs " + o->value + ", got " + show(value) +
                           " (the next option: the value is missing)");
      }
      parsed.options.emplace_back(name, value);
    } else if (is_flag(name)) {
      if (inline_value) throw UsageError("option " + name + " takes no value");
      parsed.options.emplace_back(name, "");
    } else {
      std::vector<std::string> all;
      for (const ValueOption& o : with_value) all.push_back(o.name);
      all.insert(all.end(), flags.begin(), flags.end());
      throw UsageError("unknown option " + show(name) + " for '" + command +
                       "'; valid options: " + (all.empty() ? "none" : join(all)));
    }
  }
  return parsed;
}

/// NAME=VALUE of --option, appended to `values`.
void add_method_option(const std::string& text, OptionValues& values) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("option --option needs NAME=VALUE (e.g. --option stages=4), got " +
                     show(text) + "; 'daekit methods METHOD' lists the options of a method");
  values.emplace_back(text.substr(0, eq), text.substr(eq + 1));
}

/// The method `method` with the option values of --option / --tableau, checked against its
/// description (exit 2 naming the option and its valid values otherwise).
MethodChoice method_choice(const std::string& method, const OptionValues& values) {
  try {
    return MethodChoice(method, values);
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string(e.what()) + " ('daekit methods " + method +
                     "' lists its options and their valid values)");
  }
}

void check_problem_name(const std::string& name) {
  for (const auto& n : builtin_problem_names())
    if (n == name) return;
  throw UsageError("unknown problem " + show(name) +
                   "; valid problems: " + join(builtin_problem_names()) + " (see 'daekit list')");
}

/// A list of components (--exclude-from-error, --nonnegative): "none" (empty list) or
/// comma-separated indices (from 0) or component names; duplicates are dropped.
std::vector<int> parse_components(const std::string& option, const std::string& text,
                                  const BuiltinProblem& p) {
  if (text == "none") return {};
  const int n = p.dae.n;
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(component_name(p.dae, i));
  const std::string valid = "indices 0.." + std::to_string(n - 1) + " or names " + join(names) +
                            ", comma-separated, or none";
  if (text.empty()) throw UsageError("option " + option + " needs a list: " + valid);
  std::vector<int> list;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty())
      throw UsageError("option " + option + ": empty item in the list " + show(text) + "; " +
                       valid);
    int index = -1;
    bool all_digits = true;
    for (char c : item) all_digits = all_digits && is_digit(c);
    if (all_digits) {
      if (item.size() <= 9) index = std::stoi(item);
      if (index < 0 || index >= n)
        throw UsageError("option " + option + ": component " + show(item) + " outside 0.." +
                         std::to_string(n - 1) + " of problem '" + p.name + "'");
    } else {
      for (int i = 0; i < n && index < 0; ++i)
        if (names[static_cast<size_t>(i)] == item) index = i;
      if (index < 0)
        throw UsageError("option " + option + ": unknown component " + show(item) +
                         " of problem '" + p.name + "'; valid: " + valid);
    }
    bool seen = false;
    for (int k : list) seen = seen || k == index;
    if (!seen) list.push_back(index);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return list;
}

// ---------------------------------------------------------------------------------------------
// Solving.

struct Run {
  BuiltinProblem problem;
  std::string method = "radau5";
  MethodChoice choice = "radau5";
  std::string method_requested;            ///< --method as given ("auto" by default in solve)
  std::string method_choice;               ///< --method auto: the rule that chose (else empty)
  std::optional<std::string> tableau;      ///< --tableau or --option tableau=NAME
  std::optional<Formulation> formulation;  ///< set: the problem was re-formulated
  Options options;
  std::string trace_file;           ///< --trace (empty: none)
  std::vector<double> tstops_used;  ///< the solve's tstops (--tstops and the problem's)
  /// --impasse: solve_with_impasses (notes ch. 7) instead of solve(); `passage` is set when an
  /// impasse point stopped the ordinary solve.
  bool impasse = false;
  SingDaeOptions sing;
  std::optional<ImpassePassage> passage;
  Result result;
};

/// The problem's recommended settings: tolerances (atol times the problem's per-component
/// factors), h0 and the components that must stay non-negative.
Options recommended_options(const BuiltinProblem& p) {
  Options o;
  o.rtol = p.rtol;
  o.atol = p.atol;
  o.h0 = p.h0;
  if (p.atol_scale.size() != 0) o.atol_vector = p.atol * p.atol_scale;
  o.nonnegative = p.nonnegative;
  return o;
}

/// Replaces the (index-3) DAE of a mechanical built-in problem by formulation `form` of the
/// same MechanicalSystem: consistent initial values from its q0, v0; the reference solution,
/// the scd/plot components, the per-component atol factors and the non-negative components
/// are carried over for positions and velocities. The DAE's name says the formulation (the
/// report's first line shows it).
void reformulate(BuiltinProblem& p, Formulation form) {
  if (!p.mechanical)
    throw UsageError("--formulation: problem '" + p.name +
                     "' is not a mechanical system (valid: pendulum, pendulum-long, andrews)");
  const MechanicalSystem& sys = *p.mechanical;
  const MechanicalLayout from = mechanical_layout(sys, Formulation::Index3);
  if (p.dae.n != from.n)
    throw UsageError("--formulation: problem '" + p.name + "' is not in the index-3 form");
  const MechanicalLayout to = mechanical_layout(sys, form);
  const int nq = sys.nq;
  const Vector q0 = p.y0.segment(from.q, nq), v0 = p.y0.segment(from.v, nq);
  // component i of the index-3 layout -> its index in the new layout (-1: none)
  auto map = [&](int i) {
    if (i >= from.q && i < from.q + nq) return to.q + (i - from.q);
    if (i >= from.v && i < from.v + nq) return to.v + (i - from.v);
    return -1;
  };
  auto map_list = [&](const std::vector<int>& list) {
    std::vector<int> out;
    for (int i : list)
      if (map(i) >= 0) out.push_back(map(i));
    return out;
  };
  std::vector<int> scd_components = p.scd_components;
  if (scd_components.empty())
    for (int i = 0; i < p.dae.n; ++i) scd_components.push_back(i);
  p.scd_components = map_list(scd_components);
  p.plot_components = map_list(p.plot_components);
  p.nonnegative = map_list(p.nonnegative);
  if (p.atol_scale.size() == from.n) {
    Vector scale = Vector::Ones(to.n);
    for (int i = 0; i < from.n; ++i)
      if (map(i) >= 0) scale[map(i)] = p.atol_scale[i];
    p.atol_scale = scale;
  }
  if (p.reference) {
    Vector ref = Vector::Zero(to.n);
    for (int i = 0; i < from.n; ++i)
      if (map(i) >= 0) ref[map(i)] = p.reference->y[i];
    p.reference->y = ref;
  }
  const std::string name = p.dae.name;
  p.dae = formulate(sys, form);
  p.dae.name = name + " (" + to_string(form) + " formulation)";
  p.y0 = initial_values(sys, form, p.t0, q0, v0);
  p.title += std::string(" [") + to_string(form) + " formulation]";
}

/// The trace file of --trace: a header, then one CSV row per attempted step. Writes are
/// checked (the first failure is kept and reported by close()).
class TraceWriter {
 public:
  explicit TraceWriter(const std::string& path) : file_(path) {
    file_.write("t,h,outcome,order,newton_iterations,newton_rate,error,detail\n");
  }
  void row(const StepTrace& s) {
    ++rows_;
    std::string line = JsonWriter::full_precision(s.t);
    line += ',' + JsonWriter::full_precision(s.h) + ',' + to_string(s.outcome) + ',' +
            std::to_string(s.order) + ',' + std::to_string(s.newton_iterations) + ',' +
            JsonWriter::full_precision(s.newton_rate) + ',' + JsonWriter::full_precision(s.error) +
            ',' + csv_field(s.detail ? s.detail : "") + '\n';
    file_.write(line);
  }
  void close() { file_.close(); }
  long rows() const { return rows_; }

 private:
  OutputFile file_;
  long rows_ = 0;
};

/// Keeps run.method as requested (run.method_requested) and, for "auto", replaces it by the
/// method daekit::auto_method chooses for run.problem at tolerance rtol (run.method_choice:
/// the rule).
void resolve_auto(Run& run, double rtol) {
  run.method_requested = run.method;
  if (run.method != "auto") return;
  const BuiltinProblem& p = run.problem;
  const AutoMethod chosen = auto_method(p.dae.n, max_index_tag(p.dae.index), rtol);
  run.method = chosen.method;
  run.method_choice = chosen.rule;
}

/// Solves run.problem with run.choice and run.options (progress bar on io.err, rows of the
/// trace if one is given); fills run.result. InvalidArgument from the library propagates.
void execute(Run& run, const Io& io, TraceWriter* trace) {
  const BuiltinProblem& p = run.problem;
  ProgressBar bar(p.name, io.err);
  Options o = run.options;
  // the callback only where a bar can be drawn (a terminal): elsewhere it would cost a call
  // per step for nothing
  if (bar.enabled()) o.progress = [&bar](double fraction) { bar.update(fraction); };
  add_model_options(p, o);  // the model's events, switches and tstops
  run.tstops_used = o.tstops;
  // the drift of the model's first integrals is reported over the steps (the moon flights)
  if (!p.first_integrals.empty()) o.store_steps = true;
  if (trace) o.trace = [trace](const StepTrace& s) { trace->row(s); };
  if (run.impasse) {
    ImpasseSolve s = solve_with_impasses(p.dae, p.t0, p.t_end, p.y0, run.choice, o, run.sing);
    run.result = std::move(s.result);
    if (s.impasse) run.passage = std::move(s.passage);
  } else {
    run.result = solve(p.dae, p.t0, p.t_end, p.y0, run.choice, o);
  }
  bar.finish();
  run.result.method_choice = run.method_choice;  // the reports name the rule of "auto"
  // A pair the sweep skips runs all the same, with the reason as a warning (not a refusal).
  const std::string why = method_not_applicable(method_info(run.choice.name()), p);
  if (!why.empty())
    run.result.warnings.push_back("method '" + run.choice.name() +
                                  "' is not applicable to problem '" + p.name + "': " + why);
}

/// What --impasse adds to the report: the located point and the augmented curve followed.
std::string impasse_report(const ImpassePassage& passage) {
  std::string s = "impasse: " + passage.message + "\n";
  if (passage.t.empty()) return s;
  char line[200];
  std::snprintf(line, sizeof line,
                "impasse: SingDAE followed the augmented curve (7.22) for %zu RK4 steps, from t = "
                "%.10g to t = %.10g\n",
                passage.t.size() - 1, passage.t.front(), passage.t.back());
  return s + line;
}

/// "impasse" of the JSON (--impasse): whether a point stopped the solve, where, its alpha.
void write_impasse(JsonWriter& w, const Run& run) {
  w.begin_object("impasse");
  w.boolean("found", run.passage.has_value());
  if (run.passage) {
    const ImpassePassage& p = *run.passage;
    w.boolean("passed", p.passed);
    if (p.passed) {
      w.number("t", p.point.t);
      w.numbers("x", std::vector<double>(p.point.x.data(), p.point.x.data() + p.point.x.size()));
      w.number("alpha", p.point.alpha);
      w.boolean("accessible", p.point.accessible);
    }
    w.integer("rk4_steps", static_cast<long long>(p.t.size()) - 1);
    if (!p.t.empty()) w.number("t_last", p.t.back());
    w.string("message", p.message);
  }
  w.end_object();
}

/// "method_options": the options the method used, each as a JSON value of its type (a
/// Double's automatic word such as "auto" as a string).
void write_method_options(JsonWriter& w, const Result& r) {
  w.begin_object("method_options");
  for (const MethodOptionValue& v : r.method_options) {
    if (v.type == OptionType::Bool)
      w.boolean(v.name, v.value == "true");
    else if (v.type == OptionType::Int)
      w.integer(v.name, std::stoll(v.value));
    else if (v.type == OptionType::Double && plain_decimal(v.value))
      w.number(v.name, std::strtod(v.value.c_str(), nullptr));
    else
      w.string(v.name, v.value);
  }
  w.end_object();
}

// The JSON printed by `daekit solve --json` is a CONTRACT for scripts and other programs:
// fields may be added in later versions, but existing fields are never renamed, dropped or
// change their meaning or type. Keys always present:
//   format_version (1), daekit_version, problem, title, method, status (to_string(Status),
//   e.g. "success"), ok (bool), message, n, component_names, t0, t_end, t (time reached),
//   y (array, state at t), stats (object: one integer per counter of stats_fields() in
//   core/stats.hpp; at least nfev, nfev_jac, njac, nlu, nsol, nsteps, naccept, nreject,
//   nnewton, nnewton_fail, nproject, nfail, nroot, nevents), cpu_seconds, rtol, atol, h0,
//   max_steps, max_residual ({position, velocity, acceleration} for problems with a
//   constraint monitor, null otherwise), scd (significant correct digits vs the problem's
//   reference solution when the run reached the reference time, null otherwise),
//   reference_t (number or null), events (array of {t, name}: the located state events, in
//   order; empty if none), projection ("none", "velocity" or "full"), formulation ("index3",
//   "index2", "index1", "ggl" when --formulation was given, null otherwise).
// Added with the method registry (format_version still 1):
//   linear_solver (backend used, e.g. "dense"), rtol_used, atol_used (the tolerances as the
//   method works with them), jacobian_colours (f-evaluations per difference Jacobian, 0:
//   analytic), h_last, h_next (last accepted / next step size), order (method order of the
//   last step), yp (array, y'(t)), warnings (array of strings), excluded_from_error_test
//   (array of component indices), controller ("gustafsson", "classical" or "pi"), trace_file
//   (string or null), fixed_step (bool), tableau (--tableau name or null), nonnegative (array
//   of component indices).
// Added with Options::global_error_check (format_version still 1): global_error_check (bool,
//   --global-error), global_error (the estimated error of y at t in units of the tolerance, or
//   null), global_error_component (its component, or null).
// Added with the method options (format_version still 1): method_options (object: every
//   option of the method's description, `daekit methods NAME`, with the value the method
//   used, as a boolean, integer, number or string by the option's type; a number option's
//   automatic value, e.g. beta-multistep's c = "auto", as a string); tableau is also set by
//   --option tableau=NAME.
// Added with Result::notes (format_version still 1): notes (array of strings: facts of the
//   method's design that qualify its tolerance, the same on every run; warnings keep what
//   happened in this run).
// Added with first integrals (format_version still 1): first_integrals (array of {name,
//   max_drift, end_drift}: max |I(y_n) - I(y0)| over the stored steps and |I(y) - I(y0)| at t,
//   for the problem's first integrals, e.g. the moon flights' Jacobi integral; empty if none).
// Added with Options::tstops and Options::switches (issue 26, format_version still 1): tstops
//   (array of numbers: the discontinuity times of the solve, --tstops and the problem's own),
//   stats.nrestart (restarts of the method: tstops, switches, event actions).
// Added with the sensitivities (format_version still 1): sensitivities (only with
//   --sensitivities: the n x np matrix dy(t)/dp at the time reached, as an array of n rows of
//   np numbers; rows in the order of y, columns in the order of the problem's parameters).
// Added with the detection of Jacobian structures (issue 29, format_version still 1):
//   jacobian_structure (string: the structure used and whether it was declared or detected,
//   Result::jacobian_structure); stats gained nfev_check and nfev_structure.
// Added with the sensitivities of event times (format_version still 1): events[].dt_dp (only
//   with --sensitivities: the event time's derivative by the problem's parameters).
// Added with --method auto (issue 29, format_version still 1): method_choice (string: the rule
//   of daekit::auto_method that chose "method" when --method auto was given, null otherwise).
// Added when auto became the default method (issue 29, format_version still 1):
//   method_requested (string: the --method given, "auto" without --method; "method" stays the
//   method that ran).
// Added with index3-chain's scd over y1, y2 (format_version still 1): scd_components (array of
//   the component indices scd counts), component_digits (array: every component's digits
//   against the reference, scd of that component alone, or null where scd is null).
// Numbers are written with full precision (they read back as the same double); NaN and Inf
// are written as null.
// The solve ended as asked: at t_end, or at a terminal event (the model's designed outcome, as
// the moon flights' "hits the Earth", or the user's stop). Every other status is a failure.
bool finished(const Result& r) { return r.ok() || r.status == Status::TerminalEvent; }

std::string to_json(const Run& run) {
  const BuiltinProblem& p = run.problem;
  const Result& r = run.result;
  const std::optional<double> digits = problem_scd(p, r);
  JsonWriter w;
  w.begin_object();
  w.integer("format_version", 1);
  w.string("daekit_version", DAEKIT_VERSION);
  w.string("problem", p.name);
  w.string("title", p.title);
  w.string("method", r.method.empty() ? run.method : r.method);
  if (run.method_choice.empty())
    w.null("method_choice");
  else
    w.string("method_choice", run.method_choice);
  w.string("method_requested", run.method_requested);
  w.string("status", to_string(r.status));
  w.boolean("ok", r.ok());
  w.string("message", r.message);
  w.integer("n", p.dae.n);
  std::vector<std::string> names;
  for (int i = 0; i < p.dae.n; ++i) names.push_back(component_name(p.dae, i));
  w.strings("component_names", names);
  w.number("t0", p.t0);
  w.number("t_end", p.t_end);
  w.number("t", r.t);
  w.numbers("y", std::vector<double>(r.y.data(), r.y.data() + r.y.size()));
  w.begin_object("stats");
  for (const StatsField& f : stats_fields()) w.integer(f.key, r.stats.*(f.member));
  w.end_object();
  w.number("cpu_seconds", r.cpu_seconds);
  w.number("rtol", run.options.rtol);
  w.number("atol", run.options.atol);
  w.number("h0", run.options.h0);
  w.integer("max_steps", run.options.max_steps);
  w.string("projection", to_string(run.options.projection));
  if (run.formulation)
    w.string("formulation", to_string(*run.formulation));
  else
    w.null("formulation");
  if (r.has_constraints) {
    w.begin_object("max_residual");
    w.number("position", r.max_residual.position);
    w.number("velocity", r.max_residual.velocity);
    w.number("acceleration", r.max_residual.acceleration);
    w.end_object();
  } else {
    w.null("max_residual");
  }
  if (digits)
    w.number("scd", *digits);
  else
    w.null("scd");
  if (p.reference)
    w.number("reference_t", p.reference->t);
  else
    w.null("reference_t");
  std::vector<int> counted = p.scd_components;
  if (counted.empty())
    for (int i = 0; i < p.dae.n; ++i) counted.push_back(i);
  w.integers("scd_components", counted);
  const std::vector<double> component_digits = problem_component_digits(p, r);
  if (component_digits.empty())
    w.null("component_digits");
  else
    w.numbers("component_digits", component_digits);
  w.begin_array("events");
  for (const EventRecord& e : r.events) {
    w.begin_object();
    w.number("t", e.t);
    w.string("name", e.name);
    if (e.dt_dp.size() > 0) w.numbers("dt_dp", std::vector<double>(e.dt_dp.begin(), e.dt_dp.end()));
    w.end_object();
  }
  w.end_array();
  w.begin_array("first_integrals");
  for (const FirstIntegralDrift& d : first_integral_drifts(p, r)) {
    w.begin_object();
    w.string("name", d.name);
    w.number("max_drift", d.max_over_steps);
    w.number("end_drift", d.at_end);
    w.end_object();
  }
  w.end_array();
  w.string("linear_solver", r.linear_solver);
  w.string("jacobian_structure", r.jacobian_structure);
  w.number("rtol_used", r.rtol_used);
  w.number("atol_used", r.atol_used);
  w.integer("jacobian_colours", r.jacobian_colours);
  w.number("h_last", r.h_last);
  w.number("h_next", r.h_next);
  w.integer("order", r.order);
  w.numbers("yp", std::vector<double>(r.yp.data(), r.yp.data() + r.yp.size()));
  w.strings("warnings", r.warnings);
  w.strings("notes", r.notes);
  w.integers("excluded_from_error_test", r.excluded_from_error_test);
  w.string("controller", to_string(run.options.controller));
  if (run.trace_file.empty())
    w.null("trace_file");
  else
    w.string("trace_file", run.trace_file);
  w.boolean("fixed_step", run.options.fixed_step);
  if (run.tableau)
    w.string("tableau", *run.tableau);
  else
    w.null("tableau");
  w.integers("nonnegative", run.options.nonnegative);
  w.numbers("tstops", run.tstops_used);
  if (run.impasse) write_impasse(w, run);
  w.boolean("global_error_check", run.options.global_error_check);
  if (r.global_error_component >= 0) {
    w.number("global_error", r.global_error);
    w.integer("global_error_component", r.global_error_component);
  } else {
    w.null("global_error");
    w.null("global_error_component");
  }
  write_method_options(w, r);
  if (run.options.sensitivities) {
    w.begin_array("sensitivities");
    for (Eigen::Index i = 0; i < r.sensitivities.rows(); ++i) {
      const Vector row = r.sensitivities.row(i).transpose();
      w.numbers("", std::vector<double>(row.data(), row.data() + row.size()));
    }
    w.end_array();
  }
  w.end_object();
  return w.str() + "\n";
}

// ---------------------------------------------------------------------------------------------
// Commands.

int cmd_list(const std::vector<std::string>& args, const Io& io) {
  const ParsedArgs a = parse_args(args, "list", {}, {});
  if (!a.positional.empty())
    throw UsageError("'list' takes no arguments (got " + show(a.positional[0]) + ")");
  std::fprintf(io.out, "%-16s %4s  %-16s %-9s %-9s  %s\n", "name", "n", "t-interval", "rtol",
               "atol", "title");
  for (const auto& name : builtin_problem_names()) {
    try {
      const BuiltinProblem p = make_builtin_problem(name);
      std::string interval = "[";  // (+= avoids a GCC 12 -Wrestrict false positive)
      interval += fmt_g(p.t0) + ", " + fmt_g(p.t_end) + "]";
      std::fprintf(io.out, "%-16s %4d  %-16s %-9s %-9s  %s%s\n", name.c_str(), p.dae.n,
                   interval.c_str(), fmt_g(p.rtol).c_str(), fmt_g(p.atol).c_str(), p.title.c_str(),
                   p.reference ? "" : " (no reference solution)");
    } catch (const std::exception& e) {
      std::fprintf(io.out, "%-16s %4s  %-16s %-9s %-9s  (not available: %s)\n", name.c_str(), "-",
                   "-", "-", "-", e.what());
    }
  }
  return kExitOk;
}

/// `daekit methods NAME`: the method's title, summary and reference, and its options.
void print_method(const MethodInfo& m, const Io& io) {
  std::fprintf(io.out, "%s: %s\n  %s\n  %s\n", m.name.c_str(), m.title.c_str(),
               wrap(m.summary(), 2, 2).c_str(), wrap("reference: " + m.reference, 2, 2).c_str());
  if (m.options.empty()) {
    std::fprintf(io.out, "\nno options\n");
    return;
  }
  std::fprintf(io.out,
               "\noptions (daekit solve --option NAME=VALUE; Python: keyword arguments)\n"
               "  %-28s %-8s %-18s %s\n",
               "name", "type", "default", "valid values");
  for (const MethodOption& o : m.options) {
    std::fprintf(io.out, "  %-28s %-8s %-18s %s\n      %s\n", o.name.c_str(), to_string(o.type),
                 o.default_value.c_str(), wrap(o.range(), 59, 59).c_str(),
                 wrap(o.doc, 6, 6).c_str());
    if (o.type == OptionType::Tableau)
      std::fprintf(
          io.out, "      %s\n",
          wrap("named tableaus it accepts: " + join(method_option_values(m.name, o.name)), 6, 6)
              .c_str());
  }
}

int cmd_methods(const std::vector<std::string>& args, const Io& io) {
  const ParsedArgs a = parse_args(args, "methods", {}, {});
  if (a.positional.size() > 1)
    throw UsageError("'methods' takes at most one method name (got " + show(a.positional[0]) +
                     " and " + show(a.positional[1]) + ")");
  if (a.positional.size() == 1) {
    print_method(method_info(a.positional[0]), io);  // InvalidArgument: exit 2, the names
    return kExitOk;
  }
  std::fprintf(io.out, "%-14s %s\n%-14s %s\n", "name", "title", "",
               "problem forms; index; order; step control; dense output; projection");
  for (const MethodInfo& m : registered_methods()) {
    // the summary wrapped after "; " to stay within 100 columns
    std::string summary = m.summary(), lines, line;
    while (!summary.empty()) {
      const size_t cut = summary.find("; ");
      const std::string part = summary.substr(0, cut == std::string::npos ? cut : cut + 1);
      summary = cut == std::string::npos ? "" : summary.substr(cut + 2);
      if (!line.empty() && 15 + line.size() + 1 + part.size() > 100) {
        lines += std::string(15, ' ') + line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + part;
    }
    if (!line.empty()) lines += std::string(15, ' ') + line + "\n";
    std::fprintf(io.out, "%-14s %s\n%s", m.name.c_str(), m.title.c_str(), lines.c_str());
  }
  std::fprintf(io.out, "%-14s %s\n", "auto",
               wrap("the default of 'solve', 'sweep' and 'demo': the method chosen from the "
                    "problem's form, index, size and rtol, by the first rule that applies "
                    "(the report names it):",
                    15, 15)
                   .c_str());
  for (const std::string& rule : auto_method_rules())
    std::fprintf(io.out, "%15s- %s\n", "", wrap(rule, 17, 17).c_str());
  std::fprintf(io.out, "\n'daekit methods NAME' lists a method's options.\n");
  return kExitOk;
}

int cmd_solve(const std::vector<std::string>& args, const Io& io) {
  const ParsedArgs a =
      parse_args(args, "solve",
                 {{"--method", kMethodValue},
                  {"--option", kMethodOptionValue},
                  {"--tableau", "a tableau name"},
                  {"--projection", "none, velocity or full"},
                  {"--formulation", "index3, index2, index1 or ggl"},
                  {"--rtol", kNumberValue},
                  {"--atol", kNumberValue},
                  {"--h0", kNumberValue},
                  {"--t-end", kNumberValue},
                  {"--max-steps", kCountValue},
                  {"--linear-solver", kLinearSolverValue},
                  {"--controller", "gustafsson, classical or pi"},
                  {"--exclude-from-error", kComponentsValue},
                  {"--nonnegative", kComponentsValue},
                  {"--tstops", "a comma-separated list of times"},
                  {"--impasse-arc-length", kNumberValue},
                  {"--out", kFileValue},
                  {"--trace", kFileValue},
                  {"--plot", kFileValue}},
                 {"--fixed-step", "--no-jacobian-check", "--no-structure-detection",
                  "--global-error", "--json", "--full-report", "--sensitivities", "--impasse"});
  if (a.positional.empty())
    throw UsageError("'solve' needs a problem name; valid problems: " +
                     join(builtin_problem_names()));
  if (a.positional.size() > 1)
    throw UsageError("'solve' takes one problem name, got " + show(a.positional[0]) + " and " +
                     show(a.positional[1]));
  const std::string& name = a.positional[0];
  check_problem_name(name);

  Run run;
  run.method = "auto";  // the default: chosen from the problem's form, size, index and rtol
  Options& o = run.options;
  std::optional<double> rtol, atol, h0, t_end;
  std::optional<std::string> projection, formulation, exclude, nonnegative;
  std::string out, plot;
  bool json = false, full_report = false;
  std::optional<double> impasse_arc_length;
  OptionValues method_values;  // --option and --tableau, in order
  for (const auto& [opt, value] : a.options) {
    try {
      if (opt == "--method") {
        if (value != "auto") method_info(value);  // InvalidArgument listing the names
        run.method = value;
      } else if (opt == "--option") {
        add_method_option(value, method_values);
      } else if (opt == "--tableau") {
        method_values.emplace_back("tableau", value);
      } else if (opt == "--projection") {
        projection = value;
      } else if (opt == "--formulation") {
        formulation = value;
      } else if (opt == "--rtol") {
        rtol = parse_double(opt, value);
      } else if (opt == "--atol") {
        atol = parse_double(opt, value);
      } else if (opt == "--h0") {
        h0 = parse_double(opt, value);
      } else if (opt == "--t-end") {
        t_end = parse_double(opt, value);
      } else if (opt == "--max-steps") {
        o.max_steps = parse_count(opt, value);
      } else if (opt == "--linear-solver") {
        o.linear_solver = parse_linear_solver(value);
      } else if (opt == "--controller") {
        o.controller = parse_controller(value);
      } else if (opt == "--exclude-from-error") {
        exclude = value;
      } else if (opt == "--nonnegative") {
        nonnegative = value;
      } else if (opt == "--tstops") {
        o.tstops = parse_times(opt, value);
      } else if (opt == "--out") {
        out = output_path(opt, value);
      } else if (opt == "--trace") {
        run.trace_file = output_path(opt, value);
      } else if (opt == "--plot") {
        plot = output_path(opt, value);
      } else if (opt == "--fixed-step") {
        o.fixed_step = true;
      } else if (opt == "--no-jacobian-check") {
        o.check_jacobian = false;
      } else if (opt == "--no-structure-detection") {
        o.detect_sparsity = false;
      } else if (opt == "--global-error") {
        o.global_error_check = true;
      } else if (opt == "--json") {
        json = true;
      } else if (opt == "--full-report") {
        full_report = true;
      } else if (opt == "--sensitivities") {
        o.sensitivities = true;
      } else if (opt == "--impasse") {
        run.impasse = true;
      } else if (opt == "--impasse-arc-length") {
        impasse_arc_length = parse_double(opt, value);
      }
    } catch (const InvalidArgument& e) {
      throw UsageError(std::string(e.what()));
    }
  }

  check_distinct_outputs({{"--out", out}, {"--trace", run.trace_file}, {"--plot", plot}});
  if (impasse_arc_length) {
    if (!run.impasse) throw UsageError("--impasse-arc-length needs --impasse");
    run.sing.arc_length = *impasse_arc_length;
    try {
      run.sing.validate();
    } catch (const InvalidArgument& e) {
      throw UsageError(std::string("--impasse-arc-length: ") + e.what());
    }
  }

  // The problem (the method "auto" is chosen from its size, index and tolerance).
  run.problem = make_builtin_problem(name);
  BuiltinProblem& p = run.problem;
  if (formulation) {
    Formulation form;
    try {
      form = parse_formulation(*formulation);
    } catch (const InvalidArgument& e) {
      throw UsageError(e.what());
    }
    reformulate(p, form);
    run.formulation = form;
  }
  resolve_auto(run, rtol.value_or(p.rtol));

  // The method and the options that depend on it.
  const MethodInfo& info = method_info(run.method);
  if (projection) {
    if (*projection == "none")
      o.projection = Projection::None;
    else if (*projection == "velocity")
      o.projection = Projection::Velocity;
    else if (*projection == "full")
      o.projection = Projection::Full;
    else
      throw UsageError("unknown projection " + show(*projection) + "; valid: none, velocity, full");
    if (o.projection != Projection::None && !info.capabilities.projection) {
      std::vector<std::string> with;
      for (const MethodInfo& m : registered_methods())
        if (m.capabilities.projection) with.push_back(m.name);
      throw UsageError("--projection " + *projection + " needs --method " + join(with, " or ") +
                       " (method '" + run.method + "' has no projection)");
    }
  }
  for (const auto& [option, value] : method_values)
    if (option == "tableau") run.tableau = value;
  if (run.tableau && !info.option("tableau")) {
    std::vector<std::string> with;
    for (const MethodInfo& m : registered_methods())
      if (m.option("tableau")) with.push_back(m.name);
    throw UsageError("--tableau is for --method " + join(with, " or ") + " (method '" + run.method +
                     "' has its own coefficients)");
  }
  if (o.fixed_step && !h0) throw UsageError("--fixed-step needs --h0 H (the constant step size)");
  if (!info.capabilities.error_estimate && !o.fixed_step)
    throw UsageError("method '" + run.method +
                     "' has no error estimate (constant steps only): give --fixed-step and "
                     "--h0 H");
  run.choice = method_choice(run.method, method_values);

  // The problem and the options that depend on it.
  if (t_end) {
    if (*t_end == p.t0)
      throw UsageError("--t-end " + fmt_g(*t_end, 17) + " equals the start time t0 of problem '" +
                       name + "'");
    p.t_end = *t_end;
  }
  o.rtol = rtol.value_or(p.rtol);
  o.atol = atol.value_or(p.atol);
  o.h0 = h0.value_or(p.h0);
  if (p.atol_scale.size() != 0) o.atol_vector = o.atol * p.atol_scale;
  o.nonnegative = nonnegative ? parse_components("--nonnegative", *nonnegative, p) : p.nonnegative;
  if (!projection) o.projection = recommended_projection(p, info);
  if (exclude) o.exclude_from_error_test = parse_components("--exclude-from-error", *exclude, p);
  o.store_steps = !out.empty() || !plot.empty();
  if (o.sensitivities) {
    if (!info.capabilities.sensitivities) {
      std::vector<std::string> with;
      for (const MethodInfo& m : registered_methods())
        if (m.capabilities.sensitivities) with.push_back(m.name);
      throw UsageError("--sensitivities needs --method " + join(with, " or ") + " (method '" +
                       run.method + "' does not compute sensitivities)");
    }
    if (p.dae.p.size() == 0)
      throw UsageError("--sensitivities: problem '" + name +
                       "' has no parameters (problems with parameters: robertson, akzo, "
                       "transistor, andrews, pendulum, ...)");
    o.initial_sensitivities = initial_sensitivities(p);
  }
  try {
    o.validate(p.dae.n);
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string("invalid option for problem '") + name + "': " + e.what());
  }

  // The outputs: fail before a long run, not after it.
  if (!plot.empty() && find_gnuplot().empty())
    throw std::runtime_error("gnuplot not found on PATH; it is needed for --plot " + plot +
                             " (Debian: apt-get install gnuplot-nox, or run scripts/setup.sh)");
  if (!out.empty()) check_writable(out);
  if (!plot.empty()) check_writable(plot);
  std::unique_ptr<TraceWriter> trace;
  if (!run.trace_file.empty()) trace = std::make_unique<TraceWriter>(run.trace_file);

  try {
    execute(run, io, trace.get());
  } catch (const InvalidArgument& e) {
    throw UsageError("invalid input for problem '" + name + "' with method '" + run.method +
                     "': " + e.what());
  }
  const Result& r = run.result;
  // With --json, out carries exactly one JSON object; everything else goes to err.
  std::FILE* info_out = json ? io.err : io.out;
  // --impasse: an impasse point located and passed is the designed end of the run
  const bool passed = run.passage && run.passage->passed;
  const bool done = finished(r) || passed;
  int rc = done ? kExitOk : kExitFailure;
  // with --json the rule of "auto" goes to err (the report, which names it, is not printed)
  if (json && !run.method_choice.empty())
    std::fprintf(info_out, "method auto: %s\n", run.method_choice.c_str());
  if (json) {
    std::fputs(to_json(run).c_str(), io.out);
    if (!done) std::fputs(problem_report(p, r, full_report).c_str(), io.err);
  } else {
    std::fputs(problem_report(p, r, full_report).c_str(), io.out);
    if (run.passage) std::fputs(impasse_report(*run.passage).c_str(), io.out);
  }
  io.flush_out();
  auto output = [&](const char* what, auto&& write) {
    try {
      write();
    } catch (const std::exception& e) {
      std::fprintf(io.err, "daekit solve: %s: %s\n", what, e.what());
      rc = kExitFailure;
    }
  };
  if (trace)
    output("--trace", [&] {
      trace->close();
      std::fprintf(info_out, "wrote %s (%ld attempted steps)\n", run.trace_file.c_str(),
                   trace->rows());
    });
  if (!out.empty())
    output("--out", [&] {
      write_csv(out, p.dae, r);
      std::fprintf(info_out, "wrote %s (%zu rows: t0 and every accepted step)\n", out.c_str(),
                   r.t_steps.size());
    });
  if (!plot.empty())
    output("--plot", [&] {
      plot_png(plot, p, r);
      std::fprintf(info_out, "wrote %s\n", plot.c_str());
    });
  if (!done)
    std::fprintf(io.err, "daekit solve: problem '%s' ended with status %s: %s\n", name.c_str(),
                 to_string(r.status), r.message.c_str());
  return rc;
}

int cmd_demo(const std::vector<std::string>& args, const Io& io) {
  const ParsedArgs a = parse_args(args, "demo", {{"--outdir", "a directory name"}}, {});
  if (!a.positional.empty())
    throw UsageError("'demo' takes no problem names (got " + show(a.positional[0]) + ")");
  std::string outdir = "demo-output";
  for (const auto& [opt, value] : a.options)
    if (opt == "--outdir") outdir = output_path(opt, value, "a directory name");
  std::error_code ec;
  std::filesystem::create_directories(outdir, ec);
  if (ec || !std::filesystem::is_directory(outdir, ec))
    throw std::runtime_error("cannot create the output directory '" + outdir +
                             "': " + (ec ? ec.message() : "not a directory"));

  const std::vector<std::string> wanted = {"pendulum", "vanderpol", "robertson", "andrews",
                                           "transistor"};
  std::vector<Run> runs;
  std::vector<std::string> skipped;
  bool all_ok = true;
  std::fprintf(io.out,
               "daekit %s demo: built-in problems solved with the default method (auto) at\n"
               "their recommended tolerances; output in %s/\n",
               DAEKIT_VERSION, outdir.c_str());
  for (const auto& name : wanted) {
    Run run;
    try {
      check_problem_name(name);
      run.problem = make_builtin_problem(name);
    } catch (const std::exception& e) {
      skipped.push_back(name);
      std::fprintf(io.out, "\n=== %s: skipped (%s)\n", name.c_str(), e.what());
      continue;
    }
    const BuiltinProblem& p = run.problem;
    run.method = "auto";  // as 'daekit solve NAME'
    resolve_auto(run, p.rtol);
    run.choice = run.method;
    run.options = recommended_options(p);
    run.options.projection = recommended_projection(p, method_info(run.method));
    std::fprintf(io.out, "\n=== %s: %s\n", p.name.c_str(), p.title.c_str());
    if (!p.description.empty()) {
      std::string d = p.description;
      for (size_t pos = 0; (pos = d.find('\n', pos)) != std::string::npos; pos += 5)
        d.replace(pos, 1, "\n    ");
      std::fprintf(io.out, "    %s\n", d.c_str());
    }
    std::fprintf(io.out, "    t in [%s, %s], n = %d, rtol = %s, atol = %s\n", fmt_g(p.t0).c_str(),
                 fmt_g(p.t_end).c_str(), p.dae.n, fmt_g(run.options.rtol).c_str(),
                 fmt_g(run.options.atol).c_str());
    io.flush_out();
    try {
      execute(run, io, nullptr);
    } catch (const InvalidArgument& e) {
      std::fprintf(io.out, "  rejected by the library: %s\n", e.what());
      all_ok = false;
      continue;
    }
    std::fputs(problem_report(p, run.result).c_str(), io.out);
    all_ok = all_ok && finished(run.result);
    const std::string csv = outdir + "/" + p.name + ".csv";
    try {
      write_csv(csv, p.dae, run.result);
      std::fprintf(io.out, "  wrote %s (%zu rows)\n", csv.c_str(), run.result.t_steps.size());
    } catch (const std::exception& e) {
      std::fprintf(io.err, "daekit demo: %s\n", e.what());
      all_ok = false;
    }
    io.flush_out();
    runs.push_back(std::move(run));
  }

  bool plot_ok = true;
  for (const Run& run : runs) {
    if (run.problem.name != "pendulum") continue;
    const std::string png = outdir + "/pendulum.png";
    try {
      plot_png(png, run.problem, run.result);
      std::fprintf(io.out, "\nwrote %s (u1, u2 over t; constraint residuals |g(q)|, |G(q) v|)\n",
                   png.c_str());
    } catch (const std::exception& e) {
      std::fprintf(io.err, "daekit demo: %s\n", e.what());
      plot_ok = false;
    }
  }

  std::fprintf(io.out, "\nSummary\n  %-12s %-22s %8s %8s %10s %6s %10s  %s\n", "problem", "status",
               "steps", "rejected", "f evals", "scd", "CPU ms", "method");
  for (const Run& run : runs) {
    const Result& r = run.result;
    const std::optional<double> digits = problem_scd(run.problem, r);
    std::fprintf(io.out, "  %-12s %-22s %8ld %8ld %10ld %6s %10.2f  %s\n", run.problem.name.c_str(),
                 to_string(r.status), r.stats.naccept, r.stats.nreject, r.stats.nfev,
                 digits ? fmt_g(*digits, 3).c_str() : "-", 1e3 * r.cpu_seconds, run.method.c_str());
  }
  if (!skipped.empty())
    std::fprintf(io.out, "  skipped (not available yet): %s\n", join(skipped).c_str());
  io.flush_out();
  if (!all_ok) std::fprintf(io.err, "daekit demo: at least one problem did not solve\n");
  return all_ok && plot_ok ? kExitOk : kExitFailure;
}

// `daekit tableau [NAME]`: the analysis of tableaus/analysis.hpp as text, or the names.
int cmd_tableau(const std::vector<std::string>& args, const Io& io) {
  const ParsedArgs a = parse_args(args, "tableau", {}, {});
  if (a.positional.size() > 1)
    throw UsageError("'tableau' takes one tableau name (got " + show(a.positional[1]) + ")");
  if (a.positional.empty()) {
    std::fprintf(io.out, "%-16s %6s %5s  %s\n", "name", "stages", "order", "tableau");
    for (const std::string& name : tableau_names()) {
      const RungeKuttaTableau t = tableau_by_name(name);
      std::fprintf(io.out, "%-16s %6d %5d  %s\n", name.c_str(), t.stages(), t.order,
                   t.name.c_str());
    }
    return kExitOk;
  }
  const RungeKuttaTableau t = tableau_by_name(a.positional[0]);  // InvalidArgument: exit 2
  std::fputs(analyse_tableau(t).report().c_str(), io.out);
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// sweep: one solve per parameter set, one JSON line per run (any scheduler can split a sweep
// into --first/--count blocks and concatenate the lines).

/// The parameter sets of --params, read one line at a time (a sweep's memory does not grow with
/// its length): numbers separated by commas or blanks, one set per line; empty lines and lines
/// starting with # are skipped; "-" reads stdin. A device or binary file (/dev/zero, /dev/full:
/// endless NUL bytes) is refused at its first NUL byte or overlong line instead of being read
/// until memory runs out.
class ParameterReader {
 public:
  explicit ParameterReader(std::string path)
      : path_(std::move(path)), file_(path_ == "-" ? stdin : std::fopen(path_.c_str(), "r")) {
    if (!file_)
      throw UsageError("--params: cannot open " + show(path_) + ": " + std::strerror(errno));
  }
  ~ParameterReader() {
    if (file_ != stdin) std::fclose(file_);
  }
  ParameterReader(const ParameterReader&) = delete;
  ParameterReader& operator=(const ParameterReader&) = delete;

  /// Whether the input can be read twice (a regular file, not stdin, a pipe or a device).
  bool rereadable() const {
    struct stat st;
    return file_ != stdin && ::fstat(fileno(file_), &st) == 0 && S_ISREG(st.st_mode);
  }
  /// Back to the first line (rereadable() inputs only).
  void rewind() {
    std::rewind(file_);
    line_no_ = 0;
  }

  /// The next parameter set into `set`; false at the end of the input. UsageError for a line
  /// that does not parse, runtime_error for a read error.
  bool next(Vector& set) {
    std::string line;
    while (read_line(line)) {
      ++line_no_;
      const size_t first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      parse(line, set);
      return true;
    }
    return false;
  }

 private:
  // One line without its newline into `line`; false at the end of the input.
  bool read_line(std::string& line) {
    constexpr size_t kMaxLine = 1u << 20;
    line.clear();
    int c;
    while ((c = std::fgetc(file_)) != EOF && c != '\n') {
      if (c == '\0') refuse("a NUL byte (not a text file)");
      if (line.size() >= kMaxLine) refuse("a line longer than 1 MiB (not a parameter file)");
      line += static_cast<char>(c);
    }
    if (std::ferror(file_)) throw std::runtime_error("--params: cannot read " + show(path_));
    return c != EOF || !line.empty();
  }
  [[noreturn]] void refuse(const char* why) const {
    throw UsageError("--params " + show(path_) + ", line " + std::to_string(line_no_ + 1) + ": " +
                     why);
  }
  void parse(const std::string& line, Vector& set) const {
    std::vector<double> values;
    std::string item;
    const std::string where = "--params " + path_ + ", line " + std::to_string(line_no_);
    auto take = [&] {
      if (!item.empty()) values.push_back(parse_double(where, item));
      item.clear();
    };
    for (char c : line) {
      if (c == ',' || c == ' ' || c == '\t' || c == '\r')
        take();
      else
        item += c;
    }
    take();
    set.resize(static_cast<Eigen::Index>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) set[static_cast<Eigen::Index>(i)] = values[i];
  }

  std::string path_;
  std::FILE* file_;
  long line_no_ = 0;
};

/// The comma-separated values of --values, one parameter set of one value each.
std::vector<Vector> value_sets(const std::string& values) {
  std::vector<Vector> sets;
  size_t start = 0;
  for (;;) {
    const size_t comma = values.find(',', start);
    const std::string item =
        values.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    sets.push_back(Vector::Constant(1, parse_double("--values", item)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sets;
}

/// One run of a sweep as a JSON object on one line.
std::string sweep_json(long run, const BuiltinProblem& p, const std::string& method,
                       const std::string& method_requested, const Vector& params, const Result& r) {
  JsonWriter w(/*compact=*/true);
  w.begin_object();
  w.integer("format_version", 1);
  w.integer("run", run);
  w.string("problem", p.name);
  w.string("method", r.method.empty() ? method : r.method);
  w.numbers("p", std::vector<double>(params.data(), params.data() + params.size()));
  w.string("status", to_string(r.status));
  w.boolean("ok", r.ok());
  w.string("message", r.message);
  w.number("t", r.t);
  w.numbers("y", std::vector<double>(r.y.data(), r.y.data() + r.y.size()));
  w.begin_object("stats");
  for (const StatsField& f : stats_fields()) w.integer(f.key, r.stats.*(f.member));
  w.end_object();
  w.number("cpu_seconds", r.cpu_seconds);
  write_method_options(w, r);
  w.string("method_requested", method_requested);
  if (r.method_choice.empty())
    w.null("method_choice");
  else
    w.string("method_choice", r.method_choice);
  w.end_object();
  return w.str() + "\n";
}

int cmd_sweep(const std::vector<std::string>& args, const Io& io) {
  const ParsedArgs a = parse_args(args, "sweep",
                                  {{"--params", "a file name (- for stdin)"},
                                   {"--values", "a comma-separated list of numbers"},
                                   {"--first", "an integer >= 0"},
                                   {"--count", kCountValue},
                                   {"--method", kMethodValue},
                                   {"--option", kMethodOptionValue},
                                   {"--rtol", kNumberValue},
                                   {"--atol", kNumberValue},
                                   {"--h0", kNumberValue},
                                   {"--t-end", kNumberValue},
                                   {"--max-steps", kCountValue},
                                   {"--linear-solver", kLinearSolverValue}},
                                  {});
  if (a.positional.size() != 1)
    throw UsageError("'sweep' needs one problem name; valid problems: " +
                     join(builtin_problem_names()));
  const std::string& name = a.positional[0];
  check_problem_name(name);
  std::optional<std::string> params_file, values;
  std::optional<double> rtol, atol, h0, t_end;
  long first = 0, count = -1;
  std::string method = "auto";  // as solve's default
  OptionValues method_values;
  Options o;
  for (const auto& [opt, value] : a.options) {
    try {
      if (opt == "--params") {
        params_file = value;
      } else if (opt == "--values") {
        values = value;
      } else if (opt == "--first") {
        first = value == "0" ? 0 : parse_count(opt, value);
      } else if (opt == "--count") {
        count = parse_count(opt, value);
      } else if (opt == "--method") {
        if (value != "auto") method_info(value);  // InvalidArgument listing the names
        method = value;
      } else if (opt == "--option") {
        add_method_option(value, method_values);
      } else if (opt == "--rtol") {
        rtol = parse_double(opt, value);
      } else if (opt == "--atol") {
        atol = parse_double(opt, value);
      } else if (opt == "--h0") {
        h0 = parse_double(opt, value);
      } else if (opt == "--t-end") {
        t_end = parse_double(opt, value);
      } else if (opt == "--max-steps") {
        o.max_steps = parse_count(opt, value);
      } else if (opt == "--linear-solver") {
        o.linear_solver = parse_linear_solver(value);
      }
    } catch (const InvalidArgument& e) {
      throw UsageError(std::string(e.what()));
    }
  }
  if (params_file.has_value() == values.has_value())
    throw UsageError("'sweep' needs exactly one of --params FILE and --values LIST");
  const BuiltinProblem base = make_builtin_problem(name);
  // "auto": chosen once, from the problem's size, index and rtol (the same for every set)
  const std::string method_requested = method;
  std::string rule;
  if (method == "auto") {
    const AutoMethod chosen =
        auto_method(base.dae.n, max_index_tag(base.dae.index), rtol.value_or(base.rtol));
    method = chosen.method;
    rule = chosen.rule;
  }
  if (!method_info(method).capabilities.error_estimate)
    throw UsageError("'sweep': method '" + method + "' needs --fixed-step (use 'solve')");
  const MethodChoice choice = method_choice(method, method_values);
  // the selected sets: [first, last)
  const long last = count < 0 || first > std::numeric_limits<long>::max() - count
                        ? std::numeric_limits<long>::max()
                        : first + count;
  auto problem_for = [&](long i, const Vector& set) {
    try {
      return with_parameters(base, set);
    } catch (const InvalidArgument& e) {
      throw UsageError("parameter set " + std::to_string(i) + ": " + e.what());
    }
  };
  auto check_first = [&](long total) {
    if (first > total)
      throw UsageError("--first " + std::to_string(first) + " is beyond the " +
                       std::to_string(total) + " parameter sets");
  };
  int rc = kExitOk;
  // one run: solved and written as one line at once (a scheduler sees the runs as they end)
  auto run = [&](long i, const Vector& set) {
    BuiltinProblem p = problem_for(i, set);
    Options oi = recommended_options(p);
    oi.max_steps = o.max_steps;
    oi.linear_solver = o.linear_solver;
    oi.store_steps = false;
    if (rtol) oi.rtol = *rtol;
    if (atol) {
      oi.atol = *atol;
      if (p.atol_scale.size() != 0) oi.atol_vector = *atol * p.atol_scale;
    }
    if (h0) oi.h0 = *h0;
    if (t_end) p.t_end = *t_end;
    add_model_options(p, oi);
    Result r;
    try {
      r = solve(p.dae, p.t0, p.t_end, p.y0, choice, oi);
    } catch (const InvalidArgument& e) {
      throw UsageError("invalid input for problem '" + name + "' (parameter set " +
                       std::to_string(i) + "): " + e.what());
    }
    r.method_choice = rule;
    std::fputs(sweep_json(i, p, method, method_requested, set, r).c_str(), io.out);
    io.flush_out();
    if (!finished(r)) {
      std::fprintf(io.err, "daekit sweep: run %ld ended with status %s: %s\n", i,
                   to_string(r.status), r.message.c_str());
      rc = kExitFailure;
    }
  };

  if (values) {
    const std::vector<Vector> sets = value_sets(*values);
    const long total = static_cast<long>(sets.size());
    check_first(total);
    const long end = std::min(total, last);
    // every selected set checked before the first solve (a bad value fails fast, exit 2)
    for (long i = first; i < end; ++i) problem_for(i, sets[static_cast<size_t>(i)]);
    for (long i = first; i < end; ++i) run(i, sets[static_cast<size_t>(i)]);
    return rc;
  }
  // --params: read, solved and written one set at a time (a problem per set, kept for its run
  // only: the memory of a sweep does not grow with its length)
  ParameterReader reader(*params_file);
  Vector set;
  if (reader.rereadable()) {
    // a file is read twice: first every line is checked, keeping nothing, so that a bad line
    // fails fast (exit 2) before the first solve; stdin and pipes are checked as they are read
    long total = 0;
    for (; reader.next(set); ++total)
      if (total >= first && total < last) problem_for(total, set);
    check_first(total);
    reader.rewind();
  }
  long i = 0;
  for (; i < last && reader.next(set); ++i)
    if (i >= first) run(i, set);
  check_first(i);
  return rc;
}

int dispatch(const std::vector<std::string>& args, const Io& io) {
  if (args.empty()) {
    std::fputs(usage().c_str(), io.err);
    std::fprintf(io.err, "\ndaekit: missing command; valid commands: %s\n", kCommands);
    return kExitUsage;
  }
  const std::string& cmd = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::fputs(usage().c_str(), io.out);
    return kExitOk;
  }
  if (cmd == "--version" || cmd == "version") {
    std::fprintf(io.out, "daekit %s\n", DAEKIT_VERSION);
    return kExitOk;
  }
  for (const auto& a : rest)
    if (a == "--help" || a == "-h") {
      std::fputs(usage().c_str(), io.out);
      return kExitOk;
    }
  if (cmd == "list") return cmd_list(rest, io);
  if (cmd == "methods") return cmd_methods(rest, io);
  if (cmd == "solve") return cmd_solve(rest, io);
  if (cmd == "demo") return cmd_demo(rest, io);
  if (cmd == "tableau") return cmd_tableau(rest, io);
  if (cmd == "sweep") return cmd_sweep(rest, io);
  throw UsageError("unknown command " + show(cmd) + "; valid commands: " + kCommands);
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) noexcept {
  const Io io{out, err};
  int rc = kExitFailure;
  try {
    rc = dispatch(args, io);
  } catch (const UsageError& e) {
    std::fprintf(err, "daekit: %s\n(run 'daekit --help' for usage)\n", e.what());
    rc = kExitUsage;
  } catch (const InvalidArgument& e) {
    std::fprintf(err, "daekit: invalid input: %s\n", e.what());
    rc = kExitUsage;
  } catch (const std::bad_alloc&) {
    std::fprintf(err, "daekit: error: out of memory\n");
    rc = kExitFailure;
  } catch (const std::exception& e) {
    std::fprintf(err, "daekit: error: %s\n", e.what());
    rc = kExitFailure;
  } catch (...) {
    std::fprintf(err, "daekit: error: unexpected exception\n");
    rc = kExitFailure;
  }
  // The report itself is an output too: a full disk or a closed pipe must not pass as success.
  io.flush_out();
  if (io.out_errno != 0) {
    std::fprintf(err, "daekit: error: cannot write the output: %s\n", std::strerror(io.out_errno));
    if (rc == kExitOk) rc = kExitFailure;
  }
  std::fflush(err);
  return rc;
}

}  // namespace daekit::cli
