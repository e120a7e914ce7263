// Convergence study of the beta-blocked multistep methods (paper 003, Section 5 and Figs. 3.1,
// 4.1, 4.2, 5.1; NOTES-004.md ch. 5 section 5.5): errors against constant step sizes
// 2^-7 ... 2^-15 for every scheme, positions (differential variables) and multipliers apart,
// with fitted orders, on
//   el-manufactured   exact solution, t in [0, 3]: max error over all steps (absolute);
//   pendulum-el       reference: RK4 on the angle ODE, t in [0, 2]: max over t = i/8;
//   truck-el          the Eich-Soellner/Fuhrer truck as published (steady state, road hump),
//                     t in [0, 3], and "truck-drop": the same truck released with a downward
//                     velocity of 0.5 m/s (our scenario, t in [0, 2]); errors relative to the
//                     largest reference value, mean over t = i/16 (paper 003: "the mean value
//                     of the errors ... L1 norm"); reference: beta-DCBDF6 at h = 2^-13,
//                     checked against radau5 at rtol = atol = 1e-13;
//   andrews-el        IVP Test Set reference at t = 0.03, h = 0.03 2^-j (j = 9 ... 15);
// plus the stability regions (boundary loci) of DCBDF2..6, BDF and AM, the largest root of
// sigma - c nabla^k against c for AM1..4 (Fig. 4.1), and a tolerance sweep with variable steps.
// Writes data files for scripts/plot_multistep.gp into the directory given (default
// bench-multistep) and prints the tables in markdown (docs/multistep.md).
//   daekit_beta_multistep [outdir] [--quick]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

struct Scheme {
  std::string id;  // short name for files and tables
  BetaMultistepOptions options;
};

std::vector<Scheme> all_schemes() {
  std::vector<Scheme> s;
  for (int k = 1; k <= 6; ++k)
    s.push_back({"beta-DCBDF" + std::to_string(k), BetaMultistepOptions::dcbdf_beta(k)});
  for (int k = 2; k <= 3; ++k)
    s.push_back({"beta-AM" + std::to_string(k), BetaMultistepOptions::am_beta(k)});
  for (int k = 1; k <= 5; ++k)
    s.push_back({"BDF" + std::to_string(k), BetaMultistepOptions::bdf(k)});
  for (int k = 2; k <= 4; ++k)
    s.push_back({"DCBDF" + std::to_string(k) + "/BDF" + std::to_string(k) + "_(3.2)",
                 BetaMultistepOptions::compound(k)});
  s.push_back(
      {"AM3_commuted_(2.6)", BetaMultistepOptions::commuted(MultistepFamily::AdamsMoulton, 3)});
  s.push_back({"DCBDF2_standard_(1.2)", BetaMultistepOptions::standard(MultistepFamily::DCBDF, 2)});
  s.push_back(
      {"AM2_standard_(1.2)", BetaMultistepOptions::standard(MultistepFamily::AdamsMoulton, 2)});
  return s;
}

struct Study {
  std::string name;  // file stem
  BuiltinProblem p;
  double T = 0;
  std::vector<double> h;
  std::vector<double> samples;  // empty: every step against p.exact
  std::vector<Vector> reference;
  bool relative = false;  // errors relative to the largest reference value
  bool mean = false;      // mean over the samples (else max)
  int nq = 0;             // "position variables": the first nq components
  std::string measure;
};

struct Run {
  bool ok = false;
  double ex = NAN, el = NAN, seconds = 0;
  long nfev = 0, steps = 0;
  std::string status;
};

