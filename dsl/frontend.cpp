// The front end: refuses what is not text, then parse, lower, resolve, type-check.
#include "argus/dsl/frontend.h"

#include "argus/dsl/codes.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace argus {

bool CheckedFile::has_errors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic &d) { return d.severity == Severity::Error; });
}

namespace {

// Refuses input that is not a reasonable text file before any parsing.
bool refuse_unreadable_text(const SourceFile &source, const ParseOptions &options,
                            DiagnosticSink &sink) {
  const std::string &text = source.text();
  if (text.size() > options.max_file_bytes) {
    sink.error(std::string(codes::kFileTooLarge), Range{},
               "file is too large: " + std::to_string(text.size()) + " bytes, the limit is " +
                   std::to_string(options.max_file_bytes) + " bytes");
    return true;
  }
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    const Position at = source.position(nul);
    sink.error(std::string(codes::kNotText), Range{at, at},
               "file is binary, not Argus source (NUL byte at offset " + std::to_string(nul) + ")");
    return true;
  }
  size_t bad = 0;
  if (!is_valid_utf8(text, &bad)) {
    const Position at = source.position(bad);
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    sink.error(std::string(codes::kNotText), Range{at, Position{at.line, at.column + 1}},
               std::string("file is not valid UTF-8: byte ") + byte + " at offset " +
                   std::to_string(bad));
    return true;
  }
  return false;
}

} // namespace

CheckedFile analyze_source(std::string path, std::string text, const ParseOptions &options,
                           const SyntaxTree *edited_tree) {
  CheckedFile result;
  result.source = std::make_unique<SourceFile>(std::move(path), std::move(text));
  DiagnosticSink sink;
  if (!refuse_unreadable_text(*result.source, options, sink)) {
    result.tree.emplace(edited_tree && *edited_tree
                            ? SyntaxTree::reparse(result.source->text(), *edited_tree)
                            : SyntaxTree::parse(result.source->text()));
    result.module = lower_module(*result.tree, *result.source, sink, options.lower);
    result.sema =
        std::make_unique<sema::SemaResult>(sema::analyze(result.module, sink, options.sema));
    const bool has_kernel = std::any_of(
        result.sema->functions.begin(), result.sema->functions.end(),
        [](const sema::FunctionInfo &f) { return f.role == sema::FunctionRole::Kernel; });
    if (!has_kernel && !sink.has_errors()) {
      sink.error(std::string(codes::kEmptyFile), Range{},
                 "file defines no kernel: an Argus file needs at least one @kernel function");
    }
  }
  result.diagnostics = sink.take();
  sort_diagnostics(result.diagnostics);
  return result;
}

std::variant<std::string, ReadError> read_source_file(const std::string &path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    return ReadError{"no such file"};
  if (std::filesystem::is_directory(status))
    return ReadError{"is a directory, not a file"};
  if (!std::filesystem::is_regular_file(status))
    return ReadError{"is not a regular file"};
  // Far past any limit analyze_source applies: refuse before reading it into memory.
  constexpr std::uintmax_t kMaxReadBytes = 256u << 20;
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxReadBytes)
    return ReadError{"is too large to read (" + std::to_string(size) + " bytes)"};
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return ReadError{"cannot be opened for reading"};
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad())
    return ReadError{"could not be read"};
  return contents.str();
}

} // namespace argus
