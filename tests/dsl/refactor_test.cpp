// Knowledge-base refactors (argus::refactor::refactors_at) over the examples,
// the checker corpus and small kernels: each is offered where it applies and
// not elsewhere, and its edited text checks clean with the lint it addresses
// gone or the structure it promises present.
#include "argus/dsl/driver.h"
#include "argus/dsl/refactor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace argus {
namespace {

using refactor::Refactor;

std::string read(const std::string &relative) {
  std::ifstream in(std::string(ARGUS_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CheckedFile front_end(const std::string &text) {
  FrontendOptions options;
  options.invariants = false;
  return check_source("test.argus", text, options);
}

// The range of the first occurrence of `needle` in `text`, on one line.
Range range_of(const std::string &text, const std::string &needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  const SourceFile source("x", text);
  return Range{source.position(at), source.position(at + needle.size())};
}

std::vector<Refactor> at(const CheckedFile &file, const std::string &needle) {
  return refactor::refactors_at(file, range_of(file.source->text(), needle),
                                check::CheckerOptions{});
}

const Refactor *find(const std::vector<Refactor> &refactors, const std::string &id) {
  for (const Refactor &r : refactors)
    if (r.id == id)
      return &r;
  return nullptr;
}

std::string edited(const CheckedFile &file, const Refactor &r) {
  return check::apply_edits(file.source->text(), r.edits, *file.source);
}

// The full check (front end and invariant checker) of a text.
CheckedFile full_check(const std::string &text) { return check_source("edited.argus", text); }

size_t count_code(const CheckedFile &file, const std::string &code) {
  return static_cast<size_t>(std::count_if(file.diagnostics.begin(), file.diagnostics.end(),
                                           [&](const Diagnostic &d) { return d.code == code; }));
}

bool has_errors_or_new(const CheckedFile &file) {
  return std::any_of(file.diagnostics.begin(), file.diagnostics.end(),
                     [](const Diagnostic &d) { return d.severity == Severity::Error; });
}

TEST(RefactorVectorizeCopy, ScalarCopyLoopBecomesViews) {
  const CheckedFile file = front_end(read("tests/checker/corpus/copy_scalar_loop.argus"));
  ASSERT_GT(count_code(full_check(file.source->text()), "W0904"), 0u);
  const auto refactors = at(file, "for v in range");
  const Refactor *r = find(refactors, "vectorize-copy");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kernel, "copy_rows");
  const std::string text = edited(file, *r);
  EXPECT_NE(text.find("Y_v = view(Y, Tensor((M, N // VEC, VEC), bf16))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Y_v[row, thread_id()] = X_v[row, thread_id()]"), std::string::npos) << text;
  EXPECT_EQ(text.find("for v in range"), std::string::npos);
  const CheckedFile after = full_check(text);
  EXPECT_FALSE(has_errors_or_new(after));
  EXPECT_EQ(count_code(after, "W0904"), 0u);
}

TEST(RefactorVectorizeCopy, GlobalToRegisterAndSharedInsideLoops) {
  // Each thread copies 8 contiguous bf16 of a row into shared memory and 4
  // contiguous f32 into a register fragment, one element at a time.
  const std::string text = R"(THREADS = 64
VEC = 8


@kernel(grid=1, block=THREADS)
def stage_rows(X: Tensor((THREADS, 64), bf16), F: Tensor((THREADS, 4), f32), Y: Tensor((THREADS,), f32)):
    tag(X, ("r", "c"))
    s = make_shared((THREADS, 64), bf16)
    frag = make_local((1, 4), f32)
    t = thread_id()
    for rep in range(0, 2):
        for v in range(0, VEC):
            s[t, 8 * rep + v] = X[t, rep * VEC + v]
        for v in range(0, 4):
            frag[0, v] = F[t, v]
    Y[t] = frag[0, 1] + f32(s[t, 3])
)";
  const CheckedFile file = front_end(text);
  ASSERT_FALSE(file.has_errors());
  const auto shared = at(file, "for v in range(0, VEC)");
  const Refactor *r = find(shared, "vectorize-copy");
  ASSERT_NE(r, nullptr);
  std::string out = edited(file, *r);
  EXPECT_NE(out.find("s_v[t, rep] = X_v[t, rep]"), std::string::npos) << out;
  EXPECT_NE(out.find("s_v = view(s, Tensor((THREADS, 64 // VEC, VEC), bf16))"), std::string::npos)
      << out;
  EXPECT_FALSE(has_errors_or_new(full_check(out)));

  const auto local = at(file, "for v in range(0, 4)");
  r = find(local, "vectorize-copy");
  ASSERT_NE(r, nullptr);
  out = edited(file, *r);
  EXPECT_NE(out.find("frag_v[0, 0] = F_v[t, 0]"), std::string::npos) << out;
  EXPECT_FALSE(has_errors_or_new(full_check(out)));
}

TEST(RefactorVectorizeCopy, NotOfferedWhereItDoesNotApply) {
  // Already vectorized.
  const CheckedFile ok = front_end(read("tests/checker/corpus/copy_vector_ok.argus"));
  EXPECT_EQ(find(at(ok, "yv[row"), "vectorize-copy"), nullptr);
  // The tiled example's copies stride by the block, not along a row.
  const CheckedFile tiled = front_end(read("examples/gemm_tiled.argus"));
  EXPECT_EQ(find(at(tiled, "for e in range(0, A_LOADS"), "vectorize-copy"), nullptr);
  // The chunk index would not be exact: the base is not a visible multiple of 8.
  const std::string odd = R"(@kernel(grid=1, block=32)
def odd(X: Tensor((32, 72), bf16), Y: Tensor((32, 72), bf16)):
    t = thread_id()
    for v in range(0, 8):
        Y[t, t + v] = X[t, t + v]
)";
  EXPECT_EQ(find(at(front_end(odd), "for v"), "vectorize-copy"), nullptr);
}

TEST(RefactorPadShared, ConflictingTilePadded) {
  const CheckedFile file = front_end(read("tests/checker/corpus/unpadded_column_read.argus"));
  for (const std::string anchor : {"b_smem = make_shared", "f32(b_smem[tx"}) {
    const auto refactors = at(file, anchor);
    const Refactor *r = find(refactors, "pad-shared");
    ASSERT_NE(r, nullptr) << anchor;
    const std::string text = edited(file, *r);
    EXPECT_NE(text.find("b_smem = make_shared((BN, BK + "), std::string::npos) << text;
    const CheckedFile after = full_check(text);
    EXPECT_FALSE(has_errors_or_new(after));
    EXPECT_EQ(count_code(after, "W0902"), 0u);
  }
  // A tile without a conflict is not padded.
  EXPECT_EQ(find(at(file, "a_smem = make_shared"), "pad-shared"), nullptr);
}

TEST(RefactorDoubleBuffer, TiledExampleGetsTwoStages) {
  const CheckedFile file = front_end(read("examples/gemm_tiled.argus"));
  const auto start = std::chrono::steady_clock::now();
  const auto refactors = at(file, "for kt in range");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("refactors at the K loop of gemm_tiled: %zu in %.3f s\n", refactors.size(), seconds);
  const Refactor *r = find(refactors, "double-buffer");
  ASSERT_NE(r, nullptr);
  const std::string text = edited(file, *r);
  for (const char *part :
       {"a_smem = make_shared((2, BM, BK + PAD), bf16)", "b_smem = make_shared((2, BN, BK + PAD)",
        "stage = kt % 2", "if kt + 1 < K // BK:", "a_smem[(kt + 1) % 2, r, c] = A[m0 + r, k0 + c]",
        "k0 = (kt + 1) * BK", "a_smem[0, r, c]", "a_smem[stage, ty + TY * i, kk]",
        "b_smem[stage, tx + TX * j, kk]"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  // The prefetch comes before the computation of the current tile.
  EXPECT_LT(text.find("(kt + 1) % 2, r, c]"), text.find("a_smem[stage,"));
  const CheckedFile after = full_check(text);
  EXPECT_TRUE(after.diagnostics.empty()) << text;
}

TEST(RefactorDoubleBuffer, ViewsOfTheTilesGetTheStageToo) {
  // The example's tiles shrunk to 64 x 64 for 64 threads: the same views and
  // loops, a quarter of the threads and tiles to check (twice: the candidate
  // and the edited text), which dominated this test (100 s under ASan).
  std::string source = read("examples/gemm_vectorized.argus");
  for (const auto &[from, to] : {std::pair<std::string, std::string>{"BM = 128", "BM = 64"},
                                 {"BN = 128", "BN = 64"},
                                 {"THREADS = 256", "THREADS = 64"}}) {
    ASSERT_NE(source.find(from), std::string::npos) << from;
    source.replace(source.find(from), from.size(), to);
  }
  const CheckedFile file = front_end(source);
  const auto refactors = at(file, "for kt in range");
  const Refactor *r = find(refactors, "double-buffer");
  ASSERT_NE(r, nullptr);
  const std::string text = edited(file, *r);
  EXPECT_NE(text.find("view(a_smem, Tensor((2, BM, ROW // VEC, VEC), bf16))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("a_sv[stage, ty + TY * i, kv]"), std::string::npos) << text;
  EXPECT_TRUE(full_check(text).diagnostics.empty()) << text;
}

TEST(RefactorDoubleBuffer, NotOfferedWhereItDoesNotApply) {
  // Already pipelined with cp.async stages.
  const CheckedFile mma = front_end(read("examples/gemm_mma_sm90.argus"));
  EXPECT_EQ(find(at(mma, "for kt in range"), "double-buffer"), nullptr);
  // Only at the loop header: inside the compute loop nothing is offered.
  const CheckedFile tiled = front_end(read("tests/checker/corpus/tiled_ok.argus"));
  EXPECT_EQ(find(at(tiled, "acc[i, j] += a"), "double-buffer"), nullptr);
  EXPECT_NE(find(at(tiled, "for kt in range"), "double-buffer"), nullptr);
  // The computation reads k0, which the prefetch would already have advanced.
  std::string uses_k0 = read("tests/checker/corpus/tiled_ok.argus");
  const std::string from = "acc[i, j] += a * f32(b_smem[tx + TX * j, kk])";
  uses_k0.replace(uses_k0.find(from), from.size(),
                  "acc[i, j] += a * f32(b_smem[tx + TX * j, kk]) + f32(k0 - k0)");
  const CheckedFile reads_copy = front_end(uses_k0);
  ASSERT_FALSE(reads_copy.has_errors());
  EXPECT_EQ(find(at(reads_copy, "for kt in range"), "double-buffer"), nullptr);
}

TEST(Refactors, NothingOutsideKernelsOrInBrokenFiles) {
  const CheckedFile file = front_end(read("examples/gemm_tiled.argus"));
  EXPECT_TRUE(at(file, "BM = 64").empty());
  const CheckedFile broken = front_end("@kernel(grid=1, block=32)\ndef k(:\n");
  EXPECT_TRUE(refactor::refactors_at(broken, Range{}, check::CheckerOptions{}).empty());
  // Every id is a listed one.
  for (const Refactor &r : at(file, "for kt in range"))
    EXPECT_NE(std::find(refactor::refactor_ids().begin(), refactor::refactor_ids().end(), r.id),
              refactor::refactor_ids().end());
}

} // namespace
} // namespace argus
