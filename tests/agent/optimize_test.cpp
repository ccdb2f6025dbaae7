// `argus agent optimize` (argus/agent/optimize.h): the offline tuner's edits,
// the honest-evaluation rule, and the whole loop through the real `argus lsp`
// with a runner the test controls (tuning_runner.sh times a copy kernel by
// its block size), as a user runs it from the command line.
#include "argus/agent/optimize.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace argus::agent {
namespace {

using nlohmann::json;

const std::string kFixtures = std::string(ARGUS_SOURCE_DIR) + "/tests/agent/fixtures";

TEST(OptimizeTest, KnobsAreModuleConstantsThatArePowersOfTwo) {
  const std::string text = "BM = 64  # rows\nPAD = 2\nNAME = 3\nlower = 64\n    BK = 32\n";
  const auto knobs = discover_knobs(text);
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0].name, "BM");
  EXPECT_EQ(knobs[0].values, (std::vector<int64_t>{16, 32, 64, 128, 256}));
  EXPECT_EQ(knobs[1].name, "PAD");
  EXPECT_EQ(knobs[1].values, (std::vector<int64_t>{2, 4, 8}));
  const auto moved = set_constant(text, "BM", 128);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->substr(0, 16), "BM = 128  # rows");
  EXPECT_FALSE(set_constant(text, "BK", 64)); // not a module constant (indented)
}

// Honest evaluation: a candidate must prove at least what the start proved
// and keep every assertion (deleting one to get a clean check is refused).
TEST(OptimizeTest, ACandidateMustProveAtLeastWhatTheStartProved) {
  const json start = {
      {"properties",
       {{"tags", {{"verdict", "all-sizes"}}}, {"races", {{"verdict", "instances"}}}}}};
  const std::string start_text = "assert_tag(v, {\"i\": i})\nassert_covered(Y)\n";
  std::string why;
  EXPECT_TRUE(proves_at_least(start, start_text, start, start_text, why));
  json weaker = start;
  weaker["properties"]["tags"]["verdict"] = "instances";
  EXPECT_FALSE(proves_at_least(start, start_text, weaker, start_text, why));
  EXPECT_EQ(why, "tags was all-sizes, now instances");
  json gone = start;
  gone["properties"]["tags"]["verdict"] = "absent"; // every assert_tag deleted
  EXPECT_FALSE(proves_at_least(start, start_text, gone, start_text, why));
  // One assertion of two deleted: the verdicts alone would not say it.
  EXPECT_FALSE(proves_at_least(start, start_text, start, "assert_covered(Y)\n", why));
  EXPECT_EQ(why, "assertions removed (2 before, 1 now)");
  json stronger = start;
  stronger["properties"]["races"]["verdict"] = "all-sizes";
  EXPECT_TRUE(proves_at_least(start, start_text, stronger, start_text, why));
}

TEST(OptimizeTest, WorkspaceEditsApplyInUtf16Units) {
  const std::string text = "# ü\nx = 1\ny = 2\n";
  const json edit = {
      {"changes",
       {{"file:///k.argus",
         {{{"range",
            {{"start", {{"line", 1}, {"character", 4}}}, {"end", {{"line", 1}, {"character", 5}}}}},
           {"newText", "42"}},
          {{"range",
            {{"start", {{"line", 0}, {"character", 2}}}, {"end", {{"line", 0}, {"character", 3}}}}},
           {"newText", "é"}}}}}}};
  EXPECT_EQ(apply_workspace_edit(text, edit, "file:///k.argus"), "# é\nx = 42\ny = 2\n");
  EXPECT_FALSE(apply_workspace_edit(text, edit, "file:///other.argus"));
  EXPECT_EQ(file_uri("/tmp/a b/k#1.argus"), "file:///tmp/a%20b/k%231.argus");
}

TEST(OptimizeTest, ThePlotShowsPointsFailuresTheBestAndTheRoofline) {
  const json trajectory = json::array(
      {{{"step", 2}, {"action", "knob:BM=128"}, {"outcome", "correct"}, {"seconds", 0.5}},
       {{"step", 3}, {"action", "technique:double-buffer"}, {"outcome", "violation"}},
       {{"step", 4}, {"action", "technique:unroll"}, {"outcome", "no-change"}}});
  const std::string svg = speed_plot(trajectory, 1.0, 4.0);
  EXPECT_TRUE(svg.starts_with("<svg "));
  EXPECT_NE(svg.find("knob:BM=128: 2.00x"), std::string::npos);
  EXPECT_NE(svg.find("class=\"failed\""), std::string::npos);
  EXPECT_NE(svg.find("technique:double-buffer: violation"), std::string::npos);
  EXPECT_EQ(svg.find("technique:unroll"), std::string::npos); // no change, no mark
  EXPECT_NE(svg.find("roofline 4.00x"), std::string::npos);
  EXPECT_EQ(speed_plot(trajectory, 1.0, 0).find("roofline"), std::string::npos);
}

