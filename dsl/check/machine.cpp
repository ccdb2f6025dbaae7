// The machine's state and its memory: cells, the write log, and the
// race / uninitialized / async-before-wait checks every access goes through.
#include "machine.h"
#include "summary.h"

#include <algorithm>

namespace argus::check::detail {

bool Tag::empty() const {
  return std::all_of(field.begin(), field.end(), [](int64_t v) { return v == kAbsent; });
}

std::string field_text(int64_t v) {
  if (v == kAbsent)
    return "absent";
  if (v == kTop)
    return "mixed";
  return std::to_string(v);
}

int64_t dtype_bytes(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I8:
  case ScalarKind::U8:
  case ScalarKind::FP8E4M3:
  case ScalarKind::FP8E5M2:
  case ScalarKind::FP8E4M3FNUZ:
  case ScalarKind::FP8E5M2FNUZ:
  case ScalarKind::Bool:
    return 1;
  case ScalarKind::I16:
  case ScalarKind::U16:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return 2;
  case ScalarKind::I32:
  case ScalarKind::U32:
  case ScalarKind::F32:
    return 4;
  case ScalarKind::I64:
  case ScalarKind::U64:
  case ScalarKind::F64:
    return 8;
  }
  return 4;
}

int64_t View::elements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

// An `if` that waits on an mbarrier, at any depth of `body`.
bool waits_under_if(const sema::SemaResult &sema, const std::vector<ast::StmtPtr> &body) {
  for (const auto &s : body) {
    if (s->kind == ast::StmtKind::If && calls_in(sema, *s).has(BuiltinId::NvvmMbarrierWait))
      return true;
    if (waits_under_if(sema, s->body) || waits_under_if(sema, s->orelse))
      return true;
  }
  return false;
}

} // namespace

bool Machine::has_roles(const ast::Function &f) const { return waits_under_if(sema_, f.body); }

Machine::Machine(const CheckedFile &file, const sema::FunctionInfo &kernel,
                 const CheckerOptions &options)
    : file_(file), sema_(*file.sema), kernel_(kernel), options_(options) {
  warp_size_ = kernel.target == sema::Target::Gfx942 ? 64 : 32;
  warp_shift_ = kernel.target == sema::Target::Gfx942 ? 6 : 5;
  const auto calls = calls_in(sema_, *kernel.function);
  // With roles (an if that waits on an mbarrier: agents.h) mbarrier arrivals
  // order warps as named barriers do, and a stage read by several consumer
  // warps is released to the producer warp by warp: keep per-warp reads.
  uses_named_barriers_ = calls.has(BuiltinId::Barrier) || calls.has(BuiltinId::BarrierArrive) ||
                         has_roles(*kernel.function);
  uses_warp_clocks_ = uses_named_barriers_ || calls.has(BuiltinId::Syncwarp) ||
                      calls.has(BuiltinId::NvvmMbarrierArrive) ||
                      calls.has(BuiltinId::NvvmMbarrierExpectTx);
  // Readers through the async proxy: the proxy-fence rule stamps shared writes.
  uses_wgmma_ = calls.any(is_wgmma) || calls.has(BuiltinId::NvvmTmaStore);
  // The blocks of a cluster run together (run.cpp): syncthreads() is then a
  // rendezvous of one block's warps in the warp clocks, and cluster_sync()
  // the barrier interval of them all.
  cluster_size_ = kernel.cluster_size();
  uses_warpgroups_ = uses_wgmma_ || calls.has(BuiltinId::WarpgroupId) ||
                     calls.has(BuiltinId::NvvmSetmaxnregInc) ||
                     calls.has(BuiltinId::NvvmSetmaxnregDec);
  if (cluster_size_ > 1)
    uses_named_barriers_ = uses_warp_clocks_ = true;
}

int Machine::field_id(const std::string &name) {
  if (auto it = field_ids_.find(name); it != field_ids_.end())
    return it->second;
  if (field_names_.size() >= static_cast<size_t>(kMaxFields))
    return -1;
  const int id = static_cast<int>(field_names_.size());
  field_ids_[name] = id;
  field_names_.push_back(name);
  return id;
}

