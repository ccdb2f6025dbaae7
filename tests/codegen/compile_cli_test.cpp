// `argus compile` as a subprocess: exit statuses, files, JSON.
#include "argus/codegen/compile.h"
#include "codegen_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace argus::codegen {
namespace {

namespace fs = std::filesystem;

class CompileCli : public ::testing::Test {
protected:
  void SetUp() override { dir_ = test::temp_dir("argus-compile-cli"); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  test::Run argus(const std::string &args, const std::string &env = "") {
    return test::run("cd " + test::quote(dir_) + " && " + env + " " + test::quote(ARGUS_BINARY) +
                     " compile " + args);
  }
  std::string example(const std::string &name) {
    return test::quote(std::string(ARGUS_SOURCE_DIR) + "/examples/" + name);
  }
  std::string dir_;
};

TEST_F(CompileCli, EmitOnlyWritesTheArtifactNextToTheWorkingDirectory) {
  const test::Run r = argus(example("gemm_tiled.argus") + " --target sm90 --emit-only");
  EXPECT_EQ(r.status, 0) << r.output;
  const fs::path out = fs::path(dir_) / "gemm_tiled.sm90";
  EXPECT_TRUE(fs::exists(out / "kernels.cu"));
  EXPECT_TRUE(fs::exists(out / "meta.json"));
  EXPECT_TRUE(fs::exists(out / "bench.json"));
  EXPECT_TRUE(fs::exists(out / "artifact_abi.h"));
  EXPECT_FALSE(fs::exists(out / "compile.json"));
  EXPECT_FALSE(fs::exists(out / "kernels.cubin"));
  const auto meta = nlohmann::json::parse(test::read_file((out / "meta.json").string()));
  EXPECT_EQ(meta["format"], 1);
  EXPECT_EQ(meta["target"], "sm90");
  EXPECT_EQ(meta["source_sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(meta["kernels"][0]["name"], "gemm_tiled");
  EXPECT_EQ(meta["kernels"][0]["launcher"], "argus_launch_gemm_tiled");
  EXPECT_EQ(meta["kernels"][0]["shared_bytes"], 8704);
  EXPECT_EQ(meta["kernels"][0]["grid"][0], "cdiv(N, 64)");
  EXPECT_EQ(meta["kernels"][0]["assumes"][0], "M % BM == 0");
  EXPECT_EQ(meta["kernels"][0]["params"][2]["output"], true);
  EXPECT_EQ(meta["kernels"][0]["params"][3]["kind"], "scalar");
  const auto bench = nlohmann::json::parse(test::read_file((out / "bench.json").string()));
  EXPECT_EQ(bench["benches"][0]["reference"], "matmul");
  EXPECT_EQ(bench["benches"][0]["flops"], int64_t{2} * 2048 * 2048 * 2048);
}

// `P: i32 = num_sms()`: meta.json names the default and the artifact's
// parameter table marks P, so the runner fills it with the device's SM count
// when no size gives it; the other scalars are unmarked.
TEST_F(CompileCli, NumSmsDefaultReachesTheArtifact) {
  const test::Run r =
      argus(example("gemm_ws_persistent_sm90.argus") + " --target sm90 --emit-only");
  ASSERT_EQ(r.status, 0) << r.output;
  const fs::path out = fs::path(dir_) / "gemm_ws_persistent_sm90.sm90";
  const auto meta = nlohmann::json::parse(test::read_file((out / "meta.json").string()));
  const auto &params = meta["kernels"][0]["params"];
  ASSERT_EQ(params.size(), 7u);
  EXPECT_EQ(params[6]["name"], "P");
  EXPECT_EQ(params[6]["default"], "num_sms()");
  EXPECT_FALSE(params[5].contains("default"));
  const std::string source = test::read_file((out / "kernels.cu").string());
  EXPECT_NE(source.find("{\"P\", ARGUS_ARG_INT, \"i32\", 0, 0, 1},"), std::string::npos);
  EXPECT_NE(source.find("{\"K\", ARGUS_ARG_INT, \"i32\", 0, 0, 0},"), std::string::npos);
  // The benches leave P to the runner.
  const auto bench = nlohmann::json::parse(test::read_file((out / "bench.json").string()));
  EXPECT_TRUE(bench["benches"][0]["sizes"].contains("M")) << bench.dump();
  EXPECT_FALSE(bench["benches"][0]["sizes"].contains("P")) << bench.dump();
}

TEST_F(CompileCli, CompilesWithNvccAndReportsResources) {
  if (!find_nvcc())
    GTEST_SKIP() << "nvcc not found";
  const test::Run r = argus(example("gemm_mma_sm90.argus") + " --target sm90 -o out");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("gemm_mma_sm90"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "out" / "kernels.cubin"));
  const auto report =
      nlohmann::json::parse(test::read_file((fs::path(dir_) / "out" / "compile.json").string()));
  EXPECT_EQ(report["ok"], true);
  EXPECT_EQ(report["kernels"][0]["shared_bytes"], 32768);
  EXPECT_GT(report["kernels"][0]["registers"].get<int>(), 0);
  EXPECT_EQ(report["kernels"][0]["spill_store_bytes"], 0);
}

TEST_F(CompileCli, JsonOutput) {
  const test::Run r =
      argus(example("softmax.argus") + " --target gfx942 --emit-only --format=json -o s");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["target"], "gfx942");
  EXPECT_EQ(j["kernels"], (nlohmann::json{"softmax_naive", "softmax"}));
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "s" / "kernels.hip"));
}

