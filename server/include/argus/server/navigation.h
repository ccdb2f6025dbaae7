// LSP navigation: textDocument/definition, references, prepareRename and
// rename, translated from argus::definition_at / references_at / rename_at.
#pragma once

#include "argus/dsl/frontend.h"

#include <nlohmann/json.hpp>

#include <string>

namespace argus::server {

// A result, or a JSON-RPC error when `error_code` is set.
struct NavigationAnswer {
  nlohmann::json result;
  int error_code = 0;
  std::string error_message;
};

// Location or null.
nlohmann::json definition_result(const CheckedFile &file, const nlohmann::json &params,
                                 ColumnUnit encoding);
// Location[] (context.includeDeclaration honoured).
nlohmann::json references_result(const CheckedFile &file, const nlohmann::json &params,
                                 ColumnUnit encoding);
// {range, placeholder}; null on no name; -32602 with the reason on a name
// that cannot be renamed (a builtin, an intrinsic, ...).
NavigationAnswer prepare_rename_result(const CheckedFile &file, const nlohmann::json &params,
                                       ColumnUnit encoding);
// A WorkspaceEdit {changes: {uri: TextEdit[]}}; -32602 with the reason when
// the rename is refused (bad new name, clash, nothing renamable there).
NavigationAnswer rename_result(const CheckedFile &file, const nlohmann::json &params,
                               ColumnUnit encoding);

} // namespace argus::server
