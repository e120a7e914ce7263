// How the registry creates methods: each family's .cpp defines a MethodRegistration (name,
// capabilities, factory) and registry.cpp lists the families, one line each. Internal header.
#pragma once

#include <any>
#include <cmath>
#include <memory>
#include <string>

#include "core/guard.hpp"
#include "daekit/core/sparsity.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "methods/method.hpp"

namespace daekit {

/// What a factory gets: the problem in one of the forms (the other pointers null), y'(t0) for
/// the implicit form, the method's options (the family's options struct, or empty for its
/// defaults), the linear-solver choice, whether the integrator runs constant steps without
/// error control (Options::fixed_step), and the solve's guard and statistics.
struct MethodInput {
  const MassMatrixDae* mass_form = nullptr;
  const ImplicitDae* implicit_form = nullptr;
  const ImplicitIndex2Dae* index2_form = nullptr;
  const Vector* yp0 = nullptr;
  double t0 = 0.0;
  const std::any* options = nullptr;
  LinearSolverKind linear_solver = LinearSolverKind::Automatic;
  bool fixed_step = false;
  CallGuard* guard = nullptr;
  Stats* stats = nullptr;
};

using MethodFactory = std::unique_ptr<Method> (*)(const MethodInput&);

struct MethodRegistration {
  MethodInfo info;
  MethodFactory make = nullptr;
};

/// The registration of `name`; throws InvalidArgument listing the valid names otherwise.
const MethodRegistration& method_registration(const std::string& name);

/// The family's options from a MethodInput: the struct given, or defaults when none was;
/// throws InvalidArgument if options of another family were given.
template <typename O>
O method_options(const MethodInput& in, const char* method) {
  if (!in.options || !in.options->has_value()) return O{};
  if (const O* o = std::any_cast<O>(in.options)) return *o;
  throw InvalidArgument(std::string("method '") + method + "' got the options of another method");
}

/// The checks of the Newton and reuse options shared by the RADAU5-style methods (radau5, radau,
/// dirk): newton_tolerance >= 0 and finite (0 = automatic), jacobian_reuse_theta in (0, 1),
/// 0 < lu_reuse_low <= 1 <= lu_reuse_high. Throws InvalidArgument naming `method` otherwise.
template <typename O>
void validate_newton_reuse(const O& o, const char* method) {
  const std::string m(method);
  if (o.newton_tolerance < 0 || !std::isfinite(o.newton_tolerance))
    throw InvalidArgument(m + ": newton_tolerance must be >= 0 (0 = automatic)");
  if (!(o.jacobian_reuse_theta > 0) || !(o.jacobian_reuse_theta < 1))
    throw InvalidArgument(m + ": jacobian_reuse_theta must lie in (0, 1)");
  if (!(o.lu_reuse_low > 0) || !(o.lu_reuse_low <= 1.0) || !(o.lu_reuse_high >= 1.0))
    throw InvalidArgument(m + ": need 0 < lu_reuse_low <= 1 <= lu_reuse_high");
}

}  // namespace daekit
