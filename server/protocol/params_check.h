// Internal: what each request and notification needs in its params, checked
// before dispatch so a bad message is answered -32602 with the field it
// concerns ("params.position.line: expected an unsigned integer, got
// \"a\""), not with a JSON library's internals.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace argus::server::detail {

// Why `params` does not fit `method`; nullopt when it does (or when the
// method has no fields this table knows: its handler checks what it reads).
std::optional<std::string> invalid_params(std::string_view method, const nlohmann::json &params);

// A JSON library exception's message without its "[json.exception...] " tag.
std::string plain_json_error(std::string_view what);

} // namespace argus::server::detail
