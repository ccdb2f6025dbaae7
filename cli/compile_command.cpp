// `argus compile FILE --target sm90|gfx942 [-o DIR] [--emit-only] [--format=text|json]`
#include "argus/cli/compile_command.h"

#include "argus/cli/diagnostic_json.h"
#include "argus/cli/diagnostic_text.h"
#include "argus/cli/options.h"
#include "argus/codegen/pipeline.h"
#include "argus/dsl/frontend.h"

#include <nlohmann/json.hpp>

#include <variant>

namespace argus::cli {

const std::string_view kCompileSummary =
    "Lower a .argus file to CUDA (sm90) or HIP (gfx942) and compile it into an artifact";

const std::string_view kCompileHelp =
    R"(Usage: argus compile FILE [--target sm90|gfx942] [-o DIR] [--emit-only] [--format=text|json]

Checks FILE, lowers its kernels to C++ (CUDA for sm90, HIP for gfx942) with
host launchers that check every assume, writes an artifact directory
(docs/artifacts.md) and compiles it:
  sm90    nvcc -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v (nvcc from
          $ARGUS_NVCC, PATH or /usr/local/cuda/bin); registers, spills, shared
          memory and stack per kernel from ptxas.
  gfx942  in process through Clang/LLVM 19 (no ROCm needed); VGPR/AGPR/SGPR,
          LDS, scratch, spills and MI300X occupancy from the code object.
Kernels that use the other target's intrinsics are left out (warning W0802).

Options:
  --target=sm90|gfx942     The target (default sm90).
  -o DIR, --output=DIR     The artifact directory (default: <file stem>.<target>
                           in the current directory).
  --emit-only              Write the source, meta.json and bench.json; do not compile.
  --format=text|json       text (default): diagnostics and a resource table.
                           json: one JSON object {"artifact", "target", "kernels",
                           "compile", "diagnostics"} on stdout.
  -h, --help               Print this help, then exit.

Exit status:
  0  the artifact was written (and compiled)
  1  the file has errors, a construct cannot be lowered, or the device compile failed
     (compiler errors inside the .argus file are diagnostics E0803)
  2  a usage error, FILE cannot be read, the directory cannot be written, or the
     device compiler is missing (nvcc not found)

docs/codegen.md describes the generated code and the codes E08xx/W08xx.
)";

namespace {

struct CompileOptions {
  std::string file;
  codegen::GpuTarget target = codegen::GpuTarget::Sm90;
  std::string output;
  bool emit_only = false;
  bool json = false;
  bool help = false;
};

constexpr OptionSpec kOptionSpecs[] = {
    {"--target", true}, {"-o", true},      {"--output", true}, {"--emit-only", false},
    {"--format", true}, {"--help", false}, {"-h", false},
};

std::variant<CompileOptions, UsageError> parse(std::span<const std::string> args) {
  auto parsed = parse_options(args, kOptionSpecs);
  if (auto *error = std::get_if<UsageError>(&parsed))
    return *error;
  const ParsedOptions &options = std::get<ParsedOptions>(parsed);
  CompileOptions result;
  result.help = options.has("--help") || options.has("-h");
  result.emit_only = options.has("--emit-only");
  if (const std::string *target = options.last("--target")) {
    auto t = codegen::parse_target(*target);
    if (!t)
      return UsageError{"unknown target '" + *target + "' (expected sm90 or gfx942)"};
    result.target = *t;
  }
  const std::string *out_short = options.last("-o");
  const std::string *out_long = options.last("--output");
  if (out_short || out_long)
    result.output = out_long ? *out_long : *out_short;
  if (const std::string *format = options.last("--format")) {
    if (*format == "json")
      result.json = true;
    else if (*format != "text")
      return UsageError{"invalid --format '" + *format + "' (expected text or json)"};
  }
  if (result.help)
    return result;
  if (options.positional.empty())
    return UsageError{"no input file"};
  if (options.positional.size() > 1)
    return UsageError{"compile takes one file, got " + std::to_string(options.positional.size())};
  result.file = options.positional.front();
  return result;
}

} // namespace

