// Owning wrapper of a tree-sitter parse of one .argus file.
//
// Parsing never fails: a file with syntax errors still gives a tree (with
// ERROR and MISSING nodes) that later stages use for everything they can.
#pragma once

#include <tree_sitter/api.h>

#include <memory>
#include <string_view>

namespace argus {

class SyntaxTree {
public:
  // Parses `text` from scratch.
  static SyntaxTree parse(std::string_view text);
  // Reparses `text` reusing `old`, which must already have been told about
  // the edit with `edit()`.
  static SyntaxTree reparse(std::string_view text, const SyntaxTree &old);

  // A second handle on the same tree (tree-sitter shares the nodes), to edit
  // without touching this one.
  SyntaxTree copy() const;

  // Tells the tree about an edit so a later `reparse` can reuse unchanged parts.
  void edit(const TSInputEdit &edit);

  TSNode root() const;
  const TSTree *get() const { return tree_.get(); }
  explicit operator bool() const { return tree_ != nullptr; }

private:
  struct TreeDeleter {
    void operator()(TSTree *tree) const;
  };
  explicit SyntaxTree(TSTree *tree) : tree_(tree) {}
  std::unique_ptr<TSTree, TreeDeleter> tree_;
};

} // namespace argus
