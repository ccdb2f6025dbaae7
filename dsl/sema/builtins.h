// Internal: the signature table of builtins and hardware intrinsics.
//
// The table is data (name, parameters, documentation) plus a result rule per
// entry; argument binding and checking are generic (calls.cpp). The language
// server's completion and signature help will read the same table.
#pragma once

#include "argus/dsl/ast.h"
#include "argus/dsl/builtin_id.h"
#include "argus/dsl/types.h"

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace argus::sema {

class Analyzer;

enum class ArgKind {
  Any,         // any value
  Integer,     // an integer value (runtime or constant)
  IntConst,    // a compile-time integer
  Numeric,     // a number of any scalar type
  Float,       // a floating-point number
  Condition,   // a bool or integer used as a truth value
  Dtype,       // a scalar type name: bf16, f32, ...
  Shape,       // an int or tuple of ints: constants or scalar parameters
  ConstShape,  // an int or tuple of compile-time ints
  IntTuple,    // an int or tuple of integer values
  Tensor,      // a tensor view, with the requirements in `TensorReq`
  Place,       // a tensor view or one element of one (t[i, j]), with `TensorReq`
  String,      // a string literal
  Fields,      // a tuple of string literals
  TagFunction, // a tuple of field names, or a lambda returning a tag record
  TagRecord,   // a dict {"field": integer expression, ...}
  TensorSpec,  // Tensor(shape, dtype)
  LayoutLike,  // make_layout(...), Swizzle(...) or compose(...)
};

struct TensorReq {
  std::optional<MemorySpace> space;
  std::optional<ScalarKind> dtype;
  int64_t elements = 0; // 0: any count
  int64_t bytes = 0;    // 0: any size
  bool sixteen_bit = false;
};

struct ParamSpec {
  std::string_view name;
  ArgKind kind = ArgKind::Any;
  bool optional = false;
  TensorReq tensor = {};
};

// The arguments of one call bound to their parameters (null when absent).
struct BoundArgs {
  std::vector<const ast::Expr *> args;
  std::vector<Type> types;
  std::vector<std::vector<Dim>> shapes; // for Shape/ConstShape parameters
};

using ResultRule = Type (*)(Analyzer &analyzer, const ast::Expr &call, const BoundArgs &args);

struct BuiltinSpec {
  std::string_view ns; // "", "nvvm" or "amdgpu"
  std::string_view name;
  std::vector<ParamSpec> params;
  bool variadic = false; // the last parameter repeats
  std::string_view doc;
  ResultRule result = nullptr;
  bool kernel_only = false;       // assume(...)
  BuiltinId id = BuiltinId::None; // from builtins.def by (ns, name)
};

const BuiltinSpec *find_builtin(std::string_view name);
const BuiltinSpec *find_intrinsic(std::string_view ns, std::string_view name);
std::span<const BuiltinSpec> all_builtins();
const BuiltinSpec *spec_of(BuiltinId id);

} // namespace argus::sema
