// What rtol means for radau5 and radau (issue 24): the accuracy they deliver at the user's
// tolerance, with the default tolerance handling (the local error per step against
// rtol |y| + atol, the meaning of scipy and IDA) and with RADAU5's transformation rtol' = 0.1
// rtol^(2/3), atol' = atol rtol'/rtol (Radau5Options / RadauOptions::transform_tolerances =
// true; Hairer-Wanner II, IV.8), at rtol = 1e-4, 1e-5, ..., 1e-10 on every built-in problem with
// a reference solution and on two ODEs of the IVP Test Set ported here (HIRES and POLLU; F.
// Mazzia, C. Magherini, F. Iavernaro, "Test Set for Initial Value Problem Solvers", release
// 2.3, Univ. of Bari, report 43/2006).
//
// Tolerances: atol_i = rtol (atol/rtol of the problem's recommendation) atol_scale_i, so that
// the ratio atol/rtol the problem needs is kept (Robertson: 1e-6; HIRES: 1e-4; POLLU: 1e-4); h0,
// the events, the non-negative components and the projection are the problem's (as
// `daekit solve` uses them). Measure: scd over the problem's scd_components; mescd
// (|err| / (atol_i/rtol + |ref_i|), the test set's mixed error) when one of them lies below its
// atol at the loosest rtol (1e-4), as in bench/sweep.cpp.
//
// The comparison with scipy's Radau is bench/tolerance_vs_scipy.py, which runs this program
// with --csv and solves the ODE problems (constant nonsingular diagonal M) with scipy.
//
//   build/bench/daekit_tolerance_meaning [--problem NAME] [--csv] [--index2]
// (--index2: radau5 and radau with the index-2 error test, index2_error_control, instead of the
// four variants above)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

constexpr int kLoosestExponent = 4, kTightestExponent = 10;
constexpr double kLoosest = 1e-4;

/// HIRES (IVP Test Set; E. Schaefer's model of the growth of a plant, light-induced: 8 species),
/// t in [0, 321.8122].
BuiltinProblem hires() {
  BuiltinProblem p;
  p.name = "hires";
  p.title = "HIRES, IVP Test Set, 8 species, t in [0, 321.8122]";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 8;
  d.f = [](double, VecIn y, VecOut f) {
    const double r = 280.0 * y[5] * y[7];
    f[0] = -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007;
    f[1] = 1.71 * y[0] - 8.75 * y[1];
    f[2] = -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4];
    f[3] = 8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3];
    f[4] = -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6];
    f[5] = -r + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6];
    f[6] = r - 1.81 * y[6];
    f[7] = -r + 1.81 * y[6];
  };
  p.t0 = 0.0;
  p.t_end = 321.8122;
  p.y0 = Vector::Zero(8);
  p.y0[0] = 1.0;
  p.y0[7] = 0.0057;
  p.rtol = 1e-6;
  p.atol = 1e-10;  // atol = 1e-4 rtol
  ReferenceSolution ref;
  ref.t = p.t_end;
  ref.y = Vector(8);
  ref.y << 0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
      0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2, 0.2849998395185769e-2,
      0.2850001604814231e-2;
  ref.source = "IVP Test Set, HIRES, y(321.8122)";
  p.reference = ref;
  return p;
}

