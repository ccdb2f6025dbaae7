#include "argus/grammar/corpus.h"

#include "argus/grammar/language.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace argus::grammar {

namespace {

// ---------------------------------------------------------------------------------------------
// Corpus files

struct Line {
  size_t begin = 0; // first byte
  size_t end = 0;   // one past the last byte before "\r\n" or "\n"
  size_t next = 0;  // first byte of the next line
  std::string_view text;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t newline = text.find('\n', pos);
    Line line;
    line.begin = pos;
    line.next = newline == std::string_view::npos ? text.size() : newline + 1;
    line.end = newline == std::string_view::npos ? text.size() : newline;
    if (line.end > line.begin && text[line.end - 1] == '\r') {
      --line.end;
    }
    line.text = text.substr(line.begin, line.end - line.begin);
    lines.push_back(line);
    pos = line.next;
  }
  return lines;
}

// The number of `c` the line starts with.
size_t run_of(std::string_view line, char c) {
  size_t n = 0;
  while (n < line.size() && line[n] == c) {
    ++n;
  }
  return n;
}

// A line of three or more '=' (nothing else).
bool is_rule(std::string_view line, char c) {
  return line.size() >= 3 && run_of(line, c) == line.size();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// A header starting at line `i`: `===`, a name, attribute lines, `===`. Returns the index of the
// closing rule, or 0 when line `i` does not start a header.
size_t header_end(const std::vector<Line> &lines, size_t i) {
  if (!is_rule(lines[i].text, '=') || i + 2 >= lines.size()) {
    return 0;
  }
  const std::string_view name = lines[i + 1].text;
  if (trim(name).empty() || name.front() == '=') {
    return 0;
  }
  size_t j = i + 2;
  while (j < lines.size() && trim(lines[j].text).starts_with(':')) {
    ++j;
  }
  return j < lines.size() && is_rule(lines[j].text, '=') ? j : 0;
}

// A line that looks like a header rule but carries a suffix (`===|||`).
bool is_suffixed_rule(std::string_view line) {
  const size_t n = run_of(line, '=');
  return n >= 3 && n < line.size();
}

// ---------------------------------------------------------------------------------------------
// S-expressions

enum class TokenKind { kOpen, kClose, kField, kAtom };

struct Token {
  TokenKind kind;
  std::string_view text;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Splits an S-expression into tokens; nullopt on an unterminated quoted atom. Quoted atoms are
// `"name"` (a MISSING anonymous node) and `'c'` (an UNEXPECTED character); ts_node_string does
// not escape quotes inside them, so a quote closes an atom only when a space, ')' or the end
// follows it.
std::optional<std::vector<Token>> tokenize(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      ++i;
    } else if (c == '(') {
      tokens.push_back({TokenKind::kOpen, s.substr(i, 1)});
      ++i;
    } else if (c == ')') {
      tokens.push_back({TokenKind::kClose, s.substr(i, 1)});
      ++i;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < s.size() && !(s[j] == c && j > i + 1 &&
                               (j + 1 == s.size() || is_space(s[j + 1]) || s[j + 1] == ')'))) {
        ++j;
      }
      if (j >= s.size()) {
        return std::nullopt;
      }
      tokens.push_back({TokenKind::kAtom, s.substr(i, j + 1 - i)});
      i = j + 1;
    } else {
      size_t j = i;
      while (j < s.size() && !is_space(s[j]) && s[j] != '(' && s[j] != ')') {
        ++j;
      }
      const std::string_view word = s.substr(i, j - i);
      const bool field = word.size() > 1 && word.back() == ':';
      tokens.push_back({field ? TokenKind::kField : TokenKind::kAtom, word});
      i = j;
    }
  }
  return tokens;
}

