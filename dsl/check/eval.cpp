// Expressions on the SIMT machine: integer values per thread (the shared
// evaluator, argus/dsl/int_eval.h: Python semantics, int64 or W0901), tags
// joined through arithmetic, views and bounds-checked indexing.
#include "argus/dsl/int_eval.h"
#include "machine.h"

#include <cmath>

namespace argus::check::detail {

using ast::BinaryOp;
using ast::CompareOp;
using ast::Expr;
using ast::ExprKind;

std::string Machine::tensor_name(const Expr &e) const {
  const Expr *x = &e;
  while (true) {
    if (x->kind == ExprKind::Subscript) {
      x = x->operands[0].get();
    } else if (x->kind == ExprKind::Call && x->arg_count() >= 1 &&
               (sema_.builtin_of(*x) == BuiltinId::View ||
                sema_.builtin_of(*x) == BuiltinId::Subview)) {
      x = &x->arg(0);
    } else if (x->kind == ExprKind::Call && sema_.call_of(*x).kind == sema::CallKind::Tile) {
      x = x->callee().operands[0].get();
    } else {
      break;
    }
  }
  return x->kind == ExprKind::Name ? x->name : std::string();
}

Mask Machine::truth(const Value &v, const Mask &m) const {
  Mask out(m.size(), 0);
  if (v.kind != ValueKind::Data)
    return out;
  for (size_t i = 0; i < m.size(); ++i)
    out[i] = m[i] && (v.is_float || v.at(i) != 0);
  return out;
}

void Machine::assign_lanes(Value &dst, const Value &src, const Mask &m) const {
  const auto is_place = [](const Value &v) {
    return v.kind == ValueKind::View || v.kind == ValueKind::Choice;
  };
  if (is_place(dst) && is_place(src)) {
    dst = choose(dst, src, m); // threads outside the mask keep their view
    return;
  }
  if (dst.kind != ValueKind::Data || src.kind != ValueKind::Data || dst.elems != src.elems) {
    dst = src;
    return;
  }
  if (std::all_of(m.begin(), m.end(), [](uint8_t b) { return b != 0; })) {
    dst = src; // every thread takes the new value
    return;
  }
  dst.expand(lanes_);
  dst.is_float = src.is_float;
  dst.dtype = src.dtype;
  if (!src.tags.empty() && dst.tags.empty())
    dst.tags.assign(dst.ints.size(), Tag{});
  const size_t n = static_cast<size_t>(src.elems);
  for (size_t lane = 0; lane < m.size(); ++lane) {
    if (!m[lane])
      continue;
    for (size_t e = 0; e < n; ++e) {
      dst.ints[lane * n + e] = src.at(lane, static_cast<int>(e));
      if (!dst.tags.empty()) {
        const Tag *t = src.tag_at(lane, static_cast<int>(e));
        dst.tags[lane * n + e] = t ? *t : Tag{};
      }
    }
  }
}

Value Machine::to_data(const Value &v, const Mask &m, const Range &at) {
  if (v.kind == ValueKind::View) {
    Value out = read_view(*v.view, m, at);
    if (v.view->shape.size() > 1)
      out.shape = v.view->shape; // a fragment keeps its dimensions (f[i, j])
    return out;
  }
  if (v.kind == ValueKind::Choice) {
    // Each thread reads the view it chose.
    Value out;
    for (size_t k = 0; k < v.items.size(); ++k) {
      Mask mk = alternative_mask(v, k, m);
      if (!any(mk))
        continue;
      Value part = to_data(v.items[k], mk, at);
      if (out.kind == ValueKind::None)
        out = std::move(part);
      else
        assign_lanes(out, part, mk);
    }
    return out;
  }
  return v;
}

const Value *Machine::bound_data(const Expr &e) const {
  if (e.kind != ExprKind::Name || lambda_env_.count(e.name))
    return nullptr;
  const Symbol *s = symbol_of(e);
  const auto it = s ? env_.find(s) : env_.end();
  return it != env_.end() && it->second.kind == ValueKind::Data ? &it->second : nullptr;
}

Value Machine::data(const Expr &e, const Mask &m) {
  Value v = eval(e, m);
  // Data is already what a read gives: moved, not copied (a fragment's
  // values and tags per thread).
  if (v.kind == ValueKind::Data)
    return v;
  return to_data(v, m, e.range);
}

std::vector<int64_t> Machine::const_tuple(const Expr &e, const Mask &m) {
  std::vector<int64_t> out;
  auto one = [&](const Expr &x) {
    if (auto c = sema_.constant_of(x)) {
      out.push_back(*c);
      return;
    }
    Value v = data(x, m);
    out.push_back(v.kind == ValueKind::Data && !v.ints.empty() ? v.ints[0] : 0);
  };
  if (e.kind == ExprKind::Tuple) {
    for (const auto &x : e.operands)
      one(*x);
  } else {
    one(e);
  }
  return out;
}

void Machine::report_int_error(int_eval::IntError error, int64_t lane, const Range &at) {
  if (!should_report("unproven", at))
    return;
  Where w;
  w.lane = lane;
  w.range = at;
  report("unproven", "integer", w,
         std::string("could not evaluate this integer expression: ") + int_eval::describe(error) +
             " (values outside int64 are not modeled); what follows from it is unchecked",
         true);
}

Value Machine::binary(BinaryOp op, const Value &a, const Value &b, const Mask &m, const Range &at) {
  if (a.kind != ValueKind::Data || b.kind != ValueKind::Data)
    return Value{};
  const int elems = std::max(a.elems, b.elems);
  const bool is_float = a.is_float || b.is_float || op == BinaryOp::Div;
  const bool uniform = a.uniform && b.uniform;
  if (!a.uniform && !b.uniform && a.elems == b.elems) {
    // Both per thread with one shape: element-wise over the arrays, from the
    // first to the last thread of the mask (a role's agent holds one
    // warpgroup of the block). Threads between them outside the mask get
    // values too; nobody reads them.
    Value out = make_data(a.dtype, elems, is_float);
    const auto [first_lane, end_lane] = active_span(m);
    const size_t from = first_lane * static_cast<size_t>(elems);
    const size_t n = std::min(out.ints.size(), end_lane * static_cast<size_t>(elems));
    if (!is_float) {
      size_t failed = n;
      for (size_t i = from; i < n; ++i) {
        const int_eval::IntResult r = int_eval::binary(op, a.ints[i], b.ints[i]);
        out.ints[i] = r.value;
        // Only threads of the mask count: the others' values are never read.
        if (!r.ok() && failed == n && m[i / static_cast<size_t>(elems)]) [[unlikely]]
          failed = i;
      }
      if (failed < n) [[unlikely]]
        report_int_error(int_eval::binary(op, a.ints[failed], b.ints[failed]).error,
                         static_cast<int64_t>(failed / static_cast<size_t>(elems)), at);
    }
    if (!a.tags.empty() && !b.tags.empty()) {
      out.tags.resize(out.ints.size());
      for (size_t i = from; i < n; ++i)
        out.tags[i] = join(a.tags[i], b.tags[i]);
      if (trace_) [[unlikely]]
        for (size_t i = from; i < n; ++i)
          out.tags[i].origin = traced_origin(a.tags[i], b.tags[i]);
    } else if (!a.tags.empty() || !b.tags.empty()) {
      out.tags = a.tags.empty() ? b.tags : a.tags;
    }
    return out;
  }
  Value out;
  if (uniform) {
    out.kind = ValueKind::Data;
    out.dtype = a.elems >= b.elems ? a.dtype : b.dtype;
    out.is_float = is_float;
    out.elems = elems;
    out.uniform = true;
    out.ints.assign(static_cast<size_t>(elems), 0);
  } else {
    out = make_data(a.elems >= b.elems ? a.dtype : b.dtype, elems, is_float);
  }
  const bool tagged = !a.tags.empty() || !b.tags.empty();
  if (tagged)
    out.tags.assign(out.ints.size(), Tag{});
  for (size_t lane = 0; lane < (uniform ? 1 : static_cast<size_t>(lanes_)); ++lane) {
    if (!uniform && !m[lane])
      continue;
    for (int e = 0; e < elems; ++e) {
      const int ea = a.elems == elems ? e : 0, eb = b.elems == elems ? e : 0;
      const size_t o = out.index(lane, e);
      if (!is_float) {
        const int_eval::IntResult r = int_eval::binary(op, a.at(lane, ea), b.at(lane, eb));
        out.ints[o] = r.value;
        if (!r.ok()) [[unlikely]]
          report_int_error(r.error, uniform ? first_active(m) : static_cast<int64_t>(lane), at);
      }
      if (tagged) {
        const Tag *ta = a.tag_at(lane, ea), *tb = b.tag_at(lane, eb);
        out.tags[o] = ta && tb ? join(*ta, *tb) : ta ? *ta : *tb;
      }
    }
  }
  if (trace_ && tagged && !a.tags.empty() && !b.tags.empty()) [[unlikely]]
    for (size_t lane = 0; lane < (uniform ? 1 : static_cast<size_t>(lanes_)); ++lane)
      for (int e = 0; e < elems && (uniform || m[lane]); ++e)
        out.tags[out.index(lane, e)].origin = traced_origin(
            *a.tag_at(lane, a.elems == elems ? e : 0), *b.tag_at(lane, b.elems == elems ? e : 0));
  return out;
}

Value Machine::compare(CompareOp op, const Value &a, const Value &b) {
  if (a.kind != ValueKind::Data || b.kind != ValueKind::Data)
    return make_data(ScalarKind::Bool, 1, false);
  // No numeric values are tracked for floats: a float comparison counts as true.
  if (a.is_float || b.is_float)
    return uniform_int(1, ScalarKind::Bool);
  if (a.uniform && b.uniform) {
    Value out = uniform_int(int_eval::compare(op, a.at(0), b.at(0)), ScalarKind::Bool);
    carry_contents(out, a, &b);
    return out;
  }
  Value out = make_data(ScalarKind::Bool, 1, false);
  for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane)
    out.ints[lane] = int_eval::compare(op, a.at(lane), b.at(lane));
  carry_contents(out, a, &b);
  return out;
}

