// The server in process: lifecycle, errors, cancellation and diagnostics,
// driven through string streams.
#include "argus/server/server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace argus::server {
namespace {

using nlohmann::json;

std::string frame(const json &message) {
  const std::string body = message.dump();
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

json request(int id, const std::string &method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json notification(const std::string &method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

struct Session {
  int exit_code = -1;
  std::vector<json> messages;
};

Session run(const std::vector<json> &messages) {
  std::string input;
  for (const json &message : messages)
    input += frame(message);
  std::istringstream in(input);
  std::ostringstream out;
  std::ostringstream log_stream;
  Logger log(log_stream, LogLevel::Debug);
  Transport reader(in, out, log);
  Server server(reader, log);
  Session session;
  session.exit_code = server.run();
  std::istringstream written(out.str());
  std::ostringstream sink;
  Transport parser(written, sink, log);
  for (ReadResult next = parser.read(); next.kind == ReadResult::Kind::Message;
       next = parser.read())
    session.messages.push_back(next.message);
  return session;
}

const json kInitialize = request(1, "initialize", {{"capabilities", json::object()}});

// The diagnostics pushed in a session, in order.
std::vector<json> published(const Session &s) {
  std::vector<json> out;
  for (const json &m : s.messages)
    if (m.value("method", "") == "textDocument/publishDiagnostics")
      out.push_back(m["params"]);
  return out;
}

// The answer to request `id` (null when there is none).
json response(const Session &s, int id) {
  for (const json &m : s.messages)
    if (m.contains("id") && m["id"] == id && !m.contains("method"))
      return m;
  return nullptr;
}

TEST(Server, ShutdownThenExitIsZero) {
  const Session s =
      run({kInitialize, notification("initialized"), request(2, "shutdown"), notification("exit")});
  EXPECT_EQ(s.exit_code, 0);
  ASSERT_EQ(s.messages.size(), 2u);
  EXPECT_EQ(s.messages[0]["result"]["capabilities"]["positionEncoding"], "utf-16");
  EXPECT_EQ(s.messages[0]["result"]["capabilities"]["textDocumentSync"]["change"], 2);
  EXPECT_TRUE(s.messages[1]["result"].is_null());
}

TEST(Server, NullParamsAreAccepted) {
  const Session s =
      run({kInitialize,
           json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}, {"params", nullptr}},
           json{{"jsonrpc", "2.0"}, {"method", "exit"}, {"params", nullptr}}});
  EXPECT_EQ(s.exit_code, 0);
  ASSERT_EQ(s.messages.size(), 2u);
  EXPECT_TRUE(s.messages[1]["result"].is_null());
}

TEST(Server, ExitWithoutShutdownIsOne) {
  EXPECT_EQ(run({kInitialize, notification("exit")}).exit_code, 1);
  EXPECT_EQ(run({notification("exit")}).exit_code, 1);
  EXPECT_EQ(run({kInitialize}).exit_code, 1); // input ends
}

TEST(Server, NegotiatesUtf8WhenOffered) {
  const Session s = run(
      {request(1, "initialize",
               {{"capabilities", {{"general", {{"positionEncodings", {"utf-8", "utf-16"}}}}}}})});
  EXPECT_EQ(s.messages.at(0)["result"]["capabilities"]["positionEncoding"], "utf-8");
}

TEST(Server, RequestBeforeInitialize) {
  const Session s = run({request(7, "textDocument/diagnostic")});
  EXPECT_EQ(s.messages.at(0)["id"], 7);
  EXPECT_EQ(s.messages.at(0)["error"]["code"], -32002);
}

TEST(Server, UnknownMethodAndInvalidRequests) {
  const Session s = run({kInitialize, request(2, "nope/nothing"), notification("nope/ignored"),
                         json{{"jsonrpc", "2.0"}, {"id", 3}}, json::array({1, 2}),
                         json{{"jsonrpc", "1.0"}, {"id", 4}, {"method", "x"}},
                         json{{"jsonrpc", "2.0"}, {"id", 5}, {"method", 42}}});
  ASSERT_EQ(s.messages.size(), 6u);
  EXPECT_EQ(s.messages[1]["error"]["code"], -32601);
  EXPECT_EQ(s.messages[2]["id"], 3);
  EXPECT_EQ(s.messages[2]["error"]["code"], -32600);
  EXPECT_TRUE(s.messages[3]["id"].is_null());
  EXPECT_EQ(s.messages[3]["error"]["code"], -32600);
  EXPECT_EQ(s.messages[4]["error"]["code"], -32600);
  EXPECT_EQ(s.messages[5]["error"]["code"], -32600);
}

// A kernel without front-end errors: its invariant check (Z3 picks sizes)
// takes milliseconds, far longer than reading the messages that follow.
const std::string kCheckedKernel = "@kernel(grid=(N // 32,), block=(32,))\n"
                                   "def k(A: Tensor((N,), f32), N: i32):\n"
                                   "    assume(N % 32 == 0)\n"
                                   "    A[block_id(0) * 32 + thread_id(0)] = 1.0\n";

json open_document(const std::string &uri, const std::string &text, int version = 1) {
  return notification(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", uri}, {"languageId", "argus"}, {"version", version}, {"text", text}}}});
}

TEST(Server, CancelsARequestWaitingForItsCheck) {
  const std::string uri = "file:///tmp/a.argus";
  const Session s = run({kInitialize, open_document(uri, kCheckedKernel),
                         request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}}),
                         notification("$/cancelRequest", {{"id", 2}}),
                         notification("$/cancelRequest", {{"id", 99}}),
                         notification("$/setTrace", {{"value", "off"}})});
  // initialize, the cancelled pull, the diagnostics (the front end's first,
  // before or after the cancel, then the whole check's)
  const std::vector<json> pushed = published(s);
  ASSERT_EQ(s.messages.size(), 2 + pushed.size());
  EXPECT_EQ(response(s, 2)["error"]["code"], -32800);
  ASSERT_FALSE(pushed.empty());
  EXPECT_LE(pushed.size(), 2u);
  EXPECT_EQ(pushed.back()["diagnostics"], json::array());
}

