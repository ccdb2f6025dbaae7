// Source text, positions and ranges shared by every layer of Argus.
//
// Positions are zero-based lines and zero-based UTF-8 byte columns, the unit
// tree-sitter reports. Conversion to other encodings (UTF-16 for LSP) is done
// by `SourceFile::column_in`, so no layer above the front end guesses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace argus {

struct Position {
  uint32_t line = 0;   // zero-based
  uint32_t column = 0; // zero-based, UTF-8 bytes
  friend bool operator==(const Position &, const Position &) = default;
  friend auto operator<=>(const Position &, const Position &) = default;
};

struct Range {
  Position begin;
  Position end;
  friend bool operator==(const Range &, const Range &) = default;
};

enum class ColumnUnit { Utf8Bytes, Utf16CodeUnits, CodePoints };

// An immutable source file: its name (for messages), text and line index.
class SourceFile {
public:
  SourceFile(std::string path, std::string text);

  const std::string &path() const { return path_; }
  const std::string &text() const { return text_; }
  size_t line_count() const { return line_starts_.size(); }

  // The text of a line without its line terminator; empty past the end.
  std::string_view line(uint32_t line) const;
  // The text of a range (clamped to the text; empty when it is reversed).
  std::string_view text_in(Range range) const;
  // Byte offset of a position, clamped to the text.
  size_t offset(Position pos) const;
  Position position(size_t offset) const;
  // The column of `pos` counted in `unit` (for LSP's UTF-16 columns).
  uint32_t column_in(Position pos, ColumnUnit unit) const;

private:
  std::string path_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

// True when `text` is well-formed UTF-8; `bad_offset` gets the first bad byte.
bool is_valid_utf8(std::string_view text, size_t *bad_offset = nullptr);

} // namespace argus
