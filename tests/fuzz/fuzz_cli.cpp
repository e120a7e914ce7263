// fuzz_cli: random command lines for the daekit command, run in-process through run_cli()
// (apps/cli.hpp). Every case must return 0, 1 or 2, print a message on stderr for a non-zero
// exit code, and, for `solve --json`, print nothing but one JSON object on stdout. A crash
// (signal, uncaught exception, abort) kills the program: that is the failure signal, and the
// signal handler names the case first.
//
// Environment: DAEKIT_FUZZ_CASES (default 10000), DAEKIT_FUZZ_SEED (default 20240917),
// DAEKIT_FUZZ_VERBOSE=1 (print every case, its exit code and the first line on stderr). See
// tests/fuzz/README.md.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cli.hpp"
#include "daekit/daekit.hpp"

namespace {

using Args = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// The case being run, for the crash handler (written before each case; the handler only calls
// write()).

char g_case_text[8192];
size_t g_case_length = 0;

void on_crash(int sig) {
  const char* head = "\nfuzz_cli: CRASH (signal) in case: ";
  ssize_t ignored = write(STDERR_FILENO, head, std::strlen(head));
  ignored = write(STDERR_FILENO, g_case_text, g_case_length);
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// A command line as a shell would need it: every argument in $'...' with escapes.
std::string shell_quoted(const Args& args) {
  std::string s = "daekit";
  for (const std::string& a : args) {
    s += " $'";
    for (unsigned char c : a) {
      if (c == '\'' || c == '\\') {
        s += '\\';
        s += static_cast<char>(c);
      } else if (c < 0x20 || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        s += buf;
      } else {
        s += static_cast<char>(c);
      }
    }
    s += '\'';
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Random command lines.

class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {
    for (const std::string& name : daekit::builtin_problem_names()) {
      Problem p;
      p.name = name;
      try {
        const daekit::BuiltinProblem b = daekit::make_builtin_problem(name);
        p.t0 = b.t0;
        p.t_end = b.t_end;
        p.n = b.dae.n;
        for (int i = 0; i < b.dae.n; ++i) {
          std::string name = "y";  // (+= : "y" + std::string trips GCC 12's -Wrestrict)
          name += std::to_string(i);
          if (static_cast<size_t>(i) < b.dae.component_names.size())
            name = b.dae.component_names[static_cast<size_t>(i)];
          p.components.push_back(name);
        }
      } catch (const std::exception&) {
        p.components = {"y0"};
      }
      problems_.push_back(p);
    }
  }

  Args next() {
    const double u = uniform();
    Args args;
    if (u < 0.80) {
      solve(args);
    } else if (u < 0.83) {
      args = {"list"};
      if (chance(0.3)) args.push_back(junk());
    } else if (u < 0.86) {
      args = {"methods"};
      if (chance(0.3)) args.push_back(pick<std::string>({"--json", "x", "-h", ""}));
    } else if (u < 0.88) {
      args = {pick<std::string>({"help", "--help", "-h", "--version", "version"})};
      if (chance(0.3)) args.push_back(junk());
    } else if (u < 0.885) {
      args = {"demo"};  // (a full demo run: rare, it solves five problems)
      if (chance(0.8)) args.push_back("--outdir");
      if (chance(0.8)) args.push_back(path());
      if (chance(0.2)) args.push_back(junk());
    } else if (u < 0.93) {
      sweep(args);
    } else if (u < 0.99) {
      const int n = integer(0, 4);
      for (int i = 0; i < n; ++i) args.push_back(chance(0.5) ? junk() : option_name());
    }  // else: no arguments at all
    return args;
  }

 private:
  struct Problem {
    std::string name;
    double t0 = 0, t_end = 1;
    int n = 1;
    std::vector<std::string> components;
  };

  double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
  bool chance(double p) { return uniform() < p; }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  template <typename T>
  T pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(integer(0, static_cast<int>(v.size()) - 1))];
  }
  std::string fmt(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", integer(1, 17), x);
    return buf;
  }
  double log_uniform(double lo_exp, double hi_exp) {
    return std::pow(10.0, lo_exp + (hi_exp - lo_exp) * uniform());
  }

  /// Random bytes: printable, control characters (newline, NUL, ...), UTF-8 and invalid bytes.
  std::string junk() {
    static const std::vector<std::string> fixed = {"",
                                                   " ",
                                                   "-",
                                                   "--",
                                                   "---",
                                                   "-=",
                                                   "--=",
                                                   "=",
                                                   "--json=",
                                                   "--rtol=",
                                                   "-5",
                                                   "-x",
                                                   "\n",
                                                   "solve",
                                                   "pendulum",
                                                   "--method",
                                                   "ü",
                                                   "\xff\xfe",
                                                   std::string("a\0b", 3),
                                                   "'",
                                                   "\"",
                                                   ";",
                                                   "!",
                                                   "$(x)",
                                                   "%s%n%s",
                                                   "\\",
                                                   "\t",
                                                   "--help",
                                                   "-h"};
    if (chance(0.5)) return pick(fixed);
    std::string s;
    const int n = chance(0.05) ? integer(200, 5000) : integer(0, 12);
    for (int i = 0; i < n; ++i) {
      const double u = uniform();
      if (u < 0.7)
        s += static_cast<char>(integer(0x20, 0x7e));
      else if (u < 0.8)
        s += static_cast<char>(integer(0, 0x1f));
      else
        s += static_cast<char>(integer(0x80, 0xff));
    }
    return s;
  }

  std::string option_name() {
    static const std::vector<std::string> names = {"--method",
                                                   "--tableau",
                                                   "--fixed-step",
                                                   "--projection",
                                                   "--formulation",
                                                   "--rtol",
                                                   "--atol",
                                                   "--h0",
                                                   "--t-end",
                                                   "--max-steps",
                                                   "--linear-solver",
                                                   "--controller",
                                                   "--exclude-from-error",
                                                   "--nonnegative",
                                                   "--no-jacobian-check",
                                                   "--global-error",
                                                   "--out",
                                                   "--trace",
                                                   "--plot",
                                                   "--json",
                                                   "--full-report",
                                                   "--outdir"};
    return pick(names);
  }

  /// A number for --rtol/--atol/--h0/--t-end: plausible, boundary, huge, tiny, negative or
  /// garbage.
  std::string number(const std::string& option, const Problem& p) {
    const double u = clean_ ? 0.0 : uniform();
    if (u < 0.55) {  // plausible
      if (option == "--rtol") return fmt(log_uniform(-12, -1));
      if (option == "--atol") return fmt(log_uniform(-14, 0));
      if (option == "--h0") return chance(0.2) ? "0" : fmt(log_uniform(-8, -1));
      return fmt(p.t0 + (p.t_end - p.t0) * log_uniform(-5, 0));  // --t-end
    }
    if (u < 0.75)
      return pick<std::string>(
          {"0",      "-0",     "1",       "-1",     "0.5",      "2.2e-15", "2.3e-15",
           "1e-16",  "1e100",  "9.99e99", "1e-308", "4.9e-324", "1e-400",  "1.7976931348623157e308",
           "1e308",  "-1e308", "1e300",   ".5",     "+1e-3",    "5.",      "1E-6",
           "-1e-300"});
    if (u < 0.85) return fmt((chance(0.5) ? -1 : 1) * log_uniform(-320, 308));
    return pick<std::string>({"",
                              "abc",
                              "0x10",
                              "0X1P-3",
                              "inf",
                              "-inf",
                              "nan",
                              "NaN(1)",
                              "infinity",
                              "1e",
                              "1e+",
                              " 5",
                              "5 ",
                              "1,5",
                              "1..2",
                              "--",
                              "-",
                              ".",
                              "e5",
                              "1d-3",
                              "\xd9\xa3",
                              "\n",
                              "5\n",
                              "1e99999",
                              std::string(400, '9'),
                              "1" + std::string(400, '0') + "e-400",
                              std::string("1\0", 2),
                              junk()});
  }

  std::string count() {
    const double u = clean_ ? 0.0 : uniform();
    if (u < 0.6) return std::to_string(integer(1, 500));
    return pick<std::string>({"0", "-1", "-0", "+5", "1.5", "1e3", "0x10", "", " 5", "5 ",
                              "99999999999999999999", "9223372036854775807", "9223372036854775808",
                              "2147483648", "ten", junk()});
  }

  std::string list(const Problem& p) {
    const double u = uniform();
    const int n = static_cast<int>(p.components.size());
    auto comp = [&] {
      return chance(0.5) ? std::to_string(clean_ ? integer(0, n - 1) : integer(-1, n))
                         : pick(p.components);
    };
    if (u < 0.15) return "none";
    if (u < 0.65 || clean_) {
      std::string s = comp();
      for (int i = integer(0, 3); i > 0; --i) {
        s += ',';
        s += comp();
      }
      return s;
    }
    return pick<std::string>({"", ",", "0,,1", "0,", ",0", "none,0", "-1", "99", "999999999999",
                              "0x1", " 0", "y1 ", "NONE", junk()});
  }

  std::string path() {
    static int counter = 0;
    const double u = clean_ ? 0.0 : uniform();
    if (u < 0.6) return "f" + std::to_string(counter++ % 50) + ".csv";
    return pick<std::string>({"", ".", "..", "/dev/full", "/dev/null", "no/such/dir/x.csv", "sub/",
                              "x\ny.csv", "it's.csv", "a;b!c$(x).csv", "\xc3\xbc.csv",
                              std::string(300, 'n') + ".csv", "-", "--json",
                              std::string("n\0ul", 4), "\xff.csv"});
  }

  std::string value_for(const std::string& option, const Problem& p) {
    if (clean_) {  // valid choices only
      if (option == "--projection") return pick<std::string>({"none", "velocity", "full"});
      if (option == "--formulation")
        return pick<std::string>({"index3", "index2", "index1", "ggl"});
      if (option == "--linear-solver")
        return pick<std::string>({"auto", "dense", "banded", "sparse", "iterative"});
      if (option == "--controller") return pick<std::string>({"gustafsson", "classical", "pi"});
    }
    if (option == "--method")
      return pick<std::string>({"radau5", "bdf", "projected-rk", "radau5", "bdf", "projected-rk",
                                "", "RADAU5", "euler", "radau", junk()});
    if (option == "--tableau") {
      if (chance(0.85))
        return pick<std::string>({"radau-iia-", "radau-ia-", "gauss-", "lobatto-iiia-"}) +
               std::to_string(integer(0, 10));
      return pick<std::string>({"", "rk4", "gauss", "gauss-03", "gauss-+2", junk()});
    }
    if (option == "--projection")
      return pick<std::string>({"none", "velocity", "full", "velocity", "", "sideways", junk()});
    if (option == "--formulation")
      return pick<std::string>({"index3", "index2", "index1", "ggl", "", "index4", junk()});
    if (option == "--linear-solver")
      return pick<std::string>(
          {"auto", "dense", "banded", "sparse", "iterative", "", "lapack", junk()});
    if (option == "--controller")
      return pick<std::string>({"gustafsson", "classical", "pi", "", "pid", junk()});
    if (option == "--rtol" || option == "--atol" || option == "--h0" || option == "--t-end")
      return number(option, p);
    if (option == "--max-steps") return count();
    if (option == "--exclude-from-error" || option == "--nonnegative") return list(p);
    return path();  // --out, --trace, --plot, --outdir
  }

  // A solve: in half of the cases with valid values only (most of them get to integrate), in
  // the other half with garbage, boundary values, unknown options and missing values mixed in.
  void solve(Args& args) {
    clean_ = chance(0.5);
    args.push_back("solve");
    const Problem& p = pick(problems_);
    if (clean_ || chance(0.92))
      args.push_back(p.name);
    else if (chance(0.5))
      args.push_back(pick<std::string>(
          {"", "nosuch", "PENDULUM", "pendulum2", "vanderpol\n", "-", p.name + " ", "--json"}));
    else if (chance(0.2))
      args.push_back(p.name), args.push_back(p.name);  // two problem names
    if (clean_) {                                      // a method and what it needs
      const std::string method = pick<std::string>({"radau5", "radau5", "bdf", "projected-rk"});
      args.push_back("--method=" + method);
      if (method == "projected-rk") {
        args.push_back("--fixed-step");
        args.push_back("--h0");
        args.push_back(fmt(log_uniform(-4, -1.5) * std::abs(p.t_end - p.t0)));
        if (chance(0.7)) {
          args.push_back("--tableau");
          args.push_back(value_for("--tableau", p));
        }
      }
    }
    const int n = integer(0, clean_ ? 4 : 7);
    for (int i = 0; i < n; ++i) {
      std::string option = option_name();
      const double u = clean_ ? 1.0 : uniform();
      if (clean_ && (option == "--method" || option == "--tableau" || option == "--fixed-step" ||
                     option == "--h0" || option == "--outdir"))
        continue;
      if (option == "--outdir" || u < 0.03) {  // unknown options
        args.push_back(chance(0.5) ? junk() : "--" + junk());
        continue;
      }
      if (option == "--plot" && !chance(0.05)) option = "--out";  // gnuplot only rarely
      if (option == "--fixed-step" || option == "--no-jacobian-check" || option == "--json" ||
          option == "--full-report" || option == "--global-error") {
        args.push_back(chance(0.03) ? option + "=1" : option);
        continue;
      }
      std::string value = value_for(option, p);
      // a dense LU of thousands of unknowns takes minutes per step (air-pipe-1000: n = 6000,
      // 38 s per factorisation): the fuzzer tests robustness, not patience
      if (option == "--linear-solver" && value == "dense" && p.n > 1000) value = "sparse";
      if (u < 0.06) {
        args.push_back(option);  // the value missing (at the end) or taken from the next option
      } else if (chance(0.5)) {
        args.push_back(option + "=" + value);
      } else {
        args.push_back(option);
        args.push_back(value);
      }
    }
    if (chance(0.4)) args.push_back("--json");
    if (!clean_ && chance(0.15)) {  // projected-rk needs constant steps
      args.push_back("--fixed-step");
      args.push_back("--h0");
      args.push_back(fmt(log_uniform(-4, -1) * std::abs(p.t_end - p.t0)));
    }
    // Keep every case fast: at most 500 step attempts, 5 on the large problems (heat2d,
    // circuit-chain: a projected-rk step with an 8-stage tableau factors an 8n x 8n matrix)
    // (the last --max-steps wins).
    args.push_back("--max-steps");
    args.push_back(std::to_string(integer(1, p.n > 50 ? 5 : 500)));
    clean_ = false;
  }

  // A parameter sweep: mostly the problems with parameters (andrews: the torque; pi-valve: its
  // mode), values plausible or garbage, blocks (--first/--count) in and out of range.
  void sweep(Args& args) {
    args.push_back("sweep");
    const double u = uniform();
    bool large = false;  // as in solve(): few steps on the large problems
    if (u < 0.45) {
      args.push_back("andrews");
    } else if (u < 0.7) {
      args.push_back("pi-valve");
    } else if (u < 0.9) {
      const Problem& q = pick(problems_);
      args.push_back(q.name);
      large = q.n > 50;
    } else {
      args.push_back(junk());
    }
    if (chance(0.8)) {
      std::string values;
      for (int i = integer(1, 4); i > 0; --i) {
        if (!values.empty()) values += ',';
        values += chance(0.8) ? fmt(chance(0.5) ? log_uniform(-3, -1) : double(integer(0, 2)))
                              : number("--rtol", problems_[0]);
      }
      args.push_back(chance(0.5) ? "--values=" + values : "--values");
      if (args.back() == "--values") args.push_back(values);
    } else {
      args.push_back("--params");
      args.push_back(pick<std::string>({"/dev/null", "no/such/file", "", ".", path()}));
    }
    if (chance(0.3)) args.push_back("--first"), args.push_back(chance(0.7) ? "0" : count());
    if (chance(0.3)) args.push_back("--count"), args.push_back(count());
    if (chance(0.2))
      args.push_back("--method"), args.push_back(value_for("--method", problems_[0]));
    if (chance(0.2)) args.push_back("--rtol"), args.push_back(number("--rtol", problems_[0]));
    if (chance(0.1)) args.push_back(chance(0.5) ? junk() : option_name());
    args.push_back("--max-steps");
    args.push_back(std::to_string(integer(1, large ? 5 : 300)));
  }

  std::mt19937 rng_;
  std::vector<Problem> problems_;
  bool clean_ = false;  ///< the current case uses valid values only
};

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0) {
    std::fprintf(stderr, "fuzz_cli: %s must be a non-negative integer, got '%s'\n", name, v);
    std::exit(2);
  }
  return x;
}

