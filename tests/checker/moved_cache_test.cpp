// The check cache across edits that move kernels: a kernel whose tokens did
// not change, only their lines, is served from the cache with every position
// shifted, and the result is exactly what a fresh check of the new text gives.
#include "argus/dsl/checker.h"
#include "argus/dsl/driver.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace argus {
namespace {

namespace fs = std::filesystem;
using checker_test::kSourceDir;
using checker_test::read_file;

CheckedFile front_end(const std::string &text) {
  FrontendOptions o;
  o.invariants = false;
  return check_source("moved.argus", text, o);
}

nlohmann::json range_json(const Range &r) {
  return {r.begin.line, r.begin.column, r.end.line, r.end.column};
}

// Everything a report says about the text (all but whether it came from the cache).
nlohmann::json report_json(const check::KernelReport &r) {
  nlohmann::json violations = nlohmann::json::array();
  for (const check::Violation &v : r.violations) {
    nlohmann::json related = nlohmann::json::array();
    for (const RelatedInformation &i : v.related)
      related.push_back({range_json(i.range), i.message});
    violations.push_back({{"kind", v.kind},
                          {"check", v.check},
                          {"range", range_json(v.range)},
                          {"message", v.message},
                          {"data", v.data},
                          {"related", related},
                          {"warning", v.warning}});
  }
  nlohmann::json segments = nlohmann::json::array();
  for (const Range &s : r.segments)
    segments.push_back(range_json(s));
  return {{"kernel", r.kernel},
          {"violations", violations},
          {"instances", r.instances},
          {"bounded_loops", r.bounded_loops},
          {"blocks_run", r.blocks_run},
          {"proofs", r.proofs},
          {"proof_failures", r.proof_failures},
          {"interrupted", r.interrupted},
          {"segments", segments}};
}

nlohmann::json reports_json(const std::vector<check::KernelReport> &reports) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto &r : reports)
    out.push_back(report_json(r));
  return out;
}

// What an uncached check of `text` gives.
nlohmann::json fresh(const std::string &text, const check::CheckerOptions &options) {
  return reports_json(check::check_kernels(front_end(text), options));
}

// Two kernels with planted bugs and verified fixes: gemm_tiled races (no
// barrier after the copy; the fix inserts one), gemm_padded has a bank
// conflict (the fix pads the tile). Both use the same module constants.
std::string two_buggy_kernels() {
  const std::string racy =
      read_file(kSourceDir / "tests/checker/corpus/missing_barrier_after_copy.argus");
  std::string conflict = read_file(kSourceDir / "tests/checker/corpus/unpadded_column_read.argus");
  conflict = conflict.substr(conflict.find("@kernel"));
  conflict.replace(conflict.find("def gemm_tiled"), 14, "def gemm_padded");
  return racy + "\n\n" + conflict;
}

size_t line_start_of(const std::string &text, const std::string &needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return at == std::string::npos ? 0 : text.rfind('\n', at) + 1;
}

size_t violations_with_fix(const check::KernelReport &r) {
  size_t n = 0;
  for (const auto &v : r.violations)
    n += v.data.contains("edits") ? 1 : 0;
  return n;
}

TEST(MovedCacheTest, LinesInsertedAboveTheSecondKernelReuseItsReportShifted) {
  const std::string text = two_buggy_kernels();
  check::CheckCache cache;
  check::CheckerOptions options;
  const auto before = check::check_kernels(front_end(text), options, &cache);
  ASSERT_EQ(before.size(), 2u);
  ASSERT_EQ(before[1].kernel, "gemm_padded");
  ASSERT_GT(violations_with_fix(before[0]), 0u); // the barrier fix
  ASSERT_GT(violations_with_fix(before[1]), 0u); // the padding fix
  EXPECT_EQ(cache.stats().proved, 2);

  std::string moved = text;
  moved.insert(moved.rfind("@kernel"), "# three lines\n\n\n"); // above gemm_padded
  const auto after = check::check_kernels(front_end(moved), options, &cache);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_TRUE(after[0].from_cache);
  EXPECT_TRUE(after[1].from_cache);
  const auto stats = cache.stats();
  EXPECT_EQ(stats.proved, 2); // nothing new proved
  EXPECT_EQ(stats.reused, 2);
  EXPECT_EQ(stats.moved, 1); // gemm_padded moved, gemm_tiled did not
  EXPECT_EQ(after[1].violations.front().range.begin.line,
            before[1].violations.front().range.begin.line + 3);
  EXPECT_EQ(reports_json(after), fresh(moved, options));
}

