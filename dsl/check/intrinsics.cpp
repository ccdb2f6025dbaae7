// Hardware intrinsics on the SIMT machine: matrix instructions with their
// operand contract (thread–value layouts from argus_layout), ldmatrix,
// cp.async (pending until its wait), buffer loads.
#include "call_args.h"
#include "machine.h"
#include "operand_map.h"

#include <algorithm>

namespace argus::check::detail {

using ast::Expr;

Value Machine::intrinsic(BuiltinId id, const Expr &call, const Mask &m) {
  if (is_matrix_multiply(id))
    return matrix_multiply(id, call, m);
  if (is_wgmma(id)) {
    wgmma(id, call, m);
    return Value{};
  }
  switch (id) {
  case BuiltinId::NvvmWgmmaFence:
    wgmma_fence(call, m);
    return Value{};
  case BuiltinId::NvvmWgmmaCommit:
    wgmma_commit(call, m);
    return Value{};
  case BuiltinId::NvvmWgmmaWait:
    wgmma_wait(call, m);
    return Value{};
  case BuiltinId::NvvmFenceProxyAsync:
    fence_proxy_async(m);
    return Value{};
  case BuiltinId::NvvmMbarrierInit:
  case BuiltinId::NvvmMbarrierArrive:
  case BuiltinId::NvvmMbarrierWait:
  case BuiltinId::NvvmMbarrierExpectTx:
    mbarrier_op(id, call, m);
    return Value{};
  case BuiltinId::NvvmCpAsyncBulk:
    cp_async_bulk(call, m, false);
    return Value{};
  case BuiltinId::NvvmTmaLoad:
    cp_async_bulk(call, m, true);
    return Value{};
  case BuiltinId::NvvmTmaLoadMulticast:
    tma_load_multicast(call, m);
    return Value{};
  case BuiltinId::NvvmMbarrierArriveCluster:
    mbarrier_arrive_cluster(call, m);
    return Value{};
  case BuiltinId::NvvmDsmemLoad:
    return dsmem_load(call, m);
  case BuiltinId::NvvmTmaStore:
    tma_store(call, m);
    return Value{};
  case BuiltinId::NvvmTmaStoreWait:
    tma_store_wait(call, m);
    return Value{};
  case BuiltinId::NvvmSetmaxnregInc:
  case BuiltinId::NvvmSetmaxnregDec:
    // No effect on data; .sync.aligned per warpgroup: all 128 threads of
    // each warpgroup that executes it (E0905 otherwise).
    whole_warpgroups(m, call, builtin_name(id));
    return Value{};
  default:
    break;
  }
  if (is_ldmatrix(id))
    return ldmatrix(id, call, m);
  if (is_cp_async(id)) {
    cp_async(transfer_bytes(id), call, m);
    return Value{};
  }
  if (is_register_load(id) && id != BuiltinId::AmdDsReadB128)
    return buffer_load(call, m);
  if (is_register_load(id)) {
    if (call.arg_count() < 1)
      return Value{};
    Value v = data(call.arg(0), m);
    if (id == BuiltinId::AmdDsReadB128)
      if (Value src = eval(call.arg(0), m); src.kind == ValueKind::View)
        lint_reload(*src.view, m, call.range);
    return v;
  }
  if (id == BuiltinId::AmdWaitcnt || id == BuiltinId::AmdSchedGroupBarrier ||
      id == BuiltinId::AmdSetprio)
    return Value{}; // scheduling only: no effect on data
  not_interpreted(call.range, "the checker does not interpret " + builtin_name(id));
  return Value{};
}

// A matrix instruction's operand contract: A's column k and B's row k agree
// on every field they share (the first disagreement is reported, with the
// lanes that hold the two elements); `row` and `col` get the joined tags of
// each row of A and each column of B, which the accumulator takes.
void Machine::operand_contract(const std::string &inst, const Expr &call, int M, int N, int K,
                               const std::vector<Tag> &at, const std::vector<Tag> &bt,
                               const std::function<int64_t(int, int)> &a_lane,
                               const std::function<int64_t(int, int)> &b_lane,
                               std::vector<Tag> &row, std::vector<Tag> &col) {
  // Operands agree on every field they share, for every (row, column, k) pair.
  // For one k and field no pair disagrees exactly when A's column k or B's
  // row k holds no value of it, or all values there are one value (not
  // mixed): a linear test first, the pairs (for the first violation, in
  // their order) only when it fails.
  bool agree = true;
  for (int k = 0; k < K && agree; ++k)
    for (int f = 0; f < kMaxFields && agree; ++f) {
      int64_t value = kAbsent;
      bool mixed = false;
      const auto take = [&](const Tag &t) {
        const int64_t v = t.poison ? kAbsent : t.field[static_cast<size_t>(f)];
        if (v == kAbsent)
          return false;
        mixed = mixed || v == kTop || (value != kAbsent && v != value);
        value = v;
        return true;
      };
      bool in_a = false, in_b = false;
      for (int i = 0; i < M; ++i)
        in_a = take(at[static_cast<size_t>(i + M * k)]) || in_a;
      for (int j = 0; j < N; ++j)
        in_b = take(bt[static_cast<size_t>(j + N * k)]) || in_b;
      agree = !(in_a && in_b && mixed);
    }
  bool reported = agree;
  for (int k = 0; k < K && !reported; ++k)
    for (int i = 0; i < M && !reported; ++i)
      for (int j = 0; j < N && !reported; ++j) {
        const Tag &x = at[static_cast<size_t>(i + M * k)];
        const Tag &y = bt[static_cast<size_t>(j + N * k)];
        if (x.poison || y.poison)
          continue;
        for (int f = 0; f < kMaxFields; ++f) {
          const int64_t xf = x.field[static_cast<size_t>(f)], yf = y.field[static_cast<size_t>(f)];
          if (xf == kAbsent || yf == kAbsent || (xf == yf && xf != kTop))
            continue;
          reported = true;
          if (!should_report("tag-mismatch", call.range))
            break;
          const int64_t lane = a_lane(i, k);
          Where where;
          where.lane = lane;
          where.range = call.range;
          where.tensor = tensor_name(call.arg(0));
          where.coord = {i, k};
          blame(where, x);
          where.more_origins = {origin_site(y.origin)};
          const std::string field = field_names_[static_cast<size_t>(f)];
          Violation &v = report("tag-mismatch", "mma-operands", where,
                                "tag mismatch on field " + field + ": A operand " + tag_text(x) +
                                    " vs B operand " + tag_text(y) + " at (row " +
                                    std::to_string(i) + ", column " + std::to_string(j) + ", k " +
                                    std::to_string(k) + ") of " + inst);
          v.data["expected"] = {{field, yf == kTop ? nlohmann::json("mixed") : nlohmann::json(yf)}};
          v.data["actual"] = {{field, xf == kTop ? nlohmann::json("mixed") : nlohmann::json(xf)}};
          v.data["operands"] = {{"A", tag_json(x)}, {"B", tag_json(y)}};
          v.data["mma_element"] = {{"row", i}, {"column", j}, {"k", k}};
          v.data["b_thread"] = thread_json(b_lane(j, k));
          break;
        }
      }
  // The accumulator gets A's fields of its row and B's of its column.
  row.assign(static_cast<size_t>(M), Tag{});
  col.assign(static_cast<size_t>(N), Tag{});
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      row[static_cast<size_t>(i)] =
          k == 0 ? at[static_cast<size_t>(i)]
                 : join(row[static_cast<size_t>(i)], at[static_cast<size_t>(i + M * k)]);
  for (int j = 0; j < N; ++j)
    for (int k = 0; k < K; ++k)
      col[static_cast<size_t>(j)] =
          k == 0 ? bt[static_cast<size_t>(j)]
                 : join(col[static_cast<size_t>(j)], bt[static_cast<size_t>(j + N * k)]);
}

Value Machine::matrix_multiply(BuiltinId id, const Expr &call, const Mask &m) {
  if (call.arg_count() < 3)
    return Value{};
  const std::string inst(builtin_short_name(id));
  const OperandMap &ma = operand_map(inst, "A");
  const OperandMap &mb = operand_map(inst, "B");
  const OperandMap &mc = operand_map(inst, "C");
  Value a = data(call.arg(0), m), b = data(call.arg(1), m), c = data(call.arg(2), m);
  if (!ma.ok || !mb.ok || !mc.ok || a.kind != ValueKind::Data || b.kind != ValueKind::Data ||
      c.kind != ValueKind::Data || a.elems != ma.values || b.elems != mb.values ||
      c.elems != mc.values) {
    not_interpreted(call.range, "the checker has no operand fragments of the sizes " + inst +
                                    " takes, or no thread-value layout for it");
    return c;
  }
  Value out = c;
  out.expand(lanes_);
  out.is_float = true;
  out.dtype = ScalarKind::F32;
  if (out.tags.empty())
    out.tags.assign(out.ints.size(), Tag{});
  const int M = ma.rows, K = ma.cols, N = mb.rows;
  const int W = ma.threads;
  auto tag_of = [](const Value &v, int64_t lane, int e) {
    const Tag *t = v.tag_at(static_cast<size_t>(lane), e);
    return t ? *t : Tag{};
  };
  for (int64_t w0 = 0; w0 + W <= lanes_; w0 += W) {
    if (!any_in(m, w0, W))
      continue;
    std::vector<Tag> at(static_cast<size_t>(M * K)), bt(static_cast<size_t>(N * K));
    for (int i = 0; i < M * K; ++i)
      at[static_cast<size_t>(i)] =
          tag_of(a, w0 + ma.thread[static_cast<size_t>(i)], ma.value[static_cast<size_t>(i)]);
    for (int i = 0; i < N * K; ++i)
      bt[static_cast<size_t>(i)] =
          tag_of(b, w0 + mb.thread[static_cast<size_t>(i)], mb.value[static_cast<size_t>(i)]);
    std::vector<Tag> row, col;
    operand_contract(
        inst, call, M, N, K, at, bt,
        [&](int i, int k) { return w0 + ma.thread[static_cast<size_t>(i + M * k)]; },
        [&](int j, int k) { return w0 + mb.thread[static_cast<size_t>(j + N * k)]; }, row, col);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        const size_t idx = static_cast<size_t>(i + M * j);
        const int64_t lane = w0 + mc.thread[idx];
        const size_t o = static_cast<size_t>(lane * mc.values + mc.value[idx]);
        Tag t = join(out.tags[o], join(row[static_cast<size_t>(i)], col[static_cast<size_t>(j)]));
        t.origin = site_of(call.range);
        if (trace_) [[unlikely]] // the history goes on through the A operand
          t.origin = trace_node(TraceAction::Compute, t.origin, -1, -1, lane, t,
                                row[static_cast<size_t>(i)].origin, t.origin);
        out.tags[o] = t;
      }
  }
  return out;
}