int32_t Machine::site_of(const Range &range) {
  const auto key = std::make_pair(range.begin.line, range.begin.column);
  if (auto it = site_ids_.find(key); it != site_ids_.end())
    return it->second;
  const auto id = static_cast<int32_t>(sites_.size());
  sites_.push_back(Site{range, current_stmt_});
  site_ids_[key] = id;
  return id;
}

const Symbol *Machine::symbol_of(const ast::Expr &name) const {
  auto it = sema_.references.find(&name);
  return it == sema_.references.end() ? nullptr : it->second;
}

Value Machine::make_data(ScalarKind dtype, int elems, bool is_float) const {
  Value v;
  v.kind = ValueKind::Data;
  v.dtype = dtype;
  v.is_float = is_float;
  v.elems = elems;
  v.ints.assign(static_cast<size_t>(lanes_ * elems), 0);
  return v;
}

Value Machine::uniform_int(int64_t x, ScalarKind dtype) const {
  Value v;
  v.kind = ValueKind::Data;
  v.dtype = dtype;
  v.uniform = true;
  v.ints.assign(1, x);
  return v;
}

void Value::expand(int64_t lanes) {
  if (!uniform || kind != ValueKind::Data)
    return;
  std::vector<int64_t> wide(static_cast<size_t>(lanes * elems));
  for (int64_t l = 0; l < lanes; ++l)
    std::copy(ints.begin(), ints.end(), wide.begin() + l * elems);
  ints = std::move(wide);
  if (!tags.empty()) {
    std::vector<Tag> wide_tags(static_cast<size_t>(lanes * elems));
    for (int64_t l = 0; l < lanes; ++l)
      std::copy(tags.begin(), tags.end(), wide_tags.begin() + l * elems);
    tags = std::move(wide_tags);
  }
  uniform = false;
}

bool Machine::any(const Mask &m) const {
  return std::any_of(m.begin(), m.end(), [](uint8_t b) { return b != 0; });
}

std::array<int64_t, 3> Machine::thread_coord(int64_t lane) const {
  lane %= block_threads_; // a cluster's lanes are its blocks' threads, block after block
  return {lane % block_dim_[0], (lane / block_dim_[0]) % block_dim_[1],
          lane / (block_dim_[0] * block_dim_[1])};
}

void Machine::stop(const std::string &why, const Range &at) {
  if (stopped_)
    return;
  stopped_ = true;
  Where w;
  w.range = at;
  Violation &v = report("unproven", "budget", w, why, true);
  v.data["thread"] = nullptr;
}

int Machine::new_buffer(Buffer b) {
  b.cell_bytes = dtype_bytes(b.dtype);
  const int64_t copies = b.space == MemorySpace::Local ? lanes_ : 1;
  if (b.space != MemorySpace::Global) {
    block_cells_ += b.cells * copies;
    if (b.cells < 0 || block_cells_ > options_.max_block_cells) {
      stop("the checker stopped: the shared and local tensors of one block hold more than " +
               std::to_string(options_.max_block_cells) + " elements",
           current_stmt_ ? current_stmt_->range : kernel_.function->name_range);
      b.cells = 0;
    }
  }
  b.data.assign(static_cast<size_t>(b.cells * copies), Cell{});
  if (b.space != MemorySpace::Local)
    b.log.assign(static_cast<size_t>(b.cells), CellLog{});
  if (b.space == MemorySpace::Global)
    b.grid_reads.assign(static_cast<size_t>(b.cells), GridReads{});
  buffers_.push_back(std::move(b));
  return static_cast<int>(buffers_.size() - 1);
}

// Local arrays are stored cell-major ([cell][thread]): a statement reads the
// same cell in every thread, so the threads' copies are contiguous.
Cell &Machine::cell(Buffer &b, int64_t lane, int64_t index) {
  if (b.space == MemorySpace::Local)
    return b.data[static_cast<size_t>(index * lanes_ + lane)];
  return b.data[static_cast<size_t>(index)];
}

