#include "argus/server/server.h"
#include "params_check.h"

#include "argus/dsl/checker.h"
#include "argus/dsl/edit_confinement.h"
#include "argus/dsl/hover.h"
#include "argus/server/editing_features.h"
#include "argus/server/lsp_diagnostic.h"
#include "argus/server/navigation.h"
#include "argus/server/semantic_tokens.h"
#include "refactors.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <unordered_map>
#include <utility>

namespace argus::server {
namespace {

using nlohmann::json;

// A request that cannot be answered with a result.
struct RequestError {
  int code;
  std::string message;
};

bool valid_id(const json &id) { return id.is_number_integer() || id.is_string(); }

// Whether `message` is an `exit` notification that handle() accepts (so it
// ends the server). The reader stops reading after one, so the two must agree:
// an invalid one (say "jsonrpc": "1.0") is answered and reading goes on.
bool is_exit_notification(const json &message) {
  if (!message.is_object() || message.contains("id") || message.value("jsonrpc", json()) != "2.0" ||
      message.value("method", json()) != "exit")
    return false;
  const json params = message.value("params", json());
  return params.is_null() || params.is_object() || params.is_array();
}

LspPosition parse_position(const json &value) {
  return LspPosition{value.at("line").get<uint32_t>(), value.at("character").get<uint32_t>()};
}

} // namespace

Server::Server(Transport &transport, Logger &log, ServerOptions options)
    : transport_(transport), log_(log), options_(std::move(options)),
      workspace_(
          options_.frontend, options_.check_threads, options_.check_time_limit,
          [this](std::function<void()> task) { post_task(std::move(task)); },
          WorkspaceEvents{
              [this](const std::string &uri, int64_t version) { text_changed(uri, version); },
              [this](const std::string &uri, int64_t version, const FullCheck &front) {
                front_end_ready(uri, version, front);
              },
              [this](const std::string &uri, int64_t version, const FullCheck &partial) {
                check_progress(uri, version, partial);
              },
              [this](const std::string &uri, int64_t version, const FullCheck &full) {
                check_ready(uri, version, full);
              }}) {}

Server::~Server() {
  // Running checks stop at their next poll (the workspace's destructor); the
  // scheduler joins its workers.
  workspace_.stop();
  for (auto &[id, cancelled] : running_commands_)
    cancelled->store(true); // a benchmark's runner is killed
}

// The reader thread: client messages into the loop's inbox. It stops after
// `exit` (nothing may follow it) or at the end of the input, so run() can
// join it without closing stdin.
void Server::read_loop() {
  for (;;) {
    ReadResult next = transport_.read();
    if (next.kind == ReadResult::Kind::End) {
      events_.push(Event{Event::Kind::End, {}, {}, {}});
      return;
    }
    if (next.kind == ReadResult::Kind::ParseError) {
      events_.push(Event{Event::Kind::ParseError, std::move(next.message), next.error, {}});
      continue;
    }
    const bool is_exit = is_exit_notification(next.message);
    events_.push(Event{Event::Kind::Message, std::move(next.message), {}, {}});
    if (is_exit)
      return;
  }
}

void Server::post_task(std::function<void()> task) {
  events_.push(Event{Event::Kind::Task, {}, {}, std::move(task)});
}

int Server::run() {
  std::thread reader([this] { read_loop(); });
  bool input_ended = false;
  while (!exited_ && !input_ended) {
    Event event = events_.pop();
    input_ended = event.kind == Event::Kind::End;
    process(std::move(event));
    answer_shutdown_when_idle();
  }
  if (input_ended)
    log_.info(shutdown_ ? "input ended after shutdown" : "input ended without shutdown/exit");
  // A command may run for minutes (a benchmark) for a client that is gone:
  // cancel it. After `exit` the checks are cancelled too; at the end of the
  // input they are bounded, so they finish and answer what waits for them.
  // Either way run() returns only when no worker can write any more: a command
  // answering while the caller tears the output down would cut a frame short.
  for (auto &[id, cancelled] : running_commands_)
    cancelled->store(true);
  if (exited_) {
    // A cancelled check answers nobody: what waits for one is cancelled here,
    // so every request still gets its one answer.
    workspace_.stop();
    for (auto &[uri, waiting] : waiting_) {
      for (const json &request : waiting)
        reply_error(request["id"], error_code::kRequestCancelled, "the server exited");
      waiting.clear();
    }
    for (const json &request : workspace_waiting_)
      reply_error(request["id"], error_code::kRequestCancelled, "the server exited");
    workspace_waiting_.clear();
    answer_shutdown_when_idle();
  }
  drain();
  reader.join();
  return shutdown_ && (exited_ || input_ended) ? 0 : 1;
}

void Server::process(Event event) {
  switch (event.kind) {
  case Event::Kind::Message:
    handle(event.message);
    break;
  case Event::Kind::ParseError:
    reply_error(event.message, error_code::kParseError, event.error); // the id, when readable
    break;
  case Event::Kind::Task:
    event.task();
    break;
  case Event::Kind::End:
    break;
  }
}

// `shutdown` answers after the requests sent before it: a client that waits
// for that answer and then sends `exit` gets every answer first.
void Server::answer_shutdown_when_idle() {
  if (!pending_shutdown_ || !workspace_waiting_.empty())
    return;
  for (const auto &[uri, waiting] : waiting_)
    if (!waiting.empty())
      return;
  reply(*pending_shutdown_, nullptr);
  pending_shutdown_.reset();
}

void Server::drain() {
  while (in_flight_ > 0 || workspace_.in_flight() > 0) {
    Event event = events_.pop();
    if (event.kind == Event::Kind::Task)
      event.task();
    answer_shutdown_when_idle();
  }
}

void Server::handle(const json &message) {
  if (!message.is_object() || message.value("jsonrpc", json()) != "2.0") {
    const json id =
        message.is_object() && valid_id(message.value("id", json())) ? message["id"] : json();
    reply_error(id, error_code::kInvalidRequest, "not a JSON-RPC 2.0 message");
    return;
  }
  const bool has_id = message.contains("id");
  const json id = message.value("id", json());
  if (!message.contains("method")) {
    if (has_id && (message.contains("result") || message.contains("error"))) {
      // The answer to workspace/configuration: [the "argus" section].
      if (id.is_string() && id.get<std::string>().starts_with("argus/configuration/") &&
          message.contains("result")) {
        const json &result = message["result"];
        if (result.is_array() && !result.empty() && result[0].is_object())
          apply_settings(result[0], "workspace/configuration");
        else if (!(result.is_array() && !result.empty() && result[0].is_null()))
          log_.error("workspace/configuration: expected [the argus settings], got " +
                     result.dump().substr(0, 200));
        return;
      }
      log_.debug("ignoring a response from the client");
      return;
    }
    reply_error(valid_id(id) ? id : json(), error_code::kInvalidRequest, "no method");
    return;
  }
  const json &method = message["method"];
  // A null `params` is read as absent: some clients send it for shutdown/exit.
  json params = message.value("params", json::object());
  if (params.is_null())
    params = json::object();
  if (!method.is_string() || (has_id && !valid_id(id)) ||
      !(params.is_object() || params.is_array())) {
    if (has_id)
      reply_error(valid_id(id) ? id : json(), error_code::kInvalidRequest, "invalid request");
    else
      log_.error("ignoring an invalid notification");
    return;
  }
  const std::string name = method.get<std::string>();
  if (!has_id) {
    if (name == "$/cancelRequest") {
      if (params.is_object() && params.contains("id"))
        cancel(params["id"]);
      return;
    }
    handle_notification(name, params);
    return;
  }
  // The lifecycle decides when a request arrives: one that arrived before
  // `shutdown` and waited for its document is still answered after it.
  if (!initialized_ && name != "initialize") {
    reply_error(id, error_code::kServerNotInitialized, "the server is not initialized");
    return;
  }
  if (shutdown_) {
    reply_error(id, error_code::kInvalidRequest, "the server is shutting down");
    return;
  }
  dispatch_request(message);
}

void Server::cancel(const json &id) {
  auto take = [&](std::vector<json> &waiting) {
    for (auto it = waiting.begin(); it != waiting.end(); ++it)
      if ((*it)["id"] == id) {
        waiting.erase(it);
        reply_error(id, error_code::kRequestCancelled, "request cancelled");
        return true;
      }
    return false;
  };
  if (take(workspace_waiting_))
    return;
  if (auto it = running_commands_.find(id.dump()); it != running_commands_.end()) {
    it->second->store(true); // the command answers -32800 when it stops
    return;
  }
  for (auto &[uri, waiting] : waiting_)
    if (take(waiting))
      return;
  log_.debug("$/cancelRequest for a request that is not waiting: " + id.dump());
}

namespace {

// Requests answered from the invariant check of the current text.
bool needs_full_check(const std::string &method) {
  return method == "textDocument/diagnostic" || method == "textDocument/codeAction";
}

// The other document requests (hover, tokens, navigation, completion, ...)
// are answered from the front end of the current text: at once, while the
// checker runs.
bool needs_front_end(const std::string &method) {
  return method.starts_with("textDocument/") && !needs_full_check(method);
}

} // namespace

bool Server::ready_or_park(const std::string &method, const json &request) {
  const bool front = needs_front_end(method), full = needs_full_check(method);
  if (method == "workspace/diagnostic") {
    if (workspace_.all_checked())
      return true;
    workspace_waiting_.push_back(request);
    return false;
  }
  const json params = request.value("params", json::object());
  if (method == "workspace/executeCommand" && params.is_object() &&
      (params.value("command", json()) == "argus.explain" ||
       params.value("command", json()) == "argus.verification")) {
    // The explanation (the summary) is of the current version's check: wait for it.
    const auto uri = command_document_uri(params.value("arguments", json::array()));
    if (!uri || workspace_.find(*uri) == nullptr || workspace_.check_ready(*uri))
      return true;
    waiting_[*uri].push_back(request);
    return false;
  }
  if (!front && !full)
    return true;
  if (!params.is_object() || !params.contains("textDocument") ||
      !params["textDocument"].is_object() || !params["textDocument"].contains("uri") ||
      !params["textDocument"]["uri"].is_string())
    return true; // the handler answers -32602
  const std::string uri = params["textDocument"]["uri"].get<std::string>();
  if (workspace_.find(uri) == nullptr)
    return true; // the handler answers -32602
  const bool ready = full ? workspace_.check_ready(uri) : workspace_.front_ready(uri);
  if (!ready)
    waiting_[uri].push_back(request);
  return ready;
}

// The requests the server answers, by method: each handler replies (now, or
// later for a request that waits on a check) with a result or an error.
const std::unordered_map<std::string, Server::RequestHandler> &Server::request_table() {
  // The features that read the document's current analysis.
  const auto on_check = [](auto result) -> RequestHandler {
    return [result](Server &s, const json &id, const json &params) {
      s.reply(id, result(s, *s.current_check(text_document_uri(params)), params));
    };
  };
  // Rename and its preparation: an answer or the error it explains.
  const auto on_navigation = [](auto answer_of) -> RequestHandler {
    return [answer_of](Server &s, const json &id, const json &params) {
      const NavigationAnswer answer =
          answer_of(*s.current_check(text_document_uri(params)), params, s.encoding_);
      answer.error_code ? s.reply_error(id, answer.error_code, answer.error_message)
                        : s.reply(id, answer.result);
    };
  };
  static const std::unordered_map<std::string, RequestHandler> table = {
      {"initialize",
       [](Server &s, const json &id, const json &params) {
         if (s.initialized_)
           s.reply_error(id, error_code::kInvalidRequest, "initialize was already called");
         else
           s.reply(id, s.initialize(params));
       }},
      {"shutdown",
       [](Server &s, const json &id, const json &) {
         s.shutdown_ = true; // no new request from now on
         s.pending_shutdown_ = id;
       }},
      {"textDocument/diagnostic",
       [](Server &s, const json &id, const json &params) {
         s.reply(id, s.pull_diagnostics(params));
       }},
      {"workspace/diagnostic",
       [](Server &s, const json &id, const json &params) {
         s.reply(id, s.workspace_diagnostics(params));
       }},
      {"textDocument/codeAction",
       [](Server &s, const json &id, const json &params) { s.code_actions_request(id, params); }},
      {"textDocument/hover",
       [](Server &s, const json &id, const json &params) { s.reply(id, s.hover(params)); }},
      {"textDocument/documentSymbol",
       [](Server &s, const json &id, const json &params) {
         s.reply(id, s.document_symbols(params));
       }},
      {"textDocument/semanticTokens/full",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return semantic_tokens_full_result(file, params, s.encoding_, s.semantic_tokens_);
       })},
      {"textDocument/semanticTokens/full/delta",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return semantic_tokens_delta_result(file, params, s.encoding_, s.semantic_tokens_);
       })},
      {"textDocument/semanticTokens/range",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return semantic_tokens_range_result(file, params, s.encoding_);
       })},
      {"textDocument/definition",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return definition_result(file, params, s.encoding_);
       })},
      {"textDocument/references",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return references_result(file, params, s.encoding_);
       })},
      {"textDocument/prepareRename", on_navigation(prepare_rename_result)},
      {"textDocument/rename", on_navigation(rename_result)},
      {"textDocument/completion",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return completion_result(file, params, s.encoding_, CompletionOptions{s.snippet_support_});
       })},
      {"textDocument/signatureHelp",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return signature_help_result(file, params, s.encoding_);
       })},
      {"textDocument/inlayHint",
       on_check([](Server &s, const CheckedFile &file, const json &params) {
         return inlay_hints_result(file, params, s.encoding_);
       })},
      {"workspace/executeCommand",
       [](Server &s, const json &id, const json &params) {
         s.execute_command_request(id, params);
       }},
  };
  return table;
}

