// Tags and their contracts: tag(), assert_tag, assert_tag_eq, reset_tags,
// stores into tagged tensors, assert_covered.
#include "machine.h"

#include <array>
#include <functional>
#include <span>

namespace argus::check::detail {

using ast::Expr;
using ast::ExprKind;

namespace {

nlohmann::json field_json(int64_t v) {
  if (v == kTop)
    return "mixed";
  if (v == kAbsent)
    return nullptr;
  return v;
}

} // namespace

void Machine::tag_tensor(const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return;
  Value t = narrow(eval(call.arg(0), m), m);
  if (t.kind != ValueKind::View) {
    not_interpreted(call.range, "tag() needs a single tensor the checker knows");
    return;
  }
  const View &v = *t.view;
  Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  if (b.space == MemorySpace::Global && b.tagged_once)
    return; // a global tensor is tagged once per launch
  b.tagged_once = true;
  // Tagged through a narrower view: every byte gets its element's record.
  if (dtype_bytes(v.dtype) < b.cell_bytes && !refine(v.buffer, dtype_bytes(v.dtype)))
    return;
  const int64_t span = std::max<int64_t>(1, dtype_bytes(v.dtype) / b.cell_bytes);
  const Expr &fn = call.arg(1);
  const int64_t n = v.elements();
  std::vector<Tag> declared(static_cast<size_t>(n));
  std::vector<int64_t> cells(static_cast<size_t>(n));
  // coords[e * rank + d]: one array, not one per element (a tensor of a
  // million elements is tagged in every run).
  const size_t rank = v.shape.size();
  std::vector<int64_t> coords(static_cast<size_t>(n) * rank);
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e;
    for (size_t d = rank; d-- > 0;) {
      coords[static_cast<size_t>(e) * rank + d] = rest % v.shape[d];
      rest /= v.shape[d];
    }
    cells[static_cast<size_t>(e)] = cell_index(b, element_byte_offset(v, 0, e));
  }
  const auto coord = [&](int64_t e, size_t d) { return coords[static_cast<size_t>(e) * rank + d]; };
  if (fn.kind == ExprKind::Tuple) {
    std::vector<int> ids;
    for (const auto &f : fn.operands)
      ids.push_back(f->kind == ExprKind::String ? field_id(f->name) : -1);
    for (int64_t e = 0; e < n; ++e)
      for (size_t d = 0; d < ids.size() && d < v.shape.size(); ++d)
        if (ids[d] >= 0)
          declared[static_cast<size_t>(e)].field[static_cast<size_t>(ids[d])] =
              tag_value(coord(e, d));
  } else if (fn.kind == ExprKind::Lambda && !fn.operands.empty() &&
             fn.operands[0]->kind == ExprKind::Dict) {
    // Bind the lambda's parameters to the coordinates of lanes_ elements at a time.
    const Expr &dict = *fn.operands[0];
    for (int64_t e0 = 0; e0 < n; e0 += lanes_) {
      Mask chunk(static_cast<size_t>(lanes_), 0);
      for (int64_t l = 0; l < lanes_ && e0 + l < n; ++l)
        chunk[static_cast<size_t>(l)] = 1;
      for (size_t p = 0; p < fn.lambda_params.size(); ++p) {
        Value c = make_data(ScalarKind::I32, 1, false);
        for (int64_t l = 0; l < lanes_ && e0 + l < n; ++l)
          c.ints[static_cast<size_t>(l)] = p < rank ? coord(e0 + l, p) : 0;
        lambda_env_[fn.lambda_params[p].name] = std::move(c);
      }
      for (size_t k = 0; k + 1 < dict.operands.size(); k += 2) {
        if (dict.operands[k]->kind != ExprKind::String)
          continue;
        const int id = field_id(dict.operands[k]->name);
        if (id < 0)
          continue;
        Value x = data(*dict.operands[k + 1], chunk);
        if (x.kind != ValueKind::Data)
          continue;
        for (int64_t l = 0; l < lanes_ && e0 + l < n; ++l)
          declared[static_cast<size_t>(e0 + l)].field[static_cast<size_t>(id)] =
              tag_value(x.at(static_cast<size_t>(l)));
      }
    }
    lambda_env_.clear();
  }
  if (b.declared.empty())
    b.declared.assign(static_cast<size_t>(b.cells), Tag{});
  const int64_t copies = b.space == MemorySpace::Local ? lanes_ : 1;
  for (int64_t e = 0; e < n; ++e) {
    const int64_t first = cells[static_cast<size_t>(e)];
    if (first < 0 || first + span > b.cells)
      continue;
    for (int64_t idx = first; idx < first + span; ++idx) {
      b.declared[static_cast<size_t>(idx)] = declared[static_cast<size_t>(e)];
      for (int64_t lane = 0; lane < copies; ++lane) {
        Cell &c = cell(b, lane, idx);
        c.tag = declared[static_cast<size_t>(e)];
        c.tag.origin = -1;
      }
    }
  }
}

