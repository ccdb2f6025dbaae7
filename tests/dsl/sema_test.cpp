// Semantic analysis: names, types, shapes, calls, kernel decorators.
#include "argus/dsl/driver.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace argus {
namespace {

// These tests are about the front end; the kernels are not meant to be
// race-free or in bounds, so the invariant checker stays off.
FrontendOptions front_end_only() {
  FrontendOptions o;
  o.invariants = false;
  return o;
}

struct Found {
  uint32_t line; // 1-based
  std::string code;
  std::string message;
};

std::vector<Found> diagnose(const std::string &text) {
  CheckedFile file = check_source("test.argus", text, front_end_only());
  std::vector<Found> found;
  for (const Diagnostic &d : file.diagnostics)
    found.push_back({d.range.begin.line + 1, d.code, d.message});
  return found;
}

std::string dump(const std::vector<Found> &found) {
  std::string out;
  for (const Found &f : found)
    out += std::to_string(f.line) + ": " + f.code + " " + f.message + "\n";
  return out;
}

// A kernel header with the usual GEMM parameters; `body` is indented by the caller.
std::string kernel(const std::string &body, const std::string &extra_params = "") {
  return "BM = 64\n"
         "@kernel(grid=(cdiv(N, BM), cdiv(M, BM)), block=256)\n"
         "def k(A: Tensor((M, K), bf16), C: Tensor((M, N), f32), M: i32, N: i32, K: i32" +
         extra_params + "):\n" + body;
}

TEST(Sema, CleanKernelHasNoDiagnostics) {
  const auto found = diagnose(kernel("    i = thread_id(0)\n"
                                     "    a = A[i, 0]\n"
                                     "    C[i, 0] = f32(a) * 2.0\n"));
  EXPECT_TRUE(found.empty()) << dump(found);
}

// `P: i32 = num_sms()`: the one runtime default, for an integer kernel
// parameter (a @bench may leave it out: the runner reads the SM count);
// num_sms() anywhere else, on a float or a @device parameter, is E0204.
TEST(Sema, NumSmsIsTheDefaultOfAnIntegerKernelParameterOnly) {
  const auto ok = diagnose("@kernel(grid=cdiv(N, 128), block=128)\n"
                           "def ref(X: Tensor((N,), f32), N: i32, P: i32):\n"
                           "    X[thread_id()] = 1.0\n"
                           "@bench(N=4096, reference=ref)\n"
                           "@kernel(grid=min(P, cdiv(N, 128)), block=128)\n"
                           "def k(X: Tensor((N,), f32), N: i32, P: i32 = num_sms()):\n"
                           "    X[thread_id()] = 1.0\n");
  EXPECT_TRUE(ok.empty()) << dump(ok);
  const auto bad = diagnose("@kernel(grid=num_sms(), block=128)\n"
                            "def k(X: Tensor((N,), f32), N: i32, F: f32 = num_sms(),\n"
                            "      Q: i32 = 132):\n"
                            "    X[thread_id()] = 1.0\n"
                            "@device\n"
                            "def d(P: i32 = num_sms()) -> i32:\n"
                            "    return P\n");
  std::vector<std::string> got;
  for (const Found &f : bad)
    got.push_back(std::to_string(f.line) + " " + f.code);
  EXPECT_EQ(got, (std::vector<std::string>{"1 E0204", "2 E0204", "3 E0204", "6 E0204", "6 E0204"}))
      << dump(bad);
  EXPECT_NE(bad[0].message.find("P: i32 = num_sms()"), std::string::npos) << dump(bad);
  EXPECT_NE(bad[1].message.find("integer parameter only"), std::string::npos) << dump(bad);
}

// wgmma's b_major is "k" (the default) or "mn" (b given as (16, N)); any
// other word, or b of the other shape without it, is an argument error.
TEST(Sema, WgmmaBMajorIsKOrMn) {
  const std::string head = "@kernel(grid=1, block=128, target=\"sm90\")\n"
                           "def k(X: Tensor((4,), f32)):\n"
                           "    acc = make_local((8, 4), f32)\n"
                           "    a = make_shared((64, 16), bf16)\n"
                           "    bt = make_shared((16, 64), bf16)\n";
  const auto ok = diagnose(head + "    nvvm.wgmma_m64k16_bf16_f32(acc, a, bt, b_major=\"mn\")\n");
  EXPECT_TRUE(ok.empty()) << dump(ok);
  const auto word = diagnose(head + "    nvvm.wgmma_m64k16_bf16_f32(acc, a, bt, b_major=\"t\")\n");
  ASSERT_FALSE(word.empty());
  EXPECT_NE(dump(word).find("b_major is \"k\""), std::string::npos) << dump(word);
  const auto shape = diagnose(head + "    nvvm.wgmma_m64k16_bf16_f32(acc, a, bt)\n");
  ASSERT_FALSE(shape.empty());
  EXPECT_NE(dump(shape).find("(N, 16)"), std::string::npos) << dump(shape);
}

TEST(Sema, TypesAndShapesAreRecorded) {
  CheckedFile file = check_source("t.argus",
                                  kernel("    s = make_shared((2, BM, 32), bf16)\n"
                                         "    t = s[1]\n"
                                         "    x = A[0, 0]\n"
                                         "    C[0, 0] = f32(x) + f32(t[0, 0])\n"),
                                  front_end_only());
  ASSERT_FALSE(file.has_errors());
  const sema::FunctionInfo *info = file.sema->function_info("k");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->shared_bytes, 2 * 64 * 32 * 2);
  EXPECT_EQ(info->block, (std::vector<int64_t>{256, 1, 1}));
  ASSERT_EQ(info->grid.size(), 2u);
  // The tensor parameter's shape names the scalar parameters symbolically.
  EXPECT_EQ(info->params[0]->type.str(), "global Tensor((M, K), bf16)");
  const ast::Stmt &second = *file.module.functions[0].body[1];
  const sema::Type *t = file.sema->type_of(*second.value);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->str(), "shared Tensor((64, 32), bf16)");
}

