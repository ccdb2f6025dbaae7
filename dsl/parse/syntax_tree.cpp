#include "argus/dsl/syntax_tree.h"

#include "argus/grammar/language.h"

#include <cstdint>

namespace argus {
namespace {

struct ParserDeleter {
  void operator()(TSParser *parser) const { ts_parser_delete(parser); }
};

// One parser per thread: parsers are cheap to keep and not thread-safe.
TSParser *thread_parser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
    ts_parser_set_language(p.get(), grammar::language());
    return p;
  }();
  return parser.get();
}

TSTree *parse_text(std::string_view text, const TSTree *old) {
  TSParser *parser = thread_parser();
  ts_parser_reset(parser);
  return ts_parser_parse_string(parser, old, text.data(), static_cast<uint32_t>(text.size()));
}

} // namespace

void SyntaxTree::TreeDeleter::operator()(TSTree *tree) const { ts_tree_delete(tree); }

SyntaxTree SyntaxTree::parse(std::string_view text) {
  return SyntaxTree(parse_text(text, nullptr));
}

SyntaxTree SyntaxTree::reparse(std::string_view text, const SyntaxTree &old) {
  return SyntaxTree(parse_text(text, old.tree_.get()));
}

SyntaxTree SyntaxTree::copy() const {
  return SyntaxTree(tree_ ? ts_tree_copy(tree_.get()) : nullptr);
}

void SyntaxTree::edit(const TSInputEdit &edit) { ts_tree_edit(tree_.get(), &edit); }

TSNode SyntaxTree::root() const { return ts_tree_root_node(tree_.get()); }

} // namespace argus
