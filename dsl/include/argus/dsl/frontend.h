// The front end as one call: parse → lower → resolve → type-check. It knows
// nothing of the invariant checker: `check_source` (argus/dsl/driver.h) runs
// this, then the checker, for `argus check`, the language server and codegen.
#pragma once

#include "argus/dsl/ast.h"
#include "argus/dsl/diagnostic.h"
#include "argus/dsl/lower.h"
#include "argus/dsl/sema.h"
#include "argus/dsl/source.h"
#include "argus/dsl/syntax_tree.h"
#include "argus/dsl/verification.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace argus {

// Larger files are refused (E0003) before parsing; kernels are small and a
// multi-megabyte .argus file is almost certainly not one.
inline constexpr size_t kDefaultMaxFileBytes = 4u << 20;

struct ParseOptions {
  size_t max_file_bytes = kDefaultMaxFileBytes;
  LowerOptions lower;
  sema::SemaOptions sema;
};

// Everything the front end knows about one file. Diagnostics are sorted.
struct CheckedFile {
  std::unique_ptr<SourceFile> source;
  std::optional<SyntaxTree> tree; // absent when the input was refused before parsing
  ast::Module module;
  std::unique_ptr<sema::SemaResult> sema; // absent when the input was refused
  std::vector<Diagnostic> diagnostics;
  // Per kernel, what the invariant checker established (check_source; empty
  // when it did not run).
  std::vector<check::VerificationSummary> verification;

  bool has_errors() const;
};

// Parses and analyzes `text` as the contents of `path` (used only in
// messages): the front end's diagnostics, no invariant check. With
// `edited_tree` (the tree of an earlier text, told about every edit since with
// SyntaxTree::edit), the parse reuses its unchanged parts.
CheckedFile analyze_source(std::string path, std::string text, const ParseOptions &options = {},
                           const SyntaxTree *edited_tree = nullptr);

// Why a file could not be read at all (the CLI's exit code 2).
struct ReadError {
  std::string message; // e.g. "no such file", "is a directory"
};

// Reads a file for checking; never throws.
std::variant<std::string, ReadError> read_source_file(const std::string &path);

} // namespace argus
