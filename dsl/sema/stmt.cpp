// Statements: assignments (binding locals), control flow, returns.
#include "analyzer.h"

namespace argus::sema {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

void count_targets(const Expr &target, std::unordered_map<std::string, int> &counts) {
  if (target.kind == ExprKind::Name)
    ++counts[target.name];
  else if (target.kind == ExprKind::Tuple)
    for (const auto &element : target.operands)
      count_targets(*element, counts);
}

void count_block(const std::vector<ast::StmtPtr> &body,
                 std::unordered_map<std::string, int> &counts) {
  for (const auto &stmt : body) {
    for (const auto &target : stmt->targets)
      count_targets(*target, counts);
    if (stmt->target)
      count_targets(*stmt->target, counts);
    if (stmt->kind == StmtKind::AugAssign && stmt->target)
      count_targets(*stmt->target, counts); // a += counts as a second assignment
    if (stmt->kind == StmtKind::For && stmt->target)
      count_targets(*stmt->target, counts); // loop variables change every iteration
    count_block(stmt->body, counts);
    count_block(stmt->orelse, counts);
  }
}

} // namespace

void Analyzer::prescan_assignments(const std::vector<ast::StmtPtr> &body) {
  count_block(body, scope_->assignment_counts);
}

void Analyzer::check_block(const std::vector<ast::StmtPtr> &body) {
  for (const auto &stmt : body)
    check_stmt(*stmt);
}

void Analyzer::check_condition(const Expr &condition) {
  const Type t = check_expr(condition);
  if (!t.is_unknown() && !t.is_numeric())
    error(codes::kTypeMismatch, condition.range,
          "a condition must be a bool or a number, got " + t.str());
}

