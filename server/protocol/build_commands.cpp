// argus.compile and argus.benchmark: the compile pipeline of `argus compile`
// and the runner template of `argus bench` on a document's current text.
#include "argus/codegen/artifact.h"
#include "argus/codegen/benchmark.h"
#include "argus/codegen/pipeline.h"
#include "argus/codegen/runner_command.h"
#include "argus/server/lsp_diagnostic.h"
#include "commands_internal.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace argus::server::detail {

namespace {

using nlohmann::json;

std::string_view status_name(codegen::PipelineStatus status) {
  switch (status) {
  case codegen::PipelineStatus::Ok:
    return "ok";
  case codegen::PipelineStatus::Errors:
    return "errors";
  case codegen::PipelineStatus::ToolMissing:
    return "tool-missing";
  case codegen::PipelineStatus::IoError:
    return "io-error";
  }
  return "errors";
}

bool flag(const json &object, const char *key) {
  if (!object.contains(key))
    return false;
  if (!object[key].is_boolean())
    throw CommandError{kInvalidParams, std::string("\"") + key + "\": expected true or false"};
  return object[key].get<bool>();
}

std::optional<std::string> string_argument(const json &object, const char *key) {
  if (!object.contains(key))
    return std::nullopt;
  if (!object[key].is_string() || object[key].get<std::string>().empty())
    throw CommandError{kInvalidParams, std::string("\"") + key + "\": expected a path"};
  return object[key].get<std::string>();
}

// $TMPDIR/argus-lsp-<uid>: created mode 0700; used only when it is a real
// directory (no symlink) that this user owns and nobody else can enter, so
// another user cannot plant a link or a file at a predictable artifact name.
std::string private_temp_dir() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec)
    base = "/tmp";
  const std::string dir = (base / ("argus-lsp-" + std::to_string(getuid()))).string();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw CommandError{-32603, "cannot create " + dir + ": " + std::strerror(errno)};
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
      (st.st_mode & 077) != 0)
    throw CommandError{-32603, dir + " is not a private directory of this user (a symlink, "
                                     "another owner, or open to others): remove it, or pass "
                                     "\"output\""};
  return dir;
}

// Where argus.compile writes a document's artifact unless told: one directory
// per document and target under the private temporary directory, so a save
// is not needed and the workspace is left alone.
std::string default_output_dir(const DocumentSnapshot &document, codegen::GpuTarget target) {
  return (std::filesystem::path(private_temp_dir()) /
          (codegen::safe_stem(document.path) + "-" +
           codegen::sha256_hex(document.uri).substr(0, 12) + "." +
           std::string(codegen::target_name(target))))
      .string();
}

codegen::PipelineRequest pipeline_request(const json &object, const DocumentSnapshot &document,
                                          const CommandContext &context) {
  codegen::PipelineRequest request;
  request.path = document.path;
  request.text = document.text;
  request.target = command_target(object, context);
  request.emit_only = flag(object, "emitOnly");
  request.argus_version = context.argus_version;
  request.frontend = context.frontend;
  return request;
}

// `argus compile --format=json`'s object, with LSP diagnostics in the
// negotiated encoding, the status, the generated source and the document's version.
json compile_json(const codegen::PipelineRequest &request, const codegen::PipelineResult &result,
                  const DocumentSnapshot &document, const CommandContext &context) {
  json j = codegen::pipeline_json(request, result);
  j["uri"] = document.uri;
  j["version"] = document.version;
  j["status"] = std::string(status_name(result.status));
  j["ok"] = result.status == codegen::PipelineStatus::Ok;
  j["emitOnly"] = request.emit_only;
  if (!result.source.empty())
    j["source"] = result.source;
  json diagnostics = json::array();
  if (result.checked.source)
    for (const Diagnostic &d : result.diagnostics)
      diagnostics.push_back(
          lsp_diagnostic(*result.checked.source, d, document.uri, context.encoding));
  j["diagnostics"] = std::move(diagnostics);
  return j;
}

// $/progress for one request: the client's workDoneToken, else a token the
// server asks the client to create, else none (nothing is sent).
class Progress {
public:
  Progress(const CommandContext &context, std::string title)
      : context_(context), title_(std::move(title)) {
    if (!context.notify)
      return;
    const json &given = context.work_done_token;
    if (given.is_string() || given.is_number_integer()) {
      token_ = given;
    } else if (context.client_creates_progress) {
      static std::atomic<int64_t> next{1};
      const int64_t n = next++;
      token_ = "argus/progress/" + std::to_string(n);
      context.notify({{"jsonrpc", "2.0"},
                      {"id", "argus/create-progress/" + std::to_string(n)},
                      {"method", "window/workDoneProgress/create"},
                      {"params", {{"token", token_}}}});
    }
  }
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;
  ~Progress() {
    if (begun_ && !ended_)
      end("stopped");
  }

  void begin(const std::string &message) {
    send({{"kind", "begin"},
          {"title", title_},
          {"cancellable", true},
          {"message", message},
          {"percentage", 0}});
    begun_ = true;
  }
  void report(const std::string &message, int percentage) {
    send({{"kind", "report"}, {"message", message}, {"percentage", percentage}});
  }
  void end(const std::string &message) {
    send({{"kind", "end"}, {"message", message}});
    ended_ = true;
  }

private:
  void send(json value) {
    if (token_.is_null())
      return;
    context_.notify({{"jsonrpc", "2.0"},
                     {"method", "$/progress"},
                     {"params", {{"token", token_}, {"value", std::move(value)}}}});
  }

  const CommandContext &context_;
  std::string title_;
  json token_;
  bool begun_ = false;
  bool ended_ = false;
};

