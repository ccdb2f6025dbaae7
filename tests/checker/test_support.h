// Helpers shared by the checker's tests: the source tree and its files.
#pragma once

#include "argus/dsl/driver.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace argus::checker_test {

inline const std::filesystem::path kSourceDir = ARGUS_SOURCE_DIR;

inline std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The front end alone (no invariant checker): a file to give the checker's
// parts directly.
inline CheckedFile front_end(const std::string &name, const std::string &text) {
  FrontendOptions o;
  o.invariants = false;
  return check_source(name, text, o);
}

// The .argus files of folders of the source tree, sorted.
inline std::vector<std::filesystem::path> argus_files(const std::vector<const char *> &dirs) {
  std::vector<std::filesystem::path> files;
  for (const char *dir : dirs)
    for (const auto &e : std::filesystem::directory_iterator(kSourceDir / dir))
      if (e.path().extension() == ".argus")
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The files of a sweep that runs every kernel once more to observe something
// else (tracing, moved text, the Z3 verdicts at fixed sizes, the statements
// visited); the corpus tests check every file already. Under the sanitizers
// (every check about seven times slower) every third corpus file but the long
// kernels (flash attention, MoE, the pipelined mma/wgmma variants: two thirds
// of the sanitizer sweeps' time, whose constructs the shorter files and the
// examples, checked under the sanitizers by CorpusTest and ExamplesTest, run
// too) and no example: each sweep's own code still runs under ASan and UBSan,
// and the Release build sweeps every file.
inline bool is_long_kernel_file(const std::filesystem::path &path) {
  const std::string name = path.filename().string();
  for (const char *prefix :
       {"flash_attn", "moe_", "mma_stage", "wgmma_refill", "gemm_ws_", "persistent_"})
    if (name.rfind(prefix, 0) == 0)
      return true;
  return false;
}

inline std::vector<std::filesystem::path> sweep_files() {
#ifdef ARGUS_SANITIZED_BUILD
  const std::vector<std::filesystem::path> all = argus_files({"tests/checker/corpus"});
  std::vector<std::filesystem::path> some;
  for (size_t i = 0; i < all.size(); i += 3)
    if (!is_long_kernel_file(all[i]))
      some.push_back(all[i]);
  return some;
#else
  return argus_files({"tests/checker/corpus", "examples"});
#endif
}

// A gtest parameter name from a file's stem.
inline std::string test_name(const std::filesystem::path &path) {
  std::string n = path.stem().string();
  for (char &c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return n;
}

} // namespace argus::checker_test