std::string read(const std::filesystem::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct CommandRun {
  int status = -1;
  std::string output;
};
CommandRun run(const std::string &command) {
  CommandRun r;
  FILE *pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return r;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    r.output.append(buffer, n);
  r.status = WEXITSTATUS(::pclose(pipe));
  return r;
}

std::vector<json> steps_of(const std::filesystem::path &trajectory) {
  std::vector<json> steps;
  std::istringstream lines(read(trajectory));
  std::string line;
  while (std::getline(lines, line)) {
    const json step = json::parse(line);
    if (step["action"] != "baseline")
      steps.push_back(step);
  }
  return steps;
}

std::string optimize_command(const std::string &kernel, const std::string &extra) {
  return std::string(ARGUS_BINARY) + " agent optimize '" + kFixtures + "/" + kernel +
         "' --kernel copy --emit-only --runner 'sh " + kFixtures +
         "/tuning_runner.sh {artifact}' " + extra;
}

// The loop end to end as a user runs it: `argus agent optimize` starts
// `argus lsp` allowing exactly the runner template, checks and benchmarks
// the start, and moves BLOCK until the runner's fastest size; the file itself
// is not written.
TEST(OptimizeTest, TheOfflineTunerFindsTheFastestKnobThroughTheServer) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("argus-agent-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const std::string kernel = kFixtures + "/tunable_copy.argus";
  const std::string before = read(kernel);
  const std::string command =
      std::string(ARGUS_BINARY) + " agent optimize '" + kernel +
      "' --kernel copy --budget 8 --emit-only --allow-narrower-sizes --runner 'sh " + kFixtures +
      "/tuning_runner.sh {artifact}' --out '" + out.string() + "' 2>&1";
  FILE *pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    output.append(buffer, n);
  const int status = ::pclose(pipe);
  ASSERT_EQ(WEXITSTATUS(status), 0) << output;
  EXPECT_NE(output.find("baseline: 4.0000 ms"), std::string::npos) << output;
  EXPECT_NE(output.find("best 1 ms, baseline 4 ms (4x)"), std::string::npos) << output;
  EXPECT_NE(read(out / "best.argus").find("BLOCK = 256\n"), std::string::npos);
  EXPECT_EQ(read(kernel), before); // the input is never written
  // The trajectory: the baseline, then one JSON line per step, each with its
  // reward. BLOCK's values (16 to 256) are each tried once; no refactor
  // applies to this kernel, so the search is spent before the budget of 8.
  const std::vector<json> steps = steps_of(out / "trajectory.jsonl");
  bool found = false;
  std::set<std::string> actions;
  for (const json &step : steps) {
    EXPECT_TRUE(step.contains("reward") && step.contains("outcome")) << step;
    found = found || (step["action"] == "knob:BLOCK=256" && step["outcome"] == "correct");
    EXPECT_TRUE(actions.insert(step["action"]).second) << "tried twice: " << step;
  }
  EXPECT_EQ(steps.size(), 4u) << read(out / "trajectory.jsonl");
  EXPECT_NE(output.find("the search has nothing left to try after 4 steps"), std::string::npos)
      << output;
  EXPECT_TRUE(found) << read(out / "trajectory.jsonl");
  EXPECT_NE(read(out / "report.md").find("| step | action | outcome |"), std::string::npos);
  // The plot: a point per correct step, the best-so-far line ending at 4x.
  const std::string plot = read(out / "report.svg");
  EXPECT_TRUE(plot.starts_with("<svg ")) << plot.substr(0, 200);
  size_t points = 0;
  for (size_t at = plot.find("<circle"); at != std::string::npos; at = plot.find("<circle", at + 1))
    ++points;
  size_t correct = 0;
  for (const json &step : steps)
    correct += step["outcome"] == "correct";
  EXPECT_EQ(points, correct);
  EXPECT_NE(plot.find("knob:BLOCK=256: 4.00x"), std::string::npos);
  EXPECT_NE(plot.find("class=\"best\""), std::string::npos);
  std::filesystem::remove_all(out);
}

// A start that does not benchmark is an error that says why (the runner's
// own message, reached through --runner-arg), and nothing is written.
TEST(OptimizeTest, AStartThatDoesNotBenchmarkIsAClearError) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("argus-agent-broken-" + std::to_string(::getpid()));
  const std::string command = std::string(ARGUS_BINARY) + " agent optimize '" + kFixtures +
                              "/tunable_copy.argus' --kernel copy --budget 2 --emit-only --runner "
                              "'sh " +
                              kFixtures +
                              "/tuning_runner.sh {artifact}' --runner-arg --broken --out '" +
                              out.string() + "' 2>&1";
  FILE *pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    output.append(buffer, n);
  EXPECT_EQ(WEXITSTATUS(::pclose(pipe)), 1) << output;
  EXPECT_NE(output.find("the starting kernel's benchmark failed at runner: asked to fail by "
                        "--broken"),
            std::string::npos)
      << output;
  EXPECT_FALSE(std::filesystem::exists(out / "best.argus"));
}

