// Diagnostics as text, the way clang prints them:
//
//   gemm.argus:12:9: error: undefined name 'BK' [E0301]
//       for k in range(0, K, BK):
//                            ^~
//   gemm.argus:3:1: note: did you mean 'BN'?
//
// Lines are 1-based; columns are 1-based UTF-8 byte offsets plus one, as clang
// counts them. The caret line copies the tabs of the source line so it lines
// up in any terminal, and puts one space (or one '~') per code point.
#pragma once

#include "argus/dsl/diagnostic.h"
#include "argus/dsl/source.h"

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace argus::cli {

struct TextOptions {
  bool color = false; // ANSI colors as clang uses them
};

// Writes one diagnostic with its source line, caret line and notes.
void write_diagnostic_text(std::ostream &out, const SourceFile &source,
                           const Diagnostic &diagnostic, const TextOptions &options);

// The source line and caret line (each ending in '\n') for a range that starts
// at byte column `begin` and ends at byte column `end` of `line` (`end` past
// the line's end is clipped). Empty when the line is not worth showing: empty,
// not valid UTF-8, or holding control characters. Lines longer than a screen
// are shown as a window around `begin`, with "..." at the cut ends.
std::string render_snippet(std::string_view line, uint32_t begin, uint32_t end, bool color);

// "2 errors, 1 warning generated." or "" when both counts are zero.
std::string summary_line(size_t errors, size_t warnings);

} // namespace argus::cli
