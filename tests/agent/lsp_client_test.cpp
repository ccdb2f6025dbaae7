// The agent's client (agent/include/argus/agent/lsp_client.h) against the real
// `argus lsp`: what an editor sees, pulled; code actions and commands; the
// server's errors; one restart after a crash, then a clear failure; time
// limits on a server that never answers; settings through
// workspace/configuration.
#include "argus/agent/lsp_client.h"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

namespace argus::agent {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

const char *kUri = "file:///tmp/argus-agent-test/racy.argus";

// A race (no barrier between the copy into shared memory and the reads) and an
// uncoalesced load (a lint).
const char *kRacy = R"(@kernel(grid=1, block=64)
def racy(X: Tensor((64,), f32), Y: Tensor((64,), f32)):
    s = make_shared((64,), f32)
    t = thread_id()
    s[t] = X[t]
    Y[t] = s[63 - t]


@kernel(grid=1, block=32)
def strided(X: Tensor((32, 32), f32), Y: Tensor((32,), f32)):
    t = thread_id()
    Y[t] = X[t, 0]
)";

LspClientOptions options() {
  LspClientOptions o;
  o.program = ARGUS_BINARY;
  o.request_timeout = milliseconds(60000);
  return o;
}

bool has_code(const json &items, const std::string &code) {
  for (const json &d : items)
    if (d.value("code", "") == code)
      return true;
  return false;
}

// argus.verification with "accepts": whether each kernel's assumptions hold
// at the sizes given (the agent's guard against narrowed kernels); a
// malformed list is the protocol's invalid-params error.
TEST(LspClientTest, VerificationSaysWhichSizesAKernelAccepts) {
  LspClient client(options());
  client.start();
  const std::string uri = "file:///tmp/argus-agent-accepts.argus";
  client.open(uri, R"(@kernel(grid=cdiv(N, 64), block=64)
def scale(X: Tensor((N,), f32), N: i32):
    assume(N % 64 == 0, N > 0)
    i = block_id() * 64 + thread_id()
    X[i] = X[i] * 2.0
)");
  const json answer = client.execute(
      "argus.verification", {{"uri", uri}, {"accepts", {{{"N", 128}}, {{"N", 96}}, {{"M", 1}}}}});
  ASSERT_EQ(answer["kernels"].size(), 1u) << answer.dump(1);
  EXPECT_EQ(answer["kernels"][0]["accepts"], json({true, false, false})) << answer.dump(1);
  try {
    client.execute("argus.verification", {{"uri", uri}, {"accepts", {{{"N", "many"}}}}});
    ADD_FAILURE() << "a size that is no integer was accepted";
  } catch (const LspError &error) {
    EXPECT_EQ(error.code, -32602) << error.what();
  }
  EXPECT_EQ(client.shutdown(), 0);
}

TEST(LspClientTest, PullsDiagnosticsOffersFixesAndRunsCommands) {
  LspClient client(options());
  client.start();
  EXPECT_TRUE(client.server_capabilities().contains("diagnosticProvider"));
  client.open(kUri, kRacy);
  const json items = client.diagnostics(kUri);
  ASSERT_TRUE(has_code(items, "E0902")) << items.dump(1);
  json race;
  for (const json &d : items)
    if (d.value("code", "") == "E0902")
      race = d;
  // The counterexample, as an editor gets it.
  EXPECT_EQ(race["data"]["kind"], "race");
  EXPECT_TRUE(race["data"].contains("thread"));
  const json actions = client.code_actions(kUri, race["range"], json::array({race}));
  bool barrier = false;
  for (const json &a : actions)
    barrier = barrier || a.value("title", "").find("syncthreads") != std::string::npos;
  EXPECT_TRUE(barrier) << actions.dump(1);
  const json summary = client.execute("argus.verification", {{"uri", kUri}});
  ASSERT_EQ(summary["kernels"].size(), 2u) << summary.dump(1);
  EXPECT_EQ(summary["kernels"][0]["summary"]["properties"]["races"]["verdict"], "violated");
  const json layout = client.execute("argus.layout", {{"expr", "(4,2):(2,1)"}});
  EXPECT_EQ(layout["result"], "(4,2):(2,1)") << layout.dump();
  // An edit: the fixed kernel has no race.
  std::string fixed = kRacy;
  fixed.replace(fixed.find("    Y[t] = s[63 - t]"), 0, "    syncthreads()\n");
  client.change(kUri, fixed);
  EXPECT_FALSE(has_code(client.diagnostics(kUri), "E0902"));
  EXPECT_EQ(client.shutdown(), 0);
}

