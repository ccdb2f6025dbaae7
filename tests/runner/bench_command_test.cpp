// `argus bench` through runner command templates: canned runners that print
// good results, wrong results, garbage, nothing, an error, or hang; the real
// argus-runner script and the runner built with the test artifact.
#include "argus/cli/bench_command.h"

#include "process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using argus::testing::ProcessOptions;
using argus::testing::ProcessResult;
using argus::testing::run_process;
namespace codegen = argus::codegen;

const std::string kSource = ARGUS_SOURCE_DIR;
const std::string kTiny = kSource + "/tests/runner/fixtures/tiny";
const std::string kRunners = kSource + "/tests/runner/fixtures/runners";

std::string canned(const std::string &script) {
  return "sh " + kRunners + "/" + script + " {artifact}";
}

ProcessResult argus_bench(std::vector<std::string> args, ProcessOptions options = {}) {
  args.insert(args.begin(), "bench");
  return run_process(ARGUS_BINARY, args, options);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// ------------------------------------------------------------- the pieces

TEST(BenchTemplate, ShellQuote) {
  EXPECT_EQ(codegen::shell_quote("abc"), "'abc'");
  EXPECT_EQ(codegen::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(codegen::shell_quote(""), "''");
}

std::vector<std::string> words(std::string_view tmpl, std::string_view artifact,
                               const std::vector<std::string> &extra = {}) {
  std::string error;
  auto argv = codegen::runner_argv(tmpl, "/bin/argus-runner", artifact, "sm90", extra, error);
  EXPECT_TRUE(argv) << error;
  return argv.value_or(std::vector<std::string>{});
}

TEST(BenchTemplate, PlaceholdersAreWholeWords) {
  using V = std::vector<std::string>;
  EXPECT_EQ(words("{runner} {artifact}", "/tmp/a b"), (V{"/bin/argus-runner", "/tmp/a b"}));
  EXPECT_EQ(words("srun -p gpu {runner}", "/x", {"--seed", "3"}),
            (V{"srun", "-p", "gpu", "/bin/argus-runner", "/x", "--seed", "3"}));
  EXPECT_EQ(words("run --target={target} '{artifact}'", "/x"), (V{"run", "--target=sm90", "/x"}));
  EXPECT_EQ(words("sh \"my runner.sh\" {artifact}", "/x"), (V{"sh", "my runner.sh", "/x"}));
  // Nothing is expanded: a value with shell syntax stays one literal word.
  EXPECT_EQ(words("{runner} {artifact}", "/tmp/$(touch x)`id`;rm"),
            (V{"/bin/argus-runner", "/tmp/$(touch x)`id`;rm"}));
  std::string error;
  EXPECT_FALSE(codegen::runner_argv("run 'open", "r", "/x", "sm90", {}, error));
  EXPECT_NE(error.find("unclosed quote"), std::string::npos);
  EXPECT_FALSE(codegen::runner_argv("  ", "r", "/x", "sm90", {}, error));
}

// ssh joins the words after the destination into a command line for the
// remote shell: the values are quoted for it, the template's own words are not.
TEST(BenchTemplate, SshQuotesValuesForTheRemoteShell) {
  using V = std::vector<std::string>;
  EXPECT_EQ(words("ssh -p 2222 gpu argus-runner {artifact} --iters 5", "/x;y", {"$(id)"}),
            (V{"ssh", "-p", "2222", "gpu", "argus-runner", "'/x;y'", "--iters", "5", "'$(id)'"}));
  EXPECT_EQ(words("ssh gpu cd /srv '&&' argus-runner", "/a'b"),
            (V{"ssh", "gpu", "cd", "/srv", "&&", "argus-runner", "'/a'\\''b'"}));
}

TEST(BenchTemplate, OnlyAllowedTemplatesRunFromSettings) {
  EXPECT_TRUE(codegen::runner_allowed("{runner} {artifact}", {}));
  EXPECT_FALSE(codegen::runner_allowed("touch /tmp/x {artifact}", {}));
  EXPECT_TRUE(codegen::runner_allowed("ssh gpu argus-runner {artifact}", {"ssh gpu *"}));
  EXPECT_FALSE(codegen::runner_allowed("ssh evil argus-runner {artifact}", {"ssh gpu *"}));
}

TEST(Spawn, CapturesOutputAndStatus) {
  codegen::SpawnOptions options;
  options.timeout = std::chrono::seconds(20);
  const codegen::SpawnResult r =
      codegen::spawn({"sh", "-c", "echo out; echo err >&2; exit 4"}, options);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.timed_out);
}

TEST(Spawn, KillsTheWholeGroupOnTimeout) {
  const auto start = std::chrono::steady_clock::now();
  codegen::SpawnOptions options;
  options.timeout = std::chrono::milliseconds(300);
  const codegen::SpawnResult r =
      codegen::spawn({"sh", "-c", "sleep 30 & sleep 30; echo never"}, options);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.out, "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(Spawn, StopsSoonAfterCancellation) {
  std::atomic<bool> cancelled{true};
  codegen::SpawnOptions options;
  options.cancelled = &cancelled;
  const codegen::SpawnResult r = codegen::spawn({"sleep", "30"}, options);
  EXPECT_TRUE(r.cancelled);
}

TEST(Spawn, AMissingProgramOrDirectoryIsAnError) {
  const codegen::SpawnResult r = codegen::spawn({"no-such-program-xyz"});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("no-such-program-xyz"), std::string::npos) << r.error;
  codegen::SpawnOptions options;
  options.cwd = "/no/such/dir";
  EXPECT_FALSE(codegen::spawn({"true"}, options).started);
}

