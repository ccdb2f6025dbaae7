// Views as layout terms: one derivation for the code generator and the
// editor queries (view_model.h).
#include "argus/dsl/view_model.h"

#include "argus/dsl/builtin_id.h"

#include <algorithm>

namespace argus::sema {

namespace {

using ast::Expr;
using ast::ExprKind;
using layout::ExprRef;

int64_t bytes_of(ScalarKind k) { return std::max(1, bit_width(k) / 8); }

const Expr *argument(const Expr &call, size_t index, std::string_view keyword) {
  if (const ast::Keyword *k = call.keyword(keyword))
    return k->value.get();
  return index < call.arg_count() ? &call.arg(index) : nullptr;
}

std::vector<ExprRef> terms(const Expr &e, const ViewHooks &hooks) {
  std::vector<ExprRef> out;
  if (e.kind == ExprKind::Tuple) {
    for (const auto &element : e.operands)
      out.push_back(hooks.integer(*element));
  } else {
    out.push_back(hooks.integer(e));
  }
  return out;
}

} // namespace

std::vector<ExprRef> row_major(layout::ExprContext &ctx, const std::vector<ExprRef> &shape) {
  std::vector<ExprRef> strides(shape.size());
  ExprRef acc = ctx.constant(1);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = acc;
    acc = acc * shape[i];
  }
  return strides;
}

bool contiguous(layout::ExprContext &ctx, const SymbolicView &v) {
  ExprRef expected = ctx.constant(1);
  for (size_t i = v.shape.size(); i-- > 0;) {
    if (v.shape[i].is_constant() && v.shape[i].constant() == 1)
      continue;
    if (!(v.strides[i] == expected))
      return false;
    expected = expected * v.shape[i];
  }
  return true;
}

SymbolicView index_view(const SymbolicView &v, const std::vector<ExprRef> &indices) {
  SymbolicView out = v;
  const int64_t e = bytes_of(v.dtype);
  ExprRef offset = v.offset;
  for (size_t i = 0; i < indices.size() && i < v.strides.size(); ++i)
    offset = offset + indices[i] * v.strides[i] * e;
  out.offset = offset;
  const size_t k = std::min(indices.size(), v.shape.size());
  out.shape.erase(out.shape.begin(), out.shape.begin() + static_cast<long>(k));
  out.strides.erase(out.strides.begin(), out.strides.begin() + static_cast<long>(k));
  return out;
}

std::optional<SymbolicView> view_of(const SemaResult &sema, layout::ExprContext &ctx, const Expr &e,
                                    const ViewHooks &hooks) {
  switch (e.kind) {
  case ExprKind::Name:
    return hooks.base(e);
  case ExprKind::Subscript: {
    auto base = view_of(sema, ctx, *e.operands[0], hooks);
    if (!base)
      return base;
    std::vector<ExprRef> indices;
    for (size_t i = 1; i < e.operands.size(); ++i)
      indices.push_back(hooks.integer(*e.operands[i]));
    if (!base->tile.empty()) {
      // Tile coordinates: the tile's first element, the tile's shape.
      if (indices.size() != base->tile.size()) {
        hooks.error(e.range, "index a tiled view with one tile coordinate per dimension");
        return std::nullopt;
      }
      SymbolicView out = *base;
      const int64_t bytes = bytes_of(base->dtype);
      for (size_t i = 0; i < indices.size(); ++i)
        out.offset = out.offset + indices[i] * base->tile[i] * base->strides[i] * bytes;
      out.shape = base->tile;
      out.tile.clear();
      return out;
    }
    if (indices.size() > base->shape.size()) {
      hooks.error(e.range, "too many indices");
      return std::nullopt;
    }
    return index_view(*base, indices);
  }
  case ExprKind::Call: {
    const BuiltinId id = sema.builtin_of(e);
    if (sema.call_of(e).kind == CallKind::Tile) {
      auto base = view_of(sema, ctx, *e.callee().operands[0], hooks);
      if (!base || e.arg_count() != 1)
        return std::nullopt;
      auto tile = terms(e.arg(0), hooks);
      if (tile.size() != base->shape.size()) {
        hooks.error(e.range, "a tile shape needs one size per dimension");
        return std::nullopt;
      }
      base->tile = std::move(tile);
      return base;
    }
    if (id == BuiltinId::View) {
      const Expr *src = argument(e, 0, "t");
      const Expr *spec = argument(e, 1, "as");
      if (!src || !spec)
        return std::nullopt;
      auto base = view_of(sema, ctx, *src, hooks);
      if (!base)
        return base;
      const Type *st = sema.type_of(*spec);
      if (!st || !st->tensor || spec->kind != ExprKind::Call || spec->arg_count() < 2) {
        hooks.error(e.range, "view(t, Tensor(shape, dtype)) needs a Tensor(...) type");
        return std::nullopt;
      }
      if (!contiguous(ctx, *base)) {
        hooks.error(e.range, "view() of a tensor that is not contiguous (row-major)");
        return std::nullopt;
      }
      SymbolicView out = *base;
      out.dtype = st->tensor->dtype;
      out.shape = terms(spec->arg(0), hooks);
      out.strides = row_major(ctx, out.shape);
      if (spec->arg_count() >= 3)
        out.strides = terms(spec->arg(1), hooks);
      return out;
    }
    if (id == BuiltinId::Subview) {
      const Expr *src = argument(e, 0, "t");
      const Expr *offsets = argument(e, 1, "offsets");
      const Expr *sizes = argument(e, 2, "sizes");
      const Expr *steps = argument(e, 3, "strides");
      if (!src || !offsets || !sizes)
        return std::nullopt;
      auto base = view_of(sema, ctx, *src, hooks);
      if (!base)
        return base;
      const auto off = terms(*offsets, hooks);
      SymbolicView out = index_view(*base, {});
      const int64_t bytes = bytes_of(base->dtype);
      for (size_t i = 0; i < off.size() && i < base->strides.size(); ++i)
        out.offset = out.offset + off[i] * base->strides[i] * bytes;
      out.shape = terms(*sizes, hooks);
      if (steps) {
        const auto step = terms(*steps, hooks);
        for (size_t i = 0; i < step.size() && i < out.strides.size(); ++i)
          out.strides[i] = out.strides[i] * step[i];
      }
      return out;
    }
    return hooks.base(e);
  }
  case ExprKind::Conditional:
    // The checker follows a per-thread choice of tensors; a layout term has
    // no "one of two buffers".
    hooks.error(e.range, "a tensor chosen by a conditional expression has no single layout: "
                         "index each tensor in its own branch (if c: ... a[i] ... else: ... "
                         "b[i] ...)");
    return std::nullopt;
  default:
    hooks.error(e.range, std::string("a ") + ast::to_string(e.kind) + " is not a tensor view here");
    return std::nullopt;
  }
}

} // namespace argus::sema