TEST(Sema, UndefinedNameAndUseBeforeAssignment) {
  const auto found = diagnose(kernel("    y = x + 1\n"
                                     "    x = 2\n"
                                     "    C[0, 0] = f32(undefined_thing + y + x)\n"));
  ASSERT_EQ(found.size(), 2u) << dump(found);
  EXPECT_EQ(found[0].code, "E0301");
  EXPECT_EQ(found[0].line, 4u);
  EXPECT_NE(found[0].message.find("before it is assigned"), std::string::npos);
  EXPECT_EQ(found[1].code, "E0301");
  EXPECT_EQ(found[1].line, 6u);
}

TEST(Sema, MixedFloatDtypesNeedExplicitConversion) {
  const auto found = diagnose(kernel("    C[0, 0] = A[0, 0] * C[0, 1]\n"));
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0401");
  EXPECT_NE(found[0].message.find("bf16 and f32"), std::string::npos);
}

TEST(Sema, IndexCountAndConstantBounds) {
  const auto found = diagnose(kernel("    s = make_shared((4, 8), f32)\n"
                                     "    s[0, 0] = 1.0\n"
                                     "    C[0, 0] = s[4, 0] + s[0, 0, 0]\n"));
  ASSERT_EQ(found.size(), 2u) << dump(found);
  EXPECT_EQ(found[0].code, "E0405"); // sorted by column: s[4, 0] comes first
  EXPECT_EQ(found[1].code, "E0404");
}

TEST(Sema, UnknownPolicyListsTheKnownOnes) {
  const auto found = diagnose("@kernel(grid=1, block=32, unroll_everything=True)\n"
                              "def k(A: Tensor((32,), f32)):\n"
                              "    A[thread_id()] = 0.0\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0701");
  EXPECT_NE(found[0].message.find("launch_bounds, min_blocks_per_sm, waves_per_eu"),
            std::string::npos);
}

TEST(Sema, BlockSizeIsLimited) {
  const auto found = diagnose("@kernel(grid=1, block=(64, 32))\n"
                              "def k(A: Tensor((32,), f32)):\n"
                              "    A[0] = 0.0\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0702");
  EXPECT_NE(found[0].message.find("2048"), std::string::npos);
}

TEST(Sema, IntrinsicOperandShapesAreChecked) {
  const auto found = diagnose("@kernel(grid=1, block=32)\n"
                              "def k(C: Tensor((4,), f32)):\n"
                              "    a = make_local((8,), bf16)\n"
                              "    b = make_local((8,), bf16)\n"
                              "    c = full((4,), 0.0, f32)\n"
                              "    c = nvvm.mma_m16n8k16_bf16_f32(a, b, c)\n"
                              "    C[0] = c[0]\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0603");
  EXPECT_NE(found[0].message.find("local (4,) bf16 fragment"), std::string::npos);
}

