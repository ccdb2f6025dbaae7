// Diagnostics as JSON in the shape of LSP 3.17 `Diagnostic` objects, so
// `argus check --format=json` and the language server give agents one format.
//
//   {"positionEncoding": "utf-16",
//    "files": [{"path": "gemm.argus", "uri": "file:///abs/gemm.argus",
//               "diagnostics": [{"range": {"start": {"line": 11, "character": 8},
//                                          "end": {"line": 11, "character": 10}},
//                                "severity": 1, "code": "E0301", "source": "argus",
//                                "message": "...", "data": {...},
//                                "relatedInformation": [{"location": {"uri": ..., "range": ...},
//                                                        "message": "..."}]}]}]}
//
// Lines and characters are zero-based; `character` counts units of the
// position encoding (UTF-16 code units by default, as LSP does).
#pragma once

#include "argus/dsl/diagnostic.h"
#include "argus/dsl/source.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::cli {

// "utf-16", "utf-8" or "utf-32" (LSP's PositionEncodingKind names).
std::optional<ColumnUnit> parse_position_encoding(std::string_view name);
std::string_view position_encoding_name(ColumnUnit unit);

// `file:///abs/path` with the path made absolute and percent-encoded.
std::string file_uri(std::string_view path);
// Every byte of `path` but [A-Za-z0-9-._~/] as %XX.
std::string percent_encode_path(std::string_view path);

nlohmann::json lsp_range(const SourceFile &source, Range range, ColumnUnit unit);
nlohmann::json lsp_diagnostic(const SourceFile &source, const Diagnostic &diagnostic,
                              const std::string &uri, ColumnUnit unit);

// {"path", "uri", "diagnostics"} of a checked file.
nlohmann::json checked_file_json(const SourceFile &source,
                                 const std::vector<Diagnostic> &diagnostics, ColumnUnit unit);
// {"path", "uri", "error", "diagnostics": []} of a file that could not be read.
nlohmann::json unreadable_file_json(const std::string &path, const std::string &error);

// Serializes without ever throwing: invalid UTF-8 (say, in a file name) is
// replaced with U+FFFD.
std::string dump_json(const nlohmann::json &value, int indent = -1);

} // namespace argus::cli
