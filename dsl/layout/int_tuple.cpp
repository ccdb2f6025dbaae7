// IntTuple: construction, structure queries, CuTe notation, and the
// coordinate maps idx2crd / crd2idx.
#include "argus/layout/layout.h"
#include "checked.h"
#include "internal.h"

#include <algorithm>
#include <ostream>

namespace argus::layout {

using detail::fail;
using detail::guard;

IntTuple IntTuple::tuple(std::vector<IntTuple> elements) {
  IntTuple t;
  t.is_tuple_ = true;
  t.elements_ = std::move(elements);
  return t;
}

bool operator==(const IntTuple &a, const IntTuple &b) {
  if (a.is_tuple_ != b.is_tuple_)
    return false;
  if (!a.is_tuple_)
    return a.value_ == b.value_;
  return a.elements_ == b.elements_;
}

int rank(const IntTuple &t) { return t.rank(); }

int depth(const IntTuple &t) {
  if (t.is_leaf())
    return 0;
  int d = 0;
  for (const IntTuple &e : t.elements())
    d = std::max(d, depth(e));
  return d + 1;
}

namespace detail {

int64_t product(const IntTuple &t) {
  if (t.is_leaf())
    return t.value();
  int64_t p = 1;
  for (const IntTuple &e : t.elements())
    p = mul(p, product(e));
  return p;
}

void append_leaves(const IntTuple &t, std::vector<IntTuple> &out) {
  if (t.is_leaf()) {
    out.push_back(t);
    return;
  }
  for (const IntTuple &e : t.elements())
    append_leaves(e, out);
}

} // namespace detail

Result<int64_t> size(const IntTuple &t) {
  return guard([&] { return detail::product(t); });
}

IntTuple flatten(const IntTuple &t) {
  if (t.is_leaf())
    return t;
  std::vector<IntTuple> leaves;
  detail::append_leaves(t, leaves);
  return IntTuple::tuple(std::move(leaves));
}

int leaf_count(const IntTuple &t) {
  if (t.is_leaf())
    return 1;
  int n = 0;
  for (const IntTuple &e : t.elements())
    n += leaf_count(e);
  return n;
}

bool congruent(const IntTuple &a, const IntTuple &b) {
  if (a.is_leaf() || b.is_leaf())
    return a.is_leaf() && b.is_leaf();
  if (a.elements().size() != b.elements().size())
    return false;
  for (size_t i = 0; i < a.elements().size(); ++i)
    if (!congruent(a.elements()[i], b.elements()[i]))
      return false;
  return true;
}

bool weakly_congruent(const IntTuple &a, const IntTuple &b) {
  if (a.is_leaf())
    return true;
  if (b.is_leaf())
    return false;
  if (a.elements().size() != b.elements().size())
    return false;
  for (size_t i = 0; i < a.elements().size(); ++i)
    if (!weakly_congruent(a.elements()[i], b.elements()[i]))
      return false;
  return true;
}

// ---------------------------------------------------------------------------
// Notation.

namespace detail {

void print(std::string &out, const IntTuple &t) {
  if (t.is_leaf()) {
    out += std::to_string(t.value());
    return;
  }
  out += '(';
  for (size_t i = 0; i < t.elements().size(); ++i) {
    if (i)
      out += ',';
    print(out, t.elements()[i]);
  }
  out += ')';
}

void NotationReader::skip_space() {
  while (pos < text.size() &&
         (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
    ++pos;
}

bool NotationReader::at_end() {
  skip_space();
  return pos >= text.size();
}

bool NotationReader::consume(char c) {
  skip_space();
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

std::string NotationReader::where() const {
  if (pos >= text.size())
    return "at the end of \"" + std::string(text) + "\"";
  return "at column " + std::to_string(pos + 1) + " of \"" + std::string(text) + "\"";
}

int64_t NotationReader::integer() {
  skip_space();
  const size_t start = pos;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    negative = text[pos] == '-';
    ++pos;
  }
  if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') {
    pos = start;
    fail("expected an integer " + where());
  }
  // Accumulate negatively so INT64_MIN parses.
  int64_t value = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    const int digit = text[pos] - '0';
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_sub_overflow(value, digit, &value)) {
      pos = start;
      fail("integer does not fit in int64 " + where());
    }
    ++pos;
  }
  if (!negative) {
    if (value == INT64_MIN) {
      pos = start;
      fail("integer does not fit in int64 " + where());
    }
    value = -value;
  }
  return value;
}

IntTuple NotationReader::int_tuple(int nesting) {
  if (nesting > kMaxNesting)
    fail("tuple nested deeper than " + std::to_string(kMaxNesting) + " levels " + where());
  skip_space();
  if (!consume('('))
    return IntTuple(integer());
  std::vector<IntTuple> elements;
  if (consume(')'))
    return IntTuple::tuple(std::move(elements));
  for (;;) {
    elements.push_back(int_tuple(nesting + 1));
    if (consume(')'))
      break;
    if (!consume(','))
      fail("expected ',' or ')' " + where());
  }
  return IntTuple::tuple(std::move(elements));
}

} // namespace detail

Result<IntTuple> parse_int_tuple(std::string_view text) {
  return guard([&] {
    detail::NotationReader reader{text};
    IntTuple t = reader.int_tuple(0);
    if (!reader.at_end())
      fail("unexpected '" + std::string(1, text[reader.pos]) + "' " + reader.where());
    return t;
  });
}