Value Machine::ldmatrix(BuiltinId id, const Expr &call, const Mask &m) {
  if (call.arg_count() < 1)
    return Value{};
  Value src = narrow(eval(call.arg(0), m), m);
  if (src.kind != ValueKind::View) {
    // Collective: a lane's row feeds other lanes, so one view for the warp.
    not_interpreted(call.range, "ldmatrix needs one shared-memory view the checker knows (not a "
                                "choice that differs between threads)");
    return Value{};
  }
  const View &v = *src.view;
  const int count = ldmatrix_count(id);
  const bool trans = is_transposed_ldmatrix(id);
  Value out = make_data(v.dtype, 2 * count, sema::is_float(v.dtype));
  out.tags.assign(out.ints.size(), Tag{});
  const int W = 32;
  lint_reload(v, m, call.range);
  current_site_ = site_of(call.range);
  for (int64_t w0 = 0; w0 + W <= lanes_; w0 += W) {
    if (!any_in(m, w0, W))
      continue;
    // Each 8x8 matrix is one phase: 8 rows of 16 bytes from the lanes that hold its addresses.
    for (int q = 0; q < count; ++q) {
      std::vector<std::pair<int64_t, int64_t>> rows;
      for (int r = 0; r < 8; ++r) {
        const int64_t lane = w0 + 8 * q + r;
        if (!v.bad.empty() && v.bad[static_cast<size_t>(lane)])
          continue;
        const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
        int64_t byte = element_byte_offset(v, lane, 0);
        if (b.swizzle)
          byte = (*b.swizzle)(byte);
        rows.emplace_back(lane, byte);
      }
      if (options_.lints && buffers_[static_cast<size_t>(v.buffer)].space == MemorySpace::Shared)
        lint_shared_rows(rows, 8, 16, call.range, v);
    }
    for (int l = 0; l < W; ++l) {
      const int64_t lane = w0 + l;
      if (!m[static_cast<size_t>(lane)])
        continue;
      for (int q = 0; q < count; ++q)
        for (int h = 0; h < 2; ++h) {
          const int64_t from = w0 + 8 * q + (trans ? 2 * (l % 4) + h : l / 4);
          const int64_t element = trans ? l / 4 : 2 * (l % 4) + h;
          Tag t;
          int64_t value = 0;
          if (read_element(v, from, element, call.range, t, value)) {
            const size_t o = static_cast<size_t>(lane * 2 * count + 2 * q + h);
            out.tags[o] = t;
            out.ints[o] = value;
          }
        }
    }
  }
  return out;
}

