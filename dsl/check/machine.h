// Internal: the concrete SIMT machine the checker executes kernels on.
//
// All threads of one block run in lockstep over the AST, each value holding
// one entry per thread ("lane" here means the thread's linear index in the
// block, not its lane in the warp). Control flow narrows an active mask.
// Memory is a write log per cell: who wrote it last, in which barrier epoch,
// from which program point, with which tag, and whether an async copy to it
// is still in flight. Files: machine.cpp (state, memory), eval.cpp
// (expressions), exec.cpp (statements), builtins.cpp, intrinsics.cpp,
// contracts.cpp (tag assertions, coverage), lints.cpp.
#pragma once

#include "argus/dsl/checker.h"
#include "argus/dsl/int_eval.h"
#include "argus/dsl/sema.h"
#include "argus/layout/layout.h"
#include "trace.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace argus::check::detail {

using sema::MemorySpace;
using sema::ScalarKind;
using sema::Symbol;

// ---------------------------------------------------------------------------
// Tags: a record of up to kMaxFields integer fields; a field is absent or
// mixed (⊤) or has a value. Field names are interned per kernel.

constexpr int kMaxFields = 8;
// Threads of a warpgroup (wgmma's unit; a ping-pong role's agent).
constexpr int64_t kWarpgroup = 128;
constexpr int32_t kAbsent = INT32_MIN;
constexpr int32_t kTop = INT32_MIN + 1;

// A field value; values outside int32 (no tensor coordinate is) become ⊤.
inline int32_t tag_value(int64_t v) {
  return v > INT32_MIN + 1 && v <= INT32_MAX ? static_cast<int32_t>(v) : kTop;
}

struct Tag {
  std::array<int32_t, kMaxFields> field;
  int32_t origin = -1; // the site that wrote these bytes last (-1: the host)
  // Derived from a read that was already reported (never written, async data
  // before its wait): assertions on it stay quiet, one error is enough.
  bool poison = false;
  // Zeros a predicated copy wrote in place of its source (valid=False): no
  // fields, and an assertion on it says so. A join is zero only if both are.
  // (Next to `poison`: a Tag stays 40 bytes, which the hot paths copy.)
  bool zero = false;
  // Derived from an integer the host wrote (Machine::content_names_), whose
  // value the checker does not know: -1 when none.
  int16_t contents = -1;
  Tag() { field.fill(kAbsent); }
  bool empty() const;
};

// Field-wise join: absent is the identity, equal stays, different is ⊤.
// Inline: arithmetic joins a tag per thread and element.
// The origin is a's unless a carries no field and b does (then b's): the
// value that brought the fields is the one to blame, traced or not
// (Machine::traced_origin makes the same choice among trace nodes).
inline Tag join(const Tag &a, const Tag &b) {
  Tag out;
  // Written so that the compiler vectorizes it (bit ORs, not short-circuits):
  // arithmetic joins a tag per thread and element.
  int32_t a_any = 0, b_any = 0;
  for (size_t i = 0; i < static_cast<size_t>(kMaxFields); ++i) {
    const int32_t x = a.field[i], y = b.field[i];
    a_any |= x ^ kAbsent;
    b_any |= y ^ kAbsent;
    const int32_t same = x == y ? x : kTop;
    out.field[i] = x == kAbsent ? y : y == kAbsent ? x : same;
  }
  const bool a_fields = a_any != 0, b_fields = b_any != 0;
  out.origin = a.origin >= 0 && (a_fields || !b_fields) ? a.origin
               : b.origin >= 0                          ? b.origin
                                                        : a.origin;
  out.poison = a.poison || b.poison;
  out.contents = a.contents >= 0 ? a.contents : b.contents;
  out.zero = a.zero && b.zero;
  return out;
}
std::string field_text(int64_t v); // "⊤" / "absent" / the number

// ---------------------------------------------------------------------------
// Values.

using Mask = std::vector<uint8_t>;

struct Value;

struct View {
  int buffer = -1;
  ScalarKind dtype = ScalarKind::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; // in elements of dtype
  // Bytes from the buffer start, before any swizzle: per lane, or one entry
  // for every lane when `uniform_offset`.
  std::vector<int64_t> offset{0};
  bool uniform_offset = true;
  std::vector<int64_t> tile; // t.tile(s) not yet indexed
  std::vector<uint8_t> bad;  // per lane, or empty: an index was out of bounds (access skipped)
  std::vector<Value> coords; // the indices applied so far, one value per dimension
  int64_t elements() const;
  int64_t off(size_t lane) const { return offset[uniform_offset ? 0 : lane]; }
  void expand_offset(int64_t lanes) {
    if (uniform_offset)
      offset.assign(static_cast<size_t>(lanes), offset[0]);
    uniform_offset = false;
  }
  bool is_bad(size_t lane) const { return !bad.empty() && bad[lane]; }
};

// Data: numbers per thread (a scalar, or a fragment: `elems` values per thread,
// laid out as `shape`). View: a place in a buffer with its layout. Choice: a
// view chosen per thread (`a if c else b`, a view rebound under divergence):
// thread i uses items[ints[i]] (-1: none).
enum class ValueKind { None, Data, View, Choice, Tuple, Dtype, String, Layout, Expr };

struct LayoutValue {
  std::vector<int64_t> shape, strides;
  std::optional<layout::Swizzle> swizzle;
};

struct Value {
  ValueKind kind = ValueKind::None;
  ScalarKind dtype = ScalarKind::I32;
  bool is_float = false;      // float data: no numeric value is tracked
  int elems = 1;              // Data: elements per lane
  std::vector<int64_t> shape; // Data: the fragment's shape when it has several dims
  // Data the same in every thread (constants, loop counters, block ids) is
  // stored once: ints and tags then hold `elems` entries.
  bool uniform = false;
  std::vector<int64_t> ints; // Data: [lane * elems + e], or [e] when uniform
  std::vector<Tag> tags;     // Data: same indexing; empty: no tags at all
  std::shared_ptr<View> view;
  std::vector<Value> items;        // Tuple; Choice: the views
  std::string text;                // String
  LayoutValue layout;              // Layout
  const ast::Expr *expr = nullptr; // Expr: a dict or lambda, evaluated by its user

  size_t index(size_t lane, int e) const {
    return (uniform ? 0 : lane * static_cast<size_t>(elems)) + static_cast<size_t>(e);
  }
  int64_t at(size_t lane, int e = 0) const { return ints[index(lane, e)]; }
  const Tag *tag_at(size_t lane, int e = 0) const {
    return tags.empty() ? nullptr : &tags[index(lane, e)];
  }
  // The per-thread form, before a write that may differ between threads.
  void expand(int64_t lanes);
};

