#include "argus/server/server.h"

#include "argus/dsl/checker.h"
#include "argus/dsl/hover.h"
#include "argus/server/lsp_diagnostic.h"
#include "refactors.h"

#include <exception>
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

LspPosition parse_position(const json &value) {
  return LspPosition{value.at("line").get<uint32_t>(), value.at("character").get<uint32_t>()};
}

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// Whether a request needs document state and so waits in the queue (where
// $/cancelRequest can still reach it) rather than being answered at once.
bool is_queued(const std::string &method) { return method != "initialize" && method != "shutdown"; }

} // namespace

std::string uri_to_path(const std::string &uri) {
  constexpr std::string_view kScheme = "file://";
  if (!uri.starts_with(kScheme))
    return uri;
  std::string path;
  for (size_t i = kScheme.size(); i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex_value(uri[i + 1]) >= 0 &&
        hex_value(uri[i + 2]) >= 0) {
      path.push_back(static_cast<char>(hex_value(uri[i + 1]) * 16 + hex_value(uri[i + 2])));
      i += 2;
    } else {
      path.push_back(uri[i]);
    }
  }
  return path;
}

Server::Server(Transport &transport, Logger &log, ServerOptions options)
    : transport_(transport), log_(log), options_(std::move(options)),
      scheduler_(options_.frontend) {}

int Server::run() {
  while (!exited_) {
    if (!pending_.empty() && !transport_.input_buffered()) {
      run_pending();
      continue;
    }
    ReadResult next = transport_.read();
    if (next.kind == ReadResult::Kind::End) {
      run_pending();
      log_.info(shutdown_ ? "input ended after shutdown" : "input ended without shutdown/exit");
      return shutdown_ ? 0 : 1;
    }
    if (next.kind == ReadResult::Kind::ParseError) {
      reply_error(nullptr, error_code::kParseError, next.error);
      continue;
    }
    handle(next.message);
  }
  run_pending();
  return shutdown_ ? 0 : 1;
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
    run_pending(); // notifications change state: earlier requests see the old one
    handle_notification(name, params);
    return;
  }
  if (is_queued(name) && initialized_ && !shutdown_) {
    pending_.push_back(message);
    return;
  }
  run_pending();
  dispatch_request(message);
}

void Server::run_pending() {
  while (!pending_.empty()) {
    const json request = std::move(pending_.front());
    pending_.pop_front();
    dispatch_request(request);
  }
}

void Server::cancel(const json &id) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if ((*it)["id"] == id) {
      const json cancelled = (*it)["id"];
      pending_.erase(it);
      reply_error(cancelled, error_code::kRequestCancelled, "request cancelled");
      return;
    }
  }
  log_.debug("$/cancelRequest for a request that is not pending: " + id.dump());
}

