// Statements on the SIMT machine: assignment, divergent if/else, loops with
// per-thread bounds (cut at unroll_bound), inlined @device calls.
#include "machine.h"

namespace argus::check::detail {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

namespace {

Mask and_not(const Mask &a, const Mask &b) {
  Mask out(a.size(), 0);
  for (size_t i = 0; i < a.size(); ++i)
    out[i] = a[i] && !b[i];
  return out;
}

// `x = t[i]` copies when t[i] is one element or one vector access (≤ 16
// bytes); a larger sub-tensor stays a view, as in the code generator.
bool is_value_access(const View &v) {
  return v.shape.empty() || v.elements() * dtype_bytes(v.dtype) <= 16;
}

bool is_value_access(const Value &v) {
  if (v.kind == ValueKind::View)
    return is_value_access(*v.view);
  // A per-thread choice of places: every alternative has the same type.
  return v.kind == ValueKind::Choice && !v.items.empty() && is_value_access(v.items[0]);
}

} // namespace

void Machine::exec_body(const std::vector<ast::StmtPtr> &body, Mask &m, bool loop) {
  body_stack_.push_back(BodyPos{&body, 0, loop});
  for (size_t i = 0; i < body.size(); ++i) {
    if (stopped_ || !any(m))
      break;
    body_stack_.back().index = i;
    exec(*body[i], m);
  }
  body_stack_.pop_back();
}

void Machine::assign(const Stmt &s, const Expr &target, const Value &value, Mask &m) {
  if (target.kind == ExprKind::Tuple) {
    if (value.kind != ValueKind::Tuple || value.items.size() != target.operands.size()) {
      not_interpreted(target.range, "the checker has no tuple of " +
                                        std::to_string(target.operands.size()) +
                                        " values to unpack here");
      return;
    }
    for (size_t i = 0; i < target.operands.size(); ++i)
      assign(s, *target.operands[i], value.items[i], m);
    return;
  }
  if (target.kind == ExprKind::Name) {
    const Symbol *sym = symbol_of(target);
    if (!sym) {
      not_interpreted(target.range, "'" + target.name + "' has no symbol");
      return;
    }
    if (value.kind == ValueKind::None)
      not_interpreted(s.value ? s.value->range : s.range,
                      "the checker has no value to bind to '" + target.name + "'");
    auto it = env_.find(sym);
    if (it == env_.end()) {
      env_[sym] = value;
      return;
    }
    // A fragment value (an intrinsic's result) assigned to a name that holds
    // a register tensor of as many elements is written into that tensor, as
    // the generated code does: views of it (two B fragments of one
    // ldmatrix.x4) see the new values.
    if (const Value &held = it->second;
        held.kind == ValueKind::View && held.view && value.kind == ValueKind::Data &&
        value.elems > 1 && held.view->elements() == value.elems &&
        buffers_[static_cast<size_t>(held.view->buffer)].space == MemorySpace::Local) {
      const View place = *held.view;
      write_view(place, value, m, target.range);
      return;
    }
    // Threads outside the mask keep their value (SIMT semantics): for a view,
    // a per-thread choice of places.
    assign_lanes(it->second, value, m);
    return;
  }
  if (target.kind == ExprKind::Subscript) {
    const Range &from = s.value ? s.value->range : s.range;
    const Expr &base_e = *target.operands[0];
    Value base = eval(base_e, m);
    std::vector<Value> idx;
    for (size_t i = 1; i < target.operands.size(); ++i) {
      idx.push_back(data(*target.operands[i], m));
      if (idx.back().kind != ValueKind::Data)
        not_interpreted(target.operands[i]->range,
                        "the checker has no integer value for this index");
      else // a store's index as much as a load's (scatter: Y[idx[t]] = x)
        check_known(idx.back(), m, target.range, "this index");
    }
    if (base.kind == ValueKind::Data) {
      // An element of a fragment bound to a name (f = ldmatrix(...); f[j] = x).
      assign_fragment_element(base_e, base, idx, target, to_data(value, m, from), m);
      return;
    }
    Value place = index_value(base, idx, target, m);
    Value read; // a view's elements; data is stored as it is (no copy)
    if (value.kind != ValueKind::Data)
      read = to_data(value, m, from);
    const Value &v = value.kind == ValueKind::Data ? value : read;
    if (v.kind != ValueKind::Data) {
      not_interpreted(from, "the checker has no value to store");
      return;
    }
    if (place.kind == ValueKind::View) {
      write_view(*place.view, v, m, target.range);
    } else if (place.kind == ValueKind::Choice) {
      for (size_t k = 0; k < place.items.size(); ++k) {
        Mask mk = alternative_mask(place, k, m);
        if (any(mk) && place.items[k].kind == ValueKind::View)
          write_view(*place.items[k].view, v, mk, target.range);
      }
    }
    return;
  }
  not_interpreted(target.range, "the checker does not assign to this kind of target");
}

void Machine::assign_fragment_element(const Expr &base_e, const Value &base,
                                      const std::vector<Value> &idx, const Expr &target,
                                      const Value &v, const Mask &m) {
  const Symbol *sym = base_e.kind == ExprKind::Name ? symbol_of(base_e) : nullptr;
  auto it = sym ? env_.find(sym) : env_.end();
  if (it == env_.end() || v.kind != ValueKind::Data) {
    not_interpreted(target.range, "the checker stores into a fragment only through its name");
    return;
  }
  std::vector<int64_t> first, rest;
  int64_t count = 0;
  if (!fragment_elements(base, idx, target, m, first, count, rest))
    return;
  Value &f = it->second;
  f.expand(lanes_);
  if (f.tags.empty() && !v.tags.empty())
    f.tags.assign(f.ints.size(), Tag{});
  const size_t n = static_cast<size_t>(f.elems);
  for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane) {
    if (!m[lane] || first[lane] < 0)
      continue;
    for (int64_t k = 0; k < count; ++k) {
      const int src = v.elems == count ? static_cast<int>(k) : 0;
      const size_t o = lane * n + static_cast<size_t>(first[lane] + k);
      f.ints[o] = v.at(lane, src);
      if (!f.tags.empty()) {
        const Tag *t = v.tag_at(lane, src);
        f.tags[o] = t ? *t : Tag{};
      }
    }
  }
}

