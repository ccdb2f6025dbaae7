// Diagnostic codes of code generation and the device compilers (docs/codegen.md).
// The front end's codes live in dsl/include/argus/dsl/codes.h; these are a
// separate, small list (E08xx, W08xx) that never overlaps it.
#pragma once

#include <string_view>

namespace argus::codegen::codes {

inline constexpr std::string_view kNoKernelForTarget = "E0801"; // nothing to lower for the target
inline constexpr std::string_view kUnsupported = "E0802";       // a construct codegen cannot lower
inline constexpr std::string_view kDeviceCompileError =
    "E0803"; // nvcc/clang error, mapped to .argus
inline constexpr std::string_view kDeviceCompileWarning = "W0801";
inline constexpr std::string_view kKernelSkipped = "W0802"; // a kernel of the other target

} // namespace argus::codegen::codes
