// The final link of a gfx942 code object through lld's ELF driver, in process.
// lld reads and writes files, so the object goes through a private temporary
// directory that is removed afterwards.
#include "hip_internal.h"

#include <mutex>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#if ARGUS_HIP_HAVE_LLD
#include <lld/Common/Driver.h>
LLD_HAS_DRIVER(elf)
#endif

namespace argus::codegen::detail {

bool have_in_process_linker() { return ARGUS_HIP_HAVE_LLD != 0; }

#if ARGUS_HIP_HAVE_LLD
namespace {

// Removes a temporary directory and what is in it.
struct TempDir {
  llvm::SmallString<128> path;
  ~TempDir() {
    if (!path.empty()) {
      llvm::sys::fs::remove_directories(path);
    }
  }
};

std::mutex lld_mutex;
bool lld_usable = true; // false after lld reports it cannot run again

} // namespace

bool link_amdgpu_code_object(const std::vector<uint8_t> &object, std::vector<uint8_t> &linked,
                             std::string &error) {
  TempDir dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("argus-hip", dir.path)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  llvm::SmallString<128> input(dir.path);
  llvm::sys::path::append(input, "device.o");
  llvm::SmallString<128> output(dir.path);
  llvm::sys::path::append(output, "device.hsaco");
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(input, ec);
    if (ec) {
      error = "cannot write " + std::string(input) + ": " + ec.message();
      return false;
    }
    out.write(reinterpret_cast<const char *>(object.data()), object.size());
  }

  const char *argv[] = {"ld.lld",  "-m", "elf64_amdgpu", "--no-undefined",
                        "-shared", "-o", output.c_str(), input.c_str()};
  std::string messages;
  llvm::raw_string_ostream message_stream(messages);
  {
    std::lock_guard<std::mutex> lock(lld_mutex);
    if (!lld_usable) {
      error = "the in-process linker failed earlier and cannot run again in this process";
      return false;
    }
    lld::Result status =
        lld::lldMain(argv, message_stream, message_stream, {{lld::Gnu, &lld::elf::link}});
    lld_usable = status.canRunAgain;
    message_stream.flush();
    if (status.retCode != 0) {
      error = messages.empty() ? "ld.lld failed" : messages;
      return false;
    }
  }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(output, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot read the linked code object: " + buffer.getError().message();
    return false;
  }
  const llvm::StringRef bytes = (*buffer)->getBuffer();
  linked.assign(bytes.begin(), bytes.end());
  return true;
}

#else

bool link_amdgpu_code_object(const std::vector<uint8_t> &, std::vector<uint8_t> &,
                             std::string &error) {
  error = "built without liblld-19-dev: no in-process linker";
  return false;
}

#endif

} // namespace argus::codegen::detail
