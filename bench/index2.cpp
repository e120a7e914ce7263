// Index-2 methods of issue 12 (papers 001, 002): cost of spark and hem against radau5 and bdf
// at equal accuracy on the index-2 pendulum and Andrews' squeezer in index-2 form, and the data
// of the two plots (scripts/index2_plots.sh):
//
//   build/bench/daekit_index2                 work-precision tables and cost at equal accuracy
//   build/bench/daekit_index2 --fig51 FILE    y errors at t = 1 on (5.1) against h (Fig. 5.1)
//   build/bench/daekit_index2 --cycle FILE    numerical invariant curves near the limit cycle
//
// radau5 and bdf solve the built-in mass-matrix formulations (pendulum-index2; Andrews'
// formulate(sys, Formulation::Index2), y = (q, v, w, lambda)); spark and hem the ImplicitIndex2Dae
// forms (pendulum_index2_form(), andrews_index2_form(): y = (q, v), z = lambda, f_1 in IIIA,
// the constraint forces in IIIB). The error is measured on positions and velocities only, against
// pendulum_reference(10) (positions and velocities) and the IVP Test Set's y(0.03) of Andrews'
// squeezer (the 7 angles, as the test set's scd: its index-2 formulation's velocities stall at
// relative errors ~1e-7 for every method, radau5 included).
#include "daekit/problems/index2.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

struct Point {
  double tol = 0, err = 0, ms = 0;
  double fev = 0;  ///< f evaluations, with those of finite-difference Jacobians
  long steps = 0, jac = 0, lu = 0;
  bool ok = false;
};

struct Contender {
  std::string name;
  std::function<Result(double tol)> solve;
};

struct Benchmark {
  std::string problem;
  std::vector<Contender> contenders;
  std::function<double(const Result&)> error;
};

Point measure(const Contender& c, double tol, const Benchmark& b) {
  Point p;
  p.tol = tol;
  Result r;
  int repeats = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0.0;
  do {  // repeat short runs for a stable time
    r = c.solve(tol);
    ++repeats;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (r.ok() && elapsed < 0.2 && repeats < 50);
  p.ok = r.ok();
  if (!p.ok) {
    std::fprintf(stderr, "  %s tol %.0e: %s\n", c.name.c_str(), tol, r.message.c_str());
    return p;
  }
  p.ms = 1e3 * elapsed / repeats;
  p.err = b.error(r);
  p.steps = r.stats.nsteps;
  p.fev = static_cast<double>(r.stats.nfev + r.stats.nfev_jac);
  p.jac = r.stats.njac;
  p.lu = r.stats.nlu;
  return p;
}

// Cost at error `target` by log-log interpolation between the two runs that bracket it.
double cost_at(const std::vector<Point>& pts, double target, double Point::*cost) {
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const Point &a = pts[i], &b = pts[i + 1];
    if (!a.ok || !b.ok) continue;
    if ((a.err - target) * (b.err - target) > 0.0) continue;
    const double s = (std::log(target) - std::log(a.err)) / (std::log(b.err) - std::log(a.err));
    return std::exp(std::log(a.*cost) + s * (std::log(b.*cost) - std::log(a.*cost)));
  }
  return -1.0;
}

void run(const Benchmark& b, const std::vector<double>& tols) {
  std::printf("\n%s\nerror = max |y_i - y_ref,i| / (1 + |y_ref,i|)\n", b.problem.c_str());
  std::printf("%-10s %8s %10s %7s %8s %6s %6s %9s\n", "method", "rtol=atol", "error", "steps",
              "f evals", "jacs", "LUs", "ms");
  std::vector<std::vector<Point>> all;
  for (const Contender& c : b.contenders) {
    std::vector<Point> pts;
    for (double tol : tols) {
      pts.push_back(measure(c, tol, b));
      const Point& p = pts.back();
      if (p.ok)
        std::printf("%-10s %8.0e %10.2e %7ld %8.0f %6ld %6ld %9.3f\n", c.name.c_str(), tol, p.err,
                    p.steps, p.fev, p.jac, p.lu, p.ms);
      else
        std::printf("%-10s %8.0e   failed\n", c.name.c_str(), tol);
    }
    all.push_back(pts);
  }
  const double targets[] = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
  const char* what[] = {"f evaluations (with those of difference Jacobians)", "CPU ms per solve"};
  double Point::*measures[] = {&Point::fev, &Point::ms};
  for (int k = 0; k < 2; ++k) {
    std::printf(
        "cost at equal accuracy, %s (log-log interpolation between the two runs around "
        "the error; '-': not reached)\n%-10s",
        what[k], "error:");
    for (double t : targets) std::printf(" %9.0e", t);
    std::printf("\n");
    for (size_t c = 0; c < b.contenders.size(); ++c) {
      std::vector<Point> pts = all[c];
      std::sort(pts.begin(), pts.end(),
                [](const Point& x, const Point& y) { return x.err > y.err; });
      std::printf("%-10s", b.contenders[c].name.c_str());
      for (double t : targets) {
        const double v = cost_at(pts, t, measures[k]);
        if (v < 0)
          std::printf(" %9s", "-");
        else
          std::printf(k == 0 ? " %9.0f" : " %9.3f", v);
      }
      std::printf("\n");
    }
  }
}

