// A solve that knows about impasse points (NOTES-004.md ch. 7): the ordinary solve of
// M y' = f(t, y) (constant singular M) runs with the impasse monitor of nonlinear/impasse.hpp
// after every accepted step; when |gamma| (dt/ds of the unit tangent of the augmented curve)
// falls below SingDaeOptions::gamma_tol, or the solve fails (step size, Newton, singular
// matrix) where the monitor says E = [A1; Dg2] is nearly singular, it stops and reports the
// impasse point instead of an unexplained step-size underflow; Algorithm SingDAE then follows
// the augmented system (7.22) through the point (pass_impasse), locating it where gamma
// changes sign. Past an accessible impasse point the curve runs backward in t (the solution
// ends there in forward time, Def. 7.2): the passage is returned, and the forward solve does
// not continue. Past an inaccessible one (t increasing again) the ordinary solve resumes.
#pragma once

#include "daekit/integrator/solve.hpp"
#include "daekit/nonlinear/impasse.hpp"

namespace daekit {

struct ImpasseSolve {
  Result result;           ///< the ordinary solve (status Success or where it stopped)
  bool impasse = false;    ///< an impasse point stopped the ordinary solve
  ImpassePassage passage;  ///< SingDAE through it (when impasse)
  Result resumed;          ///< the ordinary solve after an inaccessible point (if any)
};

/// Throws InvalidArgument for invalid input (as solve(), and a regular M).
ImpasseSolve solve_with_impasses(const MassMatrixDae& dae, double t0, double t_end,
                                 const Vector& y0, const MethodChoice& method,
                                 const Options& options = {}, const SingDaeOptions& sing = {});

}  // namespace daekit
