// Output helpers of the daekit command: checked output files, the CSV file of the accepted
// steps and the PNG plot drawn with gnuplot. Every write is checked (including the flush and
// close); failures throw std::runtime_error with a readable message.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "daekit/daekit.hpp"

namespace daekit::cli {

/// CSV field: quoted (with doubled quotes) if it contains a comma, quote or line break.
std::string csv_field(const std::string& s);

/// A file written through stdio whose every write, flush and close is checked: the first
/// failure is remembered (later writes are skipped) and close() throws it.
class OutputFile {
 public:
  /// Opens (truncates) `path`; throws std::runtime_error "cannot open '<path>' for writing: ...".
  explicit OutputFile(std::string path);
  ~OutputFile();  ///< closes without reporting (call close() to know whether all went well)
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text);
  /// Flushes and closes; throws std::runtime_error "error writing '<path>': ..." if any write,
  /// the flush or the close failed.
  void close();
  bool failed() const { return error_ != 0; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  int error_ = 0;  ///< errno of the first failure
};

/// Throws std::runtime_error if `path` cannot be opened for writing (checked before a long run;
/// a file that did not exist is not left behind, devices and FIFOs are not opened).
void check_writable(const std::string& path);

/// Writes `path`: header `t,<component names>[,position_residual,velocity_residual]`, then one
/// row per accepted step (Result::t_steps / y_steps / residual_steps), numbers with full precision
/// (shortest round-trip of %.15g..%.17g).
void write_csv(const std::string& path, const MassMatrixDae& dae, const Result& r);

/// Full path of the gnuplot executable found on PATH, or "" if there is none.
std::string find_gnuplot();

/// Plots the problem's plot_components (all if empty) over t into the PNG `path` with gnuplot;
/// problems with a constraint monitor get a second panel with the residuals |g(q)| and |G(q) v|
/// on a log scale. gnuplot runs `gnuplot -c SCRIPT OUTPUT DATA TITLE` on temporary files (the
/// names reach it as string arguments, never as commands) and draws into a temporary PNG that
/// is then copied to `path` with checked writes. Throws std::runtime_error if gnuplot is
/// missing, fails or draws nothing, if writing `path` fails, or if there are no stored steps.
void plot_png(const std::string& path, const BuiltinProblem& p, const Result& r);

}  // namespace daekit::cli
