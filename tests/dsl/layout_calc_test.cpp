// argus::layout_calculation: the JSON of `argus layout --format=json` and of
// the language server's argus.layout.
#include "argus/dsl/layout_calc.h"

#include <gtest/gtest.h>

namespace argus {
namespace {

TEST(LayoutCalculation, ValueKindAndTable) {
  const nlohmann::json j = layout_calculation("right_inverse((4,3):(3,1))", true);
  EXPECT_EQ(j["result"], "(3,4):(4,1)");
  EXPECT_EQ(j["kind"], "layout");
  EXPECT_EQ(j["table"], nlohmann::json({{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}));
  EXPECT_FALSE(layout_calculation("size((4,3):(3,1))", false).contains("table"));
  EXPECT_EQ(layout_calculation("size((4,3):(3,1))", false)["result"], "12");
}

TEST(LayoutCalculation, ErrorsPointAtTheSubExpression) {
  const nlohmann::json j = layout_calculation("complement(4:2, x)", false);
  ASSERT_TRUE(j.contains("error"));
  EXPECT_FALSE(j.contains("result"));
  EXPECT_EQ(j["expr"], "complement(4:2, x)");
  EXPECT_GT(j["error"]["column"].get<int>(), 1);
  EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
  // A table of a value that has none is an error too.
  EXPECT_TRUE(layout_calculation("12", true).contains("error"));
}

} // namespace
} // namespace argus