Value Machine::subscript(const Expr &e, const Mask &m) {
  Value base = eval(*e.operands[0], m);
  std::vector<Value> idx;
  for (size_t i = 1; i < e.operands.size(); ++i) {
    idx.push_back(data(*e.operands[i], m));
    if (idx.back().kind != ValueKind::Data)
      not_interpreted(e.operands[i]->range, "the checker has no integer value for this index");
    else
      check_known(idx.back(), m, e.range, "this index");
  }
  return index_value(base, idx, e, m);
}

Value Machine::index_value(const Value &base, const std::vector<Value> &idx, const Expr &e,
                           const Mask &m) {
  switch (base.kind) {
  case ValueKind::View:
    return index_view(*base.view, idx, e, m);
  case ValueKind::Data:
    return index_fragment(base, idx, e, m);
  case ValueKind::Choice: {
    // Each view indexed for the threads that chose it.
    Value out;
    for (size_t k = 0; k < base.items.size(); ++k) {
      Mask mk = alternative_mask(base, k, m);
      if (!any(mk))
        continue;
      Value part = index_value(base.items[k], idx, e, mk);
      out = out.kind == ValueKind::None ? part : choose(out, part, mk);
    }
    return out;
  }
  default:
    not_interpreted(e.operands[0]->range,
                    "the checker has no tensor or fragment value for this subscript's base");
    return Value{};
  }
}

