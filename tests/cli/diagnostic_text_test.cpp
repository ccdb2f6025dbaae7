#include "argus/cli/diagnostic_text.h"

#include <gtest/gtest.h>

#include <sstream>

namespace argus::cli {
namespace {

Diagnostic error_at(Range range, std::string code, std::string message) {
  return Diagnostic{Severity::Error, std::move(code), range, std::move(message), nullptr, {}};
}

std::string render(const SourceFile &source, const Diagnostic &diagnostic, bool color = false) {
  std::ostringstream out;
  write_diagnostic_text(out, source, diagnostic, TextOptions{color});
  return out.str();
}

TEST(DiagnosticTextTest, ClangStyleHeaderSourceLineAndCaret) {
  const SourceFile source("gemm.argus", "BM = 64\n    for k in range(0, K, BK):\n");
  const Diagnostic d = error_at({{1, 25}, {1, 27}}, "E0301", "undefined name 'BK'");
  EXPECT_EQ(render(source, d), "gemm.argus:2:26: error: undefined name 'BK' [E0301]\n"
                               "    for k in range(0, K, BK):\n"
                               "                         ^~\n");
}

TEST(DiagnosticTextTest, WarningsAndNotes) {
  const SourceFile source("k.argus", "x = 1\nx = 2\n");
  Diagnostic d{Severity::Warning, "W0301", {{1, 0}, {1, 1}}, "unused variable 'x'", nullptr, {}};
  d.related.push_back({{{0, 0}, {0, 1}}, "first assigned here"});
  EXPECT_EQ(render(source, d), "k.argus:2:1: warning: unused variable 'x' [W0301]\n"
                               "x = 2\n"
                               "^\n"
                               "k.argus:1:1: note: first assigned here\n"
                               "x = 1\n"
                               "^\n");
}

TEST(DiagnosticTextTest, ColumnsAreBytesPlusOneAndCaretsCountCodePoints) {
  // "é€😀" is 9 bytes and 3 code points: one space each in the caret line.
  const SourceFile source("u.argus", "x = \"é€😀\" + yy\n");
  const Diagnostic d = error_at({{0, 18}, {0, 20}}, "E0301", "undefined name 'yy'");
  EXPECT_EQ(render(source, d), "u.argus:1:19: error: undefined name 'yy' [E0301]\n"
                               "x = \"é€😀\" + yy\n"
                               "            ^~\n");
}

TEST(DiagnosticTextTest, TabsAreKeptSoTheCaretLinesUp) {
  EXPECT_EQ(render_snippet("\t\tx = yy", 6, 8, false), "\t\tx = yy\n"
                                                       "\t\t    ^~\n");
}

TEST(DiagnosticTextTest, RangeIsClippedToTheLine) {
  const SourceFile source("m.argus", "def f(a,\n      b):\n");
  const Diagnostic d = error_at({{0, 6}, {1, 7}}, "E0204", "bad parameters");
  EXPECT_EQ(render(source, d), "m.argus:1:7: error: bad parameters [E0204]\n"
                               "def f(a,\n"
                               "      ^~\n");
  EXPECT_EQ(render_snippet("abc", 1, 100, false), "abc\n ^~\n");
}

TEST(DiagnosticTextTest, EmptyRangeAndEndOfLine) {
  EXPECT_EQ(render_snippet("f(x", 3, 3, false), "f(x\n   ^\n");
  EXPECT_EQ(render_snippet("f(x", 1, 1, false), "f(x\n ^\n");
  EXPECT_EQ(render_snippet("f(x", 50, 60, false), "f(x\n   ^\n");
}

TEST(DiagnosticTextTest, LinesNotWorthShowingAreLeftOut) {
  EXPECT_EQ(render_snippet("", 0, 0, false), "");
  EXPECT_EQ(render_snippet("caf\xe9", 3, 4, false), "");
  EXPECT_EQ(render_snippet(std::string_view("a\0b", 3), 1, 2, false), "");
  EXPECT_EQ(render_snippet("a\x1b[31mb", 0, 1, false), "");
  // A diagnostic on such a line still prints its header.
  const SourceFile source("b.argus", std::string("ab\0cd", 5));
  EXPECT_EQ(render(source, error_at({{0, 2}, {0, 2}}, "E0002", "binary")),
            "b.argus:1:3: error: binary [E0002]\n");
}

TEST(DiagnosticTextTest, LongLinesAreShownAsAWindow) {
  const std::string line = std::string(300, 'a') + "target" + std::string(300, 'b');
  const std::string snippet = render_snippet(line, 300, 306, false);
  const size_t newline = snippet.find('\n');
  const std::string shown = snippet.substr(0, newline);
  const std::string carets = snippet.substr(newline + 1);
  EXPECT_TRUE(shown.starts_with("...")) << shown;
  EXPECT_TRUE(shown.ends_with("...")) << shown;
  EXPECT_LE(shown.size(), 210u);
  const size_t target = shown.find("target");
  ASSERT_NE(target, std::string::npos);
  EXPECT_EQ(carets, std::string(target, ' ') + "^~~~~~\n");
  // The start of a long line needs no leading "...".
  EXPECT_TRUE(render_snippet(line, 0, 1, false).starts_with("aaa"));
}

TEST(DiagnosticTextTest, ColorsAsClangUsesThem) {
  const SourceFile source("k.argus", "x = yy\n");
  const std::string text = render(source, error_at({{0, 4}, {0, 6}}, "E0301", "undefined"), true);
  EXPECT_EQ(text,
            "\x1b[1mk.argus:1:5: \x1b[0m\x1b[1;31merror: \x1b[0m\x1b[1mundefined [E0301]\x1b[0m\n"
            "x = yy\n"
            "    \x1b[1;32m^~\x1b[0m\n");
  Diagnostic warning = error_at({{0, 0}, {0, 1}}, "W0301", "unused");
  warning.severity = Severity::Warning;
  EXPECT_NE(render(source, warning, true).find("\x1b[1;35mwarning: "), std::string::npos);
}

TEST(DiagnosticTextTest, SummaryLine) {
  EXPECT_EQ(summary_line(0, 0), "");
  EXPECT_EQ(summary_line(1, 0), "1 error generated.");
  EXPECT_EQ(summary_line(2, 1), "2 errors, 1 warning generated.");
  EXPECT_EQ(summary_line(0, 3), "3 warnings generated.");
}

} // namespace
} // namespace argus::cli