double relative_error(const Vector& y, const Vector& ref) {
  return ((y - ref).array().abs() / (1.0 + ref.array().abs())).maxCoeff();
}

Benchmark pendulum_benchmark() {
  const double T = 10.0;
  Benchmark b;
  b.problem =
      "index-2 pendulum (paper 000 (4.1), velocity constraint), t in [0, 10] (error over "
      "positions and velocities)";
  const Vector ref = pendulum_reference(T);
  static const BuiltinProblem mass = pendulum_index2();
  static const ImplicitIndex2Dae form = pendulum_index2_form();
  Vector x0(5);
  x0 << 1, 0, 0, 0, 0;
  auto opts = [](double tol) {
    Options o;
    o.rtol = o.atol = tol;
    return o;
  };
  for (const char* m : {"radau5", "bdf"})
    b.contenders.push_back(
        {m, [m, T, opts](double tol) { return solve(mass.dae, 0.0, T, mass.y0, m, opts(tol)); }});
  for (int s : {3, 4}) {
    SparkOptions so;
    so.stages = s;
    b.contenders.push_back({"spark s=" + std::to_string(s), [so, T, x0, opts](double tol) {
                              return solve(form, 0.0, T, x0, so, opts(tol));
                            }});
  }
  b.contenders.push_back(
      {"hem4", [T, x0, opts](double tol) { return solve(form, 0.0, T, x0, "hem", opts(tol)); }});
  b.error = [ref](const Result& r) { return relative_error(r.y.head(4), ref.head(4)); };
  return b;
}

Benchmark andrews_benchmark() {
  static const BuiltinProblem p = andrews();
  const double T = p.reference->t;
  Benchmark b;
  b.problem =
      "Andrews' squeezer, index-2 formulation, t in [0, 0.03] (error over the 7 angles, as the "
      "test set's scd)";
  static const MechanicalSystem& sys = *p.mechanical;
  static const MassMatrixDae mass = formulate(sys, Formulation::Index2);
  static const Vector mass0 =
      initial_values(sys, Formulation::Index2, 0.0, p.y0.head(7), p.y0.segment(7, 7));
  static const ImplicitIndex2Dae form = andrews_index2_form();
  static const Vector x0 = andrews_index2_initial_values();
  const Vector ref = p.reference->y.head(7);
  auto opts = [](double tol) {
    Options o;
    o.rtol = o.atol = tol;
    return o;
  };
  for (const char* m : {"radau5", "bdf"})
    b.contenders.push_back(
        {m, [m, T, opts](double tol) { return solve(mass, 0.0, T, mass0, m, opts(tol)); }});
  for (int s : {3, 4}) {
    SparkOptions so;
    so.stages = s;
    b.contenders.push_back({"spark s=" + std::to_string(s), [so, T, opts](double tol) {
                              return solve(form, 0.0, T, x0, so, opts(tol));
                            }});
  }
  b.contenders.push_back(
      {"hem4", [T, opts](double tol) { return solve(form, 0.0, T, x0, "hem", opts(tol)); }});
  b.error = [ref](const Result& r) { return relative_error(r.y.head(7), ref); };
  return b;
}

// Fig. 5.1 of paper 002: global y error at t = 1 on (5.1) against constant h, s = 2, 3, 4.
void write_fig51(const char* path) {
  FILE* f = std::fopen(path, "w");
  if (!f) throw std::runtime_error(std::string("cannot write ") + path);
  std::fprintf(f, "# s h error_y error_z (paper 002 (5.1), constant steps, t = 1)\n");
  for (int s = 2; s <= 4; ++s) {
    for (int N = 8; N <= 256; N *= 2) {
      SparkOptions m;
      m.stages = s;
      m.newton_tolerance = 1e-3;
      m.max_newton_iterations = 40;
      Options o;
      o.fixed_step = true;
      o.h0 = 1.0 / N;
      o.rtol = o.atol = 1e-12;
      const Result r = solve(jay_index2(), 0.0, 1.0, jay_index2_exact(0.0), m, o);
      if (!r.ok()) continue;
      const Vector e = (r.y - jay_index2_exact(1.0)).cwiseAbs();
      std::fprintf(f, "%d %.10g %.6e %.6e\n", s, 1.0 / N, e.head(2).maxCoeff(), e[2]);
    }
    std::fprintf(f, "\n\n");
  }
  std::fclose(f);
}

