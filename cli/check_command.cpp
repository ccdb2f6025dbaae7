// `argus check [options] FILE...`
#include "argus/cli/check_command.h"

#include "argus/cli/diagnostic_json.h"
#include "argus/cli/diagnostic_text.h"
#include "argus/cli/options.h"
#include "argus/cli/sarif.h"

#include "argus/dsl/codes.h"
#include "argus/dsl/driver.h"
#include <cctype>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include <variant>
#include <vector>

namespace argus::cli {

const std::string_view kCheckSummary = "Check .argus files and print their diagnostics";

const std::string_view kCheckHelp = R"(Usage: argus check [options] FILE...

Runs the Argus front end on each FILE (syntax, the Argus subset, names, types,
shapes, kernel declarations), then the data-flow invariant checker on files
without front-end errors (tags, tag assertions, races, bounds, barriers, async
copies, coverage, performance lints; docs/checker.md), and prints the
diagnostics with their counterexamples. Writes no files.

Options:
  --format=text|json|sarif text (default): clang-style, `file:line:col: error: ...`
                           with the source line and a caret under the range.
                           json: one JSON document on stdout, {"positionEncoding",
                           "files": [{"path", "uri", "diagnostics": [LSP Diagnostic],
                           "verification": [per kernel: {"kernel", "instances",
                           "unproven", "properties": {NAME: {"verdict", "detail"}}}]}]};
                           a file that cannot be read gets an "error" field.
                           sarif: a SARIF 2.1.0 log for code scanning (GitHub and
                           others): a rule per code with its help, a result per
                           diagnostic with its counterexample in "properties".
  -v, --verbose            Text output: after each file's diagnostics, one line per
                           kernel saying which properties were proved for all sizes,
                           checked at the size instances, violated, not checked
                           or absent (docs/checker.md, "Verification summary").
  --position-encoding=utf-16|utf-8|utf-32
                           The unit of `character` in json ranges (default utf-16,
                           as in LSP). Text output always prints 1-based byte columns.
  --color=auto|always|never
                           Colors in text output. auto (default): only when stdout
                           is a terminal and NO_COLOR is not set.
  --max-file-size=BYTES    Refuse larger files with E0003 (default 4M; K, M and G
                           suffixes are binary).
  --invariants=on|off      Run the invariant checker (default on).
  --lints=on|off           Report the performance lints W0902-W0905 (default on).
  --unroll-bound=N         Iterations of one loop the checker executes per thread
                           before it stops and reports the loop as bounded (256).
  --query-timeout-ms=N     Z3's time limit per query; an undecided query is W0901
                           (default 2000).
  --sizes=NAME=V[,NAME=V...]
                           Also check every kernel at these sizes (integer
                           parameters; repeatable), e.g. a K deep enough for the
                           steady state of a pipeline. Parameters a kernel does
                           not have are ignored; the kernel's assume(...) must hold.
  --list-codes             Print every diagnostic code with its title, then exit.
  -h, --help               Print this help, then exit.

Exit status:
  0  no error diagnostics (warnings allowed)
  1  at least one error diagnostic
  2  a usage error, or a FILE could not be read (missing, a directory, unreadable)

Every code is explained in docs/diagnostics.md.
)";

static_assert(kDefaultMaxFileBytes == 4u << 20, "update --max-file-size in the help");

