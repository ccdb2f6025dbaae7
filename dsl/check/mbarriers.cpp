// mbarriers (sm90): nvvm.mbarrier_init(bar, count), mbarrier_arrive(bar),
// mbarrier_wait(bar, phase). The state of each barrier is kept beside its u64
// cell (Machine::mbarriers_): the arrivals its current phase still needs and
// the phases completed. A wait on parity p returns at once when the current
// phase's parity differs from p (the phase before it completed), as the
// hardware's try_wait.parity does: a wait with the wrong parity does not wait
// for the phase meant, and what the arrivers wrote is then unordered with the
// waiter's reads (a race). A completed phase orders its arrivers' earlier
// accesses before its waiters' later ones through the warp clocks
// (Machine::warp_clock_), as a named barrier does.
//
// The interpreter runs a block's threads in lockstep, so in lockstep the
// arrivals a wait needs must have happened before it: a wait whose phase is
// not complete when every thread of the block is waiting is a deadlock
// (E0905); when some threads are elsewhere it is W0901. The sides of an `if`
// that waits run as agents (agents.h): a wait blocks its agent until other
// roles complete the phase, and when no role can go on it is a deadlock (or
// W0901 when threads outside the roles might still arrive).
// The barrier cell itself is written by the init and read by every arrival
// and wait, so using a barrier before it is initialized, or without a
// syncthreads() after another thread initialized it, is an uninitialized read
// or a race on that cell.
#include "agents.h"
#include "machine.h"

#include <algorithm>
#include <optional>

