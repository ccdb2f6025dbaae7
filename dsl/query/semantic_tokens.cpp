// Semantic tokens from the name index: the role and symbol of each name
// choose its type; its symbol's kind, function role and memory space its modifiers.
#include "argus/dsl/semantic_tokens.h"

#include "names.h"

namespace argus {

namespace {

using namespace token_modifier;
using query::NameOccurrence;
using query::NameRole;

constexpr std::string_view kTypeNames[] = {"namespace", "type",  "parameter", "variable",
                                           "function",  "macro", "method",    "decorator",
                                           "intrinsic", "tag"};
constexpr std::string_view kModifierNames[] = {"declaration",    "readonly", "static",
                                               "defaultLibrary", "kernel",   "device",
                                               "global",         "shared",   "local"};

uint32_t space_modifier(const sema::Type &type) {
  if (!type.is_tensor() || !type.tensor)
    return 0;
  switch (type.tensor->space) {
  case sema::MemorySpace::Global:
    return kGlobal;
  case sema::MemorySpace::Shared:
    return kShared;
  case sema::MemorySpace::Local:
    return kLocal;
  }
  return 0;
}

uint32_t function_modifier(const CheckedFile &file, const ast::Function *f) {
  const sema::FunctionInfo *info = f ? file.sema->function_info(f->name) : nullptr;
  if (!info)
    return 0;
  return info->role == sema::FunctionRole::Kernel ? kKernel : kDevice;
}

struct Classified {
  SemanticTokenType type;
  uint32_t modifiers;
};

Classified symbol_token(const CheckedFile &file, const NameOccurrence &o) {
  const sema::Symbol &s = *o.symbol;
  const uint32_t declaration = o.is_definition ? kDeclaration : 0;
  switch (s.kind) {
  case sema::SymbolKind::Constant:
    return {SemanticTokenType::Variable, declaration | kReadonly | kStatic};
  case sema::SymbolKind::Function:
    return {SemanticTokenType::Function, declaration | function_modifier(file, s.function)};
  case sema::SymbolKind::Parameter:
    return {SemanticTokenType::Parameter,
            declaration | (s.is_constexpr ? kReadonly : 0) | space_modifier(s.type)};
  case sema::SymbolKind::LoopVariable:
    return {SemanticTokenType::Variable, declaration | kReadonly};
  case sema::SymbolKind::Local:
    return {SemanticTokenType::Variable, declaration | space_modifier(s.type)};
  case sema::SymbolKind::Builtin:
    break;
  }
  return {SemanticTokenType::Variable, kDefaultLibrary};
}

// `spec` is null for range.
Classified builtin_token(const sema::BuiltinSpec *spec) {
  const BuiltinId id = spec ? spec->id : BuiltinId::None;
  if (id == BuiltinId::TensorSpec)
    return {SemanticTokenType::Type, kDefaultLibrary};
  if (is_checker_only(id)) // directives for the checker: no code
    return {SemanticTokenType::Macro, kDefaultLibrary};
  uint32_t space = 0;
  if (id == BuiltinId::MakeShared)
    space = kShared;
  else if (id == BuiltinId::MakeLocal || id == BuiltinId::Full)
    space = kLocal;
  return {SemanticTokenType::Function, kDefaultLibrary | space};
}

Classified classify(const CheckedFile &file, const NameOccurrence &o) {
  switch (o.role) {
  case NameRole::Symbol:
    return symbol_token(file, o);
  case NameRole::Builtin:
    return builtin_token(o.builtin);
  case NameRole::Intrinsic:
    return {SemanticTokenType::Intrinsic, kDefaultLibrary};
  case NameRole::Namespace:
    return {SemanticTokenType::Namespace, kDefaultLibrary};
  case NameRole::Dtype:
  case NameRole::Qualifier:
    return {SemanticTokenType::Type, kDefaultLibrary};
  case NameRole::Constant:
    return {SemanticTokenType::Variable, kReadonly | kDefaultLibrary};
  case NameRole::Method:
    return {SemanticTokenType::Method, kDefaultLibrary};
  case NameRole::Decorator: {
    const bool known = o.name == "kernel" || o.name == "device" || o.name == "bench";
    const uint32_t role = o.name == "kernel" ? kKernel : o.name == "device" ? kDevice : 0;
    return {SemanticTokenType::Decorator, (known ? kDefaultLibrary : 0) | role};
  }
  case NameRole::TagField:
    return {SemanticTokenType::Tag, 0};
  case NameRole::LambdaParam:
    return {SemanticTokenType::Parameter, o.is_definition ? kDeclaration : 0};
  }
  return {SemanticTokenType::Variable, 0};
}

} // namespace

std::span<const std::string_view> semantic_token_type_names() { return kTypeNames; }
std::span<const std::string_view> semantic_token_modifier_names() { return kModifierNames; }

std::vector<SemanticToken> semantic_tokens(const CheckedFile &file) {
  std::vector<SemanticToken> tokens;
  Position end_of_last{};
  for (const NameOccurrence &o : query::name_occurrences(file)) {
    const Range &r = o.range;
    // LSP tokens lie on one line and must not overlap.
    if (r.begin.line != r.end.line || r.end.column <= r.begin.column || r.begin < end_of_last)
      continue;
    const Classified c = classify(file, o);
    tokens.push_back(SemanticToken{r.begin, r.end.column - r.begin.column, c.type, c.modifiers});
    end_of_last = r.end;
  }
  return tokens;
}

} // namespace argus