void Machine::check_store_contract(const Buffer &b, int64_t cell_idx, const Tag &tag, int64_t lane,
                                   const Range &at) {
  const Tag &want = b.declared[static_cast<size_t>(cell_idx)];
  if (tag.poison)
    return;
  for (int f = 0; f < kMaxFields; ++f) {
    const int64_t w = want.field[static_cast<size_t>(f)], got = tag.field[static_cast<size_t>(f)];
    if (w == kAbsent || got == kAbsent || w == got)
      continue;
    if (!should_report("tag-mismatch", at))
      return;
    Where where;
    where.lane = lane;
    where.range = at;
    where.tensor = b.name;
    where.coord = cell_coords(b, cell_idx);
    blame(where, tag);
    const std::string field = field_names_[static_cast<size_t>(f)];
    std::string coord;
    for (int64_t c : where.coord)
      coord += (coord.empty() ? "" : ", ") + std::to_string(c);
    Violation &v =
        report("tag-mismatch", "store", where,
               "tag mismatch on field " + field + ": the value stored into " + b.name + "[" +
                   coord + "] carries " + tag_text(tag) + ", the element is " + tag_text(want));
    v.data["expected"] = {{field, field_json(w)}};
    v.data["actual"] = {{field, field_json(got)}};
    return;
  }
}

// The thread, the assertion and the element its operand names (a place: the
// tensor and the indices it was read at).
Machine::Where Machine::where_used(const Expr &call, const Expr &operand, const Value &place,
                                   int64_t lane) const {
  Where w;
  w.lane = lane;
  w.range = call.range;
  w.tensor = tensor_name(operand);
  if (place.kind == ValueKind::View)
    for (const Value &c : place.view->coords)
      w.coord.push_back(c.kind == ValueKind::Data ? c.at(static_cast<size_t>(lane)) : 0);
  return w;
}

void Machine::assert_tag(const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return;
  const Expr &x_e = call.arg(0);
  Value place = eval(x_e, m);
  Value x = to_data(place, m, x_e.range);
  const Expr &record = call.arg(1);
  if (x.kind != ValueKind::Data || record.kind != ExprKind::Dict) {
    not_interpreted(call.range, "the checker has no value for assert_tag's operand");
    return;
  }
  for (size_t k = 0; k + 1 < record.operands.size(); k += 2) {
    if (record.operands[k]->kind != ExprKind::String)
      continue;
    const std::string field = record.operands[k]->name;
    const int id = field_id(field);
    Value want = data(*record.operands[k + 1], m);
    if (want.kind != ValueKind::Data || id < 0) {
      not_interpreted(record.operands[k + 1]->range,
                      "the checker has no integer value for field " + field);
      continue;
    }
    for (int64_t lane = 0; lane < lanes_; ++lane) {
      if (!m[static_cast<size_t>(lane)])
        continue;
      for (int e = 0; e < x.elems; ++e) {
        const Tag *t = x.tag_at(static_cast<size_t>(lane), e);
        const Tag got_tag = t ? *t : Tag{};
        if (got_tag.poison)
          continue;
        const int64_t got = got_tag.field[static_cast<size_t>(id)];
        const int64_t expected = want.at(static_cast<size_t>(lane));
        if (got == expected)
          continue;
        if (!should_report("tag-mismatch", call.range))
          return;
        Where w = where_used(call, x_e, place, lane);
        blame(w, got_tag);
        Violation &v =
            report("tag-mismatch", "assert_tag", w,
                   "tag mismatch on field " + field + ": expected " + std::to_string(expected) +
                       ", the value carries " + tag_text(got_tag));
        v.data["expected"] = {{field, expected}};
        v.data["actual"] = {{field, field_json(got)}};
        return;
      }
    }
  }
}

