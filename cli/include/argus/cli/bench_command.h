// `argus bench`: compiles a file into an artifact and runs it through a runner
// command template (argus-runner locally, or over ssh/srun), then prints the
// runner's results as a table or passes its JSON through.
#pragma once

#include "argus/cli/command.h"
#include "argus/codegen/runner_command.h"

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace argus::cli {

extern const std::string_view kBenchSummary;
extern const std::string_view kBenchHelp;

int run_bench(std::span<const std::string> args, Environment &env);

} // namespace argus::cli
