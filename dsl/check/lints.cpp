// Performance lints (warnings): shared-memory bank conflicts per warp access,
// uncoalesced and unvectorized global accesses, fragments re-loaded from
// shared memory although nothing changed them.
#include "machine.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace argus::check::detail {

namespace {

constexpr int64_t kBanks = 32;
constexpr int64_t kBankBytes = 4;
constexpr int64_t kSectorBytes = 32;

struct Conflict {
  int64_t degree = 1;
  int64_t bank = 0;
  std::vector<int64_t> lanes; // the lanes that hit `bank` with distinct words
};

// One phase of a shared-memory access: distinct 4-byte words per bank. A flat
// sorted vector, not a map of maps: this runs for every warp of every shared
// access the interpreter executes and was a quarter of a check's time.
Conflict phase_conflict(const std::pair<int64_t, int64_t> *accesses, size_t count, int64_t bytes) {
  struct Word {
    int64_t bank, word, lane;
    size_t order; // the first access of a word names its lane
  };
  thread_local std::vector<Word> words;
  words.clear();
  const int64_t n = std::max<int64_t>(1, bytes / kBankBytes);
  for (size_t i = 0; i < count; ++i)
    for (int64_t k = 0; k < n; ++k) {
      const int64_t word = accesses[i].second / kBankBytes + k;
      words.push_back({word % kBanks, word, accesses[i].first, words.size()});
    }
  std::sort(words.begin(), words.end(), [](const Word &a, const Word &b) {
    return std::tie(a.bank, a.word, a.order) < std::tie(b.bank, b.word, b.order);
  });
  Conflict c;
  for (size_t i = 0; i < words.size();) {
    size_t end = i;
    int64_t distinct = 0;
    for (; end < words.size() && words[end].bank == words[i].bank; ++end)
      distinct += end == i || words[end].word != words[end - 1].word;
    if (distinct > c.degree) {
      c.degree = distinct;
      c.bank = words[i].bank;
      c.lanes.clear();
      for (size_t j = i; j < end; ++j)
        if (j == i || words[j].word != words[j - 1].word)
          c.lanes.push_back(words[j].lane);
    }
    i = end;
  }
  return c;
}

} // namespace

void Machine::lint_shared_rows(const std::vector<std::pair<int64_t, int64_t>> &lane_addresses,
                               int64_t lanes_per_phase, int64_t bytes, const Range &at,
                               const View &v) {
  // The bank model is NVIDIA's (32 banks of 4 bytes, 128-byte wavefronts);
  // the CDNA3 LDS model is not implemented, so gfx942 kernels get no lint.
  if (!options_.lints || lane_addresses.empty() || kernel_.target == sema::Target::Gfx942)
    return;
  uint64_t pattern = site_key(at);
  const auto mix = [&pattern](uint64_t x) {
    pattern ^= x + 0x9e3779b97f4a7c15ULL + (pattern << 6) + (pattern >> 2);
  };
  mix(static_cast<uint64_t>(v.buffer));
  mix(static_cast<uint64_t>(lanes_per_phase));
  mix(static_cast<uint64_t>(bytes));
  for (const auto &[lane, addr] : lane_addresses) {
    mix(static_cast<uint64_t>(lane % warp_size_));
    mix(static_cast<uint64_t>(addr));
  }
  if (!linted_patterns_.insert(pattern).second)
    return; // judged before: reported then, or free of conflicts
  // The lanes of one phase (lanes_per_phase consecutive lanes of a warp) are
  // served together; the worst phase is reported.
  thread_local std::vector<std::pair<int64_t, int64_t>> phase;
  Conflict worst;
  for (int64_t p = 0; p < std::max<int64_t>(1, warp_size_ / lanes_per_phase); ++p) {
    phase.clear();
    for (const auto &la : lane_addresses)
      if (la.first % warp_size_ / lanes_per_phase == p)
        phase.push_back(la);
    if (phase.size() < 2)
      continue;
    Conflict c = phase_conflict(phase.data(), phase.size(), bytes);
    if (c.degree > worst.degree)
      worst = std::move(c);
  }
  if (worst.degree <= 1 || !should_report("bank-conflict", at))
    return;
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  std::string lanes;
  nlohmann::json lane_list = nlohmann::json::array();
  for (int64_t l : worst.lanes) {
    lanes += (lanes.empty() ? "" : ", ") + std::to_string(l % warp_size_);
    lane_list.push_back(l % warp_size_);
  }
  Where w;
  w.lane = worst.lanes.front();
  w.range = at;
  w.tensor = b.name;
  Violation &viol = report("bank-conflict", "shared-banks", w,
                           std::to_string(worst.degree) + "-way shared-memory bank conflict on " +
                               b.name + ": lanes " + lanes + " of a warp hit bank " +
                               std::to_string(worst.bank) + " with different words",
                           true);
  viol.data["degree"] = worst.degree;
  viol.data["bank"] = worst.bank;
  viol.data["lanes"] = lane_list;
  // Padding the rows of a plain (unswizzled) row-major shared tile is mechanical.
  if (!b.swizzle && b.shape.size() >= 2)
    viol.data["fixes"].push_back("argus.fix.pad-shared");
}