// ---------------------------------------------------------------------------
// Memory.

// What every access of a cell needs; local arrays have only this (64 bytes).
struct Cell {
  Tag tag;
  int64_t value = 0;
  int32_t write_site = -1;
  uint32_t version = 0; // bumped by every write (re-load lint)
  bool initialized = false;
};

// The write log of a shared or global cell: who wrote and read it in which
// barrier epoch, and the async copy in flight.
struct CellLog {
  int64_t write_epoch = -1;
  int64_t read_epoch = -1;
  int32_t writer = -1; // thread of the last in-kernel write
  int32_t writer_block = -1;
  int32_t reader = -1;
  int32_t reader_block = -1;
  int32_t read_site = -1;
  int32_t writes = 0;        // in-kernel writes (coverage)
  int32_t pending_lane = -1; // an async copy to this cell is in flight
  int32_t pending_site = -1;
  int32_t wgmma_readers = 0; // wgmma groups or tma_stores reading this cell, not yet waited for
  int32_t wgmma_site = -1;
  int64_t write_clock = -1; // Machine::proxy_clock_ at the last write (generic proxy)
  bool many_readers = false;
  bool store_reader = false; // the last such reader was a tma_store (else a wgmma)
  // syncwarp(), barrier(): the warp stamps (Machine::warp_clock_) of the last write and
  // read, and whether readers of this interval were of several warps.
  int32_t write_warp_epoch = 0;
  int32_t read_warp_epoch = 0;
  bool many_reader_warps = false;
};

// The atomic updates of a cell (atomics.cpp), in Buffer::atomics, which a
// buffer has only once an atomic touched it (the plain access path stays as
// small as before): a thread of `block` that made one in `epoch` (and
// whether others of that block, or of other warps, did), and a thread of
// another block that made one (blocks run in order, so one is enough).
struct AtomicLog {
  int64_t epoch = -1;
  int32_t block = -1;
  int32_t lane = -1;
  int32_t site = -1;
  int32_t other_block = -1;
  int32_t other_lane = -1;
  int32_t warp_epoch = 0;
  bool many_lanes = false;
  bool many_warps = false;
};

// The blocks that read a global cell (the first, and the first other one),
// with thread and site: blocks of one launch are unordered, so a write by any
// other block races with these reads whichever block the checker runs first.
struct GridReads {
  int32_t block = -1, lane = -1, site = -1;
  int32_t other_block = -1, other_lane = -1, other_site = -1;
};

struct Buffer {
  std::string name;
  MemorySpace space = MemorySpace::Global;
  ScalarKind dtype = ScalarKind::F32;
  int64_t cell_bytes = 4;            // the dtype's, or less once refined (bytes.cpp)
  int64_t split = 1;                 // cells per declared element: > 1 once refined
  int64_t cells = 0;                 // per thread for local buffers
  std::vector<Cell> data;            // local: [i * threads + lane] (Machine::cell)
  std::vector<CellLog> log;          // shared and global: [i]; local: empty
  std::vector<GridReads> grid_reads; // global: [i]; else empty
  std::vector<AtomicLog> atomics;    // [i] once an atomic updated the buffer; else empty
  // Kernels with named barriers, shared buffers: per cell and warp, the
  // (epoch, warp stamp) of that warp's last read (Machine::reads_unordered).
  // reader: the one lane of that warp that read there, or -1 when several
  // did (a read then write by one thread is no race with itself).
  struct WarpRead {
    int32_t epoch = -1, stamp = 0, reader = -1;
  };
  std::vector<WarpRead> warp_reads;
  std::optional<layout::Swizzle> swizzle; // on byte offsets
  std::vector<int64_t> shape, strides;    // the declaration's layout (elements)
  std::vector<Tag> declared;              // the tag function's record per cell (empty: untagged)
  // Shared buffers of a cluster: each block's copy spans copy_bytes (the
  // copy of rank r from r * copy_bytes); 0: one copy.
  int64_t copy_bytes = 0;
  bool covered = false; // assert_covered
  const ast::Expr *covered_at = nullptr;
  bool tagged_once = false;
  // Local buffers a wgmma accumulates into (wgmma.cpp), per lane: groups in
  // flight, and the clock of the last plain write (empty: never a wgmma's).
  std::vector<int32_t> wgmma_inflight;
  std::vector<int32_t> wgmma_operand_inflight; // an a fragment in registers
  std::vector<int64_t> wgmma_write_clock;
};

// The wgmma of one warpgroup between two commits: the shared cells they read
// and the accumulators they write, released by wgmma_wait_group.
// Whether any of lanes first .. first + count - 1 (those that exist) is in `m`.
inline bool any_in(const Mask &m, int64_t first, int64_t count) {
  const auto end = std::min<int64_t>(first + count, static_cast<int64_t>(m.size()));
  return first < end &&
         std::any_of(m.begin() + first, m.begin() + end, [](uint8_t b) { return b != 0; });
}

struct WgmmaGroup {
  std::vector<std::pair<int, int64_t>> cells;
  std::vector<int> accs;
  std::vector<int> operands; // a fragments in registers
};

// A pending async copy: bytes that land in `cell` at the thread's wait.
// A TMA box as the hardware reads it: the source tensor seen as 2-D (`rows`
// of `cols` elements), the box's first element at (row0, col0) per lane;
// elements past either extent are not read and land as zeros.
struct TmaBox {
  // The tensor as rows of its last extent, in pages of `page_rows` (its
  // second-last extent): a box never reads across a page (the map is 3-D).
  int64_t rows = 0, cols = 0, box_cols = 1, page_rows = 1;
  std::vector<int64_t> row0, col0; // per lane
};

struct PendingWrite {
  int buffer = -1;
  int64_t cell = 0;
  Tag tag;
  int64_t value = 0;
  int32_t site = -1;
};

// A program point: an expression or statement range.
struct Site {
  Range range;
  const ast::Stmt *stmt = nullptr;
};

struct LoopFrame {
  std::string name;
  const Symbol *symbol = nullptr;
};

// The lanes that left the innermost loop's body this iteration by `break`
// (they leave the loop) or `continue` (they go on with the next iteration);
// a lane that left the body otherwise returned.
struct LoopExit {
  Mask broken, continued;
};

// Where a body is being run: the statement at `index`; `loop`: a loop's body
// (what follows includes its next iterations, so the whole body).
struct BodyPos {
  const std::vector<ast::StmtPtr> *body = nullptr;
  size_t index = 0;
  bool loop = false;
};

