#include "argus/codegen/pipeline.h"
#include "argus/dsl/driver.h"

#include "argus/codegen/artifact.h"
#include "argus/runner/artifact_abi_text.h"

#include <filesystem>

namespace argus::codegen {

namespace {

// Compiles the written artifact with the target's compiler; fills
// result.report, or result.error when the compiler is missing or a file
// cannot be written.
void compile_artifact(const PipelineRequest &request, const LowerResult &lowered,
                      PipelineResult &result) {
  const std::filesystem::path base(result.artifact);
  CompileReport report;
  if (request.target == GpuTarget::Sm90) {
    const auto nvcc = find_nvcc();
    if (!nvcc) {
      result.status = PipelineStatus::ToolMissing;
      result.error = "nvcc not found (set ARGUS_NVCC, put nvcc on PATH, or install the CUDA "
                     "toolkit in /usr/local/cuda); the source is in " +
                     result.artifact;
      return;
    }
    report = compile_sm90(*nvcc, (base / "kernels.cu").string(), (base / "kernels.cubin").string(),
                          request.path);
  } else {
    if (!gfx942_compiler_available()) {
      result.status = PipelineStatus::ToolMissing;
      result.error = "this build has no gfx942 compiler; the source is in " + result.artifact;
      return;
    }
    report = compile_gfx942(lowered.source, request.path);
    if (report.ok) {
      const std::string bytes(report.binary.begin(), report.binary.end());
      if (!write_file((base / "kernels.hsaco").string(), bytes, result.error)) {
        result.status = PipelineStatus::IoError;
        result.report = std::move(report);
        return;
      }
    }
  }
  // The compiler sees only static shared memory; a kernel whose shared
  // tensors have sizes known at launch gets the rest from its launcher.
  for (KernelResources &k : report.kernels)
    for (const KernelMeta &meta : lowered.kernels)
      if (meta.name == k.name)
        k.dynamic_shared_bytes = meta.dynamic_shared_bytes;
  result.diagnostics.insert(result.diagnostics.end(), report.diagnostics.begin(),
                            report.diagnostics.end());
  const bool ok = report.ok;
  result.report = std::move(report);
  if (!ok) {
    result.status = PipelineStatus::Errors;
    return;
  }
  if (!write_file((base / "compile.json").string(), compile_json(*result.report).dump(2) + "\n",
                  result.error)) {
    result.status = PipelineStatus::IoError;
    return;
  }
  result.status = PipelineStatus::Ok;
}

} // namespace

PipelineResult run_pipeline(const PipelineRequest &request) {
  PipelineResult result;
  result.checked = check_source(request.path, request.text, request.frontend);
  result.diagnostics = result.checked.diagnostics;
  auto done = [&](PipelineStatus status) -> PipelineResult {
    result.status = status;
    sort_diagnostics(result.diagnostics);
    return std::move(result);
  };
  if (result.checked.has_errors())
    return done(PipelineStatus::Errors);

  const LowerResult lowered = lower(result.checked, request.target);
  result.diagnostics.insert(result.diagnostics.end(), lowered.diagnostics.begin(),
                            lowered.diagnostics.end());
  if (!lowered.ok)
    return done(PipelineStatus::Errors);
  result.source = lowered.source;

  const std::string dir = request.output_dir.empty()
                              ? default_artifact_dir(request.path, request.target)
                              : request.output_dir;
  ArtifactInput input;
  input.source_path = request.path;
  input.source_text = request.text;
  input.argus_version = request.argus_version;
  input.abi_header_text = std::string(argus::runner::kArtifactAbiHeader);
  if (!may_write_artifact(dir, result.error) ||
      !write_artifact(dir, lowered, request.target, input, result.error))
    return done(PipelineStatus::IoError);
  result.artifact = dir;
  for (const KernelMeta &k : lowered.kernels)
    result.kernels.push_back(k.name);
  if (request.emit_only)
    return done(PipelineStatus::Ok);
  compile_artifact(request, lowered, result);
  sort_diagnostics(result.diagnostics);
  return result;
}

nlohmann::json pipeline_json(const PipelineRequest &request, const PipelineResult &result) {
  nlohmann::json j = {{"file", request.path}, {"target", std::string(target_name(request.target))}};
  if (!result.artifact.empty()) {
    j["artifact"] = result.artifact;
    j["kernels"] = result.kernels;
  }
  if (result.report) {
    j["compile"] = compile_json(*result.report);
    if (!result.report->ok)
      j["compiler_output"] = result.report->output;
  }
  if (!result.error.empty())
    j["error"] = result.error;
  return j;
}

} // namespace argus::codegen
