// The LSP side of semantic tokens: the relative encoding in UTF-16 and UTF-8,
// the delta edit, and the per-document results behind resultIds.
#include "argus/server/semantic_tokens.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace argus::server {
namespace {

using nlohmann::json;

std::vector<uint32_t> applied(std::vector<uint32_t> data, const SemanticTokensEdit &edit) {
  data.erase(data.begin() + static_cast<std::ptrdiff_t>(edit.start),
             data.begin() + static_cast<std::ptrdiff_t>(edit.start + edit.delete_count));
  data.insert(data.begin() + static_cast<std::ptrdiff_t>(edit.start), edit.data.begin(),
              edit.data.end());
  return data;
}

TEST(SemanticTokensEncoding, IsRelativeAndCountsTheNegotiatedUnit) {
  // "😀" is 4 UTF-8 bytes and 2 UTF-16 units; "é" 2 bytes and 1 unit.
  const SourceFile source("t.argus", "X = (\"😀\", Y)\né = 1; Zé\n");
  const std::vector<SemanticToken> tokens = {
      {{0, 0}, 1, SemanticTokenType::Variable, 1},
      {{0, 13}, 1, SemanticTokenType::Parameter, 0}, // Y after the emoji
      {{1, 8}, 3, SemanticTokenType::Function, 16},  // Zé: 3 bytes, 2 units
  };
  EXPECT_EQ(encode_semantic_tokens(source, tokens, ColumnUnit::Utf16CodeUnits),
            (std::vector<uint32_t>{0, 0, 1, 3, 1, 0, 11, 1, 2, 0, 1, 7, 2, 4, 16}));
  EXPECT_EQ(encode_semantic_tokens(source, tokens, ColumnUnit::Utf8Bytes),
            (std::vector<uint32_t>{0, 0, 1, 3, 1, 0, 13, 1, 2, 0, 1, 8, 3, 4, 16}));
  EXPECT_TRUE(encode_semantic_tokens(source, {}, ColumnUnit::Utf16CodeUnits).empty());
}

TEST(SemanticTokensEdit, KeepsTheCommonPrefixAndSuffix) {
  const std::vector<uint32_t> before = {0, 0, 1, 3, 0, 1, 4, 2, 2, 0, 0, 5, 1, 3, 0};
  std::vector<uint32_t> after = before;
  after[7] = 5; // one token's length
  auto edit = semantic_tokens_edit(before, after);
  ASSERT_TRUE(edit);
  EXPECT_EQ(edit->start, 7u);
  EXPECT_EQ(edit->delete_count, 1u);
  EXPECT_EQ(edit->data, (std::vector<uint32_t>{5}));
  EXPECT_EQ(applied(before, *edit), after);
  // A token inserted in the middle; one removed at the end; everything replaced.
  const std::vector<uint32_t> inserted = {0, 0, 1, 3, 0, 0, 2, 1, 2, 0,
                                          1, 4, 2, 2, 0, 0, 5, 1, 3, 0};
  const std::vector<uint32_t> shorter(before.begin(), before.begin() + 10);
  for (const auto &target :
       {inserted, shorter, std::vector<uint32_t>{}, std::vector<uint32_t>{9}}) {
    edit = semantic_tokens_edit(before, target);
    ASSERT_TRUE(edit);
    EXPECT_EQ(applied(before, *edit), target);
    EXPECT_LE(edit->data.size(), target.size());
  }
  EXPECT_EQ(semantic_tokens_edit(before, inserted)->delete_count, 0u);
  EXPECT_EQ(semantic_tokens_edit(before, inserted)->data.size(), 5u);
  EXPECT_FALSE(semantic_tokens_edit(before, before));
}

TEST(SemanticTokensCache, AnswersDeltasAgainstTheLastResultOnly) {
  SemanticTokensCache cache;
  const json first = cache.full("file:///a", {0, 0, 1, 3, 0});
  const std::string id = first["resultId"];
  EXPECT_EQ(first["data"], json::array({0, 0, 1, 3, 0}));
  const json delta = cache.delta("file:///a", id, {0, 0, 2, 3, 0});
  EXPECT_NE(delta["resultId"], id);
  EXPECT_FALSE(delta.contains("data"));
  EXPECT_EQ(delta["edits"], json::parse(R"([{"start":2,"deleteCount":1,"data":[2]}])"));
  // The old id is spent: a full result comes back.
  const json stale = cache.delta("file:///a", id, {0, 0, 2, 3, 0});
  EXPECT_EQ(stale["data"], json::array({0, 0, 2, 3, 0}));
  // Unchanged tokens: no edits.
  EXPECT_EQ(cache.delta("file:///a", stale["resultId"], {0, 0, 2, 3, 0})["edits"], json::array());
  // Documents are separate; a closed one is forgotten.
  EXPECT_TRUE(cache.delta("file:///b", id, {1}).contains("data"));
  EXPECT_EQ(cache.size(), 2u);
  cache.forget("file:///a");
  EXPECT_EQ(cache.size(), 1u);
}

TEST(SemanticTokensLegend, NamesEveryTypeAndModifier) {
  const json legend = semantic_tokens_legend();
  EXPECT_EQ(legend["tokenTypes"].size(), semantic_token_type_names().size());
  EXPECT_EQ(legend["tokenTypes"][static_cast<int>(SemanticTokenType::Intrinsic)], "intrinsic");
  EXPECT_EQ(legend["tokenTypes"][static_cast<int>(SemanticTokenType::Tag)], "tag");
  EXPECT_EQ(legend["tokenModifiers"][4], "kernel"); // token_modifier::kKernel == 1 << 4
  EXPECT_EQ(legend["tokenModifiers"].size(), 9u);
}

} // namespace
} // namespace argus::server
