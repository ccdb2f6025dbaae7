// Atomic read-modify-writes: atomic_add, atomic_max, atomic_min, atomic_exch,
// atomic_cas on one element of global or shared memory.
//
// Semantics (docs/checker.md "Atomics"): the threads' atomics run in one
// order (the interpreter's: blocks in order, threads by index); atomics on one
// element never race with each other, but race with plain reads and writes of
// another thread in the same barrier interval, or of another block at any
// time. The element's tag becomes the join of its old tag and the value's
// (exch: the value's); the value returned is the element's old one, which
// depends on the order the atomics ran in: it carries an "order" taint, so an
// index, bound, branch or barrier it decides is a W0901 instead of a result
// that holds for one order only.
#include "machine.h"

#include <algorithm>

namespace argus::check::detail {

namespace {

using ast::Expr;

bool is_unsigned(ScalarKind k) { return sema::is_integer(k) && !sema::is_signed(k); }

int64_t apply(BuiltinId id, ScalarKind dtype, int64_t old, int64_t value, int64_t expected) {
  switch (id) {
  case BuiltinId::AtomicAdd:
    return wrap_to(static_cast<int64_t>(static_cast<uint64_t>(old) + static_cast<uint64_t>(value)),
                   dtype);
  case BuiltinId::AtomicMax:
    return is_unsigned(dtype) ? static_cast<int64_t>(std::max(static_cast<uint64_t>(old),
                                                              static_cast<uint64_t>(value)))
                              : std::max(old, value);
  case BuiltinId::AtomicMin:
    return is_unsigned(dtype) ? static_cast<int64_t>(std::min(static_cast<uint64_t>(old),
                                                              static_cast<uint64_t>(value)))
                              : std::min(old, value);
  case BuiltinId::AtomicExch:
    return value;
  case BuiltinId::AtomicCas:
    return old == expected ? value : old;
  default:
    return old;
  }
}

} // namespace

bool Machine::atomic_conflict(const AtomicLog &a, int64_t lane, int32_t &block,
                              int32_t &thread) const {
  if (a.block < 0)
    return false;
  if (a.block != block_of(lane)) {
    block = a.block;
    thread = a.lane;
    return true;
  }
  if (a.other_block >= 0) {
    block = a.other_block;
    thread = a.other_lane;
    return true;
  }
  const bool unordered_atomic =
      a.many_lanes
          ? a.epoch == epoch_ &&
                (a.many_warps || warp_clock(warp_of(lane), warp_of(a.lane)) <= a.warp_epoch)
          : unordered(a.epoch, a.warp_epoch, a.lane, lane);
  if (unordered_atomic) {
    block = a.block;
    thread = a.lane != lane ? a.lane : -1;
    return true;
  }
  return false;
}

void Machine::report_atomic_race(const char *check, int64_t lane, const Range &at, const Buffer &b,
                                 int64_t cell, int32_t block, int32_t thread, int32_t site,
                                 const std::string &what, const char *note) {
  if (!should_report("race", at))
    return;
  Where w = where_at(b, lane, cell, at);
  w.origin = site;
  const bool other_block = block != block_of(lane);
  const std::string who = thread >= 0 ? thread_text_in(block, thread) : "other threads";
  Violation &v = report("race", check, w,
                        "data race on " + b.name + ": " + what + who +
                            (other_block ? " (another block: blocks of one launch run in no "
                                           "fixed order)"
                                         : " in the same barrier interval (no syncthreads() "
                                           "between); atomics are ordered only with atomics"));
  if (!v.related.empty()) {
    v.related.back().message = note;
    v.data["origin"]["note"] = note;
  }
  if (thread >= 0)
    v.data["other_thread"] = thread_json_in(block, thread);
  if (other_block)
    v.data["other_block"] = v.data["other_thread"]["block"];
}

int16_t Machine::order_taint(const Expr &call) {
  const int32_t site = site_of(call.range);
  if (auto it = order_taints_.find(site); it != order_taints_.end())
    return it->second;
  const auto id = static_cast<int16_t>(content_names_.size());
  // No line in the text: a cached report moves with its kernel (relocate.cpp);
  // the atomic is the diagnostic's related location.
  content_names_.push_back("the value " + builtin_name(sema_.builtin_of(call)) + " returns");
  content_order_site_.resize(content_names_.size(), -1);
  content_order_site_.back() = site;
  has_unknown_contents_ = true;
  order_taints_.emplace(site, id);
  return id;
}

void Machine::atomic_update(BuiltinId id, const Expr &call, const View &v, const Value &value,
                            const Value *expected, const Mask &m, Value &out) {
  const int64_t element_bytes = dtype_bytes(v.dtype);
  if (element_bytes < buffers_[static_cast<size_t>(v.buffer)].cell_bytes &&
      !refine(v.buffer, element_bytes))
    return;
  Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  if (b.log.empty()) {
    not_interpreted(call.range, "the checker runs atomics on global or shared memory only");
    return;
  }
  if (element_bytes != b.cell_bytes) {
    not_interpreted(call.range, "the checker runs an atomic only on an element its tensor's other "
                                "accesses do not split into narrower parts");
    return;
  }
  const int32_t site = site_of(call.range);
  current_site_ = site;
  const int16_t taint = order_taint(call);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || v.is_bad(static_cast<size_t>(lane)))
      continue;
    const int64_t byte = element_byte_offset(v, lane, 0);
    const int64_t index = cell_index(b, byte);
    if (index < 0 || index >= b.cells) {
      report_outside_buffer(b, lane, call.range, byte, "atomic update of ");
      continue;
    }
    Cell &c = cell(b, lane, index);
    CellLog &l = b.log[static_cast<size_t>(index)];
    // Plain accesses of other threads race with this atomic.
    if (l.pending_lane >= 0 && l.pending_lane != lane) {
      report_atomic_race("atomic-async", lane, call.range, b, index, block_of(lane), l.pending_lane,
                         l.pending_site,
                         "updated atomically while an async copy to it is in flight, by ",
                         "the async copy");
    } else if (l.writer >= 0 &&
               unordered_with(l.writer_block, l.write_epoch, l.write_warp_epoch, l.writer, lane)) {
      report_atomic_race("atomic-write", lane, call.range, b, index, l.writer_block, l.writer,
                         c.write_site, "updated atomically here and written plainly by ",
                         "written here");
    } else if (reads_unordered(l, lane, &b, index)) {
      report_atomic_race("atomic-read", lane, call.range, b, index, block_of(lane),
                         l.reader != lane ? l.reader : -1, l.read_site,
                         "updated atomically here and read plainly by ", "read here");
    } else if (!b.grid_reads.empty()) {
      const GridReads &g = b.grid_reads[static_cast<size_t>(index)];
      const bool first = g.block >= 0 && g.block != block_of(lane);
      if (first || g.other_block >= 0)
        report_atomic_race("atomic-read", lane, call.range, b, index,
                           first ? g.block : g.other_block, first ? g.lane : g.other_lane,
                           first ? g.site : g.other_site,
                           "updated atomically here and read plainly by ", "read here");
    }
    if (b.space == MemorySpace::Shared && !c.initialized)
      report_uninitialized(b, lane, index, call.range);
    // The old value goes back to the thread; the new one into memory.
    const size_t slot = static_cast<size_t>(lane);
    const Tag *vt = value.tag_at(slot);
    Tag old_tag = c.tag;
    old_tag.contents = taint;
    if (!out.tags.empty())
      out.tags[slot] = old_tag;
    if (!out.is_float)
      out.ints[slot] = c.value;
    Tag next = id == BuiltinId::AtomicExch ? (vt ? *vt : Tag{}) : join(c.tag, vt ? *vt : Tag{});
    if (!b.declared.empty())
      check_store_contract(b, index, next, lane, call.range);
    const int64_t expect = expected && expected->kind == ValueKind::Data ? expected->at(slot) : 0;
    c.value = value.is_float ? 0 : apply(id, v.dtype, c.value, value.at(slot), expect);
    c.tag = next;
    c.tag.origin = site;
    if (trace_) [[unlikely]]
      c.tag.origin = trace_node(TraceAction::Write, site, v.buffer, index, lane, c.tag,
                                vt ? vt->origin : -1, site);
    c.initialized = true;
    c.write_site = site;
    c.version += 1;
    // An atomic update covers its element; more of them accumulate (no E0908).
    l.writes = std::max(l.writes, 1);
    if (b.atomics.empty())
      b.atomics.resize(b.log.size());
    AtomicLog &a = b.atomics[static_cast<size_t>(index)];
    const auto blk = static_cast<int32_t>(block_of(lane));
    if (a.block >= 0 && a.block != blk) {
      a.other_block = a.block;
      a.other_lane = a.lane;
      a.block = -1;
    }
    if (a.block < 0 || a.epoch != epoch_) {
      a.block = blk;
      a.lane = static_cast<int32_t>(lane);
      a.epoch = epoch_;
      a.site = site;
      a.many_lanes = false;
      a.many_warps = false;
    } else if (a.lane != lane) {
      a.many_lanes = true;
      if (warp_of(a.lane) != warp_of(lane))
        a.many_warps = true;
    }
    a.warp_epoch = warp_epoch(lane);
  }
}

