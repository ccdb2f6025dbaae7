// workspace/executeCommand: copies what the command needs (the document's
// snapshot, its last check, the settings) into a CommandContext and runs
// execute_command, which touches nothing of the Server.
#include "argus/server/server.h"

#include <atomic>

namespace argus::server {

using nlohmann::json;

json Server::execute_command_request(const json &params) {
  if (!params.is_object() || !params.contains("command") || !params["command"].is_string())
    throw CommandError{error_code::kInvalidParams, "expected \"command\": a command name"};
  const json arguments = params.value("arguments", json::array());
  // Synchronous for now: nothing can set the flag while the command runs.
  const std::atomic<bool> cancelled{false};
  CommandContext context(cancelled);
  if (const auto uri = command_document_uri(arguments)) {
    if (const Document *document = documents_.find(*uri)) {
      context.document = DocumentSnapshot{document->uri, uri_to_path(document->uri), document->text,
                                          document->version};
      if (params["command"] == "argus.explain") {
        check_of(*document);
        context.checked = last_checks_.at(*uri);
      }
    }
  }
  context.encoding = encoding_;
  context.settings = command_settings_;
  context.argus_version = options_.version;
  context.work_done_token = params.value("workDoneToken", json());
  context.client_creates_progress = client_progress_;
  context.notify = [this](json message) { transport_.write(message); };
  return execute_command(params["command"].get<std::string>(), arguments, context);
}

} // namespace argus::server
