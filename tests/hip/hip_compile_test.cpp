// The in-process gfx942 compile on hand-written, self-contained HIP kernels.
#include "argus/codegen/hip_compile.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

namespace argus::codegen {
namespace {

// A self-contained prelude: no HIP headers, only clang attributes and builtins.
constexpr const char *kPrelude = R"(
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))
typedef __attribute__((ext_vector_type(4))) short bf16x4;
typedef __attribute__((ext_vector_type(16))) float f32x16;
)";

// One MFMA (bf16 in, f32 32x32 accumulator), an LDS array of 256 floats (1024 bytes).
constexpr const char *kMfmaKernel = R"(
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(1, 256)))
void mfma_kernel(const bf16x4* a, const bf16x4* b, f32x16* c) {
  __shared__ float tile[256];
  int t = __builtin_amdgcn_workitem_id_x();
  tile[t] = (float)t;
  __builtin_amdgcn_s_barrier();
  f32x16 acc = c[t];
  acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a[t], b[t], acc, 0, 0, 0);
  acc[0] += tile[255 - t];
  c[t] = acc;
}
)";

std::string with_prelude(const char *body) { return std::string(kPrelude) + body; }

const HipKernelResources *find_kernel(const HipCompileResult &result, const std::string &name) {
  for (const HipKernelResources &kernel : result.kernels) {
    if (kernel.name == name) {
      return &kernel;
    }
  }
  return nullptr;
}

uint16_t read_u16(const std::vector<uint8_t> &bytes, size_t offset) {
  return static_cast<uint16_t>(bytes[offset] | (bytes[offset + 1] << 8));
}