/// POLLU (IVP Test Set; the air pollution model of the Dutch National Institute of Public Health,
/// Verwer 1994): 25 reactions among 20 species, t in [0, 60].
BuiltinProblem pollu() {
  BuiltinProblem p;
  p.name = "pollu";
  p.title = "POLLU, IVP Test Set, 20 species, 25 reactions, t in [0, 60]";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 20;
  d.f = [](double, VecIn y, VecOut f) {
    static constexpr double k[25] = {.35,    .266e2,  .123e5,  .86e-3, .82e-3,  .15e5,  .13e-3,
                                     .24e5,  .165e5,  .9e4,    .22e-1, .12e5,   .188e1, .163e5,
                                     .48e7,  .35e-3,  .175e-1, .1e9,   .444e12, .124e4, .21e1,
                                     .578e1, .474e-1, .178e4,  .312e1};
    double r[25];
    r[0] = k[0] * y[0];
    r[1] = k[1] * y[1] * y[3];
    r[2] = k[2] * y[4] * y[1];
    r[3] = k[3] * y[6];
    r[4] = k[4] * y[6];
    r[5] = k[5] * y[6] * y[5];
    r[6] = k[6] * y[8];
    r[7] = k[7] * y[8] * y[5];
    r[8] = k[8] * y[10] * y[1];
    r[9] = k[9] * y[10] * y[0];
    r[10] = k[10] * y[12];
    r[11] = k[11] * y[9] * y[1];
    r[12] = k[12] * y[13];
    r[13] = k[13] * y[0] * y[5];
    r[14] = k[14] * y[2];
    r[15] = k[15] * y[3];
    r[16] = k[16] * y[3];
    r[17] = k[17] * y[15];
    r[18] = k[18] * y[15];
    r[19] = k[19] * y[16] * y[5];
    r[20] = k[20] * y[18];
    r[21] = k[21] * y[18];
    r[22] = k[22] * y[0] * y[3];
    r[23] = k[23] * y[18] * y[0];
    r[24] = k[24] * y[19];
    f[0] =
        -r[0] - r[9] - r[13] - r[22] - r[23] + r[1] + r[2] + r[8] + r[10] + r[11] + r[21] + r[24];
    f[1] = -r[1] - r[2] - r[8] - r[11] + r[0] + r[20];
    f[2] = -r[14] + r[0] + r[16] + r[18] + r[21];
    f[3] = -r[1] - r[15] - r[16] - r[22] + r[14];
    f[4] = -r[2] + 2.0 * r[3] + r[5] + r[6] + r[12] + r[19];
    f[5] = -r[5] - r[7] - r[13] - r[19] + r[2] + 2.0 * r[17];
    f[6] = -r[3] - r[4] - r[5] + r[12];
    f[7] = r[3] + r[4] + r[5] + r[6];
    f[8] = -r[6] - r[7];
    f[9] = -r[11] + r[6] + r[8];
    f[10] = -r[8] - r[9] + r[7] + r[10];
    f[11] = r[8];
    f[12] = -r[10] + r[9];
    f[13] = -r[12] + r[11];
    f[14] = r[13];
    f[15] = -r[17] - r[18] + r[15];
    f[16] = -r[19];
    f[17] = r[19];
    f[18] = -r[20] - r[21] - r[23] + r[22] + r[24];
    f[19] = -r[24] + r[23];
  };
  p.t0 = 0.0;
  p.t_end = 60.0;
  p.y0 = Vector::Zero(20);
  p.y0[1] = 0.2;
  p.y0[3] = 0.04;
  p.y0[6] = 0.1;
  p.y0[7] = 0.3;
  p.y0[8] = 0.01;
  p.y0[16] = 0.007;
  p.rtol = 1e-6;
  p.atol = 1e-10;  // atol = 1e-4 rtol
  ReferenceSolution ref;
  ref.t = p.t_end;
  ref.y = Vector(20);
  ref.y << 0.5646255480022769e-1, 0.1342484130422339, 0.4139734331099427e-8, 0.5523140207484359e-2,
      0.2018977262302196e-6, 0.1464541863493966e-6, 0.7784249118997964e-1, 0.3245075353396018,
      0.7494013383880406e-2, 0.1622293157301561e-7, 0.1135863833257075e-7, 0.2230505975721359e-2,
      0.2087162882798630e-3, 0.1396921016840158e-4, 0.8964884856898295e-2, 0.4352846369330103e-17,
      0.6899219696263405e-2, 0.1007803037365946e-3, 0.1772146513969984e-5, 0.5682943292316392e-4;
  ref.source = "IVP Test Set, POLLU, y(60)";
  p.reference = ref;
  return p;
}

/// The problem as scipy can take it: a constant nonsingular diagonal mass matrix (y' = f / m).
bool scipy_ode(const BuiltinProblem& p) {
  if (p.quasi_linear || p.dae.second_order.m1 > 0 || p.dae.mass_sparse.nonZeros() > 0) return false;
  if (p.dae.mass.size() == 0) return true;
  const Matrix& M = p.dae.mass;
  for (int i = 0; i < M.rows(); ++i)
    for (int j = 0; j < M.cols(); ++j)
      if ((i == j) != (M(i, j) != 0.0)) return false;
  return true;
}

Vector atol_for(const BuiltinProblem& p, double rtol) {
  const double a = rtol * p.atol / p.rtol;
  return p.atol_scale.size() ? Vector(a * p.atol_scale) : Vector::Constant(p.dae.n, a);
}

struct Measure {
  std::vector<int> components;
  bool mixed = false;  ///< mescd instead of scd
};

Measure measure_for(const BuiltinProblem& p) {
  Measure m;
  m.components = p.scd_components;
  if (m.components.empty())
    for (int i = 0; i < p.dae.n; ++i) m.components.push_back(i);
  const Vector atol = atol_for(p, kLoosest);
  for (int i : m.components)
    if (std::abs(p.reference->y[i]) < atol[i]) m.mixed = true;
  return m;
}

double digits(const Vector& y, const BuiltinProblem& p, const Measure& m, double rtol) {
  const Vector atol = atol_for(p, rtol);
  double worst = 0.0;
  for (int i : m.components) {
    const double ref = p.reference->y[i], err = std::abs(y[i] - ref);
    const double e =
        m.mixed ? err / (atol[i] / rtol + std::abs(ref)) : (ref != 0.0 ? err / std::abs(ref) : err);
    if (!std::isfinite(e)) return -INFINITY;
    worst = std::max(worst, e);
  }
  return -std::log10(worst > 0.0 ? worst : 1e-16);
}

struct Variant {
  const char* label;
  MethodChoice choice;
};

