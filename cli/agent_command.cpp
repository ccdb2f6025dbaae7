// `argus agent optimize` and `argus agent eval`: agent_command.h.
#include "argus/cli/agent_command.h"
#include "argus/agent/evaluate.h"
#include "argus/agent/knowledge_base.h"
#include "argus/agent/optimize.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

namespace argus::cli {

const std::string_view kAgentSummary = "Optimize kernels through the language server";
const std::string_view kAgentHelp =
    "Usage: argus agent optimize FILE --kernel NAME [--budget STEPS|TIME] [options]\n"
    "       argus agent eval TASKS [--library TEMPLATE] [--p P] [options]\n"
    "\n"
    "optimize runs the optimization loop on the kernel NAME of FILE as a client of\n"
    "`argus lsp` (the one an editor talks to): a planner picks a knowledge-base\n"
    "technique or a knob move, a proposer applies it (offline: the search over the\n"
    "module constants and the server's refactor code actions; with --llm: a model),\n"
    "and a candidate counts only when it checks clean, proves at least what the\n"
    "start proved with every assertion kept, accepts every size the start accepted,\n"
    "and the runner finds it correct with fresh inputs. FILE is never written: the best version, "
    "the trajectory (JSON\n"
    "Lines, written step by step), a report and its plot of speed per step\n"
    "(report.svg) go to DIR (default: agent-out).\n"
    "\n"
    "eval runs the loop on every task of the folder TASKS (agent/tasks: a starting\n"
    "kernel, its @bench sizes, held-out sizes, a budget), runs each best version at\n"
    "its held-out sizes, and reports the correct rate, the speedup over the start\n"
    "and fast_p (eval.md, eval.json and a folder per task in DIR, default agent-eval).\n"
    "\n"
    "Options:\n"
    "  --kernel NAME      the kernel to optimize (its @bench times it)\n"
    "  --budget STEPS|TIME  steps to try (default 20; eval: each task's own, at most STEPS),\n"
    "                     or a time such as 30m or 90s (no round starts after it)\n"
    "  --target T         sm90 (default) or gfx942\n"
    "  --offline          no model: the knob search and the server's refactors (the default)\n"
    "  --llm URL          an OpenAI-compatible endpoint (.../v1) for the other techniques;\n"
    "                     the key comes from ARGUS_LLM_API_KEY, never the command line\n"
    "  --llm-model NAME   the model (default: ARGUS_LLM_MODEL)\n"
    "  --repair-rounds N  times a rejected version goes back to the model with the\n"
    "                     server's diagnostics (default 2)\n"
    "  --token-budget N   the episode's tokens (default 1000000)\n"
    "  --runner TEMPLATE  the benchmark runner template, e.g. 'ssh gpu argus-runner {artifact}'\n"
    "                     or 'srun -N1 --gres=gpu:1 argus-runner {artifact}';\n"
    "                     the language servers are started allowing exactly this template\n"
    "  --runner-arg ARG   an argument for the runner (repeatable)\n"
    "  --jobs N           candidates evaluated at once, each by its own server and\n"
    "                     runner process (with an srun template: its own Slurm job)\n"
    "  --resume           continue the trajectory in DIR (optimize)\n"
    "  --allow-narrower-sizes  count versions whose assumptions refuse sizes the start\n"
    "                     accepted (a tile grown to the bench's sizes); by default they\n"
    "                     are refused\n"
    "  --emit-only        benchmark from the generated sources (a runner that builds them)\n"
    "  --library TEMPLATE times the reference library for fast_p (eval): words with\n"
    "                     {op}, {sizes}, {task}; it prints {\"median_ms\": ...}\n"
    "  --p P              fast_p's threshold: faster than the library by more than P (1)\n"
    "  --out DIR          where the results go\n"
    "  --kb DIR           the knowledge base (default: the source tree's agent/kb)\n"
    "  -h, --help         Print this help\n";

namespace {

struct AgentCommand {
  std::string action, positional;
  agent::OptimizeOptions loop;
  std::optional<std::string> runner, library;
  bool offline = false;
  std::string llm_url, llm_model;
  int64_t token_budget = 1'000'000;
  std::string out_dir, kb_dir = ARGUS_KB_DIR;
  double p = 1.0;
  bool budget_given = false;
};

// The command line; an exit code when it is wrong (the message is written).
std::optional<int> parse(std::span<const std::string> args, AgentCommand &c, Environment &env) {
  const auto value = [&](size_t &i, const std::string &flag) -> std::optional<std::string> {
    if (i + 1 >= args.size()) {
      env.err << "argus agent: error: " << flag << " needs a value\n";
      return std::nullopt;
    }
    return args[++i];
  };
  const auto number = [&](const std::string &text, long long lo, long long hi,
                          long long &out) -> bool {
    try {
      size_t used = 0;
      out = std::stoll(text, &used);
      return used == text.size() && out >= lo && out <= hi;
    } catch (const std::exception &) {
      return false;
    }
  };
  c.action = args[0];
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::optional<std::string> v;
    long long n = 0;
    if (a == "-h" || a == "--help") {
      env.out << kAgentHelp;
      return kExitOk;
    } else if (a == "--kernel" || a == "--runner" || a == "--runner-arg" || a == "--out" ||
               a == "--kb" || a == "--llm" || a == "--llm-model" || a == "--library" ||
               a == "--target" || a == "--budget" || a == "--jobs" || a == "--repair-rounds" ||
               a == "--token-budget" || a == "--p") {
      if (!(v = value(i, a)))
        return kExitUsage;
      if (a == "--kernel") {
        c.loop.kernel = *v;
      } else if (a == "--runner") {
        c.runner = *v;
      } else if (a == "--runner-arg") {
        c.loop.runner_args.push_back(*v);
      } else if (a == "--out") {
        c.out_dir = *v;
      } else if (a == "--kb") {
        c.kb_dir = *v;
      } else if (a == "--llm") {
        c.llm_url = *v;
      } else if (a == "--llm-model") {
        c.llm_model = *v;
      } else if (a == "--library") {
        c.library = *v;
      } else if (a == "--target") {
        if (*v != "sm90" && *v != "gfx942") {
          env.err << "argus agent: error: --target is sm90 or gfx942\n";
          return kExitUsage;
        }
        c.loop.target = *v;
      } else if (a == "--budget") {
        // STEPS, or minutes as "30m" / seconds as "90s" (then the steps are unbounded).
        const char unit = v->empty() ? '\0' : v->back();
        if ((unit == 'm' || unit == 's') && number(v->substr(0, v->size() - 1), 1, 100000, n)) {
          c.loop.time_budget = std::chrono::seconds(unit == 'm' ? n * 60 : n);
          c.loop.budget = 100000;
        } else if (number(*v, 1, 100000, n)) {
          c.loop.budget = static_cast<int>(n);
          c.budget_given = true;
        } else {
          env.err << "argus agent: error: --budget expects steps (1 to 100000) or a time such as "
                     "30m or 90s\n";
          return kExitUsage;
        }
      } else if (a == "--jobs") {
        if (!number(*v, 1, 64, n)) {
          env.err << "argus agent: error: --jobs expects a number from 1 to 64\n";
          return kExitUsage;
        }
        c.loop.jobs = static_cast<int>(n);
      } else if (a == "--repair-rounds" || a == "--token-budget") {
        if (!number(*v, 0, 1'000'000'000, n)) {
          env.err << "argus agent: error: " << a << " expects a non-negative number\n";
          return kExitUsage;
        }
        if (a == "--repair-rounds")
          c.loop.repair_rounds = static_cast<int>(std::min<long long>(n, 100));
        else
          c.token_budget = n;
      } else { // --p
        char *end = nullptr;
        c.p = std::strtod(v->c_str(), &end);
        if (v->empty() || *end != '\0' || !(c.p > 0 && c.p < 1000)) {
          env.err << "argus agent: error: --p expects a speedup such as 1 or 0.8\n";
          return kExitUsage;
        }
      }
    } else if (a == "--emit-only") {
      c.loop.emit_only = true;
    } else if (a == "--offline") {
      c.offline = true;
    } else if (a == "--resume") {
      c.loop.resume = true;
    } else if (a == "--allow-narrower-sizes") {
      c.loop.keep_sizes = false;
    } else if (!a.starts_with("-") && c.positional.empty()) {
      c.positional = a;
    } else {
      env.err << "argus agent: error: unknown argument '" << a << "' (see 'argus help agent')\n";
      return kExitUsage;
    }
  }
  if (c.offline && !c.llm_url.empty()) {
    env.err << "argus agent: error: --offline and --llm exclude each other\n";
    return kExitUsage;
  }
  if (!c.llm_url.empty()) {
    agent::ModelOptions model;
    model.base_url = c.llm_url;
    const char *name = std::getenv("ARGUS_LLM_MODEL");
    model.model = !c.llm_model.empty() ? c.llm_model : name ? name : "";
    if (model.model.empty()) {
      env.err << "argus agent: error: --llm needs a model (--llm-model NAME or ARGUS_LLM_MODEL)\n";
      return kExitUsage;
    }
    if (const char *key = std::getenv("ARGUS_LLM_API_KEY"))
      model.api_key = key;
    model.token_budget = c.token_budget;
    c.loop.model = model;
  }
  const bool optimize = c.action == "optimize";
  if (optimize && (c.positional.empty() || c.loop.kernel.empty())) {
    env.err << "argus agent: error: expected FILE and --kernel NAME (see 'argus help agent')\n";
    return kExitUsage;
  }
  if (!optimize && (c.positional.empty() || !c.loop.kernel.empty() || c.loop.resume)) {
    env.err << "argus agent: error: eval expects a folder of tasks (each names its kernel; "
               "no --kernel or --resume)\n";
    return kExitUsage;
  }
  if (optimize && (c.library || c.p != 1.0)) {
    env.err << "argus agent: error: --library and --p are options of eval\n";
    return kExitUsage;
  }
  if (c.out_dir.empty())
    c.out_dir = optimize ? "agent-out" : "agent-eval";
  return std::nullopt;
}

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

// One language server per job: this very binary, allowed exactly the runner.
struct Servers {
  std::vector<std::unique_ptr<agent::LspClient>> owned;
  std::vector<agent::LspClient *> clients;
  void shutdown() {
    for (auto &s : owned)
      s->shutdown();
  }
};

Servers start_servers(const AgentCommand &c) {
  agent::LspClientOptions options;
  std::error_code ec;
  options.program = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec)
    options.program = "argus";
  options.settings = {{"target", c.loop.target}};
  if (c.runner) {
    options.args.push_back("--allow-runner=" + literal_glob(*c.runner));
    options.settings["runner"] = *c.runner;
  }
  options.request_timeout = c.loop.benchmark_timeout;
  Servers servers;
  for (int i = 0; i < c.loop.jobs; ++i) {
    servers.owned.push_back(std::make_unique<agent::LspClient>(options));
    servers.owned.back()->start();
    servers.clients.push_back(servers.owned.back().get());
  }
  return servers;
}

} // namespace