Run run(const Study& s, const BetaMultistepOptions& o, double h) {
  Options op;
  op.fixed_step = true;
  op.h0 = h;
  op.rtol = op.atol = 1e-13;
  op.store_steps = s.samples.empty();
  op.output_times = s.samples;
  op.max_steps = 100000000;
  const auto c0 = std::chrono::steady_clock::now();
  const Result r = solve(s.p.dae, s.p.t0, s.T, s.p.y0, o, op);
  Run out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
  out.status = to_string(r.status);
  out.nfev = r.stats.nfev;
  out.steps = r.stats.naccept;
  if (!r.ok()) return out;
  const int nx = s.p.euler_lagrange->nx, m = s.p.euler_lagrange->nlambda;
  double sx = 0, sl = 0, scale_x = 1, scale_l = 1;
  if (s.relative && !s.reference.empty()) {
    scale_x = scale_l = 0;
    for (const Vector& v : s.reference) {
      scale_x = std::max(scale_x, v.head(s.nq).cwiseAbs().maxCoeff());
      scale_l = std::max(scale_l, v.tail(m).cwiseAbs().maxCoeff());
    }
  }
  std::vector<std::pair<Vector, Vector>> pairs;  // (computed, reference)
  if (s.samples.empty()) {
    for (size_t i = 0; i < r.t_steps.size(); ++i)
      pairs.push_back({r.y_steps[i], s.p.exact(r.t_steps[i])});
  } else {
    if (r.y_out.size() != static_cast<long>(s.reference.size())) return out;
    for (size_t i = 0; i < r.t_out.size(); ++i) pairs.push_back({r.y_out[i], s.reference[i]});
  }
  double mx = 0, ml = 0;
  for (const auto& [y, ref] : pairs) {
    const Vector d = y - ref;
    const double ex = d.head(s.nq).cwiseAbs().maxCoeff() / scale_x;
    const double el = d.tail(m).cwiseAbs().maxCoeff() / scale_l;
    (void)nx;
    sx += ex;
    sl += el;
    mx = std::max(mx, ex);
    ml = std::max(ml, el);
  }
  out.ok = std::isfinite(mx) && std::isfinite(ml) && !pairs.empty();
  out.ex = s.mean ? sx / pairs.size() : mx;
  out.el = s.mean ? sl / pairs.size() : ml;
  if (!out.ok) out.status = "non_finite";
  return out;
}

// Least-squares slope of log2 e against log2 h over the asymptotic range: among the runs of
// consecutive step sizes with finite errors above the floor (reference accuracy or round-off),
// the longest window whose local rates (per halving) agree within a factor 1.35, the finest
// one on ties (pre-asymptotic coarse steps and the onset of the floor are left out). NaN with
// fewer than 2 points.
double fitted_order(const std::vector<double>& h, const std::vector<double>& e, double floor,
                    int* used = nullptr) {
  const int n = static_cast<int>(h.size());
  auto valid = [&](int i) { return std::isfinite(e[i]) && e[i] > floor; };
  auto rate = [&](int i) { return std::log2(e[i] / e[i + 1]) / std::log2(h[i] / h[i + 1]); };
  int best_lo = -1, best_hi = -1;
  for (int lo = 0; lo < n; ++lo) {
    if (!valid(lo)) continue;
    double rmin = INFINITY, rmax = -INFINITY;
    int hi = lo;
    while (hi + 1 < n && valid(hi + 1)) {
      const double r = rate(hi);
      if (!(r > 0.5)) break;  // a plateau (the floor) is no convergence
      const double nmin = std::min(rmin, r), nmax = std::max(rmax, r);
      if (nmax > 1.35 * nmin) break;
      rmin = nmin;
      rmax = nmax;
      ++hi;
    }
    if (hi - lo >= best_hi - best_lo && hi > lo) {
      best_lo = lo;
      best_hi = hi;
    }
  }
  if (used) *used = best_lo < 0 ? 0 : best_hi - best_lo + 1;
  if (best_lo < 0) return NAN;
  double mx = 0, my = 0;
  const int m = best_hi - best_lo + 1;
  for (int i = best_lo; i <= best_hi; ++i) mx += std::log2(h[i]), my += std::log2(e[i]);
  mx /= m;
  my /= m;
  double sxy = 0, sxx = 0;
  for (int i = best_lo; i <= best_hi; ++i) {
    const double x = std::log2(h[i]) - mx, y = std::log2(e[i]) - my;
    sxy += x * y;
    sxx += x * x;
  }
  return sxy / sxx;
}

