// Formulations of one MechanicalSystem compared (accuracy, cost, drift): index 3, index 2,
// index 1 (acceleration constraint), GGL, and index 3 with the velocity projection (2.8) of
// paper 000. Prints a Markdown table per problem; optionally writes the drift of the index-1
// formulation over a long pendulum run as CSV for the plot in docs/.
//
//   build/bench/daekit_formulations [--drift-csv FILE]
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

struct Variant {
  const char* label;
  Formulation form;
  Projection projection;
};

const Variant kVariants[] = {
    {"index 3", Formulation::Index3, Projection::None},
    {"index 3 + projection (2.8)", Formulation::Index3, Projection::Velocity},
    {"index 2", Formulation::Index2, Projection::None},
    {"index 1", Formulation::Index1, Projection::None},
    {"GGL", Formulation::GGL, Projection::None},
};

// scd of positions and velocities against `ref_qv` (q then v), or 0 if no reference.
double scd_qv(const Result& r, const MechanicalLayout& L, const Vector& ref_qv) {
  if (ref_qv.size() == 0) return 0.0;
  Vector y(2 * L.nq);
  y << r.y.segment(L.q, L.nq), r.y.segment(L.v, L.nq);
  return scd(y, ref_qv);
}

// scd of the positions alone (the first nq entries of `ref_qv`).
double scd_q(const Result& r, const MechanicalLayout& L, const Vector& ref_qv) {
  if (ref_qv.size() == 0) return 0.0;
  return scd(Vector(r.y.segment(L.q, L.nq)), Vector(ref_qv.head(L.nq)));
}

void compare(const std::string& title, const MechanicalSystem& sys, const Vector& q0,
             const Vector& v0, double t_end, double tol, const Vector& ref_qv) {
  std::printf("\n### %s, t in [0, %g], rtol = atol = %g\n\n", title.c_str(), t_end, tol);
  std::printf(
      "| formulation | n | status | scd (q, v) | scd (q) | nfev | njac | steps | max abs g | "
      "max abs G v | CPU ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Variant& var : kVariants) {
    const MassMatrixDae dae = formulate(sys, var.form);
    const Vector y0 = initial_values(sys, var.form, 0.0, q0, v0);
    Options o;
    o.rtol = o.atol = tol;
    o.store_steps = false;
    Radau5Options m;
    m.projection = var.projection;
    const std::clock_t c0 = std::clock();
    const Result r = solve(dae, 0.0, t_end, y0, m, o);
    const double ms = 1e3 * double(std::clock() - c0) / CLOCKS_PER_SEC;
    const MechanicalLayout L = mechanical_layout(sys, var.form);
    std::printf("| %s | %d | %s | %.2f | %.2f | %ld | %ld | %ld | %.1e | %.1e | %.2f |\n",
                var.label, dae.n, to_string(r.status), scd_qv(r, L, ref_qv), scd_q(r, L, ref_qv),
                r.stats.nfev, r.stats.njac, r.stats.naccept, r.max_residual.position,
                r.max_residual.velocity, ms);
  }
}

void drift_csv(const char* path) {
  const MechanicalSystem sys = pendulum_mechanical_system();
  Vector q0(2), v0(2);
  q0 << 1, 0;
  v0 << 0, 0;
  std::FILE* out = std::fopen(path, "w");
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path);
    return;
  }
  std::fprintf(out, "# pendulum, rtol = atol = 1e-6: t and |g(q)| per formulation\n");
  for (const Variant& var : kVariants) {
    const MassMatrixDae dae = formulate(sys, var.form);
    Options o;
    o.rtol = o.atol = 1e-6;
    Radau5Options m;
    m.projection = var.projection;
    const Result r = solve(dae, 0.0, 100.0, initial_values(sys, var.form, 0, q0, v0), m, o);
    std::fprintf(out, "# %s\n", var.label);
    for (size_t k = 0; k < r.t_steps.size(); ++k)
      std::fprintf(out, "%.10g %.6e %.6e\n", r.t_steps[k], r.residual_steps[k].position,
                   r.residual_steps[k].velocity);
    std::fprintf(out, "\n\n");
  }
  std::fclose(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && !std::strcmp(argv[1], "--drift-csv")) {
    drift_csv(argv[2]);
    return 0;
  }
  std::printf(
      "## Formulations of a MechanicalSystem compared (radau5)\n\n"
      "rerun: build/bench/daekit_formulations\n");
  const MechanicalSystem pendulum = pendulum_mechanical_system();
  Vector q0(2), v0(2);
  q0 << 1, 0;
  v0 << 0, 0;
  const Vector ref = pendulum_reference(20.0).head(4);
  for (double tol : {1e-6, 1e-9})
    compare("pendulum (4.1) of paper 000", pendulum, q0, v0, 20.0, tol, ref);
  try {
    const BuiltinProblem a = make_builtin_problem("andrews");
    if (a.mechanical) {
      const int nq = a.mechanical->nq;
      Vector ref_qv;
      if (a.reference) {
        ref_qv.resize(2 * nq);
        ref_qv << a.reference->y.head(nq), a.reference->y.segment(nq, nq);
      }
      for (double tol : {1e-6, 1e-9})
        compare("Andrews' squeezer", *a.mechanical, a.y0.head(nq), a.y0.segment(nq, nq), a.t_end,
                tol, ref_qv);
    }
  } catch (const InvalidArgument& e) {
    std::printf("\nAndrews skipped: %s\n", e.what());
  }
  return 0;
}
