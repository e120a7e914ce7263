// daekit: the command-line front end of the library.
//
//   daekit list                     the built-in problems
//   daekit solve PROBLEM [options]  solve one of them (report, JSON, CSV, PNG)
//   daekit demo [--outdir DIR]      solve several problems, write CSV files and a plot
//   daekit help | --help            usage
//
// Exit status: 0 success; 1 a solve ended with a non-success status, or writing an output
// (CSV, plot) failed; 2 bad command line (unknown problem/option/method, bad value, missing
// argument) or the library rejected the input (InvalidArgument).
#include "daekit/daekit.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "csv_plot.hpp"
#include "json.hpp"

#ifndef DAEKIT_VERSION
#define DAEKIT_VERSION "unknown"
#endif

namespace daekit::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

/// Bad command line: message on stderr, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* const kUsage =
    R"(daekit - solve differential-algebraic equations (built-in test problems)

Usage:
  daekit list                      table of the built-in problems
  daekit solve PROBLEM [options]   solve a built-in problem and print a report
  daekit demo [--outdir DIR]       solve pendulum, vanderpol, robertson, andrews and
                                   transistor; write DIR/<problem>.csv and
                                   DIR/pendulum.png (default DIR: demo-output)
  daekit help | --help | -h        this text
  daekit --version                 the library version

Options of 'solve' (defaults: the problem's recommended values, see 'daekit list'):
  --method NAME     radau5 (default; Radau IIA order 5, index 1-3) or bdf
                    (variable-order BDF; index-1 problems)
  --projection P    radau5 only: none (default), velocity (projection (2.8) of paper 000 onto
                    g(q) = 0, G(q) v = 0 after every step) or full (also the multipliers'
                    manifold, for methods that are not stiffly accurate)
  --formulation F   mechanical problems (pendulum, pendulum-long, andrews) only: solve the
                    index3 (default), index2 (velocity constraint), index1 (acceleration
                    constraint) or ggl (stabilised index 2) form of the same model, from
                    consistent initial values; scd is taken over positions and velocities
  --rtol R          relative tolerance, 0 < R < 1
  --atol A          absolute tolerance, A > 0
  --h0 H            initial step size (0: the method's default)
  --t-end T         end of the integration interval
  --max-steps N     maximal number of step attempts (default 100000)
  --out FILE        write every accepted step as CSV: t, the components and, for
                    constrained problems, position_residual, velocity_residual
  --plot FILE       plot the problem's plot components over t into a PNG (needs gnuplot)
  --json            print one JSON object on stdout instead of the report
Options also take the form --name=value.

Exit status: 0 success; 1 the solve failed (status not 'success') or an output could not be
written; 2 bad command line or input rejected by the library.
)";

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string fmt_g(double x, int digits = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Progress bar on stderr: only when stderr is a terminal, and only once a run has taken more
// than a second (short runs print nothing).

class ProgressBar {
 public:
  explicit ProgressBar(std::string label)
      : label_(std::move(label)),
        enabled_(isatty(STDERR_FILENO) == 1),
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
    std::fprintf(stderr, "\r%s [%s%s] %5.1f%%  %.1f s ", label_.c_str(),
                 std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                 100 * fraction, elapsed);
    std::fflush(stderr);
  }
  /// Clears the bar (if one was drawn).
  void finish() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r%s\r", std::string(label_.size() + 62, ' ').c_str());
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// ---------------------------------------------------------------------------------------------
// Parsing.

double parse_double(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x))
    throw UsageError("option " + option + " needs a finite number, got '" + text + "'");
  return x;
}

long parse_long(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw UsageError("option " + option + " needs an integer, got '" + text + "'");
  return x;
}

/// Splits "--name=value" / "--name value" command lines. `with_value` lists the options that
/// take a value, `flags` those that do not; anything else starting with '-' is an error.
struct ParsedArgs {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  // in order; flags have value ""
};

ParsedArgs parse_args(const std::vector<std::string>& args, const std::string& command,
                      const std::vector<std::string>& with_value,
                      const std::vector<std::string>& flags) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
      if (x == s) return true;
    return false;
  };
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' ||
        (a[1] != '-' && std::isdigit(static_cast<unsigned char>(a[1])))) {
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
    if (contains(with_value, name)) {
      if (!inline_value) {
        if (i + 1 >= args.size())
          throw UsageError("option " + name + " of '" + command + "' needs a value");
        value = args[++i];
      }
      parsed.options.emplace_back(name, value);
    } else if (contains(flags, name)) {
      if (inline_value) throw UsageError("option " + name + " takes no value");
      parsed.options.emplace_back(name, "");
    } else {
      std::vector<std::string> all = with_value;
      all.insert(all.end(), flags.begin(), flags.end());
      throw UsageError("unknown option '" + name + "' for '" + command +
                       "'; valid options: " + (all.empty() ? "none" : join(all)));
    }
  }
  return parsed;
}

