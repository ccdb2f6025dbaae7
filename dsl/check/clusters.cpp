// Thread-block clusters (sm90): the blocks of one cluster run together, as
// one set of lanes (Machine::block_threads_), so that what they do to each
// other inside a launch is executed, not assumed:
// - every shared tensor has one copy per block (Buffer::copy_bytes), and a
//   thread's views point into its block's copy;
// - syncthreads() is a rendezvous of one block's warps in the warp clocks
//   (the blocks do not wait for each other there), cluster_sync() the barrier
//   interval of all of them (Machine::epoch_);
// - nvvm.dsmem_load reads, nvvm.mbarrier_arrive_cluster arrives on, and
//   nvvm.tma_load_multicast writes into (completing its mbarrier) the copy of
//   another block, so races, phases and transaction bytes across blocks are
//   checked by the same rules as within one;
// - a block must not exit while another still accesses its shared memory
//   (check_cluster_exit).
#include "agents.h"
#include "machine.h"

#include <numeric>

namespace argus::check::detail {

using ast::Expr;

namespace {

// As Machine::thread_text writes a block: (x,y), or (x,y,z) in a 3-D grid.
std::string block_text(const std::array<int64_t, 3> &b, bool three_d) {
  return "(" + std::to_string(b[0]) + "," + std::to_string(b[1]) +
         (three_d ? "," + std::to_string(b[2]) : std::string()) + ")";
}

} // namespace

void Machine::block_barriers(const Expr &call, const Mask &m) {
  const int64_t warps_per_block = block_threads_ / warp_size_;
  for (int64_t rank = 0; rank < cluster_size_; ++rank) {
    const auto [inside, outside] = presence(m, rank * block_threads_, (rank + 1) * block_threads_);
    if (inside < 0)
      continue; // this block reaches its own syncthreads() elsewhere
    if (outside >= 0)
      report_unreached(call, "syncthreads", "syncthreads()", inside, outside,
                       ": the condition or loop around it depends on the thread");
    // Every warp of the block passes it and learns what all the others knew.
    std::vector<int64_t> warps(static_cast<size_t>(warps_per_block));
    std::iota(warps.begin(), warps.end(), rank * warps_per_block);
    meet(warps);
  }
}

void Machine::cluster_sync(const Expr &call, const Mask &m) {
  const auto [inside, outside] = presence(m, 0, lanes_);
  if (outside >= 0 && inside >= 0 && agents_) {
    // Roles run as agents: the others reach it from their own sides. A
    // rendezvous of every thread of the cluster (as a named barrier's across
    // roles): once all arrived, each warp is ordered after all the others.
    std::vector<int64_t> warps;
    int64_t arrived = 0;
    for (int64_t first = 0; first < lanes_; first += warp_size_)
      if (presence(m, first, first + warp_size_).first >= 0)
        warps.push_back(warp_of(first));
    for (int64_t lane = 0; lane < lanes_; ++lane)
      arrived += m[static_cast<size_t>(lane)] ? 1 : 0;
    Where w;
    w.lane = inside;
    w.range = call.range;
    named_rendezvous(call, "cluster_sync()", kClusterSyncKey, lanes_, warps, arrived, m, w, false,
                     "cluster-sync");
    return;
  }
  if (outside >= 0 && inside >= 0)
    report_unreached(call, "cluster-sync", "cluster_sync()", inside, outside,
                     ": every thread of every block of the cluster must reach it (it waits for "
                     "them all: the others hang)");
  ++epoch_;
}

View Machine::in_block(const View &v, const Value &rank, const Mask &m, const Range &at) {
  View out = v;
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  if (b.copy_bytes == 0) { // not shared memory: sema allows only shared places
    not_interpreted(at, "the checker has no copy per block of " + b.name);
    out.bad.assign(static_cast<size_t>(lanes_), 1);
    return out;
  }
  // Which block is read or written is decided like an index (W0901 when it
  // comes from contents no assume states).
  check_known(rank, m, at, "this block rank");
  out.expand_offset(lanes_);
  if (out.bad.empty())
    out.bad.assign(static_cast<size_t>(lanes_), 0);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || out.bad[static_cast<size_t>(lane)])
      continue;
    const int64_t r = rank.at(static_cast<size_t>(lane));
    if (r < 0 || r >= cluster_size_) {
      out.bad[static_cast<size_t>(lane)] = 1;
      if (should_report("out-of-bounds", at)) {
        Where w;
        w.lane = lane;
        w.range = at;
        w.tensor = b.name;
        Violation &viol = report("out-of-bounds", "cluster-rank", w,
                                 "block rank " + std::to_string(r) + " is outside the cluster of " +
                                     std::to_string(cluster_size_) + " blocks");
        viol.data["rank"] = r;
      }
      continue;
    }
    out.offset[static_cast<size_t>(lane)] += (r - rank_of(lane)) * b.copy_bytes;
    if (r != rank_of(lane))
      note_remote_access(lane, r, at);
  }
  return out;
}

