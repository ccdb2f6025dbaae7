// Internal: every name of a checked file and what it resolves to, from sema's
// tables (not from spelling). Semantic tokens and navigation both read it.
#pragma once

#include "query_support.h"

#include "argus/dsl/frontend.h"

#include "../sema/builtins.h"

#include <string_view>
#include <vector>

namespace argus::query {

enum class NameRole {
  Symbol,      // a constant, function, parameter, local or loop variable (`symbol` set)
  Builtin,     // a builtin function such as syncthreads, make_shared, range, Tensor
  Intrinsic,   // the member of nvvm.* / amdgpu.* (`builtin` set)
  Namespace,   // nvvm, amdgpu
  Dtype,       // bf16, f32, ... as an annotation, argument or cast
  Qualifier,   // constexpr
  Constant,    // inf
  Method,      // t.tile
  Decorator,   // kernel, device, bench after '@'
  TagField,    // a string literal naming a tag field ("m" in tag(A, ("m", "k")))
  LambdaParam, // a parameter of a tag function (its definition and its uses)
};

struct NameOccurrence {
  Range range;
  NameRole role = NameRole::Symbol;
  std::string_view name;                      // the identifier as written (not for TagField)
  const sema::Symbol *symbol = nullptr;       // Symbol
  const sema::BuiltinSpec *builtin = nullptr; // Builtin (null for range) and Intrinsic
  const ast::Function *function = nullptr;    // the enclosing function; null at module level
  bool is_definition = false;                 // the defining identifier of its symbol
};

// All names of `file` in source order; empty when the file was refused before sema.
std::vector<NameOccurrence> name_occurrences(const CheckedFile &file);

} // namespace argus::query