void check_problem_name(const std::string& name) {
  for (const auto& n : builtin_problem_names())
    if (n == name) return;
  throw UsageError("unknown problem '" + name +
                   "'; valid problems: " + join(builtin_problem_names()) + " (see 'daekit list')");
}

// ---------------------------------------------------------------------------------------------
// Solving.

struct Run {
  BuiltinProblem problem;
  std::string method = "radau5";
  Projection projection = Projection::None;
  std::optional<Formulation> formulation;  ///< set: the problem was re-formulated
  Options options;
  Result result;
  std::optional<double> scd;  ///< significant correct digits vs the reference, if one applies
};

/// Replaces the (index-3) DAE of a mechanical built-in problem by formulation `form` of the
/// same MechanicalSystem: consistent initial values from its q0, v0; the reference solution and
/// the scd/plot components are carried over for positions and velocities.
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
  if (p.reference) {
    Vector ref = Vector::Zero(to.n);
    for (int i = 0; i < from.n; ++i)
      if (map(i) >= 0) ref[map(i)] = p.reference->y[i];
    p.reference->y = ref;
  }
  const std::string name = p.dae.name;
  p.dae = formulate(sys, form);
  p.dae.name = name;
  p.y0 = initial_values(sys, form, p.t0, q0, v0);
  p.title += std::string(" [") + to_string(form) + " formulation]";
}

/// Solves run.problem with run.method and run.options (progress bar on stderr); fills
/// run.result and run.scd. InvalidArgument from the library propagates.
void execute(Run& run) {
  const BuiltinProblem& p = run.problem;
  ProgressBar bar(p.name);
  Options o = run.options;
  o.progress = [&bar](double fraction) { bar.update(fraction); };
  o.events.insert(o.events.end(), p.events.begin(), p.events.end());  // the model's switches
  o.projection = run.projection;
  run.result = solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice(run.method), o);
  bar.finish();
  run.scd.reset();
  const Result& r = run.result;
  if (p.reference && p.reference->t == p.t_end && r.t == p.reference->t &&
      r.y.size() == p.reference->y.size())
    run.scd = daekit::scd(r.y, p.reference->y, p.scd_components);
}

/// Lines for the located events (none if there were none; at most 10 listed).
std::string events_lines(const Result& r) {
  if (r.events.empty()) return "";
  std::string s = "  events            " + std::to_string(r.events.size()) + " located\n";
  for (size_t i = 0; i < r.events.size() && i < 10; ++i)
    s += "    t = " + fmt_g(r.events[i].t, 10) + "  " + r.events[i].name + "\n";
  if (r.events.size() > 10) s += "    ...\n";
  return s;
}

std::string scd_line(const Run& run) {
  const BuiltinProblem& p = run.problem;
  std::string comps;
  if (!p.scd_components.empty()) {
    std::vector<std::string> names;
    for (int i : p.scd_components) names.push_back(component_name(p.dae, i));
    comps = " over " + join(names);
  }
  char line[512];
  std::snprintf(line, sizeof line, "  scd               %.2f%s (reference at t = %s: %s)\n",
                *run.scd, comps.c_str(), fmt_g(p.reference->t).c_str(),
                p.reference->source.c_str());
  return line;
}

