// Shifting a cached report to where its kernel (and what it uses) moved.
#include "relocate.h"

#include <charconv>
#include <string>

namespace argus::check::detail {

namespace {

bool inside(const Range &segment, Position p) { return !(p < segment.begin) && !(segment.end < p); }

class Shift {
public:
  Shift(const std::vector<Range> &from, const std::vector<Range> &to) : from_(from), to_(to) {}

  // The line displacement of the first segment holding `p`.
  std::optional<int64_t> delta_at(Position p) const {
    for (size_t i = 0; i < from_.size(); ++i)
      if (inside(from_[i], p))
        return static_cast<int64_t>(to_[i].begin.line) - static_cast<int64_t>(from_[i].begin.line);
    return std::nullopt;
  }

  // Moves `p` by `delta` lines; false when it would leave the text.
  static bool move(Position &p, int64_t delta) {
    const int64_t line = static_cast<int64_t>(p.line) + delta;
    if (line < 0)
      return false;
    p.line = static_cast<uint32_t>(line);
    return true;
  }

  // A range moves with the segment of its start (a range never spans two).
  bool range(Range &r) const {
    const auto delta = delta_at(r.begin);
    return delta && move(r.begin, *delta) && move(r.end, *delta);
  }

  // {"line", "character"} (other members kept).
  bool json_position(nlohmann::json &j) const {
    if (!j.is_object() || !j.contains("line") || !j.contains("character") ||
        !j["line"].is_number_unsigned() || !j["character"].is_number_unsigned())
      return false;
    Position p{j["line"].get<uint32_t>(), j["character"].get<uint32_t>()};
    const auto delta = delta_at(p);
    if (!delta || !move(p, *delta))
      return false;
    j["line"] = p.line;
    return true;
  }

  // {"start": position, "end": position}, moved together with the start's segment.
  bool json_range(nlohmann::json &j) const {
    if (!j.is_object() || !j.contains("start") || !j.contains("end"))
      return false;
    nlohmann::json &start = j["start"], &end = j["end"];
    if (!start.is_object() || !end.is_object() || !start.contains("line") ||
        !start.contains("character") || !start["line"].is_number_unsigned() ||
        !start["character"].is_number_unsigned() || !end.contains("line") ||
        !end["line"].is_number_unsigned())
      return false;
    const auto delta =
        delta_at({start["line"].get<uint32_t>(), start["character"].get<uint32_t>()});
    if (!delta)
      return false;
    for (nlohmann::json *p : {&start, &end}) {
      Position q{(*p)["line"].get<uint32_t>(), 0};
      if (!move(q, *delta))
        return false;
      (*p)["line"] = q.line;
    }
    return true;
  }

  // The positions a violation's data holds (report.cpp, symbolic.cpp, fixes.cpp).
  bool data(nlohmann::json &d) const {
    if (!d.is_object())
      return true;
    for (const char *key : {"program_point", "origin"})
      if (d.contains(key) && !json_position(d[key]))
        return false;
    if (d.contains("edits")) {
      if (!d["edits"].is_object())
        return false;
      for (auto &[fix, edits] : d["edits"].items()) {
        (void)fix;
        if (!edits.is_array())
          return false;
        for (auto &edit : edits)
          if (!edit.is_object() || !edit.contains("range") || !json_range(edit["range"]))
            return false;
      }
    }
    return true;
  }

  // "line N: ..." (one-based), as checker.cpp writes bounded loops.
  bool bounded_loop(std::string &text) const {
    constexpr std::string_view prefix = "line ";
    const size_t colon = text.find(':');
    uint32_t line = 0;
    if (!text.starts_with(prefix) || colon == std::string::npos)
      return false;
    const char *first = text.data() + prefix.size(), *last = text.data() + colon;
    const auto parsed = std::from_chars(first, last, line);
    if (parsed.ec != std::errc() || parsed.ptr != last || line == 0)
      return false;
    // A loop starts a line inside its function: column 0 of that line is inside too.
    Position p{line - 1, 0};
    const auto delta = delta_at(p);
    if (!delta || !move(p, *delta))
      return false;
    text = std::string(prefix) + std::to_string(p.line + 1) + text.substr(colon);
    return true;
  }

private:
  const std::vector<Range> &from_;
  const std::vector<Range> &to_;
};

} // namespace

std::optional<KernelReport> relocate(KernelReport report, const std::vector<Range> &now) {
  if (report.segments.size() != now.size())
    return std::nullopt;
  if (report.segments == now)
    return report;
  const Shift shift(report.segments, now);
  for (Violation &v : report.violations) {
    if (!shift.range(v.range) || !shift.data(v.data))
      return std::nullopt;
    for (RelatedInformation &r : v.related)
      if (!shift.range(r.range))
        return std::nullopt;
  }
  for (std::string &loop : report.bounded_loops)
    if (!shift.bounded_loop(loop))
      return std::nullopt;
  report.segments = now;
  return report;
}

} // namespace argus::check::detail
