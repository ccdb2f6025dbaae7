#include "argus/cli/options.h"

#include <algorithm>
#include <limits>

namespace argus::cli {

const std::string *ParsedOptions::last(std::string_view name) const {
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (it->first == name)
      return &it->second;
  }
  return nullptr;
}

namespace {

const OptionSpec *find_spec(std::span<const OptionSpec> specs, std::string_view name) {
  const auto it = std::find_if(specs.begin(), specs.end(),
                               [&](const OptionSpec &spec) { return spec.name == name; });
  return it == specs.end() ? nullptr : &*it;
}

} // namespace

std::variant<ParsedOptions, UsageError> parse_options(std::span<const std::string> args,
                                                      std::span<const OptionSpec> specs) {
  ParsedOptions parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--") {
      parsed.positional.insert(parsed.positional.end(), args.begin() + static_cast<long>(i) + 1,
                               args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg); // includes "-"
      continue;
    }
    const size_t equals = arg.starts_with("--") ? arg.find('=') : std::string::npos;
    const std::string name = arg.substr(0, equals);
    const OptionSpec *spec = find_spec(specs, name);
    if (!spec)
      return UsageError{"unknown option '" + name + "'"};
    if (!spec->takes_value) {
      if (equals != std::string::npos)
        return UsageError{"option '" + name + "' takes no value"};
      parsed.values.emplace_back(name, std::string());
      continue;
    }
    if (equals != std::string::npos) {
      parsed.values.emplace_back(name, arg.substr(equals + 1));
      continue;
    }
    if (i + 1 >= args.size())
      return UsageError{"option '" + name + "' needs a value"};
    parsed.values.emplace_back(name, args[++i]);
  }
  return parsed;
}

std::optional<uint64_t> parse_byte_count(std::string_view text) {
  uint64_t multiplier = 1;
  if (!text.empty()) {
    switch (text.back()) {
    case 'K':
    case 'k':
      multiplier = uint64_t{1} << 10;
      break;
    case 'M':
    case 'm':
      multiplier = uint64_t{1} << 20;
      break;
    case 'G':
    case 'g':
      multiplier = uint64_t{1} << 30;
      break;
    default:
      break;
    }
    if (multiplier != 1)
      text.remove_suffix(1);
  }
  if (text.empty())
    return std::nullopt;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (value > (kMax - digit) / 10)
      return std::nullopt;
    value = value * 10 + digit;
  }
  if (value > kMax / multiplier)
    return std::nullopt;
  return value * multiplier;
}

} // namespace argus::cli
