// Lowering unit tests: the generated C++ for each construct.
#include "argus/codegen/codes.h"
#include "argus/codegen/lower.h"
#include "codegen_test_support.h"

#include <gtest/gtest.h>

namespace argus::codegen {
namespace {

using test::device_part;
using test::lower_text;

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

#define EXPECT_CONTAINS(haystack, needle)                                                          \
  EXPECT_TRUE(contains(haystack, needle)) << "missing: " << (needle) << "\nin:\n" << (haystack)
#define EXPECT_NOT_CONTAINS(haystack, needle)                                                      \
  EXPECT_FALSE(contains(haystack, needle)) << "unexpected: " << (needle) << "\nin:\n" << (haystack)

const char *kElementwise = R"(
@kernel(grid=(cdiv(N, 16), cdiv(M, 16)), block=(16, 16))
def kern(A: Tensor((M, K), bf16), S: Tensor((M, K), (1, M), f32), C: Tensor((M, N), f32),
      M: i32, N: i32, K: i32):
    assume(M > 0)
    tag(A, ("m", "k"))
    n = block_id(0) * 16 + thread_id(0)
    m = block_id(1) * 16 + thread_id(1)
    if m < M and n < N:
        acc: f32 = 0.0
        for k in range(0, K):
            acc += f32(A[m, k]) * S[m, k]
        assert_tag(acc, {"m": m})
        C[m, n] = acc
)";

TEST(Lower, RowMajorAndStridedIndexArithmetic) {
  const LowerResult r = lower_text(kElementwise, GpuTarget::Sm90);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "C[N * m + n] = acc;");
  EXPECT_CONTAINS(device, "A[K * m + k]");
  EXPECT_CONTAINS(device, "S[M * k + m]"); // strides (1, M)
  EXPECT_CONTAINS(device, "__bfloat162float(A[K * m + k])");
  EXPECT_CONTAINS(device, "float acc = 0.0f;");
  EXPECT_CONTAINS(device, "for (int32_t k = 0; k < K; ++k) {");
  EXPECT_CONTAINS(device, "int32_t n = 16 * int(blockIdx.x) + int(threadIdx.x);");
  // Inputs are const __restrict__, outputs writable.
  EXPECT_CONTAINS(device, "const __nv_bfloat16 *__restrict__ A");
  EXPECT_CONTAINS(device, "float *__restrict__ C");
  EXPECT_CONTAINS(device, "__launch_bounds__(256)");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelMeta &k = r.kernels[0];
  ASSERT_EQ(k.params.size(), 6u);
  EXPECT_FALSE(k.params[0].output);
  EXPECT_TRUE(k.params[2].output);
  EXPECT_EQ(k.params[0].strides, (std::vector<std::string>{"K", "1"}));
  EXPECT_EQ(k.params[1].strides, (std::vector<std::string>{"1", "M"}));
  EXPECT_EQ(k.grid, (std::vector<std::string>{"cdiv(N, 16)", "cdiv(M, 16)"}));
  EXPECT_EQ(k.assumes, (std::vector<std::string>{"M > 0"}));
}

// Generated code does not warn about itself: a local only an assertion
// reads is [[maybe_unused]] (assertions emit nothing), and a condition has
// one pair of parentheses (clang's -Wparentheses-equality on `if ((a == b))`).
TEST(Lower, GeneratedCodeGivesTheDeviceCompilerNothingToWarnAbout) {
  const LowerResult r = lower_text("@kernel(grid=cdiv(N, 64), block=64)\n"
                                   "def k(X: Tensor((N,), f32), N: i32):\n"
                                   "    tag(X, (\"i\",))\n"
                                   "    i = block_id() * 64 + thread_id()\n"
                                   "    row = i\n"
                                   "    if i < N:\n"
                                   "        v = X[i]\n"
                                   "        assert_tag(v, {\"i\": row})\n"
                                   "        if (i == 0) == (N == 1):\n"
                                   "            X[i] = v * 2.0\n",
                                   GpuTarget::Sm90);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "[[maybe_unused]] int32_t row = i;");
  EXPECT_CONTAINS(device, "if ((i == 0) == (N == 1)) {");
  EXPECT_EQ(device.find("if (((i"), std::string::npos) << device;
}

