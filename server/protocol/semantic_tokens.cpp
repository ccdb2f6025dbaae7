#include "argus/server/semantic_tokens.h"

#include "argus/server/editing_features.h"

#include <algorithm>

namespace argus::server {

using nlohmann::json;

std::string text_document_uri(const json &params) {
  return params.at("textDocument").at("uri").get<std::string>();
}

json semantic_tokens_legend() {
  json types = json::array(), modifiers = json::array();
  for (std::string_view name : semantic_token_type_names())
    types.push_back(name);
  for (std::string_view name : semantic_token_modifier_names())
    modifiers.push_back(name);
  return json{{"tokenTypes", types}, {"tokenModifiers", modifiers}};
}

std::vector<uint32_t> encode_semantic_tokens(const SourceFile &source,
                                             const std::vector<SemanticToken> &tokens,
                                             ColumnUnit unit) {
  std::vector<uint32_t> data;
  data.reserve(tokens.size() * 5);
  uint32_t line = 0, start = 0;
  for (const SemanticToken &t : tokens) {
    const uint32_t begin = source.column_in(t.begin, unit);
    const uint32_t end = source.column_in(Position{t.begin.line, t.begin.column + t.length}, unit);
    data.push_back(t.begin.line - line);
    data.push_back(t.begin.line == line ? begin - start : begin);
    data.push_back(end - begin);
    data.push_back(static_cast<uint32_t>(t.type));
    data.push_back(t.modifiers);
    line = t.begin.line;
    start = begin;
  }
  return data;
}

std::optional<SemanticTokensEdit> semantic_tokens_edit(const std::vector<uint32_t> &before,
                                                       const std::vector<uint32_t> &after) {
  if (before == after)
    return std::nullopt;
  size_t prefix = 0;
  while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
  SemanticTokensEdit edit;
  edit.start = prefix;
  edit.delete_count = before.size() - prefix - suffix;
  edit.data.assign(after.begin() + static_cast<std::ptrdiff_t>(prefix),
                   after.end() - static_cast<std::ptrdiff_t>(suffix));
  return edit;
}

json SemanticTokensCache::full(const std::string &uri, std::vector<uint32_t> data) {
  Entry &entry = entries_[uri];
  entry.id = std::to_string(next_id_++);
  entry.data = std::move(data);
  return json{{"resultId", entry.id}, {"data", entry.data}};
}

json SemanticTokensCache::delta(const std::string &uri, const std::string &previous_id,
                                std::vector<uint32_t> data) {
  const auto it = entries_.find(uri);
  if (it == entries_.end() || it->second.id != previous_id)
    return full(uri, std::move(data));
  json edits = json::array();
  if (auto edit = semantic_tokens_edit(it->second.data, data))
    edits.push_back(
        {{"start", edit->start}, {"deleteCount", edit->delete_count}, {"data", edit->data}});
  it->second.id = std::to_string(next_id_++);
  it->second.data = std::move(data);
  return json{{"resultId", it->second.id}, {"edits", std::move(edits)}};
}

void SemanticTokensCache::forget(const std::string &uri) { entries_.erase(uri); }

json semantic_tokens_full_result(const CheckedFile &file, const json &params, ColumnUnit encoding,
                                 SemanticTokensCache &cache) {
  const std::string uri = text_document_uri(params);
  if (!file.source)
    return cache.full(uri, {});
  return cache.full(uri, encode_semantic_tokens(*file.source, semantic_tokens(file), encoding));
}

json semantic_tokens_delta_result(const CheckedFile &file, const json &params, ColumnUnit encoding,
                                  SemanticTokensCache &cache) {
  const std::string uri = text_document_uri(params);
  const std::string previous = params.at("previousResultId").get<std::string>();
  std::vector<uint32_t> data;
  if (file.source)
    data = encode_semantic_tokens(*file.source, semantic_tokens(file), encoding);
  return cache.delta(uri, previous, std::move(data));
}

json semantic_tokens_range_result(const CheckedFile &file, const json &params,
                                  ColumnUnit encoding) {
  text_document_uri(params); // -32602 without one, as the other requests
  if (!file.source)
    return json{{"data", json::array()}};
  const json &range = params.at("range");
  const Position begin = source_position(*file.source, range.at("start"), encoding);
  const Position end = source_position(*file.source, range.at("end"), encoding);
  // The tokens that overlap the range: an editor asks for the visible lines and
  // colors a token cut by the range's edge whole. No resultId: a range result
  // is never the base of a delta.
  std::vector<SemanticToken> wanted;
  for (const SemanticToken &token : semantic_tokens(file)) {
    const Position token_end{token.begin.line, token.begin.column + token.length};
    if (token_end > begin && token.begin < end)
      wanted.push_back(token);
  }
  return json{{"data", encode_semantic_tokens(*file.source, wanted, encoding)}};
}

} // namespace argus::server
