#include "lsp_edits.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <string_view>

namespace argus::bench {
namespace {

enum Byte : char { Code, CommentByte, StringByte };

// Marks every byte as code, comment or string (Python's quoting rules, enough
// for .argus files: #-comments, '...', "...", and triple-quoted strings).
std::vector<char> classify(const std::string &text) {
  std::vector<char> kind(text.size(), Code);
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n')
        kind[i++] = CommentByte;
    } else if (c == '"' || c == '\'') {
      const std::string triple(3, c);
      const bool is_triple = text.compare(i, 3, triple) == 0;
      size_t close =
          is_triple ? text.find(triple, i + 3) : text.find_first_of(std::string{c, '\n'}, i + 1);
      close = close == std::string::npos ? text.size() : close + (is_triple ? 3 : 1);
      for (; i < close && i < text.size(); ++i)
        kind[i] = StringByte;
    } else {
      ++i;
    }
  }
  return kind;
}

struct Line {
  size_t begin, end; // [begin, end), without the newline
};

std::vector<Line> lines_of(const std::string &text) {
  std::vector<Line> lines;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) {
      if (begin < text.size())
        lines.push_back({begin, text.size()});
      break;
    }
    lines.push_back({begin, end});
    begin = end + 1;
  }
  return lines;
}

bool blank(const std::string &text, Line line) {
  return std::all_of(text.begin() + static_cast<long>(line.begin),
                     text.begin() + static_cast<long>(line.end),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// Line ranges [decorator, last line] of each @kernel function.
std::vector<std::pair<size_t, size_t>>
kernels_of(const std::string &text, const std::vector<Line> &lines, const std::vector<char> &kind) {
  std::vector<std::pair<size_t, size_t>> kernels;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (text.compare(lines[i].begin, 7, "@kernel") != 0)
      continue;
    size_t def = i;
    while (def < lines.size() && text.compare(lines[def].begin, 4, "def ") != 0)
      ++def;
    size_t last = def;
    for (size_t j = def + 1; j < lines.size(); ++j) {
      const Line l = lines[j];
      if (blank(text, l))
        continue;
      if (!std::isspace(static_cast<unsigned char>(text[l.begin])) && kind[l.begin] == Code)
        break;
      last = j;
    }
    kernels.emplace_back(i, last);
    i = last;
  }
  return kernels;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where typing goes on a comment or docstring line (npos: not such a line).
size_t typing_point(const std::string &text, Line line, const std::vector<char> &kind,
                    EditKind what) {
  const std::string_view l(text.data() + line.begin, line.end - line.begin);
  if (what == EditKind::Comment) {
    for (size_t i = line.begin; i < line.end; ++i)
      if (kind[i] == CommentByte)
        return line.end;
    return std::string::npos;
  }
  const size_t first = l.find("\"\"\"");
  if (first == std::string_view::npos)
    return std::string::npos;
  const size_t second = l.find("\"\"\"", first + 3);
  if (second != std::string_view::npos)
    return second > first + 3 ? line.begin + second : std::string::npos;
  const size_t content = l.find_first_not_of(" \t");
  if (content == first) // an opening line: `"""Text` (nothing after: not a site)
    return first + 3 < l.size() ? line.end : std::string::npos;
  return line.begin + first; // a closing line with text before the quotes
}

std::vector<size_t> typing_points(const std::string &text, EditKind what) {
  const auto kind = classify(text);
  std::vector<size_t> points;
  for (Line line : lines_of(text)) {
    const size_t at = typing_point(text, line, kind, what);
    if (at != std::string::npos)
      points.push_back(at);
  }
  return points;
}

// Kernel body lines that hold code only (no comment, no docstring).
std::vector<Line> whitespace_sites(const std::string &text) {
  const auto kind = classify(text);
  const auto lines = lines_of(text);
  std::vector<Line> sites;
  for (auto [first, last] : kernels_of(text, lines, kind))
    for (size_t i = first + 2; i <= last; ++i) {
      const Line l = lines[i];
      if (blank(text, l) || l.end == l.begin)
        continue;
      bool code_only = true;
      for (size_t b = l.begin; b < l.end; ++b)
        code_only = code_only && kind[b] != CommentByte && kind[b] != StringByte;
      if (code_only)
        sites.push_back(l);
    }
  return sites;
}

// The uses of `name` in kernel `k`: whole words in code, not attributes and
// not keyword-argument names.
std::vector<size_t> uses(const std::string &text, size_t k, const std::string &name) {
  const auto kind = classify(text);
  const auto lines = lines_of(text);
  const auto kernels = kernels_of(text, lines, kind);
  std::vector<size_t> found;
  if (k >= kernels.size())
    return found;
  const size_t from = lines[kernels[k].first].begin, to = lines[kernels[k].second].end;
  for (size_t at = text.find(name, from); at != std::string::npos && at < to;
       at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if (kind[at] != Code || (at > 0 && (word_char(text[at - 1]) || text[at - 1] == '.')) ||
        (end < text.size() && word_char(text[end])))
      continue;
    size_t after = end, before = at;
    while (after < text.size() && text[after] == ' ')
      ++after;
    while (before > 0 && text[before - 1] == ' ')
      --before;
    const bool keyword = after + 1 < text.size() && text[after] == '=' && text[after + 1] != '=' &&
                         before > 0 && (text[before - 1] == '(' || text[before - 1] == ',');
    if (!keyword)
      found.push_back(at);
  }
  return found;
}

// The digits of top-level `NAME = <int>`; npos when there is no such line.
std::pair<size_t, size_t> constant_digits(const std::string &text, const std::string &name) {
  static const std::regex line(R"(^([A-Z_][A-Z0-9_]*)[ \t]*=[ \t]*([0-9]+)[ \t]*(#.*)?$)");
  for (Line l : lines_of(text)) {
    const std::string s = text.substr(l.begin, l.end - l.begin);
    std::smatch m;
    if (std::regex_match(s, m, line) && m[1] == name)
      return {l.begin + static_cast<size_t>(m.position(2)), static_cast<size_t>(m.length(2))};
  }
  return {std::string::npos, 0};
}

} // namespace

const char *kind_name(EditKind kind) {
  switch (kind) {
  case EditKind::Comment:
    return "comment typing";
  case EditKind::Docstring:
    return "docstring typing";
  case EditKind::Whitespace:
    return "whitespace";
  case EditKind::RenameLocal:
    return "rename a local";
  case EditKind::Constant:
    return "change a constant";
  case EditKind::LineAtTop:
    return "line at the top";
  }
  return "?";
}

bool needs_proof(EditKind kind) {
  return kind == EditKind::RenameLocal || kind == EditKind::Constant;
}

std::string apply(const std::string &text, const Edit &edit) {
  std::string result = text;
  for (const Change &c : edit.changes)
    result.replace(c.begin, c.end - c.begin, c.text);
  return result;
}

EditScript::EditScript(const std::string &original,
                       const std::function<bool(const std::string &)> &same_checks) {
  // Locals: assigned names in kernel bodies, two per kernel, four at most.
  static const std::regex assignment(R"(^[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(:[^=]*)?=[^=].*)");
  const auto kind = classify(original);
  const auto lines = lines_of(original);
  const auto kernels = kernels_of(original, lines, kind);
  for (size_t k = 0; k < kernels.size() && locals_.size() < 4; ++k) {
    // The body starts after the signature (which may span lines and give
    // defaults, `STAGES: constexpr = 2`); parameters are not locals.
    size_t body = kernels[k].first;
    while (body <= kernels[k].second && original.compare(lines[body].begin, 4, "def ") != 0)
      ++body;
    const size_t signature_begin = lines[std::min(body, kernels[k].second)].begin;
    while (body <= kernels[k].second) {
      const std::string l = original.substr(lines[body].begin, lines[body].end - lines[body].begin);
      ++body;
      if (l.find_last_not_of(" \t") != std::string::npos && l[l.find_last_not_of(" \t")] == ':')
        break;
    }
    const std::string signature =
        original.substr(signature_begin, lines[body - 1].end - signature_begin);
    size_t taken = 0;
    for (size_t i = body; i <= kernels[k].second && taken < 2; ++i) {
      const std::string s = original.substr(lines[i].begin, lines[i].end - lines[i].begin);
      std::smatch m;
      if (!std::regex_match(s, m, assignment))
        continue;
      const std::string name = m[1];
      if (std::regex_search(signature, std::regex("\\b" + name + "\\b")))
        continue;
      if (std::any_of(locals_.begin(), locals_.end(),
                      [&](const Local &l) { return l.kernel == k && l.original == name; }))
        continue;
      locals_.push_back({k, name, name});
      ++taken;
    }
  }
  // The constant: the first top-level integer constant with another value
  // that checks exactly like the original (at most six tries).
  static const std::regex constant(R"(^([A-Z_][A-Z0-9_]*)[ \t]*=[ \t]*([0-9]+)[ \t]*(#.*)?$)");
  int tries = 0;
  for (Line l : lines) {
    const std::string s = original.substr(l.begin, l.end - l.begin);
    std::smatch m;
    if (!std::regex_match(s, m, constant) || tries >= 6)
      continue;
    const long value = std::stol(m[2]);
    std::vector<long> candidates{value * 2};
    if (value % 2 == 0 && value > 2)
      candidates.push_back(value / 2);
    std::vector<std::string> valid;
    for (long candidate : candidates) {
      if (tries++ >= 6)
        break;
      const auto [at, length] = constant_digits(original, m[1]);
      std::string edited = original;
      edited.replace(at, length, std::to_string(candidate));
      if (same_checks(edited))
        valid.push_back(std::to_string(candidate));
    }
    if (!valid.empty()) {
      constant_name_ = m[1];
      for (const std::string &v : valid) {
        constant_values_.push_back(v);
        constant_values_.push_back(m[2]);
      }
      break;
    }
  }
}

bool EditScript::offers(EditKind kind) const {
  switch (kind) {
  case EditKind::RenameLocal:
    return !locals_.empty();
  case EditKind::Constant:
    return !constant_values_.empty();
  default:
    return true; // checked against the text in next()
  }
}

Edit EditScript::next(const std::string &text) {
  // Ten edits: four in comments, two in docstrings, two of whitespace, one
  // rename and one constant; a kind the file lacks becomes comment typing.
  static constexpr EditKind pattern[] = {
      EditKind::Comment,    EditKind::Comment,     EditKind::Docstring, EditKind::Whitespace,
      EditKind::Comment,    EditKind::RenameLocal, EditKind::Comment,   EditKind::Docstring,
      EditKind::Whitespace, EditKind::Constant};
  EditKind kind = only_.value_or(pattern[step_++ % std::size(pattern)]);
  if (!offers(kind) || (kind == EditKind::Docstring && typing_points(text, kind).empty()))
    kind = EditKind::Comment;
  if (kind == EditKind::Comment && typing_points(text, kind).empty())
    kind = EditKind::Whitespace;
  switch (kind) {
  case EditKind::Comment:
  case EditKind::Docstring:
    return typing(text, kind);
  case EditKind::Whitespace:
    return whitespace(text);
  case EditKind::RenameLocal:
    return rename(text);
  case EditKind::Constant:
    return constant(text);
  case EditKind::LineAtTop:
    return line_at_top();
  }
  return {};
}

// Each edit adds a line (never removes one), so every kernel lands on lines
// it has not been checked at before: a cache keyed by absolute positions
// misses every time.
Edit EditScript::line_at_top() {
  Edit e;
  e.kind = EditKind::LineAtTop;
  e.changes.push_back({0, 0, "# line " + std::to_string(++lines_at_top_) + "\n"});
  return e;
}

Edit EditScript::typing(const std::string &text, EditKind kind) {
  Typing &t = kind == EditKind::Comment ? comment_ : docstring_;
  const std::vector<size_t> points = typing_points(text, kind);
  const size_t at = points[t.site % points.size()];
  const std::string word = " edit" + std::to_string(t.round);
  Edit edit{kind, {}, std::nullopt};
  if (!t.deleting) {
    edit.changes.push_back({at, at, std::string(1, word[t.typed])});
    if (++t.typed == word.size())
      t.deleting = true;
  } else {
    edit.changes.push_back({at - 1, at, ""});
    if (--t.typed == 0) {
      t.deleting = false;
      ++t.round;
      ++t.site;
    }
  }
  return edit;
}

Edit EditScript::whitespace(const std::string &text) {
  const std::vector<Line> sites = whitespace_sites(text);
  Edit edit{EditKind::Whitespace, {}, std::nullopt};
  if (sites.empty())
    return edit;
  const Line line = sites[(whitespace_step_ / 2) % sites.size()];
  if (whitespace_step_++ % 2 == 0)
    edit.changes.push_back({line.end, line.end, " "});
  else if (line.end > line.begin && text[line.end - 1] == ' ')
    edit.changes.push_back({line.end - 1, line.end, ""});
  return edit;
}

Edit EditScript::rename(const std::string &text) {
  Local &local = locals_[renames_ % locals_.size()];
  const std::string fresh = local.original + "_r" + std::to_string(++renames_);
  Edit edit{EditKind::RenameLocal, {}, std::nullopt};
  const std::vector<size_t> found = uses(text, local.kernel, local.current);
  for (auto it = found.rbegin(); it != found.rend(); ++it)
    edit.changes.push_back({*it, *it + local.current.size(), fresh});
  if (!found.empty())
    edit.name_at = found.front();
  local.current = fresh;
  return edit;
}

Edit EditScript::constant(const std::string &text) {
  Edit edit{EditKind::Constant, {}, std::nullopt};
  const auto [at, length] = constant_digits(text, constant_name_);
  if (at == std::string::npos)
    return edit;
  edit.changes.push_back(
      {at, at + length, constant_values_[constant_step_++ % constant_values_.size()]});
  return edit;
}

} // namespace argus::bench
