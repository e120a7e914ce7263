// tableau_by_name(): the names of the CLI's --tableau map to the tableau families, and anything
// else is rejected with a message listing the valid forms.
#include <gtest/gtest.h>

#include <string>

#include "daekit/daekit.hpp"

using namespace daekit;

namespace {
void expect_same(const RungeKuttaTableau& a, const RungeKuttaTableau& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.stage_order, b.stage_order);
  ASSERT_EQ(a.stages(), b.stages());
  EXPECT_EQ(a.A, b.A);
  EXPECT_EQ(a.b, b.b);
  EXPECT_EQ(a.c, b.c);
}

std::string tableau_message_of(const std::string& name) {
  try {
    tableau_by_name(name);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TableauByName, EveryFamilyAndStageCount) {
  for (int s = 1; s <= 9; ++s) {
    const std::string S = std::to_string(s);
    expect_same(tableau_by_name("radau-iia-" + S), radau_iia(s));
    expect_same(tableau_by_name("radau-ia-" + S), radau_ia(s));
    expect_same(tableau_by_name("gauss-" + S), gauss(s));
    if (s >= 2) expect_same(tableau_by_name("lobatto-iiia-" + S), lobatto_iiia(s));
  }
  EXPECT_EQ(tableau_by_name("radau-ia-3").order, 5);
  EXPECT_EQ(tableau_by_name("gauss-2").order, 4);
}

TEST(TableauByName, RejectsOtherNamesListingTheValidForms) {
  for (const char* bad : {"", "radau", "radau-iia", "radau-iia-", "radau-iia-0", "radau-iia-10",
                          "radau-iia-03", "radau-iia-+3", "radau-iia-3 ", " gauss-2", "gauss-x",
                          "Gauss-2", "lobatto-iiia-1", "lobatto-iiib-3", "euler"}) {
    const std::string m = tableau_message_of(bad);
    EXPECT_NE(m.find("radau-iia-S, radau-ia-S, gauss-S"), std::string::npos)
        << "'" << bad << "': " << m;
    EXPECT_NE(m.find("lobatto-iiia-S"), std::string::npos) << "'" << bad << "': " << m;
  }
  EXPECT_NE(tableau_message_of("lobatto-iiia-1").find("must be in 2..9"), std::string::npos);
  EXPECT_NE(tableau_message_of("euler").find("unknown tableau 'euler'"), std::string::npos);
}
