// Inlay hints: unwritten types of locals (with view layouts) and loop trip
// counts, from sema's tables and the defining expressions.
#include "argus/dsl/inlay_hints.h"

#include "query_support.h"

#include <algorithm>

namespace argus {

namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;

bool in_range(const Range &r, Position p) { return !(p < r.begin) && !(r.end < p); }

// How often a name is assigned in a function (assignments and augmented
// assignments); a local assigned once stands for its value.
int assignments_of(const std::vector<ast::StmtPtr> &body, const std::string &name) {
  int n = 0;
  for (const auto &s : body) {
    for (const auto &t : s->targets) {
      if (t->kind == ExprKind::Name && t->name == name)
        ++n;
      if (t->kind == ExprKind::Tuple)
        for (const auto &op : t->operands)
          n += op->kind == ExprKind::Name && op->name == name;
    }
    if ((s->kind == ast::StmtKind::AugAssign || s->kind == ast::StmtKind::AnnAssign ||
         s->kind == ast::StmtKind::For) &&
        s->target && s->target->kind == ExprKind::Name && s->target->name == name)
      ++n;
    n += assignments_of(s->body, name) + assignments_of(s->orelse, name);
  }
  return n;
}

struct Renderer {
  const CheckedFile &file;
  const ast::Function &function;
  int depth = 0;

  static int precedence(BinaryOp op) {
    switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 1;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod:
      return 2;
    default:
      return 0;
    }
  }

  // The expression as sizes: constants folded, locals assigned once replaced
  // by their values, `//` written `/`. Returns {text, precedence}.
  std::pair<std::string, int> render(const Expr &e) {
    if (auto v = file.sema->constant_of(e))
      return {std::to_string(*v), 3};
    if (e.kind == ExprKind::Name) {
      auto ref = file.sema->references.find(&e);
      const sema::Symbol *s = ref == file.sema->references.end() ? nullptr : ref->second;
      if (s && s->kind == sema::SymbolKind::Local && depth < 4 &&
          assignments_of(function.body, s->name) == 1)
        if (const Expr *value = query::defining_value(function, *s)) {
          ++depth;
          auto r = render(*value);
          --depth;
          return r;
        }
      return {e.name, 3};
    }
    if (e.kind == ExprKind::Binary && precedence(e.binary_op) > 0) {
      const int p = precedence(e.binary_op);
      auto [l, lp] = render(*e.operands[0]);
      auto [r, rp] = render(*e.operands[1]);
      if (lp < p)
        l = "(" + l + ")";
      if (rp <= p && !(rp == p && (e.binary_op == BinaryOp::Add || e.binary_op == BinaryOp::Mul)))
        r = "(" + r + ")";
      const char *op = e.binary_op == BinaryOp::Add   ? " + "
                       : e.binary_op == BinaryOp::Sub ? " - "
                       : e.binary_op == BinaryOp::Mul ? "*"
                       : e.binary_op == BinaryOp::Mod ? " % "
                                                      : "/";
      return {l + op + r, p};
    }
    return {std::string(file.source->text_in(e.range)), e.kind == ExprKind::Call ? 3 : 0};
  }
};

std::string tensor_text(const sema::TensorType &t) {
  return std::string(sema::to_string(t.space)) + " " + sema::shape_to_string(t.shape) + " " +
         sema::to_string(t.dtype);
}

void type_hints(const CheckedFile &file, const ast::Function &f,
                const std::vector<ast::StmtPtr> &body, Range range, std::vector<InlayHint> &out) {
  for (const auto &s : body) {
    if (s->kind == ast::StmtKind::Assign) {
      std::vector<const Expr *> names;
      for (const auto &t : s->targets) {
        if (t->kind == ExprKind::Name)
          names.push_back(t.get());
        else if (t->kind == ExprKind::Tuple)
          for (const auto &op : t->operands)
            if (op->kind == ExprKind::Name)
              names.push_back(op.get());
      }
      for (const Expr *name : names) {
        auto ref = file.sema->references.find(name);
        if (ref == file.sema->references.end())
          continue;
        const sema::Symbol &symbol = *ref->second;
        if (symbol.kind != sema::SymbolKind::Local || symbol.definition != name->range ||
            symbol.type.is_unknown() || !in_range(range, name->range.end))
          continue;
        InlayHint hint;
        hint.position = name->range.end;
        if (symbol.type.is_tensor()) {
          hint.label = ": " + tensor_text(*symbol.type.tensor);
          if (auto layout = query::layout_of_symbol(file, &f, symbol))
            hint.label += " · " + layout->str();
        } else {
          hint.label = ": " + symbol.type.str();
          if (auto v = file.sema->constant_of(*name);
              v && symbol.type.kind == sema::TypeKind::IntLiteral)
            hint.label += " = " + std::to_string(*v);
        }
        out.push_back(std::move(hint));
      }
    }
    if (s->kind == ast::StmtKind::For && s->value && in_range(range, s->value->range.end)) {
      const std::string count = trip_count(file, f, *s->value);
      if (!count.empty())
        out.push_back({InlayHint::Kind::TripCount, s->value->range.end, "× " + count});
    }
    type_hints(file, f, s->body, range, out);
    type_hints(file, f, s->orelse, range, out);
  }
}

} // namespace

std::string trip_count(const CheckedFile &file, const ast::Function &function,
                       const ast::Expr &call) {
  if (!file.sema || call.kind != ExprKind::Call || call.callee().dotted_name() != "range" ||
      call.arg_count() < 1 || call.arg_count() > 3)
    return "";
  const Expr *start = call.arg_count() >= 2 ? &call.arg(0) : nullptr;
  const Expr &stop = call.arg_count() >= 2 ? call.arg(1) : call.arg(0);
  const Expr *step_expr = call.arg_count() == 3 ? &call.arg(2) : nullptr;
  const auto step = step_expr ? file.sema->constant_of(*step_expr) : std::optional<int64_t>(1);
  if (!step || *step == 0)
    return "";
  const auto first = start ? file.sema->constant_of(*start) : std::optional<int64_t>(0);
  const auto last = file.sema->constant_of(stop);
  if (first && last) {
    const int64_t span = *step > 0 ? *last - *first : *first - *last;
    const int64_t by = *step > 0 ? *step : -*step;
    return std::to_string(span <= 0 ? 0 : (span + by - 1) / by);
  }
  if (*step < 0)
    return "";
  Renderer r{file, function};
  auto [text, precedence] = r.render(stop);
  if (!first || *first != 0) {
    auto [from, from_precedence] = r.render(*start);
    if (from_precedence <= 1)
      from = "(" + from + ")";
    text += " - " + from;
    precedence = 1;
  }
  if (*step == 1)
    return text;
  // A partial last step still runs: the count is the ceiling.
  if (precedence < 2)
    text = "(" + text + ")";
  return "⌈" + text + "/" + std::to_string(*step) + "⌉";
}

std::vector<InlayHint> inlay_hints(const CheckedFile &file, Range range) {
  std::vector<InlayHint> out;
  if (!file.sema || !file.source)
    return out;
  for (const auto &f : file.module.functions)
    if (!(f.range.end < range.begin) && !(range.end < f.range.begin))
      type_hints(file, f, f.body, range, out);
  // Emitted in source order already; the sort (by position, then kind) only guards that.
  std::sort(out.begin(), out.end(), [](const InlayHint &a, const InlayHint &b) {
    return a.position != b.position ? a.position < b.position : a.kind < b.kind;
  });
  return out;
}

} // namespace argus