int64_t Machine::cell_index(const Buffer &b, int64_t byte_offset) const {
  int64_t physical = byte_offset;
  if (b.swizzle && byte_offset >= 0)
    physical = (*b.swizzle)(byte_offset);
  // Cell sizes are powers of two: an arithmetic shift is floor division.
  const int shift = b.cell_bytes == 1 ? 0 : b.cell_bytes == 2 ? 1 : b.cell_bytes == 4 ? 2 : 3;
  return physical >> shift;
}

std::vector<int64_t> Machine::cell_coords(const Buffer &b, int64_t cell) const {
  cell /= b.split; // a byte of a refined buffer names its element
  // Invert the declaration's layout: take dimensions by decreasing stride.
  std::vector<size_t> order(b.shape.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return b.strides[x] > b.strides[y]; });
  std::vector<int64_t> coord(b.shape.size(), 0);
  int64_t rest = cell;
  for (size_t i : order) {
    if (b.strides[i] <= 0)
      continue;
    coord[i] = std::min(rest / b.strides[i], b.shape[i] - 1);
    rest -= coord[i] * b.strides[i];
  }
  return coord;
}

int64_t Machine::element_byte_offset(const View &v, int64_t lane, int64_t element) const {
  int64_t offset = v.off(static_cast<size_t>(lane));
  const int64_t eb = dtype_bytes(v.dtype);
  int64_t rest = element;
  for (size_t i = v.shape.size(); i-- > 0;) {
    const int64_t c = v.shape[i] > 0 ? rest % v.shape[i] : 0;
    rest = v.shape[i] > 0 ? rest / v.shape[i] : 0;
    offset += c * v.strides[i] * eb;
  }
  return offset;
}

// A race with the last writer of a cell: another thread of this block in
// this barrier interval, or another block (blocks of one launch are unordered).
void Machine::report_writer_race(const char *check, Where where, const Buffer &b,
                                 const CellLog &log, int32_t write_site, const std::string &what) {
  where.origin = write_site;
  const bool other_block = log.writer_block != block_of(where.lane);
  Violation &viol =
      report("race", check, where,
             "data race on " + b.name + ": " + what + thread_text_in(log.writer_block, log.writer) +
                 (!other_block ? " with no syncthreads() between"
                  : in_cluster(log.writer_block)
                      ? " (another block of the cluster: only cluster_sync() or an mbarrier "
                        "orders them)"
                      : " (another block: blocks of one launch run in no fixed order)"));
  viol.data["other_thread"] = thread_json_in(log.writer_block, log.writer);
  if (other_block)
    viol.data["other_block"] = viol.data["other_thread"]["block"];
}

// A write to a global cell another block read: a race in whichever order
// the blocks run.
void Machine::report_grid_read_race(Where where, const Buffer &b, const GridReads &reads) {
  const bool first = reads.block != block_of(where.lane);
  const int32_t block = first ? reads.block : reads.other_block;
  const int32_t lane = first ? reads.lane : reads.other_lane;
  where.origin = first ? reads.site : reads.other_site;
  Violation &viol =
      report("race", "read-write", where,
             "data race on " + b.name + ": written here while " + thread_text_in(block, lane) +
                 " reads it (another block: blocks of one launch run in no fixed "
                 "order)");
  viol.data["other_thread"] = thread_json_in(block, lane);
  viol.data["other_block"] = viol.data["other_thread"]["block"];
  if (!viol.related.empty()) {
    viol.related.back().message = "read here";
    viol.data["origin"]["note"] = "read here";
  }
}

void Machine::report_uninitialized(const Buffer &b, int64_t lane, int64_t cell, const Range &at,
                                   int64_t part) {
  if (!should_report("uninitialized-read", at))
    return;
  Where w = where_at(b, lane, cell, at);
  // A read wider than the cells names the part that was never written.
  const int64_t from = part * b.cell_bytes, to = from + b.cell_bytes - 1;
  const std::string bytes =
      part < 0 ? std::string()
               : (from == to ? " (byte " + std::to_string(from)
                             : " (bytes " + std::to_string(from) + ".." + std::to_string(to)) +
                     " of the value read)";
  Violation &viol =
      report("uninitialized-read", "initialized", w,
             "read of " + b.name + " element never written " +
                 (b.space == MemorySpace::Local ? "by this thread" : "in this block") + bytes);
  if (part >= 0)
    viol.data["unwritten_bytes"] = {from, to};
}