namespace argus::check::detail {

using ast::Expr;

void Machine::mbarrier_op(BuiltinId id, const Expr &call, const Mask &m, const Value *remote) {
  if (call.arg_count() < (id == BuiltinId::NvvmMbarrierArrive ? 1u : 2u))
    return;
  const Value place = remote ? *remote : eval(call.arg(0), m);
  if (place.kind != ValueKind::View) {
    not_interpreted(call.range, "the checker has no barrier element (one for every thread) for "
                                "this mbarrier operation");
    return;
  }
  Value operand; // count, bytes or phase
  if (id != BuiltinId::NvvmMbarrierArrive) {
    operand = data(call.arg(1), m);
    if (operand.kind != ValueKind::Data) {
      not_interpreted(call.range, "the checker has no value for this mbarrier operation's " +
                                      std::string(id == BuiltinId::NvvmMbarrierInit   ? "count"
                                                  : id == BuiltinId::NvvmMbarrierWait ? "phase"
                                                                                      : "bytes"));
      return;
    }
  }
  const View &v = *place.view;
  const int32_t site = site_of(call.range);
  current_site_ = site;
  const std::string name = call.arg(0).kind == ast::ExprKind::Subscript
                               ? tensor_name(call.arg(0)) + "[...]"
                               : std::string("the barrier");
  // The barrier of each lane, in lane order, after the cell's own checks.
  std::vector<std::pair<int64_t, MBarrier *>> lanes;
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || v.is_bad(static_cast<size_t>(lane)))
      continue;
    if (id == BuiltinId::NvvmMbarrierInit) {
      const int64_t count = operand.at(static_cast<size_t>(lane));
      write_element(v, lane, 0, call.range, nullptr, 0);
      const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
      const int64_t cell = cell_index(b, element_byte_offset(v, lane, 0));
      MBarrier &bar = mbarriers_[{v.buffer, cell}];
      bar = MBarrier{};
      bar.count = bar.pending = count;
      bar.arrived.assign(static_cast<size_t>(warps_), 0);
      if ((count < 1 || count > (int64_t{1} << 20) - 1) &&
          should_report("barrier-divergence", call.range)) {
        Where w;
        w.lane = lane;
        w.range = call.range;
        report("barrier-divergence", "mbarrier", w,
               "mbarrier_init with count " + std::to_string(count) +
                   ": an mbarrier counts 1 to 2^20 - 1 arrivals per phase");
      }
      continue;
    }
    Tag t;
    int64_t value = 0;
    int64_t cell = -1;
    if (!read_element(v, lane, 0, call.range, t, value, &cell))
      continue;
    auto it = mbarriers_.find({v.buffer, cell});
    if (it == mbarriers_.end())
      continue; // never initialized: the read above reported it
    lanes.emplace_back(lane, &it->second);
  }
  if (id == BuiltinId::NvvmMbarrierInit || lanes.empty())
    return;

  if (id == BuiltinId::NvvmMbarrierArrive || id == BuiltinId::NvvmMbarrierExpectTx) {
    // Each arriving warp passes a barrier of its own (its later accesses are
    // not ordered before the waiters), then its clock joins the phase's.
    std::vector<uint8_t> bumped(static_cast<size_t>(warps_), 0);
    bool released = false;
    for (const auto &[lane, bar] : lanes) {
      const int64_t warp = warp_of(lane);
      if (!bumped[static_cast<size_t>(warp)]) {
        bumped[static_cast<size_t>(warp)] = 1;
        bump_warp(warp);
      }
      join_warp_into(bar->arrived, warp);
      if (id == BuiltinId::NvvmMbarrierExpectTx)
        bar->tx += operand.at(static_cast<size_t>(lane));
      if (bar->pending == 0 && should_report("barrier-divergence", call.range)) {
        // Every arrival is in and the phase waits for bytes only.
        Where w;
        w.lane = lane;
        w.range = call.range;
        report("barrier-divergence", "mbarrier", w,
               "one arrival more than the " + std::to_string(bar->count) + " that phase " +
                   std::to_string(bar->phase) + " of " + name +
                   " counts (it still waits for the bytes of its copies)");
        continue;
      }
      bar->pending -= 1;
      const int64_t before = bar->phase;
      complete_phase_if_done(*bar);
      released |= bar->phase != before;
    }
    // A plain arrive that completed a phase releases what the barrier
    // guards: the roles waiting for it run now (Agents::yield_after_release).
    if (released && id == BuiltinId::NvvmMbarrierArrive && agents_)
      agents_->yield_after_release();
    return;
  }

  // mbarrier_wait(bar, parity).
  const bool whole_block = std::all_of(m.begin(), m.begin() + lanes_, [](uint8_t x) { return x; });
  // Lanes whose phase has not completed (after the copies counted on it
  // landed): with roles running as agents, they block until other roles
  // complete it (agents.h); in lockstep nobody else can.
  std::vector<std::pair<int64_t, MBarrier *>> blocked;
  for (const auto &[lane, bar] : lanes) {
    const int64_t parity = operand.at(static_cast<size_t>(lane)) & 1;
    if (bar->phase % 2 != parity) {
      // The phase of this parity before the current one completed (or, on a
      // fresh barrier waited on with parity 1, none did: no order).
      order_after_phase(*bar, static_cast<size_t>(parity), warp_of(lane));
      continue;
    }
    // The phase waited for has not completed: its bulk copies land now (the
    // wait is where the threads observe them).
    land_bulk_copies(*bar);
    complete_phase_if_done(*bar);
    if (bar->phase % 2 != parity) {
      order_after_phase(*bar, static_cast<size_t>(parity), warp_of(lane));
      continue;
    }
    blocked.emplace_back(lane, bar);
  }
  if (blocked.empty())
    return;
  Agents::Wake wake = Agents::Wake::Unmodelled;
  std::vector<Agents::OtherWait> others;
  if (agents_) {
    std::vector<Agents::Await> awaits;
    std::vector<int64_t> phases; // per blocked lane: the phase it waits for
    Mask waiting(static_cast<size_t>(lanes_), 0);
    for (const auto &[lane, bar] : blocked) {
      waiting[static_cast<size_t>(lane)] = 1;
      phases.push_back(bar->phase);
      if (std::none_of(awaits.begin(), awaits.end(),
                       [&](const Agents::Await &a) { return a.bar == bar; }))
        awaits.push_back({bar, bar->phase});
    }
    const std::string what =
        "waiting for phase " + std::to_string(blocked[0].second->phase) + " of " + name;
    std::shared_ptr<Agents> agents = agents_;
    wake = agents->block(std::move(awaits), waiting, what, call.range, others);
    if (wake == Agents::Wake::Completed) {
      for (size_t k = 0; k < blocked.size(); ++k)
        order_after_phase_number(*blocked[k].second, phases[k], warp_of(blocked[k].first));
      return;
    }
    if (stopped_) // a budget ran out: the roles are wound down, not judged
      return;
  }
  for (const auto &[lane, bar] : blocked) {
    const int64_t parity = operand.at(static_cast<size_t>(lane)) & 1;
    if (bar->phase % 2 != parity) { // forced for an earlier lane of this wait
      order_after_phase(*bar, static_cast<size_t>(parity), warp_of(lane));
      continue;
    }
    Where w;
    w.lane = lane;
    w.range = call.range;
    if (bar->tx < 0) {
      if (should_report("barrier-divergence", call.range)) {
        Violation &viol = report(
            "barrier-divergence", "mbarrier-tx", w,
            "the copies counted on " + name + " deliver " + std::to_string(-bar->tx) +
                " bytes more than expect_tx announced for phase " + std::to_string(bar->phase) +
                ": the transaction count goes below zero (the phase may complete before the "
                "data is in)");
        viol.data["bytes"] = -bar->tx;
      }
      force_phase(*bar, lane);
      continue;
    }
    const std::string needs =
        bar->pending > 0 ? std::to_string(bar->pending) + " more arrival" +
                               (bar->pending == 1 ? "" : "s") + " of " + std::to_string(bar->count)
                         : std::to_string(bar->tx) + " bytes that no copy counted on it delivers "
                                                     "(expect_tx announced more)";
    const bool deadlock = agents_ ? wake == Agents::Wake::Deadlock : whole_block;
    if (deadlock) {
      if (should_report("barrier-divergence", call.range)) {
        std::string rest = !agents_         ? " and every thread of the block is waiting here"
                           : others.empty() ? std::string(" and no other thread of the ") +
                                                  (cluster_size_ > 1 ? "cluster" : "block") +
                                                  " can make them (the others returned or are done)"
                                            : ", and every other role is waiting too: ";
        for (size_t k = 0; k < others.size(); ++k)
          rest += (k ? "; " : "") + others[k].text;
        Violation &viol =
            report("barrier-divergence", bar->pending > 0 ? "mbarrier-deadlock" : "mbarrier-tx", w,
                   "deadlock: the wait on phase " + std::to_string(bar->phase) + " (parity " +
                       std::to_string(parity) + ") of " + name + " never returns: it needs " +
                       needs + rest);
        viol.data["pending"] = bar->pending;
        viol.data["bytes"] = bar->tx;
        viol.data["phase"] = bar->phase;
        for (const Agents::OtherWait &o : others)
          viol.related.push_back(RelatedInformation{o.at, o.text});
      }
      // The roles hang here: what the block would do after it never happens,
      // so nothing after it is reported (the run goes on, for coverage).
      if (agents_)
        hung_ = true;
    } else if (should_report("unproven", call.range)) {
      report("unproven", "mbarrier", w,
             "the wait on phase " + std::to_string(bar->phase) + " of " + name + " needs " + needs +
                 (agents_ ? " and no role can go on, but threads outside the waiting roles (done "
                            "with a branch, or parked where a loop let them out) may still make "
                            "them: the checker does not run those alongside, so this rendezvous "
                            "is not checked"
                          : " that threads running another branch would make; the checker runs "
                            "branches one after the other, not alongside: this rendezvous is "
                            "not checked"),
             true);
    }
    // Reported: the threads go on as if the phase had completed, so that one
    // error does not cascade into races after it.
    force_phase(*bar, lane);
  }
}

