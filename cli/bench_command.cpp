// `argus bench [options] FILE [-- RUNNER-ARGS...]`
#include "argus/cli/bench_command.h"

#include "argus/cli/compile_command.h"

#include "argus/cli/options.h"
#include "argus/codegen/benchmark.h"
#include "argus/codegen/runner_command.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <variant>

namespace argus::cli {

const std::string_view kBenchSummary = "Compile a file and benchmark its kernels on a GPU";

const std::string_view kBenchHelp = R"(Usage: argus bench [options] FILE [-- RUNNER-ARGS...]

Compiles FILE into an artifact (argus compile), runs it through a runner
command, checks each @bench kernel against its reference and prints a table:
kernel, sizes, correct, error, median time, TFLOP/s or GB/s, % of peak.

The runner command is a template, split into words and run without a shell
(quotes group words; nothing is expanded); each placeholder is one word:
  {runner}    argus-runner next to the argus binary, or on PATH
  {artifact}  the artifact directory (appended when the template lacks it)
  {target}    the target (sm90 or gfx942)
Words after `--` are passed to the runner (e.g. -- --iters 200 --kernel K
--size M=1024,N=1024,K=1024). For ssh, values and runner words are quoted
again for the remote shell. Examples of templates:
  --runner '{runner} {artifact}'                         (the default)
  --runner 'ssh gpu-host argus-runner {artifact}'        (the artifact must be
                                                          visible there: --keep on a shared path)
  --runner 'srun -p gpu argus-runner {artifact}'

Options:
  --runner TEMPLATE    The runner command template (default '{runner} {artifact}').
  --target sm90|gfx942 The compile target (default sm90); a gfx942 artifact is
                       run by the runner's HIP side (docs/artifacts.md).
  --artifact DIR       Use an existing artifact instead of compiling FILE.
  --keep DIR           Compile into DIR and keep it (default: a temporary
                       directory, removed afterwards).
  --timeout SECONDS    Kill the runner after this long (default 900).
  --format=text|json   text (default): a table; json: the runner's JSON
                       results on stdout (an array), or {"error", "stage"}.
  -h, --help           Print this help, then exit.

Exit status:
  0  every kernel ran and was correct (or was refused where that was expected)
  1  a kernel was wrong, the compile failed, or the runner failed, printed no
     JSON, exited non-zero or timed out (the message says which)
  2  a usage error
)";

namespace {

enum class Format { Text, Json };

struct BenchOptions {
  std::string file;
  std::string runner_template = "{runner} {artifact}";
  std::string target = "sm90";
  std::string artifact; // --artifact
  std::string keep;     // --keep
  double timeout_s = 900;
  Format format = Format::Text;
  bool help = false;
  std::vector<std::string> runner_args;
};

constexpr OptionSpec kOptionSpecs[] = {
    {"--runner", true},  {"--target", true}, {"--artifact", true}, {"--keep", true},
    {"--timeout", true}, {"--format", true}, {"--help", false},    {"-h", false},
};

std::variant<BenchOptions, UsageError> parse_bench_options(std::span<const std::string> all) {
  BenchOptions result;
  // Words after `--` go to the runner.
  size_t split = all.size();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == "--") {
      split = i;
      break;
    }
  if (split < all.size())
    result.runner_args.assign(all.begin() + static_cast<long>(split) + 1, all.end());
  auto parsed = parse_options(all.subspan(0, split), kOptionSpecs);
  if (auto *error = std::get_if<UsageError>(&parsed))
    return *error;
  const ParsedOptions &options = std::get<ParsedOptions>(parsed);
  result.help = options.has("--help") || options.has("-h");
  if (const std::string *v = options.last("--runner")) {
    if (v->empty())
      return UsageError{"--runner needs a command template"};
    result.runner_template = *v;
  }
  if (const std::string *v = options.last("--target")) {
    if (*v != "sm90" && *v != "gfx942")
      return UsageError{"invalid --target '" + *v + "' (expected sm90 or gfx942)"};
    result.target = *v;
  }
  if (const std::string *v = options.last("--artifact"))
    result.artifact = *v;
  if (const std::string *v = options.last("--keep"))
    result.keep = *v;
  if (const std::string *v = options.last("--timeout")) {
    char *end = nullptr;
    const double t = std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size() || !(t > 0) || t > 7 * 24 * 3600)
      return UsageError{"invalid --timeout '" + *v + "' (expected seconds > 0)"};
    result.timeout_s = t;
  }
  if (const std::string *v = options.last("--format")) {
    if (*v == "text")
      result.format = Format::Text;
    else if (*v == "json")
      result.format = Format::Json;
    else
      return UsageError{"invalid --format '" + *v + "' (expected text or json)"};
  }
  if (result.help)
    return result;
  if (options.positional.size() > 1)
    return UsageError{"argus bench takes one FILE"};
  if (!options.positional.empty())
    result.file = options.positional[0];
  if (result.file.empty() && result.artifact.empty())
    return UsageError{"no input file (or --artifact DIR)"};
  if (!result.file.empty() && !result.artifact.empty())
    return UsageError{"give FILE or --artifact, not both"};
  if (!result.keep.empty() && !result.artifact.empty())
    return UsageError{"--keep applies to a compiled FILE, not to --artifact"};
  return result;
}