void Server::dispatch_request(const json &request) {
  const json &id = request["id"];
  const std::string method = request["method"].get<std::string>();
  json params = request.value("params", json::object());
  if (params.is_null())
    params = json::object();
  if (!initialized_ && method != "initialize") {
    reply_error(id, error_code::kServerNotInitialized, "the server is not initialized");
    return;
  }
  if (shutdown_) {
    reply_error(id, error_code::kInvalidRequest, "the server is shutting down");
    return;
  }
  try {
    if (method == "initialize") {
      if (initialized_) {
        reply_error(id, error_code::kInvalidRequest, "initialize was already called");
        return;
      }
      reply(id, initialize(params));
    } else if (method == "shutdown") {
      shutdown_ = true;
      reply(id, nullptr);
    } else if (method == "textDocument/diagnostic") {
      reply(id, pull_diagnostics(params));
    } else if (method == "textDocument/codeAction") {
      reply(id, code_actions(params));
    } else if (method == "textDocument/hover") {
      reply(id, hover(params));
    } else if (method == "textDocument/documentSymbol") {
      reply(id, document_symbols(params));
    } else {
      reply_error(id, error_code::kMethodNotFound, "method not found: " + method);
    }
  } catch (const RequestError &error) {
    reply_error(id, error.code, error.message);
  } catch (const json::exception &error) {
    reply_error(id, error_code::kInvalidParams, std::string("invalid params: ") + error.what());
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
  try {
    if (method == "initialized" || method == "$/setTrace") {
      log_.debug(method + " accepted");
    } else if (method == "textDocument/didOpen") {
      did_open(params);
    } else if (method == "textDocument/didChange") {
      did_change(params);
    } else if (method == "textDocument/didClose") {
      did_close(params);
    } else if (method == "workspace/didChangeConfiguration") {
      const json settings = params.value("settings", json::object());
      for (const std::string &problem : configure(settings.value("argus", settings)))
        log_.error("didChangeConfiguration: " + problem);
      // Diagnostics depend on the options: check and publish every open document again.
      last_checks_.clear();
      for (const std::string &uri : documents_.uris())
        if (const Document *d = documents_.find(uri))
          publish(*d);
    } else {
      log_.debug("ignoring notification " + method);
    }
  } catch (const json::exception &error) {
    log_.error("invalid params for " + method + ": " + error.what());
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
  if (params.is_object() && params.contains("initializationOptions"))
    for (const std::string &problem : configure(params["initializationOptions"]))
      log_.error("initializationOptions: " + problem);
  initialized_ = true;
  const char *encoding = encoding_ == ColumnUnit::Utf8Bytes ? "utf-8" : "utf-16";
  log_.info(std::string("initialized; position encoding ") + encoding);
  return json{
      {"capabilities",
       {{"positionEncoding", encoding},
        {"textDocumentSync", {{"openClose", true}, {"change", 2}}},
        {"diagnosticProvider", {{"interFileDependencies", false}, {"workspaceDiagnostics", false}}},
        {"codeActionProvider", {{"codeActionKinds", code_action_kinds()}}},
        {"hoverProvider", true},
        {"documentSymbolProvider", true}}},
      {"serverInfo", {{"name", "argus"}, {"version", options_.version}}},
  };
}

void Server::did_open(const json &params) {
  const json &item = params.at("textDocument");
  Document &document =
      documents_.open(item.at("uri").get<std::string>(), item.at("text").get<std::string>(),
                      item.value("version", int64_t{0}));
  publish(document);
}

void Server::did_change(const json &params) {
  const json &item = params.at("textDocument");
  Document *document = documents_.find(item.at("uri").get<std::string>());
  if (document == nullptr) {
    log_.error("didChange for a document that is not open: " + item.at("uri").dump());
    return;
  }
  // Validate every change before applying any, so a bad one leaves the text intact.
  const json &changes = params.at("contentChanges");
  std::string text = document->text;
  for (const json &change : changes) {
    const std::string &replacement = change.at("text").get_ref<const std::string &>();
    if (change.contains("range")) {
      const json &range = change["range"];
      apply_edit(text, LspRange{parse_position(range.at("start")), parse_position(range.at("end"))},
                 replacement, encoding_);
    } else {
      text = replacement;
    }
  }
  const int64_t version = item.value("version", document->version + 1);
  if (version <= document->version)
    log_.info("didChange version " + std::to_string(version) + " is not newer than " +
              std::to_string(document->version));
  document->text = std::move(text);
  document->version = version;
  publish(*document);
}

void Server::did_close(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  if (!documents_.close(uri))
    return;
  last_checks_.erase(uri);
  transport_.write(json{{"jsonrpc", "2.0"},
                        {"method", "textDocument/publishDiagnostics"},
                        {"params", {{"uri", uri}, {"diagnostics", json::array()}}}});
}

json Server::diagnostics_of(const Document &document) {
  json items = json::array();
  const CheckedFile &checked = check_of(document);
  for (const Diagnostic &diagnostic : checked.diagnostics)
    items.push_back(lsp_diagnostic(*checked.source, diagnostic, document.uri, encoding_));
  return items;
}

// The check of the document's current text: the last one when the text is
// unchanged, else a new one through the scheduler.
const CheckedFile &Server::check_of(const Document &document) {
  auto it = last_checks_.find(document.uri);
  if (it != last_checks_.end() && it->second->source->text() == document.text)
    return *it->second;
  scheduler_.check(
      DocumentSnapshot{document.uri, uri_to_path(document.uri), document.text, document.version},
      [&](const DocumentSnapshot &snapshot, CheckedFile &checked) {
        last_checks_[snapshot.uri] = std::make_shared<const CheckedFile>(std::move(checked));
      });
  return *last_checks_.at(document.uri);
}

namespace {

std::string fix_title(const std::string &id) {
  if (id == "argus.fix.insert-barrier")
    return "Insert syncthreads()";
  if (id == "argus.fix.stage-index")
    return "Use the other operand's stage index";
  if (id == "argus.fix.pad-shared")
    return "Pad the shared tile";
  return id;
}

} // namespace

std::vector<std::string> Server::configure(const json &settings) {
  std::vector<std::string> problems;
  if (!settings.is_object())
    return {"expected an object"};
  if (!settings.contains("checker"))
    return problems;
  const json &c = settings["checker"];
  if (!c.is_object())
    return {"checker: expected an object"};
  check::CheckerOptions options = scheduler_.checker_options();
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
        it.key() != "lints" && it.key() != "symbolic" && it.key() != "fixes")
      problems.push_back("checker." + it.key() + ": unknown setting");
  scheduler_.set_checker_options(options);
  return problems;
}

// The check of an open document's current text; -32602 when it is not open.
const CheckedFile *Server::current_check(const std::string &uri) {
  const Document *document = documents_.find(uri);
  if (document == nullptr)
    throw RequestError{error_code::kInvalidParams, "document is not open: " + uri};
  return &check_of(*document);
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

// Hover: the name at the position, from the last check of the current text.
json Server::hover(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  const CheckedFile *checked = current_check(uri);
  const Document *document = documents_.find(uri);
  if (!checked || !document)
    return nullptr;
  const CheckedFile &file = *checked;
  const size_t offset = offset_of(document->text, parse_position(params.at("position")), encoding_);
  const auto info = hover_at(file, file.source->position(offset));
  if (!info)
    return nullptr;
  return json{{"contents", {{"kind", "markdown"}, {"value", info->markdown}}},
              {"range", lsp_range(*file.source, info->range, encoding_)}};
}

// Quick fixes: the verified fixes the checker listed in data["fixes"] of the
// document's current diagnostics that overlap the requested range; then the
// verified refactors at the range (server/protocol/refactors.cpp).
json Server::code_actions(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  const Document *document = documents_.find(uri);
  if (document == nullptr)
    throw RequestError{error_code::kInvalidParams, "document is not open: " + uri};
  const json &range = params.at("range");
  const LspRange wanted{parse_position(range.at("start")), parse_position(range.at("end"))};
  const size_t from = offset_of(document->text, wanted.start, encoding_);
  const size_t to = offset_of(document->text, wanted.end, encoding_);
  json actions = json::array();
  // The diagnostics (and their edits) of exactly the current text.
  const CheckedFile &checked = check_of(*document);
  const SourceFile &source = *checked.source;
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
  // Refactors after the quick fixes (each one verified by a re-check).
  for (json &action : refactors_result(checked, params, encoding_, scheduler_.checker_options()))
    actions.push_back(std::move(action));
  return actions;
}

void Server::publish(const Document &document) {
  transport_.write(json{{"jsonrpc", "2.0"},
                        {"method", "textDocument/publishDiagnostics"},
                        {"params",
                         {{"uri", document.uri},
                          {"version", document.version},
                          {"diagnostics", diagnostics_of(document)}}}});
}

json Server::pull_diagnostics(const json &params) {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  const Document *document = documents_.find(uri);
  if (document == nullptr)
    throw RequestError{error_code::kInvalidParams, "document is not open: " + uri};
  return json{{"kind", "full"}, {"items", diagnostics_of(*document)}};
}

void Server::reply(const json &id, json result) {
  transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Server::reply_error(const json &id, int code, const std::string &message) {
  transport_.write(
      json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

} // namespace argus::server
