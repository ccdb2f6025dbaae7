// The model proposer against a scripted model: a real HTTP server on loopback
// (cpp-httplib) that answers chat completions in a planned order, driving the
// loop through the real `argus lsp` and the tests' runner: a version with a
// race the checker rejects, its repair after the counterexample (accepted:
// faster), a version that deletes an assertion (refused), an answer without
// a file, and what the model was told.
#include "argus/agent/llm_proposer.h"
#include "argus/agent/optimize.h"

#include <httplib.h>

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

namespace argus::agent {
namespace {

using nlohmann::json;

const std::string kFixtures = std::string(ARGUS_SOURCE_DIR) + "/tests/agent/fixtures";

std::string read(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fenced(const std::string &file) { return "Here it is:\n```python\n" + file + "```\n"; }

// A chat-completions endpoint that answers from a script, recording requests.
class ScriptedModel {
public:
  explicit ScriptedModel(std::vector<std::string> answers) : answers_(std::move(answers)) {
    server_.Post("/v1/chat/completions", [this](const httplib::Request &request,
                                                httplib::Response &response) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(json::parse(request.body));
      authorization_ = request.get_header_value("Authorization");
      const std::string content =
          next_ < answers_.size() ? answers_[next_++] : std::string("no more ideas");
      const json body = {
          {"id", "scripted"},
          {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}}}},
          {"usage", {{"total_tokens", 100}}}};
      response.set_content(body.dump(), "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ScriptedModel() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::vector<json> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  std::string authorization() {
    std::lock_guard<std::mutex> lock(mutex_);
    return authorization_;
  }

private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<std::string> answers_;
  size_t next_ = 0;
  std::vector<json> requests_;
  std::string authorization_;
};

TEST(ModelTest, AnswersAreFilesInCodeBlocks) {
  EXPECT_EQ(file_from_answer("```python\n@kernel(grid=1, block=1)\ndef k(): pass\n```", ""),
            "@kernel(grid=1, block=1)\ndef k(): pass\n");
  EXPECT_FALSE(file_from_answer("I would vectorize the copy.", ""));
  EXPECT_FALSE(file_from_answer("```\nprint(1)\n```", "")); // not a kernel file
  EXPECT_THROW(ChatClient(ModelOptions{"ftp://x", "m", "", {}, 0, 1, 0.0}), ModelError);
}

// A diff is cheaper than the whole file: hunks apply at their line or the
// nearest place their context matches; one that does not match refuses all.
TEST(ModelTest, AnswersMayBeUnifiedDiffs) {
  const std::string text = "a\nb\nc\nd\ne\n";
  EXPECT_EQ(apply_unified_diff(text, "--- a/k\n+++ b/k\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n"),
            "a\nb\nC\nd\ne\n");
  // Line numbers off by two; two hunks; an insertion.
  EXPECT_EQ(apply_unified_diff(text, "@@ -4,1 +4,1 @@\n-b\n+B\n@@ -4,2 +4,3 @@\n d\n+x\n e\n"),
            "a\nB\nc\nd\nx\ne\n");
  EXPECT_FALSE(apply_unified_diff(text, "@@ -2,1 +2,1 @@\n-z\n+Z\n")); // context not there
  EXPECT_FALSE(apply_unified_diff(text, "just words"));
  EXPECT_FALSE(apply_unified_diff(text, "@@ -1,1 +1,1 @@\n*a\n")); // not a diff line
  // Through file_from_answer: a ```diff block, or a bare one, against the base.
  EXPECT_EQ(file_from_answer("Change c:\n```diff\n@@ -3 +3 @@\n-c\n+C\n```\n", text),
            "a\nb\nC\nd\ne\n");
  EXPECT_EQ(file_from_answer("--- a/k\n+++ b/k\n@@ -1 +1 @@\n-a\n+A\n", text), "A\nb\nc\nd\ne\n");
  EXPECT_FALSE(file_from_answer("```diff\n@@ -1 +1 @@\n-q\n+Q\n```\n", text));
}

TEST(ModelTest, TheTokenBudgetEndsTheEpisode) {
  ScriptedModel model({"one", "two", "three"}); // 100 tokens each
  ModelOptions o;
  o.base_url = model.url();
  o.model = "scripted";
  o.token_budget = 150;
  ChatClient client(o);
  EXPECT_EQ(client.complete({{{"role", "user"}, {"content", "a"}}}), "one");
  EXPECT_EQ(client.complete({{{"role", "user"}, {"content", "b"}}}), "two");
  EXPECT_EQ(client.tokens_used(), 200);
  try {
    client.complete({{{"role", "user"}, {"content", "c"}}});
    FAIL() << "past the budget";
  } catch (const ModelError &error) {
    EXPECT_NE(std::string(error.what()).find("token budget (150) is spent"), std::string::npos);
  }
  EXPECT_EQ(model.requests().size(), 2u); // the third was never sent
}

TEST(ModelTest, AnUnreachableEndpointIsAnErrorAfterTheRetries) {
  ModelOptions o;
  o.base_url = "http://127.0.0.1:9/v1"; // discard port: nothing listens
  o.model = "m";
  o.retries = 1;
  o.timeout = std::chrono::milliseconds(500);
  ChatClient client(o);
  try {
    client.complete({{{"role", "user"}, {"content", "hi"}}});
    FAIL() << "an answer from nowhere";
  } catch (const ModelError &error) {
    EXPECT_NE(std::string(error.what()).find("after 2 attempts"), std::string::npos)
        << error.what();
  }
}

TEST(ModelTest, TheLoopRejectsRepairsAndRefusesThroughTheServer) {
  const std::string start = read(kFixtures + "/tunable_copy.argus");
  // A race: the staged element is read back by another thread with no barrier.
  std::string racy = start;
  racy.replace(racy.find("    v = X[i]\n"), std::string("    v = X[i]\n").size(),
               "    s = make_shared((BLOCK,), f32)\n    t = thread_id()\n    s[t] = X[i]\n"
               "    v = s[(t + 1) % BLOCK]\n");
  std::string faster = start;
  faster.replace(faster.find("BLOCK = 64"), 10, "BLOCK = 256");
  std::string no_assert = faster;
  no_assert.replace(no_assert.find("    assert_tag(v, {\"i\": i})\n"),
                    std::string("    assert_tag(v, {\"i\": i})\n").size(), "");
  // A diff against the best version (BLOCK 256 -> 512: correct, slower).
  const std::string diff = "```diff\n--- a/tunable_copy.argus\n+++ b/tunable_copy.argus\n"
                           "@@ -3,1 +3,1 @@\n-BLOCK = 256\n+BLOCK = 512\n```\n";
  ScriptedModel model({fenced(racy), fenced(faster), fenced(no_assert),
                       "I would rather not write the file.", fenced(faster), diff});
  LspClientOptions client_options;
  client_options.program = ARGUS_BINARY;
  const std::string runner = "sh " + kFixtures + "/tuning_runner.sh {artifact}";
  client_options.args = {"--allow-runner=" + runner};
  client_options.settings = {{"runner", runner}};
  LspClient client(client_options);
  client.start();
  OptimizeOptions o;
  o.file = kFixtures + "/tunable_copy.argus";
  o.kernel = "copy";
  o.budget = 4;
  o.emit_only = true;
  o.knobs = std::vector<Knob>{}; // only the model's moves
  o.model = ModelOptions{model.url(), "scripted", "test-key", std::chrono::seconds(30),
                         0,           1'000'000,  0.0};
  o.repair_rounds = 1;
  o.keep_sizes = false; // BLOCK 256 refuses N = 64, which the start accepted
  const KnowledgeBase kb = load_knowledge_base(std::string(ARGUS_SOURCE_DIR) + "/agent/kb");
  const OptimizeResult result = optimize(client, kb, o);
  const json &t = result.trajectory;
  ASSERT_EQ(t.size(), 3u) << t.dump(1);
  // Step 1: the racy version is rejected, its repair is faster and accepted.
  EXPECT_EQ(t[0]["outcome"], "correct") << t.dump(1);
  EXPECT_EQ(t[0]["repairs"], 1);
  EXPECT_DOUBLE_EQ(result.best_seconds, 1e-3);
  EXPECT_NE(result.best_text.find("BLOCK = 256"), std::string::npos);
  // Step 2: deleting the assertion is refused; the repair has no file.
  EXPECT_EQ(t[1]["outcome"], "violation") << t.dump(1);
  EXPECT_EQ(t[1]["repairs"], 1);
  EXPECT_NE(result.best_text.find("assert_tag(v"), std::string::npos);
  // The best file again is no candidate: that technique is spent, no step.
  // Step 3: the model's diff applies to the best version (BLOCK 512: slower).
  EXPECT_EQ(t[2]["outcome"], "correct") << t.dump(1);
  EXPECT_DOUBLE_EQ(t[2]["seconds"].get<double>(), 1.5e-3);
  EXPECT_NE(t[2]["action"], t[1]["action"]);
  // Then every technique is asked once more ("no more ideas"): none gives a
  // file, the search is spent before the budget of 4.
  EXPECT_TRUE(result.exhausted);
  // What the model was told: the technique's entry, the kernel, and in the
  // repair round the server's counterexample of its racy version.
  const auto requests = model.requests();
  ASSERT_GE(requests.size(), 4u);
  const std::string first = requests[0]["messages"][1]["content"];
  EXPECT_NE(first.find("Invariants to add"), std::string::npos);
  EXPECT_NE(first.find("def copy("), std::string::npos);
  const std::string repair = requests[1]["messages"][1]["content"];
  EXPECT_NE(repair.find("Your last version was refused"), std::string::npos);
  EXPECT_NE(repair.find("E0902"), std::string::npos) << repair.substr(0, 2000);
  EXPECT_NE(repair.find("\"thread\""), std::string::npos); // the counterexample's data
  EXPECT_NE(repair.find("The server's explanation of E09"), std::string::npos)
      << repair.substr(repair.size() > 3000 ? repair.size() - 3000 : 0); // and its history
  const std::string refused = requests[3]["messages"][1]["content"];
  EXPECT_NE(refused.find("proves less than the start"), std::string::npos);
  EXPECT_EQ(model.authorization(), "Bearer test-key");
}

} // namespace
} // namespace argus::agent
