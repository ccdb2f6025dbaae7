// Builtins on the SIMT machine: launch coordinates, integer helpers, tensors
// and views, barriers, shuffles and async groups.
#include "agents.h"
#include "call_args.h"
#include "machine.h"

#include <algorithm>

namespace argus::check::detail {

using ast::Expr;
using ast::ExprKind;

Value Machine::call(const Expr &e, const Mask &m) {
  if (e.operands.empty())
    return Value{};
  const sema::CallTarget target = sema_.call_of(e);
  switch (target.kind) {
  case sema::CallKind::Tile: {
    const Expr &callee = e.callee();
    Value base = eval(*callee.operands[0], m);
    if (base.kind != ValueKind::View || e.arg_count() != 1) {
      not_interpreted(e.range, "the checker tiles only a single tensor view");
      return Value{};
    }
    View v = *base.view;
    v.tile = const_tuple(e.arg(0), m);
    if (v.tile.size() != v.shape.size()) {
      not_interpreted(e.range, "the tile has another rank than the tensor");
      return Value{};
    }
    base.view = std::make_shared<View>(std::move(v));
    return base;
  }
  case sema::CallKind::Device:
    if (const sema::FunctionInfo *fn = sema_.function_info(target.device->name))
      return call_device(*fn, e, m);
    break;
  case sema::CallKind::Cast: {
    if (e.arg_count() < 1)
      return Value{};
    Value v = data(e.arg(0), m);
    if (v.kind != ValueKind::Data) {
      not_interpreted(e.range, "the checker has no number to convert");
      return v;
    }
    if (v.is_float && !sema::is_float(target.cast))
      std::fill(v.ints.begin(), v.ints.end(), 0);
    v.dtype = target.cast;
    v.is_float = sema::is_float(target.cast);
    return v;
  }
  case sema::CallKind::Builtin:
    return is_intrinsic(target.builtin) ? intrinsic(target.builtin, e, m)
                                        : builtin(target.builtin, e, m);
  case sema::CallKind::Unresolved:
    break;
  }
  not_interpreted(e.range, "the checker does not know what this call calls");
  return Value{};
}

Value Machine::launch_coordinate(BuiltinId id, const Expr &call, const Mask &m) {
  int64_t d = 0;
  if (const Expr *dim = arg_of(call, 0, "dim"))
    d = std::clamp<int64_t>(const_tuple(*dim, m).at(0), 0, 2);
  if (id == BuiltinId::BlockId && cluster_size_ == 1)
    return uniform_int(block_[static_cast<size_t>(d)]);
  if (id == BuiltinId::ClusterId)
    return uniform_int(block_[static_cast<size_t>(d)] / kernel_.cluster[static_cast<size_t>(d)]);
  if (id == BuiltinId::BlockDim)
    return uniform_int(block_dim_[static_cast<size_t>(d)]);
  if (id == BuiltinId::GridDim)
    return uniform_int(grid_dim_[static_cast<size_t>(d)]);
  Value v = make_data(ScalarKind::I32, 1, false);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    int64_t x = 0;
    if (id == BuiltinId::ThreadId)
      x = thread_coord(lane)[static_cast<size_t>(d)];
    else if (id == BuiltinId::BlockId)
      x = block_coord(block_of(lane))[static_cast<size_t>(d)];
    else if (id == BuiltinId::ClusterRank)
      x = rank_of(lane);
    else if (id == BuiltinId::BlockDim)
      x = block_dim_[static_cast<size_t>(d)];
    else if (id == BuiltinId::GridDim)
      x = grid_dim_[static_cast<size_t>(d)];
    else if (id == BuiltinId::LaneId)
      x = lane % warp_size_;
    else if (id == BuiltinId::WarpId)
      x = lane % block_threads_ / warp_size_;
    else if (id == BuiltinId::WarpgroupId)
      x = lane % block_threads_ / 128;
    v.ints[static_cast<size_t>(lane)] = x;
  }
  return v;
}

