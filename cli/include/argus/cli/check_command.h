// `argus check`: runs the front end on files and prints the diagnostics.
#pragma once

#include "argus/cli/command.h"

#include <span>
#include <string>
#include <string_view>

namespace argus::cli {

extern const std::string_view kCheckSummary;
extern const std::string_view kCheckHelp;

int run_check(std::span<const std::string> args, Environment &env);

} // namespace argus::cli
