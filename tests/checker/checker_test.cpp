// The checker's machinery beyond the corpus markers: both proof paths agree,
// replay rejects what did not happen, the per-kernel cache, time limits.
#include "argus/dsl/checker.h"
#include "argus/dsl/codes.h"
#include "argus/dsl/driver.h"
#include "contents.h"
#include "instances.h"
#include "machine.h"
#include "symbolic.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace argus {
namespace {

namespace fs = std::filesystem;
using checker_test::read_file;

using checker_test::front_end;

std::vector<fs::path> kernels_to_compare() { return checker_test::sweep_files(); }

// The exhaustive path (the interpreter at a size instance) and the Z3 path
// (every provable index at the same sizes) give the same bounds verdicts.
class VerdictTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(VerdictTest, InterpreterAndZ3AgreeOnBoundsAtEachInstance) {
  const CheckedFile file = front_end(GetParam().filename().string(), read_file(GetParam()));
  ASSERT_FALSE(file.has_errors());
  check::CheckerOptions options;
  options.symbolic = false;
  options.fixes = false;
  options.lints = false;
  size_t compared = 0;
  for (const check::KernelReport &report : check::check_kernels(file, options)) {
    const sema::FunctionInfo *kernel = file.sema->function_info(report.kernel);
    ASSERT_NE(kernel, nullptr);
    for (const auto &sizes : report.instances) {
      const auto z3 = check::detail::bounds_verdicts_at(file, *kernel, sizes, 10000);
      check::detail::Machine machine(file, *kernel, options);
      machine.run(sizes);
      std::set<std::pair<uint32_t, uint32_t>> concrete;
      for (const check::Violation &v : machine.take_violations())
        if (v.kind == "out-of-bounds")
          concrete.insert({v.range.begin.line, v.range.begin.column});
      for (const auto &[site, bad] : z3) {
        ++compared;
        EXPECT_EQ(bad, concrete.count(site) > 0)
            << GetParam().filename() << ":" << site.first + 1 << ":" << site.second + 1
            << ": Z3 says " << (bad ? "out of bounds" : "in bounds") << " at "
            << nlohmann::json(sizes).dump();
      }
    }
  }
  // Every file of the corpus and the examples indexes global tensors in closed
  // form, but the persistent GEMMs: their tile order divides a block's tile
  // index by the height of its group, which depends on M (their bounds are
  // decided at the instances, and the summary says so).
  if (GetParam().filename().string().find("persistent") == std::string::npos) {
    EXPECT_GT(compared, 0u) << GetParam().filename();
  }
}

INSTANTIATE_TEST_SUITE_P(Files, VerdictTest, ::testing::ValuesIn(kernels_to_compare()),
                         [](const ::testing::TestParamInfo<fs::path> &info) {
                           return checker_test::test_name(info.param);
                         });

const char *kRace = "THREADS = 64\n"
                    "@kernel(grid=1, block=THREADS)\n"
                    "def racy(X: Tensor((THREADS,), f32), Y: Tensor((THREADS,), f32)):\n"
                    "    s = make_shared((THREADS,), f32)\n"
                    "    t = thread_id()\n"
                    "    s[t] = X[t]\n"
                    "    Y[t] = s[(t + 1) % THREADS]\n";

TEST(ReplayTest, ACounterexampleReplaysAndATamperedOneDoesNot) {
  const CheckedFile file = check_source("racy.argus", kRace);
  ASSERT_EQ(file.diagnostics.size(), 1u);
  const Diagnostic &d = file.diagnostics[0];
  EXPECT_EQ(d.code, codes::kDataRace);
  EXPECT_EQ(d.range.begin.line, 6u);
  EXPECT_EQ(d.data["thread"]["thread"][0], 0);
  EXPECT_EQ(d.data["other_thread"]["thread"][0], 1);
  EXPECT_TRUE(check::replay(file, "racy", d.data));
  nlohmann::json other_thread = d.data;
  other_thread["thread"]["thread"][0] = 5; // thread 0 is the first that races
  EXPECT_FALSE(check::replay(file, "racy", other_thread));
  nlohmann::json other_place = d.data;
  other_place["program_point"]["line"] = 5;
  EXPECT_FALSE(check::replay(file, "racy", other_place));
  nlohmann::json other_kind = d.data;
  other_kind["kind"] = "out-of-bounds";
  EXPECT_FALSE(check::replay(file, "racy", other_kind));
  EXPECT_FALSE(check::replay(file, "no_such_kernel", d.data));
  EXPECT_FALSE(check::replay(file, "racy", nlohmann::json::array()));
}

TEST(ReplayTest, TheBarrierFixIsTheInsertedSyncthreads) {
  const CheckedFile file = check_source("racy.argus", kRace);
  ASSERT_EQ(file.diagnostics.size(), 1u);
  auto edits = check::fix_edits(file.diagnostics[0].data, "argus.fix.insert-barrier");
  ASSERT_TRUE(edits.has_value());
  const std::string fixed = check::apply_edits(file.source->text(), *edits, *file.source);
  EXPECT_NE(fixed.find("    s[t] = X[t]\n    syncthreads()\n    Y[t] = s[(t + 1) % THREADS]\n"),
            std::string::npos)
      << fixed;
  EXPECT_TRUE(check_source("racy.argus", fixed).diagnostics.empty());
  EXPECT_FALSE(check::fix_edits(file.diagnostics[0].data, "argus.fix.no-such").has_value());
}

// Blocks of a cluster: the verified fixes insert cluster_sync(), before the
// read of the peer's shared memory, and at the kernel's end.
TEST(ReplayTest, TheClusterFixesAreInsertedClusterSyncs) {
  const std::string head = "@kernel(grid=2, block=32, cluster=(2, 1))\n"
                           "def swap(X: Tensor((64,), f32), Y: Tensor((64,), f32)):\n"
                           "    s = make_shared((32,), f32)\n"
                           "    t = thread_id()\n"
                           "    s[t] = X[block_id(0) * 32 + t]\n";
  const std::string read =
      "    Y[block_id(0) * 32 + t] = nvvm.dsmem_load(s[t], 1 - cluster_rank())\n";
  const std::string sync = "    cluster_sync()\n";
  // {source, the check it fails, the fixed source}
  const std::array<std::array<std::string, 3>, 2> cases = {{
      {head + read + sync, "read-write", head + sync + read + sync},
      {head + sync + read, "cluster-exit", head + sync + read + sync},
  }};
  for (const auto &[source, check, want] : cases) {
    const CheckedFile file = check_source("swap.argus", source);
    ASSERT_EQ(file.diagnostics.size(), 1u) << source;
    EXPECT_EQ(file.diagnostics[0].data["check"], check);
    auto edits = check::fix_edits(file.diagnostics[0].data, "argus.fix.insert-cluster-sync");
    ASSERT_TRUE(edits.has_value()) << file.diagnostics[0].message;
    const std::string fixed = check::apply_edits(source, *edits, *file.source);
    EXPECT_EQ(fixed, want);
    EXPECT_TRUE(check_source("swap.argus", fixed).diagnostics.empty()) << fixed;
  }
}

const char *kTwoKernels = "@kernel(grid=1, block=32)\n"
                          "def first(X: Tensor((32,), f32)):\n"
                          "    X[thread_id()] = 1.0\n"
                          "\n"
                          "@kernel(grid=1, block=32)\n"
                          "def second(X: Tensor((32,), f32)):\n"
                          "    X[thread_id()] = 2.0\n";

TEST(CacheTest, AnUnchangedKernelIsNotReCheckedAndAnEditedOneIs) {
  check::CheckCache cache;
  check::CheckerOptions options;
  const CheckedFile a = front_end("two.argus", kTwoKernels);
  auto first = check::check_kernels(a, options, &cache);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_FALSE(first[0].from_cache);
  EXPECT_FALSE(first[1].from_cache);
  EXPECT_EQ(cache.size(), 2u);
  // Editing `second` in place re-checks `second` only.
  std::string edited = kTwoKernels;
  edited.replace(edited.find("2.0"), 3, "3.0");
  const CheckedFile b = front_end("two.argus", edited);
  auto second = check::check_kernels(b, options, &cache);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_TRUE(second[0].from_cache);
  EXPECT_FALSE(second[1].from_cache);
  // A cached report still points at the right place: first's text did not change.
  EXPECT_EQ(second[0].instances, first[0].instances);
}

// Each report is told as it is there: cache hits first, then the kernel being
// edited (the one holding priority_line), then the rest in the file's order.
TEST(CheckKernelsTest, TellsEachReportCacheHitsFirstThenTheEditedKernel) {
  check::CheckCache cache;
  check::CheckerOptions options; // one thread: the order of the calls is the checking order
  std::string text = std::string(kTwoKernels) + "\n@kernel(grid=1, block=32)\n"
                                                "def third(X: Tensor((32,), f32)):\n"
                                                "    X[thread_id()] = 4.0\n";
  const CheckedFile a = front_end("three.argus", text);
  std::vector<size_t> told;
  auto reports = check::check_kernels(
      a, options, &cache, [&](size_t i, const check::KernelReport &) { told.push_back(i); }, 10);
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(told, (std::vector<size_t>{2, 0, 1})) << "line 10 is in 'third'";
  // Edit 'first' and 'third'; 'second' comes from the cache and is told first.
  text.replace(text.find("1.0"), 3, "5.0");
  text.replace(text.find("4.0"), 3, "6.0");
  const CheckedFile b = front_end("three.argus", text);
  told.clear();
  reports = check::check_kernels(
      b, options, &cache, [&](size_t i, const check::KernelReport &) { told.push_back(i); }, 10);
  EXPECT_EQ(told, (std::vector<size_t>{1, 2, 0}));
  EXPECT_TRUE(reports[1].from_cache);
  // Without a priority line, the file's order.
  told.clear();
  check::CheckCache empty;
  check::check_kernels(b, options, &empty,
                       [&](size_t i, const check::KernelReport &) { told.push_back(i); });
  EXPECT_EQ(told, (std::vector<size_t>{0, 1, 2}));
}

// A kernel that moved (a line added above it, its text unchanged) is served
// from the cache and reports at its new place (moved_cache_test.cpp has more).
TEST(CacheTest, AMovedKernelReportsAtItsNewPlace) {
  check::CheckCache cache;
  FrontendOptions options;
  options.cache = &cache;
  const CheckedFile before = check_source("racy.argus", kRace, options);
  ASSERT_EQ(before.diagnostics.size(), 1u);
  const CheckedFile after =
      check_source("racy.argus", std::string("# a comment\n") + kRace, options);
  ASSERT_EQ(after.diagnostics.size(), 1u);
  EXPECT_EQ(cache.stats().proved, 1);
  EXPECT_EQ(cache.stats().moved, 1);
  EXPECT_EQ(after.diagnostics[0].range.begin.line, before.diagnostics[0].range.begin.line + 1);
  EXPECT_EQ(after.diagnostics[0].data["program_point"]["line"],
            before.diagnostics[0].data["program_point"]["line"].get<int>() + 1);
  // The same text again is a cache hit with the same answer.
  const CheckedFile again =
      check_source("racy.argus", std::string("# a comment\n") + kRace, options);
  ASSERT_EQ(again.diagnostics.size(), 1u);
  EXPECT_EQ(again.diagnostics[0].range, after.diagnostics[0].range);
}

// Typing in a comment or the docstring of a kernel, or adding trailing
// spaces, moves no token: the report is reused. A space before a token
// moves it: the kernel is checked again.
TEST(CacheTest, CommentsDocstringsAndTrailingSpacesKeepTheReport) {
  check::CheckCache cache;
  check::CheckerOptions options;
  const std::string text = "@kernel(grid=1, block=32)\n"
                           "def k(X: Tensor((32,), f32)):\n"
                           "    \"\"\"Writes ones.\"\"\"\n"
                           "    X[thread_id()] = 1.0  # one per thread\n";
  const auto first = check::check_kernels(front_end("k.argus", text), options, &cache);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].from_cache);
  for (const auto &[find, replacement] :
       std::vector<std::pair<std::string, std::string>>{{"# one per thread", "# one per lane!"},
                                                        {"Writes ones.", "Writes ones, twice."},
                                                        {"1.0  #", "1.0     #"},
                                                        {"f32)):\n", "f32)):   \n"}}) {
    std::string edited = text;
    edited.replace(edited.find(find), find.size(), replacement);
    const auto reports = check::check_kernels(front_end("k.argus", edited), options, &cache);
    ASSERT_EQ(reports.size(), 1u) << replacement;
    EXPECT_TRUE(reports[0].from_cache) << replacement;
  }
  EXPECT_EQ(cache.stats().moved, 0); // nothing moved to another line
  std::string moved = text;
  moved.replace(moved.find("X[thread_id()]"), 2, "X[ ");
  const auto again = check::check_kernels(front_end("k.argus", moved), options, &cache);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_FALSE(again[0].from_cache);
}

