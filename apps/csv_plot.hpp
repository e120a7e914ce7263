// Output helpers of the daekit command: the CSV file of the accepted steps and the PNG plot
// drawn with gnuplot. Both throw std::runtime_error with a readable message on failure.
#pragma once

#include <string>

#include "daekit/daekit.hpp"

namespace daekit::cli {

/// Name of component i: dae.component_names[i] when given, else "y<i>".
std::string component_name(const MassMatrixDae& dae, int i);

/// Writes `path`: header `t,<component names>[,position_residual,velocity_residual]`, then one
/// row per accepted step (Result::t_steps / y_steps / residual_steps), numbers with full precision
/// (shortest round-trip of %.15g..%.17g).
void write_csv(const std::string& path, const MassMatrixDae& dae, const Result& r);

/// Full path of the gnuplot executable found on PATH, or "" if there is none.
std::string find_gnuplot();

/// Plots the problem's plot_components (all if empty) over t into the PNG `path` with gnuplot
/// (through a temporary data file and script); problems with a constraint monitor get a second
/// panel with the residuals |g(q)| and |G(q) v| on a log scale. Throws std::runtime_error if
/// gnuplot is missing or fails, or if there are no stored steps.
void plot_png(const std::string& path, const BuiltinProblem& p, const Result& r);

}  // namespace daekit::cli
