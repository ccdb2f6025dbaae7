// The CuTe layout (shape:stride, in elements) of a tensor view, followed from
// where the view is made: sema's types keep shapes and explicit strides but
// not the layout= of make_shared, nor the parent strides of a subscript,
// subview or tile, so this walks the defining expressions.
#include "query_support.h"

#include <algorithm>

namespace argus::query {

namespace {

using ast::Expr;
using ast::ExprKind;

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

  std::optional<Result> of(const Expr &e) {
    if (++depth > 16)
      return std::nullopt;
    const sema::TensorType *type = tensor_type(e);
    switch (e.kind) {
    case ExprKind::Name: {
      auto ref = file.sema->references.find(&e);
      if (ref == file.sema->references.end())
        return std::nullopt;
      return of_symbol(*ref->second);
    }
    case ExprKind::Subscript: {
      auto base = of(*e.operands[0]);
      const size_t indices = e.operands.size() - 1;
      if (!base || !type || !base->view.swizzle.empty() || indices > base->modes.size())
        return std::nullopt;
      base->modes.erase(base->modes.begin(), base->modes.begin() + indices);
      return base;
    }
    case ExprKind::Call:
      break;
    default:
      return std::nullopt;
    }
    if (!type)
      return std::nullopt;
    const Expr &callee = e.callee();
    const BuiltinId id = file.sema->builtin_of(e);
    if (id == BuiltinId::MakeShared) {
      Result r{{}, of_type(*type)};
      if (const Expr *layout = argument(e, 2, "layout"))
        if (!layout_argument(*layout, *type, r.view, r.modes))
          return std::nullopt;
      return r;
    }
    if (id == BuiltinId::View && type->swizzled)
      return std::nullopt; // the bytes are swizzled; the row-major view would misstate them
    if (id == BuiltinId::MakeLocal || id == BuiltinId::Full || id == BuiltinId::View ||
        is_intrinsic(id))
      return Result{{}, of_type(*type)};
    if (id == BuiltinId::Subview) {
      const Expr *source = argument(e, 0, "t");
      auto base = source ? of(*source) : std::nullopt;
      if (!base || !base->view.swizzle.empty() || base->modes.size() != type->shape.size())
        return std::nullopt;
      const Expr *steps = argument(e, 3, "strides");
      const auto step = steps ? elements(*steps) : std::vector<const Expr *>{};
      for (size_t i = 0; i < base->modes.size(); ++i) {
        base->modes[i].shape = extent(type->shape[i]);
        if (step.size() == base->modes.size())
          base->modes[i].stride = times(base->modes[i].stride, extent(*step[i]));
      }
      return base;
    }
    if (file.sema->call_of(e).kind == sema::CallKind::Tile && e.arg_count() == 1) {
      auto base = of(*callee.operands[0]);
      const auto tile = elements(e.arg(0));
      if (!base || !base->view.swizzle.empty() || tile.size() != base->modes.size() ||
          type->shape.size() != 2 * tile.size())
        return std::nullopt;
      std::vector<Mode> modes;
      for (size_t i = 0; i < tile.size(); ++i)
        modes.push_back({extent(type->shape[i]), times(extent(*tile[i]), base->modes[i].stride)});
      for (size_t i = 0; i < tile.size(); ++i)
        modes.push_back({extent(*tile[i]), base->modes[i].stride});
      base->modes = std::move(modes);
      return base;
    }
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
  Walk walk{file, function};
  return finish(walk.of(view));
}

std::optional<ViewLayout> layout_of_symbol(const CheckedFile &file, const ast::Function *function,
                                           const sema::Symbol &symbol) {
  if (!file.sema || !file.source)
    return std::nullopt;
  Walk walk{file, function};
  return finish(walk.of_symbol(symbol));
}

} // namespace argus::query
