// A small command-line option parser: `--name=value`, `--name value`,
// flags, `--` to end options, and positional arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace argus::cli {

struct OptionSpec {
  std::string_view name;    // with its dashes: "--format", "-h"
  bool takes_value = false; // `--name=value` or `--name value`
};

struct ParsedOptions {
  std::vector<std::pair<std::string, std::string>> values; // in command-line order
  std::vector<std::string> positional;

  // The value of the last occurrence of `name` (later options win), or null.
  const std::string *last(std::string_view name) const;
  bool has(std::string_view name) const { return last(name) != nullptr; }
};

struct UsageError {
  std::string message; // e.g. "unknown option '--frmat'"
};

// Parses `args` against `specs`. Never throws; an unknown option, a missing
// value or a value given to a flag is a UsageError.
std::variant<ParsedOptions, UsageError> parse_options(std::span<const std::string> args,
                                                      std::span<const OptionSpec> specs);

// A decimal byte count ("4194304"), optionally with a K, M or G suffix
// (binary: 1K = 1024). Nullopt for anything else, including overflow.
std::optional<uint64_t> parse_byte_count(std::string_view text);

} // namespace argus::cli
