// The layout calculator (`argus layout --format=json`, the language server's
// `argus.layout` command) as one JSON-producing call over argus_layout's
// expression language (docs/layout.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

namespace argus {

// {"expr", "result", "kind", "table"?, "svg"?} (table: rows of offsets, when
// `table` is set and the value is a rank-2 layout; svg: its picture when `svg`
// is set, layout_svg.h, or "svgError" saying why there is none), or {"expr",
// "error": {"message", "column" (1-based, code points), "offset", "length"
// (bytes)}}.
nlohmann::json layout_calculation(std::string_view expr, bool table, bool svg = false);

} // namespace argus
