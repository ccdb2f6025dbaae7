// workspace/executeCommand's commands called directly, as a worker thread
// will call them: cancellation that kills a running benchmark, progress,
// settings, and the gfx942 compile where this build has the compiler.
#include "argus/server/commands.h"

#include "argus/codegen/compile.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace argus::server {
namespace {

using nlohmann::json;

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A context with one open document and the messages it sent.
struct Fixture {
  std::atomic<bool> cancelled{false};
  CommandContext context{cancelled};
  std::mutex mutex;
  std::vector<json> sent;

  explicit Fixture(const std::string &example) {
    const std::string path = std::string(ARGUS_SOURCE_DIR) + "/examples/" + example;
    context.document =
        DocumentSnapshot{"file://" + path, path, read_file(path), 3, nullptr, nullptr};
    context.settings.runner =
        "sh '" + std::string(ARGUS_SOURCE_DIR) + "/tests/server/fake_runner.sh' {artifact}";
    context.allowed_runners = {"sh *fake_runner.sh* {artifact}"}; // as --allow-runner would
    context.notify = [this](json message) {
      std::lock_guard<std::mutex> lock(mutex);
      sent.push_back(std::move(message));
    };
  }
  json arguments(json extra = json::object()) const {
    extra["uri"] = context.document->uri;
    return json::array({extra});
  }
  std::vector<std::string> progress_kinds() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::string> kinds;
    for (const json &m : sent)
      if (m.value("method", "") == "$/progress")
        kinds.push_back(m["params"]["value"]["kind"]);
    return kinds;
  }
};

TEST(BenchmarkCommand, CancellationKillsTheRunner) {
  Fixture f("gemm_naive.argus");
  f.context.work_done_token = "bench-1";
  // Cancel once the runner runs (the "report" progress comes just before it starts).
  std::thread canceller([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (f.progress_kinds().size() < 2 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    f.cancelled = true;
  });
  const auto start = std::chrono::steady_clock::now();
  try {
    execute_command("argus.benchmark",
                    f.arguments({{"emitOnly", true}, {"args", {"--sleep", "30"}}}), f.context);
    ADD_FAILURE() << "a cancelled benchmark returned a result";
  } catch (const CommandError &error) {
    EXPECT_EQ(error.code, -32800);
  }
  canceller.join();
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20) << "the runner (sleeping 30 s) was not killed";
  EXPECT_EQ(f.progress_kinds(), (std::vector<std::string>{"begin", "report", "end"}));
}

TEST(BenchmarkCommand, ResultsThroughTheTemplateWithTheClientsToken) {
  Fixture f("gemm_naive.argus");
  f.context.work_done_token = 17;
  const json result = execute_command(
      "argus.benchmark", f.arguments({{"emitOnly", true}, {"args", {"it's"}}}), f.context);
  ASSERT_TRUE(result["ok"].get<bool>()) << result.dump(2);
  ASSERT_EQ(result["results"].size(), 1u);
  EXPECT_EQ(result["results"][0]["kernel"], "gemm_naive");
  // The quoted word arrived intact.
  EXPECT_EQ(result["results"][0]["device"], "fake GPU it's");
  EXPECT_EQ(f.progress_kinds(), (std::vector<std::string>{"begin", "report", "end"}));
  for (const json &m : f.sent)
    EXPECT_EQ(m["params"]["token"], 17);
}

TEST(BenchmarkCommand, NoProgressWithoutTokenOrClientSupport) {
  Fixture f("gemm_naive.argus");
  const json result =
      execute_command("argus.benchmark", f.arguments({{"emitOnly", true}}), f.context);
  EXPECT_TRUE(result["ok"].get<bool>()) << result.dump(2);
  EXPECT_TRUE(f.sent.empty());
}

