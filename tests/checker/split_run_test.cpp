// A run in two halves of its grid (dsl/check/run_outcome.h) is the run of
// one Machine, and is refused where the blocks may meet.
#include "argus/dsl/checker.h"
#include "argus/dsl/driver.h"
#include "run_outcome.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace argus {
namespace {

namespace fs = std::filesystem;

using checker_test::front_end;

void expect_same(const check::detail::RunOutcome &a, const check::detail::RunOutcome &b) {
  EXPECT_EQ(a.visited, b.visited);
  EXPECT_EQ(a.loop_iterations, b.loop_iterations);
  EXPECT_EQ(a.blocks_run, b.blocks_run);
  EXPECT_EQ(a.stopped, b.stopped);
  EXPECT_EQ(a.sampled_blocks, b.sampled_blocks);
  ASSERT_EQ(a.violations.size(), b.violations.size());
  for (size_t i = 0; i < a.violations.size(); ++i) {
    EXPECT_EQ(a.violations[i].kind, b.violations[i].kind);
    EXPECT_EQ(a.violations[i].message, b.violations[i].message);
    EXPECT_EQ(a.violations[i].data, b.violations[i].data);
  }
  ASSERT_EQ(a.bounded_loops.size(), b.bounded_loops.size());
}

// Kernels with violations in several blocks (the first block's is the one
// reported), an output written by every block and checked by assert_covered
// (one element missed), warp-specialized roles, an integer tensor's contents
// and a grid too large to run whole (its sampled blocks in halves): each run
// the checker makes of them, split and whole.
TEST(SplitRunTest, HalvesOfAGridGiveTheRunOfOneMachine) {
  size_t split = 0;
  for (const char *name :
       {"output_not_covered.argus", "ws_pipeline_bugs.argus",
        "guarded_ternary_load_off_by_one.argus", "shift_in_place_blocks.argus",
        "mma_fragments_all_sizes_ok.argus", "bytes_written_twice.argus", "wrong_block_id.argus",
        "tile_stride_blocks.argus", "moe_ws_bugs.argus", "tile_count_sampled.argus"}) {
    const fs::path path = checker_test::kSourceDir / "tests/checker/corpus" / name;
    if (!fs::exists(path))
      continue;
    SCOPED_TRACE(name);
    const CheckedFile file = front_end(name, checker_test::read_file(path));
    ASSERT_FALSE(file.has_errors());
    check::CheckerOptions options;
    for (const check::KernelReport &report : check::check_kernels(file, options)) {
      const sema::FunctionInfo *kernel = file.sema->function_info(report.kernel);
      ASSERT_NE(kernel, nullptr);
      for (const auto &sizes : report.instances) {
        const auto whole = check::detail::run_once(file, *kernel, options, sizes, {});
        const auto halves = check::detail::run_split(file, *kernel, options, sizes, {});
        if (!halves)
          continue;
        ++split;
        expect_same(whole, *halves);
      }
    }
  }
  EXPECT_GE(split, 8u); // 15 when written
}

// Blocks that read what others write (an in-place update), or write one
// element from two halves, may meet: the run is not split.
TEST(SplitRunTest, BlocksThatMayMeetRunWhole) {
  const std::string in_place = "@kernel(grid=cdiv(N, 32), block=32)\n"
                               "def scale(X: Tensor((N,), f32), N: i32):\n"
                               "    i = block_id(0) * 32 + thread_id()\n"
                               "    if i < N:\n"
                               "        X[i] = X[i] * 2.0\n";
  const std::string same_element = "@kernel(grid=4, block=32)\n"
                                   "def last(Y: Tensor((1,), f32)):\n"
                                   "    if thread_id() == 0:\n"
                                   "        Y[0] = 1.0\n";
  const std::string disjoint = "@kernel(grid=4, block=32)\n"
                               "def fill(Y: Tensor((128,), f32)):\n"
                               "    Y[block_id(0) * 32 + thread_id()] = 1.0\n";
  check::CheckerOptions options;
  const auto split_of = [&](const std::string &text, const std::map<std::string, int64_t> &sizes) {
    const CheckedFile file = front_end("k.argus", text);
    EXPECT_FALSE(file.has_errors());
    const sema::FunctionInfo *kernel =
        file.sema->functions.empty() ? nullptr : &file.sema->functions[0];
    EXPECT_NE(kernel, nullptr);
    return kernel ? check::detail::run_split(file, *kernel, options, sizes, {}).has_value() : false;
  };
  EXPECT_FALSE(split_of(in_place, {{"N", 128}}));
  EXPECT_FALSE(split_of(same_element, {}));
  EXPECT_TRUE(split_of(disjoint, {}));
}

} // namespace
} // namespace argus