void Machine::report_outside_buffer(const Buffer &b, int64_t lane, const Range &at, int64_t byte,
                                    const std::string &what) {
  if (!should_report("out-of-bounds", at))
    return;
  Where w;
  w.lane = lane;
  w.range = at;
  w.tensor = b.name;
  Violation &viol =
      report("out-of-bounds", "bounds", w,
             what + b.name + " at byte offset " + std::to_string(byte) + " is outside its " +
                 (b.copy_bytes > 0 ? std::to_string(b.copy_bytes) + " bytes in the block"
                                   : std::to_string(b.cells * b.cell_bytes) + " bytes"));
  viol.data["byte_offset"] = byte;
}

bool Machine::read_element(const View &v, int64_t lane, int64_t element, const Range &at, Tag &tag,
                           int64_t &value, int64_t *cell_out) {
  if (!v.bad.empty() && v.bad[static_cast<size_t>(lane)])
    return false;
  const int64_t element_bytes = dtype_bytes(v.dtype);
  if (element_bytes < buffers_[static_cast<size_t>(v.buffer)].cell_bytes) [[unlikely]]
    if (!refine(v.buffer, element_bytes))
      return false;
  Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  const int64_t byte = element_byte_offset(v, lane, element);
  const int64_t first = cell_index(b, byte);
  const int64_t count = std::max<int64_t>(1, element_bytes / b.cell_bytes);
  if (outside_buffer(b, v, lane, byte, first, count)) [[unlikely]] {
    report_outside_buffer(b, lane, at, byte, "read of ");
    return false;
  }
  if (!b.wgmma_inflight.empty()) [[unlikely]]
    wgmma_local_access(b, lane, at, false);
  tag = Tag{};
  bool first_cell = true;
  bool poison = false;
  bool first_read = false, other_reader = false; // of the interval (traced replays)
  for (int64_t k = 0; k < count; ++k) {
    Cell &c = cell(b, lane, first + k);
    CellLog *log = b.space == MemorySpace::Local ? nullptr : &b.log[static_cast<size_t>(first + k)];
    if (cell_out && k == 0)
      *cell_out = first + k;
    if (log) {
      CellLog &l = *log;
      auto where = [&] {
        Where w = where_at(b, lane, first + k, at);
        w.from = trace_ ? c.tag.origin : -1;
        return w;
      };
      if (l.pending_lane >= 0) {
        poison = true;
        if (should_report("async-read-before-wait", at)) {
          Where w = where();
          w.origin = l.pending_site;
          Violation &viol = report("async-read-before-wait", "async", w,
                                   "read of " + b.name + " before the async copy to it (by " +
                                       thread_text(l.pending_lane) + ") was waited for");
          viol.data["writer"] = thread_json(l.pending_lane);
        }
      } else if (b.space == MemorySpace::Shared && !c.initialized) {
        poison = true;
        report_uninitialized(b, lane, first + k, at, count > 1 ? k : -1);
      } else if (l.writer >= 0 && unordered_with(l.writer_block, l.write_epoch, l.write_warp_epoch,
                                                 l.writer, lane)) {
        if (should_report("race", at))
          report_writer_race("read-write", where(), b, l, c.write_site, "read here, written by ");
      } else if (const AtomicLog *a = atomic_log(b, first + k); a) [[unlikely]] {
        if (int32_t block = -1, thread = -1; atomic_conflict(*a, lane, block, thread))
          report_atomic_race("read-atomic", lane, at, b, first + k, block, thread, a->site,
                             "read plainly here and updated atomically by ",
                             "updated atomically here");
      }
      if (!b.grid_reads.empty()) {
        GridReads &g = b.grid_reads[static_cast<size_t>(first + k)];
        const int32_t blk = block_of(lane);
        if (g.block < 0) {
          g.block = blk;
          g.lane = static_cast<int32_t>(lane);
          g.site = current_site_;
        } else if (g.block != blk && g.other_block < 0) {
          g.other_block = blk;
          g.other_lane = static_cast<int32_t>(lane);
          g.other_site = current_site_;
        }
      }
      // The blocks of a cluster share one reader log: their reads are
      // ordered by the same warp clocks (Machine::unordered_with).
      if (l.read_epoch == epoch_ && same_block_or_cluster(l.reader_block, lane)) {
        if (l.reader != lane) {
          other_reader = k == 0 && !l.many_readers;
          l.many_readers = true;
          if (warp_of(l.reader) != warp_of(lane))
            l.many_reader_warps = true;
        }
      } else {
        first_read = k == 0;
        l.read_epoch = epoch_;
        l.reader_block = block_of(lane);
        l.reader = static_cast<int32_t>(lane);
        l.many_readers = false;
        l.many_reader_warps = false;
        l.read_site = current_site_;
      }
      if (uses_warp_clocks_) [[unlikely]]
        l.read_warp_epoch = warp_epoch(lane);
      if (uses_named_barriers_ && b.space == MemorySpace::Shared) [[unlikely]] {
        if (b.warp_reads.empty())
          b.warp_reads.assign(b.log.size() * static_cast<size_t>(warps_), {});
        Buffer::WarpRead &r =
            b.warp_reads[static_cast<size_t>((first + k) * warps_ + warp_of(lane))];
        const bool same_interval = r.epoch == static_cast<int32_t>(epoch_);
        r.reader = !same_interval || r.reader == static_cast<int32_t>(lane)
                       ? static_cast<int32_t>(lane)
                       : -1;
        r.epoch = static_cast<int32_t>(epoch_);
        r.stamp = warp_epoch(lane);
      }
    } else if (!c.initialized) {
      poison = true;
      report_uninitialized(b, lane, first + k, at, count > 1 ? k : -1);
    }
    tag = first_cell ? c.tag : join(tag, c.tag);
    if (count == 1)
      value = c.value;
    else // little-endian: the cells' bits side by side
      value = static_cast<int64_t>((k == 0 ? 0 : static_cast<uint64_t>(value)) |
                                   static_cast<uint64_t>(cell_bits(c.value, 0, b.cell_bytes))
                                       << (8 * b.cell_bytes * k));
    first_cell = false;
  }
  // Through a view of another width the bits read are the value's.
  if (count > 1 || b.split > 1) [[unlikely]]
    value = wrap_to(value, v.dtype);
  tag.poison = tag.poison || poison;
  if (trace_) [[unlikely]]
    trace_read(v.buffer, lane, first, at, tag, first_read, other_reader);
  return true;
}