TEST(Lower, BreakAndContinueLeaveTheInnermostLoop) {
  const LowerResult r = lower_text("@kernel(grid=1, block=64)\n"
                                   "def prefix(X: Tensor((64,), f32), Y: Tensor((64,), f32)):\n"
                                   "    t = thread_id()\n"
                                   "    acc: f32 = 0.0\n"
                                   "    for j in range(0, 64):\n"
                                   "        if j > t:\n"
                                   "            break\n"
                                   "        if j % 8 == 7:\n"
                                   "            continue\n"
                                   "        acc += X[j]\n"
                                   "    Y[t] = acc\n",
                                   GpuTarget::Sm90);
  ASSERT_TRUE(r.ok) << r.source;
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "      break;\n");
  EXPECT_CONTAINS(device, "      continue;\n");
  // `j % 8` of a non-negative j prints as `j & 7`, which binds less tightly
  // than `==`: it was emitted as `j & 7 == 7` (that is, j & 1).
  EXPECT_CONTAINS(device, "if ((j & 7) == 7) {");
  // The same under `not`: `!j & 7` would negate j first.
  const LowerResult n = lower_text("@kernel(grid=1, block=64)\n"
                                   "def odd(Y: Tensor((64,), f32)):\n"
                                   "    t = thread_id()\n"
                                   "    if not t % 8:\n"
                                   "        Y[t] = 1.0\n",
                                   GpuTarget::Sm90);
  ASSERT_TRUE(n.ok) << n.source;
  EXPECT_CONTAINS(device_part(n.source), "(!(t & 7))");
}

const char *kAtomics = R"(
@kernel(grid=4, block=64)
def every(X: Tensor((64,), f32), C: Tensor((4,), i32), U: Tensor((1,), u64), Y: Tensor((4,), i32)):
    t = thread_id()
    s = make_shared((1,), i32)
    if t == 0:
        s[0] = 0
    syncthreads()
    atomic_add(s[0], 1, scope="block")
    atomic_add(Y[3], 2)
    atomic_max(C[0], t)
    atomic_min(C[1], t)
    atomic_exch(C[2], 7)
    atomic_add(U[0], u64(1))
    old = atomic_cas(C[3], 0, t)
    syncthreads()
    if t == 0:
        Y[block_id()] = s[0] + old * 0
)";

// Atomics lower to the prelude's helpers on the element's address; the place
// is an output (not const), and both targets compile (gfx942 in process).
TEST(Lower, AtomicsOnTheElementsAddressForBothTargets) {
  for (GpuTarget target : {GpuTarget::Sm90, GpuTarget::Gfx942}) {
    const LowerResult r = lower_text(kAtomics, target);
    ASSERT_TRUE(r.ok) << r.source;
    const std::string device = device_part(r.source);
    EXPECT_CONTAINS(device, "argus_atomic_add_block(&s[0], 1);");
    EXPECT_CONTAINS(device, "argus_atomic_max(&C[0], t);");
    EXPECT_CONTAINS(device, "argus_atomic_min(&C[1], t);");
    EXPECT_CONTAINS(device, "argus_atomic_exch(&C[2], 7);");
    EXPECT_CONTAINS(device, "int32_t old = argus_atomic_cas(&C[3], 0, t);");
    EXPECT_NOT_CONTAINS(device, "const int32_t *__restrict__ C");
    EXPECT_CONTAINS(r.source,
                    target == GpuTarget::Sm90 ? "atomicCAS_block" : "__hip_atomic_exchange");
  }
}

// Votes over the active lanes, syncwarp and fences: CUDA's warp intrinsics with
// __activemask(), gfx942's wavefront ballot and fences by scope.
TEST(Lower, WarpVotesSyncwarpAndFences) {
  const char *source = R"(
@kernel(grid=1, block=32)
def votes(Y: Tensor((32,), u64), B: Tensor((32,), i32)):
    t = thread_id()
    syncwarp()
    Y[t] = ballot(t < 3)
    B[t] = i32(any_sync(t < 3)) * 2 + i32(all_sync(t < 5))
    threadfence()
    threadfence(scope="block")
)";
  const std::string cuda = device_part(lower_text(source, GpuTarget::Sm90).source);
  EXPECT_CONTAINS(cuda, "__syncwarp();");
  EXPECT_CONTAINS(cuda, "static_cast<uint64_t>(__ballot_sync(__activemask(), (t < 3)))");
  EXPECT_CONTAINS(cuda, "__any_sync(__activemask(), (t < 3)) != 0");
  EXPECT_CONTAINS(cuda, "__all_sync(__activemask(), (t < 5)) != 0");
  EXPECT_CONTAINS(cuda, "__threadfence();");
  EXPECT_CONTAINS(cuda, "__threadfence_block();");
  const LowerResult hip = lower_text(source, GpuTarget::Gfx942);
  ASSERT_TRUE(hip.ok) << hip.source;
  const std::string amd = device_part(hip.source);
  EXPECT_CONTAINS(amd, "argus_syncwarp();");
  EXPECT_CONTAINS(amd, "argus_ballot((t < 3))");
  EXPECT_CONTAINS(amd, "(argus_ballot((t < 5)) == argus_ballot(true))");
  EXPECT_CONTAINS(amd, "__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, \"agent\");");
  EXPECT_CONTAINS(amd, "__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, \"workgroup\");");
}