Value Machine::new_tensor(BuiltinId id, const Expr &call, const Mask &m) {
  const Expr *shape_e = arg_of(call, 0, "shape");
  const Expr *dtype_e = arg_of(call, id == BuiltinId::Full ? 2 : 1, "dtype");
  Value dt = dtype_e ? eval(*dtype_e, m) : Value{};
  if (!shape_e || dt.kind != ValueKind::Dtype) {
    not_interpreted(call.range, "the checker needs the tensor's shape and dtype");
    return Value{};
  }
  Buffer b;
  b.name = "tensor";
  if (current_stmt_ && current_stmt_->kind == ast::StmtKind::Assign &&
      !current_stmt_->targets.empty() && current_stmt_->targets[0]->kind == ExprKind::Name)
    b.name = current_stmt_->targets[0]->name;
  b.space = id == BuiltinId::MakeShared ? MemorySpace::Shared : MemorySpace::Local;
  b.dtype = dt.dtype;
  b.shape = const_tuple(*shape_e, m);
  std::vector<int64_t> strides(b.shape.size(), 1);
  for (size_t i = b.shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * b.shape[i];
  if (id == BuiltinId::MakeShared)
    if (const Expr *layout_e = arg_of(call, 2, "layout")) {
      Value l = eval(*layout_e, m);
      if (l.kind == ValueKind::Layout) {
        if (l.layout.strides.size() == b.shape.size())
          strides = l.layout.strides;
        b.swizzle = l.layout.swizzle;
      }
    }
  b.strides = strides;
  int64_t cosize = 1;
  for (size_t i = 0; i < b.shape.size(); ++i)
    cosize += (b.shape[i] - 1) * strides[i];
  b.cells = std::max<int64_t>(cosize, 1);
  if (b.swizzle) {
    // A swizzle permutes byte addresses inside aligned blocks: round up so
    // every permuted address stays inside the buffer.
    const int64_t span = int64_t{1} << (b.swizzle->bits + b.swizzle->base + b.swizzle->shift);
    const int64_t eb = dtype_bytes(b.dtype);
    b.cells = ((b.cells * eb + span - 1) / span) * span / eb;
  }
  // In a cluster every block has its own copy of a shared tensor, at a
  // multiple of 1 KiB (a whole number of swizzle patterns) from the last.
  if (b.space == MemorySpace::Shared && cluster_size_ > 1) {
    const int64_t eb = dtype_bytes(b.dtype);
    b.copy_bytes = (b.cells * eb + 1023) / 1024 * 1024;
    b.cells = b.copy_bytes / eb * cluster_size_;
  }
  const int index = new_buffer(std::move(b));
  Buffer &buf = buffers_[static_cast<size_t>(index)];
  if (id == BuiltinId::Full) {
    // Traced replays: one node stands for the whole fill.
    const int32_t filled = trace_ ? trace_node(TraceAction::Fill, site_of(call.range), index, -1,
                                               -1, Tag{}, -1, site_of(call.range))
                                  : -1;
    Value fill = uniform_int(0);
    if (const Expr *v = arg_of(call, 1, "value"))
      fill = data(*v, m);
    for (int64_t lane = 0; lane < lanes_; ++lane)
      for (int64_t i = 0; i < buf.cells; ++i) {
        Cell &c = cell(buf, lane, i);
        c.initialized = true;
        c.value = fill.kind == ValueKind::Data ? fill.at(static_cast<size_t>(lane)) : 0;
        if (const Tag *t =
                fill.kind == ValueKind::Data ? fill.tag_at(static_cast<size_t>(lane)) : nullptr)
          c.tag = *t;
        c.write_site = site_of(call.range);
        c.tag.origin = trace_ ? filled : c.write_site;
      }
  }
  View v;
  v.buffer = index;
  v.dtype = buf.dtype;
  v.shape = buf.shape;
  v.strides = buf.strides;
  if (buf.copy_bytes > 0) { // each block's threads see their block's copy
    v.expand_offset(lanes_);
    for (int64_t lane = 0; lane < lanes_; ++lane)
      v.offset[static_cast<size_t>(lane)] = rank_of(lane) * buf.copy_bytes;
  }
  Value out;
  out.kind = ValueKind::View;
  out.dtype = buf.dtype;
  out.view = std::make_shared<View>(std::move(v));
  return out;
}

Value Machine::make_view(const Expr &call, const Mask &m) {
  const bool whole = sema_.builtin_of(call) == BuiltinId::View;
  const Expr *src = arg_of(call, 0, "t");
  Value base = src ? narrow(eval(*src, m), m) : Value{};
  if (base.kind != ValueKind::View) {
    not_interpreted(call.range, "the checker makes views only of a single tensor (not of a "
                                "choice that differs between threads)");
    return Value{};
  }
  View v = *base.view;
  if (whole) {
    const Expr *spec = arg_of(call, 1, "as");
    if (!spec || spec->kind != ExprKind::Call || spec->arg_count() < 2) {
      not_interpreted(call.range, "the checker needs the view's Tensor(shape, dtype)");
      return Value{};
    }
    v.shape = const_tuple(spec->arg(0), m);
    Value dt = eval(spec->arg(spec->arg_count() - 1), m);
    if (dt.kind == ValueKind::Dtype)
      v.dtype = dt.dtype;
    v.strides.assign(v.shape.size(), 1);
    for (size_t i = v.shape.size(); i-- > 1;)
      v.strides[i - 1] = v.strides[i] * v.shape[i];
    if (spec->arg_count() >= 3)
      v.strides = const_tuple(spec->arg(1), m);
    v.coords.clear();
  } else { // subview(t, offsets, sizes[, strides])
    const Expr *offsets = arg_of(call, 1, "offsets");
    const Expr *sizes = arg_of(call, 2, "sizes");
    const Expr *steps = arg_of(call, 3, "strides");
    if (!offsets || !sizes) {
      not_interpreted(call.range, "the checker needs the subview's offsets and sizes");
      return Value{};
    }
    std::vector<const Expr *> offs;
    if (offsets->kind == ExprKind::Tuple)
      for (const auto &o : offsets->operands)
        offs.push_back(o.get());
    else
      offs.push_back(offsets);
    const int64_t eb = dtype_bytes(v.dtype);
    for (size_t d = 0; d < offs.size() && d < v.strides.size(); ++d) {
      Value o = data(*offs[d], m);
      if (o.kind != ValueKind::Data) {
        not_interpreted(offs[d]->range, "the checker has no integer value for this offset");
        continue;
      }
      if (o.uniform && v.uniform_offset) {
        v.offset[0] += o.at(0) * v.strides[d] * eb;
        continue;
      }
      v.expand_offset(lanes_);
      for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane)
        v.offset[lane] += o.at(lane) * v.strides[d] * eb;
    }
    v.shape = const_tuple(*sizes, m);
    if (steps) {
      auto st = const_tuple(*steps, m);
      for (size_t d = 0; d < st.size() && d < v.strides.size(); ++d)
        v.strides[d] *= st[d];
    }
    v.strides.resize(v.shape.size(), 1);
  }
  base.view = std::make_shared<View>(std::move(v));
  base.dtype = base.view->dtype;
  return base;
}