class Agents; // agents.h: warp-specialized roles run as separate agents

// The Machine's members that belong to the agent running (agents.h): swapped
// out when it blocks and in when it resumes. Locals are per agent (a role's
// loop counter is its own); they are merged by lanes where the roles join.
struct AgentContext {
  std::unordered_map<const Symbol *, Value> env;
  std::vector<LoopFrame> loops;
  std::vector<LoopExit> exits;
  std::vector<Value *> return_slots;
  std::vector<BodyPos> body_stack;
  const ast::Stmt *current_stmt = nullptr;
  int32_t current_site = -1;
  const ast::Expr *range_checked = nullptr;
};

class Machine {
public:
  Machine(const CheckedFile &file, const sema::FunctionInfo &kernel, const CheckerOptions &options);

  // Runs the kernel at `sizes`; with `only_blocks`, just those blocks in that
  // order (a replay: one block, or the two blocks of an inter-block race).
  void run(const std::map<std::string, int64_t> &sizes,
           const std::vector<std::array<int64_t, 3>> &only_blocks = {});

  // Runs part `part` (of `parts`) of the blocks of the grid at `sizes` (or of
  // those sampled from a large grid), in order, without the coverage check
  // (run_split merges the parts and checks it); false, having run nothing,
  // where there are fewer blocks than parts.
  bool run_part(const std::map<std::string, int64_t> &sizes, int part, int parts);

private:
  // run and run_part: all blocks (`parts` 1), or share `part` of them.
  bool run_blocks(const std::map<std::string, int64_t> &sizes,
                  const std::vector<std::array<int64_t, 3>> &only_blocks, int part, int parts);

public:
  std::vector<Violation> take_violations() { return std::move(violations_); }
  // Loops cut at unroll_bound: the loop variable's range (the `while` for a
  // while loop) and its name.
  const std::vector<std::pair<Range, std::string>> &bounded_loops() const { return bounded_loops_; }
  int64_t blocks_run() const { return blocks_run_; }
  // The grid was larger than max_blocks: only these blocks ran (empty: all did).
  const std::vector<std::array<int64_t, 3>> &sampled_blocks() const { return sampled_blocks_; }
  const std::array<int64_t, 3> &grid_dim() const { return grid_dim_; }
  bool interrupted() const { return interrupted_; }

  // Contents of integer tensors the host writes (contents.h): tensor name →
  // elements in row-major order, set before run(). Tensors not named read 0.
  std::map<std::string, std::vector<int64_t>> contents_;

  // --- shared by the parts (public for the parts' free functions) ---
  const CheckedFile &file_;
  const sema::SemaResult &sema_;
  const sema::FunctionInfo &kernel_;
  CheckerOptions options_;

  // Geometry of the current run.
  int64_t lanes_ = 1;
  std::array<int64_t, 3> block_dim_{1, 1, 1};
  std::array<int64_t, 3> grid_dim_{1, 1, 1};
  std::array<int64_t, 3> block_{0, 0, 0};
  int64_t block_linear_ = 0;
  // Thread-block clusters (@kernel(cluster=...)): the blocks of one cluster
  // run together, lane L being thread L % block_threads_ of the block of
  // rank L / block_threads_ (cluster_blocks_[rank]: its linear index). Shared
  // buffers hold one copy per block (Buffer::copy_bytes). Without a cluster
  // cluster_size_ (kernel_.cluster_size()) is 1 and lanes are one block's threads.
  int64_t block_threads_ = 1;
  int64_t cluster_size_ = 1;
  std::vector<int32_t> cluster_blocks_;
  int64_t rank_of(int64_t lane) const { return cluster_size_ == 1 ? 0 : lane / block_threads_; }
  int32_t block_of(int64_t lane) const {
    return cluster_blocks_.empty() // no cluster (or before the first one runs)
               ? static_cast<int32_t>(block_linear_)
               : cluster_blocks_[static_cast<size_t>(rank_of(lane))];
  }
  // A block of the cluster being run, other than none.
  bool in_cluster(int32_t block) const {
    return cluster_size_ > 1 && std::find(cluster_blocks_.begin(), cluster_blocks_.end(), block) !=
                                    cluster_blocks_.end();
  }
  bool same_block_or_cluster(int32_t block, int64_t lane) const {
    return block == block_of(lane) || in_cluster(block);
  }
  int warp_size_ = 32;
  int warp_shift_ = 5; // log2(warp_size_)
  // syncwarp() or barrier(id, n): else the warp clocks stay 0 and accesses
  // are not stamped.
  bool uses_warp_clocks_ = false;
  bool uses_named_barriers_ = false; // shared reads of several warps keep a stamp per warp
  bool uses_wgmma_ = false; // or tma_store: else shared writes are not stamped (proxy-fence rule)
  // wgmma, setmaxnreg or warpgroup_id(): warpgroups are units (a cluster's
  // blocks must then be whole warpgroups).
  bool uses_warpgroups_ = false;
  std::map<std::string, int64_t> sizes_;