// A named barrier is PTX bar.sync with its id and thread count as immediates;
// barrier_arrive is bar.arrive.
TEST(Lower, NamedBarrierIsBarSync) {
  const char *source = R"(
@kernel(grid=1, block=256)
def groups(X: Tensor((256,), f32)):
    t = thread_id()
    if t < 128:
        barrier(1, 128)
        barrier_arrive(2, 256)
    else:
        barrier(2, 256)
    X[t] = 1.0
)";
  const LowerResult r = lower_text(source, GpuTarget::Sm90);
  ASSERT_TRUE(r.ok) << r.source;
  EXPECT_CONTAINS(device_part(r.source), "asm volatile(\"bar.sync 1, 128;\" ::: \"memory\");");
  EXPECT_CONTAINS(device_part(r.source), "asm volatile(\"bar.arrive 2, 256;\" ::: \"memory\");");
  EXPECT_CONTAINS(device_part(r.source), "asm volatile(\"bar.sync 2, 256;\" ::: \"memory\");");
}

// mbarriers: init, arrive and a try_wait.parity loop on the element's shared address.
TEST(Lower, MbarriersArePtxOnTheSharedAddress) {
  const char *source = R"(
@kernel(grid=1, block=128, target="sm90")
def bars(X: Tensor((128,), f32)):
    b = make_shared((2,), u64)
    t = thread_id()
    if t == 0:
        nvvm.mbarrier_init(b[1], 128)
    syncthreads()
    nvvm.mbarrier_arrive(b[1])
    nvvm.mbarrier_wait(b[1], t // 64)
    X[t] = 1.0
    tile = make_shared((128,), f32)
    if t == 0:
        nvvm.mbarrier_arrive_expect_tx(b[0], 512)
        nvvm.cp_async_bulk(tile, X, b[0])
)";
  const LowerResult r = lower_text(source, GpuTarget::Sm90);
  ASSERT_TRUE(r.ok) << r.source;
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "mbarrier.init.shared::cta.b64 [%0], %1;");
  EXPECT_CONTAINS(device, "argus_smem_addr(&b[1])");
  EXPECT_CONTAINS(device, "mbarrier.arrive.shared::cta.b64 _, [%0];");
  EXPECT_CONTAINS(device, "mbarrier.try_wait.parity.shared::cta.b64");
  EXPECT_CONTAINS(device, "for (uint32_t argus_done = 0; !argus_done;)");
  EXPECT_CONTAINS(device, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;");
  EXPECT_CONTAINS(device,
                  "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                  "512, [%2];");
}

TEST(Lower, TagsAndAssumeLeaveNoTraceButLineDirectivesDo) {
  const LowerResult r = lower_text(kElementwise, GpuTarget::Sm90);
  const std::string device = device_part(r.source);
  EXPECT_NOT_CONTAINS(device, "tag");
  EXPECT_NOT_CONTAINS(device, "assume");
  // The statement on line 7 of the source, `n = ...`.
  EXPECT_CONTAINS(device, "#line 7 \"test.argus\"\n  [[maybe_unused]] int32_t n =");
  EXPECT_CONTAINS(device, "#line 14 \"test.argus\"\n    C[N * m + n] = acc;");
  EXPECT_NOT_CONTAINS(device, "#line 6 \"test.argus\""); // the tag(...) line
}

TEST(Lower, FloorDivisionHelperOnlyWhenAnOperandMayBeNegative) {
  const LowerResult r = lower_text(R"(
@kernel(grid=cdiv(N, 128), block=128)
def k(X: Tensor((N,), f32), Y: Tensor((N,), f32), N: i32):
    i = block_id() * 128 + thread_id()
    j = i - 5
    q = j // 3
    w = j % 3
    r = thread_id() // 3
    s = thread_id() % 3
    t = thread_id() // 4
    u = j % 8
    if i < N:
        Y[i] = X[i] + f32(q + r + s + t + u + w)
)",
                                   GpuTarget::Sm90);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "int32_t q = argus_floordiv(j, 3);");
  EXPECT_CONTAINS(device, "int32_t w = argus_floormod(j, 3);");
  EXPECT_CONTAINS(device, "int32_t r = int(threadIdx.x) / 3;");
  EXPECT_CONTAINS(device, "int32_t s = int(threadIdx.x) % 3;");
  EXPECT_CONTAINS(device, "int32_t t = int(threadIdx.x) >> 2;");
  EXPECT_CONTAINS(device, "int32_t u = j & 7;");
}

