// The name index: one walk over the AST that looks every identifier up in
// sema's side tables. Where sema records no reference (the parameters of a tag
// function, @bench sizes, builtin and dtype names) the walk resolves the name
// the way sema does (calls.cpp, expr.cpp, module.cpp).
#include "names.h"

#include <algorithm>
#include <map>

namespace argus::query {

namespace {

using ast::Expr;
using ast::ExprKind;

class Walker {
public:
  explicit Walker(const CheckedFile &file) : file_(file), sema_(*file.sema) {
    for (const sema::Symbol &s : sema_.symbols)
      if (s.kind == sema::SymbolKind::Constant || s.kind == sema::SymbolKind::Function)
        globals_.emplace(std::pair{s.definition.begin, s.name}, &s);
  }

  std::vector<NameOccurrence> run() {
    for (const ast::Constant &c : file_.module.constants) {
      global_definition(c.name_range, c.name);
      walk_optional(c.annotation.get());
      walk_optional(c.value.get());
    }
    for (const ast::Function &f : file_.module.functions)
      function(f);
    // No two names start at one position; `end` only makes the order total.
    std::sort(out_.begin(), out_.end(), [](const NameOccurrence &a, const NameOccurrence &b) {
      return a.range.begin != b.range.begin ? a.range.begin < b.range.begin
                                            : a.range.end < b.range.end;
    });
    return std::move(out_);
  }

private:
  NameOccurrence &add(Range range, NameRole role, std::string_view name) {
    NameOccurrence &o = out_.emplace_back();
    o.range = range;
    o.role = role;
    o.name = name;
    o.function = function_;
    return o;
  }

  void add_symbol(Range range, const sema::Symbol *symbol, bool definition) {
    NameOccurrence &o = add(range, NameRole::Symbol, symbol->name);
    o.symbol = symbol;
    o.is_definition = definition;
  }

  void global_definition(Range range, const std::string &name) {
    const auto it = globals_.find(std::pair{range.begin, name});
    if (it != globals_.end())
      add_symbol(range, it->second, true);
  }

  const sema::Symbol *param_named(std::string_view name) const {
    if (info_)
      for (const sema::Symbol *p : info_->params)
        if (p && p->name == name)
          return p;
    return nullptr;
  }

  void function(const ast::Function &f) {
    function_ = &f;
    info_ = file_.sema->function_info(f.name);
    if (info_ && info_->function != &f)
      info_ = nullptr; // a redefinition: sema analysed only the first one
    if (info_)
      global_definition(f.name_range, f.name);
    for (const ast::Decorator &d : f.decorators)
      decorator(d);
    for (size_t i = 0; i < f.params.size(); ++i) {
      const ast::Param &p = f.params[i];
      if (info_ && i < info_->params.size() && info_->params[i])
        add_symbol(p.name_range, info_->params[i], true);
      walk_optional(p.annotation.get());
      walk_optional(p.default_value.get());
    }
    walk_optional(f.return_annotation.get());
    body(f.body);
    function_ = nullptr;
    info_ = nullptr;
  }

  void decorator(const ast::Decorator &d) {
    add(d.name_range, NameRole::Decorator, d.name);
    if (!d.expr || d.expr->kind != ExprKind::Call)
      return;
    const Expr &call = *d.expr;
    for (size_t i = 0; i < call.arg_count(); ++i)
      walk(call.arg(i));
    const bool bench = d.name == "bench";
    for (const ast::Keyword &k : call.keywords) {
      // @bench(M=4096, ...) binds the kernel's parameter M; flops= and bytes= read the sizes.
      if (bench)
        if (const sema::Symbol *p = param_named(k.name))
          add_symbol(k.name_range, p, false);
      in_bench_ = bench;
      walk_optional(k.value.get());
      in_bench_ = false;
    }
  }

  void body(const std::vector<ast::StmtPtr> &stmts) {
    for (const ast::StmtPtr &s : stmts) {
      for (const ast::ExprPtr &t : s->targets)
        walk(*t);
      walk_optional(s->target.get());
      walk_optional(s->annotation.get());
      walk_optional(s->value.get());
      body(s->body);
      body(s->orelse);
    }
  }

  void walk_optional(const Expr *e) {
    if (e)
      walk(*e);
  }

  bool is_lambda_param(std::string_view name) const {
    for (const auto *params : lambdas_)
      for (const ast::LambdaParam &p : *params)
        if (p.name == name)
          return true;
    return false;
  }