void Machine::exec(const Stmt &s, Mask &m) {
  if (stopped_)
    return;
  if (trace_) [[unlikely]]
    trace_compact_if_full();
  // Polled now and then: a clock read per statement would cost more than the statement.
  if ((steps_ & 1023) == 0 && (options_.cancelled() || options_.past_deadline())) {
    interrupted_ = true;
    stop(options_.cancelled() ? "the check was cancelled: what follows is not checked"
                              : "the check ran past its time limit: what follows is not checked",
         s.range);
    return;
  }
  if (++steps_ > options_.max_steps) {
    stop("the checker stopped after " + std::to_string(options_.max_steps) +
             " statements at these sizes: what follows is not checked",
         s.range);
    return;
  }
  visit(s);
  const ast::Stmt *saved = current_stmt_;
  current_stmt_ = &s;
  switch (s.kind) {
  case StmtKind::Expr:
    if (s.value)
      eval(*s.value, m);
    break;
  case StmtKind::Assign:
    if (s.value) {
      Value v = eval(*s.value, m);
      if (v.kind == ValueKind::View && s.targets.size() == 1 &&
          s.targets[0]->kind == ExprKind::Subscript &&
          buffers_[static_cast<size_t>(v.view->buffer)].space == MemorySpace::Shared)
        if (const Symbol *dst = symbol_of(*s.targets[0]->operands[0]);
            dst && env_.count(dst) && env_[dst].kind == ValueKind::View &&
            buffers_[static_cast<size_t>(env_[dst].view->buffer)].space == MemorySpace::Local)
          lint_reload(*v.view, m, s.value->range);
      for (const auto &t : s.targets) {
        // `x = t[i]` copies the element's value; a name bound to a view keeps the view
        // only when the right side is a view expression (view(), subview, a tensor).
        if (t->kind == ExprKind::Name && s.value->kind == ExprKind::Subscript && is_value_access(v))
          assign(s, *t, to_data(v, m, s.value->range), m);
        else
          assign(s, *t, v, m);
      }
    }
    break;
  case StmtKind::AnnAssign:
    if (s.value && s.target) {
      Value v = eval(*s.value, m);
      if (s.value->kind == ExprKind::Subscript && is_value_access(v))
        v = to_data(v, m, s.value->range);
      assign(s, *s.target, v, m);
    }
    break;
  case StmtKind::AugAssign:
    if (s.value && s.target) {
      Value old = data(*s.target, m);
      Value rhs = data(*s.value, m);
      Value v = binary(s.aug_op, old, rhs, m, s.range);
      assign(s, *s.target, v, m);
    }
    break;
  case StmtKind::If: {
    Mask yes = condition(*s.value, m, &s, "this condition");
    Mask no = and_not(m, yes);
    Mask yes_after = yes, no_after = no;
    if (any(yes) && any(no) && (barrier_ops(s) & kWaits)) {
      fork_roles(s, yes, no, yes_after, no_after); // warp-specialized roles
    } else {
      if (any(yes))
        exec_body(s.body, yes_after);
      if (any(no))
        exec_body(s.orelse, no_after);
    }
    // Threads that returned inside a branch leave the enclosing mask.
    for (size_t i = 0; i < m.size(); ++i)
      if ((yes[i] && !yes_after[i]) || (no[i] && !no_after[i]))
        m[i] = 0;
    break;
  }
  case StmtKind::For:
    for_loop(s, m);
    break;
  case StmtKind::While:
    while_loop(s, m);
    break;
  case StmtKind::Return:
    if (!return_slots_.empty() && s.value) {
      Value v = data(*s.value, m);
      Value &slot = *return_slots_.back();
      if (slot.kind == ValueKind::None)
        slot = v;
      else
        assign_lanes(slot, v, m);
    }
    if (return_slots_.empty())
      for (size_t i = 0; i < m.size() && i < returned_.size(); ++i)
        returned_[i] |= m[i];
    std::fill(m.begin(), m.end(), 0);
    break;
  case StmtKind::Break:
  case StmtKind::Continue:
    if (exits_.empty()) {
      not_interpreted(s.range, "break or continue outside a loop");
      break;
    }
    for (size_t i = 0; i < m.size(); ++i)
      if (m[i])
        (s.kind == StmtKind::Break ? exits_.back().broken : exits_.back().continued)[i] = 1;
    std::fill(m.begin(), m.end(), 0);
    break;
  case StmtKind::Pass:
    break;
  case StmtKind::Error:
    not_interpreted(s.range, "the statement did not parse");
    break;
  }
  current_stmt_ = saved;
}

