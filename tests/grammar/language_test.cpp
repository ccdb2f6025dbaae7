// The grammar library and the tree-sitter runtime agree on the ABI.
#include "argus/grammar/language.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

namespace {

TEST(Language, GrammarIsAbi14AndTheRuntimeAcceptsIt) {
  const TSLanguage *language = argus::grammar::language();
  ASSERT_NE(language, nullptr);
  // tree-sitter-python 0.23.6 is generated for ABI 14; the runtime (0.20.7) reads 13..14.
  EXPECT_EQ(ts_language_version(language), 14u);
  EXPECT_EQ(TREE_SITTER_LANGUAGE_VERSION, 14);
  EXPECT_LE(TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION, 14);

  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), &ts_parser_delete);
  ASSERT_TRUE(ts_parser_set_language(parser.get(), language));
  EXPECT_EQ(ts_parser_language(parser.get()), language);
}

TEST(Language, ParsesArgusShapedPython) {
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), &ts_parser_delete);
  ASSERT_TRUE(ts_parser_set_language(parser.get(), argus::grammar::language()));
  const char *source = "@kernel(grid=1, block=32)\n"
                       "def k(A: Tensor((M,), f32)):\n"
                       "    A[thread_id()] = 0.0\n";
  std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree(
      ts_parser_parse_string(parser.get(), nullptr, source,
                             static_cast<uint32_t>(std::strlen(source))),
      &ts_tree_delete);
  ASSERT_NE(tree, nullptr);
  const TSNode root = ts_tree_root_node(tree.get());
  EXPECT_STREQ(ts_node_type(root), "module");
  EXPECT_FALSE(ts_node_has_error(root));
  ASSERT_EQ(ts_node_named_child_count(root), 1u);
  EXPECT_STREQ(ts_node_type(ts_node_named_child(root, 0)), "decorated_definition");
}

TEST(Language, FieldNamesTheQueriesRelyOnExist) {
  const TSLanguage *language = argus::grammar::language();
  for (const char *field : {"name", "parameters", "body", "function", "arguments", "object",
                            "attribute", "left", "right", "type", "value", "definition"}) {
    EXPECT_NE(
        ts_language_field_id_for_name(language, field, static_cast<uint32_t>(std::strlen(field))),
        0)
        << field;
  }
}

} // namespace
