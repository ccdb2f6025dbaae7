#include "argus/server/lsp_diagnostic.h"

namespace argus::server {

nlohmann::json lsp_range(const SourceFile &source, Range range, ColumnUnit unit) {
  const auto position = [&](Position pos) {
    return nlohmann::json{{"line", pos.line}, {"character", source.column_in(pos, unit)}};
  };
  return nlohmann::json{{"start", position(range.begin)}, {"end", position(range.end)}};
}

nlohmann::json lsp_diagnostic(const SourceFile &source, const Diagnostic &diagnostic,
                              const std::string &uri, ColumnUnit unit) {
  nlohmann::json result = {
      {"range", lsp_range(source, diagnostic.range, unit)},
      {"severity", static_cast<int>(diagnostic.severity)},
      {"code", diagnostic.code},
      {"source", "argus"},
      {"message", diagnostic.message},
  };
  if (!diagnostic.data.is_null())
    result["data"] = diagnostic.data;
  if (!diagnostic.related.empty()) {
    nlohmann::json related = nlohmann::json::array();
    for (const RelatedInformation &info : diagnostic.related) {
      related.push_back(
          {{"location", {{"uri", uri}, {"range", lsp_range(source, info.range, unit)}}},
           {"message", info.message}});
    }
    result["relatedInformation"] = std::move(related);
  }
  return result;
}

} // namespace argus::server
