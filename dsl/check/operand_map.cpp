#include "operand_map.h"

#include "argus/layout/tv_layouts.h"

#include <map>

namespace argus::check::detail {

namespace {

OperandMap make_operand_map(const std::string &instruction, const char *operand) {
  OperandMap map;
  const layout::TvLayout *tv = layout::find_tv_entry(instruction, operand);
  if (!tv || layout::is_broadcast(*tv))
    return map;
  map.rows = tv->rows;
  map.cols = tv->cols;
  map.threads = tv->threads;
  map.values = layout::values_per_thread(*tv);
  map.thread.assign(static_cast<size_t>(map.rows * map.cols), -1);
  map.value.assign(map.thread.size(), -1);
  for (int v = 0; v < map.values; ++v)
    for (int t = 0; t < map.threads; ++t) {
      auto idx = tv->layout(static_cast<int64_t>(t) + static_cast<int64_t>(map.threads) * v);
      if (!idx.ok() || *idx < 0 || *idx >= static_cast<int64_t>(map.thread.size()))
        return map;
      map.thread[static_cast<size_t>(*idx)] = t;
      map.value[static_cast<size_t>(*idx)] = v;
    }
  map.ok = true;
  return map;
}

} // namespace

const OperandMap &operand_map(const std::string &instruction, const char *operand) {
  // Per thread: checks run on several threads at once.
  static thread_local std::map<std::string, OperandMap> cache;
  const std::string key = instruction + "/" + operand;
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, make_operand_map(instruction, operand)).first;
  return it->second;
}

} // namespace argus::check::detail