void Server::dispatch_request(const json &request) {
  const json &id = request["id"];
  const std::string method = request["method"].get<std::string>();
  json params = request.value("params", json::object());
  if (params.is_null())
    params = json::object();
  try {
    if (const auto why = detail::invalid_params(method, params)) {
      reply_error(id, error_code::kInvalidParams, *why);
      return;
    }
    if (!ready_or_park(method, request))
      return;
    const auto &table = request_table();
    const auto handler = table.find(method);
    if (handler == table.end())
      reply_error(id, error_code::kMethodNotFound, "method not found: " + method);
    else
      handler->second(*this, id, params);
  } catch (const RequestError &error) {
    reply_error(id, error.code, error.message);
  } catch (const CommandError &error) {
    reply_error(id, error.code, error.message);
  } catch (const json::exception &error) {
    reply_error(id, error_code::kInvalidParams,
                "invalid params: " + detail::plain_json_error(error.what()));
  } catch (const std::exception &error) {
    log_.error(std::string("internal error in ") + method + ": " + error.what());
    reply_error(id, error_code::kInternalError, error.what());
  }
}

void Server::handle_notification(const std::string &method, const json &params) {
  if (method == "exit") {
    exited_ = true;
    return;
  }
  if (!initialized_) {
    log_.info("dropping notification before initialize: " + method);
    return;
  }
  if (const auto why = detail::invalid_params(method, params)) {
    log_.error("invalid params for " + method + ": " + *why);
    return;
  }
  try {
    if (method == "initialized") {
      if (configuration_support_)
        request_configuration();
    } else if (method == "$/setTrace") {
      log_.debug(method + " accepted");
    } else if (method == "textDocument/didOpen") {
      did_open(params);
    } else if (method == "textDocument/didChange") {
      did_change(params);
    } else if (method == "textDocument/didClose") {
      did_close(params);
    } else if (method == "textDocument/didSave") {
      did_save(params);
    } else if (method == "workspace/didChangeConfiguration") {
      // vscode-languageclient sends `settings: null` and expects the server
      // to pull its section (workspace/configuration) when it can.
      const json settings = params.value("settings", json());
      if (settings.is_null() || (settings.is_object() && settings.empty())) {
        if (configuration_support_)
          request_configuration();
        else
          apply_settings(json::object(), "didChangeConfiguration");
      } else {
        apply_settings(settings.is_object() ? settings.value("argus", settings) : settings,
                       "didChangeConfiguration");
      }
    } else {
      log_.debug("ignoring notification " + method);
    }
  } catch (const json::exception &error) {
    log_.error("invalid params for " + method + ": " + detail::plain_json_error(error.what()));
  } catch (const std::exception &error) {
    log_.error("internal error in " + method + ": " + error.what());
  }
}

