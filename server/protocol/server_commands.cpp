// workspace/executeCommand: copies what the command needs (the document's
// snapshot, its last check, the settings) into a CommandContext and runs
// execute_command, which touches nothing of the Server.
#include "argus/server/server.h"

#include <atomic>
#include <optional>

namespace argus::server {

using nlohmann::json;

// Builds the command's context from copies on the message thread, then runs
// it on a command worker, which answers the request itself (the transport is
// thread-safe). $/cancelRequest sets the flag in running_commands_.
void Server::execute_command_request(const json &id, const json &params) {
  if (!params.is_object() || !params.contains("command") || !params["command"].is_string())
    throw CommandError{error_code::kInvalidParams, "expected \"command\": a command name"};
  const std::string command = params["command"].get<std::string>();
  const json arguments = params.value("arguments", json::array());
  std::optional<DocumentSnapshot> document;
  std::shared_ptr<const FullCheck> checked;
  if (const auto uri = command_document_uri(arguments)) {
    if (const Document *open = workspace_.find(*uri)) {
      document = DocumentSnapshot{
          open->uri, uri_to_path(open->uri), open->text, open->version, nullptr, nullptr};
      if (command == "argus.explain" || command == "argus.verification")
        checked = workspace_.full(*uri); // ready_or_park waited for this version's check
    }
  }
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  running_commands_[id.dump()] = cancelled;
  ++in_flight_;
  workspace_.scheduler().command(
      [this, id, command, arguments, document = std::move(document), checked = std::move(checked),
       cancelled, frontend = workspace_.scheduler().command_frontend_options(nullptr),
       cache = workspace_.scheduler().cache(), token = params.value("workDoneToken", json()),
       settings = command_settings_, encoding = encoding_, progress = client_progress_] {
        CommandContext context(*cancelled);
        context.frontend = frontend;
        context.frontend.checker.cancel = cancelled.get();
        context.cache = cache;
        context.document = document;
        context.checked = checked;
        context.encoding = encoding;
        context.settings = settings;
        context.argus_version = options_.version;
        context.allowed_runners = options_.allowed_runners;
        context.work_done_token = token;
        context.client_creates_progress = progress;
        context.notify = [this](json message) { transport_.write(message); };
        try {
          reply(id, execute_command(command, arguments, context));
        } catch (const CommandError &error) {
          reply_error(id, error.code, error.message);
        } catch (const json::exception &error) {
          reply_error(id, error_code::kInvalidParams,
                      std::string("invalid arguments: ") + error.what());
        } catch (const std::exception &error) {
          log_.error("internal error in " + command + ": " + error.what());
          reply_error(id, error_code::kInternalError, error.what());
        }
        post_task([this, id] {
          running_commands_.erase(id.dump());
          --in_flight_;
        });
      });
}

} // namespace argus::server
