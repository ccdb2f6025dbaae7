// The verification summary (argus/dsl/verification.h): each property's
// verdict follows from what the checker did, never claims more.
#include "argus/dsl/checker.h"
#include "argus/dsl/driver.h"

#include <gtest/gtest.h>

namespace argus {
namespace {

using check::Verdict;

// The summaries of a file that passes the front end (checker errors allowed).
std::vector<check::VerificationSummary> summaries(const std::string &text) {
  CheckedFile file = check_source("summary.argus", text);
  for (const Diagnostic &d : file.diagnostics)
    EXPECT_TRUE(d.code.starts_with("E09") || d.code.starts_with("W09"))
        << d.code << " " << d.message;
  return file.verification;
}

Verdict verdict(const check::VerificationSummary &s, const std::string &property) {
  for (const auto &p : s.properties)
    if (p.property == property)
      return p.verdict;
  ADD_FAILURE() << "no property " << property;
  return Verdict::NotChecked;
}

std::string detail(const check::VerificationSummary &s, const std::string &property) {
  for (const auto &p : s.properties)
    if (p.property == property)
      return p.detail;
  return "";
}

const char *kCopy = R"(@kernel(grid=(cdiv(N, 64),), block=64)
def copy(X: Tensor((N,), f32), Y: Tensor((N,), f32), N: i32):
    i = block_id() * 64 + thread_id()
    if i < N:
        Y[i] = X[i]
)";

TEST(SummaryTest, ClosedFormIndicesAreProvedForAllSizesTheRestAtTheInstances) {
  const auto s = summaries(kCopy);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kernel, "copy");
  EXPECT_EQ(s[0].instances.size(), 2u);
  EXPECT_EQ(s[0].unproven, 0);
  EXPECT_EQ(verdict(s[0], "bounds"), Verdict::AllSizes) << detail(s[0], "bounds");
  EXPECT_NE(detail(s[0], "bounds").find("(2 accesses)"), std::string::npos);
  // No barrier, no shared memory: races are proved for every pair of threads and blocks.
  EXPECT_EQ(verdict(s[0], "races"), Verdict::AllSizes) << detail(s[0], "races");
  EXPECT_EQ(verdict(s[0], "initialization"), Verdict::Instances);
  for (const char *p : {"tags", "stores", "operands", "barriers", "async", "coverage"})
    EXPECT_EQ(verdict(s[0], p), Verdict::Absent) << p;
  const std::string line = check::summary_line(s[0]);
  EXPECT_NE(line.find("copy: bounds, races proved for all sizes; initialization checked at 2 "
                      "instances; tags, stores, operands, barriers, async, coverage absent"),
            std::string::npos)
      << line;
  const nlohmann::json j = check::to_json(s[0]);
  EXPECT_EQ(j["properties"]["bounds"]["verdict"], "all-sizes");
  EXPECT_EQ(j["properties"]["tags"]["verdict"], "absent");
  EXPECT_EQ(j["instances"].size(), 2u);
}

// Finding 9 of issue 11: an index from a local assigned on two branches is
// proved through the assignment that reaches it (an ite of the condition);
// one the prover cannot translate (a tuple) keeps bounds at the instances.
TEST(SummaryTest, BranchLocalsAreProvedAndUntranslatedIndicesStayAtTheInstances) {
  const auto proved = summaries(R"(@kernel(grid=1, block=64)
def pick(X: Tensor((32,), f32), Y: Tensor((64,), f32)):
    t = thread_id()
    if t < 32:
        j = t
    else:
        j = t - 32
    Y[t] = X[j]
)");
  ASSERT_EQ(proved.size(), 1u);
  EXPECT_EQ(verdict(proved[0], "bounds"), Verdict::AllSizes) << detail(proved[0], "bounds");
  const auto unpacked = summaries(R"(@kernel(grid=1, block=64)
def pick(X: Tensor((64,), f32), Y: Tensor((64,), f32)):
    t = thread_id()
    j, k = t, 0
    Y[t] = X[j + k]
)");
  ASSERT_EQ(unpacked.size(), 1u);
  EXPECT_EQ(verdict(unpacked[0], "bounds"), Verdict::Instances);
  EXPECT_NE(detail(unpacked[0], "bounds").find("1 of 2 global accesses proved"), std::string::npos)
      << detail(unpacked[0], "bounds");
}

