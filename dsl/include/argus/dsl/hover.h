// What an editor shows for the name under the cursor, in editor terms (a
// range and Markdown); the language server turns it into an LSP Hover.
#pragma once

#include "argus/dsl/frontend.h"

#include <optional>
#include <string>
#include <vector>

namespace argus {

struct HoverInfo {
  Range range;          // the name the position is on
  std::string markdown; // its kind, type (shape, dtype, memory space), value or documentation
  // Layout expressions the hover describes that `argus layout --svg` draws
  // (`tv(nvvm.mma_m16n8k16_bf16_f32, A)`, `(64,34):(34,1)`): the server
  // links their pictures where the client can show them.
  std::vector<std::string> pictures;
};

// The hover of the name (variable, parameter, constant, @device or @kernel
// function, builtin, intrinsic) at `position` (zero-based line, UTF-8 byte
// column), or nothing when the position is on no name.
std::optional<HoverInfo> hover_at(const CheckedFile &file, Position position);

// One entry of a document's outline.
struct OutlineItem {
  enum class Kind { Kernel, Device, Constant };
  Kind kind = Kind::Constant;
  std::string name;
  std::string detail; // "@kernel block (256, 1, 1)", "@device", "= 64"
  Range range;        // the whole definition
  Range selection;    // its name
};

// The kernels, @device functions and module constants of a file, in order.
std::vector<OutlineItem> outline(const CheckedFile &file);

} // namespace argus