  std::unordered_map<const Symbol *, Value> env_;
  // Parameters of the tag lambda being evaluated (sema gives them no symbols).
  std::map<std::string, Value> lambda_env_;
  std::deque<Buffer> buffers_;
  std::unordered_map<const Symbol *, int> param_buffers_;
  std::map<std::string, int> field_ids_;
  std::vector<std::string> field_names_;
  std::vector<Site> sites_;
  std::map<std::pair<uint32_t, uint32_t>, int32_t> site_ids_;
  std::vector<LoopFrame> loops_;
  std::vector<LoopExit> exits_;     // one per for/while loop being run (also while loops)
  std::vector<BodyPos> body_stack_; // the bodies being run, outermost first
  // Threads of the current block that returned from the kernel (per lane).
  std::vector<uint8_t> returned_;
  // Warp-specialized roles (agents.h): null while the block runs in lockstep.
  std::shared_ptr<Agents> agents_;
  AgentContext save_context(bool copy_env);
  void load_context(AgentContext &&ctx);
  // Per statement: bit 0 it (or a @device function it calls) waits on an
  // mbarrier or a named barrier, bit 1 it arrives on one or issues a copy
  // counted on one.
  enum : uint8_t { kWaits = 1, kArrives = 2, kNamedBarrier = 4 };
  std::unordered_map<const ast::Stmt *, uint8_t> barrier_ops_;
  uint8_t barrier_ops(const ast::Stmt &s);
  // Whether `s` (or a statement in it) uses a named barrier (barrier_ops, cached).
  bool has_named_barrier(const ast::Stmt &s) { return barrier_ops(s) & kNamedBarrier; }
  // Whether `f` has an if that waits on an mbarrier (its sides may run as agents).
  bool has_roles(const ast::Function &f) const;
  // Whether a thread that goes on from the innermost position of `stack`
  // (past the statement there) may arrive on an mbarrier.
  bool continuation_arrives(const std::vector<BodyPos> &stack);
  // `if` both of whose sides have threads and some wait on an mbarrier: the
  // sides run as agents (agents.h), each until it blocks on a wait.
  void fork_roles(const ast::Stmt &s, const Mask &yes, const Mask &no, Mask &yes_after,
                  Mask &no_after);
  int64_t epoch_ = 0;
  // Vector clocks of the warps of the current block, within a syncthreads()
  // interval: warp_clock_[w * warps_ + v] is what warp w knows of warp v's
  // count of barriers (w's own entry: the syncwarp() and named barriers it
  // passed). An access is stamped with its warp's own entry; a later access
  // by warp w is ordered after it when w's entry for that warp is larger (a
  // barrier both passed lies between). syncwarp() bumps the warp's own entry;
  // barrier(id, n) bumps each participant's, then joins their clocks.
  std::vector<int32_t> warp_clock_;
  int64_t warps_ = 1;
  int64_t warp_of(int64_t lane) const { return lane >> warp_shift_; }
  int32_t warp_clock(int64_t warp, int64_t of) const {
    return warp_clock_[static_cast<size_t>(warp * warps_ + of)];
  }
  int32_t warp_epoch(int64_t lane) const { return warp_clock(warp_of(lane), warp_of(lane)); }
  // A warp passes a barrier of its own (syncwarp, named barrier, mbarrier arrival).
  void bump_warp(int64_t warp) { warp_clock_[static_cast<size_t>(warp * warps_ + warp)] += 1; }
  // The warp learns what `clock` knows / `clock` learns what the warp knows.
  void join_into_warp(int64_t warp, const std::vector<int32_t> &clock) {
    for (int64_t of = 0; of < warps_; ++of) {
      int32_t &c = warp_clock_[static_cast<size_t>(warp * warps_ + of)];
      c = std::max(c, clock[static_cast<size_t>(of)]);
    }
  }
  void join_warp_into(std::vector<int32_t> &clock, int64_t warp) const {
    for (int64_t of = 0; of < warps_; ++of)
      clock[static_cast<size_t>(of)] =
          std::max(clock[static_cast<size_t>(of)], warp_clock(warp, of));
  }
  // An access of `other` (stamped with epoch and warp stamp) and one of
  // `lane` now, in this block: unordered when no syncthreads() lies between
  // and no syncwarp() or named barrier that both warps passed.
  bool unordered(int64_t epoch, int32_t warp_stamp, int64_t other, int64_t lane) const {
    return epoch == epoch_ && other != lane &&
           (!uses_warp_clocks_ || warp_clock(warp_of(lane), warp_of(other)) <= warp_stamp);
  }
  // The same for an access by `other` of block `other_block`: blocks of one
  // launch are unordered, except those of the cluster being run, which the
  // same clocks order (cluster_sync(), mbarriers, remote arrivals).
  bool unordered_with(int32_t other_block, int64_t epoch, int32_t warp_stamp, int64_t other,
                      int64_t lane) const {
    return !same_block_or_cluster(other_block, lane) || unordered(epoch, warp_stamp, other, lane);
  }
  // The cell's reads of this block and interval that a write by `lane` races with.
  bool reads_unordered(const CellLog &l, int64_t lane, const Buffer *b = nullptr,
                       int64_t index = -1) const;
  int64_t steps_ = 0;
  size_t global_buffers_ = 0; // buffers_[0, global_buffers_): the kernel's global tensors
  bool all_blocks_ = true;    // every block of the grid runs (not a sample of them)
  int64_t block_cells_ = 0;
  bool stopped_ = false;     // a budget ran out: nothing more is executed
  bool interrupted_ = false; // stopped by cancellation or the deadline
  void stop(const std::string &why, const Range &at);
  int32_t current_site_ = -1; // the access being executed (reader site)
  int64_t blocks_run_ = 0;
  std::vector<std::array<int64_t, 3>> sampled_blocks_;
  const ast::Stmt *current_stmt_ = nullptr;

  // Async copies per thread: the open group and the committed ones (oldest first).
  std::vector<std::vector<PendingWrite>> open_group_;
  std::vector<std::deque<std::vector<PendingWrite>>> committed_;

  // Return values of the @device call being executed.
  std::vector<Value *> return_slots_;

  std::vector<Violation> violations_;
  // The block's roles deadlocked (agents.h): later violations of the block
  // go to `muted_`, not violations_ (the hardware would hang there).
  bool hung_ = false;
  Violation muted_;
  // Every statement executed (at any thread): the driver reports the ones no
  // size instance reached, the coverage test compares them with the AST.
  std::unordered_set<const ast::Stmt *> visited_;
  // Statements recorded lately, by pointer bits: most executions repeat one
  // (loop bodies), and a compare costs less than a set insertion.
  std::array<const ast::Stmt *, 256> visited_recently_{};
  void visit(const ast::Stmt &s) {
    const ast::Stmt *&slot = visited_recently_[(reinterpret_cast<uintptr_t>(&s) >> 4) & 255];
    if (slot != &s) {
      slot = &s;
      visited_.insert(&s);
    }
  }
  // Loops whose bounds are not constants: the most iterations any execution
  // of each ran. One that never ran twice had nothing checked between its
  // iterations (a reused buffer, a barrier, an accumulator): the driver says so.
  std::unordered_map<const ast::Stmt *, int64_t> loop_iterations_;
  void count_iterations(const ast::Stmt &loop, int64_t iterations) {
    int64_t &most = loop_iterations_[&loop];
    most = std::max(most, iterations);
  }
  std::set<std::pair<std::string, uint64_t>> reported_; // (kind, site) once
  std::vector<std::pair<Range, std::string>> bounded_loops_;
  // Re-load lint: (site, thread, cell) → version last loaded.
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, uint32_t>> loads_;
  // Unvectorized lint: per site, thread 0's last address and run of contiguous steps.
  struct Walk {
    int64_t last = -1, run = 0;
  };
  std::map<uint64_t, Walk> walks_;
  // The warp access patterns of shared memory the bank-conflict lint has
  // judged (site, buffer, width, the lanes' addresses): a loop or another
  // block that repeats one needs no second look.
  std::unordered_set<uint64_t> linted_patterns_;

