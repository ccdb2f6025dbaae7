// Internal: the provenance record of a traced replay (check::replay with a
// history; docs/checker.md, "Counterexample traces").
//
// While a Machine traces, every element read from or written to memory
// becomes a node, and Tag::origin holds that node's index instead of a site:
// a read's node points at the write node of the cell it read, a write's node
// at the node of the value written (the read it was copied from). Walking
// the source links back from a violation gives the element's history.
// Untraced runs never touch this (Machine::trace_ stays null).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace argus::check::detail {

enum class TraceAction : uint8_t {
  Read,      // an element read from memory into a register value
  Write,     // a register value stored into memory
  AsyncLand, // an async copy's bytes landing in shared memory (at the thread's wait)
  Fill,      // full(...): every cell of a new tensor
  AsyncCopy, // a cp.async issued: the value is in flight
  Compute,   // a matrix instruction's result, from its A operand
};

struct TraceNode {
  std::array<int32_t, 8> fields{}; // the tag's fields there
  int32_t site = -1;               // Machine::sites_ index
  int32_t source = -1;             // the node the value came from (-1: the host, or nothing)
  int32_t write_site = -1;         // what Tag::origin means untraced: the site that wrote the bytes
  int32_t buffer = -1;             // -1: not a memory access (Compute)
  int32_t lane = -1;
  int32_t context = -1; // Trace::contexts index: block and loop counters
  int32_t cell = -1;    // logical cell (before any swizzle); checker buffers stay below 2^31
  TraceAction action = TraceAction::Read;
  bool summary = false; // past the cap: one node stands for every access at this site
  // Steps a compaction spliced out between this node and its source: the
  // rounds of a loop that reads and writes the same cell (saturates).
  uint16_t spliced = 0;
};
static_assert(sizeof(TraceNode) <= 64);

// The block and the loop counters of the thread at the access.
struct TraceContext {
  std::array<int64_t, 3> block{0, 0, 0};
  std::vector<std::pair<std::string, int64_t>> iteration;
  bool operator==(const TraceContext &) const = default;
};

struct Trace {
  // Bounds the record: 64 bytes a node. Past max_nodes the next statement
  // compacts the record to the nodes still reachable; at twice max_nodes
  // (one statement's accesses, or a live set that big) new accesses get
  // summary nodes. 32 MB at most by default.
  static constexpr size_t kDefaultMaxNodes = size_t{1} << 18;
  size_t max_nodes = kDefaultMaxNodes;
  size_t compact_at = 0; // the next compaction's size, when above max_nodes
  size_t hard_cap() const { return 2 * max_nodes; }
  int64_t compactions = 0;
  std::vector<TraceNode> nodes;
  std::vector<TraceContext> contexts;
  std::map<std::pair<int, int32_t>, int32_t> summaries; // (action, site) → node, past the cap
  bool capped = false;                                  // summary nodes were handed out
  // Per shared/global cell ((buffer << 40) | cell): the first read of the
  // barrier interval and a read by another thread (the write-after-read race).
  // Kept for the barrier interval (epoch) they were read in only.
  struct Reads {
    int64_t epoch = -1;
    int32_t first = -1, other = -1;
  };
  std::unordered_map<uint64_t, Reads> reads;
};

} // namespace argus::check::detail
