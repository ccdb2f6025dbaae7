// In-process HIP compile for gfx942 (MI300X, CDNA3) through the Clang/LLVM 19
// libraries, and the kernels' resource usage read from the code object.
//
// No ROCm is needed: the source must be self-contained (no HIP headers; use
// `__attribute__((global))`, `__attribute__((shared))` and `__builtin_amdgcn_*`).
// The compile is the in-process equivalent of
//
//   clang-19 -x hip --offload-arch=gfx942 -nogpulib -nogpuinc --offload-device-only
//            --no-gpu-bundle-output -O3 -c FILE -o FILE.hsaco
//
// See docs/gfx942.md for the pipeline, the metadata fields and the occupancy formula.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace argus::codegen {

// Resource usage of one kernel, from the code object's AMDGPU metadata
// (NT_AMDGPU_METADATA note, code object v5) plus the computed occupancy.
struct HipKernelResources {
  std::string name;      // `.name` (the source-level name; `.symbol` is name + ".kd")
  int vgprs = 0;         // architected VGPRs (`.vgpr_count` minus the AGPR part)
  int agprs = 0;         // accumulation VGPRs (`.agpr_count`)
  int total_vgprs = 0;   // unified register file use: `.vgpr_count` (arch, aligned to 4, + AGPRs)
  int sgprs = 0;         // `.sgpr_count` (includes VCC, FLAT_SCRATCH, XNACK_MASK)
  int64_t lds_bytes = 0; // `.group_segment_fixed_size` (static LDS)
  int64_t scratch_bytes = 0;        // `.private_segment_fixed_size` per work-item
  int64_t spill_vgprs = 0;          // `.vgpr_spill_count`
  int64_t spill_sgprs = 0;          // `.sgpr_spill_count`
  int wavefront_size = 64;          // `.wavefront_size`
  int max_flat_workgroup_size = 0;  // `.max_flat_workgroup_size` (1024 unless bounded)
  bool dynamic_stack = false;       // `.uses_dynamic_stack`: scratch size is a lower bound
  int occupancy_waves_per_simd = 0; // min of the limits below, 1..8 (0: cannot launch)
  // The individual limits (waves per SIMD), for explaining the occupancy.
  int occupancy_vgpr_limit = 0;
  int occupancy_sgpr_limit = 0;
  int occupancy_lds_limit = 0;
  int occupancy_workgroup_limit = 0;
};

struct HipCompileOptions {
  int opt_level = 3;                   // -O0 .. -O3
  std::vector<std::string> defines;    // "NAME" or "NAME=VALUE", as -D
  std::vector<std::string> extra_args; // more driver arguments, e.g. "-Wno-unused-variable"
  bool link = true;                    // link to a shared-object code object (needs lld);
                                       // false: keep the relocatable object
};

struct HipCompileResult {
  bool ok = false;
  // ELF: a linked code object (ET_DYN, loadable with hipModuleLoad) when
  // `linked`, else the relocatable device object (ET_REL). Both carry the
  // metadata note. Empty when !ok.
  std::vector<uint8_t> code_object;
  bool linked = false;
  std::vector<HipKernelResources> kernels; // in metadata order
  // Clang's messages in `file:line:col: error: ...` form (names as given by
  // `file_name` or by #line directives in the source), and any failure of ours.
  std::string diagnostics;
  double compile_seconds = 0; // wall time of the whole call
};

// Compile `source` (HIP C++) for gfx942. `file_name` names the source in
// diagnostics; no file is read from disk. Thread-safe: each call is independent
// (the in-process link through lld is serialized by a mutex; lld has global state).
HipCompileResult compile_hip_gfx942(std::string_view source, std::string_view file_name,
                                    const HipCompileOptions &options = {});

// Read the kernels' resources from an AMDGPU ELF code object (linked or relocatable).
// Returns false with a message in `error` if the bytes are not such an object or the
// metadata note is missing or malformed.
bool read_amdgpu_kernel_resources(const std::vector<uint8_t> &code_object,
                                  std::vector<HipKernelResources> &kernels, std::string &error);

// MI300X (CDNA3, gfx942) occupancy: waves per SIMD for one kernel. Fills the
// `occupancy_*` fields of `kernel` from its register, LDS and work-group-size fields.
void compute_gfx942_occupancy(HipKernelResources &kernel);

// MI300X hardware constants used by the occupancy formula (docs/gfx942.md).
namespace gfx942 {
inline constexpr int kMaxWavesPerSimd = 8;
inline constexpr int kSimdsPerCu = 4;
inline constexpr int kVgprsPerSimdLane = 512; // unified arch + acc VGPR file
inline constexpr int kVgprAllocGranule = 8;
inline constexpr int kAgprOffsetAlignment = 4; // AGPRs start after arch VGPRs aligned to 4
inline constexpr int64_t kLdsBytesPerCu = 65536;
inline constexpr int kMaxWorkgroupsPerCu = 16; // when a work-group has more than one wave
inline constexpr int kWavefrontSize = 64;
} // namespace gfx942

} // namespace argus::codegen