void Analyzer::check_stmt(const Stmt &stmt) {
  switch (stmt.kind) {
  case StmtKind::Expr:
    check_expr(*stmt.value);
    return;
  case StmtKind::Assign: {
    const Type value = check_expr(*stmt.value);
    // make_shared/make_local/full make a tensor that lives under a name: one
    // stored into an element or a view has none (codegen could not lower it).
    if (stmt.value->kind == ExprKind::Call && is_tensor_constructor(builtin_of(*stmt.value)))
      for (const auto &target : stmt.targets)
        if (target->kind != ExprKind::Name) {
          error(codes::kNotAssignable, target->range,
                builtin_name(builtin_of(*stmt.value)) +
                    "(...) makes a new tensor: assign it to a name, then store the name "
                    "(zeros = full(...); x[i] = zeros)");
          return;
        }
    for (const auto &target : stmt.targets)
      check_assign_target(*target, value, stmt.value.get(), false);
    return;
  }
  case StmtKind::AnnAssign: {
    const Type annotated = check_expr(*stmt.annotation);
    Type declared = Type::unknown();
    if (annotated.kind == TypeKind::Dtype)
      declared = Type::scalar_of(annotated.scalar);
    else if (!annotated.is_unknown())
      error(codes::kInvalidAnnotation, stmt.annotation->range,
            "a local's annotation must be a scalar dtype such as f32, got " + annotated.str());
    if (stmt.target->kind != ExprKind::Name) {
      error(codes::kNotAssignable, stmt.target->range, "only a plain name can be annotated");
      return;
    }
    Type value = declared;
    if (stmt.value) {
      value = check_expr(*stmt.value);
      if (!assignable(declared, value)) {
        error(codes::kTypeMismatch, stmt.value->range,
              "cannot assign " + value.str() + " to '" + stmt.target->name + "' of type " +
                  declared.str());
      }
    }
    if (lookup(stmt.target->name) && scope_->names.count(stmt.target->name)) {
      error(codes::kRedefinition, stmt.target->range,
            "'" + stmt.target->name +
                "' is already defined; annotate a local only where it is first assigned");
      return;
    }
    check_assign_target(*stmt.target, declared, nullptr, true);
    return;
  }
  case StmtKind::AugAssign: {
    const Type target = check_expr(*stmt.target);
    const Type value = check_expr(*stmt.value);
    if (stmt.target->kind != ExprKind::Name && stmt.target->kind != ExprKind::Subscript) {
      error(codes::kNotAssignable, stmt.target->range, "cannot assign to this expression");
      return;
    }
    if (stmt.target->kind == ExprKind::Name) {
      if (const Symbol *symbol = lookup(stmt.target->name);
          symbol && symbol->kind != SymbolKind::Local && symbol->kind != SymbolKind::Parameter) {
        error(codes::kAssignToConstant, stmt.target->range,
              "cannot assign to '" + stmt.target->name + "': it is a " +
                  (symbol->kind == SymbolKind::Constant ? "module constant"
                                                        : "loop variable or function"));
        return;
      }
    }
    auto common = unify_numeric(stmt.target ? *stmt.target : *stmt.value, target, value,
                                ast::to_string(stmt.aug_op));
    if (common && !common->is_unknown() && !assignable(target, *common)) {
      error(codes::kTypeMismatch, stmt.range,
            "the result " + common->str() + " cannot be stored back into " + target.str());
    }
    return;
  }
  case StmtKind::If:
    check_condition(*stmt.value);
    check_block(stmt.body);
    check_block(stmt.orelse);
    return;
  case StmtKind::While:
    warning(
        codes::kWhileLoop,
        stmt.range.begin == stmt.range.end
            ? stmt.range
            : Range{stmt.range.begin, Position{stmt.range.begin.line, stmt.range.begin.column + 5}},
        "while loops are discouraged: the checker cannot bound them; use for ... in range(...)");
    check_condition(*stmt.value);
    ++loop_depth_;
    check_block(stmt.body);
    --loop_depth_;
    return;
  case StmtKind::For:
    ++loop_depth_;
    check_for(stmt);
    --loop_depth_;
    return;
  case StmtKind::Return:
    check_return(stmt);
    return;
  case StmtKind::Break:
  case StmtKind::Continue:
    if (loop_depth_ == 0)
      error(codes::kUnsupportedStatement, stmt.range,
            std::string(stmt.kind == StmtKind::Break ? "break" : "continue") +
                " outside a loop: it leaves the innermost for or while loop of its function");
    return;
  case StmtKind::Pass:
  case StmtKind::Error:
    return;
  }
}