bool Machine::reads_unordered(const CellLog &l, int64_t lane, const Buffer *b,
                              int64_t index) const {
  if (l.read_epoch != epoch_ || !same_block_or_cluster(l.reader_block, lane))
    return false;
  if (!l.many_readers)
    return unordered(l.read_epoch, l.read_warp_epoch, l.reader, lane);
  if (!uses_warp_clocks_)
    return true;
  const int64_t w = warp_of(lane);
  // Readers of one warp: its latest read has the largest stamp. (Within the
  // warp, a read by `lane` itself counts too: one reader is not kept per lane.)
  if (!l.many_reader_warps)
    return warp_clock(w, warp_of(l.reader)) <= l.read_warp_epoch;
  // Readers of several warps: each warp's last read where kept (shared
  // memory of a kernel with named barriers), else unordered.
  if (!b || b->warp_reads.empty() || index < 0)
    return true;
  for (int64_t v = 0; v < warps_; ++v) {
    const Buffer::WarpRead &r = b->warp_reads[static_cast<size_t>(index * warps_ + v)];
    if (r.epoch == static_cast<int32_t>(epoch_) && r.reader != lane && warp_clock(w, v) <= r.stamp)
      return true;
  }
  return false;
}

void Machine::write_cell(int buffer, int64_t lane, int64_t index, const Range &at, const Tag *tag,
                         int64_t value, bool async_landing) {
  Buffer &b = buffers_[static_cast<size_t>(buffer)];
  Cell &c = cell(b, lane, index);
  CellLog *log = b.space == MemorySpace::Local ? nullptr : &b.log[static_cast<size_t>(index)];
  if (log) {
    CellLog &l = *log;
    auto where = [&] {
      Where w = where_at(b, lane, index, at);
      w.from = trace_ ? c.tag.origin : -1; // the cell's history so far
      return w;
    };
    // Double writes of a covered tensor are E0908 when coverage is checked
    // (every block runs); otherwise they are races like any other.
    const bool coverage_reports =
        sampled_blocks_.empty() && b.covered && b.space == MemorySpace::Global;
    if (l.wgmma_readers > 0) {
      if (should_report("race", at)) {
        Where w = where();
        w.origin = l.wgmma_site;
        report("race", l.store_reader ? "tma-store-source" : "wgmma-operand", w,
               "data race on " + b.name +
                   ": written while an asynchronous read of it (a wgmma or a tma_store) is in "
                   "flight (not yet retired by wgmma_wait_group or tma_store_wait)");
      }
    } else if (!async_landing && l.pending_lane >= 0 && l.pending_lane != lane) {
      if (should_report("race", at)) {
        Where w = where();
        w.origin = l.pending_site;
        Violation &viol =
            report("race", "write-async", w,
                   "data race on " + b.name + ": written here while an async copy by " +
                       thread_text(l.pending_lane) + " to it is in flight");
        viol.data["other_thread"] = thread_json(l.pending_lane);
      }
    } else if (l.writer >= 0 && !coverage_reports &&
               unordered_with(l.writer_block, l.write_epoch, l.write_warp_epoch, l.writer, lane)) {
      if (should_report("race", at))
        report_writer_race("write-write", where(), b, l, c.write_site, "written here and by ");
    } else if (reads_unordered(l, lane, &b, index)) {
      if (should_report("race", at)) {
        Where w = where();
        w.origin = l.read_site;
        if (trace_) [[unlikely]]
          w.from = trace_reader(buffer, index, lane);
        const int32_t other = l.reader != lane ? l.reader : -1;
        Violation &viol =
            report("race", "read-write", w,
                   "data race on " + b.name + ": written here while " +
                       (other >= 0 ? thread_text(other) : std::string("other threads")) +
                       (other >= 0 && block_of(other) != block_of(lane)
                            ? " (another block of the cluster) read it, with no cluster_sync() "
                              "or mbarrier between"
                            : " read it in the same barrier interval (no syncthreads() "
                              "between)"));
        if (other >= 0)
          viol.data["other_thread"] = thread_json(other);
        if (!viol.related.empty()) {
          viol.related.back().message = "read here";
          viol.data["origin"]["note"] = "read here";
        }
      }
    } else if (!b.grid_reads.empty() &&
               ((b.grid_reads[static_cast<size_t>(index)].block >= 0 &&
                 b.grid_reads[static_cast<size_t>(index)].block != block_of(lane)) ||
                b.grid_reads[static_cast<size_t>(index)].other_block >= 0)) {
      if (should_report("race", at))
        report_grid_read_race(where(), b, b.grid_reads[static_cast<size_t>(index)]);
    } else if (const AtomicLog *a = atomic_log(b, index); a) [[unlikely]] {
      if (int32_t block = -1, thread = -1; atomic_conflict(*a, lane, block, thread))
        report_atomic_race("write-atomic", lane, at, b, index, block, thread, a->site,
                           "written plainly here and updated atomically by ",
                           "updated atomically here");
    }
  }
  if (!log && !b.wgmma_write_clock.empty()) [[unlikely]]
    wgmma_local_access(b, lane, at, true);
  if (!b.declared.empty() && tag)
    check_store_contract(b, index, *tag, lane, at);
  const int32_t site = site_of(at);
  c.tag = tag ? *tag : Tag{};
  c.tag.origin = site;
  if (trace_) [[unlikely]]
    c.tag.origin = trace_node(async_landing ? TraceAction::AsyncLand : TraceAction::Write, site,
                              buffer, index, lane, c.tag, tag ? tag->origin : -1, site);
  c.value = value;
  c.initialized = true;
  c.write_site = site;
  c.version += 1;
  if (log) {
    if (async_landing)
      log->pending_lane = -1;
    if (uses_wgmma_ && b.space == MemorySpace::Shared) [[unlikely]]
      log->write_clock = ++proxy_clock_;
    log->writer = static_cast<int32_t>(lane);
    log->writer_block = block_of(lane);
    log->write_epoch = epoch_;
    if (uses_warp_clocks_) [[unlikely]]
      log->write_warp_epoch = warp_epoch(lane);
    log->writes += 1;
  }
}