Value Machine::atomic(BuiltinId id, const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return Value{};
  const bool cas = id == BuiltinId::AtomicCas;
  Value place = eval(call.arg(0), m);
  Value expected = cas ? data(call.arg(1), m) : Value{};
  Value value = data(call.arg(cas ? 2 : 1), m);
  if (value.kind != ValueKind::Data || (cas && expected.kind != ValueKind::Data)) {
    not_interpreted(call.range, "the checker has no value for an operand of this atomic");
    return Value{};
  }
  value.expand(lanes_);
  if (cas)
    expected.expand(lanes_);
  const ScalarKind dtype = place.kind == ValueKind::View ? place.view->dtype : value.dtype;
  Value out = make_data(dtype, 1, sema::is_float(dtype));
  out.expand(lanes_);
  out.tags.assign(out.ints.size(), Tag{});
  // A view chosen per thread: each alternative for its threads.
  if (place.kind == ValueKind::Choice) {
    for (size_t k = 0; k < place.items.size(); ++k) {
      Mask mk = alternative_mask(place, k, m);
      if (any(mk) && place.items[k].kind == ValueKind::View)
        atomic_update(id, call, *place.items[k].view, value, cas ? &expected : nullptr, mk, out);
    }
    return out;
  }
  if (place.kind != ValueKind::View) {
    not_interpreted(call.range, "the checker has no element for this atomic's place");
    return out;
  }
  atomic_update(id, call, *place.view, value, cas ? &expected : nullptr, m, out);
  return out;
}

} // namespace argus::check::detail