void Analyzer::check_assign_target(const Expr &target, const Type &value_type, const Expr *value,
                                   bool annotated) {
  switch (target.kind) {
  case ExprKind::Name: {
    const std::string &name = target.name;
    if (scope_->names.count(name) == 0) {
      if (const auto it = globals_.find(name); it != globals_.end()) {
        error(codes::kAssignToConstant, target.range,
              "cannot assign to '" + name + "': it is a module " +
                  (it->second->kind == SymbolKind::Constant ? "constant" : "function"));
        return;
      }
      if (scalar_from_name(name) || name == "nvvm" || name == "amdgpu") {
        error(codes::kAssignToConstant, target.range,
              "cannot assign to the builtin name '" + name + "'");
        return;
      }
      Symbol symbol;
      symbol.kind = SymbolKind::Local;
      symbol.name = name;
      symbol.definition = target.range;
      symbol.type = value_type;
      // Literals become runtime values of the default type; a name assigned once
      // from a compile-time integer stays a compile-time constant (a "let").
      const bool single = scope_->assignment_counts[name] <= 1;
      if (value_type.kind == TypeKind::IntLiteral) {
        if (single && value && constant(*value))
          symbol.value = constant(*value);
        else
          symbol.type = Type::scalar_of(ScalarKind::I32);
      } else if (value_type.kind == TypeKind::FloatLiteral) {
        symbol.type = Type::scalar_of(ScalarKind::F32);
      } else if (value_type.kind == TypeKind::Void) {
        error(codes::kTypeMismatch, value ? value->range : target.range,
              "this call returns no value");
        symbol.type = Type::unknown();
      } else if (single && value && constant(*value) && value_type.kind == TypeKind::Scalar) {
        symbol.value = constant(*value);
      }
      Symbol &added = add_symbol(std::move(symbol));
      scope_->names[name] = &added;
      result_.references[&target] = &added;
      record(target, added.type, added.value);
      (void)annotated;
      return;
    }
    Symbol *symbol = scope_->names[name];
    result_.references[&target] = symbol;
    record(target, symbol->type);
    if (symbol->kind == SymbolKind::LoopVariable) {
      error(codes::kAssignToConstant, target.range,
            "cannot assign to the loop variable '" + name + "'");
      return;
    }
    if (symbol->is_constexpr) {
      error(codes::kAssignToConstant, target.range,
            "cannot assign to the constexpr parameter '" + name + "'");
      return;
    }
    if (!assignable(symbol->type, value_type)) {
      Diagnostic &d = error(codes::kTypeMismatch, value ? value->range : target.range,
                            "cannot assign " + value_type.str() + " to '" + name + "' of type " +
                                symbol->type.str());
      d.data = {{"expected", symbol->type.str()}, {"got", value_type.str()}};
    }
    return;
  }
  case ExprKind::Subscript: {
    const Type element = check_expr(target);
    if (element.is_unknown() || value_type.is_unknown())
      return;
    if (!assignable(element, value_type)) {
      Diagnostic &d =
          error(codes::kTypeMismatch, value ? value->range : target.range,
                "cannot store " + value_type.str() + " into " + element.str() +
                    (element.is_tensor() && value_type.is_numeric()
                         ? "; index down to an element or store a tensor of the same shape"
                         : ""));
      d.data = {{"expected", element.str()}, {"got", value_type.str()}};
    }
    return;
  }
  case ExprKind::Tuple: {
    if (value_type.is_unknown()) {
      for (const auto &element : target.operands)
        check_assign_target(*element, Type::unknown(), nullptr, false);
      return;
    }
    if (value_type.kind != TypeKind::Tuple ||
        value_type.elements.size() != target.operands.size()) {
      error(codes::kTypeMismatch, value ? value->range : target.range,
            "cannot unpack " + value_type.str() + " into " +
                std::to_string(target.operands.size()) + " names");
      for (const auto &element : target.operands)
        check_assign_target(*element, Type::unknown(), nullptr, false);
      return;
    }
    for (size_t i = 0; i < target.operands.size(); ++i) {
      const Expr *element_value =
          value && value->kind == ExprKind::Tuple ? value->operands[i].get() : nullptr;
      check_assign_target(*target.operands[i], value_type.elements[i], element_value, false);
    }
    return;
  }
  case ExprKind::Error:
    return;
  case ExprKind::Attribute:
    check_expr(target); // reports that attributes are not values
    return;
  default:
    check_expr(target);
    error(codes::kNotAssignable, target.range,
          std::string("cannot assign to a ") + ast::to_string(target.kind));
    return;
  }
}

