// LSP positions to byte offsets and incremental edits, in UTF-16 and UTF-8,
// with non-ASCII text (two-, three- and four-byte characters).
#include "argus/server/document.h"

#include <gtest/gtest.h>

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
