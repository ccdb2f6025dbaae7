#include "argus/server/navigation.h"

#include "argus/dsl/navigation.h"
#include "argus/server/document.h"
#include "argus/server/editing_features.h"
#include "argus/server/lsp_diagnostic.h"
#include "argus/server/semantic_tokens.h"

namespace argus::server {

namespace {

using nlohmann::json;

constexpr int kInvalidParams = -32602;

// params.position as a UTF-8 byte position of the checked text.
Position position_of(const CheckedFile &file, const json &params, ColumnUnit encoding) {
  return source_position(*file.source, params.at("position"), encoding);
}

json location(const CheckedFile &file, const std::string &uri, Range range, ColumnUnit encoding) {
  return json{{"uri", uri}, {"range", lsp_range(*file.source, range, encoding)}};
}

} // namespace

json definition_result(const CheckedFile &file, const json &params, ColumnUnit encoding) {
  const std::string uri = text_document_uri(params);
  if (!file.source)
    return nullptr;
  const auto range = definition_at(file, position_of(file, params, encoding));
  return range ? location(file, uri, *range, encoding) : json(nullptr);
}

json references_result(const CheckedFile &file, const json &params, ColumnUnit encoding) {
  const std::string uri = text_document_uri(params);
  json locations = json::array();
  if (!file.source)
    return locations;
  const bool declaration =
      params.value("context", json::object()).value("includeDeclaration", false);
  for (const NameReference &r :
       references_at(file, position_of(file, params, encoding), declaration))
    locations.push_back(location(file, uri, r.range, encoding));
  return locations;
}

NavigationAnswer prepare_rename_result(const CheckedFile &file, const json &params,
                                       ColumnUnit encoding) {
  text_document_uri(params);
  NavigationAnswer answer;
  if (!file.source)
    return answer;
  const RenamePreparation p = prepare_rename_at(file, position_of(file, params, encoding));
  if (!p.error.empty()) {
    answer.error_code = kInvalidParams;
    answer.error_message = p.error;
  } else if (p.range) {
    answer.result = {{"range", lsp_range(*file.source, *p.range, encoding)},
                     {"placeholder", p.placeholder}};
  }
  return answer;
}

NavigationAnswer rename_result(const CheckedFile &file, const json &params, ColumnUnit encoding) {
  const std::string uri = text_document_uri(params);
  const std::string new_name = params.at("newName").get<std::string>();
  NavigationAnswer answer;
  if (!file.source) {
    answer.error_code = kInvalidParams;
    answer.error_message = "the document could not be analysed";
    return answer;
  }
  const RenameResult r = rename_at(file, position_of(file, params, encoding), new_name);
  if (!r.error.empty()) {
    answer.error_code = kInvalidParams;
    answer.error_message = r.error;
    return answer;
  }
  json edits = json::array();
  for (const Range &range : r.ranges)
    edits.push_back({{"range", lsp_range(*file.source, range, encoding)}, {"newText", new_name}});
  answer.result = {{"changes", {{uri, std::move(edits)}}}};
  return answer;
}

} // namespace argus::server