void Machine::force_phase(MBarrier &bar, int64_t lane) {
  // The forced phase carries the order of the phases completed before it in
  // this interval (when the parity was one phase off: the one meant), and
  // every waiter, this one and the next, joins it.
  for (size_t p = 0; p < 2; ++p)
    if (bar.completed_epoch[p] == epoch_)
      for (int64_t of = 0; of < warps_; ++of)
        bar.arrived[static_cast<size_t>(of)] = std::max(bar.arrived[static_cast<size_t>(of)],
                                                        bar.completed[p][static_cast<size_t>(of)]);
  const size_t p = static_cast<size_t>(bar.phase % 2);
  bar.pending = 0;
  bar.tx = 0;
  complete_phase_if_done(bar);
  order_after_phase(bar, p, warp_of(lane));
}

void Machine::order_after_phase(const MBarrier &bar, size_t parity, int64_t warp) {
  if (bar.completed_epoch[parity] == epoch_)
    join_into_warp(warp, bar.completed[parity]);
}

void Machine::order_after_phase_number(const MBarrier &bar, int64_t phase, int64_t warp) {
  for (const MBarrier::Completed &c : bar.recent)
    if (c.phase == phase && c.epoch == epoch_)
      join_into_warp(warp, c.arrived);
}

void Machine::complete_phase_if_done(MBarrier &bar) {
  if (bar.pending != 0 || bar.tx != 0)
    return;
  const size_t parity = static_cast<size_t>(bar.phase % 2);
  bar.completed[parity] = bar.arrived;
  bar.completed_epoch[parity] = epoch_;
  bar.recent.push_back({bar.phase, epoch_, bar.arrived});
  if (bar.recent.size() > 4)
    bar.recent.pop_front();
  bar.phase += 1;
  bar.pending = bar.count;
  std::fill(bar.arrived.begin(), bar.arrived.end(), 0);
}

