// Helpers the refactors share: AST walks, text rewriting, verification.
#include "common.h"

#include <algorithm>
#include <cctype>

namespace argus::refactor::detail {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

bool overlaps(const Range &a, const Range &b) { return !(a.end < b.begin) && !(b.end < a.begin); }

bool contains(const Range &outer, const Range &inner) {
  return !(inner.begin < outer.begin) && !(outer.end < inner.end);
}

std::string text_of(const CheckedFile &file, const Range &range) {
  return std::string(file.source->text_in(range));
}

void for_each_stmt(const std::vector<ast::StmtPtr> &body,
                   const std::function<void(const Stmt &)> &visit) {
  for (const auto &s : body) {
    visit(*s);
    for_each_stmt(s->body, visit);
    for_each_stmt(s->orelse, visit);
  }
}

void for_each_expr(const Expr &expr, const std::function<void(const Expr &)> &visit) {
  visit(expr);
  for (const auto &op : expr.operands)
    if (op)
      for_each_expr(*op, visit);
  for (const auto &k : expr.keywords)
    if (k.value)
      for_each_expr(*k.value, visit);
}

void for_each_expr(const Stmt &stmt, const std::function<void(const Expr &)> &visit) {
  for (const auto &t : stmt.targets)
    if (t)
      for_each_expr(*t, visit);
  for (const Expr *e : {stmt.target.get(), stmt.annotation.get(), stmt.value.get()})
    if (e)
      for_each_expr(*e, visit);
}

void for_each_expr(const std::vector<ast::StmtPtr> &body,
                   const std::function<void(const Expr &)> &visit) {
  for_each_stmt(body, [&](const Stmt &s) { for_each_expr(s, visit); });
}

bool is_barrier(const Stmt &stmt) {
  return stmt.kind == StmtKind::Expr && stmt.value && stmt.value->kind == ExprKind::Call &&
         stmt.value->callee().dotted_name() == "syncthreads" && stmt.value->arg_count() == 0;
}

std::optional<RangeLoop> range_loop(const Stmt &stmt) {
  if (stmt.kind != StmtKind::For || !stmt.target || stmt.target->kind != ExprKind::Name ||
      !stmt.value || stmt.value->kind != ExprKind::Call ||
      stmt.value->callee().dotted_name() != "range")
    return std::nullopt;
  const Expr &call = *stmt.value;
  RangeLoop loop;
  switch (call.arg_count()) {
  case 1:
    loop.stop = &call.arg(0);
    break;
  case 3:
    if (call.arg(2).kind != ExprKind::Int || call.arg(2).int_value != 1)
      return std::nullopt;
    [[fallthrough]];
  case 2:
    loop.start = &call.arg(0);
    loop.stop = &call.arg(1);
    break;
  default:
    return std::nullopt;
  }
  return loop;
}

std::optional<std::string> indent_of(const CheckedFile &file, const Stmt &stmt) {
  const std::string_view line = file.source->line(stmt.range.begin.line);
  const std::string_view before =
      line.substr(0, std::min<size_t>(stmt.range.begin.column, line.size()));
  if (!std::all_of(before.begin(), before.end(), [](char c) { return c == ' ' || c == '\t'; }))
    return std::nullopt;
  return std::string(before);
}

std::string rewrite(const CheckedFile &file, const Range &range,
                    std::vector<check::TextEdit> edits) {
  const SourceFile &src = *file.source;
  const size_t origin = src.offset(range.begin);
  std::string out = text_of(file, range);
  std::sort(edits.begin(), edits.end(), [&](const check::TextEdit &a, const check::TextEdit &b) {
    return src.offset(a.range.begin) > src.offset(b.range.begin);
  });
  for (const check::TextEdit &e : edits) {
    const size_t a = src.offset(e.range.begin) - origin;
    const size_t b = src.offset(e.range.end) - origin;
    out.replace(a, b - a, e.new_text);
  }
  return out;
}

std::string reindent(const std::string &text, int delta) {
  std::string out;
  size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(start, end - start);
    if (!first && !line.empty()) {
      if (delta > 0) {
        line.insert(0, static_cast<size_t>(delta), ' ');
      } else {
        size_t n = 0;
        while (n < line.size() && n < static_cast<size_t>(-delta) && line[n] == ' ')
          ++n;
        line.erase(0, n);
      }
    }
    out += line;
    if (end < text.size())
      out += '\n';
    first = false;
    start = end + 1;
  }
  return out;
}

std::string operand_text(const CheckedFile &file, const Expr &expr) {
  const std::string text = text_of(file, expr.range);
  switch (expr.kind) {
  case ExprKind::Name:
  case ExprKind::Int:
  case ExprKind::Float:
  case ExprKind::Call:
  case ExprKind::Subscript:
  case ExprKind::Attribute:
    return text;
  default:
    return "(" + text + ")";
  }
}

namespace {

bool uses_identifier(const std::string &text, const std::string &name) {
  auto is_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool left = at == 0 || !is_ident(text[at - 1]);
    const bool right = at + name.size() >= text.size() || !is_ident(text[at + name.size()]);
    if (left && right)
      return true;
  }
  return false;
}

} // namespace

std::string fresh_name(const CheckedFile &file, const std::string &base) {
  const std::string &text = file.source->text();
  if (!uses_identifier(text, base))
    return base;
  for (int i = 2;; ++i) {
    const std::string name = base + "_" + std::to_string(i);
    if (!uses_identifier(text, name))
      return name;
  }
}

Counts counts_of(const check::KernelReport &report) {
  Counts c;
  for (const check::Violation &v : report.violations) {
    ++c.of_kind[v.kind];
    if (!v.warning)
      ++c.errors;
  }
  return c;
}

bool verified(const KernelContext &kernel, const std::vector<check::TextEdit> &edits,
              const std::string &goal) {
  const CheckedFile &file = kernel.file;
  const std::string text = check::apply_edits(file.source->text(), edits, *file.source);
  const CheckedFile edited = analyze_source(file.source->path(), text);
  if (edited.has_errors())
    return false;
  check::CheckerOptions options = kernel.options;
  options.fixes = false;
  const check::KernelReport &baseline = kernel.baseline();
  const Counts before = counts_of(baseline);
  for (const check::KernelReport &r : check::check_kernels(edited, options, &kernel.cache)) {
    if (r.kernel != baseline.kernel)
      continue;
    const Counts after = counts_of(r);
    if (after.errors > before.errors)
      return false;
    for (const auto &[kind, n] : after.of_kind) {
      const auto it = before.of_kind.find(kind);
      if (n > (it == before.of_kind.end() ? 0 : it->second))
        return false;
    }
    if (goal.empty())
      return true;
    const auto was = before.of_kind.find(goal);
    const auto now = after.of_kind.find(goal);
    return was != before.of_kind.end() &&
           (now == after.of_kind.end() ? 0 : now->second) < was->second;
  }
  return false; // the kernel is gone
}

} // namespace argus::refactor::detail