namespace {

enum class Format { Text, Json, Sarif };
enum class ColorMode { Auto, Always, Never };

struct CheckOptions {
  Format format = Format::Text;
  ColumnUnit position_encoding = ColumnUnit::Utf16CodeUnits;
  ColorMode color = ColorMode::Auto;
  FrontendOptions frontend;
  std::vector<std::string> files;
  bool help = false;
  bool list_codes = false;
  bool verbose = false;
};

constexpr OptionSpec kOptionSpecs[] = {
    {"--format", true},
    {"--position-encoding", true},
    {"--color", true},
    {"--max-file-size", true},
    {"--list-codes", false},
    {"--help", false},
    {"--invariants", true},
    {"--lints", true},
    {"--unroll-bound", true},
    {"--sizes", true},
    {"--query-timeout-ms", true},
    {"-h", false},
    {"--verbose", false},
    {"-v", false},
};

std::variant<CheckOptions, UsageError> parse_check_options(std::span<const std::string> args) {
  auto parsed = parse_options(args, kOptionSpecs);
  if (auto *error = std::get_if<UsageError>(&parsed))
    return *error;
  const ParsedOptions &options = std::get<ParsedOptions>(parsed);

  CheckOptions result;
  result.help = options.has("--help") || options.has("-h");
  result.list_codes = options.has("--list-codes");
  result.verbose = options.has("--verbose") || options.has("-v");
  result.files = options.positional;
  if (const std::string *format = options.last("--format")) {
    if (*format == "text")
      result.format = Format::Text;
    else if (*format == "json")
      result.format = Format::Json;
    else if (*format == "sarif")
      result.format = Format::Sarif;
    else
      return UsageError{"invalid --format '" + *format + "' (expected text, json or sarif)"};
  }
  if (const std::string *encoding = options.last("--position-encoding")) {
    const auto unit = parse_position_encoding(*encoding);
    if (!unit) {
      return UsageError{"invalid --position-encoding '" + *encoding +
                        "' (expected utf-16, utf-8 or utf-32)"};
    }
    result.position_encoding = *unit;
  }
  if (const std::string *color = options.last("--color")) {
    if (*color == "auto")
      result.color = ColorMode::Auto;
    else if (*color == "always")
      result.color = ColorMode::Always;
    else if (*color == "never")
      result.color = ColorMode::Never;
    else
      return UsageError{"invalid --color '" + *color + "' (expected auto, always or never)"};
  }
  if (const std::string *size = options.last("--max-file-size")) {
    const auto bytes = parse_byte_count(*size);
    if (!bytes || *bytes == 0 || *bytes > SIZE_MAX) {
      return UsageError{"invalid --max-file-size '" + *size +
                        "' (expected a positive byte count such as 4194304 or 4M)"};
    }
    result.frontend.max_file_bytes = static_cast<size_t>(*bytes);
  }
  for (const char *flag : {"--invariants", "--lints"}) {
    if (const std::string *v = options.last(flag)) {
      if (*v != "on" && *v != "off")
        return UsageError{"invalid " + std::string(flag) + " '" + *v + "' (expected on or off)"};
      (std::string_view(flag) == "--invariants" ? result.frontend.invariants
                                                : result.frontend.checker.lints) = *v == "on";
    }
  }
  if (const std::string *n = options.last("--unroll-bound")) {
    const auto v = parse_byte_count(*n);
    if (!v || *v == 0 || *v > (1u << 20) || n->find_first_not_of("0123456789") != std::string::npos)
      return UsageError{"invalid --unroll-bound '" + *n + "' (expected 1 to 1048576)"};
    result.frontend.checker.unroll_bound = static_cast<int64_t>(*v);
  }
  if (const std::string *n = options.last("--query-timeout-ms")) {
    const auto v = parse_byte_count(*n);
    if (!v || *v == 0 || *v > 600000 || n->find_first_not_of("0123456789") != std::string::npos)
      return UsageError{"invalid --query-timeout-ms '" + *n + "' (expected 1 to 600000)"};
    result.frontend.checker.query_timeout_ms = static_cast<unsigned>(*v);
  }
  for (const auto &[name, value] : options.values) {
    if (name != "--sizes")
      continue;
    if (value.empty() || value.back() == ',')
      return UsageError{"invalid --sizes '" + value + "' (expected NAME=VALUE,... such as " +
                        "M=256,N=256,K=512)"};
    std::map<std::string, int64_t> sizes;
    std::stringstream items(value);
    std::string item;
    while (std::getline(items, item, ',')) {
      const size_t eq = item.find('=');
      const std::string key = item.substr(0, eq);
      const std::string number = eq == std::string::npos ? "" : item.substr(eq + 1);
      const bool is_name =
          !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_');
      const bool digits = !number.empty() && number.size() <= 9 &&
                          number.find_first_not_of("0123456789") == std::string::npos;
      if (!is_name || !digits)
        return UsageError{"invalid --sizes '" + value + "' (expected NAME=VALUE,... such as " +
                          "M=256,N=256,K=512)"};
      sizes[key] = std::stoll(number);
    }
    result.frontend.checker.extra_instances.push_back(std::move(sizes));
  }
  if (!result.help && !result.list_codes && result.files.empty())
    return UsageError{"no input files"};
  result.frontend.checker.kernel_threads =
      std::max(1u, std::min(8u, std::thread::hardware_concurrency())); // a file's kernels at once
  return result;
}

bool use_color(ColorMode mode, const Environment &env) {
  switch (mode) {
  case ColorMode::Always:
    return true;
  case ColorMode::Never:
    return false;
  case ColorMode::Auto:
    return env.out_is_terminal && !env.no_color;
  }
  return false;
}

void print_codes(std::ostream &out) {
  for (const codes::CodeInfo &info : codes::all_codes())
    out << info.code << "  " << info.title << '\n';
}

} // namespace