const char *kVectorSwizzle = R"(
@kernel(grid=cdiv(M, 64), block=64)
def k(A: Tensor((M, K), bf16), C: Tensor((M, K), bf16), M: i32, K: i32):
    assume(K % 64 == 0)
    a_gv = view(A, Tensor((M, K // 8, 8), bf16))
    c_gv = view(C, Tensor((M, K // 8, 8), bf16))
    s = make_shared((64, 8, 8), bf16,
                    layout=compose(Swizzle(3, 4, 3), make_layout((64, 8, 8), (64, 8, 1))))
    frag = make_local((2, 8), bf16)
    r = thread_id()
    m = block_id() * 64 + r
    for kt in range(0, K // 64):
        for c in range(0, 8, unroll=8):
            s[r, c] = a_gv[m, kt * 8 + c]
        syncthreads()
        for c in range(0, 8, unroll=8):
            frag[1] = s[r, (c + r) % 8]
            frag[0, 0] = frag[1, 7]
            c_gv[m, kt * 8 + c] = frag[1]
        syncthreads()
)";

TEST(Lower, VectorAccessesAreSingleSixteenByteInstructions) {
  const LowerResult r = lower_text(kVectorSwizzle, GpuTarget::Sm90);
  const std::string device = device_part(r.source);
  // Global -> shared: one 16-byte load and one 16-byte store.
  EXPECT_CONTAINS(device, "*reinterpret_cast<uint4 *>(&s[argus_swizzle<3, 3, 3>(");
  EXPECT_CONTAINS(device, "= *reinterpret_cast<const uint4 *>(&A[");
  // Aligned to the swizzle's 1024-byte pattern: hardware swizzles by address bits.
  EXPECT_CONTAINS(device, "__shared__ __align__(1024) __nv_bfloat16 s[4096]; // Swizzle<3, 4, 3>");
  EXPECT_CONTAINS(device, "__nv_bfloat16 frag[16];");
  // Shared -> registers through one 16-byte load, registers -> global through one store.
  EXPECT_CONTAINS(device,
                  "const uint4 argus_v = *reinterpret_cast<const uint4 *>(&s[argus_swizzle");
  EXPECT_CONTAINS(device, "frag[15] = argus_e[7];");
  EXPECT_CONTAINS(device, "frag[0] = frag[15];");
  EXPECT_CONTAINS(device, "*reinterpret_cast<uint4 *>(&C[");
  EXPECT_CONTAINS(device, "#pragma unroll\n");
  EXPECT_CONTAINS(device, "__syncthreads();");
}

TEST(Lower, HipVectorTypesAndPrelude) {
  const LowerResult r = lower_text(kVectorSwizzle, GpuTarget::Gfx942);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "*reinterpret_cast<argus_u32x4 *>(&s[argus_swizzle<3, 3, 3>(");
  EXPECT_CONTAINS(device, "__shared__ __attribute__((aligned(1024))) argus_bf16 s[4096];");
  EXPECT_CONTAINS(device, "int(__builtin_amdgcn_workitem_id_x())");
  EXPECT_CONTAINS(r.source, "struct argus_bf16");
  EXPECT_NOT_CONTAINS(r.source, "#include <cuda");
  EXPECT_CONTAINS(r.source, "#if !defined(ARGUS_DEVICE_ONLY) && !defined(__HIP_DEVICE_COMPILE__)");
}

TEST(Lower, NvvmIntrinsicsAsInlinePtx) {
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_mma_sm90.argus";
  const CheckedFile checked = test::check_file(path);
  const LowerResult r = lower(checked, GpuTarget::Sm90);
  ASSERT_TRUE(r.ok);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                          "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13}");
  EXPECT_CONTAINS(device, "\"r\"(argus_pack2(a_frag[8 * i], a_frag[8 * i + 1]))");
  EXPECT_CONTAINS(device, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];");
  EXPECT_CONTAINS(device, "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];");
  EXPECT_CONTAINS(device, "cp.async.cg.shared.global [%0], [%1], 16;");
  EXPECT_CONTAINS(device, "argus_smem_addr(&a_smem[argus_swizzle<2, 3, 3>(");
  EXPECT_CONTAINS(device, "cp.async.commit_group;");
  EXPECT_CONTAINS(device, "cp.async.wait_group 0;");
  EXPECT_CONTAINS(device, "__launch_bounds__(256, 2)");
  // The f32 pair of the epilogue is one 8-byte store.
  EXPECT_CONTAINS(device, "*reinterpret_cast<uint2 *>(&C[");
  // Device functions are inlined helpers.
  EXPECT_CONTAINS(device, "__device__ __forceinline__ int32_t mma_c_row(int32_t lane, int32_t h)");
  EXPECT_NOT_CONTAINS(device, "assert_tag");
}

// wgmma: descriptors from the verified tiles (128-byte swizzle: 1024-byte
// group stride, mode 1), the accumulators as "+f" operands, the fences and
// groups, and the buffers aligned to the swizzle pattern.
TEST(Lower, WgmmaWithDescriptorsFromTheTiles) {
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_wgmma_sm90.argus";
  const CheckedFile checked = test::check_file(path);
  const LowerResult r = lower(checked, GpuTarget::Sm90);
  ASSERT_TRUE(r.ok);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, ");
  EXPECT_CONTAINS(device, "%63}, %64, %65, p, 1, 1, 0, 0;");
  EXPECT_CONTAINS(device, "\"+f\"(acc[63])");
  EXPECT_CONTAINS(device,
                  "argus_wgmma_desc(argus_smem_addr(reinterpret_cast<unsigned char *>(a_smem) + ");
  EXPECT_CONTAINS(device, "), 16, 1024, 1);");
  EXPECT_CONTAINS(device, "wgmma.fence.sync.aligned;");
  EXPECT_CONTAINS(device, "wgmma.commit_group.sync.aligned;");
  EXPECT_CONTAINS(device, "wgmma.wait_group.sync.aligned 1;");
  EXPECT_CONTAINS(device, "wgmma.wait_group.sync.aligned 0;");
  EXPECT_CONTAINS(device, "fence.proxy.async.shared::cta;");
  EXPECT_CONTAINS(device, "extern __shared__ __align__(1024) unsigned char argus_dynamic_smem[];");
  EXPECT_CONTAINS(r.source, "argus_wgmma_desc(uint32_t address, uint32_t leading_bytes");
  // The accumulators are fenced as registers before each wgmma.fence and after
  // each wait, so no plain move of them crosses a wait (else ptxas serializes
  // every wgmma: C7514).
  EXPECT_CONTAINS(device,
                  "argus_register_fence(acc);\n    asm volatile(\"wgmma.fence.sync.aligned;");
  EXPECT_CONTAINS(device, "wgmma.wait_group.sync.aligned 1;\\n\" ::: \"memory\");\n    "
                          "argus_register_fence(acc);");
  EXPECT_CONTAINS(device, "wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");\n  "
                          "argus_register_fence(acc);");
  EXPECT_EQ(device.find("/*argus: wgmma register fence*/"), std::string::npos);

  // fp8: the k32 form, which takes no transpose immediates.
  const CheckedFile fp8 =
      test::check_file(std::string(ARGUS_SOURCE_DIR) + "/tests/checker/corpus/wgmma_fp8_ok.argus");
  const LowerResult r8 = lower(fp8, GpuTarget::Sm90);
  ASSERT_TRUE(r8.ok);
  EXPECT_CONTAINS(device_part(r8.source),
                  "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%0, ");
  EXPECT_CONTAINS(device_part(r8.source), "%64, %65, p, 1, 1;");
}

// TMA: a tensor map per (tensor, box, swizzle) as a __grid_constant__
// parameter, the box's coordinates from the view (innermost first), and the
// launcher building the maps through the driver's entry point.
TEST(Lower, TmaLoadsThroughTensorMapsTheLauncherBuilds) {
  const CheckedFile checked =
      test::check_file(std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_tma_wgmma_sm90.argus");
  const LowerResult r = lower(checked, GpuTarget::Sm90);
  ASSERT_TRUE(r.ok);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "const __grid_constant__ CUtensorMap argus_tmap_0, const "
                          "__grid_constant__ CUtensorMap argus_tmap_1)");
  EXPECT_CONTAINS(device, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                          "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];");
  EXPECT_CONTAINS(device, "\"r\"(static_cast<int32_t>(argus_first % K)), "
                          "\"r\"(static_cast<int32_t>(argus_first / K))");
  EXPECT_CONTAINS(r.source, "cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\"");
  // A: 128 x 64 boxes of bf16 into the 128-byte swizzle; both maps are passed.
  EXPECT_CONTAINS(r.source, "argus_tensor_map(&argus_tmap_0, 2, (void *)A, 2, cols, page_rows, "
                            "pages, 64, 128, 128);");
  EXPECT_CONTAINS(r.source, "(A, B, C, M, N, K, argus_tmap_0, argus_tmap_1);");
  EXPECT_CONTAINS(r.source, "is accessed by TMA: its address must be 16-byte aligned");
  // A box at any row (subview, an MoE expert's first row) and a box of one
  // expert's weights (a 3-D map: pages of N rows, one per expert):
  // coordinates from each view's offset.
  const LowerResult moe = lower(test::check_file(std::string(ARGUS_SOURCE_DIR) +
                                                 "/examples/moe_grouped_gemm_wgmma_sm90.argus"),
                                GpuTarget::Sm90);
  ASSERT_TRUE(moe.ok);
  EXPECT_CONTAINS(moe.source, "const int64_t argus_first = (2 * K * m0 + 128 * kt) / 2;");
  EXPECT_CONTAINS(moe.source,
                  "const int64_t argus_first = (2 * K * N * e + 512 * K * tile_n + 128 * kt) / 2;");
  EXPECT_CONTAINS(moe.source, "argus_tensor_map(&argus_tmap_0, 2, (void *)X, 2, cols, page_rows, "
                              "pages, 64, 128, 128);");
  EXPECT_CONTAINS(moe.source, "argus_tensor_map(&argus_tmap_1, 2, (void *)W, 3, cols, page_rows, "
                              "pages, 64, 256, 128);");
  EXPECT_CONTAINS(moe.source, "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::"
                              "complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];");
  EXPECT_CONTAINS(moe.source, "\"r\"(static_cast<int32_t>(argus_first / K % N)), "
                              "\"r\"(static_cast<int32_t>(argus_first / K / N)), ");
  // A kernel without tma_load gets neither the helper nor map parameters.
  const LowerResult plain =
      lower(test::check_file(std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_wgmma_sm90.argus"),
            GpuTarget::Sm90);
  ASSERT_TRUE(plain.ok);
  EXPECT_EQ(plain.source.find("argus_tensor_map("), std::string::npos);
  EXPECT_EQ(plain.source.find("CUtensorMap argus_tmap"), std::string::npos);
}

// wgmma with b MN-major (b_major="mn", V as TMA wrote it in the FA3-style
// attention): the transpose immediate of b is 1 and b's descriptor has both
// offsets at the atom's 8-row stride; Q and K stay K-major (0, 0).
TEST(Lower, WgmmaMnMajorBSetsTheTransposeBit) {
  const LowerResult r = lower(
      test::check_file(std::string(ARGUS_SOURCE_DIR) + "/examples/flash_attn_fwd_ws_sm90.argus"),
      GpuTarget::Sm90);
  ASSERT_TRUE(r.ok) << r.source;
  const std::string device = device_part(r.source);
  // O += P V: m64n64k16, a in four registers, the b descriptor, trans-b 1.
  EXPECT_CONTAINS(device, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, ");
  EXPECT_CONTAINS(device, "%31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;");
  EXPECT_CONTAINS(device, "argus_wgmma_desc(argus_smem_addr(reinterpret_cast<unsigned char *>"
                          "(v_smem) + ");
  EXPECT_CONTAINS(device, "), 1024, 1024, 1);");
  // S = Q K^T: m64n128k16, both from shared memory, K-major.
  EXPECT_CONTAINS(device, "%63}, %64, %65, p, 1, 1, 0, 0;");
  // Q, K and V of (B, H, S, D) are 3-D maps: rows of one head never run into
  // the next head's.
  EXPECT_CONTAINS(r.source, "argus_tensor_map(&argus_tmap_0, 2, (void *)Q, 3, cols, page_rows, "
                            "pages, 64, 128, 128);");
}

// setmaxnreg: the PTX instruction with its constant count.
TEST(Lower, SetmaxnregIsPtx) {
  const LowerResult roles = lower_text("@kernel(grid=1, block=256, target=\"sm90\")\n"
                                       "def roles(X: Tensor((256,), f32)):\n"
                                       "    t = thread_id()\n"
                                       "    if t // 128 == 0:\n"
                                       "        nvvm.setmaxnreg_dec(40)\n"
                                       "    else:\n"
                                       "        nvvm.setmaxnreg_inc(232)\n"
                                       "    X[t] = 1.0\n",
                                       GpuTarget::Sm90);
  const std::string device = device_part(roles.source);
  EXPECT_CONTAINS(device,
                  "asm volatile(\"setmaxnreg.dec.sync.aligned.u32 40;\\n\" ::: \"memory\");");
  EXPECT_CONTAINS(device,
                  "asm volatile(\"setmaxnreg.inc.sync.aligned.u32 232;\\n\" ::: \"memory\");");
}

// A predicated cp.async: src-size 0 when invalid, with the tensor's base as
// the address (the row past the end is never formed into a read).
TEST(Lower, PredicatedCopyZeroFillsThroughSourceSize) {
  const std::string path =
      std::string(ARGUS_SOURCE_DIR) + "/tests/checker/corpus/predicated_copy_ok.argus";
  const LowerResult r = lower(test::check_file(path), GpuTarget::Sm90);
  ASSERT_TRUE(r.ok) << r.source;
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "const bool argus_valid = ");
  EXPECT_CONTAINS(device, "cp.async.cg.shared.global [%0], [%1], 16, %2;");
  EXPECT_CONTAINS(device, "argus_valid ? static_cast<const void *>(");
  EXPECT_CONTAINS(device, ") : static_cast<const void *>(X)), \"r\"(argus_valid ? 16 : 0)");
}

// A @device function taking tensors: the caller passes the address of a
// contiguous view (global, shared), without __restrict__ on the callee's
// parameters; a tensor the callee stores into is an output of the kernel.
TEST(Lower, DeviceFunctionsTakeTensorsByAddress) {
  const std::string path =
      std::string(ARGUS_SOURCE_DIR) + "/tests/checker/corpus/device_tensor_ok.argus";
  for (GpuTarget target : {GpuTarget::Sm90, GpuTarget::Gfx942}) {
    const LowerResult r = lower(test::check_file(path), target);
    ASSERT_TRUE(r.ok) << r.source;
    const std::string device = device_part(r.source);
    EXPECT_CONTAINS(device, "void stage(float *dst, const float *src, int32_t i) {");
    EXPECT_CONTAINS(device, "stage(&tile[0], &X[64 * r], ");
  }
  const LowerResult bad = lower_text(R"(
@device
def first(src: Tensor((4, 1), f32)) -> f32:
    return src[0, 0]

@kernel(grid=1, block=4)
def k(X: Tensor((4, 4), f32), Y: Tensor((4,), f32)):
    Y[thread_id()] = first(subview(X, (0, thread_id()), (4, 1)))
)",
                                     GpuTarget::Sm90, false);
  EXPECT_FALSE(bad.ok);
  ASSERT_FALSE(bad.diagnostics.empty());
  EXPECT_NE(bad.diagnostics.back().message.find("must be a contiguous row-major view"),
            std::string::npos)
      << bad.diagnostics.back().message;
}

TEST(Lower, AmdgpuIntrinsicsAsBuiltins) {
  const LowerResult r = lower_text(R"(
@kernel(grid=1, block=64, waves_per_eu=2)
def k(A: Tensor((64, 8), bf16), C: Tensor((64, 16), f32)):
    lane = lane_id()
    a_gv = view(A, Tensor((64, 2, 4), bf16))
    a = make_local((1, 4), bf16)
    a[0] = a_gv[lane % 32, lane // 32]
    acc = full((16,), 0.0, f32)
    amdgpu.s_setprio(1)
    amdgpu.s_waitcnt(vmcnt=0)
    amdgpu.s_waitcnt(lgkmcnt=0)
    amdgpu.sched_group_barrier(8, 1, 0)
    acc = amdgpu.mfma_f32_32x32x8_bf16(a[0], a[0], acc)
    amdgpu.s_setprio(0)
    for g in range(0, 16, unroll=16):
        C[lane, g] = acc[g]
)",
                                   GpuTarget::Gfx942);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "argus_c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(argus_a, argus_b, "
                          "argus_c, 0, 0, 0);");
  EXPECT_CONTAINS(device, "__builtin_amdgcn_s_setprio(1);");
  // vmcnt(0), expcnt(7), lgkmcnt(15) / vmcnt(63), expcnt(7), lgkmcnt(0).
  EXPECT_CONTAINS(device, "__builtin_amdgcn_s_waitcnt(3952);");
  EXPECT_CONTAINS(device, "__builtin_amdgcn_s_waitcnt(49279);");
  EXPECT_CONTAINS(device, "__builtin_amdgcn_sched_group_barrier(8, 1, 0);");
  EXPECT_CONTAINS(device, "amdgpu_waves_per_eu(2)");
  EXPECT_CONTAINS(device, "int32_t lane = int(__builtin_amdgcn_workitem_id_x());");
  // The same kernel has no sm90 lowering.
  const LowerResult other = lower_text(R"(
@kernel(grid=1, block=64)
def k(A: Tensor((64,), f32)):
    amdgpu.s_setprio(1)
    A[thread_id()] = 0.0
)",
                                       GpuTarget::Sm90, false);
  EXPECT_FALSE(other.ok);
  ASSERT_FALSE(other.diagnostics.empty());
  EXPECT_EQ(other.diagnostics.back().code, codes::kNoKernelForTarget);
}

TEST(Lower, ShufflesMathAndFastMath) {
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/softmax.argus";
  const CheckedFile checked = test::check_file(path);
  const LowerResult cuda = lower(checked, GpuTarget::Sm90);
  ASSERT_TRUE(cuda.ok);
  const std::string device = device_part(cuda.source);
  EXPECT_CONTAINS(device, "v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 16 >> s));");
  EXPECT_CONTAINS(device, "float mx = (-INFINITY);");
  // softmax_naive without fast_math, softmax with it.
  EXPECT_CONTAINS(device, "total += expf((X[N * row + c] - mx));");
  EXPECT_CONTAINS(device, "total += __expf((X[N * row + c] - mx));");
  EXPECT_CONTAINS(device, "__fdividef(1.0f, group_sum(total))");
  EXPECT_CONTAINS(device, "for (int32_t c = lane; c < N; c += 32) {");
  const LowerResult hip = lower(checked, GpuTarget::Gfx942);
  ASSERT_TRUE(hip.ok);
  const std::string hdevice = device_part(hip.source);
  EXPECT_CONTAINS(hdevice, "argus_shfl_xor(v, 16 >> s)");
  EXPECT_CONTAINS(hdevice, "__builtin_expf(");
  EXPECT_CONTAINS(hdevice, "__builtin_fmaxf(");
}

TEST(Lower, FastMathExp2IsTheHardwareApproximation) {
  const std::string text = "@kernel(grid=1, block=32)\n"
                           "def plain(X: Tensor((32,), f32)):\n"
                           "    X[thread_id()] = exp2(X[thread_id()])\n"
                           "@kernel(grid=1, block=32, fast_math=True)\n"
                           "def fast(X: Tensor((32,), f32)):\n"
                           "    X[thread_id()] = exp2(X[thread_id()])\n";
  const LowerResult r = lower_text(text, GpuTarget::Sm90);
  ASSERT_TRUE(r.ok);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "X[int(threadIdx.x)] = exp2f(X[int(threadIdx.x)]);");
  EXPECT_CONTAINS(device, "X[int(threadIdx.x)] = argus_exp2_approx(X[int(threadIdx.x)]);");
  EXPECT_CONTAINS(r.source, "ex2.approx.ftz.f32 %0, %1;");
}

