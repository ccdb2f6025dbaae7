// wgmma (sm90 warpgroup MMA) in the interpreter: the operand tiles read from
// shared memory through a layout the hardware can describe (checked), the
// tag contract of the m64nNk16 thread–value layouts, and the asynchronous
// rules: an accumulator is not touched and an operand tile not overwritten
// until `wgmma_wait_group` retires its group, and an accumulator written by
// other instructions needs a `wgmma_fence` before the next wgmma.
#include "call_args.h"
#include "machine.h"

#include <algorithm>

namespace argus::check::detail {

using ast::Expr;

namespace {

// "wgmma_m64n128k16_bf16" for the layout table and messages.
std::string wgmma_name(BuiltinId id, int n) {
  switch (id) {
  case BuiltinId::NvvmWgmmaF16:
    return "wgmma_m64n" + std::to_string(n) + "k16_f16";
  case BuiltinId::NvvmWgmmaE4m3:
    return "wgmma_m64n" + std::to_string(n) + "k32_e4m3";
  case BuiltinId::NvvmWgmmaE5m2:
    return "wgmma_m64n" + std::to_string(n) + "k32_e5m2";
  default:
    return "wgmma_m64n" + std::to_string(n) + "k16_bf16";
  }
}

} // namespace

Machine::Where Machine::at_lane(int64_t lane, const Range &range) {
  Where w;
  w.lane = lane;
  w.range = range;
  return w;
}

// Whether every lane of each warpgroup `m` touches is in `m`; reports once
// at `call` when not (a wgmma instruction is issued by all 128 threads).
bool Machine::whole_warpgroups(const Mask &m, const Expr &call, const std::string &what) {
  for (int64_t w0 = 0; w0 < lanes_; w0 += kWarpgroup) {
    const int64_t end = std::min(lanes_, w0 + kWarpgroup);
    const bool some = any_in(m, w0, end - w0);
    bool all = end - w0 == kWarpgroup;
    for (int64_t l = w0; l < end && all; ++l)
      all = m[static_cast<size_t>(l)] != 0;
    if (some && !all) {
      if (should_report("barrier-divergence", call.range)) {
        int64_t missing = w0;
        while (missing < end && m[static_cast<size_t>(missing)])
          ++missing;
        Where w = at_lane(missing < end ? missing : w0, call.range);
        report("barrier-divergence", "warpgroup", w,
               what + " must be executed by all 128 threads of a warpgroup; " +
                   (end - w0 < kWarpgroup ? "the block's last warpgroup has only " +
                                                std::to_string(end - w0) + " threads"
                                          : thread_text(w.lane) + " does not execute it"));
      }
      return false;
    }
  }
  return true;
}

// What both descriptor forms need of a tile's buffer: shared memory under a
// 32, 64 or 128-byte swizzle, whose span (bytes) goes to `span`.
std::optional<std::string> Machine::wgmma_swizzle_error(const View &v, const char *form,
                                                        int64_t &span) const {
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  if (b.space != MemorySpace::Shared)
    return "it is not in shared memory";
  if (!b.swizzle || b.swizzle->base != 4 || b.swizzle->shift != 3 || b.swizzle->bits < 1 ||
      b.swizzle->bits > 3)
    return "its buffer " + b.name +
           " has no 32, 64 or 128-byte swizzle (Swizzle(1, 4, 3), Swizzle(2, 4, 3) or "
           "Swizzle(3, 4, 3) on a layout whose rows are 32, 64 or 128 bytes): the matrix "
           "descriptor has no other " +
           form + " form for it";
  span = int64_t{16} << b.swizzle->bits;
  return std::nullopt;
}

// Why element (r, c) of a 2-D tile is not where a descriptor form puts it:
// at base + r * span + c * element bytes.
std::string Machine::wgmma_misplaced(const View &v, int64_t lane, int64_t r, int64_t c,
                                     int64_t base, int64_t span, const char *rows,
                                     const char *contiguous) const {
  const int64_t at = element_byte_offset(v, lane, r * v.shape[1] + c);
  const int64_t want = base + r * span + c * dtype_bytes(v.dtype);
  return "element (" + std::to_string(r) + ", " + std::to_string(c) + ") is at byte " +
         std::to_string(at) + ", not " + std::to_string(want) + ": " + rows + " must be " +
         std::to_string(span) + " bytes apart (the swizzle's span) with " + contiguous +
         " contiguous";
}

// The layout of a wgmma operand tile (rows x 16 k of a 16-bit type): the
// canonical K-major forms with a 32, 64 or 128-byte swizzle, which a matrix
// descriptor can describe (start address, 8-row stride, swizzle mode). Row r,
// element k must lie at base + r * row_bytes + k * element bytes before the
// swizzle, with row_bytes the swizzle's span and base on an 8-row boundary; a
// row of the tile is 32 bytes (16 bf16/f16 or 32 fp8).
std::optional<std::string> Machine::wgmma_layout_error(const View &v, int64_t lane) const {
  int64_t row_bytes = 0;
  if (auto why = wgmma_swizzle_error(v, "K-major", row_bytes))
    return why;
  const int64_t eb = dtype_bytes(v.dtype);
  const int64_t k_count = 32 / eb;
  if (v.shape.size() != 2 || v.shape[1] != k_count)
    return "it is not a (rows, " + std::to_string(k_count) + ") tile";
  const int64_t base = element_byte_offset(v, lane, 0);
  if ((base / row_bytes) % 8 != 0)
    return "its first row is not on an 8-row boundary of the " + std::to_string(row_bytes) +
           "-byte swizzle pattern (byte offset " + std::to_string(base) + ")";
  if (base % row_bytes + 32 > row_bytes)
    return "its " + std::to_string(k_count) + " k of a row cross the " + std::to_string(row_bytes) +
           "-byte row";
  // A view is affine (element_byte_offset): every element is where the form
  // puts it exactly when k is contiguous and rows are the span apart, and
  // the first element that is not is (0, 1) or else (1, 0), in row-major order.
  const auto misplaced = [&](int64_t r, int64_t k) {
    return wgmma_misplaced(v, lane, r, k, base, row_bytes, "rows", "k");
  };
  if (v.strides[1] != 1)
    return misplaced(0, 1);
  if (v.shape[0] > 1 && v.strides[0] * eb != row_bytes)
    return misplaced(1, 0);
  return std::nullopt;
}

// The MN-major form (b_major="mn", 16-bit types): a (16, N) tile, k rows of
// N contiguous elements, one swizzle atom wide (N x element bytes at most the
// span): element (k, n) at base + k * span + n * element bytes before the
// swizzle, base on an atom (8 rows of the span), so the descriptor's 8-row
// stride is 8 spans and no second atom along N needs a leading offset.
std::optional<std::string> Machine::wgmma_mn_layout_error(const View &v, int64_t lane) const {
  int64_t span = 0;
  if (auto why = wgmma_swizzle_error(v, "MN-major", span))
    return why;
  const int64_t eb = dtype_bytes(v.dtype);
  if (v.shape.size() != 2 || v.shape[0] != 16)
    return "it is not a (16, N) tile";
  const int64_t n_count = v.shape[1];
  if (n_count * eb > span)
    return "its rows of " + std::to_string(n_count) + " elements are wider than the " +
           std::to_string(span) + "-byte swizzle atom (split N into wgmma of " +
           std::to_string(span / eb) + " columns)";
  const int64_t base = element_byte_offset(v, lane, 0);
  if (base % (8 * span) != 0)
    return "its first element is not on a swizzle atom (8 rows of " + std::to_string(span) +
           " bytes; byte offset " + std::to_string(base) + ")";
  // Affine, as in wgmma_layout_error: (0, 1) or else (1, 0) is the first
  // element out of place, if any is.
  const auto misplaced = [&](int64_t k, int64_t n) {
    return wgmma_misplaced(v, lane, k, n, base, span, "k rows", "N");
  };
  if (n_count > 1 && v.strides[1] != 1)
    return misplaced(0, 1);
  if (v.strides[0] * eb != span)
    return misplaced(1, 0);
  return std::nullopt;
}

void Machine::wgmma(BuiltinId id, const Expr &call, const Mask &m) {
  const Expr *acc_arg = arg_of(call, 0, "acc");
  const Expr *a_arg = arg_of(call, 1, "a");
  const Expr *b_arg = arg_of(call, 2, "b");
  if (!acc_arg || !a_arg || !b_arg || !whole_warpgroups(m, call, builtin_name(id)))
    return;
  Value acc_place = narrow(eval(*acc_arg, m), m);
  Value a_place = narrow(eval(*a_arg, m), m);
  Value b_place = narrow(eval(*b_arg, m), m);
  if (acc_place.kind != ValueKind::View || a_place.kind != ValueKind::View ||
      b_place.kind != ValueKind::View) {
    not_interpreted(call.range, "wgmma needs its accumulator and both tiles as views the checker "
                                "knows (not a choice that differs between threads)");
    return;
  }
  const View &acc = *acc_place.view;
  const View &a = *a_place.view;
  const View &b = *b_place.view;
  const Expr *major_arg = arg_of(call, 3, "b_major");
  const bool b_mn =
      major_arg && major_arg->kind == ast::ExprKind::String && major_arg->name == "mn";
  const int N = b.shape.size() == 2 ? static_cast<int>(b.shape[b_mn ? 1 : 0]) : 0;
  Buffer &acc_buffer = buffers_[static_cast<size_t>(acc.buffer)];
  if (N < 8 || acc.elements() != N / 2 || acc_buffer.space != MemorySpace::Local ||
      !local_fast_path(acc)) {
    not_interpreted(call.range, "wgmma's accumulator is not a local f32 tensor of N / 2 values");
    return;
  }
  // A from registers: a local fragment of 8 values per thread (the m64nNk16
  // A layout), held by the wgmma until its group retires.
  Buffer &a_buffer = buffers_[static_cast<size_t>(a.buffer)];
  const bool a_in_registers = a_buffer.space == MemorySpace::Local;
  if (a_in_registers && (a.elements() != 8 || !local_fast_path(a))) {
    not_interpreted(call.range, "wgmma's a in registers is not a local fragment of 8 values");
    return;
  }
  const std::string inst = wgmma_name(id, N);
  current_site_ = site_of(call.range);
  const int32_t site = current_site_;
  if (a_in_registers) {
    if (a_buffer.wgmma_write_clock.empty())
      a_buffer.wgmma_write_clock.assign(static_cast<size_t>(lanes_), 0);
    if (a_buffer.wgmma_operand_inflight.empty())
      a_buffer.wgmma_operand_inflight.assign(static_cast<size_t>(lanes_), 0);
  }
  if (acc_buffer.wgmma_write_clock.empty())
    acc_buffer.wgmma_write_clock.assign(static_cast<size_t>(lanes_), 0);
  if (acc_buffer.wgmma_inflight.empty())
    acc_buffer.wgmma_inflight.assign(static_cast<size_t>(lanes_), 0);
  if (wgmma_fence_clock_.empty())
    wgmma_fence_clock_.assign(static_cast<size_t>(lanes_), -1);
  const int M = 64;
  const int K = id == BuiltinId::NvvmWgmmaE4m3 || id == BuiltinId::NvvmWgmmaE5m2 ? 32 : 16;
  for (int64_t w0 = 0; w0 + kWarpgroup <= lanes_; w0 += kWarpgroup) {
    if (!any_in(m, w0, kWarpgroup))
      continue;
    // One tile for the warpgroup: every thread names the same one.
    for (const View *tile : {&a, &b})
      for (int64_t l = w0 + 1; l < w0 + kWarpgroup && !(tile == &a && a_in_registers); ++l)
        if (tile->is_bad(static_cast<size_t>(l)) ||
            tile->off(static_cast<size_t>(l)) != tile->off(static_cast<size_t>(w0))) {
          not_interpreted(call.range, "the threads of a warpgroup name different " +
                                          std::string(tile == &a ? "a" : "b") +
                                          " tiles; wgmma reads one tile per warpgroup");
          return;
        }
    bool bad_layout = false;
    for (const auto &[tile, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}})
      if (auto why = bad_layout || (tile == &a && a_in_registers) ? std::nullopt
                     : tile == &b && b_mn                         ? wgmma_mn_layout_error(*tile, w0)
                                                                  : wgmma_layout_error(*tile, w0)) {
        bad_layout = true;
        if (should_report("operand-layout", call.range)) {
          Where w = at_lane(w0, (tile == &a ? a_arg : b_arg)->range);
          report("operand-layout", "wgmma", w,
                 std::string("wgmma operand ") + name +
                     " has no matrix-descriptor layout: " + *why);
        }
        // What the tensor cores would compute is unknown: poison, not a tag.
        const auto cells = element_cells(acc);
        for (int64_t l = w0; l < w0 + kWarpgroup; ++l)
          for (int64_t e : cells) {
            const int64_t base = acc.off(static_cast<size_t>(l)) / acc_buffer.cell_bytes;
            Cell &cl = cell(acc_buffer, l, base + e);
            cl.tag.poison = true;
            cl.initialized = true;
          }
      }
    if (bad_layout)
      continue;
    // Ordering of the accumulator's registers: written by other
    // instructions since this thread's last wgmma_fence is undefined.
    for (int64_t l = w0; l < w0 + kWarpgroup; ++l) {
      const auto lane = static_cast<size_t>(l);
      if (acc_buffer.wgmma_write_clock[lane] > wgmma_fence_clock_[lane] ||
          (a_in_registers && a_buffer.wgmma_write_clock[lane] > wgmma_fence_clock_[lane]) ||
          wgmma_fence_clock_[lane] < 0) {
        if (should_report("async-read-before-wait", call.range)) {
          Where w = at_lane(l, call.range);
          report("async-read-before-wait", "wgmma-fence", w,
                 "wgmma on " + acc_buffer.name +
                     (wgmma_fence_clock_[lane] < 0 ? " with no wgmma_fence before it"
                      : acc_buffer.wgmma_write_clock[lane] > wgmma_fence_clock_[lane]
                          ? " after other instructions wrote it, with no wgmma_fence between"
                          : " after other instructions wrote its a fragment " + a_buffer.name +
                                ", with no wgmma_fence between") +
                     ": the warpgroup may read the registers before those writes");
        }
        break;
      }
    }
    // The tiles' elements: tags read (logged as reads of this interval) and
    // kept in flight until the group's wgmma_wait_group.
    std::vector<Tag> at(static_cast<size_t>(M * K)), bt(static_cast<size_t>(N * K));
    // tags[r + rows * k] of row r, k; an MN-major tile holds (k, r) at k * rows + r.
    auto read_tile = [&](const View &tile, int rows, std::vector<Tag> &tags, bool mn = false) {
      for (int r = 0; r < rows; ++r)
        for (int k = 0; k < K; ++k) {
          Tag t;
          int64_t value = 0, cell_index = -1;
          if (!read_element(tile, w0, mn ? k * rows + r : r * K + k, call.range, t, value,
                            &cell_index))
            continue;
          tags[static_cast<size_t>(r + rows * k)] = t;
          if (cell_index >= 0) {
            async_proxy_read(buffers_[static_cast<size_t>(tile.buffer)], w0, cell_index, call.range,
                             "wgmma", site, /*store=*/false);
            wgmma_open_[static_cast<size_t>(w0 / kWarpgroup)].cells.emplace_back(tile.buffer,
                                                                                 cell_index);
          }
        }
    };
    if (wgmma_open_.size() < static_cast<size_t>(lanes_ / kWarpgroup + 1)) {
      wgmma_open_.resize(static_cast<size_t>(lanes_ / kWarpgroup + 1));
      wgmma_committed_.resize(static_cast<size_t>(lanes_ / kWarpgroup + 1));
    }
    if (a_in_registers) {
      // A (64 x 16) in registers: thread t, value i holds row 16 (t / 32) +
      // (t % 32) / 4 + 8 ((i >> 1) & 1), k 2 (t % 4) + (i & 1) + 8 (i >> 2).
      const auto a_cells = element_cells(a);
      for (int64_t t = 0; t < kWarpgroup; ++t) {
        const int64_t lane = w0 + t;
        const int64_t base = a.off(static_cast<size_t>(lane)) / a_buffer.cell_bytes;
        for (int i = 0; i < 8; ++i) {
          const Cell &cl = cell(a_buffer, lane, base + a_cells[static_cast<size_t>(i)]);
          if (!cl.initialized)
            report_uninitialized(a_buffer, lane, base + a_cells[static_cast<size_t>(i)],
                                 call.range);
          const int64_t r = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1);
          const int64_t k = 2 * (t % 4) + (i & 1) + 8 * (i >> 2);
          at[static_cast<size_t>(r + M * k)] = cl.tag;
        }
        a_buffer.wgmma_operand_inflight[static_cast<size_t>(lane)] += 1;
      }
      wgmma_open_[static_cast<size_t>(w0 / kWarpgroup)].operands.push_back(a.buffer);
    } else {
      read_tile(a, M, at);
    }
    read_tile(b, N, bt, b_mn);
    std::vector<Tag> row, col;
    operand_contract(
        inst, call, M, N, K, at, bt,
        [&](int i, int k) {
          return w0 + 32 * (i / 16) + 4 * (i % 8) + (a_in_registers ? (k % 8) / 2 : 0);
        },
        [&](int, int) { return w0; }, row, col);
    // D (64 x N): lane t of the warpgroup, value i: row 16 w + g + 8 ((i >> 1) & 1),
    // column 8 (i >> 2) + 2 tq + (i & 1) (tv_layouts.cpp).
    const auto cells = element_cells(acc);
    for (int64_t t = 0; t < kWarpgroup; ++t) {
      const int64_t lane = w0 + t;
      const int64_t warp = t / 32, g = (t % 32) / 4, tq = t % 4;
      const int64_t base = acc.off(static_cast<size_t>(lane)) / acc_buffer.cell_bytes;
      for (int i = 0; i < N / 2; ++i) {
        const int64_t r = 16 * warp + g + 8 * ((i >> 1) & 1);
        const int64_t c = 8 * (i >> 2) + 2 * tq + (i & 1);
        Cell &cl = cell(acc_buffer, lane, base + cells[static_cast<size_t>(i)]);
        Tag tag = join(cl.tag, join(row[static_cast<size_t>(r)], col[static_cast<size_t>(c)]));
        tag.origin = site;
        if (trace_) [[unlikely]] // a trace node, as mma's; the history goes on through A
          tag.origin = trace_node(TraceAction::Compute, site, -1, -1, lane, tag,
                                  row[static_cast<size_t>(r)].origin, site);
        cl.tag = tag;
        cl.initialized = true;
        cl.write_site = site;
        cl.version += 1;
      }
      acc_buffer.wgmma_inflight[static_cast<size_t>(lane)] += 1;
    }
    wgmma_open_[static_cast<size_t>(w0 / kWarpgroup)].accs.push_back(acc.buffer);
  }
}

