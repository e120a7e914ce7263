// Automatic Jacobian structure (issue 29, Options::detect_sparsity): what a problem that
// declares no structure costs against the same problem with its structure declared.
//
//   build/bench/daekit_sparsity_detection circuit [STAGES] [REPEAT]   (default 44 stages: n = 352)
//   build/bench/daekit_sparsity_detection threshold [REPEAT]
//
// circuit: circuit_chain(STAGES) (the TRANSAMP chain, 8 unknowns per stage) with radau5 and bdf
// at its tolerances (rtol = atol = h0 = 1e-6, t in [0, 0.2]), four ways: as built in (declared
// pattern, analytic sparse Jacobian), the pattern declared with finite differences, no pattern
// and no Jacobian (detected: the default), and no pattern with detection off (the dense LU of
// the whole matrix, as before issue 29). Best CPU seconds of REPEAT solves each.
// threshold: a banded problem (1-D Brusselator, Hairer-Wanner II, IV.10, u and v interleaved,
// bandwidths (2, 2)) at n = 16 .. 128 with radau5 at 1e-6, detection forced on
// (detect_sparsity_min_n = 1) against off: where detection starts to pay.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

struct Timing {
  double seconds = 1e300;
  Result r;
};

template <typename Solve>
Timing best_of(int repeat, Solve&& solve) {
  Timing t;
  for (int k = 0; k < repeat; ++k) {
    Result r = solve();
    if (r.cpu_seconds < t.seconds) {
      t.seconds = r.cpu_seconds;
      t.r = std::move(r);
    }
  }
  return t;
}

void print(const char* label, const Timing& t, double base) {
  std::printf("  %-40s %9.4f s  %5.2fx  %-6s steps %6ld  f %7ld (+%ld structure, %ld check)  %s\n",
              label, t.seconds, t.seconds / base, to_string(t.r.status), t.r.stats.naccept,
              t.r.stats.nfev + t.r.stats.nfev_jac, t.r.stats.nfev_structure, t.r.stats.nfev_check,
              t.r.linear_solver.c_str());
  std::printf("  %-40s %s\n", "", t.r.jacobian_structure.c_str());
}

int circuit(int stages, int repeat) {
  const BuiltinProblem p = circuit_chain(stages);
  std::printf("circuit_chain(%d): n = %d, rtol = atol = h0 = %g, t in [%g, %g]\n", stages, p.dae.n,
              p.rtol, p.t0, p.t_end);
  MassMatrixDae pattern_only = p.dae;
  pattern_only.sparse_jacobian = nullptr;
  MassMatrixDae nothing = pattern_only;
  nothing.jacobian_sparsity = Sparsity::dense();
  double worst = 0.0;
  for (const char* method : {"radau5", "bdf"}) {
    Options o;
    o.rtol = p.rtol;
    o.atol = p.atol;
    o.h0 = p.h0;
    o.store_steps = false;
    auto run = [&](const MassMatrixDae& d, const Options& opt) {
      return best_of(repeat,
                     [&] { return solve(d, p.t0, p.t_end, p.y0, MethodChoice(method), opt); });
    };
    const Timing built_in = run(p.dae, o);
    const Timing declared = run(pattern_only, o);
    const Timing detected = run(nothing, o);
    Options off = o;
    off.detect_sparsity = false;
    const Timing dense = run(nothing, off);
    std::printf(" %s (ratios to the declared pattern with differences)\n", method);
    print("declared pattern + analytic Jacobian", built_in, declared.seconds);
    print("declared pattern, differences", declared, declared.seconds);
    print("no pattern (detected)", detected, declared.seconds);
    print("no pattern, detection off (dense LU)", dense, declared.seconds);
    std::printf("  max |y_detected - y_declared| = %.2e\n",
                (detected.r.y - declared.r.y).cwiseAbs().maxCoeff());
    worst = std::max(worst, detected.seconds / declared.seconds);
  }
  std::printf("worst no-pattern / declared-pattern ratio: %.2f (acceptance: within 1.5)\n", worst);
  std::printf("rerun: build/bench/daekit_sparsity_detection circuit %d %d\n", stages, repeat);
  return 0;
}

// The 1-D Brusselator with diffusion (BRUSS), N points, y = (u_1, v_1, u_2, v_2, ...).
MassMatrixDae bruss(int n, Vector& y0) {
  const int N = n / 2;
  const double c = (1.0 / 50.0) * (N + 1) * (N + 1);
  MassMatrixDae d;
  d.n = n;
  d.name = "bruss";
  d.f = [N, c](double, VecIn y, VecOut out) {
    for (int i = 0; i < N; ++i) {
      const double u = y[2 * i], v = y[2 * i + 1];
      const double ul = i > 0 ? y[2 * i - 2] : 1.0, ur = i + 1 < N ? y[2 * i + 2] : 1.0;
      const double vl = i > 0 ? y[2 * i - 1] : 3.0, vr = i + 1 < N ? y[2 * i + 3] : 3.0;
      out[2 * i] = 1.0 + u * u * v - 4.0 * u + c * (ul - 2.0 * u + ur);
      out[2 * i + 1] = 3.0 * u - u * u * v + c * (vl - 2.0 * v + vr);
    }
  };
  y0.resize(n);
  for (int i = 0; i < N; ++i) {
    y0[2 * i] = 1.0 + std::sin(2.0 * M_PI * (i + 1) / (N + 1));
    y0[2 * i + 1] = 3.0;
  }
  return d;
}

int threshold(int repeat) {
  std::printf("BRUSS 1-D (bandwidths (2, 2)), radau5, rtol = atol = 1e-6, t in [0, 10]\n");
  std::printf("  %5s %12s %12s %8s  %s\n", "n", "off [s]", "detected [s]", "ratio", "backend");
  for (int n : {16, 24, 32, 34, 36, 40, 48, 64, 96, 128}) {
    Vector y0;
    const MassMatrixDae d = bruss(n, y0);
    Options o;
    o.rtol = o.atol = 1e-6;
    o.store_steps = false;
    Options on = o;
    on.detect_sparsity_min_n = 1;
    Options off = o;
    off.detect_sparsity = false;
    const Timing a =
        best_of(repeat, [&] { return solve(d, 0.0, 10.0, y0, MethodChoice("radau5"), off); });
    const Timing b =
        best_of(repeat, [&] { return solve(d, 0.0, 10.0, y0, MethodChoice("radau5"), on); });
    std::printf("  %5d %12.5f %12.5f %8.2f  %s\n", n, a.seconds, b.seconds, b.seconds / a.seconds,
                b.r.linear_solver.c_str());
  }
  std::printf("rerun: build/bench/daekit_sparsity_detection threshold %d\n", repeat);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "circuit";
  if (mode == "circuit")
    return circuit(argc > 2 ? std::atoi(argv[2]) : 44, argc > 3 ? std::atoi(argv[3]) : 3);
  if (mode == "threshold") return threshold(argc > 2 ? std::atoi(argv[2]) : 5);
  std::fprintf(stderr,
               "usage: daekit_sparsity_detection circuit [STAGES] [REPEAT] | threshold [REPEAT]\n");
  return 2;
}
