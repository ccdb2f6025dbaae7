// Kernels translated from another race checker's public suite (GPUVerify's test suite and
// GPUVerifyBenchmarks; tests/checker/external/*.argus, the table in bench/RESULTS.md). Each file
// states the suite's verdict in a `# suite: race|race-free|divergence` line; CorpusTest asserts
// its diagnostics with `# expect:` markers like the corpus. This test compares Argus's answer with
// the suite's: a racy kernel Argus does not catch carries `# known-miss: why`, a race-free kernel
// it flags `# known-false-alarm: why`. A checker change that turns a miss into a detection (or
// removes a false alarm) fails here until the marker, and the table, are updated; so does one
// that loses a detection.
#include "argus/dsl/checker.h"
#include "argus/dsl/codes.h"
#include "argus/dsl/driver.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <regex>
#include <set>

namespace argus {
namespace {

namespace fs = std::filesystem;
using checker_test::read_file;

std::vector<fs::path> external_files() {
  return checker_test::argus_files({"tests/checker/external"});
}

struct Markers {
  std::string suite; // "race", "race-free" or "divergence"
  bool known_miss = false;
  bool known_false_alarm = false;
};

Markers read_markers(const std::string &text) {
  static const std::regex kSuite(R"(#\s*suite:\s*([a-z-]+))");
  Markers m;
  std::smatch match;
  if (std::regex_search(text, match, kSuite))
    m.suite = match[1];
  m.known_miss = text.find("# known-miss:") != std::string::npos;
  m.known_false_alarm = text.find("# known-false-alarm:") != std::string::npos;
  return m;
}

// What Argus answered for a file, reduced to the suite's question.
struct Answer {
  bool race = false;       // E0902
  bool divergence = false; // E0905
  bool any_error = false;  // any checker error (E09xx)
  bool unproven = false;   // W0901
};

Answer answer_of(const CheckedFile &file) {
  Answer a;
  for (const Diagnostic &d : file.diagnostics) {
    if (d.code == codes::kUnproven)
      a.unproven = true;
    if (d.code.rfind("E09", 0) != 0)
      continue;
    a.any_error = true;
    a.race |= d.code == "E0902";
    a.divergence |= d.code == "E0905";
  }
  return a;
}

class ExternalSuiteTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(ExternalSuiteTest, VerdictMatchesTheSuiteOrIsAMarkedMissOrFalseAlarm) {
#ifdef ARGUS_SANITIZED_BUILD
  // CorpusTest checks these files under the sanitizers already (their
  // `# expect:` markers); the verdicts are compared in the Release build.
  GTEST_SKIP() << "compared in the Release build";
#endif
  const fs::path &path = GetParam();
  const std::string name = path.filename().string();
  const std::string text = read_file(path);
  const Markers markers = read_markers(text);
  ASSERT_TRUE(markers.suite == "race" || markers.suite == "race-free" ||
              markers.suite == "divergence")
      << name << ": no '# suite: race|race-free|divergence' line";
  const CheckedFile file = check_source(name, text);
  for (const Diagnostic &d : file.diagnostics)
    ASSERT_FALSE(d.code.rfind("E0", 0) == 0 && d.code.rfind("E09", 0) != 0)
        << name << ": the translation does not compile: " << d.message;
  const Answer answer = answer_of(file);
  if (markers.suite == "race-free") {
    EXPECT_FALSE(markers.known_miss) << name << ": a race-free kernel cannot miss a race";
    EXPECT_EQ(answer.any_error, markers.known_false_alarm)
        << name
        << (answer.any_error ? ": Argus reports an error on a kernel the suite passes; "
                               "mark it '# known-false-alarm: why'"
                             : ": the false alarm is gone; drop '# known-false-alarm'");
    return;
  }
  EXPECT_FALSE(markers.known_false_alarm) << name << ": a racy kernel has no false alarm";
  const bool detected = markers.suite == "race" ? answer.race : answer.divergence;
  EXPECT_EQ(!detected, markers.known_miss)
      << name
      << (detected ? ": Argus now detects it; drop '# known-miss' and update the table"
                   : ": Argus misses it; mark it '# known-miss: why'");
}

INSTANTIATE_TEST_SUITE_P(External, ExternalSuiteTest, ::testing::ValuesIn(external_files()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return checker_test::test_name(info.param);
                         });

// The totals of the table in bench/RESULTS.md ("External suite"): a change of any of them means
// the table is out of date.
TEST(ExternalSuiteSummaryTest, TotalsMatchTheResultsTable) {
#ifdef ARGUS_SANITIZED_BUILD
  GTEST_SKIP() << "the totals are compared in the Release build";
#endif
  size_t racy = 0, race_free = 0, detected = 0, missed = 0, false_alarms = 0, unproven = 0;
  for (const fs::path &path : external_files()) {
    const std::string text = read_file(path);
    const Markers markers = read_markers(text);
    const Answer answer = answer_of(check_source(path.filename().string(), text));
    unproven += answer.unproven;
    if (markers.suite == "race-free") {
      ++race_free;
      false_alarms += answer.any_error;
      continue;
    }
    ++racy;
    const bool found = markers.suite == "race" ? answer.race : answer.divergence;
    detected += found;
    missed += !found;
  }
  std::cout << "external suite: " << racy << " racy, " << race_free << " race-free, " << detected
            << " detected, " << missed << " missed, " << false_alarms << " false alarms, "
            << unproven << " with W0901\n";
  EXPECT_EQ(racy, 21u);
  EXPECT_EQ(race_free, 18u);
  EXPECT_EQ(detected, 21u);
  EXPECT_EQ(missed, 0u);
  EXPECT_EQ(false_alarms, 2u);
  EXPECT_EQ(unproven, 6u);
}

} // namespace
} // namespace argus
