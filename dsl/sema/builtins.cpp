// The builtin and intrinsic table: signatures, documentation, result rules.
#include "builtins.h"

#include "analyzer.h"
#include "argus/dsl/int_eval.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace argus::sema {
namespace {

using ast::Expr;

Type void_result(Analyzer &, const Expr &, const BoundArgs &) { return Type::void_type(); }
Type i32_result(Analyzer &, const Expr &, const BoundArgs &) {
  return Type::scalar_of(ScalarKind::I32);
}

Type launch_coordinate(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  if (args.args[0]) {
    const auto d = analyzer.constant(*args.args[0]);
    if (d && (*d < 0 || *d > 2))
      analyzer.error(codes::kArgumentType, args.args[0]->range,
                     "dimension must be 0 (x), 1 (y) or 2 (z), got " + std::to_string(*d));
  }
  return Type::scalar_of(ScalarKind::I32);
}

// min/max: the common numeric type of all arguments, folded when all are constants.
template <typename T> T pick(bool smallest, T a, T b) {
  return smallest ? std::min(a, b) : std::max(a, b);
}

template <bool Smallest>
Type fold_numeric(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  Type common = args.types[0];
  std::optional<int64_t> value = analyzer.constant(*args.args[0]);
  for (size_t i = 1; i < args.args.size(); ++i) {
    if (!args.args[i])
      continue;
    const Type &t = args.types[i];
    if (common.kind == TypeKind::IntLiteral && t.kind != TypeKind::IntLiteral)
      common = t;
    else if (common.kind == TypeKind::Scalar && t.kind == TypeKind::Scalar &&
             common.scalar != t.scalar && !(is_integer(common.scalar) && is_integer(t.scalar))) {
      analyzer.error(codes::kTypeMismatch, call.range,
                     "arguments mix " + common.str() + " and " + t.str() + "; convert explicitly");
      return Type::unknown();
    }
    const auto v = analyzer.constant(*args.args[i]);
    value = value && v ? std::optional<int64_t>(pick(Smallest, *value, *v)) : std::nullopt;
  }
  if (value && common.kind == TypeKind::IntLiteral) {
    analyzer.set_constant(call, *value);
    return common;
  }
  if (common.kind == TypeKind::FloatLiteral) {
    // min/max of compile-time numbers with a float among them: a float constant.
    std::optional<double> folded = analyzer.numeric_constant(*args.args[0]);
    for (size_t i = 1; i < args.args.size() && folded; ++i) {
      const auto v = args.args[i] ? analyzer.numeric_constant(*args.args[i]) : folded;
      folded = v ? std::optional<double>(pick(Smallest, *folded, *v)) : std::nullopt;
    }
    if (folded)
      analyzer.set_float_constant(call, *folded);
    return common;
  }
  if (common.kind == TypeKind::IntLiteral)
    return Type::scalar_of(ScalarKind::I32);
  return common;
}

Type cdiv_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  const auto a = analyzer.constant(*args.args[0]);
  const auto b = analyzer.constant(*args.args[1]);
  if (b && *b <= 0) {
    analyzer.error(codes::kConstantDivByZero, args.args[1]->range,
                   "cdiv needs a positive divisor, got " + std::to_string(*b));
    return Type::unknown();
  }
  if (a && b) {
    if (const auto q = int_eval::cdiv(*a, *b).get()) {
      analyzer.set_constant(call, *q);
      return Type::of(TypeKind::IntLiteral);
    }
  }
  return Type::scalar_of(ScalarKind::I32);
}

Type abs_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  if (const auto v = analyzer.constant(*args.args[0])) {
    if (const auto a = int_eval::absolute(*v).get())
      analyzer.set_constant(call, *a);
    else
      analyzer.error(codes::kNotConstant, call.range,
                     "integer overflow in constant expression: abs(" + std::to_string(*v) + ")");
  } else if (const auto f = analyzer.float_constant(*args.args[0])) {
    analyzer.set_float_constant(call, std::fabs(*f));
  }
  return args.types[0];
}

// The math builtin's value at compile time (in double precision), or nullopt.
std::optional<double> fold_math(BuiltinId id, double x) {
  switch (id) {
  case BuiltinId::Exp:
    return std::exp(x);
  case BuiltinId::Exp2:
    return std::exp2(x);
  case BuiltinId::Log:
    return std::log(x);
  case BuiltinId::Log2:
    return std::log2(x);
  case BuiltinId::Sqrt:
    return std::sqrt(x);
  case BuiltinId::Rsqrt:
    return 1.0 / std::sqrt(x);
  case BuiltinId::Tanh:
    return std::tanh(x);
  default:
    return std::nullopt;
  }
}

// exp, log, sqrt, ...: a float constant when the argument is a compile-time
// number (`rsqrt(D)` of an int constant D), else the argument's float type.
Type float_unary(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  const Type &t = args.types[0];
  if (t.kind == TypeKind::Scalar)
    return t;
  const BuiltinId id = analyzer.builtin_of(call);
  const std::string name = builtin_name(id);
  const auto x = analyzer.numeric_constant(*args.args[0]);
  const auto y = x ? fold_math(id, *x) : std::nullopt;
  if (!y)
    return Type::scalar_of(ScalarKind::F32);
  if (std::isnan(*y) || (std::isinf(*y) && !std::isinf(*x))) {
    analyzer.error(codes::kNotConstant, call.range,
                   name + "(" + std::to_string(*x) + ") has no finite value");
    return Type::unknown();
  }
  analyzer.set_float_constant(call, *y);
  return Type::of(TypeKind::FloatLiteral);
}

Type fma_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  Type common = Type::of(TypeKind::FloatLiteral);
  for (const Type &t : args.types) {
    if (t.kind != TypeKind::Scalar)
      continue;
    if (common.kind == TypeKind::Scalar && common.scalar != t.scalar) {
      analyzer.error(codes::kTypeMismatch, call.range,
                     "fma arguments mix " + common.str() + " and " + t.str() +
                         "; convert explicitly");
      return Type::unknown();
    }
    common = t;
  }
  return common.kind == TypeKind::Scalar ? common : Type::scalar_of(ScalarKind::F32);
}

Type convert_result(Analyzer &, const Expr &, const BoundArgs &args) {
  return Type::scalar_of(args.types[1].scalar);
}

Type bitcast_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  const Type &from = args.types[0];
  const ScalarKind to = args.types[1].scalar;
  if (from.kind != TypeKind::Scalar) {
    analyzer.error(codes::kArgumentType, args.args[0]->range,
                   "bitcast needs a value of a known scalar type, got " + from.str() +
                       "; convert the literal first, e.g. u32(1)");
    return Type::unknown();
  }
  if (bit_width(from.scalar) != bit_width(to)) {
    analyzer.error(codes::kArgumentType, args.args[0]->range,
                   std::string("bitcast from ") + to_string(from.scalar) + " (" +
                       std::to_string(bit_width(from.scalar)) + " bits) to " + to_string(to) +
                       " (" + std::to_string(bit_width(to)) + " bits) changes the size");
    return Type::unknown();
  }
  return Type::scalar_of(to);
}