TEST(MovedCacheTest, LinesAddedInsideTheFirstKernelReproveItAndShiftTheSecond) {
  const std::string text = two_buggy_kernels();
  check::CheckCache cache;
  check::CheckerOptions options;
  check::check_kernels(front_end(text), options, &cache);
  // Two statements more in gemm_tiled: its tokens change, gemm_padded moves down.
  std::string edited = text;
  edited.insert(line_start_of(edited, "    tid = thread_id()"),
                "    half = BK // 2\n    quarter = half // 2\n");
  const auto after = check::check_kernels(front_end(edited), options, &cache);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_FALSE(after[0].from_cache);
  EXPECT_TRUE(after[1].from_cache);
  const auto stats = cache.stats();
  EXPECT_EQ(stats.proved, 3);
  EXPECT_EQ(stats.reused, 1);
  EXPECT_EQ(stats.moved, 1);
  EXPECT_EQ(reports_json(after), fresh(edited, options));
}

TEST(MovedCacheTest, AChangeInsideAKernelReprovesIt) {
  const std::string text = two_buggy_kernels();
  check::CheckCache cache;
  check::CheckerOptions options;
  const auto before = check::check_kernels(front_end(text), options, &cache);
  // The padding fix applied by hand: same lines, other tokens.
  std::string edited = text;
  const size_t second = edited.find("def gemm_padded");
  edited.replace(edited.find("make_shared((BN, BK), bf16)", second), 27,
                 "make_shared((BN, BK + 2), bf16)");
  const auto after = check::check_kernels(front_end(edited), options, &cache);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_TRUE(after[0].from_cache);
  EXPECT_FALSE(after[1].from_cache);
  EXPECT_EQ(cache.stats().proved, 3);
  EXPECT_EQ(violations_with_fix(after[1]), 0u); // the conflict is gone
  EXPECT_NE(report_json(after[1]), report_json(before[1]));
  EXPECT_EQ(reports_json(after), fresh(edited, options));
  // A token moved sideways inside a line re-proves too.
  std::string sideways = edited;
  sideways.replace(sideways.find("    acc = full", second), 14, "    acc =  full");
  const auto again = check::check_kernels(front_end(sideways), options, &cache);
  EXPECT_FALSE(again[1].from_cache);
}

