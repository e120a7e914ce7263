// Output helpers of the daekit command (csv_plot.hpp): checked output files, the CSV file of
// the accepted steps and the gnuplot PNG plot.
#include "csv_plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "json.hpp"

extern char** environ;

namespace daekit::cli {

namespace {

std::string fmt17(double x) { return JsonWriter::full_precision(x); }

/// A gnuplot single-quoted string (no escapes inside; a quote is doubled). Control characters,
/// which could end the string or the command, become '?'. Only for names from the library
/// (component names): paths reach gnuplot as arguments (ARG1, ARG2), never as script text.
std::string gp_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      q += '?';
    else
      q += c;
  }
  return q + "'";
}

/// A temporary file (mkstemp in $TMPDIR or /tmp) removed when the object goes out of scope.
class TempFile {
 public:
  explicit TempFile(const char* tag) {
    const char* dir = std::getenv("TMPDIR");
    std::string templ = std::string(dir && *dir ? dir : "/tmp") + "/daekit-" + tag + "-XXXXXX";
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

/// Runs args[0] (searched on PATH) with the given arguments, stdin from /dev/null, stdout to
/// /dev/null, stderr to `stderr_path` (/dev/null if empty); returns its exit status (127 if it
/// could not be started, 128 + signal if killed).
int run(const std::vector<std::string>& args, const std::string& stderr_path = "") {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(
      &actions, 2, stderr_path.empty() ? "/dev/null" : stderr_path.c_str(), O_WRONLY | O_TRUNC, 0);
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

/// Contents of a (small) file, at most `limit` bytes; "" if it cannot be read.
std::string read_file(const std::string& path, size_t limit) {
  std::string s;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    size_t got = 0;
    while (s.size() < limit && (got = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, got);
    std::fclose(f);
  }
  if (s.size() > limit) s.resize(limit);
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_)
    throw std::runtime_error("cannot open '" + path_ + "' for writing: " + std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (file_) std::fclose(file_);
}

void OutputFile::write(std::string_view text) {
  if (!file_ || error_ != 0 || text.empty()) return;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::ferror(file_))
    error_ = errno != 0 ? errno : EIO;
}

void OutputFile::close() {
  if (!file_) throw std::runtime_error("error writing '" + path_ + "': already closed");
  errno = 0;
  if (error_ == 0 && (std::fflush(file_) != 0 || std::ferror(file_)))
    error_ = errno != 0 ? errno : EIO;
  errno = 0;
  if (std::fclose(file_) != 0 && error_ == 0) error_ = errno != 0 ? errno : EIO;
  file_ = nullptr;
  if (error_ != 0)
    throw std::runtime_error("error writing '" + path_ + "': " + std::strerror(error_));
}

void check_writable(const std::string& path) {
  struct stat st;
  const bool existed = ::stat(path.c_str(), &st) == 0;
  if (existed && !S_ISREG(st.st_mode)) {
    // A device, pipe or FIFO is not opened here: a FIFO's reader would see the probe's close
    // as the end of the data. Directories are refused.
    const int error = S_ISDIR(st.st_mode) ? EISDIR : ::access(path.c_str(), W_OK) != 0 ? errno : 0;
    if (error != 0)
      throw std::runtime_error("cannot open '" + path + "' for writing: " + std::strerror(error));
    return;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0)
    throw std::runtime_error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void write_csv(const std::string& path, const MassMatrixDae& dae, const Result& r) {
  OutputFile out(path);
  const bool residuals = r.has_constraints && r.residual_steps.size() == r.t_steps.size();
  std::string line = "t";
  for (int i = 0; i < dae.n; ++i) line += ',' + csv_field(component_name(dae, i));
  if (residuals) line += ",position_residual,velocity_residual";
  line += '\n';
  out.write(line);
  const size_t rows = std::min(r.t_steps.size(), static_cast<size_t>(r.y_steps.size()));
  for (size_t k = 0; k < rows && !out.failed(); ++k) {
    line = fmt17(r.t_steps[k]);
    const auto y = r.y_steps[static_cast<long>(k)];
    for (int i = 0; i < y.size(); ++i) line += ',' + fmt17(y[i]);
    if (residuals)
      line += ',' + fmt17(r.residual_steps[k].position) + ',' + fmt17(r.residual_steps[k].velocity);
    line += '\n';
    out.write(line);
  }
  out.close();
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
  for (int c : comps)
    if (c < 0 || c >= r.y_steps.n())
      throw std::runtime_error("plot component " + std::to_string(c) + " outside the state");
  const bool residuals = r.has_constraints && r.residual_steps.size() == r.t_steps.size();

  // Multi-scale problems (most steps in the first 0.1% of the interval, e.g. Robertson on
  // [0, 1e11]) are drawn with log-scaled t and |y|.
  const double t0 = r.t_steps.front(), t1 = r.t_steps[steps - 1];
  const double t_median = r.t_steps[steps / 2];
  const bool log_t = t0 >= 0 && t1 > t0 && (t_median - t0) < 1e-3 * (t1 - t0);
  std::vector<bool> has_negative(comps.size(), false);

  TempFile data("plot-data"), script("plot-script"), image("plot-png"), log("plot-log");
  {
    OutputFile d(data.path());
    std::string line;
    for (size_t k = 0; k < steps && !d.failed(); ++k) {
      if (log_t && r.t_steps[k] <= 0) continue;
      const auto y = r.y_steps[static_cast<long>(k)];
      line = fmt17(r.t_steps[k]);
      for (size_t c = 0; c < comps.size(); ++c) {
        const double v = y[comps[c]];
        if (v < 0) has_negative[c] = true;
        line += ' ' + fmt17(v);
      }
      if (residuals)
        line +=
            ' ' + fmt17(r.residual_steps[k].position) + ' ' + fmt17(r.residual_steps[k].velocity);
      line += '\n';
      d.write(line);
    }
    d.close();
  }

  // The script refers to the output image, the data file and the title only as ARG1, ARG2 and
  // ARG3: gnuplot -c passes them as strings, so no file name is ever parsed as gnuplot commands.
  const bool cairo = run({gnuplot, "-e", "set terminal pngcairo"}) == 0;
  std::ostringstream s;
  if (cairo)
    s << "set terminal pngcairo size 960," << (residuals ? 800 : 540) << " font 'Sans,10'\n";
  else
    s << "set terminal png size 960," << (residuals ? 800 : 540) << "\n";
  s << "set output ARG1\n";
  s << "set grid\nset key outside right top\nset xlabel 't'\n";
  s << "set lmargin 12\nset rmargin 16\n";  // both panels share the same x extent
  if (log_t) s << "set logscale x\nset format x '10^{%L}'\n";
  if (residuals) s << "set multiplot layout 2,1\n";
  s << "set title ARG3 noenhanced\n";
  if (log_t) s << "set logscale y\nset format y '10^{%L}'\nset ylabel '|y|'\n";
  s << "plot ";
  for (size_t c = 0; c < comps.size(); ++c) {
    const int col = static_cast<int>(c) + 2;
    std::string name = component_name(p.dae, comps[c]);
    const std::string expr = log_t ? "(abs($" + std::to_string(col) + "))" : std::to_string(col);
    if (log_t && has_negative[c]) name = "|" + name + "|";
    s << (c ? ", \\\n     " : "") << "ARG2 using 1:" << expr << " with lines lw 2 title "
      << gp_quote(name) << " noenhanced";
  }
  s << "\n";
  if (residuals) {
    const int pc = static_cast<int>(comps.size()) + 2;
    s << "unset title\nset title 'constraint residuals (floor 1e-17)'\n";
    s << "set logscale y\nset format y '10^{%L}'\nset ylabel 'residual'\n";
    s << "plot ARG2 using 1:($" << pc << " > 0 ? $" << pc << " : 1e-17) with lines lw 2 title "
      << "'|g(q)|', \\\n     ARG2 using 1:($" << pc + 1 << " > 0 ? $" << pc + 1
      << " : 1e-17) with lines lw 2 title '|G(q) v|'\n";
    s << "unset multiplot\n";
  }
  s << "unset output\n";
  {
    OutputFile f(script.path());
    f.write(s.str());
    f.close();
  }
  const int rc =
      run({gnuplot, "-c", script.path(), image.path(), data.path(), p.name + ": " + p.title},
          log.path());
  const std::string png = read_file(image.path(), 64u << 20);
  if (rc != 0 || png.size() < 8 || png.compare(0, 4, "\x89PNG") != 0) {
    std::string why = read_file(log.path(), 2000);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw std::runtime_error((rc != 0 ? "gnuplot failed (exit status " + std::to_string(rc) + ")"
                                      : std::string("gnuplot drew no image")) +
                             " while writing '" + path + "'" + (why.empty() ? "" : ": " + why));
  }
  OutputFile out(path);
  out.write(png);
  out.close();
}

}  // namespace daekit::cli
