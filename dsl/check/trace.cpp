// The provenance record of a traced replay (trace.h) and the history of a
// violation's element, walked back from it.
#include "machine.h"

#include <algorithm>
#include <tuple>

namespace argus::check::detail {

namespace {

using nlohmann::json;

const char *action_name(TraceAction a) {
  switch (a) {
  case TraceAction::Read:
    return "read";
  case TraceAction::Write:
    return "write";
  case TraceAction::Fill:
    return "fill";
  case TraceAction::AsyncCopy:
    return "async-copy";
  case TraceAction::AsyncLand:
    return "async-land";
  case TraceAction::Compute:
    return "compute";
  }
  return "read";
}

json point_json(const Position &p) { return {{"line", p.line}, {"character", p.column}}; }

uint64_t cell_key(int buffer, int64_t cell) {
  return (static_cast<uint64_t>(buffer) << 40) | static_cast<uint64_t>(cell);
}

// A long history (an accumulator through every k-tile) keeps its first and
// last steps.
constexpr size_t kHeadSteps = 4;
constexpr size_t kTailSteps = 28;

} // namespace

int32_t Machine::trace_site(int32_t node) const {
  if (node < 0 || static_cast<size_t>(node) >= trace_->nodes.size())
    return -1;
  return trace_->nodes[static_cast<size_t>(node)].write_site;
}

int32_t Machine::trace_node(TraceAction action, int32_t site, int buffer, int64_t cell,
                            int64_t lane, const Tag &tag, int32_t source, int32_t write_site) {
  Trace &t = *trace_;
  if (t.nodes.size() >= t.hard_cap()) {
    // Past the cap: one summary node per (action, site), with no source, so
    // a history that reaches it ends there ("elided").
    t.capped = true;
    const auto key = std::make_pair(static_cast<int>(action), site);
    if (auto it = t.summaries.find(key); it != t.summaries.end())
      return it->second;
    TraceNode n;
    n.action = action;
    n.summary = true;
    n.site = site;
    n.write_site = write_site;
    n.buffer = buffer;
    n.cell = -1;
    t.nodes.push_back(n);
    const auto id = static_cast<int32_t>(t.nodes.size() - 1);
    t.summaries[key] = id;
    return id;
  }
  TraceNode n;
  n.action = action;
  n.site = site;
  n.source = source;
  n.write_site = write_site;
  n.buffer = buffer;
  n.lane = static_cast<int32_t>(lane);
  if (buffer >= 0 && cell >= 0) {
    const Buffer &b = buffers_[static_cast<size_t>(buffer)];
    // Cells are physical; a swizzle (an XOR of address bits) is its own inverse.
    // Kept as a byte offset: it stays valid when the buffer is refined to bytes.
    const int64_t logical = b.swizzle ? cell_index(b, cell * b.cell_bytes) : cell;
    const int64_t byte = logical * b.cell_bytes;
    n.cell = byte <= INT32_MAX ? static_cast<int32_t>(byte) : -1;
  }
  std::copy(tag.field.begin(), tag.field.end(), n.fields.begin());
  // The thread's block and loop counters, shared with the node before when
  // equal (compared in place: most accesses repeat the last context).
  const TraceContext *last = t.contexts.empty() ? nullptr : &t.contexts.back();
  bool same = last && last->block == block_;
  size_t counters = 0;
  for (const LoopFrame &f : loops_) {
    if (!same)
      break;
    auto v = env_.find(f.symbol);
    if (v == env_.end() || v->second.kind != ValueKind::Data || lane < 0)
      continue;
    const int64_t value = v->second.at(static_cast<size_t>(lane));
    same = counters < last->iteration.size() && last->iteration[counters].second == value &&
           last->iteration[counters].first == f.name;
    ++counters;
  }
  if (!same || counters != last->iteration.size()) {
    TraceContext context;
    context.block = block_;
    for (const LoopFrame &f : loops_) {
      auto v = env_.find(f.symbol);
      if (v != env_.end() && v->second.kind == ValueKind::Data && lane >= 0)
        context.iteration.emplace_back(f.name, v->second.at(static_cast<size_t>(lane)));
    }
    t.contexts.push_back(std::move(context));
  }
  n.context = static_cast<int32_t>(t.contexts.size() - 1);
  t.nodes.push_back(n);
  return static_cast<int32_t>(t.nodes.size() - 1);
}

void Machine::trace_read(int buffer, int64_t lane, int64_t cell, const Range &at, Tag &tag,
                         bool first_of_interval, bool other_reader) {
  // tag.origin is the first cell's write node (join keeps the first origin).
  const int32_t source = tag.origin;
  tag.origin = trace_node(TraceAction::Read, site_of(at), buffer, cell, lane, tag, source,
                          trace_site(source));
  if (first_of_interval || other_reader)
    trace_read_log(buffer, cell, tag.origin, first_of_interval, other_reader);
}

void Machine::trace_local(const View &v, const Mask &m, const Range &at, Value *read,
                          const Value *written) {
  Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  const auto cells = element_cells(v);
  const auto n = static_cast<int64_t>(cells.size());
  const int32_t site = site_of(at);
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || v.is_bad(static_cast<size_t>(lane)))
      continue;
    const int64_t base = v.off(static_cast<size_t>(lane)) / b.cell_bytes;
    for (int64_t e = 0; e < n; ++e) {
      const int64_t idx = base + cells[static_cast<size_t>(e)];
      if (idx < 0 || idx >= b.cells)
        continue;
      Cell &c = cell(b, lane, idx);
      if (read) {
        Tag &t = read->tags[static_cast<size_t>(lane * n + e)];
        t.origin = trace_node(TraceAction::Read, site, v.buffer, idx, lane, t, c.tag.origin,
                              trace_site(c.tag.origin));
      } else {
        const Tag *t = written->tag_at(static_cast<size_t>(lane), written->elems == n ? e : 0);
        c.tag.origin = trace_node(TraceAction::Write, site, v.buffer, idx, lane, c.tag,
                                  t ? t->origin : -1, site);
      }
    }
  }
}