TEST(HipCompile, MfmaKernelGivesLinkedCodeObjectWithResources) {
  const std::string source = with_prelude(kMfmaKernel);
  const HipCompileResult result = compile_hip_gfx942(source, "mfma.hip");
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_EQ(result.diagnostics, "");
  std::printf("[ compile time ] mfma_kernel: %.3f s\n", result.compile_seconds);
  EXPECT_LT(result.compile_seconds, 10.0);

  // ELF, 64-bit little endian, EM_AMDGPU (224), a shared object when linked.
  const std::vector<uint8_t> &elf = result.code_object;
  ASSERT_GE(elf.size(), 64u);
  EXPECT_EQ(std::memcmp(elf.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  EXPECT_EQ(elf[4], 2); // ELFCLASS64
  EXPECT_EQ(elf[5], 1); // little endian
  EXPECT_EQ(read_u16(elf, 18), 224);
  EXPECT_EQ(read_u16(elf, 16), result.linked ? 3 : 1); // ET_DYN or ET_REL

  ASSERT_EQ(result.kernels.size(), 1u);
  const HipKernelResources *kernel = find_kernel(result, "mfma_kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_GT(kernel->vgprs, 0);
  EXPECT_LE(kernel->vgprs, 512);
  EXPECT_GE(kernel->agprs, 0);
  EXPECT_LE(kernel->agprs, 256);
  EXPECT_GE(kernel->total_vgprs, kernel->vgprs + kernel->agprs);
  EXPECT_GE(kernel->total_vgprs, 16); // the 16-float accumulator alone
  EXPECT_GT(kernel->sgprs, 0);
  EXPECT_LE(kernel->sgprs, 112);
  EXPECT_EQ(kernel->lds_bytes, 256 * 4);
  EXPECT_EQ(kernel->scratch_bytes, 0);
  EXPECT_EQ(kernel->spill_vgprs, 0);
  EXPECT_EQ(kernel->spill_sgprs, 0);
  EXPECT_EQ(kernel->wavefront_size, 64);
  EXPECT_EQ(kernel->max_flat_workgroup_size, 256);
  EXPECT_GE(kernel->occupancy_waves_per_simd, 1);
  EXPECT_LE(kernel->occupancy_waves_per_simd, 8);
  // Few registers, 1 KiB of LDS, 256-thread groups: nothing limits below 8.
  EXPECT_EQ(kernel->occupancy_waves_per_simd, 8);

  // The reader gives the same answer on the bytes alone.
  std::vector<HipKernelResources> again;
  std::string error;
  ASSERT_TRUE(read_amdgpu_kernel_resources(result.code_object, again, error)) << error;
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].total_vgprs, kernel->total_vgprs);
  EXPECT_EQ(again[0].lds_bytes, kernel->lds_bytes);
}

TEST(HipCompile, RelocatableObjectCarriesTheSameMetadata) {
  HipCompileOptions options;
  options.link = false;
  const HipCompileResult result =
      compile_hip_gfx942(with_prelude(kMfmaKernel), "mfma.hip", options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  EXPECT_FALSE(result.linked);
  EXPECT_EQ(read_u16(result.code_object, 16), 1); // ET_REL
  ASSERT_EQ(result.kernels.size(), 1u);
  EXPECT_EQ(result.kernels[0].name, "mfma_kernel");
  EXPECT_EQ(result.kernels[0].lds_bytes, 1024);
}

TEST(HipCompile, AgprsCountInTheUnifiedRegisterFile) {
  // Inline assembly pins an AGPR (a7) and five VGPRs: 5 arch VGPRs aligned to 4
  // is 8, plus a0..a7, makes 16 in the unified file.
  const std::string source = with_prelude(R"(
extern "C" __global__ void agpr_kernel(float* c) {
  int t = __builtin_amdgcn_workitem_id_x();
  float v = c[t];
  asm volatile("v_accvgpr_write_b32 a7, %0" :: "v"(v) : "a7");
  asm volatile("; %0 %1 %2 %3 %4" :: "v"(v), "v"(v + 1.f), "v"(v + 2.f), "v"(v + 3.f), "v"(v + 4.f));
}
)");
  const HipCompileResult result = compile_hip_gfx942(source, "agpr.hip");
  ASSERT_TRUE(result.ok) << result.diagnostics;
  const HipKernelResources *kernel = find_kernel(result, "agpr_kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->agprs, 8);
  EXPECT_EQ(kernel->total_vgprs, 16);
  EXPECT_EQ(kernel->vgprs, 8);
}

TEST(HipCompile, LargeRegisterArrayGoesToScratch) {
  // A dynamically indexed private array that cannot live in registers.
  const std::string source = with_prelude(R"(
extern "C" __global__ void spill_kernel(const float* in, float* out, const int* index) {
  float local[1024];
  int t = __builtin_amdgcn_workitem_id_x();
  for (int i = 0; i < 1024; ++i) local[i] = in[t * 1024 + i];
  out[t] = local[index[t] & 1023] + local[index[t + 1] & 1023];
}
)");
  const HipCompileResult result = compile_hip_gfx942(source, "spill.hip");
  ASSERT_TRUE(result.ok) << result.diagnostics;
  const HipKernelResources *kernel = find_kernel(result, "spill_kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_GE(kernel->scratch_bytes, 4096);
  EXPECT_GE(kernel->occupancy_waves_per_simd, 1);
}

TEST(HipCompile, RegisterBudgetForcesVgprSpills) {
  // 64 live floats under a 24-VGPR budget: the register allocator spills.
  const std::string source = with_prelude(R"(
extern "C" __global__ __attribute__((amdgpu_num_vgpr(24)))
void tight_kernel(const float* in, float* out) {
  int t = __builtin_amdgcn_workitem_id_x();
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = in[t * 64 + i];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += v[i] * v[63 - i];
#pragma unroll
  for (int i = 0; i < 64; ++i) out[t * 64 + i] = v[i] * s;
}
)");
  const HipCompileResult result = compile_hip_gfx942(source, "tight.hip");
  ASSERT_TRUE(result.ok) << result.diagnostics;
  const HipKernelResources *kernel = find_kernel(result, "tight_kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_GT(kernel->spill_vgprs, 0);
  EXPECT_GT(kernel->scratch_bytes, 0);
}

TEST(HipCompile, ManyKernelsAndDefines) {
  HipCompileOptions options;
  options.defines = {"ARGUS_DEVICE_ONLY", "TILE=64"};
  const std::string source = with_prelude(R"(
#ifndef ARGUS_DEVICE_ONLY
#error ARGUS_DEVICE_ONLY is not defined
#endif
extern "C" __global__ void first(float* x) {
  __shared__ float s[TILE];
  int t = __builtin_amdgcn_workitem_id_x();
  s[t % TILE] = x[t];
  __builtin_amdgcn_s_barrier();
  x[t] = s[(t + 1) % TILE];
}
extern "C" __global__ void second(float* x) { x[0] = 1.0f; }
)");
  const HipCompileResult result = compile_hip_gfx942(source, "two.hip", options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.kernels.size(), 2u);
  ASSERT_NE(find_kernel(result, "first"), nullptr);
  ASSERT_NE(find_kernel(result, "second"), nullptr);
  EXPECT_EQ(find_kernel(result, "first")->lds_bytes, 64 * 4);
  EXPECT_EQ(find_kernel(result, "second")->lds_bytes, 0);
}

TEST(HipCompile, SyntaxErrorIsReportedWithFileLineColumn) {
  const std::string source = "__attribute__((global)) void broken(float* x) {\n"
                             "  x[0] = 1.0f\n"
                             "}\n";
  const HipCompileResult result = compile_hip_gfx942(source, "broken.hip");
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.code_object.empty());
  EXPECT_TRUE(result.kernels.empty());
  EXPECT_NE(result.diagnostics.find("broken.hip:2:14: error: expected ';'"), std::string::npos)
      << result.diagnostics;
}

TEST(HipCompile, LineDirectivesMapDiagnosticsToTheArgusSource) {
  const std::string source =
      "#line 42 \"examples/gemm.argus\"\n"
      "__attribute__((global)) void k(float* x) { x[0] = undefined_name; }\n";
  const HipCompileResult result = compile_hip_gfx942(source, "kernels.hip");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("examples/gemm.argus:42:"), std::string::npos)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("undefined_name"), std::string::npos);
}

TEST(HipCompile, BackendErrorsAreDiagnostics) {
  // 120000 bytes of LDS: the AMDGPU backend refuses; the message is clang's.
  const std::string source = with_prelude(R"(
extern "C" __global__ void too_much_lds(float* x) {
  __shared__ float s[30000];
  int t = __builtin_amdgcn_workitem_id_x();
  s[t] = x[t];
  __builtin_amdgcn_s_barrier();
  x[t] = s[29999 - t];
}
)");
  const HipCompileResult result = compile_hip_gfx942(source, "lds.hip");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("lds.hip:"), std::string::npos) << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("local memory (120000) exceeds limit (65536)"),
            std::string::npos)
      << result.diagnostics;
}

