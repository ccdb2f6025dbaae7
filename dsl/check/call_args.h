// Internal: a call's argument by position or keyword, as the checker's
// interpreter and its Z3 translation both read them (one rule for both).
#pragma once

#include "argus/dsl/ast.h"

#include <string_view>

namespace argus::check::detail {

// The argument `keyword=` if given, else the positional one at `index`, else null.
inline const ast::Expr *arg_of(const ast::Expr &call, size_t index, std::string_view keyword) {
  if (const ast::Keyword *k = call.keyword(keyword))
    return k->value.get();
  if (index < call.arg_count())
    return &call.arg(index);
  return nullptr;
}

} // namespace argus::check::detail