/// What one case printed.
struct Output {
  std::string out, err;
};

int run_case(const Args& args, Output& o) {
  char* out_buf = nullptr;
  char* err_buf = nullptr;
  size_t out_size = 0, err_size = 0;
  std::FILE* out = open_memstream(&out_buf, &out_size);
  std::FILE* err = open_memstream(&err_buf, &err_size);
  if (!out || !err) {
    std::perror("fuzz_cli: open_memstream");
    std::exit(2);
  }
  const int rc = daekit::cli::run_cli(args, out, err);
  std::fclose(out);
  std::fclose(err);
  o.out.assign(out_buf, out_size);
  o.err.assign(err_buf, err_size);
  std::free(out_buf);
  std::free(err_buf);
  return rc;
}

/// Whether `solve ARGS` asks for JSON: a "--json" that is not the value of another option.
bool json_mode(const Args& args) {
  static const std::vector<std::string> with_value = {
      "--method",      "--tableau",       "--projection", "--formulation",
      "--rtol",        "--atol",          "--h0",         "--t-end",
      "--max-steps",   "--linear-solver", "--controller", "--exclude-from-error",
      "--nonnegative", "--out",           "--trace",      "--plot"};
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--json") return true;
    if (std::find(with_value.begin(), with_value.end(), args[i]) != with_value.end()) ++i;
  }
  return false;
}

