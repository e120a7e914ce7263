// solve(): the one time loop of daekit (DESIGN.md, integrator layer).
//
//   Result r = solve(problem, t0, t_end, y0, Radau5Options{}, options);
//
// Validates sizes and options (throws InvalidArgument before integrating), checks the initial
// values of index-2/3 problems, then steps with the chosen method: error-based acceptance,
// step-size control, retries after Newton failures, NaN/Inf and singular matrices, output at
// requested times by dense output, drift monitors, callbacks and statistics. Numerical
// trouble ends in Result::status with a message, never an exception. t_end < t0 integrates
// backwards.
#pragma once

#include "daekit/integrator/options.hpp"
#include "daekit/integrator/result.hpp"
#include "daekit/methods/bdf.hpp"
#include "daekit/methods/radau5.hpp"
#include "daekit/methods/stepper.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"

namespace daekit {

/// Integrates with an already constructed stepper (any method).
Result integrate(Stepper& stepper, const MassMatrixDae* problem_for_monitor, double t0,
                 double t_end, const Vector& y0, const Options& options);

/// Radau IIA (RADAU5) on a mass-matrix DAE. (Pass the method options with their type,
/// Radau5Options{} or BdfOptions{}: a bare {} would be ambiguous.)
Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Radau5Options& method, const Options& options = {});
/// radau5 with default method options.
Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options = {});

/// BDF on an implicit DAE: y0, yp0 must be consistent (see initialization.hpp).
Result solve(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const BdfOptions& method, const Options& options = {});

/// BDF on a mass-matrix DAE (converted with to_implicit_form; y'(t0) from initial_derivative).
Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const BdfOptions& method, const Options& options = {});

/// Checks the algebraic equations (zero rows of M) and the constraint monitor of an
/// index-2/3 problem at (t0, y0). Returns an empty string if consistent, else a message naming
/// the violated equation and the size of the violation.
std::string check_initial_values(const MassMatrixDae& dae, double t0, const Vector& y0, double tol);

}  // namespace daekit