std::vector<Variant> variants(bool index2) {
  if (index2) {  // --index2: the index-2 error test (index2_error_control) instead
    Radau5Options five;
    five.index2_error_control = Index2ErrorControl::Always;
    RadauOptions variable;
    variable.index2_error_control = Index2ErrorControl::Always;
    return {{"radau5-index2", MethodChoice(five)}, {"radau-index2", MethodChoice(variable)}};
  }
  Radau5Options transformed5;
  transformed5.transform_tolerances = true;
  RadauOptions transformed;
  transformed.transform_tolerances = true;
  return {{"radau5", MethodChoice("radau5")},
          {"radau5-transformed", MethodChoice(transformed5)},
          {"radau", MethodChoice("radau")},
          {"radau-transformed", MethodChoice(transformed)}};
}

std::string joined(const std::vector<double>& v) {
  std::string s;
  char buf[40];
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.17g", i ? ";" : "", v[i]);
    s += buf;
  }
  return s;
}

std::vector<double> as_list(const Vector& v) { return {v.data(), v.data() + v.size()}; }

/// The problem's description for the scipy script: everything it needs besides f.
void print_problem(const BuiltinProblem& p, const Measure& m) {
  std::vector<double> comps(m.components.begin(), m.components.end());
  Vector mass_diagonal = Vector::Ones(p.dae.n);
  if (p.dae.mass.size()) mass_diagonal = p.dae.mass.diagonal();
  std::printf("#problem,%s,%d,%s,%.17g,%.17g,%.17g,%s,%s,%s,%s,%s\n", p.name.c_str(),
              scipy_ode(p) ? 1 : 0, m.mixed ? "mescd" : "scd", p.atol / p.rtol, p.t0, p.t_end,
              joined(comps).c_str(), joined(as_list(p.reference->y)).c_str(),
              joined(as_list(p.y0)).c_str(),
              joined(as_list(p.atol_scale.size() ? p.atol_scale : Vector::Ones(p.dae.n))).c_str(),
              joined(as_list(mass_diagonal)).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  bool csv = false, index2 = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--problem") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--csv")) {
      csv = true;
    } else if (!std::strcmp(argv[i], "--index2")) {
      index2 = true;
    } else {
      std::fprintf(stderr, "usage: %s [--problem NAME] [--csv] [--index2]\n", argv[0]);
      return 2;
    }
  }
  std::vector<BuiltinProblem> problems;
  for (const std::string& name : builtin_problem_names())
    if (only.empty() || only == name) {
      BuiltinProblem p = make_builtin_problem(name);
      if (p.reference) problems.push_back(std::move(p));
    }
  if (only.empty() || only == "hires") problems.push_back(hires());
  if (only.empty() || only == "pollu") problems.push_back(pollu());
  if (problems.empty()) {
    std::fprintf(stderr, "no problem '%s' with a reference\n", only.c_str());
    return 2;
  }
  if (csv)
    std::printf(
        "#columns,problem,variant,rtol,status,measure,digits,naccept,nsteps,nfev,nfev_jac,njac,"
        "nlu\n");
  else
    std::printf("%-22s %-19s %7s %-8s %7s %7s %8s\n", "problem", "variant", "rtol", "status",
                "digits", "steps", "f evals");
  for (const BuiltinProblem& p : problems) {
    const Measure m = measure_for(p);
    if (csv) print_problem(p, m);
    for (const Variant& v : variants(index2))
      for (int k = kLoosestExponent; k <= kTightestExponent; ++k) {
        const double rtol = std::pow(10.0, -k);  // exactly 1e-4, ..., 1e-10
        Options o;
        o.rtol = rtol;
        o.atol_vector = atol_for(p, rtol);
        o.atol = o.atol_vector.maxCoeff();
        o.h0 = p.h0;
        add_model_options(p, o);
        o.nonnegative = p.nonnegative;
        o.projection = recommended_projection(p, method_info(v.choice.name()));
        Result r;
        std::string status;
        try {
          r = solve(p.dae, p.t0, p.t_end, p.y0, v.choice, o);
          status = to_string(r.status);
        } catch (const std::exception& e) {
          status = "exception";
        }
        const bool solved = r.ok() && r.t == p.reference->t;
        const double d = solved ? digits(r.y, p, m, rtol) : NAN;
        const Stats& s = r.stats;
        if (csv)
          std::printf("%s,%s,%.0e,%s,%s,%.3f,%ld,%ld,%ld,%ld,%ld,%ld\n", p.name.c_str(), v.label,
                      rtol, status.c_str(), m.mixed ? "mescd" : "scd", d, s.naccept, s.nsteps,
                      s.nfev, s.nfev_jac, s.njac, s.nlu);
        else
          std::printf("%-22s %-19s %7.0e %-8.8s %7.2f %7ld %8ld\n", p.name.c_str(), v.label, rtol,
                      status.c_str(), d, s.naccept, s.nfev + s.nfev_jac);
        std::fflush(stdout);
      }
  }
  return 0;
}
