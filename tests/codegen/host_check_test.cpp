// The launchers' assume/size checks, compiled alone with the host C++
// compiler (no GPU runtime) and called through dlopen.
#include "argus/codegen/lower.h"
#include "codegen_test_support.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <filesystem>

namespace argus::codegen {
namespace {

using CheckMNK = int (*)(const void *, const void *, const void *, int64_t, int64_t, int64_t,
                         int64_t *, char *, size_t);

class HostChecks : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = test::temp_dir("argus-host-check");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    for (void *h : handles_)
      dlclose(h);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // Lowers an example, compiles its host checks with the host compiler into a
  // shared library and returns argus_check_<kernel>.
  void *load(const std::string &example, const std::string &kernel) {
    const std::string path = example.find('/') != std::string::npos
                                 ? std::string(ARGUS_SOURCE_DIR) + "/" + example
                                 : std::string(ARGUS_SOURCE_DIR) + "/examples/" + example;
    const LowerResult r = lower(test::check_file(path), GpuTarget::Sm90);
    EXPECT_TRUE(r.ok);
    const std::string cpp = dir_ + "/" + kernel + "_checks.cpp";
    const std::string so = dir_ + "/lib" + kernel + "_checks.so";
    std::string error;
    {
      FILE *f = fopen(cpp.c_str(), "w");
      EXPECT_NE(f, nullptr);
      if (!f)
        return nullptr;
      fwrite(r.host_checks.data(), 1, r.host_checks.size(), f);
      fclose(f);
    }
    const test::Run built =
        test::run(std::string(ARGUS_HOST_CXX) + " -std=c++17 -Wall -Wextra -Werror -shared -fPIC " +
                  test::quote(cpp) + " -o " + test::quote(so));
    EXPECT_EQ(built.status, 0) << built.output;
    void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    if (!handle)
      return nullptr;
    handles_.push_back(handle);
    void *fn = dlsym(handle, ("argus_check_" + kernel).c_str());
    EXPECT_NE(fn, nullptr);
    return fn;
  }
  std::string dir_;
  std::vector<void *> handles_;
};

TEST_F(HostChecks, TiledGemmAllowsTileMultiplesAndRefusesOthers) {
  auto check = reinterpret_cast<CheckMNK>(load("gemm_tiled.argus", "gemm_tiled"));
  ASSERT_NE(check, nullptr);
  int x = 0;
  const void *p = &x;
  int64_t grid[3] = {0, 0, 0};
  char error[256] = "";
  EXPECT_EQ(check(p, p, p, 4096, 2048, 1024, grid, error, sizeof error), 0) << error;
  EXPECT_EQ(grid[0], 2048 / 64);
  EXPECT_EQ(grid[1], 4096 / 64);
  EXPECT_EQ(grid[2], 1);
  EXPECT_EQ(check(p, p, p, 64, 64, 32, grid, error, sizeof error), 0) << error;

  // M is not a multiple of BM = 64: assume refused, quoted with the value.
  EXPECT_EQ(check(p, p, p, 100, 64, 32, grid, error, sizeof error), 1);
  EXPECT_STREQ(error, "gemm_tiled: assume(M % BM == 0) does not hold with M = 100, BM = 64");
  EXPECT_EQ(check(p, p, p, 64, 64, 48, grid, error, sizeof error), 1);
  EXPECT_NE(std::string(error).find("K % BK == 0"), std::string::npos) << error;
  EXPECT_NE(std::string(error).find("K = 48"), std::string::npos) << error;
  // Negative sizes: floor semantics, -64 % 64 == 0 passes the assume; the size check refuses.
  EXPECT_EQ(check(p, p, p, -64, 64, 32, grid, error, sizeof error), 2);
  EXPECT_NE(std::string(error).find("sizes must be positive"), std::string::npos) << error;
  // Zero passes every assume (0 % 64 == 0) but is not a size.
  EXPECT_EQ(check(p, p, p, 0, 64, 32, grid, error, sizeof error), 2);
  // A null tensor.
  EXPECT_EQ(check(nullptr, p, p, 64, 64, 32, grid, error, sizeof error), 2);
  EXPECT_STREQ(error, "gemm_tiled: tensor A is null");
  // A tiny error buffer is never overrun; a null one is allowed.
  char tiny[8] = "xxxxxxx";
  EXPECT_EQ(check(p, p, p, 100, 64, 32, grid, tiny, sizeof tiny), 1);
  EXPECT_EQ(std::string(tiny).size(), 7u);
  EXPECT_EQ(check(p, p, p, 100, 64, 32, grid, nullptr, 0), 1);
}

// A kernel with cluster=(2, 1) launches whole clusters only: a grid of an odd
// number of blocks is refused before the launch (the driver would fail it).
TEST_F(HostChecks, ClusterKernelRefusesAGridOfPartialClusters) {
  using Check = int (*)(const void *, const void *, int64_t, int64_t *, char *, size_t);
  auto check = reinterpret_cast<Check>(
      load("tests/checker/corpus/cluster_dsmem_bugs.argus", "half_a_cluster"));
  ASSERT_NE(check, nullptr);
  int x = 0;
  const void *p = &x;
  int64_t grid[3];
  char error[256] = "";
  EXPECT_EQ(check(p, p, 256, grid, error, sizeof error), 0) << error;
  EXPECT_EQ(grid[0], 2);
  EXPECT_EQ(check(p, p, 384, grid, error, sizeof error), 2);
  EXPECT_STREQ(error, "half_a_cluster: grid (3, 1, 1) is not a whole number of clusters (2, 1, 1)");
}

TEST_F(HostChecks, NaiveGemmRefusesNonPositiveSizesThroughItsAssume) {
  auto check = reinterpret_cast<CheckMNK>(load("gemm_naive.argus", "gemm_naive"));
  ASSERT_NE(check, nullptr);
  int x = 0;
  const void *p = &x;
  int64_t grid[3];
  char error[256] = "";
  EXPECT_EQ(check(p, p, p, 1000, 999, 7, grid, error, sizeof error), 0) << error;
  EXPECT_EQ(grid[0], (999 + 15) / 16);
  EXPECT_EQ(grid[1], (1000 + 15) / 16);
  EXPECT_EQ(check(p, p, p, 0, 16, 16, grid, error, sizeof error), 1);
  EXPECT_STREQ(error, "gemm_naive: assume(M > 0) does not hold with M = 0");
  // A grid dimension over 65535 is refused before launching.
  EXPECT_EQ(check(p, p, p, 16 * 70000, 16, 16, grid, error, sizeof error), 2);
  EXPECT_NE(std::string(error).find("grid"), std::string::npos) << error;
}

TEST_F(HostChecks, SoftmaxNeedsWholeRowsPerGroup) {
  using Check = int (*)(const void *, const void *, int64_t, int64_t, int64_t *, char *, size_t);
  auto check = reinterpret_cast<Check>(load("softmax.argus", "softmax"));
  ASSERT_NE(check, nullptr);
  int x = 0;
  const void *p = &x;
  int64_t grid[3];
  char error[256] = "";
  EXPECT_EQ(check(p, p, 16384, 4096, grid, error, sizeof error), 0) << error;
  EXPECT_EQ(grid[0], 16384 / 8);
  EXPECT_EQ(check(p, p, 16384, 4100, grid, error, sizeof error), 1);
  EXPECT_NE(std::string(error).find("N % ROW_THREADS == 0"), std::string::npos) << error;
  EXPECT_EQ(check(p, p, 12, 64, grid, error, sizeof error), 1);
}

} // namespace
} // namespace argus::codegen