Value Machine::shuffle(BuiltinId id, const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return Value{};
  Value x = data(call.arg(0), m);
  Value sel = data(call.arg(1), m);
  if (x.kind != ValueKind::Data || sel.kind != ValueKind::Data) {
    not_interpreted(call.range, "the checker has no value for an operand of this shuffle");
    return x;
  }
  if (x.uniform)
    return x; // every lane holds the same value: any source lane gives it
  Value out = x;
  const size_t n = static_cast<size_t>(x.elems);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)])
      continue;
    const int64_t base = lane - lane % warp_size_;
    const int64_t l = lane % warp_size_;
    const int64_t s = sel.at(static_cast<size_t>(lane));
    int64_t src = l;
    if (id == BuiltinId::Shuffle)
      src = int_eval::floor_mod(s, warp_size_).value;
    else if (id == BuiltinId::ShuffleXor)
      src = (l ^ s) % warp_size_;
    else if (id == BuiltinId::ShuffleUp)
      src = l - s >= 0 ? l - s : l;
    else if (id == BuiltinId::ShuffleDown)
      src = l + s < warp_size_ ? l + s : l;
    const size_t from = static_cast<size_t>(std::min(base + src, lanes_ - 1));
    for (size_t e = 0; e < n; ++e) {
      out.ints[static_cast<size_t>(lane) * n + e] = x.ints[from * n + e];
      if (!x.tags.empty())
        out.tags[static_cast<size_t>(lane) * n + e] = x.tags[from * n + e];
    }
  }
  return out;
}