TEST(CacheTest, KeepsAtMostItsCapacityOldestFirstOut) {
  check::CheckCache cache(2);
  check::KernelReport report;
  for (uint64_t key : {1, 2, 3}) {
    report.kernel = "k" + std::to_string(key);
    cache.store(key, report);
  }
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_FALSE(cache.find(1));
  EXPECT_EQ(cache.find(3)->kernel, "k3");
  cache.store(2, report); // storing a key again does not make room twice
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.find(2) && cache.find(3));
}

TEST(CacheTest, DifferentOptionsAreDifferentEntries) {
  check::CheckCache cache;
  const CheckedFile a = front_end("two.argus", kTwoKernels);
  check::CheckerOptions options;
  check::check_kernels(a, options, &cache);
  options.unroll_bound = 8;
  auto again = check::check_kernels(a, options, &cache);
  EXPECT_FALSE(again[0].from_cache);
  EXPECT_EQ(cache.size(), 4u);
}

// Runs checked on several threads are merged in order: the same violations,
// counterexamples and instances as one thread. Six kernels of three size
// instances each, each with its violations, and roles run as agents (threads
// of their own inside each run); a short file, as the sanitizer tree runs it.
TEST(RunThreadsTest, SeveralThreadsGiveTheReportOfOne) {
  const fs::path path = checker_test::kSourceDir / "tests/checker/corpus/ws_pipeline_bugs.argus";
  const CheckedFile file = front_end(path.filename().string(), read_file(path));
  ASSERT_FALSE(file.has_errors());
  check::CheckerOptions one;
  check::CheckerOptions four = one;
  four.run_threads = 4;
  const auto a = check::check_kernels(file, one), b = check::check_kernels(file, four);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_GT(a[k].instances.size(), 2u) << "a kernel of several runs";
    EXPECT_EQ(a[k].instances, b[k].instances);
    EXPECT_EQ(a[k].blocks_run, b[k].blocks_run);
    ASSERT_EQ(a[k].violations.size(), b[k].violations.size());
    ASSERT_FALSE(a[k].violations.empty());
    for (size_t i = 0; i < a[k].violations.size(); ++i) {
      EXPECT_EQ(a[k].violations[i].message, b[k].violations[i].message);
      EXPECT_EQ(a[k].violations[i].data, b[k].violations[i].data);
    }
  }
  // Cancelled, every thread stops and the report says it was interrupted.
  std::atomic<bool> cancelled{true};
  four.cancel = &cancelled;
  for (const check::KernelReport &r : check::check_kernels(file, four))
    EXPECT_TRUE(r.interrupted);
}