TEST(Sema, UnknownIntrinsicListsKnownOnes) {
  const auto found = diagnose("@kernel(grid=1, block=32)\n"
                              "def k(C: Tensor((4,), f32)):\n"
                              "    nvvm.mma_m16n8k8_bf16(C)\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0601");
  EXPECT_NE(found[0].message.find("mma_m16n8k16_bf16_f32"), std::string::npos);
}

TEST(Sema, MixedTargetsInOneKernel) {
  const auto found = diagnose("@kernel(grid=1, block=64)\n"
                              "def k(C: Tensor((4,), f32)):\n"
                              "    nvvm.cp_async_4(make_shared((4,), f32)[0], C[0])\n"
                              "    amdgpu.s_setprio(1)\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0705");
  CheckedFile file = check_source("t.argus",
                                  "@kernel(grid=1, block=64)\n"
                                  "def k(C: Tensor((4,), f32)):\n"
                                  "    amdgpu.s_setprio(1)\n",
                                  front_end_only());
  EXPECT_EQ(file.sema->functions[0].target, sema::Target::Gfx942);
}

TEST(Sema, ConstantFoldingAndLetConstants) {
  CheckedFile file = check_source("t.argus",
                                  "BM = 64\nHALF = BM // 2 + cdiv(7, 2) - max(1, 2)\n"
                                  "@kernel(grid=1, block=HALF)\n"
                                  "def k(C: Tensor((4,), f32)):\n"
                                  "    W = HALF * 2\n"
                                  "    s = make_shared((W,), f32)\n"
                                  "    s[0] = 0.0\n"
                                  "    C[0] = s[0]\n",
                                  front_end_only());
  ASSERT_FALSE(file.has_errors()) << file.diagnostics[0].message;
  EXPECT_EQ(file.sema->functions[0].block[0], 32 + 4 - 2);
  EXPECT_EQ(file.sema->functions[0].shared_bytes, 68 * 4);
}

TEST(Sema, DivisionByZeroInConstants) {
  const auto found =
      diagnose("X = 4 // 0\n@kernel(grid=1, block=32)\ndef k(C: Tensor((4,), f32)):\n"
               "    C[0] = 0.0\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0502");
}

TEST(Sema, RecursionIsReported) {
  const auto found = diagnose("@device\ndef f(x: i32) -> i32:\n    return g(x)\n"
                              "@device\ndef g(x: i32) -> i32:\n    return f(x - 1)\n"
                              "@kernel(grid=1, block=32)\ndef k(C: Tensor((4,), i32)):\n"
                              "    C[0] = f(1)\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0205");
}

TEST(Sema, DeviceCallArguments) {
  const auto found = diagnose("@device\ndef sq(x: f32) -> f32:\n    return x * x\n"
                              "@kernel(grid=1, block=32)\ndef k(C: Tensor((4,), f32)):\n"
                              "    C[0] = sq(1.0, 2.0)\n"
                              "    C[1] = sq(C)\n");
  ASSERT_EQ(found.size(), 2u) << dump(found);
  EXPECT_EQ(found[0].code, "E0602");
  EXPECT_EQ(found[1].code, "E0603");
}

TEST(Sema, BenchChecksSizesAndReference) {
  const auto found = diagnose("@bench(M=128, Q=3, reference=nothing)\n"
                              "@kernel(grid=1, block=32)\n"
                              "def k(C: Tensor((M, N), f32), M: i32, N: i32):\n"
                              "    C[0, 0] = 0.0\n");
  std::vector<std::string> codes;
  for (const Found &f : found)
    codes.push_back(f.code);
  EXPECT_EQ(codes, (std::vector<std::string>{"E0704", "E0704", "E0704"})) << dump(found);
}

// The runner runs a reference on the kernel's own buffers and sizes: a
// reference kernel with other parameters, or a builtin the runner does not
// have, is an error here rather than a failed run on the GPU host.
TEST(Sema, BenchReferencesTheRunnerCanRun) {
  const auto found = diagnose("@kernel(grid=1, block=32)\n"
                              "def r(C: Tensor((M,), f32), M: i32):\n"
                              "    C[0] = 0.0\n"
                              "@kernel(grid=1, block=32)\n"
                              "def same(C: Tensor((M, M), f32), M: i32):\n"
                              "    C[0, 0] = 1.0\n"
                              "@bench(M=128, reference=r)\n"
                              "@bench(M=64, reference=same)\n"
                              "@bench(M=32, reference=\"softmax\")\n"
                              "@bench(M=16, reference=\"matmul\")\n"
                              "@kernel(grid=1, block=32)\n"
                              "def k(C: Tensor((M, M), f32), M: i32):\n"
                              "    C[0, 0] = 0.0\n");
  ASSERT_EQ(found.size(), 2u) << dump(found);
  EXPECT_EQ(found[0].code, "E0704");
  EXPECT_NE(found[0].message.find("must take the same parameters"), std::string::npos);
  EXPECT_EQ(found[0].line, 7u);
  EXPECT_EQ(found[1].code, "E0704");
  EXPECT_NE(found[1].message.find("unknown builtin reference 'softmax'; the runner has matmul, "
                                  "grouped_matmul, attention, attention_causal"),
            std::string::npos)
      << found[1].message;
}

