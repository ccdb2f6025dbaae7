// Layout algebra benchmark: composition, divides and products of typical
// GEMM / attention layouts (depth <= 3, rank <= 4). Prints the median and the
// fastest time per operation over many repetitions. Target: well under 10 us.
#include "argus/layout/layout.h"
#include "argus/layout/layout_expr.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace argus::layout;

namespace {

// Results feed this so the optimizer cannot drop the work.
volatile int64_t g_sink = 0;

int64_t digest(const Result<Layout> &r) {
  if (!r.ok())
    return -1;
  const IntTuple flat = flatten(r->stride());
  return flat.rank() + (flat.is_leaf() ? flat.value() : flat[0].value());
}

Layout parse(const char *text) {
  Result<Layout> r = parse_layout(text);
  if (!r.ok()) {
    std::fprintf(stderr, "bad layout %s: %s\n", text, r.message().c_str());
    std::exit(1);
  }
  return *r;
}

struct Case {
  std::string name;
  std::string what;
  std::function<int64_t()> op;
};

struct Timing {
  double median_ns;
  double min_ns;
};

Timing measure(const Case &c) {
  using Clock = std::chrono::steady_clock;
  // Calibrate the batch to roughly 2 ms.
  int batch = 1;
  for (;;) {
    const auto start = Clock::now();
    for (int i = 0; i < batch; ++i)
      g_sink = g_sink + c.op();
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (ns > 2e6 || batch >= (1 << 20))
      break;
    batch *= 2;
  }
  std::vector<double> samples;
  for (int s = 0; s < 51; ++s) {
    const auto start = Clock::now();
    for (int i = 0; i < batch; ++i)
      g_sink = g_sink + c.op();
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                      batch);
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front()};
}

} // namespace

int main() {
  const Layout gemm_a = parse("(4096,4096):(4096,1)");
  const Tiler cta_tile = Tiler::from_shape(*parse_int_tuple("(128,64)"));
  const Layout attn_q = parse("(8,16,4096,128):(8388608,524288,128,1)");
  const Tiler attn_tile = Tiler(std::vector<Tiler>{Tiler(Layout(1, 1)), Tiler(Layout(1, 1)),
                                                   Tiler(Layout(64, 1)), Tiler(Layout(128, 1))});
  const Layout mma_c_tv = parse("((4,8),(2,2)):((32,1),(16,8))");
  const Layout mma_a_tv = parse("((4,8),(2,2,2)):((32,1),(16,8,128))");
  const Layout c_tile = parse("(16,8):(4096,1)");
  const Layout a_tile = parse("(16,16):(4096,1)");
  const Layout wgmma_c_tv = parse("((4,8,4),(2,2,32)):((128,1,16),(64,8,512))");
  const Layout wgmma_tile = parse("(64,256):(256,1)");
  const Layout smem_atom = parse("(8,64):(64,1)");
  const Layout warp_grid = parse("(2,2):(1,2)");
  const IntTuple smem_shape = *parse_int_tuple("(128,64)");
  const Layout v9_a = parse("20:2");
  const Layout v9_b = parse("(5,4):(4,1)");
  const Layout v17 = parse("(2,2):(4,1)");

  const std::vector<Case> cases = {
      {"zipped_divide GEMM", "(4096,4096):(4096,1) / (128,64)",
       [&] { return digest(zipped_divide(gemm_a, cta_tile)); }},
      {"logical_divide GEMM", "(4096,4096):(4096,1) / (128,64)",
       [&] { return digest(logical_divide(gemm_a, cta_tile)); }},
      {"tiled_divide attention", "(8,16,4096,128):(...) / (1,1,64,128)",
       [&] { return digest(tiled_divide(attn_q, attn_tile)); }},
      {"composition tile o TV (mma C)", "(16,8):(4096,1) o ((4,8),(2,2)):((32,1),(16,8))",
       [&] { return digest(composition(c_tile, mma_c_tv)); }},
      {"composition tile o TV (mma A)", "(16,16):(4096,1) o ((4,8),(2,2,2)):(...)",
       [&] { return digest(composition(a_tile, mma_a_tv)); }},
      {"composition tile o TV (wgmma C)", "(64,256):(256,1) o ((4,8,4),(2,2,32)):(...)",
       [&] { return digest(composition(wgmma_tile, wgmma_c_tv)); }},
      {"composition 20:2 o (5,4):(4,1)", "vector 9",
       [&] { return digest(composition(v9_a, v9_b)); }},
      {"right_inverse TV (wgmma C)", "((4,8,4),(2,2,32)):(...)",
       [&] { return digest(right_inverse(wgmma_c_tv)); }},
      {"complement (2,2):(4,1), 24", "vector 17", [&] { return digest(complement(v17, 24)); }},
      {"blocked_product smem atom", "(8,64):(64,1) x (2,2):(1,2)",
       [&] { return digest(blocked_product(smem_atom, warp_grid)); }},
      {"tile_to_shape smem atom", "(8,64):(64,1) -> (128,64)",
       [&] { return digest(tile_to_shape(smem_atom, smem_shape)); }},
      {"evaluate_expression", "logical_divide((4096,4096):(4096,1), (128,64)) as text",
       [&] {
         const auto e = calc::evaluate_expression("logical_divide((4096,4096):(4096,1), (128,64))");
         return static_cast<int64_t>(e.value.has_value());
       }},
  };

  std::printf("%-34s %-52s %4s %10s %10s\n", "operation", "operands", "ok", "median ns", "min ns");
  for (const Case &c : cases) {
    const bool ok = c.op() >= 0;
    const Timing t = measure(c);
    std::printf("%-34s %-52s %4s %10.0f %10.0f\n", c.name.c_str(), c.what.c_str(),
                ok ? "yes" : "NO", t.median_ns, t.min_ns);
  }
  return g_sink == 42 ? 1 : 0;
}
