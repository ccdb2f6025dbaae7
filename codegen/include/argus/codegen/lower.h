// Lowering of checked Argus kernels to CUDA C++ (sm90) and HIP C++ (gfx942):
// device code with #line directives, host launchers that check every
// `assume`, and the facts the artifact's meta.json needs. docs/codegen.md
// describes how each construct lowers; docs/artifacts.md is the ABI contract.
#pragma once

#include "argus/dsl/diagnostic.h"
#include "argus/dsl/frontend.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::codegen {

enum class GpuTarget { Sm90, Gfx942 };

std::string_view target_name(GpuTarget target); // "sm90", "gfx942"
std::optional<GpuTarget> parse_target(std::string_view name);
// The file name of the generated source in an artifact: "kernels.cu" / "kernels.hip".
std::string_view source_file_name(GpuTarget target);

// One kernel parameter as meta.json and the runner see it (constexpr
// parameters are folded and absent).
struct ParamMeta {
  std::string name;
  bool is_tensor = false;
  std::string dtype;              // "bf16", "f32", "i32", ...
  std::vector<std::string> shape; // tensors: Python-syntax expressions over scalar params
  std::vector<std::string> strides;
  bool output = false; // tensors the kernel stores into
  // Integer scalars declared `P: i32 = num_sms()`: the runner passes the
  // device's SM count when no size gives P.
  bool default_num_sms = false;
};

struct BenchMeta {
  std::vector<std::pair<std::string, int64_t>> sizes; // in parameter order
  std::string reference;                              // kernel name, builtin name, or empty
  std::vector<std::string> before;                    // kernels launched first, in order
  std::optional<std::string> flops;                   // Python-syntax expressions
  std::optional<std::string> bytes;
  std::optional<int64_t> flops_value; // evaluated at `sizes` when possible
  std::optional<int64_t> bytes_value;
};

struct KernelMeta {
  std::string name;
  std::string launcher; // "argus_launch_<name>"
  std::string check;    // "argus_check_<name>" (plain C++, in host_checks)
  std::array<int64_t, 3> block = {1, 1, 1};
  std::vector<std::string> grid;    // Python-syntax expressions
  int64_t shared_bytes = 0;         // static shared memory (sema's figure)
  int64_t dynamic_shared_bytes = 0; // > 0 when the kernel uses dynamic shared memory
  std::vector<std::string> assumes; // source text of each condition
  std::vector<ParamMeta> params;
  std::vector<BenchMeta> benches;
  uint32_t line = 0; // 1-based line of the `def`
};

struct LowerOptions {
  // The file name used in #line directives (defaults to the checked file's path).
  std::string source_name;
  bool line_directives = true;
};

struct LowerResult {
  bool ok = false; // no error diagnostic
  std::vector<Diagnostic> diagnostics;
  // The whole generated file (prelude, device code, host checks, launchers,
  // argus_launch, argus_artifact_describe).
  std::string source;
  // The host-side checks alone: plain C++ with no GPU dependency, defining
  // `extern "C" int argus_check_<kernel>(...)` for every kernel (also part of
  // `source`). Tests compile it with the host compiler.
  std::string host_checks;
  std::vector<KernelMeta> kernels;
};

// Lowers every kernel of `file` that can run on `target` (Target::Any or
// that target), with the @device functions they call. Kernels of the other
// target are skipped with warning W0802; none left is error E0801. `file`
// must have no front-end errors.
LowerResult lower(const CheckedFile &file, GpuTarget target, const LowerOptions &options = {});

} // namespace argus::codegen
