// The language server's protocol adapter (like clangd's ClangdLSPServer over
// ClangdServer): lifecycle, a method table, requests that wait for results,
// and LSP conversions over a Transport. The documents and their pipeline are
// the Workspace's (workspace.h), which knows no LSP; `dsl/` computes.
#pragma once

#include "argus/dsl/driver.h"
#include "argus/server/commands.h"
#include "argus/server/document.h"
#include "argus/server/log.h"
#include "argus/server/scheduler.h"
#include "argus/server/semantic_tokens.h"
#include "argus/server/transport.h"
#include "argus/server/workspace.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
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
inline constexpr int kContentModified = -32801;
} // namespace error_code

struct ServerOptions {
  std::string version = "0.0.0"; // reported as serverInfo.version
  FrontendOptions frontend;
  // Threads for the front end and the checker (at least 1).
  size_t check_threads = 2;
  // Wall-clock limit of the check of each kernel of a document (and of a
  // command's), until the client's `checker.timeLimitMs` says otherwise.
  std::chrono::milliseconds check_time_limit{30000};
  // Runner templates (fnmatch globs) that settings may choose, from
  // `argus lsp --allow-runner=GLOB`; the built-in local runner always may.
  std::vector<std::string> allowed_runners;
};

// The language server. One thread (the one that calls run()) owns all state
// and answers messages in order; a reader thread feeds it client messages,
// and workers (the Scheduler) feed it the results of front-end and checker
// jobs as tasks. Requests that need a result of the document's current
// version wait for it (a newer version answers them -32801).
class Server {
public:
  Server(Transport &transport, Logger &log, ServerOptions options = {});
  ~Server();

  // Reads and answers messages until `exit` or the end of the input (then it
  // finishes the work in flight and answers what waits for it). Returns the
  // process exit status: 0 after shutdown + exit, 1 otherwise.
  int run();

  // Handles one decoded message on the calling thread (for tests and fuzzing
  // without the reader thread); drain() then finishes the work it started.
  void handle(const nlohmann::json &message);
  void drain();
  bool exited() const { return exited_; }
  ColumnUnit position_encoding() const { return encoding_; }

private:
  struct Event {
    enum class Kind { Message, ParseError, End, Task };
    Kind kind = Kind::End;
    nlohmann::json message;
    std::string error;
    std::function<void()> task;
  };

  void read_loop();
  void process(Event event);
  void post_task(std::function<void()> task);

  void dispatch_request(const nlohmann::json &request);
  // The method table of requests (like clangd's ClangdLSPServer binds its
  // handlers): dispatch looks a method up instead of walking an if-chain.
  using RequestHandler =
      std::function<void(Server &, const nlohmann::json &id, const nlohmann::json &params)>;
  static const std::unordered_map<std::string, RequestHandler> &request_table();
  void handle_notification(const std::string &method, const nlohmann::json &params);
  void cancel(const nlohmann::json &id);
  // Whether `method` can be answered now; when not, the request was parked.
  bool ready_or_park(const std::string &method, const nlohmann::json &request);

  nlohmann::json initialize(const nlohmann::json &params);
  nlohmann::json pull_diagnostics(const nlohmann::json &params);
  nlohmann::json workspace_diagnostics(const nlohmann::json &params);
  void did_open(const nlohmann::json &params);
  void did_change(const nlohmann::json &params);
  void did_close(const nlohmann::json &params);
  void did_save(const nlohmann::json &params);
  nlohmann::json code_actions(const nlohmann::json &params); // the quick fixes
  void code_actions_request(const nlohmann::json &id, const nlohmann::json &params);
  nlohmann::json hover(const nlohmann::json &params);
  nlohmann::json document_symbols(const nlohmann::json &params);
  // Applies {"checker": {...}} from initializationOptions or
  // workspace/didChangeConfiguration; returns what was not understood.
  std::vector<std::string> configure(const nlohmann::json &settings);

  // The workspace's events (workspace.h): what waited for the old text is
  // stale; results are reported (pushed, or told to a pull client) and what
  // waited for them is answered.
  void text_changed(const std::string &uri, int64_t version);
  void front_end_ready(const std::string &uri, int64_t version, const FullCheck &front);
  void check_progress(const std::string &uri, int64_t version, const FullCheck &partial);
  void check_ready(const std::string &uri, int64_t version, const FullCheck &full);
  void answer_waiting(const std::string &uri);
  void answer_workspace_waiting();
  void answer_shutdown_when_idle();
  void publish(const std::string &uri, const FullCheck &check, int64_t version);
  // Asks the client for the "argus" section (workspace/configuration).
  void request_configuration();
  // Applies settings from any source and checks every open document again.
  void apply_settings(const nlohmann::json &settings, const std::string &source);
  // A document's report for textDocument/diagnostic and workspace/diagnostic:
  // "unchanged" when `previous` is the resultId of the same diagnostics.
  nlohmann::json document_report(const std::string &uri, const std::string &previous);

  // The front end of an open document's current text (-32602 when it is not
  // open; the dispatcher only calls handlers once it is ready).
  const CheckedFile *current_check(const std::string &uri);
  const FullCheck &current_full(const std::string &uri);
  // workspace/executeCommand (server_commands.cpp -> commands.h): runs on a
  // command worker, which answers `id` itself.
  void execute_command_request(const nlohmann::json &id, const nlohmann::json &params);

  void reply(const nlohmann::json &id, nlohmann::json result);
  void reply_error(const nlohmann::json &id, int code, const std::string &message);

  Transport &transport_;
  Logger &log_;
  ServerOptions options_;
  BlockingQueue<Event> events_; // before workspace_: workers push until they are joined
  std::map<std::string, std::vector<nlohmann::json>> waiting_; // requests waiting, per document
  std::set<std::string> published_;               // documents whose diagnostics were pushed
  std::vector<nlohmann::json> workspace_waiting_; // workspace/diagnostic requests
  int64_t in_flight_ = 0; // command jobs posted whose results have not come back
  // The last semantic tokens sent per document, for full/delta.
  SemanticTokensCache semantic_tokens_;
  ColumnUnit encoding_ = ColumnUnit::Utf16CodeUnits;
  bool snippet_support_ = false;      // completionItem.snippetSupport offered in initialize
  CommandSettings command_settings_;  // target, runner, benchmark time limit
  bool client_progress_ = false;      // capabilities.window.workDoneProgress
  bool layout_picture_links_ = false; // capabilities.experimental.argusLayoutPictures
  // The client pulls diagnostics (capabilities.textDocument.diagnostic): then
  // the server never pushes them too, or the client would list each twice.
  bool pull_client_ = false;
  bool refresh_support_ = false;       // capabilities.workspace.diagnostics.refreshSupport
  bool configuration_support_ = false; // capabilities.workspace.configuration
  int64_t configuration_requests_ = 0; // ids of workspace/configuration requests sent
  int64_t refresh_requests_ = 0;       // ids of workspace/diagnostic/refresh requests sent
  bool initialized_ = false;
  bool shutdown_ = false;
  // The id of a `shutdown` not answered yet: it is answered once no request
  // that came before it waits for a document (answer_shutdown_when_idle).
  std::optional<nlohmann::json> pending_shutdown_;
  bool exited_ = false;
  // Commands running on commands_, by request id (JSON text): their cancel flags.
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_commands_;
  // Last: destroyed first, its scheduler joining every worker (checks and
  // commands) while what they post back to is still here.
  Workspace workspace_;
};

} // namespace argus::server