namespace {

// Every tag a value holds, views' indices included.
template <class F> void for_each_tag(Value &v, const F &f) {
  for (Tag &t : v.tags)
    f(t);
  for (Value &item : v.items)
    for_each_tag(item, f);
  if (v.view)
    for (Value &c : v.view->coords)
      for_each_tag(c, f);
}

} // namespace

void Machine::trace_compact_if_full() {
  Trace &t = *trace_;
  if (t.nodes.size() < std::max(t.max_nodes, t.compact_at) || !return_slots_.empty())
    return; // inside a @device call the caller's temporaries may hold nodes
  // Roots: every cell, every value in a register, async copies in flight,
  // the reads a race may name, the summaries.
  std::vector<int32_t *> roots;
  for (Buffer &b : buffers_)
    for (Cell &c : b.data)
      roots.push_back(&c.tag.origin);
  for (auto &group : open_group_)
    for (PendingWrite &w : group)
      roots.push_back(&w.tag.origin);
  for (auto &groups : committed_)
    for (auto &group : groups)
      for (PendingWrite &w : group)
        roots.push_back(&w.tag.origin);
  for (auto &[key, bar] : mbarriers_) // bulk and TMA copies waiting for their phase
    for (MBarrier::Landing &l : bar.landing)
      roots.push_back(&l.write.tag.origin);
  for (auto &[symbol, value] : env_)
    for_each_tag(value, [&](Tag &tag) { roots.push_back(&tag.origin); });
  for (auto &[name, value] : lambda_env_)
    for_each_tag(value, [&](Tag &tag) { roots.push_back(&tag.origin); });
  std::erase_if(t.reads, [&](const auto &entry) { return entry.second.epoch != epoch_; });
  for (auto &[key, reads] : t.reads) {
    roots.push_back(&reads.first);
    roots.push_back(&reads.other);
  }
  for (auto &[key, node] : t.summaries)
    roots.push_back(&node);
  // A loop's rounds on one cell (acc += ...: write, read, write, read, ...)
  // would keep every round alive: splice out all but the first and the last.
  // In index order a node's sources are already spliced.
  auto same = [&](int32_t x, int32_t y) {
    const TraceNode &a = t.nodes[static_cast<size_t>(x)], &b = t.nodes[static_cast<size_t>(y)];
    return a.action == b.action && a.site == b.site && a.buffer == b.buffer && a.cell == b.cell &&
           a.lane == b.lane && !a.summary && !b.summary;
  };
  auto source_of = [&](int32_t x) { return x < 0 ? -1 : t.nodes[static_cast<size_t>(x)].source; };
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    TraceNode &n = t.nodes[i];
    const int32_t s1 = n.source, s2 = source_of(s1), s3 = source_of(s2);
    if (s3 < 0 || !same(static_cast<int32_t>(i), s2) || !same(s1, s3))
      continue;
    const int total = n.spliced + 2 + t.nodes[static_cast<size_t>(s1)].spliced +
                      t.nodes[static_cast<size_t>(s2)].spliced;
    n.spliced = static_cast<uint16_t>(std::min(total, 65535));
    n.source = s3;
  }
  // Mark what the roots reach through their sources.
  std::vector<uint8_t> live(t.nodes.size(), 0);
  for (const int32_t *root : roots)
    for (int32_t n = *root;
         n >= 0 && static_cast<size_t>(n) < t.nodes.size() && !live[static_cast<size_t>(n)];
         n = t.nodes[static_cast<size_t>(n)].source)
      live[static_cast<size_t>(n)] = 1;
  // Compact in order (a source stays before its users) and renumber.
  std::vector<int32_t> renumbered(t.nodes.size(), -1);
  size_t kept = 0;
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    if (!live[i])
      continue;
    TraceNode n = t.nodes[i];
    if (n.source >= 0)
      n.source = renumbered[static_cast<size_t>(n.source)];
    renumbered[i] = static_cast<int32_t>(kept);
    t.nodes[kept++] = n;
  }
  t.nodes.resize(kept);
  // The contexts the kept nodes name, renumbered the same way.
  std::vector<int32_t> context_of(t.contexts.size(), -1);
  for (const TraceNode &n : t.nodes)
    if (n.context >= 0)
      context_of[static_cast<size_t>(n.context)] = 0;
  size_t contexts = 0;
  for (size_t i = 0; i < t.contexts.size(); ++i)
    if (context_of[i] == 0) {
      context_of[i] = static_cast<int32_t>(contexts);
      if (i != contexts) // a self-move would empty it
        t.contexts[contexts] = std::move(t.contexts[i]);
      ++contexts;
    }
  t.contexts.resize(contexts);
  for (TraceNode &n : t.nodes)
    if (n.context >= 0)
      n.context = context_of[static_cast<size_t>(n.context)];
  for (int32_t *root : roots)
    if (*root >= 0)
      *root = static_cast<size_t>(*root) < renumbered.size()
                  ? renumbered[static_cast<size_t>(*root)]
                  : -1;
  ++t.compactions;
  // The next one when the record doubles: compactions stay linear in all.
  t.compact_at = 2 * kept;
}