int run_compile(std::span<const std::string> args, Environment &env) {
  auto parsed = parse(args);
  if (const auto *error = std::get_if<UsageError>(&parsed)) {
    env.err << "argus: error: " << error->message << " (see 'argus help compile')\n";
    return kExitUsage;
  }
  const CompileOptions &options = std::get<CompileOptions>(parsed);
  if (options.help) {
    env.out << kCompileHelp;
    return kExitOk;
  }
  const TextOptions text_options{env.out_is_terminal && !env.no_color};
  const std::string target(codegen::target_name(options.target));
  nlohmann::json result = {{"file", options.file}, {"target", target}};

  auto contents = read_source_file(options.file);
  if (const auto *error = std::get_if<ReadError>(&contents)) {
    env.err << "argus: error: " << options.file << ": " << error->message << '\n';
    if (options.json) {
      result["error"] = error->message;
      env.out << dump_json(result) << '\n';
    }
    return kExitUsage;
  }
  codegen::PipelineRequest request;
  request.path = options.file;
  request.text = std::get<std::string>(contents);
  request.target = options.target;
  request.output_dir = options.output;
  request.emit_only = options.emit_only;
  request.argus_version = std::string(version());
  const codegen::PipelineResult compiled = codegen::run_pipeline(request);
  const CheckedFile &checked = compiled.checked;
  result = codegen::pipeline_json(request, compiled);

  auto finish = [&](int status) {
    size_t errors = 0;
    size_t warnings = 0;
    for (const Diagnostic &d : compiled.diagnostics) {
      errors += d.severity == Severity::Error;
      warnings += d.severity == Severity::Warning;
    }
    if (options.json) {
      if (checked.source)
        result["diagnostics"] =
            checked_file_json(*checked.source, compiled.diagnostics, ColumnUnit::Utf16CodeUnits)
                .value("diagnostics", nlohmann::json::array());
      env.out << dump_json(result) << '\n';
    } else {
      if (checked.source)
        for (const Diagnostic &d : compiled.diagnostics)
          write_diagnostic_text(env.out, *checked.source, d, text_options);
      if (const std::string summary = summary_line(errors, warnings); !summary.empty()) {
        env.out.flush();
        env.err << summary << '\n';
      }
    }
    env.out.flush();
    return status;
  };

  switch (compiled.status) {
  case codegen::PipelineStatus::IoError:
    env.err << "argus: error: " << compiled.error << '\n';
    return finish(kExitUsage);
  case codegen::PipelineStatus::ToolMissing: {
    const std::string message =
        compiled.error +
        (options.target == codegen::GpuTarget::Sm90 ? "; use --emit-only to skip compiling" : "");
    env.err << "argus: error: " << message << '\n';
    result["error"] = message;
    return finish(kExitUsage);
  }
  case codegen::PipelineStatus::Errors:
    // Messages that do not point into the .argus file are shown as the compiler printed them.
    if (compiled.report && !options.json) {
      env.err << "argus: error: " << compiled.report->message << " compiling " << compiled.artifact
              << "/" << codegen::source_file_name(options.target) << "\n";
      if (compiled.report->diagnostics.empty())
        env.err << compiled.report->output;
    }
    return finish(kExitErrors);
  case codegen::PipelineStatus::Ok:
    break;
  }
  if (!options.json) {
    if (options.emit_only)
      env.out << "wrote " << compiled.artifact << "/" << codegen::source_file_name(options.target)
              << " (not compiled: --emit-only)\n";
    else
      env.out << "compiled " << compiled.artifact << " (" << compiled.report->compiler << ", "
              << target << ")\n"
              << codegen::resource_table(*compiled.report);
  }
  return finish(kExitOk);
}

} // namespace argus::cli