TEST(LspClientTest, TheServersErrorsAreErrorsWithTheirCode) {
  LspClient client(options());
  client.start();
  try {
    client.execute("argus.nothing", json::object());
    FAIL() << "no error";
  } catch (const LspError &error) {
    EXPECT_EQ(error.kind, LspError::Kind::Server);
    EXPECT_EQ(error.code, -32602);
    EXPECT_NE(std::string(error.what()).find("unknown command 'argus.nothing'"), std::string::npos)
        << error.what();
  }
}

TEST(LspClientTest, RestartsOnceAfterACrashThenFailsClearly) {
  LspClient client(options());
  client.start();
  client.open(kUri, kRacy);
  ASSERT_TRUE(has_code(client.diagnostics(kUri), "E0902"));
  const pid_t first = client.server_pid();
  ::kill(first, SIGKILL);
  // The next request finds it gone, starts it again and opens the document again.
  EXPECT_TRUE(has_code(client.diagnostics(kUri), "E0902"));
  EXPECT_EQ(client.restarts_done(), 1);
  EXPECT_NE(client.server_pid(), first);
  ::kill(client.server_pid(), SIGKILL);
  try {
    client.diagnostics(kUri);
    FAIL() << "no error after the second crash";
  } catch (const LspError &error) {
    EXPECT_EQ(error.kind, LspError::Kind::Exited);
    EXPECT_NE(std::string(error.what()).find("giving up"), std::string::npos) << error.what();
  }
}

TEST(LspClientTest, AServerThatNeverAnswersTimesOut) {
  LspClientOptions o = options();
  o.program = ARGUS_SILENT_SERVER;
  o.start_timeout = milliseconds(300);
  LspClient client(o);
  try {
    client.start();
    FAIL() << "started a server that never answers";
  } catch (const LspError &error) {
    EXPECT_EQ(error.kind, LspError::Kind::Start);
    EXPECT_NE(std::string(error.what()).find("no answer from the language server within 300 ms"),
              std::string::npos)
        << error.what();
  }
}

TEST(LspClientTest, AMissingBinaryIsAClearError) {
  LspClientOptions o = options();
  o.program = "/nonexistent/argus";
  LspClient client(o);
  try {
    client.start();
    FAIL() << "started a missing binary";
  } catch (const LspError &error) {
    EXPECT_EQ(error.kind, LspError::Kind::Start);
    EXPECT_NE(std::string(error.what()).find("/nonexistent/argus"), std::string::npos)
        << error.what();
  }
}

// The agent's settings reach the server: as initializationOptions and when
// the server pulls its `argus` section (workspace/configuration).
TEST(LspClientTest, SettingsReachTheServer) {
  LspClientOptions o = options();
  o.settings = {{"checker", {{"lints", false}}}};
  LspClient client(o);
  client.start();
  client.open(kUri, kRacy);
  const json items = client.diagnostics(kUri);
  EXPECT_TRUE(has_code(items, "E0902"));
  EXPECT_FALSE(has_code(items, "W0903")) << items.dump(1);
  LspClient linting(options());
  linting.start();
  linting.open(kUri, kRacy);
  EXPECT_TRUE(has_code(linting.diagnostics(kUri), "W0903"));
}

} // namespace
} // namespace argus::agent