void Machine::land_bulk_copies(MBarrier &bar) {
  std::vector<uint8_t> issued(static_cast<size_t>(warps_), 0);
  for (const MBarrier::Landing &l : bar.landing) {
    bar.tx -= l.bytes;
    issued[static_cast<size_t>(warp_of(l.lane))] = 1;
    land_async_write(l.write, l.lane);
    // The TMA engine writes through the async proxy, which wgmma reads: no
    // proxy fence is needed between them (only after generic-proxy writes).
    CellLog &log =
        buffers_[static_cast<size_t>(l.write.buffer)].log[static_cast<size_t>(l.write.cell)];
    if (log.pending_lane == -1 && log.writer == static_cast<int32_t>(l.lane))
      log.write_clock = -1;
  }
  bar.landing.clear();
  // The completion of an issuing warp's copies is an arrival of that warp for
  // the order: its landed bytes happen before the waiters' reads.
  for (int64_t warp = 0; warp < warps_; ++warp) {
    if (!issued[static_cast<size_t>(warp)])
      continue;
    bump_warp(warp);
    join_warp_into(bar.arrived, warp);
  }
}

// A TMA tile load's layouts, as the tensor map codegen derives can describe
// them: the box is a (rows, cols) tile of the source tensor's last two
// dimensions (unit inner stride, the tensor's row pitch, a multiple of 16
// bytes), at most 256 x 256 with whole 16-byte units per row; the destination
// holds it row-major from a 128-byte boundary, unswizzled or under a 32, 64
// or 128-byte swizzle whose span is the box row (the map's swizzle mode), then
// from a boundary of the swizzle's 8-row pattern.
std::optional<std::string> Machine::tma_layout_error(const View &d, const View &s, int64_t lane,
                                                     bool store) const {
  // The global side is read by a load and written by a store; the shared side
  // the other way round.
  const std::string global_verb = store ? "writes" : "reads";
  const std::string shared_verb = store ? "reads" : "writes";
  const std::string shared_role = store ? "source" : "destination";
  const Buffer &db = buffers_[static_cast<size_t>(d.buffer)];
  const Buffer &sb = buffers_[static_cast<size_t>(s.buffer)];
  if (d.shape.size() != 2 || s.shape.size() != 2 || d.shape != s.shape ||
      dtype_bytes(d.dtype) != dtype_bytes(s.dtype))
    return std::string(store ? "copies a shared tile into a (rows, cols) box of the same shape "
                               "and element size"
                             : "copies a (rows, cols) tile into a shared tile of the same shape "
                               "and element size");
  const int64_t rows = s.shape[0], cols = s.shape[1], eb = dtype_bytes(s.dtype);
  const int64_t row_bytes = cols * eb;
  if (rows < 1 || rows > 256 || cols < 1 || cols > 256 || row_bytes % 16 != 0)
    return "has a box of " + std::to_string(rows) + " x " + std::to_string(cols) +
           ": at most 256 x 256 elements, rows of whole 16-byte units";
  if (sb.space != MemorySpace::Global || sb.shape.size() < 2)
    return global_verb + " a tile of a global tensor of two or more dimensions";
  const int64_t pitch = sb.shape.back() * dtype_bytes(sb.dtype);
  const int64_t start = element_byte_offset(s, lane, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; c += std::max<int64_t>(1, cols - 1))
      if (element_byte_offset(s, lane, r * cols + c) != start + r * pitch + c * eb)
        return global_verb + " a box that is not a tile of " + sb.name +
               "'s last two dimensions (element (" + std::to_string(r) + ", " + std::to_string(c) +
               ") is not at row " + std::to_string(r) + " of its rows)";
  if (pitch % 16 != 0)
    return global_verb + " " + sb.name + ", whose rows of " + std::to_string(pitch) +
           " bytes are not a multiple of 16 (a tensor map's strides must be)";
  const int64_t base = element_byte_offset(d, lane, 0);
  for (int64_t e = 0; e < rows * cols; ++e)
    if (element_byte_offset(d, lane, e) != base + e * eb)
      return shared_verb + " a " + shared_role + " that is not row-major and contiguous (element " +
             std::to_string(e) + " of the box is at byte " +
             std::to_string(element_byte_offset(d, lane, e) - base) + " from its first)";
  if (!db.swizzle) {
    if (base % 128 != 0)
      return shared_verb + " from byte offset " + std::to_string(base) + " of its " + shared_role +
             ": a TMA " + shared_role + " starts on a 128-byte boundary";
    return std::nullopt;
  }
  const layout::Swizzle &sw = *db.swizzle;
  if (sw.base != 4 || sw.shift != 3 || sw.bits < 1 || sw.bits > 3 || (16 << sw.bits) != row_bytes)
    return shared_verb + " " + db.name + ", whose swizzle is not the 32, 64 or 128-byte one of a " +
           std::to_string(row_bytes) + "-byte box row (Swizzle(1, 4, 3), Swizzle(2, 4, 3) or " +
           "Swizzle(3, 4, 3) with rows as long as its span): a tensor map has no other";
  if (base % (8 * row_bytes) != 0)
    return shared_verb + " from byte offset " + std::to_string(base) + " of " + db.name +
           ", not on a boundary of the swizzle's " + std::to_string(8 * row_bytes) +
           "-byte pattern";
  return std::nullopt;
}

