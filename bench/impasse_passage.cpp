// Plot data for docs/app_impasse.png (NOTES-004.md ch. 7, scripts/applications_plots.py): the
// built-in problem "impasse" (x2' = 1, 0 = x1^2 + x2, x(0) = (1, -1)) solved by radau5 with the
// impasse monitor, then Algorithm SingDAE through the impasse point at t = 1.
//   daekit_impasse_passage FILE
// writes two gnuplot data blocks: (0) the accepted steps of radau5: t x1 x2; (1) the SingDAE
// passage: s t x1 x2 gamma.
#include <cstdio>

#include "daekit/daekit.hpp"

int main(int argc, char** argv) {
  using namespace daekit;
  if (argc != 2) {
    std::fprintf(stderr, "usage: daekit_impasse_passage FILE\n");
    return 2;
  }
  const BuiltinProblem p = make_builtin_problem("impasse");
  Options o;
  o.rtol = o.atol = 1e-8;
  SingDaeOptions sing;
  sing.ds = 1e-2;
  sing.arc_length = 2.5;
  sing.gamma_tol = 0.5;  // hand over early, so that the figure shows the curve on both sides
  const ImpasseSolve s = solve_with_impasses(p.dae, p.t0, p.t_end, p.y0, "radau5", o, sing);
  std::FILE* f = std::fopen(argv[1], "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::fprintf(f, "# radau5: t x1 x2\n");
  for (size_t i = 0; i < s.result.t_steps.size(); ++i)
    std::fprintf(f, "%.17g %.17g %.17g\n", s.result.t_steps[i], s.result.y_steps[i][0],
                 s.result.y_steps[i][1]);
  std::fprintf(f, "\n\n# SingDAE: s t x1 x2 gamma\n");
  for (size_t i = 0; i < s.passage.t.size(); ++i)
    std::fprintf(f, "%.17g %.17g %.17g %.17g %.17g\n", s.passage.s[i], s.passage.t[i],
                 s.passage.x[i][0], s.passage.x[i][1], s.passage.gamma[i]);
  std::fclose(f);
  std::printf("%s\n", s.result.message.c_str());
  return s.impasse && s.passage.passed ? 0 : 1;
}
