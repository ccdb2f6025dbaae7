#include "argus/cli/agent_command.h"
#include "argus/cli/bench_command.h"
#include "argus/cli/check_command.h"
#include "argus/cli/command.h"
#include "argus/cli/compile_command.h"
#include "argus/cli/layout_command.h"
#include "argus/cli/lsp_command.h"

#include <algorithm>
#include <array>

namespace argus::cli {

std::span<const Command> commands() {
  static const std::array kCommands = {
      Command{"check", kCheckSummary, kCheckHelp, run_check},
      Command{"layout", kLayoutSummary, kLayoutHelp, run_layout},
      Command{"compile", kCompileSummary, kCompileHelp, run_compile},
      Command{"bench", kBenchSummary, kBenchHelp, run_bench},
      Command{"lsp", kLspSummary, kLspHelp, run_lsp},
      Command{"agent", kAgentSummary, kAgentHelp, run_agent},
  };
  return kCommands;
}

const Command *find_command(std::string_view name) {
  const auto all = commands();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Command &c) { return c.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::string_view version() { return ARGUS_VERSION; }

} // namespace argus::cli
