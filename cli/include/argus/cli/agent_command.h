// `argus agent optimize`: the optimization loop through `argus lsp`
// (agent/, issue 14).
#pragma once

#include "argus/cli/command.h"

#include <span>
#include <string>
#include <string_view>

namespace argus::cli {

extern const std::string_view kAgentSummary;
extern const std::string_view kAgentHelp;

// Exit status: 0 when the loop ran (whether or not it found a faster
// version), 1 when the starting kernel does not check or benchmark, 2 a usage
// error.
int run_agent(std::span<const std::string> args, Environment &env);

} // namespace argus::cli
