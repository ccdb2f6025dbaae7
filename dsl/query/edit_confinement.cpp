// edit_confinement.h: the edited lines by common first and last lines.
#include "argus/dsl/edit_confinement.h"
#include "argus/dsl/codes.h"

#include <algorithm>

namespace argus {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Positions in a diagnostic's data ({"line", "character"} objects: program
// points, fix edit ranges) after the edit move with it.
void shift_positions(nlohmann::json &data, int64_t after, int64_t by) {
  if (data.is_object()) {
    if (data.contains("line") && data["line"].is_number_integer() && data.contains("character")) {
      const int64_t line = data["line"].get<int64_t>();
      if (line > after)
        data["line"] = line + by;
      return;
    }
    for (auto &[key, value] : data.items())
      shift_positions(value, after, by);
  } else if (data.is_array()) {
    for (auto &value : data)
      shift_positions(value, after, by);
  }
}

void shift(Range &range, int64_t by) {
  range.begin.line = static_cast<uint32_t>(static_cast<int64_t>(range.begin.line) + by);
  range.end.line = static_cast<uint32_t>(static_cast<int64_t>(range.end.line) + by);
}

} // namespace

EditedLines edited_lines(std::string_view good_text, std::string_view now_text) {
  const auto good = lines_of(good_text);
  const auto now = lines_of(now_text);
  size_t prefix = 0;
  while (prefix < good.size() && prefix < now.size() && good[prefix] == now[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < good.size() - prefix && suffix < now.size() - prefix &&
         good[good.size() - 1 - suffix] == now[now.size() - 1 - suffix])
    ++suffix;
  EditedLines e;
  e.first = static_cast<uint32_t>(prefix);
  const size_t end = now.size() - suffix; // one past the last edited line
  e.last = static_cast<uint32_t>(end > prefix ? end - 1 : prefix);
  e.added = static_cast<int64_t>(now.size()) - static_cast<int64_t>(good.size());
  return e;
}

std::vector<Diagnostic> confine_to_edit(const std::vector<Diagnostic> &now,
                                        std::string_view now_text,
                                        const std::vector<Diagnostic> &good,
                                        std::string_view good_text) {
  const EditedLines e = edited_lines(good_text, now_text);
  const auto near = [&](uint32_t line) {
    return line + 1 >= e.first && line <= e.last + 1; // within one line of the edit
  };
  const auto is_syntax = [](const Diagnostic &d) {
    return d.code == codes::kSyntaxError || d.code == codes::kMissingToken;
  };
  const bool error_near = std::any_of(now.begin(), now.end(), [&](const Diagnostic &d) {
    return d.severity == Severity::Error && near(d.range.begin.line);
  });
  // The good text parsed: a syntax error now, wherever the parser puts it
  // (the start of a statement that spans lines, an ERROR tree-sitter began
  // earlier), is the edit's.
  const auto far_syntax = std::find_if(now.begin(), now.end(), [&](const Diagnostic &d) {
    return is_syntax(d) && !near(d.range.begin.line);
  });
  if (!error_near && far_syntax == now.end())
    return now;
  std::vector<Diagnostic> out;
  for (const Diagnostic &d : now)
    if (near(d.range.begin.line))
      out.push_back(d);
  if (!error_near) {
    const auto lines = lines_of(now_text);
    const uint32_t at = std::min<uint32_t>(e.last, static_cast<uint32_t>(lines.size() - 1));
    Diagnostic d = *far_syntax;
    d.range = Range{Position{at, 0}, Position{at, static_cast<uint32_t>(lines[at].size())}};
    d.message = far_syntax->message + " (the parser stopped at line " +
                std::to_string(far_syntax->range.begin.line + 1) + ")";
    d.related = {RelatedInformation{far_syntax->range, "where the parser stopped"}};
    out.push_back(std::move(d));
  }
  // The last good analysis of the untouched lines: before the edit as it was,
  // after it moved by the lines the edit added.
  const int64_t good_last = static_cast<int64_t>(e.last) - e.added; // in the good text
  for (Diagnostic d : good) {
    const int64_t line = d.range.begin.line;
    if (line + 1 < static_cast<int64_t>(e.first)) {
      out.push_back(std::move(d));
    } else if (line > good_last + 1) {
      shift(d.range, e.added);
      shift_positions(d.data, good_last, e.added);
      for (RelatedInformation &r : d.related)
        if (static_cast<int64_t>(r.range.begin.line) > good_last)
          shift(r.range, e.added);
      if (!near(d.range.begin.line))
        out.push_back(std::move(d));
    }
  }
  sort_diagnostics(out);
  return out;
}

} // namespace argus
