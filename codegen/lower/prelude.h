// Internal: the fixed text that starts every generated file (lower/prelude.cpp).
#pragma once

#include <string_view>

namespace argus::codegen::detail {

// CUDA C++ for sm90: includes of the CUDA runtime and the bf16/f16/fp8 headers,
// the floor-division helpers, swizzle, packing and bit-cast helpers.
extern const std::string_view kCudaPrelude;
// HIP C++ for gfx942 that needs no ROCm header: attribute macros, a bf16 and
// fp8 type, shuffles through ds_bpermute, math through clang builtins.
extern const std::string_view kHipPrelude;
// Host helpers of the assume checks (plain C++, no GPU runtime).
extern const std::string_view kHostCheckPrelude;

} // namespace argus::codegen::detail
