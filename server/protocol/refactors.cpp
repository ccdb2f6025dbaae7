// Refactors → CodeActions: a thin translation of argus::refactor::refactors_at.
#include "refactors.h"

#include "argus/dsl/refactor.h"
#include "argus/server/document.h"
#include "argus/server/editing_features.h"
#include "argus/server/lsp_diagnostic.h"

namespace argus::server {

namespace {

using nlohmann::json;

std::string kind_of(std::string_view id) { return "refactor.rewrite.argus." + std::string(id); }

} // namespace

bool code_action_kind_wanted(const json &params, std::string_view kind) {
  if (!params.contains("context") || !params["context"].is_object() ||
      !params["context"].contains("only") || !params["context"]["only"].is_array())
    return true;
  for (const json &entry : params["context"]["only"]) {
    if (!entry.is_string())
      continue;
    const std::string &prefix = entry.get_ref<const std::string &>();
    if (kind == prefix || (kind.size() > prefix.size() && kind.substr(0, prefix.size()) == prefix &&
                           kind[prefix.size()] == '.'))
      return true;
  }
  return false;
}

json code_action_kinds() {
  json kinds = json::array({"quickfix"});
  for (std::string_view id : refactor::refactor_ids())
    kinds.push_back(kind_of(id));
  return kinds;
}

json refactors_result(const CheckedFile &file, const json &params, ColumnUnit encoding,
                      const check::CheckerOptions &options) {
  json actions = json::array();
  bool wanted = false;
  for (std::string_view id : refactor::refactor_ids())
    wanted = wanted || code_action_kind_wanted(params, kind_of(id));
  if (!wanted || !file.source)
    return actions;
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  const SourceFile &source = *file.source;
  const json &range = params.at("range");
  Range wanted_range{source_position(source, range.at("start"), encoding),
                     source_position(source, range.at("end"), encoding)};
  if (wanted_range.end < wanted_range.begin)
    std::swap(wanted_range.begin, wanted_range.end);
  for (const refactor::Refactor &r : refactor::refactors_at(file, wanted_range, options)) {
    if (!code_action_kind_wanted(params, kind_of(r.id)))
      continue;
    json edits = json::array();
    for (const check::TextEdit &e : r.edits)
      edits.push_back({{"range", lsp_range(source, e.range, encoding)}, {"newText", e.new_text}});
    actions.push_back(
        {{"title", r.title}, {"kind", kind_of(r.id)}, {"edit", {{"changes", {{uri, edits}}}}}});
  }
  return actions;
}

} // namespace argus::server
