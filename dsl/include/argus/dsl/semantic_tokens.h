// Semantic tokens: each name of a file classified by what it resolves to
// (sema's symbols, the builtin and intrinsic table), not by its spelling.
// Keywords, literals and operators are left to the editor's grammar.
//
// The legend (type and modifier names, in the order the server announces
// them) is documented in server/README.md.
#pragma once

#include "argus/dsl/frontend.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace argus {

enum class SemanticTokenType : uint8_t {
  Namespace, // nvvm, amdgpu
  Type,      // dtypes (bf16, f32, ...), Tensor, constexpr
  Parameter, // function parameters and the parameters of tag functions
  Variable,  // locals, loop variables, module constants, inf
  Function,  // @kernel and @device functions; builtins (with defaultLibrary)
  Macro,  // checker directives: tag, assert_tag, assert_tag_eq, reset_tags, assert_covered, assume
  Method, // t.tile
  Decorator, // kernel, device, bench
  Intrinsic, // hardware intrinsics: the member of nvvm.* / amdgpu.*
  Tag,       // tag field names: "m" in tag(A, ("m", "k")) and assert_tag(x, {"m": ...})
};

// Modifier bits; bit i is the i-th name of semantic_token_modifier_names().
namespace token_modifier {
inline constexpr uint32_t kDeclaration = 1u << 0;    // the defining identifier
inline constexpr uint32_t kReadonly = 1u << 1;       // constants, loop variables, constexpr
inline constexpr uint32_t kStatic = 1u << 2;         // module level (module constants)
inline constexpr uint32_t kDefaultLibrary = 1u << 3; // builtins, intrinsics, dtypes
inline constexpr uint32_t kKernel = 1u << 4;         // a @kernel function
inline constexpr uint32_t kDevice = 1u << 5;         // a @device function
inline constexpr uint32_t kGlobal = 1u << 6;         // a tensor in global memory
inline constexpr uint32_t kShared = 1u << 7; // a tensor in shared memory / what allocates it
inline constexpr uint32_t kLocal = 1u << 8;  // a register array / what allocates it
} // namespace token_modifier

std::span<const std::string_view> semantic_token_type_names();
std::span<const std::string_view> semantic_token_modifier_names();

struct SemanticToken {
  Position begin;      // zero-based line, UTF-8 byte column
  uint32_t length = 0; // UTF-8 bytes, on one line
  SemanticTokenType type = SemanticTokenType::Variable;
  uint32_t modifiers = 0; // token_modifier bits
  friend bool operator==(const SemanticToken &, const SemanticToken &) = default;
};

// The tokens of `file` in source order, without overlaps; empty when the file
// was refused before analysis.
std::vector<SemanticToken> semantic_tokens(const CheckedFile &file);

} // namespace argus
