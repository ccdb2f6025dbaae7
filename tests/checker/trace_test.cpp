// The provenance record of a traced replay (dsl/check/trace.h): what an
// untraced run leaves alone and what a full record gives up.
#include "machine.h"
#include "test_support.h"

#include "argus/dsl/checker.h"
#include "argus/dsl/driver.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

namespace argus {
namespace {

// Thread t asserts that it holds X[t] but reads tile[t + 1]: the history of
// thread 0's value is X[1] → tile[1] → frag[0] → the assertion.
constexpr const char *kShifted = R"(THREADS = 32


@kernel(grid=1, block=THREADS)
def shifted(X: Tensor((THREADS,), f32), Y: Tensor((THREADS,), f32)):
    tag(X, ("i",))
    tile = make_shared((THREADS,), f32)
    frag = make_local((1,), f32)
    t = thread_id()
    tile[t] = X[t]
    syncthreads()
    frag[0] = tile[(t + 1) % THREADS]
    assert_tag(frag[0], {"i": t})
    Y[t] = frag[0]
)";

std::vector<check::Violation> run(const CheckedFile &file, std::optional<size_t> max_nodes) {
  const sema::FunctionInfo *kernel = file.sema->function_info("shifted");
  EXPECT_NE(kernel, nullptr);
  check::CheckerOptions options;
  options.symbolic = false;
  check::detail::Machine machine(file, *kernel, options);
  if (max_nodes) {
    machine.trace_ = std::make_unique<check::detail::Trace>();
    machine.trace_->max_nodes = *max_nodes;
  }
  machine.run({});
  return machine.take_violations();
}

const check::Violation *mismatch(const std::vector<check::Violation> &violations) {
  for (const check::Violation &v : violations)
    if (v.kind == "tag-mismatch")
      return &v;
  return nullptr;
}

TEST(Trace, UntracedRunsRecordNothingAndReportTheSame) {
  const CheckedFile file = check_source("shifted.argus", kShifted);
  const auto untraced = run(file, std::nullopt);
  const auto traced = run(file, check::detail::Trace::kDefaultMaxNodes);
  const check::Violation *u = mismatch(untraced), *t = mismatch(traced);
  ASSERT_NE(u, nullptr);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(u->history.is_null());
  // Tag::origin means a trace node when traced: the reported write site is the same.
  EXPECT_EQ(u->data, t->data);
  EXPECT_EQ(u->message, t->message);
  ASSERT_EQ(t->history.size(), 6u) << t->history.dump(1);
  EXPECT_EQ(t->history[0]["tensor"], "X");
  EXPECT_EQ(t->history[0]["element"], nlohmann::json::array({1}));
  EXPECT_EQ(t->history[0]["thread"]["thread"], nlohmann::json::array({1, 0, 0}));
  EXPECT_EQ(t->history[2]["tensor"], "tile");
  EXPECT_EQ(t->history[2]["action"], "read");
  EXPECT_EQ(t->history[2]["thread"]["thread"], nlohmann::json::array({0, 0, 0}));
}

// Past twice its soft cap (one statement's accesses here: tile[t] = X[t] of
// 32 threads makes 64) the record keeps one node per (action, site) with no
// source: the history says that it starts there.
TEST(Trace, AFullRecordCutsTheHistoryAndSaysSo) {
  const CheckedFile file = check_source("shifted.argus", kShifted);
  const check::Violation *full = nullptr;
  const auto violations = run(file, 20);
  full = mismatch(violations);
  ASSERT_NE(full, nullptr);
  const nlohmann::json &h = full->history;
  ASSERT_GE(h.size(), 3u) << h.dump(1);
  EXPECT_EQ(h[0]["action"], "elided");
  EXPECT_NE(h[0]["reason"].get<std::string>().find("full (40 live accesses)"), std::string::npos)
      << h[0];
  EXPECT_TRUE(h[1].value("summary", false)) << h.dump(1);
  EXPECT_FALSE(h[1].contains("thread"));
  EXPECT_EQ(h.back()["action"], "violation");
  EXPECT_EQ(full->data, mismatch(run(file, std::nullopt))->data);
}

// Every round of this loop overwrites frag[0]: its reads and writes die, and
// a record far smaller than the replay's accesses keeps the history whole by
// compacting to what memory and registers still reach.
constexpr const char *kOverwritten = R"(THREADS = 32


@kernel(grid=1, block=THREADS)
def overwritten(X: Tensor((THREADS,), f32), Y: Tensor((THREADS,), f32)):
    tag(X, ("i",))
    tile = make_shared((THREADS,), f32)
    frag = make_local((1,), f32)
    t = thread_id()
    tile[t] = X[t]
    syncthreads()
    for r in range(0, 40):
        frag[0] = tile[(t + r) % THREADS]
        Y[t] = frag[0]
    assert_tag(frag[0], {"i": t})
)";

