// confine_to_edit: a half-typed line's errors stay at it, the rest of the
// file keeps its last good analysis, and a complete edit shows everything.
#include "argus/dsl/edit_confinement.h"
#include "argus/dsl/frontend.h"

#include <gtest/gtest.h>

#include <string>

namespace argus {
namespace {

const std::string kGood = "BM = 16\n"
                          "@kernel(grid=(1,), block=(32,))\n"
                          "def k(A: Tensor((32,), f32)):\n"
                          "    unused = 1\n"
                          "    A[thread_id(0)] = f32(BM)\n"
                          "    A[thread_id(0)] = f32(BM + 1)\n";

std::string replace_line(const std::string &text, size_t index, const std::string &line) {
  std::string out;
  size_t start = 0, i = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out += (i++ == index ? line : text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

std::vector<Diagnostic> shown(const std::string &now) {
  const CheckedFile good = analyze_source("k.argus", kGood);
  const CheckedFile file = analyze_source("k.argus", now);
  return confine_to_edit(file.diagnostics, now, good.diagnostics, kGood);
}

TEST(EditConfinement, TheEditedLinesAreWhereTheTextsDiffer) {
  const EditedLines e = edited_lines("a\nb\nc\n", "a\nB\nx\nc\n");
  EXPECT_EQ(e.first, 1u);
  EXPECT_EQ(e.last, 2u);
  EXPECT_EQ(e.added, 1);
  const EditedLines deleted = edited_lines("a\nb\nc\n", "a\nc\n");
  EXPECT_EQ(deleted.first, 1u);
  EXPECT_EQ(deleted.last, 1u);
  EXPECT_EQ(deleted.added, -1);
}

// `BM = 16` typed as far as `BM`: the front end reports the uses of BM on
// lines 5 and 6 as undefined; shown are the error at the edit and the last
// good analysis of the other lines (the unused-local warning of line 4).
TEST(EditConfinement, AHalfTypedDefinitionKeepsItsErrorsAtTheEdit) {
  const std::string now = replace_line(kGood, 0, "BM");
  const CheckedFile raw = analyze_source("k.argus", now);
  bool far_in_raw = false;
  for (const Diagnostic &d : raw.diagnostics)
    far_in_raw = far_in_raw || (d.severity == Severity::Error && d.range.begin.line > 1);
  ASSERT_TRUE(far_in_raw) << "the front end no longer floods: this test lost its point";
  bool warning_kept = false;
  for (const Diagnostic &d : shown(now)) {
    if (d.severity == Severity::Error) {
      EXPECT_LE(d.range.begin.line, 1u) << d.code << " " << d.message;
    }
    warning_kept = warning_kept || (d.range.begin.line == 3 && d.severity == Severity::Warning);
  }
  EXPECT_TRUE(warning_kept);
}

// A complete edit shows every error it causes: deleting the definition
// leaves no error at the edit, so the uses are reported where they are.
TEST(EditConfinement, ACompleteEditShowsItsErrorsEverywhere) {
  const std::string now = kGood.substr(kGood.find('\n') + 1);
  size_t far = 0;
  for (const Diagnostic &d : shown(now))
    far += d.severity == Severity::Error && d.range.begin.line >= 3;
  EXPECT_EQ(far, 2u); // BM on both lines of use
}

// An unclosed bracket on the last line of a statement that started earlier:
// the parser reports it where the statement starts; shown at the edit with
// the parser's place as related information.
TEST(EditConfinement, AFarSyntaxErrorIsShownAtTheEdit) {
  const std::string head = "@kernel(grid=(1,), block=(32,))\n"
                           "def k(A: Tensor((32,), f32)):\n"
                           "    A[thread_id(0)] = f32(min(1,\n"
                           "                              2,\n"
                           "                              3,\n"
                           "                              4,\n";
  const std::string good = head + "                              5))\n";
  const std::string now = head + "                              5\n";
  const CheckedFile g = analyze_source("k.argus", good);
  const CheckedFile f = analyze_source("k.argus", now);
  bool far_in_raw = false;
  for (const Diagnostic &d : f.diagnostics)
    far_in_raw = far_in_raw || d.range.begin.line < 5;
  ASSERT_TRUE(far_in_raw) << "the parser reports this at the edit now: the test lost its point";
  const auto out = confine_to_edit(f.diagnostics, now, g.diagnostics, good);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].code, "E0101");
  EXPECT_EQ(out[0].range.begin.line, 6u);
  ASSERT_EQ(out[0].related.size(), 1u);
  EXPECT_LT(out[0].related[0].range.begin.line, 5u);
  EXPECT_NE(out[0].message.find("the parser stopped at line"), std::string::npos) << out[0].message;
}

} // namespace
} // namespace argus