// A failure: a message on stderr (text) or {"error", "stage"} on stdout (json).
int report_failure(Environment &env, const BenchOptions &options, std::string_view stage,
                   const std::string &message, const std::string &detail = {}) {
  if (options.format == Format::Json) {
    nlohmann::ordered_json j = {{"error", message}, {"stage", stage}};
    if (!detail.empty())
      j["detail"] = detail;
    env.out << j.dump() << '\n';
  } else {
    env.err << "argus bench: error (" << stage << "): " << message << '\n';
    if (!detail.empty())
      env.err << detail << '\n';
  }
  return kExitErrors;
}

std::string format_number(const nlohmann::ordered_json &v, int precision, bool scientific = false) {
  if (!v.is_number())
    return "-";
  std::ostringstream s;
  if (scientific)
    s << std::scientific << std::setprecision(precision) << v.get<double>();
  else
    s << std::fixed << std::setprecision(precision) << v.get<double>();
  return s.str();
}

std::string format_sizes(const nlohmann::ordered_json &sizes) {
  std::string s;
  if (!sizes.is_object())
    return "-";
  for (const auto &[name, value] : sizes.items()) {
    if (!s.empty())
      s += ' ';
    s += name + "=" + (value.is_number() ? value.dump() : std::string("?"));
  }
  return s.empty() ? "-" : s;
}

// The table of results; returns whether every one passed.
bool print_table(std::ostream &out, const std::vector<nlohmann::ordered_json> &results) {
  std::vector<std::vector<std::string>> rows = {
      {"kernel", "sizes", "correct", "error", "median ms", "rate", "% peak"}};
  bool all_ok = true;
  std::vector<std::string> notes;
  for (const nlohmann::ordered_json &r : results) {
    const std::string kernel = r.value("kernel", std::string("?"));
    if (r.value("refused", false)) {
      rows.push_back({kernel, format_sizes(r.value("sizes", nlohmann::ordered_json())), "refused",
                      "-", "-", "-", "-"});
      notes.push_back(kernel + ": refused: " + r.value("refusal", std::string()));
      continue;
    }
    const bool correct = r.value("correct", false);
    all_ok = all_ok && correct;
    std::string rate = "-";
    if (r.contains("tflops") && r["tflops"].is_number())
      rate = format_number(r["tflops"], 1) + " TFLOP/s";
    else if (r.contains("gbps") && r["gbps"].is_number())
      rate = format_number(r["gbps"], 0) + " GB/s";
    std::string peak = "-";
    if (r.contains("peak_fraction") && r["peak_fraction"].is_number())
      peak =
          format_number(nlohmann::ordered_json(100.0 * r["peak_fraction"].get<double>()), 1) + "%";
    rows.push_back({kernel, format_sizes(r.value("sizes", nlohmann::ordered_json())),
                    correct ? "yes" : "NO",
                    format_number(r.value("error", nlohmann::ordered_json()), 2, true),
                    format_number(r.value("median_ms", nlohmann::ordered_json()), 4), rate, peak});
    if (!correct)
      notes.push_back(kernel + ": " + r.value("why", std::string("incorrect")));
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string cell = row[c];
      if (c + 1 < row.size())
        cell.resize(widths[c] + 2, ' ');
      line += cell;
    }
    out << line << '\n';
  }
  if (!results.empty()) {
    const std::string device = results.front().value("device", std::string());
    if (!device.empty())
      out << "device: " << device << '\n';
  }
  for (const std::string &note : notes)
    out << note << '\n';
  return all_ok;
}