void Machine::assert_tag_eq(const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return;
  Value px = eval(call.arg(0), m), py = eval(call.arg(1), m);
  Value x = to_data(px, m, call.arg(0).range), y = to_data(py, m, call.arg(1).range);
  if (x.kind != ValueKind::Data || y.kind != ValueKind::Data) {
    not_interpreted(call.range, "the checker has no value for an operand of assert_tag_eq");
    return;
  }
  std::vector<int> ids;
  bool all_common = true;
  const Expr *fields = nullptr;
  if (const ast::Keyword *kw = call.keyword("fields"))
    fields = kw->value.get();
  else if (call.arg_count() >= 3)
    fields = &call.arg(2);
  if (fields) {
    all_common = false;
    auto add = [&](const Expr &f) {
      if (f.kind == ExprKind::String)
        ids.push_back(field_id(f.name));
    };
    if (fields->kind == ExprKind::Tuple)
      for (const auto &f : fields->operands)
        add(*f);
    else
      add(*fields);
  }
  const int elems = std::max(x.elems, y.elems);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)])
      continue;
    for (int e = 0; e < elems; ++e) {
      const Tag *tx = x.tag_at(static_cast<size_t>(lane), x.elems == elems ? e : 0);
      const Tag *ty = y.tag_at(static_cast<size_t>(lane), y.elems == elems ? e : 0);
      const Tag a = tx ? *tx : Tag{}, b = ty ? *ty : Tag{};
      if (a.poison || b.poison)
        continue;
      // The fields to compare: the listed ones, or those both carry.
      std::array<int, kMaxFields> common{};
      size_t count = 0;
      if (all_common) {
        for (int f = 0; f < kMaxFields; ++f)
          if (a.field[static_cast<size_t>(f)] != kAbsent &&
              b.field[static_cast<size_t>(f)] != kAbsent)
            common[count++] = f;
      }
      const std::span<const int> check =
          all_common ? std::span<const int>(common.data(), count) : std::span<const int>(ids);
      for (int f : check) {
        if (f < 0)
          continue;
        const int64_t av = a.field[static_cast<size_t>(f)], bv = b.field[static_cast<size_t>(f)];
        if (av == bv && av != kTop && av != kAbsent)
          continue;
        if (!should_report("tag-mismatch", call.range))
          return;
        Where w = where_used(call, call.arg(0), px, lane);
        if (x.elems > 1)
          w.coord.push_back(e);
        blame(w, a);
        w.more_origins = {origin_site(b.origin)};
        const std::string field = field_names_[static_cast<size_t>(f)];
        Violation &v =
            report("tag-mismatch", "assert_tag_eq", w,
                   "tag mismatch on field " + field + ": " + tag_text(a) + " vs " + tag_text(b) +
                       (elems > 1 ? " at element " + std::to_string(e) : std::string()));
        v.data["expected"] = {{field, field_json(bv)}};
        v.data["actual"] = {{field, field_json(av)}};
        return;
      }
    }
  }
}

