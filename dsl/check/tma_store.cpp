// TMA stores (sm90): nvvm.tma_store(dst, src) and nvvm.tma_store_wait(n).
//
// The TMA engine reads the shared tile src through the async proxy and writes
// the global box dst. The interpreter performs the store when it is issued,
// as the issuing thread's: src's elements are read (a write of them by
// another thread not ordered before is a race, one through the generic proxy
// with no fence_proxy_async by its writer after it is E0902 `proxy-fence`),
// dst's elements are written (store contract, races, coverage), and elements
// of the box past the tensor's rows or columns are not written, as the
// hardware clips them. src stays read until the thread's tma_store_wait
// leaves at most n of its stores in flight: a write of it before then is
// E0902 `tma-store-source`. (The global writes become visible to other
// threads at the latest when the kernel ends; the interpreter makes them
// visible at once, which orders nothing it should not: reading them in the
// same kernel needs a barrier, which the race check asks for.)
#include "machine.h"

namespace argus::check::detail {

using ast::Expr;

void Machine::tma_store(const Expr &call, const Mask &m) {
  if (call.arg_count() < 2)
    return;
  const Value dst = eval(call.arg(0), m);
  const Value src = eval(call.arg(1), m);
  if (dst.kind != ValueKind::View || src.kind != ValueKind::View) {
    not_interpreted(call.range, "the checker has no view (one for every thread) for an operand "
                                "of this tma_store");
    return;
  }
  const View &d = *dst.view, &sv = *src.view;
  const int32_t site = site_of(call.range);
  current_site_ = site;
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || d.is_bad(static_cast<size_t>(lane)) ||
        sv.is_bad(static_cast<size_t>(lane)))
      continue;
    if (auto why = tma_layout_error(sv, d, lane, /*store=*/true)) {
      if (should_report("operand-layout", call.range)) {
        Where w;
        w.lane = lane;
        w.range = call.range;
        report("operand-layout", "tma", w, "tma_store " + *why);
      }
      return; // the store is not modelled: what it writes is unknown
    }
  }
  // The box on the tensor seen as rows of its last extent, within one page
  // of its second-last extent (the map of three or more dimensions is 3-D).
  const Buffer &db = buffers_[static_cast<size_t>(d.buffer)];
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < db.shape.size(); ++k)
    rows *= db.shape[k];
  const int64_t cols = db.shape.back(), box_rows = d.shape[0], box_cols = d.shape[1];
  const int64_t page_rows = db.shape[db.shape.size() - 2];
  const int64_t eb = dtype_bytes(d.dtype);
  View flat = d; // the whole tensor as one row-major list of elements
  flat.shape = {rows * cols};
  flat.strides = {1};
  flat.offset = {0};
  flat.uniform_offset = true;
  flat.bad.clear();
  flat.coords.clear();
  flat.tile.clear();
  Buffer &sb = buffers_[static_cast<size_t>(sv.buffer)];
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || d.is_bad(static_cast<size_t>(lane)) ||
        sv.is_bad(static_cast<size_t>(lane)))
      continue;
    const int64_t first = d.off(static_cast<size_t>(lane)) / eb;
    const int64_t row0 = first / cols, col0 = first % cols;
    std::vector<std::pair<int, int64_t>> reading;
    for (int64_t e = 0; e < box_rows * box_cols; ++e) {
      Tag t;
      int64_t value = 0, cell_index = -1;
      if (!read_element(sv, lane, e, call.range, t, value, &cell_index))
        continue;
      if (cell_index >= 0) {
        async_proxy_read(sb, lane, cell_index, call.range, "tma_store", site, /*store=*/true);
        reading.emplace_back(sv.buffer, cell_index);
      }
      const int64_t row = row0 + e / box_cols, col = col0 + e % box_cols;
      if (row < rows && col < cols && row / page_rows == row0 / page_rows)
        write_element(flat, lane, row * cols + col, call.range, &t, value);
    }
    tma_stores_[static_cast<size_t>(lane)].push_back(std::move(reading));
  }
}

void Machine::tma_store_wait(const Expr &call, const Mask &m) {
  const Expr *n_arg = call.arg_count() ? &call.arg(0) : nullptr;
  const auto n = n_arg ? sema_.constant_of(*n_arg) : std::nullopt;
  if (!n) {
    not_interpreted(call.range, "tma_store_wait needs a constant count");
    return;
  }
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)])
      continue;
    auto &stores = tma_stores_[static_cast<size_t>(lane)];
    while (static_cast<int64_t>(stores.size()) > *n) {
      for (const auto &[buffer, index] : stores.front()) {
        CellLog &log = buffers_[static_cast<size_t>(buffer)].log[static_cast<size_t>(index)];
        if (log.wgmma_readers > 0)
          log.wgmma_readers -= 1;
      }
      stores.pop_front();
    }
  }
}

} // namespace argus::check::detail