TEST(HipCompile, EmptySourceIsACleanError) {
  for (const char *source : {"", "  \n\t\n"}) {
    const HipCompileResult result = compile_hip_gfx942(source, "empty.hip");
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.code_object.empty());
    EXPECT_NE(result.diagnostics.find("empty.hip: error: empty HIP source"), std::string::npos)
        << result.diagnostics;
  }
}

TEST(HipCompile, BadDriverArgumentIsAnError) {
  HipCompileOptions options;
  options.extra_args = {"--no-such-option-argus"};
  const HipCompileResult result = compile_hip_gfx942(with_prelude(kMfmaKernel), "k.hip", options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("no-such-option-argus"), std::string::npos)
      << result.diagnostics;
}

TEST(HipCompile, SourceIsNotReadFromDisk) {
  // The name of a file that does not exist is only a name.
  const HipCompileResult result =
      compile_hip_gfx942(with_prelude(kMfmaKernel), "/nonexistent/dir/kernels.hip");
  ASSERT_TRUE(result.ok) << result.diagnostics;
}

TEST(HipCompile, ConcurrentCompilesAreIndependent) {
  std::vector<HipCompileResult> results(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&results, i] {
      results[i] =
          compile_hip_gfx942(with_prelude(kMfmaKernel), "thread" + std::to_string(i) + ".hip");
    });
  }
  for (std::thread &thread : threads) {
    thread.join();
  }
  for (const HipCompileResult &result : results) {
    ASSERT_TRUE(result.ok) << result.diagnostics;
    ASSERT_EQ(result.kernels.size(), 1u);
    EXPECT_EQ(result.kernels[0].lds_bytes, 1024);
  }
}

TEST(HipMetadata, RejectsBytesThatAreNotACodeObject) {
  std::vector<HipKernelResources> kernels;
  std::string error;
  EXPECT_FALSE(read_amdgpu_kernel_resources({}, kernels, error));
  EXPECT_FALSE(error.empty());
  const std::vector<uint8_t> junk = {'n', 'o', 't', ' ', 'e', 'l', 'f'};
  EXPECT_FALSE(read_amdgpu_kernel_resources(junk, kernels, error));
}

} // namespace
} // namespace argus::codegen