void Machine::reset_tags(const Expr &call, const Mask &m) {
  if (call.arg_count() < 1)
    return;
  Value t = narrow(eval(call.arg(0), m), m);
  if (t.kind != ValueKind::View) {
    not_interpreted(call.range, "reset_tags() needs a single tensor the checker knows");
    return;
  }
  Buffer &b = buffers_[static_cast<size_t>(t.view->buffer)];
  for (Cell &c : b.data)
    c.tag = Tag{};
  b.declared.clear();
}

void Machine::assert_covered(const Expr &call, const Mask &m) {
  if (call.arg_count() < 1)
    return;
  Value t = narrow(eval(call.arg(0), m), m);
  if (t.kind != ValueKind::View) {
    not_interpreted(call.range, "assert_covered() needs a single tensor the checker knows");
    return;
  }
  Buffer &b = buffers_[static_cast<size_t>(t.view->buffer)];
  b.covered = true;
  b.covered_at = &call;
}

void Machine::check_coverage(bool all_blocks) {
  for (Buffer &b : buffers_) {
    if (!b.covered || b.space != MemorySpace::Global || !b.covered_at)
      continue;
    const Range at = b.covered_at->range;
    if (!all_blocks) {
      if (should_report("unproven", at)) {
        Where w;
        w.range = at;
        Violation &v = report("unproven", "assert_covered", w,
                              "could not prove that every element of " + b.name +
                                  " is written exactly once: the grid is larger than " +
                                  std::to_string(options_.max_blocks) + " blocks",
                              true);
        v.data["thread"] = nullptr;
      }
      continue;
    }
    int64_t n = 1;
    for (int64_t d : b.shape)
      n *= d;
    // A buffer refined to bytes (written through a narrower view) counts
    // every byte of an element: each must be written exactly once.
    auto report_cell = [&](int64_t bad, const std::vector<int64_t> &coord) {
      const int32_t writes = b.log[static_cast<size_t>(bad)].writes;
      const std::string kind = writes == 0 ? "not-covered" : "covered-twice";
      if (!should_report(kind, at))
        return false;
      std::string text;
      for (int64_t x : coord)
        text += (text.empty() ? "" : ", ") + std::to_string(x);
      const std::string what = b.split > 1
                                   ? "byte " + std::to_string((bad % b.split) * b.cell_bytes) +
                                         " of " + b.name + "[" + text + "]"
                                   : b.name + "[" + text + "]";
      const std::string message = writes == 0
                                      ? what + " is never written"
                                      : what + " is written " + std::to_string(writes) + " times";
      Where w;
      w.range = at;
      w.tensor = b.name;
      w.coord = coord;
      w.origin = b.data[static_cast<size_t>(bad)].write_site;
      Violation &v = report(kind, "assert_covered", w, message);
      v.data["thread"] = nullptr;
      v.data["iteration"] = nlohmann::json::object();
      v.data["writes"] = writes;
      if (b.split > 1)
        v.data["byte"] = (bad % b.split) * b.cell_bytes;
      // The message's thread context is meaningless here: say the sizes instead.
      std::string sizes;
      for (const auto &[k, x] : sizes_)
        sizes += (sizes.empty() ? "" : ", ") + k + " = " + std::to_string(x);
      v.message = message + " (" + sizes + ")";
      return true;
    };
    bool reported = false;
    std::vector<int64_t> coord(b.shape.size());
    for (int64_t e = 0; e < n && !reported; ++e) {
      int64_t rest = e, idx = 0;
      for (size_t d = b.shape.size(); d-- > 0;) {
        coord[d] = rest % b.shape[d];
        rest /= b.shape[d];
        idx += coord[d] * b.strides[d];
      }
      for (int64_t j = 0; j < b.split && !reported; ++j)
        if (b.log[static_cast<size_t>(idx * b.split + j)].writes != 1)
          reported = report_cell(idx * b.split + j, coord);
    }
  }
}

} // namespace argus::check::detail