void Machine::for_loop(const Stmt &s, Mask &m) {
  if (!s.value || s.value->kind != ExprKind::Call || !s.target || s.value->arg_count() == 0) {
    not_interpreted(s.range, "the checker runs only `for x in range(...)` loops");
    return;
  }
  const Expr &range = *s.value;
  std::vector<const Expr *> args;
  for (size_t i = 0; i < range.arg_count(); ++i)
    args.push_back(&range.arg(i));
  Value start = args.size() >= 2 ? data(*args[0], m) : uniform_int(0);
  Value stop = data(*args[args.size() >= 2 ? 1 : 0], m);
  Value step = args.size() >= 3 ? data(*args[2], m) : uniform_int(1);
  if (start.kind != ValueKind::Data || stop.kind != ValueKind::Data ||
      step.kind != ValueKind::Data) {
    not_interpreted(range.range, "the checker has no integer value for a bound of this range");
    return;
  }
  for (const Value *bound : {&start, &stop, &step})
    check_known(*bound, m, range.range, "this loop's bound");
  const int16_t decided_by = std::max(
      unknown_contents(start, m), std::max(unknown_contents(stop, m), unknown_contents(step, m)));
  const Symbol *var = symbol_of(*s.target);
  if (!var) {
    not_interpreted(s.target->range, "the loop variable has no symbol");
    return;
  }
  if (decided_by >= 0)
    report_barriers_under(s, decided_by);
  Value current = start;
  current.tags.clear();
  loops_.push_back(LoopFrame{s.target->name, var});
  exits_.push_back(LoopExit{Mask(m.size(), 0), Mask(m.size(), 0)});
  Mask left(m.size(), 0); // lanes that broke out of this loop
  const bool constant_bounds = std::all_of(
      args.begin(), args.end(), [&](const Expr *a) { return sema_.constant_of(*a).has_value(); });
  int64_t iteration = 0;
  for (; !stopped_; ++iteration) {
    Mask active(m.size(), 0);
    for (size_t i = 0; i < m.size(); ++i) {
      if (!m[i] || left[i])
        continue;
      const int64_t st = step.at(i);
      active[i] = st > 0 ? current.at(i) < stop.at(i) : st < 0 ? current.at(i) > stop.at(i) : 0;
    }
    if (!any(active))
      break;
    if (iteration >= options_.unroll_bound) {
      bounded_loops_.emplace_back(s.target->range, s.target->name);
      break;
    }
    env_[var] = current;
    Mask body = active;
    exec_body(s.body, body, /*loop=*/true);
    leave_body(active, body, m, left);
    if (current.uniform && step.uniform) {
      current.ints[0] += step.at(0);
    } else {
      current.expand(lanes_);
      for (size_t i = 0; i < m.size(); ++i)
        current.ints[i] += step.at(i);
    }
  }
  if (!constant_bounds)
    count_iterations(s, iteration);
  exits_.pop_back();
  loops_.pop_back();
}