// The search, not a sweep: from (BLOCK 64, ITEMS 4) every single move is
// slower (a local optimum of coordinate descent); the tuner then moves two
// knobs together and finds (128, 8), twice as fast.
TEST(OptimizeTest, TheSearchMovesTwoKnobsAtALocalOptimum) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("argus-agent-pair-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const CommandRun r = run(optimize_command(
      "tunable_pair.argus", "--budget 10 --allow-narrower-sizes --out '" + out.string() + "'"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("best 1 ms, baseline 2 ms (2x)"), std::string::npos) << r.output;
  const std::string best = read(out / "best.argus");
  EXPECT_NE(best.find("BLOCK = 128\n"), std::string::npos) << best;
  EXPECT_NE(best.find("ITEMS = 8\n"), std::string::npos) << best;
  const std::vector<json> steps = steps_of(out / "trajectory.jsonl");
  size_t singles_before = 0, pair_at = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string action = steps[i]["action"];
    if (action == "knob:BLOCK=128,ITEMS=8")
      pair_at = i + 1;
    else if (!pair_at && action.find(',') == std::string::npos)
      ++singles_before;
  }
  EXPECT_GT(pair_at, 0u) << r.output;
  EXPECT_EQ(singles_before, 4u) << r.output; // the four neighbours first, each slower
  std::filesystem::remove_all(out);
}