namespace {

// A fence by the lanes of `m`: the clock advances and they take its value.
void stamp(std::vector<int64_t> &fenced, int64_t &clock, const Mask &m) {
  if (fenced.empty())
    fenced.assign(m.size(), -1);
  ++clock;
  for (size_t l = 0; l < m.size(); ++l)
    if (m[l])
      fenced[l] = clock;
}

} // namespace

void Machine::async_proxy_read(Buffer &b, int64_t lane, int64_t cell_index, const Range &at,
                               const std::string &what, int32_t site, bool store) {
  CellLog &log = b.log[static_cast<size_t>(cell_index)];
  // Written through the generic proxy (a store, a cp.async) and read by the
  // async proxy: the writer must fence in between.
  const int64_t fenced =
      log.writer >= 0 && static_cast<size_t>(log.writer) < proxy_fence_clock_.size()
          ? proxy_fence_clock_[static_cast<size_t>(log.writer)]
          : -1;
  if (log.writer >= 0 && log.write_clock > fenced && should_report("race", at)) {
    Where w = where_at(b, lane, cell_index, at);
    w.origin = cell(b, lane, cell_index).write_site;
    report("race", "proxy-fence", w,
           what + " reads " + b.name + " written by " + thread_text(log.writer) +
               " (a store or cp.async: the generic proxy) with no fence_proxy_async by that "
               "thread between the write and this read (the async proxy)");
  }
  log.wgmma_readers += 1;
  log.wgmma_site = site;
  log.store_reader = store;
}

