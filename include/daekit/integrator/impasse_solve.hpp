// A solve that knows about impasse points (Bendtsen and Thomsen 1999, ch. 7): the ordinary solve of
// M y' = f(t, y) (constant singular M) runs with the impasse monitor of nonlinear/impasse.hpp
// after every accepted step; when |gamma| (dt/ds of the unit tangent of the augmented curve)
// falls below SingDaeOptions::gamma_tol while decreasing (approaching; near an inaccessible point
// it grows), or the solve fails (step size, Newton, singular
// matrix) where the monitor says E = [A1; Dg2] is nearly singular, it stops and reports the
// impasse point instead of an unexplained step-size underflow; Algorithm SingDAE then follows
// the augmented system (7.22) through the point (pass_impasse), locating it where gamma
// changes sign. A point reached forward in time is a maximum of t(s) on the curve, so past it
// the curve runs backward in t: the solution ends there in forward time (an accessible point,
// alpha < 0 of (7.2), Def. 7.2), the passage continues on the other branch backward in t and
// is returned; there is nothing to resume forward. (An inaccessible point, alpha > 0, a
// minimum of t(s), cannot be reached forward in time: solutions leave it.)
#pragma once

#include "daekit/integrator/solve.hpp"
#include "daekit/nonlinear/impasse.hpp"

namespace daekit {

struct ImpasseSolve {
  Result result;           ///< the ordinary solve (status Success or where it stopped)
  bool impasse = false;    ///< an impasse point stopped the ordinary solve
  ImpassePassage passage;  ///< SingDAE through it (when impasse)
};

/// Throws InvalidArgument for invalid input (as solve(), and a regular M).
ImpasseSolve solve_with_impasses(const MassMatrixDae& dae, double t0, double t_end,
                                 const Vector& y0, const MethodChoice& method,
                                 const Options& options = {}, const SingDaeOptions& sing = {});

}  // namespace daekit
