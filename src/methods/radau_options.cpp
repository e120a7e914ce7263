// The descriptions of the options of "radau" and "radau5" (OptionTable, methods/factory.hpp),
// registered by radau.cpp's radau_method() and radau5_method(), and the values a Radau object
// reports. A translation unit of its own: in radau.cpp the tables' code changed how the
// compiler inlined the step code (30-60 instructions more per radau5 step).
#include "daekit/methods/radau.hpp"
#include "daekit/methods/radau5.hpp"
#include "methods/factory.hpp"

namespace daekit {

namespace {

/// radau5's options from those of its 3-stage instance (what the method object holds).
Radau5Options radau_as_radau5(const RadauOptions& r, bool start_newton_from_zero) {
  Radau5Options o;
  o.max_newton_iterations = r.max_newton_iterations;
  o.newton_tolerance = r.newton_tolerance;
  o.start_newton_from_zero = start_newton_from_zero;
  o.jacobian_reuse_theta = r.jacobian_reuse_theta;
  o.lu_reuse_low = r.lu_reuse_low;
  o.lu_reuse_high = r.lu_reuse_high;
  o.transform_tolerances = r.transform_tolerances;
  o.index2_error_control = r.index2_error_control;
  o.projection = r.projection;
  return o;
}

/// The names of Index2ErrorControl's values.
std::vector<std::pair<std::string, Index2ErrorControl>> index2_error_control_values() {
  return {{"off", Index2ErrorControl::Off},
          {"after_restarts", Index2ErrorControl::AfterRestarts},
          {"always", Index2ErrorControl::Always}};
}

/// The options of "radau" (RadauOptions; its projection is Options::projection).
const OptionTable<RadauOptions>& radau_option_table() {
  using O = RadauOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .integer_of("min_stages", &O::min_stages, {1, 3, 5, 7},
                      "fewest stages s (order 2s - 1; 1: implicit Euler)")
          .integer_of("max_stages", &O::max_stages, {1, 3, 5, 7}, "most stages s")
          .integer_of("start_stages", &O::start_stages, {1, 3, 5, 7}, "stages of the first step")
          .integer("max_newton_iterations", &O::max_newton_iterations, 4, kNoLimit,
                   "Newton iterations at s = 3 (s = 5: +5, s = 7: +10, s = 1: -3)")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::at_least(0),
                "bound on the Newton error estimate; 0: RADAU's max(10 eps / rtol', min(c, "
                "rtol'^((s-1)/(s+1)))), c = 0.03 (1e-3 with index-3 components unless "
                "transform_tolerances)")
          .real("jacobian_reuse_theta", &O::jacobian_reuse_theta, Bounds::open(0, 1),
                "keep the Jacobian while Newton's contraction rate stays below this")
          .real("lu_reuse_low", &O::lu_reuse_low, Bounds::left_open(0, 1),
                "keep h and the LU while h_new / h lies in [lu_reuse_low, lu_reuse_high]")
          .real("lu_reuse_high", &O::lu_reuse_high, Bounds::at_least(1), "upper end of that band")
          .real("order_increase_theta", &O::order_increase_theta, Bounds::open(0, 1),
                "vitu: raise the order when the smoothed contraction rate is at most this")
          .real("order_decrease_theta", &O::order_decrease_theta, Bounds::open(0, 1),
                "vitd: lower the order when it is at least this (> order_increase_theta)")
          .real("order_step_ratio_low", &O::order_step_ratio_low, Bounds::open(0, 1),
                "hhod: raise the order only when h_new / h_old lies in (hhod, hhou)")
          .real("order_step_ratio_high", &O::order_step_ratio_high, Bounds::above(1), "hhou")
          .flag("transform_tolerances", &O::transform_tolerances,
                "work with RADAU's rtol' = 0.1 rtol^((s+1)/(2s)), atol' = atol rtol' / rtol "
                "(false: the tolerances as given)")
          .choice("index2_error_control", &O::index2_error_control, index2_error_control_values(),
                  "also test the error of index-2 components that are zero columns of M in their "
                  "own unit (not scaled by h): off, after_restarts (from the first tstop, "
                  "switch or event on), always");
  return table;
}

/// The options of "radau5" (Radau5Options; its projection is Options::projection).
const OptionTable<Radau5Options>& radau5_option_table() {
  using O = Radau5Options;
  static const OptionTable<O> table =
      OptionTable<O>()
          .integer("max_newton_iterations", &O::max_newton_iterations, 1, kNoLimit,
                   "Newton iterations per step before the step is retried (RADAU5's NIT)")
          .real("newton_tolerance", &O::newton_tolerance, Bounds::at_least(0),
                "bound on the Newton error estimate; 0: max(10 eps / rtol', min(c, "
                "sqrt(rtol'))), c = 0.03 (1e-3 with index-3 components unless "
                "transform_tolerances)")
          .flag("start_newton_from_zero", &O::start_newton_from_zero,
                "start Newton from Z = 0 instead of the last step's collocation polynomial")
          .real("jacobian_reuse_theta", &O::jacobian_reuse_theta, Bounds::open(0, 1),
                "keep the Jacobian while Newton's contraction rate stays below this")
          .real("lu_reuse_low", &O::lu_reuse_low, Bounds::left_open(0, 1),
                "keep h and the LU while h_new / h lies in [lu_reuse_low, lu_reuse_high]")
          .real("lu_reuse_high", &O::lu_reuse_high, Bounds::at_least(1), "upper end of that band")
          .flag("transform_tolerances", &O::transform_tolerances,
                "work with RADAU5's rtol' = 0.1 rtol^(2/3), atol' = atol rtol' / rtol (false: "
                "the tolerances as given)")
          .choice("index2_error_control", &O::index2_error_control, index2_error_control_values(),
                  "also test the error of index-2 components that are zero columns of M in their "
                  "own unit (not scaled by h): off, after_restarts (from the first tstop, "
                  "switch or event on), always");
  return table;
}

}  // namespace

void describe_radau_options(MethodRegistration& r) { describe_options(r, radau_option_table); }

void describe_radau5_options(MethodRegistration& r) { describe_options(r, radau5_option_table); }

std::vector<MethodOptionValue> radau_used_options(const RadauOptions& o, bool radau5,
                                                  bool start_newton_from_zero) {
  return radau5 ? radau5_option_table().values(radau_as_radau5(o, start_newton_from_zero))
                : radau_option_table().values(o);
}

}  // namespace daekit
