// Internal to argus_layout: helpers shared by the implementation files. They
// throw detail::Failure (checked.h); public functions catch it with guard().
#pragma once

#include "argus/layout/layout.h"
#include "checked.h"

#include <string>
#include <string_view>
#include <vector>

namespace argus::layout::detail {

// A flat mode s:d.
struct Mode {
  int64_t shape;
  int64_t stride;
};

// Product of the leaves (throws on overflow).
int64_t product(const IntTuple &t);
void append_leaves(const IntTuple &t, std::vector<IntTuple> &out);
void print(std::string &out, const IntTuple &t);

// Offset of an integer index / a coordinate in (shape, stride); throws on
// mismatch or overflow.
int64_t index_offset(int64_t index, const IntTuple &shape, const IntTuple &stride);
int64_t crd2idx_of(const IntTuple &coord, const IntTuple &shape, const IntTuple &stride);
IntTuple idx2crd_of(const IntTuple &coord, const IntTuple &shape);
// Compact strides; `running` starts at 1 and ends at the size.
IntTuple left_strides(const IntTuple &shape, int64_t &running);
IntTuple right_strides(const IntTuple &shape, int64_t &running);

// The flat modes of a layout, in order.
std::vector<Mode> flat_modes(const Layout &l);
// A layout from flat modes: one mode is a leaf layout, none is 1:0.
Layout from_modes(const std::vector<Mode> &modes);
// The top-level modes of a layout (a leaf layout is its own only mode).
std::vector<Layout> top_modes(const Layout &l);
// Checked versions of the public operations (they throw).
Layout coalesce_of(const Layout &l);
Layout check_layout(IntTuple shape, IntTuple stride);
// Throws unless the layout is congruent with positive shape leaves (what the
// unchecked Layout constructor trusts its caller for).
void require_valid(const Layout &l);
void require_positive(const IntTuple &shape);

// Reads CuTe notation: integers, tuples, whitespace.
struct NotationReader {
  static constexpr int kMaxNesting = 64;

  std::string_view text;
  size_t pos = 0;

  void skip_space();
  bool at_end();
  bool consume(char c);
  int64_t integer();
  IntTuple int_tuple(int nesting);
  // "at column N of "text"" or "at the end of "text"".
  std::string where() const;
};

} // namespace argus::layout::detail