void Machine::syncthreads(const Expr &call, const Mask &m) {
  if (cluster_size_ > 1) {
    block_barriers(call, m);
    return;
  }
  const auto [inside, outside] = presence(m, 0, lanes_);
  if (outside >= 0 && inside >= 0)
    report_unreached(call, "syncthreads", "syncthreads()", inside, outside,
                     ": the condition or loop around it depends on the thread");
  ++epoch_;
}

std::pair<int64_t, int64_t> Machine::presence(const Mask &m, int64_t first, int64_t end) const {
  int64_t inside = -1, outside = -1;
  for (int64_t lane = first; lane < std::min(lanes_, end); ++lane) {
    int64_t &slot = m[static_cast<size_t>(lane)] ? inside : outside;
    if (slot < 0)
      slot = lane;
  }
  return {inside, outside};
}

void Machine::report_unreached(const Expr &call, const char *check, const std::string &what,
                               int64_t inside, int64_t outside, const std::string &why) {
  if (!should_report("barrier-divergence", call.range))
    return;
  Where w;
  w.lane = inside;
  w.range = call.range;
  Violation &v = report("barrier-divergence", check, w,
                        what + " is reached by " + thread_text(inside) + " but not by " +
                            thread_text(outside) + why);
  v.data["missing_thread"] = thread_json(outside);
}

// Every existing lane of a warp that reaches syncwarp() must reach it (the
// full mask); the warps that did are ordered from here on.
void Machine::syncwarp(const Expr &call, const Mask &m) {
  for (int64_t first = 0; first < lanes_; first += warp_size_) {
    const auto [inside, outside] = presence(m, first, first + warp_size_);
    if (inside < 0)
      continue;
    bump_warp(warp_of(first));
    if (outside >= 0)
      report_unreached(call, "syncwarp", "syncwarp()", inside, outside,
                       " of the same warp: every lane of a warp must reach it");
  }
}

// barrier(id, n): bar.sync. The warps that reach it (whole warps, else
// E0905) wait until n threads have arrived; then each is ordered after what
// every other participant did before it. The interpreter runs a block's
// threads in lockstep, so outside roles all participants must reach it at
// this statement: fewer is W0901 (the rest would arrive from another branch,
// which the checker runs after this one), more is E0905. Inside roles run as
// agents (an `if` with a named barrier in it forks them) the arrivals of
// several roles meet: named_rendezvous.
void Machine::named_barrier(const Expr &call, const Mask &m, bool arrive_only) {
  const auto id = call.arg_count() > 0 ? sema_.constant_of(call.arg(0)) : std::nullopt;
  const auto n = call.arg_count() > 1 ? sema_.constant_of(call.arg(1)) : std::nullopt;
  if (!id || !n) {
    not_interpreted(call.range, "this barrier's id or thread count is not a constant");
    return;
  }
  const std::string name = std::string(arrive_only ? "barrier_arrive(" : "barrier(") +
                           std::to_string(*id) + ", " + std::to_string(*n) + ")";
  // Each block of a cluster has its own barriers: block r's barrier id is
  // rendezvous key id + 16 r. (A role run as an agent is one warpgroup, so
  // one block, where a named barrier is in it: Agents::side_agents.)
  for (int64_t rank = 0; rank < cluster_size_; ++rank) {
    const int64_t lo = rank * block_threads_, hi = lo + block_threads_;
    if (presence(m, lo, hi).first < 0)
      continue;
    Mask in_block = m;
    std::fill(in_block.begin(), in_block.begin() + lo, 0);
    std::fill(in_block.begin() + hi, in_block.end(), 0);
    block_named_barrier(call, in_block, arrive_only, name, *id + 16 * rank, *n, lo, hi);
  }
}

