// Shared pieces of the workspace/executeCommand handlers (commands.cpp,
// build_commands.cpp).
#pragma once

#include "argus/server/commands.h"

#include <nlohmann/json.hpp>

#include <string>

namespace argus::server::detail {

inline constexpr int kInvalidParams = -32602;
inline constexpr int kRequestCancelled = -32800;

// The command's argument object; -32602 when there is none.
const nlohmann::json &command_object(const nlohmann::json &arguments);
// The open document the object's "uri" names; -32602 when absent or not open.
const DocumentSnapshot &command_document(const nlohmann::json &object,
                                         const CommandContext &context);
// "target" of the object, else the configured one; -32602 when unknown.
codegen::GpuTarget command_target(const nlohmann::json &object, const CommandContext &context);
// -32800 when the request was cancelled.
void throw_if_cancelled(const CommandContext &context);

nlohmann::json compile_command(const nlohmann::json &object, CommandContext &context);
nlohmann::json benchmark_command(const nlohmann::json &object, CommandContext &context);

} // namespace argus::server::detail