// Arguments are never re-read by a shell: a marker file names the failure.
TEST(Spawn, ArgumentsReachTheProgramAsTheyAre) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("argus-spawn-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string marker = (dir / "marker").string();
  const std::string hostile = "$(touch " + marker + ")`touch " + marker + "`;touch " + marker;
  const codegen::SpawnResult r = codegen::spawn({"printf", "%s", hostile});
  EXPECT_EQ(r.out, hostile);
  EXPECT_FALSE(std::filesystem::exists(marker));
  std::filesystem::remove_all(dir);
}

// ------------------------------------------------------- argus bench, usage

TEST(BenchCommand, Help) {
  const ProcessResult r = argus_bench({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "Usage: argus bench"));
  const ProcessResult top = run_process(ARGUS_BINARY, {"--help"});
  EXPECT_TRUE(contains(top.out, "bench"));
}

TEST(BenchCommand, UsageErrors) {
  for (const std::vector<std::string> &args : std::vector<std::vector<std::string>>{
           {},
           {"a.argus", "b.argus"},
           {"a.argus", "--artifact", kTiny},
           {"--artifact", kTiny, "--format=xml"},
           {"--artifact", kTiny, "--timeout", "0"},
           {"--artifact", kTiny, "--timeout", "soon"},
           {"--artifact", kTiny, "--target", "sm80"},
           {"--artifact", kTiny, "--keep", "/tmp/x"},
           {"--artifact", kSource + "/no/such/dir"},
           {"--artifact", kTiny, "--bogus"},
       }) {
    const ProcessResult r = argus_bench(args);
    EXPECT_EQ(r.exit_code, 2) << testing::PrintToString(args) << r.err;
    EXPECT_TRUE(contains(r.err, "argus: error:")) << r.err;
  }
}

TEST(BenchCommand, CompileFailureIsReported) {
  const ProcessResult r =
      argus_bench({kSource + "/no/such/file.argus", "--runner", canned("ok.sh")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "error (compile)")) << r.err;
  const ProcessResult j =
      argus_bench({kSource + "/no/such/file.argus", "--runner", canned("ok.sh"), "--format=json"});
  EXPECT_EQ(j.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(j.out)["stage"], "compile") << j.out;
}

// ------------------------------------------------------ argus bench, runners

