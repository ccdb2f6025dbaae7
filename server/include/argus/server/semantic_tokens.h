// LSP semantic tokens: the legend, the relative integer encoding in the
// negotiated position encoding, and the last result of each document, so
// `full/delta` can answer with edits against it.
#pragma once

#include "argus/dsl/frontend.h"
#include "argus/dsl/semantic_tokens.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace argus::server {

// {"tokenTypes": [...], "tokenModifiers": [...]} for the capability.
nlohmann::json semantic_tokens_legend();

// LSP's five integers per token (delta line, delta start, length, type,
// modifiers), with columns and lengths counted in `unit`.
std::vector<uint32_t> encode_semantic_tokens(const SourceFile &source,
                                             const std::vector<SemanticToken> &tokens,
                                             ColumnUnit unit);

struct SemanticTokensEdit {
  size_t start = 0;
  size_t delete_count = 0;
  std::vector<uint32_t> data;
};

// The one edit that turns `before` into `after` keeping their common prefix
// and suffix; nothing when they are equal.
std::optional<SemanticTokensEdit> semantic_tokens_edit(const std::vector<uint32_t> &before,
                                                       const std::vector<uint32_t> &after);

// The last result sent per document, under a resultId.
class SemanticTokensCache {
public:
  // {"resultId", "data"}, remembered as the document's last result.
  nlohmann::json full(const std::string &uri, std::vector<uint32_t> data);
  // {"resultId", "edits"} against `previous_id` when that is the document's
  // last result; a full result otherwise.
  nlohmann::json delta(const std::string &uri, const std::string &previous_id,
                       std::vector<uint32_t> data);
  void forget(const std::string &uri);
  size_t size() const { return entries_.size(); }

private:
  struct Entry {
    std::string id;
    std::vector<uint32_t> data;
  };
  std::map<std::string, Entry> entries_;
  uint64_t next_id_ = 1;
};

// textDocument/semanticTokens/full and .../full/delta for the document of
// `params` whose current text `file` checked.
nlohmann::json semantic_tokens_full_result(const CheckedFile &file, const nlohmann::json &params,
                                           ColumnUnit encoding, SemanticTokensCache &cache);
nlohmann::json semantic_tokens_delta_result(const CheckedFile &file, const nlohmann::json &params,
                                            ColumnUnit encoding, SemanticTokensCache &cache);

// textDocument/semanticTokens/range: the tokens that overlap params.range,
// encoded as a full result is (relative to the start of the file's first
// token in the range), without a resultId.
nlohmann::json semantic_tokens_range_result(const CheckedFile &file, const nlohmann::json &params,
                                            ColumnUnit encoding);

// params.textDocument.uri (throws a json exception, i.e. -32602, when absent).
std::string text_document_uri(const nlohmann::json &params);

} // namespace argus::server