Type array_result(Analyzer &analyzer, const Expr &call, const std::vector<Dim> &shape,
                  ScalarKind dtype, MemorySpace space, bool swizzled) {
  TensorType t;
  t.space = space;
  t.dtype = dtype;
  t.shape = shape;
  t.swizzled = swizzled;
  if (space == MemorySpace::Shared) {
    const int64_t bytes = t.byte_size().value_or(0);
    analyzer.note_shared_bytes(bytes);
    (void)call;
  }
  return Type::tensor_of(std::move(t));
}

Type make_shared_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  const bool swizzled = args.args[2] && args.types[2].kind == TypeKind::Swizzle;
  const bool composed = args.args[2] && args.args[2]->kind == ast::ExprKind::Call &&
                        args.args[2]->callee().dotted_name() == "compose";
  return array_result(analyzer, call, args.shapes[0], args.types[1].scalar, MemorySpace::Shared,
                      swizzled || composed);
}

Type make_local_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  return array_result(analyzer, call, args.shapes[0], args.types[1].scalar, MemorySpace::Local,
                      false);
}

Type full_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  const ScalarKind dtype = args.types[2].scalar;
  if (!assignable(Type::scalar_of(dtype), args.types[1])) {
    analyzer.error(codes::kArgumentType, args.args[1]->range,
                   "fill value of type " + args.types[1].str() + " does not fit dtype " +
                       to_string(dtype));
    return Type::unknown();
  }
  return array_result(analyzer, call, args.shapes[0], dtype, MemorySpace::Local, false);
}

Type tensor_spec_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  // Tensor(shape, dtype) or Tensor(shape, strides, dtype).
  const Expr *strides = args.args[2] ? args.args[1] : nullptr;
  const size_t dtype_index = args.args[2] ? 2 : 1;
  if (args.types[dtype_index].kind != TypeKind::Dtype) {
    analyzer.error(codes::kArgumentType, args.args[dtype_index]->range,
                   "Tensor(shape, [strides,] dtype) needs a dtype here, got " +
                       args.types[dtype_index].str());
    return Type::unknown();
  }
  TensorType t;
  t.dtype = args.types[dtype_index].scalar;
  t.shape = args.shapes[0];
  if (strides) {
    auto stride_dims = analyzer.shape_of(*strides, false);
    if (!stride_dims)
      return Type::unknown();
    if (stride_dims->size() != t.shape.size()) {
      analyzer.error(codes::kShapeMismatch, strides->range,
                     "strides " + shape_to_string(*stride_dims) + " do not match shape " +
                         shape_to_string(t.shape));
      return Type::unknown();
    }
    t.strides = *stride_dims;
  }
  (void)call;
  return Type::tensor_spec_of(std::move(t));
}

Type view_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  const TensorType &source = *args.types[0].tensor;
  TensorType viewed = *args.types[1].tensor;
  viewed.space = source.space;
  viewed.swizzled = source.swizzled;
  const auto from = source.byte_size();
  const auto to = viewed.byte_size();
  if (from && to && *from != *to) {
    analyzer.error(codes::kShapeMismatch, args.args[1]->range,
                   "view of " + std::to_string(*to) + " bytes over a tensor of " +
                       std::to_string(*from) + " bytes; a view reinterprets the same bytes");
    return Type::unknown();
  }
  return Type::tensor_of(std::move(viewed));
}

size_t tuple_size(const Expr &e) { return e.kind == ast::ExprKind::Tuple ? e.operands.size() : 1; }

Type subview_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  const TensorType &source = *args.types[0].tensor;
  const size_t rank = source.shape.size();
  for (size_t i : {size_t{1}, size_t{3}}) {
    if (args.args[i] && tuple_size(*args.args[i]) != rank) {
      analyzer.error(codes::kShapeMismatch, args.args[i]->range,
                     "subview of a rank-" + std::to_string(rank) + " tensor needs " +
                         std::to_string(rank) + " values here");
      return Type::unknown();
    }
  }
  if (args.shapes[2].size() != rank) {
    analyzer.error(codes::kShapeMismatch, args.args[2]->range,
                   "subview of a rank-" + std::to_string(rank) + " tensor needs " +
                       std::to_string(rank) + " sizes");
    return Type::unknown();
  }
  TensorType t = source;
  t.shape = args.shapes[2];
  t.strides.clear();
  return Type::tensor_of(std::move(t));
}

Type make_layout_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  if (tuple_size(*args.args[0]) != tuple_size(*args.args[1])) {
    analyzer.error(codes::kShapeMismatch, args.args[1]->range,
                   "a layout's shape and stride need the same number of modes");
    return Type::unknown();
  }
  return Type::of(TypeKind::Layout);
}

Type swizzle_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  for (size_t i = 0; i < 3; ++i) {
    const auto v = analyzer.constant(*args.args[i]);
    if (v && (*v < 0 || *v > 16)) {
      analyzer.error(codes::kArgumentType, args.args[i]->range,
                     "Swizzle(B, M, S) parameters are between 0 and 16, got " + std::to_string(*v));
      return Type::unknown();
    }
  }
  return Type::of(TypeKind::Swizzle);
}

Type compose_result(Analyzer &, const Expr &, const BoundArgs &) {
  return Type::of(TypeKind::Layout);
}

Type shuffle_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  if (args.args.size() > 1 && args.args[1])
    if (const auto lane = analyzer.constant(*args.args[1]); lane && *lane >= 32)
      analyzer.note_wide_shuffle(args.args[1]->range, *lane);
  const Type &t = args.types[0];
  if (t.kind == TypeKind::IntLiteral)
    return Type::scalar_of(ScalarKind::I32);
  if (t.kind == TypeKind::FloatLiteral)
    return Type::scalar_of(ScalarKind::F32);
  return t;
}

// The element types each atomic has on both targets (CUDA atomic*, HIP's
// __hip_atomic_*): add on 32/64-bit integers and floats, max/min on integers,
// exchange and compare-and-swap on 32/64-bit values.
bool atomic_supports(BuiltinId id, ScalarKind k) {
  using enum ScalarKind;
  const bool int32 = k == I32 || k == U32;
  const bool int64 = k == I64 || k == U64;
  switch (id) {
  case BuiltinId::AtomicAdd:
    return int32 || k == U64 || k == F32 || k == F64;
  case BuiltinId::AtomicMax:
  case BuiltinId::AtomicMin:
    return int32 || int64;
  case BuiltinId::AtomicExch:
    return int32 || k == U64 || k == F32;
  case BuiltinId::AtomicCas:
    return int32 || k == U64;
  default:
    return false;
  }
}

