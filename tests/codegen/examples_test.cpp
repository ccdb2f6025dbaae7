// Every example through both targets: lowered, compiled (nvcc for sm90, the
// in-process Clang/LLVM compile for gfx942) and the resource reports checked;
// and the ABI entry points of a real artifact, built as a host library with
// nvcc and called without a GPU (every call below is refused before launching).
#include "argus/codegen/artifact.h"
#include "argus/codegen/codes.h"
#include "argus/codegen/compile.h"
#include "argus/runner/artifact_abi.h"
#include "argus/runner/artifact_abi_text.h"
#include "codegen_test_support.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <filesystem>

namespace argus::codegen {
namespace {

bool has_kernel_for(const CheckedFile &checked, sema::Target target) {
  for (const sema::FunctionInfo &f : checked.sema->functions)
    if (f.role == sema::FunctionRole::Kernel &&
        (f.target == sema::Target::Any || f.target == target))
      return true;
  return false;
}

std::string example_name(const ::testing::TestParamInfo<std::string> &info) {
  std::string stem = std::filesystem::path(info.param).stem().string();
  for (char &c : stem)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return stem;
}

ArtifactInput input_for(const std::string &path) {
  ArtifactInput input;
  input.source_path = path;
  input.source_text = test::read_file(path);
  input.argus_version = "test";
  input.abi_header_text = std::string(argus::runner::kArtifactAbiHeader);
  return input;
}

class Example : public ::testing::TestWithParam<std::string> {};

TEST_P(Example, CompilesForSm90WithSaneResources) {
  const CheckedFile checked = test::check_file(GetParam());
  ASSERT_FALSE(checked.has_errors());
  const LowerResult lowered = lower(checked, GpuTarget::Sm90);
  if (!has_kernel_for(checked, sema::Target::Sm90)) {
    EXPECT_FALSE(lowered.ok);
    ASSERT_FALSE(lowered.diagnostics.empty());
    EXPECT_EQ(lowered.diagnostics.back().code, codes::kNoKernelForTarget);
    return;
  }
  ASSERT_TRUE(lowered.ok);
  for (const Diagnostic &d : lowered.diagnostics)
    EXPECT_NE(d.severity, Severity::Error) << d.message;
  const auto nvcc = find_nvcc();
  if (!nvcc)
    GTEST_SKIP() << "nvcc not found";
  const std::string dir = test::temp_dir("argus-example-sm90");
  std::string error;
  ASSERT_TRUE(write_artifact(dir, lowered, GpuTarget::Sm90, input_for(GetParam()), error)) << error;
  const CompileReport report =
      compile_sm90(*nvcc, dir + "/kernels.cu", dir + "/kernels.cubin", GetParam());
  ASSERT_TRUE(report.ok) << report.output;
  EXPECT_FALSE(report.binary.empty());
  for (const KernelMeta &k : lowered.kernels) {
    const KernelResources *r = nullptr;
    for (const KernelResources &x : report.kernels)
      if (x.name == k.name)
        r = &x;
    ASSERT_NE(r, nullptr) << k.name << " missing from ptxas output:\n" << report.output;
    EXPECT_GT(r->registers, 0) << k.name;
    EXPECT_LE(r->registers, 255) << k.name;
    EXPECT_EQ(r->spill_store_bytes, 0) << k.name;
    EXPECT_EQ(r->spill_load_bytes, 0) << k.name;
    EXPECT_EQ(r->stack_bytes, 0) << k.name << ": register arrays went to local memory";
    const sema::FunctionInfo *info = checked.sema->function_info(k.name);
    ASSERT_NE(info, nullptr);
    if (k.dynamic_shared_bytes > 0) {
      // Over 48 KiB: all of it dynamic (buffers aligned to their swizzle
      // pattern may add padding), none static.
      EXPECT_EQ(r->shared_bytes, 0) << k.name;
      EXPECT_GE(k.dynamic_shared_bytes, info->shared_bytes) << k.name;
      EXPECT_LE(k.dynamic_shared_bytes, 227 * 1024) << k.name;
    } else {
      EXPECT_EQ(r->shared_bytes, k.shared_bytes) << k.name;
      EXPECT_EQ(r->shared_bytes, info->shared_bytes) << k.name;
    }
  }
  // No warnings from nvcc about the generated code either.
  EXPECT_EQ(report.output.find("warning"), std::string::npos) << report.output;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST_P(Example, EmitsAndCompilesForGfx942WithoutNvvm) {
  const CheckedFile checked = test::check_file(GetParam());
  ASSERT_FALSE(checked.has_errors());
  const LowerResult lowered = lower(checked, GpuTarget::Gfx942);
  if (!has_kernel_for(checked, sema::Target::Gfx942)) {
    EXPECT_FALSE(lowered.ok);
    return;
  }
  ASSERT_TRUE(lowered.ok);
  EXPECT_EQ(lowered.source.find("nvvm"), std::string::npos);
  EXPECT_EQ(lowered.source.find("#include <cuda"), std::string::npos);
  if (!gfx942_compiler_available())
    GTEST_SKIP() << "no gfx942 compiler in this build";
  const CompileReport report = compile_gfx942(lowered.source, GetParam());
  ASSERT_TRUE(report.ok) << report.output;
  EXPECT_FALSE(report.binary.empty());
  for (const KernelMeta &k : lowered.kernels) {
    const KernelResources *r = nullptr;
    for (const KernelResources &x : report.kernels)
      if (x.name == k.name)
        r = &x;
    ASSERT_NE(r, nullptr) << k.name;
    EXPECT_GT(r->vgprs, 0) << k.name;
    EXPECT_LE(r->vgprs + r->agprs, 512) << k.name;
    EXPECT_EQ(r->spill_vgprs + r->spill_sgprs, 0) << k.name;
    EXPECT_EQ(r->scratch_bytes, 0) << k.name;
    EXPECT_EQ(r->shared_bytes, k.shared_bytes) << k.name;
    EXPECT_GE(r->occupancy_waves_per_simd, 1) << k.name;
  }
}

// amdgpu.raw_buffer_load_x4 is a real buffer load on gfx942 (a resource for the tensor's
// base, the element's byte offset as voffset), and the kernel still compiles without spills.
TEST(ExampleGfx942, RawBufferLoadsAreBufferLoads) {
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_mfma_gfx942.argus";
  const CheckedFile checked = test::check_file(path);
  ASSERT_FALSE(checked.has_errors());
  const LowerResult lowered = lower(checked, GpuTarget::Gfx942);
  ASSERT_TRUE(lowered.ok);
  EXPECT_NE(lowered.source.find("__builtin_amdgcn_raw_buffer_load_b128"), std::string::npos);
  EXPECT_NE(lowered.source.find("argus_buffer_load_b128(argus_buffer_rsrc(A, "), std::string::npos);
  EXPECT_NE(lowered.source.find("argus_buffer_load_b128(argus_buffer_rsrc(B, "), std::string::npos);
  EXPECT_EQ(lowered.source.find("a plain global load"), std::string::npos);
  EXPECT_NE(lowered.host_checks.find("must be under 2 GiB"), std::string::npos);
  if (!gfx942_compiler_available())
    GTEST_SKIP() << "no gfx942 compiler in this build";
  const CompileReport report = compile_gfx942(lowered.source, path);
  ASSERT_TRUE(report.ok) << report.output;
  ASSERT_FALSE(report.kernels.empty());
  for (const KernelResources &r : report.kernels) {
    EXPECT_EQ(r.spill_vgprs + r.spill_sgprs, 0) << r.name;
    EXPECT_EQ(r.scratch_bytes, 0) << r.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, Example, ::testing::ValuesIn(test::example_files()),
                         example_name);

// TMA stores (the corpus's correct kernels, not an example): the bulk-group
// PTX and a tensor map of the stored tensor, built by the launcher; nvcc
// accepts the whole artifact.
TEST(TmaStore, LowersToBulkGroupsOnTensorMapsAndCompiles) {
  const std::string path =
      std::string(ARGUS_SOURCE_DIR) + "/tests/checker/corpus/tma_store_ok.argus";
  const LowerResult lowered = lower(test::check_file(path), GpuTarget::Sm90);
  ASSERT_TRUE(lowered.ok);
  EXPECT_NE(lowered.source.find("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, "
                                "%2}], [%3];"),
            std::string::npos);
  EXPECT_NE(lowered.source.find("cp.async.bulk.commit_group;"), std::string::npos);
  EXPECT_NE(lowered.source.find("cp.async.bulk.wait_group.read 0;"), std::string::npos);
  // Y: 64 x 64 boxes of f32, unswizzled.
  EXPECT_NE(lowered.source.find("argus_tensor_map(&argus_tmap_0, 4, (void *)Y, 2, cols, page_rows, "
                                "pages, 64, 64, 0);"),
            std::string::npos);
  const auto nvcc = find_nvcc();
  if (!nvcc)
    GTEST_SKIP() << "nvcc not found";
  const std::string dir = test::temp_dir("argus-tma-store");
  std::string error;
  ASSERT_TRUE(write_artifact(dir, lowered, GpuTarget::Sm90, input_for(path), error)) << error;
  const CompileReport report =
      compile_sm90(*nvcc, dir + "/kernels.cu", dir + "/kernels.cubin", path);
  ASSERT_TRUE(report.ok) << report.output;
}

// Thread-block clusters: the cluster's dimensions on the kernel, the cluster
// barrier, fenced mbarrier inits, remote arrivals and loads through mapa, and
// multicast TMA boxes; nvcc accepts the whole artifact.
TEST(Clusters, LowerToClusterPtxAndCompile) {
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_multicast_sm90.argus";
  const LowerResult lowered = lower(test::check_file(path), GpuTarget::Sm90);
  ASSERT_TRUE(lowered.ok);
  const std::string &src = lowered.source;
  EXPECT_NE(src.find("__cluster_dims__(2, 1, 1)\ngemm_multicast_sm90("), std::string::npos);
  EXPECT_NE(src.find("barrier.cluster.arrive.release.aligned;"), std::string::npos);
  EXPECT_NE(src.find("fence.mbarrier_init.release.cluster;"), std::string::npos);
  EXPECT_NE(src.find("mbarrier.arrive.shared::cluster.b64 _, [%0];"),
            std::string::npos);
  EXPECT_NE(src.find("mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], "
                     "[%4], %5;"),
            std::string::npos);
  // The rank is the block's place in its cluster, x fastest.
  EXPECT_NE(src.find("int32_t rank = int(blockIdx.x) & 1;"), std::string::npos);
  const LowerResult dsmem = lower(test::check_file(std::string(ARGUS_SOURCE_DIR) +
                                                   "/tests/checker/corpus/cluster_dsmem_ok.argus"),
                                  GpuTarget::Sm90);
  ASSERT_TRUE(dsmem.ok);
  EXPECT_NE(dsmem.source.find("argus_dsmem_load(&s[t], static_cast<uint32_t>(peer))"),
            std::string::npos)
      << dsmem.source.substr(dsmem.source.find("swap_halves("), 1500);
  const auto nvcc = find_nvcc();
  if (!nvcc)
    GTEST_SKIP() << "nvcc not found";
  for (const auto &[name, result] :
       {std::pair{std::string("multicast"), &lowered}, std::pair{std::string("dsmem"), &dsmem}}) {
    const std::string dir = test::temp_dir("argus-cluster-" + name);
    std::string error;
    ASSERT_TRUE(write_artifact(dir, *result, GpuTarget::Sm90, input_for(path), error)) << error;
    const CompileReport report =
        compile_sm90(*nvcc, dir + "/kernels.cu", dir + "/kernels.cubin", path);
    ASSERT_TRUE(report.ok) << report.output;
  }
}

// The generated host ABI of gemm_tiled, built with nvcc into a shared library.
TEST(ArtifactAbi, EntryPointsOfAGeneratedArtifact) {
  const auto nvcc = find_nvcc();
  if (!nvcc)
    GTEST_SKIP() << "nvcc not found";
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_tiled.argus";
  const LowerResult lowered = lower(test::check_file(path), GpuTarget::Sm90);
  ASSERT_TRUE(lowered.ok);
  const std::string dir = test::temp_dir("argus-abi");
  std::string error;
  ASSERT_TRUE(write_artifact(dir, lowered, GpuTarget::Sm90, input_for(path), error)) << error;
  const std::string so = dir + "/libkernels.so";
  const test::Run built = test::run(test::quote(*nvcc) +
                                    " -std=c++17 -shared -Xcompiler -fPIC "
                                    "-gencode=arch=compute_90a,code=sm_90a " +
                                    test::quote(dir + "/kernels.cu") + " -o " + test::quote(so));
  ASSERT_EQ(built.status, 0) << built.output;
  void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  using Launch = int (*)(const char *, const ArgusArg *, int, void *, char *, size_t);
  using Kernels = int (*)(const ArgusKernelInfo **);
  using Benches = int (*)(const ArgusBenchInfo **);
  using Shape = int (*)(const char *, int, const int64_t *, int64_t *, int64_t *);
  auto launch = reinterpret_cast<Launch>(dlsym(handle, "argus_launch"));
  auto kernels = reinterpret_cast<Kernels>(dlsym(handle, "argus_artifact_kernels"));
  auto benches = reinterpret_cast<Benches>(dlsym(handle, "argus_artifact_benches"));
  auto shape = reinterpret_cast<Shape>(dlsym(handle, "argus_tensor_shape"));
  ASSERT_TRUE(launch && kernels && benches && shape);
  ASSERT_NE(dlsym(handle, "argus_launch_gemm_tiled"), nullptr);

  const ArgusKernelInfo *ks = nullptr;
  ASSERT_EQ(kernels(&ks), 1);
  EXPECT_STREQ(ks[0].name, "gemm_tiled");
  ASSERT_EQ(ks[0].nparams, 6);
  EXPECT_STREQ(ks[0].params[0].dtype, "bf16");
  EXPECT_EQ(ks[0].params[0].is_output, 0);
  EXPECT_EQ(ks[0].params[2].is_output, 1);
  EXPECT_EQ(ks[0].params[2].rank, 2);
  EXPECT_EQ(ks[0].params[3].kind, ARGUS_ARG_INT);
  const ArgusBenchInfo *bs = nullptr;
  ASSERT_EQ(benches(&bs), 2);
  EXPECT_STREQ(bs[0].reference, "matmul");
  EXPECT_EQ(bs[0].nsizes, 3);
  EXPECT_DOUBLE_EQ(bs[0].flops, 2.0 * 2048 * 2048 * 2048);
  EXPECT_DOUBLE_EQ(bs[1].flops, 2.0 * 4096 * 4096 * 4096);
  const int64_t scalars[3] = {128, 192, 64}; // M, N, K
  int64_t dims[2];
  int64_t strides[2];
  ASSERT_EQ(shape("gemm_tiled", 1, scalars, dims, strides), 0);
  EXPECT_EQ(dims[0], 192);
  EXPECT_EQ(dims[1], 64);
  EXPECT_EQ(strides[0], 64);
  EXPECT_EQ(strides[1], 1);
  EXPECT_NE(shape("gemm_tiled", 3, scalars, dims, strides), 0); // not a tensor
  EXPECT_NE(shape("nope", 0, scalars, dims, strides), 0);
  const int64_t bad[3] = {0, 64, 64};
  EXPECT_NE(shape("gemm_tiled", 0, bad, dims, strides), 0);

  int dummy = 0;
  ArgusArg args[6] = {{"A", ARGUS_ARG_TENSOR, &dummy, 0, 0}, {"B", ARGUS_ARG_TENSOR, &dummy, 0, 0},
                      {"C", ARGUS_ARG_TENSOR, &dummy, 0, 0}, {"M", ARGUS_ARG_INT, nullptr, 100, 0},
                      {"N", ARGUS_ARG_INT, nullptr, 64, 0},  {"K", ARGUS_ARG_INT, nullptr, 32, 0}};
  char message[256] = "";
  EXPECT_EQ(launch("gemm_tiled", args, 6, nullptr, message, sizeof message), 1);
  EXPECT_STREQ(message, "gemm_tiled: assume(M % BM == 0) does not hold with M = 100, BM = 64");
  EXPECT_EQ(launch("gemm_tild", args, 6, nullptr, message, sizeof message), 3);
  EXPECT_NE(std::string(message).find("gemm_tiled"), std::string::npos) << message;
  EXPECT_EQ(launch("gemm_tiled", args, 5, nullptr, message, sizeof message), 2);
  args[3].int_value = 64;
  args[0].data = nullptr;
  EXPECT_EQ(launch("gemm_tiled", args, 6, nullptr, message, sizeof message), 2);
  EXPECT_STREQ(message, "gemm_tiled: tensor A is null");
  args[0].data = &dummy;
  args[4].kind = ARGUS_ARG_FLOAT;
  EXPECT_EQ(launch("gemm_tiled", args, 6, nullptr, message, sizeof message), 2);
  args[4].kind = ARGUS_ARG_INT;
  args[4].int_value = int64_t{1} << 40; // does not fit i32
  EXPECT_EQ(launch("gemm_tiled", args, 6, nullptr, message, sizeof message), 2);
  args[4].int_value = 64;
  args[1].name = "X";
  EXPECT_EQ(launch("gemm_tiled", args, 6, nullptr, message, sizeof message), 2);
  EXPECT_NE(std::string(message).find("expected 'B'"), std::string::npos) << message;
  dlclose(handle);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

} // namespace
} // namespace argus::codegen