std::string to_string(const IntTuple &t) {
  std::string out;
  detail::print(out, t);
  return out;
}

std::ostream &operator<<(std::ostream &os, const IntTuple &t) { return os << to_string(t); }

// ---------------------------------------------------------------------------
// Coordinates.

namespace detail {

IntTuple idx2crd_of(const IntTuple &coord, const IntTuple &shape) {
  if (shape.is_leaf()) {
    if (!coord.is_leaf())
      fail("coordinate " + to_string(coord) + " has more modes than shape " + to_string(shape));
    return coord;
  }
  const std::vector<IntTuple> &modes = shape.elements();
  std::vector<IntTuple> out;
  out.reserve(modes.size());
  if (coord.is_leaf()) {
    int64_t rest = coord.value();
    for (size_t k = 0; k < modes.size(); ++k) {
      if (k + 1 == modes.size()) {
        out.push_back(idx2crd_of(IntTuple(rest), modes[k]));
        break;
      }
      const int64_t extent = product(modes[k]);
      out.push_back(idx2crd_of(IntTuple(floor_mod(rest, extent)), modes[k]));
      rest = floor_div(rest, extent);
    }
    return IntTuple::tuple(std::move(out));
  }
  if (coord.elements().size() != modes.size())
    fail("coordinate " + to_string(coord) + " has rank " + std::to_string(coord.rank()) +
         " but shape " + to_string(shape) + " has rank " + std::to_string(shape.rank()));
  for (size_t k = 0; k < modes.size(); ++k)
    out.push_back(idx2crd_of(coord.elements()[k], modes[k]));
  return IntTuple::tuple(std::move(out));
}

// Σ c·d for an integer coordinate `index` into (shape, stride): every mode but
// the last is reduced.
int64_t index_offset(int64_t index, const IntTuple &shape, const IntTuple &stride) {
  if (shape.is_leaf())
    return mul(index, stride.value());
  const std::vector<IntTuple> &modes = shape.elements();
  int64_t offset = 0;
  for (size_t k = 0; k < modes.size(); ++k) {
    if (k + 1 == modes.size())
      return add(offset, index_offset(index, modes[k], stride.elements()[k]));
    const int64_t extent = product(modes[k]);
    offset = add(offset, index_offset(floor_mod(index, extent), modes[k], stride.elements()[k]));
    index = floor_div(index, extent);
  }
  return offset; // the empty tuple
}

int64_t coord_offset(const IntTuple &coord, const IntTuple &shape, const IntTuple &stride) {
  if (coord.is_leaf())
    return index_offset(coord.value(), shape, stride);
  if (shape.is_tuple() && coord.elements().size() == shape.elements().size()) {
    int64_t offset = 0;
    for (size_t k = 0; k < shape.elements().size(); ++k)
      offset =
          add(offset, coord_offset(coord.elements()[k], shape.elements()[k], stride.elements()[k]));
    return offset;
  }
  fail("coordinate " + to_string(coord) + " does not match shape " + to_string(shape));
}

bool is_flat(const IntTuple &t) {
  return t.is_tuple() && std::all_of(t.elements().begin(), t.elements().end(),
                                     [](const IntTuple &e) { return e.is_leaf(); });
}

int64_t crd2idx_of(const IntTuple &coord, const IntTuple &shape, const IntTuple &stride) {
  if (!congruent(shape, stride))
    fail("shape " + to_string(shape) + " and stride " + to_string(stride) + " are not congruent");
  // A flat coordinate with one entry per leaf of a nested shape.
  if (is_flat(coord) && !weakly_congruent(coord, shape) &&
      static_cast<int>(coord.elements().size()) == leaf_count(shape)) {
    const IntTuple flat_shape = flatten(shape);
    const IntTuple flat_stride = flatten(stride);
    return coord_offset(coord, flat_shape, flat_stride);
  }
  return coord_offset(coord, shape, stride);
}

IntTuple left_strides(const IntTuple &shape, int64_t &running) {
  if (shape.is_leaf()) {
    const IntTuple stride(running);
    running = mul(running, shape.value());
    return stride;
  }
  std::vector<IntTuple> out;
  out.reserve(shape.elements().size());
  for (const IntTuple &e : shape.elements())
    out.push_back(left_strides(e, running));
  return IntTuple::tuple(std::move(out));
}

IntTuple right_strides(const IntTuple &shape, int64_t &running) {
  if (shape.is_leaf()) {
    const IntTuple stride(running);
    running = mul(running, shape.value());
    return stride;
  }
  std::vector<IntTuple> out(shape.elements().size());
  for (size_t k = shape.elements().size(); k-- > 0;)
    out[k] = right_strides(shape.elements()[k], running);
  return IntTuple::tuple(std::move(out));
}

} // namespace detail

Result<IntTuple> idx2crd(const IntTuple &coord, const IntTuple &shape) {
  return guard([&] { return detail::idx2crd_of(coord, shape); });
}

Result<int64_t> crd2idx(const IntTuple &coord, const IntTuple &shape, const IntTuple &stride) {
  return guard([&] { return detail::crd2idx_of(coord, shape, stride); });
}

Result<int64_t> crd2idx(const IntTuple &coord, const IntTuple &shape) {
  return guard([&] {
    int64_t running = 1;
    const IntTuple stride = detail::left_strides(shape, running);
    return detail::crd2idx_of(coord, shape, stride);
  });
}

} // namespace argus::layout