// atomic_*(T[i], ...): one element of a global or shared tensor; returns the
// element's old value.
template <BuiltinId Id>
Type atomic_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  const Expr &place = *args.args[0];
  const Type &pt = args.types[0];
  const std::string name(builtin_short_name(Id));
  if (place.kind != ast::ExprKind::Subscript || pt.kind != TypeKind::Scalar) {
    analyzer.error(codes::kArgumentType, place.range,
                   name + " needs one element of a tensor as its place, as T[i], got " + pt.str());
    return Type::unknown();
  }
  const Type &base = analyzer.type(*place.operands[0]);
  if (base.is_tensor() && base.tensor->space == MemorySpace::Local) {
    analyzer.error(codes::kArgumentType, place.range,
                   name + " works on global or shared memory; a register array belongs to one "
                          "thread (use a plain update)");
    return Type::unknown();
  }
  if (!atomic_supports(Id, pt.scalar)) {
    analyzer.error(codes::kArgumentType, place.range,
                   name + " has no " + pt.str() + " form on the GPUs Argus targets (" +
                       (Id == BuiltinId::AtomicAdd ? "i32, u32, u64, f32, f64"
                        : Id == BuiltinId::AtomicMax || Id == BuiltinId::AtomicMin
                            ? "i32, u32, i64, u64"
                        : Id == BuiltinId::AtomicExch ? "i32, u32, u64, f32"
                                                      : "i32, u32, u64") +
                       ")");
    return Type::unknown();
  }
  const size_t values = Id == BuiltinId::AtomicCas ? 3 : 2;
  for (size_t i = 1; i < values; ++i)
    if (args.args[i] && !assignable(pt, args.types[i])) {
      analyzer.error(codes::kTypeMismatch, args.args[i]->range,
                     name + " stores a " + pt.str() + " here, got " + args.types[i].str() +
                         "; convert explicitly");
      return Type::unknown();
    }
  if (const Expr *scope = args.args[values]) {
    if (scope->kind != ast::ExprKind::String ||
        (scope->name != "block" && scope->name != "device")) {
      analyzer.error(codes::kArgumentType, scope->range,
                     "scope is \"block\" (the threads of one block) or \"device\" (every "
                     "block; the default)");
      return Type::unknown();
    }
  }
  return pt;
}

// num_sms() anywhere but a kernel parameter's default (module.cpp takes it
// there without checking it as an expression).
Type num_sms_result(Analyzer &analyzer, const Expr &call, const BoundArgs &) {
  analyzer.error(codes::kUnsupportedParameter, call.range,
                 "num_sms() is the launcher's to read: give it as the default of an integer "
                 "kernel parameter (P: i32 = num_sms()) and use the parameter (grid=min(P, ...))");
  return Type::scalar_of(ScalarKind::I32);
}

// threadfence(scope=...): "block" or "device".
Type fence_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  if (const Expr *scope = args.args[0])
    if (scope->kind != ast::ExprKind::String || (scope->name != "block" && scope->name != "device"))
      analyzer.error(codes::kArgumentType, scope->range,
                     "scope is \"block\" (orders this thread's accesses for its block) or "
                     "\"device\" (for every block; the default)");
  return Type::void_type();
}

Type ballot_result(Analyzer &analyzer, const Expr &call, const BoundArgs &) {
  analyzer.note_warp_group(call.range, "ballot");
  return Type::scalar_of(ScalarKind::U64);
}

template <BuiltinId Id> Type vote_result(Analyzer &analyzer, const Expr &call, const BoundArgs &) {
  analyzer.note_warp_group(call.range, std::string(builtin_short_name(Id)));
  return Type::scalar_of(ScalarKind::Bool);
}

// barrier(id, threads) and barrier_arrive(id, threads): PTX bar.sync and
// bar.arrive. Ids 1..15 (0 is the one syncthreads() uses); the count is whole
// warps.
Type warpgroup_result(Analyzer &analyzer, const Expr &call, const BoundArgs &) {
  analyzer.note_sm90_only(call.range, "warpgroup_id()");
  return Type::scalar_of(ScalarKind::I32);
}

// cluster_rank(), cluster_id(dim), cluster_sync() and the nvvm cluster
// operations: sm90, in a kernel that declares a cluster.
Type cluster_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  const BuiltinId id = analyzer.builtin_of(call);
  analyzer.note_cluster_use(call.range, builtin_name(id) + "()");
  if (id == BuiltinId::ClusterId)
    return launch_coordinate(analyzer, call, args);
  return id == BuiltinId::ClusterRank ? Type::scalar_of(ScalarKind::I32) : Type::void_type();
}

// nvvm.dsmem_load(place, rank): the element `place` names, in the shared
// memory of block `rank` of the cluster (ld.shared::cluster).
Type dsmem_load_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  analyzer.note_cluster_use(call.range, "nvvm.dsmem_load()");
  const Expr &place = *args.args[0];
  const Type &pt = args.types[0];
  if (place.kind != ast::ExprKind::Subscript || pt.kind != TypeKind::Scalar) {
    analyzer.error(codes::kArgumentType, place.range,
                   "dsmem_load reads one element of a shared tensor, as S[i], got " + pt.str());
    return Type::unknown();
  }
  const Type &base = analyzer.type(*place.operands[0]);
  if (!base.is_tensor() || base.tensor->space != MemorySpace::Shared) {
    analyzer.error(codes::kArgumentType, place.range,
                   "dsmem_load reads shared memory of a block of the cluster; this is not a "
                   "shared tensor");
    return Type::unknown();
  }
  return pt;
}

Type barrier_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  if (const auto id = analyzer.constant(*args.args[0]); id && (*id < 1 || *id > 15))
    analyzer.error(codes::kArgumentType, args.args[0]->range,
                   "a named barrier's id is 1 to 15 (0 is the barrier of syncthreads()), got " +
                       std::to_string(*id));
  if (const auto n = analyzer.constant(*args.args[1]); n && (*n <= 0 || *n % 32 != 0 || *n > 1024))
    analyzer.error(codes::kArgumentType, args.args[1]->range,
                   "a named barrier counts whole warps: threads is a multiple of 32 from 32 to "
                   "1024, got " +
                       std::to_string(*n));
  analyzer.note_sm90_only(call.range,
                          std::string(builtin_name(analyzer.builtin_of(call))) + "(id, threads)");
  return Type::void_type();
}

// setmaxnreg: the register budget a warpgroup moves to, 24 to 256 in steps of 8 (PTX ISA).
Type setmaxnreg_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  if (const auto n = analyzer.constant(*args.args[0]); n && (*n < 24 || *n > 256 || *n % 8 != 0))
    analyzer.error(codes::kArgumentType, args.args[0]->range,
                   "setmaxnreg takes a register count from 24 to 256 in steps of 8, got " +
                       std::to_string(*n));
  return Type::void_type();
}

Type syncwarp_result(Analyzer &analyzer, const Expr &call, const BoundArgs &) {
  analyzer.note_warp_group(call.range, "syncwarp");
  return Type::void_type();
}

Type async_wait_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  const auto n = analyzer.constant(*args.args[0]);
  if (n && *n < 0)
    analyzer.error(codes::kArgumentType, args.args[0]->range, "async_wait needs a count ≥ 0");
  return Type::void_type();
}

Type tag_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  const TensorType &t = *args.types[0].tensor;
  const Expr &fields = *args.args[1];
  const size_t rank = t.shape.size();
  const size_t given =
      fields.kind == ast::ExprKind::Lambda ? fields.lambda_params.size() : tuple_size(fields);
  if (given != rank) {
    analyzer.error(codes::kShapeMismatch, fields.range,
                   std::string(fields.kind == ast::ExprKind::Lambda ? "the tag function takes "
                                                                    : "the tag names ") +
                       std::to_string(given) +
                       (fields.kind == ast::ExprKind::Lambda ? " coordinates" : " fields") +
                       " but the tensor has rank " + std::to_string(rank));
  }
  return Type::void_type();
}

