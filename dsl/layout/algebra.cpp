// The layout algebra: composition, complement, divides, products,
// tile_to_shape and inverses (semantics in docs/layout.md).
#include "argus/layout/layout.h"
#include "checked.h"
#include "internal.h"

#include <algorithm>

namespace argus::layout {

using detail::ceil_div;
using detail::fail;
using detail::Failure;
using detail::guard;
using detail::Mode;
using detail::mul;

Tiler Tiler::from_shape(const IntTuple &shape) {
  if (shape.is_leaf())
    return Tiler(Layout(shape.value(), 1));
  std::vector<Tiler> modes;
  modes.reserve(shape.elements().size());
  for (const IntTuple &e : shape.elements())
    modes.push_back(from_shape(e));
  return Tiler(std::move(modes));
}

bool operator==(const Tiler &a, const Tiler &b) {
  if (a.is_layout_ != b.is_layout_)
    return false;
  return a.is_layout_ ? a.layout_ == b.layout_ : a.modes_ == b.modes_;
}

std::string to_string(const Tiler &t) {
  if (t.is_layout())
    return to_string(t.layout());
  std::string out = "(";
  for (size_t k = 0; k < t.modes().size(); ++k) {
    if (k)
      out += ',';
    out += to_string(t.modes()[k]);
  }
  return out + ")";
}

namespace {

// Re-throws a failure from mode k of something with a note saying where.
[[noreturn]] void rethrow_in(const Failure &failure, const std::string &where) {
  fail(failure.message + " (in " + where + ")");
}

// ---------------------------------------------------------------------------
// Composition.

// A, flattened and coalesced once per composition.
struct FlatA {
  explicit FlatA(const Layout &layout)
      : a(layout), coalesced(detail::coalesce_of(layout)), modes(detail::flat_modes(coalesced)),
        name(coalesced == flatten(layout) ? "A" : "coalesce(A) = " + to_string(coalesced)) {}

