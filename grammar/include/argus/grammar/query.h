// The Argus tree-sitter queries (grammar/queries/*.scm): loading, compiling and running them
// with the text predicates evaluated.
//
// The tree-sitter runtime (0.20.7) parses predicates such as `(#match? @x "re")` but does not
// evaluate them: that is the client's job, as in every editor. Query implements the predicates
// the Argus queries use, and rejects any other predicate when it compiles a query, so that a typo
// in a .scm file fails loudly instead of silently matching everything:
//   #eq? / #not-eq?          @capture "string"  or  @capture @other
//   #match? / #not-match?    @capture "regex"   (std::regex ECMAScript, searched, not anchored)
//   #any-of? / #not-any-of?  @capture "a" "b" ...
//   #set!                    key ["value"]      (a directive: recorded on the match, never filters)
// A predicate on a capture that holds several nodes holds when it holds for every node.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tree_sitter/api.h>

namespace argus::grammar {

// The query files shipped in grammar/queries.
enum class QueryKind { kHighlights, kLocals, kFolds };

// "highlights.scm", "locals.scm", "folds.scm".
std::string_view query_file_name(QueryKind kind);

// The folder the queries are loaded from: ARGUS_GRAMMAR_QUERY_DIR (the source tree's
// grammar/queries), fixed at build time.
std::filesystem::path query_dir();

// Why a query did not compile. `offset` is a byte offset into the query source, `line` and
// `column` are 1-based; `type` is TSQueryErrorNone for errors found by Argus (unknown predicate,
// bad regex, wrong arguments) rather than by the runtime.
struct QueryError {
  std::string message; // "highlights.scm:12:5: invalid node type `foo`"
  uint32_t offset = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  TSQueryError type = TSQueryErrorNone;
};

// A printable name for a runtime query error ("syntax", "node type", "field", ...).
std::string_view query_error_name(TSQueryError type);

struct QueryCapture {
  std::string_view name; // the capture name without '@', e.g. "function.builtin"
  TSNode node;
  uint32_t pattern_index = 0; // the pattern's index in the query source (later = higher)
};

struct QueryMatch {
  uint32_t pattern_index = 0;
  std::vector<QueryCapture> captures;
  // Properties set by #set! directives: (key, value); value is empty when not given.
  std::vector<std::pair<std::string, std::string>> properties;
};

class Query {
public:
  // Compiles `source` for argus::grammar::language(). `label` names the source in error messages
  // (e.g. "highlights.scm"). Returns nullopt and fills `error` (when not null) on failure.
  static std::optional<Query> compile(std::string source, std::string_view label,
                                      QueryError *error);

  // Reads and compiles query_dir() / query_file_name(kind). A missing or unreadable file is
  // reported through `error` too.
  static std::optional<Query> load(QueryKind kind, QueryError *error);

  Query(Query &&) noexcept;
  Query &operator=(Query &&) noexcept;
  ~Query();

  const TSQuery *get() const;
  const std::string &source() const;
  uint32_t pattern_count() const;
  uint32_t capture_count() const;
  std::string_view capture_name(uint32_t capture_id) const;

  // All matches under `node`, in the runtime's order, whose predicates hold. `text` is the
  // source the tree was parsed from (predicates read node text from it).
  std::vector<QueryMatch> matches(TSNode node, std::string_view text) const;

  // The captures of matches(), flattened and sorted by node start, then by pattern index (so
  // for one node the capture an editor applying "later patterns win" shows comes last).
  std::vector<QueryCapture> captures(TSNode node, std::string_view text) const;

private:
  struct Impl;
  explicit Query(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The source text of `node` (a view into `text`).
std::string_view node_text(TSNode node, std::string_view text);

} // namespace argus::grammar
