#include "argus/cli/lsp_command.h"

#include "argus/server/log.h"
#include "argus/server/server.h"
#include "argus/server/transport.h"

#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>

namespace argus::cli {

const std::string_view kLspSummary = "Run the language server on stdin/stdout";
const std::string_view kLspHelp =
    "Usage: argus lsp [--log-level=error|info|debug] [--log-file=PATH] [--allow-runner=GLOB]...\n"
    "\n"
    "Serves the Language Server Protocol (3.17) on stdin/stdout with Content-Length\n"
    "framing. Editors and agents start it as a subprocess; see server/README.md.\n"
    "\n"
    "Options:\n"
    "  --log-level=LEVEL  error (default), info or debug; logs go to stderr\n"
    "  --log-file=PATH    append logs to PATH instead of stderr\n"
    "  --stdio            the transport (the only one; accepted for editors that pass it)\n"
    "  --allow-runner=GLOB\n"
    "                     let the client's \"runner\" setting choose a benchmark runner\n"
    "                     template that matches GLOB (fnmatch; repeatable). Without it\n"
    "                     only the built-in local runner '{runner} {artifact}' runs, so\n"
    "                     a cloned workspace's settings cannot pick a command\n"
    "  -h, --help         Print this help\n"
    "\n"
    "Exit status: 0 after shutdown and exit, 1 on exit without shutdown or end of\n"
    "input, 2 on a usage error.\n";

int run_lsp(std::span<const std::string> args, Environment &env) {
  server::LogLevel level = server::LogLevel::Error;
  std::optional<std::string> log_file;
  std::vector<std::string> allowed_runners;
  for (const std::string &arg : args) {
    if (arg == "-h" || arg == "--help") {
      env.out << kLspHelp;
      return kExitOk;
    }
    if (arg.starts_with("--log-level=")) {
      const std::optional<server::LogLevel> parsed =
          server::parse_log_level(std::string_view(arg).substr(12));
      if (!parsed) {
        env.err << "argus lsp: error: unknown log level '" << arg.substr(12)
                << "' (see 'argus help lsp')\n";
        return kExitUsage;
      }
      level = *parsed;
    } else if (arg.starts_with("--log-file=") && arg.size() > 11) {
      log_file = arg.substr(11);
    } else if (arg.starts_with("--allow-runner=") && arg.size() > 15) {
      allowed_runners.push_back(arg.substr(15));
    } else if (arg == "--stdio") {
      // stdio is the only transport; vscode-languageclient (TransportKind.stdio)
      // and other clients name it on the command line.
    } else {
      env.err << "argus lsp: error: unknown argument '" << arg << "' (see 'argus help lsp')\n";
      return kExitUsage;
    }
  }
  std::ofstream file;
  if (log_file) {
    file.open(*log_file, std::ios::app);
    if (!file) {
      env.err << "argus lsp: error: cannot open log file '" << *log_file << "'\n";
      return kExitUsage;
    }
  }
  server::Logger log(log_file ? static_cast<std::ostream &>(file) : env.err, level);
  // std::cin and std::cerr are tied to std::cout (see main.cpp): each read of
  // the reader thread and each log line would flush std::cout from another
  // thread, outside the transport's write lock, and a frame being written
  // could go out twice or torn. Only the transport writes to stdout here.
  // A client that died closes the pipe: a write then fails (EPIPE) instead of
  // killing the server, which ends when its input ends.
  std::signal(SIGPIPE, SIG_IGN);
  std::cin.tie(nullptr);
  std::cerr.tie(nullptr);
  server::Transport transport(std::cin, env.out, log);
  server::ServerOptions options;
  options.version = std::string(version());
  options.allowed_runners = std::move(allowed_runners);
  server::Server server(transport, log, std::move(options));
  return server.run();
}

} // namespace argus::cli
