// How far a half-typed line's errors spread: every line of every example is
// typed again prefix by prefix (the file with that line cut at each token
// boundary) through the front end, and a prefix "floods" when an error lands
// more than one line from the edit (rust-analyzer's rule: an edit's errors
// stay at the edit). Prints, per example, the prefixes, the flooding ones and
// the error codes that land far most often. The measure of issue 12's item 2;
// it becomes a test once recovery makes the count zero.
#include "argus/dsl/frontend.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// After the indentation, wherever the kind of character changes (word,
// blank, punctuation), and at each punctuation character.
std::vector<size_t> cuts(const std::string &line) {
  auto kind = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? 0 : c == ' ' ? 1 : 2;
  };
  std::vector<size_t> out;
  const size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos)
    return out;
  for (size_t i = indent + 1; i < line.size(); ++i)
    if (kind(line[i]) != kind(line[i - 1]) || kind(line[i]) == 2)
      out.push_back(i);
  return out;
}

} // namespace

int main() {
  const fs::path examples = fs::path(ARGUS_SOURCE_DIR) / "examples";
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(examples))
    if (entry.path().extension() == ".argus")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::cout << "| example | prefixes | flooding | share |\n|---|---:|---:|---:|\n";
  std::map<std::string, int> far_codes;
  int all = 0, all_flooding = 0;
  for (const fs::path &path : files) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::vector<std::string> lines = lines_of(buffer.str());
    int prefixes = 0, flooding = 0;
    for (size_t edited = 0; edited < lines.size(); ++edited) {
      const std::string &line = lines[edited];
      if (line.find("\"\"\"") != std::string::npos)
        continue; // docstring quotes open a string to the next one by design
      for (size_t cut : cuts(line)) {
        std::string text;
        for (size_t i = 0; i < lines.size(); ++i)
          text += (i == edited ? line.substr(0, cut) : lines[i]) + "\n";
        ++prefixes;
        const argus::CheckedFile file = argus::analyze_source(path.string(), text);
        bool far = false;
        for (const argus::Diagnostic &d : file.diagnostics) {
          const int64_t at = static_cast<int64_t>(d.range.begin.line);
          const int64_t edit = static_cast<int64_t>(edited);
          if (d.severity == argus::Severity::Error && (at < edit - 1 || at > edit + 1)) {
            far = true;
            ++far_codes[d.code];
          }
        }
        flooding += far;
      }
    }
    all += prefixes;
    all_flooding += flooding;
    std::cout << "| " << path.filename().string() << " | " << prefixes << " | " << flooding << " | "
              << (prefixes ? 100 * flooding / prefixes : 0) << "% |\n";
  }
  std::cout << "| **all** | " << all << " | " << all_flooding << " | "
            << (all ? 100 * all_flooding / all : 0) << "% |\n\nErrors more than one line from "
            << "the edit, by code:\n\n| code | count |\n|---|---:|\n";
  for (const auto &[code, count] : far_codes)
    std::cout << "| " << code << " | " << count << " |\n";
  return 0;
}
