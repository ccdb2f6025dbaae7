// The CuTe layout (shape:stride, in elements) of a tensor view, followed from
// where the view is made: sema's types keep shapes and explicit strides but
// not the layout= of make_shared, nor the parent strides of a subscript,
// subview or tile, so this walks the defining expressions.
#include "query_support.h"

#include "argus/dsl/view_model.h"

#include <algorithm>

namespace argus::query {

namespace {

using ast::Expr;
using ast::ExprKind;
using layout::ExprRef;
using sema::ScalarKind;

// An integer that is known, or the text of a symbolic expression.
struct Extent {
  std::optional<int64_t> value;
  std::string text;

  static Extent of(int64_t v) { return {v, std::to_string(v)}; }
  static Extent symbolic(std::string t) {
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    return {std::nullopt, std::move(t)};
  }
};

bool needs_parens(const std::string &t) {
  return t.find_first_of("+-") != std::string::npos || t.find("//") != std::string::npos ||
         t.find('%') != std::string::npos;
}

Extent times(const Extent &a, const Extent &b) {
  if (a.value && b.value)
    return Extent::of(*a.value * *b.value);
  if (a.value == 1)
    return b;
  if (b.value == 1)
    return a;
  if (a.value == 0 || b.value == 0)
    return Extent::of(0);
  auto wrap = [](const Extent &e) { return needs_parens(e.text) ? "(" + e.text + ")" : e.text; };
  return Extent::symbolic(wrap(a) + "*" + wrap(b));
}

struct Mode {
  Extent shape;
  Extent stride;
};

struct Walk {
  Walk(const CheckedFile &f, const ast::Function *fn) : file(f), function(fn) {}
  const CheckedFile &file;
  const ast::Function *function;
  int depth = 0;

  Extent extent(const sema::Dim &d) const {
    return d.value ? Extent::of(*d.value) : Extent::symbolic(d.symbol);
  }
  Extent extent(const Expr &e) const {
    if (auto v = file.sema->constant_of(e))
      return Extent::of(*v);
    return Extent::symbolic(std::string(file.source->text_in(e.range)));
  }

  // Row-major strides over the shape, or the type's explicit strides.
  std::vector<Mode> of_type(const sema::TensorType &t) const {
    std::vector<Mode> modes(t.shape.size());
    Extent stride = Extent::of(1);
    for (size_t i = t.shape.size(); i-- > 0;) {
      modes[i].shape = extent(t.shape[i]);
      modes[i].stride = t.strides.size() == t.shape.size() ? extent(t.strides[i]) : stride;
      stride = times(stride, modes[i].shape);
    }
    return modes;
  }

  const sema::TensorType *tensor_type(const Expr &e) const {
    const sema::Type *t = file.sema->type_of(e);
    return t && t->is_tensor() ? t->tensor.get() : nullptr;
  }

  static std::vector<const Expr *> elements(const Expr &tuple) {
    std::vector<const Expr *> out;
    if (tuple.kind == ExprKind::Tuple)
      for (const auto &op : tuple.operands)
        out.push_back(op.get());
    else
      out.push_back(&tuple);
    return out;
  }

  static const Expr *argument(const Expr &call, size_t index, std::string_view keyword) {
    if (const ast::Keyword *k = call.keyword(keyword))
      return k->value.get();
    return index < call.arg_count() ? &call.arg(index) : nullptr;
  }

  // make_layout(shape, stride), Swizzle(B, M, S), compose(swizzle, layout).
  bool layout_argument(const Expr &e, const sema::TensorType &t, ViewLayout &out,
                       std::vector<Mode> &modes) const {
    if (e.kind != ExprKind::Call)
      return false;
    const BuiltinId callee = file.sema->builtin_of(e);
    if (callee == BuiltinId::MakeLayout && e.arg_count() == 2) {
      const auto shape = elements(e.arg(0));
      const auto stride = elements(e.arg(1));
      if (shape.size() != stride.size())
        return false;
      modes.clear();
      for (size_t i = 0; i < shape.size(); ++i)
        modes.push_back({extent(*shape[i]), extent(*stride[i])});
      return true;
    }
    if (callee == BuiltinId::Swizzle && e.arg_count() == 3) {
      std::string sw = "Sw<";
      for (size_t i = 0; i < 3; ++i) {
        const auto v = file.sema->constant_of(e.arg(i));
        if (!v)
          return false;
        sw += (i ? "," : "") + std::to_string(*v);
      }
      out.swizzle = sw + ">";
      out.element_bytes = sema::bit_width(t.dtype) / 8;
      return true;
    }
    if (callee == BuiltinId::Compose && e.arg_count() == 2)
      return layout_argument(e.arg(0), t, out, modes) && layout_argument(e.arg(1), t, out, modes);
    return false;
  }

  struct Result {
    ViewLayout view;
    std::vector<Mode> modes;
  };

  // The bases the view model reached (a tensor parameter, a make_shared or
  // make_local array, a view() or an intrinsic's result, named by index).
  std::vector<Result> bases;
  layout::ExprContext ctx;

  // A symbolic extent is a symbol named by its source text, parenthesized
  // when it has operators (8 * (K // 8), not 8 * K // 8); alone it prints bare.
  ExprRef term(const Extent &x) {
    if (x.value)
      return ctx.constant(*x.value);
    return ctx.symbol(needs_parens(x.text) ? "(" + x.text + ")" : x.text);
  }
  static Extent text_of(ExprRef t) {
    if (t.is_constant())
      return Extent::of(t.constant());
    std::string text = t.is_symbol() ? std::string(t.symbol_name()) : layout::to_string(t);
    if (t.is_symbol() && text.size() > 2 && text.front() == '(' && text.back() == ')')
      text = text.substr(1, text.size() - 2);
    return Extent::symbolic(text);
  }

