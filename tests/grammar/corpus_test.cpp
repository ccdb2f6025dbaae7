// The corpus runner: the file format, S-expression handling, comparison, update mode.
#include "argus/grammar/corpus.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace {

using argus::grammar::CorpusOutcome;
using argus::grammar::CorpusParse;
using argus::grammar::CorpusReport;

const char *const kTwoTests = R"(==================
assignment
==================

x = 1

---

(module
  (expression_statement
    (assignment
      left: (identifier)
      right: (integer))))

=====
call, no fields
:skip
=====
f(a)
-----
(module (expression_statement (call (identifier) (argument_list (identifier)))))
)";

TEST(CorpusParse, SplitsHeadersInputsAndExpectedTrees) {
  const CorpusParse parsed = argus::grammar::parse_corpus(kTwoTests);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  ASSERT_EQ(parsed.tests.size(), 2u);
  EXPECT_EQ(parsed.tests[0].name, "assignment");
  EXPECT_EQ(parsed.tests[0].line, 1u);
  // As tree-sitter test does: the input starts after the header line and loses the newline
  // before the divider.
  EXPECT_EQ(parsed.tests[0].input, "\nx = 1\n");
  EXPECT_FALSE(parsed.tests[0].skip);
  EXPECT_FALSE(parsed.tests[0].error);
  EXPECT_EQ(parsed.tests[1].name, "call, no fields");
  EXPECT_EQ(parsed.tests[1].line, 15u);
  EXPECT_TRUE(parsed.tests[1].skip);
  EXPECT_EQ(parsed.tests[1].input, "f(a)");
  EXPECT_EQ(parsed.tests[1].expected,
            "(module (expression_statement (call (identifier) (argument_list (identifier)))))\n");
}

