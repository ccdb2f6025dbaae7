// Completion and signature help in editor terms; the language server turns
// them into LSP CompletionItems and SignatureHelp.
//
// Both read the text before the position (a completion is asked for while a
// line is being typed, so the AST there may be an Error node) and take the
// names in scope from the front end's result for the same text.
#pragma once

#include "argus/dsl/frontend.h"

#include <optional>
#include <string>
#include <vector>

namespace argus {

struct CompletionItem {
  enum class Kind {
    Builtin,
    Intrinsic,
    Dtype,
    Namespace,
    Keyword,
    Constant,
    Parameter,
    Local,
    LoopVariable,
    Function,
    Method,
    Policy
  };
  std::string label;
  Kind kind = Kind::Keyword;
  std::string detail;        // a type, a value or a signature
  std::string documentation; // Markdown; may be empty
  std::string insert_text;   // plain text
  std::string snippet;       // the same with ${n:param} placeholders; empty when not callable
};

// The completions at `position` (zero-based line, UTF-8 byte column): after
// `nvvm.` / `amdgpu.` the intrinsics of that namespace, after a tensor's `.`
// its method `tile`, after `@` the decorators, inside `@kernel(...)` the
// geometry keys and policies; elsewhere the builtins, dtypes, keywords and the
// names visible there (constants, @device functions, parameters, locals and
// loop variables defined before the position). Nothing in a comment or string.
std::vector<CompletionItem> complete_at(const CheckedFile &file, Position position);

struct SignatureInfo {
  std::string label;                   // "cdiv(a, b)", "twice(x: i32) -> i32"
  std::string documentation;           // Markdown
  std::vector<std::string> parameters; // each a substring of label
  int active_parameter = 0;            // may be past the last parameter (none active)
};

// The signature of the innermost call (builtin, intrinsic, dtype conversion,
// range or @device function) whose parentheses hold `position`, with the
// argument under the position (by commas, or by keyword `name=`).
std::optional<SignatureInfo> signature_help_at(const CheckedFile &file, Position position);

} // namespace argus
