#include "daekit/core/stats.hpp"

namespace daekit {

const std::vector<StatsField>& stats_fields() {
  static const std::vector<StatsField> fields = {
      {"nsteps", "step attempts (accepted + rejected + failed)", &Stats::nsteps},
      {"naccept", "accepted steps", &Stats::naccept},
      {"nreject", "steps rejected by the error test", &Stats::nreject},
      {"nfail", "attempts failed before the error test (Newton, NaN/Inf, singular)", &Stats::nfail},
      {"nfev", "evaluations of f (or F) by the method", &Stats::nfev},
      {"nfev_jac", "evaluations of f (or F) for finite-difference Jacobians", &Stats::nfev_jac},
      {"nfev_check", "evaluations of f (or F) by the Jacobian check at t0", &Stats::nfev_check},
      {"nfev_structure", "evaluations of f (or F) to detect the Jacobian's structure at t0",
       &Stats::nfev_structure},
      {"njac", "Jacobian evaluations", &Stats::njac},
      {"nlu", "LU factorisations of the iteration matrix", &Stats::nlu},
      {"nsol", "forward/backward substitutions", &Stats::nsol},
      {"nli", "linear (GMRES) iterations of the iterative backend", &Stats::nli},
      {"nnewton", "Newton iterations", &Stats::nnewton},
      {"nnewton_fail", "Newton failures", &Stats::nnewton_fail},
      {"nproject", "projections onto the constraint manifold", &Stats::nproject},
      {"nroot", "evaluations of event (root) functions", &Stats::nroot},
      {"nevents", "located events", &Stats::nevents},
      {"norder_up", "order increases (variable-order Runge-Kutta: radau)", &Stats::norder_up},
      {"norder_down", "order decreases (variable-order Runge-Kutta: radau)", &Stats::norder_down},
      {"nrestart", "restarts of the method (tstops, switches, event actions, model changes)",
       &Stats::nrestart},
      {"nretake",
       "steps taken again to a switch or a restarting event (the restart state from the step's "
       "equations)",
       &Stats::nretake},
      {"nretake_fail", "of them, failed (the interpolant's state kept)", &Stats::nretake_fail},
  };
  return fields;
}

}  // namespace daekit
