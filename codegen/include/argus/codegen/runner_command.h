// Running an artifact through a runner command template (`argus bench`, the
// language server's `argus.benchmark`): the template's words, which templates
// may run, and the runner's JSON output (docs/artifacts.md).
#pragma once

#include "argus/codegen/spawn.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::codegen {

// The command of a runner template, as words for spawn(): the template is
// split as a shell splits words, without expanding anything (blanks separate,
// '...' and "..." group, a backslash escapes one character); {runner},
// {artifact} and {target} are replaced inside words by the values, and
// `extra` is appended, one word each. A template without {artifact} gets the
// artifact as a word of its own before `extra`. When the program is ssh, the
// words after the destination are a command line for the remote shell, so the
// values and `extra` are quoted for it there. Nullopt (with `error`) for a
// template that does not split (an open quote) or is empty.
std::optional<std::vector<std::string>>
runner_argv(std::string_view tmpl, std::string_view runner, std::string_view artifact,
            std::string_view target, const std::vector<std::string> &extra, std::string &error);

// The built-in local runner's template: always allowed.
inline constexpr std::string_view kDefaultRunnerTemplate = "{runner} {artifact}";

// Whether a runner template from settings may run: the built-in one, or one
// that matches a glob (fnmatch) the user allowed on the server's command line.
bool runner_allowed(std::string_view tmpl, const std::vector<std::string> &allowed_globs);

// argus-runner next to the running binary, else the first on PATH, else the bare name.
std::string find_runner();

// The runner's stdout as JSON: the whole text, else from the first line that
// starts a JSON object or array (a login banner may come first).
std::optional<nlohmann::ordered_json> parse_runner_output(const std::string &out);

// The last `max_chars` of a text without trailing blanks ("..." in front when cut).
std::string text_tail(const std::string &text, size_t max_chars);

} // namespace argus::codegen