// Well-formed: non-empty, balanced, every field followed by '(', every atom inside a node.
bool well_formed(const std::vector<Token> &tokens) {
  if (tokens.empty()) {
    return false;
  }
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    switch (tokens[i].kind) {
    case TokenKind::kOpen:
      ++depth;
      break;
    case TokenKind::kClose:
      if (--depth < 0) {
        return false;
      }
      break;
    case TokenKind::kField:
      if (depth == 0 || i + 1 == tokens.size() || tokens[i + 1].kind != TokenKind::kOpen) {
        return false;
      }
      break;
    case TokenKind::kAtom:
      if (depth == 0) {
        return false;
      }
      break;
    }
  }
  return depth == 0;
}

std::string without_comment_lines(std::string_view text) {
  std::string out;
  for (const Line &line : split_lines(text)) {
    if (trim(line.text).starts_with(';')) {
      continue;
    }
    out.append(line.text);
    out.push_back('\n');
  }
  return out;
}

} // namespace

CorpusParse parse_corpus(std::string_view text) {
  CorpusParse result;
  const std::vector<Line> lines = split_lines(text);
  auto fail = [&](size_t line_index, const std::string &what) {
    result.tests.clear();
    result.error = "line " + std::to_string(line_index + 1) + ": " + what;
    return result;
  };

  // Find the headers first: each test's body runs to the next one.
  struct Header {
    size_t first = 0; // line index of the opening rule
    size_t last = 0;  // line index of the closing rule
  };
  std::vector<Header> headers;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_suffixed_rule(lines[i].text)) {
      return fail(i, "header suffixes (`===|||`) are not supported");
    }
    if (const size_t end = header_end(lines, i); end != 0) {
      headers.push_back({i, end});
      i = end;
    } else if (headers.empty() && !trim(lines[i].text).empty()) {
      return fail(i, "text before the first test header (a line of three or more '=')");
    }
  }

  for (size_t t = 0; t < headers.size(); ++t) {
    const Header &h = headers[t];
    CorpusTest test;
    test.line = h.first + 1;
    test.name = std::string(trim(lines[h.first + 1].text));
    for (size_t i = h.first + 2; i < h.last; ++i) {
      const std::string_view attribute = trim(lines[i].text);
      if (attribute == ":skip") {
        test.skip = true;
      } else if (attribute == ":error") {
        test.error = true;
      } else {
        return fail(i, "unsupported test attribute `" + std::string(attribute) +
                           "` (supported: :skip, :error)");
      }
    }
    const size_t body_first = h.last + 1;
    const size_t body_last = t + 1 < headers.size() ? headers[t + 1].first : lines.size();
    // The divider is the longest dash line of the body (the last one of that length).
    size_t divider = lines.size();
    size_t divider_length = 0;
    for (size_t i = body_first; i < body_last; ++i) {
      if (is_rule(lines[i].text, '-') && lines[i].text.size() >= divider_length) {
        divider = i;
        divider_length = lines[i].text.size();
      }
    }
    if (divider == lines.size()) {
      return fail(h.first, "test `" + test.name + "` has no divider (a line of three or more '-')");
    }
    const size_t input_begin = lines[h.last].next;
    size_t input_end = lines[divider].begin;
    // The newline that ends the input's last line belongs to the divider.
    if (input_end > input_begin && text[input_end - 1] == '\n') {
      --input_end;
      if (input_end > input_begin && text[input_end - 1] == '\r') {
        --input_end;
      }
    }
    test.input = std::string(text.substr(input_begin, input_end - input_begin));
    test.expected_begin = lines[divider].next;
    test.expected_end = body_last < lines.size() ? lines[body_last].begin : text.size();
    test.expected = without_comment_lines(
        text.substr(test.expected_begin, test.expected_end - test.expected_begin));
    result.tests.push_back(std::move(test));
  }
  if (result.tests.empty()) {
    return fail(0, "no tests (a test starts with a line of three or more '=')");
  }
  return result;
}

