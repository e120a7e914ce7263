// The Jacobian structure a solve works with (Options::detect_sparsity, issue 29): the one the
// problem declares, or, when it declares none and n is large enough, the one detected at t0
// (nonlinear/structure_detection.hpp), with the backend chosen from its density and bandwidth.
// The integrator hands the methods a copy of the problem with the detected structure declared.
// Internal header (not installed).
#pragma once

#include <optional>
#include <string>

#include "core/guard.hpp"
#include "daekit/core/stats.hpp"
#include "daekit/integrator/options.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "methods/factory.hpp"

namespace daekit {

struct StructureChoice {
  std::optional<MassMatrixDae> mass;    ///< the mass form with the detected structure
  std::optional<ImplicitDae> implicit;  ///< the implicit form with the detected structure
  LinearSolverKind linear_solver = LinearSolverKind::Automatic;  ///< for the methods
  bool detected = false;                                         ///< a detected structure is in use
  std::string description;                                       ///< Result::jacobian_structure
};

/// The structure for the problem of `in` (mass or implicit form) at (t0, y0[, yp0]): detects
/// it when Options::detect_sparsity applies (evaluations counted in stats.nfev_structure, the
/// analytic Jacobian's in stats.njac); a failed evaluation abandons the detection (the guard
/// is cleared, the declared dense structure kept and the reason described).
StructureChoice choose_structure(const MethodInput& in, const Vector& y0, const Options& opt,
                                 const MethodCapabilities& caps, CallGuard& guard, Stats& stats);

}  // namespace daekit
