// Property tests over thousands of seeded random layouts (depth <= 3,
// rank <= 4, small sizes): every algebraic operation is checked against its
// definition as a function, not against its own notation.
#include "layout_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

namespace argus::layout {
namespace {

using testing::same_function;
using testing::values;

constexpr int kCases = 4000;
constexpr int64_t kMaxSize = 256;

class Gen {
public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(int percent) { return uniform(1, 100) <= percent; }

  // A random shape: depth <= 3, rank <= 4, size <= kMaxSize.
  IntTuple shape() {
    for (;;) {
      IntTuple s = shape_at(0);
      if (size(s).value_or(kMaxSize + 1) <= kMaxSize)
        return s;
    }
  }

  // Arbitrary strides in [-2, 16] (negative only when allowed), some 0.
  IntTuple random_strides(const IntTuple &s, bool allow_negative) {
    if (s.is_leaf()) {
      if (chance(15))
        return IntTuple(0);
      return IntTuple(uniform(allow_negative ? -2 : 1, 16));
    }
    std::vector<IntTuple> out;
    for (const IntTuple &e : s.elements())
      out.push_back(random_strides(e, allow_negative));
    return IntTuple::tuple(std::move(out));
  }

  Layout random_layout(bool allow_negative = false) {
    const IntTuple s = shape();
    return Layout(s, random_strides(s, allow_negative));
  }

  // Injective with a complement: the leaves get strides of a compact layout
  // over a random order of the leaves, with random gaps between them.
  Layout injective_layout() {
    const IntTuple s = shape();
    const IntTuple flat = flatten(s);
    std::vector<int64_t> extents;
    for (int k = 0; k < leaf_count(s); ++k)
      extents.push_back(flat[k].value());
    std::vector<size_t> order(extents.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng_);
    std::vector<int64_t> strides(extents.size());
    int64_t running = uniform(1, 2);
    for (size_t k : order) {
      strides[k] = running;
      running *= extents[k] * (chance(30) ? uniform(2, 3) : 1);
    }
    size_t next = 0;
    return Layout(s, restride(s, strides, next));
  }

  Layout any_layout() { return chance(50) ? injective_layout() : random_layout(); }

  Swizzle swizzle() {
    const int bits = static_cast<int>(uniform(0, 4));
    const int base = static_cast<int>(uniform(0, 5));
    int shift = static_cast<int>(uniform(bits, 6));
    if (chance(30))
      shift = -shift;
    return *make_swizzle(bits, base, shift);
  }

  std::mt19937_64 &rng() { return rng_; }

private:
  IntTuple shape_at(int depth) {
    if (depth == 3 || (depth > 0 && chance(55)) || (depth == 0 && chance(20))) {
      static constexpr int64_t kExtents[] = {1, 2, 2, 2, 3, 4, 4, 5, 6, 8};
      return IntTuple(kExtents[uniform(0, 9)]);
    }
    std::vector<IntTuple> out;
    const int64_t r = uniform(1, 4);
    for (int64_t k = 0; k < r; ++k)
      out.push_back(shape_at(depth + 1));
    return IntTuple::tuple(std::move(out));
  }

  static IntTuple restride(const IntTuple &s, const std::vector<int64_t> &strides, size_t &next) {
    if (s.is_leaf())
      return IntTuple(strides[next++]);
    std::vector<IntTuple> out;
    for (const IntTuple &e : s.elements())
      out.push_back(restride(e, strides, next));
    return IntTuple::tuple(std::move(out));
  }