void Machine::cp_async(int64_t bytes, const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return;
  // valid=False: src-size 0, the source is not read (its index may be out of
  // bounds) and the destination is filled with zeros.
  const Expr *valid = arg_of(call, 2, "valid");
  Mask reads = m, zeros(m.size(), 0);
  if (valid) {
    const Mask holds = condition(*valid, m, nullptr, "whether this copy reads its source");
    for (size_t lane = 0; lane < m.size(); ++lane) {
      reads[lane] = m[lane] && holds[lane];
      zeros[lane] = m[lane] && !holds[lane];
    }
  }
  const Value dst = eval(call.arg(0), m);
  if (any(reads))
    cp_async_places(bytes, call, dst, eval(call.arg(1), reads), reads, false);
  if (any(zeros))
    cp_async_places(bytes, call, dst, Value{}, zeros, true);
}

void Machine::cp_async_places(int64_t bytes, const Expr &call, const Value &dst_place,
                              const Value &src_place, const Mask &m, bool zero_fill,
                              const TmaBox *box) {
  // Per thread: a choice of views is copied for each view's threads.
  for (const Value *p : {&dst_place, &src_place})
    if (p->kind == ValueKind::Choice) {
      for (size_t k = 0; k < p->items.size(); ++k) {
        Mask mk = alternative_mask(*p, k, m);
        if (any(mk))
          cp_async_places(bytes, call, p == &dst_place ? p->items[k] : dst_place,
                          p == &src_place ? p->items[k] : src_place, mk, zero_fill);
      }
      return;
    }
  if (dst_place.kind != ValueKind::View || (!zero_fill && src_place.kind != ValueKind::View)) {
    not_interpreted(call.range, "the checker has no view for an operand of this copy");
    return;
  }
  const View &d = *dst_place.view;
  const View *s = zero_fill ? nullptr : src_place.view.get();
  const ScalarKind element = s ? s->dtype : d.dtype;
  const int64_t n = std::max<int64_t>(1, bytes / dtype_bytes(element));
  if (s && buffers_[static_cast<size_t>(s->buffer)].space == MemorySpace::Global)
    lint_global_access(*s, m, call.range, false);
  if (buffers_[static_cast<size_t>(d.buffer)].space == MemorySpace::Shared)
    lint_shared_access(d, m, call.range, bytes);
  const int32_t site = site_of(call.range);
  current_site_ = site;
  Buffer &b = buffers_[static_cast<size_t>(d.buffer)];
  if (b.log.empty())
    return; // not shared memory (the front end allows only shared destinations)
  // Elements narrower than the destination's cells land in their own bytes.
  const int64_t element_bytes = dtype_bytes(element);
  if (element_bytes < b.cell_bytes && !refine(d.buffer, element_bytes))
    return;
  const int64_t span = std::max<int64_t>(1, element_bytes / b.cell_bytes);
  // A TMA box reads its source as one row-major list of elements.
  View flat;
  if (box) {
    flat.buffer = s->buffer;
    flat.dtype = s->dtype;
    flat.shape = {box->rows * box->cols};
    flat.strides = {1};
  }
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || (!d.bad.empty() && d.bad[static_cast<size_t>(lane)]))
      continue;
    for (int64_t e = 0; e < n; ++e) {
      Tag t;
      t.zero = zero_fill;
      int64_t value = 0;
      if (box) {
        // The element the hardware reads, or a zero past the tensor's extents.
        const int64_t row = box->row0[static_cast<size_t>(lane)] + e / box->box_cols;
        const int64_t col = box->col0[static_cast<size_t>(lane)] + e % box->box_cols;
        const int64_t row0 = box->row0[static_cast<size_t>(lane)];
        if (row < 0 || col < 0 || row >= box->rows || col >= box->cols ||
            row / box->page_rows != row0 / box->page_rows) {
          t.zero = true;
        } else if (!read_element(flat, lane, row * box->cols + col, call.range, t, value)) {
          continue;
        }
      } else if (s && !read_element(*s, lane, e, call.range, t, value))
        continue;
      const int64_t byte = element_byte_offset(d, lane, e);
      const int64_t first = cell_index(b, byte);
      if (outside_buffer(b, d, lane, byte, first, span)) {
        if (should_report("out-of-bounds", call.range)) {
          Where w;
          w.lane = lane;
          w.range = call.range;
          w.tensor = b.name;
          report("out-of-bounds", "bounds", w,
                 "async copy into " + b.name + " at byte offset " + std::to_string(byte) +
                     " is outside its " + std::to_string(b.cells * b.cell_bytes) + " bytes");
        }
        continue;
      }
      for (int64_t idx = first; idx < first + span; ++idx) {
        CellLog &l = b.log[static_cast<size_t>(idx)];
        // Overwriting what another thread read in this barrier interval is a race now,
        // whenever the copy lands.
        if (reads_unordered(l, lane, &b, idx) && should_report("race", call.range)) {
          Where w = where_at(b, lane, idx, call.range);
          w.origin = l.read_site;
          // In a cluster the readers may be the destination block's, which
          // only an mbarrier or cluster_sync() orders before this copy.
          const bool other_block = l.reader_block != block_of(lane);
          Violation &viol =
              report("race", "read-write", w,
                     "data race on " + b.name + ": async copy into it while " +
                         (other_block ? thread_text_in(l.reader_block, l.reader) +
                                            " (another block of the cluster) reads it, with no "
                                            "cluster_sync() or mbarrier ordering the read first"
                                      : std::string("other threads read it in the same barrier "
                                                    "interval (no syncthreads() between)")));
          if (!viol.related.empty()) {
            viol.related.back().message = "read here";
            viol.data["origin"]["note"] = "read here";
          }
          if (l.reader != lane)
            viol.data["other_thread"] = thread_json_in(l.reader_block, l.reader);
        }
        if (l.wgmma_readers > 0 && should_report("race", call.range)) {
          Where w = where_at(b, lane, idx, call.range);
          w.origin = l.wgmma_site;
          report("race", l.store_reader ? "tma-store-source" : "wgmma-operand", w,
                 "data race on " + b.name +
                     ": async copy into it while an asynchronous read of it (a wgmma or a "
                     "tma_store) is in flight (not yet retired by wgmma_wait_group or "
                     "tma_store_wait)");
        }
        l.pending_lane = static_cast<int32_t>(lane);
        l.pending_site = site;
        Tag landing = t;
        landing.origin = trace_ ? trace_node(TraceAction::AsyncCopy, site, d.buffer, idx, lane, t,
                                             t.origin, site)
                                : site;
        const int64_t bits = span == 1 ? value : cell_bits(value, idx - first, b.cell_bytes);
        open_group_[static_cast<size_t>(lane)].push_back(
            PendingWrite{d.buffer, idx, landing, bits, site});
      }
    }
  }
}

} // namespace argus::check::detail