TEST(Server, ANewVersionAnswersWaitingRequestsContentModified) {
  const std::string uri = "file:///tmp/a.argus";
  std::string edited = kCheckedKernel;
  edited.replace(edited.find("1.0"), 3, "2.0");
  const Session s =
      run({kInitialize, open_document(uri, kCheckedKernel),
           request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}}),
           notification("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                                   {"contentChanges", {{{"text", edited}}}}}),
           request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}})});
  EXPECT_EQ(response(s, 2)["error"]["code"], -32801);
  // Version 1 was superseded before its check ended: at most its front end's
  // report is pushed (when that was done before the change came); the last
  // report is version 2's, and its pull answers.
  const std::vector<json> pushed = published(s);
  ASSERT_FALSE(pushed.empty());
  EXPECT_LE(pushed.size(), 3u);
  EXPECT_EQ(pushed.back()["version"], 2);
  for (size_t i = 0; i + 1 < pushed.size(); ++i)
    EXPECT_LE(pushed[i]["version"], pushed[i + 1]["version"]);
  EXPECT_EQ(response(s, 3)["result"]["kind"], "full");
}

// The message loop stays responsive: a hover sent right after opening the
// example with the longest check (about a second) is answered from the front
// end before the check publishes its diagnostics.
TEST(Server, HoverDuringALongCheckAnswersFirst) {
  std::ifstream file(std::string(ARGUS_EXAMPLES_DIR) + "/gemm_vectorized.argus");
  ASSERT_TRUE(file);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string uri = "file:///tmp/gemm_vectorized.argus";
  const size_t at = text.find("assume(") + 7; // on a size parameter
  const uint32_t line = static_cast<uint32_t>(std::count(text.begin(), text.begin() + at, '\n'));
  const uint32_t column = static_cast<uint32_t>(at - text.rfind('\n', at) - 1);
  const Session s = run({kInitialize, open_document(uri, text),
                         request(2, "textDocument/hover",
                                 {{"textDocument", {{"uri", uri}}},
                                  {"position", {{"line", line}, {"character", column}}}})});
  // initialize, the front end's report, the hover, the whole check's report.
  ASSERT_EQ(s.messages.size(), 4u);
  EXPECT_EQ(s.messages[1]["method"], "textDocument/publishDiagnostics");
  EXPECT_EQ(s.messages[2]["id"], 2);
  EXPECT_TRUE(s.messages[2]["result"].contains("contents")) << s.messages[2].dump();
  EXPECT_EQ(s.messages[3]["method"], "textDocument/publishDiagnostics");
}

