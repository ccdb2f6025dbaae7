// The language server's protocol adapter: lifecycle, dispatch, documents and
// diagnostics over a Transport. `dsl/` computes; this class only translates.
#pragma once

#include "argus/dsl/frontend.h"
#include "argus/server/commands.h"
#include "argus/server/document.h"
#include "argus/server/log.h"
#include "argus/server/scheduler.h"
#include "argus/server/transport.h"

#include <nlohmann/json.hpp>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace argus::server {

// JSON-RPC and LSP error codes.
namespace error_code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;
inline constexpr int kRequestCancelled = -32800;
} // namespace error_code

struct ServerOptions {
  std::string version = "0.0.0"; // reported as serverInfo.version
  FrontendOptions frontend;
};

// Decodes a file:// URI to a path (percent-escapes resolved); other URIs are
// returned unchanged.
std::string uri_to_path(const std::string &uri);

class Server {
public:
  Server(Transport &transport, Logger &log, ServerOptions options = {});

  // Reads and answers messages until `exit` or the end of the input.
  // Returns the process exit status: 0 after shutdown + exit, 1 otherwise.
  int run();

  // Handles one decoded message (a request is queued, see run()).
  void handle(const nlohmann::json &message);
  bool exited() const { return exited_; }
  ColumnUnit position_encoding() const { return encoding_; }

private:
  void dispatch_request(const nlohmann::json &request);
  void handle_notification(const std::string &method, const nlohmann::json &params);
  void run_pending();
  void cancel(const nlohmann::json &id);

  nlohmann::json initialize(const nlohmann::json &params);
  nlohmann::json pull_diagnostics(const nlohmann::json &params);
  void did_open(const nlohmann::json &params);
  void did_change(const nlohmann::json &params);
  void did_close(const nlohmann::json &params);
  void publish(const Document &document);
  nlohmann::json diagnostics_of(const Document &document);
  nlohmann::json code_actions(const nlohmann::json &params);
  nlohmann::json hover(const nlohmann::json &params);
  nlohmann::json document_symbols(const nlohmann::json &params);
  // Applies {"checker": {...}} from initializationOptions or
  // workspace/didChangeConfiguration; returns what was not understood.
  std::vector<std::string> configure(const nlohmann::json &settings);
  const CheckedFile *current_check(const std::string &uri);
  // workspace/executeCommand (server_commands.cpp -> commands.h).
  nlohmann::json execute_command_request(const nlohmann::json &params);
  const CheckedFile &check_of(const Document &document);

  void reply(const nlohmann::json &id, nlohmann::json result);
  void reply_error(const nlohmann::json &id, int code, const std::string &message);

  Transport &transport_;
  Logger &log_;
  ServerOptions options_;
  Scheduler scheduler_;
  DocumentStore documents_;
  // The last check of each open document (its text is file->source): pushed
  // and pulled diagnostics, code actions, hover and symbols of one text share it.
  std::map<std::string, std::shared_ptr<const CheckedFile>> last_checks_;
  std::deque<nlohmann::json> pending_; // requests read but not yet answered
  ColumnUnit encoding_ = ColumnUnit::Utf16CodeUnits;
  CommandSettings command_settings_; // target, runner, benchmark time limit
  bool client_progress_ = false;      // capabilities.window.workDoneProgress
  bool initialized_ = false;
  bool shutdown_ = false;
  bool exited_ = false;
};

} // namespace argus::server