std::string node_sexp(TSNode node) {
  char *raw = ts_node_string(node);
  std::string sexp(raw != nullptr ? raw : "");
  std::free(raw);
  return sexp;
}

std::string parse_to_sexp(std::string_view source, bool *has_error) {
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser(ts_parser_new(), &ts_parser_delete);
  ts_parser_set_language(parser.get(), language());
  std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree(
      ts_parser_parse_string(parser.get(), nullptr, source.data(),
                             static_cast<uint32_t>(source.size())),
      &ts_tree_delete);
  const TSNode root = ts_tree_root_node(tree.get());
  if (has_error != nullptr) {
    *has_error = ts_node_has_error(root);
  }
  return node_sexp(root);
}

std::optional<std::string> normalize_sexp(std::string_view sexp, bool strip_fields) {
  const std::optional<std::vector<Token>> tokens = tokenize(sexp);
  if (!tokens || !well_formed(*tokens)) {
    return std::nullopt;
  }
  std::string out;
  bool after_open = true;
  for (const Token &token : *tokens) {
    switch (token.kind) {
    case TokenKind::kOpen:
      if (!after_open) {
        out.push_back(' ');
      }
      out.push_back('(');
      after_open = true;
      break;
    case TokenKind::kClose:
      out.push_back(')');
      after_open = false;
      break;
    case TokenKind::kField:
      if (strip_fields) {
        break;
      }
      [[fallthrough]];
    case TokenKind::kAtom:
      if (!after_open) {
        out.push_back(' ');
      }
      out.append(token.text);
      // A field is glued to its node by a single space: `name: (identifier)`.
      after_open = false;
      break;
    }
  }
  return out;
}

bool sexp_has_fields(std::string_view sexp) {
  const std::optional<std::vector<Token>> tokens = tokenize(sexp);
  if (!tokens) {
    return false;
  }
  for (const Token &token : *tokens) {
    if (token.kind == TokenKind::kField) {
      return true;
    }
  }
  return false;
}

std::string format_sexp(std::string_view sexp) {
  const std::optional<std::vector<Token>> tokens = tokenize(sexp);
  if (!tokens || !well_formed(*tokens)) {
    return std::string(sexp);
  }
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < tokens->size(); ++i) {
    const Token &token = (*tokens)[i];
    const TokenKind previous = i > 0 ? (*tokens)[i - 1].kind : TokenKind::kClose;
    switch (token.kind) {
    case TokenKind::kOpen:
      if (previous == TokenKind::kField) {
        out.push_back(' ');
      } else if (i > 0) {
        out.push_back('\n');
        out.append(static_cast<size_t>(2 * depth), ' ');
      }
      out.push_back('(');
      ++depth;
      break;
    case TokenKind::kClose:
      out.push_back(')');
      --depth;
      break;
    case TokenKind::kField:
      out.push_back('\n');
      out.append(static_cast<size_t>(2 * depth), ' ');
      out.append(token.text);
      break;
    case TokenKind::kAtom:
      if (previous != TokenKind::kOpen) {
        out.push_back(' ');
      }
      out.append(token.text);
      break;
    }
  }
  return out;
}

std::string line_diff(std::string_view expected, std::string_view actual) {
  std::vector<std::string_view> a;
  std::vector<std::string_view> b;
  for (const Line &line : split_lines(expected)) {
    a.push_back(line.text);
  }
  for (const Line &line : split_lines(actual)) {
    b.push_back(line.text);
  }
  const size_t n = a.size();
  const size_t m = b.size();
  std::string out;
  if (n * m > 4'000'000) { // too large for the quadratic table: show both whole
    for (std::string_view line : a) {
      out.append("- ").append(line).append("\n");
    }
    for (std::string_view line : b) {
      out.append("+ ").append(line).append("\n");
    }
    return out;
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  size_t i = 0;
  size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.append("  ").append(a[i]).append("\n");
      ++i;
      ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.append("- ").append(a[i]).append("\n");
      ++i;
    } else {
      out.append("+ ").append(b[j]).append("\n");
      ++j;
    }
  }
  return out;
}

