// Integer tensor contents written by the host: the values chosen for them
// (contents.h), and the taint of those no assume states, so that an index, a
// loop bound, a branch or a barrier they decide is reported as unproven
// instead of being checked for zeros in silence.
#include "machine.h"

#include <algorithm>

namespace argus::check::detail {

void Machine::load_contents(Buffer &b, const std::string &name) {
  if (sema::is_float(b.dtype))
    return;
  auto it = contents_.find(name);
  if (it != contents_.end()) {
    const std::vector<int64_t> &values = it->second;
    int64_t count = 1;
    for (int64_t d : b.shape)
      count *= std::max<int64_t>(0, d);
    for (int64_t e = 0; e < count && e < static_cast<int64_t>(values.size()); ++e) {
      int64_t rest = e, cell = 0;
      for (size_t d = b.shape.size(); d-- > 0;) {
        cell += (rest % b.shape[d]) * b.strides[d];
        rest /= b.shape[d];
      }
      if (cell >= 0 && cell < b.cells)
        b.data[static_cast<size_t>(cell)].value = values[static_cast<size_t>(e)];
    }
  }
  if (stated_tensors_.count(name))
    return;
  const auto id = static_cast<int16_t>(content_names_.size());
  content_names_.push_back(name);
  for (Cell &c : b.data)
    c.tag.contents = id;
  has_unknown_contents_ = true;
}

int16_t Machine::unknown_contents(const Value &v, const Mask &m) const {
  if (!has_unknown_contents_ || v.kind != ValueKind::Data || v.tags.empty())
    return -1;
  const size_t n = static_cast<size_t>(v.elems);
  if (v.uniform) {
    for (size_t e = 0; e < n && e < v.tags.size(); ++e)
      if (v.tags[e].contents >= 0)
        return v.tags[e].contents;
    return -1;
  }
  for (size_t lane = 0; lane < m.size(); ++lane)
    if (m[lane])
      for (size_t e = 0; e < n; ++e)
        if (v.tags[lane * n + e].contents >= 0)
          return v.tags[lane * n + e].contents;
  return -1;
}

// Comparisons and logic build fresh values: the taint goes on through them.
void Machine::carry_contents(Value &out, const Value &a, const Value *b) const {
  if (!has_unknown_contents_ || out.kind != ValueKind::Data)
    return;
  auto source = [](const Value &x, size_t lane) -> int16_t {
    if (x.kind != ValueKind::Data || x.tags.empty())
      return -1;
    const Tag *t = x.tag_at(lane, 0);
    return t ? t->contents : -1;
  };
  const size_t lanes = out.uniform ? 1 : static_cast<size_t>(lanes_);
  for (size_t lane = 0; lane < lanes; ++lane) {
    int16_t c = source(a, lane);
    if (c < 0 && b)
      c = source(*b, lane);
    if (c < 0)
      continue;
    if (out.tags.empty())
      out.tags.assign(out.ints.size(), Tag{});
    for (int e = 0; e < out.elems; ++e)
      out.tags[out.index(lane, e)].contents = c;
  }
}

void Machine::report_unknown_contents(int16_t id, const Range &at, const std::string &message) {
  if (!should_report("unproven", at))
    return;
  Where w;
  w.range = at;
  if (is_order_taint(id)) {
    w.origin = content_order_site_[static_cast<size_t>(id)];
    Violation &v = report("unproven", "atomic-order", w, message, true);
    if (!v.related.empty()) {
      v.related.back().message = "the atomic";
      v.data["origin"]["note"] = "the atomic";
    }
    return;
  }
  w.tensor = content_names_[static_cast<size_t>(id)];
  Violation &v = report("unproven", "contents", w, message, true);
  v.data["tensor"] = w.tensor;
}

void Machine::check_known(const Value &v, const Mask &m, const Range &at, const std::string &what) {
  const int16_t id = unknown_contents(v, m);
  if (id < 0)
    return;
  const std::string &name = content_names_[static_cast<size_t>(id)];
  if (is_order_taint(id)) {
    report_unknown_contents(id, at,
                            what + " depends on " + name +
                                ", which depends on the order the threads' atomics run in: it was "
                                "checked only for the order the checker ran them in");
    return;
  }
  report_unknown_contents(id, at,
                          what + " depends on the contents of " + name +
                              ", which no assume states: it was checked only with every element "
                              "of " +
                              name + " zero (state them: assume(0 <= " + name +
                              "[i] < n for i in range(...)))");
}

namespace {

void barriers_in(const sema::SemaResult &sema, const ast::Expr &e,
                 std::vector<const ast::Expr *> &out) {
  if (e.kind == ast::ExprKind::Call && sema.builtin_of(e) == BuiltinId::Syncthreads)
    out.push_back(&e);
  for (const auto &op : e.operands)
    if (op)
      barriers_in(sema, *op, out);
}

void barriers_in(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body,
                 std::vector<const ast::Expr *> &out) {
  for (const auto &s : body) {
    if (s->value)
      barriers_in(sema, *s->value, out);
    barriers_in(sema, s->body, out);
    barriers_in(sema, s->orelse, out);
  }
}

} // namespace

// A branch or loop decided by unknown contents: every barrier inside it,
// whether or not this run reaches it (with zeros it may never run).
void Machine::report_barriers_under(const ast::Stmt &s, int16_t id) {
  std::vector<const ast::Expr *> calls;
  barriers_in(sema_, s.body, calls);
  barriers_in(sema_, s.orelse, calls);
  const std::string &name = content_names_[static_cast<size_t>(id)];
  for (const ast::Expr *call : calls)
    if (is_order_taint(id))
      report_unknown_contents(id, call->range,
                              "whether threads reach this barrier depends on " + name +
                                  ", which depends on the order of the threads' atomics: it was "
                                  "checked for one order only");
    else
      report_unknown_contents(id, call->range,
                              "whether threads reach this barrier depends on the contents of " +
                                  name + ", which no assume states: it was checked only with " +
                                  name + " all zero");
}

} // namespace argus::check::detail