void Machine::note_remote_access(int64_t lane, int64_t rank, const Range &at) {
  RemoteAccess &r = remote_accesses_[{warp_of(lane), rank}];
  r.stamp = warp_epoch(lane);
  r.lane = lane;
  r.site = site_of(at);
  r.epoch = epoch_;
}

// A rank argument: per thread, known (a W0901 and nothing done otherwise).
static bool rank_known(const Value &rank) { return rank.kind == ValueKind::Data && !rank.is_float; }

Value Machine::dsmem_load(const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return Value{};
  const Value place = eval(call.arg(0), m);
  const Value rank = data(call.arg(1), m);
  if (place.kind != ValueKind::View || !rank_known(rank)) {
    not_interpreted(call.range, "the checker has no place or block rank (one for every thread) "
                                "for this distributed shared memory read");
    return Value{};
  }
  return read_view(in_block(*place.view, rank, m, call.range), m, call.range);
}

void Machine::mbarrier_arrive_cluster(const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return;
  const Value place = eval(call.arg(0), m);
  const Value rank = data(call.arg(1), m);
  if (place.kind != ValueKind::View || !rank_known(rank)) {
    not_interpreted(call.range, "the checker has no barrier or block rank (one for every thread) "
                                "for this remote arrival");
    return;
  }
  Value remote = place;
  remote.view = std::make_shared<View>(in_block(*place.view, rank, m, call.range));
  mbarrier_op(BuiltinId::NvvmMbarrierArrive, call, m, &remote);
}

// The box lands in each block whose bit is set, at dst's place there, and is
// counted on bar's place there: one bulk copy per destination block.
void Machine::tma_load_multicast(const Expr &call, const Mask &m) {
  if (call.arg_count() < 4)
    return;
  const Value dst = eval(call.arg(0), m);
  const Value src = eval(call.arg(1), m);
  const Value bar = eval(call.arg(2), m);
  const Value mask = data(call.arg(3), m);
  if (dst.kind != ValueKind::View || src.kind != ValueKind::View || bar.kind != ValueKind::View ||
      !rank_known(mask)) {
    not_interpreted(call.range, "the checker has no view or block mask (one for every thread) "
                                "for an operand of this multicast");
    return;
  }
  check_known(mask, m, call.range, "this multicast mask");
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    const uint64_t bits = static_cast<uint64_t>(mask.at(static_cast<size_t>(lane)));
    if (!m[static_cast<size_t>(lane)] || (bits >> cluster_size_) == 0)
      continue;
    if (should_report("out-of-bounds", call.range)) {
      Where w;
      w.lane = lane;
      w.range = call.range;
      report("out-of-bounds", "cluster-rank", w,
             "multicast mask " + std::to_string(bits) + " names blocks past the cluster of " +
                 std::to_string(cluster_size_));
    }
    break;
  }
  for (int64_t r = 0; r < cluster_size_; ++r) {
    Mask to(static_cast<size_t>(lanes_), 0);
    for (int64_t lane = 0; lane < lanes_; ++lane)
      to[static_cast<size_t>(lane)] =
          m[static_cast<size_t>(lane)] &&
          ((static_cast<uint64_t>(mask.at(static_cast<size_t>(lane))) >> r) & 1);
    if (!any(to))
      continue;
    const Value rank = uniform_int(r);
    Value d = dst, b = bar;
    d.view = std::make_shared<View>(in_block(*dst.view, rank, to, call.range));
    b.view = std::make_shared<View>(in_block(*bar.view, rank, to, call.range));
    bulk_copy(call, to, true, d, src, b);
  }
}

// At the end of a cluster's run: each access to another block's shared
// memory needs that block alive until it is done, so a cluster_sync() after
// it, or a warp of that block ordered after it (it waited on a barrier the
// access arrived on, or on the phase a multicast completed).
void Machine::check_cluster_exit() {
  for (const auto &[key, r] : remote_accesses_) {
    const auto [warp, rank] = key;
    if (r.epoch != epoch_)
      continue; // a cluster_sync() lies between
    const int64_t warps_per_block = block_threads_ / warp_size_;
    bool kept_alive = false;
    for (int64_t w = rank * warps_per_block; w < (rank + 1) * warps_per_block && !kept_alive; ++w)
      kept_alive = warp_clock(w, warp) > r.stamp;
    if (kept_alive)
      continue;
    const Range &at = sites_[static_cast<size_t>(r.site)].range;
    if (!should_report("cluster-exit", at))
      continue;
    Where w;
    w.lane = r.lane;
    w.range = at;
    const std::string peer =
        block_text(block_coord(cluster_blocks_[static_cast<size_t>(rank)]), grid_dim_[2] > 1);
    Violation &viol =
        report("race", "cluster-exit", w,
               "block " + peer +
                   " may exit while this thread still accesses its shared memory here (no "
                   "cluster_sync() after it, and no thread of that block waits for it): the "
                   "shared memory of an exited block is gone");
    viol.data["peer_block"] = block_coord(cluster_blocks_[static_cast<size_t>(rank)]);
  }
  remote_accesses_.clear();
}

} // namespace argus::check::detail
