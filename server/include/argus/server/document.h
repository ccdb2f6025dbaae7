// Open documents: their text, version and the conversion of LSP positions
// (in the negotiated encoding) to byte offsets.
#pragma once

#include "argus/dsl/source.h"

#include <tree_sitter/api.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::server {

// An LSP position: zero-based line and a column in the negotiated unit.
struct LspPosition {
  uint32_t line = 0;
  uint32_t character = 0;
};

struct LspRange {
  LspPosition start;
  LspPosition end;
};

// The byte offset of `pos` in `text`. A line past the end clamps to the end of
// the text, a character past the end of its line to the end of the line
// (LSP 3.17), and a character inside a multi-unit character (half of a UTF-16
// surrogate pair, or a byte inside a UTF-8 sequence) to that character's start.
size_t offset_of(std::string_view text, LspPosition pos, ColumnUnit unit);

// Replaces `range` of `text` (positions in `unit`) with `replacement`.
// The end is clamped to be no earlier than the start.
void apply_edit(std::string &text, LspRange range, std::string_view replacement, ColumnUnit unit);

// The edit of replacing bytes [start, end) of `text` with `replacement`, in
// tree-sitter's terms (bytes and row/byte-column points), for ts_tree_edit.
TSInputEdit input_edit(std::string_view text, size_t start, size_t end,
                       std::string_view replacement);

// Decodes a file:// URI to a path (percent-escapes resolved); other URIs are
// returned unchanged.
std::string uri_to_path(const std::string &uri);

struct Document {
  std::string uri;
  std::string text;
  int64_t version = 0;
};

// The documents the client has opened, by URI.
class DocumentStore {
public:
  Document &open(std::string uri, std::string text, int64_t version);
  Document *find(const std::string &uri);
  const Document *find(const std::string &uri) const;
  bool close(const std::string &uri);
  size_t size() const { return documents_.size(); }
  std::vector<std::string> uris() const;

private:
  std::map<std::string, Document> documents_;
};

} // namespace argus::server