// A query Z3 cannot settle (no positive cubes with a^3 + b^3 = c^3, which it
// cannot prove) becomes W0901 within the time limit, never silence.
TEST(TimeLimitTest, AnUndecidedAssumptionIsAWarningWithinTheLimit) {
  const std::string text = "@kernel(grid=1, block=32)\n"
                           "def fermat(X: Tensor((N,), f32), A: i32, B: i32, N: i32):\n"
                           "    assume(A * A * A + B * B * B == N * N * N)\n"
                           "    if thread_id() < N:\n"
                           "        X[thread_id()] = 0.0\n";
  FrontendOptions o;
  o.checker.query_timeout_ms = 200;
  const auto start = std::chrono::steady_clock::now();
  const CheckedFile file = check_source("fermat.argus", text, o);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  ASSERT_FALSE(file.diagnostics.empty());
  bool warned = false;
  for (const Diagnostic &d : file.diagnostics) {
    EXPECT_EQ(d.code, codes::kUnproven) << d.message;
    warned = warned || d.message.find("within 200 ms") != std::string::npos;
  }
  EXPECT_TRUE(warned);
  // Generous: a handful of queries of 200 ms each, not Z3's unbounded search.
  EXPECT_LT(ms, 20000);
}

TEST(LoopBoundTest, LoopsPastTheBoundAreReported) {
  const std::string text = "@kernel(grid=1, block=32)\n"
                           "def long_loop(X: Tensor((32, 1000), f32)):\n"
                           "    for k in range(0, 1000):\n"
                           "        X[thread_id(), k] = 0.0\n";
  check::CheckerOptions options;
  options.unroll_bound = 100;
  options.lints = false;
  const CheckedFile file = front_end("loop.argus", text);
  auto reports = check::check_kernels(file, options);
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_EQ(reports[0].bounded_loops.size(), 1u);
  EXPECT_EQ(reports[0].bounded_loops[0], "line 3: k (first 100 iterations)");
  EXPECT_GT(reports[0].proofs, 0); // the index is still proved for every k by Z3
  // ... and the cut is a warning at the loop variable, not silence.
  bool warned = false;
  for (const check::Violation &v : reports[0].violations)
    warned = warned || (v.kind == "unproven" && v.check == "loop-bound" && v.range.begin.line == 2);
  EXPECT_TRUE(warned);
}