std::variant<std::string, int> compile_artifact(const BenchOptions &options, Environment &env,
                                                std::string &temp_dir) {
  std::string dir = options.keep;
  if (dir.empty()) {
    std::error_code ec;
    std::string base = (std::filesystem::temp_directory_path(ec) / "argus-bench-XXXXXX").string();
    std::vector<char> buf(base.begin(), base.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      return report_failure(env, options, "compile",
                            std::string("cannot create a temporary directory: ") +
                                std::strerror(errno));
    dir = temp_dir = buf.data();
  }
  // The compile command itself, in process: same checks, same artifact.
  std::ostringstream compile_out;
  std::ostringstream compile_err;
  Environment compile_env{compile_out, compile_err};
  const std::vector<std::string> compile_args = {options.file, "--target", options.target, "-o",
                                                 dir};
  const int exit_code = run_compile(compile_args, compile_env);
  if (exit_code != 0) {
    return report_failure(env, options, "compile",
                          "argus compile failed (exit status " + std::to_string(exit_code) + ")",
                          codegen::text_tail(compile_err.str() + compile_out.str(), 8000));
  }
  return dir;
}

} // namespace

int run_bench(std::span<const std::string> args, Environment &env) {
  auto parsed = parse_bench_options(args);
  if (const auto *error = std::get_if<UsageError>(&parsed)) {
    env.err << "argus: error: " << error->message << " (see 'argus help bench')\n";
    return kExitUsage;
  }
  const BenchOptions &options = std::get<BenchOptions>(parsed);
  if (options.help) {
    env.out << kBenchHelp;
    return kExitOk;
  }

  std::string temp_dir;
  struct Cleanup {
    std::string &dir;
    ~Cleanup() {
      if (!dir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    }
  } cleanup{temp_dir};

  std::string artifact = options.artifact;
  if (artifact.empty()) {
    auto compiled = compile_artifact(options, env, temp_dir);
    if (const int *code = std::get_if<int>(&compiled))
      return *code;
    artifact = std::get<std::string>(compiled);
  } else if (!std::filesystem::is_directory(artifact)) {
    env.err << "argus: error: --artifact '" << artifact << "' is not a directory\n";
    return kExitUsage;
  }
  {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(artifact, ec);
    if (!ec)
      artifact = absolute.string();
  }

  // The template is the user's own command line (as with clangd's
  // --query-driver, only settings need an allowlist: the server's).
  codegen::BenchmarkRequest request;
  request.artifact = artifact;
  request.target = options.target;
  request.runner_template = options.runner_template;
  request.runner_args = options.runner_args;
  request.timeout_s = options.timeout_s;
  const codegen::BenchmarkOutcome r = codegen::run_benchmark(request);

  // The runner's stderr (build logs, warnings) goes to ours in text mode.
  if (options.format == Format::Text && !r.stderr_text.empty())
    env.err << r.stderr_text << (r.stderr_text.back() == '\n' ? "" : "\n");
  if (r.runner_error) {
    if (options.format == Format::Json) {
      env.out << r.runner_error->dump() << '\n';
      return kExitErrors;
    }
    env.err << "argus bench: runner error (" << r.stage << "): " << r.error << '\n';
    if (!r.results.empty())
      print_table(env.out, r.results);
    return kExitErrors;
  }
  if (r.results.empty() && !r.ok) {
    // Nothing to show but why: the template, the process, or its output.
    // (In text mode its stderr is already on ours.)
    const bool with_stderr = options.format == Format::Json && r.stage == "runner";
    return report_failure(env, options, r.stage, r.error,
                          with_stderr ? codegen::text_tail(r.stderr_text, 4000) : std::string());
  }
  if (options.format == Format::Json)
    env.out << nlohmann::ordered_json(r.results).dump() << '\n';
  else
    print_table(env.out, r.results);
  if (!r.ok && options.format == Format::Text)
    env.err << "argus bench: " << r.error << '\n';
  return r.ok ? kExitOk : kExitErrors;
}

} // namespace argus::cli