// By default a version must accept every size its start accepted: BLOCK 128
// makes assume(N % BLOCK == 0) refuse N = 64, which the start's check ran
// at, so it is refused before any benchmark; smaller blocks accept more and
// count (slower here).
TEST(OptimizeTest, AVersionThatRefusesSizesTheStartAcceptedIsRefused) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("argus-agent-sizes-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const CommandRun r =
      run(optimize_command("tunable_copy.argus", "--budget 3 --out '" + out.string() + "'"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("knob:BLOCK=128 -> violation"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("accepts fewer sizes than the start: its assumptions refuse N=64"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("knob:BLOCK=32 -> correct"), std::string::npos) << r.output;
  EXPECT_NE(read(out / "best.argus").find("BLOCK = 64\n"), std::string::npos);
  std::filesystem::remove_all(out);
}

bool overlapping(const std::string &log) {
  // "begin PID T JOB" / "end PID T JOB" lines: two benchmarks overlap when one
  // begins before the other ends.
  std::map<std::string, std::pair<double, double>> spans;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string what, pid;
    double t = 0;
    if (fields >> what >> pid >> t)
      (what == "begin" ? spans[pid].first : spans[pid].second) = t;
  }
  for (const auto &[a, x] : spans)
    for (const auto &[b, y] : spans)
      if (a < b && x.first < y.second && y.first < x.second)
        return true;
  return false;
}

// --jobs 2: a round's two candidates are benchmarked at once (each by its
// own server and runner process), and the search finds the same best.
TEST(OptimizeTest, JobsBenchmarkCandidatesInParallel) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("argus-agent-jobs-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  const std::string log = (out / "runner.log").string();
  const CommandRun r = run(optimize_command(
      "tunable_copy.argus", "--budget 4 --jobs 2 --allow-narrower-sizes --runner-arg "
                            "--slow --runner-arg '" +
                                log + "' --out '" + out.string() + "/result'"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("best 1 ms, baseline 4 ms (4x)"), std::string::npos) << r.output;
  EXPECT_EQ(steps_of(out / "result" / "trajectory.jsonl").size(), 4u);
  EXPECT_TRUE(overlapping(read(log))) << read(log);
  std::filesystem::remove_all(out);
}

// --resume continues a trajectory: the steps on file are not run again (the
// runner is not asked for the baseline twice) and the budget counts them; a
// trajectory of another kernel is refused.
TEST(OptimizeTest, ResumeContinuesTheTrajectory) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("argus-agent-resume-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  const std::string log = (out / "runner.log").string();
  const std::string common = "--allow-narrower-sizes --runner-arg --slow --runner-arg '" + log +
                             "' --out '" + out.string() + "/result'";
  CommandRun r = run(optimize_command("tunable_pair.argus", "--budget 3 " + common));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<json> first = steps_of(out / "result" / "trajectory.jsonl");
  ASSERT_EQ(first.size(), 3u);
  r = run(optimize_command("tunable_pair.argus", "--budget 10 --resume " + common));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("resumed: 3 steps, baseline 2.0000 ms"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 4/10"), std::string::npos) << r.output;
  const std::vector<json> all = steps_of(out / "result" / "trajectory.jsonl");
  ASSERT_EQ(all.size(), 10u) << r.output;
  std::set<std::string> actions;
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i]["step"], i + 2) << all[i];
    EXPECT_TRUE(actions.insert(all[i]["action"]).second) << "tried twice: " << all[i];
  }
  EXPECT_NE(read(out / "result" / "best.argus").find("ITEMS = 8\n"), std::string::npos);
  // One baseline and ten steps benchmarked in all.
  size_t benchmarks = 0;
  std::istringstream lines(read(log));
  for (std::string line; std::getline(lines, line);)
    benchmarks += line.starts_with("begin");
  EXPECT_EQ(benchmarks, 11u);
  r = run(optimize_command("tunable_copy.argus", "--budget 12 --resume " + common));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("continues another kernel or another version"), std::string::npos)
      << r.output;
  std::filesystem::remove_all(out);
}

// --budget 1s: no round starts once a second is spent (each benchmark here
// takes 0.4 s), well before the search would be spent.
TEST(OptimizeTest, ATimeBudgetEndsTheLoop) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("argus-agent-time-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  const CommandRun r = run(optimize_command(
      "tunable_pair.argus",
      "--budget 1s --allow-narrower-sizes --runner-arg --slow --runner-arg '" +
          (out / "runner.log").string() + "' --out '" + out.string() + "/result'"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("the time budget of 1 s is spent after "), std::string::npos) << r.output;
  const size_t steps = steps_of(out / "result" / "trajectory.jsonl").size();
  EXPECT_GE(steps, 1u);
  EXPECT_LE(steps, 4u) << r.output;
  std::filesystem::remove_all(out);
}

TEST(OptimizeTest, BadCommandLinesAreUsageErrors) {
  for (const std::string args :
       {"agent",
        "agent tune x.argus",
        "agent optimize",
        "agent optimize x.argus --kernel",
        "agent optimize /nonexistent.argus --kernel k",
        "agent optimize x --kernel k --budget 0",
        "agent optimize x --kernel k --target sm80",
        "agent optimize x --kernel k --llm http://127.0.0.1:1/v1 --offline",
        "agent optimize x --kernel k --kb /nonexistent-kb",
        "agent optimize x --kernel k --llm http://127.0.0.1:1/v1 --llm-model m --token-budget x",
        "agent optimize x --kernel k --llm http://127.0.0.1:1/v1 --llm-model m --repair-rounds "
        "-1",
        "agent optimize x --kernel k --jobs 0",
        "agent optimize x --kernel k --jobs many",
        "agent optimize x --kernel k --budget 5x",
        "agent optimize x --kernel k --budget m",
        "agent optimize x --kernel k --library 'time {op}'",
        "agent eval",
        "agent eval /nonexistent-tasks",
        "agent eval tasks --kernel k",
        "agent eval tasks --resume",
        "agent eval tasks --p 0"}) {
    const std::string command = std::string(ARGUS_BINARY) + " " + args + " 2>&1";
    FILE *pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char buffer[4096];
    while (std::fread(buffer, 1, sizeof buffer, pipe) > 0) {
    }
    EXPECT_EQ(WEXITSTATUS(::pclose(pipe)), 2) << args;
  }
}

} // namespace
} // namespace argus::agent
