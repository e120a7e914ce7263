// The statistics of a solve, described once: every counter has a name (the JSON key and the
// report label) and a one-line meaning in stats_fields(), which the report, the JSON output of
// the CLI and the tests iterate over. Adding a counter touches this header and stats.cpp only.
#pragma once

#include <string>
#include <vector>

namespace daekit {

struct Stats {
  long nfev = 0;            ///< evaluations of f / F by the method (without Jacobian differences)
  long nfev_jac = 0;        ///< evaluations of f / F spent on finite-difference Jacobians
  long nfev_check = 0;      ///< evaluations of f / F by the Jacobian check at t0
  long nfev_structure = 0;  ///< evaluations of f / F to detect the Jacobian's structure at t0
  long njac = 0;            ///< Jacobian evaluations (analytic or by differences)
  long nlu = 0;           ///< LU factorisations of the iteration matrix (a real+complex pair is 1)
  long nsol = 0;          ///< forward/backward substitutions (a real+complex pair is 1)
  long nli = 0;           ///< Krylov iterations of the iterative linear solver (0 for direct)
  long nsteps = 0;        ///< step attempts: accepted + rejected by the error test + failed
  long naccept = 0;       ///< accepted steps
  long nreject = 0;       ///< steps rejected by the error test
  long nfail = 0;         ///< attempts that failed before the error test (Newton, NaN, singular)
  long nnewton = 0;       ///< Newton iterations in total
  long nnewton_fail = 0;  ///< Newton failures (divergence / too slow / too many iterations)
  long nproject = 0;      ///< projections onto the constraint manifold
  long nroot = 0;         ///< evaluations of event (root) functions
  long nevents = 0;       ///< located events
  long norder_up = 0;     ///< order increases of variable-order one-step methods (radau)
  long norder_down = 0;   ///< order decreases of variable-order one-step methods (radau)
  /// Restarts of the method after its start: at Options::tstops, at switches of
  /// Options::switches, after event actions that restart and after model changes.
  long nrestart = 0;
  /// Steps taken again from the start of the step that crossed a switch or an event that
  /// restarts, to its located time (Method::retake_step: the restart state from the step's
  /// equations, not its interpolant), and of them those whose Newton iteration failed (the
  /// interpolant's state kept).
  long nretake = 0;
  long nretake_fail = 0;
};

/// One counter of Stats: its JSON key, its meaning and a pointer to it.
struct StatsField {
  const char* key;
  const char* meaning;
  long Stats::*member;
};

/// All counters, in report order.
const std::vector<StatsField>& stats_fields();

}  // namespace daekit