void Machine::write_element(const View &v, int64_t lane, int64_t element, const Range &at,
                            const Tag *tag, int64_t value) {
  if (!v.bad.empty() && v.bad[static_cast<size_t>(lane)])
    return;
  const int64_t element_bytes = dtype_bytes(v.dtype);
  if (element_bytes < buffers_[static_cast<size_t>(v.buffer)].cell_bytes) [[unlikely]]
    if (!refine(v.buffer, element_bytes))
      return;
  Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  const int64_t byte = element_byte_offset(v, lane, element);
  const int64_t first = cell_index(b, byte);
  const int64_t count = std::max<int64_t>(1, element_bytes / b.cell_bytes);
  if (outside_buffer(b, v, lane, byte, first, count)) [[unlikely]] {
    report_outside_buffer(b, lane, at, byte, "write of ");
    return;
  }
  if (count == 1) {
    write_cell(v.buffer, lane, first, at, tag, value, false);
    return;
  }
  for (int64_t k = 0; k < count; ++k) // each cell gets its own bits
    write_cell(v.buffer, lane, first + k, at, tag, cell_bits(value, k, b.cell_bytes), false);
}

Value Machine::read_view(const View &v, const Mask &m, const Range &at) {
  const int64_t n = v.elements();
  const bool is_float = sema::is_float(v.dtype);
  Value out = make_data(v.dtype, static_cast<int>(n), is_float);
  out.tags.assign(out.ints.size(), Tag{});
  current_site_ = site_of(at);
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  if (b.space == MemorySpace::Shared)
    lint_shared_access(v, m, at, n * dtype_bytes(v.dtype));
  else if (b.space == MemorySpace::Global)
    lint_global_access(v, m, at, false);
  if (local_fast_path(v))
    return read_local(v, m, at, std::move(out)); // every read lane overwrites its tags
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)])
      continue;
    for (int64_t e = 0; e < n; ++e) {
      Tag t;
      int64_t value = 0;
      if (read_element(v, lane, e, at, t, value)) {
        out.tags[static_cast<size_t>(lane * n + e)] = t;
        out.ints[static_cast<size_t>(lane * n + e)] = value;
      }
    }
  }
  return out;
}

