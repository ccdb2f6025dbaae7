// `argus compile FILE --target sm90|gfx942 [-o DIR] [--emit-only] [--format=text|json]`
#include "argus/cli/compile_command.h"

#include "argus/cli/diagnostic_json.h"
#include "argus/cli/diagnostic_text.h"
#include "argus/cli/options.h"
#include "argus/codegen/artifact.h"
#include "argus/codegen/compile.h"
#include "argus/codegen/lower.h"
#include "argus/dsl/frontend.h"
#include "argus/runner/artifact_abi_text.h"

#include <nlohmann/json.hpp>

#include <filesystem>
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
  const std::string text = std::get<std::string>(contents);
  const CheckedFile checked = check_source(options.file, text);
  std::vector<Diagnostic> diagnostics = checked.diagnostics;

  auto finish = [&](int status) {
    sort_diagnostics(diagnostics);
    size_t errors = 0;
    size_t warnings = 0;
    for (const Diagnostic &d : diagnostics) {
      errors += d.severity == Severity::Error;
      warnings += d.severity == Severity::Warning;
    }
    if (options.json) {
      if (checked.source)
        result["diagnostics"] =
            checked_file_json(*checked.source, diagnostics, ColumnUnit::Utf16CodeUnits)
                .value("diagnostics", nlohmann::json::array());
      env.out << dump_json(result) << '\n';
    } else {
      if (checked.source)
        for (const Diagnostic &d : diagnostics)
          write_diagnostic_text(env.out, *checked.source, d, text_options);
      if (const std::string summary = summary_line(errors, warnings); !summary.empty()) {
        env.out.flush();
        env.err << summary << '\n';
      }
    }
    env.out.flush();
    return status;
  };

  if (checked.has_errors())
    return finish(kExitErrors);

  const codegen::LowerResult lowered = codegen::lower(checked, options.target);
  diagnostics.insert(diagnostics.end(), lowered.diagnostics.begin(), lowered.diagnostics.end());
  if (!lowered.ok)
    return finish(kExitErrors);

  const std::string dir = options.output.empty()
                              ? codegen::default_artifact_dir(options.file, options.target)
                              : options.output;
  codegen::ArtifactInput input;
  input.source_path = options.file;
  input.source_text = text;
  input.argus_version = std::string(version());
  input.abi_header_text = std::string(argus::runner::kArtifactAbiHeader);
  std::string io_error;
  if (!codegen::write_artifact(dir, lowered, options.target, input, io_error)) {
    env.err << "argus: error: " << io_error << '\n';
    result["error"] = io_error;
    finish(kExitUsage);
    return kExitUsage;
  }
  result["artifact"] = dir;
  nlohmann::json kernels = nlohmann::json::array();
  for (const codegen::KernelMeta &k : lowered.kernels)
    kernels.push_back(k.name);
  result["kernels"] = kernels;
  if (options.emit_only) {
    if (!options.json)
      env.out << "wrote " << dir << "/" << codegen::source_file_name(options.target)
              << " (not compiled: --emit-only)\n";
    return finish(kExitOk);
  }

  const std::filesystem::path base(dir);
  codegen::CompileReport report;
  if (options.target == codegen::GpuTarget::Sm90) {
    const auto nvcc = codegen::find_nvcc();
    if (!nvcc) {
      const std::string message =
          "nvcc not found (set ARGUS_NVCC, put nvcc on PATH, or install the CUDA toolkit in "
          "/usr/local/cuda); the source is in " +
          dir + "; use --emit-only to skip compiling";
      env.err << "argus: error: " << message << '\n';
      result["error"] = message;
      finish(kExitUsage);
      return kExitUsage;
    }
    report = codegen::compile_sm90(*nvcc, (base / "kernels.cu").string(),
                                   (base / "kernels.cubin").string(), options.file);
  } else {
    if (!codegen::gfx942_compiler_available()) {
      const std::string message = "this build has no gfx942 compiler; the source is in " + dir;
      env.err << "argus: error: " << message << '\n';
      result["error"] = message;
      finish(kExitUsage);
      return kExitUsage;
    }
    report = codegen::compile_gfx942(lowered.source, options.file);
    if (report.ok) {
      std::string unused;
      std::string bytes(report.binary.begin(), report.binary.end());
      if (!codegen::write_file((base / "kernels.hsaco").string(), bytes, io_error)) {
        env.err << "argus: error: " << io_error << '\n';
        return kExitUsage;
      }
    }
  }
  diagnostics.insert(diagnostics.end(), report.diagnostics.begin(), report.diagnostics.end());
  result["compile"] = codegen::compile_json(report);
  if (!report.ok) {
    // Messages that do not point into the .argus file are shown as the compiler printed them.
    if (!options.json) {
      env.err << "argus: error: " << report.message << " compiling " << dir << "/"
              << codegen::source_file_name(options.target) << "\n";
      if (report.diagnostics.empty())
        env.err << report.output;
    } else {
      result["compiler_output"] = report.output;
    }
    return finish(kExitErrors);
  }
  if (!codegen::write_file((base / "compile.json").string(),
                           codegen::compile_json(report).dump(2) + "\n", io_error)) {
    env.err << "argus: error: " << io_error << '\n';
    return kExitUsage;
  }
  if (!options.json) {
    env.out << "compiled " << dir << " (" << report.compiler << ", " << target << ")\n"
            << codegen::resource_table(report);
  }
  return finish(kExitOk);
}

} // namespace argus::cli
