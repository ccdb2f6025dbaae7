// Internal: the knowledge-base refactors (argus::refactor) as LSP CodeActions
// of kind refactor.rewrite.argus.<id>.
#pragma once

#include "argus/dsl/checker_options.h"
#include "argus/dsl/frontend.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace argus::server {

// True when a code action of `kind` passes the request's `context.only`
// (absent: everything; else `kind` equals an entry or extends it with ".").
bool code_action_kind_wanted(const nlohmann::json &params, std::string_view kind);

// codeActionProvider.codeActionKinds: "quickfix" and one kind per refactor.
nlohmann::json code_action_kinds();

// CodeActions for the verified refactors at params.range of `file` (the
// document's current text), with WorkspaceEdits for params.textDocument.uri
// in `encoding`; those `context.only` excludes are not computed.
nlohmann::json refactors_result(const CheckedFile &file, const nlohmann::json &params,
                                ColumnUnit encoding, const check::CheckerOptions &options);

} // namespace argus::server
