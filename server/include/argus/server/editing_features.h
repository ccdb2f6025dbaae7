// LSP translators of the editing features computed in dsl/: completion,
// signature help and inlay hints. Each takes the front-end result of the
// document's current text and the request's params, and returns the LSP
// result; bad params throw nlohmann::json exceptions (answered -32602).
#pragma once

#include "argus/dsl/frontend.h"

#include <nlohmann/json.hpp>

namespace argus::server {

struct CompletionOptions {
  bool snippets = false; // the client offered completionItem.snippetSupport
};

// textDocument/completion → CompletionItem[] (kind, detail, documentation
// as Markdown, insertText; a snippet with placeholders only when offered).
nlohmann::json completion_result(const CheckedFile &file, const nlohmann::json &params,
                                 ColumnUnit encoding, const CompletionOptions &options);

// textDocument/signatureHelp → SignatureHelp or null.
nlohmann::json signature_help_result(const CheckedFile &file, const nlohmann::json &params,
                                     ColumnUnit encoding);

// textDocument/inlayHint → InlayHint[] inside params.range.
nlohmann::json inlay_hints_result(const CheckedFile &file, const nlohmann::json &params,
                                  ColumnUnit encoding);

// The source position of an LSP position object (clamped as offset_of does).
Position source_position(const SourceFile &source, const nlohmann::json &position,
                         ColumnUnit encoding);

} // namespace argus::server
