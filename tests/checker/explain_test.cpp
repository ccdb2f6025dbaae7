// argus::explain_counterexample: the trace of a checker counterexample, from
// the corpus's missing-barrier race, and the element histories a traced
// replay records (docs/checker.md, "Counterexample traces").
#include "argus/dsl/driver.h"
#include "argus/dsl/explain.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
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
  // The violation and the read it races with, then the steps of the history.
  ASSERT_EQ(e->sites.size(), 2u + e->trace["history"].size() - 1);
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
  ASSERT_GE(e->sites.size(), 2u);
  EXPECT_EQ(e->sites[1].role, "write");
  for (size_t i = 2; i < e->sites.size(); ++i)
    EXPECT_EQ(e->sites[i].role, "step");
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

// The zero-based line of the first line of `file` that contains `text`.
uint32_t line_of(const CheckedFile &file, const std::string &text) {
  const std::string &source = file.source->text();
  const size_t at = source.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  return static_cast<uint32_t>(std::count(source.begin(), source.begin() + at, '\n'));
}

std::vector<std::string> actions(const nlohmann::json &history) {
  std::vector<std::string> out;
  for (const auto &step : history)
    out.push_back(step["action"].get<std::string>());
  return out;
}

const Diagnostic *find_check(const CheckedFile &file, const std::string &check) {
  for (const Diagnostic &d : file.diagnostics)
    if (d.data.is_object() && d.data.value("check", std::string()) == check)
      return &d;
  return nullptr;
}

// The double-buffer stage bug: the A fragment of iteration kt = 1 holds the
// element the prologue copied for tile 0. Its history goes global → (cp.async)
// shared → (ldmatrix) register fragment → assert_tag.
TEST(ExplainHistory, TagMismatchWalksBackThroughSharedAndRegisters) {
  const CheckedFile file = check_corpus("mma_stage_off_by_one.argus");
  const Diagnostic *mismatch = find_check(file, "assert_tag");
  ASSERT_NE(mismatch, nullptr);
  const auto e = explain_counterexample(file, mismatch->data, mismatch->code, mismatch->message);
  ASSERT_TRUE(e);
  ASSERT_TRUE(e->trace["replayed"].get<bool>());
  const nlohmann::json &h = e->trace["history"];
  ASSERT_EQ(actions(h), (std::vector<std::string>{"read", "async-copy", "async-land", "read",
                                                  "write", "read", "violation"}))
      << h.dump(1);
  // 1. The host's A element, loaded by the prologue's cp.async (s = 0, before the k loop).
  const uint32_t prologue = line_of(file, "nvvm.cp_async_16(a_smem[s, r, c]");
  EXPECT_EQ(h[0]["tensor"], "A");
  EXPECT_EQ(h[0]["space"], "global");
  EXPECT_EQ(h[0]["written_by"], "host");
  EXPECT_EQ(h[0]["program_point"]["line"], prologue);
  EXPECT_EQ(h[0]["iteration"], (nlohmann::json{{"e", 0}, {"s", 0}}));
  // Its tags are its coordinates (tag(A, ("m", "k"))): the tile-0 k the assertion rejects.
  EXPECT_EQ(h[0]["tag"]["m"], h[0]["element"][0]);
  EXPECT_EQ(h[0]["tag"]["k"], h[0]["element"][1]);
  EXPECT_EQ(h[0]["tag"]["k"], mismatch->data["actual"]["k"]);
  // 2-3. In flight into stage 0 of a_smem, landing at the wait of iteration kt = 0.
  for (int i : {1, 2}) {
    EXPECT_EQ(h[i]["tensor"], "a_smem");
    EXPECT_EQ(h[i]["space"], "shared");
    EXPECT_EQ(h[i]["element"][0], 0) << "stage";
    EXPECT_EQ(h[i]["program_point"]["line"], prologue);
    EXPECT_EQ(h[i]["thread"], h[0]["thread"]);
  }
  EXPECT_EQ(h[2]["iteration"]["kt"], 0);
  // 4-5. ldmatrix reads that stage in iteration kt = 1 into the register fragment.
  const uint32_t ldmatrix = line_of(file, "a_frag[i] = nvvm.ldmatrix_x4(");
  EXPECT_EQ(h[3]["tensor"], "a_smem");
  EXPECT_EQ(h[3]["element"], h[2]["element"]);
  EXPECT_EQ(h[3]["program_point"]["line"], ldmatrix);
  EXPECT_EQ(h[3]["iteration"]["kt"], 1);
  EXPECT_EQ(h[4]["tensor"], "a_frag");
  EXPECT_EQ(h[4]["space"], "local");
  EXPECT_EQ(h[4]["program_point"]["line"], ldmatrix);
  // 6-7. The assertion reads the fragment: the thread and place of the counterexample.
  EXPECT_EQ(h[5]["tensor"], "a_frag");
  EXPECT_EQ(h[5]["element"], h[4]["element"]);
  EXPECT_EQ(h[6]["program_point"], mismatch->data["program_point"]);
  EXPECT_EQ(h[6]["thread"], mismatch->data["thread"]);
  EXPECT_EQ(h[5]["thread"], mismatch->data["thread"]);
  for (const auto &step : h)
    EXPECT_EQ(step["tag"], h[0]["tag"]) << "a copy keeps its tags: " << step.dump();
  // Sites and markdown carry the same steps.
  size_t steps = 0;
  for (const ExplainSite &site : e->sites)
    if (site.role == "step") {
      EXPECT_EQ(site.position.line, h[steps]["program_point"]["line"].get<uint32_t>());
      ++steps;
    }
  EXPECT_EQ(steps, h.size() - 1);
  EXPECT_NE(e->markdown.find("History of the element, from its origin to the violation:\n1. line " +
                             std::to_string(prologue + 1) + ": `nvvm.cp_async_16(a_smem[s, r, c]"),
            std::string::npos)
      << e->markdown;
  EXPECT_NE(e->markdown.find("A[0, 0] (global) read (host data)"), std::string::npos)
      << e->markdown;
}