Value Machine::index_view(View v, const std::vector<Value> &idx, const Expr &e, const Mask &m) {
  const size_t n = idx.size();
  const int64_t eb = dtype_bytes(v.dtype);
  const bool tiled = !v.tile.empty();
  for (size_t d = 0; d < n && d < v.shape.size(); ++d) {
    const int64_t extent = tiled ? (v.shape[d] + v.tile[d] - 1) / v.tile[d] : v.shape[d];
    const int64_t step = (tiled ? v.tile[d] : 1) * v.strides[d] * eb;
    const Value &ix = idx[d];
    if (ix.kind != ValueKind::Data) {
      v.coords.push_back(uniform_int(0));
      continue;
    }
    // An index outside its dimension: reported once per place, and the
    // thread's access is skipped.
    auto outside = [&](size_t lane, int64_t x) {
      if (v.bad.empty())
        v.bad.assign(static_cast<size_t>(lanes_), 0);
      if (!v.bad[lane] && &e != range_checked_by_hardware_ &&
          should_report("out-of-bounds", e.range)) {
        Where w;
        w.lane = static_cast<int64_t>(lane);
        w.range = e.range;
        w.tensor = tensor_name(e);
        for (const Value &c : v.coords)
          w.coord.push_back(c.kind == ValueKind::Data ? c.at(lane) : 0);
        for (size_t k = d; k < n; ++k)
          w.coord.push_back(idx[k].kind == ValueKind::Data ? idx[k].at(lane) : 0);
        const std::string what = tiled ? "tile index " : "index ";
        Violation &viol = report("out-of-bounds", "bounds", w,
                                 what + std::to_string(x) + " is out of bounds for dimension " +
                                     std::to_string(v.coords.size()) + " of " +
                                     (w.tensor.empty() ? std::string("the tensor") : w.tensor) +
                                     " (size " + std::to_string(extent) + ")");
        viol.data["dimension"] = v.coords.size();
        viol.data["extent"] = extent;
        viol.data["index"] = x;
      }
      v.bad[lane] = 1;
    };
    if (ix.uniform && v.uniform_offset) {
      const int64_t x = ix.at(0);
      if (x < 0 || x >= extent)
        for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane)
          if (m[lane])
            outside(lane, x);
      v.offset[0] += x * step;
    } else {
      v.expand_offset(lanes_);
      for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane) {
        if (!m[lane])
          continue;
        const int64_t x = ix.at(lane);
        if (x < 0 || x >= extent)
          outside(lane, x);
        v.offset[lane] += x * step;
      }
    }
    v.coords.push_back(ix);
  }
  if (tiled) {
    v.shape = v.tile;
    v.tile.clear();
  } else {
    const size_t k = std::min(n, v.shape.size());
    v.shape.erase(v.shape.begin(), v.shape.begin() + static_cast<long>(k));
    v.strides.erase(v.strides.begin(), v.strides.begin() + static_cast<long>(k));
  }
  Value out;
  out.kind = ValueKind::View;
  out.dtype = v.dtype;
  out.view = std::make_shared<View>(std::move(v));
  return out;
}

