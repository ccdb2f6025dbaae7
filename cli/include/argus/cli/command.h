// The subcommands of `argus` and what they share: exit statuses and the
// environment they run in (streams, terminal, NO_COLOR).
//
// main.cpp is a dispatcher over `commands()`; each subcommand lives in its own
// file (check_command.cpp, later compile, bench, lsp, layout, agent) and takes
// the arguments that follow its name.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace argus::cli {

// Exit statuses of every subcommand (documented in docs/diagnostics.md).
inline constexpr int kExitOk = 0;       // success; warnings allowed
inline constexpr int kExitErrors = 1;   // at least one error diagnostic
inline constexpr int kExitUsage = 2;    // bad command line, or an input could not be read
inline constexpr int kExitInternal = 3; // a bug in argus (an exception escaped)

// Where a subcommand writes and what it knows about its surroundings. Tests
// pass string streams; main() passes std::cout/std::cerr and the real facts.
struct Environment {
  std::ostream &out;
  std::ostream &err;
  bool out_is_terminal = false;
  bool no_color = false; // NO_COLOR is set to a non-empty value (https://no-color.org)
};

struct Command {
  std::string_view name;
  std::string_view summary; // one line, for `argus --help`
  std::string_view help;    // the full text of `argus help NAME`
  int (*run)(std::span<const std::string> args, Environment &env);
};

// All subcommands, in the order `argus --help` lists them.
std::span<const Command> commands();
const Command *find_command(std::string_view name);

// The project version from CMake, e.g. "0.1.0".
std::string_view version();

} // namespace argus::cli