  // A base as the model's symbolic view: its modes become terms.
  sema::SymbolicView symbolic(Result r, ScalarKind dtype) {
    sema::SymbolicView v;
    v.buffer = static_cast<int>(bases.size());
    v.dtype = dtype;
    v.offset = ctx.constant(0);
    for (const Mode &m : r.modes) {
      v.shape.push_back(term(m.shape));
      v.strides.push_back(term(m.stride));
    }
    bases.push_back(std::move(r));
    return v;
  }

  std::optional<Result> of(const Expr &e) {
    sema::ViewHooks hooks;
    hooks.base = [&](const Expr &b) -> std::optional<sema::SymbolicView> {
      const sema::TensorType *type = tensor_type(b);
      auto r = base_of(b);
      if (!r || !type)
        return std::nullopt;
      return symbolic(std::move(*r), type->dtype);
    };
    hooks.integer = [&](const Expr &x) { return term(extent(x)); };
    hooks.error = [](const Range &, const std::string &) {};
    auto v = sema::view_of(*file.sema, ctx, e, hooks);
    if (!v || v->buffer < 0)
      return std::nullopt;
    Result out{bases[static_cast<size_t>(v->buffer)].view, {}};
    // A swizzled array's layout holds for the array itself; a part of it is
    // not that layout's restriction (the swizzle acts on the whole offset).
    if (!out.view.swizzle.empty() && !is_base(e))
      return std::nullopt;
    if (!v->tile.empty()) {
      // A tiled view: (tile counts : tile-sized steps, tile : element steps).
      const sema::TensorType *type = tensor_type(e);
      if (!type || type->shape.size() != 2 * v->tile.size())
        return std::nullopt;
      for (size_t i = 0; i < v->tile.size(); ++i)
        out.modes.push_back({extent(type->shape[i]), text_of(v->tile[i] * v->strides[i])});
      for (size_t i = 0; i < v->tile.size(); ++i)
        out.modes.push_back({text_of(v->tile[i]), text_of(v->strides[i])});
      return out;
    }
    for (size_t i = 0; i < v->shape.size(); ++i)
      out.modes.push_back({text_of(v->shape[i]), text_of(v->strides[i])});
    return out;
  }

  bool is_base(const Expr &e) const {
    return e.kind == ExprKind::Name ||
           (e.kind == ExprKind::Call && file.sema->call_of(e).kind != sema::CallKind::Tile &&
            file.sema->builtin_of(e) != BuiltinId::View &&
            file.sema->builtin_of(e) != BuiltinId::Subview);
  }

  // What the model does not derive: a name (a parameter, or a local through
  // its defining value) and the calls that make tensors.
  std::optional<Result> base_of(const Expr &e) {
    if (++depth > 16)
      return std::nullopt;
    if (e.kind == ExprKind::Name) {
      auto ref = file.sema->references.find(&e);
      if (ref == file.sema->references.end())
        return std::nullopt;
      return of_symbol(*ref->second);
    }
    const sema::TensorType *type = tensor_type(e);
    if (e.kind != ExprKind::Call || !type)
      return std::nullopt;
    const BuiltinId id = file.sema->builtin_of(e);
    if (id == BuiltinId::MakeShared) {
      Result r{{}, of_type(*type)};
      if (const Expr *layout = argument(e, 2, "layout"))
        if (!layout_argument(*layout, *type, r.view, r.modes))
          return std::nullopt;
      return r;
    }
    if (id == BuiltinId::MakeLocal || id == BuiltinId::Full || is_intrinsic(id))
      return Result{{}, of_type(*type)};
    return std::nullopt;
  }

  std::optional<Result> of_symbol(const sema::Symbol &symbol) {
    if (!symbol.type.is_tensor())
      return std::nullopt;
    if (symbol.kind == sema::SymbolKind::Parameter)
      return Result{{}, of_type(*symbol.type.tensor)};
    if (symbol.kind != sema::SymbolKind::Local || !function)
      return std::nullopt;
    const Expr *value = defining_value(*function, symbol);
    return value ? of(*value) : std::nullopt;
  }
};

std::optional<ViewLayout> finish(std::optional<Walk::Result> r) {
  if (!r)
    return std::nullopt;
  std::string shape, stride;
  for (size_t i = 0; i < r->modes.size(); ++i) {
    shape += (i ? "," : "") + r->modes[i].shape.text;
    stride += (i ? "," : "") + r->modes[i].stride.text;
  }
  r->view.layout = r->modes.size() == 1 ? shape + ":" + stride : "(" + shape + "):(" + stride + ")";
  return r->view;
}

} // namespace

std::string ViewLayout::str() const { return swizzle.empty() ? layout : swizzle + " o " + layout; }

std::optional<ViewLayout> layout_of(const CheckedFile &file, const ast::Function *function,
                                    const ast::Expr &view) {
  if (!file.sema || !file.source)
    return std::nullopt;
  Walk walk(file, function);
  return finish(walk.of(view));
}

std::optional<ViewLayout> layout_of_symbol(const CheckedFile &file, const ast::Function *function,
                                           const sema::Symbol &symbol) {
  if (!file.sema || !file.source)
    return std::nullopt;
  Walk walk(file, function);
  return finish(walk.of_symbol(symbol));
}

} // namespace argus::query
