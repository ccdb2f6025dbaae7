// textDocument/inlayHint: argus::inlay_hints in LSP terms.
#include "argus/dsl/inlay_hints.h"
#include "argus/server/editing_features.h"

namespace argus::server {

using nlohmann::json;

json inlay_hints_result(const CheckedFile &file, const json &params, ColumnUnit encoding) {
  json hints = json::array();
  if (!file.source)
    return hints;
  const SourceFile &source = *file.source;
  Range range{{0, 0}, source.position(source.text().size())};
  if (params.contains("range")) {
    const json &r = params.at("range");
    range = Range{source_position(source, r.at("start"), encoding),
                  source_position(source, r.at("end"), encoding)};
  }
  for (const InlayHint &h : inlay_hints(file, range)) {
    json hint = {
        {"position",
         {{"line", h.position.line}, {"character", source.column_in(h.position, encoding)}}},
        {"label", h.label}};
    if (h.kind == InlayHint::Kind::Type) {
      hint["kind"] = 1; // Type
    } else {
      hint["paddingLeft"] = true;
    }
    hints.push_back(std::move(hint));
  }
  return hints;
}

} // namespace argus::server