// After one iteration's body: a lane that broke out leaves the loop (and
// stays in `m`), one that continued goes on, any other that left returned.
void Machine::leave_body(const Mask &active, const Mask &body, Mask &m, Mask &left) {
  LoopExit &exit = exits_.back();
  for (size_t i = 0; i < m.size(); ++i) {
    if (active[i] && !body[i]) {
      if (exit.broken[i])
        left[i] = 1;
      else if (!exit.continued[i])
        m[i] = 0; // returned
    }
    exit.broken[i] = exit.continued[i] = 0;
  }
}

void Machine::while_loop(const Stmt &s, Mask &m) {
  Mask active = m;
  Mask left(m.size(), 0);
  exits_.push_back(LoopExit{Mask(m.size(), 0), Mask(m.size(), 0)});
  int64_t iteration = 0;
  for (; any(active) && !stopped_; ++iteration) {
    if (iteration >= options_.unroll_bound) {
      bounded_loops_.emplace_back(s.range, "while");
      break;
    }
    active = condition(*s.value, active, &s, "this loop's condition");
    if (!any(active))
      break;
    Mask body = active;
    exec_body(s.body, body, /*loop=*/true);
    leave_body(active, body, m, left);
    for (size_t i = 0; i < m.size(); ++i)
      if (!m[i] || left[i])
        active[i] = 0; // returned or broke out
  }
  if (!s.value || !sema_.constant_of(*s.value))
    count_iterations(s, iteration);
  exits_.pop_back();
}

Value Machine::call_device(const sema::FunctionInfo &fn, const Expr &call, const Mask &m) {
  const ast::Function &f = *fn.function;
  std::vector<std::pair<const Symbol *, Value>> bound;
  for (size_t i = 0; i < f.params.size() && i < fn.params.size(); ++i) {
    const Expr *arg = i < call.arg_count()             ? &call.arg(i)
                      : call.keyword(f.params[i].name) ? call.keyword(f.params[i].name)->value.get()
                                                       : nullptr;
    if (!arg && f.params[i].default_value)
      arg = f.params[i].default_value.get();
    if (!arg || !fn.params[i])
      continue;
    Value v = eval(*arg, m);
    if ((v.kind == ValueKind::View || v.kind == ValueKind::Choice) &&
        !fn.params[i]->type.is_tensor())
      v = to_data(v, m, arg->range);
    bound.emplace_back(fn.params[i], std::move(v));
  }
  for (auto &[sym, v] : bound)
    env_[sym] = std::move(v);
  Value result;
  return_slots_.push_back(&result);
  Mask body = m;
  exec_body(f.body, body);
  return_slots_.pop_back();
  return result;
}

} // namespace argus::check::detail
