// The compile pipeline of `argus compile` as one call, shared by the CLI and
// the language server (`argus.compile`, `argus.benchmark`): check the text,
// lower it, write the artifact directory (docs/artifacts.md) and compile it
// with the target's device compiler (docs/codegen.md).
#pragma once

#include "argus/codegen/compile.h"
#include "argus/codegen/lower.h"
#include "argus/dsl/driver.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace argus::codegen {

struct PipelineRequest {
  std::string path; // the .argus file: messages, #line directives, meta.json
  std::string text; // its contents (an editor's unsaved text is fine)
  GpuTarget target = GpuTarget::Sm90;
  std::string output_dir; // the artifact directory; empty: default_artifact_dir(path, target)
  bool emit_only = false; // write the artifact, do not run the device compiler
  std::string argus_version;
  FrontendOptions frontend;
};

enum class PipelineStatus {
  Ok,          // written (and compiled unless emit_only)
  Errors,      // the file has errors, a construct cannot be lowered, or the compile failed
  ToolMissing, // nvcc not found / no gfx942 compiler in this build (the source is written)
  IoError,     // the artifact directory or a file in it cannot be written
};

struct PipelineResult {
  PipelineStatus status = PipelineStatus::Errors;
  CheckedFile checked;
  // Front end, lowering and device-compiler diagnostics, sorted.
  std::vector<Diagnostic> diagnostics;
  std::string artifact;                // the directory, once written
  std::vector<std::string> kernels;    // the kernels lowered into it
  std::string source;                  // the generated CUDA/HIP source
  std::optional<CompileReport> report; // when the device compiler ran
  std::string error;                   // why, for ToolMissing and IoError
};

PipelineResult run_pipeline(const PipelineRequest &request);

// `argus compile --format=json` without "diagnostics" (callers add them with
// ranges in their position encoding): {"file", "target", "artifact"?,
// "kernels"?, "compile"?, "compiler_output"?, "error"?}.
nlohmann::json pipeline_json(const PipelineRequest &request, const PipelineResult &result);

} // namespace argus::codegen
