// SARIF 2.1.0 output of `argus check` (sarif.h).
#include "argus/cli/sarif.h"
#include "argus/cli/diagnostic_json.h"
#include "argus/dsl/codes.h"

#include <map>
#include <sstream>

namespace argus::cli {

extern const std::string_view kDiagnosticsDoc; // generated from docs/diagnostics.md

namespace {

using nlohmann::json;

constexpr std::string_view kSchema = "https://json.schemastore.org/sarif-2.1.0.json";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The Markdown paragraphs as plain text: lines of a paragraph joined by blanks.
std::string plain_text(std::string_view markdown) {
  std::string out;
  std::istringstream in{std::string(markdown)};
  std::string line;
  bool blank = false;
  while (std::getline(in, line)) {
    const std::string_view t = trim(line);
    if (t.empty()) {
      blank = true;
      continue;
    }
    if (!out.empty())
      out += blank ? "\n\n" : " ";
    out += t;
    blank = false;
  }
  return out;
}

// The first paragraph of a text.
std::string first_paragraph(const std::string &text) {
  const size_t end = text.find("\n\n");
  return end == std::string::npos ? text : text.substr(0, end);
}

const char *level_of(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  default:
    return "note";
  }
}

json region(const SourceFile &source, Range range) {
  const ColumnUnit unit = ColumnUnit::Utf16CodeUnits; // SARIF's default columnKind
  return {{"startLine", range.begin.line + 1},
          {"startColumn", source.column_in(range.begin, unit) + 1},
          {"endLine", range.end.line + 1},
          {"endColumn", source.column_in(range.end, unit) + 1}};
}

json physical_location(const std::string &uri, const SourceFile &source, Range range) {
  return {{"artifactLocation", {{"uri", uri}}}, {"region", region(source, range)}};
}

json rule(const codes::CodeInfo &info) {
  const std::string code(info.code);
  json r = {{"id", code},
            {"shortDescription", {{"text", std::string(info.title)}}},
            {"defaultConfiguration", {{"level", code.starts_with("W") ? "warning" : "error"}}}};
  if (const auto help = diagnostic_help(code)) {
    const std::string text = plain_text(*help);
    r["fullDescription"] = {{"text", first_paragraph(text)}};
    r["help"] = {{"text", text}, {"markdown", *help}};
  }
  return r;
}

} // namespace

std::optional<std::string> diagnostic_help(std::string_view code) {
  const std::string heading = "\n### " + std::string(code) + " ";
  const size_t at = kDiagnosticsDoc.find(heading);
  if (at == std::string_view::npos)
    return std::nullopt;
  const size_t body = kDiagnosticsDoc.find('\n', at + 1);
  if (body == std::string_view::npos)
    return std::nullopt;
  size_t end = kDiagnosticsDoc.size();
  for (const std::string_view stop : {"\n```", "\n#"}) // its first example, or the next heading
    end = std::min(end, kDiagnosticsDoc.find(stop, body));
  const std::string_view text = trim(kDiagnosticsDoc.substr(body, end - body));
  if (text.empty())
    return std::nullopt;
  return std::string(text);
}

std::string path_uri_reference(std::string_view path) {
  if (!path.empty() && path.front() == '/')
    return file_uri(path);
  return percent_encode_path(path);
}

json sarif_log(const std::vector<SarifFile> &files,
               const std::vector<SarifUnreadable> &unreadable) {
  json rules = json::array();
  std::map<std::string, size_t> rule_index;
  for (const codes::CodeInfo &info : codes::all_codes()) {
    rule_index[std::string(info.code)] = rules.size();
    rules.push_back(rule(info));
  }
  json results = json::array();
  json artifacts = json::array();
  for (const SarifFile &file : files) {
    const std::string uri = path_uri_reference(file.source->path());
    artifacts.push_back({{"location", {{"uri", uri}}}});
    for (const Diagnostic &d : *file.diagnostics) {
      json result = {
          {"ruleId", d.code},
          {"level", level_of(d.severity)},
          {"message", {{"text", d.message}}},
          {"locations",
           json::array({{{"physicalLocation", physical_location(uri, *file.source, d.range)}}})}};
      if (auto it = rule_index.find(d.code); it != rule_index.end())
        result["ruleIndex"] = it->second;
      if (!d.related.empty()) {
        json related = json::array();
        for (size_t i = 0; i < d.related.size(); ++i)
          related.push_back(
              {{"id", i + 1},
               {"physicalLocation", physical_location(uri, *file.source, d.related[i].range)},
               {"message", {{"text", d.related[i].message}}}});
        result["relatedLocations"] = std::move(related);
      }
      if (!d.data.is_null())
        result["properties"] = {{"counterexample", d.data}};
      results.push_back(std::move(result));
    }
  }
  json notifications = json::array();
  for (const SarifUnreadable &u : unreadable)
    notifications.push_back(
        {{"level", "error"},
         {"message", {{"text", u.path + ": " + u.error}}},
         {"locations",
          json::array({{{"physicalLocation",
                         {{"artifactLocation", {{"uri", path_uri_reference(u.path)}}}}}}})}});
  json invocation = {{"executionSuccessful", unreadable.empty()}};
  if (!notifications.empty())
    invocation["toolExecutionNotifications"] = std::move(notifications);
  return {{"$schema", std::string(kSchema)},
          {"version", "2.1.0"},
          {"runs", json::array({{{"tool",
                                  {{"driver",
                                    {{"name", "argus"},
                                     {"version", ARGUS_VERSION},
                                     {"semanticVersion", ARGUS_VERSION},
                                     {"rules", std::move(rules)}}}}},
                                 {"invocations", json::array({std::move(invocation)})},
                                 {"artifacts", std::move(artifacts)},
                                 {"results", std::move(results)}}})}};
}

} // namespace argus::cli
