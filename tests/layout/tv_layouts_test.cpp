// Thread–value layouts against the vendors' per-lane formulas, element by
// element. The formulas below are written from the vendor documents (PTX ISA
// fragment figures, AMD's matrix instruction calculator), independently of
// the table in tv_layouts.cpp: for each (t, v), layout(t + T·v) must be the
// column-major index of the element that lane t holds in value v.
#include "argus/layout/tv_layouts.h"

#include "argus/layout/symbolic_layout.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace argus::layout {
namespace {

// (row, col) of the element thread t holds as value v.
struct Element {
  int row;
  int col;
};
using Formula = std::function<Element(int t, int v)>;

const TvLayout &entry(std::string_view instruction, std::string_view operand) {
  const TvLayout *e = find_tv_entry(instruction, operand);
  EXPECT_NE(e, nullptr) << instruction << " " << operand;
  static const TvLayout kNone{};
  return e != nullptr ? *e : kNone;
}

// Every (t, v): layout(t + T·v) == row + rows·col, and every element is
// inside the matrix.
// `thread_step` > 1 checks every thread_step-th thread and the last one.
void expect_matches(const TvLayout &tv, int values, const Formula &f, int thread_step = 1) {
  ASSERT_GT(tv.threads, 0);
  ASSERT_EQ(values_per_thread(tv), values) << tv.instruction << " " << tv.operand;
  std::vector<int> threads;
  for (int t = 0; t < tv.threads; t += thread_step)
    threads.push_back(t);
  if (threads.back() != tv.threads - 1)
    threads.push_back(tv.threads - 1);
  for (int v = 0; v < values; ++v) {
    for (int t : threads) {
      const Element e = f(t, v);
      ASSERT_GE(e.row, 0);
      ASSERT_LT(e.row, tv.rows);
      ASSERT_GE(e.col, 0);
      ASSERT_LT(e.col, tv.cols);
      Result<int64_t> got = tv.layout(t + int64_t{tv.threads} * v);
      ASSERT_TRUE(got.ok()) << got.message();
      ASSERT_EQ(*got, e.row + int64_t{tv.rows} * e.col)
          << tv.instruction << " " << tv.operand << " thread " << t << " value " << v
          << ": expected (" << e.row << ", " << e.col << ")";
    }
  }
}

// A bijection from [0, T·V) onto [0, rows·cols).
void expect_bijection(const TvLayout &tv) {
  const int64_t n = size(tv.layout).value_or(0);
  ASSERT_EQ(n, int64_t{tv.rows} * tv.cols) << tv.instruction << " " << tv.operand;
  std::set<int64_t> seen;
  for (int64_t i = 0; i < n; ++i) {
    Result<int64_t> o = tv.layout(i);
    ASSERT_TRUE(o.ok());
    ASSERT_GE(*o, 0);
    ASSERT_LT(*o, n);
    ASSERT_TRUE(seen.insert(*o).second)
        << tv.instruction << " " << tv.operand << " maps two indices to " << *o;
  }
}

// ---------------------------------------------------------------------------
// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type".
int group_id(int lane) { return lane >> 2; }
int thread_in_group(int lane) { return lane % 4; }

Element mma_a(int lane, int i) { // a0..a7, 16×16
  const int row = (i == 0 || i == 1 || i == 4 || i == 5) ? group_id(lane) : group_id(lane) + 8;
  const int col = thread_in_group(lane) * 2 + (i & 1) + (i >= 4 ? 8 : 0);
  return {row, col};
}
Element mma_b(int lane, int i) { // b0..b3, K×N = 16×8; (row, col) here is (n, k)
  const int k = thread_in_group(lane) * 2 + (i & 1) + (i >= 2 ? 8 : 0);
  const int n = group_id(lane);
  return {n, k};
}
Element mma_c(int lane, int i) { // c0..c3, 16×8
  const int row = i < 2 ? group_id(lane) : group_id(lane) + 8;
  const int col = thread_in_group(lane) * 2 + (i & 1);
  return {row, col};
}

TEST(TvLayoutTest, MmaM16n8k16MatchesThePtxFragments) {
  for (std::string_view dtype : {"bf16", "f16"}) {
    const std::string name = "mma_m16n8k16_" + std::string(dtype);
    expect_matches(entry(name, "A"), 8, mma_a);
    expect_matches(entry(name, "B"), 4, mma_b);
    expect_matches(entry(name, "C"), 4, mma_c);
    for (std::string_view op : {"A", "B", "C"})
      expect_bijection(entry(name, op));
  }
}

// ---------------------------------------------------------------------------
// PTX ISA, wgmma "Register Fragments and Shared Memory Matrix Layouts":
// warp w of the warpgroup owns rows 16w..16w+15 of D (and of A in
// registers); inside the warp, the mma.m16n8k16 pattern, repeated every 8
// columns of D.
Element wgmma_d(int t, int i) {
  const int w = t / 32, lane = t % 32;
  const int row = 16 * w + group_id(lane) + 8 * ((i % 4) / 2);
  const int col = (i / 4) * 8 + thread_in_group(lane) * 2 + (i & 1);
  return {row, col};
}
Element wgmma_a_reg(int t, int i) {
  const int w = t / 32, lane = t % 32;
  const Element e = mma_a(lane, i);
  return {16 * w + e.row, e.col};
}

TEST(TvLayoutTest, WgmmaM64nNk16MatchesThePtxFragments) {
  int checked = 0;
  for (std::string_view dtype : {"bf16", "f16"}) {
    for (int n = 8; n <= 256; n += 8) {
      const std::string name = "wgmma_m64n" + std::to_string(n) + "k16_" + std::string(dtype);
      const TvLayout &c = entry(name, "C");
      EXPECT_EQ(c.rows, 64);
      EXPECT_EQ(c.cols, n);
      expect_matches(c, n / 2, wgmma_d);
      expect_bijection(c);
      expect_matches(entry(name, "A_reg"), 8, wgmma_a_reg);
      expect_bijection(entry(name, "A_reg"));
      // Shared-memory operands: every thread sees the whole tile, values in
      // column-major order (m + 64·k for A, n + N·k for B).
      const TvLayout &a = entry(name, "A");
      const TvLayout &b = entry(name, "B");
      EXPECT_TRUE(is_broadcast(a));
      EXPECT_TRUE(is_broadcast(b));
      EXPECT_FALSE(is_broadcast(c));
      const int step = (n == 8 || n == 256) ? 1 : 31; // every thread for some N
      expect_matches(
          a, 64 * 16,
          [](int, int v) {
            return Element{v % 64, v / 64};
          },
          step);
      expect_matches(
          b, n * 16,
          [n](int, int v) {
            return Element{v % n, v / n};
          },
          step);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 64);
}

// ---------------------------------------------------------------------------
// AMD matrix instruction calculator, CDNA3, wave64. Lane l; value v is the
// element index inside the lane's operand vector (for 16-bit inputs, v = 2g +
// half with g the VGPR and half the 16-bit half of it).
Element mfma32_ab(int l, int v) { return {l % 32, 4 * (l / 32) + v}; } // (i or j, k)
Element mfma32_d(int l, int g) { return {8 * (g / 4) + 4 * (l / 32) + g % 4, l % 32}; }
Element mfma16_ab(int l, int v) { return {l % 16, 4 * (l / 16) + v}; }
Element mfma16_d(int l, int g) { return {4 * (l / 16) + g, l % 16}; }
Element mfma16x32_ab(int l, int v) { return {l % 16, 8 * (l / 16) + v}; }

TEST(TvLayoutTest, MfmaMatchesTheCalculator) {
  for (std::string_view dtype : {"bf16", "f16"}) {
    const std::string big = "mfma_f32_32x32x8_" + std::string(dtype);
    expect_matches(entry(big, "A"), 4, mfma32_ab);
    expect_matches(entry(big, "B"), 4, mfma32_ab);
    expect_matches(entry(big, "C"), 16, mfma32_d);
    const std::string small = "mfma_f32_16x16x16_" + std::string(dtype);
    expect_matches(entry(small, "A"), 4, mfma16_ab);
    expect_matches(entry(small, "B"), 4, mfma16_ab);
    expect_matches(entry(small, "C"), 4, mfma16_d);
    for (std::string_view op : {"A", "B", "C"}) {
      expect_bijection(entry(big, op));
      expect_bijection(entry(small, op));
    }
  }
  expect_matches(entry("mfma_f32_16x16x32_fp8", "A"), 8, mfma16x32_ab);
  expect_matches(entry("mfma_f32_16x16x32_fp8", "B"), 8, mfma16x32_ab);
  expect_matches(entry("mfma_f32_16x16x32_fp8", "C"), 4, mfma16_d);
  for (std::string_view op : {"A", "B", "C"})
    expect_bijection(entry("mfma_f32_16x16x32_fp8", op));
}

// ---------------------------------------------------------------------------
// The table as a whole.

TEST(TvLayoutTest, TableIsCompleteAndConsistent) {
  const std::span<const TvLayout> all = all_tv_layouts();
  EXPECT_EQ(all.size(), 6u + 15u + 2u * 32u * 4u);
  std::set<std::pair<std::string_view, std::string_view>> keys;
  for (const TvLayout &e : all) {
    EXPECT_TRUE(keys.insert({e.instruction, e.operand}).second)
        << "duplicate " << e.instruction << " " << e.operand;
    EXPECT_FALSE(e.citation.empty()) << e.instruction;
    const int64_t n = size(e.layout).value_or(0);
    EXPECT_EQ(n % e.threads, 0) << e.instruction << " " << e.operand;
    // Thread mode first: its size is the thread count.
    Result<Layout> threads = mode(e.layout, 0);
    ASSERT_TRUE(threads.ok());
    EXPECT_EQ(size(*threads).value_or(0), e.threads) << e.instruction << " " << e.operand;
    if (!is_broadcast(e))
      expect_bijection(e);
  }
}

TEST(TvLayoutTest, LookupAcceptsTheDslAndVendorSpellings) {
  const std::optional<Layout> a = find_tv_layout("mma_m16n8k16_bf16", "A");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(to_string(*a), "((4,8),(2,2,2)):((32,1),(16,8,128))");
  EXPECT_EQ(find_tv_layout("nvvm.mma_m16n8k16_bf16_f32", "A"), a);
  EXPECT_EQ(find_tv_layout("mma_m16n8k16_bf16", "D"), find_tv_layout("mma_m16n8k16_bf16", "C"));
  EXPECT_EQ(to_string(*find_tv_layout("amdgpu.mfma_f32_32x32x8_bf16", "C")),
            "((32,2),(4,4)):((32,4),(1,8))");
  EXPECT_TRUE(find_tv_layout("v_mfma_f32_32x32x8_bf16_1k", "A").has_value());
  EXPECT_TRUE(find_tv_layout("v_mfma_f32_16x16x32_fp8_fp8", "B").has_value());
  EXPECT_EQ(to_string(*find_tv_layout("wgmma_m64n128k16_bf16", "C")),
            "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))");
  EXPECT_EQ(to_string(*find_tv_layout("wgmma_m64n64k16_f16", "B")), "(128,(64,16)):(0,(1,64))");
  EXPECT_FALSE(find_tv_layout("wgmma_m64n12k16_bf16", "C").has_value()); // N not a multiple of 8
  EXPECT_FALSE(find_tv_layout("mma_m16n8k16_bf16", "E").has_value());
  EXPECT_FALSE(find_tv_layout("mma_m16n8k8_bf16", "A").has_value());
}

TEST(TvLayoutTest, SymbolicFragmentIndices) {
  // The mma A fragment at symbolic (lane, v): the row and column of each
  // register as closed forms.
  ExprContext ctx;
  ExprRef lane = ctx.symbol("lane", Interval::half_open(0, 32));
  ExprRef v = ctx.symbol("v", Interval::half_open(0, 8));
  const TvLayout &a = entry("mma_m16n8k16_bf16", "A");
  const ExprRef idx = evaluate(ctx, a.layout, lane + 32 * v);
  EXPECT_EQ(to_string(idx % 16), "lane // 4 + 8 * ((v // 2) % 2)");        // row
  EXPECT_EQ(to_string(idx / 16), "2 * (lane % 4) + v % 2 + 8 * (v // 4)"); // column
}

} // namespace
} // namespace argus::layout
