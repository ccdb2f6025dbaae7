// codegen::run_benchmark, the one benchmark run `argus bench` and
// `argus.benchmark` share: what the runner's output and exit say, with
// runner templates that print what a runner would (no GPU needed).
#include "argus/codegen/benchmark.h"

#include <gtest/gtest.h>

namespace argus::codegen {
namespace {

// A runner that prints `json` and ignores the artifact it is given ({artifact}
// is consumed by printf's %.0s).
BenchmarkOutcome run_printing(const std::string &json) {
  BenchmarkRequest request;
  request.artifact = "/tmp/no-such-artifact";
  request.target = "sm90a";
  request.runner_template = "printf '" + json + "%.0s' {artifact}";
  request.timeout_s = 30;
  return run_benchmark(request);
}

TEST(RunBenchmark, CorrectResultsAreOk) {
  const BenchmarkOutcome r = run_printing(R"([{"kernel":"k","correct":true},{"refused":true}])");
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0]["kernel"], "k");
  EXPECT_NE(r.command.find("printf"), std::string::npos);
}

TEST(RunBenchmark, AnIncorrectKernelStopsAtResultsWithItsResults) {
  const BenchmarkOutcome r = run_printing(R"({"kernel":"k","correct":false})");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.stage, "results");
  EXPECT_EQ(r.error, "some kernels are not correct");
  EXPECT_EQ(r.results.size(), 1u);
}

TEST(RunBenchmark, TheRunnersErrorObjectNamesItsStageAndKernel) {
  const BenchmarkOutcome r = run_printing(
      R"({"error":"no GPU","stage":"device","kernel":"k","results":[{"kernel":"j","correct":true}]})");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.stage, "device");
  EXPECT_EQ(r.error, "k: no GPU");
  ASSERT_TRUE(r.runner_error.has_value());
  EXPECT_EQ(r.results.size(), 1u); // those done before the error
}

TEST(RunBenchmark, NoJsonAndAnExitStatusAreRunnerFailures) {
  BenchmarkRequest request;
  request.artifact = "/tmp/no-such-artifact";
  request.target = "sm90a";
  request.runner_template = "sh -c 'echo hello; exit 3'";
  const BenchmarkOutcome r = run_benchmark(request);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.stage, "runner");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.error.find("exited with status 3 and printed no JSON result: hello"),
            std::string::npos)
      << r.error;
  const BenchmarkOutcome not_objects = run_printing("[1, 2]");
  EXPECT_EQ(not_objects.stage, "runner");
  EXPECT_TRUE(not_objects.results.empty());
}

TEST(RunBenchmark, ATemplateThatDoesNotSplitRunsNothing) {
  BenchmarkRequest request;
  request.artifact = "/tmp/x";
  request.runner_template = "printf 'open";
  const BenchmarkOutcome r = run_benchmark(request);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.stage, "template");
  EXPECT_TRUE(r.command.empty());
}

TEST(RunBenchmark, ARunnerPastItsTimeoutIsKilled) {
  BenchmarkRequest request;
  request.artifact = "/tmp/x";
  request.runner_template = "sh -c 'sleep 30'"; // the artifact is $0
  request.timeout_s = 0.2;
  const BenchmarkOutcome r = run_benchmark(request);
  EXPECT_EQ(r.stage, "timeout");
  EXPECT_NE(r.error.find("did not finish within 0.2 s"), std::string::npos) << r.error;
}

} // namespace
} // namespace argus::codegen