TEST_F(CompileCli, Gfx942InProcess) {
  const test::Run r = argus(example("gemm_mfma_gfx942.argus") + " --target gfx942 -o m");
  if (r.output.find("no gfx942 compiler") != std::string::npos)
    GTEST_SKIP() << "no gfx942 compiler in this build";
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "m" / "kernels.hsaco"));
  const auto report =
      nlohmann::json::parse(test::read_file((fs::path(dir_) / "m" / "compile.json").string()));
  EXPECT_EQ(report["kernels"][0]["lds_bytes"], 20480);
  EXPECT_GT(report["kernels"][0]["vgprs"].get<int>(), 0);
}

// MI300's MFMA reads fp8 as FNUZ: the fp8 MFMA takes fp8e4m3fnuz fragments
// (built and compiled for gfx942 in process), and OCP fp8e4m3 ones are refused
// before they reach the hardware as numbers off by a power of two.
TEST_F(CompileCli, Fp8MfmaTakesFnuz) {
  auto kernel = [](const std::string &fp8) {
    return "@kernel(grid=1, block=64, target=\"gfx942\")\n"
           "def k(A: Tensor((64, 8), f32), C: Tensor((64, 4), f32)):\n"
           "    lane = lane_id()\n"
           "    a = make_local((1, 8), " +
           fp8 +
           ")\n"
           "    for e in range(0, 8, unroll=8):\n"
           "        a[0, e] = " +
           fp8 +
           "(A[lane, e])\n"
           "    acc = full((4,), 0.0, f32)\n"
           "    acc = amdgpu.mfma_f32_16x16x32_fp8(a[0], a[0], acc)\n"
           "    for g in range(0, 4, unroll=4):\n"
           "        C[lane, g] = acc[g]\n";
  };
  std::ofstream(fs::path(dir_) / "fnuz.argus") << kernel("fp8e4m3fnuz");
  std::ofstream(fs::path(dir_) / "ocp.argus") << kernel("fp8e4m3");
  const test::Run ocp = argus("ocp.argus --target gfx942 -o o");
  EXPECT_NE(ocp.status, 0) << ocp.output;
  EXPECT_NE(ocp.output.find("fp8e4m3fnuz"), std::string::npos) << ocp.output;
  const test::Run fnuz = argus("fnuz.argus --target gfx942 -o f --emit-only");
  ASSERT_EQ(fnuz.status, 0) << fnuz.output;
  const std::string hip = test::read_file((fs::path(dir_) / "f" / "kernels.hip").string());
  EXPECT_NE(hip.find("argus_fp8e4m3fnuz"), std::string::npos);
  EXPECT_NE(hip.find("__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8"), std::string::npos);
  const test::Run built = argus("fnuz.argus --target gfx942 -o g");
  if (built.output.find("no gfx942 compiler") != std::string::npos)
    GTEST_SKIP() << "no gfx942 compiler in this build";
  EXPECT_EQ(built.status, 0) << built.output;
}