// Local (register) arrays of the view's own dtype, unswizzled: each thread
// has its own cells and no races, so accesses skip the general path.
bool Machine::local_fast_path(const View &v) const {
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  return b.space == MemorySpace::Local && !b.swizzle && dtype_bytes(v.dtype) == b.cell_bytes;
}

std::vector<int64_t> Machine::element_cells(const View &v) const {
  const int64_t n = v.elements();
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e, off = 0;
    for (size_t i = v.shape.size(); i-- > 0;) {
      off += (rest % v.shape[i]) * v.strides[i];
      rest /= v.shape[i];
    }
    out[static_cast<size_t>(e)] = off;
  }
  return out;
}

Value Machine::read_local(const View &v, const Mask &m, const Range &at, Value out) {
  Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  const auto cells = element_cells(v);
  const int64_t n = static_cast<int64_t>(cells.size());
  const int64_t eb = b.cell_bytes;
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || (!v.bad.empty() && v.bad[static_cast<size_t>(lane)]))
      continue;
    const int64_t base = v.off(static_cast<size_t>(lane)) / eb;
    Cell *column = b.data.data() + lane;
    if (!b.wgmma_inflight.empty()) [[unlikely]]
      wgmma_local_access(b, lane, at, false);
    for (int64_t e = 0; e < n; ++e) {
      const int64_t idx = base + cells[static_cast<size_t>(e)];
      if (idx < 0 || idx >= b.cells) {
        Tag t;
        int64_t value = 0;
        read_element(v, lane, e, at, t, value); // reports the bounds violation
        continue;
      }
      const Cell &c = column[idx * lanes_];
      Tag &t = out.tags[static_cast<size_t>(lane * n + e)];
      t = c.tag;
      out.ints[static_cast<size_t>(lane * n + e)] = c.value;
      if (!c.initialized) {
        t.poison = true;
        report_uninitialized(b, lane, idx, at);
      }
    }
  }
  if (trace_) [[unlikely]] // a second pass keeps the loop above as it is untraced
    trace_local(v, m, at, &out, nullptr);
  return out;
}