TEST(Trace, CompactionKeepsTheHistoryOfALongReplay) {
  const CheckedFile file = check_source("overwritten.argus", kOverwritten);
  const sema::FunctionInfo *kernel = file.sema->function_info("overwritten");
  ASSERT_NE(kernel, nullptr);
  auto traced = [&](size_t max_nodes, int64_t *compactions) {
    check::CheckerOptions options;
    options.symbolic = false;
    check::detail::Machine machine(file, *kernel, options);
    machine.trace_ = std::make_unique<check::detail::Trace>();
    machine.trace_->max_nodes = max_nodes;
    machine.run({});
    *compactions = machine.trace_->compactions;
    EXPECT_FALSE(machine.trace_->capped);
    EXPECT_LE(machine.trace_->nodes.size(), machine.trace_->hard_cap());
    const auto violations = machine.take_violations();
    const check::Violation *v = mismatch(violations);
    return v ? v->history : nlohmann::json();
  };
  int64_t none = 0, some = 0;
  const nlohmann::json whole = traced(check::detail::Trace::kDefaultMaxNodes, &none);
  // 40 rounds of 32 threads: 5,000 accesses through a record of 300.
  const nlohmann::json compacted = traced(300, &some);
  EXPECT_EQ(none, 0);
  EXPECT_GT(some, 3);
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(whole[0]["tensor"], "X");
  EXPECT_EQ(whole[0]["element"], nlohmann::json::array({7})); // r = 39: tile[(0 + 39) % 32]
  EXPECT_EQ(compacted, whole);
}

// acc += a * b over 16 k-tiles keeps every round of every accumulator
// alive; compactions splice the rounds out, so the store's history still
// reaches A through a record of 20,000 nodes (the replay makes ~300,000).
TEST(Trace, CompactionSplicesAnAccumulatorsRounds) {
  const std::string path =
      std::string(ARGUS_SOURCE_DIR) + "/tests/checker/corpus/transposed_store.argus";
  const CheckedFile file = check_source(path, checker_test::read_file(path));
  const sema::FunctionInfo *kernel = file.sema->function_info("gemm_tiled");
  ASSERT_NE(kernel, nullptr);
  check::CheckerOptions options;
  options.symbolic = false;
  check::detail::Machine machine(file, *kernel, options);
  machine.trace_ = std::make_unique<check::detail::Trace>();
  machine.trace_->max_nodes = 20000;
  machine.run({{"M", 32}, {"N", 32}, {"K", 256}});
  EXPECT_GT(machine.trace_->compactions, 3);
  EXPECT_FALSE(machine.trace_->capped);
  const auto violations = machine.take_violations();
  const check::Violation *store = nullptr;
  for (const check::Violation &v : violations)
    if (v.kind == "tag-mismatch" && v.check == "store")
      store = &v;
  ASSERT_NE(store, nullptr);
  const nlohmann::json &h = store->history;
  ASSERT_GE(h.size(), 6u) << h.dump(1);
  EXPECT_EQ(h[0]["tensor"], "A");
  EXPECT_EQ(h[0]["iteration"]["kt"], 0) << "contexts survive compaction: " << h[0];
  EXPECT_EQ(h[3]["tensor"], "acc");
  size_t elided = 0;
  for (const auto &step : h)
    if (step["action"] == "elided") {
      EXPECT_EQ(step.value("why", std::string()), "repeated") << step;
      elided += step["steps"].get<size_t>();
    }
  // 16 tiles of 16 k-steps, a read and a write each, less the rounds shown.
  EXPECT_GT(elided, 400u);
  EXPECT_LT(elided, 512u);
  EXPECT_EQ(h[h.size() - 3]["iteration"]["kt"], 15);
  EXPECT_EQ(h.back()["tensor"], "C");
}

// The files of that comparison (sweep_files: fewer under the sanitizers).
std::vector<std::filesystem::path> traced_files() { return checker_test::sweep_files(); }

// Traced, Tag::origin holds trace nodes: every corpus and example kernel
// still reports the same violations, with the same data, at every instance.
class TracedFileTest : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(TracedFileTest, TracingChangesNoViolation) {
  const std::filesystem::path &path = GetParam();
  check::CheckerOptions options;
  options.symbolic = false;
  options.fixes = false;
  FrontendOptions front;
  front.invariants = false;
  const CheckedFile file =
      check_source(path.filename().string(), checker_test::read_file(path), front);
  if (file.has_errors())
    GTEST_SKIP() << path.filename() << " has front-end errors (a corpus file about them)";
  for (const check::KernelReport &report : check::check_kernels(file, options)) {
    const sema::FunctionInfo *kernel = file.sema->function_info(report.kernel);
    ASSERT_NE(kernel, nullptr);
    for (const auto &sizes : report.instances) {
      check::detail::Machine plain(file, *kernel, options), traced(file, *kernel, options);
      traced.trace_ = std::make_unique<check::detail::Trace>();
      plain.run(sizes);
      traced.run(sizes);
      const auto a = plain.take_violations(), b = traced.take_violations();
      ASSERT_EQ(a.size(), b.size()) << path.filename();
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].data, b[i].data) << path.filename() << ": " << a[i].message;
        EXPECT_EQ(a[i].message, b[i].message);
        EXPECT_EQ(a[i].related.size(), b[i].related.size()) << a[i].message;
        EXPECT_TRUE(b[i].history.is_array() && !b[i].history.empty()) << a[i].message;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, TracedFileTest, ::testing::ValuesIn(traced_files()),
                         [](const ::testing::TestParamInfo<std::filesystem::path> &info) {
                           return checker_test::test_name(info.param);
                         });

// The comparison above compares something: the traced files have violations.
// Counted from their `# expect: E09..` markers, which CorpusTest holds to the
// checker's output (checking the corpus again here cost a full sweep).
TEST(Trace, TheTracedFilesHaveViolationsToCompare) {
  size_t violations = 0;
  for (const auto &path : traced_files()) {
    const std::string text = checker_test::read_file(path);
    for (size_t at = text.find("# expect: E09"); at != std::string::npos;
         at = text.find("# expect: E09", at + 1))
      ++violations;
  }
  EXPECT_GT(violations, 20u);
}

} // namespace
} // namespace argus