  // Integer host tensors whose contents no assume states (Tag::contents
  // indexes them): a value derived from them that decides an index, a loop
  // bound, a branch or a barrier's reach is a W0901 (contents.cpp).
  std::vector<std::string> content_names_;
  // Per content_names_ entry: the site of the atomic whose returned value it
  // is (its order taint), or -1 for a host tensor; and each atomic site's entry.
  std::vector<int32_t> content_order_site_;
  std::unordered_map<int32_t, int16_t> order_taints_;
  bool is_order_taint(int16_t id) const {
    return static_cast<size_t>(id) < content_order_site_.size() &&
           content_order_site_[static_cast<size_t>(id)] >= 0;
  }
  std::set<std::string> stated_tensors_;
  bool has_unknown_contents_ = false;
  void load_contents(Buffer &b, const std::string &name);
  int16_t unknown_contents(const Value &v, const Mask &m) const;
  void carry_contents(Value &out, const Value &a, const Value *b) const;
  void check_known(const Value &v, const Mask &m, const Range &at, const std::string &what);
  void report_unknown_contents(int16_t id, const Range &at, const std::string &message);
  void report_barriers_under(const ast::Stmt &s, int16_t id);

  // machine.cpp
  int field_id(const std::string &name);
  int32_t site_of(const Range &range);
  const Symbol *symbol_of(const ast::Expr &name) const;
  Value uniform_int(int64_t v, ScalarKind dtype = ScalarKind::I32) const;
  Value uniform_float() const {
    Value v = uniform_int(0, ScalarKind::F32);
    v.is_float = true;
    return v;
  }
  int64_t first_active(const Mask &m) const {
    const auto it = std::find(m.begin(), m.end(), uint8_t{1});
    return it == m.end() ? 0 : static_cast<int64_t>(it - m.begin());
  }
  // [first, end) of the active threads of `m` (empty: {0, 0}).
  static std::pair<size_t, size_t> active_span(const Mask &m) {
    const auto active = [](uint8_t x) { return x != 0; };
    const auto first = std::find_if(m.begin(), m.end(), active);
    if (first == m.end())
      return {0, 0};
    const auto last = std::find_if(m.rbegin(), m.rend(), active);
    return {static_cast<size_t>(first - m.begin()), static_cast<size_t>(m.rend() - last)};
  }
  Value make_data(ScalarKind dtype, int elems, bool is_float) const;
  Mask full_mask() const { return Mask(static_cast<size_t>(lanes_), 1); }
  bool any(const Mask &m) const;
  std::array<int64_t, 3> thread_coord(int64_t lane) const;
  void start_block();
  int new_buffer(Buffer b);
  int64_t cell_index(const Buffer &b, int64_t byte_offset) const;
  std::vector<int64_t> cell_coords(const Buffer &b, int64_t cell) const;
  Cell &cell(Buffer &b, int64_t lane, int64_t index);
  // Reads/writes one element of a view for one thread; false when it was out of bounds.
  bool read_element(const View &v, int64_t lane, int64_t element, const Range &at, Tag &tag,
                    int64_t &value, int64_t *cell_out = nullptr);
  void report_outside_buffer(const Buffer &b, int64_t lane, const Range &at, int64_t byte,
                             const std::string &what);
  void write_element(const View &v, int64_t lane, int64_t element, const Range &at, const Tag *tag,
                     int64_t value);
  void write_cell(int buffer, int64_t lane, int64_t index, const Range &at, const Tag *tag,
                  int64_t value, bool async_landing);
  int64_t element_byte_offset(const View &v, int64_t lane, int64_t element) const;
  Value read_view(const View &v, const Mask &m, const Range &at);
  bool local_fast_path(const View &v) const;
  std::vector<int64_t> element_cells(const View &v) const; // element → cell offset
  Value read_local(const View &v, const Mask &m, const Range &at, Value out);
  void write_view(const View &v, const Value &data, const Mask &m, const Range &at);

  // Violations (report.cpp).
  struct Where {
    int64_t lane = 0;
    Range range;
    std::string tensor;
    std::vector<int64_t> coord;
    int32_t origin = -1;
    std::vector<int32_t> more_origins;
    // Traced replays: the trace node the history walks back from, and the
    // offending value's tag.
    int32_t from = -1;
    std::optional<Tag> tag;
  };
  // A violation's place: this lane's access at `at` to element `cell` of `b`.
  Where where_at(const Buffer &b, int64_t lane, int64_t cell, const Range &at) const;
  static uint64_t site_key(const Range &range);
  bool already_reported(const std::string &kind, const Range &range) const;
  bool should_report(const std::string &kind, const Range &range);
  nlohmann::json thread_json(int64_t lane) const;
  std::array<int64_t, 3> block_coord(int64_t linear) const;
  // A thread of another block (linear index) and that block's coordinates.
  nlohmann::json thread_json_in(int64_t block_linear, int64_t lane) const;
  std::string thread_text_in(int64_t block_linear, int64_t lane) const;
  void report_grid_read_race(Where where, const Buffer &b, const GridReads &reads);
  nlohmann::json iteration_json(int64_t lane) const;
  Violation &report(const std::string &kind, const std::string &check, const Where &where,
                    const std::string &message, bool warning = false);
  std::string thread_text(int64_t lane) const;
  void report_writer_race(const char *check, Where where, const Buffer &b, const CellLog &log,
                          int32_t write_site, const std::string &what);
  // `part`: which cell of a wider read (its bytes are named), or -1.
  void report_uninitialized(const Buffer &b, int64_t lane, int64_t cell, const Range &at,
                            int64_t part = -1);
  std::string tag_text(const Tag &t) const;
  // W0901 at a construct the interpreter did not evaluate (a value it does not
  // know, a target that is not a place), once per site: never a silent skip.
  void not_interpreted(const Range &at, const std::string &why);
  nlohmann::json tag_json(const Tag &t) const;