// The JSON printed by `daekit solve --json` is a CONTRACT for scripts and other programs:
// fields may be added in later versions, but existing fields are never renamed, dropped or
// change their meaning or type. Keys always present:
//   format_version (1), daekit_version, problem, title, method, status (to_string(Status),
//   e.g. "success"), ok (bool), message, n, component_names, t0, t_end, t (time reached),
//   y (array, state at t), stats {nfev, nfev_jac, njac, nlu, nsol, nsteps, naccept, nreject,
//   nnewton, nnewton_fail, nproject}, cpu_seconds, rtol, atol, h0, max_steps,
//   max_residual ({position, velocity, acceleration} for problems with a constraint monitor,
//   null otherwise), scd (significant correct digits vs the problem's reference solution
//   when the run reached the reference time, null otherwise), reference_t (number or null),
//   events (array of {t, name}: the located state events, in order; empty if none),
//   projection ("none", "velocity" or "full"), formulation ("index3", "index2", "index1",
//   "ggl" when --formulation was given, null otherwise).
// Numbers are written with full precision (they read back as the same double); NaN and Inf
// are written as null.
std::string to_json(const Run& run) {
  const BuiltinProblem& p = run.problem;
  const Result& r = run.result;
  JsonWriter w;
  w.begin_object();
  w.integer("format_version", 1);
  w.string("daekit_version", DAEKIT_VERSION);
  w.string("problem", p.name);
  w.string("title", p.title);
  w.string("method", r.method.empty() ? run.method : r.method);
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
  w.integer("nfev", r.stats.nfev);
  w.integer("nfev_jac", r.stats.nfev_jac);
  w.integer("njac", r.stats.njac);
  w.integer("nlu", r.stats.nlu);
  w.integer("nsol", r.stats.nsol);
  w.integer("nsteps", r.stats.nsteps);
  w.integer("naccept", r.stats.naccept);
  w.integer("nreject", r.stats.nreject);
  w.integer("nnewton", r.stats.nnewton);
  w.integer("nnewton_fail", r.stats.nnewton_fail);
  w.integer("nproject", r.stats.nproject);
  w.end_object();
  w.number("cpu_seconds", r.cpu_seconds);
  w.number("rtol", run.options.rtol);
  w.number("atol", run.options.atol);
  w.number("h0", run.options.h0);
  w.integer("max_steps", run.options.max_steps);
  w.string("projection", to_string(run.projection));
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
  if (run.scd)
    w.number("scd", *run.scd);
  else
    w.null("scd");
  if (p.reference)
    w.number("reference_t", p.reference->t);
  else
    w.null("reference_t");
  w.begin_array("events");
  for (const EventRecord& e : r.events) {
    w.begin_object();
    w.number("t", e.t);
    w.string("name", e.name);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str() + "\n";
}

// ---------------------------------------------------------------------------------------------
// Commands.

int cmd_list(const std::vector<std::string>& args) {
  parse_args(args, "list", {}, {});
  std::printf("%-16s %4s  %-16s %-9s %-9s  %s\n", "name", "n", "t-interval", "rtol", "atol",
              "title");
  for (const auto& name : builtin_problem_names()) {
    try {
      const BuiltinProblem p = make_builtin_problem(name);
      std::string interval = "[";  // (+= avoids a GCC 12 -Wrestrict false positive)
      interval += fmt_g(p.t0) + ", " + fmt_g(p.t_end) + "]";
      std::printf("%-16s %4d  %-16s %-9s %-9s  %s%s\n", name.c_str(), p.dae.n, interval.c_str(),
                  fmt_g(p.rtol).c_str(), fmt_g(p.atol).c_str(), p.title.c_str(),
                  p.reference ? "" : " (no reference solution)");
    } catch (const std::exception& e) {
      std::printf("%-16s %4s  %-16s %-9s %-9s  (not available: %s)\n", name.c_str(), "-", "-", "-",
                  "-", e.what());
    }
  }
  return kExitOk;
}

int cmd_solve(const std::vector<std::string>& args) {
  const ParsedArgs a = parse_args(args, "solve",
                                  {"--method", "--projection", "--formulation", "--rtol", "--atol",
                                   "--h0", "--t-end", "--out", "--plot", "--max-steps"},
                                  {"--json"});
  if (a.positional.empty())
    throw UsageError("'solve' needs a problem name; valid problems: " +
                     join(builtin_problem_names()));
  if (a.positional.size() > 1)
    throw UsageError("'solve' takes one problem name, got '" + a.positional[0] + "' and '" +
                     a.positional[1] + "'");
  const std::string& name = a.positional[0];
  check_problem_name(name);

  Run run;
  std::optional<double> rtol, atol, h0, t_end;
  std::optional<long> max_steps;
  std::string out, plot;
  std::optional<std::string> projection, formulation;
  bool json = false;
  for (const auto& [opt, value] : a.options) {
    if (opt == "--method") {
      bool known = false;
      for (const auto& m : method_names()) known = known || m == value;
      if (!known)
        throw UsageError("unknown method '" + value + "'; valid methods: " + join(method_names()));
      run.method = value;
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
      max_steps = parse_long(opt, value);
    } else if (opt == "--out") {
      if (value.empty()) throw UsageError("option --out needs a file name");
      out = value;
    } else if (opt == "--plot") {
      if (value.empty()) throw UsageError("option --plot needs a file name");
      plot = value;
    } else if (opt == "--json") {
      json = true;
    }
  }

  if (projection) {
    if (*projection == "none")
      run.projection = Projection::None;
    else if (*projection == "velocity")
      run.projection = Projection::Velocity;
    else if (*projection == "full")
      run.projection = Projection::Full;
    else
      throw UsageError("unknown projection '" + *projection + "'; valid: none, velocity, full");
    if (run.method != "radau5" && run.projection != Projection::None)
      throw UsageError("--projection " + *projection + " needs --method radau5 (method '" +
                       run.method + "' has no projection)");
  }
  run.problem = make_builtin_problem(name);  // InvalidArgument: exit 2
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
  if (t_end) {
    if (*t_end == p.t0)
      throw UsageError("--t-end " + fmt_g(*t_end, 17) + " equals the start time t0 of problem '" +
                       name + "'");
    p.t_end = *t_end;
  }
  Options& o = run.options;
  o.rtol = rtol.value_or(p.rtol);
  o.atol = atol.value_or(p.atol);
  o.h0 = h0.value_or(p.h0);
  if (max_steps) o.max_steps = *max_steps;
  o.store_steps = !out.empty() || !plot.empty();
  try {
    o.validate(p.dae.n);
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string("invalid option for problem '") + name + "': " + e.what());
  }
  if (!plot.empty() && find_gnuplot().empty())
    throw std::runtime_error("gnuplot not found on PATH; it is needed for --plot " + plot +
                             " (Debian: apt-get install gnuplot-nox, or run scripts/setup.sh)");
  if (!out.empty()) {  // fail before a long run, not after it
    std::ofstream probe(out, std::ios::app);
    if (!probe) throw std::runtime_error("cannot open '" + out + "' for writing");
  }

  execute(run);
  const Result& r = run.result;
  // With --json, stdout carries exactly one JSON object; everything else goes to stderr.
  FILE* info = json ? stderr : stdout;
  int rc = r.ok() ? kExitOk : kExitFailure;
  if (json) {
    std::fputs(to_json(run).c_str(), stdout);
    std::fflush(stdout);
    if (!r.ok()) std::fputs(r.report().c_str(), stderr);
  } else {
    std::fputs(r.report().c_str(), stdout);
    if (run.formulation || run.projection != Projection::None)
      std::printf("  formulation       %s, projection %s\n",
                  run.formulation ? to_string(*run.formulation) : "as defined",
                  to_string(run.projection));
    std::fputs(events_lines(r).c_str(), stdout);
    if (run.scd) std::fputs(scd_line(run).c_str(), stdout);
    std::fflush(stdout);
  }
  if (!out.empty()) {
    try {
      write_csv(out, p.dae, r);
      std::fprintf(info, "wrote %s (%zu rows: t0 and every accepted step)\n", out.c_str(),
                   r.t_steps.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "daekit solve: %s\n", e.what());
      rc = kExitFailure;
    }
  }
  if (!plot.empty()) {
    try {
      plot_png(plot, p, r);
      std::fprintf(info, "wrote %s\n", plot.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "daekit solve: %s\n", e.what());
      rc = kExitFailure;
    }
  }
  std::fflush(stdout);
  if (!r.ok())
    std::fprintf(stderr, "daekit solve: problem '%s' ended with status %s: %s\n", name.c_str(),
                 to_string(r.status), r.message.c_str());
  return rc;
}

