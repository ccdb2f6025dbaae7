// `argus compile FILE --target sm90|gfx942 [-o DIR] [--emit-only]`: lowers a
// checked file to CUDA/HIP C++, writes the artifact directory
// (docs/artifacts.md) and compiles it (docs/codegen.md).
#pragma once

#include "argus/cli/command.h"

#include <span>
#include <string>
#include <string_view>

namespace argus::cli {

extern const std::string_view kCompileSummary;
extern const std::string_view kCompileHelp;

int run_compile(std::span<const std::string> args, Environment &env);

} // namespace argus::cli
