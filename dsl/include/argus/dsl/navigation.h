// Navigation: go to definition, find references and rename for the names a
// file defines — kernels, @device functions, module constants, parameters,
// locals and loop variables. Names resolve through sema, so a local of one
// kernel is never the same name as a local of another.
#pragma once

#include "argus/dsl/frontend.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus {

struct NameReference {
  Range range;
  bool is_definition = false; // the defining identifier
  friend bool operator==(const NameReference &, const NameReference &) = default;
};

// The defining identifier of the name at `position` (zero-based line, UTF-8
// byte column); nothing for builtins, intrinsics and positions on no name.
std::optional<Range> definition_at(const CheckedFile &file, Position position);

// Every occurrence of the name at `position` in source order (with its
// definition when `include_declaration`); empty when nothing is there.
std::vector<NameReference> references_at(const CheckedFile &file, Position position,
                                         bool include_declaration);

struct RenamePreparation {
  std::optional<Range> range; // the name to rename; absent when none can be
  std::string placeholder;    // its current text
  std::string error;          // why the name there cannot be renamed (empty: none is there)
};

// Whether the name at `position` can be renamed.
RenamePreparation prepare_rename_at(const CheckedFile &file, Position position);

struct RenameResult {
  std::vector<Range> ranges; // every occurrence, each replaced by the new name
  std::string error;         // set when the rename is refused (then `ranges` is empty)
};

// Renames the name at `position` to `new_name` everywhere it is used. Refused
// when the position is on no renamable name or `new_name` is not an ASCII
// identifier, is a keyword or builtin name, or is already visible where the
// name is defined or used.
RenameResult rename_at(const CheckedFile &file, Position position, std::string_view new_name);

} // namespace argus