  std::mt19937_64 rng_;
};

// R's shape refines B's: same sizes mode by mode where B has modes.
bool compatible(const IntTuple &b, const IntTuple &r) {
  if (b.is_leaf())
    return size(r).value_or(-1) == b.value();
  if (r.is_leaf() || r.rank() != b.rank())
    return false;
  for (int k = 0; k < b.rank(); ++k)
    if (!compatible(b[k], r[k]))
      return false;
  return true;
}

std::set<int64_t> image(const Layout &l) {
  const std::vector<int64_t> v = values(l);
  return {v.begin(), v.end()};
}

std::vector<int64_t> sorted_values(const Layout &l) {
  std::vector<int64_t> v = values(l);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(LayoutProperties, CoalescePreservesTheFunction) {
  Gen gen(1);
  for (int n = 0; n < kCases; ++n) {
    const Layout a = gen.random_layout(/*allow_negative=*/true);
    const Result<Layout> c = coalesce(a);
    ASSERT_TRUE(c.ok()) << c.message();
    ASSERT_TRUE(same_function(a, *c)) << "coalesce(" << to_string(a) << ") = " << to_string(*c);
    EXPECT_LE(depth(*c), 1);
    const IntTuple flat = flatten(c->shape());
    for (int k = 0; k < flat.rank() && *c != Layout(1, 0); ++k)
      EXPECT_NE(flat[k].value(), 1) << to_string(*c);
    // Per mode, with a profile of leaves.
    std::vector<IntTuple> profile(static_cast<size_t>(gen.uniform(1, rank(a))), IntTuple(1));
    const Result<Layout> p = coalesce(a, IntTuple::tuple(profile));
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_TRUE(same_function(a, *p)) << to_string(a) << " with a profile: " << to_string(*p);
    EXPECT_EQ(rank(*p), rank(a));
  }
}

TEST(LayoutProperties, CoordinatesRoundTrip) {
  Gen gen(2);
  for (int n = 0; n < kCases / 4; ++n) {
    const Layout a = gen.random_layout(true);
    const int64_t s = *size(a);
    for (int64_t i = 0; i < s; ++i) {
      const Result<IntTuple> crd = idx2crd(i, a.shape());
      ASSERT_TRUE(crd.ok()) << crd.message();
      ASSERT_TRUE(congruent(*crd, a.shape())) << to_string(*crd);
      ASSERT_EQ(*crd2idx(*crd, a.shape()), i) << to_string(a.shape()) << " " << to_string(*crd);
      ASSERT_EQ(*a(*crd), *a(i));
    }
  }
}

TEST(LayoutProperties, CompositionIsFunctionComposition) {
  Gen gen(3);
  int admitted = 0;
  for (int n = 0; n < kCases; ++n) {
    const Layout a = gen.any_layout();
    const Layout b = gen.any_layout();
    const Result<Layout> r = composition(a, b);
    if (!r.ok()) {
      EXPECT_FALSE(r.message().empty());
      continue;
    }
    ++admitted;
    ASSERT_TRUE(compatible(b.shape(), r->shape()))
        << to_string(a) << " ∘ " << to_string(b) << " = " << to_string(*r);
    // On A's domain R(i) = A(B(i)); past it, A extends along the last mode of
    // coalesce(A) (a trailing size-1 mode of A has no say).
    const Layout extended = *coalesce(a);
    const int64_t s = *size(b);
    for (int64_t i = 0; i < s; ++i) {
      const int64_t bi = *b(i);
      ASSERT_EQ(*(*r)(i), *extended(bi))
          << to_string(a) << " ∘ " << to_string(b) << " = " << to_string(*r) << " at " << i;
      if (bi < *size(a)) {
        ASSERT_EQ(*(*r)(i), *a(bi));
      }
    }
  }
  EXPECT_GT(admitted, kCases / 4) << "too few admissible pairs to mean anything";
}

TEST(LayoutProperties, CompositionWithTilersIsModeByMode) {
  Gen gen(4);
  int admitted = 0;
  for (int n = 0; n < kCases; ++n) {
    const Layout a = gen.any_layout();
    std::vector<Tiler> tilers;
    const int r = static_cast<int>(gen.uniform(1, rank(a)));
    for (int k = 0; k < r; ++k) {
      const int64_t extent = *size(a.shape()[k]);
      // A divisor of the mode's size, with stride 1 or 2.
      std::vector<int64_t> divisors;
      for (int64_t d = 1; d <= extent; ++d)
        if (extent % d == 0)
          divisors.push_back(d);
      tilers.emplace_back(Layout(divisors[gen.uniform(0, divisors.size() - 1)], gen.uniform(1, 2)));
    }
    const Tiler tiler(tilers);
    const Result<Layout> result = composition(a, tiler);
    if (!result.ok())
      continue;
    ++admitted;
    ASSERT_EQ(rank(*result), rank(a));
    for (int k = 0; k < rank(a); ++k) {
      const Layout mode_a = *mode(a, k);
      const Layout mode_r = *mode(*result, k);
      if (k >= r) {
        EXPECT_EQ(mode_r, mode_a);
        continue;
      }
      const Layout b = tilers[k].layout();
      const Layout extended = *coalesce(mode_a);
      for (int64_t i = 0; i < *size(b); ++i)
        ASSERT_EQ(*mode_r(i), *extended(*b(i))) << to_string(a) << " by " << to_string(tiler);
    }
    // The zipped divide's tile is the same composition.
    // The divide also composes with the complement of each tile, which need
    // not be admissible when the tile is.
    const Result<Layout> zipped = zipped_divide(a, tiler);
    if (!zipped.ok())
      continue;
    const Layout tile = *mode(*zipped, 0);
    std::vector<Layout> tile_modes;
    for (int k = 0; k < r; ++k)
      tile_modes.push_back(*mode(*result, k));
    ASSERT_TRUE(same_function(tile, make_layout(tile_modes)));
  }
  EXPECT_GT(admitted, kCases / 2);
}

TEST(LayoutProperties, ComplementIsDisjointAndCovers) {
  Gen gen(5);
  int defined = 0;
  for (int n = 0; n < kCases; ++n) {
    const bool injective = gen.chance(60);
    const Layout a = injective ? gen.injective_layout() : gen.random_layout();
    const Layout fa = *filter(a);
    const int64_t cotarget = *cosize(fa) * gen.uniform(1, 3) - gen.uniform(0, 1);
    const Result<Layout> c = complement(a, std::max<int64_t>(cotarget, 1));
    if (injective) {
      ASSERT_TRUE(c.ok()) << to_string(a) << ": " << c.message();
    }
    if (!c.ok())
      continue;
    ++defined;
    // (filter(A), C) is a bijection onto [0, size(A')·size(C)) ⊇ [0, M).
    const Layout both = make_layout({fa, *c});
    const std::vector<int64_t> v = sorted_values(both);
    for (size_t i = 0; i < v.size(); ++i)
      ASSERT_EQ(v[i], static_cast<int64_t>(i))
          << "(" << to_string(fa) << ", " << to_string(*c) << ") is not a bijection";
    EXPECT_GE(static_cast<int64_t>(v.size()), std::max<int64_t>(cotarget, 1));
    // Disjoint images apart from 0.
    const std::set<int64_t> image_a = image(fa);
    for (int64_t x : values(*c))
      if (x != 0) {
        ASSERT_FALSE(image_a.count(x)) << to_string(a) << " and " << to_string(*c);
      }
    // The complement is ordered by stride: it is increasing.
    const std::vector<int64_t> cv = values(*c);
    ASSERT_TRUE(std::is_sorted(cv.begin(), cv.end())) << to_string(*c);
  }
  EXPECT_GT(defined, kCases / 2);
}

TEST(LayoutProperties, RightInverseIdentityOnTheLargestPrefix) {
  Gen gen(6);
  for (int n = 0; n < kCases; ++n) {
    const bool injective = gen.chance(50);
    const Layout a = injective ? gen.injective_layout() : gen.random_layout();
    const Result<Layout> r = right_inverse(a);
    ASSERT_TRUE(r.ok()) << r.message();
    const int64_t s = *size(*r);
    for (int64_t j = 0; j < s; ++j)
      ASSERT_EQ(*a(*(*r)(j)), j) << to_string(a) << " right_inverse " << to_string(*r);
    if (injective) {
      EXPECT_EQ(image(a).count(s), 0u)
          << to_string(a) << ": " << s << " is in the image, " << to_string(*r) << " too short";
    }
  }
}

TEST(LayoutProperties, LeftInverseIdentity) {
  Gen gen(7);
  for (int n = 0; n < kCases; ++n) {
    const bool injective = gen.chance(70);
    const Layout a = injective ? gen.injective_layout() : gen.random_layout();
    const Result<Layout> r = left_inverse(a);
    if (injective) {
      ASSERT_TRUE(r.ok()) << to_string(a) << ": " << r.message();
    }
    if (!r.ok())
      continue;
    for (int64_t i = 0; i < *size(a); ++i)
      ASSERT_EQ(*(*r)(*a(i)), i) << to_string(a) << " left_inverse " << to_string(*r);
  }
}

TEST(LayoutProperties, LogicalDivideAndZippedDivideInvariant) {
  Gen gen(8);
  int divided = 0;
  for (int n = 0; n < kCases; ++n) {
    const Layout a = gen.any_layout();
    const Layout b = gen.injective_layout();
    const Result<Layout> d = logical_divide(a, b);
    const Result<Layout> ab = composition(a, b);
    if (!d.ok())
      continue;
    ++divided;
    ASSERT_TRUE(ab.ok()) << "divide worked but composition failed: " << ab.message();
    const Result<Layout> z = zipped_divide(a, b);
    ASSERT_TRUE(z.ok()) << z.message();
    ASSERT_TRUE(same_function(*mode(*z, 0), *ab));
    // logical_divide(A, B) = A ∘ (B, complement(B, size A)).
    const Layout bc = make_layout({b, *complement(b, *size(a))});
    const Layout extended = *coalesce(a);
    for (int64_t i = 0; i < *size(bc); ++i)
      ASSERT_EQ(*(*d)(i), *extended(*bc(i))) << to_string(a) << " / " << to_string(b);
    // When B tiles A's domain exactly, the divide is a permutation of A.
    if (*size(bc) == *size(a)) {
      ASSERT_EQ(sorted_values(*d), sorted_values(a)) << to_string(a) << " / " << to_string(b);
    }
    // tiled and flat divides are the same function with regrouped modes.
    ASSERT_TRUE(same_function(*tiled_divide(a, b), *z));
    ASSERT_TRUE(same_function(*flat_divide(a, b), *z));
  }
  EXPECT_GT(divided, kCases / 4);
}

TEST(LayoutProperties, ProductsRegroupTheLogicalProduct) {
  Gen gen(9);
  int made = 0;
  for (int n = 0; n < kCases; ++n) {
    // A compact A has a one-mode complement, so any B composes with it; an A
    // with gaps may not (a complement (2,3):(1,72) cannot take 5 elements).
    const bool compact = gen.chance(50);
    const Layout a = compact ? *make_layout_left(gen.shape()) : gen.injective_layout();
    const Layout b = gen.injective_layout();
    if (*size(a) * *size(b) > 4096)
      continue;
    const Result<Layout> p = logical_product(a, b);
    if (compact) {
      ASSERT_TRUE(p.ok()) << to_string(a) << " x " << to_string(b) << ": " << p.message();
    }
    if (!p.ok())
      continue;
    ++made;
    EXPECT_EQ(*mode(*p, 0), a);
    const Layout rest = *complement(a, *size(a) * *cosize(b));
    const Layout repeat = *mode(*p, 1);
    for (int64_t i = 0; i < *size(b); ++i)
      ASSERT_EQ(*repeat(i), *rest(*b(i)));
    // Injective layouts make an injective product.
    const std::vector<int64_t> v = sorted_values(*p);
    ASSERT_TRUE(std::adjacent_find(v.begin(), v.end()) == v.end()) << to_string(*p);
    const Result<Layout> blocked = blocked_product(a, b);
    const Result<Layout> raked = raked_product(a, b);
    ASSERT_TRUE(blocked.ok()) << blocked.message();
    ASSERT_TRUE(raked.ok()) << raked.message();
    EXPECT_EQ(sorted_values(*blocked), v);
    EXPECT_EQ(sorted_values(*raked), v);
    EXPECT_EQ(rank(*blocked), std::max(rank(a), rank(b)));
  }
  EXPECT_GT(made, kCases / 4);
}

TEST(LayoutProperties, TileToShapeCoversTheShape) {
  Gen gen(10);
  for (int n = 0; n < kCases / 4; ++n) {
    const IntTuple block_shape = IntTuple::tuple({gen.uniform(1, 4), gen.uniform(1, 4)});
    const Layout block =
        gen.chance(50) ? *make_layout_left(block_shape) : *make_layout_right(block_shape);
    const IntTuple target = IntTuple::tuple(
        {block_shape[0].value() * gen.uniform(1, 4), block_shape[1].value() * gen.uniform(1, 4)});
    const Major order = gen.chance(50) ? Major::Left : Major::Right;
    const Result<Layout> t = tile_to_shape(block, target, order);
    ASSERT_TRUE(t.ok()) << t.message();
    ASSERT_EQ(rank(*t), 2);
    EXPECT_EQ(*size(mode(*t, 0)->shape()), target[0].value());
    EXPECT_EQ(*size(mode(*t, 1)->shape()), target[1].value());
    const std::vector<int64_t> v = sorted_values(*t);
    for (size_t i = 0; i < v.size(); ++i)
      ASSERT_EQ(v[i], static_cast<int64_t>(i)) << to_string(*t);
    // The first block is the block itself.
    for (int64_t m = 0; m < block_shape[0].value(); ++m)
      for (int64_t k = 0; k < block_shape[1].value(); ++k)
        ASSERT_EQ(*(*t)(IntTuple::tuple({m, k})), *block(IntTuple::tuple({m, k})));
  }
}

TEST(LayoutProperties, SwizzleIsAnInvolution) {
  Gen gen(11);
  for (int n = 0; n < kCases; ++n) {
    const Swizzle sw = gen.swizzle();
    for (int k = 0; k < 64; ++k) {
      const int64_t x = gen.uniform(0, 1 << 20);
      ASSERT_EQ(sw(sw(x)), x) << to_string(sw) << " at " << x;
    }
    if (sw.bits > 0) {
      EXPECT_EQ(sw.yyy_mask() & sw.zzz_mask(), 0u);
      EXPECT_EQ(*make_swizzle_from_masks(sw.yyy_mask(), sw.zzz_mask()), sw) << to_string(sw);
    }
  }
}

TEST(LayoutProperties, SwizzledLayoutIsABijectionOfTheTile) {
  Gen gen(12);
  for (int n = 0; n < kCases / 8; ++n) {
    const Swizzle sw = gen.swizzle();
    const int64_t bytes = int64_t{1} << gen.uniform(0, std::min(sw.base, 3));
    const Layout tile = *make_layout_right(IntTuple::tuple({8, 64}));
    const Result<SwizzledLayout> s = composition(sw, tile, bytes);
    ASSERT_TRUE(s.ok()) << s.message();
    std::set<int64_t> seen;
    for (int64_t i = 0; i < 512; ++i) {
      const int64_t e = *evaluate(*s, i);
      ASSERT_EQ(*byte_offset(*s, i), e * bytes);
      seen.insert(e);
    }
    // A swizzle permutes aligned blocks of 2^(B+M+|S|) offsets.
    EXPECT_EQ(seen.size(), 512u) << to_string(*s);
  }
}

} // namespace
} // namespace argus::layout