void Analyzer::check_for(const Stmt &stmt) {
  const Expr &iterable = *stmt.value;
  const bool is_range = iterable.kind == ExprKind::Call &&
                        iterable.callee().kind == ExprKind::Name &&
                        iterable.callee().name == "range" && !lookup("range");
  if (!is_range) {
    check_expr(iterable);
    error(codes::kInvalidOperand, iterable.range,
          "for loops iterate over range(start, stop, step, unroll=N)");
  } else {
    if (iterable.arg_count() < 1 || iterable.arg_count() > 3)
      error(codes::kArgumentCount, iterable.range,
            "range takes 1 to 3 arguments, got " + std::to_string(iterable.arg_count()));
    for (size_t i = 0; i < iterable.arg_count(); ++i) {
      const Type t = check_expr(iterable.arg(i));
      if (!t.is_unknown() && !t.is_integer_like())
        error(codes::kArgumentType, iterable.arg(i).range,
              "range bounds must be integers, got " + t.str());
    }
    if (iterable.arg_count() == 3) {
      if (const auto step = constant(iterable.arg(2)); step && *step == 0)
        error(codes::kArgumentType, iterable.arg(2).range, "range step must not be zero");
    }
    for (const ast::Keyword &keyword : iterable.keywords) {
      const Type t = check_expr(*keyword.value);
      if (keyword.name != "unroll") {
        error(codes::kUnknownKeyword, keyword.name_range,
              "range has no parameter '" + keyword.name + "'; loop policies: unroll");
        continue;
      }
      const auto unroll = constant(*keyword.value);
      if (!t.is_unknown() && (!unroll || *unroll < 0))
        error(codes::kArgumentNotConstant, keyword.value->range,
              "unroll must be a compile-time integer ≥ 0 (0 or 1: no unrolling)");
    }
    result_.expr_types[&iterable] = Type::of(TypeKind::Range);
  }
  const Expr &target = *stmt.target;
  if (target.kind != ExprKind::Name) {
    error(codes::kNotAssignable, target.range, "a for-loop variable must be a plain name");
  } else if (scope_->names.count(target.name) || globals_.count(target.name)) {
    error(codes::kRedefinition, target.range,
          "the loop variable '" + target.name + "' is already defined; use a new name");
  } else {
    Symbol symbol;
    symbol.kind = SymbolKind::LoopVariable;
    symbol.name = target.name;
    symbol.definition = target.range;
    symbol.type = Type::scalar_of(ScalarKind::I32);
    Symbol &added = add_symbol(std::move(symbol));
    scope_->names[target.name] = &added;
    result_.references[&target] = &added;
    record(target, added.type);
  }
  check_block(stmt.body);
  // The loop variable's scope ends with the loop, so the next loop may reuse its name.
  if (target.kind == ExprKind::Name) {
    auto it = scope_->names.find(target.name);
    if (it != scope_->names.end() && it->second->kind == SymbolKind::LoopVariable &&
        it->second->definition == target.range)
      scope_->names.erase(it);
  }
}

void Analyzer::check_return(const Stmt &stmt) {
  FunctionInfo &info = *scope_->info;
  if (info.role == FunctionRole::Kernel) {
    if (stmt.value) {
      check_expr(*stmt.value);
      error(codes::kInvalidReturn, stmt.value->range,
            "kernels cannot return a value; store it into an output tensor");
    }
    return;
  }
  if (!stmt.value) {
    if (info.return_type.kind != TypeKind::Void && !info.return_type.is_unknown())
      error(codes::kInvalidReturn, stmt.range,
            "'" + info.function->name + "' must return " + info.return_type.str());
    return;
  }
  const Type value = check_expr(*stmt.value);
  if (info.return_type.kind == TypeKind::Void) {
    error(codes::kInvalidReturn, stmt.value->range,
          "'" + info.function->name + "' has no return annotation; add '-> " +
              (value.is_unknown() ? std::string("f32") : value.str()) + "' to return a value");
    return;
  }
  if (!assignable(info.return_type, value)) {
    Diagnostic &d = error(codes::kInvalidReturn, stmt.value->range,
                          "'" + info.function->name + "' returns " + info.return_type.str() +
                              ", not " + value.str());
    d.data = {{"expected", info.return_type.str()}, {"got", value.str()}};
  }
}

void Analyzer::report_unused_locals() {
  for (const auto &[name, symbol] : scope_->names) {
    if (symbol->kind != SymbolKind::Local || name.empty() || name[0] == '_')
      continue;
    if (scope_->read.count(symbol))
      continue;
    // Tensors are often only written (outputs of views); values that are never read are dead.
    if (symbol->type.is_tensor())
      continue;
    warning(codes::kUnusedVariable, symbol->definition,
            "'" + name + "' is assigned but never used; prefix it with '_' if that is intended");
  }
}

} // namespace argus::sema
