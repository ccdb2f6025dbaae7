// Internal: what hover, completion, signature help and inlay hints share —
// the documentation of builtins and language names (one source: the sema
// table plus the few names the table does not hold), function signatures and
// docstrings from the source, the names visible at a position, and the CuTe
// layout of a view.
#pragma once

#include "argus/dsl/frontend.h"

#include "../sema/builtins.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace argus::query {

bool contains(const Range &r, Position p);

// `def NAME(...) -> T` without `def ` and the docstring after it, if any.
std::pair<std::string, std::string> signature_and_doc(const SourceFile &source,
                                                      const ast::Function &f);

// "make_shared(shape, dtype, layout=…)", "min(a, b, …)", "nvvm.ldmatrix_x4(src)".
std::string builtin_signature(const sema::BuiltinSpec &spec);
// The Markdown shown for a builtin or intrinsic: its signature and its
// documentation from the table (the same text for hover and completion).
std::string builtin_documentation(const sema::BuiltinSpec &spec);

// Names of the language that are not calls of the builtin table.
struct LanguageName {
  enum class Kind { Dtype, Iterable, Constant, Namespace, Method, Keyword };
  std::string name;
  Kind kind = Kind::Keyword;
  std::string signature; // "f32(x)", "range(start, stop, step, unroll=…)"; empty: not callable
  std::vector<std::string> params;
  std::string doc;
};
std::span<const LanguageName> language_names();
const LanguageName *find_language_name(std::string_view name);
// The tensor method `t.tile(tile_shape)`.
const LanguageName &tile_method();

// The function whose range holds `p`, or null.
const ast::Function *function_at(const ast::Module &module, Position p);

// Constants, @device functions, then the enclosing function's parameters and
// the locals and loop variables defined before `p` (innermost definition of
// each name wins). Kernels are left out: they are launched, not named.
std::vector<const sema::Symbol *> visible_symbols(const CheckedFile &file, Position p);

// The value of the statement that first defines a local (the right-hand side
// of `x = value`), or null.
const ast::Expr *defining_value(const ast::Function &function, const sema::Symbol &symbol);

// The layout of a tensor view in CuTe notation ("(64,32):(32,1)",
// "Sw<2,4,3> o (2,128,4,8):(4096,32,8,1)") when it is known: parameters,
// make_shared (with its layout=), make_local, full, view, fragments,
// subscripts, subview and tile of those.
struct ViewLayout {
  std::string layout;  // shape:stride
  std::string swizzle; // "Sw<2,4,3>" or empty
  int element_bytes = 0;
  std::string str() const; // "Sw<…> o shape:stride" or "shape:stride"
};
std::optional<ViewLayout> layout_of(const CheckedFile &file, const ast::Function *function,
                                    const ast::Expr &view);
std::optional<ViewLayout> layout_of_symbol(const CheckedFile &file, const ast::Function *function,
                                           const sema::Symbol &symbol);

// Visits every expression of a function (statements, decorators, defaults)
// in source order, outermost first.
template <typename Visit> void for_each_expr(const ast::Expr &e, Visit &&visit) {
  visit(e);
  for (const auto &op : e.operands)
    if (op)
      for_each_expr(*op, visit);
  for (const auto &k : e.keywords)
    if (k.value)
      for_each_expr(*k.value, visit);
}
template <typename Visit> void for_each_expr(const std::vector<ast::StmtPtr> &body, Visit &&visit) {
  for (const auto &s : body) {
    for (const auto &t : s->targets)
      if (t)
        for_each_expr(*t, visit);
    for (const ast::Expr *e : {s->target.get(), s->annotation.get(), s->value.get()})
      if (e)
        for_each_expr(*e, visit);
    for_each_expr(s->body, visit);
    for_each_expr(s->orelse, visit);
  }
}

} // namespace argus::query