// A temporary artifact directory, removed when the benchmark is done.
struct TemporaryDirectory {
  std::string path;
  TemporaryDirectory() {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    std::string pattern = ((ec ? std::filesystem::path("/tmp") : base) / "argus-lsp-bench-XXXXXX");
    if (mkdtemp(pattern.data()))
      path = pattern;
  }
  TemporaryDirectory(const TemporaryDirectory &) = delete;
  TemporaryDirectory &operator=(const TemporaryDirectory &) = delete;
  ~TemporaryDirectory() {
    std::error_code ec;
    if (!path.empty())
      std::filesystem::remove_all(path, ec);
  }
};

std::vector<std::string> runner_arguments(const json &object) {
  std::vector<std::string> extra;
  if (!object.contains("args"))
    return extra;
  const json &args = object["args"];
  if (!args.is_array())
    throw CommandError{kInvalidParams, "\"args\": expected an array of strings"};
  for (const json &a : args) {
    if (!a.is_string())
      throw CommandError{kInvalidParams, "\"args\": expected an array of strings"};
    extra.push_back(a.get<std::string>());
  }
  return extra;
}

} // namespace

json compile_command(const json &object, CommandContext &context) {
  const DocumentSnapshot &document = command_document(object, context);
  codegen::PipelineRequest request = pipeline_request(object, document, context);
  request.output_dir =
      string_argument(object, "output").value_or(default_output_dir(document, request.target));
  const codegen::PipelineResult result = codegen::run_pipeline(request);
  throw_if_cancelled(context);
  json j = compile_json(request, result, document, context);
  if (result.status == codegen::PipelineStatus::ToolMissing &&
      request.target == codegen::GpuTarget::Sm90)
    j["error"] = result.error + "; pass \"emitOnly\": true to skip compiling";
  return j;
}

json benchmark_command(const json &object, CommandContext &context) {
  const DocumentSnapshot &document = command_document(object, context);
  codegen::PipelineRequest request = pipeline_request(object, document, context);
  const std::vector<std::string> extra = runner_arguments(object);
  // Settings come from the client, and a workspace's settings from whoever
  // wrote the repository: like clangd's --query-driver, only templates the
  // server's own command line allows may run.
  if (!codegen::runner_allowed(context.settings.runner, context.allowed_runners))
    throw CommandError{kInvalidParams,
                       "the runner template '" + context.settings.runner +
                           "' from the settings is not allowed: start the server with "
                           "--allow-runner=" +
                           codegen::shell_quote(context.settings.runner) +
                           " (a glob) to allow it; the built-in runner '" +
                           std::string(codegen::kDefaultRunnerTemplate) + "' always runs"};
  const std::optional<std::string> keep = string_argument(object, "keep");
  const std::string file = std::filesystem::path(document.path).filename().string();

  Progress progress(context, "Benchmark " + file);
  progress.begin("compiling " + file + " for " + std::string(codegen::target_name(request.target)));
  TemporaryDirectory temporary;
  if (!keep && temporary.path.empty())
    throw CommandError{-32603, "cannot create a temporary directory for the artifact"};
  request.output_dir = keep ? *keep : temporary.path;
  const codegen::PipelineResult compiled = codegen::run_pipeline(request);
  if (context.cancelled.load()) {
    progress.end("cancelled");
    throw_if_cancelled(context);
  }
  json result = {{"uri", document.uri},
                 {"version", document.version},
                 {"target", std::string(codegen::target_name(request.target))},
                 {"compile", compile_json(request, compiled, document, context)}};
  result["compile"].erase("source"); // argus.compile gives it; here it would only weigh
  if (!keep)
    result["compile"].erase("artifact"); // removed when the benchmark is done
  if (compiled.status != codegen::PipelineStatus::Ok) {
    result["ok"] = false;
    result["stage"] = "compile";
    result["error"] =
        compiled.error.empty() ? "the compile failed (see compile.diagnostics)" : compiled.error;
    progress.end("compile failed");
    return result;
  }
  std::error_code ec;
  const std::string artifact = std::filesystem::absolute(compiled.artifact, ec).string();
  if (keep)
    result["artifact"] = artifact;
  codegen::BenchmarkRequest bench;
  bench.artifact = artifact;
  bench.target = std::string(codegen::target_name(request.target));
  bench.runner_template = context.settings.runner;
  bench.runner_args = extra;
  bench.timeout_s = context.settings.benchmark_timeout_s;
  bench.cancelled = &context.cancelled;
  progress.report("running the runner", 30);
  const codegen::BenchmarkOutcome run = codegen::run_benchmark(bench);
  if (run.stage == "template")
    throw CommandError{kInvalidParams, run.error};
  if (run.cancelled) {
    progress.end("cancelled; the runner was killed");
    throw CommandError{kRequestCancelled, "request cancelled; the runner was killed"};
  }
  result["command"] = run.command;
  result["exitCode"] = run.exit_code;
  if (!run.stderr_text.empty())
    result["stderr"] = codegen::text_tail(run.stderr_text, 4000);
  if (run.runner_error)
    result["runner"] = json::parse(run.runner_error->dump());
  else if (!run.results.empty() || run.ok || run.stage == "results")
    result["results"] = json::parse(nlohmann::ordered_json(run.results).dump());
  result["ok"] = run.ok;
  if (!run.ok) {
    result["stage"] = run.stage;
    result["error"] = run.error;
  }
  if (run.ok)
    progress.end(std::to_string(run.results.size()) + " result(s), all correct");
  else
    progress.end(run.error);
  return result;
}

} // namespace argus::server::detail
