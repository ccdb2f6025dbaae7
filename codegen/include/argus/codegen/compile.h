// Device compile drivers and their resource reports: nvcc for sm90 (ptxas -v
// parsed per kernel) and, when the build has it, the in-process Clang/LLVM
// compile for gfx942 (codegen/hip). Compiler messages that point into the
// .argus file through #line directives become diagnostics (E0803 / W0801).
#pragma once

#include "argus/codegen/lower.h"
#include "argus/dsl/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::codegen {

// One kernel's resources as the device compiler reports them.
struct KernelResources {
  std::string name;
  // sm90 (ptxas -v)
  int registers = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t shared_bytes = 0;         // static shared memory (the compiler's figure)
  int64_t dynamic_shared_bytes = 0; // what the launcher asks for at launch (from lowering)
  int64_t stack_bytes = 0;
  int barriers = 0;
  // gfx942 (AMDGPU metadata)
  int vgprs = 0;
  int agprs = 0;
  int sgprs = 0;
  int64_t scratch_bytes = 0;
  int64_t spill_vgprs = 0;
  int64_t spill_sgprs = 0;
  int occupancy_waves_per_simd = 0;
  // sm90: the SASS instructions that show whether the fast path is there
  // (HGMMA, UTMALDG, SYNCS, LDGSTS, ...), counted from `cuobjdump -sass`;
  // empty when cuobjdump was not found (CompileReport::sass_note says so).
  std::map<std::string, int64_t> sass_mix;
};

struct CompileReport {
  bool ok = false;
  bool tool_missing = false; // nvcc not found / no gfx942 compiler in this build
  GpuTarget target = GpuTarget::Sm90;
  std::string compiler; // e.g. "nvcc 13.0.88" or "clang 19 (in process)"
  std::string command;  // the command line (sm90)
  std::string output;   // the compiler's raw messages
  double seconds = 0;
  std::vector<KernelResources> kernels;
  std::vector<Diagnostic> diagnostics; // messages mapped to .argus lines
  std::vector<uint8_t> binary;         // the cubin / code object when ok
  std::string message;                 // why it failed, for people
  // sm90: ptxas's performance notes (e.g. C7514, wgmma serialized), and why
  // the SASS mix is missing, if it is.
  std::vector<std::string> ptxas_notes;
  std::string sass_note;
};

// The SASS opcode families of interest per kernel in `cuobjdump -sass` output.
std::map<std::string, std::map<std::string, int64_t>> parse_sass_mix(std::string_view output);

// nvcc from $ARGUS_NVCC, PATH, or /usr/local/cuda/bin; nullopt when absent.
std::optional<std::string> find_nvcc();

// Parses `ptxas -v` output (nvcc -Xptxas -v): one entry per entry function.
std::vector<KernelResources> parse_ptxas_verbose(std::string_view output);

// Compiler messages that name `argus_path` (through #line) as diagnostics:
// nvcc's "file(12): error: ..." and clang's "file:12:3: error: ...".
std::vector<Diagnostic> map_compiler_messages(std::string_view output, std::string_view argus_path);

// Compiles `source_path` (a kernels.cu) to `cubin_path` with
// nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v -O3 -std=c++17.
CompileReport compile_sm90(const std::string &nvcc, const std::string &source_path,
                           const std::string &cubin_path, std::string_view argus_path);

// Whether this build can compile gfx942 code objects in process.
bool gfx942_compiler_available();
// Compiles generated HIP source for gfx942 (device code only).
CompileReport compile_gfx942(const std::string &source, std::string_view argus_path);

// compile.json of an artifact.
nlohmann::json compile_json(const CompileReport &report);
// A table of the kernels' resources for people.
std::string resource_table(const CompileReport &report);

} // namespace argus::codegen
