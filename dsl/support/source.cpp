#include "argus/dsl/source.h"

#include <algorithm>

namespace argus {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n')
      line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::text_in(Range range) const {
  const size_t begin = offset(range.begin), end = offset(range.end);
  return end > begin ? std::string_view(text_).substr(begin, end - begin) : std::string_view();
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line >= line_starts_.size())
    return {};
  const size_t begin = line_starts_[line];
  size_t end = line + 1 < line_starts_.size() ? line_starts_[line + 1] - 1 : text_.size();
  if (end > begin && text_[end - 1] == '\r')
    --end;
  return std::string_view(text_).substr(begin, end - begin);
}

size_t SourceFile::offset(Position pos) const {
  if (pos.line >= line_starts_.size())
    return text_.size();
  const size_t begin = line_starts_[pos.line];
  const size_t end = pos.line + 1 < line_starts_.size() ? line_starts_[pos.line + 1] : text_.size();
  return std::min(begin + pos.column, end);
}

Position SourceFile::position(size_t offset) const {
  offset = std::min(offset, text_.size());
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<uint32_t>(it - line_starts_.begin() - 1);
  return Position{line, static_cast<uint32_t>(offset - line_starts_[line])};
}

uint32_t SourceFile::column_in(Position pos, ColumnUnit unit) const {
  if (unit == ColumnUnit::Utf8Bytes)
    return pos.column;
  const std::string_view text = line(pos.line);
  const size_t limit = std::min<size_t>(pos.column, text.size());
  uint32_t count = 0;
  for (size_t i = 0; i < limit;) {
    const auto lead = static_cast<unsigned char>(text[i]);
    // Invalid lead bytes (continuations, 0xF8..0xFF) count as one unit each.
    const size_t length = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF8 ? 4 : 1;
    // Code points above the BMP take two UTF-16 code units.
    count += (unit == ColumnUnit::Utf16CodeUnits && length == 4) ? 2 : 1;
    i += length;
  }
  return count;
}

bool is_valid_utf8(std::string_view text, size_t *bad_offset) {
  size_t i = 0;
  const auto fail = [&] {
    if (bad_offset)
      *bad_offset = i;
    return false;
  };
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    uint32_t code_point = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      code_point = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      code_point = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      code_point = lead & 0x07;
    } else {
      return fail();
    }
    if (i + length > text.size())
      return fail();
    for (size_t k = 1; k < length; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      if ((byte & 0xC0) != 0x80)
        return fail();
      code_point = (code_point << 6) | (byte & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    const bool overlong =
        (length == 3 && code_point < 0x800) || (length == 4 && code_point < 0x10000);
    if (overlong || (code_point >= 0xD800 && code_point <= 0xDFFF) || code_point > 0x10FFFF)
      return fail();
    i += length;
  }
  return true;
}

} // namespace argus