// A template from settings that the server's command line did not allow is
// refused before anything runs (the marker stays absent), with the way to allow it.
TEST(BenchmarkCommand, TemplateNotAllowedIsRefused) {
  Fixture f("gemm_naive.argus");
  const auto marker = std::filesystem::temp_directory_path() /
                      ("argus-refused-runner-" + std::to_string(::getpid()));
  f.context.settings.runner = "touch " + marker.string() + " {artifact}";
  try {
    execute_command("argus.benchmark", f.arguments({{"emitOnly", true}}), f.context);
    ADD_FAILURE() << "the template ran";
  } catch (const CommandError &e) {
    EXPECT_EQ(e.code, -32602);
    EXPECT_NE(e.message.find("--allow-runner="), std::string::npos) << e.message;
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
  std::filesystem::remove(marker);
}

// File names with shell syntax, quotes, newlines and comment ends: the
// artifact directory is named from a safe stem and a hash, the generated
// source keeps them inside its comment and string literals, and nothing runs.
TEST(CompileCommand, HostileFileNamesRunNothingAndInjectNothing) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("argus-hostile-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string marker = (dir / "marker").string();
  for (const std::string &name :
       std::vector<std::string>{"g$(touch " + marker + ").argus", "g`touch " + marker + "`.argus",
                                "a\nint injected_code = 1; // .argus", "q\"'*/ \\.argus"}) {
    Fixture f("gemm_naive.argus");
    f.context.document->path = (dir / name).string();
    f.context.document->uri = "file://" + f.context.document->path;
    const json result =
        execute_command("argus.compile", f.arguments({{"emitOnly", true}}), f.context);
    ASSERT_EQ(result["status"], "ok") << result.dump(2).substr(0, 2000);
    const std::string artifact = result["artifact"];
    const std::string leaf = std::filesystem::path(artifact).filename().string();
    EXPECT_EQ(leaf.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                     "0123456789._-"),
              std::string::npos)
        << leaf;
    const std::string source = result["source"];
    // The newline of the name never starts a line of code.
    EXPECT_EQ(source.find("\nint injected_code"), std::string::npos) << source.substr(0, 400);
    // The name appears only in the first comment line and in #line string literals.
    std::istringstream lines(source);
    for (std::string line; std::getline(lines, line);) {
      if (line.find(dir.string()) != std::string::npos) {
        EXPECT_TRUE(line.starts_with("// Generated by argus from ") || line.starts_with("#line "))
            << line;
      }
    }
    std::filesystem::remove_all(artifact);
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
  std::filesystem::remove_all(dir);
}

// The default artifact directory lives in $TMPDIR/argus-lsp-<uid>; planted
// there as a symlink by someone else, it is refused, not followed.
TEST(CompileCommand, SymlinkedPrivateTempDirIsRefused) {
  const auto tmp =
      std::filesystem::temp_directory_path() / ("argus-tmpdir-" + std::to_string(::getpid()));
  const auto elsewhere = tmp / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::filesystem::create_directory_symlink(elsewhere,
                                            tmp / ("argus-lsp-" + std::to_string(::getuid())));
  const char *saved = std::getenv("TMPDIR");
  const std::string saved_value = saved ? saved : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  Fixture f("gemm_naive.argus");
  try {
    execute_command("argus.compile", f.arguments({{"emitOnly", true}}), f.context);
    ADD_FAILURE() << "compiled into a symlinked directory";
  } catch (const CommandError &e) {
    EXPECT_NE(e.message.find("not a private directory"), std::string::npos) << e.message;
  }
  if (saved)
    ::setenv("TMPDIR", saved_value.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
  std::filesystem::remove_all(tmp);
}

// An output directory that exists and is not an artifact is left alone.
TEST(CompileCommand, OutputThatIsNoArtifactIsRefused) {
  Fixture f("gemm_naive.argus");
  const auto dir =
      std::filesystem::temp_directory_path() / ("argus-not-artifact-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "notes.txt") << "mine\n"; }
  const json result = execute_command(
      "argus.compile", f.arguments({{"emitOnly", true}, {"output", dir.string()}}), f.context);
  EXPECT_EQ(result["status"], "io-error") << result.dump(2).substr(0, 2000);
  EXPECT_NE(result["error"].get<std::string>().find("no Argus artifact"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "meta.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "notes.txt"));
  std::filesystem::remove_all(dir);
}

TEST(BenchmarkCommand, TimeLimit) {
  Fixture f("gemm_naive.argus");
  f.context.settings.benchmark_timeout_s = 0.3;
  const json result = execute_command(
      "argus.benchmark", f.arguments({{"emitOnly", true}, {"args", {"--sleep", "30"}}}), f.context);
  EXPECT_FALSE(result["ok"].get<bool>());
  EXPECT_EQ(result["stage"], "timeout");
}

TEST(CompileCommand, Gfx942InProcess) {
  if (!codegen::gfx942_compiler_available())
    GTEST_SKIP() << "no gfx942 compiler in this build";
  Fixture f("gemm_mfma_gfx942.argus");
  const std::string dir = ::testing::TempDir() + "argus-commands-gfx942";
  const json result = execute_command(
      "argus.compile", f.arguments({{"target", "gfx942"}, {"output", dir}}), f.context);
  ASSERT_EQ(result["status"], "ok") << result.dump(2).substr(0, 4000);
  EXPECT_EQ(result["artifact"], dir);
  EXPECT_EQ(result["version"], 3);
  EXPECT_NE(result["source"].get<std::string>().find("__global__"), std::string::npos);
  const json &kernels = result["compile"]["kernels"];
  ASSERT_FALSE(kernels.empty());
  EXPECT_GT(kernels[0]["vgprs"].get<int>(), 0) << kernels.dump();
  EXPECT_TRUE(std::ifstream(dir + "/kernels.hsaco").good());
}

TEST(CompileCommand, CancelledBeforeItStarts) {
  Fixture f("gemm_naive.argus");
  f.cancelled = true;
  EXPECT_THROW(execute_command("argus.compile", f.arguments({{"emitOnly", true}}), f.context),
               CommandError);
}

TEST(CommandSettings, ValuesAndProblems) {
  CommandSettings settings;
  const auto problems = configure_commands(json{{"target", "gfx942"},
                                                {"runner", "ssh gpu {runner} {artifact}"},
                                                {"benchmarkTimeoutSeconds", 12.5},
                                                {"checker", {{"lints", true}}}},
                                           settings);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(settings.target, codegen::GpuTarget::Gfx942);
  EXPECT_EQ(settings.runner, "ssh gpu {runner} {artifact}");
  EXPECT_DOUBLE_EQ(settings.benchmark_timeout_s, 12.5);
  const auto bad = configure_commands(
      json{{"target", "sm80"}, {"runner", ""}, {"benchmarkTimeoutSeconds", -1}}, settings);
  EXPECT_EQ(bad.size(), 3u);
  EXPECT_EQ(settings.target, codegen::GpuTarget::Gfx942); // unchanged
}

TEST(CommandArguments, DocumentUri) {
  EXPECT_EQ(command_document_uri(json::array({{{"uri", "file:///a"}}})), "file:///a");
  EXPECT_EQ(command_document_uri(json{{"uri", "file:///b"}}), "file:///b");
  EXPECT_FALSE(command_document_uri(json::array()));
  EXPECT_FALSE(command_document_uri(json::array({{{"uri", 3}}})));
}

} // namespace
} // namespace argus::server
