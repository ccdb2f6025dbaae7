// Mechanical fixes: candidate edits computed from the AST, kept only when the
// edited file re-checks with fewer violations of that kind and no new ones.
#include "fixes.h"

#include <algorithm>
#include <functional>

namespace argus::check {

namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

bool contains(const Range &outer, const Range &inner) {
  return !(inner.begin < outer.begin) && !(outer.end < inner.end);
}

// The chain of statements (outermost first) whose range contains `r`, with the
// body each one sits in.
struct Step {
  const std::vector<ast::StmtPtr> *body;
  size_t index;
};

bool chain_to(const std::vector<ast::StmtPtr> &body, const Range &r, std::vector<Step> &out) {
  for (size_t i = 0; i < body.size(); ++i) {
    const Stmt &s = *body[i];
    if (!contains(s.range, r))
      continue;
    out.push_back({&body, i});
    if (chain_to(s.body, r, out) || chain_to(s.orelse, r, out))
      return true;
    return true;
  }
  return false;
}

nlohmann::json edit_json(const TextEdit &e) {
  return {{"range",
           {{"start", {{"line", e.range.begin.line}, {"character", e.range.begin.column}}},
            {"end", {{"line", e.range.end.line}, {"character", e.range.end.column}}}}},
          {"newText", e.new_text}};
}

struct Counts {
  size_t of_kind = 0;
  size_t errors = 0;
  bool front_end_errors = false;
};

Counts recheck(const CheckedFile &file, const std::string &kernel,
               const std::vector<TextEdit> &edits, const std::string &kind,
               const CheckerOptions &options) {
  Counts c;
  const std::string text = apply_edits(file.source->text(), edits, *file.source);
  CheckedFile edited = analyze_source(file.source->path(), text);
  if (edited.has_errors()) {
    c.front_end_errors = true;
    return c;
  }
  CheckerOptions o = options;
  o.symbolic = false;
  o.fixes = false;
  o.only_kernel = kernel; // the others are not what the fix changed
  o.kernel_threads = 1;   // already on one of the file's kernel threads
  for (const KernelReport &r : check_kernels(edited, o)) {
    if (r.kernel != kernel)
      continue;
    for (const Violation &v : r.violations) {
      if (v.kind == kind)
        ++c.of_kind;
      if (!v.warning)
        ++c.errors;
    }
  }
  return c;
}

Counts current(const KernelReport &report, const std::string &kind) {
  Counts c;
  for (const Violation &v : report.violations) {
    if (v.kind == kind)
      ++c.of_kind;
    if (!v.warning)
      ++c.errors;
  }
  return c;
}

// Shared-memory subscripts (base named, first index an expression) in an expression.
void shared_subscripts(const Expr &e, const std::function<bool(const Expr &)> &is_shared,
                       std::vector<const Expr *> &out) {
  if (e.kind == ExprKind::Subscript && e.operands.size() >= 2 && is_shared(*e.operands[0]))
    out.push_back(&e);
  for (const auto &op : e.operands)
    if (op)
      shared_subscripts(*op, is_shared, out);
}

void all_statements(const std::vector<ast::StmtPtr> &body, std::vector<const Stmt *> &out) {
  for (const auto &s : body) {
    out.push_back(s.get());
    all_statements(s->body, out);
    all_statements(s->orelse, out);
  }
}

const Expr *base_name(const Expr &e) {
  const Expr *x = &e;
  while (x->kind == ExprKind::Subscript)
    x = x->operands[0].get();
  return x->kind == ExprKind::Name ? x : nullptr;
}

} // namespace

std::string apply_edits(const std::string &text, std::vector<TextEdit> edits,
                        const SourceFile &source) {
  std::sort(edits.begin(), edits.end(), [&](const TextEdit &a, const TextEdit &b) {
    return source.offset(a.range.begin) > source.offset(b.range.begin);
  });
  std::string out = text;
  for (const TextEdit &e : edits) {
    const size_t a = std::min(source.offset(e.range.begin), out.size());
    const size_t b = std::max(a, std::min(source.offset(e.range.end), out.size()));
    out.replace(a, b - a, e.new_text);
  }
  return out;
}