int run_check(std::span<const std::string> args, Environment &env) {
  auto parsed = parse_check_options(args);
  if (const auto *error = std::get_if<UsageError>(&parsed)) {
    env.err << "argus: error: " << error->message << " (see 'argus help check')\n";
    return kExitUsage;
  }
  const CheckOptions &options = std::get<CheckOptions>(parsed);
  if (options.help) {
    env.out << kCheckHelp;
    return kExitOk;
  }
  if (options.list_codes) {
    print_codes(env.out);
    return kExitOk;
  }

  const TextOptions text_options{use_color(options.color, env)};
  nlohmann::json json_files = nlohmann::json::array();
  std::vector<CheckedFile> sarif_files; // kept for their sources
  std::vector<SarifUnreadable> sarif_unreadable;
  size_t errors = 0;
  size_t warnings = 0;
  bool unreadable = false;
  for (const std::string &path : options.files) {
    auto contents = read_source_file(path);
    if (const auto *error = std::get_if<ReadError>(&contents)) {
      env.err << "argus: error: " << path << ": " << error->message << '\n';
      unreadable = true;
      if (options.format == Format::Json)
        json_files.push_back(unreadable_file_json(path, error->message));
      if (options.format == Format::Sarif)
        sarif_unreadable.push_back({path, error->message});
      continue;
    }
    CheckedFile checked =
        check_source(path, std::move(std::get<std::string>(contents)), options.frontend);
    for (const Diagnostic &diagnostic : checked.diagnostics) {
      errors += diagnostic.severity == Severity::Error;
      warnings += diagnostic.severity == Severity::Warning;
    }
    if (options.format == Format::Json) {
      nlohmann::json entry =
          checked_file_json(*checked.source, checked.diagnostics, options.position_encoding);
      entry["verification"] = nlohmann::json::array();
      for (const check::VerificationSummary &summary : checked.verification)
        entry["verification"].push_back(check::to_json(summary));
      json_files.push_back(std::move(entry));
      continue;
    }
    if (options.format == Format::Sarif) {
      sarif_files.push_back(std::move(checked));
      continue;
    }
    for (const Diagnostic &diagnostic : checked.diagnostics)
      write_diagnostic_text(env.out, *checked.source, diagnostic, text_options);
    if (options.verbose)
      for (const check::VerificationSummary &summary : checked.verification)
        env.out << path << ": verified " << check::summary_line(summary) << '\n';
  }

  if (options.format == Format::Sarif) {
    std::vector<SarifFile> files;
    for (const CheckedFile &f : sarif_files)
      files.push_back({f.source.get(), &f.diagnostics});
    env.out << dump_json(sarif_log(files, sarif_unreadable)) << '\n';
  } else if (options.format == Format::Json) {
    const nlohmann::json document = {
        {"positionEncoding", position_encoding_name(options.position_encoding)},
        {"files", std::move(json_files)}};
    env.out << dump_json(document) << '\n';
  } else if (const std::string summary = summary_line(errors, warnings); !summary.empty()) {
    env.out.flush();
    env.err << summary << '\n';
  }
  env.out.flush();
  if (unreadable)
    return kExitUsage;
  return errors > 0 ? kExitErrors : kExitOk;
}

} // namespace argus::cli
