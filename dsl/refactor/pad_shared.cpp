// pad-shared: widen the rows of a shared tile whose accesses conflict on
// banks (W0902). The candidate paddings are the checker's own
// (check::detail::pad_shared_candidates, also behind the quick fix
// argus.fix.pad-shared); here the smallest one that verifies is offered from
// the tile's declaration as well as from the conflicting access.
#include "../check/fixes.h"
#include "common.h"

#include <set>

namespace argus::refactor::detail {

namespace {

// The statement `buffer = make_shared(...)` of the kernel, if any.
const ast::Stmt *declaration_of(const ast::Function &fn, const std::string &buffer) {
  const ast::Stmt *found = nullptr;
  for_each_stmt(fn.body, [&](const ast::Stmt &s) {
    if (!found && s.kind == ast::StmtKind::Assign && s.targets.size() == 1 &&
        s.targets[0]->kind == ast::ExprKind::Name && s.targets[0]->name == buffer && s.value &&
        s.value->kind == ast::ExprKind::Call && s.value->callee().dotted_name() == "make_shared")
      found = &s;
  });
  return found;
}

} // namespace

std::vector<Refactor> pad_shared(const KernelContext &k) {
  std::vector<Refactor> out;
  // Cheap first: does the range touch a shared tile's declaration or access at all?
  bool touches_shared = false;
  for_each_expr(k.fn.body, [&](const ast::Expr &e) {
    if (touches_shared || !overlaps(e.range, k.range) ||
        (e.kind != ast::ExprKind::Name && e.kind != ast::ExprKind::Subscript))
      return;
    const sema::Type *t = k.file.sema->type_of(e.kind == ast::ExprKind::Name ? e : *e.operands[0]);
    touches_shared = t && t->tensor && t->tensor->space == sema::MemorySpace::Shared;
  });
  if (!touches_shared)
    return out;
  std::set<std::string> buffers; // conflicting tiles whose declaration or access is in range
  for (const check::Violation &v : k.baseline().violations) {
    if (v.kind != "bank-conflict" || !v.data.contains("element") ||
        !v.data["element"].contains("tensor"))
      continue;
    const std::string buffer = v.data["element"]["tensor"].get<std::string>();
    const ast::Stmt *decl = declaration_of(k.fn, buffer);
    if (overlaps(v.range, k.range) || (decl && overlaps(decl->range, k.range)))
      buffers.insert(buffer);
  }
  for (const std::string &buffer : buffers) {
    for (const auto &edits : check::detail::pad_shared_candidates(k.file, k.fn, buffer)) {
      if (!verified(k, edits, "bank-conflict"))
        continue;
      const std::string &text = edits.front().new_text;
      const std::string pad = text.substr(text.rfind(" + ") + 3);
      out.push_back({"pad-shared",
                     "Pad each row of shared tile " + buffer + " by " + pad + " element" +
                         (pad == "1" ? "" : "s"),
                     k.fn.name, edits});
      break;
    }
  }
  return out;
}

} // namespace argus::refactor::detail