// `exit` right after work that runs on the command workers (a compile, the
// refactors of a code action): run() returns only once their answers are
// written whole, so nothing writes while the caller tears the output down.
// The fuzzer found a frame cut short after its header.
TEST(Server, ExitWaitsForRunningCommands) {
  const std::string uri = "file:///tmp/a.argus";
  const Session s =
      run({kInitialize, open_document(uri, kCheckedKernel),
           request(2, "workspace/executeCommand",
                   {{"command", "argus.compile"}, {"arguments", {{{"uri", uri}}}}}),
           request(3, "textDocument/codeAction",
                   {{"textDocument", {{"uri", uri}}},
                    {"range",
                     {{"start", {{"line", 3}, {"character", 0}}},
                      {"end", {{"line", 3}, {"character", 0}}}}},
                    {"context", {{"diagnostics", json::array()}, {"only", {"refactor"}}}}}),
           request(4, "shutdown"), notification("exit")});
  EXPECT_EQ(s.exit_code, 0);
  std::vector<int> answered;
  for (const json &message : s.messages)
    if (message.contains("id"))
      answered.push_back(message["id"].get<int>());
  std::sort(answered.begin(), answered.end());
  // The code action waits for the check, which exit cancels: it is answered
  // (with its actions or an error) either way; nothing is left half-written.
  EXPECT_EQ(answered, (std::vector<int>{1, 2, 3, 4})) << json(s.messages).dump();
}

// A request that arrived before `shutdown` and waits for its document's front
// end is answered normally, and before `shutdown` itself, so a client that
// sends `exit` after that answer loses none; one sent after is refused. (The
// input ends without `exit`: run() drains what is in flight.)
TEST(Server, ShutdownAnswersAfterTheRequestsBeforeIt) {
  const std::string uri = "file:///tmp/a.argus";
  const Session s =
      run({kInitialize, open_document(uri, kCheckedKernel),
           request(2, "textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}}),
           request(3, "shutdown"),
           request(4, "textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}})});
  EXPECT_EQ(s.exit_code, 0);
  std::vector<int> order;
  std::map<int, json> answers;
  for (const json &message : s.messages)
    if (message.contains("id")) {
      order.push_back(message["id"].get<int>());
      answers[message["id"].get<int>()] = message;
    }
  ASSERT_EQ(answers.count(2), 1u);
  EXPECT_FALSE(answers[2].value("result", json()).empty()) << answers[2].dump();
  EXPECT_TRUE(answers[3].contains("result") && answers[3]["result"].is_null()) << answers[3].dump();
  EXPECT_EQ(answers[4]["error"]["code"], -32600);
  const auto at = [&](int id) { return std::find(order.begin(), order.end(), id) - order.begin(); };
  EXPECT_LT(at(2), at(3)) << json(s.messages).dump();
}

TEST(Server, PublishesAndPullsDiagnosticsWithUtf8Positions) {
  const std::string uri = "file:///tmp/b.argus";
  const std::string text =
      "@kernel(grid=(1,), block=(32,))\n"
      "def k(A: Tensor((32,), f32)):\n"
      "    _s = \"\xF0\x9F\x98\x80\xC3\xA9\"; A[thread_id(0)] = h\xC3\xA9llo\n";
  const Session s =
      run({request(1, "initialize",
                   {{"capabilities", {{"general", {{"positionEncodings", {"utf-8"}}}}}}}),
           open_document(uri, text),
           request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}})});
  ASSERT_EQ(s.messages.size(), 3u);
  const json &published = s.messages[1]["params"];
  EXPECT_EQ(published["version"], 1);
  ASSERT_EQ(published["diagnostics"].size(), 1u);
  const json &diagnostic = published["diagnostics"][0];
  EXPECT_EQ(diagnostic["code"], "E0301");
  EXPECT_EQ(diagnostic["source"], "argus");
  EXPECT_EQ(diagnostic["range"]["start"]["character"], 37);
  EXPECT_EQ(diagnostic["range"]["end"]["character"], 43);
  EXPECT_EQ(s.messages[2]["result"]["kind"], "full");
  EXPECT_EQ(s.messages[2]["result"]["items"], published["diagnostics"]);
}

// A big file's results are pushed while its check goes on (issue 12, big
// files): the first report has some kernels' diagnostics, the last all of
// them, which is also what a pull gets.
TEST(Server, PushesABigFilesResultsWhileItsCheckGoesOn) {
  const std::string uri = "file:///tmp/big.argus";
  std::string text;
  const int kernels = 120;
  for (int i = 0; i < kernels; ++i)
    text += "@kernel(grid=1, block=64)\ndef clash" + std::to_string(i) +
            "(Y: Tensor((64,), f32)):\n    Y[thread_id() // 2] = 1.0\n\n";
  const Session s =
      run({kInitialize, open_document(uri, text),
           request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}})});
  std::vector<size_t> pushed;
  json pulled;
  for (const json &m : s.messages) {
    if (m.value("method", "") == "textDocument/publishDiagnostics")
      pushed.push_back(m["params"]["diagnostics"].size());
    if (m.value("id", json()) == 2)
      pulled = m["result"];
  }
  // The front end's report (nothing: the file is valid), then some kernels'
  // races, then all of them.
  ASSERT_GE(pushed.size(), 3u) << "no report before the whole check";
  EXPECT_EQ(pushed.front(), 0u);
  EXPECT_GT(pushed[1], 0u);
  EXPECT_LT(pushed[1], pushed.back());
  EXPECT_TRUE(std::is_sorted(pushed.begin(), pushed.end()));
  EXPECT_EQ(pushed.back(), static_cast<size_t>(kernels)); // one race each
  EXPECT_EQ(pulled["items"].size(), static_cast<size_t>(kernels));
}

