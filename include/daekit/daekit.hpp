// daekit: the public interface in one include.
//
//   #include <daekit/daekit.hpp>
//
// Layers (docs/architecture.md): core types -> problem forms -> nonlinear services that users
// call directly (consistent initialization, projections, formulations) -> methods (options and
// the registry) -> integrator (Options, Result, Integrator, solve) -> built-in problems.
#pragma once

#include "daekit/core/callback.hpp"
#include "daekit/core/dense_output.hpp"
#include "daekit/core/sparsity.hpp"
#include "daekit/core/stats.hpp"
#include "daekit/core/types.hpp"
#include "daekit/integrator/integrator.hpp"
#include "daekit/integrator/options.hpp"
#include "daekit/integrator/result.hpp"
#include "daekit/integrator/solve.hpp"
#include "daekit/methods/bdf.hpp"
#include "daekit/methods/beta_multistep.hpp"
#include "daekit/methods/dirk.hpp"
#include "daekit/methods/erk.hpp"
#include "daekit/methods/hem.hpp"
#include "daekit/methods/projected_rk.hpp"
#include "daekit/methods/radau.hpp"
#include "daekit/methods/radau5.hpp"
#include "daekit/methods/registry.hpp"
#include "daekit/methods/spark.hpp"
#include "daekit/nonlinear/euler_lagrange.hpp"
#include "daekit/nonlinear/formulations.hpp"
#include "daekit/nonlinear/index2.hpp"
#include "daekit/nonlinear/initialization.hpp"
#include "daekit/nonlinear/projection.hpp"
#include "daekit/problem/euler_lagrange_dae.hpp"
#include "daekit/problem/implicit_dae.hpp"
#include "daekit/problem/implicit_index2_dae.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "daekit/problem/mechanical_system.hpp"
#include "daekit/problem/semi_explicit_dae.hpp"
#include "daekit/problems/registry.hpp"
#include "daekit/tableaus/analysis.hpp"
#include "daekit/tableaus/half_explicit.hpp"
#include "daekit/tableaus/lobatto.hpp"
#include "daekit/tableaus/multistep.hpp"
#include "daekit/tableaus/runge_kutta.hpp"
