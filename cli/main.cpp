// `argus`: a dispatcher over the subcommands in commands().
#include "argus/cli/command.h"

#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace argus::cli {
namespace {

void print_usage(std::ostream &out) {
  out << "Usage: argus <command> [options] [arguments]\n"
         "\n"
         "Argus: GPU kernels in a small Python-like language whose data movement is\n"
         "checked at compile time.\n"
         "\n"
         "Commands:\n";
  for (const Command &command : commands()) {
    std::string name(command.name);
    name.resize(std::max<size_t>(name.size() + 2, 10), ' ');
    out << "  " << name << command.summary << '\n';
  }
  out << "  help      Print the help of a command: argus help <command>\n"
         "\n"
         "Options:\n"
         "  -h, --help  Print this help\n"
         "  --version   Print the version\n";
}

int usage_error(Environment &env, const std::string &message) {
  env.err << "argus: error: " << message << " (see 'argus --help')\n";
  return kExitUsage;
}

int run_help(std::span<const std::string> args, Environment &env) {
  if (args.empty()) {
    print_usage(env.out);
    return kExitOk;
  }
  if (args.size() > 1)
    return usage_error(env, "'argus help' takes one command name");
  const Command *command = find_command(args[0]);
  if (!command)
    return usage_error(env, "unknown command '" + args[0] + "'");
  env.out << command->help;
  return kExitOk;
}

int dispatch(std::span<const std::string> args, Environment &env) {
  if (args.empty()) {
    print_usage(env.err);
    return kExitUsage;
  }
  const std::string &first = args[0];
  if (first == "--help" || first == "-h")
    return run_help({}, env);
  if (first == "--version") {
    env.out << "argus " << version() << '\n';
    return kExitOk;
  }
  if (first == "help")
    return run_help(args.subspan(1), env);
  if (first.starts_with("-"))
    return usage_error(env, "unknown option '" + first + "'");
  const Command *command = find_command(first);
  if (!command)
    return usage_error(env, "unknown command '" + first + "'");
  return command->run(args.subspan(1), env);
}

bool no_color_requested() {
  const char *value = std::getenv("NO_COLOR");
  return value != nullptr && value[0] != '\0';
}

} // namespace
} // namespace argus::cli

int main(int argc, char **argv) {
  using namespace argus::cli;
  std::ios::sync_with_stdio(false); // std::cerr stays tied to std::cout: output keeps its order
  const std::vector<std::string> args(argv + 1, argv + argc);
  Environment env{std::cout, std::cerr, isatty(STDOUT_FILENO) == 1, no_color_requested()};
  try {
    return dispatch(args, env);
  } catch (const std::exception &error) {
    std::cout.flush();
    std::cerr << "argus: internal error: " << error.what() << '\n';
    return kExitInternal;
  }
}
