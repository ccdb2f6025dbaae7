// Layout: construction, queries, evaluation, notation, coalesce and filter.
#include "argus/layout/layout.h"
#include "checked.h"
#include "internal.h"

#include <algorithm>
#include <ostream>

namespace argus::layout {

using detail::fail;
using detail::guard;
using detail::Mode;

namespace detail {

void append_modes(const IntTuple &shape, const IntTuple &stride, std::vector<Mode> &out) {
  if (shape.is_leaf()) {
    out.push_back({shape.value(), stride.value()});
    return;
  }
  for (size_t k = 0; k < shape.elements().size(); ++k)
    append_modes(shape.elements()[k], stride.elements()[k], out);
}

std::vector<Mode> flat_modes(const Layout &l) {
  if (!congruent(l.shape(), l.stride()))
    fail("layout " + to_string(l) + " has a shape and a stride that are not congruent");
  std::vector<Mode> out;
  append_modes(l.shape(), l.stride(), out);
  return out;
}

Layout from_modes(const std::vector<Mode> &modes) {
  if (modes.empty())
    return Layout(1, 0);
  if (modes.size() == 1)
    return Layout(modes[0].shape, modes[0].stride);
  std::vector<IntTuple> shape, stride;
  shape.reserve(modes.size());
  stride.reserve(modes.size());
  for (const Mode &m : modes) {
    shape.emplace_back(m.shape);
    stride.emplace_back(m.stride);
  }
  return Layout(IntTuple::tuple(std::move(shape)), IntTuple::tuple(std::move(stride)));
}

std::vector<Layout> top_modes(const Layout &l) {
  if (!congruent(l.shape(), l.stride()))
    fail("layout " + to_string(l) + " has a shape and a stride that are not congruent");
  if (l.shape().is_leaf())
    return {l};
  std::vector<Layout> out;
  out.reserve(l.shape().elements().size());
  for (size_t k = 0; k < l.shape().elements().size(); ++k)
    out.emplace_back(l.shape().elements()[k], l.stride().elements()[k]);
  return out;
}

namespace {

void check_shape_positive(const IntTuple &shape, const IntTuple &whole) {
  if (shape.is_leaf()) {
    if (shape.value() < 1)
      fail("shape " + to_string(whole) + " has the non-positive extent " +
           std::to_string(shape.value()));
    return;
  }
  for (const IntTuple &e : shape.elements())
    check_shape_positive(e, whole);
}

} // namespace

void require_valid(const Layout &l) {
  if (!congruent(l.shape(), l.stride()))
    fail("layout " + to_string(l) + " has a shape and a stride that are not congruent");
  check_shape_positive(l.shape(), l.shape());
}

void require_positive(const IntTuple &shape) { check_shape_positive(shape, shape); }

Layout check_layout(IntTuple shape, IntTuple stride) {
  if (!congruent(shape, stride))
    fail("shape " + to_string(shape) + " and stride " + to_string(stride) + " are not congruent");
  check_shape_positive(shape, shape);
  product(shape); // the size must fit int64
  return Layout(std::move(shape), std::move(stride));
}

Layout coalesce_of(const Layout &l) {
  require_valid(l);
  std::vector<Mode> out;
  for (const Mode &m : flat_modes(l)) {
    if (m.shape == 1)
      continue;
    if (!out.empty()) {
      Mode &last = out.back();
      int64_t next_stride;
      if (!__builtin_mul_overflow(last.shape, last.stride, &next_stride) &&
          next_stride == m.stride) {
        last.shape = mul(last.shape, m.shape);
        continue;
      }
    }
    out.push_back(m);
  }
  return from_modes(out);
}

} // namespace detail

// ---------------------------------------------------------------------------

Result<int64_t> Layout::operator()(int64_t index) const { return evaluate(*this, index); }

Result<int64_t> Layout::operator()(const IntTuple &coord) const { return evaluate(*this, coord); }

Result<Layout> make_layout(IntTuple shape, IntTuple stride) {
  return guard([&] { return detail::check_layout(std::move(shape), std::move(stride)); });
}

Layout make_layout(const std::vector<Layout> &modes) {
  std::vector<IntTuple> shape, stride;
  shape.reserve(modes.size());
  stride.reserve(modes.size());
  for (const Layout &m : modes) {
    shape.push_back(m.shape());
    stride.push_back(m.stride());
  }
  return Layout(IntTuple::tuple(std::move(shape)), IntTuple::tuple(std::move(stride)));
}

Result<Layout> make_layout_left(const IntTuple &shape) {
  return guard([&] {
    int64_t running = 1;
    IntTuple stride = detail::left_strides(shape, running);
    return detail::check_layout(shape, std::move(stride));
  });
}

Result<Layout> make_layout_right(const IntTuple &shape) {
  return guard([&] {
    int64_t running = 1;
    IntTuple stride = detail::right_strides(shape, running);
    return detail::check_layout(shape, std::move(stride));
  });
}

int rank(const Layout &l) { return l.shape().rank(); }

int depth(const Layout &l) { return depth(l.shape()); }

Result<int64_t> size(const Layout &l) { return size(l.shape()); }

Result<int64_t> cosize(const Layout &l) {
  return guard([&] {
    int64_t last = 0;
    for (const Mode &m : detail::flat_modes(l))
      if (m.stride > 0)
        last = detail::add(last, detail::mul(detail::sub(m.shape, 1), m.stride));
    return detail::add(last, 1);
  });
}

Result<Layout> mode(const Layout &l, int i) {
  if (i < 0 || i >= rank(l))
    return Error{"mode " + std::to_string(i) + " of " + to_string(l) + " does not exist (rank " +
                 std::to_string(rank(l)) + ")"};
  return Layout(l.shape()[i], l.stride()[i]);
}

Layout flatten(const Layout &l) {
  if (l.shape().is_leaf())
    return l;
  return Layout(flatten(l.shape()), flatten(l.stride()));
}

Result<Layout> parse_layout(std::string_view text) {
  return guard([&] {
    detail::NotationReader reader{text};
    IntTuple shape = reader.int_tuple(0);
    if (!reader.consume(':'))
      fail("expected ':' between shape and stride " + reader.where());
    IntTuple stride = reader.int_tuple(0);
    if (!reader.at_end())
      fail("unexpected '" + std::string(1, text[reader.pos]) + "' " + reader.where());
    return detail::check_layout(std::move(shape), std::move(stride));
  });
}

std::string to_string(const Layout &l) {
  std::string out;
  detail::print(out, l.shape());
  out += ':';
  detail::print(out, l.stride());
  return out;
}

std::ostream &operator<<(std::ostream &os, const Layout &l) { return os << to_string(l); }

Result<int64_t> evaluate(const Layout &l, int64_t index) {
  return guard([&] {
    if (!congruent(l.shape(), l.stride()))
      fail("layout " + to_string(l) + " has a shape and a stride that are not congruent");
    return detail::index_offset(index, l.shape(), l.stride());
  });
}

Result<int64_t> evaluate(const Layout &l, const IntTuple &coord) {
  return guard([&] { return detail::crd2idx_of(coord, l.shape(), l.stride()); });
}

Result<Layout> coalesce(const Layout &l) {
  return guard([&] { return detail::coalesce_of(l); });
}

Result<Layout> coalesce(const Layout &l, const IntTuple &profile) {
  return guard([&] {
    if (profile.is_leaf())
      return detail::coalesce_of(l);
    if (profile.rank() > rank(l))
      fail("coalesce profile " + to_string(profile) + " has more modes than the layout " +
           to_string(l));
    const std::vector<Layout> modes = detail::top_modes(l);
    std::vector<Layout> out;
    out.reserve(modes.size());
    for (size_t k = 0; k < modes.size(); ++k) {
      if (k < profile.elements().size())
        out.push_back(detail::take(coalesce(modes[k], profile.elements()[k])));
      else
        out.push_back(modes[k]);
    }
    return make_layout(out);
  });
}

Result<Layout> filter(const Layout &l) {
  return guard([&] {
    std::vector<Mode> kept;
    for (const Mode &m : detail::flat_modes(l))
      if (m.shape != 1 && m.stride != 0)
        kept.push_back(m);
    return detail::coalesce_of(detail::from_modes(kept));
  });
}

} // namespace argus::layout
