// Options::linear_solver against MethodCapabilities::linear_solvers: every registered method
// either solves with the backend asked for (Result::linear_solver names it) or refuses the
// choice with InvalidArgument before integrating, as its capabilities declare; never runs
// another backend in silence.
#include <gtest/gtest.h>

#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {

const LinearSolverKind kEveryLinearSolver[] = {LinearSolverKind::Automatic, LinearSolverKind::Dense,
                                               LinearSolverKind::Banded, LinearSolverKind::Sparse,
                                               LinearSolverKind::Iterative};

// How Result::linear_solver begins for each backend (the backends' names, linalg/).
std::string backend_report_prefix(LinearSolverKind kind) {
  switch (kind) {
    case LinearSolverKind::Dense:
      return "dense LU";
    case LinearSolverKind::Banded:
      return "banded LU";
    case LinearSolverKind::Sparse:
      return "KLU";
    case LinearSolverKind::Iterative:
      return "GMRES + AMG";
    case LinearSolverKind::Automatic:
      break;
  }
  return "";
}

// A small built-in problem the method takes (form, index, structure, not stiff for explicit
// methods), its Jacobian declared banded of full bandwidth so that every backend can hold the
// iteration matrix, on a short interval.
BuiltinProblem small_problem_for(const MethodInfo& m) {
  MethodInfo variable_step = m;
  variable_step.capabilities.error_estimate = true;  // constant-step methods: fixed_step below
  for (const char* name : {"pendulum-el", "pendulum-index1", "pendulum"}) {
    BuiltinProblem p = make_builtin_problem(name);
    if (!method_not_applicable(variable_step, p).empty()) continue;
    p.dae.jacobian_sparsity = Sparsity::banded(p.dae.n - 1, p.dae.n - 1);
    p.t_end = p.t0 + 0.5;
    return p;
  }
  ADD_FAILURE() << "no small problem for method " << m.name << ": extend the list";
  return make_builtin_problem("pendulum");
}

Result solve_with_backend(const MethodInfo& m, const BuiltinProblem& p, LinearSolverKind kind) {
  Options o;
  o.rtol = o.atol = 1e-6;
  o.linear_solver = kind;
  if (!m.capabilities.error_estimate) {
    o.fixed_step = true;
    o.h0 = (p.t_end - p.t0) / 50;
  }
  return solve(p.dae, p.t0, p.t_end, p.y0, m.name, o);
}

}  // namespace

TEST(LinearSolverChoice, EveryMethodUsesTheBackendOrRefusesIt) {
  for (const MethodInfo& m : registered_methods()) {
    const BuiltinProblem p = small_problem_for(m);
    EXPECT_TRUE(m.capabilities.linear_solvers.contains(LinearSolverKind::Automatic)) << m.name;
    for (LinearSolverKind kind : kEveryLinearSolver) {
      const std::string what =
          m.name + " with linear solver '" + to_string(kind) + "' on " + p.name;
      if (m.capabilities.linear_solvers.contains(kind)) {
        Result r;
        ASSERT_NO_THROW(r = solve_with_backend(m, p, kind)) << what;
        EXPECT_TRUE(r.ok()) << what << ": " << r.message;
        EXPECT_EQ(r.linear_solver.rfind(backend_report_prefix(kind), 0), 0u)
            << what << " ran '" << r.linear_solver << "'";
        continue;
      }
      try {
        solve_with_backend(m, p, kind);
        ADD_FAILURE() << what << ": declared not accepted but not refused";
      } catch (const InvalidArgument& e) {
        // the message names the method, the solver asked for and the accepted ones
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'" + m.name + "'"), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::string("'") + to_string(kind) + "'"), std::string::npos) << msg;
        EXPECT_NE(msg.find(m.capabilities.linear_solvers.describe()), std::string::npos) << msg;
      }
    }
  }
}

// The listing (`daekit methods`, MethodInfo::summary()) names the accepted solvers of the
// methods that do not take them all.
TEST(LinearSolverChoice, SummaryNamesTheAcceptedSolversWhenNotAll) {
  int restricted = 0;
  for (const MethodInfo& m : registered_methods()) {
    const LinearSolverSet& s = m.capabilities.linear_solvers;
    const bool listed = m.summary().find("linear solvers: " + s.describe()) != std::string::npos;
    EXPECT_EQ(listed, !s.is_all()) << m.name << ": " << m.summary();
    restricted += s.is_all() ? 0 : 1;
  }
  EXPECT_GT(restricted, 0);
  EXPECT_EQ(LinearSolverSet{}.describe(), "auto");
  EXPECT_EQ(LinearSolverSet({LinearSolverKind::Dense}).describe(), "auto, dense");
  EXPECT_EQ(LinearSolverSet::all().describe(), "auto, dense, banded, sparse, iterative");
}
