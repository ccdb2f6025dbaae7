// Layout pictures (`argus layout --svg EXPR`, `argus.layout` with "svg"): an
// SVG grid like the ones people draw for CuTe.
//
// - `tv(INSTRUCTION, OPERAND)`: the operand matrix (M×K, N×K or M×N; rows ×
//   columns), each cell labelled with the thread and the value index that
//   hold it (`T5 V2`), one colour per thread. A shared-memory operand that
//   every thread reads whole (wgmma's A and B) shows value indices only.
// - any other layout of rank 1 or 2: its index grid (as `--table`), each cell
//   its offset, coloured by offset modulo 8.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace argus {

// The SVG of EXPR, or nullopt with `error` (malformed, not a layout, too big).
std::optional<std::string> layout_svg(std::string_view expr, std::string &error);
// Whether layout_svg would draw EXPR, without drawing it (hover lists only
// the layouts that have a picture).
bool layout_drawable(std::string_view expr);

} // namespace argus