int cmd_demo(const std::vector<std::string>& args) {
  const ParsedArgs a = parse_args(args, "demo", {"--outdir"}, {});
  if (!a.positional.empty())
    throw UsageError("'demo' takes no problem names (got '" + a.positional[0] + "')");
  std::string outdir = "demo-output";
  for (const auto& [opt, value] : a.options)
    if (opt == "--outdir") {
      if (value.empty()) throw UsageError("option --outdir needs a directory");
      outdir = value;
    }
  std::error_code ec;
  std::filesystem::create_directories(outdir, ec);
  if (ec || !std::filesystem::is_directory(outdir))
    throw std::runtime_error("cannot create the output directory '" + outdir +
                             "': " + ec.message());

  const std::vector<std::string> wanted = {"pendulum", "vanderpol", "robertson", "andrews",
                                           "transistor"};
  std::vector<Run> runs;
  std::vector<std::string> skipped;
  bool all_ok = true;
  std::printf(
      "daekit %s demo: built-in problems solved with radau5 at their recommended\n"
      "tolerances; output in %s/\n",
      DAEKIT_VERSION, outdir.c_str());
  for (const auto& name : wanted) {
    Run run;
    try {
      check_problem_name(name);
      run.problem = make_builtin_problem(name);
    } catch (const std::exception& e) {
      skipped.push_back(name);
      std::printf("\n=== %s: skipped (%s)\n", name.c_str(), e.what());
      continue;
    }
    const BuiltinProblem& p = run.problem;
    run.options.rtol = p.rtol;
    run.options.atol = p.atol;
    run.options.h0 = p.h0;
    std::printf("\n=== %s: %s\n", p.name.c_str(), p.title.c_str());
    if (!p.description.empty()) {
      std::string d = p.description;
      for (size_t pos = 0; (pos = d.find('\n', pos)) != std::string::npos; pos += 5)
        d.replace(pos, 1, "\n    ");
      std::printf("    %s\n", d.c_str());
    }
    std::printf("    t in [%s, %s], n = %d, rtol = %s, atol = %s\n", fmt_g(p.t0).c_str(),
                fmt_g(p.t_end).c_str(), p.dae.n, fmt_g(run.options.rtol).c_str(),
                fmt_g(run.options.atol).c_str());
    std::fflush(stdout);
    try {
      execute(run);
    } catch (const InvalidArgument& e) {
      std::printf("  rejected by the library: %s\n", e.what());
      all_ok = false;
      continue;
    }
    std::fputs(run.result.report().c_str(), stdout);
    std::fputs(events_lines(run.result).c_str(), stdout);
    if (run.scd) std::fputs(scd_line(run).c_str(), stdout);
    all_ok = all_ok && run.result.ok();
    const std::string csv = outdir + "/" + p.name + ".csv";
    try {
      write_csv(csv, p.dae, run.result);
      std::printf("  wrote %s (%zu rows)\n", csv.c_str(), run.result.t_steps.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "daekit demo: %s\n", e.what());
      all_ok = false;
    }
    std::fflush(stdout);
    runs.push_back(std::move(run));
  }

  bool plot_ok = true;
  for (const Run& run : runs) {
    if (run.problem.name != "pendulum") continue;
    const std::string png = outdir + "/pendulum.png";
    try {
      plot_png(png, run.problem, run.result);
      std::printf("\nwrote %s (u1, u2 over t; constraint residuals |g(q)|, |G(q) v|)\n",
                  png.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "daekit demo: %s\n", e.what());
      plot_ok = false;
    }
  }

  std::printf("\nSummary\n  %-12s %-22s %8s %8s %10s %6s %10s\n", "problem", "status", "steps",
              "rejected", "f evals", "scd", "CPU ms");
  for (const Run& run : runs) {
    const Result& r = run.result;
    std::printf("  %-12s %-22s %8ld %8ld %10ld %6s %10.2f\n", run.problem.name.c_str(),
                to_string(r.status), r.stats.naccept, r.stats.nreject, r.stats.nfev,
                run.scd ? fmt_g(*run.scd, 3).c_str() : "-", 1e3 * r.cpu_seconds);
  }
  if (!skipped.empty()) std::printf("  skipped (not available yet): %s\n", join(skipped).c_str());
  std::fflush(stdout);
  if (!all_ok) std::fprintf(stderr, "daekit demo: at least one problem did not solve\n");
  return all_ok && plot_ok ? kExitOk : kExitFailure;
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    std::fprintf(stderr, "\ndaekit: missing command; valid commands: list, solve, demo, help\n");
    return kExitUsage;
  }
  const std::string& cmd = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (cmd == "--version" || cmd == "version") {
    std::printf("daekit %s\n", DAEKIT_VERSION);
    return kExitOk;
  }
  for (const auto& a : rest)
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
  if (cmd == "list") return cmd_list(rest);
  if (cmd == "solve") return cmd_solve(rest);
  if (cmd == "demo") return cmd_demo(rest);
  throw UsageError("unknown command '" + cmd + "'; valid commands: list, solve, demo, help");
}

}  // namespace
}  // namespace daekit::cli

int main(int argc, char** argv) {
  using namespace daekit::cli;
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "daekit: %s\n(run 'daekit --help' for usage)\n", e.what());
    return kExitUsage;
  } catch (const daekit::InvalidArgument& e) {
    std::fprintf(stderr, "daekit: invalid input: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "daekit: error: %s\n", e.what());
    return kExitFailure;
  }
}
