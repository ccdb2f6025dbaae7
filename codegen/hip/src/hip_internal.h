// Internals of argus_hip_compile shared between its translation units.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace argus::codegen::detail {

// Whether this build links code objects in process (liblld-19-dev was found).
bool have_in_process_linker();

// Links a relocatable gfx942 object into a shared-object code object, as
// `ld.lld -m elf64_amdgpu --no-undefined -shared` (what the clang driver runs).
// Serialized: lld keeps global state. Returns false with a message in `error`.
bool link_amdgpu_code_object(const std::vector<uint8_t> &object, std::vector<uint8_t> &linked,
                             std::string &error);

} // namespace argus::codegen::detail
