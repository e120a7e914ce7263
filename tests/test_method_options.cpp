// The description of every method's options (issue 24; methods/registry.hpp, the OptionTable of
// src/methods/factory.hpp): the registry walked option by option. Each method reports (Result::
// method_options, read from the options struct the method object holds) every described
// option with the description's default; every option set by name as text reaches the method;
// bad values are refused naming the method, the option and the valid values. Also the tableau
// names a method reports, and Options::hmin (scipy's min_step). The command line and Python
// are walked the same way by python/tests/test_method_options.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <any>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"
#include "methods/factory.hpp"

using namespace daekit;

namespace {

/// Options for a short solve of `p` with method `m` (constant steps where it has no estimate).
Options mo_options(const MethodInfo& m, const BuiltinProblem& p) {
  Options o;
  o.rtol = p.rtol;
  o.atol = p.atol;
  if (!m.capabilities.error_estimate) {
    o.fixed_step = true;
    o.h0 = 0.01;
  }
  return o;
}

/// The first of a few small built-in problems the method accepts (as the conformance suite
/// does), or an empty name.
std::string mo_problem_for(const MethodInfo& m) {
  for (const char* name : {"pendulum-index1", "pendulum-index2", "el-manufactured"}) {
    const BuiltinProblem p = make_builtin_problem(name);
    try {
      Integrator it(p.dae, p.t0, p.t0 + 0.05, p.y0, m.name, mo_options(m, p));
      return name;
    } catch (const InvalidArgument&) {
    }
  }
  return "";
}

/// The option values the method object reports for a solve of its problem with `choice`.
std::vector<MethodOptionValue> mo_reported(const MethodInfo& m, const MethodChoice& choice) {
  const BuiltinProblem p = make_builtin_problem(mo_problem_for(m));
  Integrator it(p.dae, p.t0, p.t0 + 0.05, p.y0, choice, mo_options(m, p));
  return it.result().method_options;
}

bool mo_in_bounds(const MethodOption& o, double x) {
  return (o.min_open ? x > o.min : x >= o.min) && (o.max_open ? x < o.max : x <= o.max);
}

/// Valid-looking values other than the default, most plausible first (the registry decides:
/// MethodChoice refuses those that a combination with the other defaults does not allow).
std::vector<std::string> mo_candidates(const std::string& method, const MethodOption& o) {
  std::vector<std::string> c;
  switch (o.type) {
    case OptionType::Bool:
      c.push_back(o.default_value == "true" ? "false" : "true");
      break;
    case OptionType::Choice:
    case OptionType::Tableau:
      for (const std::string& v : method_option_values(method, o.name))
        if (v != o.default_value) c.push_back(v);
      break;
    case OptionType::Int: {
      for (const std::string& v : o.choices)
        if (v != o.default_value) c.push_back(v);
      const int d = std::atoi(o.default_value.c_str());
      if (o.choices.empty())
        for (int v : {d + 1, d - 1, d + 2, d - 2})
          if (mo_in_bounds(o, v)) c.push_back(std::to_string(v));
      break;
    }
    case OptionType::Double: {
      const double d = o.default_value == o.automatic ? 0.0 : std::atof(o.default_value.c_str());
      for (double v : {1.5 * d, 0.5 * d, d + 0.05, d - 0.05, -0.3})
        if (mo_in_bounds(o, v) && double_text(v) != o.default_value) c.push_back(double_text(v));
      break;
    }
  }
  return c;
}

/// The first candidate the method accepts alone (the other options at their defaults).
std::string mo_valid_value(const std::string& method, const MethodOption& o) {
  for (const std::string& v : mo_candidates(method, o)) {
    try {
      MethodChoice(method, {{o.name, v}});
      return v;
    } catch (const InvalidArgument&) {
    }
  }
  return "";
}

std::string mo_refusal(const std::string& method, const OptionValues& values) {
  try {
    MethodChoice(method, values);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(MethodOptions, EveryMethodReportsItsDescribedOptionsWithTheirDefaults) {
  for (const MethodInfo& m : registered_methods()) {
    ASSERT_FALSE(mo_problem_for(m).empty()) << m.name << " accepts none of the problems";
    ASSERT_FALSE(m.options.empty()) << m.name << " describes no options";
    const std::vector<MethodOptionValue> reported = mo_reported(m, m.name);
    ASSERT_EQ(reported.size(), m.options.size()) << m.name;
    for (size_t i = 0; i < reported.size(); ++i) {
      const MethodOption& o = m.options[i];
      EXPECT_EQ(reported[i].name, o.name) << m.name;
      EXPECT_EQ(reported[i].type, o.type) << m.name << " " << o.name;
      // the description's default is the options struct's (the method holds O{})
      EXPECT_EQ(reported[i].value, o.default_value) << m.name << " " << o.name;
      EXPECT_FALSE(o.doc.empty()) << m.name << " " << o.name;
      EXPECT_FALSE(o.range().empty()) << m.name << " " << o.name;
      // the default is itself a valid value
      EXPECT_NO_THROW((MethodChoice(m.name, {{o.name, o.default_value}})))
          << m.name << " " << o.name;
    }
  }
}

TEST(MethodOptions, EveryOptionSetByNameReachesTheMethod) {
  int checked = 0;
  for (const MethodInfo& m : registered_methods()) {
    for (const MethodOption& o : m.options) {
      const std::string value = mo_valid_value(m.name, o);
      ASSERT_FALSE(value.empty()) << m.name << " " << o.name << ": no valid non-default value";
      const std::vector<MethodOptionValue> reported =
          mo_reported(m, MethodChoice(m.name, {{o.name, value}}));
      for (size_t i = 0; i < reported.size(); ++i) {
        const bool this_one = m.options[i].name == o.name;
        EXPECT_EQ(reported[i].value, this_one ? value : m.options[i].default_value)
            << m.name << ": set " << o.name << "=" << value << ", reported " << reported[i].name;
      }
      ++checked;
    }
  }
  std::printf("%d options of %zu methods set by name and reported by the method\n", checked,
              registered_methods().size());
  EXPECT_GE(checked, 50);
}

TEST(MethodOptions, RefusalsNameTheMethodTheOptionAndTheValidValues) {
  auto expect_refusal = [](const std::string& method, const OptionValues& values,
                           const std::vector<std::string>& parts) {
    const std::string msg = mo_refusal(method, values);
    for (const std::string& part : parts)
      EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
  };
  expect_refusal("spark", {{"stagez", "4"}},
                 {"method 'spark', option 'stagez': no such option", "stages, mass_form_part"});
  expect_refusal("spark", {{"stages", "four"}}, {"option 'stages'", "not an integer", "2..9"});
  expect_refusal("spark", {{"stages", "10"}}, {"option 'stages'", "10 is outside 2..9"});
  expect_refusal("spark", {{"stages", "4.0"}}, {"option 'stages'", "not an integer"});
  expect_refusal("spark", {{"stages", "4"}, {"stages", "3"}}, {"option 'stages': given twice"});
  expect_refusal("radau5", {{"transform_tolerances", "no"}},
                 {"option 'transform_tolerances'", "not a boolean", "true or false"});
  expect_refusal("radau5", {{"jacobian_reuse_theta", "1"}},
                 {"option 'jacobian_reuse_theta'", "outside (0, 1)"});
  expect_refusal("radau5", {{"newton_tolerance", "inf"}},
                 {"option 'newton_tolerance'", "not a finite number", ">= 0"});
  expect_refusal("radau5", {{"newton_tolerance", "0x10"}}, {"not a finite number"});
  expect_refusal("radau", {{"min_stages", "2"}}, {"option 'min_stages'", "not one of 1, 3, 5, 7"});
  // a combination the struct's validate() refuses: named with the values given
  expect_refusal("radau", {{"min_stages", "5"}},
                 {"method 'radau' refuses the options given (min_stages=5)",
                  "min_stages <= start_stages <= max_stages"});
  expect_refusal("beta-multistep", {{"family", "adams"}},
                 {"option 'family'", "bdf, dcbdf, adams-moulton"});
  expect_refusal("beta-multistep", {{"steps", "7"}}, {"steps=7", "k must lie in [1, 6] for DCBDF"});
  expect_refusal("beta-multistep", {{"c", "automatic"}}, {"option 'c'", "or auto"});
  expect_refusal("hem", {{"tableau", "dopri5"}}, {"option 'tableau'", "not one of hem4, bh3"});
  expect_refusal("dirk", {{"tableau", "rk5"}},
                 {"option 'tableau'", "unknown tableau 'rk5'", "valid tableaus"});
  expect_refusal("dirk", {{"tableau", "gauss-2"}},
                 {"option 'tableau'", "'gauss-2' is refused", "not diagonally implicit"});
  expect_refusal("erk", {{"tableau", "kvaerno4"}}, {"option 'tableau'", "is not explicit"});
  expect_refusal("nosuch", {{"stages", "4"}}, {"unknown method 'nosuch'; valid methods: radau5"});
  // a value given as the struct's default, or no values: the defaults
  EXPECT_FALSE(MethodChoice("spark", OptionValues{}).options().has_value());
}

TEST(MethodOptions, StringsFillTheOptionsStruct) {
  // the one conversion: what the CLI and Python pass becomes the C++ struct
  const MethodChoice c(
      "beta-multistep",
      {{"family", "adams-moulton"}, {"steps", "2"}, {"c", "-0.2"}, {"scheme", "commuted"}});
  const auto* o = std::any_cast<BetaMultistepOptions>(&c.options());
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->family, MultistepFamily::AdamsMoulton);
  EXPECT_EQ(o->k, 2);
  EXPECT_EQ(o->c, -0.2);
  EXPECT_EQ(o->scheme, MultiplierScheme::Commuted);
  const MethodChoice d("dirk", {{"tableau", "sdirk4-hw16"}, {"lu_reuse_high", "1.5"}});
  const auto* od = std::any_cast<DirkOptions>(&d.options());
  ASSERT_NE(od, nullptr);
  EXPECT_EQ(od->tableau.A, sdirk4_hw16().A);
  EXPECT_EQ(od->lu_reuse_high, 1.5);
  const MethodChoice s("spark", {{"stages", "4"}});
  EXPECT_EQ(std::any_cast<SparkOptions>(s.options()).stages, 4);
}

TEST(MethodOptions, TableauNamesRoundTripAndEachMethodListsWhatItAccepts) {
  for (const std::string& name : tableau_names())
    EXPECT_EQ(tableau_text(tableau_by_name(name)), name);
  EXPECT_EQ(tableau_text(radau_iia(9)), "radau-iia-9");  // a family member outside the list
  RungeKuttaTableau own = classical_rk4();
  own.b[0] += 1e-3;
  own.name = "my RK";
  EXPECT_EQ(tableau_text(own), "my RK");  // not a named tableau: its own name
  auto values = [](const char* m) { return method_option_values(m, "tableau"); };
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  const std::vector<std::string> erk = values("erk"), dirk = values("dirk"),
                                 prk = values("projected-rk"), hem = values("hem");
  for (const char* t : {"dopri5", "bs3", "rk4", "explicit-euler"}) EXPECT_TRUE(has(erk, t)) << t;
  for (const char* t : {"kvaerno4", "sdirk4-hw16", "alexander3", "radau-iia-1"})
    EXPECT_TRUE(has(dirk, t)) << t;
  EXPECT_FALSE(has(erk, "kvaerno4"));
  EXPECT_FALSE(has(dirk, "gauss-2"));
  EXPECT_FALSE(has(dirk, "dopri5"));
  EXPECT_TRUE(has(prk, "gauss-2"));
  EXPECT_TRUE(has(prk, "lobatto-iiia-3"));  // explicit first stage, stiffly accurate
  EXPECT_FALSE(has(prk, "rk4"));
  EXPECT_EQ(hem, (std::vector<std::string>{"hem4", "bh3"}));
  EXPECT_THROW(method_option_values("erk", "stages"), InvalidArgument);
}

TEST(MethodOptions, FullReportListsTheOptionsUsed) {
  const BuiltinProblem p = make_builtin_problem("pendulum-index2");
  Options o;
  o.rtol = o.atol = 1e-6;
  const Result r = solve(p.dae, p.t0, 0.1, p.y0, MethodChoice("spark", {{"stages", "4"}}), o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NE(r.full_report().find("method options        stages=4 mass_form_part=3"),
            std::string::npos)
      << r.full_report();
}

// --- Options::hmin (scipy's min_step) -------------------------------------------------------

TEST(MinStep, AStepBelowHminEndsTheSolveNamingIt) {
  const BuiltinProblem p = make_builtin_problem("robertson");
  Options o;
  o.rtol = 1e-6;
  o.atol = 1e-10;
  o.hmin = 1e-3;  // Robertson's first steps are far smaller
  const Result r = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  EXPECT_EQ(r.status, Status::StepSizeTooSmall);
  EXPECT_NE(r.message.find("below hmin (min_step) = 0.001"), std::string::npos) << r.message;
  o.hmin = 1e-12;  // never needed: the same solve as without it
  const Result ok = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  o.hmin = 0.0;
  const Result plain = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  ASSERT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(ok.stats.naccept, plain.stats.naccept);
  EXPECT_EQ(ok.y, plain.y);
  // above radau5's first step (1e-6): the first step and smaller proposals are raised to it
  o.hmin = 1e-5;
  o.store_steps = true;
  const Result raised = solve(p.dae, p.t0, p.t_end, p.y0, "radau5", o);
  ASSERT_TRUE(raised.ok()) << raised.message;
  for (size_t i = 0; i + 2 < raised.t_steps.size(); ++i)  // (the last step may be shorter)
    EXPECT_GE(raised.t_steps[i + 1] - raised.t_steps[i], 1e-5) << "step " << i;
}

// The balanced last step (two equal steps for a rest between one and two steps) does not split
// a rest into steps below hmin: on [0, 0.05] with h0 = hmin = 0.03 the steps are 0.03 and the
// last 0.02, not 0.025 twice.
TEST(MinStep, NoBalancedStepBelowHmin) {
  const BuiltinProblem p = make_builtin_problem("pendulum-index1");
  Options o;
  o.h0 = o.hmin = 0.03;
  o.store_steps = true;
  const Result r = solve(p.dae, 0.0, 0.05, p.y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_GE(r.t_steps.size(), 3u);
  EXPECT_GE(r.t_steps[1] - r.t_steps[0], 0.03);
}

TEST(MinStep, TheLastStepMayBeShorterAndBadValuesAreRefused) {
  const BuiltinProblem p = make_builtin_problem("pendulum-index1");
  Options o;
  o.fixed_step = true;
  o.h0 = 0.03;
  o.hmin = 0.03;  // steps 0.03, 0.03, 0.03 and a last one of 0.01 to t = 0.1
  const Result r = solve(p.dae, 0.0, 0.1, p.y0, "radau5", o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.stats.naccept, 4);
  o.fixed_step = false;
  o.h0 = 0.01;  // below hmin
  EXPECT_THROW(solve(p.dae, 0.0, 1.0, p.y0, "radau5", o), InvalidArgument);
  o.h0 = 0.0;
  o.hmax = 0.01;  // below hmin
  EXPECT_THROW(solve(p.dae, 0.0, 1.0, p.y0, "radau5", o), InvalidArgument);
  o.hmax = 0.0;
  o.hmin = -1.0;
  EXPECT_THROW(solve(p.dae, 0.0, 1.0, p.y0, "radau5", o), InvalidArgument);
}

// A real option reports the default's text only for the default itself, to the bit: a
// newton_tolerance of -0 (allowed: >= 0) is reported as "-0", not as the default's "0"; an
// equal number given as text ("1.0e0" for lu_reuse_low = 1) as the default's "1".
TEST(MethodOptions, RealOptionDefaultTextOnlyForTheDefaultsBits) {
  const auto text_of = [](const std::vector<MethodOptionValue>& values, const std::string& name) {
    for (const MethodOptionValue& v : values)
      if (v.name == name) return v.value;
    return std::string("(missing)");
  };
  const MethodInfo radau5 = method_info("radau5");
  Radau5Options o;
  o.newton_tolerance = -0.0;
  EXPECT_EQ(text_of(mo_reported(radau5, MethodChoice(o)), "newton_tolerance"), "-0");
  EXPECT_EQ(text_of(mo_reported(radau5, MethodChoice(Radau5Options{})), "newton_tolerance"), "0");
  EXPECT_EQ(text_of(mo_reported(radau5, MethodChoice("radau5", {{"lu_reuse_low", "1.0e0"}})),
                    "lu_reuse_low"),
            "1");
  o = Radau5Options{};
  o.jacobian_reuse_theta = 0.0123;
  EXPECT_EQ(text_of(mo_reported(radau5, MethodChoice(o)), "jacobian_reuse_theta"), "0.0123");
}
