// The SARIF renderer (argus/cli/sarif.h); tests/client/sarif_schema_test.js
// validates whole logs against the SARIF 2.1.0 schema.
#include "argus/cli/sarif.h"

#include <gtest/gtest.h>

namespace argus::cli {
namespace {

using nlohmann::json;

TEST(SarifTest, AResultWithItsRegionRelatedLocationAndCounterexample) {
  // "😀é " before "yy": 7 bytes, 4 UTF-16 code units (SARIF's default columns).
  const SourceFile source("kernels/a b.argus", "x = 1\n😀é yy\n");
  Diagnostic d{Severity::Error,    "E0902", {{1, 7}, {1, 9}}, "data race on yy",
               {{"kind", "race"}}, {}};
  d.related.push_back({{{0, 0}, {0, 1}}, "written here"});
  const std::vector<Diagnostic> diagnostics{d};
  const json log = sarif_log({{&source, &diagnostics}}, {});
  EXPECT_EQ(log["version"], "2.1.0");
  const json &run = log["runs"][0];
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
  ASSERT_EQ(run["results"].size(), 1u);
  const json &r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "E0902");
  EXPECT_EQ(run["tool"]["driver"]["rules"][r["ruleIndex"].get<size_t>()]["id"], "E0902");
  EXPECT_EQ(r["level"], "error");
  const json &location = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(location["artifactLocation"]["uri"], "kernels/a%20b.argus");
  EXPECT_EQ(location["region"],
            json({{"startLine", 2}, {"startColumn", 5}, {"endLine", 2}, {"endColumn", 7}}));
  EXPECT_EQ(r["relatedLocations"][0]["message"]["text"], "written here");
  EXPECT_EQ(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 1);
  EXPECT_EQ(r["properties"]["counterexample"]["kind"], "race");
}

TEST(SarifTest, RulesCarryTheirHelpFromTheDiagnosticsReference) {
  const json log = sarif_log({}, {});
  bool found = false;
  for (const json &rule : log["runs"][0]["tool"]["driver"]["rules"]) {
    if (rule["id"] != "E0902")
      continue;
    found = true;
    EXPECT_EQ(rule["defaultConfiguration"]["level"], "error");
    EXPECT_NE(rule["fullDescription"]["text"].get<std::string>().find("barrier interval"),
              std::string::npos);
    EXPECT_NE(rule["help"]["markdown"].get<std::string>().find("`read-write`"), std::string::npos);
  }
  EXPECT_TRUE(found);
  const auto w = diagnostic_help("W0901");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->find("```"), std::string::npos) << "the help stops before the example";
  EXPECT_FALSE(diagnostic_help("E9999").has_value());
}

TEST(SarifTest, AnUnreadableFileIsANotificationAndTheRunFails) {
  const json log = sarif_log({}, {{"/no/such.argus", "no such file"}});
  const json &invocation = log["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], false);
  EXPECT_EQ(invocation["toolExecutionNotifications"][0]["level"], "error");
  EXPECT_EQ(invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]
                      ["artifactLocation"]["uri"],
            "file:///no/such.argus");
}

} // namespace
} // namespace argus::cli