std::optional<std::vector<TextEdit>> fix_edits(const nlohmann::json &data,
                                               const std::string &fix_id) {
  if (!data.is_object() || !data.contains("edits") || !data["edits"].contains(fix_id))
    return std::nullopt;
  std::vector<TextEdit> edits;
  for (const auto &e : data["edits"][fix_id]) {
    TextEdit t;
    t.range.begin = {e["range"]["start"]["line"].get<uint32_t>(),
                     e["range"]["start"]["character"].get<uint32_t>()};
    t.range.end = {e["range"]["end"]["line"].get<uint32_t>(),
                   e["range"]["end"]["character"].get<uint32_t>()};
    t.new_text = e["newText"].get<std::string>();
    edits.push_back(std::move(t));
  }
  return edits;
}

namespace detail {

namespace {

// `barrier`: syncthreads() within a block, cluster_sync() between the blocks
// of a cluster.
std::vector<std::vector<TextEdit>> barrier_candidates(const CheckedFile &file,
                                                      const ast::Function &fn, const Violation &v,
                                                      const std::string &barrier) {
  std::vector<std::vector<TextEdit>> out;
  if (v.related.empty())
    return out;
  std::vector<Step> here, there;
  chain_to(fn.body, v.range, here);
  chain_to(fn.body, v.related.front().range, there);
  // The innermost body both accesses sit in; the barrier goes before the
  // statement of that body that holds the access which detected the race.
  size_t depth = 0;
  while (depth < here.size() && depth < there.size() && here[depth].body == there[depth].body &&
         here[depth].index == there[depth].index)
    ++depth;
  std::vector<size_t> levels;
  if (depth < here.size())
    levels.push_back(depth);
  // Also offer the start of each enclosing loop body as a fallback.
  for (size_t d = depth; d-- > 0;)
    if ((*here[d].body)[here[d].index]->kind == StmtKind::For && d + 1 < here.size())
      levels.push_back(d + 1);
  for (size_t level : levels) {
    const Stmt &anchor = *(*here[level].body)[here[level].index];
    TextEdit e;
    e.range = Range{anchor.range.begin, anchor.range.begin};
    e.new_text = barrier + "\n" + std::string(anchor.range.begin.column, ' ');
    (void)file;
    out.push_back({e});
  }
  return out;
}

// A block that may exit under a peer's remote access: cluster_sync() as the
// kernel's last statement.
std::vector<std::vector<TextEdit>> exit_candidates(const ast::Function &fn) {
  if (fn.body.empty())
    return {};
  const Stmt &last = *fn.body.back();
  const Stmt &first = *fn.body.front();
  TextEdit e;
  e.range = Range{last.range.end, last.range.end};
  e.new_text = "\n" + std::string(first.range.begin.column, ' ') + "cluster_sync()";
  return {{e}};
}

std::vector<std::vector<TextEdit>> stage_candidates(const CheckedFile &file,
                                                    const ast::Function &fn, const Violation &v) {
  std::vector<std::vector<TextEdit>> out;
  const sema::SemaResult &sema = *file.sema;
  // The call or assertion at the violation: its first two arguments are the operands.
  std::vector<const Stmt *> stmts;
  all_statements(fn.body, stmts);
  const Expr *site = nullptr;
  std::function<void(const Expr &)> find = [&](const Expr &e) {
    if (e.kind == ExprKind::Call && e.range == v.range)
      site = &e;
    for (const auto &op : e.operands)
      if (op && !site)
        find(*op);
  };
  for (const Stmt *s : stmts) {
    if (s->value)
      find(*s->value);
    if (site)
      break;
  }
  if (!site || site->arg_count() < 2)
    return out;
  auto is_shared = [&](const Expr &base) {
    const sema::Type *t = sema.type_of(base);
    return t && t->tensor && t->tensor->space == sema::MemorySpace::Shared;
  };
  // The statements that define each operand (assignments to its base name).
  auto loads_of = [&](const Expr &operand) {
    std::vector<const Expr *> subs;
    const Expr *name = base_name(operand);
    if (!name)
      return subs;
    for (const Stmt *s : stmts) {
      if (s->kind != StmtKind::Assign || !s->value)
        continue;
      for (const auto &t : s->targets) {
        const Expr *tn = base_name(*t);
        if (tn && tn->name == name->name)
          shared_subscripts(*s->value, is_shared, subs);
      }
    }
    return subs;
  };
  const auto a = loads_of(site->arg(0));
  const auto b = loads_of(site->arg(1));
  const SourceFile &src = *file.source;
  for (const Expr *x : a)
    for (const Expr *y : b) {
      const Expr &ix = *x->operands[1], &iy = *y->operands[1];
      const std::string tx(src.text_in(ix.range)), ty(src.text_in(iy.range));
      if (tx == ty)
        continue;
      out.push_back({TextEdit{ix.range, ty}});
      out.push_back({TextEdit{iy.range, tx}});
    }
  return out;
}

std::vector<std::vector<TextEdit>> pad_candidates(const CheckedFile &file, const ast::Function &fn,
                                                  const Violation &v) {
  if (!v.data.contains("element"))
    return {};
  return pad_shared_candidates(file, fn, v.data["element"]["tensor"].get<std::string>());
}

} // namespace

std::vector<std::vector<TextEdit>>
pad_shared_candidates(const CheckedFile &file, const ast::Function &fn, const std::string &buffer) {
  std::vector<std::vector<TextEdit>> out;
  std::vector<const Stmt *> stmts;
  all_statements(fn.body, stmts);
  for (const Stmt *s : stmts) {
    if (s->kind != StmtKind::Assign || s->targets.size() != 1 ||
        s->targets[0]->kind != ExprKind::Name || s->targets[0]->name != buffer || !s->value ||
        s->value->kind != ExprKind::Call ||
        file.sema->builtin_of(*s->value) != BuiltinId::MakeShared || s->value->arg_count() < 2 ||
        s->value->arg(0).kind != ExprKind::Tuple || s->value->keyword("layout"))
      continue;
    const Expr &last = *s->value->arg(0).operands.back();
    const std::string text(file.source->text_in(last.range));
    for (int pad : {1, 2, 4, 8, 16})
      out.push_back({TextEdit{last.range, text + " + " + std::to_string(pad)}});
  }
  return out;
}

void attach_fixes(const CheckedFile &file, const sema::FunctionInfo &kernel,
                  const CheckerOptions &options, KernelReport &report) {
  if (!options.fixes)
    return;
  const ast::Function &fn = *kernel.function;
  for (Violation &v : report.violations) {
    std::string id;
    std::vector<std::vector<TextEdit>> candidates;
    if (v.kind == "race" && v.check == "cluster-exit") {
      id = "argus.fix.insert-cluster-sync";
      candidates = exit_candidates(fn);
    } else if (v.kind == "race" && !v.data.contains("other_block")) {
      id = "argus.fix.insert-barrier";
      candidates = barrier_candidates(file, fn, v, "syncthreads()");
    } else if (v.kind == "race" && kernel.cluster_size() > 1) {
      // Blocks of one cluster are ordered by cluster_sync(); others by nothing.
      id = "argus.fix.insert-cluster-sync";
      candidates = barrier_candidates(file, fn, v, "cluster_sync()");
    } else if (v.kind == "tag-mismatch" &&
               (v.check == "mma-operands" || v.check == "assert_tag_eq")) {
      id = "argus.fix.stage-index";
      candidates = stage_candidates(file, fn, v);
    } else if (v.kind == "bank-conflict") {
      id = "argus.fix.pad-shared";
      candidates = pad_candidates(file, fn, v);
    }
    if (v.data.contains("fixes"))
      v.data["fixes"] = nlohmann::json::array(); // only verified fixes are listed
    const Counts before = current(report, v.kind);
    for (const auto &edits : candidates) {
      const Counts after = recheck(file, report.kernel, edits, v.kind, options);
      const bool better = !after.front_end_errors && after.of_kind < before.of_kind &&
                          after.errors <= before.errors - (v.warning ? 0 : 1);
      if (!better)
        continue;
      v.data["fixes"] = nlohmann::json::array({id});
      nlohmann::json list = nlohmann::json::array();
      for (const TextEdit &e : edits)
        list.push_back(edit_json(e));
      v.data["edits"][id] = list;
      break;
    }
  }
}

} // namespace detail

} // namespace argus::check