json Server::initialize(const json &params) {
  encoding_ = ColumnUnit::Utf16CodeUnits;
  if (params.is_object()) {
    const json general =
        params.value("capabilities", json::object()).value("general", json::object());
    const json encodings = general.value("positionEncodings", json::array());
    if (encodings.is_array()) {
      for (const json &encoding : encodings) {
        if (encoding == "utf-8")
          encoding_ = ColumnUnit::Utf8Bytes;
      }
    }
  }
  snippet_support_ = false;
  try { // a malformed capability only turns snippets off
    snippet_support_ =
        params.is_object() &&
        params.value(
            "/capabilities/textDocument/completion/completionItem/snippetSupport"_json_pointer,
            false);
  } catch (const json::exception &) {
  }
  layout_picture_links_ = false;
  try { // an editor that can open a picture from a command link (the VS Code extension)
    layout_picture_links_ =
        params.is_object() &&
        params.value("/capabilities/experimental/argusLayoutPictures"_json_pointer, false);
  } catch (const json::exception &) {
  }
  client_progress_ = params.is_object() && params.value("capabilities", json::object())
                                                   .value("window", json::object())
                                                   .value("workDoneProgress", false) == true;
  pull_client_ = false;
  refresh_support_ = false;
  configuration_support_ = false;
  try { // a malformed capability means push, as for a client without pull
    pull_client_ = params.is_object() &&
                   params.contains("/capabilities/textDocument/diagnostic"_json_pointer) &&
                   params["/capabilities/textDocument/diagnostic"_json_pointer].is_object();
    refresh_support_ =
        params.is_object() &&
        params.value("/capabilities/workspace/diagnostics/refreshSupport"_json_pointer, false);
    configuration_support_ =
        params.is_object() &&
        params.value("/capabilities/workspace/configuration"_json_pointer, false);
  } catch (const json::exception &) {
  }
  if (params.is_object() && params.contains("initializationOptions"))
    for (const std::string &problem : configure(params["initializationOptions"]))
      log_.error("initializationOptions: " + problem);
  initialized_ = true;
  const char *encoding = encoding_ == ColumnUnit::Utf8Bytes ? "utf-8" : "utf-16";
  log_.info(std::string("initialized; position encoding ") + encoding);
  return json{
      {"capabilities",
       {{"positionEncoding", encoding},
        {"textDocumentSync",
         {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
        {"diagnosticProvider", {{"interFileDependencies", false}, {"workspaceDiagnostics", true}}},
        {"codeActionProvider", {{"codeActionKinds", code_action_kinds()}}},
        {"hoverProvider", true},
        {"documentSymbolProvider", true},
        {"semanticTokensProvider",
         {{"legend", semantic_tokens_legend()}, {"full", {{"delta", true}}}, {"range", true}}},
        {"definitionProvider", true},
        {"referencesProvider", true},
        {"renameProvider", {{"prepareProvider", true}}},
        {"completionProvider", {{"triggerCharacters", {".", "@"}}, {"resolveProvider", false}}},
        {"signatureHelpProvider", {{"triggerCharacters", {"(", ","}}}},
        {"inlayHintProvider", true},
        {"executeCommandProvider", {{"commands", command_names()}}}}},
      {"serverInfo", {{"name", "argus"}, {"version", options_.version}}},
  };
}

void Server::did_open(const json &params) {
  const json &item = params.at("textDocument");
  workspace_.open(item.at("uri").get<std::string>(), item.at("text").get<std::string>(),
                  item.value("version", int64_t{0}));
}

// LSP changes (positions in the negotiated encoding) to byte edits, each in
// the text the ones before it left. Every change is validated before any is
// applied, so a bad one leaves the text (and the tree) intact.
void Server::did_change(const json &params) {
  const json &item = params.at("textDocument");
  const std::string uri = item.at("uri").get<std::string>();
  const Document *document = workspace_.find(uri);
  if (document == nullptr) {
    log_.error("didChange for a document that is not open: " + item.at("uri").dump());
    return;
  }
  const json &changes = params.at("contentChanges");
  std::string text = document->text;
  std::vector<Workspace::ByteEdit> edits;
  std::optional<std::string> whole;
  std::optional<uint32_t> edited_line;
  for (const json &change : changes) {
    const std::string &replacement = change.at("text").get_ref<const std::string &>();
    if (change.contains("range")) {
      const json &range = change["range"];
      const LspRange lsp{parse_position(range.at("start")), parse_position(range.at("end"))};
      const size_t start = offset_of(text, lsp.start, encoding_);
      const size_t end = std::max(start, offset_of(text, lsp.end, encoding_));
      edits.push_back({start, end, replacement});
      text.replace(start, end - start, replacement);
      edited_line = static_cast<uint32_t>(lsp.start.line);
    } else {
      // A whole text: what came before it no longer matters.
      text = replacement;
      whole = replacement;
      edits.clear();
      edited_line.reset();
    }
  }
  const int64_t version = item.value("version", document->version + 1);
  if (version <= document->version)
    log_.info("didChange version " + std::to_string(version) + " is not newer than " +
              std::to_string(document->version));
  workspace_.change(uri, edits, std::move(whole), version, edited_line);
}

void Server::did_save(const json &params) {
  // Diagnostics follow every change already; a save with text is a change
  // only when the text differs (includeText is not asked for).
  const json &item = params.at("textDocument");
  if (params.contains("text"))
    workspace_.save(item.at("uri").get<std::string>(),
                    params["text"].get_ref<const std::string &>());
}

void Server::did_close(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  if (!workspace_.close(uri))
    return;
  if (auto it = waiting_.find(uri); it != waiting_.end()) {
    for (const json &request : it->second)
      reply_error(request["id"], error_code::kContentModified, "the document was closed");
    waiting_.erase(it);
  }
  published_.erase(uri);
  semantic_tokens_.forget(uri);
  if (!pull_client_) // a pull client drops a closed document's report itself
    transport_.write(json{{"jsonrpc", "2.0"},
                          {"method", "textDocument/publishDiagnostics"},
                          {"params", {{"uri", uri}, {"diagnostics", json::array()}}}});
  answer_workspace_waiting();
}

// A new text: what waited for the old one is stale (-32801).
void Server::text_changed(const std::string &uri, int64_t version) {
  auto it = waiting_.find(uri);
  if (it == waiting_.end())
    return;
  std::vector<json> stale = std::move(it->second);
  it->second.clear();
  for (const json &request : stale)
    reply_error(request["id"], error_code::kContentModified,
                "the document changed (now version " + std::to_string(version) + ")");
}

void Server::front_end_ready(const std::string &uri, int64_t version, const FullCheck &front) {
  if (!published_.count(uri) && !front.file->has_errors()) {
    // A document's first report need not wait for the checker: the front
    // end's findings now, the kernels' as they come (check_progress). Later
    // versions keep what is shown until their check has something new.
    publish(uri, front, version);
  }
  answer_waiting(uri);
}

// A big file's first results: pushed while the check goes on. Requests wait
// for the whole check (their answers must not change under them), and a pull
// client asks when it is told the whole report is there.
void Server::check_progress(const std::string &uri, int64_t version, const FullCheck &partial) {
  if (!pull_client_)
    publish(uri, partial, version);
}

void Server::check_ready(const std::string &uri, int64_t version, const FullCheck &full) {
  publish(uri, full, version);
  answer_waiting(uri);
  answer_workspace_waiting();
}

// Dispatches again the requests whose results are now there (the others keep waiting).
void Server::answer_waiting(const std::string &uri) {
  auto it = waiting_.find(uri);
  if (it == waiting_.end())
    return;
  std::vector<json> waiting = std::move(it->second);
  it->second.clear();
  for (const json &request : waiting)
    dispatch_request(request); // parks it again when still not ready
}

void Server::answer_workspace_waiting() {
  if (workspace_waiting_.empty() || !workspace_.all_checked())
    return;
  std::vector<json> waiting = std::move(workspace_waiting_);
  workspace_waiting_.clear();
  for (const json &request : waiting)
    dispatch_request(request);
}

void Server::publish(const std::string &uri, const FullCheck &check, int64_t version) {
  if (pull_client_)
    return; // it pulls (textDocument/diagnostic): a push too would list each problem twice
  published_.insert(uri);
  json items = json::array();
  for (const Diagnostic &diagnostic : workspace_.shown(uri, check))
    items.push_back(lsp_diagnostic(*check.file->source, diagnostic, uri, encoding_));
  transport_.write(json{{"jsonrpc", "2.0"},
                        {"method", "textDocument/publishDiagnostics"},
                        {"params", {{"uri", uri}, {"version", version}, {"diagnostics", items}}}});
}

namespace {

std::string fix_title(const std::string &id) {
  if (id == "argus.fix.insert-barrier")
    return "Insert syncthreads()";
  if (id == "argus.fix.insert-cluster-sync")
    return "Insert cluster_sync()";
  if (id == "argus.fix.stage-index")
    return "Use the other operand's stage index";
  if (id == "argus.fix.pad-shared")
    return "Pad the shared tile";
  return id;
}

} // namespace

void Server::request_configuration() {
  transport_.write(json{{"jsonrpc", "2.0"},
                        {"id", "argus/configuration/" + std::to_string(++configuration_requests_)},
                        {"method", "workspace/configuration"},
                        {"params", {{"items", {{{"section", "argus"}}}}}}});
}

void Server::apply_settings(const json &settings, const std::string &source) {
  for (const std::string &problem : configure(settings))
    log_.error(source + ": " + problem);
  // Diagnostics depend on the options: check every open document again
  // (same versions: waiting requests keep waiting for the new results).
  workspace_.check_again();
  // A pull client asks again only when told: the text did not change.
  if (pull_client_ && refresh_support_)
    transport_.write(json{{"jsonrpc", "2.0"},
                          {"id", "argus/diagnostic-refresh/" + std::to_string(++refresh_requests_)},
                          {"method", "workspace/diagnostic/refresh"}});
}

std::vector<std::string> Server::configure(const json &settings) {
  std::vector<std::string> problems;
  if (!settings.is_object())
    return {"expected an object"};
  problems = configure_commands(settings, command_settings_);
  if (!settings.contains("checker"))
    return problems;
  const json &c = settings["checker"];
  if (!c.is_object())
    return {"checker: expected an object"};
  check::CheckerOptions options = workspace_.scheduler().checker_options();
  auto integer = [&](const char *key, int64_t lo, int64_t hi, auto apply) {
    if (!c.contains(key))
      return;
    if (!c[key].is_number_integer() || c[key].get<int64_t>() < lo || c[key].get<int64_t>() > hi)
      problems.push_back(std::string("checker.") + key + ": expected an integer from " +
                         std::to_string(lo) + " to " + std::to_string(hi));
    else
      apply(c[key].get<int64_t>());
  };
  integer("queryTimeoutMs", 1, 600000,
          [&](int64_t v) { options.query_timeout_ms = static_cast<unsigned>(v); });
  integer("unrollBound", 1, 1 << 20, [&](int64_t v) { options.unroll_bound = v; });
  integer("maxBlocks", 1, 4096, [&](int64_t v) { options.max_blocks = v; });
  integer("timeLimitMs", 1, 3600000, [&](int64_t v) {
    workspace_.scheduler().set_check_time_limit(std::chrono::milliseconds(v));
  });
  for (const char *key : {"lints", "symbolic", "fixes"}) {
    if (!c.contains(key))
      continue;
    if (!c[key].is_boolean()) {
      problems.push_back(std::string("checker.") + key + ": expected true or false");
      continue;
    }
    const bool v = c[key].get<bool>();
    (std::string_view(key) == "lints"      ? options.lints
     : std::string_view(key) == "symbolic" ? options.symbolic
                                           : options.fixes) = v;
  }
  for (auto it = c.begin(); it != c.end(); ++it)
    if (it.key() != "queryTimeoutMs" && it.key() != "unrollBound" && it.key() != "maxBlocks" &&
        it.key() != "timeLimitMs" && it.key() != "lints" && it.key() != "symbolic" &&
        it.key() != "fixes")
      problems.push_back("checker." + it.key() + ": unknown setting");
  workspace_.scheduler().set_checker_options(options);
  return problems;
}

// The front end of an open document's current text; -32602 when it is not
// open. Handlers run only once it is there (ready_or_park).
const CheckedFile *Server::current_check(const std::string &uri) {
  if (workspace_.find(uri) == nullptr)
    throw RequestError{error_code::kInvalidParams, "document is not open: " + uri};
  // The workspace keeps the result alive until the next version is there,
  // which only this thread can bring.
  const std::shared_ptr<const CheckedFile> front = workspace_.front(uri);
  if (!front)
    throw RequestError{error_code::kContentModified, "the document changed"};
  return front.get();
}

// The invariant check of an open document's current text (as current_check).
const FullCheck &Server::current_full(const std::string &uri) {
  if (workspace_.find(uri) == nullptr)
    throw RequestError{error_code::kInvalidParams, "document is not open: " + uri};
  const std::shared_ptr<const FullCheck> full = workspace_.full(uri);
  if (!full)
    throw RequestError{error_code::kContentModified, "the document changed"};
  return *full;
}

json Server::document_symbols(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  const CheckedFile *file = current_check(uri);
  json symbols = json::array();
  if (!file || !file->source)
    return symbols;
  for (const OutlineItem &item : outline(*file)) {
    // LSP SymbolKind: Function 12, Constant 14.
    const int kind = item.kind == OutlineItem::Kind::Constant ? 14 : 12;
    symbols.push_back({{"name", item.name},
                       {"detail", item.detail},
                       {"kind", kind},
                       {"range", lsp_range(*file->source, item.range, encoding_)},
                       {"selectionRange", lsp_range(*file->source, item.selection, encoding_)}});
  }
  return symbols;
}

namespace {

// The verification summary as a hover section: one row per property.
std::string verification_markdown(const check::VerificationSummary &summary) {
  std::string out = "**Verification** (" + std::to_string(summary.instances.size()) +
                    " size instance" + (summary.instances.size() == 1 ? "" : "s");
  if (summary.unproven > 0)
    out += ", " + std::to_string(summary.unproven) + " W0901";
  out += ")\n\n| property | verdict | |\n|---|---|---|\n";
  for (const check::PropertyVerdict &p : summary.properties) {
    std::string detail = p.detail;
    for (char &c : detail)
      if (c == '|' || c == '\n')
        c = ' ';
    out += "| " + p.property + " | " + std::string(check::verdict_name(p.verdict)) + " | " +
           detail + " |\n";
  }
  return out;
}

// encodeURIComponent, parentheses too (a Markdown link destination ends at one).
std::string uri_component(std::string_view text) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || std::string_view("-_.!~*'").find(ch) != std::string_view::npos) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// The layouts a hover describes, as pictures: a command link the VS Code
// extension opens (`argus.showLayout`, trusted there for that command only),
// otherwise the command line that draws it.
std::string pictures_markdown(const std::vector<std::string> &pictures, bool links) {
  if (pictures.empty())
    return "";
  std::string out = "\n\n**pictures**:";
  for (const std::string &expr : pictures) {
    if (links) {
      out += " [" + expr + "](command:argus.showLayout?" +
             uri_component(json::array({expr}).dump()) + ")";
    } else {
      std::string quoted;
      for (const char c : expr)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += " `argus layout --svg '" + quoted + "'`";
    }
  }
  return out;
}

} // namespace

// Hover: the name at the position, from the last check of the current text.
json Server::hover(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  const CheckedFile *checked = current_check(uri);
  const Document *document = workspace_.find(uri);
  if (!checked || !document)
    return nullptr;
  const CheckedFile &file = *checked;
  const size_t offset = offset_of(document->text, parse_position(params.at("position")), encoding_);
  const Position at = file.source->position(offset);
  const auto info = hover_at(file, at);
  if (!info)
    return nullptr;
  std::string markdown = info->markdown + pictures_markdown(info->pictures, layout_picture_links_);
  // On a kernel's name: what the check of this very text established (once it has run).
  const std::shared_ptr<const FullCheck> full = workspace_.full(uri);
  if (file.sema && full)
    for (const sema::FunctionInfo &fn : file.sema->functions)
      if (fn.role == sema::FunctionRole::Kernel && fn.function &&
          !(at < fn.function->name_range.begin) && !(fn.function->name_range.end < at))
        for (const check::VerificationSummary &summary : full->verification)
          if (summary.kernel == fn.function->name)
            markdown += "\n\n" + verification_markdown(summary);
  return json{{"contents", {{"kind", "markdown"}, {"value", markdown}}},
              {"range", lsp_range(*file.source, info->range, encoding_)}};
}

// Quick fixes: the verified fixes the checker listed in data["fixes"] of the
// document's current diagnostics that overlap the requested range; then the
// verified refactors at the range (server/protocol/refactors.cpp).
json Server::code_actions(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  const Document *document = workspace_.find(uri);
  if (document == nullptr)
    throw RequestError{error_code::kInvalidParams, "document is not open: " + uri};
  const json &range = params.at("range");
  const LspRange wanted{parse_position(range.at("start")), parse_position(range.at("end"))};
  const size_t from = offset_of(document->text, wanted.start, encoding_);
  const size_t to = offset_of(document->text, wanted.end, encoding_);
  json actions = json::array();
  // The diagnostics (and their edits) of exactly the current text.
  const FullCheck &checked = current_full(uri);
  const SourceFile &source = *checked.file->source;
  const bool quick_fixes = code_action_kind_wanted(params, "quickfix");
  for (const Diagnostic &d : checked.diagnostics) {
    const size_t begin = source.offset(d.range.begin), end = source.offset(d.range.end);
    if (!quick_fixes || end < from || begin > to || !d.data.is_object() ||
        !d.data.contains("fixes"))
      continue;
    for (const json &fix : d.data["fixes"]) {
      auto edits = check::fix_edits(d.data, fix.get<std::string>());
      if (!edits)
        continue;
      json text_edits = json::array();
      for (const check::TextEdit &e : *edits)
        text_edits.push_back(
            {{"range", lsp_range(source, e.range, encoding_)}, {"newText", e.new_text}});
      actions.push_back({{"title", fix_title(fix.get<std::string>())},
                         {"kind", "quickfix"},
                         {"isPreferred", true},
                         {"diagnostics", json::array({lsp_diagnostic(source, d, uri, encoding_)})},
                         {"edit", {{"changes", {{uri, text_edits}}}}}});
    }
  }
  return actions;
}

// Quick fixes at once; the refactors (each verified by a re-check, up to
// seconds) on a command worker, which answers with both. A new version of
// the document while it works answers -32801; $/cancelRequest stops it.
void Server::code_actions_request(const json &id, const json &params) {
  json actions = code_actions(params);
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  bool refactors_wanted = false;
  for (const json &kind : code_action_kinds())
    refactors_wanted =
        refactors_wanted ||
        (kind != "quickfix" && code_action_kind_wanted(params, kind.get<std::string>()));
  if (!refactors_wanted) {
    reply(id, std::move(actions));
    return;
  }
  // The check the quick fixes came from (ready_or_park waited for it), and
  // the document's version counter, which a worker can read.
  const std::shared_ptr<const FullCheck> checked = workspace_.full(uri);
  const int64_t version = workspace_.find(uri)->version;
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  running_commands_[id.dump()] = cancelled;
  ++in_flight_;
  check::CheckerOptions options = workspace_.scheduler().checker_options();
  options.deadline = std::chrono::steady_clock::now() + workspace_.scheduler().check_time_limit();
  workspace_.scheduler().command([this, id, params, actions = std::move(actions), full = checked,
                                  latest = workspace_.latest(uri), version, cancelled, options,
                                  encoding = encoding_]() mutable {
    options.cancel = cancelled.get();
    try {
      json refactors = refactors_result(*full->file, params, encoding, options);
      if (cancelled->load())
        reply_error(id, error_code::kRequestCancelled, "request cancelled");
      else if (latest->load() != version)
        reply_error(id, error_code::kContentModified, "the document changed");
      else {
        for (json &action : refactors)
          actions.push_back(std::move(action));
        reply(id, std::move(actions));
      }
    } catch (const std::exception &error) {
      log_.error(std::string("internal error in codeAction refactors: ") + error.what());
      reply_error(id, error_code::kInternalError, error.what());
    }
    post_task([this, id] {
      running_commands_.erase(id.dump());
      --in_flight_;
    });
  });
}

namespace {

// The id of a report: a hash of exactly what it says, so a check that found
// the same diagnostics (a re-check after a setting changed, an edit in a
// comment) answers "unchanged".
std::string result_id(const json &items) {
  return std::to_string(std::hash<std::string>{}(items.dump()));
}

} // namespace

json Server::document_report(const std::string &uri, const std::string &previous) {
  const FullCheck &check = current_full(uri);
  json items = json::array();
  for (const Diagnostic &diagnostic : workspace_.shown(uri, check))
    items.push_back(lsp_diagnostic(*check.file->source, diagnostic, uri, encoding_));
  const std::string id = result_id(items);
  if (!previous.empty() && previous == id)
    return json{{"kind", "unchanged"}, {"resultId", id}};
  return json{{"kind", "full"}, {"resultId", id}, {"items", std::move(items)}};
}

json Server::pull_diagnostics(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  std::string previous;
  if (params.contains("previousResultId") && params["previousResultId"].is_string())
    previous = params["previousResultId"].get<std::string>();
  return document_report(uri, previous);
}

// Every open document's report, once all of their checks are done.
json Server::workspace_diagnostics(const json &params) {
  std::map<std::string, std::string> previous; // uri -> resultId
  if (params.is_object() && params.contains("previousResultIds") &&
      params["previousResultIds"].is_array())
    for (const json &p : params["previousResultIds"])
      if (p.is_object() && p.value("uri", json()).is_string() &&
          p.value("value", json()).is_string())
        previous[p["uri"].get<std::string>()] = p["value"].get<std::string>();
  json reports = json::array();
  for (const std::string &uri : workspace_.uris()) {
    json report = document_report(uri, previous.count(uri) ? previous[uri] : std::string());
    report["uri"] = uri;
    report["version"] = workspace_.find(uri)->version;
    reports.push_back(std::move(report));
  }
  return json{{"items", std::move(reports)}};
}

void Server::reply(const json &id, json result) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Server::reply_error(const json &id, int code, const std::string &message) {
  transport_.write(
      json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

} // namespace argus::server
