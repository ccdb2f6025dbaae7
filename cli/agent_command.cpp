// `argus agent optimize`: agent_command.h.
#include "argus/cli/agent_command.h"
#include "argus/agent/knowledge_base.h"
#include "argus/agent/optimize.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

namespace argus::cli {

const std::string_view kAgentSummary = "Optimize a kernel through the language server";
const std::string_view kAgentHelp =
    "Usage: argus agent optimize FILE --kernel NAME [--budget STEPS] [--target sm90|gfx942]\n"
    "                            [--offline | --llm URL [--llm-model NAME]]\n"
    "                            [--repair-rounds N] [--token-budget N]\n"
    "                            [--runner TEMPLATE] [--runner-arg ARG]...\n"
    "                            [--emit-only] [--out DIR] [--kb DIR]\n"
    "\n"
    "Runs the optimization loop on the kernel NAME of FILE as a client of\n"
    "`argus lsp` (the one an editor talks to): a planner picks a knowledge-base\n"
    "technique or a knob move, the offline proposer applies it (a module constant\n"
    "moved to a neighbouring power of two, or the server's refactor code action),\n"
    "and a candidate counts only when it checks clean, proves at least what the\n"
    "start proved with every assertion kept, and the runner finds it correct.\n"
    "FILE is never written: the best version, the trajectory (JSON Lines), a\n"
    "report and its plot of speed per step (report.svg) go to DIR (default: agent-out).\n"
    "\n"
    "Options:\n"
    "  --kernel NAME      the kernel to optimize (its @bench times it)\n"
    "  --budget STEPS     steps to try (default 20)\n"
    "  --target T         sm90 (default) or gfx942\n"
    "  --offline          no model: knob moves and the server's refactors (the default)\n"
    "  --llm URL          an OpenAI-compatible endpoint (.../v1) for the other techniques;\n"
    "                     the key comes from ARGUS_LLM_API_KEY, never the command line\n"
    "  --llm-model NAME   the model (default: ARGUS_LLM_MODEL)\n"
    "  --repair-rounds N  times a rejected version goes back to the model with the\n"
    "                     server's diagnostics (default 2)\n"
    "  --token-budget N   the episode's tokens (default 1000000)\n"
    "  --runner TEMPLATE  the benchmark runner template, e.g. 'ssh gpu argus-runner {artifact}';\n"
    "                     the language server is started allowing exactly this template\n"
    "  --runner-arg ARG   an argument for the runner (repeatable)\n"
    "  --emit-only        benchmark from the generated sources (a runner that builds them)\n"
    "  --out DIR          where the results go\n"
    "  --kb DIR           the knowledge base (default: the source tree's agent/kb)\n"
    "  -h, --help         Print this help\n";

namespace {

// A runner template as a glob that matches only itself (--allow-runner takes globs).
std::string literal_glob(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

int run_agent(std::span<const std::string> args, Environment &env) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    env.out << kAgentHelp;
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] != "optimize") {
    env.err << "argus agent: error: unknown action '" << args[0] << "' (see 'argus help agent')\n";
    return kExitUsage;
  }
  agent::OptimizeOptions options;
  std::optional<std::string> runner;
  bool offline = false;
  std::string llm_url, llm_model;
  int64_t token_budget = 1'000'000;
  std::string out_dir = "agent-out", kb_dir = ARGUS_KB_DIR;
  const auto value = [&](size_t &i, const std::string &flag) -> std::optional<std::string> {
    if (i + 1 >= args.size()) {
      env.err << "argus agent: error: " << flag << " needs a value\n";
      return std::nullopt;
    }
    return args[++i];
  };
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::optional<std::string> v;
    if (a == "-h" || a == "--help") {
      env.out << kAgentHelp;
      return kExitOk;
    } else if (a == "--kernel") {
      if (!(v = value(i, a)))
        return kExitUsage;
      options.kernel = *v;
    } else if (a == "--budget") {
      if (!(v = value(i, a)))
        return kExitUsage;
      try {
        size_t used = 0;
        options.budget = std::stoi(*v, &used);
        if (used != v->size() || options.budget < 1 || options.budget > 100000)
          throw std::invalid_argument(*v);
      } catch (const std::exception &) {
        env.err << "argus agent: error: --budget expects a number of steps from 1 to 100000\n";
        return kExitUsage;
      }
    } else if (a == "--target") {
      if (!(v = value(i, a)))
        return kExitUsage;
      if (*v != "sm90" && *v != "gfx942") {
        env.err << "argus agent: error: --target is sm90 or gfx942\n";
        return kExitUsage;
      }
      options.target = *v;
    } else if (a == "--runner") {
      if (!(v = value(i, a)))
        return kExitUsage;
      runner = *v;
    } else if (a == "--runner-arg") {
      if (!(v = value(i, a)))
        return kExitUsage;
      options.runner_args.push_back(*v);
    } else if (a == "--out") {
      if (!(v = value(i, a)))
        return kExitUsage;
      out_dir = *v;
    } else if (a == "--kb") {
      if (!(v = value(i, a)))
        return kExitUsage;
      kb_dir = *v;
    } else if (a == "--emit-only") {
      options.emit_only = true;
    } else if (a == "--offline") {
      offline = true;
    } else if (a == "--llm" || a == "--llm-model") {
      if (!(v = value(i, a)))
        return kExitUsage;
      (a == "--llm" ? llm_url : llm_model) = *v;
    } else if (a == "--repair-rounds" || a == "--token-budget") {
      if (!(v = value(i, a)))
        return kExitUsage;
      try {
        size_t used = 0;
        const long long n = std::stoll(*v, &used);
        if (used != v->size() || n < 0 || n > 1'000'000'000)
          throw std::invalid_argument(*v);
        if (a == "--repair-rounds")
          options.repair_rounds = static_cast<int>(std::min<long long>(n, 100));
        else
          token_budget = n;
      } catch (const std::exception &) {
        env.err << "argus agent: error: " << a << " expects a non-negative number\n";
        return kExitUsage;
      }
    } else if (!a.starts_with("-") && options.file.empty()) {
      options.file = a;
    } else {
      env.err << "argus agent: error: unknown argument '" << a << "' (see 'argus help agent')\n";
      return kExitUsage;
    }
  }
  if (offline && !llm_url.empty()) {
    env.err << "argus agent: error: --offline and --llm exclude each other\n";
    return kExitUsage;
  }
  if (!llm_url.empty()) {
    agent::ModelOptions model;
    model.base_url = llm_url;
    const char *name = std::getenv("ARGUS_LLM_MODEL");
    model.model = !llm_model.empty() ? llm_model : name ? name : "";
    if (model.model.empty()) {
      env.err << "argus agent: error: --llm needs a model (--llm-model NAME or ARGUS_LLM_MODEL)\n";
      return kExitUsage;
    }
    if (const char *key = std::getenv("ARGUS_LLM_API_KEY"))
      model.api_key = key;
    model.token_budget = token_budget;
    options.model = model;
  }
  if (options.file.empty() || options.kernel.empty()) {
    env.err << "argus agent: error: expected FILE and --kernel NAME (see 'argus help agent')\n";
    return kExitUsage;
  }
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::absolute(options.file, ec);
  if (ec || !std::filesystem::is_regular_file(file, ec)) {
    env.err << "argus agent: error: cannot read " << options.file << "\n";
    return kExitUsage;
  }
  options.file = file.string();
  const agent::KnowledgeBase kb = agent::load_knowledge_base(kb_dir);
  if (!kb.errors.empty() || kb.techniques.empty()) {
    env.err << "argus agent: error: the knowledge base in " << kb_dir << " does not load"
            << (kb.errors.empty() ? "" : ": " + kb.errors.front()) << "\n";
    return kExitUsage;
  }
  // The language server is this very binary.
  agent::LspClientOptions client_options;
  client_options.program = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec)
    client_options.program = "argus";
  client_options.settings = {{"target", options.target}};
  if (runner) {
    client_options.args.push_back("--allow-runner=" + literal_glob(*runner));
    client_options.settings["runner"] = *runner;
  }
  client_options.request_timeout = options.benchmark_timeout;
  agent::OptimizeResult result;
  try {
    agent::LspClient client(client_options);
    client.start();
    result = agent::optimize(client, kb, options,
                             [&](const std::string &line) { env.err << line << "\n"; });
    client.shutdown();
  } catch (const std::exception &error) {
    env.err << "argus agent: error: " << error.what() << "\n";
    return kExitErrors;
  }
  std::filesystem::create_directories(out_dir, ec);
  const std::filesystem::path out(out_dir);
  std::ofstream(out / "best.argus") << result.best_text;
  std::ofstream trajectory(out / "trajectory.jsonl");
  for (const auto &step : result.trajectory)
    trajectory << step.dump() << "\n";
  std::ofstream(out / "report.md") << result.report;
  std::ofstream(out / "report.svg") << result.plot;
  env.out << "best " << result.best_seconds * 1e3 << " ms, baseline "
          << result.baseline_seconds * 1e3 << " ms ("
          << result.baseline_seconds / result.best_seconds << "x); written to "
          << (out / "best.argus").string() << ", " << (out / "trajectory.jsonl").string() << ", "
          << (out / "report.md").string() << "\n";
  return kExitOk;
}

} // namespace argus::cli
