// workspace/executeCommand: argus.compile, argus.benchmark, argus.explain and
// argus.layout (docs/lsp.md). Results are JSON for editors and agents alike.
//
// execute_command may run on a worker thread: it reads only its
// CommandContext (snapshots copied before the call) and writes to the client
// only through context.notify.
#pragma once

#include "argus/codegen/lower.h"
#include "argus/codegen/runner_command.h"
#include "argus/dsl/driver.h"
#include "argus/dsl/source.h"
#include "argus/server/scheduler.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace argus::server {

// The commands' configuration: {"target", "runner", "benchmarkTimeoutSeconds"}
// in initializationOptions / workspace/didChangeConfiguration.
struct CommandSettings {
  codegen::GpuTarget target = codegen::GpuTarget::Sm90;
  std::string runner{codegen::kDefaultRunnerTemplate}; // the template of `argus bench --runner`
  double benchmark_timeout_s = 900;
};

// Applies the keys above that `settings` has; returns what was not understood
// (the other keys apply). Keys it does not know are left to other settings.
std::vector<std::string> configure_commands(const nlohmann::json &settings,
                                            CommandSettings &command_settings);

// A command that cannot be answered with a result: a JSON-RPC error.
struct CommandError {
  int code;
  std::string message;
};

struct CommandContext {
  explicit CommandContext(const std::atomic<bool> &cancelled_flag) : cancelled(cancelled_flag) {}

  // Set when the client cancelled the request: execute_command stops (a
  // running benchmark's runner is killed) and throws CommandError -32800.
  const std::atomic<bool> &cancelled;
  // The document the arguments name (command_document_uri), copied before the
  // call; nullopt when it is not open.
  std::optional<DocumentSnapshot> document;
  // The check (with the invariant checker) of exactly document->text, when the
  // caller has one; argus.explain checks the text itself otherwise.
  std::shared_ptr<const FullCheck> checked;
  ColumnUnit encoding = ColumnUnit::Utf16CodeUnits;
  // How compile, benchmark and explain check the text (the server's
  // Scheduler::command_frontend_options, with `cancelled`); `cache` owns the
  // per-kernel cache `frontend.cache` points into while the command runs.
  FrontendOptions frontend;
  std::shared_ptr<check::CheckCache> cache;
  CommandSettings settings;
  std::vector<std::string> allowed_runners; // ServerOptions::allowed_runners
  std::string argus_version;
  // The request's workDoneToken (null when absent), and whether the client
  // can create a progress token itself (capabilities.window.workDoneProgress).
  nlohmann::json work_done_token;
  bool client_creates_progress = false;
  // Writes one complete JSON-RPC message (a $/progress notification, or the
  // window/workDoneProgress/create request) to the client. Thread-safe.
  std::function<void(nlohmann::json)> notify;
};

// The commands, as executeCommandProvider lists them.
const std::vector<std::string> &command_names();

// The URI of the document a command's arguments name ({"uri": ...} or
// [{"uri": ...}]), so the caller knows which snapshot to copy.
std::optional<std::string> command_document_uri(const nlohmann::json &arguments);

// Runs one command. `arguments` is ExecuteCommandParams.arguments: an array
// whose first element is the command's object (an object alone is accepted).
// Bad arguments and unknown commands throw CommandError -32602.
nlohmann::json execute_command(const std::string &command, const nlohmann::json &arguments,
                               CommandContext &context);

} // namespace argus::server
