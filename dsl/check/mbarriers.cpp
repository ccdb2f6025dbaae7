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
// The interpreter runs a block's threads in lockstep, so the arrivals a wait
// needs must have happened before it: a wait whose phase is not complete when
// every thread of the block is waiting is a deadlock (E0905); when some
// threads are elsewhere (another branch, run later) it is W0901, the
// rendezvous of warp-specialized roles, which needs the roles run as agents.
// The barrier cell itself is written by the init and read by every arrival
// and wait, so using a barrier before it is initialized, or without a
// syncthreads() after another thread initialized it, is an uninitialized read
// or a race on that cell.
#include "machine.h"

#include <algorithm>

namespace argus::check::detail {

using ast::Expr;

void Machine::mbarrier_op(BuiltinId id, const Expr &call, const Mask &m) {
  if (call.arg_count() < (id == BuiltinId::NvvmMbarrierArrive ? 1u : 2u))
    return;
  const Value place = eval(call.arg(0), m);
  if (place.kind != ValueKind::View) {
    not_interpreted(call.range, "the checker has no barrier element (one for every thread) for "
                                "this mbarrier operation");
    return;
  }
  Value operand;
  if (id != BuiltinId::NvvmMbarrierArrive) {
    operand = data(call.arg(1), m);
    if (operand.kind != ValueKind::Data) {
      not_interpreted(call.range,
                      "the checker has no value for this mbarrier operation's " +
                          std::string(id == BuiltinId::NvvmMbarrierInit ? "count" : "phase"));
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

  if (id == BuiltinId::NvvmMbarrierArrive) {
    // Each arriving warp passes a barrier of its own (its later accesses are
    // not ordered before the waiters), then its clock joins the phase's.
    std::vector<uint8_t> bumped(static_cast<size_t>(warps_), 0);
    for (const auto &[lane, bar] : lanes) {
      const int64_t warp = warp_of(lane);
      if (!bumped[static_cast<size_t>(warp)]) {
        bumped[static_cast<size_t>(warp)] = 1;
        warp_clock_[static_cast<size_t>(warp * warps_ + warp)] += 1;
      }
      for (int64_t of = 0; of < warps_; ++of)
        bar->arrived[static_cast<size_t>(of)] =
            std::max(bar->arrived[static_cast<size_t>(of)], warp_clock(warp, of));
      if (--bar->pending == 0) {
        const size_t parity = static_cast<size_t>(bar->phase % 2);
        bar->completed[parity] = bar->arrived;
        bar->completed_epoch[parity] = epoch_;
        bar->phase += 1;
        bar->pending = bar->count;
        std::fill(bar->arrived.begin(), bar->arrived.end(), 0);
      }
    }
    return;
  }

  // mbarrier_wait(bar, parity).
  const bool whole_block = std::all_of(m.begin(), m.begin() + lanes_, [](uint8_t x) { return x; });
  for (const auto &[lane, bar] : lanes) {
    const int64_t parity = operand.at(static_cast<size_t>(lane)) & 1;
    if (bar->phase % 2 != parity) {
      // The phase of this parity before the current one completed (or, on a
      // fresh barrier waited on with parity 1, none did: no order).
      const size_t p = static_cast<size_t>(parity);
      if (bar->phase > 0 && bar->completed_epoch[p] == epoch_) {
        const int64_t warp = warp_of(lane);
        for (int64_t of = 0; of < warps_; ++of) {
          int32_t &c = warp_clock_[static_cast<size_t>(warp * warps_ + of)];
          c = std::max(c, bar->completed[p][static_cast<size_t>(of)]);
        }
      }
      continue;
    }
    // The phase waited for has not completed and, in lockstep, no thread
    // waiting here can arrive on it any more.
    Where w;
    w.lane = lane;
    w.range = call.range;
    const std::string needs = std::to_string(bar->pending) + " more arrival" +
                              (bar->pending == 1 ? "" : "s") + " of " + std::to_string(bar->count);
    if (whole_block) {
      if (should_report("barrier-divergence", call.range)) {
        Violation &viol =
            report("barrier-divergence", "mbarrier-deadlock", w,
                   "deadlock: the wait on phase " + std::to_string(bar->phase) + " (parity " +
                       std::to_string(parity) + ") of " + name + " never returns: it needs " +
                       needs + " and every thread of the block is waiting here");
        viol.data["pending"] = bar->pending;
        viol.data["phase"] = bar->phase;
      }
    } else if (should_report("unproven", call.range)) {
      report("unproven", "mbarrier", w,
             "the wait on phase " + std::to_string(bar->phase) + " of " + name + " needs " + needs +
                 " that threads running another branch would make; the checker runs branches "
                 "one after the other, not alongside: this rendezvous is not checked",
             true);
    }
    break;
  }
}

} // namespace argus::check::detail