size_t CorpusReport::count(CorpusOutcome outcome) const {
  size_t n = 0;
  for (const CorpusResult &result : results) {
    n += result.outcome == outcome ? 1 : 0;
  }
  return n;
}

bool CorpusReport::ok() const { return error.empty() && count(CorpusOutcome::kFailed) == 0; }

CorpusReport run_corpus_text(std::string_view text, bool update) {
  CorpusReport report;
  const CorpusParse parsed = parse_corpus(text);
  if (!parsed.ok()) {
    report.error = parsed.error;
    return report;
  }
  // Replacement expected sections, by test index.
  std::vector<std::optional<std::string>> replacements(parsed.tests.size());
  for (size_t t = 0; t < parsed.tests.size(); ++t) {
    const CorpusTest &test = parsed.tests[t];
    CorpusResult result;
    result.name = test.name;
    result.line = test.line;
    if (test.skip) {
      result.outcome = CorpusOutcome::kSkipped;
      report.results.push_back(std::move(result));
      continue;
    }
    bool has_error = false;
    const std::string actual = parse_to_sexp(test.input, &has_error);
    if (test.error) {
      if (!has_error) {
        result.outcome = CorpusOutcome::kFailed;
        result.message = "expected a syntax error (:error), but the tree has none:\n" +
                         format_sexp(actual) + "\n";
      }
      report.results.push_back(std::move(result));
      continue;
    }
    const std::optional<std::string> expected = normalize_sexp(test.expected);
    const bool strip = expected && !sexp_has_fields(test.expected);
    const std::string actual_normal = normalize_sexp(actual, strip).value_or(actual);
    if (expected && *expected == actual_normal) {
      report.results.push_back(std::move(result));
      continue;
    }
    if (update) {
      replacements[t] = format_sexp(actual);
      result.outcome = CorpusOutcome::kUpdated;
      report.results.push_back(std::move(result));
      continue;
    }
    result.outcome = CorpusOutcome::kFailed;
    if (!expected) {
      const std::string_view what = trim(test.expected).empty() ? "is empty" : "is not well-formed";
      result.message = "the expected tree " + std::string(what) +
                       "; the actual tree is (ARGUS_UPDATE_CORPUS=1 writes it):\n" +
                       format_sexp(actual) + "\n";
    } else {
      result.message = "the trees differ (- expected, + actual):\n" +
                       line_diff(format_sexp(*expected), format_sexp(actual_normal));
    }
    report.results.push_back(std::move(result));
  }
  if (update) {
    std::string out;
    size_t copied = 0;
    for (size_t t = 0; t < parsed.tests.size(); ++t) {
      if (!replacements[t]) {
        continue;
      }
      const CorpusTest &test = parsed.tests[t];
      out.append(text.substr(copied, test.expected_begin - copied));
      out.append("\n").append(*replacements[t]).append("\n");
      if (t + 1 < parsed.tests.size()) {
        out.append("\n");
      }
      copied = test.expected_end;
    }
    out.append(text.substr(copied));
    report.updated_text = std::move(out);
  }
  return report;
}

CorpusReport run_corpus_file(const std::filesystem::path &path, bool update) {
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      CorpusReport report;
      report.error = "cannot read the file";
      return report;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  CorpusReport report = run_corpus_text(text, update);
  if (update && report.error.empty() && report.count(CorpusOutcome::kUpdated) > 0) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << report.updated_text;
    if (!out) {
      report.error = "cannot write the updated file";
    }
  }
  return report;
}

bool corpus_update_requested() {
  const char *value = std::getenv("ARGUS_UPDATE_CORPUS");
  if (value == nullptr) {
    return false;
  }
  const std::string_view v(value);
  return !v.empty() && v != "0" && v != "false";
}

} // namespace argus::grammar
