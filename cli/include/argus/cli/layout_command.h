// `argus layout EXPR`: the layout-algebra calculator (docs/layout.md).
#pragma once

#include "argus/cli/command.h"

#include <span>
#include <string>
#include <string_view>

namespace argus::cli {

extern const std::string_view kLayoutSummary;
extern const std::string_view kLayoutHelp;

// Evaluates the expression made of the non-option arguments (joined by
// spaces) and prints its value to env.out. Exit status: 0 ok, 1 the
// expression is malformed or fails (message and caret on env.err, or a JSON
// "error" on env.out with --format=json), 2 a usage error.
int run_layout(std::span<const std::string> args, Environment &env);

} // namespace argus::cli
