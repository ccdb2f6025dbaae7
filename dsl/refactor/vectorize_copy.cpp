// vectorize-copy: a loop `for v in range(N): D[..., b + v] = S[..., b + v]`
// that moves N scalars of contiguous addresses per thread (the W0904 lint)
// becomes one access through views whose last dimension is N elements:
//     d_v = view(D, Tensor((..., L // N, N), dt))      # before the loop's statement
//     d_v[..., b // N] = s_v[..., b // N]
// N elements must make 4, 8 or 16 bytes, and b must be a visible multiple of N
// (a product with N, a constant, or sums of those) so the chunk index is exact.
#include "common.h"

namespace argus::refactor::detail {

namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

bool mentions(const Expr &e, const std::string &name) {
  bool found = false;
  for_each_expr(
      e, [&](const Expr &x) { found = found || (x.kind == ExprKind::Name && x.name == name); });
  return found;
}

// The text of `e / n` when `e` is visibly a multiple of n.
std::optional<std::string> divided(const CheckedFile &file, const Expr &e, int64_t n) {
  const sema::SemaResult &sema = *file.sema;
  if (const auto value = sema.constant_of(e))
    return *value % n == 0 ? std::optional(std::to_string(*value / n)) : std::nullopt;
  if (e.kind != ExprKind::Binary)
    return std::nullopt;
  const Expr &a = *e.operands[0], &b = *e.operands[1];
  if (e.binary_op == ast::BinaryOp::Mul) {
    if (sema.constant_of(a) == n)
      return operand_text(file, b);
    if (sema.constant_of(b) == n)
      return operand_text(file, a);
    return std::nullopt;
  }
  if (e.binary_op == ast::BinaryOp::Add || e.binary_op == ast::BinaryOp::Sub) {
    const auto x = divided(file, a, n), y = divided(file, b, n);
    if (!x || !y)
      return std::nullopt;
    const bool sum = b.kind == ExprKind::Binary &&
                     (b.binary_op == ast::BinaryOp::Add || b.binary_op == ast::BinaryOp::Sub);
    return *x + (e.binary_op == ast::BinaryOp::Add ? " + " : " - ") + (sum ? "(" + *y + ")" : *y);
  }
  return std::nullopt;
}

// Where a tensor was made: a parameter's `Tensor(shape, dtype)` or a
// top-level `x = make_shared/make_local(shape, dtype)` of the kernel.
struct Definition {
  const Expr *shape = nullptr; // a Tuple
  const Expr *dtype = nullptr;
  size_t top_index = 0; // locals: the index of the defining statement in the body
  bool parameter = false;
};

std::optional<Definition> definition_of(const ast::Function &fn, const std::string &name) {
  for (const ast::Param &p : fn.params) {
    if (p.name != name || !p.annotation || p.annotation->kind != ExprKind::Call ||
        p.annotation->callee().dotted_name() != "Tensor" || p.annotation->arg_count() != 2 ||
        p.annotation->arg(0).kind != ExprKind::Tuple)
      continue;
    return Definition{&p.annotation->arg(0), &p.annotation->arg(1), 0, true};
  }
  for (size_t i = 0; i < fn.body.size(); ++i) {
    const Stmt &s = *fn.body[i];
    if (s.kind != StmtKind::Assign || s.targets.size() != 1 ||
        s.targets[0]->kind != ExprKind::Name || s.targets[0]->name != name || !s.value ||
        s.value->kind != ExprKind::Call)
      continue;
    const Expr &call = *s.value;
    const std::string callee = call.callee().dotted_name();
    if ((callee != "make_shared" && callee != "make_local") || call.arg_count() != 2 ||
        call.arg(0).kind != ExprKind::Tuple || !call.keywords.empty())
      return std::nullopt;
    return Definition{&call.arg(0), &call.arg(1), i, false};
  }
  return std::nullopt;
}

// One scalar access `T[i0, ..., b + v]` of the loop.
struct Access {
  const Expr *subscript = nullptr;
  std::string tensor;
  std::string chunk; // b / N
};

std::optional<Access> access_of(const CheckedFile &file, const Expr &e, const std::string &v,
                                int64_t n) {
  if (e.kind != ExprKind::Subscript || e.operands.size() < 2 ||
      e.operands[0]->kind != ExprKind::Name)
    return std::nullopt;
  const sema::Type *type = file.sema->type_of(*e.operands[0]);
  if (!type || !type->tensor || !type->tensor->strides.empty() || type->tensor->swizzled ||
      type->tensor->shape.size() != e.operands.size() - 1)
    return std::nullopt;
  for (size_t i = 1; i + 1 < e.operands.size(); ++i)
    if (mentions(*e.operands[i], v))
      return std::nullopt;
  const Expr &last = *e.operands.back();
  const Expr *base = nullptr;
  if (last.kind == ExprKind::Name && last.name == v) {
    base = nullptr;
  } else if (last.kind == ExprKind::Binary && last.binary_op == ast::BinaryOp::Add) {
    const Expr &a = *last.operands[0], &b = *last.operands[1];
    if (a.kind == ExprKind::Name && a.name == v && !mentions(b, v))
      base = &b;
    else if (b.kind == ExprKind::Name && b.name == v && !mentions(a, v))
      base = &a;
    else
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  Access a;
  a.subscript = &e;
  a.tensor = e.operands[0]->name;
  if (!base) {
    a.chunk = "0";
  } else if (auto chunk = divided(file, *base, n)) {
    a.chunk = *chunk;
  } else {
    return std::nullopt;
  }
  return a;
}

int64_t element_bytes(const CheckedFile &file, const Expr &subscript) {
  const sema::Type *t = file.sema->type_of(*subscript.operands[0]);
  return (sema::bit_width(t->tensor->dtype) + 7) / 8;
}

// The index of the statement of the kernel body that holds `stmt`.
std::optional<size_t> top_index_of(const ast::Function &fn, const Stmt &stmt) {
  for (size_t i = 0; i < fn.body.size(); ++i)
    if (contains(fn.body[i]->range, stmt.range))
      return i;
  return std::nullopt;
}

std::optional<Refactor> vectorize(const KernelContext &k, const Stmt &loop) {
  const CheckedFile &file = k.file;
  const auto rl = range_loop(loop);
  if (!rl || (rl->start && file.sema->constant_of(*rl->start) != 0) || loop.body.empty())
    return std::nullopt;
  const auto n = file.sema->constant_of(*rl->stop);
  if (!n || *n < 2)
    return std::nullopt;
  const std::string v = loop.target->name;
  const std::string n_text = operand_text(file, *rl->stop);
  std::vector<std::pair<Access, Access>> copies; // (destination, source)
  for (const auto &s : loop.body) {
    if (s->kind != StmtKind::Assign || s->targets.size() != 1 || !s->value)
      return std::nullopt;
    auto dst = access_of(file, *s->targets[0], v, *n);
    auto src = access_of(file, *s->value, v, *n);
    if (!dst || !src)
      return std::nullopt;
    const int64_t bytes = element_bytes(file, *dst->subscript);
    const int64_t width = bytes * *n;
    if (bytes != element_bytes(file, *src->subscript) || (width != 4 && width != 8 && width != 16))
      return std::nullopt;
    copies.emplace_back(*dst, *src);
  }
  const auto top = top_index_of(k.fn, loop);
  const auto loop_indent = indent_of(file, loop);
  if (!top || !loop_indent)
    return std::nullopt;
  const Stmt &anchor = *k.fn.body[*top];
  const auto anchor_indent = indent_of(file, anchor);
  if (!anchor_indent)
    return std::nullopt;
  // One view per tensor, declared before the kernel statement holding the loop.
  std::map<std::string, std::string> view_names;
  std::string views;
  std::vector<std::string> order;
  auto view_of = [&](const std::string &tensor) -> std::optional<std::string> {
    if (auto it = view_names.find(tensor); it != view_names.end())
      return it->second;
    const auto def = definition_of(k.fn, tensor);
    if (!def || (!def->parameter && def->top_index >= *top) || def->shape->operands.empty())
      return std::nullopt;
    const Expr &last = *def->shape->operands.back();
    if (const auto value = file.sema->constant_of(last); value && *value % *n != 0)
      return std::nullopt;
    std::string shape;
    for (size_t i = 0; i + 1 < def->shape->operands.size(); ++i)
      shape += text_of(file, def->shape->operands[i]->range) + ", ";
    const std::string last_text = text_of(file, last.range);
    shape += (last_text == n_text ? std::string("1") : operand_text(file, last) + " // " + n_text) +
             ", " + n_text;
    std::string name = fresh_name(file, tensor + "_v");
    for (const auto &[t, other] : view_names) // two views of one file: keep names apart
      if (other == name)
        name += "_" + tensor;
    views += name + " = view(" + tensor + ", Tensor((" + shape + "), " +
             text_of(file, def->dtype->range) + "))\n" + *anchor_indent;
    view_names[tensor] = name;
    order.push_back(tensor);
    return name;
  };
  std::string body;
  for (const auto &[dst, src] : copies) {
    auto access = [&](const Access &a) -> std::optional<std::string> {
      const auto view = view_of(a.tensor);
      if (!view)
        return std::nullopt;
      std::string text = *view + "[";
      for (size_t i = 1; i + 1 < a.subscript->operands.size(); ++i)
        text += text_of(file, a.subscript->operands[i]->range) + ", ";
      return text + a.chunk + "]";
    };
    const auto d = access(dst), s = access(src);
    if (!d || !s)
      return std::nullopt;
    body += (body.empty() ? "" : "\n" + *loop_indent) + *d + " = " + *s;
  }
  Refactor r;
  r.id = "vectorize-copy";
  r.kernel = k.fn.name;
  std::string tensors;
  for (const std::string &t : order)
    tensors += (tensors.empty() ? "" : ", ") + t;
  r.title = "Vectorize the copy loop over " + v + " (" +
            std::to_string(element_bytes(file, *copies.front().first.subscript) * *n) +
            "-byte views of " + tensors + ")";
  if (&anchor == &loop) { // one edit: the views, then the new body
    r.edits.push_back({loop.range, views + body});
  } else {
    r.edits.push_back({Range{anchor.range.begin, anchor.range.begin}, views});
    r.edits.push_back({loop.range, body});
  }
  if (!verified(k, r.edits, "unvectorized"))
    return std::nullopt;
  return r;
}

} // namespace

std::vector<Refactor> vectorize_copy(const KernelContext &k) {
  std::vector<Refactor> out;
  for_each_stmt(k.fn.body, [&](const Stmt &s) {
    if (s.kind == StmtKind::For && overlaps(s.range, k.range))
      if (auto r = vectorize(k, s))
        out.push_back(std::move(*r));
  });
  return out;
}

} // namespace argus::refactor::detail
