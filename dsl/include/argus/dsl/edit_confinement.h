// While a line is half typed, its errors stay at the edit and the rest of
// the file keeps its last good analysis (rust-analyzer's rule for an editor).
//
// `now` are the diagnostics of the current text; `good` those of the last
// text that had no error. The edit is the lines where the two texts differ
// (their common first and last lines are untouched). When the current text
// has an error within one line of the edit, the edit is in progress: the
// result is the current diagnostics within one line of it plus the last
// good diagnostics of the untouched lines (moved by the lines the edit added
// or removed). Otherwise the current diagnostics are the answer as they are,
// so an edit that is complete (deleting a definition still in use) shows
// every error it causes, wherever it is.
#pragma once

#include "argus/dsl/diagnostic.h"

#include <string_view>
#include <vector>

namespace argus {

struct EditedLines {
  uint32_t first = 0; // the first line of the current text that differs
  uint32_t last = 0;  // the last one (== first for a pure deletion)
  int64_t added = 0;  // lines of the current text minus lines of the good one
};

EditedLines edited_lines(std::string_view good_text, std::string_view now_text);

std::vector<Diagnostic> confine_to_edit(const std::vector<Diagnostic> &now,
                                        std::string_view now_text,
                                        const std::vector<Diagnostic> &good,
                                        std::string_view good_text);

} // namespace argus