/// Empty if the case's result is acceptable, else what is wrong with it.
std::string check(const Args& args, int rc, const Output& o) {
  if (rc != 0 && rc != 1 && rc != 2) return "exit code " + std::to_string(rc) + " not in {0, 1, 2}";
  if (rc != 0 && o.err.empty()) return "exit code " + std::to_string(rc) + " without a message";
  const bool solve = !args.empty() && args[0] == "solve";
  const bool json = solve && json_mode(args);
  const bool help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                    std::find(args.begin(), args.end(), "-h") != args.end();
  if (solve && json && !help && rc != 2 && !o.out.empty()) {
    if (o.out.front() != '{' || o.out.size() < 3 || o.out.compare(o.out.size() - 2, 2, "}\n") != 0)
      return "--json: stdout is not one JSON object";
    if (o.out.find("\n}\n") != o.out.size() - 3) return "--json: text after the JSON object";
  }
  if (solve && json && !help && rc == 0 && o.out.empty()) return "--json: nothing on stdout";
  // sweep: every line of stdout is one JSON object (unless usage help was printed)
  if (!args.empty() && args[0] == "sweep" && !help && rc != 2) {
    size_t start = 0;
    while (start < o.out.size()) {
      const size_t end = o.out.find('\n', start);
      if (end == std::string::npos) return "sweep: output does not end with a newline";
      if (o.out[start] != '{' || o.out[end - 1] != '}')
        return "sweep: a line is not one JSON object";
      start = end + 1;
    }
  }
  return "";
}