void Machine::fence_proxy_async(const Mask &m) { stamp(proxy_fence_clock_, proxy_clock_, m); }

void Machine::wgmma_fence(const Expr &call, const Mask &m) {
  if (whole_warpgroups(m, call, "wgmma_fence"))
    stamp(wgmma_fence_clock_, wgmma_clock_, m);
}

void Machine::wgmma_commit(const Expr &call, const Mask &m) {
  if (!whole_warpgroups(m, call, "wgmma_commit_group"))
    return;
  for (size_t g = 0; g < wgmma_open_.size(); ++g)
    if (any_in(m, static_cast<int64_t>(g) * kWarpgroup, kWarpgroup)) {
      wgmma_committed_[g].push_back(std::move(wgmma_open_[g]));
      wgmma_open_[g] = WgmmaGroup{};
    }
}

void Machine::wgmma_wait(const Expr &call, const Mask &m) {
  if (!whole_warpgroups(m, call, "wgmma_wait_group"))
    return;
  const Expr *n_arg = arg_of(call, 0, "n");
  const auto n = n_arg ? sema_.constant_of(*n_arg) : std::nullopt;
  if (!n) {
    not_interpreted(call.range, "wgmma_wait_group needs a constant group count");
    return;
  }
  for (size_t g = 0; g < wgmma_committed_.size(); ++g) {
    if (!any_in(m, static_cast<int64_t>(g) * kWarpgroup, kWarpgroup))
      continue;
    auto &groups = wgmma_committed_[g];
    while (static_cast<int64_t>(groups.size()) > *n) {
      retire_wgmma_group(groups.front(), static_cast<int64_t>(g) * kWarpgroup);
      groups.pop_front();
    }
  }
}