std::string fmt_e(double e) {
  if (!std::isfinite(e)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.1e", e);
  return b;
}

void convergence(const Study& s, const std::vector<Scheme>& schemes, const std::string& dir,
                 double floor_x, double floor_l) {
  FILE* dat = std::fopen((dir + "/" + s.name + ".dat").c_str(), "w");
  FILE* names = std::fopen((dir + "/" + s.name + ".names").c_str(), "w");
  FILE* orders = std::fopen((dir + "/orders.txt").c_str(), "a");
  std::printf("\n### %s (%s)\n\n", s.name.c_str(), s.measure.c_str());
  std::printf("| scheme | h = | ");
  for (double h : s.h) std::printf("%.3g | ", h);
  std::printf("order x | order lambda |\n|---|---|");
  for (size_t i = 0; i < s.h.size() + 2; ++i) std::printf("---|");
  std::printf("\n");
  for (const Scheme& sc : schemes) {
    std::vector<double> ex, el;
    std::vector<Run> runs;
    std::fprintf(dat, "# %s\n", sc.id.c_str());
    for (double h : s.h) {
      const Run r = run(s, sc.options, h);
      runs.push_back(r);
      ex.push_back(r.ok ? r.ex : NAN);
      el.push_back(r.ok ? r.el : NAN);
      if (r.ok)
        std::fprintf(dat, "%.10e %.6e %.6e %ld %ld %.4f\n", h, r.ex, r.el, r.steps, r.nfev,
                     r.seconds);
      std::fprintf(stderr, "[%s] %-22s h = %.3e: %s x %.2e lambda %.2e (%.2fs)\n", s.name.c_str(),
                   sc.id.c_str(), h, r.status.c_str(), r.ex, r.el, r.seconds);
    }
    std::fprintf(dat, "\n\n");
    std::fprintf(names, "%s\n", sc.id.c_str());
    int nx_used = 0, nl_used = 0;
    const double ox = fitted_order(s.h, ex, floor_x, &nx_used);
    const double ol = fitted_order(s.h, el, floor_l, &nl_used);
    std::printf("| %s | x | ", sc.id.c_str());
    for (size_t i = 0; i < s.h.size(); ++i) std::printf("%s | ", fmt_e(ex[i]).c_str());
    auto order = [](double o, int used) {
      if (!std::isfinite(o)) return std::string("-");
      char b[32];
      std::snprintf(b, sizeof b, "%.2f (%d)", o, used);
      return std::string(b);
    };
    std::printf("%s | %s |\n", order(ox, nx_used).c_str(), order(ol, nl_used).c_str());
    std::fprintf(orders, "%s %s %.4f %d %.4f %d\n", s.name.c_str(), sc.id.c_str(), ox, nx_used, ol,
                 nl_used);
    std::printf("| | lambda | ");
    for (size_t i = 0; i < s.h.size(); ++i)
      std::printf("%s | ", runs[i].ok ? fmt_e(el[i]).c_str() : runs[i].status.c_str());
    std::printf(" | |\n");
    std::fflush(stdout);
  }
  std::fclose(dat);
  std::fclose(names);
  std::fclose(orders);
}

std::vector<double> powers(int j0, int j1, double scale = 1.0) {
  std::vector<double> h;
  for (int j = j0; j <= j1; ++j) h.push_back(scale * std::ldexp(1.0, -j));
  return h;
}

// Reference values at the sample times from beta-DCBDF6 at a fine step; its agreement with
// radau5 (rtol = atol = 1e-13) is printed.
std::vector<Vector> reference(const BuiltinProblem& p, double T, const std::vector<double>& ts,
                              double h) {
  Options op;
  op.fixed_step = true;
  op.h0 = h;
  op.rtol = op.atol = 1e-13;
  op.store_steps = false;
  op.output_times = ts;
  op.max_steps = 100000000;
  const Result r = solve(p.dae, p.t0, T, p.y0, BetaMultistepOptions::dcbdf_beta(6), op);
  if (!r.ok() || r.y_out.size() != static_cast<long>(ts.size())) {
    std::fprintf(stderr, "reference for %s failed: %s\n", p.name.c_str(), r.message.c_str());
    std::exit(1);
  }
  Options ro;
  ro.rtol = ro.atol = 1e-13;
  ro.store_steps = false;
  ro.output_times = ts;
  const Result q = solve(p.dae, p.t0, T, p.y0, "radau5", ro);
  double dx = 0, dl = 0;
  const int nx = p.euler_lagrange->nx;
  for (size_t i = 0; i < ts.size(); ++i) {
    dx = std::max(dx, (r.y_out[i] - q.y_out[i]).head(nx).cwiseAbs().maxCoeff());
    dl = std::max(dl, (r.y_out[i] - q.y_out[i]).tail(p.dae.n - nx).cwiseAbs().maxCoeff());
  }
  std::printf(
      "\nreference for %s: beta-DCBDF6, h = %.3g (%s); max difference to radau5 "
      "(rtol = atol = 1e-13, %s) over the samples: x %.1e, lambda %.1e\n",
      p.name.c_str(), h, to_string(r.status), to_string(q.status), dx, dl);
  std::vector<Vector> out;
  for (long i = 0; i < r.y_out.size(); ++i) out.push_back(r.y_out[i]);
  return out;
}

void stability_data(const std::string& dir) {
  FILE* f = std::fopen((dir + "/stability.dat").c_str(), "w");
  FILE* n = std::fopen((dir + "/stability.names").c_str(), "w");
  auto locus = [&](const LinearMultistepFormula& F) {
    std::fprintf(f, "# %s\n", F.name.c_str());
    for (const auto& z : boundary_locus(F, 721)) std::fprintf(f, "%.8e %.8e\n", z.real(), z.imag());
    std::fprintf(f, "\n\n");
    std::fprintf(n, "%s\n", F.name.c_str());
  };
  for (int k = 2; k <= 6; ++k) locus(dcbdf_formula(k));
  for (int k = 2; k <= 3; ++k) locus(adams_moulton_formula(k));
  std::fclose(f);
  std::fclose(n);
  // Fig. 4.1: largest root of sigma - c nabla^k against c, AM1..4
  FILE* g = std::fopen((dir + "/am_blocking.dat").c_str(), "w");
  std::printf(
      "\n### Blocking constants of Adams-Moulton (Fig. 4.1)\n\n| k | best c | largest "
      "root at best c | paper's c | largest root at paper's c |\n|---|---|---|---|---|\n");
  const double paper_c[] = {-0.5, -0.15, -0.1, NAN};
  for (int k = 1; k <= 4; ++k) {
    const Vector sigma = adams_moulton_formula(k).sigma;
    std::fprintf(g, "# AM%d\n", k);
    for (double c = -1.0; c <= 0.2 + 1e-12; c += 0.001)
      std::fprintf(g, "%.4f %.6e\n", c, max_root_modulus(blocked_sigma(sigma, c, k)));
    std::fprintf(g, "\n\n");
    const BlockingConstant b = best_blocking_constant(sigma, k, -10, 10);
    std::printf(
        "| %d | %.5f | %.5f | %s | %s |\n", k, b.c, b.max_modulus,
        std::isnan(paper_c[k - 1]) ? "-" : std::to_string(paper_c[k - 1]).substr(0, 5).c_str(),
        std::isnan(paper_c[k - 1])
            ? "-"
            : std::to_string(max_root_modulus(blocked_sigma(sigma, paper_c[k - 1], k)))
                  .substr(0, 6)
                  .c_str());
  }
  std::fclose(g);
}

void tolerance_sweep(const std::vector<std::pair<std::string, BuiltinProblem>>& problems) {
  std::printf("\n### Variable steps (tolerance sweep, rtol = atol = tol; error at t_end)\n\n");
  std::printf("| problem | method | tol | error x | steps (rejected) | nfev | ms |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const auto& [name, p] : problems) {
    Options ro;
    ro.rtol = ro.atol = 1e-13;
    ro.store_steps = false;
    const Result ref = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", ro);
    const int nx = p.euler_lagrange->nx;
    struct M {
      std::string id;
      MethodChoice choice;
    };
    const M methods[] = {{"beta-DCBDF3", BetaMultistepOptions::dcbdf_beta(3)},
                         {"beta-AM3", BetaMultistepOptions::am_beta(3)},
                         {"beta-DCBDF5", BetaMultistepOptions::dcbdf_beta(5)},
                         {"BDF3 (fixed order)", BetaMultistepOptions::bdf(3)},
                         {"radau5", "radau5"},
                         {"bdf (DASSL-type)", "bdf"}};
    for (const M& m : methods)
      for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
        Options o;
        o.rtol = o.atol = tol;
        o.store_steps = false;
        const auto c0 = std::chrono::steady_clock::now();
        const Result r = solve(p.dae, p.t0, p.t_end, p.y0, m.choice, o);
        const double ms =
            1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
        const double e = r.ok() ? (r.y.head(nx) - ref.y.head(nx)).cwiseAbs().maxCoeff() : NAN;
        std::printf("| %s | %s | %.0e | %s | %ld (%ld) | %ld | %.1f |\n", name.c_str(),
                    m.id.c_str(), tol, r.ok() ? fmt_e(e).c_str() : to_string(r.status),
                    r.stats.naccept, r.stats.nreject, r.stats.nfev, ms);
      }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "bench-multistep";
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else
      dir = a;
  }
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir + "/orders.txt");
  const int jmax = quick ? 11 : 15;
  const std::vector<Scheme> schemes = all_schemes();
  std::printf("## Convergence tables (generated by daekit_beta_multistep)\n");
  std::printf(
      "\nx: the differential variables (positions for the mechanical problems, as in "
      "paper 003's figures); fitted order: least squares over the step sizes with errors "
      "above the reference/round-off floor; '-': the run failed (blow-up).\n");

  {
    Study s;
    s.name = "manufactured";
    s.p = euler_lagrange_manufactured();
    s.T = 3.0;
    s.h = powers(3, jmax - 4);
    s.nq = 2;
    s.measure = "max over all steps of the absolute error against the exact solution";
    convergence(s, schemes, dir, 1e-11, 1e-9);
  }
  {
    Study s;
    s.name = "pendulum";
    s.p = pendulum_euler_lagrange();
    s.T = 2.0;
    s.h = powers(3, jmax - 4);
    for (int i = 1; i <= 16; ++i) s.samples.push_back(i / 8.0);  // step points for h <= 1/8
    for (double t : s.samples) s.reference.push_back(pendulum_reference(t));
    s.nq = 2;
    s.measure = "max over t = i/8 of the absolute error against RK4 on the angle ODE; x = u";
    convergence(s, schemes, dir, 1e-11, 1e-9);
  }
  for (int scenario = 0; scenario < 2; ++scenario) {
    Study s;
    s.p = truck_euler_lagrange();
    s.name = scenario == 0 ? "truck" : "truck-drop";
    s.T = scenario == 0 ? 3.0 : 2.0;
    if (scenario == 1) {
      for (int i : {9, 10, 12, 13, 16}) s.p.y0[i] = -0.5;
      s.p.y0.tail(2) = consistent_multipliers(*s.p.euler_lagrange, 0.0, s.p.y0.head(18));
    }
    s.h = powers(7, jmax);
    for (int i = 1; i <= static_cast<int>(16 * s.T); ++i) s.samples.push_back(i / 16.0);
    s.reference = reference(s.p, s.T, s.samples, std::ldexp(1.0, quick ? -12 : -13));
    s.relative = true;
    s.mean = true;
    s.nq = 9;
    s.measure =
        "mean over t = i/16 of the max error of the 9 positions (and of the 2 multipliers), "
        "relative to their largest reference value";
    convergence(s, schemes, dir, 1e-13, 1e-11);
  }
  {
    Study s;
    s.name = "andrews";
    s.p = andrews_euler_lagrange();
    s.T = 0.03;
    s.h = powers(9, quick ? 12 : 15, 0.03);
    s.samples = {0.03};
    s.reference = {s.p.reference->y};
    s.relative = true;
    s.nq = 7;
    s.measure =
        "error of the 7 angles (and 6 multipliers) at t = 0.03 relative to the IVP Test "
        "Set's values";
    std::vector<Scheme> few;
    for (const Scheme& sc : schemes)
      if (sc.id.find("standard") == std::string::npos) few.push_back(sc);
    convergence(s, few, dir, 3e-10, 3e-8);
  }
  stability_data(dir);
  {
    BuiltinProblem drop = truck_euler_lagrange();
    drop.name = "truck-drop";
    drop.t_end = 2.0;
    for (int i : {9, 10, 12, 13, 16}) drop.y0[i] = -0.5;
    drop.y0.tail(2) = consistent_multipliers(*drop.euler_lagrange, 0.0, drop.y0.head(18));
    tolerance_sweep({{"pendulum-el", pendulum_euler_lagrange()}, {"truck-drop", drop}});
  }
  return 0;
}