void Machine::write_view(const View &v, const Value &data, const Mask &m, const Range &at) {
  const int64_t n = v.elements();
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  if (local_fast_path(v) && b.declared.empty() && data.elems >= 1) {
    Buffer &lb = buffers_[static_cast<size_t>(v.buffer)];
    const auto cells = element_cells(v);
    const int32_t site = site_of(at);
    for (int64_t lane = 0; lane < lanes_; ++lane) {
      if (!m[static_cast<size_t>(lane)] || (!v.bad.empty() && v.bad[static_cast<size_t>(lane)]))
        continue;
      const int64_t base = v.off(static_cast<size_t>(lane)) / lb.cell_bytes;
      Cell *column = lb.data.data() + lane;
      if (!lb.wgmma_write_clock.empty()) [[unlikely]]
        wgmma_local_access(lb, lane, at, true);
      for (int64_t e = 0; e < n; ++e) {
        const int64_t idx = base + cells[static_cast<size_t>(e)];
        const int src = data.elems == n ? static_cast<int>(e) : 0;
        if (idx < 0 || idx >= lb.cells) {
          write_element(v, lane, e, at, data.tag_at(static_cast<size_t>(lane), src),
                        data.at(static_cast<size_t>(lane), src)); // reports it
          continue;
        }
        Cell &c = column[idx * lanes_];
        const Tag *t = data.tag_at(static_cast<size_t>(lane), src);
        c.tag = t ? *t : Tag{};
        c.tag.origin = site;
        c.value = data.at(static_cast<size_t>(lane), src);
        c.initialized = true;
        c.write_site = site;
        c.version += 1;
      }
    }
    if (trace_) [[unlikely]]
      trace_local(v, m, at, nullptr, &data);
    return;
  }
  if (b.space == MemorySpace::Shared)
    lint_shared_access(v, m, at, n * dtype_bytes(v.dtype));
  else if (b.space == MemorySpace::Global)
    lint_global_access(v, m, at, true);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)])
      continue;
    for (int64_t e = 0; e < n; ++e) {
      // A scalar stored into a vector place fills it (full-style broadcast).
      const int src = data.elems == n ? static_cast<int>(e) : 0;
      const Tag *t = data.tag_at(static_cast<size_t>(lane), src);
      write_element(v, lane, e, at, t, data.at(static_cast<size_t>(lane), src));
    }
  }
}

void Machine::start_block() {
  // Shared and local memory start empty in every block; global memory persists.
  for (Buffer &b : buffers_) {
    if (b.space == MemorySpace::Global)
      continue;
    std::fill(b.data.begin(), b.data.end(), Cell{});
    std::fill(b.log.begin(), b.log.end(), CellLog{});
    b.atomics.clear();
    b.wgmma_inflight.clear();
    b.wgmma_operand_inflight.clear();
    b.wgmma_write_clock.clear();
  }
  block_cells_ = 0;
  open_group_.assign(static_cast<size_t>(lanes_), {});
  committed_.assign(static_cast<size_t>(lanes_), {});
  wgmma_open_.assign(static_cast<size_t>(lanes_ / 128 + 1), {});
  wgmma_committed_.assign(static_cast<size_t>(lanes_ / 128 + 1), {});
  wgmma_fence_clock_.clear();
  proxy_fence_clock_.clear();
  loads_.clear();
  mbarriers_.clear();
  rendezvous_.clear();
  remote_accesses_.clear();
  returned_.assign(static_cast<size_t>(lanes_), 0);
  tma_stores_.assign(static_cast<size_t>(lanes_), {});
  hung_ = false;
  agents_.reset();
  warps_ = (lanes_ + warp_size_ - 1) / warp_size_;
  warp_clock_.assign(static_cast<size_t>(warps_ * warps_), 0);
  ++epoch_;
}

} // namespace argus::check::detail