bool Machine::fragment_elements(const Value &base, const std::vector<Value> &idx, const Expr &e,
                                const Mask &m, std::vector<int64_t> &first, int64_t &count,
                                std::vector<int64_t> &rest) {
  // The fragment's shape: recorded when it was read from a view, else the
  // type sema gave the expression (ldmatrix/mma results: one dimension).
  std::vector<int64_t> shape = base.shape;
  if (shape.empty())
    if (const sema::Type *t = sema_.type_of(*e.operands[0]); t && t->is_tensor() && t->tensor) {
      int64_t product = 1;
      for (const sema::Dim &d : t->tensor->shape) {
        shape.push_back(d.value.value_or(-1));
        product *= d.value.value_or(-1);
      }
      if (product != base.elems)
        shape.clear();
    }
  if (shape.empty())
    shape = {base.elems};
  if (idx.size() > shape.size()) {
    not_interpreted(e.range, "more indices than the fragment has dimensions");
    return false;
  }
  std::vector<int64_t> stride(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    stride[d - 1] = stride[d] * shape[d];
  rest.assign(shape.begin() + static_cast<long>(idx.size()), shape.end());
  count = idx.empty() ? base.elems : stride[idx.size() - 1];
  first.assign(static_cast<size_t>(lanes_), 0);
  for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane) {
    if (!m[lane])
      continue;
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t x = idx[d].kind == ValueKind::Data ? idx[d].at(lane) : 0;
      if (x < 0 || x >= shape[d]) {
        if (should_report("out-of-bounds", e.range)) {
          Where w;
          w.lane = static_cast<int64_t>(lane);
          w.range = e.range;
          w.tensor = tensor_name(e);
          for (const Value &c : idx)
            w.coord.push_back(c.kind == ValueKind::Data ? c.at(lane) : 0);
          Violation &viol = report("out-of-bounds", "bounds", w,
                                   "index " + std::to_string(x) +
                                       " is out of bounds for dimension " + std::to_string(d) +
                                       " of " + (w.tensor.empty() ? "the fragment" : w.tensor) +
                                       " (size " + std::to_string(shape[d]) + ")");
          viol.data["dimension"] = d;
          viol.data["extent"] = shape[d];
          viol.data["index"] = x;
        }
        flat = -1;
        break;
      }
      flat += x * stride[d];
    }
    first[lane] = flat;
  }
  return true;
}

