#include "argus/cli/diagnostic_text.h"

#include <algorithm>

namespace argus::cli {
namespace {

// The ANSI sequences clang uses for its diagnostics.
constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kBoldRed = "\x1b[1;31m";
constexpr std::string_view kBoldMagenta = "\x1b[1;35m";
constexpr std::string_view kBoldBlack = "\x1b[1;30m";
constexpr std::string_view kBoldGreen = "\x1b[1;32m";

// Longest line shown whole; longer ones are shown as a window around the caret.
constexpr size_t kMaxShownBytes = 200;
// How much of the line before the caret a window keeps.
constexpr size_t kWindowContext = 60;

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t sequence_length(char lead) {
  const auto byte = static_cast<unsigned char>(lead);
  return byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
}

bool has_control_characters(std::string_view line) {
  return std::any_of(line.begin(), line.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\t') || byte == 0x7F;
  });
}

size_t snap_back(std::string_view line, size_t offset) {
  while (offset > 0 && offset < line.size() && is_continuation(line[offset]))
    --offset;
  return offset;
}

std::string_view severity_color(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return kBoldRed;
  case Severity::Warning:
    return kBoldMagenta;
  case Severity::Information:
  case Severity::Hint:
    return kBoldBlack;
  }
  return kBoldRed;
}

// "path:line:col: error: message" in clang's colors.
void write_header(std::ostream &out, const std::string &path, Position position,
                  std::string_view severity, std::string_view severity_colour,
                  std::string_view message, bool color) {
  const std::string location = path + ":" + std::to_string(position.line + 1) + ":" +
                               std::to_string(position.column + 1) + ":";
  if (!color) {
    out << location << ' ' << severity << ": " << message << '\n';
    return;
  }
  out << kBold << location << ' ' << kReset << severity_colour << severity << ": " << kReset
      << kBold << message << kReset << '\n';
}

// The byte column where `range` ends on its first line.
uint32_t end_on_first_line(const SourceFile &source, Range range) {
  if (range.end.line != range.begin.line)
    return static_cast<uint32_t>(source.line(range.begin.line).size());
  return range.end.column;
}

} // namespace

std::string render_snippet(std::string_view line, uint32_t begin, uint32_t end, bool color) {
  if (line.empty() || !is_valid_utf8(line) || has_control_characters(line))
    return {};
  const size_t caret = snap_back(line, std::min<size_t>(begin, line.size()));
  size_t range_end = std::clamp<size_t>(end, caret, line.size());

  size_t from = 0;
  size_t to = line.size();
  if (line.size() > kMaxShownBytes) {
    from = snap_back(line, caret > kWindowContext ? caret - kWindowContext : 0);
    to = snap_back(line, std::min(line.size(), from + kMaxShownBytes));
    range_end = std::min(range_end, to);
  }

  std::string shown;
  std::string lead; // what precedes '^': spaces, and the line's own tabs
  if (from > 0) {
    shown += "...";
    lead += "   ";
  }
  shown.append(line.substr(from, to - from));
  if (to < line.size())
    shown += "...";

  for (size_t i = from; i < caret; i += sequence_length(line[i]))
    lead += line[i] == '\t' ? '\t' : ' ';
  std::string marks = "^";
  const size_t after_caret = caret < line.size() ? caret + sequence_length(line[caret]) : caret;
  for (size_t i = after_caret; i < range_end; i += sequence_length(line[i]))
    marks += '~';

  std::string result = shown + '\n' + lead;
  if (color)
    result.append(kBoldGreen).append(marks).append(kReset);
  else
    result += marks;
  result += '\n';
  return result;
}

void write_diagnostic_text(std::ostream &out, const SourceFile &source,
                           const Diagnostic &diagnostic, const TextOptions &options) {
  std::string message = diagnostic.message;
  if (!diagnostic.code.empty())
    message += " [" + diagnostic.code + "]";
  write_header(out, source.path(), diagnostic.range.begin, severity_name(diagnostic.severity),
               severity_color(diagnostic.severity), message, options.color);
  out << render_snippet(source.line(diagnostic.range.begin.line), diagnostic.range.begin.column,
                        end_on_first_line(source, diagnostic.range), options.color);
  for (const RelatedInformation &related : diagnostic.related) {
    write_header(out, source.path(), related.range.begin, "note", kBoldBlack, related.message,
                 options.color);
    out << render_snippet(source.line(related.range.begin.line), related.range.begin.column,
                          end_on_first_line(source, related.range), options.color);
  }
}

std::string summary_line(size_t errors, size_t warnings) {
  const auto count = [](size_t n, const char *noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  };
  std::string line;
  if (errors > 0)
    line = count(errors, "error");
  if (warnings > 0)
    line += (line.empty() ? "" : ", ") + count(warnings, "warning");
  if (line.empty())
    return line;
  return line + " generated.";
}

} // namespace argus::cli
