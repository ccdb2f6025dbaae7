// The gfx942 compile through the in-process Clang/LLVM library (codegen/hip),
// when this build has it.
#include "argus/codegen/compile.h"

#if __has_include("argus/codegen/hip_compile.h")
#include "argus/codegen/hip_compile.h"
#define ARGUS_HAVE_HIP_COMPILE 1
#else
#define ARGUS_HAVE_HIP_COMPILE 0
#endif

namespace argus::codegen {

bool gfx942_compiler_available() { return ARGUS_HAVE_HIP_COMPILE != 0; }

CompileReport compile_gfx942(const std::string &source, std::string_view argus_path) {
  CompileReport report;
  report.target = GpuTarget::Gfx942;
#if ARGUS_HAVE_HIP_COMPILE
  report.compiler = "clang 19 (in process)";
  HipCompileOptions options;
  options.defines.push_back("ARGUS_DEVICE_ONLY");
  const HipCompileResult result =
      compile_hip_gfx942(source, std::string(source_file_name(GpuTarget::Gfx942)), options);
  report.output = result.diagnostics;
  report.seconds = result.compile_seconds;
  report.diagnostics = map_compiler_messages(result.diagnostics, argus_path);
  for (const HipKernelResources &k : result.kernels) {
    KernelResources r;
    r.name = k.name;
    r.vgprs = k.vgprs;
    r.agprs = k.agprs;
    r.sgprs = k.sgprs;
    r.shared_bytes = k.lds_bytes;
    r.scratch_bytes = k.scratch_bytes;
    r.spill_vgprs = k.spill_vgprs;
    r.spill_sgprs = k.spill_sgprs;
    r.occupancy_waves_per_simd = k.occupancy_waves_per_simd;
    report.kernels.push_back(r);
  }
  if (!result.ok) {
    report.message = "the gfx942 compile failed";
    return report;
  }
  report.binary = result.code_object;
  report.ok = true;
#else
  (void)source;
  (void)argus_path;
  report.tool_missing = true;
  report.message = "this build of argus has no gfx942 compiler (codegen/hip)";
#endif
  return report;
}

} // namespace argus::codegen
