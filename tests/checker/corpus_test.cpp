// The checker's corpus (tests/checker/corpus/*.argus): correct kernels and
// planted bugs. Markers on the line where a diagnostic starts name its code
// and, as key=value words after it, facts of its counterexample:
//
//     a_smem[r, c] = A[m0 + r, k0 + c]  # expect: E0902 check=read-write kt=1 thread=0
//
// Keys: check, tensor, coord (a;b), thread (x[;y[;z]]), block (x;y[;z]),
// fix (a fix id the diagnostic must list), found_by (z3), and any other key
// is a loop variable of data.iteration. Every diagnostic must be expected;
// every counterexample must replay on the interpreter; every listed fix,
// applied, must leave fewer diagnostics of its code.
#include "argus/dsl/checker.h"
#include "argus/dsl/codes.h"
#include "argus/dsl/driver.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace argus {
namespace {

namespace fs = std::filesystem;
using checker_test::kSourceDir;
using checker_test::read_file;

// The corpus and the kernels translated from GPUVerify's suite (external_test.cpp).
std::vector<fs::path> corpus_files() {
  return checker_test::argus_files({"tests/checker/corpus", "tests/checker/external"});
}

struct Expectation {
  uint32_t line = 0; // 1-based
  std::string code;
  std::map<std::string, std::string> facts;
};

std::vector<Expectation> read_expectations(const std::string &text) {
  static const std::regex kMarker(R"(#\s*expect:\s*(.*)$)");
  std::vector<Expectation> out;
  std::istringstream lines(text);
  std::string line;
  for (uint32_t number = 1; std::getline(lines, line); ++number) {
    std::smatch match;
    if (!std::regex_search(line, match, kMarker))
      continue;
    std::string list = match[1];
    // A second comment after the marker (`# known-false-alarm: ...`) is not part of it.
    list = list.substr(0, list.find('#'));
    std::replace(list.begin(), list.end(), ',', ' ');
    std::istringstream words(list);
    std::string word;
    // (tuples inside facts are written with ';': coord=0;16)
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) {
        out.push_back(Expectation{number, word, {}});
      } else if (!out.empty() && out.back().line == number) {
        out.back().facts[word.substr(0, eq)] = word.substr(eq + 1);
      }
    }
  }
  return out;
}

std::string ints_text(const nlohmann::json &array, size_t count) {
  std::string s;
  for (size_t i = 0; i < count && i < array.size(); ++i)
    s += (i ? "," : "") + array[i].dump();
  return s;
}

// Why a diagnostic does not have the facts, or "" when it has them all.
std::string fact_mismatch(const Diagnostic &d, const std::map<std::string, std::string> &facts) {
  std::string why;
  const nlohmann::json &data = d.data;
  for (auto [key, want] : facts) {
    std::replace(want.begin(), want.end(), ';', ',');
    std::string got;
    if (key == "check")
      got = data.value("check", "");
    else if (key == "tensor")
      got = data.contains("element") ? data["element"].value("tensor", "") : "";
    else if (key == "coord")
      got = data.contains("element") ? ints_text(data["element"]["coord"], 8) : "";
    else if (key == "thread" || key == "block") {
      const size_t n = static_cast<size_t>(std::count(want.begin(), want.end(), ',') + 1);
      got = data.contains("thread") && data["thread"].is_object()
                ? ints_text(data["thread"][key], n)
                : "";
    } else if (key == "fix") {
      const auto &fixes = data.value("fixes", nlohmann::json::array());
      got = std::find(fixes.begin(), fixes.end(), want) != fixes.end() ? want : fixes.dump();
    } else if (key == "found_by")
      got = data.value("found_by", "interpreter");
    else
      got = data.contains("iteration") && data["iteration"].contains(key)
                ? data["iteration"][key].dump()
                : "";
    if (got != want)
      why += " " + key + "=" + got + " (expected " + want + ")";
  }
  return why;
}

