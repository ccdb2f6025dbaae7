// Unified diffs from a model's answer (llm_proposer.h): a diff costs the
// model far fewer tokens than the whole file, and a diff that does not apply
// is refused here, before the server sees anything.
#include "argus/agent/llm_proposer.h"
#include "argus/agent/text.h"

#include <cstdlib>
#include <sstream>

namespace argus::agent {

namespace {

struct Hunk {
  long old_start = 0; // 1-based, as the header says (0: an empty file)
  std::vector<std::string> old_lines, new_lines;
};

// "@@ -12,5 +12,6 @@ ...": the old side's first line.
bool parse_header(const std::string &line, long &old_start) {
  if (!line.starts_with("@@ -"))
    return false;
  char *end = nullptr;
  old_start = std::strtol(line.c_str() + 4, &end, 10);
  return end != line.c_str() + 4 && old_start >= 0;
}

// Where `hunk`'s old lines are in `lines`: at the header's line when they
// match there, else the nearest place they match (a model's line numbers
// are often a few off; its context lines are not).
std::optional<size_t> locate(const std::vector<std::string> &lines, const Hunk &hunk, size_t from) {
  const size_t n = hunk.old_lines.size();
  const auto matches = [&](size_t at) {
    if (at + n > lines.size())
      return false;
    for (size_t i = 0; i < n; ++i)
      if (lines[at + i] != hunk.old_lines[i])
        return false;
    return true;
  };
  const size_t stated = hunk.old_start > 0 ? static_cast<size_t>(hunk.old_start - 1) : 0;
  std::optional<size_t> best;
  for (size_t at = from; at + n <= lines.size(); ++at)
    if (matches(at)) {
      const auto distance = [&](size_t x) { return x > stated ? x - stated : stated - x; };
      if (!best || distance(at) < distance(*best))
        best = at;
    }
  return best;
}

} // namespace

std::optional<std::string> apply_unified_diff(const std::string &text, const std::string &diff) {
  std::vector<Hunk> hunks;
  for (const std::string &raw : lines_of(diff)) {
    const std::string line =
        !raw.empty() && raw.back() == '\r' ? raw.substr(0, raw.size() - 1) : raw;
    long start = 0;
    if (parse_header(line, start)) {
      hunks.push_back({start, {}, {}});
    } else if (hunks.empty() || line.starts_with("--- ") || line.starts_with("+++ ") ||
               line.starts_with("\\")) {
      continue; // file headers, "\ No newline at end of file", text before the first hunk
    } else if (line.starts_with("-")) {
      hunks.back().old_lines.push_back(line.substr(1));
    } else if (line.starts_with("+")) {
      hunks.back().new_lines.push_back(line.substr(1));
    } else {
      // Context; an empty line is an empty context line (editors strip the space).
      const std::string context = line.empty() ? "" : line.substr(1);
      if (!line.empty() && line[0] != ' ')
        return std::nullopt; // not a diff line
      hunks.back().old_lines.push_back(context);
      hunks.back().new_lines.push_back(context);
    }
  }
  if (hunks.empty())
    return std::nullopt;
  std::vector<std::string> lines = lines_of(text);
  size_t from = 0;
  for (const Hunk &hunk : hunks) {
    if (hunk.old_lines.empty() && hunk.new_lines.empty())
      return std::nullopt;
    std::optional<size_t> at;
    if (hunk.old_lines.empty()) // a pure insertion: after the stated line
      at = std::min(static_cast<size_t>(std::max(0L, hunk.old_start)), lines.size());
    else
      at = locate(lines, hunk, from);
    if (!at || *at < from)
      return std::nullopt;
    lines.erase(lines.begin() + static_cast<long>(*at),
                lines.begin() + static_cast<long>(*at + hunk.old_lines.size()));
    lines.insert(lines.begin() + static_cast<long>(*at), hunk.new_lines.begin(),
                 hunk.new_lines.end());
    from = *at + hunk.new_lines.size();
  }
  std::string out;
  for (const std::string &l : lines)
    out += l + "\n";
  if (!text.empty() && text.back() != '\n' && !out.empty())
    out.pop_back();
  return out;
}

} // namespace argus::agent
