// `argus lsp`: the language server over stdin/stdout (server/, docs in
// server/README.md).
#pragma once

#include "argus/cli/command.h"

#include <span>
#include <string>
#include <string_view>

namespace argus::cli {

extern const std::string_view kLspSummary;
extern const std::string_view kLspHelp;

// Serves LSP on std::cin / env.out, logging to env.err (or --log-file).
// Exit status: 0 after `shutdown` then `exit`, 1 when the client exits
// without shutdown or the input ends, 2 a usage error.
int run_lsp(std::span<const std::string> args, Environment &env);

} // namespace argus::cli