bool is_checker_code(const std::string &code) {
  return code.rfind("E09", 0) == 0 || code.rfind("W09", 0) == 0;
}

// The four checks of a corpus file below share its one check_source (the
// test at the end runs them): under the sanitizers a check is most of a test's
// time, and the file's tests run in one process whatever the sharding.
void violations_and_counterexamples_match_markers(const fs::path &path, const CheckedFile &file) {
  const std::string name = path.filename().string();
  const std::string text = read_file(path);
  std::vector<Expectation> expected = read_expectations(text);
  std::vector<bool> used(file.diagnostics.size(), false);
  for (const Expectation &e : expected) {
    bool found = false;
    std::string near;
    for (size_t i = 0; i < file.diagnostics.size(); ++i) {
      const Diagnostic &d = file.diagnostics[i];
      if (used[i] || d.range.begin.line + 1 != e.line || d.code != e.code)
        continue;
      const std::string why = fact_mismatch(d, e.facts);
      if (!why.empty()) {
        near += "\n  " + d.message + ":" + why;
        continue;
      }
      used[i] = found = true;
      break;
    }
    EXPECT_TRUE(found) << name << ":" << e.line << ": expected " << e.code << near;
  }
  for (size_t i = 0; i < file.diagnostics.size(); ++i)
    if (!used[i]) {
      const Diagnostic &d = file.diagnostics[i];
      ADD_FAILURE() << name << ":" << d.range.begin.line + 1 << ": unexpected " << d.code << " "
                    << d.message;
    }
}

// `# verdict: tags=all-sizes stores=instances`: what the verification summary
// of every kernel of the file says of those properties (the proofs for all
// sizes must reach the kernels they claim, and no further).
void verdicts_match_markers(const fs::path &path, const CheckedFile &file) {
  const std::string name = path.filename().string();
  static const std::regex kMarker(R"(#\s*verdict:\s*(.*)$)");
  std::istringstream lines(read_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_search(line, match, kMarker))
      continue;
    std::istringstream words(match[1].str());
    std::string word;
    while (words >> word) {
      const auto eq = word.find('=');
      ASSERT_NE(eq, std::string::npos) << name << ": " << word;
      const std::string property = word.substr(0, eq), want = word.substr(eq + 1);
      ASSERT_FALSE(file.verification.empty()) << name;
      for (const check::VerificationSummary &s : file.verification) {
        const auto it = std::find_if(s.properties.begin(), s.properties.end(),
                                     [&](const auto &p) { return p.property == property; });
        ASSERT_NE(it, s.properties.end()) << name << ": no property " << property;
        EXPECT_EQ(check::verdict_name(it->verdict), want)
            << name << ": " << s.kernel << " " << property << ": " << it->detail;
      }
    }
  }
}

// Under the sanitizers the replays and fixes of the long kernels are left to the Release
// build, as the sweeps are (checker_test::sweep_files): replaying and fixing run the same code
// for the short files, and their own check above runs under ASan and UBSan.
bool replayed_here(const fs::path &path) {
#ifdef ARGUS_SANITIZED_BUILD
  return !checker_test::is_long_kernel_file(path);
#else
  (void)path;
  return true;
#endif
}