// The FA3 example's P fragment (bf16 registers read by the P V wgmma) is
// packed at every wgmma_fence and the wgmma read the packed copy: the
// registers are written before the fence, and ptxas injects no
// warpgroup.arrive for them.
TEST(Lower, RegisterAFragmentsArePackedAtTheFence) {
  const std::string path =
      std::string(ARGUS_SOURCE_DIR) + "/examples/flash_attn_fwd_ws_sm90.argus";
  const LowerResult r = lower(test::check_file(path), GpuTarget::Sm90);
  ASSERT_TRUE(r.ok);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "__nv_bfloat16 p_frag[64] = {};");
  EXPECT_CONTAINS(device, "uint32_t argus_packed_p_frag[32];");
  EXPECT_CONTAINS(device, "argus_register_fence(o_acc); argus_register_fence(s_acc); "
                          "argus_pack_fence(p_frag, argus_packed_p_frag);");
  EXPECT_CONTAINS(device, "\"r\"(argus_packed_p_frag[4 * ks]), \"r\"(argus_packed_p_frag[4 * ks + "
                          "1]), \"r\"(argus_packed_p_frag[4 * ks + 2]), "
                          "\"r\"(argus_packed_p_frag[4 * ks + 3])");
  EXPECT_EQ(device.find("argus_pack2(p_frag"), std::string::npos);
}

