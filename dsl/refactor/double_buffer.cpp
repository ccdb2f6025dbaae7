// double-buffer: a K loop of the form
//     for kt in range(start, stop):
//         L            # copies tile kt into shared tiles (no barrier)
//         syncthreads()
//         C            # computes from the tiles
//         syncthreads()
// becomes two stages of every shared tile L writes (and of its views), with
// the copy of tile kt + 1 issued before the computation of tile kt:
//     if start < stop:
//         L[kt := start, stage 0]
//     syncthreads()
//     for kt in range(start, stop):
//         stage = kt % 2
//         if kt + 1 < stop:
//             L[kt := kt + 1, stage (kt + 1) % 2]
//         C[stage]
//         syncthreads()
// One barrier per iteration is enough: it orders the reads of stage kt % 2 in
// iteration kt before the prefetch into it in iteration kt + 1, and the
// prefetch into stage (kt + 1) % 2 before its reads in iteration kt + 1.
// C must not read what L assigns (L runs one tile ahead); the tiles must be
// used only through subscripts inside the loop. The checker verifies the rest.
#include "common.h"

#include <set>

namespace argus::refactor::detail {

namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

// Shared tiles declared at the kernel's top level with a plain make_shared,
// and views of them; each with the shape tuple that gets the stage dimension.
struct Tile {
  std::string root;            // the make_shared tile this name is (a view of)
  const Expr *shape = nullptr; // the Tuple
  const Stmt *declaration = nullptr;
  const Expr *view_source = nullptr; // views: the Name passed to view()
};

std::map<std::string, Tile> tiles_of(const ast::Function &fn) {
  std::map<std::string, Tile> tiles;
  for (const auto &s : fn.body) {
    if (s->kind != StmtKind::Assign || s->targets.size() != 1 ||
        s->targets[0]->kind != ExprKind::Name || !s->value || s->value->kind != ExprKind::Call)
      continue;
    const std::string &name = s->targets[0]->name;
    const Expr &call = *s->value;
    const std::string callee = call.callee().dotted_name();
    if (callee == "make_shared" && call.arg_count() == 2 && call.keywords.empty() &&
        call.arg(0).kind == ExprKind::Tuple && !call.arg(0).operands.empty()) {
      tiles[name] = Tile{name, &call.arg(0), s.get(), nullptr};
    } else if (callee == "view" && call.arg_count() == 2 && call.arg(0).kind == ExprKind::Name &&
               tiles.count(call.arg(0).name) && call.arg(1).kind == ExprKind::Call &&
               call.arg(1).callee().dotted_name() == "Tensor" && call.arg(1).arg_count() == 2 &&
               call.arg(1).arg(0).kind == ExprKind::Tuple && !call.arg(1).arg(0).operands.empty()) {
      tiles[name] = Tile{tiles[call.arg(0).name].root, &call.arg(1).arg(0), s.get(), &call.arg(0)};
    }
  }
  return tiles;
}

void names_assigned(const Stmt &s, std::set<std::string> &out) {
  auto add = [&](const Expr *e) {
    if (e && e->kind == ExprKind::Name)
      out.insert(e->name);
  };
  for (const auto &t : s.targets)
    add(t.get());
  add(s.target.get());
}

Range span(const std::vector<ast::StmtPtr> &body, size_t from, size_t to) { // [from, to]
  return Range{body[from]->range.begin, body[to]->range.end};
}

std::string condition_operand(const CheckedFile &file, const Expr &e) {
  switch (e.kind) {
  case ExprKind::Compare:
  case ExprKind::BoolOp:
  case ExprKind::Conditional:
  case ExprKind::Lambda:
  case ExprKind::Unary:
    return "(" + text_of(file, e.range) + ")";
  default:
    return text_of(file, e.range);
  }
}

std::optional<Refactor> double_buffer_loop(const KernelContext &k, const Stmt &loop) {
  const CheckedFile &file = k.file;
  const auto rl = range_loop(loop);
  const auto &body = loop.body;
  if (!rl || body.size() < 4 || !is_barrier(*body.back()))
    return std::nullopt;
  size_t barrier = 0;
  while (barrier < body.size() && !is_barrier(*body[barrier]))
    ++barrier;
  if (barrier == 0 || barrier + 2 > body.size() - 1)
    return std::nullopt;
  const std::string kt = loop.target->name;
  const Range copy_range = span(body, 0, barrier - 1);
  const Range compute_range = span(body, barrier + 1, body.size() - 1);
  // Visits every statement of L, nested ones included.
  auto for_copy_stmts = [&](const std::function<void(const Stmt &)> &visit) {
    for (size_t i = 0; i < barrier; ++i) {
      visit(*body[i]);
      for_each_stmt(body[i]->body, visit);
      for_each_stmt(body[i]->orelse, visit);
    }
  };
  bool copy_has_barrier = false;
  std::set<std::string> copy_assigns, compute_assigns, compute_uses;
  for (size_t i = 0; i < body.size(); ++i) {
    const bool copy = i < barrier;
    if (i == barrier || i + 1 == body.size())
      continue;
    auto visit = [&](const Stmt &s) {
      if (copy) {
        copy_has_barrier = copy_has_barrier || is_barrier(s);
        names_assigned(s, copy_assigns);
      } else {
        names_assigned(s, compute_assigns);
        for_each_expr(s, [&](const Expr &e) {
          if (e.kind == ExprKind::Name)
            compute_uses.insert(e.name);
        });
      }
    };
    visit(*body[i]);
    for_each_stmt(body[i]->body, visit);
    for_each_stmt(body[i]->orelse, visit);
  }
  if (copy_has_barrier || copy_assigns.count(kt))
    return std::nullopt;
  for (const std::string &name : compute_uses)
    if (copy_assigns.count(name) && !compute_assigns.count(name))
      return std::nullopt; // C would see the values of tile kt + 1

  // The tiles L writes, and every name of them (views included).
  const std::map<std::string, Tile> tiles = tiles_of(k.fn);
  std::set<std::string> written;
  auto note_write = [&](const Expr &target) {
    if (target.kind == ExprKind::Subscript && target.operands[0]->kind == ExprKind::Name)
      if (auto it = tiles.find(target.operands[0]->name); it != tiles.end())
        written.insert(it->second.root);
  };
  for_copy_stmts([&](const Stmt &s) {
    for (const auto &t : s.targets)
      note_write(*t);
    if (s.kind == StmtKind::Expr && s.value && s.value->kind == ExprKind::Call &&
        s.value->arg_count() > 0 &&
        s.value->callee().dotted_name().find("cp_async") != std::string::npos)
      note_write(s.value->arg(0));
  });
  if (written.empty())
    return std::nullopt;
  std::map<std::string, const Tile *> staged;
  for (const auto &[name, tile] : tiles)
    if (written.count(tile.root)) {
      if (!(tile.declaration->range.end < loop.range.begin))
        return std::nullopt;
      staged[name] = &tile;
    }

  // Every use of a staged name is a subscript inside L or C (or its declaration).
  std::set<const Expr *> accounted;
  std::vector<const Expr *> copy_subscripts, compute_subscripts;
  for (const auto &[name, tile] : staged) {
    accounted.insert(tile->declaration->targets[0].get());
    if (tile->view_source)
      accounted.insert(tile->view_source);
  }
  bool stray = false;
  for_each_expr(k.fn.body, [&](const Expr &e) {
    if (e.kind == ExprKind::Subscript && e.operands.size() >= 2 &&
        e.operands[0]->kind == ExprKind::Name && staged.count(e.operands[0]->name)) {
      accounted.insert(e.operands[0].get());
      if (contains(copy_range, e.range))
        copy_subscripts.push_back(&e);
      else if (contains(compute_range, e.range))
        compute_subscripts.push_back(&e);
      else
        stray = true;
    } else if (e.kind == ExprKind::Name && staged.count(e.name) && !accounted.count(&e)) {
      stray = true;
    }
  });
  if (stray)
    return std::nullopt;

  const auto outer = indent_of(file, loop);
  const auto inner = indent_of(file, *body.front());
  if (!outer || !inner || inner->size() <= outer->size())
    return std::nullopt;
  const int step = static_cast<int>(inner->size() - outer->size());
  const std::string pad(static_cast<size_t>(step), ' ');

  auto staged_text = [&](const Range &range, const std::vector<const Expr *> &subscripts,
                         const std::string &stage, const std::string *kt_text) {
    std::vector<check::TextEdit> edits;
    for (const Expr *s : subscripts)
      edits.push_back(
          {Range{s->operands[0]->range.end, s->operands[1]->range.begin}, "[" + stage + ", "});
    if (kt_text)
      for_copy_stmts([&](const Stmt &st) {
        for_each_expr(st, [&](const Expr &e) {
          if (e.kind == ExprKind::Name && e.name == kt)
            edits.push_back({e.range, *kt_text});
        });
      });
    return rewrite(file, range, edits);
  };

  const std::string stage = fresh_name(file, "stage");
  const std::string start = rl->start ? operand_text(file, *rl->start) : "0";
  const std::string stop = condition_operand(file, *rl->stop);
  const std::string next = "(" + kt + " + 1)";
  const auto start_value =
      rl->start ? file.sema->constant_of(*rl->start) : std::optional<int64_t>(0);
  const auto stop_value = file.sema->constant_of(*rl->stop);
  const bool guard = !(start_value && stop_value && *start_value < *stop_value);

  std::string text;
  const std::string first = staged_text(copy_range, copy_subscripts, "0", &start);
  if (guard)
    text +=
        "if " + start + " < " + stop + ":\n" + *outer + pad +
        reindent(first, static_cast<int>(outer->size()) + step - static_cast<int>(inner->size())) +
        "\n" + *outer;
  else
    text += reindent(first, static_cast<int>(outer->size()) - static_cast<int>(inner->size())) +
            "\n" + *outer;
  text += "syncthreads()\n" + *outer;
  text += text_of(file, Range{loop.range.begin, body.front()->range.begin});
  text += stage + " = " + kt + " % 2\n" + *inner;
  text += "if " + kt + " + 1 < " + stop + ":\n" + *inner + pad +
          reindent(staged_text(copy_range, copy_subscripts, next + " % 2", &next), step) + "\n" +
          *inner;
  text += staged_text(compute_range, compute_subscripts, stage, nullptr);

  Refactor r;
  r.id = "double-buffer";
  r.kernel = k.fn.name;
  std::string names;
  for (const std::string &root : written)
    names += (names.empty() ? "" : ", ") + root;
  r.title = "Double-buffer the " + kt + " loop (2 stages of " + names + ", tile " + kt +
            " + 1 copied while tile " + kt + " is computed)";
  for (const auto &[name, tile] : staged)
    r.edits.push_back(
        {Range{tile->shape->operands[0]->range.begin, tile->shape->operands[0]->range.begin},
         "2, "});
  r.edits.push_back({loop.range, text});
  if (!verified(k, r.edits, ""))
    return std::nullopt;
  return r;
}

} // namespace

std::vector<Refactor> double_buffer(const KernelContext &k) {
  std::vector<Refactor> out;
  for_each_stmt(k.fn.body, [&](const Stmt &s) {
    if (s.kind != StmtKind::For || !s.value ||
        !overlaps(Range{s.range.begin, s.value->range.end}, k.range))
      return;
    if (auto r = double_buffer_loop(k, s))
      out.push_back(std::move(*r));
  });
  return out;
}

} // namespace argus::refactor::detail