  // eval.cpp
  Value eval(const ast::Expr &e, const Mask &m);
  Value data(const ast::Expr &e, const Mask &m); // reads a place
  // The data a name is bound to, read in place (null: not a name bound to data).
  const Value *bound_data(const ast::Expr &e) const;
  Value to_data(const Value &v, const Mask &m, const Range &at);
  Value binary(ast::BinaryOp op, const Value &a, const Value &b, const Mask &m, const Range &at);
  // W0901 at `at`, once: an integer operation without an int64 result (int_eval.h).
  void report_int_error(int_eval::IntError error, int64_t lane, const Range &at);
  Value compare(ast::CompareOp op, const Value &a, const Value &b);
  Value subscript(const ast::Expr &e, const Mask &m);
  Value index_value(const Value &base, const std::vector<Value> &idx, const ast::Expr &e,
                    const Mask &m);
  Value index_view(View v, const std::vector<Value> &idx, const ast::Expr &e, const Mask &m);
  // The flat elements idx selects in fragment `base` per thread: first[lane]
  // (-1: out of bounds, reported) and how many; the rest of the shape.
  bool fragment_elements(const Value &base, const std::vector<Value> &idx, const ast::Expr &e,
                         const Mask &m, std::vector<int64_t> &first, int64_t &count,
                         std::vector<int64_t> &rest);
  Value index_fragment(const Value &base, const std::vector<Value> &idx, const ast::Expr &e,
                       const Mask &m);
  // Threads in `m` take `b`, the others keep `a` (views: one view with
  // per-thread offsets when both are of one buffer and layout, else a Choice).
  Value choose(const Value &a, const Value &b, const Mask &m) const;
  // The one view every thread in `m` uses, or the value as it is.
  Value narrow(const Value &v, const Mask &m) const;
  Mask alternative_mask(const Value &choice, size_t k, const Mask &m) const;
  // Truth of a branch or loop condition; W0901 when it is not a number or depends on
  // unstated contents (then also at the barriers under `owner`).
  Mask condition(const ast::Expr &e, const Mask &m, const ast::Stmt *owner = nullptr,
                 const char *what = "this condition");
  std::vector<int64_t> const_tuple(const ast::Expr &e, const Mask &m);
  Mask truth(const Value &v, const Mask &m) const;
  void assign_lanes(Value &dst, const Value &src, const Mask &m) const;
  std::string tensor_name(const ast::Expr &e) const;

  // exec.cpp
  void exec_body(const std::vector<ast::StmtPtr> &body, Mask &m, bool loop = false);
  void exec(const ast::Stmt &s, Mask &m);
  void assign(const ast::Stmt &s, const ast::Expr &target, const Value &value, Mask &m);
  void assign_fragment_element(const ast::Expr &base_e, const Value &base,
                               const std::vector<Value> &idx, const ast::Expr &target,
                               const Value &v, const Mask &m);
  void leave_body(const Mask &active, const Mask &body, Mask &m, Mask &left);
  void for_loop(const ast::Stmt &s, Mask &m);
  void while_loop(const ast::Stmt &s, Mask &m);
  Value call_device(const sema::FunctionInfo &fn, const ast::Expr &call, const Mask &m);