void Machine::lint_shared_access(const View &v, const Mask &m, const Range &at,
                                 int64_t bytes_per_lane) {
  if (!options_.lints)
    return;
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  const int64_t lanes_per_phase = bytes_per_lane >= 16 ? 8 : bytes_per_lane == 8 ? 16 : 32;
  for (int64_t w0 = 0; w0 < lanes_; w0 += warp_size_) {
    std::vector<std::pair<int64_t, int64_t>> accesses;
    for (int64_t l = w0; l < std::min(lanes_, w0 + warp_size_); ++l) {
      if (!m[static_cast<size_t>(l)] || (!v.bad.empty() && v.bad[static_cast<size_t>(l)]))
        continue;
      int64_t byte = element_byte_offset(v, l, 0);
      if (b.swizzle && byte >= 0)
        byte = (*b.swizzle)(byte);
      accesses.emplace_back(l, byte);
    }
    lint_shared_rows(accesses, lanes_per_phase, std::min<int64_t>(bytes_per_lane, 16), at, v);
    if (already_reported("bank-conflict", at))
      return;
  }
}

void Machine::lint_global_access(const View &v, const Mask &m, const Range &at, bool write) {
  if (!options_.lints)
    return;
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  const int64_t bytes = v.elements() * dtype_bytes(v.dtype);
  // Unvectorized: thread 0 of block 0 walks contiguous addresses, a few bytes at a time,
  // over consecutive executions of this access. Only where a 16-byte view of
  // the tensor exists (its rows whole 16-byte units): a table of E + 1
  // offsets read in a loop has none.
  const auto vectorizable = [&] {
    return !b.shape.empty() && (b.shape.back() * dtype_bytes(b.dtype)) % 16 == 0;
  };
  if (bytes < 16 && block_linear_ == 0 && m[0] && (v.bad.empty() || !v.bad[0]) && vectorizable()) {
    Walk &walk = walks_[site_key(at)];
    const int64_t addr = element_byte_offset(v, 0, 0);
    walk.run = addr == walk.last + bytes ? walk.run + 1 : 0;
    walk.last = addr;
    if (walk.run + 1 >= 16 / bytes && should_report("unvectorized", at)) {
      Where w;
      w.lane = 0;
      w.range = at;
      w.tensor = b.name;
      Violation &viol =
          report("unvectorized", "global-vector", w,
                 std::string(write ? "store to " : "load from ") + b.name + " moves " +
                     std::to_string(bytes) + " bytes per thread along contiguous addresses over " +
                     "iterations; a 16-byte view would do " + std::to_string(16 / bytes) +
                     " of them at once",
                 true);
      viol.data["bytes"] = bytes;
    }
  }
  for (int64_t w0 = 0; w0 + warp_size_ <= lanes_; w0 += warp_size_) {
    std::set<int64_t> sectors, addresses;
    for (int64_t l = w0; l < w0 + warp_size_; ++l) {
      if (!m[static_cast<size_t>(l)] || (!v.bad.empty() && v.bad[static_cast<size_t>(l)]))
        continue;
      const int64_t addr = element_byte_offset(v, l, 0);
      addresses.insert(addr);
      for (int64_t s = addr / kSectorBytes; s <= (addr + bytes - 1) / kSectorBytes; ++s)
        sectors.insert(s);
    }
    if (addresses.empty())
      continue;
    const int64_t useful = static_cast<int64_t>(addresses.size()) * bytes;
    const int64_t ideal = std::max<int64_t>(1, (useful + kSectorBytes - 1) / kSectorBytes);
    const int64_t touched = static_cast<int64_t>(sectors.size());
    if (touched <= 2 * ideal || touched <= 2)
      continue;
    if (!should_report("uncoalesced", at))
      return;
    Where w;
    w.lane = w0;
    w.range = at;
    w.tensor = b.name;
    Violation &viol = report("uncoalesced", "global-coalescing", w,
                             std::string(write ? "store to " : "load from ") + b.name +
                                 " is uncoalesced: a warp " + "touches " + std::to_string(touched) +
                                 " 32-byte sectors for " + std::to_string(useful) + " bytes (" +
                                 std::to_string(ideal) + " would do)",
                             true);
    viol.data["sectors"] = touched;
    viol.data["ideal_sectors"] = ideal;
    return;
  }
}

void Machine::lint_reload(const View &src, const Mask &m, const Range &at) {
  if (!options_.lints || loops_.empty())
    return;
  Buffer &b = buffers_[static_cast<size_t>(src.buffer)];
  if (b.space != MemorySpace::Shared)
    return;
  const uint64_t site = site_key(at);
  auto &seen = loads_[site];
  for (int64_t lane = 0; lane < lanes_; ++lane) {
    if (!m[static_cast<size_t>(lane)] || (!src.bad.empty() && src.bad[static_cast<size_t>(lane)]))
      continue;
    const int64_t idx = cell_index(b, element_byte_offset(src, lane, 0));
    if (idx < 0 || idx >= b.cells)
      continue;
    const uint32_t version = cell(b, lane, idx).version;
    const uint64_t key = (static_cast<uint64_t>(lane) << 40) | static_cast<uint64_t>(idx);
    auto [it, inserted] = seen.emplace(key, version);
    if (inserted || it->second != version || version == 0) {
      it->second = version;
      continue;
    }
    if (!should_report("fragment-reload", at))
      return;
    Where w = where_at(b, lane, idx, at);
    report("fragment-reload", "shared-reload", w,
           "fragment re-loaded from " + b.name +
               " although the shared data did not change since this thread last loaded it; "
               "keep it in registers across the loop",
           true);
    return;
  }
}

} // namespace argus::check::detail