TEST(SummaryTest, AViolationMarksItsPropertyAndOnlyIt) {
  const auto s = summaries(R"(@kernel(grid=1, block=64)
def shifted(X: Tensor((64,), f32), Y: Tensor((64,), f32)):
    tag(X, ("i",))
    t = thread_id()
    v = X[t]
    assert_tag(v, {"i": t + 1})
    Y[t] = v
)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(verdict(s[0], "tags"), Verdict::Violated);
  EXPECT_EQ(detail(s[0], "tags"), "1 error");
  // X is tagged, Y is not: no store has a contract, which holds for all sizes.
  EXPECT_EQ(verdict(s[0], "stores"), Verdict::AllSizes) << detail(s[0], "stores");
  EXPECT_EQ(verdict(s[0], "bounds"), Verdict::AllSizes);
  EXPECT_EQ(verdict(s[0], "races"), Verdict::AllSizes);
}

// Tags through shared memory and an accumulator, for all sizes: every write a
// read can see carries the asserted field (gemm_tiled's shape, smaller).
TEST(SummaryTest, TagsAndStoresAreProvedForAllSizesThroughSharedMemoryAndAccumulators) {
  const auto s = summaries(R"(@kernel(grid=cdiv(M, 64), block=64)
def row_dot(A: Tensor((M, K), f32), Y: Tensor((M,), f32), M: i32, K: i32):
    assume(M % 64 == 0, K % 16 == 0)
    tag(A, ("m", "k"))
    tag(Y, ("m",))
    tile = make_shared((64, 17), f32)
    t = thread_id()
    m0 = block_id() * 64
    acc = full((1,), 0.0, f32)
    for kt in range(0, K // 16):
        for e in range(0, 16):
            tile[t, e] = A[m0 + t, kt * 16 + e]
        syncthreads()
        for kk in range(0, 16):
            acc[0] += tile[t, kk]
        syncthreads()
    assert_tag(acc[0], {"m": m0 + t})
    Y[m0 + t] = acc[0]
)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(verdict(s[0], "tags"), Verdict::AllSizes) << detail(s[0], "tags");
  EXPECT_EQ(verdict(s[0], "stores"), Verdict::AllSizes) << detail(s[0], "stores");
  EXPECT_NE(detail(s[0], "tags").find("given that reads see written memory"), std::string::npos);
}

// What the tag proof does not follow keeps the verdict at the instances and
// says why: a local assigned in a branch its use is not in.
TEST(SummaryTest, TagsTheProofDoesNotFollowStayAtTheInstancesWithTheReason) {
  const auto s = summaries(R"(@kernel(grid=1, block=64)
def first_only(X: Tensor((64,), f32), Y: Tensor((64,), f32)):
    tag(X, ("i",))
    t = thread_id()
    for k in range(0, 4):
        if k == 0:
            x = X[t]
        assert_tag(x, {"i": t})
    Y[t] = 1.0
)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(verdict(s[0], "tags"), Verdict::Instances);
  EXPECT_NE(detail(s[0], "tags").find("'x', assigned in a branch or loop this use is not in"),
            std::string::npos)
      << detail(s[0], "tags");
  EXPECT_EQ(verdict(s[0], "stores"), Verdict::AllSizes) << detail(s[0], "stores");
}

// Barriers order a block's threads: the race proof pairs two threads of one
// block only in the same barrier interval (equal barrier epochs), over global
// and shared memory, through loops that pass the same barriers every iteration.
TEST(SummaryTest, BarriersOrderTheThreadsOfABlockForAllSizes) {
  const auto s = summaries(R"(@kernel(grid=(cdiv(N, 64),), block=64)
def reverse(X: Tensor((N,), f32), Y: Tensor((N,), f32), N: i32):
    assume(N % 64 == 0)
    s = make_shared((64,), f32)
    t = thread_id()
    for i in range(0, 4):
        s[t] = X[block_id() * 64 + t]
        syncthreads()
        Y[block_id() * 64 + t] = s[63 - t] + f32(i)
        syncthreads()
)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(verdict(s[0], "races"), Verdict::AllSizes) << detail(s[0], "races");
  EXPECT_NE(detail(s[0], "races").find("between the same two barriers"), std::string::npos);
  EXPECT_EQ(verdict(s[0], "barriers"), Verdict::Instances);
  // Shared indices are not global bounds: the two global accesses are all that counts.
  EXPECT_NE(detail(s[0], "bounds").find("(2 accesses)"), std::string::npos)
      << detail(s[0], "bounds");
}

// Without the second barrier the next iteration's write meets the read of
// this one in one interval: the interpreter reports it, and the proof must
// not claim more.
TEST(SummaryTest, AMissingBarrierIsARaceNotAProof) {
  const auto s = summaries(R"(@kernel(grid=1, block=64)
def reverse(X: Tensor((256,), f32), Y: Tensor((256,), f32)):
    s = make_shared((64,), f32)
    t = thread_id()
    for i in range(0, 4):
        s[t] = X[i * 64 + t]
        syncthreads()
        Y[i * 64 + t] = s[63 - t]
)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(verdict(s[0], "races"), Verdict::Violated);
}

// Where threads may pass different barriers, or iterations pass different
// numbers of them, the epochs say nothing: races stay at the instances and
// the detail says why.
TEST(SummaryTest, BarriersTheProofCannotCountKeepRacesAtTheInstances) {
  const auto varying = summaries(R"(@kernel(grid=1, block=64)
def ordered(Y: Tensor((64,), f32)):
    t = thread_id()
    for i in range(0, 4):
        Y[t] = 1.0
        syncthreads()
        if i < 2:
            syncthreads()
        Y[63 - t] = 2.0
        syncthreads()
)");
  ASSERT_EQ(varying.size(), 1u);
  EXPECT_EQ(verdict(varying[0], "races"), Verdict::Instances);
  EXPECT_NE(detail(varying[0], "races").find("different numbers of barriers"), std::string::npos)
      << detail(varying[0], "races");
  const auto strided = summaries(R"(@kernel(grid=1, block=64)
def ordered(Y: Tensor((64,), f32), S: i32):
    assume(1 <= S, S <= 4)
    t = thread_id()
    Y[t] = 1.0
    for i in range(0, 8, S):
        syncthreads()
    syncthreads()
    Y[63 - t] = 2.0
)");
  // One barrier on each branch of a thread-dependent condition: the same
  // count, but not the same barrier for every thread.
  const auto split = summaries(R"(@kernel(grid=1, block=64)
def split(Y: Tensor((64,), f32), X: Tensor((64,), f32)):
    t = thread_id()
    if t < 32:
        Y[t] = 1.0
        syncthreads()
    else:
        syncthreads()
        X[t] = Y[t - 32]
)");
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(verdict(split[0], "races"), Verdict::Instances) << detail(split[0], "races");
  EXPECT_NE(detail(split[0], "races").find("depends on the thread"), std::string::npos)
      << detail(split[0], "races");
  ASSERT_EQ(strided.size(), 1u);
  EXPECT_EQ(verdict(strided[0], "races"), Verdict::Instances);
  EXPECT_NE(detail(strided[0], "races").find("a loop the prover does not follow"),
            std::string::npos)
      << detail(strided[0], "races");
}

TEST(SummaryTest, ARaceIsViolatedRaces) {
  const auto s = summaries(R"(@kernel(grid=1, block=64)
def clash(Y: Tensor((64,), f32)):
    Y[thread_id() // 2] = 1.0
)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(verdict(s[0], "races"), Verdict::Violated);
  EXPECT_EQ(verdict(s[0], "bounds"), Verdict::AllSizes);
}

TEST(SummaryTest, NoSizeInstanceMeansNothingWasChecked) {
  const auto s = summaries(R"(@kernel(grid=(N,), block=32)
def never(Y: Tensor((N,), f32), N: i32):
    assume(N < 0)
    Y[block_id()] = 1.0
)");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].instances.empty());
  EXPECT_GT(s[0].unproven, 0);
  for (const auto &p : s[0].properties)
    EXPECT_EQ(p.verdict, Verdict::NotChecked) << p.property;
}

} // namespace
} // namespace argus
