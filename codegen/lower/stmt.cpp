// Statements, declarations, copies and intrinsics.
#include "lower_internal.h"

#include <algorithm>
#include <functional>
#include <map>

namespace argus::codegen::detail {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;
using layout::ExprRef;
using layout::Interval;
using sema::MemorySpace;
using sema::ScalarKind;
using sema::Symbol;
using sema::SymbolKind;
using sema::Type;
using sema::TypeKind;

namespace {

// An if/while condition without the printer's outermost parentheses:
// `if ((a == b))` makes clang warn (-Wparentheses-equality) about generated code.
std::string condition(const std::string &text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return text;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < text.size())
      return text; // "(a) && (b)": the first parenthesis closes early
  }
  return text.substr(1, text.size() - 2);
}

} // namespace

namespace {

Interval hull(Interval a, Interval b) {
  return Interval{std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

bool references(const Expr &e, const Symbol *s, const Lowerer &l) {
  if (e.kind == ExprKind::Name && l.symbol_of(e) == s)
    return true;
  for (const auto &op : e.operands)
    if (op && references(*op, s, l))
      return true;
  for (const auto &k : e.keywords)
    if (k.value && references(*k.value, s, l))
      return true;
  return false;
}

} // namespace

// ---------------------------------------------------------------------------
// Before emitting a function: where each local is declared, and the value
// ranges of integer locals (for the index arithmetic's simplifier).

void Lowerer::prepare_function(const sema::FunctionInfo &info) {
  fn_ = &info;
  buffers_.clear();
  tensor_maps_.clear();
  wgmma_accumulators_.clear();
  wgmma_packed_fragments_.clear();
  param_buffers_.clear();
  views_.clear();
  decls_.clear();
  facts_.clear();
  positive_params_.clear();
  local_names_.clear();
  used_names_.clear();
  body_.str("");
  indent_ = 1;
  temp_counter_ = 0;
  dynamic_shared_bytes_ = 0;
  use_dynamic_shared_ = false;
  failed_function_ = false;
  offset_vars_.clear();
  buffer_loads_.clear();
  fast_math_ = info.role == sema::FunctionRole::Kernel && info.policies.count("fast_math") &&
               info.policies.at("fast_math") != 0;

  const ast::Function &function = *info.function;
  for (size_t i = 0; i < function.params.size() && i < info.params.size(); ++i) {
    const Symbol *p = info.params[i];
    if (!p)
      continue;
    used_names_.insert(cpp_name(p->name));
  }
  // Tensor parameters: buffers with the annotation's shape and strides.
  for (size_t i = 0; i < function.params.size() && i < info.params.size(); ++i) {
    const Symbol *p = info.params[i];
    if (!p || !p->type.is_tensor())
      continue;
    const ast::Param &param = function.params[i];
    const Expr *annotation = param.annotation.get();
    if (!annotation || annotation->kind != ExprKind::Call || annotation->arg_count() < 2)
      continue;
    for (const Expr *shape = &annotation->arg(0);;) {
      if (shape->kind == ExprKind::Tuple) {
        for (const auto &d : shape->operands)
          if (d->kind == ExprKind::Name)
            if (const Symbol *s = symbol_of(*d); s && s->kind == SymbolKind::Parameter)
              positive_params_.insert(s);
      } else if (shape->kind == ExprKind::Name) {
        if (const Symbol *s = symbol_of(*shape); s && s->kind == SymbolKind::Parameter)
          positive_params_.insert(s);
      }
      break;
    }
  }
  for (size_t i = 0; i < function.params.size() && i < info.params.size(); ++i) {
    const Symbol *p = info.params[i];
    if (!p || !p->type.is_tensor())
      continue;
    const ast::Param &param = function.params[i];
    Buffer b;
    b.name = cpp_name(p->name);
    b.space = MemorySpace::Global;
    b.dtype = p->type.tensor->dtype;
    b.param = p;
    buffers_.push_back(b);
    const int index = static_cast<int>(buffers_.size() - 1);
    param_buffers_[p] = index;
    const Expr &annotation = *param.annotation;
    auto shape = int_tuple(annotation.arg(0));
    std::vector<ExprRef> strides;
    if (annotation.arg_count() >= 3)
      strides = *int_tuple(annotation.arg(1));
    views_[p] = buffer_view(index, *shape, strides);
  }

  // Declaration sites.
  struct Ref {
    std::vector<int> path;
    const Stmt *stmt;
    bool defining;
    int order;
  };
  std::unordered_map<const Symbol *, std::vector<Ref>> refs;
  std::vector<const Symbol *> order_of_symbols;
  int next_block = 0;
  int order = 0;
  std::vector<int> path;
  std::function<void(const Expr &, const Stmt &, bool)> scan_expr;
  scan_expr = [&](const Expr &e, const Stmt &s, bool defining_stmt) {
    if (e.kind == ExprKind::Call && is_checker_only(builtin_of(e)))
      return;
    if (e.kind == ExprKind::Name) {
      const Symbol *sym = symbol_of(e);
      if (sym && sym->kind == SymbolKind::Local) {
        bool defining = false;
        if (defining_stmt) {
          const Expr *target = s.kind == StmtKind::Assign ? s.targets[0].get() : s.target.get();
          defining = target == &e && (!s.value || !references(*s.value, sym, *this));
        }
        if (!refs.count(sym))
          order_of_symbols.push_back(sym);
        refs[sym].push_back(Ref{path, &s, defining, order});
      }
    }
    for (const auto &op : e.operands)
      if (op)
        scan_expr(*op, s, defining_stmt);
    for (const auto &k : e.keywords)
      if (k.value)
        scan_expr(*k.value, s, defining_stmt);
  };
  std::function<void(const std::vector<ast::StmtPtr> &)> scan_block;
  scan_block = [&](const std::vector<ast::StmtPtr> &body) {
    path.push_back(next_block++);
    for (const auto &sp : body) {
      const Stmt &s = *sp;
      ++order;
      const bool defining_stmt =
          (s.kind == StmtKind::Assign && s.targets.size() == 1 &&
           s.targets[0]->kind == ExprKind::Name) ||
          (s.kind == StmtKind::AnnAssign && s.target && s.target->kind == ExprKind::Name);
      for (const auto &t : s.targets)
        scan_expr(*t, s, defining_stmt);
      if (s.target)
        scan_expr(*s.target, s, defining_stmt);
      if (s.value)
        scan_expr(*s.value, s, false);
      if (!s.body.empty())
        scan_block(s.body);
      if (!s.orelse.empty())
        scan_block(s.orelse);
    }
    path.pop_back();
  };
  scan_block(function.body);
  for (const Symbol *sym : order_of_symbols) {
    const auto &list = refs[sym];
    std::vector<int> common = list.front().path;
    for (const Ref &r : list) {
      size_t k = 0;
      while (k < common.size() && k < r.path.size() && common[k] == r.path[k])
        ++k;
      common.resize(k);
    }
    const Ref *first = &list.front();
    for (const Ref &r : list)
      if (r.order < first->order)
        first = &r;
    LocalDecl decl;
    if (first->defining && first->path == common)
      decl.at = first->stmt;
    decls_[sym] = decl;
  }

  // Value ranges of integer locals and loop variables (three rounds, each sound).
  struct Assignment {
    const Symbol *symbol;
    const Expr *value;
    bool aug;
    BinaryOp op;
  };
  struct Loop {
    const Symbol *symbol;
    const Expr *range;
  };
  std::vector<Assignment> assignments;
  std::vector<Loop> loops;
  std::function<void(const std::vector<ast::StmtPtr> &)> collect;
  collect = [&](const std::vector<ast::StmtPtr> &body) {
    for (const auto &sp : body) {
      const Stmt &s = *sp;
      auto add = [&](const Expr *target, const Expr *value, bool aug) {
        if (!target || target->kind != ExprKind::Name)
          return;
        const Symbol *sym = symbol_of(*target);
        if (!sym || sym->kind != SymbolKind::Local || sym->type.kind != TypeKind::Scalar ||
            !is_signed_int(sym->type.scalar))
          return;
        assignments.push_back(Assignment{sym, value, aug, s.aug_op});
      };
      if (s.kind == StmtKind::Assign) {
        for (const auto &t : s.targets) {
          if (t->kind == ExprKind::Tuple) {
            for (const auto &el : t->operands)
              add(el.get(), nullptr, false);
          } else {
            add(t.get(), s.value.get(), false);
          }
        }
      } else if (s.kind == StmtKind::AnnAssign) {
        add(s.target.get(), s.value.get(), false);
      } else if (s.kind == StmtKind::AugAssign) {
        add(s.target.get(), s.value.get(), true);
      } else if (s.kind == StmtKind::For && s.target && s.target->kind == ExprKind::Name) {
        if (const Symbol *sym = symbol_of(*s.target))
          loops.push_back(Loop{sym, s.value.get()});
      }
      collect(s.body);
      collect(s.orelse);
    }
  };
  collect(function.body);
  const bool saved_quiet = quiet_;
  quiet_ = true;
  for (int round = 0; round < 3; ++round) {
    std::unordered_map<const Symbol *, Interval> next;
    auto merge = [&](const Symbol *s, Interval r) {
      auto it = next.find(s);
      if (it == next.end())
        next[s] = r;
      else
        it->second = hull(it->second, r);
    };
    for (const Loop &loop : loops) {
      const Expr &range = *loop.range;
      Interval r = Interval::all();
      if (range.kind == ExprKind::Call && range.arg_count() >= 1) {
        const Expr *start = range.arg_count() >= 2 ? &range.arg(0) : nullptr;
        const Expr &stop = range.arg_count() >= 2 ? range.arg(1) : range.arg(0);
        const Expr *step = range.arg_count() >= 3 ? &range.arg(2) : nullptr;
        const auto step_value = step ? sema_.constant_of(*step) : std::optional<int64_t>(1);
        if (step_value && *step_value > 0) {
          const Interval lo = start ? iexpr(*start).range() : Interval::point(0);
          const Interval hi = iexpr(stop).range();
          r.lo = lo.lo;
          if (hi.has_upper() && lo.has_lower())
            r.hi = std::max(lo.lo, hi.hi - 1);
        }
      }
      merge(loop.symbol, r);
    }
    for (const Assignment &a : assignments) {
      if (!a.value) {
        merge(a.symbol, Interval::all());
        continue;
      }
      Interval r = iexpr(*a.value).range();
      if (a.aug) {
        auto it = facts_.find(a.symbol);
        const Interval current = it == facts_.end() ? Interval::all() : it->second;
        if ((a.op == BinaryOp::Add || a.op == BinaryOp::Mul) && current.lo >= 0 && r.lo >= 0)
          r = Interval::non_negative();
        else
          r = Interval::all();
      }
      merge(a.symbol, r);
    }
    facts_ = next;
  }
  quiet_ = saved_quiet;
}

// ---------------------------------------------------------------------------

void Lowerer::block(const std::vector<ast::StmtPtr> &body) {
  for (const auto &s : body)
    stmt(*s);
}

void Lowerer::mark_written(const View &v) {
  if (v.buffer >= 0)
    buffers_[static_cast<size_t>(v.buffer)].written = true;
}

void Lowerer::stmt(const Stmt &s) {
  // Tags, assertions and assume leave no trace in device code.
  if (s.kind == StmtKind::Expr && s.value && s.value->kind == ExprKind::Call &&
      is_checker_only(builtin_of(*s.value)))
    return;
  if (s.kind == StmtKind::Pass)
    return;
  line_directive(s.range);
  switch (s.kind) {
  case StmtKind::Expr: {
    const Expr &e = *s.value;
    if (e.kind != ExprKind::Call) {
      line("(void)" + paren(expr(e)) + ";");
      return;
    }
    const BuiltinId id = builtin_of(e);
    const bool cuda = target_ == GpuTarget::Sm90;
    if (id == BuiltinId::Syncthreads) {
      line("__syncthreads();");
    } else if (id == BuiltinId::ClusterSync) {
      // Release what this thread did, acquire what all others of the cluster did.
      line("asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\t"
           "barrier.cluster.wait.acquire.aligned;\\n\" ::: \"memory\");");
    } else if (id == BuiltinId::Barrier || id == BuiltinId::BarrierArrive) {
      // Sema makes a kernel that calls barrier() an sm90 kernel with constant operands.
      const auto bar = sema_.constant_of(e.arg(0)), threads = sema_.constant_of(e.arg(1));
      if (!cuda || !bar || !threads) {
        error(e.range, "barrier(id, threads) and barrier_arrive(id, threads) are sm90 only, with "
                       "constant operands");
        return;
      }
      const char *op = id == BuiltinId::Barrier ? "bar.sync " : "bar.arrive ";
      line("asm volatile(\"" + std::string(op) + std::to_string(*bar) + ", " +
           std::to_string(*threads) + ";\" ::: \"memory\");");
    } else if (id == BuiltinId::Syncwarp) {
      line(cuda ? "__syncwarp();" : "argus_syncwarp();");
    } else if (id == BuiltinId::Threadfence) {
      const Expr *scope = call_arg(e, 0, "scope");
      const bool block = scope && scope->kind == ExprKind::String && scope->name == "block";
      if (cuda)
        line(block ? "__threadfence_block();" : "__threadfence();");
      else
        line(block ? "__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, \"workgroup\");"
                   : "__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, \"agent\");");
    } else if (id == BuiltinId::AsyncCommit) {
      if (cuda)
        line("asm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\");");
      else
        line("// async_commit(): gfx942 has no asynchronous copies to group");
    } else if (id == BuiltinId::AsyncWait) {
      const Expr *n = call_arg(e, 0, "n");
      const int64_t count = n ? sema_.constant_of(*n).value_or(0) : 0;
      if (cuda)
        line("asm volatile(\"cp.async.wait_group " + std::to_string(count) +
             ";\\n\" ::: \"memory\");");
      else
        line("// async_wait(" + std::to_string(count) + "): nothing to wait for on gfx942");
    } else if (is_intrinsic(id)) {
      intrinsic_statement(e);
    } else {
      const Type *t = type_of(e);
      const std::string text = expr(e);
      if (t && t->kind != TypeKind::Void)
        line("(void)" + text + ";");
      else
        line(text + ";");
    }
    return;
  }
  case StmtKind::Assign: {
    if (s.targets.size() == 1 && s.targets[0]->kind == ExprKind::Tuple) {
      const Expr &targets = *s.targets[0];
      const Expr &value = *s.value;
      if (value.kind != ExprKind::Tuple || value.operands.size() != targets.operands.size()) {
        error(s.range, "tuple assignment needs a tuple of the same length on the right");
        return;
      }
      // Evaluate every value first (Python semantics), then assign.
      line("{");
      ++indent_;
      std::vector<std::string> temps;
      for (size_t i = 0; i < value.operands.size(); ++i) {
        const Symbol *sym = symbol_of(*targets.operands[i]);
        const ScalarKind k = sym && sym->type.kind == TypeKind::Scalar
                                 ? sym->type.scalar
                                 : kind_of(*value.operands[i], std::nullopt);
        const std::string temp = "argus_t" + std::to_string(i);
        line("const " + type_name(k, target_) + " " + temp + " = " + expr(*value.operands[i], k) +
             ";");
        temps.push_back(temp);
      }
      for (size_t i = 0; i < value.operands.size(); ++i) {
        const Expr &t = *targets.operands[i];
        if (t.kind == ExprKind::Name) {
          const Symbol *sym = symbol_of(t);
          if (sym && !sym->value)
            line(local_name(sym) + " = " + temps[i] + ";");
        } else if (auto v = view_of(t)) {
          mark_written(*v);
          line(element_ref(*v) + " = " + temps[i] + ";");
        }
      }
      --indent_;
      line("}");
      return;
    }
    for (const auto &target : s.targets)
      assign(s, *target, *s.value);
    return;
  }
  case StmtKind::AnnAssign: {
    if (s.value) {
      assign(s, *s.target, *s.value);
    } else if (const Symbol *sym = symbol_of(*s.target); sym && decls_[sym].at == &s) {
      line(type_name(sym->type.scalar, target_) + " " + local_name(sym) + ";");
    }
    return;
  }
  case StmtKind::AugAssign: {
    const Expr &target = *s.target;
    const Type *tt = type_of(target);
    if (!tt || tt->kind != TypeKind::Scalar) {
      error(s.range, "augmented assignment to a tensor cannot be lowered; index an element");
      return;
    }
    const ScalarKind k = tt->scalar;
    std::string lhs;
    if (target.kind == ExprKind::Name) {
      lhs = expr(target);
    } else {
      auto v = view_of(target);
      if (!v)
        return;
      mark_written(*v);
      lhs = element_ref(*v);
    }
    if (is_signed_int(k)) {
      const ExprRef r = int_binary(s.aug_op, iexpr(target), iexpr(*s.value));
      if (r.is_null()) {
        error(s.range, "this augmented assignment cannot be lowered");
        return;
      }
      line(lhs + " = " + cpp(r) + ";");
      return;
    }
    const bool shift = s.aug_op == BinaryOp::Shl || s.aug_op == BinaryOp::Shr;
    const std::string rhs = shift ? expr(*s.value) : expr(*s.value, k);
    switch (s.aug_op) {
    case BinaryOp::FloorDiv:
      line(lhs + " /= " + rhs + ";");
      return;
    case BinaryOp::Div:
      if (fast_math_ && k == ScalarKind::F32 && target_ == GpuTarget::Sm90) {
        line(lhs + " = __fdividef(" + lhs + ", " + rhs + ");");
        return;
      }
      line(lhs + " /= " + rhs + ";");
      return;
    case BinaryOp::Pow:
      error(s.range, "a runtime power cannot be lowered");
      return;
    default:
      line(lhs + " " + ast::to_string(s.aug_op) + "= " + rhs + ";");
      return;
    }
  }
  case StmtKind::If: {
    line("if (" + condition(expr(*s.value)) + ") {");
    ++indent_;
    block(s.body);
    --indent_;
    if (!s.orelse.empty()) {
      line("} else {");
      ++indent_;
      block(s.orelse);
      --indent_;
    }
    line("}");
    return;
  }
  case StmtKind::For:
    for_loop(s);
    return;
  case StmtKind::While:
    line("while (" + condition(expr(*s.value)) + ") {");
    ++indent_;
    block(s.body);
    --indent_;
    line("}");
    return;
  case StmtKind::Return: {
    if (!s.value || fn_->role == sema::FunctionRole::Kernel) {
      line("return;");
      return;
    }
    std::optional<ScalarKind> k;
    if (fn_->return_type.kind == TypeKind::Scalar)
      k = fn_->return_type.scalar;
    line("return " + expr(*s.value, k) + ";");
    return;
  }
  case StmtKind::Break:
    line("break;");
    return;
  case StmtKind::Continue:
    line("continue;");
    return;
  case StmtKind::Pass:
    return;
  case StmtKind::Error:
    error(s.range, "cannot lower a statement the front end could not read");
    return;
  }
}

void Lowerer::for_loop(const Stmt &s) {
  const Expr &range = *s.value;
  const Symbol *var = s.target ? symbol_of(*s.target) : nullptr;
  if (range.kind != ExprKind::Call || range.arg_count() < 1 || !var) {
    error(s.range, "only for ... in range(...) loops can be lowered");
    return;
  }
  const Expr *start = range.arg_count() >= 2 ? &range.arg(0) : nullptr;
  const Expr &stop = range.arg_count() >= 2 ? range.arg(1) : range.arg(0);
  const Expr *step = range.arg_count() >= 3 ? &range.arg(2) : nullptr;
  const ScalarKind k = var->type.kind == TypeKind::Scalar ? var->type.scalar : ScalarKind::I32;
  const std::string t = type_name(k, target_);
  const std::string v = local_name(var);
  const std::string start_text = start ? expr(*start, k) : literal_int(0, k);
  std::string stop_text = expr(stop, k);
  std::string init = t + " " + v + " = " + start_text;
  const bool stop_simple = sema_.constant_of(stop).has_value() || stop.kind == ExprKind::Name;
  if (!stop_simple) {
    const std::string end = unique_name(v + "_end");
    init += ", " + end + " = " + stop_text;
    stop_text = end;
  }
  std::optional<int64_t> step_value = step ? sema_.constant_of(*step) : std::optional<int64_t>(1);
  std::string condition;
  std::string increment;
  if (step_value) {
    condition = v + (*step_value > 0 ? " < " : " > ") + stop_text;
    increment = *step_value == 1 ? "++" + v : v + " += " + literal_int(*step_value, k);
  } else {
    const std::string step_name = unique_name(v + "_step");
    init += ", " + step_name + " = " + expr(*step, k);
    condition =
        "(" + step_name + " > 0 ? " + v + " < " + stop_text + " : " + v + " > " + stop_text + ")";
    increment = v + " += " + step_name;
  }
  if (const ast::Keyword *unroll = range.keyword("unroll")) {
    const int64_t n = sema_.constant_of(*unroll->value).value_or(0);
    std::optional<int64_t> trips;
    const auto lo = start ? sema_.constant_of(*start) : std::optional<int64_t>(0);
    const auto hi = sema_.constant_of(stop);
    if (lo && hi && step_value && *step_value > 0)
      trips = std::max<int64_t>(0, (*hi - *lo + *step_value - 1) / *step_value);
    if (n <= 1)
      line("#pragma unroll 1");
    else if (trips && n >= *trips)
      line("#pragma unroll");
    else
      line("#pragma unroll " + std::to_string(n));
  }
  line("for (" + init + "; " + condition + "; " + increment + ") {");
  ++indent_;
  block(s.body);
  --indent_;
  line("}");
}

// ---------------------------------------------------------------------------
// Assignments.

void Lowerer::assign(const Stmt &s, const Expr &target, const Expr &value) {
  if (target.kind == ExprKind::Name) {
    const Symbol *sym = symbol_of(target);
    if (!sym) {
      error(target.range, "cannot lower an assignment to '" + target.name + "'");
      return;
    }
    if (sym->type.is_tensor() || (type_of(value) && type_of(value)->is_tensor())) {
      assign_tensor(s, target, value);
      return;
    }
    if (sym->value && sym->kind == SymbolKind::Local)
      return; // a compile-time constant: every use is folded
    if (sym->type.kind != TypeKind::Scalar) {
      error(target.range, "cannot lower a local of type " + sym->type.str());
      return;
    }
    const ScalarKind k = sym->type.scalar;
    const std::string text = expr(value, k);
    // [[maybe_unused]]: a local read only by assertions (which emit nothing)
    // must not make the device compiler warn about generated code; unused
    // locals are the front end's W0301, at the user's line.
    if (sym->kind == SymbolKind::Local && decls_[sym].at == &s)
      line("[[maybe_unused]] " + type_name(k, target_) + " " + local_name(sym) + " = " + text +
           ";");
    else
      line((sym->kind == SymbolKind::Parameter ? cpp_name(sym->name) : local_name(sym)) + " = " +
           text + ";");
    return;
  }
  if (target.kind == ExprKind::Subscript) {
    const Type *tt = type_of(target);
    if (tt && tt->is_tensor()) {
      assign_tensor(s, target, value);
      return;
    }
    auto v = view_of(target);
    if (!v)
      return;
    if (!v->shape.empty()) {
      error(target.range, "cannot store a scalar into a view; index it down to an element");
      return;
    }
    const std::string rhs = expr(value, v->dtype);
    mark_written(*v);
    line(element_ref(*v) + " = " + rhs + ";");
    return;
  }
  error(target.range, "cannot lower an assignment to this expression");
}

void Lowerer::bind_new_buffer(const Stmt &s, const Symbol *symbol, const Expr &call) {
  (void)s;
  const BuiltinId id = builtin_of(call);
  const Expr *shape_e = call_arg(call, 0, "shape");
  const Expr *dtype_e = call_arg(call, id == BuiltinId::Full ? 2 : 1, "dtype");
  const Type *dt = dtype_e ? type_of(*dtype_e) : nullptr;
  if (!shape_e || !dt || dt->kind != TypeKind::Dtype) {
    error(call.range, "cannot lower this " + builtin_name(id) + "(...)");
    return;
  }
  auto shape = int_tuple(*shape_e);
  int64_t count = 1;
  for (ExprRef d : *shape) {
    if (!d.is_constant()) {
      error(call.range, builtin_name(id) + " needs a compile-time shape");
      return;
    }
    count *= d.constant();
  }
  Buffer b;
  b.name = unique_name(local_name(symbol));
  b.dtype = dt->scalar;
  b.space = id == BuiltinId::MakeShared ? MemorySpace::Shared : MemorySpace::Local;
  b.elements = count;
  std::vector<ExprRef> strides;
  if (id == BuiltinId::MakeShared) {
    if (const Expr *layout_e = call_arg(call, 2, "layout")) {
      std::function<bool(const Expr &)> read_layout = [&](const Expr &l) -> bool {
        const BuiltinId lid = builtin_of(l);
        if (lid == BuiltinId::Swizzle && l.arg_count() == 3) {
          layout::Swizzle sw;
          sw.bits = static_cast<int>(sema_.constant_of(l.arg(0)).value_or(0));
          sw.base = static_cast<int>(sema_.constant_of(l.arg(1)).value_or(0));
          sw.shift = static_cast<int>(sema_.constant_of(l.arg(2)).value_or(0));
          if (sw.bits > 0)
            b.swizzle = sw;
          return true;
        }
        if (lid == BuiltinId::MakeLayout && l.arg_count() == 2) {
          auto st = int_tuple(l.arg(1));
          if (!st || st->size() != shape->size())
            return false;
          strides = *st;
          return true;
        }
        if (lid == BuiltinId::Compose && l.arg_count() == 2)
          return read_layout(l.arg(0)) && read_layout(l.arg(1));
        return false;
      };
      if (!read_layout(*layout_e)) {
        error(layout_e->range, "this shared-memory layout cannot be lowered (use make_layout, "
                               "Swizzle or compose(Swizzle, make_layout) with flat modes)");
        return;
      }
      if (!strides.empty()) {
        int64_t cosize = 1;
        for (size_t i = 0; i < strides.size(); ++i) {
          if (!strides[i].is_constant()) {
            error(layout_e->range, "a shared-memory layout needs compile-time strides");
            return;
          }
          cosize += ((*shape)[i].constant() - 1) * strides[i].constant();
        }
        b.elements = std::max(count, cosize);
      }
    }
  }
  buffers_.push_back(b);
  const int index = static_cast<int>(buffers_.size() - 1);
  views_[symbol] = buffer_view(index, *shape, strides);
  if (id == BuiltinId::Full) {
    const Expr *value = call_arg(call, 1, "value");
    const std::string v = value ? expr(*value, b.dtype) : literal_int(0, b.dtype);
    line("#pragma unroll");
    line("for (int argus_i = 0; argus_i < " + std::to_string(count) + "; ++argus_i)");
    line("  " + b.name + "[argus_i] = " + v + ";");
  }
}

void Lowerer::assign_tensor(const Stmt &s, const Expr &target, const Expr &value) {
  const BuiltinId vid = value.kind == ExprKind::Call ? builtin_of(value) : BuiltinId::None;
  const Symbol *sym = target.kind == ExprKind::Name ? symbol_of(target) : nullptr;
  if (vid == BuiltinId::MakeShared || vid == BuiltinId::MakeLocal || vid == BuiltinId::Full) {
    if (!sym) {
      error(target.range, builtin_name(vid) + "(...) must be assigned to a name");
      return;
    }
    bind_new_buffer(s, sym, value);
    return;
  }
  const bool intrinsic = is_intrinsic(vid);
  if (intrinsic) {
    std::optional<View> dst;
    if (sym && !views_.count(sym)) {
      // A new local fragment for the result.
      const Type *rt = type_of(value);
      if (!rt || !rt->tensor) {
        error(value.range, "cannot lower this intrinsic's result");
        return;
      }
      Buffer b;
      b.name = unique_name(local_name(sym));
      b.dtype = rt->tensor->dtype;
      b.space = MemorySpace::Local;
      std::vector<ExprRef> shape;
      int64_t count = 1;
      for (const sema::Dim &d : rt->tensor->shape) {
        shape.push_back(ctx_.constant(d.value.value_or(1)));
        count *= d.value.value_or(1);
      }
      b.elements = count;
      buffers_.push_back(b);
      views_[sym] = buffer_view(static_cast<int>(buffers_.size() - 1), shape, {});
      dst = views_[sym];
    } else {
      dst = view_of(target);
    }
    if (!dst)
      return;
    if (!intrinsic_into(value, *dst))
      error(value.range, "cannot lower '" + value.callee().dotted_name() + "' here");
    return;
  }
  auto src = view_of(value);
  if (!src)
    return;
  if (sym) {
    // A name bound to a view: an alias, never a copy.
    if (!views_.count(sym) || views_[sym].buffer == src->buffer) {
      bool runtime_offset = false;
      for (ExprRef symbol_ref : layout::symbols_of(src->offset)) {
        const std::string n(symbol_ref.symbol_name());
        bool is_param = false;
        for (const Symbol *p : fn_->params)
          if (p && cpp_name(p->name) == n)
            is_param = true;
        if (!is_param)
          runtime_offset = true;
      }
      if (runtime_offset) {
        // The view's position depends on values that may change later: keep it in a variable.
        const std::string off = local_name(sym) + "_offset";
        if (decls_[sym].at == &s)
          line("const int " + off + " = " + cpp(src->offset) + ";");
        else {
          offset_vars_.insert(off);
          line(off + " = " + cpp(src->offset) + ";");
        }
        src->offset = ctx_.symbol(off, src->offset.range());
      }
      views_[sym] = *src;
      return;
    }
    error(target.range, "'" + target.name +
                            "' is rebound to a view of another tensor; the code "
                            "generator needs one tensor per view name");
    return;
  }
  auto dst = view_of(target);
  if (!dst)
    return;
  copy(*dst, *src, "");
}

// ---------------------------------------------------------------------------
// Copies between views: one vector access when both are contiguous memory of
// 2, 4, 8 or 16 bytes; through a vector temporary between memory and registers.

void Lowerer::store_values(const View &dst, const std::vector<std::string> &values) {
  mark_written(dst);
  const auto refs = element_refs(dst);
  if (refs.size() != values.size()) {
    error(Range{}, "fragment sizes do not match");
    return;
  }
  const Buffer &b = buffers_[static_cast<size_t>(dst.buffer)];
  const auto n = element_count(dst);
  const int64_t bytes = n ? *n * bytes_of(dst.dtype) : 0;
  const std::string vt = vector_type(bytes, target_);
  if (b.space != MemorySpace::Local && contiguous(dst) && !vt.empty() && values.size() > 1) {
    const std::string t = type_name(dst.dtype, target_);
    line("{");
    ++indent_;
    line(vt + " argus_v;");
    line(t + " *argus_e = reinterpret_cast<" + t + " *>(&argus_v);");
    for (size_t i = 0; i < values.size(); ++i)
      line("argus_e[" + std::to_string(i) + "] = " + values[i] + ";");
    line("*reinterpret_cast<" + vt + " *>(" + address_of(dst) + ") = argus_v;");
    --indent_;
    line("}");
    return;
  }
  for (size_t i = 0; i < values.size(); ++i)
    line(refs[i] + " = " + values[i] + ";");
}

void Lowerer::copy(const View &dst, const View &src, const std::string &what) {
  const auto n = element_count(dst);
  const auto m = element_count(src);
  if (!n || !m || *n != *m) {
    error(Range{}, "a copy between views needs equal, compile-time sizes");
    return;
  }
  mark_written(dst);
  const Buffer &db = buffers_[static_cast<size_t>(dst.buffer)];
  const Buffer &sb = buffers_[static_cast<size_t>(src.buffer)];
  const int64_t bytes = *n * bytes_of(dst.dtype);
  const std::string vt = vector_type(bytes, target_);
  auto vector_ok = [&](const View &v, const Buffer &b) {
    if (b.space == MemorySpace::Local || vt.empty() || !contiguous(v))
      return false;
    if (b.swizzle) {
      int log2b = 0;
      while ((int64_t{1} << log2b) < bytes)
        ++log2b;
      if (b.swizzle->base < log2b)
        return false;
    }
    return true;
  };
  const bool dv = vector_ok(dst, db);
  const bool sv = vector_ok(src, sb);
  const std::string t = type_name(dst.dtype, target_);
  if (!what.empty())
    line("// " + what);
  if (dv && sv) {
    line("*reinterpret_cast<" + vt + " *>(" + address_of(dst) + ") = *reinterpret_cast<const " +
         vt + " *>(" + address_of(src) + ");");
    return;
  }
  if (sv && db.space == MemorySpace::Local) {
    const auto refs = element_refs(dst);
    line("{");
    ++indent_;
    line("const " + vt + " argus_v = *reinterpret_cast<const " + vt + " *>(" + address_of(src) +
         ");");
    line("const " + t + " *argus_e = reinterpret_cast<const " + t + " *>(&argus_v);");
    for (size_t i = 0; i < refs.size(); ++i)
      line(refs[i] + " = argus_e[" + std::to_string(i) + "];");
    --indent_;
    line("}");
    return;
  }
  const auto src_refs = element_refs(src);
  if (dv && sb.space == MemorySpace::Local) {
    store_values(dst, src_refs);
    return;
  }
  const auto dst_refs = element_refs(dst);
  for (size_t i = 0; i < dst_refs.size() && i < src_refs.size(); ++i)
    line(dst_refs[i] + " = " + src_refs[i] + ";");
}

// amdgpu.raw_buffer_load_x{1,2,4} from a row-major tensor parameter: a real buffer load
// (buffer_load_dword{,x2,x4}) through a resource for the tensor's base, with the element's
// byte offset as voffset. Buffer loads keep the base in SGPRs (no 64-bit address per lane)
// and the hardware range-checks the offset against num_records, which is why the intrinsic
// exists. The host check limits such tensors to 2 GiB (the byte offset is int32 arithmetic). The
// bytes go into dst bit for bit, as copy() would move them. False: not applicable (copy() instead).
std::optional<std::string> Lowerer::buffer_load_text(BuiltinId id, const View &src,
                                                     std::string *why) {
  const auto fail = [&](const std::string &reason) -> std::optional<std::string> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  const Buffer &sb = buffers_[static_cast<size_t>(src.buffer)];
  const auto m = element_count(src);
  if (target_ == GpuTarget::Sm90)
    return fail("buffer loads exist on gfx942 only");
  if (fn_->role != sema::FunctionRole::Kernel)
    return fail("it is in a @device function; buffer loads are lowered in kernels (load there "
                "and pass the values)");
  if (sb.space != MemorySpace::Global || !sb.param || sb.swizzle || !m || !contiguous(src) ||
      !src.tile.empty())
    return fail("its source is not a contiguous row-major view of a kernel's tensor parameter");
  const int64_t bytes = *m * bytes_of(src.dtype);
  const int64_t want = id == BuiltinId::AmdBufferLoadX1   ? 4
                       : id == BuiltinId::AmdBufferLoadX2 ? 8
                                                          : 16;
  if (bytes != want)
    return fail("its source is " + std::to_string(bytes) + " bytes, the load " +
                std::to_string(want));
  if (src.offset.multiple_of() % 4 != 0)
    return fail("its byte offset is not provably a multiple of 4 (index the tensor through a "
                "view whose last dimension holds the load's elements)");
  // The tensor's extent: row-major parameters only (their size is checked on the host).
  const ast::Param *param = nullptr;
  for (size_t i = 0; i < fn_->params.size() && i < fn_->function->params.size(); ++i)
    if (fn_->params[i] == sb.param)
      param = &fn_->function->params[i];
  if (!param || !param->annotation || param->annotation->arg_count() >= 3)
    return fail("its tensor parameter has an explicit layout (buffer loads address a row-major "
                "tensor by its byte offset)");
  auto it = views_.find(sb.param);
  if (it == views_.end())
    return fail("its tensor parameter has no view");
  std::string extent =
      "static_cast<unsigned long long>(" + std::to_string(bytes_of(sb.dtype)) + ")";
  for (ExprRef d : it->second.shape)
    extent += " * static_cast<unsigned long long>(" + cpp(d) + ")";
  buffer_loads_.insert(sb.param);
  const std::string bits = bytes == 4 ? "b32" : bytes == 8 ? "b64" : "b128";
  return "argus_buffer_load_" + bits + "(argus_buffer_rsrc(" + sb.name + ", " + extent +
         "), static_cast<unsigned int>(" + cpp(src.offset) + "))";
}

bool Lowerer::buffer_load(BuiltinId id, const View &dst, const View &src, const Range &at) {
  const auto n = element_count(dst);
  const auto m = element_count(src);
  if (!n || !m || *n != *m || *n * bytes_of(dst.dtype) != *m * bytes_of(src.dtype)) {
    error(at, builtin_name(id) + " cannot be lowered: its destination does not hold the " +
                  "loaded elements one for one");
    return false;
  }
  std::string why;
  const auto load = buffer_load_text(id, src, &why);
  if (!load) {
    error(at, builtin_name(id) + " cannot be lowered as a buffer load: " + why);
    return false;
  }
  const Buffer &sb = buffers_[static_cast<size_t>(src.buffer)];
  const int64_t bytes = *m * bytes_of(src.dtype);
  mark_written(dst);
  const std::string vt = vector_type(bytes, target_);
  line("// " + builtin_name(id) + ": a buffer load of " + std::to_string(bytes) + " bytes from " +
       sb.name + " (buffer resource: hardware range check, SGPR base)");
  line("{");
  ++indent_;
  line("const " + vt + " argus_v = " + *load + ";");
  const Buffer &db = buffers_[static_cast<size_t>(dst.buffer)];
  const bool dv = db.space != MemorySpace::Local && contiguous(dst) &&
                  (!db.swizzle || (int64_t{1} << db.swizzle->base) >= bytes);
  if (dv) {
    line("*reinterpret_cast<" + vt + " *>(" + address_of(dst) + ") = argus_v;");
  } else {
    const std::string t = type_name(dst.dtype, target_);
    const auto refs = element_refs(dst);
    line(t + " argus_e[" + std::to_string(refs.size()) + "];");
    line("__builtin_memcpy(argus_e, &argus_v, sizeof(argus_e));");
    for (size_t i = 0; i < refs.size(); ++i)
      line(refs[i] + " = argus_e[" + std::to_string(i) + "];");
  }
  --indent_;
  line("}");
  return true;
}

// ---------------------------------------------------------------------------
// Intrinsics.

std::optional<View> Lowerer::arg_view(const Expr &call, size_t index, const char *name) {
  const Expr *e = call_arg(call, index, name);
  return e ? view_of(*e) : std::nullopt;
}

bool Lowerer::intrinsic_into(const Expr &call, const View &dst) {
  const BuiltinId id = builtin_of(call);
  const bool cuda = target_ == GpuTarget::Sm90;
  if (is_ldmatrix(id) && cuda) {
    const int count = ldmatrix_count(id);
    const bool trans = is_transposed_ldmatrix(id);
    const Expr *src_e = call_arg(call, 0, "src");
    auto src = src_e ? view_of(*src_e) : std::nullopt;
    if (!src)
      return false;
    std::string outs;
    std::string regs;
    for (int i = 0; i < count; ++i) {
      regs += (i ? ", " : "") + std::string("%") + std::to_string(i);
      outs += (i ? ", " : "") + std::string("\"=r\"(argus_r[") + std::to_string(i) + "])";
    }
    const std::string t = type_name(dst.dtype, target_);
    line("{");
    ++indent_;
    line("uint32_t argus_r[" + std::to_string(count) + "];");
    line("asm volatile(\"ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
         (trans ? ".trans" : "") + ".shared.b16 {" + regs + "}, [%" + std::to_string(count) +
         "];\\n\"");
    line("             : " + outs);
    line("             : \"r\"(argus_smem_addr(" + address_of(*src) + ")));");
    std::vector<std::string> values;
    for (int i = 0; i < 2 * count; ++i)
      values.push_back("argus_unpack<" + t + ">(argus_r[" + std::to_string(i / 2) + "], " +
                       std::to_string(i % 2) + ")");
    store_values(dst, values);
    --indent_;
    line("}");
    return true;
  }
  if ((id == BuiltinId::NvvmMmaBf16 || id == BuiltinId::NvvmMmaF16) && cuda) {
    auto a = arg_view(call, 0, "a");
    auto b = arg_view(call, 1, "b");
    auto c = arg_view(call, 2, "c");
    if (!a || !b || !c)
      return false;
    const auto ar = element_refs(*a);
    const auto br = element_refs(*b);
    const auto cr = element_refs(*c);
    if (ar.size() != 8 || br.size() != 4 || cr.size() != 4)
      return false;
    const std::string ty = id == BuiltinId::NvvmMmaBf16 ? "bf16" : "f16";
    line("{");
    ++indent_;
    line("float argus_d[4];");
    line("asm(\"mma.sync.aligned.m16n8k16.row.col.f32." + ty + "." + ty +
         ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\\n\"");
    line("    : \"=f\"(argus_d[0]), \"=f\"(argus_d[1]), \"=f\"(argus_d[2]), \"=f\"(argus_d[3])");
    std::string ins = "    : ";
    for (int i = 0; i < 4; ++i)
      ins += "\"r\"(argus_pack2(" + ar[2 * i] + ", " + ar[2 * i + 1] + ")), ";
    line(ins);
    ins = "      ";
    for (int i = 0; i < 2; ++i)
      ins += "\"r\"(argus_pack2(" + br[2 * i] + ", " + br[2 * i + 1] + ")), ";
    line(ins);
    ins = "      ";
    for (int i = 0; i < 4; ++i)
      ins += "\"f\"(" + cr[static_cast<size_t>(i)] + ")" + (i < 3 ? ", " : "");
    line(ins + ");");
    store_values(dst, {"argus_d[0]", "argus_d[1]", "argus_d[2]", "argus_d[3]"});
    --indent_;
    line("}");
    return true;
  }
  if ((id == BuiltinId::AmdMfma32x32x8Bf16 || id == BuiltinId::AmdMfma16x16x16Bf16 ||
       id == BuiltinId::AmdMfma16x16x32Fp8) &&
      !cuda) {
    auto a = arg_view(call, 0, "a");
    auto b = arg_view(call, 1, "b");
    auto c = arg_view(call, 2, "c");
    if (!a || !b || !c)
      return false;
    const auto ar = element_refs(*a);
    const auto br = element_refs(*b);
    const auto cr = element_refs(*c);
    std::string builtin;
    std::string ct;
    bool fp8 = false;
    if (id == BuiltinId::AmdMfma32x32x8Bf16) {
      builtin = "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k";
      ct = "argus_f32x16";
    } else if (id == BuiltinId::AmdMfma16x16x16Bf16) {
      builtin = "__builtin_amdgcn_mfma_f32_16x16x16bf16_1k";
      ct = "argus_f32x4";
    } else if (id == BuiltinId::AmdMfma16x16x32Fp8) {
      builtin = "__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8";
      ct = "argus_f32x4";
      fp8 = true;
    } else {
      return false;
    }
    line("{");
    ++indent_;
    auto operand = [&](const std::string &var, const std::vector<std::string> &refs) {
      if (fp8) {
        std::string bits = "const long " + var + " = ";
        for (size_t i = 0; i < refs.size(); ++i)
          bits += (i ? " | " : "") + std::string("(static_cast<long>(") + refs[i] + ".bits) << " +
                  std::to_string(8 * i) + ")";
        line(bits + ";");
        return;
      }
      std::string init = "const argus_s16x4 " + var + " = {";
      for (size_t i = 0; i < refs.size(); ++i)
        init += (i ? ", " : "") + std::string("static_cast<short>(__bfloat16_as_ushort(") +
                refs[i] + "))";
      line(init + "};");
    };
    operand("argus_a", ar);
    operand("argus_b", br);
    std::string init = ct + " argus_c = {";
    for (size_t i = 0; i < cr.size(); ++i)
      init += (i ? ", " : "") + cr[i];
    line(init + "};");
    line("argus_c = " + builtin + "(argus_a, argus_b, argus_c, 0, 0, 0);");
    std::vector<std::string> values;
    for (size_t i = 0; i < cr.size(); ++i)
      values.push_back("argus_c[" + std::to_string(i) + "]");
    store_values(dst, values);
    --indent_;
    line("}");
    return true;
  }
  if ((id == BuiltinId::AmdBufferLoadX1 || id == BuiltinId::AmdBufferLoadX2 ||
       id == BuiltinId::AmdBufferLoadX4 || id == BuiltinId::AmdDsReadB128) &&
      !cuda) {
    const Expr *src_e = call_arg(call, 0, "src");
    auto src = src_e ? view_of(*src_e) : std::nullopt;
    if (!src)
      return false;
    if (id != BuiltinId::AmdDsReadB128) {
      buffer_load(id, dst, *src, call.range); // or an error: never a plain load
      return true;
    }
    copy(dst, *src, "amdgpu.ds_read_b128: one 16-byte LDS load");
    return true;
  }
  return false;
}

void Lowerer::intrinsic_statement(const Expr &call) {
  const BuiltinId id = builtin_of(call);
  const bool cuda = target_ == GpuTarget::Sm90;
  if (is_cp_async(id) && cuda) {
    const std::string bytes = std::to_string(transfer_bytes(id));
    const Expr *de = call_arg(call, 0, "dst");
    const Expr *se = call_arg(call, 1, "src");
    auto dst = de ? view_of(*de) : std::nullopt;
    auto src = se ? view_of(*se) : std::nullopt;
    if (!dst || !src)
      return;
    mark_written(*dst);
    const std::string cache = bytes == "16" ? "cg" : "ca";
    const Expr *valid = call_arg(call, 2, "valid");
    if (valid) {
      // src-size 0 zero-fills the destination and reads nothing; the address
      // is then the tensor's base, never an index past its end.
      const std::string base = buffers_[static_cast<size_t>(src->buffer)].name;
      line("{");
      line("  const bool argus_valid = " + expr(*valid, ScalarKind::Bool) + ";");
      line("  asm volatile(\"cp.async." + cache + ".shared.global [%0], [%1], " + bytes +
           ", %2;\\n\"");
      line("               :: \"r\"(argus_smem_addr(" + address_of(*dst) +
           ")), \"l\"(argus_valid ? static_cast<const void *>(" + address_of(*src) +
           ") : static_cast<const void *>(" + base + ")), \"r\"(argus_valid ? " + bytes + " : 0)");
      line("               : \"memory\");");
      line("}");
      return;
    }
    line("asm volatile(\"cp.async." + cache + ".shared.global [%0], [%1], " + bytes + ";\\n\"");
    line("             :: \"r\"(argus_smem_addr(" + address_of(*dst) + ")), \"l\"(" +
         address_of(*src) + ")");
    line("             : \"memory\");");
    return;
  }
  if (cuda && is_wgmma(id)) {
    static const std::map<BuiltinId, std::string> kTypes = {{BuiltinId::NvvmWgmmaBf16, "bf16"},
                                                            {BuiltinId::NvvmWgmmaF16, "f16"},
                                                            {BuiltinId::NvvmWgmmaE4m3, "e4m3"},
                                                            {BuiltinId::NvvmWgmmaE5m2, "e5m2"}};
    wgmma(call, kTypes.at(id));
    return;
  }
  if (cuda && id == BuiltinId::NvvmFenceProxyAsync) {
    line("asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\");");
    return;
  }
  if (cuda && (id == BuiltinId::NvvmSetmaxnregInc || id == BuiltinId::NvvmSetmaxnregDec)) {
    const Expr *n = call_arg(call, 0, "count");
    const int64_t count = n ? sema_.constant_of(*n).value_or(0) : 0;
    line(std::string("asm volatile(\"setmaxnreg.") +
         (id == BuiltinId::NvvmSetmaxnregInc ? "inc" : "dec") + ".sync.aligned.u32 " +
         std::to_string(count) + ";\\n\" ::: \"memory\");");
    return;
  }
  if (cuda && (id == BuiltinId::NvvmTmaLoad || id == BuiltinId::NvvmTmaLoadMulticast)) {
    tma_load(call);
    return;
  }
  if (cuda && id == BuiltinId::NvvmMbarrierArriveCluster) {
    auto bar = arg_view(call, 0, "bar");
    const Expr *rank = call_arg(call, 1, "rank");
    if (!bar || !rank)
      return;
    // The default .release.cta, as CUTLASS's ClusterBarrier::arrive: with
    // .release.cluster the multicast GEMM ran at 502 TF/s instead of 668 on
    // an H100 (bench/RESULTS.md), every k-tile paying a cluster-scope fence.
    line("asm volatile(\"mbarrier.arrive.shared::cluster.b64 _, [%0];\\n\" :: "
         "\"r\"(argus_cluster_addr(" +
         address_of(*bar) + ", static_cast<uint32_t>(" + expr(*rank) + "))) : \"memory\");");
    return;
  }
  if (cuda && id == BuiltinId::NvvmTmaStore) {
    tma_store(call);
    return;
  }
  if (cuda && id == BuiltinId::NvvmTmaStoreWait) {
    const Expr *n = call_arg(call, 0, "n");
    line("asm volatile(\"cp.async.bulk.wait_group.read " +
         std::to_string(n ? sema_.constant_of(*n).value_or(0) : 0) + ";\\n\" ::: \"memory\");");
    return;
  }
  if (cuda && id == BuiltinId::NvvmCpAsyncBulk) {
    auto dst = arg_view(call, 0, "dst");
    auto src = arg_view(call, 1, "src");
    auto bar = arg_view(call, 2, "bar");
    const auto n = dst ? element_count(*dst) : std::nullopt;
    if (!dst || !src || !bar || !n)
      return;
    mark_written(*dst);
    const std::string bytes = std::to_string(*n * bytes_of(dst->dtype));
    line("asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
         "[%0], [%1], " +
         bytes + ", [%2];\\n\"");
    line("             :: \"r\"(argus_smem_addr(" + address_of(*dst) + ")), \"l\"(" +
         address_of(*src) + "), \"r\"(argus_smem_addr(" + address_of(*bar) + "))");
    line("             : \"memory\");");
    return;
  }
  if (cuda && (id == BuiltinId::NvvmMbarrierInit || id == BuiltinId::NvvmMbarrierArrive ||
               id == BuiltinId::NvvmMbarrierExpectTx || id == BuiltinId::NvvmMbarrierWait)) {
    auto bar = arg_view(call, 0, "bar");
    if (!bar)
      return;
    const std::string addr = "argus_smem_addr(" + address_of(*bar) + ")";
    if (id == BuiltinId::NvvmMbarrierInit) {
      mark_written(*bar);
      const Expr *count = call_arg(call, 1, "count");
      line("asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\\n\" :: \"r\"(" + addr +
           "), \"r\"(static_cast<uint32_t>(" + (count ? expr(*count) : std::string("1")) +
           ")) : \"memory\");");
      // Other blocks of the cluster arrive on it or complete it (multicast)
      // after a cluster_sync(): the init must be visible at cluster scope.
      if (fn_->cluster_size() > 1)
        line("asm volatile(\"fence.mbarrier_init.release.cluster;\\n\" ::: \"memory\");");
    } else if (id == BuiltinId::NvvmMbarrierArrive) {
      line("asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\\n\" :: \"r\"(" + addr +
           ") : \"memory\");");
    } else if (id == BuiltinId::NvvmMbarrierExpectTx) {
      const Expr *bytes = call_arg(call, 1, "bytes");
      line("asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\\n\" :: \"r\"(" +
           addr + "), \"r\"(static_cast<uint32_t>(" + (bytes ? expr(*bytes) : std::string("0")) +
           ")) : \"memory\");");
    } else {
      // try_wait.parity may return before the phase completes (a time limit):
      // ask again until it has.
      const Expr *phase = call_arg(call, 1, "phase");
      line("for (uint32_t argus_done = 0; !argus_done;)");
      line("  asm volatile(\"{ .reg .pred argus_p; mbarrier.try_wait.parity.shared::cta.b64 "
           "argus_p, [%1], %2; selp.u32 %0, 1, 0, argus_p; }\\n\"");
      line("               : \"=r\"(argus_done) : \"r\"(" + addr +
           "), \"r\"(static_cast<uint32_t>(" + (phase ? expr(*phase) : std::string("0")) +
           ") & 1u) : \"memory\");");
    }
    return;
  }
  if (cuda && id == BuiltinId::NvvmWgmmaFence) {
    line(std::string(kWgmmaFenceMarker));
    line("asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");");
    return;
  }
  if (cuda && id == BuiltinId::NvvmWgmmaCommit) {
    line("asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");");
    return;
  }
  if (cuda && id == BuiltinId::NvvmWgmmaWait) {
    const Expr *n = call_arg(call, 0, "n");
    const int64_t count = n ? sema_.constant_of(*n).value_or(0) : 0;
    line("asm volatile(\"wgmma.wait_group.sync.aligned " + std::to_string(count) +
         ";\\n\" ::: \"memory\");");
    line(std::string(kWgmmaFenceMarker));
    return;
  }
  if (id == BuiltinId::AmdWaitcnt && !cuda) {
    const Expr *vm = call_arg(call, 0, "vmcnt");
    const Expr *lgkm = call_arg(call, 1, "lgkmcnt");
    const int64_t v = vm ? sema_.constant_of(*vm).value_or(63) : 63;
    const int64_t l = lgkm ? sema_.constant_of(*lgkm).value_or(15) : 15;
    // gfx9 encoding: vmcnt[3:0] and [15:14], expcnt[6:4] (7: no wait), lgkmcnt[11:8].
    const int64_t encoded = (v & 0xf) | (((v >> 4) & 3) << 14) | (7 << 4) | ((l & 0xf) << 8);
    line("__builtin_amdgcn_s_waitcnt(" + std::to_string(encoded) + "); // vmcnt(" +
         std::to_string(v) + ") lgkmcnt(" + std::to_string(l) + ")");
    return;
  }
  if (id == BuiltinId::AmdSchedGroupBarrier && !cuda) {
    std::string args;
    for (size_t i = 0; i < 3; ++i) {
      const Expr *a = call_arg(call, i, i == 0 ? "mask" : i == 1 ? "size" : "syncid");
      args += (i ? ", " : "") + std::to_string(a ? sema_.constant_of(*a).value_or(0) : 0);
    }
    line("__builtin_amdgcn_sched_group_barrier(" + args + ");");
    return;
  }
  if (id == BuiltinId::AmdSetprio && !cuda) {
    const Expr *p = call_arg(call, 0, "priority");
    line("__builtin_amdgcn_s_setprio(" + std::to_string(p ? sema_.constant_of(*p).value_or(0) : 0) +
         ");");
    return;
  }
  error(call.range, "cannot lower '" + builtin_name(id) + "' as a statement for " +
                        std::string(target_name(target_)));
}

// The four packed registers of an A fragment in registers, read from its
// array's copy packed at the last wgmma_fence: when the array is this
// function's own 16-bit register array and the fragment is 8 contiguous
// values starting on a pair. None otherwise (packed at the wgmma, after the
// fence). The checker proves no thread writes the fragment between its
// wgmma_fence and the wgmma (E0906), so the copy holds the same values.
std::optional<std::vector<std::string>> Lowerer::packed_fragment(const View &a) {
  const Buffer &buf = buffers_[static_cast<size_t>(a.buffer)];
  if (buf.space != MemorySpace::Local || buf.param || buf.swizzle || a.dtype != buf.dtype ||
      bytes_of(buf.dtype) != 2 || buf.elements % 2 != 0)
    return std::nullopt;
  int64_t expected = 1;
  for (size_t i = a.shape.size(); i-- > 0;) {
    if (!a.shape[i].is_constant() || !a.strides[i].is_constant() ||
        a.strides[i].constant() != expected)
      return std::nullopt;
    expected *= a.shape[i].constant();
  }
  if (expected != 8 || (a.offset.multiple_of() != 0 && a.offset.multiple_of() % 4 != 0))
    return std::nullopt;
  wgmma_packed_fragments_.insert(buf.name);
  std::vector<std::string> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back("argus_packed_" + buf.name + "[" +
                  cpp(ctx_.floor_div(a.offset + ctx_.constant(4 * i), ctx_.constant(4))) + "]");
  return out;
}

// wgmma.mma_async m64nNk16 with both tiles in shared memory: each tile's
// matrix descriptor from its view (the checker proved the layout is the
// swizzled K-major form: rows `16 << B` bytes apart, 8-row groups `8 << (4 +
// B)` bytes apart, the first row on a group boundary), and the accumulator's
// N / 2 registers read and written in place.
void Lowerer::wgmma(const Expr &call, const std::string &type) {
  const Expr *acc_arg = call_arg(call, 0, "acc");
  const Expr *a_arg = call_arg(call, 1, "a");
  const Expr *b_arg = call_arg(call, 2, "b");
  auto acc = acc_arg ? view_of(*acc_arg) : std::nullopt;
  auto a = a_arg ? view_of(*a_arg) : std::nullopt;
  auto b = b_arg ? view_of(*b_arg) : std::nullopt;
  if (!acc || !a || !b)
    return;
  wgmma_accumulators_.insert(buffers_[static_cast<size_t>(acc->buffer)].name);
  const auto refs = element_refs(*acc);
  // b_major="mn" (checked by sema: "k" or "mn"): b is (16, N), N contiguous.
  const Expr *major = call_arg(call, 3, "b_major");
  const bool b_mn = major && major->kind == ExprKind::String && major->name == "mn";
  const size_t n_dim = b_mn ? 1 : 0;
  const int64_t n =
      b->shape.size() == 2 && b->shape[n_dim].is_constant() ? b->shape[n_dim].constant() : 0;
  if (n < 8 || static_cast<int64_t>(refs.size()) != n / 2) {
    error(call.range, "wgmma: the accumulator must hold N / 2 f32 for a b tile of N rows");
    return;
  }
  auto descriptor = [&](const View &v, const Range &at, bool mn) -> std::optional<std::string> {
    const Buffer &buf = buffers_[static_cast<size_t>(v.buffer)];
    if (buf.space != MemorySpace::Shared || !buf.swizzle || buf.swizzle->base != 4 ||
        buf.swizzle->shift != 3 || buf.swizzle->bits < 1 || buf.swizzle->bits > 3) {
      error(at, "wgmma: a tile must be in shared memory with Swizzle(1|2|3, 4, 3)");
      return std::nullopt;
    }
    const int bits = buf.swizzle->bits;
    const int64_t stride_bytes = 8 * (int64_t{16} << bits); // between 8-row groups
    const int64_t mode = bits == 3 ? 1 : bits == 2 ? 2 : 3; // 128, 64, 32-byte swizzle
    // K-major swizzled: the leading offset is unused (1 by convention). MN-major
    // one atom wide: the atoms along k are `stride_bytes` apart and there is no
    // second atom along N, so either reading of the two offsets gets the same.
    const int64_t leading_bytes = mn ? stride_bytes : 16;
    const std::string address = "argus_smem_addr(reinterpret_cast<unsigned char *>(" + buf.name +
                                ") + " + paren(cpp(v.offset)) + ")";
    return "argus_wgmma_desc(" + address + ", " + std::to_string(leading_bytes) + ", " +
           std::to_string(stride_bytes) + ", " + std::to_string(mode) + ")";
  };
  // A from registers: four b32 registers of two 16-bit values each (the
  // m64nNk16 A fragment), instead of a descriptor.
  const bool a_registers = buffers_[static_cast<size_t>(a->buffer)].space == MemorySpace::Local;
  const auto da =
      a_registers ? std::optional<std::string>("") : descriptor(*a, a_arg->range, false);
  const auto db = descriptor(*b, b_arg->range, b_mn);
  if (!da || !db)
    return;
  const auto a_refs = a_registers ? element_refs(*a) : std::vector<std::string>{};
  if (a_registers && a_refs.size() != 8) {
    error(a_arg->range, "wgmma: a in registers must be 8 values per thread");
    return;
  }
  const int64_t regs = n / 2;
  std::string list;
  for (int64_t i = 0; i < regs; ++i)
    list += (i ? ", %" : "%") + std::to_string(i);
  // Operand numbers after the accumulators: a (one descriptor or four
  // registers), b's descriptor, the scale-d flag.
  const int64_t a_count = a_registers ? 4 : 1;
  std::string a_operand = a_registers ? "{" : "";
  for (int64_t i = 0; i < a_count; ++i)
    a_operand += (i ? ", %" : "%") + std::to_string(regs + i);
  if (a_registers)
    a_operand += "}";
  const int64_t b_index = regs + a_count, flag_index = b_index + 1;
  line("{");
  ++indent_;
  if (!a_registers)
    line("const uint64_t argus_da = " + *da + ";");
  line("const uint64_t argus_db = " + *db + ";");
  // scale-d is a predicate (1: d = a·b + d); scale-a, scale-b 1; the 16-bit
  // forms also take the transposes (0: K-major, 1: MN-major; with a in
  // registers only b's); the fp8 forms are K-major only.
  const bool fp8 = type == "e4m3" || type == "e5m2";
  const std::string trans_b = b_mn ? "1" : "0";
  const std::string immediates = fp8           ? ", p, 1, 1"
                                 : a_registers ? ", p, 1, 1, " + trans_b
                                               : ", p, 1, 1, 0, " + trans_b;
  line("asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + std::to_string(flag_index) +
       ", 0;\\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + (fp8 ? "k32" : "k16") +
       ".f32." + type + "." + type + " {" + list + "}, " + a_operand + ", %" +
       std::to_string(b_index) + immediates + ";\\n}\\n\"");
  std::string outs = "    : ";
  for (int64_t i = 0; i < regs; ++i) {
    outs += "\"+f\"(" + refs[static_cast<size_t>(i)] + ")" + (i + 1 < regs ? ", " : "");
    if (outs.size() > 80 && i + 1 < regs) {
      line(outs);
      outs = "      ";
    }
  }
  line(outs);
  std::string ins = "    : ";
  if (a_registers) {
    const auto packed = packed_fragment(*a);
    for (int i = 0; i < 4; ++i)
      ins += packed ? "\"r\"(" + (*packed)[static_cast<size_t>(i)] + "), "
                    : "\"r\"(argus_pack2(" + a_refs[static_cast<size_t>(2 * i)] + ", " +
                          a_refs[static_cast<size_t>(2 * i + 1)] + ")), ";
  } else
    ins += "\"l\"(argus_da), ";
  line(ins + "\"l\"(argus_db), \"r\"(1)");
  line("    : \"memory\");");
  --indent_;
  line("}");
}

} // namespace argus::codegen::detail

namespace argus::codegen::detail {

// The extents of a tensor parameter as C++ expressions (empty when its
// annotation gives no shape).
std::vector<std::string> Lowerer::extents(const sema::Symbol *tensor) {
  const ast::Function &function = *fn_->function;
  std::vector<std::string> out;
  for (size_t i = 0; i < function.params.size() && i < fn_->params.size(); ++i) {
    if (fn_->params[i] != tensor)
      continue;
    const ast::Expr *annotation = function.params[i].annotation.get();
    if (!annotation || annotation->kind != ast::ExprKind::Call || annotation->arg_count() < 1)
      return out;
    const ast::Expr &shape = annotation->arg(0);
    if (shape.kind != ast::ExprKind::Tuple) {
      out.push_back(paren(expr(shape, sema::ScalarKind::I64)));
      return out;
    }
    for (const auto &d : shape.operands)
      out.push_back(paren(expr(*d, sema::ScalarKind::I64)));
    return out;
  }
  return out;
}

// The box coordinates of a TMA copy whose first element is `first` (an
// element index of the tensor): innermost first. A tensor of two dimensions
// has a 2-D map; one of more has a 3-D map (columns, rows of one page of its
// second-last extent, pages), so a box never runs into the next page: rows
// past a page's end are zeros to a load and clipped from a store.
std::optional<Lowerer::TmaCoords> Lowerer::tma_coords(const sema::Symbol *tensor,
                                                      const std::string &first, const Range &at,
                                                      const char *what) {
  const std::vector<std::string> dims = extents(tensor);
  if (dims.size() < 2) {
    error(at, std::string(what) + ": the shape of " + tensor->name + " is not known");
    return std::nullopt;
  }
  const std::string &cols = dims.back();
  TmaCoords c;
  c.rank = dims.size() == 2 ? 2 : 3;
  c.values.push_back("static_cast<int32_t>(" + first + " % " + cols + ")");
  if (c.rank == 2) {
    c.values.push_back("static_cast<int32_t>(" + first + " / " + cols + ")");
  } else {
    const std::string &page = dims[dims.size() - 2];
    c.values.push_back("static_cast<int32_t>(" + first + " / " + cols + " % " + page + ")");
    c.values.push_back("static_cast<int32_t>(" + first + " / " + cols + " / " + page + ")");
  }
  return c;
}

std::string Lowerer::TmaCoords::placeholders(size_t first) const {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", %" : "%") + std::to_string(first + i);
  return out;
}

std::string Lowerer::TmaCoords::inputs() const {
  std::string out;
  for (const std::string &v : values)
    out += ", \"r\"(" + v + ")";
  return out;
}

// tma_load(dst, src, bar): cp.async.bulk.tensor on a tensor map of src's
// tensor (tma_coords), with the box of src and the swizzle of dst's buffer
// (the checker proved the layouts are ones a map describes). The box's
// coordinates come from src's offset.
void Lowerer::tma_load(const ast::Expr &call) {
  auto dst = arg_view(call, 0, "dst");
  auto src = arg_view(call, 1, "src");
  auto bar = arg_view(call, 2, "bar");
  const bool multicast = builtin_of(call) == BuiltinId::NvvmTmaLoadMulticast;
  const Expr *mask = multicast ? call_arg(call, 3, "mask") : nullptr;
  if (!dst || !src || !bar || (multicast && !mask))
    return;
  const Buffer &sb = buffers_[static_cast<size_t>(src->buffer)];
  const Buffer &db = buffers_[static_cast<size_t>(dst->buffer)];
  if (src->shape.size() != 2 || !src->shape[0].is_constant() || !src->shape[1].is_constant() ||
      !sb.param || sb.space != sema::MemorySpace::Global) {
    error(call.range, "tma_load needs a (rows, cols) tile of constant shape of a tensor parameter");
    return;
  }
  const auto coords = tma_coords(sb.param, "argus_first", call.range, "tma_load");
  if (!coords)
    return;
  const TensorMap &map = tensor_map(sb.param, src->shape[0].constant(), src->shape[1].constant(),
                                    db.swizzle ? 16 << db.swizzle->bits : 0);
  mark_written(*dst);
  const std::string element = "(" + cpp(src->offset) + ") / " + std::to_string(bytes_of(sb.dtype));
  const size_t n = coords->values.size();
  const std::string braces = coords->placeholders(2), operands = coords->inputs();
  line("{");
  line("  const int64_t argus_first = " + element + ";");
  // Multicast: the box lands at dst's offset in each block of the mask, and
  // completes bar's offset there.
  line("  asm volatile(\"cp.async.bulk.tensor." + std::to_string(coords->rank) +
       "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" +
       (multicast ? ".multicast::cluster" : "") + " [%0], [%1, {" + braces + "}], [%" +
       std::to_string(2 + n) + "]" + (multicast ? ", %" + std::to_string(3 + n) : "") + ";\\n\"");
  line("               :: \"r\"(argus_smem_addr(" + address_of(*dst) +
       ")), \"l\"(reinterpret_cast<uint64_t>(&" + map.name + "))" + operands +
       ", \"r\"(argus_smem_addr(" + address_of(*bar) + "))" +
       (multicast ? ", \"h\"(static_cast<uint16_t>(" + expr(*mask) + "))" : ""));
  line("               : \"memory\");");
  line("}");
}

const Lowerer::TensorMap &Lowerer::tensor_map(const sema::Symbol *tensor, int64_t rows,
                                              int64_t cols, int swizzle_bytes) {
  for (const TensorMap &m : tensor_maps_)
    if (m.tensor == tensor && m.box_rows == rows && m.box_cols == cols &&
        m.swizzle_bytes == swizzle_bytes)
      return m;
  TensorMap map;
  map.tensor = tensor;
  map.box_rows = rows;
  map.box_cols = cols;
  map.swizzle_bytes = swizzle_bytes;
  map.name = "argus_tmap_" + std::to_string(tensor_maps_.size());
  tensor_maps_.push_back(map);
  uses_tensor_maps_ = true;
  return tensor_maps_.back();
}

// tma_store(dst, src): cp.async.bulk.tensor from shared memory to the box
// dst on a tensor map of dst's tensor (tma_coords; the swizzle of src's buffer), then a
// bulk commit group, which tma_store_wait counts.
void Lowerer::tma_store(const ast::Expr &call) {
  auto dst = arg_view(call, 0, "dst");
  auto src = arg_view(call, 1, "src");
  if (!dst || !src)
    return;
  const Buffer &gb = buffers_[static_cast<size_t>(dst->buffer)];
  const Buffer &sb = buffers_[static_cast<size_t>(src->buffer)];
  if (dst->shape.size() != 2 || !dst->shape[0].is_constant() || !dst->shape[1].is_constant() ||
      !gb.param || gb.space != sema::MemorySpace::Global) {
    error(call.range,
          "tma_store needs a (rows, cols) tile of constant shape of a tensor parameter");
    return;
  }
  const auto coords = tma_coords(gb.param, "argus_first", call.range, "tma_store");
  if (!coords)
    return;
  const TensorMap &map = tensor_map(gb.param, dst->shape[0].constant(), dst->shape[1].constant(),
                                    sb.swizzle ? 16 << sb.swizzle->bits : 0);
  mark_written(*dst);
  const std::string element = "(" + cpp(dst->offset) + ") / " + std::to_string(bytes_of(gb.dtype));
  const size_t n = coords->values.size();
  const std::string braces = coords->placeholders(1), operands = coords->inputs();
  line("{");
  line("  const int64_t argus_first = " + element + ";");
  line("  asm volatile(\"cp.async.bulk.tensor." + std::to_string(coords->rank) +
       "d.global.shared::cta.bulk_group [%0, {" + braces + "}], [%" + std::to_string(1 + n) +
       "];\\n\"");
  line("               :: \"l\"(reinterpret_cast<uint64_t>(&" + map.name + "))" + operands +
       ", \"r\"(argus_smem_addr(" + address_of(*src) + "))");
  line("               : \"memory\");");
  line("  asm volatile(\"cp.async.bulk.commit_group;\\n\" ::: \"memory\");");
  line("}");
}

} // namespace argus::codegen::detail