// The numerical invariant curves near the limit cycle of sphere_limit_cycle(): u3 - 1/2 against
// the angle of (u1, u2), for t in [40, 60] (after the transient), per method and step size.
void write_cycle(const char* path) {
  FILE* f = std::fopen(path, "w");
  if (!f) throw std::runtime_error(std::string("cannot write ") + path);
  const MassMatrixDae dae = to_mass_matrix_form(sphere_limit_cycle(false));
  Vector x0(4);
  x0.head(3) = Eigen::Vector3d(1.0, 0.0, 0.5).normalized();
  x0[3] = sphere_limit_cycle_lambda(x0.head(3));
  RungeKuttaTableau theta;
  theta.name = "theta = 2/3";
  theta.A = Matrix::Constant(1, 1, 2.0 / 3.0);
  theta.b = Vector::Ones(1);
  theta.c = Vector::Constant(1, 2.0 / 3.0);
  theta.order = theta.stage_order = 1;
  struct Case {
    const char* label;
    MethodChoice choice;
    bool project;
  };
  ProjectedRkOptions prk;
  prk.tableau = theta;
  HemOptions bh3;
  bh3.tableau = "bh3";
  const Case cases[] = {{"projected theta-method", prk, true}, {"hem bh3", bh3, false}};
  for (const Case& c : cases)
    for (double h : {0.2, 0.1, 0.05}) {
      Options o;
      o.fixed_step = true;
      o.h0 = h;
      o.rtol = o.atol = 1e-12;
      o.store_steps = true;
      if (c.project) o.projection = Projection::Full;
      const Result r = solve(dae, 0.0, 60.0, x0, c.choice, o);
      if (!r.ok()) throw std::runtime_error(std::string(c.label) + ": " + r.message);
      std::fprintf(f, "# %s h = %g: angle u3-1/2 |g|\n", c.label, h);
      for (long n = 0; n < r.y_steps.size(); ++n) {
        if (r.t_steps[n] < 40.0) continue;
        const auto u = r.y_steps[n];
        std::fprintf(f, "%.8f %.6e %.3e\n", std::atan2(u[1], u[0]), u[2] - 0.5,
                     std::abs(0.5 * (u.head(3).squaredNorm() - 1.0)));
      }
      std::fprintf(f, "\n\n");
    }
  // a transient: from u3 = 0.9 onto the curve (hem bh3, h = 0.1), t in [0, 15]
  Vector x1(4);
  x1.head(3) = Eigen::Vector3d(0.3, 0.0, 0.9).normalized();
  x1[3] = sphere_limit_cycle_lambda(x1.head(3));
  Options o;
  o.fixed_step = true;
  o.h0 = 0.1;
  o.rtol = o.atol = 1e-12;
  o.store_steps = true;
  const Result r = solve(dae, 0.0, 15.0, x1, bh3, o);
  if (!r.ok()) throw std::runtime_error("transient: " + r.message);
  std::fprintf(f, "# transient hem bh3 h = 0.1: angle u3-1/2\n");
  for (long n = 0; n < r.y_steps.size(); ++n)
    std::fprintf(f, "%.8f %.6e\n", std::atan2(r.y_steps[n][1], r.y_steps[n][0]),
                 r.y_steps[n][2] - 0.5);
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "--fig51") == 0) {
      write_fig51(argv[2]);
      return 0;
    }
    if (argc == 3 && std::strcmp(argv[1], "--cycle") == 0) {
      write_cycle(argv[2]);
      return 0;
    }
    if (argc != 1) {
      std::fprintf(stderr, "usage: daekit_index2 [--fig51 FILE | --cycle FILE]\n");
      return 2;
    }
    std::printf(
        "daekit index-2 benchmark: spark and hem (ImplicitIndex2Dae forms) against radau5 "
        "and bdf (mass-matrix index-2 formulations)\nrerun: build/bench/daekit_index2\n");
    const std::vector<double> tols = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
    run(pendulum_benchmark(), tols);
    run(andrews_benchmark(), tols);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "daekit_index2: %s\n", e.what());
    return 1;
  }
  return 0;
}
