// Symbolic layouts agree with the concrete layout function: at symbolic
// indices, symbolic coordinates, with symbolic shapes and strides, and with
// swizzles, on thousands of random layouts and points.
#include "argus/layout/symbolic_layout.h"

#include <gtest/gtest.h>

#include <random>

namespace argus::layout {
namespace {

Layout parse(std::string_view text) {
  Result<Layout> r = parse_layout(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.message();
  return r.ok() ? *r : Layout();
}

int64_t concrete(const Layout &l, int64_t i) {
  Result<int64_t> r = l(i);
  EXPECT_TRUE(r.ok()) << to_string(l) << " at " << i << ": " << r.message();
  return r.value_or(-1);
}

int64_t eval(ExprRef e, const Bindings &b) {
  Result<int64_t> r = evaluate(e, b);
  EXPECT_TRUE(r.ok()) << to_string(e) << ": " << r.message();
  return r.value_or(-1);
}

// ---------------------------------------------------------------------------
// The design document's vectors, through the symbolic path.

TEST(SymbolicLayoutTest, DesignVectorsFoldToConstants) {
  ExprContext ctx;
  const ExprTuple shape = to_expr_tuple(ctx, IntTuple::tuple({3, IntTuple::tuple({2, 3})}));
  EXPECT_EQ(to_string(idx2crd(ctx, ctx.constant(16), shape)), "(1,(1,2))");
  Result<ExprTuple> c = idx2crd(ctx, ExprTuple::tuple({ctx.constant(1), ctx.constant(5)}), shape);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(to_string(*c), "(1,(1,2))");
  const ExprTuple stride = to_expr_tuple(ctx, IntTuple::tuple({3, IntTuple::tuple({12, 1})}));
  for (const ExprTuple &coord :
       {ExprTuple(ctx.constant(16)), ExprTuple::tuple({ctx.constant(1), ctx.constant(5)}),
        ExprTuple::tuple(
            {ctx.constant(1), ExprTuple::tuple({ctx.constant(1), ctx.constant(2)})})}) {
    Result<ExprRef> idx = crd2idx(ctx, coord, shape, stride);
    ASSERT_TRUE(idx.ok()) << idx.message();
    EXPECT_EQ(*idx, ctx.constant(17)) << to_string(coord);
  }
  const Layout l = parse("(2,(2,2)):(4,(2,1))");
  const int64_t want[] = {0, 4, 2, 6, 1, 5, 3, 7};
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(evaluate(ctx, l, ctx.constant(i)), ctx.constant(want[i]));
  // Past the size, the last mode extends.
  EXPECT_EQ(evaluate(ctx, parse("(2,3):(1,2)"), ctx.constant(9)), ctx.constant(9));
}

TEST(SymbolicLayoutTest, MismatchedCoordinatesAreErrors) {
  ExprContext ctx;
  const Layout l = parse("(4,(2,3)):(1,(4,8))");
  Result<ExprRef> r =
      evaluate(ctx, l, ExprTuple::tuple({ctx.constant(1), ctx.constant(2), ctx.constant(3)}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("does not match shape"), std::string::npos);
  EXPECT_FALSE(make_symbolic_layout(ExprTuple(ctx.constant(4)),
                                    ExprTuple::tuple({ctx.constant(1), ctx.constant(2)}))
                   .ok());
}

// ---------------------------------------------------------------------------
// Closed forms.

TEST(SymbolicLayoutTest, CompactLayoutsAreTheIdentityOrItsPermutation) {
  ExprContext ctx;
  ExprRef i = ctx.symbol("i");
  ExprRef M = ctx.symbol("M", Interval::positive());
  ExprRef N = ctx.symbol("N", Interval::positive());
  ExprRef K = ctx.symbol("K", Interval::positive());
  const ExprTuple shape = ExprTuple::tuple({M, ExprTuple::tuple({N, K})});
  const SymbolicLayout left = make_symbolic_layout_left(ctx, shape);
  EXPECT_EQ(to_string(left), "(M,(N,K)):(1,(M,M * N))");
  EXPECT_EQ(evaluate(ctx, left, i), i); // digits recombine symbolically
  const SymbolicLayout right = make_symbolic_layout_right(ctx, shape);
  EXPECT_EQ(to_string(right), "(M,(N,K)):(K * N,(K,1))");
  ExprRef tid = ctx.symbol("tid", Interval::half_open(0, 128));
  EXPECT_EQ(evaluate(ctx, parse("(4,8,4):(1,4,32)"), tid), tid);
  EXPECT_EQ(evaluate(ctx, parse("((4,8),4):((1,4),32)"), tid), tid);
}

TEST(SymbolicLayoutTest, WgmmaAccumulatorAtThreadAndValue) {
  ExprContext ctx;
  ExprRef tid = ctx.symbol("tid", Interval::half_open(0, 128));
  ExprRef v = ctx.symbol("v", Interval::half_open(0, 64));
  const Layout c = parse("((4,8,4),(2,2,16)):((128,1,16),(64,8,512))");
  const ExprRef by_index = evaluate(ctx, c, tid + 128 * v);
  Result<ExprRef> by_coord = evaluate(ctx, c, ExprTuple::tuple({tid, v}));
  ASSERT_TRUE(by_coord.ok()) << by_coord.message();
  EXPECT_EQ(by_index, *by_coord);
  EXPECT_EQ(to_string(by_index), "128 * (tid % 4) + (tid // 4) % 8 + 16 * (tid // 32) + "
                                 "64 * (v % 2) + 8 * ((v // 2) % 2) + 512 * (v // 4)");
  EXPECT_EQ(to_cpp(by_index), "128 * (tid & 3) + ((tid >> 2) & 7) + 16 * (tid >> 5) + "
                              "64 * (v & 1) + 8 * ((v >> 1) & 1) + 512 * (v >> 2)");
}

// ---------------------------------------------------------------------------
// Random layouts: symbolic evaluation agrees with the concrete function.

class RandomLayouts {
public:
  explicit RandomLayouts(uint64_t seed) : rng_(seed) {}

  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  // A shape of depth <= 3 and rank <= 4, and a congruent stride.
  IntTuple shape(int depth) {
    if (depth == 0 || pick(0, 2) == 0)
      return IntTuple(pick(1, 6));
    std::vector<IntTuple> modes;
    const int rank = static_cast<int>(pick(1, 4));
    for (int k = 0; k < rank; ++k)
      modes.push_back(shape(depth - 1));
    return IntTuple::tuple(std::move(modes));
  }
  IntTuple stride_like(const IntTuple &shape) {
    if (shape.is_leaf()) {
      static const int64_t kStrides[] = {0, 1, 1, 2, 3, 4, 8, 16, 32, 64, 100, -1, -4};
      return IntTuple(kStrides[pick(0, std::size(kStrides) - 1)]);
    }
    std::vector<IntTuple> modes;
    for (const IntTuple &m : shape.elements())
      modes.push_back(stride_like(m));
    return IntTuple::tuple(std::move(modes));
  }
  Layout layout() {
    for (;;) {
      IntTuple s = shape(3);
      IntTuple d = stride_like(s);
      Result<Layout> l = make_layout(std::move(s), std::move(d));
      if (l.ok())
        return *l;
    }
  }

private:
  std::mt19937_64 rng_;
};

TEST(SymbolicLayoutPropertyTest, SymbolicIndexAgreesWithConcreteLayouts) {
  RandomLayouts gen(1234);
  int points = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Layout l = gen.layout();
    const int64_t n = size(l).value_or(1);
    ExprContext ctx;
    // Indices up to twice the size: the last mode is not reduced.
    ExprRef i = ctx.symbol("i", Interval::half_open(0, 2 * n));
    const ExprRef e = evaluate(ctx, l, i);
    for (int k = 0; k < 10; ++k) {
      const int64_t idx = gen.pick(0, 2 * n - 1);
      ASSERT_EQ(eval(e, Bindings().set("i", idx)), concrete(l, idx))
          << to_string(l) << " at " << idx << ": " << to_string(e);
      ++points;
    }
    // Constant indices fold all the way.
    const int64_t idx = gen.pick(0, n - 1);
    ASSERT_EQ(evaluate(ctx, l, ctx.constant(idx)), ctx.constant(concrete(l, idx))) << to_string(l);
  }
  EXPECT_GE(points, 6000);
}

TEST(SymbolicLayoutPropertyTest, ThreadValueDecompositionAgrees) {
  // index = t + T·v with t in [0, T): the form in which fragments are used.
  RandomLayouts gen(99);
  int points = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Layout l = gen.layout();
    const int64_t n = size(l).value_or(1);
    const int64_t threads = gen.pick(1, n);
    ExprContext ctx;
    ExprRef t = ctx.symbol("t", Interval::half_open(0, threads));
    ExprRef v = ctx.symbol("v", Interval::half_open(0, n / threads + 2));
    const ExprRef e = evaluate(ctx, l, t + threads * v);
    for (int k = 0; k < 10; ++k) {
      const int64_t tv = gen.pick(0, threads - 1), vv = gen.pick(0, n / threads + 1);
      ASSERT_EQ(eval(e, Bindings().set("t", tv).set("v", vv)), concrete(l, tv + threads * vv))
          << to_string(l) << " T=" << threads << ": " << to_string(e);
      ++points;
    }
  }
  EXPECT_GE(points, 4000);
}

TEST(SymbolicLayoutPropertyTest, SymbolicCoordinatesAgree) {
  RandomLayouts gen(7);
  for (int trial = 0; trial < 400; ++trial) {
    const Layout l = gen.layout();
    if (!l.shape().is_tuple())
      continue;
    ExprContext ctx;
    std::vector<ExprTuple> coord;
    std::vector<int64_t> sizes;
    for (int k = 0; k < l.shape().rank(); ++k) {
      const int64_t s = size(l.shape()[k]).value_or(1);
      sizes.push_back(s);
      coord.emplace_back(ctx.symbol("c" + std::to_string(k), Interval::half_open(0, s)));
    }
    Result<ExprRef> e = evaluate(ctx, l, ExprTuple::tuple(coord));
    ASSERT_TRUE(e.ok()) << e.message();
    for (int k = 0; k < 10; ++k) {
      Bindings b;
      std::vector<IntTuple> c;
      for (size_t m = 0; m < sizes.size(); ++m) {
        const int64_t x = gen.pick(0, sizes[m] - 1);
        b.set("c" + std::to_string(m), x);
        c.emplace_back(x);
      }
      Result<int64_t> want = l(IntTuple::tuple(c));
      ASSERT_TRUE(want.ok()) << want.message();
      ASSERT_EQ(eval(*e, b), *want) << to_string(l) << ": " << to_string(*e);
    }
  }
}

// Replaces every leaf of `t` by a fresh symbol named prefix<k>, recording the
// concrete value of each in `b`.
ExprTuple symbolize(ExprContext &ctx, const IntTuple &t, const char *prefix, Interval range,
                    Bindings &b, int &next) {
  if (t.is_leaf()) {
    const std::string name = prefix + std::to_string(next++);
    b.set(name, t.value());
    return ExprTuple(ctx.symbol(name, range));
  }
  std::vector<ExprTuple> modes;
  for (const IntTuple &m : t.elements())
    modes.push_back(symbolize(ctx, m, prefix, range, b, next));
  return ExprTuple::tuple(std::move(modes));
}

TEST(SymbolicLayoutPropertyTest, SymbolicShapesAndStridesAgreeOnceSubstituted) {
  RandomLayouts gen(4242);
  int points = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Layout l = gen.layout();
    const int64_t n = size(l).value_or(1);
    ExprContext ctx;
    Bindings sizes;
    int next = 0;
    const ExprTuple shape = symbolize(ctx, l.shape(), "s", Interval::positive(), sizes, next);
    next = 0;
    const ExprTuple stride = symbolize(ctx, l.stride(), "d", Interval::all(), sizes, next);
    Result<SymbolicLayout> sl = make_symbolic_layout(shape, stride);
    ASSERT_TRUE(sl.ok()) << sl.message();
    ExprRef i = ctx.symbol("i");
    const ExprRef e = evaluate(ctx, *sl, i);
    for (int k = 0; k < 10; ++k) {
      const int64_t idx = gen.pick(0, 2 * n - 1);
      Bindings b = sizes;
      b.set("i", idx);
      ASSERT_EQ(eval(e, b), concrete(l, idx))
          << to_string(*sl) << " = " << to_string(l) << " at " << idx << ": " << to_string(e);
      // Substituting the sizes first gives the same value.
      ASSERT_EQ(eval(substitute(e, sizes), Bindings().set("i", idx)), concrete(l, idx));
      ++points;
    }
  }
  EXPECT_GE(points, 5000);
}

TEST(SymbolicLayoutPropertyTest, SwizzledLayoutsAgree) {
  RandomLayouts gen(555);
  const int swizzles[][3] = {{1, 4, 3}, {2, 4, 3}, {3, 4, 3}, {2, 0, 3}, {3, 3, -3}, {1, 1, 2}};
  for (int trial = 0; trial < 300; ++trial) {
    const Layout base = gen.layout();
    const int *s = swizzles[trial % std::size(swizzles)];
    Result<Swizzle> sw = make_swizzle(s[0], s[1], s[2]);
    ASSERT_TRUE(sw.ok()) << sw.message();
    const int64_t bytes = int64_t{1} << gen.pick(0, std::min(s[1], 3));
    Result<SwizzledLayout> l = composition(*sw, base, bytes);
    if (!l.ok())
      continue;
    const int64_t n = size(base).value_or(1);
    ExprContext ctx;
    ExprRef i = ctx.symbol("i", Interval::half_open(0, n));
    const ExprRef elem = evaluate(ctx, *l, i);
    const ExprRef byte = byte_offset(ctx, *l, i);
    for (int k = 0; k < 10; ++k) {
      const int64_t idx = gen.pick(0, n - 1);
      Result<int64_t> want_elem = evaluate(*l, idx);
      Result<int64_t> want_byte = byte_offset(*l, idx);
      ASSERT_TRUE(want_elem.ok() && want_byte.ok());
      ASSERT_EQ(eval(elem, Bindings().set("i", idx)), *want_elem)
          << to_string(*l) << " at " << idx << ": " << to_string(elem);
      ASSERT_EQ(eval(byte, Bindings().set("i", idx)), *want_byte) << to_string(byte);
    }
  }
}

TEST(SymbolicLayoutTest, SwizzleOfARowOfA128ByteTile) {
  // Sw<3,4,3> on byte addresses of a (8,64):(64,1) bf16 tile: the element
  // offset of row r, column c.
  ExprContext ctx;
  ExprRef r = ctx.symbol("r", Interval::half_open(0, 8));
  ExprRef c = ctx.symbol("c", Interval::half_open(0, 64));
  Result<SwizzledLayout> l = composition(*make_swizzle(3, 4, 3), parse("(8,64):(64,1)"), 2);
  ASSERT_TRUE(l.ok()) << l.message();
  const ExprRef e = evaluate(ctx, *l, r + 8 * c);
  // 64·r + c, its bit-disjoint parts, xor 8·r (the row's 16-byte chunk).
  EXPECT_EQ(to_string(e), "c ^ (8 * r) ^ (64 * r)");
  EXPECT_EQ(to_cpp(e), "c ^ (8 * r) ^ (64 * r)");
}

// ---------------------------------------------------------------------------
// Notation.

TEST(SymbolicLayoutTest, ParsesAndPrintsSymbolicNotation) {
  ExprContext ctx;
  ExprRef tid = ctx.symbol("tid", Interval::half_open(0, 128));
  Result<SymbolicLayout> l = parse_symbolic_layout(ctx, " (M, (4,K)) : (1, (M, 4*M)) ");
  ASSERT_TRUE(l.ok()) << l.message();
  EXPECT_EQ(to_string(*l), "(M,(4,K)):(1,(M,4 * M))");
  EXPECT_EQ(ctx.find_symbol("M").range(), Interval::positive());
  EXPECT_EQ(to_string(size(ctx, *l)), "4 * K * M");
  // Names already declared keep their facts.
  Result<ExprTuple> t = parse_expr_tuple(ctx, "(tid,2)");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ((*t)[0].value(), tid);
  Result<SymbolicLayout> concrete_layout = parse_symbolic_layout(ctx, "((2,2),3):((24,2),8)");
  ASSERT_TRUE(concrete_layout.ok());
  std::optional<Layout> back = to_layout(*concrete_layout);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(to_string(*back), "((2,2),3):((24,2),8)");
  EXPECT_FALSE(to_layout(*l).has_value());

  Result<SymbolicLayout> bad = parse_symbolic_layout(ctx, "(M,4):(1,");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("at offset"), std::string::npos);
  EXPECT_FALSE(parse_symbolic_layout(ctx, "(M,4)").ok());
  EXPECT_FALSE(parse_symbolic_layout(ctx, "(M,4):(1,2,3)").ok()); // not congruent
  EXPECT_FALSE(parse_expr_tuple(ctx, "(1,2) x").ok());
}

} // namespace
} // namespace argus::layout
