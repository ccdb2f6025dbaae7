#include "argus/server/document.h"

#include <algorithm>
#include <utility>

namespace argus::server {
namespace {

// Length in bytes of the UTF-8 sequence that starts with `lead` (1 for bad bytes).
size_t sequence_length(unsigned char lead) {
  if (lead < 0x80)
    return 1;
  if ((lead & 0xE0) == 0xC0)
    return 2;
  if ((lead & 0xF0) == 0xE0)
    return 3;
  if ((lead & 0xF8) == 0xF0)
    return 4;
  return 1;
}

// The point (row, byte column) reached from `point` by reading `text`.
TSPoint advance(TSPoint point, std::string_view text) {
  for (char c : text) {
    if (c == '\n') {
      ++point.row;
      point.column = 0;
    } else {
      ++point.column;
    }
  }
  return point;
}

} // namespace

TSInputEdit input_edit(std::string_view text, size_t start, size_t end,
                       std::string_view replacement) {
  start = std::min(start, text.size());
  end = std::clamp(end, start, text.size());
  const TSPoint start_point = advance(TSPoint{0, 0}, text.substr(0, start));
  return TSInputEdit{static_cast<uint32_t>(start),
                     static_cast<uint32_t>(end),
                     static_cast<uint32_t>(start + replacement.size()),
                     start_point,
                     advance(start_point, text.substr(start, end - start)),
                     advance(start_point, replacement)};
}

size_t offset_of(std::string_view text, LspPosition pos, ColumnUnit unit) {
  size_t line_start = 0;
  for (uint32_t line = 0; line < pos.line; ++line) {
    const size_t newline = text.find('\n', line_start);
    if (newline == std::string_view::npos)
      return text.size();
    line_start = newline + 1;
  }
  size_t line_end = text.find('\n', line_start);
  if (line_end == std::string_view::npos)
    line_end = text.size();
  if (line_end > line_start && text[line_end - 1] == '\r')
    --line_end;
  size_t offset = line_start;
  uint32_t units = 0;
  while (offset < line_end && units < pos.character) {
    const size_t length =
        std::min(sequence_length(static_cast<unsigned char>(text[offset])), line_end - offset);
    uint32_t width = 1;
    if (unit == ColumnUnit::Utf8Bytes)
      width = static_cast<uint32_t>(length);
    else if (unit == ColumnUnit::Utf16CodeUnits)
      width = length == 4 ? 2 : 1;
    if (units + width > pos.character)
      break; // inside this character: clamp to its start
    units += width;
    offset += length;
  }
  return offset;
}

void apply_edit(std::string &text, LspRange range, std::string_view replacement, ColumnUnit unit) {
  const size_t begin = offset_of(text, range.start, unit);
  const size_t end = std::max(begin, offset_of(text, range.end, unit));
  text.replace(begin, end - begin, replacement);
}

Document &DocumentStore::open(std::string uri, std::string text, int64_t version) {
  Document &document = documents_[uri];
  document.uri = std::move(uri);
  document.text = std::move(text);
  document.version = version;
  return document;
}

const Document *DocumentStore::find(const std::string &uri) const {
  const auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

Document *DocumentStore::find(const std::string &uri) {
  return const_cast<Document *>(std::as_const(*this).find(uri));
}

bool DocumentStore::close(const std::string &uri) { return documents_.erase(uri) > 0; }

std::vector<std::string> DocumentStore::uris() const {
  std::vector<std::string> out;
  for (const auto &[uri, document] : documents_)
    out.push_back(uri);
  return out;
}

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

} // namespace

std::string uri_to_path(const std::string &uri) {
  constexpr std::string_view kScheme = "file://";
  if (!uri.starts_with(kScheme))
    return uri;
  std::string path;
  for (size_t i = kScheme.size(); i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex_value(uri[i + 1]) >= 0 &&
        hex_value(uri[i + 2]) >= 0) {
      path.push_back(static_cast<char>(hex_value(uri[i + 1]) * 16 + hex_value(uri[i + 2])));
      i += 2;
    } else {
      path.push_back(uri[i]);
    }
  }
  return path;
}

} // namespace argus::server
