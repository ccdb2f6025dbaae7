// The agent's language-server client (issue 14, item 1): `argus lsp` as a
// subprocess, spoken to as an editor does. The agent never calls the checker
// or the code generator itself: what it sees is exactly what an editor shows.
//
// Every request has a time limit. The server answers its own requests to us
// (workspace/configuration gets the agent's settings; the others null). When
// the server dies, the client starts it once more, opens the documents again
// and repeats the request that found it gone; a second death is an error that
// says so.
#pragma once

#include "argus/agent/lsp_process.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace argus::agent {

struct LspClientOptions {
  std::string program = "argus"; // the argus binary
  // After `lsp`: --allow-runner=GLOB for the runner template the agent was
  // given (the server refuses any other), --log-file=...
  std::vector<std::string> args;
  // The server's settings (initializationOptions and workspace/configuration):
  // {"target", "runner", "benchmarkTimeoutSeconds", "checker": {...}}.
  nlohmann::json settings = nlohmann::json::object();
  std::chrono::milliseconds request_timeout{std::chrono::seconds(120)};
  std::chrono::milliseconds start_timeout{std::chrono::seconds(30)};
  int restarts = 1; // how many times a server that died is started again
};

class LspError : public std::runtime_error {
public:
  enum class Kind { Server, Timeout, Exited, Start };
  LspError(Kind kind, int code, const std::string &message)
      : std::runtime_error(message), kind(kind), code(code) {}
  Kind kind;
  int code; // the JSON-RPC error code when the server answered with one
};

class LspClient {
public:
  explicit LspClient(LspClientOptions options);
  ~LspClient(); // shutdown and exit when running; kills a server that hangs
  LspClient(const LspClient &) = delete;
  LspClient &operator=(const LspClient &) = delete;

  // Starts the server and initializes it. Throws LspError (Kind::Start).
  void start();

  // A request and its result; throws LspError (the server's error, a time
  // out, or a server that died twice).
  nlohmann::json request(const std::string &method, nlohmann::json params,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  void notify(const std::string &method, nlohmann::json params);

  // Documents, with full-text synchronisation.
  void open(const std::string &uri, const std::string &text);
  void change(const std::string &uri, const std::string &text);
  void close(const std::string &uri);

  // The document's current diagnostics (pulled: textDocument/diagnostic).
  nlohmann::json diagnostics(const std::string &uri);
  // Code actions at a range ({start, end} LSP positions) for the diagnostics given.
  nlohmann::json code_actions(const std::string &uri, const nlohmann::json &range,
                              const nlohmann::json &diagnostics = nlohmann::json::array());
  // workspace/executeCommand: argus.compile, argus.benchmark, argus.explain, ...
  nlohmann::json execute(const std::string &command, const nlohmann::json &arguments,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // shutdown, exit; the server's exit status.
  int shutdown();

  int restarts_done() const { return restarts_done_; }
  pid_t server_pid() const;
  const nlohmann::json &server_capabilities() const { return capabilities_; }

private:
  struct Document {
    std::string text;
    int64_t version = 0;
  };

  void spawn_and_initialize();
  nlohmann::json await(int id, std::chrono::milliseconds timeout, const std::string &method);
  // Answers what the server asked of us (configuration, progress tokens, ...).
  void answer_server_requests();
  void restart(const std::string &why);

  LspClientOptions options_;
  std::unique_ptr<LspProcess> process_;
  std::map<std::string, Document> documents_;
  nlohmann::json capabilities_ = nlohmann::json::object();
  int restarts_done_ = 0;
  bool running_ = false;
};

} // namespace argus::agent