/// Files (or directories) in the scratch directory named like an option ("--json"): an option
/// taken as the value of --out, --trace, --plot or --outdir (`--out --json`). Removed; empty if
/// there are none, else what is wrong.
std::string option_named_files() {
  std::string names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(".", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("--", 0) != 0) continue;
    names += (names.empty() ? "" : ", ") + name;
    std::filesystem::remove_all(entry.path(), ec);
  }
  return names.empty() ? "" : "wrote a file named like an option: " + names;
}

}  // namespace

int main() {
  const long cases = env_long("DAEKIT_FUZZ_CASES", 10000);
  const unsigned seed = static_cast<unsigned>(env_long("DAEKIT_FUZZ_SEED", 20240917));
  const bool verbose = env_long("DAEKIT_FUZZ_VERBOSE", 0) != 0;

  // Work in a scratch directory: the output files of the cases land there.
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/daekit-fuzz-XXXXXX";
  std::vector<char> dir(templ.begin(), templ.end());
  dir.push_back('\0');
  if (!mkdtemp(dir.data()) || chdir(dir.data()) != 0) {
    std::perror("fuzz_cli: scratch directory");
    return 2;
  }
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) std::signal(sig, on_crash);

  std::printf("fuzz_cli: %ld cases, seed %u (DAEKIT_FUZZ_CASES, DAEKIT_FUZZ_SEED), in %s\n", cases,
              seed, dir.data());
  std::fflush(stdout);
  Generator gen(seed);
  std::map<int, long> by_code;
  std::map<std::string, long> by_command;
  long failures = 0;
  double slowest = 0;
  std::string slowest_case;
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < cases; ++k) {
    const Args args = gen.next();
    const std::string text =
        "#" + std::to_string(k) + " (seed " + std::to_string(seed) + "): " + shell_quoted(args);
    g_case_length = std::min(text.size(), sizeof g_case_text);
    std::memcpy(g_case_text, text.data(), g_case_length);
    if (verbose) {
      std::printf("%s\n", text.c_str());
      std::fflush(stdout);
    }

    Output o;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = run_case(args, o);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (seconds > slowest) {
      slowest = seconds;
      slowest_case = text;
    }
    ++by_code[rc];
    ++by_command[args.empty() ? "(none)"
                 : (args[0] == "list" || args[0] == "methods" || args[0] == "solve" ||
                    args[0] == "demo" || args[0] == "help" || args[0] == "sweep")
                     ? args[0]
                     : "(other)"];
    if (verbose) {
      const std::string first = o.err.substr(0, o.err.find('\n'));
      std::printf("  -> %d%s%.200s\n", rc, first.empty() ? "" : ": ", first.c_str());
    }
    std::string problem = check(args, rc, o);
    const std::string named_like_options = option_named_files();  // (removed in any case)
    if (problem.empty()) problem = named_like_options;
    if (!problem.empty()) {
      ++failures;
      if (failures <= 20)
        std::printf("FAIL %s\n  %s\n  stdout: %.300s\n  stderr: %.300s\n", text.c_str(),
                    problem.c_str(), o.out.c_str(), o.err.c_str());
    }
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::error_code ec;
  std::filesystem::current_path("/", ec);
  std::filesystem::remove_all(dir.data(), ec);

  std::printf("fuzz_cli: %ld cases in %.2f s (%.2f ms per case); exit codes:", cases, total,
              cases ? 1e3 * total / static_cast<double>(cases) : 0.0);
  for (const auto& [code, n] : by_code) std::printf(" %d: %ld", code, n);
  std::printf("; commands:");
  for (const auto& [command, n] : by_command) std::printf(" %s %ld", command.c_str(), n);
  std::printf("\nfuzz_cli: slowest case %.3f s: %s\n", slowest, slowest_case.c_str());
  if (failures) std::printf("fuzz_cli: %ld FAILED cases\n", failures);
  return failures ? 1 : 0;
}