// A client that pulls (vscode-languageclient, Neovim 0.10+) is never pushed
// the same diagnostics too; a report with the resultId it has is "unchanged".
TEST(Server, PullClientsGetNoPushAndUnchangedReports) {
  const std::string uri = "file:///tmp/pull.argus";
  const std::string text = "@kernel(grid=(1,), block=(32,))\n"
                           "def k(A: Tensor((32,), f32)):\n"
                           "    A[thread_id(0)] = undefined_name\n";
  const json initialize =
      request(1, "initialize",
              {{"capabilities",
                {{"textDocument", {{"diagnostic", {{"dynamicRegistration", false}}}}},
                 {"workspace", {{"diagnostics", {{"refreshSupport", true}}}}}}}});
  const json pull = request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
  const Session first = run({initialize, open_document(uri, text), pull});
  for (const json &m : first.messages)
    EXPECT_NE(m.value("method", ""), "textDocument/publishDiagnostics") << m.dump();
  ASSERT_EQ(first.messages.size(), 2u);
  const json &report = first.messages[1]["result"];
  EXPECT_EQ(report["kind"], "full");
  ASSERT_EQ(report["items"].size(), 1u);
  const std::string id = report["resultId"];
  ASSERT_FALSE(id.empty());

  json again = pull;
  again["params"]["previousResultId"] = id;
  json stale = pull;
  stale["id"] = 3;
  stale["params"]["previousResultId"] = "not-" + id;
  const json workspace =
      request(4, "workspace/diagnostic", {{"previousResultIds", {{{"uri", uri}, {"value", id}}}}});
  const Session second =
      run({initialize, open_document(uri, text), again, stale, workspace,
           notification("workspace/didChangeConfiguration", {{"settings", json::object()}})});
  std::map<int, json> results;
  bool refreshed = false;
  for (const json &m : second.messages) {
    EXPECT_NE(m.value("method", ""), "textDocument/publishDiagnostics") << m.dump();
    if (m.value("method", "") == "workspace/diagnostic/refresh")
      refreshed = true;
    else if (m.contains("id") && m["id"].is_number_integer())
      results[m["id"].get<int>()] = m["result"];
  }
  EXPECT_EQ(results[2], (json{{"kind", "unchanged"}, {"resultId", id}}));
  EXPECT_EQ(results[3]["kind"], "full");
  EXPECT_EQ(results[3]["resultId"], id);
  ASSERT_EQ(results[4]["items"].size(), 1u);
  EXPECT_EQ(results[4]["items"][0]["kind"], "unchanged");
  EXPECT_EQ(results[4]["items"][0]["uri"], uri);
  EXPECT_TRUE(refreshed) << "a settings change must ask a pull client to pull again";
}