void every_counterexample_replays(const fs::path &path, const CheckedFile &file) {
  const std::string name = path.filename().string();
  for (const Diagnostic &d : file.diagnostics) {
    if (!is_checker_code(d.code) || d.code == codes::kUnproven)
      continue;
    ASSERT_TRUE(d.data.is_object()) << d.message;
    for (const char *key : {"kind", "check", "kernel", "sizes", "program_point", "fixes"})
      EXPECT_TRUE(d.data.contains(key)) << name << ": " << d.message << " has no " << key;
    if (d.data.contains("origin")) {
      EXPECT_FALSE(d.related.empty()) << d.message;
    }
    EXPECT_TRUE(check::replay(file, d.data["kernel"].get<std::string>(), d.data))
        << name << ":" << d.range.begin.line + 1 << ": the counterexample of '" << d.message
        << "' does not replay: " << d.data.dump();
    // Traced, it replays the same and the element's history ends at the violation.
    nlohmann::json history;
    ASSERT_TRUE(check::replay(file, d.data["kernel"].get<std::string>(), d.data, &history))
        << name << ":" << d.range.begin.line + 1 << ": does not replay traced";
    ASSERT_TRUE(history.is_array() && !history.empty()) << d.message;
    EXPECT_EQ(history.back()["action"], "violation");
    EXPECT_EQ(history.back()["program_point"], d.data["program_point"]);
    for (const auto &step : history) {
      if (step.contains("program_point")) {
        EXPECT_LT(step["program_point"]["line"].get<uint32_t>(), file.source->line_count())
            << name << ": " << step.dump();
      }
    }
  }
}

void every_listed_fix_removes_its_violation(const fs::path &path, const CheckedFile &file) {
  const std::string name = path.filename().string();
  for (const Diagnostic &d : file.diagnostics) {
    if (!d.data.is_object() || !d.data.contains("fixes"))
      continue;
    for (const auto &fix : d.data["fixes"]) {
      auto edits = check::fix_edits(d.data, fix.get<std::string>());
      ASSERT_TRUE(edits.has_value()) << fix << " of " << d.message << " has no edits";
      const std::string fixed = check::apply_edits(file.source->text(), *edits, *file.source);
      const CheckedFile after = check_source(name, fixed);
      auto count = [&](const CheckedFile &f) {
        return std::count_if(f.diagnostics.begin(), f.diagnostics.end(),
                             [&](const Diagnostic &x) { return x.code == d.code; });
      };
      EXPECT_LT(count(after), count(file)) << name << ": " << fix << " did not help:\n" << fixed;
      for (const Diagnostic &x : after.diagnostics)
        EXPECT_FALSE(x.code.rfind("E0", 0) == 0 && !is_checker_code(x.code))
            << fix << " broke the file: " << x.message;
    }
  }
}

class CorpusTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(CorpusTest, MarkersVerdictsReplaysAndFixes) {
  const fs::path &path = GetParam();
  // As `argus check` runs on two cores: two runs at once, or the two halves
  // of a grid when a run is alone (split_run_test.cpp: the same report).
  FrontendOptions options;
  options.checker.run_threads = 2;
  const CheckedFile file = check_source(path.filename().string(), read_file(path), options);
  {
    SCOPED_TRACE("every diagnostic expected, every marker met, with its facts");
    violations_and_counterexamples_match_markers(path, file);
  }
  {
    SCOPED_TRACE("the verification summary as `# verdict:` says");
    verdicts_match_markers(path, file);
  }
  if (!replayed_here(path))
    return;
  {
    SCOPED_TRACE("every counterexample replays");
    every_counterexample_replays(path, file);
  }
  {
    SCOPED_TRACE("every listed fix removes its violation");
    every_listed_fix_removes_its_violation(path, file);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(corpus_files()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return checker_test::test_name(info.param);
                         });

// Every rule: a corpus kernel that violates it (a marker with its code) and
// one that exercises the same construct correctly (no diagnostic of that code).
TEST(CorpusCoverageTest, EveryRuleHasAPositiveAndANegativeKernel) {
  const std::map<std::string, std::string> positive = {
      {"E0901", "tiled_ok.argus"},         // assert_tag, stores into tagged C
      {"E0902", "tiled_ok.argus"},         // both barriers present
      {"E0903", "row_sums_ok.argus"},      // bounds proved for all sizes
      {"E0904", "tiled_ok.argus"},         // the whole tile is copied
      {"E0905", "tiled_ok.argus"},         // barriers outside thread-dependent code
      {"E0906", "mma_ok.argus"},           // async_wait before the reads
      {"E0907", "tiled_ok.argus"},         // assert_covered holds
      {"E0908", "copy_vector_ok.argus"},   // assert_covered holds
      {"E0909", "wgmma_ok.argus"},         // 128-byte swizzled K-major wgmma tiles
      {"W0901", "tiled_ok.argus"},         // the same assumption in translatable form
      {"W0902", "tiled_ok.argus"},         // padded rows
      {"W0903", "copy_vector_ok.argus"},   // coalesced copy
      {"W0904", "copy_vector_ok.argus"},   // 16-byte views
      {"W0905", "fragment_hoisted.argus"}, // the fragment loaded once
  };
  std::set<std::string> negative;
  for (const fs::path &p : corpus_files())
    for (const Expectation &e : read_expectations(read_file(p)))
      negative.insert(e.code);
  for (const codes::CodeInfo &info : codes::all_codes()) {
    const std::string code(info.code);
    if (!is_checker_code(code))
      continue;
    EXPECT_TRUE(negative.count(code)) << code << " has no violating kernel in the corpus";
    auto it = positive.find(code);
    ASSERT_NE(it, positive.end()) << code << " has no correct kernel named";
    const fs::path path = kSourceDir / "tests" / "checker" / "corpus" / it->second;
    const CheckedFile file = check_source(it->second, read_file(path));
    EXPECT_FALSE(file.has_errors()) << it->second;
    for (const Diagnostic &d : file.diagnostics)
      EXPECT_NE(d.code, code) << it->second << ": " << d.message;
  }
}

// The examples (and the tuning variants of bench/variants, which must be as correct as the
// examples they change) carry tags and assertions, and check without errors. One test per
// file: under the sanitizers the binary runs as shards, which a single test of every
// example (250 s there) left unbalanced.
std::vector<fs::path> example_files() {
  std::vector<fs::path> files;
#ifdef ARGUS_SANITIZED_BUILD
  // The variants change constants of examples checked here already: the same
  // code paths, so the sanitizer tree does not pay for them twice.
  const std::vector<const char *> dirs = {"examples"};
#else
  const std::vector<const char *> dirs = {"examples", "bench/variants"};
#endif
  for (const char *dir : dirs)
    for (const auto &e : fs::directory_iterator(kSourceDir / dir))
      if (e.path().extension() == ".argus")
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ExamplesTest, ThereAreExamples) { EXPECT_GT(example_files().size(), 20u); }

class ExampleFileTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(ExampleFileTest, TaggedCheckCleanAndSaySoPerProperty) {
  const fs::path &path = GetParam();
  const std::string text = read_file(path);
  EXPECT_NE(text.find("tag("), std::string::npos) << path;
  EXPECT_NE(text.find("assert_"), std::string::npos) << path;
  const CheckedFile file = check_source(path.filename().string(), text);
  for (const Diagnostic &d : file.diagnostics)
    EXPECT_NE(d.severity, Severity::Error) << path.filename() << ": " << d.message;
  // A verification summary per kernel, every property checked at least at the instances.
  size_t kernels = 0;
  for (const auto &fn : file.sema->functions)
    kernels += fn.role == sema::FunctionRole::Kernel;
  ASSERT_EQ(file.verification.size(), kernels) << path;
  for (const check::VerificationSummary &s : file.verification) {
    EXPECT_EQ(s.properties.size(), 9u) << path;
    EXPECT_FALSE(s.instances.empty()) << path;
    for (const check::PropertyVerdict &p : s.properties)
      EXPECT_NE(p.verdict, check::Verdict::NotChecked) << path << " " << p.property;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleFileTest, ::testing::ValuesIn(example_files()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return (info.param.parent_path().filename() == "variants" ? "variant_"
                                                                                     : "") +
                                  checker_test::test_name(info.param);
                         });

} // namespace
} // namespace argus