Type assume_result(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  FunctionScope *scope = analyzer.scope();
  for (const Expr *condition : args.args) {
    if (!condition)
      continue;
    if (const auto v = analyzer.constant(*condition); v && *v == 0)
      analyzer.error(codes::kInvalidAssume, condition->range, "this assumption is always false");
    if (scope)
      scope->info->assumptions.push_back(condition);
  }
  return Type::void_type();
}

Type fragment_result(ScalarKind dtype, int64_t count) {
  TensorType t;
  t.space = MemorySpace::Local;
  t.dtype = dtype;
  t.shape = {Dim::constant(count)};
  return Type::tensor_of(std::move(t));
}

template <int64_t Count> Type f32_fragment(Analyzer &, const Expr &, const BoundArgs &) {
  return fragment_result(ScalarKind::F32, Count);
}

template <int64_t Count> Type ldmatrix_result(Analyzer &, const Expr &, const BoundArgs &args) {
  return fragment_result(args.types[0].tensor ? args.types[0].tensor->dtype : ScalarKind::BF16,
                         Count);
}

// The value a Place argument holds (a scalar element or a small view).
Type place_value(Analyzer &, const Expr &, const BoundArgs &args) { return args.types[0]; }

template <int64_t Low, int64_t High>
Type ranged_constants(Analyzer &analyzer, const Expr &, const BoundArgs &args) {
  for (const Expr *arg : args.args) {
    if (!arg)
      continue;
    const auto v = analyzer.constant(*arg);
    if (v && (*v < Low || *v > High))
      analyzer.error(codes::kArgumentType, arg->range,
                     "value " + std::to_string(*v) + " is outside " + std::to_string(Low) + ".." +
                         std::to_string(High));
  }
  return Type::void_type();
}

// wgmma .m64nNk16: a (64, 16) and b (N, 16) shared tiles, acc N / 2 f32 per
// thread, N a multiple of 8 from 8 to 256 (the layouts are the checker's).
Type wgmma_result(Analyzer &analyzer, const Expr &call, const BoundArgs &args) {
  auto dims = [&](size_t i) -> std::vector<std::optional<int64_t>> {
    std::vector<std::optional<int64_t>> out;
    if (i < args.types.size() && args.types[i].tensor)
      for (const Dim &d : args.types[i].tensor->shape)
        out.push_back(d.value);
    return out;
  };
  const Expr *acc = args.args.size() > 0 ? args.args[0] : nullptr;
  const Expr *a = args.args.size() > 1 ? args.args[1] : nullptr;
  const Expr *b = args.args.size() > 2 ? args.args[2] : nullptr;
  const auto ad = dims(1), bd = dims(2);
  // k16 for 16-bit types, k32 for fp8: 32 bytes of k per row either way.
  const bool fp8 =
      args.types.size() > 1 && args.types[1].tensor && bit_width(args.types[1].tensor->dtype) == 8;
  const int64_t k = fp8 ? 32 : 16;
  const std::string ks = std::to_string(k);
  const bool a_in_registers = args.types.size() > 1 && args.types[1].tensor &&
                              args.types[1].tensor->space == MemorySpace::Local;
  if (a && a_in_registers) {
    if (fp8 || args.types[1].tensor->element_count() != 8)
      analyzer.error(codes::kArgumentType, a->range,
                     "wgmma's a in registers must be a local fragment of 8 bf16/f16 per thread "
                     "(the m64nNk16 A layout), got " +
                         args.types[1].str());
  } else if (a && args.types.size() > 1 && args.types[1].tensor &&
             args.types[1].tensor->space != MemorySpace::Shared) {
    analyzer.error(codes::kArgumentType, a->range,
                   "wgmma's a must be a shared-memory tile or a register fragment, got " +
                       args.types[1].str());
  } else if (a && !(ad.size() == 2 && ad[0] == 64 && ad[1] == k))
    analyzer.error(codes::kArgumentType, a->range,
                   "wgmma's a must be a (64, " + ks + ") shared-memory tile (64 rows of " + ks +
                       " k), got " + args.types[1].str());
  // b_major="mn": b is given as (k, N), N contiguous (the transpose bit of
  // the 16-bit forms), e.g. V stored keys x head dimension for O += P V.
  const Expr *major = args.args.size() > 3 ? args.args[3] : nullptr;
  const bool mn_major = major && major->kind == ast::ExprKind::String && major->name == "mn";
  if (major && !mn_major && !(major->kind == ast::ExprKind::String && major->name == "k" && !fp8))
    analyzer.error(codes::kArgumentType, major->range,
                   fp8 ? std::string("the fp8 wgmma forms read b K-major only; drop b_major")
                       : std::string("b_major is \"k\" (b given as (N, 16), k contiguous; the "
                                     "default) or \"mn\" (b given as (16, N), N contiguous)"));
  const size_t n_dim = mn_major ? 1 : 0, k_dim = mn_major ? 0 : 1;
  std::optional<int64_t> n;
  if (bd.size() == 2 && bd[k_dim] == k && bd[n_dim] && *bd[n_dim] >= 8 && *bd[n_dim] <= 256 &&
      *bd[n_dim] % 8 == 0)
    n = *bd[n_dim];
  else if (b)
    analyzer.error(
        codes::kArgumentType, b->range,
        mn_major
            ? "wgmma's b with b_major=\"mn\" must be a (" + ks + ", N) shared-memory tile (" + ks +
                  " rows of k, N contiguous, N a multiple of 8 from 8 to 256), "
                  "got " +
                  args.types[2].str()
            : "wgmma's b must be an (N, " + ks + ") shared-memory tile (N rows of " + ks +
                  " k, N a multiple of 8 from 8 to 256), got " + args.types[2].str());
  if (n && acc && args.types[0].tensor) {
    const auto count = args.types[0].tensor->element_count();
    if (count != *n / 2)
      analyzer.error(codes::kArgumentType, acc->range,
                     "wgmma m64n" + std::to_string(*n) + "k16 accumulates into " +
                         std::to_string(*n / 2) + " f32 per thread; acc holds " +
                         (count ? std::to_string(*count) : std::string("an unknown number of")) +
                         " elements");
  }
  (void)call;
  return Type::void_type();
}

TensorReq fragment(ScalarKind dtype, int64_t elements) {
  return TensorReq{MemorySpace::Local, dtype, elements, 0, false};
}
TensorReq bytes_in(MemorySpace space, int64_t bytes) {
  return TensorReq{space, std::nullopt, 0, bytes, false};
}

