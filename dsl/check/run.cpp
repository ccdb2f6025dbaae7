// One execution of a kernel at one size instance: global tensors, the grid,
// and every block (or the boundary blocks of a large grid).
#include "contents.h"
#include "machine.h"

#include <set>

namespace argus::check::detail {

using ast::Expr;
using ast::ExprKind;

void Machine::run(const std::map<std::string, int64_t> &sizes,
                  const std::vector<std::array<int64_t, 3>> &only_blocks) {
  run_blocks(sizes, only_blocks, 0, 1);
}

bool Machine::run_part(const std::map<std::string, int64_t> &sizes, int part, int parts) {
  return run_blocks(sizes, {}, part, parts);
}

bool Machine::run_blocks(const std::map<std::string, int64_t> &sizes,
                         const std::vector<std::array<int64_t, 3>> &only_blocks, int part,
                         int parts) {
  sizes_ = sizes;
  for (int d = 0; d < 3; ++d)
    block_dim_[static_cast<size_t>(d)] =
        d < static_cast<int>(kernel_.block.size())
            ? std::max<int64_t>(1, kernel_.block[static_cast<size_t>(d)])
            : 1;
  block_threads_ = block_dim_[0] * block_dim_[1] * block_dim_[2];
  lanes_ = block_threads_ * cluster_size_;
  warps_ = (lanes_ + warp_size_ - 1) / warp_size_;
  warp_clock_.assign(static_cast<size_t>(warps_ * warps_), 0);
  env_.clear();
  buffers_.clear();
  param_buffers_.clear();
  content_names_.clear();
  content_order_site_.clear();
  order_taints_.clear();
  has_unknown_contents_ = false;
  stated_tensors_ = stated_tensors(file_, kernel_);
  const ast::Function &fn = *kernel_.function;
  // Scalars first: tensor shapes name them.
  for (size_t i = 0; i < fn.params.size() && i < kernel_.params.size(); ++i) {
    const Symbol *p = kernel_.params[i];
    if (!p || p->type.is_tensor())
      continue;
    if (auto it = sizes.find(p->name); it != sizes.end())
      env_[p] = uniform_int(it->second, p->type.scalar);
    else if (p->value)
      env_[p] = uniform_int(*p->value);
    else if (fn.params[i].default_value)
      if (auto c = sema_.constant_of(*fn.params[i].default_value))
        env_[p] = uniform_int(*c);
    if (!env_.count(p))
      env_[p] = p->type.kind == sema::TypeKind::Scalar && sema::is_float(p->type.scalar)
                    ? make_data(p->type.scalar, 1, true)
                    : uniform_int(0);
  }
  const Mask all = full_mask();
  int64_t total_cells = 0;
  for (size_t i = 0; i < fn.params.size() && i < kernel_.params.size(); ++i) {
    const Symbol *p = kernel_.params[i];
    if (!p || !p->type.is_tensor())
      continue;
    const Expr *annotation = fn.params[i].annotation.get();
    if (!annotation || annotation->kind != ExprKind::Call || annotation->arg_count() < 2)
      continue;
    Buffer b;
    b.name = p->name;
    b.space = MemorySpace::Global;
    b.dtype = p->type.tensor->dtype;
    b.shape = const_tuple(annotation->arg(0), all);
    b.strides.assign(b.shape.size(), 1);
    for (size_t d = b.shape.size(); d-- > 1;)
      b.strides[d - 1] = b.strides[d] * b.shape[d];
    if (annotation->arg_count() >= 3)
      b.strides = const_tuple(annotation->arg(1), all);
    int64_t cosize = 1;
    for (size_t d = 0; d < b.shape.size(); ++d)
      cosize += std::max<int64_t>(0, b.shape[d] - 1) * b.strides[d];
    b.cells = cosize;
    total_cells += cosize;
    if (total_cells > options_.max_global_cells) {
      Where w;
      w.range = fn.name_range;
      Violation &v = report("unproven", "sizes", w,
                            "could not check kernel '" + fn.name +
                                "' at these sizes: its tensors "
                                "hold more than " +
                                std::to_string(options_.max_global_cells) + " elements",
                            true);
      v.data["thread"] = nullptr;
      return true; // nothing runs at these sizes, in any part
    }
    const int index = new_buffer(std::move(b));
    for (Cell &c : buffers_[static_cast<size_t>(index)].data)
      c.initialized = true; // written by the host
    load_contents(buffers_[static_cast<size_t>(index)], p->name);
    param_buffers_[p] = index;
    View v;
    v.buffer = index;
    v.dtype = buffers_[static_cast<size_t>(index)].dtype;
    v.shape = buffers_[static_cast<size_t>(index)].shape;
    v.strides = buffers_[static_cast<size_t>(index)].strides;
    Value tv;
    tv.kind = ValueKind::View;
    tv.dtype = v.dtype;
    tv.view = std::make_shared<View>(std::move(v));
    env_[p] = std::move(tv);
  }
  for (int d = 0; d < 3; ++d) {
    grid_dim_[static_cast<size_t>(d)] = 1;
    if (d < static_cast<int>(kernel_.grid.size()) && kernel_.grid[static_cast<size_t>(d)]) {
      Value g = data(*kernel_.grid[static_cast<size_t>(d)], all);
      if (g.kind == ValueKind::Data)
        grid_dim_[static_cast<size_t>(d)] = std::max<int64_t>(0, g.at(0));
    }
  }
  const auto params_env = env_;
  const size_t global_buffers = buffers_.size();
  global_buffers_ = global_buffers;
  if (cluster_size_ > 1 && !cluster_geometry_ok())
    return true; // nothing runs at these sizes, in any part

  // Which blocks: all of a small grid; else those at the edges of every dimension.
  auto picks = [&](int64_t g) {
    std::set<int64_t> s;
    for (int64_t x : {int64_t{0}, int64_t{1}, g - 2, g - 1})
      if (x >= 0 && x < g)
        s.insert(x);
    return std::vector<int64_t>(s.begin(), s.end());
  };
  const int64_t total = grid_dim_[0] * grid_dim_[1] * grid_dim_[2];
  const bool all_blocks = total <= options_.max_blocks;
  // What runs is a list of clusters, by their first block (a cluster of one
  // block without @kernel(cluster=...)).
  const auto &c = kernel_.cluster;
  std::vector<std::array<int64_t, 3>> blocks;
  if (!only_blocks.empty()) {
    for (const auto &b : only_blocks) {
      const std::array<int64_t, 3> first = {b[0] - b[0] % c[0], b[1] - b[1] % c[1],
                                            b[2] - b[2] % c[2]};
      if (std::find(blocks.begin(), blocks.end(), first) == blocks.end())
        blocks.push_back(first);
    }
  } else if (all_blocks) {
    for (int64_t z = 0; z < grid_dim_[2]; z += c[2])
      for (int64_t y = 0; y < grid_dim_[1]; y += c[1])
        for (int64_t x = 0; x < grid_dim_[0]; x += c[0])
          blocks.push_back({x, y, z});
  } else {
    for (int64_t z : picks(grid_dim_[2] / c[2]))
      for (int64_t y : picks(grid_dim_[1] / c[1]))
        for (int64_t x : picks(grid_dim_[0] / c[0]))
          blocks.push_back({x * c[0], y * c[1], z * c[2]});
    sampled_blocks_ = blocks;
  }
  if (!only_blocks.empty())
    sampled_blocks_ = blocks; // a replay: no coverage check follows
  all_blocks_ = all_blocks;
  if (parts > 1) {
    if (!only_blocks.empty() || blocks.size() < static_cast<size_t>(parts))
      return false;
    const size_t n = blocks.size();
    const size_t from = n * static_cast<size_t>(part) / static_cast<size_t>(parts);
    const size_t to = n * static_cast<size_t>(part + 1) / static_cast<size_t>(parts);
    blocks = std::vector<std::array<int64_t, 3>>(blocks.begin() + static_cast<ptrdiff_t>(from),
                                                 blocks.begin() + static_cast<ptrdiff_t>(to));
  }
  for (const auto &blk : blocks) {
    if (stopped_)
      break;
    block_ = blk;
    const auto linear = [&](int64_t x, int64_t y, int64_t z) {
      return x + grid_dim_[0] * (y + grid_dim_[1] * z);
    };
    block_linear_ = linear(blk[0], blk[1], blk[2]);
    cluster_blocks_.clear(); // rank r: the block r % x, r / x % y, r / (x y) from the first
    for (int64_t r = 0; r < cluster_size_ && cluster_size_ > 1; ++r)
      cluster_blocks_.push_back(static_cast<int32_t>(
          linear(blk[0] + r % c[0], blk[1] + r / c[0] % c[1], blk[2] + r / (c[0] * c[1]))));
    buffers_.resize(global_buffers);
    env_ = params_env;
    start_block();
    loops_.clear();
    exits_.clear();
    Mask m = all;
    exec_body(fn.body, m);
    if (cluster_size_ > 1 && !stopped_ && !hung_)
      check_cluster_exit();
    blocks_run_ += cluster_size_;
  }
  if (only_blocks.empty() && !stopped_ && parts == 1)
    check_coverage(all_blocks);
  return true;
}

// A grid of whole clusters, and blocks of whole warps (and warpgroups where
// they are a unit): else an error or W0901, and nothing runs.
bool Machine::cluster_geometry_ok() {
  const ast::Function &fn = *kernel_.function;
  Where w;
  w.range = kernel_.cluster_range;
  const auto &cluster = kernel_.cluster;
  for (size_t d = 0; d < 3; ++d)
    if (grid_dim_[d] % cluster[d] != 0) {
      const auto dims = [](const std::array<int64_t, 3> &a) {
        return "(" + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " +
               std::to_string(a[2]) + ")";
      };
      Violation &v =
          report("out-of-bounds", "cluster-grid", w,
                 "kernel '" + fn.name + "': the grid " + dims(grid_dim_) +
                     " is not a whole number of clusters " + dims(cluster) + ": the launch fails");
      v.data["thread"] = nullptr;
      return false;
    }
  if (block_threads_ % warp_size_ != 0 || (uses_warpgroups_ && block_threads_ % kWarpgroup != 0)) {
    Violation &v =
        report("unproven", "interpreter", w,
               "not checked: the checker runs a cluster's blocks side by side and "
               "needs blocks of whole warps (of whole warpgroups with wgmma, setmaxnreg or "
               "warpgroup_id())",
               true);
    v.data["thread"] = nullptr;
    return false;
  }
  return true;
}

} // namespace argus::check::detail