  void name(const Expr &e) {
    if (is_lambda_param(e.name)) {
      add(e.range, NameRole::LambdaParam, e.name);
      return;
    }
    if (const auto ref = sema_.references.find(&e); ref != sema_.references.end()) {
      const sema::Symbol *s = ref->second;
      add_symbol(e.range, s, s->definition == e.range);
      return;
    }
    if (in_bench_)
      if (const sema::Symbol *p = param_named(e.name)) {
        add_symbol(e.range, p, false);
        return;
      }
    if (sema::scalar_from_name(e.name))
      add(e.range, NameRole::Dtype, e.name);
    else if (e.name == "nvvm" || e.name == "amdgpu")
      add(e.range, NameRole::Namespace, e.name);
    else if (e.name == "constexpr")
      add(e.range, NameRole::Qualifier, e.name);
    else if (e.name == "inf")
      add(e.range, NameRole::Constant, e.name);
    else if (e.name == "range")
      add(e.range, NameRole::Builtin, e.name);
    else if (const sema::BuiltinSpec *spec = sema::find_builtin(e.name))
      add(e.range, NameRole::Builtin, e.name).builtin = spec;
    // Anything else is undefined; sema reported it.
  }

  void attribute(const Expr &e) {
    const Expr &object = *e.operands[0];
    if (object.kind == ExprKind::Name && (object.name == "nvvm" || object.name == "amdgpu") &&
        !sema_.references.count(&object)) {
      add(object.range, NameRole::Namespace, object.name);
      if (const sema::BuiltinSpec *spec = sema::find_intrinsic(object.name, e.name))
        add(e.name_range, NameRole::Intrinsic, e.name).builtin = spec;
      return;
    }
    walk(object);
    if (e.name == "tile")
      add(e.name_range, NameRole::Method, e.name);
  }

  // A tag-field argument: string literals are field names; a lambda's
  // parameters are its own; a dict's keys are fields.
  void tag_fields(const Expr &e) {
    switch (e.kind) {
    case ExprKind::String:
      add(e.range, NameRole::TagField, {});
      return;
    case ExprKind::Tuple:
      for (const ast::ExprPtr &element : e.operands)
        tag_fields(*element);
      return;
    case ExprKind::Dict:
      for (size_t i = 0; i < e.operands.size(); ++i) {
        if (i % 2 == 0 && e.operands[i]->kind == ExprKind::String)
          add(e.operands[i]->range, NameRole::TagField, {});
        else
          walk(*e.operands[i]);
      }
      return;
    case ExprKind::Lambda:
      lambda(e, true);
      return;
    default:
      walk(e);
      return;
    }
  }

  void lambda(const Expr &e, bool tag_function) {
    for (const ast::LambdaParam &p : e.lambda_params)
      add(p.range, NameRole::LambdaParam, p.name).is_definition = true;
    lambdas_.push_back(&e.lambda_params);
    if (!e.operands.empty())
      tag_function ? tag_fields(*e.operands[0]) : walk(*e.operands[0]);
    lambdas_.pop_back();
  }

  void call(const Expr &e) {
    const Expr &callee = e.callee();
    walk(callee);
    // Which argument holds tag fields, by position and by keyword (builtins.cpp).
    size_t field_arg = SIZE_MAX;
    std::string_view field_keyword;
    const BuiltinId id = sema_.builtin_of(e);
    if (id == BuiltinId::Tag || id == BuiltinId::AssertTag || id == BuiltinId::AssertTagEq) {
      field_arg = id == BuiltinId::AssertTagEq ? 2 : 1;
      field_keyword = id == BuiltinId::AssertTag ? "record" : "fields";
    }
    for (size_t i = 0; i < e.arg_count(); ++i)
      i == field_arg ? tag_fields(e.arg(i)) : walk(e.arg(i));
    for (const ast::Keyword &k : e.keywords)
      if (k.value)
        k.name == field_keyword ? tag_fields(*k.value) : walk(*k.value);
  }

  void walk(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Name:
      name(e);
      return;
    case ExprKind::Attribute:
      attribute(e);
      return;
    case ExprKind::Call:
      call(e);
      return;
    case ExprKind::Lambda:
      lambda(e, false);
      return;
    default:
      for (const ast::ExprPtr &op : e.operands)
        if (op)
          walk(*op);
      for (const ast::Keyword &k : e.keywords)
        walk_optional(k.value.get());
      return;
    }
  }

  const CheckedFile &file_;
  const sema::SemaResult &sema_;
  std::map<std::pair<Position, std::string>, const sema::Symbol *> globals_;
  std::vector<NameOccurrence> out_;
  const ast::Function *function_ = nullptr;
  const sema::FunctionInfo *info_ = nullptr;
  std::vector<const std::vector<ast::LambdaParam> *> lambdas_;
  bool in_bench_ = false;
};

} // namespace

std::vector<NameOccurrence> name_occurrences(const CheckedFile &file) {
  if (!file.sema || !file.source)
    return {};
  return Walker(file).run();
}

} // namespace argus::query
