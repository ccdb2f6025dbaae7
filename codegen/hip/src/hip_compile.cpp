// compile_hip_gfx942: the clang driver builds the device-only cc1 job, which
// runs in process (CompilerInstance + EmitObjAction) on an in-memory source;
// the relocatable object is then linked by lld (hip_link.cpp) and its metadata
// read (hip_metadata.cpp).
#include "argus/codegen/hip_compile.h"

#include "hip_internal.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#ifndef ARGUS_CLANG_EXECUTABLE
#define ARGUS_CLANG_EXECUTABLE "/usr/lib/llvm-19/bin/clang"
#endif

namespace argus::codegen {
namespace {

void initialize_amdgpu_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser(); // inline assembly in kernels
  });
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

// A DiagnosticsEngine that prints clang-style text into `out`.
struct Diagnostics {
  llvm::raw_string_ostream stream;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options;
  std::unique_ptr<clang::DiagnosticsEngine> engine;

  explicit Diagnostics(std::string &out) : stream(out), options(new clang::DiagnosticOptions()) {
    options->ShowColors = false;
    options->ShowOptionNames = true;
    engine = std::make_unique<clang::DiagnosticsEngine>(
        llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs>(new clang::DiagnosticIDs()), &*options,
        new clang::TextDiagnosticPrinter(stream, &*options), /*ShouldOwnClient=*/true);
  }
};

// Runs the driver on the known-good command line and returns the cc1 arguments
// of the device compile (without the leading "-cc1"), or an empty list.
std::vector<std::string> device_cc1_arguments(const std::string &file_name,
                                              const HipCompileOptions &options,
                                              llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs,
                                              clang::DiagnosticsEngine &diags) {
  std::vector<std::string> args = {ARGUS_CLANG_EXECUTABLE,
                                   "-x",
                                   "hip",
                                   "--offload-arch=gfx942",
                                   "-nogpulib",
                                   "-nogpuinc",
                                   "--offload-device-only",
                                   "--no-gpu-bundle-output",
                                   "-O" + std::to_string(std::clamp(options.opt_level, 0, 3)),
                                   "-c"};
  for (const std::string &define : options.defines) {
    args.push_back("-D" + define);
  }
  for (const std::string &extra : options.extra_args) {
    args.push_back(extra);
  }
  args.push_back(file_name);
  args.push_back("-o");
  args.push_back("argus-device.hsaco"); // never written: we run the cc1 job ourselves
  std::vector<const char *> argv;
  for (const std::string &arg : args) {
    argv.push_back(arg.c_str());
  }

  clang::driver::Driver driver(ARGUS_CLANG_EXECUTABLE, llvm::sys::getDefaultTargetTriple(), diags,
                               "argus HIP compiler", vfs);
  driver.setCheckInputsExist(true);
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || compilation->containsError() || diags.hasErrorOccurred()) {
    return {};
  }
  for (const clang::driver::Command &job : compilation->getJobs()) {
    const llvm::opt::ArgStringList &job_args = job.getArguments();
    if (job_args.empty() || llvm::StringRef(job_args[0]) != "-cc1") {
      continue; // the lld job: we link ourselves
    }
    std::vector<std::string> cc1(job_args.begin() + 1, job_args.end());
    return cc1;
  }
  diags.Report(diags.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                     "the clang driver produced no device compile job"));
  return {};
}

} // namespace

HipCompileResult compile_hip_gfx942(std::string_view source, std::string_view file_name,
                                    const HipCompileOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  HipCompileResult result;
  auto finish = [&]() -> HipCompileResult {
    result.compile_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(result);
  };
  const std::string name = file_name.empty() ? std::string("input.hip") : std::string(file_name);
  if (is_blank(source)) {
    result.diagnostics = name + ": error: empty HIP source: nothing to compile\n";
    return finish();
  }
  initialize_amdgpu_target();

  // The source lives in an in-memory file system layered over the real one (the
  // driver looks for clang's resource directory and toolchains on disk).
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> real = llvm::vfs::createPhysicalFileSystem();
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory(
      new llvm::vfs::InMemoryFileSystem());
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> vfs(
      new llvm::vfs::OverlayFileSystem(real));
  vfs->pushOverlay(memory);
  if (llvm::ErrorOr<std::string> cwd = real->getCurrentWorkingDirectory()) {
    memory->setCurrentWorkingDirectory(*cwd);
  }
  memory->addFile(
      name, /*ModificationTime=*/0,
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source.data(), source.size()), name));

  std::string diagnostics_text;
  {
    Diagnostics diags(diagnostics_text);
    const std::vector<std::string> cc1 = device_cc1_arguments(name, options, vfs, *diags.engine);
    if (cc1.empty()) {
      diags.stream.flush();
      result.diagnostics = diagnostics_text;
      return finish();
    }
    std::vector<const char *> cc1_argv;
    for (const std::string &arg : cc1) {
      cc1_argv.push_back(arg.c_str());
    }

    auto instance = std::make_unique<clang::CompilerInstance>();
    if (!clang::CompilerInvocation::CreateFromArgs(instance->getInvocation(), cc1_argv,
                                                   *diags.engine, ARGUS_CLANG_EXECUTABLE)) {
      diags.stream.flush();
      result.diagnostics = diagnostics_text;
      return finish();
    }
    // We are a library: free what we allocate; -mllvm options are process-global
    // in LLVM and are not applied (docs/gfx942.md).
    instance->getFrontendOpts().DisableFree = false;
    instance->getCodeGenOpts().DisableFree = false;
    instance->getFrontendOpts().LLVMArgs.clear();
    // The frontend prints with the invocation's options (presumed locations, so
    // #line directives name the .argus file; -W flags), without colors.
    clang::DiagnosticOptions &frontend_options = instance->getDiagnosticOpts();
    frontend_options.ShowColors = false;
    instance->createDiagnostics(new clang::TextDiagnosticPrinter(diags.stream, &frontend_options),
                                /*ShouldOwnClient=*/true);
    // "N errors generated." goes nowhere; the messages themselves are enough.
    instance->setVerboseOutputStream(llvm::nulls());
    instance->createFileManager(vfs);

    llvm::SmallVector<char, 0> object;
    instance->setOutputStream(std::make_unique<llvm::raw_svector_ostream>(object));
    clang::EmitObjAction action;
    const bool compiled = instance->ExecuteAction(action);
    const bool errors = instance->getDiagnostics().hasErrorOccurred();
    instance.reset();
    diags.stream.flush();
    result.diagnostics = diagnostics_text;
    if (!compiled || errors || object.empty()) {
      if (result.diagnostics.empty()) {
        result.diagnostics = name + ": error: the device compile failed without a message\n";
      }
      return finish();
    }
    result.code_object.assign(object.begin(), object.end());
  }

  // Without lld in this build the relocatable object is the result; it has the
  // same metadata note.
  if (options.link && detail::have_in_process_linker()) {
    std::vector<uint8_t> linked;
    std::string link_error;
    if (!detail::link_amdgpu_code_object(result.code_object, linked, link_error)) {
      result.diagnostics +=
          name + ": error: linking the gfx942 code object failed: " + link_error + "\n";
      result.code_object.clear();
      return finish();
    }
    result.code_object = std::move(linked);
    result.linked = true;
  }

  std::string metadata_error;
  if (!read_amdgpu_kernel_resources(result.code_object, result.kernels, metadata_error)) {
    result.diagnostics +=
        name + ": error: reading the code object metadata: " + metadata_error + "\n";
    return finish();
  }
  result.ok = true;
  return finish();
}

} // namespace argus::codegen
