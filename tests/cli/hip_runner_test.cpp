// The runner's HIP side (issue 15), built in the Release tree when hipcc is
// found (tests/cli/CMakeLists.txt): the argus binary compiles a gfx942
// artifact, hipcc builds the runner with its host side, and the runner and
// the argus-runner script are run here, where there is no GPU.
#include "process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>

namespace argus {
namespace {

using testing::ProcessOptions;
using testing::ProcessResult;
using testing::run_process;

const std::string kSource = ARGUS_SOURCE_DIR;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// The runner's HIP side, built with Debian's hipcc and a gfx942 artifact of
// reduce_sum (tests/cli/CMakeLists.txt): without a GPU it says so, with
// the runtime's own reason; the argus-runner script builds the same from an
// artifact directory (kernels.hip + kernels.hsaco) and runs it with the code
// object named for the module loader.
TEST(HipRunner, BuildsAndSaysWhenThereIsNoDevice) {
  const std::string binary = ARGUS_RUNNER_HIP_BINARY;
  const std::string artifact = ARGUS_RUNNER_HIP_ARTIFACT;
  if (binary.empty())
    GTEST_SKIP() << "hipcc was not found at configure time";
  ProcessOptions o;
  o.env.emplace_back("ARGUS_CODE_OBJECT", artifact + "/kernels.hsaco");
  const ProcessResult r =
      run_process(binary, {artifact, "--kernel", "reduce_sum", "--size", "B=8,N=4096"}, o);
  const auto j = nlohmann::json::parse(r.out);
  if (j.contains("error")) { // no GPU here
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(j["stage"], "device") << r.out;
    EXPECT_TRUE(contains(j["error"].get<std::string>(), "no HIP device")) << r.out;
  } else { // an AMD GPU: the kernel must be correct
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(j["correct"], true) << r.out;
  }
  // An unknown kernel is refused before any device is needed.
  const ProcessResult unknown = run_process(binary, {artifact, "--kernel", "nope"}, o);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(unknown.out)["stage"], "plan") << unknown.out;

  // The script: hipcc for gfx90a (Debian's knows no gfx942), the same outcome.
  const std::string cache = ::testing::TempDir() + "argus-hip-runner-cache";
  std::filesystem::remove_all(cache);
  ProcessOptions so;
  so.env = {{"ARGUS_RUNNER_CACHE", cache},
            {"ARGUS_HIP_ARCH", "gfx90a"},
            {"ARGUS_RUNNER_LOCK", "none"},
            {"ARGUS_HIPCC", std::string(ARGUS_HIPCC_PATH)}};
  so.timeout = std::chrono::seconds(300);
  const ProcessResult s =
      run_process(kSource + "/codegen/runner/argus-runner",
                  {artifact, "--kernel", "reduce_sum", "--size", "B=8,N=4096", "--no-timing"}, so);
  std::filesystem::remove_all(cache);
  const auto sj = nlohmann::json::parse(s.out);
  if (sj.contains("error")) {
    EXPECT_EQ(sj["stage"], "device") << s.out << s.err;
    EXPECT_TRUE(contains(sj["error"].get<std::string>(), "no HIP device")) << s.out;
  } else {
    EXPECT_EQ(sj["correct"], true) << s.out;
  }
}

} // namespace
} // namespace argus