// before= names kernels the runner launches first on the same buffers: each
// must be a kernel of the file with the same parameters, never the kernel itself.
TEST(Sema, BenchBeforeKernelsTakeTheSameParameters) {
  const auto found = diagnose("@kernel(grid=1, block=32)\n"
                              "def zero(C: Tensor((M, M), f32), M: i32):\n"
                              "    C[0, 0] = 0.0\n"
                              "@kernel(grid=1, block=32)\n"
                              "def other(C: Tensor((M,), f32), M: i32):\n"
                              "    C[0] = 0.0\n"
                              "@bench(M=64, reference=zero, before=(zero, other, k, nothing))\n"
                              "@kernel(grid=1, block=32)\n"
                              "def k(C: Tensor((M, M), f32), M: i32):\n"
                              "    atomic_add(C[0, 0], 1.0)\n");
  ASSERT_EQ(found.size(), 3u) << dump(found);
  EXPECT_NE(found[0].message.find("'other' must take the same parameters as 'k'"),
            std::string::npos);
  EXPECT_NE(found[1].message.find("cannot run before itself"), std::string::npos);
  EXPECT_NE(found[2].message.find("before= names kernels of this file"), std::string::npos);
  for (const auto &d : found)
    EXPECT_EQ(d.code, "E0704");
}

// A warp is 32 lanes on sm90 and a wavefront 64 on gfx942: a constant lane of
// 32 or more is an error unless the kernel is gfx942's alone (an amdgpu.*
// intrinsic), and a @device function's shuffle is reported once.
TEST(Sema, ShuffleLanesFitTheWarpOfEveryTarget) {
  const auto found = diagnose("@device\n"
                              "def half_sum(v: f32) -> f32:\n"
                              "    return v + shuffle_xor(v, 32)\n"
                              "@kernel(grid=1, block=64)\n"
                              "def both(X: Tensor((64,), f32)):\n"
                              "    t = thread_id()\n"
                              "    X[t] = half_sum(X[t]) + shuffle_xor(X[t], 16)\n"
                              "@kernel(grid=1, block=64)\n"
                              "def again(X: Tensor((64,), f32)):\n"
                              "    t = thread_id()\n"
                              "    X[t] = half_sum(X[t]) + shuffle_down(X[t], 48)\n");
  ASSERT_EQ(found.size(), 2u) << dump(found);
  EXPECT_EQ(found[0].code, "E0603");
  EXPECT_EQ(found[0].line, 3u);
  EXPECT_NE(found[0].message.find("outside a 32-lane warp on sm90"), std::string::npos)
      << found[0].message;
  EXPECT_EQ(found[1].line, 11u);
  const auto amd = diagnose("@kernel(grid=1, block=64)\n"
                            "def wave(X: Tensor((64,), f32)):\n"
                            "    t = thread_id()\n"
                            "    X[t] = X[t] + shuffle_xor(X[t], 32)\n"
                            "    amdgpu.s_setprio(1)\n");
  for (const Found &f : amd)
    EXPECT_NE(f.code, "E0603") << dump(amd);
}