void Machine::block_named_barrier(const Expr &call, const Mask &m, bool arrive_only,
                                  const std::string &name, int64_t key, int64_t count, int64_t lo,
                                  int64_t hi) {
  std::vector<int64_t> warps;
  int64_t arrived = 0, first_inside = -1;
  for (int64_t first = lo; first < hi; first += warp_size_) {
    const int64_t end = std::min(hi, first + warp_size_);
    const auto [inside, outside] = presence(m, first, first + warp_size_);
    if (inside < 0)
      continue;
    if (first_inside < 0)
      first_inside = inside;
    warps.push_back(warp_of(first));
    arrived += end - first;
    if (outside >= 0 && should_report("barrier-divergence", call.range)) {
      Where w;
      w.lane = inside;
      w.range = call.range;
      Violation &v = report("barrier-divergence", "named-barrier", w,
                            name + " is reached by " + thread_text(inside) + " but not by " +
                                thread_text(outside) +
                                " of the same warp: a named barrier counts whole warps");
      v.data["missing_thread"] = thread_json(outside);
    }
  }
  if (warps.empty())
    return;
  Where w;
  w.lane = first_inside;
  w.range = call.range;
  if (count > hi - lo) {
    if (should_report("barrier-divergence", call.range)) {
      Violation &v =
          report("barrier-divergence", "named-barrier", w,
                 name + " waits for " + std::to_string(count) + " threads but the block has " +
                     std::to_string(hi - lo) + ": it never completes (a hang)");
      v.data["arrived"] = arrived;
    }
  } else if (arrived > count) {
    if (should_report("barrier-divergence", call.range)) {
      Violation &v = report("barrier-divergence", "named-barrier", w,
                            name + " is reached by " + std::to_string(arrived) +
                                " threads at once, more than the " + std::to_string(count) +
                                " it counts: it completes before all of them arrive, and the "
                                "rest start its next phase");
      v.data["arrived"] = arrived;
    }
  } else if (arrive_only || arrived < count || rendezvous_[key].arrived > 0) {
    named_rendezvous(call, name, key, count, warps, arrived, m, w, arrive_only);
    return;
  }
  meet(warps);
}

void Machine::meet(const std::vector<int64_t> &warps) {
  std::vector<int32_t> joined(static_cast<size_t>(warps_), 0);
  for (int64_t warp : warps) {
    bump_warp(warp);
    join_warp_into(joined, warp);
  }
  for (int64_t warp : warps)
    join_into_warp(warp, joined);
}

