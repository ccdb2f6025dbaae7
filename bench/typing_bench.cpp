// How far a half-typed line's errors spread: every line of every example is
// typed again prefix by prefix (the file with that line cut at each token
// boundary) through the front end, and a prefix "floods" when an error lands
// more than one line from the edit (rust-analyzer's rule: an edit's errors
// stay at the edit). Prints, per example, the prefixes and the flooding ones
// as the front end reports them and as the language server shows them
// (confine_to_edit against the example's own analysis, its last good one),
// and the error codes that land far in the front end's report.
#include "argus/dsl/edit_confinement.h"
#include "argus/dsl/frontend.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
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

int main(int argc, char **argv) {
  // --show N: print the first N prefixes that still flood as the server shows them.
  int show = argc == 3 && std::string(argv[1]) == "--show" ? std::atoi(argv[2]) : 0;
  const fs::path examples = fs::path(ARGUS_SOURCE_DIR) / "examples";
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(examples))
    if (entry.path().extension() == ".argus")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::cout << "| example | prefixes | flooding (front end) | share | flooding (server) | share "
               "|\n|---|---:|---:|---:|---:|---:|\n";
  std::map<std::string, int> far_codes;
  int all = 0, all_flooding = 0, all_shown = 0;
  for (const fs::path &path : files) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::vector<std::string> lines = lines_of(buffer.str());
    std::string original;
    for (const std::string &l : lines)
      original += l + "\n";
    const argus::CheckedFile good = argus::analyze_source(path.string(), original);
    int prefixes = 0, flooding = 0, shown_flooding = 0;
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
        bool shown_far = false;
        for (const argus::Diagnostic &d :
             argus::confine_to_edit(file.diagnostics, text, good.diagnostics, original)) {
          const int64_t at = static_cast<int64_t>(d.range.begin.line);
          const int64_t edit = static_cast<int64_t>(edited);
          const bool far_error =
              d.severity == argus::Severity::Error && (at < edit - 1 || at > edit + 1);
          if (far_error && !shown_far && show > 0) {
            --show;
            std::cerr << path.filename().string() << ":" << edited + 1 << " `"
                      << line.substr(0, cut) << "` -> line " << at + 1 << ": " << d.code << " "
                      << d.message << "\n";
          }
          shown_far = shown_far || far_error;
        }
        shown_flooding += shown_far;
      }
    }
    all += prefixes;
    all_flooding += flooding;
    all_shown += shown_flooding;
    std::cout << "| " << path.filename().string() << " | " << prefixes << " | " << flooding << " | "
              << (prefixes ? 100 * flooding / prefixes : 0) << "% | " << shown_flooding << " | "
              << (prefixes ? 100 * shown_flooding / prefixes : 0) << "% |\n";
  }
  std::cout << "| **all** | " << all << " | " << all_flooding << " | "
            << (all ? 100 * all_flooding / all : 0) << "% | " << all_shown << " | "
            << (all ? 100 * all_shown / all : 0) << "% |\n\nErrors more than one line from "
            << "the edit, by code:\n\n| code | count |\n|---|---:|\n";
  for (const auto &[code, count] : far_codes)
    std::cout << "| " << code << " | " << count << " |\n";
  return 0;
}
