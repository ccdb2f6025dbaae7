// The expression language of `argus layout`: a calculator over the layout
// algebra ("composition((6,2):(8,2), (4,3):(3,1))", "swizzle(3,4,3)(144)").
// The grammar and the functions are documented in docs/layout.md.
//
// Evaluation never throws and never aborts: a malformed or failing
// expression yields an ExprError with the byte range of the offending
// sub-expression.
#pragma once

#include "argus/layout/layout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace argus::layout::calc {

// A bare identifier used as an argument (an instruction or operand name of
// tv(...), `left`/`right` of tile_to_shape).
struct Name {
  std::string text;
  friend bool operator==(const Name &, const Name &) = default;
};

// The value of an expression. An integer is an `int64_t`, never a leaf
// IntTuple; a tuple of integers is an IntTuple; a tuple holding a layout is a
// Tiler.
using Value = std::variant<int64_t, IntTuple, Layout, Tiler, Swizzle, SwizzledLayout, Name>;

// "int", "tuple", "layout", "tiler", "swizzle", "swizzled_layout", "name".
std::string_view kind_name(const Value &v);
// CuTe notation for layouts and tuples, "Sw<3,4,3>" for swizzles.
std::string to_string(const Value &v);

struct ExprError {
  std::string message;
  size_t offset = 0; // byte offset of the offending sub-expression in the text
  size_t length = 1; // its length in bytes (at least 1)
};

struct Evaluation {
  std::optional<Value> value;     // set on success
  std::optional<ExprError> error; // set on failure
};

Evaluation evaluate_expression(std::string_view text);

// The error as three lines: "column N: message", the text, and a caret line
// ("^~~~") under the sub-expression. Columns count code points from 1.
std::string format_error(std::string_view text, const ExprError &error);
// 1-based column (in code points) of a byte offset.
size_t column_of(std::string_view text, size_t offset);

// The index grid of a rank-2 layout (or swizzled layout): cells[m][n] is the
// offset of coordinate (m, n). At most kMaxTableCells cells.
struct Table {
  std::string title; // the layout in notation
  std::vector<std::vector<int64_t>> cells;
};
inline constexpr int64_t kMaxTableCells = 1 << 16;
Result<Table> make_table(const Value &v);
// Rows and columns with borders, like CuTe's print_layout.
std::string render_table(const Table &table);

} // namespace argus::layout::calc