void Machine::named_rendezvous(const Expr &call, const std::string &name, int64_t id, int64_t n,
                               const std::vector<int64_t> &warps, int64_t arrived, const Mask &m,
                               const Where &w, bool arrive_only, const char *check) {
  NamedRendezvous &r = rendezvous_[id];
  if (r.arrived > 0 && r.count != n && should_report("barrier-divergence", call.range)) {
    Violation &v = report("barrier-divergence", check, w,
                          name + " is reached while " + std::to_string(r.arrived) +
                              " threads wait at barrier " + std::to_string(id % 16) + " counting " +
                              std::to_string(r.count) +
                              ": the participants of one use of a barrier must give one count");
    v.data["arrived"] = r.arrived;
  }
  if (r.arrived == 0)
    r.count = n;
  r.arrived += arrived;
  r.arrivals.resize(static_cast<size_t>(warps_), 0);
  for (int64_t warp : warps) {
    bump_warp(warp);
    if (arrive_only)
      join_warp_into(r.arrivals, warp); // what it did so far, not what it does next
    else
      r.warps.push_back(warp);
  }
  // The use completes: every waiting participant is ordered after what every
  // participant did before it arrived (the blocked roles' clocks have not
  // moved since; the arrive-only ones were taken as they arrived).
  const auto complete = [&] {
    std::vector<int32_t> joined = r.arrivals;
    for (int64_t warp : r.warps)
      join_warp_into(joined, warp);
    for (int64_t warp : r.warps)
      join_into_warp(warp, joined);
    r.arrived = 0;
    r.warps.clear();
    r.arrivals.assign(r.arrivals.size(), 0);
    r.generation += 1;
  };
  if (r.arrived >= r.count) {
    if (r.arrived > r.count && should_report("barrier-divergence", call.range)) {
      Violation &v = report("barrier-divergence", check, w,
                            name + " is reached by " + std::to_string(r.arrived) +
                                " threads in all, more than the " + std::to_string(r.count) +
                                " it counts: it completes before all of them arrive, and the "
                                "rest start its next use");
      v.data["arrived"] = r.arrived;
    }
    complete();
    return;
  }
  if (arrive_only)
    return; // it does not wait
  if (!agents_) {
    // In lockstep the others would arrive from a statement run after this one.
    if (should_report("unproven", call.range)) {
      Violation &v = report("unproven", check, w,
                            name + " is reached here by " + std::to_string(r.arrived) +
                                " threads; the other " + std::to_string(r.count - r.arrived) +
                                " would arrive from another statement, which the checker runs "
                                "after this one, not alongside it: what this rendezvous orders "
                                "is not checked (accesses across it count as unordered)",
                            true);
      v.data["arrived"] = r.arrived;
    }
    complete();
    return;
  }
  // Fewer than n so far: this role waits for the others to arrive.
  Agents::Await await;
  await.named = &r;
  await.generation = r.generation;
  const int64_t waited = r.generation;
  const std::string what = "waiting at " + name + " (" + std::to_string(r.arrived) + " of " +
                           std::to_string(r.count) + " threads arrived)";
  std::vector<Agents::OtherWait> others;
  std::shared_ptr<Agents> agents = agents_;
  const Agents::Wake wake = agents->block({await}, m, what, call.range, others);
  if (wake == Agents::Wake::Completed || stopped_ || r.generation > waited)
    return;
  if (wake == Agents::Wake::Deadlock) {
    if (should_report("barrier-divergence", call.range)) {
      std::string rest = others.empty() ? std::string(" and no other thread of the ") +
                                              (cluster_size_ > 1 ? "cluster" : "block") +
                                              " can arrive (the others returned or are done)"
                                        : ", and every other role is waiting too: ";
      for (size_t k = 0; k < others.size(); ++k)
        rest += (k ? "; " : "") + others[k].text;
      Violation &v =
          report("barrier-divergence", check, w,
                 "deadlock: " + name + " never completes: it counts " + std::to_string(r.count) +
                     " threads, " + std::to_string(r.arrived) + " arrived" + rest);
      v.data["arrived"] = r.arrived;
      for (const Agents::OtherWait &o : others)
        v.related.push_back(RelatedInformation{o.at, o.text});
    }
    hung_ = true; // nothing after a hang happens: later violations are muted
  } else if (should_report("unproven", call.range)) {
    Violation &v = report(
        "unproven", check, w,
        name + " counts " + std::to_string(r.count) + " threads and " + std::to_string(r.arrived) +
            " arrived; no role can go on, but threads outside the waiting roles (done "
            "with a branch, or parked where a loop let them out) may still arrive: the "
            "checker does not run those alongside, so this rendezvous is not checked",
        true);
    v.data["arrived"] = r.arrived;
  }
  // Reported: the threads go on as if it had completed, so that one error
  // does not cascade.
  complete();
}

// ballot / any_sync / all_sync over the active lanes of each warp: every
// lane of a warp gets the same result; its tag joins the predicates' tags.
Value Machine::warp_vote(BuiltinId id, const Expr &call, const Mask &m) {
  if (call.arg_count() < 1)
    return Value{};
  Value p = data(call.arg(0), m);
  if (p.kind != ValueKind::Data) {
    not_interpreted(call.range, "the checker has no value for this vote's predicate");
    return Value{};
  }
  const Mask truth_of = truth(p, m);
  Value out = make_data(id == BuiltinId::Ballot ? ScalarKind::U64 : ScalarKind::Bool, 1, false);
  out.expand(lanes_);
  const bool tagged = !p.tags.empty();
  if (tagged)
    out.tags.assign(out.ints.size(), Tag{});
  for (int64_t first = 0; first < lanes_; first += warp_size_) {
    const int64_t end = std::min(lanes_, first + warp_size_);
    uint64_t bits = 0;
    int64_t active = 0, yes = 0;
    Tag tag;
    for (int64_t lane = first; lane < end; ++lane) {
      if (!m[static_cast<size_t>(lane)])
        continue;
      ++active;
      if (truth_of[static_cast<size_t>(lane)]) {
        ++yes;
        bits |= uint64_t{1} << (lane - first);
      }
      if (tagged)
        tag = join(tag, *p.tag_at(static_cast<size_t>(lane)));
    }
    const int64_t result = id == BuiltinId::Ballot    ? static_cast<int64_t>(bits)
                           : id == BuiltinId::AnySync ? (yes > 0)
                                                      : (yes == active);
    for (int64_t lane = first; lane < end; ++lane) {
      out.ints[static_cast<size_t>(lane)] = result;
      if (tagged)
        out.tags[static_cast<size_t>(lane)] = tag;
    }
  }
  carry_contents(out, p, nullptr);
  return out;
}

