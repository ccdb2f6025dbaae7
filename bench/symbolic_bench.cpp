// Symbolic layout benchmark: building the closed-form index expression of a
// fragment layout at symbolic (thread, value), as the checker and the code
// generator do for every fragment access. Prints the median and the fastest
// time per construction over many repetitions. Target: under 50 us for a
// 128-thread fragment layout.
//
// "fresh": a new ExprContext per repetition (construction and destruction
// included), the cost of the first evaluation; its `nodes` column counts the
// nodes the construction created. "warm": one context reused, so every node
// is already interned (the cost of re-evaluating in a checker session); its
// `nodes` column is the size of the resulting expression DAG.
#include "argus/layout/expr.h"
#include "argus/layout/symbolic_layout.h"
#include "argus/layout/tv_layouts.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace argus::layout;

namespace {

volatile uint64_t g_sink = 0;

Layout parse(const char *text) {
  Result<Layout> r = parse_layout(text);
  if (!r.ok()) {
    std::fprintf(stderr, "bad layout %s: %s\n", text, r.message().c_str());
    std::exit(1);
  }
  return *r;
}

struct Timing {
  double median_us;
  double min_us;
};

Timing measure(const std::function<uint64_t()> &op) {
  using Clock = std::chrono::steady_clock;
  int batch = 1;
  for (;;) {
    const auto start = Clock::now();
    for (int i = 0; i < batch; ++i)
      g_sink = g_sink + op();
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (ns > 2e6 || batch >= (1 << 20))
      break;
    batch *= 2;
  }
  std::vector<double> samples;
  for (int s = 0; s < 101; ++s) {
    const auto start = Clock::now();
    for (int i = 0; i < batch; ++i)
      g_sink = g_sink + op();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                      batch);
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front()};
}

// One fragment evaluation: the layout at index t + T·v.
struct Fragment {
  std::string name;
  Layout layout;
  int64_t threads;
  int64_t values;
};

ExprRef build(ExprContext &ctx, const Fragment &f) {
  ExprRef t = ctx.symbol("tid", Interval::half_open(0, f.threads));
  ExprRef v = ctx.symbol("v", Interval::half_open(0, f.values));
  return evaluate(ctx, f.layout, ctx.add(t, ctx.mul(ctx.constant(f.threads), v)));
}

void row(const std::string &name, const std::string &mode, const Timing &t, size_t nodes,
         const std::string &expr) {
  std::printf("%-38s %-6s %9.2f %9.2f %7zu  %s\n", name.c_str(), mode.c_str(), t.median_us,
              t.min_us, nodes, expr.c_str());
}

} // namespace

int main() {
  std::vector<Fragment> fragments;
  for (const char *instr : {"wgmma_m64n128k16_bf16", "wgmma_m64n256k16_bf16"}) {
    const TvLayout *tv = find_tv_entry(instr, "C");
    fragments.push_back(
        {std::string(instr) + " C", tv->layout, tv->threads, values_per_thread(*tv)});
  }
  for (const auto &[instr, op] : std::vector<std::pair<const char *, const char *>>{
           {"mma_m16n8k16_bf16", "A"}, {"mfma_f32_32x32x8_bf16", "C"}}) {
    const TvLayout *tv = find_tv_entry(instr, op);
    fragments.push_back(
        {std::string(instr) + " " + op, tv->layout, tv->threads, values_per_thread(*tv)});
  }

  std::printf("%-38s %-6s %9s %9s %7s  %s\n", "expression", "ctx", "median_us", "min_us", "nodes",
              "result (C++)");
  for (const Fragment &f : fragments) {
    // Fresh context each time.
    const Timing fresh = measure([&] {
      ExprContext ctx;
      return build(ctx, f).hash();
    });
    ExprContext warm_ctx;
    const ExprRef e = build(warm_ctx, f);
    const Timing warm = measure([&] { return build(warm_ctx, f).hash(); });
    ExprContext count_ctx;
    build(count_ctx, f);
    row(f.name + " @ tid+T*v", "fresh", fresh, count_ctx.node_count(), to_cpp(e));
    row(f.name + " @ tid+T*v", "warm", warm, dag_size(e), "");
  }

  // Symbolic sizes: a column-major (M, N, K) tensor at a symbolic index.
  {
    auto op = [](ExprContext &ctx) {
      ExprRef M = ctx.symbol("M", Interval::positive());
      ExprRef N = ctx.symbol("N", Interval::positive());
      ExprRef K = ctx.symbol("K", Interval::positive());
      ExprRef i = ctx.symbol("i");
      const SymbolicLayout l = make_symbolic_layout_left(ctx, ExprTuple::tuple({M, N, K}));
      return evaluate(ctx, l, i);
    };
    const Timing fresh = measure([&] {
      ExprContext ctx;
      return op(ctx).hash();
    });
    ExprContext ctx;
    const ExprRef e = op(ctx);
    row("LayoutLeft (M,N,K) @ i", "fresh", fresh, ctx.node_count(), to_cpp(e));
  }

  // A swizzled shared-memory tile: Sw<3,4,3> o (64,64):(64,1), 2-byte elements.
  {
    const Result<SwizzledLayout> sl =
        composition(*make_swizzle(3, 4, 3), parse("(64,64):(64,1)"), 2);
    auto op = [&](ExprContext &ctx) {
      ExprRef r = ctx.symbol("r", Interval::half_open(0, 64));
      ExprRef c = ctx.symbol("c", Interval::half_open(0, 64));
      return evaluate(ctx, *sl, ctx.add(r, ctx.mul(ctx.constant(64), c)));
    };
    const Timing fresh = measure([&] {
      ExprContext ctx;
      return op(ctx).hash();
    });
    ExprContext ctx;
    const ExprRef e = op(ctx);
    row("Sw<3,4,3> o (64,64):(64,1) @ r+64c", "fresh", fresh, ctx.node_count(), to_cpp(e));
  }

  // Printing the wgmma accumulator expression as C++.
  {
    ExprContext ctx;
    const ExprRef e = build(ctx, fragments[0]);
    const Timing print = measure([&] { return static_cast<uint64_t>(to_cpp(e).size()); });
    row("to_cpp(wgmma_m64n128k16 C)", "-", print, dag_size(e), "");
  }
  return static_cast<int>(g_sink & 0);
}
