// Data-driven front-end tests: the fixtures under tests/fixtures/ and the
// examples under examples/.
//
// A fixture states the diagnostics it must produce with marker comments on the
// line where each diagnostic STARTS:
//
//     y = later + 1  # expect: E0301
//     x = f(y)       # expect: E0601, W0301
//
// The multiset of (line, code) of all diagnostics of the file must equal the
// markers: a missing one and an unexpected one are both failures, reported as
// file:line. A fixture without markers must check clean. Adding a case is
// adding a file; ctest shows one test per fixture.
#include "argus/dsl/codes.h"
#include "argus/dsl/driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace argus {
namespace {

namespace fs = std::filesystem;

// Codes no fixture can carry a marker for, each tested elsewhere:
const std::set<std::string> kCodesTestedElsewhere = {
    "E0001", // empty file: tests/cli (CliBadInputTest.EmptyFile); its range is 1:1 of any file
    "E0002", // binary / invalid UTF-8: tests/cli (BinaryFile, InvalidUtf8ReportsTheByteOffset)
    "E0003", // file too large: tests/cli (TenMegabyteFile, MaxFileSizeOption)
    "E0004", // nesting too deep: tests/cli (TenThousandNestedParentheses)
};

const fs::path kSourceDir = ARGUS_SOURCE_DIR;

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string repo_relative(const fs::path &path) {
  return path.lexically_relative(kSourceDir).generic_string();
}

// The .argus files under `dir`, sorted; recursive for fixtures.
std::vector<fs::path> argus_files(const fs::path &dir, bool recursive) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return files;
  const auto add = [&](const fs::directory_entry &entry) {
    if (entry.is_regular_file() && entry.path().extension() == ".argus")
      files.push_back(entry.path());
  };
  if (recursive) {
    for (const auto &entry : fs::recursive_directory_iterator(dir))
      add(entry);
  } else {
    for (const auto &entry : fs::directory_iterator(dir))
      add(entry);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The front end's fixtures. The checker's corpus (tests/checker/corpus/) is
// not among them: tests/checker/corpus_test.cpp holds every corpus file to
// its markers, codes and counterexample facts, which is all this test
// would check of them again (a second full check of each, in both CI stages).
std::vector<fs::path> fixture_files() {
  return argus_files(kSourceDir / "tests" / "fixtures", true);
}

// Fixtures and corpus: the codes some file expects.
std::vector<fs::path> files_with_markers() {
  std::vector<fs::path> files = fixture_files();
  for (const fs::path &p : argus_files(kSourceDir / "tests" / "checker" / "corpus", true))
    files.push_back(p);
  return files;
}
std::vector<fs::path> example_files() { return argus_files(kSourceDir / "examples", false); }

bool is_known_code(const std::string &code) {
  const auto all = codes::all_codes();
  return std::any_of(all.begin(), all.end(),
                     [&](const codes::CodeInfo &info) { return info.code == code; });
}

using LineCode = std::pair<uint32_t, std::string>; // 1-based line, code

struct Markers {
  std::multiset<LineCode> expected;
  std::vector<std::string> problems; // malformed markers, as "file:line: ..."
};

// Reads the `# expect: CODE[, CODE...]` markers of a fixture.
Markers read_markers(const std::string &name, const std::string &text) {
  static const std::regex kMarker(R"(#\s*expect:\s*(.*)$)");
  static const std::regex kCode(R"([EW][0-9]{4})");
  Markers markers;
  std::istringstream lines(text);
  std::string line;
  for (uint32_t number = 1; std::getline(lines, line); ++number) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::smatch match;
    if (!std::regex_search(line, match, kMarker))
      continue;
    std::string list = match[1];
    std::replace(list.begin(), list.end(), ',', ' ');
    std::istringstream words(list);
    std::string code;
    bool any = false;
    while (words >> code) {
      any = true;
      if (code.find('=') != std::string::npos)
        continue; // a fact about the counterexample (tests/checker/)
      const std::string where = name + ":" + std::to_string(number) + ": ";
      if (!std::regex_match(code, kCode))
        markers.problems.push_back(where + "malformed code '" + code + "' in an expect marker");
      else if (!is_known_code(code))
        markers.problems.push_back(where + "unknown code " + code + " (not in codes.h)");
      else
        markers.expected.emplace(number, code);
    }
    if (!any)
      markers.problems.push_back(name + ":" + std::to_string(number) + ": empty expect marker");
  }
  return markers;
}

std::string test_name(const fs::path &path, const fs::path &base) {
  std::string name = path.lexically_relative(base).replace_extension().generic_string();
  for (char &c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  }
  return name;
}

std::string describe(const std::string &name, const Diagnostic &d) {
  return name + ":" + std::to_string(d.range.begin.line + 1) + ":" +
         std::to_string(d.range.begin.column + 1) + ": " + severity_name(d.severity) + ": " +
         d.message + " [" + d.code + "]";
}

// ---------------------------------------------------------------------------
// (a) fixtures: diagnostics == markers

// What differs between the diagnostics of a fixture and its markers, one
// "file:line: ..." per line; empty when they agree.
std::string mismatch_report(const std::string &name, const std::string &text) {
  const Markers markers = read_markers(name, text);
  std::string report;
  for (const std::string &problem : markers.problems)
    report += problem + "\n";

  const CheckedFile checked = check_source(name, text);
  std::multiset<LineCode> actual;
  for (const Diagnostic &d : checked.diagnostics)
    actual.emplace(d.range.begin.line + 1, d.code);

  std::vector<LineCode> missing;
  std::set_difference(markers.expected.begin(), markers.expected.end(), actual.begin(),
                      actual.end(), std::back_inserter(missing));
  std::vector<LineCode> unexpected;
  std::set_difference(actual.begin(), actual.end(), markers.expected.begin(),
                      markers.expected.end(), std::back_inserter(unexpected));
  for (const auto &[line, code] : missing)
    report += name + ":" + std::to_string(line) + ": expected " + code + ", not reported\n";
  // One line per unexpected (line, code), with the message of a diagnostic of that kind.
  for (const auto &[line, code] : unexpected) {
    const auto d = std::find_if(checked.diagnostics.begin(), checked.diagnostics.end(),
                                [&, line = line, code = code](const Diagnostic &d) {
                                  return d.range.begin.line + 1 == line && d.code == code;
                                });
    report += describe(name, *d) + "   <- unexpected\n";
  }
  if (missing.empty() && unexpected.empty())
    return report;
  report += "all diagnostics of the file:\n";
  for (const Diagnostic &d : checked.diagnostics)
    report += "  " + describe(name, d) + "\n";
  if (checked.diagnostics.empty())
    report += "  none\n";
  return report;
}

class FixtureTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(FixtureTest, DiagnosticsMatchExpectMarkers) {
  const fs::path &path = GetParam();
  const std::string report = mismatch_report(repo_relative(path), read_file(path));
  EXPECT_TRUE(report.empty()) << report;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(fixture_files()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return test_name(info.param, kSourceDir / "tests");
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureTest);

TEST(FixtureMarkersTest, MarkersAreParsed) {
  const Markers markers = read_markers("t.argus", "x = 1\n"
                                                  "y = z  # expect: E0301\n"
                                                  "f(q)  #expect:E0601,W0301  E0301\n"
                                                  "# expect: E9999, bogus\n"
                                                  "# expect:\n");
  const std::multiset<LineCode> expected = {{2, "E0301"}, {3, "E0601"}, {3, "W0301"}, {3, "E0301"}};
  EXPECT_EQ(markers.expected, expected);
  EXPECT_EQ(markers.problems,
            (std::vector<std::string>{"t.argus:4: unknown code E9999 (not in codes.h)",
                                      "t.argus:4: malformed code 'bogus' in an expect marker",
                                      "t.argus:5: empty expect marker"}));
}

TEST(FixtureMarkersTest, MismatchesAreReportedWithFileAndLine) {
  const std::string kernel = "@kernel(grid=1, block=32)\n"
                             "def k(X: Tensor((32,), f32)):\n";
  EXPECT_EQ(mismatch_report("ok.argus", kernel + "    X[0] = nope  # expect: E0301\n"), "");
  const std::string report =
      mismatch_report("bad.argus", kernel + "    X[0] = nope\n"
                                            "    X[1] = 1.0  # expect: E0301\n");
  EXPECT_NE(report.find("bad.argus:4: expected E0301, not reported\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("bad.argus:3:12: error: "), std::string::npos) << report;
  EXPECT_NE(report.find("[E0301]   <- unexpected\n"), std::string::npos) << report;
}

TEST(FixtureMarkersTest, FixturesExist) { EXPECT_FALSE(fixture_files().empty()); }

// ---------------------------------------------------------------------------
// (b) examples: no front-end errors (warnings allowed); their invariants are
// tests/checker/'s ExamplesTest

class ExampleTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(ExampleTest, ChecksWithoutErrors) {
  const fs::path &path = GetParam();
  const std::string name = repo_relative(path);
  FrontendOptions options;
  options.invariants = false;
  const CheckedFile checked = check_source(name, read_file(path), options);
  for (const Diagnostic &d : checked.diagnostics) {
    if (d.severity == Severity::Error)
      ADD_FAILURE() << describe(name, d);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTest, ::testing::ValuesIn(example_files()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return test_name(info.param, kSourceDir / "examples");
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ExampleTest);

// ---------------------------------------------------------------------------
// (c) every code is documented and expected by a fixture

TEST(DiagnosticCodesTest, EveryCodeHasASectionInDocsDiagnostics) {
  const std::string docs = read_file(kSourceDir / "docs" / "diagnostics.md");
  ASSERT_FALSE(docs.empty()) << "docs/diagnostics.md is missing";
  for (const codes::CodeInfo &info : codes::all_codes()) {
    const std::regex heading("(^|\n)#+ " + std::string(info.code) + "\\b");
    EXPECT_TRUE(std::regex_search(docs, heading))
        << info.code << " (" << info.title << ") has no '### " << info.code
        << "' section in docs/diagnostics.md";
  }
}

TEST(DiagnosticCodesTest, EveryCodeIsExpectedByAFixture) {
  std::set<std::string> expected;
  for (const fs::path &path : files_with_markers()) {
    for (const auto &[line, code] : read_markers(repo_relative(path), read_file(path)).expected)
      expected.insert(code);
  }
  for (const codes::CodeInfo &info : codes::all_codes()) {
    const std::string code(info.code);
    if (kCodesTestedElsewhere.count(code))
      continue;
    EXPECT_TRUE(expected.count(code))
        << code << " (" << info.title << ") is expected by no fixture under tests/fixtures/";
  }
}

TEST(DiagnosticCodesTest, AllowListNamesRealCodes) {
  for (const std::string &code : kCodesTestedElsewhere)
    EXPECT_TRUE(is_known_code(code)) << code;
}

} // namespace
} // namespace argus
