// LSP positions to byte offsets and incremental edits, in UTF-16 and UTF-8,
// with non-ASCII text (two-, three- and four-byte characters).
#include "argus/server/document.h"

#include "argus/dsl/syntax_tree.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace argus::server {
namespace {

// "é" is 2 UTF-8 bytes / 1 UTF-16 unit; "€" 3 / 1; "😀" 4 / 2 (a surrogate pair).
const std::string kText = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z\nsecond\r\nthird";

TEST(OffsetOf, Utf16CountsSurrogatePairsAsTwoUnits) {
  const auto at = [](uint32_t character) {
    return offset_of(kText, {0, character}, ColumnUnit::Utf16CodeUnits);
  };
  EXPECT_EQ(at(0), 0u);
  EXPECT_EQ(at(1), 1u);   // after a
  EXPECT_EQ(at(2), 3u);   // after é
  EXPECT_EQ(at(3), 6u);   // after €
  EXPECT_EQ(at(4), 6u);   // the middle of 😀 clamps to its start
  EXPECT_EQ(at(5), 10u);  // after 😀
  EXPECT_EQ(at(6), 11u);  // after z
  EXPECT_EQ(at(99), 11u); // past the end of the line: the end of the line
}

TEST(OffsetOf, Utf8CountsBytes) {
  const auto at = [](uint32_t character) {
    return offset_of(kText, {0, character}, ColumnUnit::Utf8Bytes);
  };
  EXPECT_EQ(at(1), 1u);
  EXPECT_EQ(at(2), 1u); // inside é
  EXPECT_EQ(at(3), 3u);
  EXPECT_EQ(at(6), 6u);
  EXPECT_EQ(at(8), 6u); // inside 😀
  EXPECT_EQ(at(10), 10u);
}

TEST(OffsetOf, LinesAndCarriageReturns) {
  EXPECT_EQ(offset_of(kText, {1, 0}, ColumnUnit::Utf16CodeUnits), 12u);
  EXPECT_EQ(offset_of(kText, {1, 99}, ColumnUnit::Utf16CodeUnits), 18u); // before \r\n
  EXPECT_EQ(offset_of(kText, {2, 2}, ColumnUnit::Utf16CodeUnits), 22u);
  EXPECT_EQ(offset_of(kText, {9, 0}, ColumnUnit::Utf16CodeUnits), kText.size());
}

TEST(ApplyEdit, ReplacesAfterASurrogatePairInUtf16) {
  std::string text = kText;
  // Replace "z" (UTF-16 columns 5..6) with "Ω".
  apply_edit(text, {{0, 5}, {0, 6}}, "\xCE\xA9", ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(text.substr(0, 12), "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xCE\xA9");
}

TEST(ApplyEdit, DeletesASurrogatePairInUtf16) {
  std::string text = "x\xF0\x9F\x98\x80y";
  apply_edit(text, {{0, 1}, {0, 3}}, "", ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(text, "xy");
}

TEST(ApplyEdit, DeletesACharacterInUtf8) {
  std::string text = "x\xC3\xA9y";
  apply_edit(text, {{0, 1}, {0, 3}}, "e", ColumnUnit::Utf8Bytes);
  EXPECT_EQ(text, "xey");
}

TEST(ApplyEdit, SpansLinesAndInserts) {
  std::string text = "one\ntwo\nthree";
  apply_edit(text, {{0, 1}, {2, 2}}, "X", ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(text, "oXree");
  apply_edit(text, {{0, 5}, {0, 5}}, "\nfour", ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(text, "oXree\nfour");
}

TEST(ApplyEdit, ReversedRangeInsertsAtStart) {
  std::string text = "abcdef";
  apply_edit(text, {{0, 4}, {0, 2}}, "-", ColumnUnit::Utf16CodeUnits);
  EXPECT_EQ(text, "abcd-ef");
}

TEST(DocumentStore, OpenFindClose) {
  DocumentStore store;
  store.open("file:///a", "x", 3);
  ASSERT_NE(store.find("file:///a"), nullptr);
  EXPECT_EQ(store.find("file:///a")->version, 3);
  EXPECT_TRUE(store.close("file:///a"));
  EXPECT_FALSE(store.close("file:///a"));
  EXPECT_EQ(store.find("file:///a"), nullptr);
}

} // namespace
} // namespace argus::server

namespace argus::server {
namespace {

std::string sexp(const SyntaxTree &tree) {
  char *text = ts_node_string(tree.root());
  std::string result(text);
  free(text);
  return result;
}

// Edits told to the old tree with input_edit, then an incremental reparse,
// give the same tree as parsing the new text from scratch (a wrong new end,
// for one, leaves stale nodes behind).
TEST(InputEdit, IncrementalReparseMatchesAFreshParse) {
  std::string text = "N = 4\n"
                     "@kernel(grid=(1,), block=(32,))\n"
                     "def k(A: Tensor((32,), f32)):\n"
                     "    x = \"\xC3\xA9\"  # \xF0\x9F\x98\x80\n"
                     "    A[thread_id(0)] = 1.0\n";
  SyntaxTree tree = SyntaxTree::parse(text);
  struct Edit {
    std::string_view find;
    std::string_view replacement;
  };
  const Edit edits[] = {{"N = 4", "N = 16\nM = 2"},
                        {"1.0", "x + 2.0"},
                        {"\xF0\x9F\x98\x80", ""},
                        {"(32,)", "(N, M)"},
                        {"    A[", "    if x:\n        A["}};
  for (const Edit &e : edits) {
    const size_t start = text.find(e.find);
    ASSERT_NE(start, std::string::npos) << e.find;
    tree.edit(input_edit(text, start, start + e.find.size(), e.replacement));
    text.replace(start, e.find.size(), e.replacement);
    tree = SyntaxTree::reparse(text, tree);
    EXPECT_EQ(sexp(tree), sexp(SyntaxTree::parse(text))) << "after replacing " << e.find;
  }
}

TEST(InputEdit, PointsCountRowsAndByteColumns) {
  const TSInputEdit edit = input_edit("ab\nc\xC3\xA9x\n", 4, 7, "Q\nR");
  EXPECT_EQ(edit.start_byte, 4u);
  EXPECT_EQ(edit.old_end_byte, 7u);
  EXPECT_EQ(edit.new_end_byte, 7u);
  EXPECT_EQ(edit.start_point.row, 1u);
  EXPECT_EQ(edit.start_point.column, 1u);
  EXPECT_EQ(edit.old_end_point.row, 1u);
  EXPECT_EQ(edit.old_end_point.column, 4u);
  EXPECT_EQ(edit.new_end_point.row, 2u);
  EXPECT_EQ(edit.new_end_point.column, 1u);
  // Out-of-range offsets are clamped, never read past the text.
  const TSInputEdit clamped = input_edit("abc", 2, 99, "");
  EXPECT_EQ(clamped.old_end_byte, 3u);
}

} // namespace
} // namespace argus::server
