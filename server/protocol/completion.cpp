// textDocument/completion and textDocument/signatureHelp: argus::complete_at
// and argus::signature_help_at in LSP terms.
#include "argus/dsl/completion.h"
#include "argus/server/document.h"
#include "argus/server/editing_features.h"

namespace argus::server {

using nlohmann::json;

Position source_position(const SourceFile &source, const json &position, ColumnUnit encoding) {
  // A negative or fractional line/character is invalid params, not line 2^32 - 1.
  for (const char *key : {"line", "character"})
    if (!position.at(key).is_number_unsigned())
      throw json::type_error::create(302, std::string(key) + " must be a non-negative integer",
                                     &position);
  const LspPosition lsp{position.at("line").get<uint32_t>(),
                        position.at("character").get<uint32_t>()};
  return source.position(offset_of(source.text(), lsp, encoding));
}

namespace {

// LSP CompletionItemKind.
int lsp_kind(CompletionItem::Kind kind) {
  switch (kind) {
  case CompletionItem::Kind::Builtin:
  case CompletionItem::Kind::Intrinsic:
  case CompletionItem::Kind::Function:
    return 3; // Function
  case CompletionItem::Kind::Method:
    return 2;
  case CompletionItem::Kind::Dtype:
    return 7; // Class: a type, also a conversion
  case CompletionItem::Kind::Namespace:
    return 9; // Module
  case CompletionItem::Kind::Keyword:
    return 14;
  case CompletionItem::Kind::Constant:
    return 21;
  case CompletionItem::Kind::Policy:
    return 10; // Property
  case CompletionItem::Kind::Parameter:
  case CompletionItem::Kind::Local:
  case CompletionItem::Kind::LoopVariable:
    return 6; // Variable
  }
  return 1;
}

json markdown(const std::string &value) { return {{"kind", "markdown"}, {"value", value}}; }

} // namespace

json completion_result(const CheckedFile &file, const json &params, ColumnUnit encoding,
                       const CompletionOptions &options) {
  json items = json::array();
  if (!file.source)
    return items;
  const Position position = source_position(*file.source, params.at("position"), encoding);
  for (const CompletionItem &c : complete_at(file, position)) {
    json item = {{"label", c.label}, {"kind", lsp_kind(c.kind)}};
    if (!c.detail.empty())
      item["detail"] = c.detail;
    if (!c.documentation.empty())
      item["documentation"] = markdown(c.documentation);
    if (options.snippets && !c.snippet.empty()) {
      item["insertText"] = c.snippet;
      item["insertTextFormat"] = 2; // Snippet
    } else {
      item["insertText"] = c.insert_text;
      item["insertTextFormat"] = 1; // PlainText
    }
    items.push_back(std::move(item));
  }
  return items;
}

json signature_help_result(const CheckedFile &file, const json &params, ColumnUnit encoding) {
  if (!file.source)
    return nullptr;
  const Position position = source_position(*file.source, params.at("position"), encoding);
  const auto info = signature_help_at(file, position);
  if (!info)
    return nullptr;
  json parameters = json::array();
  for (const std::string &p : info->parameters)
    parameters.push_back({{"label", p}});
  json signature = {{"label", info->label},
                    {"parameters", parameters},
                    {"activeParameter", info->active_parameter}};
  if (!info->documentation.empty())
    signature["documentation"] = markdown(info->documentation);
  return {{"signatures", json::array({signature})},
          {"activeSignature", 0},
          {"activeParameter", info->active_parameter}};
}

} // namespace argus::server
