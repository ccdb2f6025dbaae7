// The agent's language-server client: lsp_client.h.
#include "argus/agent/lsp_client.h"

#include <thread>
#include <unistd.h>

namespace argus::agent {

using nlohmann::json;
using std::chrono::milliseconds;

LspClient::LspClient(LspClientOptions options) : options_(std::move(options)) {}

LspClient::~LspClient() {
  if (!running_)
    return;
  try {
    shutdown();
  } catch (const std::exception &) {
    // A server that does not answer is killed by LspProcess's destructor.
  }
}

pid_t LspClient::server_pid() const { return process_ ? process_->pid() : -1; }

void LspClient::start() {
  if (running_)
    return;
  spawn_and_initialize();
}

void LspClient::spawn_and_initialize() {
  std::vector<std::string> args{"lsp"};
  args.insert(args.end(), options_.args.begin(), options_.args.end());
  try {
    process_ = std::make_unique<LspProcess>(options_.program, args);
  } catch (const std::exception &error) {
    running_ = false;
    throw LspError(LspError::Kind::Start, 0,
                   "cannot start the language server '" + options_.program + "': " + error.what());
  }
  running_ = true;
  const json params = {
      {"processId", static_cast<int64_t>(::getpid())},
      {"clientInfo", {{"name", "argus-agent"}}},
      {"rootUri", nullptr},
      {"initializationOptions", options_.settings},
      {"capabilities",
       {{"general", {{"positionEncodings", {"utf-16"}}}},
        {"workspace", {{"configuration", true}}},
        // Pull diagnostics: the server sends no publishDiagnostics to a client that pulls.
        {"textDocument",
         {{"diagnostic", {{"dynamicRegistration", false}}},
          {"codeAction",
           {{"codeActionLiteralSupport",
             {{"codeActionKind", {{"valueSet", {"quickfix", "refactor"}}}}}}}}}}}}};
  try {
    capabilities_ =
        await(process_->request("initialize", params), options_.start_timeout, "initialize")
            .value("capabilities", json::object());
    process_->notify("initialized", json::object());
  } catch (const LspError &error) {
    running_ = false;
    throw LspError(LspError::Kind::Start, error.code,
                   "the language server '" + options_.program +
                       "' did not initialize: " + error.what());
  } catch (const std::exception &error) {
    running_ = false;
    throw LspError(LspError::Kind::Start, 0,
                   "the language server '" + options_.program +
                       "' did not initialize: " + error.what());
  }
}

void LspClient::restart(const std::string &why) {
  ++restarts_done_;
  if (process_)
    process_->finish(milliseconds(0));
  process_.reset();
  running_ = false;
  try {
    spawn_and_initialize();
  } catch (const LspError &error) {
    throw LspError(LspError::Kind::Exited, 0,
                   "the language server exited (" + why +
                       ") and could not be started again: " + error.what());
  }
  // The new server knows none of our documents.
  for (const auto &[uri, doc] : documents_)
    process_->notify(
        "textDocument/didOpen",
        {{"textDocument",
          {{"uri", uri}, {"languageId", "argus"}, {"version", doc.version}, {"text", doc.text}}}});
}

// Answers a request the server sent us: the agent's settings for its
// `argus` section, null for the rest (progress tokens, refreshes).
static json answer_for(const json &request, const json &settings) {
  const std::string method = request.value("method", "");
  json result = nullptr;
  if (method == "workspace/configuration") {
    result = json::array();
    const json items = request.contains("params") && request["params"].is_object()
                           ? request["params"].value("items", json::array())
                           : json::array();
    for (const json &item : items)
      result.push_back(item.is_object() && item.value("section", "") == "argus" ? settings
                                                                                : json(nullptr));
  }
  return {{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", result}};
}

json LspClient::await(int id, milliseconds timeout, const std::string &method) {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      throw LspError(LspError::Kind::Timeout, 0,
                     method + ": no answer from the language server within " +
                         std::to_string(timeout.count()) + " ms");
    Arrival arrival;
    try {
      // Our answer, or anything the server sends on its own (requests are
      // answered, notifications dropped: the agent pulls what it needs).
      arrival = process_->wait_for(
          [id](const json &m) {
            return m.is_object() && (m.contains("method") || (m.contains("id") && m["id"] == id));
          },
          left);
    } catch (const std::runtime_error &) {
      if (process_->ended())
        throw LspError(LspError::Kind::Exited, 0, method + ": the language server exited");
      throw LspError(LspError::Kind::Timeout, 0,
                     method + ": no answer from the language server within " +
                         std::to_string(timeout.count()) + " ms");
    }
    const json &m = arrival.message;
    if (m.contains("method")) {
      if (m.contains("id")) {
        try {
          process_->send(answer_for(m, options_.settings));
        } catch (const std::runtime_error &) {
          // The server is gone: the wait above says so next.
        }
      }
      continue;
    }
    if (m.contains("error")) {
      const json &e = m["error"];
      throw LspError(LspError::Kind::Server, e.is_object() ? e.value("code", 0) : 0,
                     method + ": " +
                         (e.is_object() ? e.value("message", std::string("error")) : e.dump()));
    }
    return m.value("result", json());
  }
}

json LspClient::request(const std::string &method, json params,
                        std::optional<milliseconds> timeout) {
  if (!running_)
    throw LspError(LspError::Kind::Exited, 0, method + ": the language server is not running");
  for (;;) {
    try {
      int id = 0;
      try {
        id = process_->request(method, params);
      } catch (const std::runtime_error &error) {
        throw LspError(LspError::Kind::Exited, 0,
                       method + ": the language server exited (" + error.what() + ")");
      }
      return await(id, timeout.value_or(options_.request_timeout), method);
    } catch (const LspError &error) {
      if (error.kind != LspError::Kind::Exited)
        throw;
      if (restarts_done_ >= options_.restarts)
        throw LspError(LspError::Kind::Exited, 0,
                       std::string(error.what()) + " after " + std::to_string(restarts_done_) +
                           " restart" + (restarts_done_ == 1 ? "" : "s") + "; giving up");
      restart(error.what());
    }
  }
}

void LspClient::notify(const std::string &method, json params) {
  if (!running_)
    throw LspError(LspError::Kind::Exited, 0, method + ": the language server is not running");
  try {
    process_->notify(method, std::move(params));
  } catch (const std::runtime_error &) {
    // Found gone by the next request, which restarts it.
  }
}

void LspClient::open(const std::string &uri, const std::string &text) {
  Document &doc = documents_[uri];
  doc.text = text;
  doc.version = 1;
  notify(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", uri}, {"languageId", "argus"}, {"version", 1}, {"text", text}}}});
}

void LspClient::change(const std::string &uri, const std::string &text) {
  auto it = documents_.find(uri);
  if (it == documents_.end())
    return open(uri, text);
  it->second.text = text;
  ++it->second.version;
  notify("textDocument/didChange",
         {{"textDocument", {{"uri", uri}, {"version", it->second.version}}},
          {"contentChanges", json::array({{{"text", text}}})}});
}

void LspClient::close(const std::string &uri) {
  if (documents_.erase(uri))
    notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
}

json LspClient::diagnostics(const std::string &uri) {
  const json report = request("textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
  return report.is_object() ? report.value("items", json::array()) : json::array();
}

json LspClient::code_actions(const std::string &uri, const json &range, const json &diagnostics) {
  const json result =
      request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}},
                                          {"range", range},
                                          {"context", {{"diagnostics", diagnostics}}}});
  return result.is_array() ? result : json::array();
}

json LspClient::execute(const std::string &command, const json &arguments,
                        std::optional<milliseconds> timeout) {
  return request("workspace/executeCommand",
                 {{"command", command}, {"arguments", json::array({arguments})}}, timeout);
}

int LspClient::shutdown() {
  if (!running_)
    return -1;
  running_ = false;
  try {
    await(process_->request("shutdown", nullptr), milliseconds(10000), "shutdown");
    process_->notify("exit", nullptr);
  } catch (const std::exception &) {
    // Gone or hanging: finish() kills it.
  }
  const int status = process_->finish(milliseconds(5000));
  process_.reset();
  return status;
}

} // namespace argus::agent
