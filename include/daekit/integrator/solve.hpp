// solve(): integrate a DAE over [t0, t_end] with a method chosen by name or by its options
// struct, as a loop over the Integrator (integrator.hpp).
//
//   Result r = solve(dae, t0, t_end, y0, "radau5", options);
//   Result r = solve(dae, t0, t_end, y0, Radau5Options{...}, options);
//   Result r = solve(implicit_dae, t0, t_end, y0, yp0, "bdf", options);
//   Result r = solve(quasi_linear_dae, t0, t_end, y0, "radau5", options);  // M(t, y) y' = f
//   Result r = solve(index2_dae, t0, t_end, x0, SparkOptions{...}, options);
//   Result r = solve(dae, t0, t_end, y0, "auto", options);  // the CLI's and Python's default
//
// "auto" chooses the method from the form, the index tags and rtol by the rule of
// daekit::auto_method (registry.hpp; the CLI and Python use the same) and names the rule in
// Result::method_choice; it takes no method options. Without a method the C++ overloads below
// keep their fixed defaults (radau5, bdf, spark), so that a program's method does not change
// with its tolerance.
// Throws InvalidArgument for invalid input (sizes, options, a method that does not take the
// form) before integrating; numerical trouble and failing user callbacks end in Result::status
// with a message, never an exception. t_end < t0 integrates backwards.
#pragma once

#include "daekit/integrator/integrator.hpp"
#include "daekit/integrator/options.hpp"
#include "daekit/integrator/result.hpp"
#include "daekit/methods/bdf.hpp"
#include "daekit/methods/hem.hpp"
#include "daekit/methods/projected_rk.hpp"
#include "daekit/methods/radau5.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/methods/spark.hpp"

namespace daekit {

/// M y' = f(t, y): radau5 by default.
Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method, const Options& options = {});
Result solve(const MassMatrixDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options = {});
/// F(t, y, y') = 0 with consistent y0, yp0 (see nonlinear/initialization.hpp): bdf by default.
Result solve(const ImplicitDae& dae, double t0, double t_end, const Vector& y0, const Vector& yp0,
             const MethodChoice& method, const Options& options = {});
/// M(t, y) y' = f(t, y) with consistent y0 (see the Integrator's constructor for the form each
/// method solves): radau5 by default; Result::y is y (n components).
Result solve(const QuasiLinearDae& dae, double t0, double t_end, const Vector& y0,
             const MethodChoice& method, const Options& options = {});
Result solve(const QuasiLinearDae& dae, double t0, double t_end, const Vector& y0,
             const Options& options = {});
/// (a(t, y))' = f(t, y, z), 0 = g(t, y) from consistent x0 = (y0, z0) (paper 002): spark by
/// default; Result::y is x = (y, z).
Result solve(const ImplicitIndex2Dae& dae, double t0, double t_end, const Vector& x0,
             const MethodChoice& method = "spark", const Options& options = {});

}  // namespace daekit