void Machine::async_commit(const Mask &m) {
  for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane) {
    if (!m[lane])
      continue;
    committed_[lane].push_back(std::move(open_group_[lane]));
    open_group_[lane].clear();
  }
}

void Machine::land_async_write(const PendingWrite &w, int64_t lane) {
  const Buffer &b = buffers_[static_cast<size_t>(w.buffer)];
  if (b.log[static_cast<size_t>(w.cell)].pending_lane != static_cast<int32_t>(lane))
    return; // overwritten meanwhile (reported as a race there)
  const Site &site = sites_[static_cast<size_t>(w.site)];
  const ast::Stmt *saved = current_stmt_;
  current_stmt_ = site.stmt;
  write_cell(w.buffer, lane, w.cell, site.range, &w.tag, w.value, true);
  current_stmt_ = saved;
}

void Machine::async_wait(int64_t keep, const Mask &m, const Range &at) {
  (void)at;
  for (size_t lane = 0; lane < static_cast<size_t>(lanes_); ++lane) {
    if (!m[lane])
      continue;
    auto &groups = committed_[lane];
    while (static_cast<int64_t>(groups.size()) > keep) {
      for (const PendingWrite &w : groups.front())
        land_async_write(w, static_cast<int64_t>(lane));
      groups.pop_front();
    }
  }
}