void Machine::retire_wgmma_group(const WgmmaGroup &group, int64_t w0) {
  for (const auto &[buffer, index] : group.cells) {
    CellLog &log = buffers_[static_cast<size_t>(buffer)].log[static_cast<size_t>(index)];
    if (log.wgmma_readers > 0)
      log.wgmma_readers -= 1;
  }
  for (int buffer : group.operands) {
    Buffer &b = buffers_[static_cast<size_t>(buffer)];
    for (int64_t l = w0; l < w0 + kWarpgroup && l < lanes_; ++l)
      if (b.wgmma_operand_inflight[static_cast<size_t>(l)] > 0)
        b.wgmma_operand_inflight[static_cast<size_t>(l)] -= 1;
  }
  for (int buffer : group.accs) {
    Buffer &b = buffers_[static_cast<size_t>(buffer)];
    for (int64_t l = w0; l < w0 + kWarpgroup && l < lanes_; ++l)
      if (b.wgmma_inflight[static_cast<size_t>(l)] > 0)
        b.wgmma_inflight[static_cast<size_t>(l)] -= 1;
  }
}

// A plain access of a local buffer that a wgmma of this thread's warpgroup
// is still accumulating into (not retired by wgmma_wait_group), or a plain
// write to one that a later wgmma will use (it then needs a wgmma_fence).
void Machine::wgmma_local_access(Buffer &b, int64_t lane, const Range &at, bool write) {
  if (write && !b.wgmma_write_clock.empty())
    b.wgmma_write_clock[static_cast<size_t>(lane)] = ++wgmma_clock_;
  if (write && !b.wgmma_operand_inflight.empty() &&
      b.wgmma_operand_inflight[static_cast<size_t>(lane)] &&
      should_report("async-read-before-wait", at)) {
    Where w = at_lane(lane, at);
    report("async-read-before-wait", "wgmma", w,
           "write to " + b.name +
               " while a wgmma reading it as its a fragment is in flight (wgmma_wait_group "
               "retires it first)");
  }
  if (b.wgmma_inflight.empty() || !b.wgmma_inflight[static_cast<size_t>(lane)])
    return;
  if (!should_report("async-read-before-wait", at))
    return;
  Where w = at_lane(lane, at);
  report("async-read-before-wait", "wgmma", w,
         std::string(write ? "write to " : "read of ") + b.name +
             " while a wgmma accumulating into it is in flight (wgmma_commit_group, then "
             "wgmma_wait_group, retire it first)");
}

} // namespace argus::check::detail
