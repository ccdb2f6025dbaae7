// Byte granularity for reinterpreting views: a buffer accessed through a
// view of a narrower dtype than its cells is refined, once, to cells of that
// width. Every cell then keeps its own write log, tag and value, so writes
// of disjoint bytes never race, coverage counts every byte, a wider read
// joins the tags of its bytes and sees the unwritten ones. Buffers only ever
// accessed through their own dtype are never refined (the common case pays
// one comparison per access).
#include "machine.h"

namespace argus::check::detail {

int64_t cell_bits(int64_t value, int64_t k, int64_t cell_bytes) {
  if (cell_bytes >= 8)
    return value;
  const int64_t bits = 8 * cell_bytes;
  return static_cast<int64_t>((static_cast<uint64_t>(value) >> (bits * k)) &
                              ((uint64_t{1} << bits) - 1));
}

int64_t wrap_to(int64_t value, ScalarKind dtype) {
  if (sema::is_float(dtype) || dtype == ScalarKind::Bool)
    return value;
  const int64_t bytes = dtype_bytes(dtype);
  if (bytes >= 8)
    return value;
  const int bits = static_cast<int>(8 * bytes);
  const uint64_t raw = static_cast<uint64_t>(value) & ((uint64_t{1} << bits) - 1);
  const bool is_signed = dtype == ScalarKind::I8 || dtype == ScalarKind::I16 ||
                         dtype == ScalarKind::I32 || dtype == ScalarKind::I64;
  if (is_signed && (raw >> (bits - 1)) != 0)
    return static_cast<int64_t>(raw | ~((uint64_t{1} << bits) - 1));
  return static_cast<int64_t>(raw);
}

bool Machine::refine(int index, int64_t bytes) {
  Buffer &b = buffers_[static_cast<size_t>(index)];
  if (bytes <= 0 || b.cell_bytes <= bytes)
    return true;
  const int64_t k = b.cell_bytes / bytes;
  const int64_t copies = b.space == MemorySpace::Local ? lanes_ : 1;
  const int64_t added = b.cells * (k - 1) * copies;
  int64_t global_cells = 0;
  for (const Buffer &other : buffers_)
    if (other.space == MemorySpace::Global)
      global_cells += other.cells;
  const bool over = b.space == MemorySpace::Global
                        ? global_cells + added > options_.max_global_cells
                        : block_cells_ + added > options_.max_block_cells;
  if (over) {
    stop("the checker stopped: tracking the bytes of " + b.name + " (accessed through a view of " +
             std::to_string(bytes) + "-byte elements) needs more than " +
             std::to_string(b.space == MemorySpace::Global ? options_.max_global_cells
                                                           : options_.max_block_cells) +
             " elements",
         current_stmt_ ? current_stmt_->range : kernel_.function->name_range);
    return false;
  }
  if (b.space != MemorySpace::Global)
    block_cells_ += added;

  std::vector<Cell> data(b.data.size() * static_cast<size_t>(k));
  for (int64_t i = 0; i < b.cells; ++i)
    for (int64_t j = 0; j < k; ++j)
      for (int64_t lane = 0; lane < copies; ++lane) {
        Cell c = b.data[static_cast<size_t>(i * copies + lane)];
        c.value = cell_bits(c.value, j, bytes);
        data[static_cast<size_t>((i * k + j) * copies + lane)] = c;
      }
  b.data = std::move(data);
  if (!b.log.empty()) {
    std::vector<CellLog> log(b.log.size() * static_cast<size_t>(k));
    for (size_t i = 0; i < log.size(); ++i)
      log[i] = b.log[i / static_cast<size_t>(k)];
    b.log = std::move(log);
  }
  if (!b.atomics.empty()) {
    std::vector<AtomicLog> atomics(b.atomics.size() * static_cast<size_t>(k));
    for (size_t i = 0; i < atomics.size(); ++i)
      atomics[i] = b.atomics[i / static_cast<size_t>(k)];
    b.atomics = std::move(atomics);
  }
  if (!b.grid_reads.empty()) {
    std::vector<GridReads> reads(b.grid_reads.size() * static_cast<size_t>(k));
    for (size_t i = 0; i < reads.size(); ++i)
      reads[i] = b.grid_reads[i / static_cast<size_t>(k)];
    b.grid_reads = std::move(reads);
  }
  if (!b.declared.empty()) {
    std::vector<Tag> declared(b.declared.size() * static_cast<size_t>(k));
    for (size_t i = 0; i < declared.size(); ++i)
      declared[i] = b.declared[i / static_cast<size_t>(k)];
    b.declared = std::move(declared);
  }
  b.cells *= k;
  b.cell_bytes = bytes;
  b.split *= k;

  // Async copies in flight into the buffer land in every byte they cover.
  auto split_pending = [&](std::vector<PendingWrite> &group) {
    std::vector<PendingWrite> out;
    out.reserve(group.size());
    for (const PendingWrite &w : group) {
      if (w.buffer != index) {
        out.push_back(w);
        continue;
      }
      for (int64_t j = 0; j < k; ++j) {
        PendingWrite part = w;
        part.cell = w.cell * k + j;
        part.value = cell_bits(w.value, j, bytes);
        out.push_back(part);
      }
    }
    group = std::move(out);
  };
  for (auto &group : open_group_)
    split_pending(group);
  for (auto &groups : committed_)
    for (auto &group : groups)
      split_pending(group);
  loads_.clear(); // the re-load lint's cell numbers changed
  if (trace_) [[unlikely]]
    trace_refine(index, k);
  return true;
}

} // namespace argus::check::detail