// -32602 names the field and what it got, never a JSON library's internals.
TEST(Server, InvalidParamsNameTheField) {
  const std::string uri = "file:///tmp/p.argus";
  const Session s = run(
      {kInitialize, open_document(uri, "X = 1\n"),
       request(2, "textDocument/hover",
               {{"textDocument", {{"uri", uri}}}, {"position", {{"line", "a"}, {"character", 0}}}}),
       request(3, "textDocument/hover", {{"textDocument", {{"uri", 7}}}}),
       request(4, "textDocument/codeAction",
               {{"textDocument", {{"uri", uri}}}, {"range", {{"start", {{"line", 0}}}}}}),
       request(5, "textDocument/rename",
               {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", 0}}}})});
  std::map<int, std::string> errors;
  for (const json &m : s.messages)
    if (m.contains("error") && m["id"].is_number_integer())
      errors[m["id"].get<int>()] = m["error"]["message"];
  EXPECT_EQ(errors[2], "params.position.line: expected an unsigned integer, got a string (\"a\")");
  EXPECT_EQ(errors[3], "params.textDocument.uri: expected a string, got an integer (7)");
  EXPECT_EQ(errors[4], "params.range.start.character: missing");
  EXPECT_EQ(errors[5], "params.newName: missing");
  for (const auto &[id, message] : errors)
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
}

// A request that is JSON but for invalid UTF-8 is answered -32700 with its id.
TEST(Server, InvalidUtf8AnswersWithTheRequestsId) {
  const std::string body = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"textDocument/hover\","
                           "\"params\":{\"textDocument\":{\"uri\":\"file:///\xff.argus\"}}}";
  std::istringstream in(frame(kInitialize) + "Content-Length: " + std::to_string(body.size()) +
                        "\r\n\r\n" + body);
  std::ostringstream out, log_stream;
  Logger log(log_stream, LogLevel::Error);
  Transport reader(in, out, log);
  Server server(reader, log);
  server.run();
  EXPECT_NE(out.str().find("\"id\":9"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("-32700"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("not valid UTF-8"), std::string::npos) << out.str();
}

// vscode-languageclient sends didChangeConfiguration with `settings: null`
// and answers workspace/configuration: the server asks for its section after
// `initialized` and on such a change, and applies the answer.
TEST(Server, PullsItsSettingsWithWorkspaceConfiguration) {
  const json initialize =
      request(1, "initialize", {{"capabilities", {{"workspace", {{"configuration", true}}}}}});
  const std::string uri = "file:///tmp/c.argus";
  const Session s =
      run({initialize, notification("initialized"),
           notification("workspace/didChangeConfiguration", {{"settings", nullptr}}),
           json{{"jsonrpc", "2.0"},
                {"id", "argus/configuration/2"},
                {"result", {{{"runner", 42}}}}}, // a bad setting: logged, nothing else
           open_document(uri, "X = 1\n"),
           request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}})});
  int asked = 0;
  for (const json &m : s.messages)
    if (m.value("method", "") == "workspace/configuration") {
      ++asked;
      EXPECT_EQ(m["params"]["items"][0]["section"], "argus");
    }
  EXPECT_EQ(asked, 2); // after initialized, and for settings: null
  EXPECT_EQ(s.messages.back()["id"], 2);
  EXPECT_EQ(s.messages.back()["result"]["kind"], "full");
}

TEST(Server, PullForUnknownDocumentIsInvalidParams) {
  const Session s =
      run({kInitialize,
           request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", "file:///none"}}}}),
           request(3, "textDocument/diagnostic", {{"textDocument", 5}})});
  EXPECT_EQ(s.messages.at(1)["error"]["code"], -32602);
  EXPECT_EQ(s.messages.at(2)["error"]["code"], -32602);
}

TEST(Server, RequestsAfterShutdownAreInvalid) {
  const Session s =
      run({kInitialize, request(2, "shutdown"), request(3, "textDocument/diagnostic")});
  EXPECT_EQ(s.messages.at(2)["error"]["code"], -32600);
}

TEST(UriToPath, DecodesPercentEscapes) {
  EXPECT_EQ(uri_to_path("file:///tmp/a%20b.argus"), "/tmp/a b.argus");
  EXPECT_EQ(uri_to_path("untitled:1"), "untitled:1");
}

} // namespace
} // namespace argus::server
