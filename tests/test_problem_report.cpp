// problem_report() and problem_scd() (problems layer): the report of a solve of a built-in
// problem that `daekit solve` and `daekit demo` print: Result::report() (or full_report())
// followed by the located events, the projections and the significant correct digits.
#include <gtest/gtest.h>

#include <string>

#include "core/format.hpp"
#include "daekit/daekit.hpp"

using namespace daekit;

namespace {
Result solve_builtin(const BuiltinProblem& p, Options o = {}) {
  o.rtol = p.rtol;
  o.atol = p.atol;
  o.h0 = p.h0;
  o.events.insert(o.events.end(), p.events.begin(), p.events.end());
  return solve(p.dae, p.t0, p.t_end, p.y0, MethodChoice("radau5"), o);
}
bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
}  // namespace

TEST(ProblemReport, ReportThenScdAgainstTheReference) {
  const BuiltinProblem p = make_builtin_problem("vanderpol");
  const Result r = solve_builtin(p);
  ASSERT_TRUE(r.ok()) << r.message;
  const std::optional<double> digits = problem_scd(p, r);
  ASSERT_TRUE(digits.has_value());
  EXPECT_GT(*digits, 4.0);
  EXPECT_DOUBLE_EQ(*digits, scd(r.y, p.reference->y, p.scd_components));
  const std::string brief = problem_report(p, r);
  // the library's report with the scd line added before its CPU-time line
  const std::string lines = brief.substr(brief.find("\n  scd "));
  EXPECT_EQ(brief, r.report(lines.substr(1, lines.find("\n", 1)))) << brief;
  EXPECT_NE(brief.find("\n  scd               "), std::string::npos) << brief;
  EXPECT_NE(brief.find(p.reference->source), std::string::npos) << brief;
  const std::string full = problem_report(p, r, true);
  EXPECT_TRUE(starts_with(full, r.full_report())) << full;
  EXPECT_NE(full.find("\n  scd                   "), std::string::npos) << full;
}

TEST(ProblemReport, ScdNamesItsComponents) {
  const BuiltinProblem p = make_builtin_problem("pendulum");
  ASSERT_FALSE(p.scd_components.empty());
  const Result r = solve_builtin(p);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NE(problem_report(p, r).find(" over u1, u2"), std::string::npos) << problem_report(p, r);
}

TEST(ProblemReport, NoScdAwayFromTheReferenceTime) {
  BuiltinProblem p = make_builtin_problem("vanderpol");
  p.t_end = 1.0;
  const Result r = solve_builtin(p);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_FALSE(problem_scd(p, r).has_value());
  EXPECT_EQ(problem_report(p, r), r.report());
  // nor for a run that stopped early
  BuiltinProblem q = make_builtin_problem("robertson");
  Options o;
  o.max_steps = 5;
  const Result failed = solve_builtin(q, o);
  ASSERT_FALSE(failed.ok());
  EXPECT_FALSE(problem_scd(q, failed).has_value());
}

TEST(ProblemReport, ListsTheLocatedEvents) {
  const BuiltinProblem p = make_builtin_problem("pi-valve");
  const Result r = solve_builtin(p);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_FALSE(r.events.empty());
  const std::string s = problem_report(p, r);
  EXPECT_NE(s.find("  located events    t = "), std::string::npos) << s;
  for (const EventRecord& e : r.events) EXPECT_NE(s.find("  " + e.name + "\n"), std::string::npos);
  // the times as every message prints numbers (format_number: the stream's default format)
  for (size_t i = 0; i < r.events.size() && i < 10; ++i)
    EXPECT_NE(s.find("t = " + format_number(r.events[i].t, 10) + "  " + r.events[i].name + "\n"),
              std::string::npos)
        << s;
}

TEST(ProblemReport, CountsTheProjections) {
  const BuiltinProblem p = make_builtin_problem("pendulum");
  Options o;
  o.projection = Projection::Velocity;
  const Result r = solve_builtin(p, o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_GT(r.stats.nproject, 0);
  EXPECT_NE(problem_report(p, r).find("  projection        velocity, " +
                                      std::to_string(r.stats.nproject) + " projections"),
            std::string::npos);
  // the full report lists every counter already
  EXPECT_EQ(problem_report(p, r, true).find("\n  projections "), std::string::npos);
}