TEST(BenchCommand, TableOfGoodResults) {
  const ProcessResult r = argus_bench({"--artifact", kTiny, "--runner", canned("ok.sh")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char *part : {"kernel", "median ms", "gemm_tiled", "M=4096 N=4096 K=4096", "yes",
                           "1.25e-06", "1.5000", "91.6 TFLOP/s", "9.3%", "3355 GB/s", "69.9%",
                           "refused", "device: NVIDIA H200", "assume(M % 64 == 0) fails"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
}

TEST(BenchCommand, JsonPassesResultsThrough) {
  const ProcessResult r =
      argus_bench({"--artifact", kTiny, "--runner", canned("ok.sh"), "--format=json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["tflops"], 91.6);
  EXPECT_EQ(j[2]["refused"], true);
}

TEST(BenchCommand, WrongResultExitsOne) {
  const ProcessResult r = argus_bench({"--artifact", kTiny, "--runner", canned("incorrect.sh")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "NO")) << r.out;
  EXPECT_TRUE(contains(r.out, "relative error 0.7 exceeds")) << r.out;
  const ProcessResult j =
      argus_bench({"--artifact", kTiny, "--runner", canned("incorrect.sh"), "--format=json"});
  EXPECT_EQ(j.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(j.out)[0]["correct"], false);
}

TEST(BenchCommand, TextBeforeTheJsonIsSkipped) {
  const ProcessResult r = argus_bench({"--artifact", kTiny, "--runner", canned("banner.sh")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "scale")) << r.out;
}

TEST(BenchCommand, GarbageIsReported) {
  const ProcessResult r = argus_bench({"--artifact", kTiny, "--runner", canned("garbage.sh")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "printed no JSON result")) << r.err;
  EXPECT_TRUE(contains(r.err, "{not json")) << r.err;
  const ProcessResult j =
      argus_bench({"--artifact", kTiny, "--runner", canned("garbage.sh"), "--format=json"});
  EXPECT_EQ(j.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(j.out)["stage"], "runner") << j.out;
}

TEST(BenchCommand, NonZeroExitWithoutOutputIsReported) {
  const ProcessResult r = argus_bench({"--artifact", kTiny, "--runner", canned("fail.sh")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "exited with status 7")) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot open the device")) << r.err; // its stderr is passed on
  const ProcessResult missing =
      argus_bench({"--artifact", kTiny, "--runner", "no-such-runner-xyz {artifact}"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(contains(missing.err, "cannot run no-such-runner-xyz")) << missing.err;
}

TEST(BenchCommand, HangingRunnerTimesOut) {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r =
      argus_bench({"--artifact", kTiny, "--runner", canned("hang.sh"), "--timeout", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "error (timeout)")) << r.err;
  EXPECT_TRUE(contains(r.err, "did not finish within 1 s")) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  const ProcessResult j = argus_bench(
      {"--artifact", kTiny, "--runner", canned("hang.sh"), "--timeout", "0.5", "--format=json"});
  EXPECT_EQ(j.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(j.out)["stage"], "timeout") << j.out;
}

TEST(BenchCommand, RunnerErrorJsonIsReported) {
  const ProcessResult r = argus_bench({"--artifact", kTiny, "--runner", canned("error.sh")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "runner error (kernel): gemm_tiled: an illegal memory access"))
      << r.err;
  const ProcessResult j =
      argus_bench({"--artifact", kTiny, "--runner", canned("error.sh"), "--format=json"});
  EXPECT_EQ(j.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(j.out)["stage"], "kernel");
}

TEST(BenchCommand, TemplateAndRunnerArguments) {
  // No {artifact} in the template: it is appended; words after -- follow it.
  const ProcessResult r =
      argus_bench({"--artifact", kTiny, "--runner", "sh " + kRunners + "/args.sh", "--format=json",
                   "--", "--iters", "7", "--size", "M=1,N=2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string echoed = nlohmann::json::parse(r.out)[0]["device"];
  EXPECT_TRUE(contains(echoed, kTiny + " --iters 7 --size M=1,N=2")) << echoed;
}

// ------------------------------------------------ the real argus-runner

ProcessOptions runner_env(const std::string &cache) {
  ProcessOptions o;
  o.env.emplace_back("ARGUS_RUNNER_CACHE", cache);
  o.timeout = std::chrono::seconds(280);
  return o;
}

std::string temp_cache(const std::string &name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("argus-runner-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(RunnerScript, MissingArtifactIsAJsonError) {
  const ProcessResult r =
      run_process(kSource + "/codegen/runner/argus-runner", {kSource + "/no/such/artifact"});
  EXPECT_EQ(r.exit_code, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stage"], "artifact");
  const ProcessResult usage = run_process(kSource + "/codegen/runner/argus-runner", {});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(usage.out)["stage"], "usage");
}

TEST(RunnerScript, MissingCompilerIsAJsonError) {
  const std::string cache = temp_cache("nonvcc");
  ProcessOptions o = runner_env(cache);
  o.env.emplace_back("ARGUS_NVCC", "/no/such/nvcc");
  const ProcessResult r = run_process(kSource + "/codegen/runner/argus-runner", {kTiny}, o);
  EXPECT_EQ(r.exit_code, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stage"], "build");
  EXPECT_TRUE(contains(j["error"].get<std::string>(), "nvcc")) << r.out;
  std::filesystem::remove_all(cache);
}

// The default template end to end: argus-runner next to argus builds the test
// artifact with nvcc and runs it. Without a GPU the runner's answer is a JSON
// error of stage "device" (or "build" without nvcc); with one, results.
TEST(RunnerScript, DefaultTemplateEndToEnd) {
  const std::string cache = temp_cache("e2e");
  const ProcessResult r = argus_bench({"--artifact", kTiny, "--format=json", "--timeout", "270",
                                       "--", "--iters", "50", "--warmup", "5"},
                                      runner_env(cache));
  std::filesystem::remove_all(cache);
  const auto j = nlohmann::json::parse(r.out);
  if (j.is_object()) {
    EXPECT_EQ(r.exit_code, 1);
    const std::string stage = j["stage"];
    EXPECT_TRUE(stage == "device" || stage == "build") << r.out << r.err;
  } else {
    ASSERT_TRUE(j.is_array()) << r.out;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["kernel"], "matmul_naive");
    EXPECT_EQ(j[0]["correct"], true);
  }
}

TEST(RunnerBinary, BuiltWithTheTestArtifact) {
  const std::string binary = ARGUS_RUNNER_FIXTURE_BINARY;
  if (binary.empty())
    GTEST_SKIP() << "nvcc was not found at configure time";
  const ProcessResult usage = run_process(binary, {kTiny, "--iters", "zero"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(usage.out)["stage"], "usage");
  const ProcessResult help = run_process(binary, {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "Usage: argus-runner"));

  const ProcessResult r =
      run_process(binary, {kTiny, "--kernel", "scale_skip", "--size", "N=1000"});
  const auto j = nlohmann::json::parse(r.out);
  if (j.contains("error")) { // no GPU here
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(j["stage"], "device") << r.out;
  } else { // a GPU: the unwritten element must be caught
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(j["correct"], false);
    EXPECT_TRUE(contains(j["why"].get<std::string>(), "never written")) << r.out;
  }
  const ProcessResult unknown = run_process(binary, {kTiny, "--kernel", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(unknown.out)["stage"], "plan") << unknown.out;
}

} // namespace