// @device functions and constants move on their own: each part of what a
// kernel depends on is shifted by its own displacement.
// A kernel's key holds only the constants and @device functions it names
// (and those they name): changing one that another kernel alone uses leaves
// this kernel's report in the cache; changing one it reaches through another
// constant re-proves it.
TEST(DependencyCacheTest, OnlyTheKernelsThatNameAChangedConstantOrFunctionAreReproved) {
  const std::string text = "A = 32\n"
                           "B = A * 2\n"
                           "C = 64\n"
                           "\n"
                           "@device\n"
                           "def twice(x: f32) -> f32:\n"
                           "    return x * 2.0\n"
                           "\n"
                           "@kernel(grid=1, block=B)\n"
                           "def uses_b(X: Tensor((B,), f32), Y: Tensor((B,), f32)):\n"
                           "    t = thread_id()\n"
                           "    Y[t] = twice(X[t])\n"
                           "\n"
                           "@kernel(grid=1, block=C)\n"
                           "def uses_c(X: Tensor((C,), f32), Y: Tensor((C,), f32)):\n"
                           "    t = thread_id()\n"
                           "    Y[t] = X[t]\n";
  check::CheckCache cache;
  check::CheckerOptions options;
  const auto first = check::check_kernels(front_end(text), options, &cache);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(cache.stats().proved, 2);

  std::string c_changed = text;
  c_changed.replace(c_changed.find("C = 64"), 6, "C = 96");
  auto after = check::check_kernels(front_end(c_changed), options, &cache);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_TRUE(after[0].from_cache);  // uses_b never names C
  EXPECT_FALSE(after[1].from_cache); // uses_c does
  EXPECT_EQ(cache.stats().proved, 3);
  EXPECT_EQ(reports_json(after), fresh(c_changed, options));

  std::string a_changed = c_changed;
  a_changed.replace(a_changed.find("A = 32"), 6, "A = 16");
  after = check::check_kernels(front_end(a_changed), options, &cache);
  EXPECT_FALSE(after[0].from_cache); // through B = A * 2
  EXPECT_TRUE(after[1].from_cache);
  EXPECT_EQ(cache.stats().proved, 4);

  std::string device_changed = a_changed;
  device_changed.replace(device_changed.find("x * 2.0"), 7, "x * 3.0");
  after = check::check_kernels(front_end(device_changed), options, &cache);
  EXPECT_FALSE(after[0].from_cache); // calls twice
  EXPECT_TRUE(after[1].from_cache);
  EXPECT_EQ(cache.stats().proved, 5);
  EXPECT_EQ(reports_json(after), fresh(device_changed, options));
}

TEST(MovedCacheTest, DeviceFunctionsAndConstantsMovedApartAreShiftedEachByItsOwnLines) {
  const std::string text = read_file(kSourceDir / "examples/softmax.argus");
  check::CheckCache cache;
  check::CheckerOptions options;
  check::check_kernels(front_end(text), options, &cache);
  std::string moved = text;
  moved.insert(moved.find("@device\ndef group_sum"), "\n\n");
  moved.insert(line_start_of(moved, "ROWS = 8"), "# rows\n");
  moved.insert(0, "# top\n");
  const auto after = check::check_kernels(front_end(moved), options, &cache);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_TRUE(after[0].from_cache);
  EXPECT_TRUE(after[1].from_cache);
  EXPECT_EQ(cache.stats().moved, 2);
  EXPECT_EQ(reports_json(after), fresh(moved, options));
}

// Every kernel of the corpus and the examples, moved down by lines added at
// the top of its file, is reused and equals a fresh check. A small unroll
// bound makes loops bounded (their "line N" text moves too) and keeps it quick.
// Not the long kernel families (flash attention, MoE, warp-specialized
// GEMMs): 10-28 s each here, twice the check of a file whose constructs the
// shorter files already move (the other sweeps still take them).
class MovedFileTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(MovedFileTest, LinesAtTheTopReuseEveryKernelExactly) {
  const std::string text = read_file(GetParam());
  check::CheckCache cache;
  check::CheckerOptions options;
  options.unroll_bound = 4;
  options.max_blocks = 4;
  const auto before = check::check_kernels(front_end(text), options, &cache);
  ASSERT_FALSE(before.empty());
  const std::string moved = "# one\n\n# three\n" + text;
  const auto after = check::check_kernels(front_end(moved), options, &cache);
  ASSERT_EQ(after.size(), before.size());
  for (const auto &r : after)
    EXPECT_TRUE(r.from_cache) << r.kernel;
  EXPECT_EQ(cache.stats().moved, static_cast<int64_t>(before.size()));
  EXPECT_EQ(reports_json(after), fresh(moved, options));
}

std::vector<fs::path> moved_files() {
  std::vector<fs::path> out;
  for (const fs::path &f : checker_test::sweep_files())
    if (!checker_test::is_long_kernel_file(f))
      out.push_back(f);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Files, MovedFileTest, ::testing::ValuesIn(moved_files()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return checker_test::test_name(info.param);
                         });

} // namespace
} // namespace argus
