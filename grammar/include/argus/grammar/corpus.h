// A corpus test runner for the Argus grammar, in tree-sitter's corpus format (the tree-sitter
// CLI, which runs these files upstream, cannot be installed here).
//
// A corpus file holds tests like this:
//
//   ==================
//   assignment
//   ==================
//
//   x = 1
//
//   ---
//
//   (module
//     (expression_statement
//       (assignment
//         left: (identifier)
//         right: (integer))))
//
// The header is a line of three or more '=', the test name on one line, optional attribute lines
// and another '=' line. The input runs up to the longest line of three or more '-' (its final
// newline is not part of the input); the expected tree follows, up to the next header. Lines of
// the expected tree that start with ';' are comments. Attributes:
//   :skip   the test is not run;
//   :error  the test passes when the tree holds an ERROR or MISSING node (the expected section
//           is ignored).
// Any other attribute (tree-sitter's :platform, :language, :cst, :fail-fast) and header or
// divider suffixes (`===|||`) are rejected with a message naming the line.
//
// Trees are compared as tree-sitter test does: the runtime's S-expression (ts_node_string: named
// nodes only, with `field: ` names) against the expected one, whitespace-insensitively; when the
// expected tree has no field names at all, the actual tree's field names are dropped first.
//
// Update mode (`ARGUS_UPDATE_CORPUS=1`, like rust-analyzer's UPDATE_EXPECT) rewrites the expected
// tree of every failing test with the actual one, formatted; everything else in the file is kept
// byte for byte.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

namespace argus::grammar {

struct CorpusTest {
  std::string name;
  std::string input;    // the source to parse
  std::string expected; // the expected tree as written, comment lines removed
  bool skip = false;
  bool error = false;
  size_t line = 0;           // 1-based line of the test's first header line
  size_t expected_begin = 0; // byte range of the expected section in the file
  size_t expected_end = 0;   //   (from the end of the divider line to the next header)
};

struct CorpusParse {
  std::vector<CorpusTest> tests;
  std::string error; // "line 12: ..." when the file is malformed; empty otherwise
  bool ok() const { return error.empty(); }
};

// Splits a corpus file into tests.
CorpusParse parse_corpus(std::string_view text);

// ts_node_string(node), with its buffer freed.
std::string node_sexp(TSNode node);

// Parses `source` with argus::grammar::language() and returns the root's S-expression;
// `has_error` (when not null) tells whether the tree holds ERROR or MISSING nodes.
std::string parse_to_sexp(std::string_view source, bool *has_error = nullptr);

// The S-expression in canonical one-line form: single spaces between tokens, none after '(' or
// before ')'. With `strip_fields`, `name:` tokens are removed. nullopt when the text is not a
// well-formed S-expression (unbalanced parentheses, unterminated string, a field without node).
std::optional<std::string> normalize_sexp(std::string_view sexp, bool strip_fields = false);

// Whether the S-expression holds a `field:` token.
bool sexp_has_fields(std::string_view sexp);

// The S-expression laid out like `tree-sitter test --update` writes it: one node per line,
// children indented by two spaces, `field: (node ...)` on the child's line. A malformed
// S-expression is returned unchanged.
std::string format_sexp(std::string_view sexp);

// A line diff of two texts: lines of both prefixed "  ", lines only in `expected` "- ", lines
// only in `actual` "+ ".
std::string line_diff(std::string_view expected, std::string_view actual);

enum class CorpusOutcome { kPassed, kFailed, kSkipped, kUpdated };

struct CorpusResult {
  std::string name;
  size_t line = 0;
  CorpusOutcome outcome = CorpusOutcome::kPassed;
  std::string message; // for failures: what differs (a diff of expected and actual trees)
};

struct CorpusReport {
  std::vector<CorpusResult> results;
  std::string error;        // the file could not be read, parsed or written
  std::string updated_text; // in update mode, the rewritten file text
  size_t count(CorpusOutcome outcome) const;
  bool ok() const; // no error and no failure
};

// Runs the tests of a corpus file's text. In update mode failing non-:error tests get their
// expected tree replaced (outcome kUpdated) and `updated_text` holds the new file text.
CorpusReport run_corpus_text(std::string_view text, bool update);

// Reads and runs a corpus file; in update mode writes it back when a test was updated.
CorpusReport run_corpus_file(const std::filesystem::path &path, bool update);

// Whether ARGUS_UPDATE_CORPUS is set to something other than "", "0" or "false".
bool corpus_update_requested();

} // namespace argus::grammar