Value Machine::index_fragment(const Value &base, const std::vector<Value> &idx, const Expr &e,
                              const Mask &m) {
  std::vector<int64_t> first, rest;
  int64_t count = 0;
  if (!fragment_elements(base, idx, e, m, first, count, rest))
    return Value{};
  Value out = make_data(base.dtype, static_cast<int>(count), base.is_float);
  if (rest.size() > 1)
    out.shape = rest;
  out.tags.assign(out.ints.size(), Tag{});
  for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane) {
    if (!m[lane])
      continue;
    for (int64_t k = 0; k < count; ++k) {
      const size_t o = lane * static_cast<size_t>(count) + static_cast<size_t>(k);
      if (first[lane] < 0) {
        out.tags[o].poison = true; // out of bounds: reported, assertions stay quiet
        continue;
      }
      const int el = static_cast<int>(first[lane] + k);
      out.ints[o] = base.at(lane, el);
      if (const Tag *t = base.tag_at(lane, el))
        out.tags[o] = *t;
    }
  }
  if (base.tags.empty() &&
      std::none_of(out.tags.begin(), out.tags.end(), [](const Tag &t) { return t.poison; }))
    out.tags.clear();
  return out;
}

Mask Machine::alternative_mask(const Value &choice, size_t k, const Mask &m) const {
  Mask out(m.size(), 0);
  for (size_t i = 0; i < m.size(); ++i)
    out[i] = m[i] && choice.ints[i] == static_cast<int64_t>(k);
  return out;
}

namespace {

bool same_layout(const View &a, const View &b) {
  return a.buffer == b.buffer && a.dtype == b.dtype && a.shape == b.shape &&
         a.strides == b.strides && a.tile == b.tile && a.coords.size() == b.coords.size();
}

} // namespace

Value Machine::choose(const Value &a, const Value &b, const Mask &m) const {
  if (!any(m))
    return a;
  if (std::all_of(m.begin(), m.end(), [](uint8_t x) { return x != 0; }))
    return b;
  if (a.kind == ValueKind::View && b.kind == ValueKind::View && same_layout(*a.view, *b.view)) {
    // One place per thread: a view with per-thread offsets.
    View v = *a.view;
    const View &w = *b.view;
    v.expand_offset(lanes_);
    if (!w.bad.empty() && v.bad.empty())
      v.bad.assign(static_cast<size_t>(lanes_), 0);
    for (size_t lane = 0; lane < m.size(); ++lane) {
      if (!m[lane])
        continue;
      v.offset[lane] = w.off(lane);
      if (!v.bad.empty())
        v.bad[lane] = w.is_bad(lane);
    }
    for (size_t d = 0; d < v.coords.size(); ++d)
      assign_lanes(v.coords[d], w.coords[d], m);
    Value out = a;
    out.view = std::make_shared<View>(std::move(v));
    return out;
  }
  const bool a_place = a.kind == ValueKind::View || a.kind == ValueKind::Choice;
  const bool b_place = b.kind == ValueKind::View || b.kind == ValueKind::Choice;
  if (!a_place || !b_place)
    return b; // not places: the caller merges data (assign_lanes)
  // Alternatives of a and b side by side; each thread's selector.
  Value out;
  out.kind = ValueKind::Choice;
  out.dtype = b.dtype;
  std::vector<int64_t> sel_a(m.size(), 0), sel_b(m.size(), 0);
  if (a.kind == ValueKind::Choice) {
    out.items = a.items;
    sel_a = a.ints;
  } else {
    out.items.push_back(a);
  }
  const int64_t shift = static_cast<int64_t>(out.items.size());
  if (b.kind == ValueKind::Choice) {
    out.items.insert(out.items.end(), b.items.begin(), b.items.end());
    sel_b = b.ints;
  } else {
    out.items.push_back(b);
  }
  out.ints.assign(m.size(), -1);
  for (size_t lane = 0; lane < m.size(); ++lane)
    out.ints[lane] = m[lane] ? (sel_b[lane] < 0 ? -1 : sel_b[lane] + shift) : sel_a[lane];
  return out;
}

