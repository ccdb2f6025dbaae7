#include "argus/server/commands.h"
#include "argus/dsl/driver.h"

#include "argus/dsl/explain.h"
#include "argus/dsl/layout_calc.h"
#include "argus/server/lsp_diagnostic.h"
#include "commands_internal.h"

#include <cmath>

namespace argus::server {

using nlohmann::json;

namespace detail {

const json &command_object(const json &arguments) {
  if (arguments.is_object())
    return arguments;
  if (arguments.is_array() && !arguments.empty() && arguments[0].is_object())
    return arguments[0];
  throw CommandError{kInvalidParams, "expected the command's arguments as [{...}]"};
}

const DocumentSnapshot &command_document(const json &object, const CommandContext &context) {
  if (!object.contains("uri") || !object["uri"].is_string())
    throw CommandError{kInvalidParams, "expected \"uri\": the document's URI"};
  const std::string uri = object["uri"].get<std::string>();
  if (!context.document || context.document->uri != uri)
    throw CommandError{kInvalidParams, "document is not open: " + uri};
  return *context.document;
}

codegen::GpuTarget command_target(const json &object, const CommandContext &context) {
  if (!object.contains("target"))
    return context.settings.target;
  const auto target = object["target"].is_string()
                          ? codegen::parse_target(object["target"].get<std::string>())
                          : std::nullopt;
  if (!target)
    throw CommandError{kInvalidParams, "unknown target " + object["target"].dump() +
                                           " (expected \"sm90\" or \"gfx942\")"};
  return *target;
}

void throw_if_cancelled(const CommandContext &context) {
  if (context.cancelled.load())
    throw CommandError{kRequestCancelled, "request cancelled"};
}

} // namespace detail

namespace {

using detail::kInvalidParams;

json layout_command(const json &object) {
  if (!object.contains("expr") || !object["expr"].is_string())
    throw CommandError{kInvalidParams, "expected \"expr\": a layout expression"};
  const bool table = object.value("table", false);
  const bool svg = object.value("svg", false);
  return layout_calculation(object["expr"].get<std::string>(), table, svg);
}

// The diagnostic of `checked` the object names: {"line", "code", "character"?}.
const Diagnostic &find_diagnostic(const FullCheck &checked, const json &object,
                                  const CommandContext &context) {
  if (!object["line"].is_number_unsigned() || !checked.file->source || !object.contains("code") ||
      !object["code"].is_string())
    throw CommandError{kInvalidParams,
                       "expected \"data\" (a diagnostic's data), or \"line\" and \"code\""};
  const uint32_t line = object["line"].get<uint32_t>();
  const std::string code = object["code"].get<std::string>();
  // "character" (in the negotiated encoding) picks one of several diagnostics on the line.
  const bool by_character =
      object.contains("character") && object["character"].is_number_unsigned();
  const Diagnostic *found = nullptr;
  for (const Diagnostic &d : checked.diagnostics) {
    if (d.code != code || d.range.begin.line > line || d.range.end.line < line)
      continue;
    if (by_character) {
      const uint32_t character = object["character"].get<uint32_t>();
      const json range = lsp_range(*checked.file->source, d.range, context.encoding);
      const auto start = range["start"], end = range["end"];
      const bool after_start =
          line > start["line"].get<uint32_t>() || character >= start["character"].get<uint32_t>();
      const bool before_end =
          line < end["line"].get<uint32_t>() || character <= end["character"].get<uint32_t>();
      if (!after_start || !before_end)
        continue;
    }
    found = &d;
    break;
  }
  if (!found)
    throw CommandError{kInvalidParams, "no " + code + " diagnostic on line " +
                                           std::to_string(line) + " (zero-based)"};
  return *found;
}

// The check of exactly the document's text: the server's, or a check made here
// (a command that found the document changed since).
std::shared_ptr<const FullCheck> check_of(const DocumentSnapshot &document,
                                          CommandContext &context) {
  std::shared_ptr<const FullCheck> checked = context.checked;
  if (!checked || !checked->file->source || checked->file->source->text() != document.text) {
    auto file = std::make_shared<const CheckedFile>(
        check_source(document.path, document.text, context.frontend));
    checked = std::make_shared<const FullCheck>(
        FullCheck{file, file->diagnostics, false, file->verification});
  }
  detail::throw_if_cancelled(context);
  return checked;
}

// The verification summary of every kernel of the document's current check,
// with the kernel's range: editors show the one under the cursor.
json verification_command(const json &object, CommandContext &context) {
  const DocumentSnapshot &document = detail::command_document(object, context);
  // "accepts": [{NAME: VALUE}...]: whether each kernel's assumptions hold at
  // those sizes (the agent's check that a version still accepts every size
  // its start accepted).
  std::vector<std::map<std::string, int64_t>> accepts;
  if (object.contains("accepts")) {
    const json &list = object["accepts"];
    bool ok = list.is_array() && list.size() <= 64;
    for (size_t i = 0; ok && i < list.size(); ++i) {
      ok = list[i].is_object();
      std::map<std::string, int64_t> sizes;
      for (auto it = ok ? list[i].begin() : list[i].end(); ok && it != list[i].end(); ++it) {
        ok = it.value().is_number_integer();
        if (ok)
          sizes[it.key()] = it.value().get<int64_t>();
      }
      accepts.push_back(std::move(sizes));
    }
    if (!ok)
      throw CommandError{detail::kInvalidParams,
                         "\"accepts\": expected at most 64 objects of integer sizes"};
  }
  const std::shared_ptr<const FullCheck> checked = check_of(document, context);
  json kernels = json::array();
  const CheckedFile &file = *checked->file;
  if (file.sema)
    for (const sema::FunctionInfo &fn : file.sema->functions) {
      if (fn.role != sema::FunctionRole::Kernel || !fn.function)
        continue;
      json entry = {
          {"kernel", fn.function->name},
          {"range", lsp_range(*file.source, fn.function->range, context.encoding)},
          {"selectionRange", lsp_range(*file.source, fn.function->name_range, context.encoding)},
          {"summary", nullptr},
          {"line", nullptr}};
      for (const check::VerificationSummary &summary : checked->verification)
        if (summary.kernel == fn.function->name) {
          entry["summary"] = check::to_json(summary);
          entry["line"] = check::summary_line(summary);
        }
      if (!accepts.empty()) {
        json verdicts = json::array();
        for (const auto &sizes : accepts)
          verdicts.push_back(check::accepts_sizes(file, fn.function->name, sizes).value_or(false));
        entry["accepts"] = std::move(verdicts);
      }
      kernels.push_back(std::move(entry));
    }
  return {{"uri", document.uri},
          {"version", document.version},
          {"interrupted", checked->interrupted},
          {"kernels", std::move(kernels)}};
}

json explain_command(const json &object, CommandContext &context) {
  const DocumentSnapshot &document = detail::command_document(object, context);
  const std::shared_ptr<const FullCheck> checked = check_of(document, context);
  json data;
  std::string code, message;
  // A diagnostic as the client has it ({"diagnostic": {...}}), its data alone, or (line, code).
  const json diagnostic = object.value("diagnostic", json());
  if (diagnostic.is_object() && diagnostic.contains("data")) {
    data = diagnostic["data"];
    code = diagnostic.value("code", std::string());
    message = diagnostic.value("message", std::string());
  } else if (object.contains("data")) {
    data = object["data"];
    code = object.value("code", std::string());
    message = object.value("message", std::string());
  } else if (object.contains("line")) {
    const Diagnostic &d = find_diagnostic(*checked, object, context);
    data = d.data;
    code = d.code;
    message = d.message;
  } else {
    throw CommandError{kInvalidParams,
                       "expected \"data\" (a diagnostic's data), or \"line\" and \"code\""};
  }
  // A counterexample from the client without its code: the one of the same place and kind.
  if (code.empty() || message.empty())
    for (const Diagnostic &d : checked->diagnostics)
      if (d.data.is_object() && d.data.value("kind", json()) == data.value("kind", json()) &&
          d.data.value("program_point", json()) == data.value("program_point", json())) {
        code = code.empty() ? d.code : code;
        message = message.empty() ? d.message : message;
        break;
      }
  const auto explanation = explain_counterexample(*checked->file, data, code, message);
  if (!explanation)
    throw CommandError{kInvalidParams, "not a counterexample of the invariant checker (its data "
                                       "needs \"kind\" and \"kernel\")"};
  json result = explanation->trace;
  result["uri"] = document.uri;
  result["version"] = document.version;
  json sites = json::array();
  for (const ExplainSite &site : explanation->sites) {
    const json range =
        lsp_range(*checked->file->source, Range{site.position, site.position}, context.encoding);
    sites.push_back({{"role", site.role},
                     {"note", site.note},
                     {"source", site.source},
                     {"position", range["start"]}});
  }
  result["sites"] = std::move(sites);
  // The history's positions in the negotiated encoding too (dsl gives UTF-8 bytes).
  for (json &step : result["history"])
    if (step.contains("program_point") && step.contains("end")) {
      const auto at = [](const json &p) {
        return Position{p["line"].get<uint32_t>(), p["character"].get<uint32_t>()};
      };
      const json range =
          lsp_range(*checked->file->source, Range{at(step["program_point"]), at(step["end"])},
                    context.encoding);
      step["program_point"] = range["start"];
      step["end"] = range["end"];
    }
  result["markdown"] = explanation->markdown;
  return result;
}

double number_setting(const json &value, double lo, double hi, bool &ok) {
  ok = value.is_number() && std::isfinite(value.get<double>()) && value.get<double>() >= lo &&
       value.get<double>() <= hi;
  return ok ? value.get<double>() : 0;
}

} // namespace

std::vector<std::string> configure_commands(const json &settings,
                                            CommandSettings &command_settings) {
  std::vector<std::string> problems;
  if (!settings.is_object())
    return problems;
  if (settings.contains("target")) {
    const json &t = settings["target"];
    const auto target = t.is_string() ? codegen::parse_target(t.get<std::string>()) : std::nullopt;
    if (target)
      command_settings.target = *target;
    else
      problems.push_back("target: expected \"sm90\" or \"gfx942\"");
  }
  if (settings.contains("runner")) {
    const json &r = settings["runner"];
    if (r.is_string() && r.get<std::string>().find_first_not_of(" \t") != std::string::npos)
      command_settings.runner = r.get<std::string>();
    else
      problems.push_back("runner: expected a command template such as \"{runner} {artifact}\"");
  }
  if (settings.contains("benchmarkTimeoutSeconds")) {
    bool ok = false;
    const double seconds =
        number_setting(settings["benchmarkTimeoutSeconds"], 0.001, 7 * 24 * 3600, ok);
    if (ok)
      command_settings.benchmark_timeout_s = seconds;
    else
      problems.push_back("benchmarkTimeoutSeconds: expected seconds from 0.001 to 604800");
  }
  return problems;
}

const std::vector<std::string> &command_names() {
  static const std::vector<std::string> names = {
      "argus.compile", "argus.benchmark", "argus.explain", "argus.layout", "argus.verification"};
  return names;
}

std::optional<std::string> command_document_uri(const json &arguments) {
  const json *object = arguments.is_object() ? &arguments
                       : arguments.is_array() && !arguments.empty() && arguments[0].is_object()
                           ? &arguments[0]
                           : nullptr;
  if (!object || !object->contains("uri") || !(*object)["uri"].is_string())
    return std::nullopt;
  return (*object)["uri"].get<std::string>();
}

json execute_command(const std::string &command, const json &arguments, CommandContext &context) {
  detail::throw_if_cancelled(context);
  if (command == "argus.layout")
    return layout_command(detail::command_object(arguments));
  if (command == "argus.explain")
    return explain_command(detail::command_object(arguments), context);
  if (command == "argus.verification")
    return verification_command(detail::command_object(arguments), context);
  if (command == "argus.compile")
    return detail::compile_command(detail::command_object(arguments), context);
  if (command == "argus.benchmark")
    return detail::benchmark_command(detail::command_object(arguments), context);
  std::string known;
  for (const std::string &name : command_names())
    known += (known.empty() ? "" : ", ") + name;
  throw CommandError{kInvalidParams, "unknown command '" + command + "' (commands: " + known + ")"};
}

} // namespace argus::server