// cp_async_bulk(dst, src, bar): the copy is pending on dst's cells (a read
// before the wait is E0906, a write a race) and counted on bar, where it
// lands at the first wait that needs the phase.
void Machine::cp_async_bulk(const Expr &call, const Mask &m, bool tensor) {
  if (call.arg_count() < 3)
    return;
  const Value dst = eval(call.arg(0), m);
  const Value src = eval(call.arg(1), m);
  const Value barv = eval(call.arg(2), m);
  bulk_copy(call, m, tensor, dst, src, barv);
}

void Machine::bulk_copy(const Expr &call, const Mask &m, bool tensor, const Value &dst,
                        const Value &src, const Value &barv) {
  if (dst.kind != ValueKind::View || src.kind != ValueKind::View || barv.kind != ValueKind::View) {
    not_interpreted(call.range, "the checker has no view (one for every thread) for an operand "
                                "of this bulk copy");
    return;
  }
  const View &d = *dst.view, &sv = *src.view;
  const int64_t bytes = d.elements() * dtype_bytes(d.dtype);
  const int64_t src_bytes = sv.elements() * dtype_bytes(sv.dtype);
  const int32_t site = site_of(call.range);
  const auto layout_error = [&](int64_t lane, const std::string &what) {
    if (!should_report("operand-layout", call.range))
      return;
    Where w;
    w.lane = lane;
    w.range = call.range;
    report("operand-layout", tensor ? "tma" : "bulk-copy", w,
           std::string(tensor ? "tma_load " : "cp_async_bulk ") + what);
  };
  const int64_t first_lane = first_active(m);
  if (first_lane < 0)
    return;
  if (tensor) {
    for (int64_t lane = 0; lane < lanes_; ++lane) {
      if (!m[static_cast<size_t>(lane)] || d.is_bad(static_cast<size_t>(lane)) ||
          sv.is_bad(static_cast<size_t>(lane)))
        continue;
      if (auto why = tma_layout_error(d, sv, lane)) {
        layout_error(lane, *why);
        // With boxes of one shape the copy is still modelled (its bytes are
        // counted), so the wait on it does not report a deadlock as well.
        if (d.shape != sv.shape || dtype_bytes(d.dtype) != dtype_bytes(sv.dtype))
          return;
        break;
      }
    }
  } else if (bytes != src_bytes || bytes % 16 != 0 || bytes == 0) {
    layout_error(first_lane, "copies whole 16-byte units between views of one size: dst is " +
                                 std::to_string(bytes) + " bytes, src " +
                                 std::to_string(src_bytes));
    return;
  }
  for (int64_t lane = 0; lane < lanes_ && !tensor; ++lane) {
    if (!m[static_cast<size_t>(lane)] || d.is_bad(static_cast<size_t>(lane)) ||
        sv.is_bad(static_cast<size_t>(lane)))
      continue;
    for (const View *v : {&d, &sv}) {
      const int64_t start = element_byte_offset(*v, lane, 0);
      const int64_t eb = dtype_bytes(v->dtype);
      bool contiguous = start % 16 == 0;
      for (int64_t e = 1; e < v->elements() && contiguous; ++e)
        contiguous = element_byte_offset(*v, lane, e) == start + e * eb;
      if (!contiguous) {
        layout_error(lane, std::string("needs a contiguous, 16-byte aligned ") +
                               (v == &d ? "destination" : "source") + " (byte offset " +
                               std::to_string(start) + ")");
        return;
      }
    }
    if (buffers_[static_cast<size_t>(d.buffer)].swizzle) {
      layout_error(lane, "writes its bytes in order: a swizzled destination needs a tensor map "
                         "(TMA), not a bulk copy");
      return;
    }
  }
  // The barrier of each lane.
  std::vector<MBarrier *> bars(static_cast<size_t>(lanes_), nullptr);
  const View &bv = *barv.view;
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || bv.is_bad(static_cast<size_t>(lane)))
      continue;
    Tag t;
    int64_t value = 0, cell = -1;
    if (!read_element(bv, lane, 0, call.range, t, value, &cell))
      continue;
    if (auto it = mbarriers_.find({bv.buffer, cell}); it != mbarriers_.end())
      bars[static_cast<size_t>(lane)] = &it->second;
  }
  std::vector<size_t> before(static_cast<size_t>(lanes_));
  for (int64_t lane = 0; lane < lanes_; ++lane)
    before[static_cast<size_t>(lane)] = open_group_[static_cast<size_t>(lane)].size();
  // A TMA box reads the tensor as rows of its last extent, from the box's
  // first element, within one page of its second-last extent (the map of a
  // tensor of three or more dimensions is 3-D); what lies past the extents
  // lands as zeros.
  std::optional<TmaBox> box;
  if (tensor) {
    const Buffer &sb = buffers_[static_cast<size_t>(sv.buffer)];
    box.emplace();
    box->cols = sb.shape.back();
    box->rows = 1;
    for (size_t k = 0; k + 1 < sb.shape.size(); ++k)
      box->rows *= sb.shape[k];
    box->page_rows = sb.shape[sb.shape.size() - 2];
    box->box_cols = sv.shape.size() == 2 ? sv.shape[1] : 1;
    box->row0.assign(static_cast<size_t>(lanes_), 0);
    box->col0.assign(static_cast<size_t>(lanes_), 0);
    const int64_t eb = dtype_bytes(sv.dtype);
    for (int64_t lane = 0; lane < lanes_; ++lane) {
      if (!m[static_cast<size_t>(lane)] || sv.is_bad(static_cast<size_t>(lane)))
        continue;
      const int64_t first = sv.off(static_cast<size_t>(lane)) / eb;
      box->row0[static_cast<size_t>(lane)] = first / box->cols;
      box->col0[static_cast<size_t>(lane)] = first % box->cols;
    }
  }
  cp_async_places(bytes, call, dst, src, m, false, box ? &*box : nullptr);
  current_site_ = site;
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    auto &group = open_group_[static_cast<size_t>(lane)];
    const size_t from = before[static_cast<size_t>(lane)];
    if (group.size() == from)
      continue;
    MBarrier *bar = bars[static_cast<size_t>(lane)];
    for (size_t k = from; k < group.size(); ++k)
      if (bar)
        bar->landing.push_back({lane, group[k], k == from ? bytes : 0});
    group.resize(from); // counted on the barrier, not on a commit group
  }
}

} // namespace argus::check::detail
