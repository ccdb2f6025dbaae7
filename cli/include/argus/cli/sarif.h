// `argus check --format=sarif`: SARIF 2.1.0 (OASIS), the format GitHub code
// scanning and other CI tools read. One run of the tool `argus`: a rule per
// diagnostic code (its title, and its section of docs/diagnostics.md as help),
// a result per diagnostic with its region (1-based lines, UTF-16 columns,
// SARIF's default), the related locations ("written here") and the
// counterexample (`Diagnostic.data`) as the result's property
// `counterexample`. Files that could not be read are notifications of the
// invocation, which is then not successful.
#pragma once

#include "argus/dsl/diagnostic.h"
#include "argus/dsl/source.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::cli {

struct SarifFile {
  const SourceFile *source = nullptr;
  const std::vector<Diagnostic> *diagnostics = nullptr;
};

struct SarifUnreadable {
  std::string path;
  std::string error;
};

nlohmann::json sarif_log(const std::vector<SarifFile> &files,
                         const std::vector<SarifUnreadable> &unreadable);

// A code's section of docs/diagnostics.md (the text under `### CODE — title`
// up to its first example), as Markdown; nullopt for a code it lacks.
std::optional<std::string> diagnostic_help(std::string_view code);

// A path as a URI reference: relative paths stay relative (percent-encoded),
// absolute ones become file:// URIs.
std::string path_uri_reference(std::string_view path);

} // namespace argus::cli