  const Layout &a;
  Layout coalesced;
  std::vector<Mode> modes;
  std::string name; // how messages call the layout whose modes they number
};

// How far the modes of B reach into each mode k of coalesce(A) but the last:
// the sum over B's leaves of their largest coordinate there. B's modes may be
// composed one by one only while these sums stay below the mode sizes (no
// carry from one mode of A into the next).
struct Reach {
  std::vector<int64_t> sum;
  std::vector<std::vector<std::string>> leaves; // the leaves of B that reach mode k
};

std::string mode_text(int64_t n, int64_t r) { return std::to_string(n) + ":" + std::to_string(r); }

// A ∘ n:r for one leaf of B (the strict rule of docs/layout.md).
Layout compose_leaf(const FlatA &fa, int64_t n, int64_t r, Reach &reach) {
  const auto leaf = [&] { return mode_text(n, r); };
  if (r < 0)
    fail("composition " + to_string(fa.a) + " ∘ " + leaf() +
         " is not supported: B has the negative stride " + std::to_string(r));
  if (r == 0)
    return Layout(n, 0);
  if (n == 1)
    return Layout(1, 0);
  const std::vector<Mode> &modes = fa.modes;
  const auto inadmissible = [&](size_t k, const std::string &why) {
    fail("composition " + to_string(fa.a) + " ∘ " + leaf() + " is not admissible: at mode " +
         std::to_string(k) + " of " + fa.name + " (size " + std::to_string(modes[k].shape) + "), " +
         why);
  };

  std::vector<Mode> out;
  int64_t rest_shape = n;
  int64_t rest_stride = r;
  for (size_t k = 0; k + 1 < modes.size() && rest_shape != 1; ++k) {
    const int64_t s = modes[k].shape;
    if (s % rest_stride != 0 && rest_stride % s != 0)
      inadmissible(k, "stride " + std::to_string(rest_stride) +
                          " neither divides nor is divisible by " + std::to_string(s));
    const int64_t m = std::min(std::max<int64_t>(1, s / rest_stride), rest_shape);
    if (m > 1) {
      if (rest_shape % m != 0)
        inadmissible(k, "B's remaining size " + std::to_string(rest_shape) +
                            " is not a multiple of the " + std::to_string(m) +
                            " elements it takes from this mode");
      out.push_back({m, mul(rest_stride, modes[k].stride)});
      reach.sum[k] = detail::add(reach.sum[k], (m - 1) * rest_stride); // each <= s - 1
      reach.leaves[k].push_back(leaf());
    }
    rest_shape /= m;
    rest_stride = ceil_div(rest_stride, s);
  }
  if (rest_shape != 1 || out.empty())
    out.push_back({rest_shape, mul(rest_stride, modes.back().stride)});
  return detail::from_modes(out);
}

Layout compose_tree(const FlatA &fa, const Layout &b, Reach &reach) {
  if (b.shape().is_leaf() && b.stride().is_leaf())
    return compose_leaf(fa, b.shape().value(), b.stride().value(), reach);
  const std::vector<Layout> modes = detail::top_modes(b);
  std::vector<Layout> out;
  out.reserve(modes.size());
  for (size_t k = 0; k < modes.size(); ++k) {
    try {
      out.push_back(compose_tree(fa, modes[k], reach));
    } catch (const Failure &failure) {
      rethrow_in(failure, "mode " + std::to_string(k) + " of B = " + to_string(b));
    }
  }
  return make_layout(out);
}

Layout compose(const Layout &a, const Layout &b) {
  detail::require_valid(b);
  const FlatA fa(a);                        // coalesce_of checks A
  const size_t inner = fa.modes.size() - 1; // every mode of A but the last, unbounded one
  Reach reach{std::vector<int64_t>(inner, 0), std::vector<std::vector<std::string>>(inner)};
  Layout result = compose_tree(fa, b, reach);
  for (size_t k = 0; k < inner; ++k) {
    if (reach.sum[k] < fa.modes[k].shape)
      continue;
    std::string leaves;
    for (size_t j = 0; j < reach.leaves[k].size(); ++j)
      leaves += (j == 0                            ? ""
                 : j + 1 == reach.leaves[k].size() ? " and "
                                                   : ", ") +
                reach.leaves[k][j];
    fail("composition " + to_string(a) + " ∘ " + to_string(b) + " is not admissible: the modes " +
         leaves + " of B " + (reach.leaves[k].size() == 2 ? "both" : "all") + " reach mode " +
         std::to_string(k) + " of " + fa.name + " (size " + std::to_string(fa.modes[k].shape) +
         "), where their coordinates add up to " + std::to_string(reach.sum[k]) +
         ": that carries into the next mode, so composing B mode by mode would not give "
         "A(B(i))");
  }
  return result;
}

// Applies `op` to A (a whole layout tiler) or mode by mode (a tuple tiler);
// modes of A past the tiler's rank pass through.
template <class Op> Layout by_mode(const char *name, const Layout &a, const Tiler &t, Op op) {
  if (t.is_layout())
    return op(a, t.layout());
  const std::vector<Layout> modes = detail::top_modes(a);
  if (t.modes().size() > modes.size())
    fail(std::string(name) + ": the tiler " + to_string(t) + " has " +
         std::to_string(t.modes().size()) + " modes but " + to_string(a) + " has only " +
         std::to_string(modes.size()));
  std::vector<Layout> out;
  out.reserve(modes.size());
  for (size_t k = 0; k < modes.size(); ++k) {
    if (k >= t.modes().size()) {
      out.push_back(modes[k]);
      continue;
    }
    try {
      out.push_back(by_mode(name, modes[k], t.modes()[k], op));
    } catch (const Failure &failure) {
      rethrow_in(failure, "mode " + std::to_string(k) + " of the tiler " + to_string(t));
    }
  }
  return make_layout(out);
}

// ---------------------------------------------------------------------------
// Complement.

Layout complement_of(const Layout &a, int64_t cotarget) {
  detail::require_valid(a);
  if (cotarget < 1)
    fail("complement of " + to_string(a) + ": the cotarget " + std::to_string(cotarget) +
         " is not positive");
  std::vector<Mode> modes;
  for (const Mode &m : detail::flat_modes(a)) {
    if (m.shape == 1 || m.stride == 0)
      continue;
    if (m.stride < 0)
      fail("complement of " + to_string(a) + " is not defined: mode " + std::to_string(m.shape) +
           ":" + std::to_string(m.stride) + " has a negative stride");
    modes.push_back(m);
  }
  std::sort(modes.begin(), modes.end(), [](const Mode &x, const Mode &y) {
    return x.stride < y.stride || (x.stride == y.stride && x.shape < y.shape);
  });
  std::vector<Mode> out;
  int64_t covered = 1; // s·d of the previous mode: the extent filled below this one
  for (const Mode &m : modes) {
    if (m.stride % covered != 0)
      fail("complement of " + to_string(a) + " is not defined: mode " + std::to_string(m.shape) +
           ":" + std::to_string(m.stride) + " overlaps or interleaves the modes below it (stride " +
           std::to_string(m.stride) + " is not a multiple of " + std::to_string(covered) + ")");
    out.push_back({m.stride / covered, covered});
    covered = mul(m.shape, m.stride);
  }
  out.push_back({ceil_div(cotarget, covered), covered});
  return detail::coalesce_of(detail::from_modes(out));
}

int64_t cosize_of(const Layout &l) { return detail::take(cosize(l)); }

Layout divide(const Layout &a, const Layout &b) {
  const Layout rest = complement_of(b, detail::product(a.shape()));
  return compose(a, make_layout({b, rest}));
}

Layout product(const Layout &a, const Layout &b) {
  const int64_t cotarget = mul(detail::product(a.shape()), cosize_of(b));
  return make_layout({a, compose(complement_of(a, cotarget), b)});
}

// (tile, rest) → the parts of a zipped result.
struct Zipped {
  Layout tile;
  Layout rest;
};

Zipped zip_divide(const Layout &a, const Tiler &t) {
  if (t.is_layout()) {
    const std::vector<Layout> parts = detail::top_modes(divide(a, t.layout()));
    return {parts[0], parts[1]};
  }
  const std::vector<Layout> modes = detail::top_modes(a);
  if (t.modes().size() > modes.size())
    fail("divide: the tiler " + to_string(t) + " has " + std::to_string(t.modes().size()) +
         " modes but " + to_string(a) + " has only " + std::to_string(modes.size()));
  std::vector<Layout> tiles, rests;
  for (size_t k = 0; k < modes.size(); ++k) {
    if (k >= t.modes().size()) {
      rests.push_back(modes[k]);
      continue;
    }
    try {
      Zipped z = zip_divide(modes[k], t.modes()[k]);
      tiles.push_back(std::move(z.tile));
      rests.push_back(std::move(z.rest));
    } catch (const Failure &failure) {
      rethrow_in(failure, "mode " + std::to_string(k) + " of the tiler " + to_string(t));
    }
  }
  return {make_layout(tiles), make_layout(rests)};
}

// Both layouts as rank-r tuples of modes, padded with 1:0.
Layout append_to_rank(const Layout &l, size_t r) {
  std::vector<Layout> modes = detail::top_modes(l);
  while (modes.size() < r)
    modes.emplace_back(1, 0);
  return make_layout(modes);
}

Layout zip_product(const Layout &a, const Layout &b, bool raked) {
  const size_t r = static_cast<size_t>(std::max(rank(a), rank(b)));
  const Layout p = product(append_to_rank(a, r), append_to_rank(b, r));
  const std::vector<Layout> block = detail::top_modes(detail::take(mode(p, 0)));
  const std::vector<Layout> repeat = detail::top_modes(detail::take(mode(p, 1)));
  std::vector<Layout> out;
  out.reserve(r);
  for (size_t k = 0; k < r; ++k)
    out.push_back(raked ? make_layout({repeat[k], block[k]}) : make_layout({block[k], repeat[k]}));
  return make_layout(out);
}

// ---------------------------------------------------------------------------
// Inverses.

Layout right_inverse_of(const Layout &a) {
  detail::require_valid(a);
  const std::vector<Mode> modes = detail::flat_modes(detail::coalesce_of(a));
  std::vector<int64_t> index_stride(modes.size());
  int64_t running = 1;
  for (size_t k = 0; k < modes.size(); ++k) {
    index_stride[k] = running;
    running = mul(running, modes[k].shape);
  }
  std::vector<Mode> out;
  int64_t next = 1; // the smallest offset not yet reached contiguously
  for (;;) {
    const auto it = std::find_if(modes.begin(), modes.end(),
                                 [&](const Mode &m) { return m.shape > 1 && m.stride == next; });
    if (it == modes.end())
      break;
    out.push_back({it->shape, index_stride[it - modes.begin()]});
    next = mul(next, it->shape);
  }
  return detail::coalesce_of(detail::from_modes(out));
}

} // namespace

// ---------------------------------------------------------------------------
// Public API.

Result<Layout> composition(const Layout &a, const Layout &b) {
  return guard([&] { return compose(a, b); });
}

Result<Layout> composition(const Layout &a, const Tiler &b) {
  return guard([&] { return by_mode("composition", a, b, compose); });
}

Result<Layout> complement(const Layout &a, int64_t cotarget) {
  return guard([&] { return complement_of(a, cotarget); });
}

Result<Layout> complement(const Layout &a) {
  return guard([&] { return complement_of(a, cosize_of(detail::take(filter(a)))); });
}

Result<Layout> logical_divide(const Layout &a, const Tiler &b) {
  return guard([&] { return by_mode("logical_divide", a, b, divide); });
}

Result<Layout> zipped_divide(const Layout &a, const Tiler &b) {
  return guard([&] {
    const Zipped z = zip_divide(a, b);
    return make_layout({z.tile, z.rest});
  });
}

Result<Layout> tiled_divide(const Layout &a, const Tiler &b) {
  return guard([&] {
    const Zipped z = zip_divide(a, b);
    std::vector<Layout> out{z.tile};
    for (const Layout &m : detail::top_modes(z.rest))
      out.push_back(m);
    return make_layout(out);
  });
}

Result<Layout> flat_divide(const Layout &a, const Tiler &b) {
  return guard([&] {
    const Zipped z = zip_divide(a, b);
    std::vector<Layout> out = detail::top_modes(z.tile);
    for (const Layout &m : detail::top_modes(z.rest))
      out.push_back(m);
    return make_layout(out);
  });
}

Result<Layout> logical_product(const Layout &a, const Tiler &b) {
  return guard([&] { return by_mode("logical_product", a, b, product); });
}

Result<Layout> blocked_product(const Layout &a, const Layout &b) {
  return guard([&] { return zip_product(a, b, /*raked=*/false); });
}

Result<Layout> raked_product(const Layout &a, const Layout &b) {
  return guard([&] { return zip_product(a, b, /*raked=*/true); });
}

Result<Layout> tile_to_shape(const Layout &block, const IntTuple &shape, Major order) {
  return guard([&] {
    detail::require_valid(block);
    detail::require_positive(shape);
    const int r = rank(shape);
    if (rank(block) > r)
      fail("tile_to_shape: the block " + to_string(block) + " has more modes than the shape " +
           to_string(shape));
    const Layout padded = append_to_rank(block, static_cast<size_t>(r));
    const std::vector<Layout> block_modes = detail::top_modes(padded);
    std::vector<IntTuple> repeats;
    for (int k = 0; k < r; ++k) {
      const int64_t target = detail::product(shape[k]);
      const int64_t have = detail::product(block_modes[k].shape());
      if (target % have != 0)
        fail("tile_to_shape: mode " + std::to_string(k) + " of the shape " + to_string(shape) +
             " (size " + std::to_string(target) + ") is not a multiple of mode " +
             std::to_string(k) + " of the block " + to_string(block) + " (size " +
             std::to_string(have) + ")");
      repeats.emplace_back(target / have);
    }
    const IntTuple repeat_shape = IntTuple::tuple(std::move(repeats));
    const Layout repeat = detail::take(order == Major::Left ? make_layout_left(repeat_shape)
                                                            : make_layout_right(repeat_shape));
    const Layout tiled = zip_product(padded, repeat, /*raked=*/false);
    return detail::take(coalesce(tiled, repeat_shape));
  });
}

Result<Layout> right_inverse(const Layout &a) {
  return guard([&] { return right_inverse_of(a); });
}

Result<Layout> left_inverse(const Layout &a) {
  return guard([&] {
    for (const Mode &m : detail::flat_modes(a))
      if (m.shape > 1 && m.stride == 0)
        fail("left_inverse: " + to_string(a) + " is not injective (mode " +
             std::to_string(m.shape) + ":0)");
    Layout rest;
    try {
      rest = complement_of(a, cosize_of(detail::take(filter(a))));
    } catch (const Failure &failure) {
      fail("left_inverse of " + to_string(a) + " is not a layout: " + failure.message);
    }
    return right_inverse_of(make_layout({a, rest}));
  });
}

} // namespace argus::layout
