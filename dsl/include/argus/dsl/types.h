// Types and shapes of the Argus language (dsl/sema).
//
// Shapes are lists of `Dim`s: compile-time constants, or symbolic
// expressions over a kernel's scalar parameters (`M`, `K // 8`). Symbolic
// dims are kept as normalized text until the layout algebra brings its
// expression trees; equal text means equal dims.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::sema {

enum class ScalarKind {
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  FP8E4M3,
  FP8E5M2,
  FP8E4M3FNUZ, // MI300 (gfx942) fp8: bias 8 / 16, no infinity, no -0, 0x80 NaN
  FP8E5M2FNUZ,
  Bool,
};

std::optional<ScalarKind> scalar_from_name(std::string_view name);
const char *to_string(ScalarKind kind);
int bit_width(ScalarKind kind);
bool is_float(ScalarKind kind);
bool is_integer(ScalarKind kind); // not bool
bool is_signed(ScalarKind kind);
bool is_fp8(ScalarKind kind); // OCP or FNUZ

enum class MemorySpace { Global, Shared, Local };
const char *to_string(MemorySpace space);

struct Dim {
  std::optional<int64_t> value; // set for constants
  std::string symbol;           // the expression text when symbolic

  static Dim constant(int64_t v) { return Dim{v, {}}; }
  static Dim symbolic(std::string text) { return Dim{std::nullopt, std::move(text)}; }
  bool is_constant() const { return value.has_value(); }
  std::string str() const;
  friend bool operator==(const Dim &, const Dim &) = default;
};

std::string shape_to_string(const std::vector<Dim> &shape);

struct TensorType;

enum class TypeKind {
  Unknown,      // an error was reported; accept anything silently
  Void,         // result of a statement-like call
  IntLiteral,   // a compile-time Python int: adapts to any integer or float scalar
  FloatLiteral, // a compile-time Python float: adapts to any float scalar
  Scalar,
  Tensor, // a view: global parameter, shared/local array, or a view of one
  Tuple,
  Dtype, // a scalar type used as a value: `bf16` in `make_shared(..., bf16)`
  String,
  Dict,       // only as the tag record of assert_tag
  Lambda,     // only as a tag function
  TensorSpec, // `Tensor(shape, dtype)`: a view's target type
  Layout,     // `make_layout(shape, stride)`
  Swizzle,    // `Swizzle(B, M, S)`
  Range,      // `range(...)`: only as a for-loop iterable
  Namespace,  // `nvvm`, `amdgpu`
  Function,   // a @device or @kernel function used as a value (in @bench)
};

struct Type {
  TypeKind kind = TypeKind::Unknown;
  ScalarKind scalar = ScalarKind::I32;      // Scalar, Dtype
  std::shared_ptr<const TensorType> tensor; // Tensor, TensorSpec
  std::vector<Type> elements;               // Tuple

  static Type unknown() { return {}; }
  static Type of(TypeKind kind) {
    Type t;
    t.kind = kind;
    return t;
  }
  static Type void_type() { return of(TypeKind::Void); }
  static Type scalar_of(ScalarKind k) {
    Type t = of(TypeKind::Scalar);
    t.scalar = k;
    return t;
  }
  static Type dtype_of(ScalarKind k) {
    Type t = of(TypeKind::Dtype);
    t.scalar = k;
    return t;
  }
  static Type tensor_of(TensorType t);
  static Type tensor_spec_of(TensorType t);
  static Type tuple_of(std::vector<Type> elements);

  bool is_unknown() const { return kind == TypeKind::Unknown; }
  bool is_tensor() const { return kind == TypeKind::Tensor; }
  // Scalars and numeric literals.
  bool is_numeric() const;
  bool is_integer_like() const; // integer scalar, bool or int literal
  std::string str() const;
};

struct TensorType {
  MemorySpace space = MemorySpace::Global;
  ScalarKind dtype = ScalarKind::F32;
  std::vector<Dim> shape;
  std::vector<Dim> strides; // empty: row-major (LayoutRight) over `shape`
  bool swizzled = false;

  // Byte size of one access through this view when every element is read at
  // once (a vector access); nullopt when a dim is symbolic.
  std::optional<int64_t> byte_size() const;
  std::optional<int64_t> element_count() const;
  std::string str() const;
};

// Two types a value can flow between (assignment, argument passing).
bool assignable(const Type &to, const Type &from);

} // namespace argus::sema