int run_agent(std::span<const std::string> args, Environment &env) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    env.out << kAgentHelp;
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] != "optimize" && args[0] != "eval") {
    env.err << "argus agent: error: unknown action '" << args[0] << "' (see 'argus help agent')\n";
    return kExitUsage;
  }
  AgentCommand c;
  if (const auto exit = parse(args, c, env))
    return *exit;
  const agent::KnowledgeBase kb = agent::load_knowledge_base(c.kb_dir);
  if (!kb.errors.empty() || kb.techniques.empty()) {
    env.err << "argus agent: error: the knowledge base in " << c.kb_dir << " does not load"
            << (kb.errors.empty() ? "" : ": " + kb.errors.front()) << "\n";
    return kExitUsage;
  }
  const auto progress = [&](const std::string &line) { env.err << line << "\n"; };
  std::error_code ec;

  if (c.action == "eval") {
    const agent::TaskSuite suite = agent::load_tasks(c.positional);
    if (!suite.errors.empty()) {
      for (const std::string &e : suite.errors)
        env.err << "argus agent: error: " << e << "\n";
      return kExitUsage;
    }
    agent::EvalOptions options;
    options.loop = c.loop;
    options.out_dir = c.out_dir;
    options.library = c.library;
    options.p = c.p;
    if (c.budget_given)
      options.budget = c.loop.budget;
    agent::EvalSummary summary;
    try {
      Servers servers = start_servers(c);
      std::filesystem::create_directories(c.out_dir, ec);
      summary = agent::evaluate_tasks(servers.clients, kb, suite.tasks, options, progress);
      servers.shutdown();
    } catch (const std::exception &error) {
      env.err << "argus agent: error: " << error.what() << "\n";
      return kExitErrors;
    }
    const std::filesystem::path out(c.out_dir);
    std::ofstream(out / "eval.json") << summary.json.dump(1) << "\n";
    std::ofstream(out / "eval.md") << summary.report;
    env.out << summary.report.substr(0, summary.report.find("\n|")) << "written to "
            << (out / "eval.md").string() << ", " << (out / "eval.json").string() << "\n";
    return kExitOk;
  }

  const std::filesystem::path file = std::filesystem::absolute(c.positional, ec);
  if (ec || !std::filesystem::is_regular_file(file, ec)) {
    env.err << "argus agent: error: cannot read " << c.positional << "\n";
    return kExitUsage;
  }
  c.loop.file = file.string();
  c.loop.out_dir = c.out_dir;
  agent::OptimizeResult result;
  try {
    Servers servers = start_servers(c);
    result = agent::optimize(servers.clients, kb, c.loop, progress);
    servers.shutdown();
  } catch (const std::exception &error) {
    env.err << "argus agent: error: " << error.what() << "\n";
    return kExitErrors;
  }
  const std::filesystem::path out(c.out_dir);
  env.out << "best " << result.best_seconds * 1e3 << " ms, baseline "
          << result.baseline_seconds * 1e3 << " ms ("
          << result.baseline_seconds / result.best_seconds << "x); written to "
          << (out / "best.argus").string() << ", " << (out / "trajectory.jsonl").string() << ", "
          << (out / "report.md").string() << "\n";
  return kExitOk;
}

} // namespace argus::cli