  // builtins.cpp
  Value call(const ast::Expr &call, const Mask &m);
  Value builtin(BuiltinId id, const ast::Expr &call, const Mask &m);
  Value launch_coordinate(BuiltinId id, const ast::Expr &call, const Mask &m);
  Value new_tensor(BuiltinId id, const ast::Expr &call, const Mask &m);
  Value make_view(const ast::Expr &call, const Mask &m);
  Value shuffle(BuiltinId id, const ast::Expr &call, const Mask &m);
  void syncthreads(const ast::Expr &call, const Mask &m);
  // clusters.cpp: the blocks of a cluster run together (see block_threads_).
  void block_barriers(const ast::Expr &call, const Mask &m); // syncthreads() in a cluster
  void cluster_sync(const ast::Expr &call, const Mask &m);
  // `v` (a place in a shared buffer, in the block of each lane) in the copy
  // of block `rank` (per lane) instead; out-of-cluster ranks are E0903 and
  // leave the lane bad. Notes the remote accesses for check_cluster_exit.
  View in_block(const View &v, const Value &rank, const Mask &m, const Range &at);
  Value dsmem_load(const ast::Expr &call, const Mask &m);
  void mbarrier_arrive_cluster(const ast::Expr &call, const Mask &m);
  void tma_load_multicast(const ast::Expr &call, const Mask &m);
  // A thread's access to another block's shared memory (its warp's stamp and
  // the barrier interval then): that block must not exit before it is done,
  // so one of its warps must be ordered after it, or a cluster_sync() lie
  // between (check_cluster_exit, at the end of the cluster's run).
  struct RemoteAccess {
    int32_t stamp = 0, site = -1;
    int64_t lane = -1, epoch = -1;
  };
  std::map<std::pair<int64_t, int64_t>, RemoteAccess> remote_accesses_; // (warp, rank)
  void note_remote_access(int64_t lane, int64_t rank, const Range &at);
  void check_cluster_exit();
  bool cluster_geometry_ok(); // run.cpp
  // Whether `byte` (of `v`'s element, for `lane`) lies outside the buffer or
  // outside the copy of the block `v` points into.
  bool outside_buffer(const Buffer &b, const View &v, int64_t lane, int64_t byte, int64_t first,
                      int64_t count) const {
    return first < 0 || first + count > b.cells ||
           (b.copy_bytes > 0 &&
            byte / b.copy_bytes != v.off(static_cast<size_t>(lane)) / b.copy_bytes);
  }
  void syncwarp(const ast::Expr &call, const Mask &m);
  // The first lane of first .. end - 1 inside the mask and the first outside
  // it (-1: none).
  std::pair<int64_t, int64_t> presence(const Mask &m, int64_t first, int64_t end) const;
  // E0905 `check`: `what` reached by `inside` and not by `outside` (`why` follows).
  void report_unreached(const ast::Expr &call, const char *check, const std::string &what,
                        int64_t inside, int64_t outside, const std::string &why);
  void named_barrier(const ast::Expr &call, const Mask &m, bool arrive_only = false);
  // The warps pass a barrier together: each bumps its own clock, then learns
  // what every other one knew (a named barrier's use, a block's syncthreads()
  // in a cluster).
  void meet(const std::vector<int64_t> &warps);
  // One block's use of it (lanes lo .. hi - 1; `key` in rendezvous_: the id,
  // plus 16 per block rank in a cluster).
  void block_named_barrier(const ast::Expr &call, const Mask &m, bool arrive_only,
                           const std::string &name, int64_t key, int64_t count, int64_t lo,
                           int64_t hi);
  // mbarriers (mbarriers.cpp), per barrier cell of a shared buffer, reset per
  // block: the arrivals the current phase still needs, the phases completed,
  // and the warp clocks their arrivers had (what a waiter is ordered after).
  struct MBarrier {
    int64_t count = 0, pending = 0, phase = 0;
    std::vector<int32_t> arrived;                   // join of the current phase's arrivers' clocks
    std::array<std::vector<int32_t>, 2> completed;  // by parity: the last such phase's join
    std::array<int64_t, 2> completed_epoch{-1, -1}; // syncthreads() interval it completed in
    // The last phases completed (number, epoch, arrivers' join), for a waiter
    // that blocked on one (agents) and resumes after later phases completed.
    struct Completed {
      int64_t phase, epoch;
      std::vector<int32_t> arrived;
    };
    std::deque<Completed> recent;
    int64_t tx = 0; // bytes announced (expect_tx) less bytes delivered, this phase
    // Bulk copies counted on this barrier, not landed yet: (lane, write, bytes
    // of its copy when it is the copy's first write, else 0).
    struct Landing {
      int64_t lane;
      PendingWrite write;
      int64_t bytes;
    };
    std::vector<Landing> landing;
  };
  std::map<std::pair<int, int64_t>, MBarrier> mbarriers_;
  // A named barrier's rendezvous across roles run as agents (agents.h): the
  // warps that arrived at its current use and, counted up each time it
  // completes, the generation a blocked role waits past.
  struct NamedRendezvous {
    int64_t count = 0, arrived = 0, generation = 0;
    std::vector<int64_t> warps;    // those that wait (barrier)
    std::vector<int32_t> arrivals; // join of the arrive-only warps' clocks as they arrived
  };
  std::map<int64_t, NamedRendezvous> rendezvous_;
  // cluster_sync() met by roles from their sides (clusters.cpp): its rendezvous.
  static constexpr int64_t kClusterSyncKey = -1;
  // barrier(id, n) reached by fewer than n threads, another use of it pending,
  // or barrier_arrive(id, n): the warps arrive; unless that completes it, a
  // barrier's wait for the others (agents.h; W0901 in lockstep) and an
  // arrive-only warp goes on.
  void named_rendezvous(const ast::Expr &call, const std::string &name, int64_t id, int64_t n,
                        const std::vector<int64_t> &warps, int64_t arrived, const Mask &m,
                        const Where &w, bool arrive_only, const char *check = "named-barrier");
  // `remote`: the barrier in another block (a remote arrival), else call's
  // first argument.
  void mbarrier_op(BuiltinId id, const ast::Expr &call, const Mask &m,
                   const Value *remote = nullptr);
  // A bulk copy (cp_async_bulk) or, with `tensor`, a TMA tile load (tma_load).
  void cp_async_bulk(const ast::Expr &call, const Mask &m, bool tensor);
  // The same of evaluated operands (a multicast: once per destination block).
  void bulk_copy(const ast::Expr &call, const Mask &m, bool tensor, const Value &dst,
                 const Value &src, const Value &barv);
  // `store`: s is a tma_store's source and d its global box (the words say so).
  std::optional<std::string> tma_layout_error(const View &d, const View &s, int64_t lane,
                                              bool store = false) const;
  // tma_store(dst, src) and tma_store_wait(n) (tma_store.cpp): per thread, its
  // stores whose shared source the TMA engine may still read, oldest first.
  void tma_store(const ast::Expr &call, const Mask &m);
  void tma_store_wait(const ast::Expr &call, const Mask &m);
  std::vector<std::deque<std::vector<std::pair<int, int64_t>>>> tma_stores_;
  // Lands the bulk copies counted on `bar` (their bytes leave its tx count);
  // each issuing warp then counts as an arrival for the phase's order.
  void land_bulk_copies(MBarrier &bar);
  void complete_phase_if_done(MBarrier &bar);
  // The waiting warp is ordered after the arrivers of bar's last phase of
  // this parity, when it completed in this syncthreads() interval.
  void order_after_phase(const MBarrier &bar, size_t parity, int64_t warp);
  // The same for phase number `phase` (a waiter resumed by the agents).
  void order_after_phase_number(const MBarrier &bar, int64_t phase, int64_t warp);
  // After a reported deadlock or byte-count error: the phase counts as
  // completed for `lane`'s warp (no cascade of errors after the first).
  void force_phase(MBarrier &bar, int64_t lane);
  // amdgpu.raw_buffer_load_x*: the hardware range check (buffer_loads.cpp).
  Value buffer_load(const ast::Expr &call, const Mask &m);
  // The subscript a buffer load addresses: an index outside its dimension is
  // not an error there (the load reads the linear offset, or zeros past the
  // tensor); every other subscript reports it.
  const ast::Expr *range_checked_by_hardware_ = nullptr;
  Value warp_vote(BuiltinId id, const ast::Expr &call, const Mask &m);
  void async_commit(const Mask &m);
  void async_wait(int64_t keep, const Mask &m, const Range &at);
  // An async copy's write lands (unless the cell was overwritten meanwhile).
  void land_async_write(const PendingWrite &w, int64_t lane);

  // intrinsics.cpp
  Value intrinsic(BuiltinId id, const ast::Expr &call, const Mask &m);
  Value matrix_multiply(BuiltinId id, const ast::Expr &call, const Mask &m);
  // wgmma.cpp
  static Where at_lane(int64_t lane, const Range &range); // a violation's thread and range
  bool whole_warpgroups(const Mask &m, const ast::Expr &call, const std::string &what);
  std::optional<std::string> wgmma_layout_error(const View &v, int64_t lane) const;
  std::optional<std::string> wgmma_mn_layout_error(const View &v, int64_t lane) const;
  std::optional<std::string> wgmma_swizzle_error(const View &v, const char *form,
                                                 int64_t &span) const;
  std::string wgmma_misplaced(const View &v, int64_t lane, int64_t r, int64_t c, int64_t base,
                              int64_t span, const char *rows, const char *contiguous) const;
  void wgmma(BuiltinId id, const ast::Expr &call, const Mask &m);
  void wgmma_fence(const ast::Expr &call, const Mask &m);
  void wgmma_commit(const ast::Expr &call, const Mask &m);
  void wgmma_wait(const ast::Expr &call, const Mask &m);
  void retire_wgmma_group(const WgmmaGroup &group, int64_t first_lane);
  void wgmma_local_access(Buffer &b, int64_t lane, const Range &at, bool write);
  // A shared cell read through the async proxy by `lane` (a wgmma operand, a
  // tma_store source; `what` names it): E0902 proxy-fence when its writer did
  // not fence_proxy_async after writing it; it stays in flight (site) until
  // its reader's wait retires it.
  void async_proxy_read(Buffer &b, int64_t lane, int64_t cell_index, const Range &at,
                        const std::string &what, int32_t site, bool store);
  // Per warpgroup: the open group and the committed ones (oldest first).
  std::vector<WgmmaGroup> wgmma_open_;
  std::vector<std::deque<WgmmaGroup>> wgmma_committed_;
  std::vector<int64_t> wgmma_fence_clock_; // per lane: the clock of its last wgmma_fence
  int64_t wgmma_clock_ = 0;
  // fence_proxy_async: a clock advanced by every shared write and fence, and
  // per lane the clock of its last fence.
  void fence_proxy_async(const Mask &m);
  int64_t proxy_clock_ = 0;
  std::vector<int64_t> proxy_fence_clock_;
  void operand_contract(const std::string &inst, const ast::Expr &call, int M, int N, int K,
                        const std::vector<Tag> &at, const std::vector<Tag> &bt,
                        const std::function<int64_t(int, int)> &a_lane,
                        const std::function<int64_t(int, int)> &b_lane, std::vector<Tag> &row,
                        std::vector<Tag> &col);
  Value ldmatrix(BuiltinId id, const ast::Expr &call, const Mask &m);
  void cp_async(int64_t bytes, const ast::Expr &call, const Mask &m);
  // zero_fill: a predicated copy's lanes whose `valid` is false (no source; zeros land).
  void cp_async_places(int64_t bytes, const ast::Expr &call, const Value &dst, const Value &src,
                       const Mask &m, bool zero_fill, const TmaBox *box = nullptr);