// Votes and syncwarp group a warp's lanes (32 on sm90, 64 on gfx942): in a
// kernel built for both targets with more than 32 threads per block they are
// E0603; a declared target or a block of at most 32 threads is fine. A
// declared target must be a known one and agree with the intrinsics used.
TEST(Sema, WarpGroupsNeedOneTargetOrOneWarp) {
  const auto both = diagnose("@kernel(grid=1, block=64)\n"
                             "def v(Y: Tensor((64,), u64)):\n"
                             "    syncwarp()\n"
                             "    Y[thread_id()] = ballot(thread_id() < 3)\n");
  ASSERT_EQ(both.size(), 2u) << dump(both);
  for (const Found &f : both) {
    EXPECT_EQ(f.code, "E0603");
    EXPECT_NE(f.message.find("32 on sm90, 64 on gfx942"), std::string::npos) << f.message;
  }
  EXPECT_TRUE(diagnose("@kernel(grid=1, block=64, target=\"sm90\")\n"
                       "def v(Y: Tensor((64,), u64)):\n"
                       "    Y[thread_id()] = ballot(thread_id() < 3)\n")
                  .empty());
  EXPECT_TRUE(diagnose("@kernel(grid=1, block=32)\n"
                       "def v(Y: Tensor((32,), i32)):\n"
                       "    Y[thread_id()] = i32(any_sync(thread_id() < 3))\n")
                  .empty());
  const auto bad = diagnose("@kernel(grid=1, block=32, target=\"sm91\")\n"
                            "def v(Y: Tensor((32,), f32)):\n"
                            "    Y[thread_id()] = 0.0\n"
                            "@kernel(grid=1, block=32, target=\"gfx942\")\n"
                            "def w(Y: Tensor((32,), f32)):\n"
                            "    nvvm.cp_async_4(Y[thread_id()], Y[thread_id()])\n");
  ASSERT_GE(bad.size(), 2u) << dump(bad);
  EXPECT_EQ(bad[0].code, "E0603");
  EXPECT_NE(bad[0].message.find("target is \"sm90\" or \"gfx942\""), std::string::npos);
  bool mixed = false;
  for (const Found &f : bad)
    mixed =
        mixed || (f.code == "E0705" && f.message.find("declared for gfx942") != std::string::npos);
  EXPECT_TRUE(mixed) << dump(bad);
}

// Atomics take one element of global or shared memory and a value of its type.
TEST(Sema, AtomicsTakeAnElementOfGlobalOrSharedMemory) {
  const auto found = diagnose("@kernel(grid=1, block=32)\n"
                              "def k(X: Tensor((32,), f32), Y: Tensor((32,), bf16)):\n"
                              "    t = thread_id()\n"
                              "    r = make_local((4,), f32)\n"
                              "    atomic_add(X[t], 1.0)\n"
                              "    atomic_max(X[t], 1)\n"
                              "    atomic_add(Y[t], bf16(1.0))\n"
                              "    atomic_add(r[0], 1.0)\n"
                              "    atomic_add(X, 1.0)\n"
                              "    atomic_add(X[t], 1.0, scope=\"grid\")\n");
  ASSERT_EQ(found.size(), 5u) << dump(found);
  EXPECT_EQ(found[0].line, 6u); // max of a float
  EXPECT_NE(found[0].message.find("no f32 form"), std::string::npos) << found[0].message;
  EXPECT_EQ(found[1].line, 7u);
  EXPECT_NE(found[1].message.find("no bf16 form"), std::string::npos) << found[1].message;
  EXPECT_NE(found[2].message.find("a register array belongs to one thread"), std::string::npos);
  EXPECT_NE(found[3].message.find("needs one element of a tensor"), std::string::npos);
  EXPECT_NE(found[4].message.find("scope is \"block\""), std::string::npos);
  for (const Found &f : found)
    EXPECT_EQ(f.code, "E0603") << f.message;
}

TEST(Sema, BreakAndContinueNeedALoop) {
  const auto found = diagnose("@kernel(grid=1, block=32)\n"
                              "def k(C: Tensor((32,), f32)):\n"
                              "    t = thread_id()\n"
                              "    for i in range(4):\n"
                              "        if i == t:\n"
                              "            break\n"
                              "        continue\n"
                              "    if t == 0:\n"
                              "        break\n"
                              "    C[t] = 0.0\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0201");
  EXPECT_EQ(found[0].line, 9u);
  EXPECT_NE(found[0].message.find("break outside a loop"), std::string::npos);
}

TEST(Sema, AssumeOnlyInKernelsAndRecorded) {
  CheckedFile file = check_source("t.argus",
                                  "@kernel(grid=1, block=32)\n"
                                  "def k(C: Tensor((M,), f32), M: i32):\n"
                                  "    assume(M % 32 == 0, M > 0)\n"
                                  "    C[0] = 0.0\n",
                                  front_end_only());
  ASSERT_FALSE(file.has_errors());
  EXPECT_EQ(file.sema->functions[0].assumptions.size(), 2u);
  const auto found = diagnose("@device\ndef f(x: i32) -> i32:\n    assume(x > 0)\n    return x\n"
                              "@kernel(grid=1, block=32)\ndef k(C: Tensor((4,), i32)):\n"
                              "    C[0] = f(1)\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0708");
}