TEST(CorpusParse, TheLongestDashLineIsTheDivider) {
  const CorpusParse parsed = argus::grammar::parse_corpus("===\nt\n===\na\n---\nb\n------\n(x)\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.tests[0].input, "a\n---\nb");
  EXPECT_EQ(parsed.tests[0].expected, "(x)\n");
}

TEST(CorpusParse, CommentLinesOfTheExpectedTreeAreDropped) {
  const CorpusParse parsed =
      argus::grammar::parse_corpus("===\nt\n===\na\n---\n; a comment\n(x\n  ; another\n  (y))\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.tests[0].expected, "(x\n  (y))\n");
}

TEST(CorpusParse, MalformedFilesAreRejectedWithALine) {
  EXPECT_EQ(argus::grammar::parse_corpus("===\nt\n:platform(linux)\n===\na\n---\n(x)\n").error,
            "line 3: unsupported test attribute `:platform(linux)` (supported: :skip, :error)");
  EXPECT_EQ(argus::grammar::parse_corpus("===\nt\n===\na\n(x)\n").error,
            "line 1: test `t` has no divider (a line of three or more '-')");
  EXPECT_EQ(argus::grammar::parse_corpus("stray\n===\nt\n===\na\n---\n(x)\n").error,
            "line 1: text before the first test header (a line of three or more '=')");
  EXPECT_EQ(argus::grammar::parse_corpus("===|||\nt\n===|||\na\n---|||\n(x)\n").error,
            "line 1: header suffixes (`===|||`) are not supported");
  EXPECT_EQ(argus::grammar::parse_corpus("\n\n").error,
            "line 1: no tests (a test starts with a line of three or more '=')");
}

TEST(Sexp, NormalizeIgnoresWhitespaceAndCanStripFields) {
  EXPECT_EQ(argus::grammar::normalize_sexp("( module\n  (call  function:   (identifier) ) )"),
            "(module (call function: (identifier)))");
  EXPECT_EQ(argus::grammar::normalize_sexp("(a f: (b) g: (c))", true), "(a (b) (c))");
  EXPECT_EQ(argus::grammar::normalize_sexp("(a (MISSING \")\"))"), "(a (MISSING \")\"))");
  EXPECT_EQ(argus::grammar::normalize_sexp("(ERROR (UNEXPECTED '''))"), "(ERROR (UNEXPECTED '''))");
  EXPECT_FALSE(argus::grammar::normalize_sexp("(a (b)"));
  EXPECT_FALSE(argus::grammar::normalize_sexp("(a))"));
  EXPECT_FALSE(argus::grammar::normalize_sexp("(a f:)"));
  EXPECT_FALSE(argus::grammar::normalize_sexp("a"));
  EXPECT_FALSE(argus::grammar::normalize_sexp(""));
  EXPECT_TRUE(argus::grammar::sexp_has_fields("(a f: (b))"));
  EXPECT_FALSE(argus::grammar::sexp_has_fields("(a (b))"));
}

TEST(Sexp, FormatLaysOutLikeTreeSitterTestUpdate) {
  EXPECT_EQ(argus::grammar::format_sexp("(module (expression_statement (call function: "
                                        "(identifier) arguments: (argument_list))))"),
            "(module\n"
            "  (expression_statement\n"
            "    (call\n"
            "      function: (identifier)\n"
            "      arguments: (argument_list))))");
  EXPECT_EQ(argus::grammar::format_sexp("(a (MISSING identifier))"), "(a\n  (MISSING identifier))");
}

TEST(Sexp, NodeStringHasFieldNames) {
  bool has_error = true;
  EXPECT_EQ(argus::grammar::parse_to_sexp("x = 1\n", &has_error),
            "(module (expression_statement (assignment left: (identifier) right: (integer))))");
  EXPECT_FALSE(has_error);
  argus::grammar::parse_to_sexp("x = (\n", &has_error);
  EXPECT_TRUE(has_error);
}

TEST(Diff, MarksRemovedAndAddedLines) {
  EXPECT_EQ(argus::grammar::line_diff("a\nb\nc", "a\nx\nc\nd"), "  a\n- b\n+ x\n  c\n+ d\n");
  EXPECT_EQ(argus::grammar::line_diff("same", "same"), "  same\n");
}

TEST(Run, PassingFailingAndFieldlessTests) {
  const CorpusReport report = argus::grammar::run_corpus_text(
      "===\nok\n===\nx = 1\n---\n(module (expression_statement (assignment left: (identifier) "
      "right: (integer))))\n"
      "===\nwithout fields\n===\nx = 1\n---\n(module (expression_statement (assignment "
      "(identifier) (integer))))\n"
      "===\nwrong\n===\nx = 1\n---\n(module (expression_statement (assignment left: "
      "(identifier) right: (float))))\n",
      false);
  ASSERT_TRUE(report.error.empty()) << report.error;
  ASSERT_EQ(report.results.size(), 3u);
  EXPECT_EQ(report.results[0].outcome, CorpusOutcome::kPassed);
  EXPECT_EQ(report.results[1].outcome, CorpusOutcome::kPassed);
  EXPECT_EQ(report.results[2].outcome, CorpusOutcome::kFailed);
  EXPECT_EQ(report.results[2].line, 13u);
  EXPECT_EQ(report.results[2].message, "the trees differ (- expected, + actual):\n"
                                       "  (module\n"
                                       "    (expression_statement\n"
                                       "      (assignment\n"
                                       "        left: (identifier)\n"
                                       "-       right: (float))))\n"
                                       "+       right: (integer))))\n");
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.count(CorpusOutcome::kPassed), 2u);
}

TEST(Run, EmptyOrMalformedExpectedTreesFail) {
  const CorpusReport report = argus::grammar::run_corpus_text(
      "===\nempty\n===\nx\n---\n\n===\nbroken\n===\nx\n---\n(module\n", false);
  ASSERT_EQ(report.results.size(), 2u);
  EXPECT_EQ(report.results[0].outcome, CorpusOutcome::kFailed);
  EXPECT_NE(report.results[0].message.find("the expected tree is empty"), std::string::npos);
  EXPECT_EQ(report.results[1].outcome, CorpusOutcome::kFailed);
  EXPECT_NE(report.results[1].message.find("is not well-formed"), std::string::npos);
}

TEST(Run, ErrorAttributeNeedsASyntaxError) {
  const CorpusReport report = argus::grammar::run_corpus_text(
      "===\nbroken\n:error\n===\nx = (\n---\n\n===\nnot broken\n:error\n===\nx = 1\n---\n", false);
  ASSERT_EQ(report.results.size(), 2u);
  EXPECT_EQ(report.results[0].outcome, CorpusOutcome::kPassed);
  EXPECT_EQ(report.results[1].outcome, CorpusOutcome::kFailed);
  EXPECT_NE(report.results[1].message.find("expected a syntax error"), std::string::npos);
}

TEST(Run, SkippedTestsAreNotRun) {
  const CorpusReport report =
      argus::grammar::run_corpus_text("===\ns\n:skip\n===\nx = (\n---\n(garbage\n", false);
  ASSERT_EQ(report.results.size(), 1u);
  EXPECT_EQ(report.results[0].outcome, CorpusOutcome::kSkipped);
  EXPECT_TRUE(report.ok());
}

TEST(Run, UpdateRewritesOnlyFailingExpectedTrees) {
  const std::string text = "; header comment\n"
                           "===\nkept\n===\ny = 2\n---\n"
                           "(module (expression_statement (assignment (identifier) (integer))))\n"
                           "\n===\nstale\n===\nx = 1\n---\n(module)\n"
                           "\n===\nnew\n===\nf()\n---\n";
  // Text before the first header is an error: a comment line is not a header.
  EXPECT_FALSE(argus::grammar::run_corpus_text(text, true).error.empty());

  const std::string body = text.substr(text.find('\n') + 1);
  const CorpusReport report = argus::grammar::run_corpus_text(body, true);
  ASSERT_TRUE(report.error.empty()) << report.error;
  ASSERT_EQ(report.results.size(), 3u);
  EXPECT_EQ(report.results[0].outcome, CorpusOutcome::kPassed);
  EXPECT_EQ(report.results[1].outcome, CorpusOutcome::kUpdated);
  EXPECT_EQ(report.results[2].outcome, CorpusOutcome::kUpdated);
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.updated_text,
            "===\nkept\n===\ny = 2\n---\n"
            "(module (expression_statement (assignment (identifier) (integer))))\n"
            "\n===\nstale\n===\nx = 1\n---\n"
            "\n(module\n  (expression_statement\n    (assignment\n      left: (identifier)\n"
            "      right: (integer))))\n\n"
            "===\nnew\n===\nf()\n---\n"
            "\n(module\n  (expression_statement\n    (call\n      function: (identifier)\n"
            "      arguments: (argument_list))))\n");
  // The rewritten file passes as it is.
  const CorpusReport again = argus::grammar::run_corpus_text(report.updated_text, false);
  EXPECT_TRUE(again.ok());
  EXPECT_EQ(again.count(CorpusOutcome::kPassed), 3u);
}

TEST(Run, UpdateModeWritesTheFile) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("argus_corpus_test_" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream out(path);
    out << "===\nt\n===\nx\n---\n(wrong)\n";
  }
  EXPECT_FALSE(argus::grammar::run_corpus_file(path, false).ok());
  EXPECT_TRUE(argus::grammar::run_corpus_file(path, true).ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "===\nt\n===\nx\n---\n\n(module\n  (expression_statement\n    "
                        "(identifier)))\n");
  EXPECT_TRUE(argus::grammar::run_corpus_file(path, false).ok());
  std::filesystem::remove(path);

  EXPECT_EQ(argus::grammar::run_corpus_file(path, false).error, "cannot read the file");
}

TEST(Run, UpdateRequestedFromTheEnvironment) {
  ::setenv("ARGUS_UPDATE_CORPUS", "1", 1);
  EXPECT_TRUE(argus::grammar::corpus_update_requested());
  ::setenv("ARGUS_UPDATE_CORPUS", "0", 1);
  EXPECT_FALSE(argus::grammar::corpus_update_requested());
  ::unsetenv("ARGUS_UPDATE_CORPUS");
  EXPECT_FALSE(argus::grammar::corpus_update_requested());
}

} // namespace