TEST(BadInputTest, NestedLongLoopsStopAtTheStepBudgetInsteadOfHanging) {
  const std::string text = "@kernel(grid=1, block=32)\n"
                           "def deep(X: Tensor((32,), f32)):\n"
                           "    for a in range(0, 1000):\n"
                           "        for b in range(0, 1000):\n"
                           "            for c in range(0, 1000):\n"
                           "                X[thread_id()] = 1.0\n";
  FrontendOptions o;
  o.checker.max_steps = 100000;
  const auto start = std::chrono::steady_clock::now();
  const CheckedFile file = check_source("deep.argus", text, o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  bool stopped = false;
  for (const Diagnostic &d : file.diagnostics)
    stopped = stopped || (d.code == codes::kUnproven &&
                          d.message.find("stopped after 100000 statements") != std::string::npos);
  EXPECT_TRUE(stopped);
}

TEST(BadInputTest, HugeLocalArraysStopTheCheckerInsteadOfExhaustingMemory) {
  const std::string text = "@kernel(grid=1, block=1024)\n"
                           "def big(X: Tensor((1024,), f32)):\n"
                           "    frag = make_local((65536,), f32)\n"
                           "    frag[0] = X[thread_id()]\n"
                           "    X[thread_id()] = frag[0]\n";
  const CheckedFile file = check_source("big.argus", text);
  bool stopped = false;
  for (const Diagnostic &d : file.diagnostics)
    stopped = stopped ||
              (d.code == codes::kUnproven && d.message.find("hold more than") != std::string::npos);
  EXPECT_TRUE(stopped);
}

TEST(ExtraSizesTest, SizesAskedForRunToo_UnlessTheyBreakTheAssumptions) {
  const std::string text = "@kernel(grid=cdiv(N, 32), block=32)\n"
                           "def k(X: Tensor((N,), f32), N: i32):\n"
                           "    assume(N % 32 == 0)\n"
                           "    X[block_id() * 32 + thread_id()] = 0.0\n";
  const CheckedFile file = front_end("k.argus", text);
  check::CheckerOptions options;
  options.extra_instances = {{{"N", 4096}}, {{"N", 100}}, {{"Q", 7}}};
  auto reports = check::check_kernels(file, options);
  ASSERT_EQ(reports.size(), 1u);
  const auto &instances = reports[0].instances;
  EXPECT_NE(
      std::find(instances.begin(), instances.end(), std::map<std::string, int64_t>{{"N", 4096}}),
      instances.end());
  EXPECT_EQ(
      std::find(instances.begin(), instances.end(), std::map<std::string, int64_t>{{"N", 100}}),
      instances.end());
  bool warned = false;
  for (const check::Violation &v : reports[0].violations)
    warned = warned || (v.check == "sizes" && v.message.find("\"N\":100") != std::string::npos);
  EXPECT_TRUE(warned);
  EXPECT_EQ(instances.size(), 3u); // Z3's two and N = 4096; Q is no parameter of k
}

// A loop over stages that ran too few iterations is run again at a larger K,
// grown from the cheapest instance (one block), not the last (two); where
// the loop did not run there at all, from the last.
std::vector<std::map<std::string, int64_t>> staged_loop_instances(const std::string &guard) {
  const std::string text = "@kernel(grid=cdiv(M, 32), block=32)\n"
                           "def k(X: Tensor((M, K), f32), Y: Tensor((M,), f32), M: i32, K: i32):\n"
                           "    assume(M % 32 == 0, K % 64 == 0)\n"
                           "    buf = make_shared((4, 32), f32)\n"
                           "    t = thread_id()\n"
                           "    row = block_id() * 32 + t\n"
                           "    acc = 0.0\n"
                           "    if " +
                           guard +
                           ":\n"
                           "        for kt in range(0, K // 64):\n"
                           "            s = kt % 4\n"
                           "            buf[s, t] = X[row, kt * 64]\n"
                           "            acc = acc + buf[s, t]\n"
                           "    Y[row] = acc\n";
  const CheckedFile file = front_end("k.argus", text);
  auto reports = check::check_kernels(file, check::CheckerOptions{});
  if (reports.size() != 1u)
    return {};
  for (const check::Violation &v : reports[0].violations)
    EXPECT_NE(v.check, "single-iteration") << v.message;
  return reports[0].instances;
}

TEST(GrownInstanceTest, ALoopIsGrownFromTheCheapestInstanceThatRunsIt) {
  const auto plain = staged_loop_instances("True");
  ASSERT_GE(plain.size(), 3u);
  int64_t least_m = INT64_MAX, most_m = 0;
  for (size_t i = 0; i + 1 < plain.size(); ++i) {
    least_m = std::min(least_m, plain[i].at("M"));
    most_m = std::max(most_m, plain[i].at("M"));
  }
  ASSERT_LT(least_m, most_m) << "the chosen instances differ in blocks";
  EXPECT_EQ(plain.back().at("M"), least_m);
  EXPECT_GE(plain.back().at("K") / 64, 5) << "four stages wrapped around";
  EXPECT_EQ(plain.size(), 3u) << "one grown instance";

  // Block 0 skips the loop: the one-block instance never runs it, so the
  // loop is grown again from the instance whose second block ran it.
  const auto guarded = staged_loop_instances("block_id() > 0");
  ASSERT_GE(guarded.size(), 4u);
  EXPECT_EQ(guarded.back().at("M"), most_m);
  EXPECT_GE(guarded.back().at("K") / 64, 5);
}

TEST(BadInputTest, FilesWithFrontEndErrorsAreNotChecked) {
  const CheckedFile file = check_source("bad.argus", "@kernel(grid=1, block=32)\n"
                                                     "def k(X: Tensor((32,), f32)):\n"
                                                     "    X[0] = nope\n");
  for (const Diagnostic &d : file.diagnostics)
    EXPECT_NE(d.code.substr(0, 3), "E09") << d.message;
  EXPECT_TRUE(check::check_kernels(file, check::CheckerOptions{}).empty());
}

TEST(BadInputTest, UnsatisfiableAssumptionsSayNothingWasChecked) {
  const CheckedFile file = check_source("never.argus", "@kernel(grid=1, block=32)\n"
                                                       "def k(X: Tensor((N,), f32), N: i32):\n"
                                                       "    assume(N > 10, N < 5)\n"
                                                       "    X[thread_id()] = 0.0\n");
  ASSERT_EQ(file.diagnostics.size(), 1u);
  EXPECT_EQ(file.diagnostics[0].code, codes::kUnproven);
  EXPECT_NE(file.diagnostics[0].message.find("no sizes satisfy"), std::string::npos);
}

// The Z3 bounds proofs stop with the check: a cancelled one proves nothing
// more (its report is thrown away), a late one says what it did not prove.
TEST(SymbolicStopTest, CancelledOrLateProofsStopAndALateOneSaysSo) {
  const CheckedFile file = front_end(
      "gemm_tiled.argus", read_file(fs::path(ARGUS_SOURCE_DIR) / "examples/gemm_tiled.argus"));
  ASSERT_FALSE(file.has_errors());
  const sema::FunctionInfo *kernel = file.sema->function_info("gemm_tiled");
  ASSERT_NE(kernel, nullptr);
  check::CheckerOptions options;
  check::KernelReport proved;
  proved.kernel = "gemm_tiled";
  check::detail::ProofReach reach;
  check::detail::prove_symbolically(file, *kernel, options, proved, reach);
  ASSERT_GT(proved.proofs, 0);
  EXPECT_GT(reach.global_accesses, 0);
  EXPECT_EQ(reach.global_proved, reach.global_accesses); // every index of gemm_tiled is proved

  std::atomic<bool> cancelled{true};
  options.cancel = &cancelled;
  check::KernelReport stopped;
  stopped.kernel = "gemm_tiled";
  check::detail::prove_symbolically(file, *kernel, options, stopped, reach);
  EXPECT_EQ(stopped.proofs, 0);
  EXPECT_TRUE(stopped.violations.empty());

  options.cancel = nullptr;
  options.deadline = std::chrono::steady_clock::now();
  check::KernelReport late;
  late.kernel = "gemm_tiled";
  check::detail::prove_symbolically(file, *kernel, options, late, reach);
  EXPECT_EQ(late.proofs, 0);
  ASSERT_EQ(late.violations.size(), 1u);
  EXPECT_EQ(late.violations[0].kind, "unproven");
  EXPECT_NE(late.violations[0].message.find("time limit"), std::string::npos);
}

// The MoE offsets of the corpus: monotone, from 0 to T, each within [0, T].
TEST(ContentsTest, OffsetsGetSeveralChoicesThatSatisfyTheFacts) {
  const fs::path path =
      checker_test::kSourceDir / "tests" / "checker" / "corpus" / "moe_grouped_gemm_ok.argus";
  const CheckedFile file = front_end("moe.argus", read_file(path));
  ASSERT_FALSE(file.has_errors());
  const sema::FunctionInfo *kernel = file.sema->function_info("moe_grouped_gemm");
  ASSERT_NE(kernel, nullptr);
  const int64_t tokens = 64;
  const auto choice = check::detail::choose_contents(file, *kernel, {{"T", tokens}}, 10000);
  EXPECT_EQ(choice.failure, "");
  ASSERT_GE(choice.choices.size(), 3u);
  bool empty_expert = false, uneven = false, partial_tile = false;
  for (const auto &c : choice.choices) {
    const std::vector<int64_t> &offsets = c.at("offsets");
    ASSERT_EQ(offsets.size(), 4u);
    EXPECT_EQ(offsets.front(), 0);
    EXPECT_EQ(offsets.back(), tokens);
    std::set<int64_t> lengths;
    for (size_t e = 0; e + 1 < offsets.size(); ++e) {
      const int64_t rows = offsets[e + 1] - offsets[e];
      EXPECT_GE(rows, 0);
      empty_expert = empty_expert || rows == 0;
      partial_tile = partial_tile || rows % 4 != 0;
      lengths.insert(rows);
    }
    uneven = uneven || lengths.size() == 3;
  }
  EXPECT_TRUE(empty_expert);
  EXPECT_TRUE(uneven);
  EXPECT_TRUE(partial_tile);
}

TEST(ContentsTest, AGeneratorIsOnlyAFactOfAssume) {
  const CheckedFile file = front_end("g.argus", "@kernel(grid=(1,), block=32)\n"
                                                "def k(idx: Tensor((T,), i32), T: i32):\n"
                                                "    x = all(idx[i] >= 0 for i in range(T))\n");
  bool found = false;
  for (const Diagnostic &d : file.diagnostics)
    found = found || d.message.find("only assume(fact for i in range(n))") != std::string::npos;
  EXPECT_TRUE(found);
}

// Integer parameters no shape and no grid names are not sizes: 0 and the
// ends of the assumed range are instances.
TEST(InstancesTest, AnIntegerThatIsNotASizeRunsAtItsBoundaryValues) {
  const CheckedFile file = front_end("x.argus", "@kernel(grid=(1,), block=32)\n"
                                                "def k(A: Tensor((N,), f32), N: i32, x: i32):\n"
                                                "    assume(x >= -2, x < 4, N >= 128)\n"
                                                "    A[0] = 1.0\n");
  ASSERT_FALSE(file.has_errors());
  const sema::FunctionInfo *kernel = file.sema->function_info("k");
  const auto sizes = check::detail::size_params(*file.sema, *kernel);
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_EQ((*sizes.begin())->name, "N");
  const auto choice = check::detail::choose_instances(file, *kernel, 10000);
  std::set<int64_t> xs;
  for (const auto &inst : choice.instances)
    xs.insert(inst.at("x"));
  EXPECT_TRUE(xs.count(0) && xs.count(-2) && xs.count(3)) << nlohmann::json(xs).dump();
  EXPECT_TRUE(choice.sampled.empty());
}

// A tiling inside a grid dimension (the row tiles of `cdiv(T, 128) + E`)
// spans two tiles at the second instance, not only the dimension: T = 64
// made every group one tile, and a kernel's second-tile path never ran.
// The size instances of kernel `k` of `source` (which must compile).
check::detail::InstanceChoice instances_of(const std::string &source) {
  const CheckedFile file = front_end("k.argus", source);
  EXPECT_FALSE(file.has_errors()) << source;
  const sema::FunctionInfo *kernel = file.sema->function_info("k");
  if (!kernel)
    return {};
  return check::detail::choose_instances(file, *kernel, 10000);
}

TEST(InstancesTest, ATilingInsideAGridDimensionSpansTwoTiles) {
  const auto second_t = [](const std::string &grid) {
    const auto choice = instances_of("@kernel(grid=(" + grid +
                                     ",), block=32)\n"
                                     "def k(X: Tensor((T, 8), f32), T: i32, E: i32):\n"
                                     "    assume(E <= 8)\n"
                                     "    X[0, 0] = 1.0\n");
    EXPECT_EQ(choice.instances.size(), 2u);
    return choice.instances.size() < 2 ? int64_t{0} : choice.instances[1].at("T");
  };
  EXPECT_GT(second_t("cdiv(T, 128) + E"), 128);
  EXPECT_GT(second_t("(T + 127) // 128 + E"), 128);
  // The dimension alone is satisfied by E: T only grows to 64.
  EXPECT_EQ(second_t("T + E"), 64);
  // Where the assumptions forbid two tiles, the second instance is still
  // made, without them.
  const auto choice = instances_of("@kernel(grid=(cdiv(T, 128) + E,), block=32)\n"
                                   "def k(X: Tensor((T, 8), f32), T: i32, E: i32):\n"
                                   "    assume(E <= 8, T <= 100)\n"
                                   "    X[0, 0] = 1.0\n");
  ASSERT_EQ(choice.instances.size(), 2u);
  EXPECT_GT(choice.instances[1].at("T"), 1);
}

// A size only the grid names (a persistent kernel's block count P) grows to
// two, not to 64, when a capped size (E <= 8) sends the second instance to
// "as large as allowed": at P = 64 every block had one tile at most.
TEST(InstancesTest, ABlockCountOnlyTheGridNamesGrowsToTwo) {
  const auto choice =
      instances_of("@kernel(grid=min(P, cdiv(T, 128) + E), block=32)\n"
                   "def k(X: Tensor((T, 8), f32), W: Tensor((E, 8), f32), T: i32, E: i32,\n"
                   "      P: i32):\n"
                   "    assume(E <= 8)\n"
                   "    X[0, 0] = 1.0\n");
  ASSERT_EQ(choice.instances.size(), 2u);
  EXPECT_EQ(choice.instances[1].at("P"), 2);
  EXPECT_EQ(choice.instances[1].at("E"), 8);
  EXPECT_GT(choice.instances[1].at("T"), 128);
}

} // namespace
} // namespace argus
