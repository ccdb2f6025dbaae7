// argus::explain_counterexample: the trace of a checker counterexample, from
// the corpus's missing-barrier race.
#include "argus/dsl/explain.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace argus {
namespace {

CheckedFile check_corpus(const std::string &name) {
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/tests/checker/corpus/" + name;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return check_source(path, text.str());
}

const Diagnostic *find_code(const CheckedFile &file, const std::string &code) {
  for (const Diagnostic &d : file.diagnostics)
    if (d.code == code)
      return &d;
  return nullptr;
}

TEST(Explain, RaceTraceHasTheSitesAndReplays) {
  const CheckedFile file = check_corpus("missing_barrier_before_reuse.argus");
  const Diagnostic *race = find_code(file, "E0902");
  ASSERT_NE(race, nullptr);
  const auto e = explain_counterexample(file, race->data, race->code, race->message);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->trace["kind"], "race");
  EXPECT_EQ(e->trace["element"]["tensor"], "a_smem");
  EXPECT_TRUE(e->trace["replayed"].get<bool>());
  ASSERT_EQ(e->sites.size(), 2u);
  EXPECT_EQ(e->sites[0].role, "violation");
  EXPECT_EQ(e->sites[0].position, race->range.begin);
  EXPECT_EQ(e->sites[0].source.rfind("a_smem[idx // BK, idx % BK] = A[", 0), 0u)
      << e->sites[0].source;
  EXPECT_EQ(e->sites[1].role, "read");
  EXPECT_NE(e->markdown.find("| element | a_smem[0, 0] |"), std::string::npos) << e->markdown;
  EXPECT_NE(e->markdown.find("| iteration | e = 0, kt = 1 |"), std::string::npos) << e->markdown;
  EXPECT_NE(e->markdown.find("Replayed on the interpreter: yes."), std::string::npos);
  EXPECT_NE(e->markdown.find("`argus.fix.insert-barrier`"), std::string::npos);
}

TEST(Explain, TagMismatchHasExpectedAndActualTags) {
  const CheckedFile file = check_corpus("transposed_store.argus");
  const Diagnostic *mismatch = find_code(file, "E0901");
  ASSERT_NE(mismatch, nullptr);
  const auto e = explain_counterexample(file, mismatch->data, mismatch->code, mismatch->message);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->trace["expected"], mismatch->data["expected"]);
  EXPECT_EQ(e->trace["actual"], mismatch->data["actual"]);
  EXPECT_NE(e->markdown.find("| expected tags | {m: 1} |"), std::string::npos) << e->markdown;
  EXPECT_EQ(e->sites.back().role, "write");
}

TEST(Explain, TamperedThreadDoesNotReplayAndNonCounterexamplesAreRefused) {
  const CheckedFile file = check_corpus("missing_barrier_before_reuse.argus");
  const Diagnostic *race = find_code(file, "E0902");
  ASSERT_NE(race, nullptr);
  nlohmann::json data = race->data;
  data["thread"]["thread"] = {77, 0, 0};
  const auto e = explain_counterexample(file, data, race->code, race->message);
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->trace["replayed"].get<bool>());
  EXPECT_FALSE(explain_counterexample(file, nlohmann::json{{"kind", "race"}}, "E0902", ""));
  EXPECT_FALSE(explain_counterexample(file, nlohmann::json::array(), "E0902", ""));
}

} // namespace
} // namespace argus
