// The Jacobian structure of a solve (integrator/structure.hpp).
#include "integrator/structure.hpp"

#include <string>

#include "linalg/linear_solver.hpp"
#include "nonlinear/structure_detection.hpp"

namespace daekit {

namespace {

// Why no structure is detected (empty: detect), for a problem that declares none.
std::string reason_not_to_detect(int n, const Options& opt, const MethodCapabilities& caps) {
  if (!opt.detect_sparsity) return "detect_sparsity off";
  if (n < opt.detect_sparsity_min_n)
    return "n = " + std::to_string(n) +
           " < detect_sparsity_min_n = " + std::to_string(opt.detect_sparsity_min_n);
  if (opt.linear_solver == LinearSolverKind::Dense) return "linear_solver dense";
  if (!caps.linear_solvers.contains(LinearSolverKind::Sparse) ||
      !caps.linear_solvers.contains(LinearSolverKind::Banded))
    return "the method factors dense matrices only";
  return {};
}

// The non-zeros of a mass matrix (dense or sparse storage; identity when none is given).
void add_mass(const MassMatrixDae& d, StructureDetector& s) {
  if (d.mass_sparse.size() != 0) {
    s.add_nonzeros(d.mass_sparse);
    return;
  }
  if (d.mass.size() != 0) s.add_nonzeros(d.mass);
}

// The structure to declare for the pattern P (of df/dy, or of dF/dy and dF/dy') whose
// iteration matrices have the pattern `iteration`, and the backend the methods get.
void declare(const SparseMatrix& P, const SparseMatrix& iteration, const Options& opt,
             Sparsity& declared, StructureChoice& choice) {
  const int n = static_cast<int>(P.rows());
  const LinearSolverKind backend = opt.linear_solver == LinearSolverKind::Automatic
                                       ? backend_for_pattern(n, iteration)
                                       : opt.linear_solver;
  int lower = 0, upper = 0;
  pattern_bandwidths(iteration, lower, upper);
  choice.linear_solver = backend;
  declared =
      backend == LinearSolverKind::Banded ? Sparsity::banded(lower, upper) : Sparsity::sparse(P);
  choice.detected = true;
  choice.description = "detected at t0: " + std::to_string(P.nonZeros()) +
                       " non-zeros, bandwidths (" + std::to_string(lower) + ", " +
                       std::to_string(upper) + ") with the mass matrix and diagonal; used as " +
                       declared.describe(n);
}

// More than half the entries of the iteration matrix found at y0: the dense LU and dense
// differences stay (confirming would cost two evaluations per column for nothing).
bool mostly_dense(const StructureDetector& J, const MassMatrixDae* d, int n) {
  StructureDetector iteration = J;
  if (d) add_mass(*d, iteration);
  iteration.add_diagonal();
  return static_cast<double>(iteration.pattern().nonZeros()) > 0.5 * static_cast<double>(n) * n;
}

std::string kept_dense(const StructureDetector& J) {
  return "dense (detected at t0: " + std::to_string(J.pattern().nonZeros()) +
         " non-zeros, more than half the entries with the mass matrix and diagonal)";
}

std::string abandoned(CallGuard& guard) {
  const std::string what = guard.failure().describe();
  guard.clear();
  return "dense (detection abandoned: " + what + ")";
}

StructureChoice choose_mass(const MassMatrixDae& d, const Vector& y0, double t0, const Options& opt,
                            CallGuard& guard, Stats& stats) {
  StructureChoice choice;
  choice.linear_solver = opt.linear_solver;
  const int n = d.n;
  StructureDetector J(n, n);
  const VecIn p(d.p);
  if (d.jacobian) {  // the analytic Jacobian's non-zeros at both points
    Matrix A(n, n);
    for (const Vector& y : {y0, second_point(y0)}) {
      A.setZero();
      ++stats.njac;
      if (!guard("the Jacobian", t0, [&] { d.jacobian(t0, y, A, p); }) || A.rows() != n ||
          A.cols() != n || !A.allFinite()) {
        if (guard.failure().kind == CallbackFailure::Kind::None)
          return {std::nullopt, std::nullopt, opt.linear_solver, false,
                  "dense (detection abandoned: the Jacobian at a point near y0 was not a "
                  "finite n x n matrix)"};
        choice.description = abandoned(guard);
        return choice;
      }
      J.add_nonzeros(A);
    }
  } else {
    auto f = [&](const Vector& y, Vector& out) {
      return guard("f", t0, [&] { d.f(t0, y, out, p); }) && guard.check_finite("f", t0, out);
    };
    Vector f0(n), f1(n);
    const Vector y1 = second_point(y0);
    stats.nfev_structure += 2;
    bool ok = f(y0, f0) && J.scan(f, y0, f0);
    const bool dense = ok && mostly_dense(J, &d, n);
    ok = ok && (dense || (f(y1, f1) && J.confirm(f, y1, f1)));
    stats.nfev_structure += J.evaluations() - (dense ? 1 : 0);
    if (!ok) {
      choice.description = abandoned(guard);
      return choice;
    }
    if (dense) {
      choice.description = kept_dense(J);
      return choice;
    }
  }
  const SparseMatrix P = J.pattern();
  StructureDetector iteration = J;
  add_mass(d, iteration);
  iteration.add_diagonal();
  choice.mass = d;
  declare(P, iteration.pattern(), opt, choice.mass->jacobian_sparsity, choice);
  if (choice.linear_solver == LinearSolverKind::Dense && d.jacobian) {
    choice.mass.reset();  // an analytic dense Jacobian into a dense LU: nothing to gain
    choice.description += " (dense LU: the problem kept as given)";
  }
  return choice;
}

StructureChoice choose_implicit(const ImplicitDae& d, const Vector& y0, const Vector& yp0,
                                double t0, const Options& opt, CallGuard& guard, Stats& stats) {
  StructureChoice choice;
  choice.linear_solver = opt.linear_solver;
  const int n = d.n;
  StructureDetector J(n, n);  // dF/dy and dF/dy' together
  const VecIn p(d.p);
  const Vector y1 = second_point(y0), yp1 = second_point(yp0);
  if (d.dF_dy) {
    Matrix A(n, n);
    for (int k = 0; k < 4; ++k) {
      const Vector& y = k < 2 ? y0 : y1;
      const Vector& yp = k < 2 ? yp0 : yp1;
      A.setZero();
      if (k % 2 == 0) ++stats.njac;
      const char* name = k % 2 == 0 ? "dF/dy" : "dF/dy'";
      const bool ran = guard(name, t0, [&] {
        if (k % 2 == 0)
          d.dF_dy(t0, y, yp, A, p);
        else
          d.dF_dyp(t0, y, yp, A, p);
      });
      if (!ran || A.rows() != n || A.cols() != n || !A.allFinite()) {
        if (guard.failure().kind == CallbackFailure::Kind::None)
          return {std::nullopt, std::nullopt, opt.linear_solver, false,
                  "dense (detection abandoned: dF/dy or dF/dy' at a point near (y0, yp0) was "
                  "not a finite n x n matrix)"};
        choice.description = abandoned(guard);
        return choice;
      }
      J.add_nonzeros(A);
    }
  } else {
    bool ok = true;
    for (int k = 0; k < 2 && ok; ++k) {
      const Vector& y = k == 0 ? y0 : y1;
      const Vector& yp = k == 0 ? yp0 : yp1;
      auto F = [&](const Vector& yy, const Vector& yyp, Vector& out) {
        return guard("F", t0, [&] { d.F(t0, yy, yyp, out, p); }) &&
               guard.check_finite("F", t0, out);
      };
      auto in_y = [&](const Vector& x, Vector& out) { return F(x, yp, out); };
      auto in_yp = [&](const Vector& x, Vector& out) { return F(y, x, out); };
      Vector F0(n);
      ++stats.nfev_structure;
      ok = F(y, yp, F0) && (k == 0 ? J.scan(in_y, y, F0) && J.scan(in_yp, yp, F0)
                                   : J.confirm(in_y, y, F0) && J.confirm(in_yp, yp, F0));
      if (ok && k == 0 && mostly_dense(J, nullptr, n)) {
        stats.nfev_structure += J.evaluations();
        choice.description = kept_dense(J);
        return choice;
      }
    }
    stats.nfev_structure += J.evaluations();
    if (!ok) {
      choice.description = abandoned(guard);
      return choice;
    }
  }
  StructureDetector iteration = J;
  iteration.add_diagonal();
  choice.implicit = d;
  declare(J.pattern(), iteration.pattern(), opt, choice.implicit->jacobian_sparsity, choice);
  if (choice.linear_solver == LinearSolverKind::Dense && d.dF_dy) {
    choice.implicit.reset();
    choice.description += " (dense LU: the problem kept as given)";
  }
  return choice;
}

}  // namespace

StructureChoice choose_structure(const MethodInput& in, const Vector& y0, const Options& opt,
                                 const MethodCapabilities& caps, CallGuard& guard, Stats& stats) {
  StructureChoice none;
  none.linear_solver = opt.linear_solver;
  const int n = static_cast<int>(y0.size());
  const Sparsity* declared = in.mass_form       ? &in.mass_form->jacobian_sparsity
                             : in.implicit_form ? &in.implicit_form->jacobian_sparsity
                                                : nullptr;
  if (!declared) return none;  // the index-2 forms: their own structure
  if (!declared->is_dense()) {
    none.description = "declared " + declared->describe(n);
    return none;
  }
  if (const std::string why = reason_not_to_detect(n, opt, caps); !why.empty()) {
    none.description = "dense (declared none; not detected: " + why + ")";
    return none;
  }
  if (in.mass_form) return choose_mass(*in.mass_form, y0, in.t0, opt, guard, stats);
  return choose_implicit(*in.implicit_form, y0, *in.yp0, in.t0, opt, guard, stats);
}

}  // namespace daekit