// The missing barrier: thread 0 overwrites a_smem[0, 0] in iteration kt = 1
// while another thread's read of tile 0 is in the same barrier interval. The
// history is the element's: loaded, stored, read by that other thread.
TEST(ExplainHistory, RaceShowsTheReadItRacesWith) {
  const CheckedFile file = check_corpus("missing_barrier_before_reuse.argus");
  const Diagnostic *race = find_code(file, "E0902");
  ASSERT_NE(race, nullptr);
  const auto e = explain_counterexample(file, race->data, race->code, race->message);
  ASSERT_TRUE(e);
  const nlohmann::json &h = e->trace["history"];
  ASSERT_EQ(actions(h), (std::vector<std::string>{"read", "write", "read", "violation"}))
      << h.dump(1);
  const uint32_t copy = race->range.begin.line;
  EXPECT_EQ(h[0]["tensor"], "A");
  EXPECT_EQ(h[0]["element"], (nlohmann::json{0, 0}));
  EXPECT_EQ(h[0]["program_point"]["line"], copy);
  EXPECT_EQ(h[1]["tensor"], "a_smem");
  EXPECT_EQ(h[1]["element"], race->data["element"]["coord"]);
  EXPECT_EQ(h[1]["thread"], race->data["thread"]);
  EXPECT_EQ(h[1]["iteration"]["kt"], 0);
  // The read: the "read here" site of the counterexample, by another thread, in kt = 0.
  EXPECT_EQ(h[2]["tensor"], "a_smem");
  EXPECT_EQ(h[2]["element"], h[1]["element"]);
  EXPECT_EQ(h[2]["program_point"]["line"], race->data["origin"]["line"]);
  EXPECT_EQ(h[2]["program_point"]["line"], line_of(file, "a = f32(a_smem[ty + TY * i, kk])"));
  EXPECT_NE(h[2]["thread"]["thread"], race->data["thread"]["thread"]);
  EXPECT_EQ(h[2]["iteration"]["kt"], 0);
  EXPECT_EQ(h[3]["program_point"], race->data["program_point"]);
  EXPECT_EQ(h[3]["iteration"]["kt"], 1);
}

// acc += a * b from an untagged acc: the history goes through the operand
// that brings the tags (A's element), and the k loop's rounds are collapsed.
TEST(ExplainHistory, AccumulatorHistoryStartsAtTheOperandAndCollapsesTheLoop) {
  const CheckedFile file = check_corpus("transposed_store.argus");
  const Diagnostic *mismatch = find_check(file, "store");
  ASSERT_NE(mismatch, nullptr);
  const auto e = explain_counterexample(file, mismatch->data, mismatch->code, mismatch->message);
  ASSERT_TRUE(e);
  const nlohmann::json &h = e->trace["history"];
  ASSERT_GE(h.size(), 6u) << h.dump(1);
  EXPECT_EQ(h[0]["tensor"], "A");
  EXPECT_EQ(h[1]["tensor"], "a_smem");
  EXPECT_EQ(h[2]["tensor"], "a_smem");
  const uint32_t update = line_of(file, "acc[i, j] += a * f32(b_smem");
  EXPECT_EQ(h[3]["tensor"], "acc");
  EXPECT_EQ(h[3]["action"], "write");
  EXPECT_EQ(h[3]["program_point"]["line"], update);
  size_t elided = 0;
  for (const auto &step : h)
    if (step["action"] == "elided") {
      EXPECT_EQ(step.value("why", std::string()), "repeated");
      EXPECT_GT(step["steps"].get<int>(), 10);
      ++elided;
    }
  EXPECT_EQ(elided, 1u);
  // The store's read of acc carries the tags the contract rejects.
  EXPECT_EQ(h[h.size() - 2]["tensor"], "acc");
  EXPECT_EQ(h[h.size() - 2]["tag"]["m"], mismatch->data["actual"].value("m", h[0]["tag"]["m"]));
  EXPECT_EQ(h.back()["tensor"], "C");
  EXPECT_LT(h.size(), 12u) << "the loop is collapsed: " << h.dump(1);
}

} // namespace
} // namespace argus