TEST(Sema, TagArityMatchesRank) {
  const auto found = diagnose(kernel("    tag(A, (\"m\", \"k\"))\n"
                                     "    tag(C, (\"m\",))\n"
                                     "    tag(C, lambda r, c: {\"m\": r, \"n\": c + thread_id()})\n"
                                     "    assert_tag(A[0, 0], {\"m\": 0, \"k\": 0})\n"
                                     "    C[0, 0] = 0.0\n"));
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0503");
  EXPECT_EQ(found[0].line, 5u);
}

TEST(Sema, ViewsAndVectorAccess) {
  const auto found = diagnose(kernel("    v = view(A, Tensor((M, K // 8, 8), bf16))\n"
                                     "    s = make_shared((BM, 4, 8), bf16)\n"
                                     "    s[0, 0] = v[0, 0]\n"
                                     "    nvvm.cp_async_16(s[1, 1], v[1, 1])\n"
                                     "    nvvm.cp_async_8(s[1, 1], v[1, 1])\n"
                                     "    C[0, 0] = f32(s[0, 0, 0])\n"));
  ASSERT_EQ(found.size(), 2u) << dump(found);
  EXPECT_EQ(found[0].code, "E0603"); // 16-byte views given to an 8-byte copy
  EXPECT_EQ(found[0].line, 8u);
}

TEST(Sema, TooManyParameters) {
  std::string params;
  for (int i = 0; i < 300; ++i)
    params += (i ? ", " : "") + std::string("p") + std::to_string(i) + ": i32";
  const auto found = diagnose("@kernel(grid=1, block=32)\ndef k(" + params + "):\n    pass\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0706");
}

TEST(Sema, IndependentErrorsAreAllReported) {
  const auto found = diagnose(kernel("    a = nope1\n"
                                     "    b = A[0, 0] + C[0, 0]\n"
                                     "    c = make_local((M,), f32)\n"
                                     "    d = thread_id(0) / 2\n"
                                     "    C[0, 0] = bogus(a, b, c, d)\n"));
  std::vector<std::string> codes;
  for (const Found &f : found)
    codes.push_back(f.code);
  EXPECT_EQ(codes, (std::vector<std::string>{"E0301", "E0401", "E0501", "E0402", "E0601"}))
      << dump(found);
}

// Thread-block clusters: at most 8 blocks, sm90 only, and their builtins
// need a kernel that declares one.
TEST(Sema, ClusterIsAtMostEightBlocks) {
  const auto found = diagnose("@kernel(grid=4, block=32, cluster=(4, 4))\n"
                              "def k(A: Tensor((32,), f32)):\n"
                              "    A[0] = 0.0\n");
  ASSERT_EQ(found.size(), 1u) << dump(found);
  EXPECT_EQ(found[0].code, "E0702");
  EXPECT_NE(found[0].message.find("at most 8 blocks"), std::string::npos);
}

TEST(Sema, ClusterBuiltinsNeedACluster) {
  const auto found = diagnose("@kernel(grid=2, block=32)\n"
                              "def k(A: Tensor((64,), f32)):\n"
                              "    A[cluster_rank()] = 0.0\n"
                              "    cluster_sync()\n");
  ASSERT_EQ(found.size(), 2u) << dump(found);
  for (const auto &d : found)
    EXPECT_NE(d.message.find("needs a thread-block cluster"), std::string::npos) << d.message;
}

TEST(Sema, ClusterIsSm90Only) {
  const auto found = diagnose("@kernel(grid=2, block=64, cluster=(2, 1), target=\"gfx942\")\n"
                              "def k(A: Tensor((64,), f32)):\n"
                              "    A[thread_id()] = 0.0\n");
  ASSERT_FALSE(found.empty());
  EXPECT_NE(found[0].message.find("no thread-block clusters"), std::string::npos) << dump(found);
}

TEST(Sema, ClusterKernelIsClean) {
  const auto found = diagnose("@kernel(grid=2, block=32, cluster=2)\n"
                              "def k(A: Tensor((64,), f32)):\n"
                              "    s = make_shared((32,), f32)\n"
                              "    s[thread_id()] = 1.0\n"
                              "    cluster_sync()\n"
                              "    A[cluster_rank() * 32 + thread_id()] = "
                              "nvvm.dsmem_load(s[thread_id()], 1 - cluster_rank())\n"
                              "    cluster_sync()\n");
  EXPECT_TRUE(found.empty()) << dump(found);
}

} // namespace
} // namespace argus