void Machine::trace_read_log(int buffer, int64_t cell, int32_t node, bool first_of_interval,
                             bool other_reader) {
  auto &entry = trace_->reads[cell_key(buffer, cell)];
  if (first_of_interval)
    entry = {epoch_, node, -1};
  else if (other_reader && entry.epoch == epoch_)
    entry.other = node;
}

void Machine::trace_refine(int buffer, int64_t k) {
  // The interval's reads of each cell now belong to each of its parts.
  std::vector<std::pair<int64_t, Trace::Reads>> moved;
  std::erase_if(trace_->reads, [&](const auto &entry) {
    if (static_cast<int>(entry.first >> 40) != buffer)
      return false;
    moved.emplace_back(static_cast<int64_t>(entry.first & ((uint64_t{1} << 40) - 1)), entry.second);
    return true;
  });
  for (const auto &[cell, reads] : moved)
    for (int64_t j = 0; j < k; ++j)
      trace_->reads[cell_key(buffer, cell * k + j)] = reads;
}

int32_t Machine::trace_reader(int buffer, int64_t cell, int64_t not_lane) const {
  auto it = trace_->reads.find(cell_key(buffer, cell));
  if (it == trace_->reads.end() || it->second.epoch != epoch_)
    return -1;
  const auto [epoch, first, other] = it->second;
  if (first >= 0 && trace_->nodes[static_cast<size_t>(first)].lane != not_lane)
    return first;
  return other >= 0 ? other : first;
}

void Machine::blame(Where &where, const Tag &tag) const {
  where.origin = origin_site(tag.origin);
  if (trace_) [[unlikely]] {
    where.from = tag.origin;
    where.tag = tag;
  }
}

