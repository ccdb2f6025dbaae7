// Helpers for the query tests (semantic tokens, navigation): checking a text
// with the front end only, finding positions by their text, applying edits.
#pragma once

#include "argus/dsl/driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace argus::test {

// The features run on the front end's result (no invariant checker), as in the server.
inline CheckedFile front_end(const std::string &text) {
  FrontendOptions options;
  options.invariants = false;
  return check_source("test.argus", text, options);
}

inline std::string read_example(const std::string &name) {
  std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/examples/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The position of the `nth` (0-based) occurrence of `word` as a whole word,
// plus `offset` bytes into it.
inline Position position_of(const std::string &text, const std::string &word, int nth = 0,
                            uint32_t offset = 0) {
  const auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  size_t at = 0;
  for (;; ++at) {
    at = text.find(word, at);
    if (at == std::string::npos) {
      ADD_FAILURE() << "'" << word << "' #" << nth << " not in the text";
      return {};
    }
    const bool starts = at == 0 || !is_word(text[at - 1]) || !is_word(word.front());
    const bool ends = at + word.size() == text.size() || !is_word(text[at + word.size()]) ||
                      !is_word(word.back());
    if (starts && ends && nth-- == 0)
      break;
  }
  const SourceFile source("t", text);
  Position p = source.position(at);
  p.column += offset;
  return p;
}

// Replaces each range (they do not overlap) by `replacement`.
inline std::string apply(const std::string &text, std::vector<Range> ranges,
                         const std::string &replacement) {
  const SourceFile source("t", text);
  std::sort(ranges.begin(), ranges.end(),
            [](const Range &a, const Range &b) { return b.begin < a.begin; });
  std::string out = text;
  for (const Range &r : ranges) {
    const size_t begin = source.offset(r.begin);
    out.replace(begin, source.offset(r.end) - begin, replacement);
  }
  return out;
}

inline std::string codes_of(const CheckedFile &file) {
  std::string out;
  for (const Diagnostic &d : file.diagnostics)
    out += std::to_string(d.range.begin.line + 1) + ": " + d.code + " " + d.message + "\n";
  return out;
}

} // namespace argus::test