Value Machine::narrow(const Value &v, const Mask &m) const {
  if (v.kind != ValueKind::Choice)
    return v;
  int64_t only = -2;
  for (size_t lane = 0; lane < m.size(); ++lane) {
    if (!m[lane])
      continue;
    if (only == -2)
      only = v.ints[lane];
    else if (only != v.ints[lane])
      return v;
  }
  return only >= 0 ? v.items[static_cast<size_t>(only)] : v;
}

Mask Machine::condition(const Expr &e, const Mask &m, const ast::Stmt *owner, const char *what) {
  Value c = data(e, m);
  if (c.kind == ValueKind::Data) {
    check_known(c, m, e.range, what);
    // A branch decided by contents no assume states: its barriers may be reached by only
    // some threads at contents the interpreter did not try.
    if (const int16_t decided_by = unknown_contents(c, m); owner && decided_by >= 0)
      report_barriers_under(*owner, decided_by);
  }
  if (c.kind != ValueKind::Data) {
    not_interpreted(e.range, "the checker has no value for this condition");
    return Mask(m.size(), 0);
  }
  return truth(c, m);
}

Value Machine::eval(const Expr &e, const Mask &m) {
  if (e.kind != ExprKind::Float && e.kind != ExprKind::String) {
    if (auto c = sema_.constant_of(e)) {
      const sema::Type *t = sema_.type_of(e);
      return uniform_int(*c, t && t->kind == sema::TypeKind::Scalar ? t->scalar : ScalarKind::I32);
    }
    // A compile-time float (`EPS`, `LOG2E * rsqrt(D)`): float data without
    // tags, like a literal; floats carry tags, not values.
    if (sema_.float_values.count(&e))
      return uniform_float();
  }
  switch (e.kind) {
  case ExprKind::Int:
    return uniform_int(e.int_value);
  case ExprKind::Bool:
    return uniform_int(e.int_value, ScalarKind::Bool);
  case ExprKind::Float:
    return uniform_float();
  case ExprKind::String: {
    Value v;
    v.kind = ValueKind::String;
    v.text = e.name;
    return v;
  }
  case ExprKind::Name: {
    if (!lambda_env_.empty())
      if (auto it = lambda_env_.find(e.name); it != lambda_env_.end())
        return it->second;
    const Symbol *s = symbol_of(e);
    if (s) {
      if (auto it = env_.find(s); it != env_.end())
        return it->second.kind == ValueKind::Choice ? narrow(it->second, m) : it->second;
      if (s->value)
        return uniform_int(*s->value);
    }
    if (e.name == "inf")
      return uniform_float();
    if (auto k = sema::scalar_from_name(e.name)) {
      Value v;
      v.kind = ValueKind::Dtype;
      v.dtype = *k;
      return v;
    }
    not_interpreted(e.range, "the checker has no value for '" + e.name + "'");
    return Value{};
  }
  case ExprKind::Call:
    return call(e, m);
  case ExprKind::Subscript:
    return subscript(e, m);
  case ExprKind::Tuple: {
    Value v;
    v.kind = ValueKind::Tuple;
    for (const auto &x : e.operands)
      v.items.push_back(eval(*x, m));
    return v;
  }
  case ExprKind::Dict:
  case ExprKind::Lambda: {
    Value v;
    v.kind = ValueKind::Expr;
    v.expr = &e;
    return v;
  }
  case ExprKind::Unary: {
    Value x = data(*e.operands[0], m);
    if (x.kind != ValueKind::Data) {
      not_interpreted(e.range, "the checker has no number for this operand");
      return x;
    }
    if (e.unary_op == ast::UnaryOp::Not) {
      Value out = x.uniform ? uniform_int(x.is_float ? 0 : x.at(0) == 0, ScalarKind::Bool)
                            : make_data(ScalarKind::Bool, 1, false);
      if (!x.uniform)
        for (size_t i = 0; i < out.ints.size(); ++i)
          out.ints[i] = x.is_float ? 0 : x.at(i) == 0;
      carry_contents(out, x, nullptr);
      return out;
    }
    if (x.is_float)
      return x; // no numeric value to change; the tags stay
    for (size_t i = 0; i < x.ints.size(); ++i) {
      const int_eval::IntResult r = int_eval::unary(e.unary_op, x.ints[i]);
      x.ints[i] = r.value;
      if (!r.ok()) [[unlikely]]
        report_int_error(r.error,
                         x.uniform ? first_active(m)
                                   : static_cast<int64_t>(i / static_cast<size_t>(x.elems)),
                         e.range);
    }
    return x;
  }
  case ExprKind::Binary: {
    // A name's data is read where it is bound, not copied (a per-thread
    // value's numbers and tags). The left one only when evaluating the
    // right one runs nothing that could rebind it.
    const Expr &x = *e.operands[0], &y = *e.operands[1];
    const bool y_plain = y.kind == ExprKind::Name || y.kind == ExprKind::Int ||
                         y.kind == ExprKind::Float || y.kind == ExprKind::Bool;
    Value held_a, held_b;
    const Value *a = y_plain ? bound_data(x) : nullptr;
    if (!a) {
      held_a = data(x, m);
      a = &held_a;
    }
    const Value *b = bound_data(y);
    if (!b) {
      held_b = data(y, m);
      b = &held_b;
    }
    if (a->kind != ValueKind::Data || b->kind != ValueKind::Data)
      not_interpreted(e.range, "the checker has no number for an operand of this operation");
    return binary(e.binary_op, *a, *b, m, e.range);
  }
  case ExprKind::Compare: {
    Value left = data(*e.operands[0], m);
    Value result = uniform_int(1, ScalarKind::Bool);
    for (size_t i = 0; i < e.compare_ops.size() && i + 1 < e.operands.size(); ++i) {
      Value right = data(*e.operands[i + 1], m);
      if (left.kind != ValueKind::Data || right.kind != ValueKind::Data)
        not_interpreted(e.range, "the checker has no number for an operand of this comparison");
      Value c = compare(e.compare_ops[i], left, right);
      result = binary(BinaryOp::BitAnd, result, c, full_mask(), e.range);
      left = std::move(right);
    }
    result.dtype = ScalarKind::Bool;
    return result;
  }
  case ExprKind::BoolOp: {
    // Short-circuit per thread: the right operand runs only where it decides.
    Value a = data(*e.operands[0], m);
    if (a.kind != ValueKind::Data)
      not_interpreted(e.operands[0]->range, "the checker has no value for this condition");
    Mask ta = a.kind == ValueKind::Data ? truth(a, m) : Mask(m.size(), 0);
    Mask rest(m.size(), 0);
    for (size_t i = 0; i < m.size(); ++i)
      rest[i] = m[i] && (e.bool_op == ast::BoolOpKind::And ? ta[i] : !ta[i]);
    Value out = make_data(ScalarKind::Bool, 1, false);
    for (size_t i = 0; i < m.size(); ++i)
      out.ints[i] = ta[i];
    carry_contents(out, a, nullptr);
    if (any(rest)) {
      Value b = data(*e.operands[1], rest);
      if (b.kind != ValueKind::Data)
        not_interpreted(e.operands[1]->range, "the checker has no value for this condition");
      Mask tb = b.kind == ValueKind::Data ? truth(b, rest) : Mask(m.size(), 0);
      for (size_t i = 0; i < m.size(); ++i)
        if (rest[i])
          out.ints[i] = tb[i];
      carry_contents(out, b, nullptr);
    }
    return out;
  }
  case ExprKind::Conditional: {
    // Per thread: the branch it takes. A tensor choice stays a place (a view
    // per thread) so that every access through it is checked.
    Mask yes = condition(*e.operands[0], m);
    Mask no(m.size(), 0);
    for (size_t i = 0; i < m.size(); ++i)
      no[i] = m[i] && !yes[i];
    const sema::Type *t = sema_.type_of(e);
    const bool place = t && t->is_tensor();
    const auto branch = [&](const Expr &x, const Mask &mx) {
      return place ? eval(x, mx) : data(x, mx);
    };
    Value out;
    if (any(yes))
      out = branch(*e.operands[1], yes);
    if (any(no)) {
      Value b = branch(*e.operands[2], no);
      if (out.kind == ValueKind::None)
        out = b;
      else
        assign_lanes(out, b, no);
    }
    return place ? narrow(out, m) : out;
  }
  case ExprKind::Attribute:
    not_interpreted(e.range, "an attribute is not a value the checker evaluates");
    return Value{};
  case ExprKind::Error:
    not_interpreted(e.range, "the expression did not parse");
    return Value{};
  }
  return Value{};
}

} // namespace argus::check::detail