json Machine::trace_step(const TraceNode &n) const {
  json step = {{"action", action_name(n.action)}};
  if (n.site >= 0 && static_cast<size_t>(n.site) < sites_.size()) {
    const Range &r = sites_[static_cast<size_t>(n.site)].range;
    step["program_point"] = point_json(r.begin);
    step["end"] = point_json(r.end);
  }
  if (n.buffer >= 0) {
    const Buffer &b = buffers_[static_cast<size_t>(n.buffer)];
    step["space"] = sema::to_string(b.space);
    step["tensor"] = b.name;
    if (n.cell >= 0)
      step["element"] = cell_coords(b, n.cell / b.cell_bytes);
    if (n.action == TraceAction::Read && n.source < 0 && !n.summary &&
        b.space == MemorySpace::Global && n.write_site < 0)
      step["written_by"] = "host";
  }
  if (n.summary) {
    step["summary"] = true; // past the record's cap: no thread, no source
    return step;
  }
  const TraceContext &c = trace_->contexts[static_cast<size_t>(n.context)];
  if (n.lane >= 0) {
    const auto t = thread_coord(n.lane);
    step["thread"] = {{"block", c.block},
                      {"thread", {t[0], t[1], t[2]}},
                      {"warp", n.lane / warp_size_},
                      {"lane", n.lane % warp_size_}};
  }
  json iteration = json::object();
  for (const auto &[name, value] : c.iteration)
    iteration[name] = value;
  step["iteration"] = std::move(iteration);
  Tag tag;
  std::copy(n.fields.begin(), n.fields.end(), tag.field.begin());
  step["tag"] = tag_json(tag);
  return step;
}

json Machine::trace_history(const Where &where) const {
  std::vector<int32_t> chain;
  // Bounds-checked: a tag a compaction could not see (a loop bound, say) may
  // name a node that is gone.
  for (int32_t n = where.from; n >= 0 && static_cast<size_t>(n) < trace_->nodes.size() &&
                               chain.size() < trace_->nodes.size();
       n = trace_->nodes[static_cast<size_t>(n)].source)
    chain.push_back(n);
  std::reverse(chain.begin(), chain.end());
  json steps = json::array();
  if (!chain.empty() && trace_->nodes[static_cast<size_t>(chain.front())].summary)
    steps.push_back(
        {{"action", "elided"},
         {"reason", "the replay's record was full (" + std::to_string(trace_->hard_cap()) +
                        " live accesses); earlier steps are not known"}});
  // A loop that reads and writes the same cell (acc += ...) repeats the same
  // two steps every iteration: keep its first and last round.
  auto key = [&](size_t i) {
    const TraceNode &n = trace_->nodes[static_cast<size_t>(chain[i])];
    return std::make_tuple(n.action, n.site, n.buffer, n.cell, n.lane);
  };
  std::vector<json> kept;
  size_t repeated = 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    // Rounds a compaction spliced out come just before the node that had them.
    repeated += trace_->nodes[static_cast<size_t>(chain[i])].spliced;
    if (i >= 2 && i + 2 < chain.size() && key(i) == key(i - 2) && key(i) == key(i + 2)) {
      ++repeated;
      continue;
    }
    if (repeated > 0)
      kept.push_back({{"action", "elided"}, {"steps", repeated}, {"why", "repeated"}});
    repeated = 0;
    kept.push_back(trace_step(trace_->nodes[static_cast<size_t>(chain[i])]));
  }
  const bool long_chain = kept.size() > kHeadSteps + kTailSteps;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (long_chain && i == kHeadSteps) {
      const size_t skipped = kept.size() - kHeadSteps - kTailSteps;
      steps.push_back({{"action", "elided"}, {"steps", skipped}});
      i += skipped - 1;
      continue;
    }
    steps.push_back(std::move(kept[i]));
  }
  json last = {{"action", "violation"},
               {"program_point", point_json(where.range.begin)},
               {"end", point_json(where.range.end)},
               {"thread", thread_json(where.lane)},
               {"iteration", iteration_json(where.lane)}};
  if (!where.tensor.empty()) {
    last["tensor"] = where.tensor;
    last["element"] = where.coord;
  }
  if (where.tag)
    last["tag"] = tag_json(*where.tag);
  steps.push_back(std::move(last));
  return steps;
}

} // namespace argus::check::detail