TEST(Lower, PoliciesBecomeAttributes) {
  const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/gemm_tiled.argus";
  const LowerResult r = lower(test::check_file(path), GpuTarget::Sm90);
  ASSERT_TRUE(r.ok);
  EXPECT_CONTAINS(r.source, "__maxnreg__(128)");
  const LowerResult h = lower(test::check_file(path), GpuTarget::Gfx942);
  ASSERT_TRUE(h.ok);
  EXPECT_CONTAINS(h.source, "amdgpu_flat_work_group_size(1, 256)");
  EXPECT_CONTAINS(h.source, "amdgpu_num_vgpr(128)");
}

TEST(Lower, LocalsDeclaredWhereAllUsesSeeThem) {
  // `idx` is assigned in two loops and read in both: one declaration at the top.
  const LowerResult r = lower_text(R"(
@kernel(grid=1, block=32)
def k(X: Tensor((64,), f32)):
    for a in range(0, 2):
        idx = thread_id() + 32 * a
        X[idx] = 1.0
    for b in range(0, 2):
        idx = thread_id() + 32 * b
        X[idx] += 1.0
    total: f32 = 0.0
    for c in range(0, 2):
        total += X[c]
    X[0] = total
)",
                                   GpuTarget::Sm90);
  const std::string device = device_part(r.source);
  EXPECT_CONTAINS(device, "  int32_t idx;\n");
  EXPECT_CONTAINS(device, "idx = 32 * a + int(threadIdx.x);");
  EXPECT_CONTAINS(device, "float total = 0.0f;");
  EXPECT_CONTAINS(device, "X[idx] += 1.0f;");
}

TEST(Lower, UnsupportedConstructsAreDiagnosed) {
  const LowerResult r = lower_text(R"(
@kernel(grid=1, block=32)
def k(X: Tensor((64,), f32)):
    s = make_shared((64,), f32, layout=make_layout((8, 8), (1, 8)))
    s[thread_id()] = X[thread_id()]
    X[thread_id()] = s[thread_id()]
)",
                                   GpuTarget::Sm90, false);
  if (!r.ok) {
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics.front().code, codes::kUnsupported);
  }
}

TEST(Lower, TargetNames) {
  EXPECT_EQ(parse_target("sm90"), GpuTarget::Sm90);
  EXPECT_EQ(parse_target("gfx942"), GpuTarget::Gfx942);
  EXPECT_FALSE(parse_target("sm80").has_value());
  EXPECT_EQ(source_file_name(GpuTarget::Gfx942), "kernels.hip");
}

} // namespace
} // namespace argus::codegen
