// The daekit command as a function: run_cli() parses a command line and runs it (list, methods,
// solve, demo, help), writing to the given streams, and returns the exit status. main.cpp calls
// it with stdout/stderr; the fuzz harness (tests/fuzz/) calls it in-process.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace daekit::cli {

/// Exit status: 0 success (the solve reached t_end, or stopped at a terminal event: the model's
/// designed outcome, e.g. the moon flights'); 1 a solve ended with any other status, or an
/// output (CSV, trace, plot, the report itself) could not be written; 2 bad command line or
/// input rejected by the library (InvalidArgument).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// Runs `daekit ARGS...` (args without the program name): the report or JSON goes to `out`,
/// diagnostics, the progress bar (only if `err` is a terminal) and error messages to `err`.
/// Returns kExitOk, kExitFailure or kExitUsage; never throws. Output files named on the command
/// line are written relative to the current directory.
int run_cli(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) noexcept;

}  // namespace daekit::cli