std::vector<BuiltinSpec> make_table() {
  using K = ArgKind;
  const ParamSpec dim{"dim", K::IntConst, true};
  std::vector<BuiltinSpec> t = {
      // Launch coordinates.
      {"",
       "thread_id",
       {dim},
       false,
       "Thread index in the block along dim (0 = x).",
       launch_coordinate},
      {"",
       "block_id",
       {dim},
       false,
       "Block index in the grid along dim (0 = x).",
       launch_coordinate},
      {"", "block_dim", {dim}, false, "Threads per block along dim.", launch_coordinate},
      {"", "grid_dim", {dim}, false, "Blocks in the grid along dim.", launch_coordinate},
      {"",
       "num_sms",
       {},
       false,
       "The device's streaming multiprocessor count, read by the launcher: only as the "
       "default of an integer kernel parameter (`P: i32 = num_sms()`), which the grid of a "
       "persistent kernel names.",
       num_sms_result},
      {"",
       "cluster_rank",
       {},
       false,
       "Rank of this block in its thread-block cluster (0 .. blocks per cluster - 1; x "
       "fastest). sm90, in a kernel with @kernel(cluster=...).",
       cluster_result},
      {"",
       "cluster_id",
       {dim},
       false,
       "Index of this block's cluster in the grid along dim (block_id(dim) // the cluster's "
       "extent there). sm90, in a kernel with @kernel(cluster=...).",
       cluster_result},
      {"",
       "cluster_sync",
       {},
       false,
       "barrier.cluster.arrive.release + wait.acquire: every thread of every block of the "
       "cluster waits here for all the others; what each did before happens before what all "
       "do after (shared memory of other blocks, mbarriers initialized for remote arrivals). "
       "Also a block's way to stay alive until its peers are done with its shared memory.",
       cluster_result},
      {"",
       "lane_id",
       {},
       false,
       "Lane of this thread in its warp (0..31) or wavefront (0..63).",
       i32_result},
      {"", "warp_id", {}, false, "Warp (wavefront) of this thread in its block.", i32_result},
      {"",
       "warpgroup_id",
       {},
       false,
       "Warpgroup of this thread in its block (its linear index // 128): the unit of wgmma and "
       "setmaxnreg, and of the roles of a warp-specialized kernel. A kernel that calls it "
       "targets sm90.",
       warpgroup_result},
      // Integer helpers.
      {"",
       "cdiv",
       {{"a", K::Integer}, {"b", K::Integer}},
       false,
       "Ceiling division: (a + b - 1) // b.",
       cdiv_result},
      {"",
       "min",
       {{"a", K::Numeric}, {"b", K::Numeric}},
       true,
       "Smallest of the arguments.",
       fold_numeric<true>},
      {"",
       "max",
       {{"a", K::Numeric}, {"b", K::Numeric}},
       true,
       "Largest of the arguments.",
       fold_numeric<false>},
      {"", "abs", {{"x", K::Numeric}}, false, "Absolute value.", abs_result},
      // Conversions.
      {"",
       "convert",
       {{"x", K::Numeric}, {"dtype", K::Dtype}},
       false,
       "Converts a value to dtype (rounding as CUDA's __float2bfloat16_rn etc.).",
       convert_result},
      {"",
       "bitcast",
       {{"x", K::Numeric}, {"dtype", K::Dtype}},
       false,
       "Reinterprets the bits of x as dtype of the same width.",
       bitcast_result},
      // Math.
      {"", "exp", {{"x", K::Float}}, false, "e**x.", float_unary},
      {"", "exp2", {{"x", K::Float}}, false, "2**x.", float_unary},
      {"", "log", {{"x", K::Float}}, false, "Natural logarithm.", float_unary},
      {"", "log2", {{"x", K::Float}}, false, "Base-2 logarithm.", float_unary},
      {"", "sqrt", {{"x", K::Float}}, false, "Square root.", float_unary},
      {"", "rsqrt", {{"x", K::Float}}, false, "1 / sqrt(x).", float_unary},
      {"", "tanh", {{"x", K::Float}}, false, "Hyperbolic tangent.", float_unary},
      {"",
       "fma",
       {{"a", K::Float}, {"b", K::Float}, {"c", K::Float}},
       false,
       "a * b + c, rounded once.",
       fma_result},
      // Memory.
      {"",
       "make_shared",
       {{"shape", K::ConstShape}, {"dtype", K::Dtype}, {"layout", K::LayoutLike, true}},
       false,
       "A shared-memory array of the block, optionally with a (swizzled) layout.",
       make_shared_result},
      {"",
       "make_local",
       {{"shape", K::ConstShape}, {"dtype", K::Dtype}},
       false,
       "A register array of this thread.",
       make_local_result},
      {"",
       "full",
       {{"shape", K::ConstShape}, {"value", K::Numeric}, {"dtype", K::Dtype}},
       false,
       "A register array filled with value.",
       full_result},
      {"",
       "Tensor",
       {{"shape", K::Shape}, {"strides_or_dtype", K::Any}, {"dtype", K::Any, true}},
       false,
       "A tensor type: Tensor(shape, dtype) or Tensor(shape, strides, dtype).",
       tensor_spec_result},
      {"",
       "view",
       {{"t", K::Tensor}, {"as", K::TensorSpec}},
       false,
       "Reinterprets the bytes of t as another tensor type; never copies.",
       view_result},
      {"",
       "subview",
       {{"t", K::Tensor},
        {"offsets", K::IntTuple},
        {"sizes", K::Shape},
        {"strides", K::IntTuple, true}},
       false,
       "A rectangular part of t; never copies.",
       subview_result},
      {"",
       "make_layout",
       {{"shape", K::Shape}, {"stride", K::Shape}},
       false,
       "A CuTe layout shape:stride.",
       make_layout_result},
      {"",
       "Swizzle",
       {{"bits", K::IntConst}, {"base", K::IntConst}, {"shift", K::IntConst}},
       false,
       "CuTe Swizzle<B, M, S>: xors bits [M+S, M+S+B) into [M, M+B) of an offset.",
       swizzle_result},
      {"",
       "compose",
       {{"swizzle", K::LayoutLike}, {"layout", K::LayoutLike}},
       false,
       "The composition swizzle ∘ layout.",
       compose_result},
      // Synchronization and communication.
      {"",
       "syncthreads",
       {},
       false,
       "Barrier for all threads of the block; orders shared-memory accesses.",
       void_result},
      {"",
       "syncwarp",
       {},
       false,
       "Barrier for the lanes of this warp (gfx942: wavefront); orders their memory accesses. "
       "Every lane of the warp must reach it.",
       syncwarp_result},
      {"",
       "barrier",
       {{"id", K::IntConst}, {"threads", K::IntConst}},
       false,
       "Named barrier `id` (1-15) for `threads` threads (whole warps) of the block (sm90: "
       "bar.sync): each warp that reaches it waits until that many threads have; it orders the "
       "memory accesses of those warps only. A kernel that calls it targets sm90.",
       barrier_result},
      {"",
       "barrier_arrive",
       {{"id", K::IntConst}, {"threads", K::IntConst}},
       false,
       "Arrives at named barrier `id` (1-15) for `threads` threads without waiting (sm90: "
       "bar.arrive): the warps that wait there with barrier(id, threads) are ordered after "
       "what this warp did before it; this warp is ordered after nothing. A kernel that calls "
       "it targets sm90.",
       barrier_result},
      {"",
       "threadfence",
       {{"scope", K::String, true}},
       false,
       "Memory fence: this thread's earlier writes are seen before its later ones, by the block "
       "(scope=\"block\") or every block (\"device\", default). Orders, does not synchronize.",
       fence_result},
      {"",
       "ballot",
       {{"predicate", K::Condition}},
       false,
       "Bit i set for each active lane i of this warp whose predicate holds (u64; lanes 32..63 "
       "exist on gfx942 only).",
       ballot_result},
      {"",
       "any_sync",
       {{"predicate", K::Condition}},
       false,
       "Whether the predicate holds for some active lane of this warp.",
       vote_result<BuiltinId::AnySync>},
      {"",
       "all_sync",
       {{"predicate", K::Condition}},
       false,
       "Whether the predicate holds for every active lane of this warp.",
       vote_result<BuiltinId::AllSync>},
      {"",
       "shuffle",
       {{"x", K::Numeric}, {"lane", K::Integer}},
       false,
       "x of the given lane of this warp.",
       shuffle_result},
      {"",
       "shuffle_xor",
       {{"x", K::Numeric}, {"mask", K::Integer}},
       false,
       "x of lane (lane_id() ^ mask).",
       shuffle_result},
      {"",
       "shuffle_up",
       {{"x", K::Numeric}, {"delta", K::Integer}},
       false,
       "x of lane (lane_id() - delta).",
       shuffle_result},
      {"",
       "shuffle_down",
       {{"x", K::Numeric}, {"delta", K::Integer}},
       false,
       "x of lane (lane_id() + delta).",
       shuffle_result},
      {"",
       "atomic_add",
       {{"place", K::Place}, {"value", K::Numeric}, {"scope", K::String, true}},
       false,
       "Adds value to the element atomically and returns its old value; scope \"device\" "
       "(default) or \"block\".",
       atomic_result<BuiltinId::AtomicAdd>},
      {"",
       "atomic_max",
       {{"place", K::Place}, {"value", K::Integer}, {"scope", K::String, true}},
       false,
       "Stores max(element, value) atomically and returns the old value.",
       atomic_result<BuiltinId::AtomicMax>},
      {"",
       "atomic_min",
       {{"place", K::Place}, {"value", K::Integer}, {"scope", K::String, true}},
       false,
       "Stores min(element, value) atomically and returns the old value.",
       atomic_result<BuiltinId::AtomicMin>},
      {"",
       "atomic_exch",
       {{"place", K::Place}, {"value", K::Numeric}, {"scope", K::String, true}},
       false,
       "Stores value atomically and returns the old value.",
       atomic_result<BuiltinId::AtomicExch>},
      {"",
       "atomic_cas",
       {{"place", K::Place},
        {"expected", K::Numeric},
        {"value", K::Numeric},
        {"scope", K::String, true}},
       false,
       "Stores value if the element equals expected, atomically; returns the old value.",
       atomic_result<BuiltinId::AtomicCas>},
      {"",
       "async_commit",
       {},
       false,
       "Closes the current group of asynchronous copies.",
       void_result},
      {"",
       "async_wait",
       {{"n", K::IntConst}},
       false,
       "Waits until at most n groups of asynchronous copies are pending.",
       async_wait_result},
      // Tags and assertions (no code is generated for them).
      {"",
       "tag",
       {{"t", K::Tensor}, {"fields", K::TagFunction}},
       false,
       "Tags every element of t: tag(T, (\"m\", \"k\")) or tag(T, lambda i, j: {...}).",
       tag_result},
      {"",
       "assert_tag",
       {{"x", K::Any}, {"record", K::TagRecord}},
       false,
       "Proves that x's tag has these field values for every thread and iteration.",
       void_result},
      {"",
       "assert_tag_eq",
       {{"x", K::Any}, {"y", K::Any}, {"fields", K::Fields, true}},
       false,
       "Proves that x and y agree on the fields (all common fields when omitted).",
       void_result},
      {"", "reset_tags", {{"t", K::Tensor}}, false, "Forgets the tags of t.", void_result},
      {"",
       "assert_covered",
       {{"t", K::Tensor}},
       false,
       "Proves that every element of t is written exactly once.",
       void_result},
      {"",
       "assume",
       {{"condition", K::Condition}},
       true,
       "Preconditions: facts for the checker, checked by the host launcher.",
       assume_result,
       true},
      // nvvm (sm90).
      {"nvvm",
       "mma_m16n8k16_bf16_f32",
       {{"a", K::Tensor, false, fragment(ScalarKind::BF16, 8)},
        {"b", K::Tensor, false, fragment(ScalarKind::BF16, 4)},
        {"c", K::Tensor, false, fragment(ScalarKind::F32, 4)}},
       false,
       "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32: returns a·b + c.",
       f32_fragment<4>},
      {"nvvm",
       "mma_m16n8k16_f16_f32",
       {{"a", K::Tensor, false, fragment(ScalarKind::F16, 8)},
        {"b", K::Tensor, false, fragment(ScalarKind::F16, 4)},
        {"c", K::Tensor, false, fragment(ScalarKind::F32, 4)}},
       false,
       "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: returns a·b + c.",
       f32_fragment<4>},
  };
  const TensorReq row16{MemorySpace::Shared, std::nullopt, 0, 16, true};
  t.push_back({"nvvm",
               "ldmatrix_x1",
               {{"src", K::Tensor, false, row16}},
               false,
               "ldmatrix.sync.aligned.m8n8.x1.shared.b16: src is this lane's 16-byte row.",
               ldmatrix_result<2>});
  t.push_back({"nvvm",
               "ldmatrix_x2",
               {{"src", K::Tensor, false, row16}},
               false,
               "ldmatrix.sync.aligned.m8n8.x2.shared.b16: src is this lane's 16-byte row.",
               ldmatrix_result<4>});
  t.push_back({"nvvm",
               "ldmatrix_x4",
               {{"src", K::Tensor, false, row16}},
               false,
               "ldmatrix.sync.aligned.m8n8.x4.shared.b16: src is this lane's 16-byte row.",
               ldmatrix_result<8>});
  t.push_back({"nvvm",
               "ldmatrix_x1_trans",
               {{"src", K::Tensor, false, row16}},
               false,
               "ldmatrix .x1 .trans: transposed 8x8 b16 matrices.",
               ldmatrix_result<2>});
  t.push_back({"nvvm",
               "ldmatrix_x2_trans",
               {{"src", K::Tensor, false, row16}},
               false,
               "ldmatrix .x2 .trans: transposed 8x8 b16 matrices.",
               ldmatrix_result<4>});
  t.push_back({"nvvm",
               "ldmatrix_x4_trans",
               {{"src", K::Tensor, false, row16}},
               false,
               "ldmatrix .x4 .trans: transposed 8x8 b16 matrices.",
               ldmatrix_result<8>});
  for (int64_t bytes : {4, 8, 16}) {
    static const char *names[] = {"cp_async_4", "cp_async_8", "cp_async_16"};
    const size_t index = bytes == 4 ? 0 : bytes == 8 ? 1 : 2;
    t.push_back(
        {"nvvm",
         names[index],
         {{"dst", K::Place, false, bytes_in(MemorySpace::Shared, bytes)},
          {"src", K::Place, false, bytes_in(MemorySpace::Global, bytes)},
          {"valid", K::Condition, true}},
         false,
         "cp.async.ca.shared.global: copies bytes from global to shared memory asynchronously. "
         "With valid=False the source is not read and dst is filled with zeros (src-size 0).",
         void_result});
  }
  for (ScalarKind input : {ScalarKind::BF16, ScalarKind::F16}) {
    const bool bf16 = input == ScalarKind::BF16;
    t.push_back({"nvvm",
                 bf16 ? "wgmma_m64k16_bf16_f32" : "wgmma_m64k16_f16_f32",
                 {{"acc", K::Tensor, false, fragment(ScalarKind::F32, 0)},
                  {"a", K::Tensor, false, TensorReq{std::nullopt, input, 0, 0, false}},
                  {"b", K::Tensor, false, TensorReq{MemorySpace::Shared, input, 0, 0, false}},
                  {"b_major", K::String, true}},
                 false,
                 bf16 ? "wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16: acc += a·bᵀ for the "
                        "warpgroup (128 threads), a (64, 16) shared tile or a register fragment "
                        "of 8 per thread, and b (N, 16) shared tile in a "
                        "32/64/128-byte swizzled K-major layout, N from b; with b_major=\"mn\" "
                        "b is a (16, N) tile with N contiguous (MN-major: V stored keys x "
                        "values). Asynchronous: complete after wgmma_commit_group and "
                        "wgmma_wait_group."
                      : "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16: as the bf16 form.",
                 wgmma_result});
  }
  for (ScalarKind input : {ScalarKind::FP8E4M3, ScalarKind::FP8E5M2}) {
    const bool e4m3 = input == ScalarKind::FP8E4M3;
    t.push_back({"nvvm",
                 e4m3 ? "wgmma_m64k32_e4m3_f32" : "wgmma_m64k32_e5m2_f32",
                 {{"acc", K::Tensor, false, fragment(ScalarKind::F32, 0)},
                  {"a", K::Tensor, false, TensorReq{MemorySpace::Shared, input, 0, 0, false}},
                  {"b", K::Tensor, false, TensorReq{MemorySpace::Shared, input, 0, 0, false}}},
                 false,
                 e4m3 ? "wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3: acc += a·bᵀ for the "
                        "warpgroup, a (64, 32) and b (N, 32) fp8e4m3 shared tiles (OCP fp8), "
                        "laid out as the 16-bit forms' (32 bytes of k per row)."
                      : "wgmma.mma_async.sync.aligned.m64nNk32.f32.e5m2.e5m2: as the e4m3 form "
                        "with fp8e5m2 tiles.",
                 wgmma_result});
  }
  t.push_back({"nvvm",
               "wgmma_fence",
               {},
               false,
               "wgmma.fence.sync.aligned: orders this thread's register accesses before the "
               "wgmma that follow (needed after writing their accumulators).",
               void_result});
  t.push_back(
      {"nvvm",
       "fence_proxy_async",
       {},
       false,
       "fence.proxy.async.shared::cta: this thread's earlier writes to shared memory (stores, "
       "cp.async once waited for) become visible to the async proxy (wgmma, TMA); "
       "needed before a wgmma reads them.",
       void_result});
  t.push_back({"nvvm",
               "wgmma_commit_group",
               {},
               false,
               "wgmma.commit_group.sync.aligned: the wgmma issued since the last commit form a "
               "group.",
               void_result});
  t.push_back({"nvvm",
               "wgmma_wait_group",
               {{"n", K::IntConst}},
               false,
               "wgmma.wait_group.sync.aligned n: waits until at most n groups are in flight; "
               "their accumulators may then be read and their operands overwritten.",
               ranged_constants<0, 7>});
  // mbarriers: one u64 element of a shared tensor each.
  const TensorReq mbarrier{MemorySpace::Shared, ScalarKind::U64, 0, 8, false};
  t.push_back({"nvvm",
               "mbarrier_init",
               {{"bar", K::Place, false, mbarrier}, {"count", K::Integer}},
               false,
               "mbarrier.init.shared::cta.b64: bar (a u64 element of a shared tensor) becomes an "
               "mbarrier whose phases complete after `count` arrivals. Once, by one thread, "
               "before a syncthreads() that the other users pass.",
               void_result});
  t.push_back({"nvvm",
               "mbarrier_arrive",
               {{"bar", K::Place, false, mbarrier}},
               false,
               "mbarrier.arrive.shared::cta.b64: this thread arrives on bar's current phase; the "
               "phase completes at the count-th arrival, and what the arriving threads did before "
               "happens before what its waiters do after.",
               void_result});
  t.push_back({"nvvm",
               "mbarrier_arrive_expect_tx",
               {{"bar", K::Place, false, mbarrier}, {"bytes", K::Integer}},
               false,
               "mbarrier.arrive.expect_tx.shared::cta.b64: this thread arrives on bar's current "
               "phase and announces `bytes` that async copies (cp_async_bulk) will deliver to it; "
               "the phase completes once every arrival and every byte is in.",
               void_result});
  t.push_back({"nvvm",
               "cp_async_bulk",
               {{"dst", K::Place, false, TensorReq{MemorySpace::Shared, std::nullopt, 0, 0, false}},
                {"src", K::Place, false, TensorReq{MemorySpace::Global, std::nullopt, 0, 0, false}},
                {"bar", K::Place, false, mbarrier}},
               false,
               "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes: the TMA engine "
               "copies src (contiguous, a multiple of 16 bytes, 16-byte aligned) to dst "
               "asynchronously and counts the bytes on bar; read dst after a wait on bar.",
               void_result});
  t.push_back(
      {"nvvm",
       "tma_load",
       {{"dst", K::Place, false, TensorReq{MemorySpace::Shared, std::nullopt, 0, 0, false}},
        {"src", K::Place, false, TensorReq{MemorySpace::Global, std::nullopt, 0, 0, false}},
        {"bar", K::Place, false, mbarrier}},
       false,
       "cp.async.bulk.tensor.2d (TMA, tile mode): the TMA engine copies the box src (a (rows, "
       "cols) tile of a global tensor's last two dimensions) into dst (a (rows, cols) shared "
       "tile, row-major, swizzled or not) and counts its bytes on bar; read dst after a wait on "
       "bar. The tensor map is derived by codegen from src and dst (box, strides, swizzle) and "
       "built by the host launcher.",
       void_result});
  t.push_back(
      {"nvvm",
       "tma_load_multicast",
       {{"dst", K::Place, false, TensorReq{MemorySpace::Shared, std::nullopt, 0, 0, false}},
        {"src", K::Place, false, TensorReq{MemorySpace::Global, std::nullopt, 0, 0, false}},
        {"bar", K::Place, false, mbarrier},
        {"mask", K::Integer}},
       false,
       "cp.async.bulk.tensor.2d ... .multicast::cluster: tma_load into every block of the "
       "cluster whose bit is set in mask (bit r: block rank r), each at dst's place in its own "
       "shared memory, each counting the box's bytes on bar's place in its own shared memory.",
       cluster_result});
  t.push_back({"nvvm",
               "mbarrier_arrive_cluster",
               {{"bar", K::Place, false, mbarrier}, {"rank", K::Integer}},
               false,
               "mbarrier.arrive.shared::cluster.b64 (after mapa): this thread "
               "arrives on the mbarrier at bar's place in the shared memory of block `rank` of "
               "the cluster; what it did before happens before what that barrier's waiters do "
               "after.",
               cluster_result});
  t.push_back({"nvvm",
               "dsmem_load",
               {{"place", K::Place}, {"rank", K::Integer}},
               false,
               "ld.shared::cluster (distributed shared memory): the element at place's position "
               "in the shared memory of block `rank` of the cluster.",
               dsmem_load_result});
  t.push_back(
      {"nvvm",
       "tma_store",
       {{"dst", K::Place, false, TensorReq{MemorySpace::Global, std::nullopt, 0, 0, false}},
        {"src", K::Place, false, TensorReq{MemorySpace::Shared, std::nullopt, 0, 0, false}}},
       false,
       "cp.async.bulk.tensor.2d global <- shared (TMA store, tile mode), then commit_group: the "
       "TMA engine writes the shared tile src (row-major, swizzled or not) to the box dst (a "
       "(rows, cols) tile of a global tensor's last two dimensions; elements past its extents "
       "are not written). src is read through the async proxy: its writers fence_proxy_async "
       "and are ordered before the issuing thread; it may be overwritten after "
       "tma_store_wait.",
       void_result});
  t.push_back({"nvvm",
               "tma_store_wait",
               {{"n", K::IntConst}},
               false,
               "cp.async.bulk.wait_group.read n: waits until at most n of this thread's "
               "tma_stores still read their shared source (it may then be overwritten).",
               ranged_constants<0, 7>});
  for (const bool inc : {true, false})
    t.push_back({"nvvm",
                 inc ? "setmaxnreg_inc" : "setmaxnreg_dec",
                 {{"count", K::IntConst}},
                 false,
                 inc ? "setmaxnreg.inc.sync.aligned.u32: this warpgroup's threads get `count` "
                       "registers each (24-256, a multiple of 8), taken from those other "
                       "warpgroups released; all 128 threads of the warpgroup execute it. For "
                       "warp-specialized kernels: consumers grow, producers shrink."
                     : "setmaxnreg.dec.sync.aligned.u32: this warpgroup's threads keep `count` "
                       "registers each (24-256, a multiple of 8) and release the rest; all 128 "
                       "threads of the warpgroup execute it.",
                 setmaxnreg_result});
  t.push_back({"nvvm",
               "mbarrier_wait",
               {{"bar", K::Place, false, mbarrier}, {"phase", K::Integer}},
               false,
               "mbarrier.try_wait.parity in a loop: waits until the phase of parity `phase` (0 or "
               "1) has completed. It returns at once when the current phase's parity differs "
               "from `phase` (the phase before it completed): the parity says which phase.",
               void_result});
  // amdgpu (gfx942).
  t.push_back(
      {"amdgpu",
       "mfma_f32_32x32x8_bf16",
       {{"a", K::Tensor, false, fragment(ScalarKind::BF16, 4)},
        {"b", K::Tensor, false, fragment(ScalarKind::BF16, 4)},
        {"c", K::Tensor, false, fragment(ScalarKind::F32, 16)}},
       false,
       "v_mfma_f32_32x32x8_bf16 (bf16_1k): returns a·b + c for a 32x32x8 block of a wavefront.",
       f32_fragment<16>});
  t.push_back(
      {"amdgpu",
       "mfma_f32_16x16x16_bf16",
       {{"a", K::Tensor, false, fragment(ScalarKind::BF16, 4)},
        {"b", K::Tensor, false, fragment(ScalarKind::BF16, 4)},
        {"c", K::Tensor, false, fragment(ScalarKind::F32, 4)}},
       false,
       "v_mfma_f32_16x16x16_bf16 (bf16_1k): returns a·b + c for a 16x16x16 block of a wavefront.",
       f32_fragment<4>});
  t.push_back({"amdgpu",
               "mfma_f32_16x16x32_fp8",
               {{"a", K::Tensor, false, fragment(ScalarKind::FP8E4M3FNUZ, 8)},
                {"b", K::Tensor, false, fragment(ScalarKind::FP8E4M3FNUZ, 8)},
                {"c", K::Tensor, false, fragment(ScalarKind::F32, 4)}},
               false,
               "v_mfma_f32_16x16x32_fp8_fp8: returns a·b + c for a 16x16x32 block of a wavefront "
               "(MI300 reads fp8 as FNUZ: fp8e4m3fnuz operands).",
               f32_fragment<4>});
  t.push_back({"amdgpu",
               "raw_buffer_load_x1",
               {{"src", K::Place, false, bytes_in(MemorySpace::Global, 4)}},
               false,
               "buffer_load_dword: 4 bytes from global memory.",
               place_value});
  t.push_back({"amdgpu",
               "raw_buffer_load_x2",
               {{"src", K::Place, false, bytes_in(MemorySpace::Global, 8)}},
               false,
               "buffer_load_dwordx2: 8 bytes from global memory.",
               place_value});
  t.push_back({"amdgpu",
               "raw_buffer_load_x4",
               {{"src", K::Place, false, bytes_in(MemorySpace::Global, 16)}},
               false,
               "buffer_load_dwordx4: 16 bytes from global memory.",
               place_value});
  t.push_back({"amdgpu",
               "ds_read_b128",
               {{"src", K::Place, false, bytes_in(MemorySpace::Shared, 16)}},
               false,
               "ds_read_b128: 16 bytes from LDS.",
               place_value});
  t.push_back({"amdgpu",
               "s_waitcnt",
               {{"vmcnt", K::IntConst, true}, {"lgkmcnt", K::IntConst, true}},
               false,
               "s_waitcnt: waits until at most vmcnt vector-memory and lgkmcnt LDS/scalar "
               "operations are outstanding.",
               ranged_constants<0, 63>});
  t.push_back({"amdgpu",
               "sched_group_barrier",
               {{"mask", K::IntConst}, {"size", K::IntConst}, {"syncid", K::IntConst}},
               false,
               "__builtin_amdgcn_sched_group_barrier: an instruction-scheduling group.",
               ranged_constants<0, 1 << 20>});
  t.push_back({"amdgpu",
               "s_setprio",
               {{"priority", K::IntConst}},
               false,
               "s_setprio: wave priority 0..3.",
               ranged_constants<0, 3>});
  return t;
}

// Every row gets its identity from builtins.def; a row without one, or an
// identity without a row, is a programming error caught by the table test.
std::vector<BuiltinSpec> identified(std::vector<BuiltinSpec> rows) {
  for (BuiltinSpec &spec : rows)
    spec.id = builtin_by_name(spec.ns, spec.name).value_or(BuiltinId::None);
  return rows;
}

const std::vector<BuiltinSpec> &table() {
  static const std::vector<BuiltinSpec> builtins = identified(make_table());
  return builtins;
}

} // namespace

const BuiltinSpec *find_builtin(std::string_view name) { return find_intrinsic("", name); }

const BuiltinSpec *find_intrinsic(std::string_view ns, std::string_view name) {
  for (const BuiltinSpec &spec : table()) {
    if (spec.ns == ns && spec.name == name)
      return &spec;
  }
  return nullptr;
}

std::span<const BuiltinSpec> all_builtins() { return table(); }

const BuiltinSpec *spec_of(BuiltinId id) {
  for (const BuiltinSpec &spec : table())
    if (spec.id == id && id != BuiltinId::None)
      return &spec;
  return nullptr;
}

} // namespace argus::sema