  // atomics.cpp
  Value atomic(BuiltinId id, const ast::Expr &call, const Mask &m);
  void atomic_update(BuiltinId id, const ast::Expr &call, const View &v, const Value &value,
                     const Value *expected, const Mask &m, Value &out);
  // A plain access of `lane` that races with an atomic update of the cell;
  // the other thread (-1: several) and its block.
  bool atomic_conflict(const AtomicLog &a, int64_t lane, int32_t &block, int32_t &thread) const;
  // The atomic log of cell `index` when the buffer has one and an atomic updated the cell.
  static const AtomicLog *atomic_log(const Buffer &b, int64_t index) {
    if (b.atomics.empty()) [[likely]]
      return nullptr;
    const AtomicLog &a = b.atomics[static_cast<size_t>(index)];
    return a.block >= 0 ? &a : nullptr;
  }
  void report_atomic_race(const char *check, int64_t lane, const Range &at, const Buffer &b,
                          int64_t cell, int32_t block, int32_t thread, int32_t site,
                          const std::string &what, const char *note);
  int16_t order_taint(const ast::Expr &call);

  // contracts.cpp
  void tag_tensor(const ast::Expr &call, const Mask &m);
  void assert_tag(const ast::Expr &call, const Mask &m);
  void assert_tag_eq(const ast::Expr &call, const Mask &m);
  void reset_tags(const ast::Expr &call, const Mask &m);
  void assert_covered(const ast::Expr &call, const Mask &m);
  void check_coverage(bool all_blocks);
  Where where_used(const ast::Expr &call, const ast::Expr &operand, const Value &place,
                   int64_t lane) const;
  void check_store_contract(const Buffer &b, int64_t cell, const Tag &tag, int64_t lane,
                            const Range &at);

  // trace.cpp: only during a traced check::replay, where Tag::origin holds a
  // node of trace_ (trace.h). origin_site gives what it means untraced.
  std::unique_ptr<Trace> trace_;
  int32_t origin_site(int32_t origin) const { return trace_ ? trace_site(origin) : origin; }
  int32_t trace_site(int32_t node) const;
  // Between statements of the kernel (no temporaries hold tags): past the
  // soft cap, keeps only the nodes live memory and registers still reach.
  void trace_compact_if_full();
  int32_t trace_node(TraceAction action, int32_t site, int buffer, int64_t cell, int64_t lane,
                     const Tag &tag, int32_t source, int32_t write_site);
  // Out of line: the read's node; for a shared/global cell its place among
  // the interval's reads (the ones a write-after-read race is with).
  [[gnu::noinline]] void trace_read(int buffer, int64_t lane, int64_t cell, const Range &at,
                                    Tag &tag, bool first_of_interval, bool other_reader);
  // The nodes of a read (into *read) or a write (of *written) on the local fast path.
  void trace_local(const View &v, const Mask &m, const Range &at, Value *read,
                   const Value *written);
  void trace_read_log(int buffer, int64_t cell, int32_t node, bool first_of_interval,
                      bool other_reader);
  int32_t trace_reader(int buffer, int64_t cell, int64_t not_lane) const;
  // The history of a + b goes on through the first operand that carries tags
  // (acc + a * b from an untagged acc: through a * b).
  static int32_t traced_origin(const Tag &a, const Tag &b) {
    return a.origin >= 0 && (!a.empty() || b.empty()) ? a.origin
           : b.origin >= 0                            ? b.origin
                                                      : a.origin;
  }
  // Points `where` at the value whose tag is wrong (origin, history, tag).
  void blame(Where &where, const Tag &tag) const;
  nlohmann::json trace_history(const Where &where) const;
  nlohmann::json trace_step(const TraceNode &node) const;

  // bytes.cpp: refines buffer `index` to cells of `bytes` (a narrower view
  // accessed it); false when that exceeds the cell budget (the run stopped).
  bool refine(int index, int64_t bytes);
  void trace_refine(int buffer, int64_t k); // trace.cpp: the interval's reads per part

  // lints.cpp
  void lint_shared_access(const View &v, const Mask &m, const Range &at, int64_t bytes_per_lane);
  void lint_shared_rows(const std::vector<std::pair<int64_t, int64_t>> &lane_addresses,
                        int64_t lanes_per_phase, int64_t bytes, const Range &at, const View &v);
  void lint_global_access(const View &v, const Mask &m, const Range &at, bool write);
  void lint_reload(const View &src, const Mask &m, const Range &at);
};

static_assert(std::tuple_size_v<decltype(TraceNode::fields)> == kMaxFields);
static_assert(sizeof(Tag) == 40, "a Tag is copied per element and thread: keep it small");

// checker.cpp: the outermost statements of `kernel` (and of the @device
// functions its executed statements call) not in `visited`.
std::vector<const ast::Stmt *> enclosing_loops(const std::vector<ast::StmtPtr> &body,
                                               const ast::Stmt *target);
std::vector<const ast::Stmt *>
unreached_statements(const sema::SemaResult &sema, const ast::Function &kernel,
                     const std::unordered_set<const ast::Stmt *> &visited);

int64_t dtype_bytes(ScalarKind kind);
// bytes.cpp: bits k of `value` cut in cells of cell_bytes (little-endian),
// and a value as a view of `dtype` reads those bits (wrapped, sign-extended).
int64_t cell_bits(int64_t value, int64_t k, int64_t cell_bytes);
int64_t wrap_to(int64_t value, ScalarKind dtype);

} // namespace argus::check::detail
