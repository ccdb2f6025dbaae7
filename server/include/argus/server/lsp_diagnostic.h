// Argus diagnostics as LSP 3.17 `Diagnostic` objects. The one conversion:
// the server publishes them and `argus check --format=json` prints them.
#pragma once

#include "argus/dsl/diagnostic.h"
#include "argus/dsl/source.h"

#include <nlohmann/json.hpp>

#include <string>

namespace argus::server {

// An LSP Range with `character` counted in `unit` (the negotiated encoding).
nlohmann::json lsp_range(const SourceFile &source, Range range, ColumnUnit unit);

// An LSP Diagnostic: range, severity, code, source "argus", message, and
// `data` / `relatedInformation` (locations in `uri`) when present.
nlohmann::json lsp_diagnostic(const SourceFile &source, const Diagnostic &diagnostic,
                              const std::string &uri, ColumnUnit unit);

} // namespace argus::server
