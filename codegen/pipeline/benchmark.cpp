// Running an artifact through its runner and reading what the runner says.
#include "argus/codegen/benchmark.h"
#include "argus/codegen/runner_command.h"
#include "argus/codegen/spawn.h"

#include <chrono>
#include <filesystem>
#include <sstream>

namespace argus::codegen {

namespace {

BenchmarkOutcome &fail(BenchmarkOutcome &out, std::string stage, std::string error) {
  out.ok = false;
  out.stage = std::move(stage);
  out.error = std::move(error);
  return out;
}

// An error object has a string "error" (a result's "error" is a number or null).
bool is_error_object(const nlohmann::ordered_json &output) {
  return output.is_object() && output.contains("error") && output["error"].is_string();
}

} // namespace

BenchmarkOutcome run_benchmark(const BenchmarkRequest &request) {
  BenchmarkOutcome out;
  std::error_code ec;
  std::string artifact = request.artifact;
  if (const auto absolute = std::filesystem::absolute(artifact, ec); !ec)
    artifact = absolute.string();
  std::string template_error;
  const std::string_view tmpl =
      request.runner_template.empty() ? kDefaultRunnerTemplate : request.runner_template;
  const auto argv = runner_argv(tmpl, find_runner(), artifact, request.target, request.runner_args,
                                template_error);
  if (!argv)
    return fail(out, "template", template_error);
  out.command = command_line(*argv);

  SpawnOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<long long>(request.timeout_s * 1000));
  options.cancelled = request.cancelled;
  const SpawnResult run = spawn(*argv, options);
  out.exit_code = run.exit_code;
  out.stderr_text = run.err;
  if (run.cancelled) {
    out.cancelled = true;
    return fail(out, "cancelled", "cancelled; the runner was killed");
  }
  std::ostringstream seconds;
  seconds << request.timeout_s;
  if (run.timed_out)
    return fail(out, "timeout",
                "the runner did not finish within " + seconds.str() +
                    " s and was killed: " + out.command);
  if (!run.started)
    return fail(out, "runner", run.error + " (command: " + out.command + ")");
  if (run.signal != 0)
    return fail(out, "runner",
                "the runner was killed by signal " + std::to_string(run.signal) + ": " +
                    out.command);
  const std::optional<nlohmann::ordered_json> output = parse_runner_output(run.out);
  if (!output) {
    std::string what = run.out.empty() ? "printed nothing on stdout"
                                       : "printed no JSON result: " + text_tail(run.out, 300);
    if (run.exit_code != 0)
      what = "exited with status " + std::to_string(run.exit_code) + " and " + what;
    return fail(out, "runner", "the runner " + what + " (command: " + out.command + ")");
  }
  if (is_error_object(*output)) {
    out.runner_error = *output;
    std::string message = (*output)["error"].get<std::string>();
    if (output->contains("kernel") && (*output)["kernel"].is_string())
      message = (*output)["kernel"].get<std::string>() + ": " + message;
    if (output->contains("results") && (*output)["results"].is_array())
      for (const auto &item : (*output)["results"])
        if (item.is_object())
          out.results.push_back(item);
    return fail(out, output->value("stage", std::string("runner")), message);
  }
  for (const auto &item : output->is_array() ? *output : nlohmann::ordered_json::array({*output})) {
    if (!item.is_object()) {
      out.results.clear();
      return fail(out, "runner", "the runner's JSON is not a result object or an array of them");
    }
    out.results.push_back(item);
  }
  bool all_correct = true;
  for (const auto &item : out.results)
    all_correct = all_correct && (item.value("refused", false) || item.value("correct", false));
  if (run.exit_code != 0)
    return fail(out, "runner", "the runner exited with status " + std::to_string(run.exit_code));
  if (!all_correct)
    return fail(out, "results", "some kernels are not correct");
  out.ok = true;
  return out;
}

} // namespace argus::codegen