TEST_F(CompileCli, ExitStatuses) {
  // Usage errors: 2.
  EXPECT_EQ(argus("").status, 2);
  EXPECT_EQ(argus(example("gemm_tiled.argus") + " --target sm80").status, 2);
  EXPECT_EQ(argus(example("gemm_tiled.argus") + " --format=xml").status, 2);
  EXPECT_EQ(argus("missing.argus --target sm90").status, 2);
  // A file with front-end errors: 1, no artifact.
  {
    std::ofstream bad(fs::path(dir_) / "bad.argus");
    bad << "@kernel(grid=1, block=32)\ndef k(X: Tensor((4,), f32)):\n    X[0] = undefined\n";
  }
  const test::Run bad = argus("bad.argus --target sm90");
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_NE(bad.output.find("E0301"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "bad.sm90"));
  // sm90-only kernels for gfx942: 1 with E0801.
  const test::Run wrong = argus(example("gemm_mma_sm90.argus") + " --target gfx942 --emit-only");
  EXPECT_EQ(wrong.status, 1) << wrong.output;
  EXPECT_NE(wrong.output.find("E0801"), std::string::npos) << wrong.output;
  // nvcc missing: 2, with the source still written.
  const test::Run no_nvcc =
      argus(example("gemm_naive.argus") + " --target sm90 -o n", "ARGUS_NVCC=/nonexistent/nvcc");
  EXPECT_EQ(no_nvcc.status, 2) << no_nvcc.output;
  EXPECT_NE(no_nvcc.output.find("nvcc not found"), std::string::npos) << no_nvcc.output;
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "n" / "kernels.cu"));
  // --help: 0.
  const test::Run help = argus("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("--emit-only"), std::string::npos);
}

// nvcc re-runs its steps through a shell with the paths it was given in double
// quotes. A stand-in that does the same shows that no part of a hostile file
// name reaches it: the marker file would appear if one did.
TEST_F(CompileCli, HostileFileNameNeverReachesTheCompilersShell) {
  const fs::path fake = fs::path(dir_) / "fake-nvcc";
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\n"
              "[ \"$1\" = --version ] && { echo 'Cuda compilation tools, release 12.4, V12.4.1'; "
              "exit 0; }\n"
              "for a; do case $prev in -o) out=$a ;; esac; case $a in *.cu) in=$a ;; esac; "
              "prev=$a; done\n"
              "sh -c \"cat \\\"$in\\\" > /dev/null && : > \\\"$out\\\"\"\n";
  }
  fs::permissions(fake, fs::perms::owner_all);
  // A relative marker: the compiler may run in the artifact directory.
  const std::string name = "g$(touch marker)`touch marker`.argus";
  fs::copy_file(std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_naive.argus",
                fs::path(dir_) / name);
  const test::Run r =
      argus(test::quote(name) + " --target sm90 --format=json", "ARGUS_NVCC=" + fake.string());
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "marker")) << r.output;
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  const std::string artifact = j["artifact"];
  EXPECT_FALSE(fs::exists(fs::path(dir_) / artifact / "marker")) << r.output;
  EXPECT_EQ(artifact.find_first_of("$`( "), std::string::npos) << artifact;
  EXPECT_TRUE(fs::exists(fs::path(dir_) / artifact / "kernels.cubin")) << artifact;
  // The command it reports is one a person can paste: the compiler's paths are ours.
  EXPECT_NE(j["compile"]["command"].get<std::string>().find("kernels.cu -o kernels.cubin"),
            std::string::npos)
      << j.dump(2);
}

} // namespace
} // namespace argus::codegen

namespace argus::codegen {
namespace {

// The compiler reports only static shared memory; a kernel over 48 KiB gets
// the rest from its launcher at launch, and the table and compile.json say
// so instead of "shared 0".
TEST(CompileReportTest, DynamicSharedMemoryIsShown) {
  CompileReport report;
  report.target = GpuTarget::Sm90;
  report.ok = true;
  KernelResources k;
  k.name = "gemm";
  k.registers = 128;
  k.shared_bytes = 0;
  k.dynamic_shared_bytes = 65536;
  report.kernels.push_back(k);
  const std::string table = resource_table(report);
  EXPECT_NE(table.find("0+65536 dyn"), std::string::npos) << table;
  EXPECT_EQ(compile_json(report)["kernels"][0]["dynamic_shared_bytes"], 65536);
  report.kernels[0].dynamic_shared_bytes = 0;
  EXPECT_EQ(resource_table(report).find("dyn"), std::string::npos);
}

} // namespace
} // namespace argus::codegen
