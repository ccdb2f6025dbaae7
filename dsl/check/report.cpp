// Violations with their counterexample: thread, iteration, element, program
// point and write sites, as a message and as Diagnostic.data.
#include "machine.h"

#include <algorithm>

namespace argus::check::detail {

namespace {

nlohmann::json position_json(const Range &r) {
  return {{"line", r.begin.line}, {"character", r.begin.column}};
}

} // namespace

uint64_t Machine::site_key(const Range &range) {
  return (static_cast<uint64_t>(range.begin.line) << 32) | range.begin.column;
}

bool Machine::already_reported(const std::string &kind, const Range &range) const {
  return reported_.count({kind, site_key(range)}) > 0;
}

bool Machine::should_report(const std::string &kind, const Range &range) {
  return reported_.insert({kind, site_key(range)}).second;
}

std::array<int64_t, 3> Machine::block_coord(int64_t linear) const {
  const int64_t gx = std::max<int64_t>(1, grid_dim_[0]), gy = std::max<int64_t>(1, grid_dim_[1]);
  return {linear % gx, (linear / gx) % gy, linear / (gx * gy)};
}

nlohmann::json Machine::thread_json(int64_t lane) const {
  return thread_json_in(block_of(lane), lane);
}

nlohmann::json Machine::thread_json_in(int64_t block_linear, int64_t lane) const {
  const auto t = thread_coord(lane);
  const auto b = block_coord(block_linear);
  return {{"block", {b[0], b[1], b[2]}},
          {"thread", {t[0], t[1], t[2]}},
          {"warp", lane % block_threads_ / warp_size_},
          {"lane", lane % warp_size_}};
}

std::string Machine::thread_text(int64_t lane) const {
  return thread_text_in(block_of(lane), lane);
}

std::string Machine::thread_text_in(int64_t block_linear, int64_t lane) const {
  const auto t = thread_coord(lane);
  const auto b = block_coord(block_linear);
  std::string s = "block (" + std::to_string(b[0]) + "," + std::to_string(b[1]);
  if (grid_dim_[2] > 1)
    s += "," + std::to_string(b[2]);
  s += "), thread ";
  if (block_dim_[1] > 1 || block_dim_[2] > 1) {
    s += "(" + std::to_string(t[0]) + "," + std::to_string(t[1]);
    if (block_dim_[2] > 1)
      s += "," + std::to_string(t[2]);
    s += ")";
  } else {
    s += std::to_string(t[0]);
  }
  return s;
}

nlohmann::json Machine::iteration_json(int64_t lane) const {
  nlohmann::json it = nlohmann::json::object();
  for (const LoopFrame &f : loops_) {
    auto v = env_.find(f.symbol);
    if (v != env_.end() && v->second.kind == ValueKind::Data)
      it[f.name] = v->second.at(static_cast<size_t>(lane));
  }
  return it;
}

std::string Machine::tag_text(const Tag &t) const {
  std::string s = "{";
  bool first = true;
  for (size_t i = 0; i < field_names_.size(); ++i) {
    if (t.field[i] == kAbsent)
      continue;
    s += (first ? "" : ", ") + field_names_[i] + ": " + field_text(t.field[i]);
    first = false;
  }
  if (t.zero && first)
    return "{} (zeros: a predicated copy with valid=False, a buffer load or a TMA box past the "
           "tensor)";
  return s + "}";
}

nlohmann::json Machine::tag_json(const Tag &t) const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < field_names_.size(); ++i) {
    if (t.field[i] == kAbsent)
      continue;
    if (t.field[i] == kTop)
      j[field_names_[i]] = "mixed";
    else
      j[field_names_[i]] = t.field[i];
  }
  return j;
}

Machine::Where Machine::where_at(const Buffer &b, int64_t lane, int64_t cell,
                                 const Range &at) const {
  Where w;
  w.lane = lane;
  w.range = at;
  w.tensor = b.name;
  w.coord = cell_coords(b, cell);
  return w;
}

Violation &Machine::report(const std::string &kind, const std::string &check, const Where &where,
                           const std::string &message, bool warning) {
  Violation v;
  v.kind = kind;
  v.check = check;
  v.range = where.range;
  v.warning = warning;
  nlohmann::json iteration = iteration_json(where.lane);
  std::string context = thread_text(where.lane);
  for (auto it = iteration.begin(); it != iteration.end(); ++it)
    context += ", " + it.key() + " = " + it.value().dump();
  v.message = message + " (" + context + ")";
  v.data = {{"kind", kind},
            {"check", check},
            {"kernel", kernel_.function->name},
            {"sizes", sizes_},
            {"thread", thread_json(where.lane)},
            {"iteration", iteration},
            {"program_point", position_json(where.range)}};
  if (!where.tensor.empty())
    v.data["element"] = {{"tensor", where.tensor}, {"coord", where.coord}};
  std::vector<int32_t> origins;
  if (where.origin >= 0)
    origins.push_back(where.origin);
  origins.insert(origins.end(), where.more_origins.begin(), where.more_origins.end());
  for (int32_t o : origins) {
    if (o < 0 || static_cast<size_t>(o) >= sites_.size())
      continue;
    const Range &r = sites_[static_cast<size_t>(o)].range;
    if (!v.data.contains("origin"))
      v.data["origin"] = {
          {"line", r.begin.line}, {"character", r.begin.column}, {"note", "written here"}};
    v.related.push_back(RelatedInformation{r, "written here"});
  }
  v.data["fixes"] = nlohmann::json::array();
  if (trace_) [[unlikely]]
    v.history = trace_history(where);
  if (hung_) { // after a deadlock of the block's roles: not a real execution
    muted_ = std::move(v);
    return muted_;
  }
  violations_.push_back(std::move(v));
  return violations_.back();
}

void Machine::not_interpreted(const Range &at, const std::string &why) {
  if (!should_report("unproven", at))
    return;
  Where w;
  w.range = at;
  Violation &v = report("unproven", "interpreter", w,
                        "not checked: " + why + "; what depends on it is not checked either", true);
  v.data["thread"] = nullptr;
}

} // namespace argus::check::detail