Value Machine::builtin(BuiltinId id, const Expr &call, const Mask &m) {
  using enum BuiltinId;
  switch (id) {
  case ThreadId:
  case BlockId:
  case BlockDim:
  case GridDim:
  case LaneId:
  case WarpId:
  case WarpgroupId:
  case ClusterRank:
  case ClusterId:
    return launch_coordinate(id, call, m);
  case ClusterSync:
    cluster_sync(call, m);
    return Value{};
  case Cdiv:
  case Min:
  case Max: {
    if (call.arg_count() < 2)
      return Value{};
    Value a = data(call.arg(0), m), b = data(call.arg(1), m);
    if (a.kind != ValueKind::Data || b.kind != ValueKind::Data) {
      not_interpreted(call.range,
                      "the checker has no number for an operand of " + builtin_name(id));
      return Value{};
    }
    Value out = binary(ast::BinaryOp::Add, a, b, m, call.range); // tags and shape
    if (!out.is_float)
      for (size_t lane = 0; lane < (out.uniform ? 1 : static_cast<size_t>(lanes_)); ++lane) {
        if (!out.uniform && !m[lane])
          continue;
        const int64_t x = a.at(lane), y = b.at(lane);
        if (id == Cdiv) {
          const int_eval::IntResult q = int_eval::cdiv(x, y);
          if (!q.ok())
            report_int_error(q.error, out.uniform ? first_active(m) : static_cast<int64_t>(lane),
                             call.range);
          out.ints[out.index(lane, 0)] = q.value;
        } else {
          out.ints[out.index(lane, 0)] = id == Min ? std::min(x, y) : std::max(x, y);
        }
      }
    return out;
  }
  case Abs: {
    Value a = call.arg_count() ? data(call.arg(0), m) : Value{};
    if (a.kind != ValueKind::Data)
      not_interpreted(call.range, "the checker has no number for abs");
    for (int64_t &x : a.ints) {
      const int_eval::IntResult r = int_eval::absolute(x);
      if (!r.ok())
        report_int_error(r.error, first_active(m), call.range);
      x = r.value;
    }
    return a;
  }
  case Convert:
  case Bitcast: {
    if (call.arg_count() < 2)
      return Value{};
    Value v = data(call.arg(0), m);
    Value dt = eval(call.arg(1), m);
    if (v.kind != ValueKind::Data || dt.kind != ValueKind::Dtype)
      not_interpreted(call.range, "the checker has no number or dtype for " + builtin_name(id));
    if (v.kind == ValueKind::Data && dt.kind == ValueKind::Dtype) {
      if (id == Convert && v.is_float && !sema::is_float(dt.dtype))
        std::fill(v.ints.begin(), v.ints.end(), 0);
      v.dtype = dt.dtype;
      v.is_float = sema::is_float(dt.dtype);
    }
    return v;
  }
  case Exp:
  case Exp2:
  case Log:
  case Log2:
  case Sqrt:
  case Rsqrt:
  case Tanh: {
    Value v = call.arg_count() ? data(call.arg(0), m) : Value{};
    if (v.kind == ValueKind::Data)
      v.is_float = true;
    else
      not_interpreted(call.range, "the checker has no number for " + builtin_name(id));
    return v;
  }
  case Fma: {
    if (call.arg_count() < 3)
      return Value{};
    Value a = data(call.arg(0), m), b = data(call.arg(1), m), c = data(call.arg(2), m);
    return binary(ast::BinaryOp::Add, binary(ast::BinaryOp::Mul, a, b, m, call.range), c, m,
                  call.range);
  }
  case MakeShared:
  case MakeLocal:
  case Full:
    return new_tensor(id, call, m);
  case View:
  case Subview:
    return make_view(call, m);
  case MakeLayout: {
    Value v;
    v.kind = ValueKind::Layout;
    if (const Expr *s = arg_of(call, 0, "shape"))
      v.layout.shape = const_tuple(*s, m);
    if (const Expr *s = arg_of(call, 1, "stride"))
      v.layout.strides = const_tuple(*s, m);
    return v;
  }
  case Swizzle: {
    Value v;
    v.kind = ValueKind::Layout;
    if (call.arg_count() >= 3) {
      const int bits = static_cast<int>(const_tuple(call.arg(0), m).at(0));
      const int base = static_cast<int>(const_tuple(call.arg(1), m).at(0));
      const int shift = static_cast<int>(const_tuple(call.arg(2), m).at(0));
      if (auto sw = layout::make_swizzle(bits, base, shift); sw.ok() && bits > 0)
        v.layout.swizzle = *sw;
    }
    return v;
  }
  case Compose: {
    Value v;
    v.kind = ValueKind::Layout;
    for (size_t i = 0; i < call.arg_count(); ++i) {
      Value part = eval(call.arg(i), m);
      if (part.kind != ValueKind::Layout)
        continue;
      if (part.layout.swizzle)
        v.layout.swizzle = part.layout.swizzle;
      if (!part.layout.strides.empty()) {
        v.layout.shape = part.layout.shape;
        v.layout.strides = part.layout.strides;
      }
    }
    return v;
  }
  case Syncthreads:
    syncthreads(call, m);
    return Value{};
  case Barrier:
    named_barrier(call, m);
    return Value{};
  case BarrierArrive:
    named_barrier(call, m, /*arrive_only=*/true);
    return Value{};
  case Syncwarp:
    syncwarp(call, m);
    return Value{};
  case Threadfence:
    // A fence orders this thread's own accesses as other threads see them;
    // it orders no access of another thread before one of this thread, so
    // for races it changes nothing (docs/checker.md "Warps").
    return Value{};
  case Ballot:
  case AnySync:
  case AllSync:
    return warp_vote(id, call, m);
  case Shuffle:
  case ShuffleXor:
  case ShuffleUp:
  case ShuffleDown:
    return shuffle(id, call, m);
  case AtomicAdd:
  case AtomicMax:
  case AtomicMin:
  case AtomicExch:
  case AtomicCas:
    return atomic(id, call, m);
  case AsyncCommit:
    async_commit(m);
    return Value{};
  case AsyncWait: {
    const Expr *n = arg_of(call, 0, "n");
    async_wait(n ? const_tuple(*n, m).at(0) : 0, m, call.range);
    return Value{};
  }
  case Tag:
    tag_tensor(call, m);
    return Value{};
  case AssertTag:
    assert_tag(call, m);
    return Value{};
  case AssertTagEq:
    assert_tag_eq(call, m);
    return Value{};
  case ResetTags:
    reset_tags(call, m);
    return Value{};
  case AssertCovered:
    assert_covered(call, m);
    return Value{};
  case Assume:
    return Value{}; // sizes are chosen by it (instances.cpp); no effect on data
  default:
    break;
  }
  not_interpreted(call.range, "the checker does not interpret '" + builtin_name(id) + "'");
  return Value{};
}

} // namespace argus::check::detail
