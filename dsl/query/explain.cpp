#include "argus/dsl/explain.h"

#include "argus/dsl/checker.h"

#include <map>
#include <set>

namespace argus {

namespace {

using nlohmann::json;

std::string trimmed(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos)
    return "";
  const size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

std::string line_text(const SourceFile &source, uint32_t line) {
  const std::string_view text = source.text();
  size_t at = 0;
  for (uint32_t l = 0; l < line && at != std::string_view::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string_view::npos)
      ++at;
  }
  if (at == std::string_view::npos || at > text.size())
    return "";
  const size_t end = text.find('\n', at);
  return trimmed(
      text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
}

std::optional<Position> position_of(const json &point) {
  if (!point.is_object() || !point.contains("line") || !point.contains("character") ||
      !point["line"].is_number_unsigned() || !point["character"].is_number_unsigned())
    return std::nullopt;
  return Position{point["line"].get<uint32_t>(), point["character"].get<uint32_t>()};
}

std::string join_ints(const json &values) {
  std::string out;
  if (!values.is_array())
    return values.dump();
  for (const json &v : values)
    out += (out.empty() ? "" : ", ") + v.dump();
  return out;
}

// "K = 16, M = 32" of an object of integers (tag records, sizes, iterations).
std::string assignments(const json &object, const char *equals = " = ") {
  std::string out;
  if (!object.is_object())
    return object.is_null() ? "-" : object.dump();
  for (auto it = object.begin(); it != object.end(); ++it)
    out += (out.empty() ? "" : ", ") + it.key() + equals +
           (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
  return out.empty() ? "-" : out;
}

std::string tag_record(const json &record) { return "{" + assignments(record, ": ") + "}"; }

std::string role_of_note(const std::string &note) {
  if (note.find("written") != std::string::npos || note.find("write") != std::string::npos ||
      note.find("copied") != std::string::npos)
    return "write";
  if (note.find("read") != std::string::npos)
    return "read";
  return "other";
}

std::string element_text(const json &step) {
  std::string text = step.value("tensor", std::string());
  if (step.contains("element"))
    text += "[" + join_ints(step["element"]) + "]";
  return text;
}

std::string thread_text(const json &thread) {
  if (!thread.is_object())
    return "";
  return "block (" + join_ints(thread.value("block", json::array())) + "), thread (" +
         join_ints(thread.value("thread", json::array())) + ")";
}

// One step of an element's history in words: "A[0, 3] (global) read by
// block (0, 0, 0), thread (0, 0, 0), kt = 0: {m: 0, k: 3}".
std::string step_text(const json &step) {
  const std::string action = step.value("action", std::string());
  if (action == "elided")
    return step.contains("steps")
               ? "… " + step["steps"].dump() +
                     (step.contains("why") ? " steps repeating the ones around them"
                                           : " steps left out")
               : "… " + step.value("reason", std::string("earlier steps"));
  std::string text = element_text(step);
  if (step.contains("space"))
    text += " (" + step["space"].get<std::string>() + ")";
  static const std::map<std::string, std::string> verbs = {
      {"read", "read"},
      {"write", "written"},
      {"fill", "filled"},
      {"async-copy", "async copy issued"},
      {"async-land", "landed (the async copy was waited for)"},
      {"compute", "computed (from the A operand)"},
      {"violation", "violation"}};
  const auto verb = verbs.find(action);
  text += (text.empty() ? "" : " ") + (verb == verbs.end() ? action : verb->second);
  if (step.value("written_by", std::string()) == "host")
    text += " (host data)";
  if (step.contains("thread"))
    text += " by " + thread_text(step["thread"]);
  if (step.contains("iteration") && !step["iteration"].empty())
    text += ", " + assignments(step["iteration"]);
  if (step.value("summary", false))
    text += " (one of many: the record was full)";
  if (step.contains("tag"))
    text += ": tags " + tag_record(step["tag"]);
  return text;
}

// The keys every counterexample may carry; everything else is a detail of its kind.
const std::set<std::string> &common_keys() {
  static const std::set<std::string> keys = {
      "kind",     "check",  "kernel",        "sizes",  "thread", "iteration", "element",
      "expected", "actual", "program_point", "origin", "fixes",  "edits",     "found_by"};
  return keys;
}

std::string markdown_of(const json &trace, const std::vector<ExplainSite> &sites,
                        const std::vector<std::string> &history) {
  std::string md = "**" + trace["code"].get<std::string>() + " " +
                   trace["kind"].get<std::string>() + "** (`" + trace["check"].get<std::string>() +
                   "`) in kernel `" + trace["kernel"].get<std::string>() + "`\n\n" +
                   trace["message"].get<std::string>() + "\n\n| | |\n|---|---|\n";
  auto row = [&](const std::string &name, const std::string &value) {
    md += "| " + name + " | " + value + " |\n";
  };
  row("sizes", assignments(trace["sizes"]));
  const json &thread = trace["thread"];
  if (thread.is_object()) {
    row("block", "(" + join_ints(thread.value("block", json::array())) + ")");
    row("thread", "(" + join_ints(thread.value("thread", json::array())) + "), warp " +
                      thread.value("warp", json(0)).dump() + ", lane " +
                      thread.value("lane", json(0)).dump());
  } else {
    row("thread", "the whole grid");
  }
  row("iteration", assignments(trace["iteration"]));
  const json &element = trace["element"];
  if (element.is_object())
    row("element", element.value("tensor", std::string("?")) + "[" +
                       join_ints(element.value("coord", json::array())) + "]");
  if (trace.contains("expected"))
    row("expected tags", tag_record(trace["expected"]));
  if (trace.contains("actual"))
    row("actual tags", tag_record(trace["actual"]));
  for (auto it = trace["details"].begin(); it != trace["details"].end(); ++it)
    row(it.key(),
        it.value().is_object() && it.key() != "other_thread"
            ? assignments(it.value())
            : (it.value().is_string() ? it.value().get<std::string>() : it.value().dump()));
  bool has_sites = false;
  for (const ExplainSite &site : sites)
    has_sites = has_sites || site.role != "step";
  if (has_sites) {
    md += "\nTrace:\n";
    int n = 1;
    for (const ExplainSite &site : sites)
      if (site.role != "step")
        md += std::to_string(n++) + ". line " + std::to_string(site.position.line + 1) + ": `" +
              site.source + "` — " + site.note + "\n";
  }
  if (!history.empty()) {
    md += "\nHistory of the element, from its origin to the violation:\n";
    int n = 1;
    for (const std::string &step : history)
      md += std::to_string(n++) + ". " + step + "\n";
  }
  md += std::string("\nReplayed on the interpreter: ") +
        (trace["replayed"].get<bool>() ? "yes" : "no") + ".\n";
  if (!trace["fixes"].empty()) {
    std::string fixes;
    for (const json &f : trace["fixes"])
      fixes += (fixes.empty() ? "" : ", ") + ("`" + f.get<std::string>() + "`");
    md += "Verified fixes: " + fixes + ".\n";
  }
  return md;
}

} // namespace

std::optional<Explanation> explain_counterexample(const CheckedFile &file, const json &data,
                                                  std::string_view code, std::string_view message) {
  if (!data.is_object() || !data.contains("kind") || !data["kind"].is_string() ||
      !data.contains("kernel") || !data["kernel"].is_string())
    return std::nullopt;
  Explanation e;
  json &t = e.trace;
  t["code"] = std::string(code);
  t["message"] = std::string(message);
  t["kind"] = data["kind"];
  t["check"] = data.value("check", std::string());
  t["kernel"] = data["kernel"];
  t["sizes"] = data.value("sizes", json::object());
  t["thread"] = data.value("thread", json());
  t["iteration"] = data.value("iteration", json::object());
  t["element"] = data.value("element", json());
  for (const char *key : {"expected", "actual", "found_by"})
    if (data.contains(key))
      t[key] = data[key];
  t["fixes"] = data.value("fixes", json::array());
  t["details"] = json::object();
  for (auto it = data.begin(); it != data.end(); ++it)
    if (!common_keys().contains(it.key()))
      t["details"][it.key()] = it.value();

  if (file.source) {
    if (auto p = position_of(data.value("program_point", json()))) {
      const std::string check = t["check"].get<std::string>();
      e.sites.push_back(
          {"violation", *p,
           "the " + t["kind"].get<std::string>() + (check.empty() ? "" : " (" + check + ")"),
           line_text(*file.source, p->line)});
    }
    if (auto p = position_of(data.value("origin", json()))) {
      const std::string note = data["origin"].value("note", std::string("related"));
      e.sites.push_back({role_of_note(note), *p, note, line_text(*file.source, p->line)});
    }
  }
  // Only a text without front-end errors can be run (the checker's own E09xx errors are fine).
  bool front_end_errors = false;
  for (const Diagnostic &d : file.diagnostics)
    front_end_errors =
        front_end_errors || (d.severity == Severity::Error && !d.code.starts_with("E09"));
  json history = json::array();
  t["replayed"] = file.sema && !front_end_errors &&
                  check::replay(file, data["kernel"].get<std::string>(), data, &history);
  t["history"] = history;
  std::vector<std::string> history_lines;
  for (const json &step : history) {
    const auto p = position_of(step.value("program_point", json()));
    const std::string source = p && file.source ? line_text(*file.source, p->line) : "";
    history_lines.push_back(
        (p ? "line " + std::to_string(p->line + 1) + ": `" + source + "` — " : std::string()) +
        step_text(step));
    if (p && file.source && step.value("action", std::string()) != "violation")
      e.sites.push_back({"step", *p, step_text(step), source});
  }
  e.markdown = markdown_of(t, e.sites, history_lines);
  return e;
}

} // namespace argus
