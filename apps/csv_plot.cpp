#include "csv_plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "json.hpp"

extern char** environ;

namespace daekit::cli {

namespace {

std::string fmt17(double x) { return JsonWriter::full_precision(x); }

/// CSV field: quoted if it contains a comma, quote or line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// A gnuplot single-quoted string (no escapes inside; a quote is doubled).
std::string gp_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("''") : std::string(1, c);
  return q + "'";
}

/// A temporary file removed when the object goes out of scope.
class TempFile {
 public:
  explicit TempFile(const char* suffix_tag) {
    const char* dir = std::getenv("TMPDIR");
    std::string templ =
        std::string(dir && *dir ? dir : "/tmp") + "/daekit-" + suffix_tag + "-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    const int fd = mkstemp(buf.data());
    if (fd < 0)
      throw std::runtime_error("cannot create a temporary file " + templ + ": " +
                               std::strerror(errno));
    close(fd);
    path_ = buf.data();
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs argv[0] (searched on PATH) with the given arguments; returns its exit status (127 if it
/// could not be started, 128 + signal if killed). With `quiet`, stdout and stderr go to
/// /dev/null.
int run(const std::vector<std::string>& args, bool quiet) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

std::string component_name(const MassMatrixDae& dae, int i) {
  const auto k = static_cast<size_t>(i);
  if (k < dae.component_names.size() && !dae.component_names[k].empty())
    return dae.component_names[k];
  std::string name = "y";  // (built by += : "y" + std::string trips GCC 12's -Wrestrict)
  name += std::to_string(i);
  return name;
}

void write_csv(const std::string& path, const MassMatrixDae& dae, const Result& r) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot open '" + path + "' for writing");
  const bool residuals = r.has_constraints && r.residual_steps.size() == r.t_steps.size();
  out << "t";
  for (int i = 0; i < dae.n; ++i) out << ',' << csv_field(component_name(dae, i));
  if (residuals) out << ",position_residual,velocity_residual";
  out << '\n';
  for (size_t k = 0; k < r.t_steps.size() && k < r.y_steps.size(); ++k) {
    out << fmt17(r.t_steps[k]);
    for (int i = 0; i < r.y_steps[k].size(); ++i) out << ',' << fmt17(r.y_steps[k][i]);
    if (residuals)
      out << ',' << fmt17(r.residual_steps[k].position) << ','
          << fmt17(r.residual_steps[k].velocity);
    out << '\n';
  }
  out.flush();
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/gnuplot";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

void plot_png(const std::string& path, const BuiltinProblem& p, const Result& r) {
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty())
    throw std::runtime_error("gnuplot not found on PATH; it is needed to write '" + path +
                             "' (Debian: apt-get install gnuplot-nox, or run scripts/setup.sh)");
  const size_t steps = std::min(r.t_steps.size(), static_cast<size_t>(r.y_steps.size()));
  if (steps < 2) throw std::runtime_error("no stored steps to plot for '" + path + "'");

  std::vector<int> comps = p.plot_components;
  if (comps.empty())
    for (int i = 0; i < p.dae.n; ++i) comps.push_back(i);
  const bool residuals = r.has_constraints && r.residual_steps.size() == r.t_steps.size();

  // Multi-scale problems (most steps in the first 0.1% of the interval, e.g. Robertson on
  // [0, 1e11]) are drawn with log-scaled t and |y|.
  const double t0 = r.t_steps.front(), t1 = r.t_steps[steps - 1];
  const double t_median = r.t_steps[steps / 2];
  const bool log_t = t0 >= 0 && t1 > t0 && (t_median - t0) < 1e-3 * (t1 - t0);
  std::vector<bool> has_negative(comps.size(), false);

  TempFile data("plot-data"), script("plot-script");
  {
    std::ofstream d(data.path());
    for (size_t k = 0; k < steps; ++k) {
      if (log_t && r.t_steps[k] <= 0) continue;
      d << fmt17(r.t_steps[k]);
      for (size_t c = 0; c < comps.size(); ++c) {
        const double v = r.y_steps[k][comps[c]];
        if (v < 0) has_negative[c] = true;
        d << ' ' << fmt17(v);
      }
      if (residuals)
        d << ' ' << fmt17(r.residual_steps[k].position) << ' '
          << fmt17(r.residual_steps[k].velocity);
      d << '\n';
    }
    if (!d) throw std::runtime_error("cannot write the temporary data file " + data.path());
  }

  const bool cairo = run({gnuplot, "-e", "set terminal pngcairo"}, true) == 0;
  std::ostringstream s;
  if (cairo)
    s << "set terminal pngcairo size 960," << (residuals ? 800 : 540) << " font 'Sans,10'\n";
  else
    s << "set terminal png size 960," << (residuals ? 800 : 540) << "\n";
  s << "set output " << gp_quote(path) << "\n";
  s << "set grid\nset key outside right top\nset xlabel 't'\n";
  s << "set lmargin 12\nset rmargin 16\n";  // both panels share the same x extent
  if (log_t) s << "set logscale x\nset format x '10^{%L}'\n";
  if (residuals) s << "set multiplot layout 2,1\n";
  s << "set title " << gp_quote(p.name + ": " + p.title) << " noenhanced\n";
  if (log_t) s << "set logscale y\nset format y '10^{%L}'\nset ylabel '|y|'\n";
  s << "plot ";
  for (size_t c = 0; c < comps.size(); ++c) {
    const int col = static_cast<int>(c) + 2;
    std::string name = component_name(p.dae, comps[c]);
    const std::string expr = log_t ? "(abs($" + std::to_string(col) + "))" : std::to_string(col);
    if (log_t && has_negative[c]) name = "|" + name + "|";
    s << (c ? ", \\\n     " : "") << gp_quote(data.path()) << " using 1:" << expr
      << " with lines lw 2 title " << gp_quote(name) << " noenhanced";
  }
  s << "\n";
  if (residuals) {
    const int pc = static_cast<int>(comps.size()) + 2;
    s << "unset title\nset title 'constraint residuals (floor 1e-17)'\n";
    s << "set logscale y\nset format y '10^{%L}'\nset ylabel 'residual'\n";
    s << "plot " << gp_quote(data.path()) << " using 1:($" << pc << " > 0 ? $" << pc
      << " : 1e-17) with lines lw 2 title '|g(q)|', \\\n     " << gp_quote(data.path())
      << " using 1:($" << pc + 1 << " > 0 ? $" << pc + 1
      << " : 1e-17) with lines lw 2 title '|G(q) v|'\n";
    s << "unset multiplot\n";
  }
  {
    std::ofstream f(script.path());
    f << s.str();
    if (!f) throw std::runtime_error("cannot write the temporary script " + script.path());
  }
  const int rc = run({gnuplot, script.path()}, false);
  if (rc != 0)
    throw std::runtime_error("gnuplot failed (exit status " + std::to_string(rc) +
                             ") while writing '" + path + "'");
}

}  // namespace daekit::cli
