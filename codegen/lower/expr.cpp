// Scalar expressions, integer index arithmetic and views.
#include "lower_internal.h"

#include <cmath>

namespace argus::codegen::detail {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;
using layout::ExprRef;
using layout::Interval;
using sema::MemorySpace;
using sema::ScalarKind;
using sema::Symbol;
using sema::SymbolKind;
using sema::Type;
using sema::TypeKind;

namespace {

// An operand of a C++ operator that binds more tightly than `&` (a
// comparison, unary `!`, `-`, `~`, arithmetic): parenthesised when it holds,
// outside parentheses, an operator that binds less tightly (`&`, `^`, `|`,
// `?:`), as the integer printer writes `j % 8` for a non-negative j:
// `j & 7 == 7` would compare 7 == 7 first, `!j & 7` negate j first. The
// printer's text stays bare where nothing binds around it (`u = j & 7;`).
std::string tight_operand(const std::string &text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (depth == 0 && (c == '^' || c == '?' ||
                            ((c == '&' || c == '|') && (i + 1 >= text.size() || text[i + 1] != c) &&
                             (i == 0 || text[i - 1] != c))))
      return "(" + text + ")";
  }
  return text;
}

} // namespace

namespace {

bool is_int_like_type(const Type *t) {
  if (!t)
    return false;
  if (t->kind == TypeKind::IntLiteral)
    return true;
  return t->kind == TypeKind::Scalar && sema::is_integer(t->scalar);
}

bool is_signed_int_type(const Type *t) {
  if (!t)
    return false;
  if (t->kind == TypeKind::IntLiteral)
    return true;
  return t->kind == TypeKind::Scalar && is_signed_int(t->scalar);
}

} // namespace

ScalarKind Lowerer::kind_of(const Expr &e, std::optional<ScalarKind> want) const {
  const Type *t = type_of(e);
  if (!t)
    return want.value_or(ScalarKind::I32);
  switch (t->kind) {
  case TypeKind::Scalar:
  case TypeKind::Dtype:
    return t->scalar;
  case TypeKind::IntLiteral:
    return want && *want != ScalarKind::Bool ? *want : ScalarKind::I32;
  case TypeKind::FloatLiteral:
    return want && sema::is_float(*want) ? *want : ScalarKind::F32;
  default:
    return want.value_or(ScalarKind::I32);
  }
}

std::string Lowerer::literal_float(double value, ScalarKind kind) const {
  switch (kind) {
  case ScalarKind::F32:
  case ScalarKind::F64:
    return float_text(value, kind);
  case ScalarKind::BF16:
    return "__float2bfloat16_rn(" + float_text(value, ScalarKind::F32) + ")";
  case ScalarKind::F16:
    return "__float2half_rn(" + float_text(value, ScalarKind::F32) + ")";
  case ScalarKind::FP8E4M3:
  case ScalarKind::FP8E5M2:
  case ScalarKind::FP8E4M3FNUZ:
  case ScalarKind::FP8E5M2FNUZ:
    return type_name(kind, target_) + "(" + float_text(value, ScalarKind::F32) + ")";
  case ScalarKind::Bool:
    return value != 0 ? "true" : "false";
  default:
    return literal_int(static_cast<int64_t>(value), kind);
  }
}

std::string Lowerer::literal_int(int64_t value, ScalarKind kind) const {
  if (sema::is_float(kind))
    return literal_float(static_cast<double>(value), kind);
  if (kind == ScalarKind::Bool)
    return value ? "true" : "false";
  std::string text = std::to_string(value);
  switch (kind) {
  case ScalarKind::I64:
    text += "LL";
    break;
  case ScalarKind::U32:
    text += "u";
    break;
  case ScalarKind::U64:
    text += "ull";
    break;
  default:
    if (value > INT32_MAX || value < INT32_MIN)
      text += "LL";
    break;
  }
  return value < 0 ? "(" + text + ")" : text;
}

std::string Lowerer::convert(const std::string &text, ScalarKind from, ScalarKind to) const {
  if (from == to)
    return text;
  auto to_float = [&](const std::string &t, ScalarKind k) -> std::string {
    switch (k) {
    case ScalarKind::BF16:
      return "__bfloat162float(" + t + ")";
    case ScalarKind::F16:
      return "__half2float(" + t + ")";
    case ScalarKind::FP8E4M3:
    case ScalarKind::FP8E5M2:
    case ScalarKind::FP8E4M3FNUZ:
    case ScalarKind::FP8E5M2FNUZ:
      return "static_cast<float>(" + t + ")";
    case ScalarKind::F32:
      return t;
    default:
      return "static_cast<float>(" + t + ")";
    }
  };
  const bool special_from =
      from == ScalarKind::BF16 || from == ScalarKind::F16 || sema::is_fp8(from);
  if (to == ScalarKind::Bool) {
    if (special_from)
      return "(" + to_float(text, from) + " != 0.0f)";
    return "(" + text + " != 0)";
  }
  switch (to) {
  case ScalarKind::BF16:
    return "__float2bfloat16_rn(" + to_float(text, from) + ")";
  case ScalarKind::F16:
    return "__float2half_rn(" + to_float(text, from) + ")";
  case ScalarKind::FP8E4M3:
  case ScalarKind::FP8E5M2:
  case ScalarKind::FP8E4M3FNUZ:
  case ScalarKind::FP8E5M2FNUZ:
    return type_name(to, target_) + "(" + to_float(text, from) + ")";
  default:
    break;
  }
  if (special_from) {
    const std::string f = to_float(text, from);
    return to == ScalarKind::F32 ? f : "static_cast<" + type_name(to, target_) + ">(" + f + ")";
  }
  return "static_cast<" + type_name(to, target_) + ">(" + text + ")";
}

std::string Lowerer::math(BuiltinId id, const std::vector<std::string> &args, ScalarKind kind) {
  if (kind != ScalarKind::F32 && kind != ScalarKind::F64) {
    // bf16, f16, fp8: compute in f32 and round once.
    std::vector<std::string> wide;
    for (const std::string &a : args)
      wide.push_back(convert(a, kind, ScalarKind::F32));
    return convert(math(id, wide, ScalarKind::F32), ScalarKind::F32, kind);
  }
  const bool f32 = kind == ScalarKind::F32;
  const bool cuda = target_ == GpuTarget::Sm90;
  std::string fn;
  if (cuda) {
    if (id == BuiltinId::Exp)
      fn = f32 ? (fast_math_ ? "__expf" : "expf") : "exp";
    else if (id == BuiltinId::Log)
      fn = f32 ? (fast_math_ ? "__logf" : "logf") : "log";
    else if (id == BuiltinId::Exp2)
      fn = f32 ? (fast_math_ ? "argus_exp2_approx" : "exp2f") : "exp2";
    else if (id == BuiltinId::Log2)
      fn = f32 ? (fast_math_ ? "__log2f" : "log2f") : "log2";
    else if (id == BuiltinId::Sqrt)
      fn = f32 ? "sqrtf" : "sqrt";
    else if (id == BuiltinId::Rsqrt)
      fn = f32 ? "rsqrtf" : "rsqrt";
    else if (id == BuiltinId::Tanh)
      fn = f32 ? "tanhf" : "tanh";
    else if (id == BuiltinId::Fma)
      fn = f32 ? "fmaf" : "fma";
    else if (id == BuiltinId::Min)
      fn = f32 ? "fminf" : "fmin";
    else if (id == BuiltinId::Max)
      fn = f32 ? "fmaxf" : "fmax";
    else if (id == BuiltinId::Abs)
      fn = f32 ? "fabsf" : "fabs";
  } else {
    if (id == BuiltinId::Exp)
      fn = f32 ? "__builtin_expf" : "__builtin_exp";
    else if (id == BuiltinId::Log)
      fn = f32 ? "__builtin_logf" : "__builtin_log";
    else if (id == BuiltinId::Exp2)
      fn = f32 ? "__builtin_exp2f" : "__builtin_exp2";
    else if (id == BuiltinId::Log2)
      fn = f32 ? "__builtin_log2f" : "__builtin_log2";
    else if (id == BuiltinId::Sqrt)
      fn = f32 ? "__builtin_sqrtf" : "__builtin_sqrt";
    else if (id == BuiltinId::Rsqrt)
      fn = f32 ? "__builtin_amdgcn_rsqf" : "__builtin_amdgcn_rsq";
    else if (id == BuiltinId::Tanh)
      fn = f32 ? "argus_tanhf" : "";
    else if (id == BuiltinId::Fma)
      fn = f32 ? "__builtin_fmaf" : "__builtin_fma";
    else if (id == BuiltinId::Min)
      fn = f32 ? "__builtin_fminf" : "__builtin_fmin";
    else if (id == BuiltinId::Max)
      fn = f32 ? "__builtin_fmaxf" : "__builtin_fmax";
    else if (id == BuiltinId::Abs)
      fn = f32 ? "__builtin_fabsf" : "__builtin_fabs";
    if (id == BuiltinId::Tanh && !f32)
      return "static_cast<double>(argus_tanhf(static_cast<float>(" + args[0] + ")))";
  }
  std::string out = fn + "(";
  for (size_t i = 0; i < args.size(); ++i)
    out += (i ? ", " : "") + args[i];
  return out + ")";
}

// ---------------------------------------------------------------------------

std::string Lowerer::cpp(ExprRef e) const {
  layout::CppPrintOptions options;
  options.floor_div_function = "argus_floordiv";
  options.floor_mod_function = "argus_floormod";
  options.min_function = "argus_min";
  options.max_function = "argus_max";
  return layout::to_cpp(e, options);
}

ExprRef Lowerer::opaque(const std::string &text, Interval range) {
  return ctx_.symbol(paren(text), range);
}

ExprRef Lowerer::linear_thread() {
  const bool kernel = fn_ && fn_->role == sema::FunctionRole::Kernel;
  if (!kernel) {
    if (target_ == GpuTarget::Sm90)
      return opaque("int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))",
                    Interval::closed(0, 1023));
    return opaque("int(__builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_size_x() * "
                  "(__builtin_amdgcn_workitem_id_y() + __builtin_amdgcn_workgroup_size_y() * "
                  "__builtin_amdgcn_workitem_id_z()))",
                  Interval::closed(0, 1023));
  }
  ExprRef x = launch_coordinate(BuiltinId::ThreadId, 0);
  ExprRef y = launch_coordinate(BuiltinId::ThreadId, 1);
  ExprRef z = launch_coordinate(BuiltinId::ThreadId, 2);
  const int64_t bx = fn_->block[0];
  const int64_t by = fn_->block[1];
  return x + bx * (y + by * z);
}

ExprRef Lowerer::launch_coordinate(BuiltinId id, int dim) {
  const bool kernel = fn_ && fn_->role == sema::FunctionRole::Kernel;
  const bool cuda = target_ == GpuTarget::Sm90;
  const char axis = "xyz"[std::clamp(dim, 0, 2)];
  const std::string a(1, axis);
  if (id == BuiltinId::ThreadId) {
    if (kernel) {
      const int64_t extent = fn_->block[static_cast<size_t>(std::clamp(dim, 0, 2))];
      if (extent == 1)
        return ctx_.constant(0);
      return ctx_.symbol(cuda ? "int(threadIdx." + a + ")"
                              : "int(__builtin_amdgcn_workitem_id_" + a + "())",
                         Interval::closed(0, extent - 1));
    }
    return ctx_.symbol(cuda ? "int(threadIdx." + a + ")"
                            : "int(__builtin_amdgcn_workitem_id_" + a + "())",
                       Interval::closed(0, 1023));
  }
  if (id == BuiltinId::BlockId) {
    return ctx_.symbol(cuda ? "int(blockIdx." + a + ")"
                            : "int(__builtin_amdgcn_workgroup_id_" + a + "())",
                       Interval::non_negative());
  }
  if (id == BuiltinId::BlockDim) {
    if (kernel)
      return ctx_.constant(fn_->block[static_cast<size_t>(std::clamp(dim, 0, 2))]);
    return ctx_.symbol(cuda ? "int(blockDim." + a + ")"
                            : "int(__builtin_amdgcn_workgroup_size_" + a + "())",
                       Interval::closed(1, 1024));
  }
  if (id == BuiltinId::GridDim) {
    if (cuda)
      return ctx_.symbol("int(gridDim." + a + ")", Interval::positive());
    return opaque("int(__builtin_amdgcn_grid_size_" + a + "() / __builtin_amdgcn_workgroup_size_" +
                      a + "())",
                  Interval::positive());
  }
  const int warp = cuda ? 32 : 64;
  if (id == BuiltinId::LaneId) {
    if (!kernel && !cuda)
      return ctx_.symbol("argus_lane()", Interval::closed(0, 63));
    return linear_thread() % warp;
  }
  if (id == BuiltinId::WarpgroupId)
    return linear_thread() / 128;
  // A cluster is a box of blocks from a multiple of its extents, ranked x
  // fastest (%cluster_ctarank).
  if (id == BuiltinId::ClusterId)
    return launch_coordinate(BuiltinId::BlockId, dim) / fn_->cluster[static_cast<size_t>(dim)];
  if (id == BuiltinId::ClusterRank) {
    const auto in_cluster = [&](int d) {
      return launch_coordinate(BuiltinId::BlockId, d) % fn_->cluster[static_cast<size_t>(d)];
    };
    return in_cluster(0) + ctx_.constant(fn_->cluster[0]) *
                               (in_cluster(1) + ctx_.constant(fn_->cluster[1]) * in_cluster(2));
  }
  // warp_id
  return linear_thread() / warp;
}

ExprRef Lowerer::int_binary(BinaryOp op, ExprRef a, ExprRef b) {
  switch (op) {
  case BinaryOp::Add:
    return a + b;
  case BinaryOp::Sub:
    return a - b;
  case BinaryOp::Mul:
    return a * b;
  case BinaryOp::FloorDiv:
    if (b.is_constant() && b.constant() == 0)
      break;
    return ctx_.floor_div(a, b);
  case BinaryOp::Mod:
    if (b.is_constant() && b.constant() == 0)
      break;
    return ctx_.mod(a, b);
  case BinaryOp::BitAnd:
    return ctx_.bit_and(a, b);
  case BinaryOp::BitOr:
    return ctx_.bit_or(a, b);
  case BinaryOp::BitXor:
    return ctx_.bit_xor(a, b);
  case BinaryOp::Shl:
    if (b.is_constant() && b.constant() >= 0 && b.constant() <= 62)
      return a * (int64_t{1} << b.constant());
    return ctx_.shl(a, b);
  case BinaryOp::Shr:
    if (b.is_constant() && b.constant() >= 0 && b.constant() <= 62)
      return ctx_.floor_div(a, ctx_.constant(int64_t{1} << b.constant()));
    return ctx_.shr(a, b);
  default:
    break;
  }
  return ExprRef();
}

ExprRef Lowerer::iexpr(const Expr &e) {
  const Type *t = type_of(e);
  if (is_int_like_type(t)) {
    if (auto v = sema_.constant_of(e))
      return ctx_.constant(*v);
  }
  switch (e.kind) {
  case ExprKind::Int:
  case ExprKind::Bool:
    return ctx_.constant(e.int_value);
  case ExprKind::Name: {
    const Symbol *s = symbol_of(e);
    if (!s)
      break;
    if (s->value)
      return ctx_.constant(*s->value);
    if (s->kind == SymbolKind::Parameter) {
      return ctx_.symbol(cpp_name(s->name),
                         positive_params_.count(s) ? Interval::positive() : Interval::all());
    }
    if (s->kind == SymbolKind::Local || s->kind == SymbolKind::LoopVariable) {
      auto it = facts_.find(s);
      return ctx_.symbol(local_name(s), it == facts_.end() ? Interval::all() : it->second);
    }
    break;
  }
  case ExprKind::Unary: {
    if (!is_signed_int_type(t))
      break;
    if (e.unary_op == ast::UnaryOp::Neg)
      return ctx_.neg(iexpr(*e.operands[0]));
    if (e.unary_op == ast::UnaryOp::Pos)
      return iexpr(*e.operands[0]);
    if (e.unary_op == ast::UnaryOp::Invert)
      return ctx_.sub(ctx_.neg(iexpr(*e.operands[0])), ctx_.constant(1));
    break;
  }
  case ExprKind::Binary: {
    if (!is_signed_int_type(t) || !is_signed_int_type(type_of(*e.operands[0])) ||
        !is_signed_int_type(type_of(*e.operands[1])))
      break;
    if (const ExprRef r = int_binary(e.binary_op, iexpr(*e.operands[0]), iexpr(*e.operands[1]));
        !r.is_null())
      return r;
    break;
  }
  case ExprKind::Call: {
    const BuiltinId id = builtin_of(e);
    if (id == BuiltinId::ThreadId || id == BuiltinId::BlockId || id == BuiltinId::BlockDim ||
        id == BuiltinId::GridDim || id == BuiltinId::ClusterId) {
      const Expr *d = call_arg(e, 0, "dim");
      const int dim = d ? static_cast<int>(sema_.constant_of(*d).value_or(0)) : 0;
      return launch_coordinate(id, dim);
    }
    if (id == BuiltinId::LaneId || id == BuiltinId::WarpId || id == BuiltinId::WarpgroupId ||
        id == BuiltinId::ClusterRank)
      return launch_coordinate(id, 0);
    if (!is_signed_int_type(t))
      break;
    if (id == BuiltinId::Cdiv && e.arg_count() == 2) {
      const ExprRef a = iexpr(e.arg(0));
      const ExprRef b = iexpr(e.arg(1));
      if (b.range().positive_values())
        return ctx_.floor_div(a + b - 1, b);
      return ctx_.neg(ctx_.floor_div(ctx_.neg(a), b));
    }
    if ((id == BuiltinId::Min || id == BuiltinId::Max) && e.arg_count() >= 2) {
      ExprRef acc = iexpr(e.arg(0));
      for (size_t i = 1; i < e.arg_count(); ++i)
        acc =
            id == BuiltinId::Min ? ctx_.min(acc, iexpr(e.arg(i))) : ctx_.max(acc, iexpr(e.arg(i)));
      return acc;
    }
    if (id == BuiltinId::Abs && e.arg_count() == 1) {
      const ExprRef a = iexpr(e.arg(0));
      return ctx_.max(a, ctx_.neg(a));
    }
    break;
  }
  default:
    break;
  }
  return opaque(expr(e));
}

// ---------------------------------------------------------------------------

std::string Lowerer::expr(const Expr &e, std::optional<ScalarKind> want) {
  const Type *t = type_of(e);
  const ScalarKind kind = kind_of(e, want);
  if (is_int_like_type(t) || (t && t->kind == TypeKind::Scalar && t->scalar == ScalarKind::Bool)) {
    if (auto v = sema_.constant_of(e))
      return literal_int(*v, kind);
  }
  // A compile-time float (a float module constant, `LOG2E * rsqrt(D)`):
  // folded by sema in double, rounded once to the type of its use.
  if (t && t->kind == TypeKind::FloatLiteral)
    if (auto v = sema_.float_constant_of(e))
      return literal_float(*v, kind);
  switch (e.kind) {
  case ExprKind::Int:
    return literal_int(e.int_value, kind);
  case ExprKind::Float:
    return literal_float(e.float_value, kind);
  case ExprKind::Bool:
    return e.int_value ? "true" : "false";
  case ExprKind::Name: {
    const Symbol *s = symbol_of(e);
    if (!s) {
      if (e.name == "inf")
        return literal_float(INFINITY, kind);
      error(e.range, "cannot lower the name '" + e.name + "' here");
      return "0";
    }
    if (s->value)
      return literal_int(*s->value, kind);
    if (s->float_value)
      return literal_float(*s->float_value, kind);
    if (s->kind == SymbolKind::Parameter) {
      if (s->type.is_tensor()) {
        error(e.range, "a tensor is not a scalar value here");
        return "0";
      }
      return cpp_name(s->name);
    }
    if (s->kind == SymbolKind::Local || s->kind == SymbolKind::LoopVariable) {
      if (s->type.is_tensor()) {
        error(e.range, "a tensor is not a scalar value here");
        return "0";
      }
      return local_name(s);
    }
    error(e.range, "cannot lower the name '" + e.name + "' here");
    return "0";
  }
  case ExprKind::Unary: {
    if (is_signed_int(kind) && e.unary_op != ast::UnaryOp::Not)
      return cpp(iexpr(e));
    switch (e.unary_op) {
    case ast::UnaryOp::Neg: {
      const ast::Expr &operand = *e.operands[0];
      if (operand.kind == ExprKind::Name && operand.name == "inf" && !symbol_of(operand))
        return literal_float(-INFINITY, kind);
      return "(-" + tight_operand(expr(operand, kind)) + ")";
    }
    case ast::UnaryOp::Pos:
      return expr(*e.operands[0], kind);
    case ast::UnaryOp::Not:
      return "(!" + tight_operand(expr(*e.operands[0])) + ")";
    case ast::UnaryOp::Invert:
      return "(~" + tight_operand(expr(*e.operands[0], kind)) + ")";
    }
    return "0";
  }
  case ExprKind::Binary: {
    if (is_signed_int(kind) && e.binary_op != BinaryOp::Div)
      return cpp(iexpr(e));
    const bool shift = e.binary_op == BinaryOp::Shl || e.binary_op == BinaryOp::Shr;
    const std::string a = tight_operand(expr(*e.operands[0], kind));
    const std::string b = tight_operand(shift ? expr(*e.operands[1]) : expr(*e.operands[1], kind));
    switch (e.binary_op) {
    case BinaryOp::FloorDiv:
      return "(" + a + " / " + b + ")"; // unsigned: floor == truncation
    case BinaryOp::Mod:
      return "(" + a + " % " + b + ")";
    case BinaryOp::Div:
      if (fast_math_ && kind == ScalarKind::F32 && target_ == GpuTarget::Sm90)
        return "__fdividef(" + a + ", " + b + ")";
      return "(" + a + " / " + b + ")";
    case BinaryOp::Pow:
      error(e.range, "a runtime power cannot be lowered");
      return "0";
    default:
      return "(" + a + " " + ast::to_string(e.binary_op) + " " + b + ")";
    }
  }
  case ExprKind::Compare: {
    std::string out;
    for (size_t i = 0; i < e.compare_ops.size(); ++i) {
      const Expr &l = *e.operands[i];
      const Expr &r = *e.operands[i + 1];
      const Type *lt = type_of(l);
      std::optional<ScalarKind> k;
      if (lt && lt->kind == TypeKind::Scalar)
        k = lt->scalar;
      else if (const Type *rt = type_of(r); rt && rt->kind == TypeKind::Scalar)
        k = rt->scalar;
      const std::string part = "(" + tight_operand(expr(l, k)) + " " +
                               ast::to_string(e.compare_ops[i]) + " " + tight_operand(expr(r, k)) +
                               ")";
      out = out.empty() ? part : out + " && " + part;
    }
    return e.compare_ops.size() == 1 ? out : "(" + out + ")";
  }
  case ExprKind::BoolOp:
    return "(" + expr(*e.operands[0]) + (e.bool_op == ast::BoolOpKind::And ? " && " : " || ") +
           expr(*e.operands[1]) + ")";
  case ExprKind::Conditional:
    return "(" + expr(*e.operands[0]) + " ? " + expr(*e.operands[1], kind) + " : " +
           expr(*e.operands[2], kind) + ")";
  case ExprKind::Call:
    return call_expr(e, want);
  case ExprKind::Subscript: {
    auto v = view_of(e);
    if (!v)
      return "0";
    if (!v->shape.empty() || !v->tile.empty()) {
      error(e.range, "a tensor view is not a scalar value here; index it down to an element");
      return "0";
    }
    return element_ref(*v);
  }
  default:
    error(e.range, std::string("cannot lower a ") + ast::to_string(e.kind) + " here");
    return "0";
  }
}

std::string Lowerer::call_expr(const Expr &call, std::optional<ScalarKind> want) {
  const BuiltinId id = builtin_of(call);
  const Type *t = type_of(call);
  const ScalarKind kind = kind_of(call, want);
  const bool cuda = target_ == GpuTarget::Sm90;
  auto arg = [&](size_t i, std::string_view keyword) { return call_arg(call, i, keyword); };

  const sema::CallTarget target = sema_.call_of(call);
  if (target.kind == sema::CallKind::Device && target.device) {
    const sema::FunctionInfo *callee = sema_.function_info(target.device->name);
    std::string out = cpp_name(target.device->name) + "(";
    for (size_t i = 0; i < call.arg_count(); ++i) {
      const sema::Symbol *param = callee && i < callee->params.size() ? callee->params[i] : nullptr;
      if (param && param->type.is_tensor()) {
        out += (i ? ", " : "") + device_tensor_argument(call.arg(i), *target.device, i);
        continue;
      }
      std::optional<ScalarKind> pk;
      if (param && param->type.kind == TypeKind::Scalar)
        pk = param->type.scalar;
      out += (i ? ", " : "") + expr(call.arg(i), pk);
    }
    return out + ")";
  }
  if (target.kind == sema::CallKind::Cast) {
    const ScalarKind to = target.cast;
    const Expr *x = arg(0, "x");
    if (!x)
      return literal_int(0, to);
    const Type *xt = type_of(*x);
    if (xt && xt->kind == TypeKind::FloatLiteral && x->kind == ExprKind::Float)
      return literal_float(x->float_value, to);
    const ScalarKind from = kind_of(*x, to);
    return convert(expr(*x, from), from, to);
  }
  if (id == BuiltinId::Convert) {
    const Expr *x = arg(0, "x");
    const ScalarKind from = kind_of(*x, kind);
    return convert(expr(*x, from), from, kind);
  }
  if (id == BuiltinId::Bitcast) {
    const Expr *x = arg(0, "x");
    const ScalarKind from = kind_of(*x, std::nullopt);
    return "argus_bitcast<" + type_name(kind, target_) + ">(" + expr(*x, from) + ")";
  }
  if (id == BuiltinId::ThreadId || id == BuiltinId::BlockId || id == BuiltinId::BlockDim ||
      id == BuiltinId::GridDim || id == BuiltinId::LaneId || id == BuiltinId::WarpId ||
      id == BuiltinId::WarpgroupId || id == BuiltinId::ClusterRank || id == BuiltinId::ClusterId)
    return cpp(iexpr(call));
  if (id == BuiltinId::NvvmDsmemLoad) {
    // ld.shared::cluster at the place's address mapped into block `rank`.
    auto v = view_of(*arg(0, "place"));
    const Expr *rank = arg(1, "rank");
    if (!v || !rank)
      return "0";
    return "argus_dsmem_load(" + address_of(*v) + ", static_cast<uint32_t>(" + expr(*rank) + "))";
  }
  if (id == BuiltinId::Cdiv ||
      ((id == BuiltinId::Min || id == BuiltinId::Max || id == BuiltinId::Abs) && t &&
       (t->kind == TypeKind::IntLiteral ||
        (t->kind == TypeKind::Scalar && sema::is_integer(t->scalar))))) {
    if (is_signed_int(kind))
      return cpp(iexpr(call));
    // Unsigned: plain C++.
    std::vector<std::string> args;
    for (size_t i = 0; i < call.arg_count(); ++i)
      args.push_back(expr(call.arg(i), kind));
    if (id == BuiltinId::Cdiv)
      return "((" + args[0] + " + " + args[1] + " - 1) / " + args[1] + ")";
    if (id == BuiltinId::Abs)
      return args[0];
    std::string acc = args[0];
    for (size_t i = 1; i < args.size(); ++i)
      acc = "argus_" + builtin_name(id) + "(" + acc + ", " + args[i] + ")";
    return acc;
  }
  if (id == BuiltinId::Min || id == BuiltinId::Max || id == BuiltinId::Abs ||
      id == BuiltinId::Exp || id == BuiltinId::Exp2 || id == BuiltinId::Log ||
      id == BuiltinId::Log2 || id == BuiltinId::Sqrt || id == BuiltinId::Rsqrt ||
      id == BuiltinId::Tanh || id == BuiltinId::Fma) {
    std::vector<std::string> args;
    for (size_t i = 0; i < call.arg_count(); ++i)
      args.push_back(expr(call.arg(i), kind));
    if ((id == BuiltinId::Min || id == BuiltinId::Max) && args.size() > 2) {
      std::string acc = args[0];
      for (size_t i = 1; i < args.size(); ++i)
        acc = math(id, {acc, args[i]}, kind);
      return acc;
    }
    return math(id, args, kind);
  }
  if (id == BuiltinId::Shuffle || id == BuiltinId::ShuffleXor || id == BuiltinId::ShuffleUp ||
      id == BuiltinId::ShuffleDown) {
    const Expr *x = arg(0, "x");
    const Expr *other = call_arg(call, 1,
                                 id == BuiltinId::Shuffle      ? "lane"
                                 : id == BuiltinId::ShuffleXor ? "mask"
                                                               : "delta");
    const std::string v = expr(*x, kind);
    const std::string o = expr(*other, ScalarKind::I32);
    if (cuda) {
      const std::string fn = id == BuiltinId::Shuffle      ? "__shfl_sync"
                             : id == BuiltinId::ShuffleXor ? "__shfl_xor_sync"
                             : id == BuiltinId::ShuffleUp  ? "__shfl_up_sync"
                                                           : "__shfl_down_sync";
      return fn + "(0xffffffffu, " + v + ", " + o + ")";
    }
    const std::string fn = id == BuiltinId::Shuffle      ? "argus_shfl"
                           : id == BuiltinId::ShuffleXor ? "argus_shfl_xor"
                           : id == BuiltinId::ShuffleUp  ? "argus_shfl_up"
                                                         : "argus_shfl_down";
    return fn + "(" + v + ", " + o + ")";
  }
  if (is_atomic(id))
    return atomic_expr(call);
  if (is_warp_vote(id)) {
    // Over the active lanes (a vote under a branch counts the lanes in it).
    const Expr *p = arg(0, "predicate");
    const std::string pred = p ? expr(*p, ScalarKind::Bool) : "false";
    if (cuda)
      return id == BuiltinId::Ballot
                 ? "static_cast<uint64_t>(__ballot_sync(__activemask(), " + pred + "))"
             : id == BuiltinId::AnySync ? "(__any_sync(__activemask(), " + pred + ") != 0)"
                                        : "(__all_sync(__activemask(), " + pred + ") != 0)";
    return id == BuiltinId::Ballot    ? "argus_ballot(" + pred + ")"
           : id == BuiltinId::AnySync ? "(argus_ballot(" + pred + ") != 0)"
                                      : "(argus_ballot(" + pred + ") == argus_ballot(true))";
  }
  if ((id == BuiltinId::AmdBufferLoadX1 || id == BuiltinId::AmdBufferLoadX2 ||
       id == BuiltinId::AmdBufferLoadX4 || id == BuiltinId::AmdDsReadB128) &&
      t && t->kind == TypeKind::Scalar) {
    auto v = view_of(*arg(0, "src"));
    if (!v)
      return "0";
    if (id == BuiltinId::AmdDsReadB128)
      return element_ref(*v);
    // A scalar through a real buffer load (see Lowerer::buffer_load), bit for bit.
    std::string why;
    if (auto load = buffer_load_text(id, *v, &why))
      return "argus_bitcast<" + type_name(v->dtype, target_) + ">(" + *load + ")";
    error(call.range, builtin_name(id) + " cannot be lowered as a buffer load: " + why);
    return "0";
  }
  error(call.range, "cannot lower a call of '" + call.callee().dotted_name() + "' as a value here");
  return "0";
}

// A tensor passed to a @device function: the function sees a row-major
// tensor of its parameter's shape at a pointer, so the argument must be a
// contiguous row-major view (of any buffer: global, shared or registers),
// unswizzled; its address is passed. The checker follows any view (it runs
// the body on the caller's values); this is the code generator's limit.
std::string Lowerer::device_tensor_argument(const Expr &arg, const ast::Function &callee,
                                            size_t index) {
  auto v = view_of(arg);
  if (!v)
    return "nullptr";
  const Buffer &b = buffers_[static_cast<size_t>(v->buffer)];
  if (b.swizzle || !v->tile.empty() || !contiguous(*v)) {
    error(arg.range, "a tensor passed to @device function '" + callee.name +
                         "' must be a contiguous row-major view without swizzle (the function "
                         "sees its parameter's row-major shape at one address)");
    return "nullptr";
  }
  if (auto it = device_writes_.find(&callee);
      it != device_writes_.end() && index < it->second.size() && it->second[index])
    mark_written(*v);
  return address_of(*v);
}

std::string Lowerer::atomic_expr(const Expr &call) {
  const BuiltinId id = builtin_of(call);
  const bool cas = id == BuiltinId::AtomicCas;
  const Expr *place = call_arg(call, 0, "place");
  const Expr *expected = cas ? call_arg(call, 1, "expected") : nullptr;
  const Expr *value = call_arg(call, cas ? 2 : 1, "value");
  auto v = place ? view_of(*place) : std::nullopt;
  if (!v || !value || (cas && !expected))
    return "0";
  mark_written(*v);
  // The scope was checked by sema to be "block" or "device"; only the word
  // chooses a helper, nothing of it reaches the source.
  const Expr *scope = call_arg(call, cas ? 3 : 2, "scope");
  const bool block = scope && scope->kind == ExprKind::String && scope->name == "block";
  const ScalarKind dt = v->dtype;
  auto convert_to = [&](const Expr &x, ScalarKind to) {
    const ScalarKind from = kind_of(x, to);
    return convert(expr(x, from), from, to);
  };
  std::string out = "argus_" + builtin_name(id) + (block ? "_block" : "") + "(" + address_of(*v);
  if (cas)
    out += ", " + convert_to(*expected, dt);
  return out + ", " + convert_to(*value, dt) + ")";
}

// ---------------------------------------------------------------------------
// Views.

std::vector<ExprRef> Lowerer::row_major(const std::vector<ExprRef> &shape) {
  return sema::row_major(ctx_, shape);
}

View Lowerer::buffer_view(int buffer, const std::vector<ExprRef> &shape,
                          const std::vector<ExprRef> &strides) {
  View v;
  v.buffer = buffer;
  v.dtype = buffers_[static_cast<size_t>(buffer)].dtype;
  v.shape = shape;
  v.strides = strides.empty() ? row_major(shape) : strides;
  v.offset = ctx_.constant(0);
  return v;
}

std::optional<std::vector<ExprRef>> Lowerer::int_tuple(const Expr &e) {
  std::vector<ExprRef> out;
  if (e.kind == ExprKind::Tuple) {
    for (const auto &element : e.operands)
      out.push_back(iexpr(*element));
  } else {
    out.push_back(iexpr(e));
  }
  return out;
}

View Lowerer::index_view(const View &v, const std::vector<ExprRef> &indices) {
  return sema::index_view(v, indices);
}

// The front end's view model, with this function's tensors as its bases.
std::optional<View> Lowerer::view_of(const Expr &e) {
  sema::ViewHooks hooks;
  hooks.base = [&](const Expr &b) -> std::optional<View> {
    if (b.kind == ExprKind::Name) {
      if (const Symbol *s = symbol_of(b))
        if (auto it = views_.find(s); it != views_.end())
          return it->second;
      error(b.range, "'" + b.name + "' is not a tensor the code generator knows here");
      return std::nullopt;
    }
    error(b.range, "cannot lower '" +
                       (b.kind == ExprKind::Call ? b.callee().dotted_name()
                                                 : std::string(ast::to_string(b.kind))) +
                       "' as a tensor view here");
    return std::nullopt;
  };
  hooks.integer = [&](const Expr &x) { return iexpr(x); };
  hooks.error = [&](const Range &at, const std::string &why) {
    error(at, "cannot lower this view: " + why);
  };
  return sema::view_of(sema_, ctx_, e, hooks);
}

std::optional<int64_t> Lowerer::element_count(const View &v) const {
  int64_t n = 1;
  for (ExprRef d : v.shape) {
    if (!d.is_constant())
      return std::nullopt;
    n *= d.constant();
  }
  return n;
}

bool Lowerer::contiguous(const View &v) { return sema::contiguous(ctx_, v); }

std::string Lowerer::element_at(const View &v, ExprRef byte_offset) {
  const Buffer &b = buffers_[static_cast<size_t>(v.buffer)];
  const int64_t eb = bytes_of(b.dtype);
  const int64_t ev = bytes_of(v.dtype);
  const bool input = b.space == MemorySpace::Global && b.param && !b.written;
  (void)input;
  const std::string tv = type_name(v.dtype, target_);
  if (b.swizzle) {
    const layout::Swizzle sw = *b.swizzle;
    int log2e = 0;
    while ((int64_t{1} << log2e) < eb)
      ++log2e;
    if (v.dtype == b.dtype && (int64_t{1} << log2e) == eb && sw.base >= log2e) {
      const ExprRef element = ctx_.floor_div(byte_offset, ctx_.constant(eb));
      const layout::Swizzle esw{sw.bits, sw.base - log2e, sw.shift};
      if (element.is_constant())
        return b.name + "[" + std::to_string(esw(element.constant())) + "]";
      return b.name + "[argus_swizzle<" + std::to_string(esw.bits) + ", " +
             std::to_string(esw.base) + ", " + std::to_string(esw.shift) + ">(" + cpp(element) +
             ")]";
    }
    return "*reinterpret_cast<" + tv + " *>(reinterpret_cast<unsigned char *>(" + b.name +
           ") + argus_swizzle<" + std::to_string(sw.bits) + ", " + std::to_string(sw.base) + ", " +
           std::to_string(sw.shift) + ">(" + cpp(byte_offset) + "))";
  }
  if (v.dtype == b.dtype)
    return b.name + "[" + cpp(ctx_.floor_div(byte_offset, ctx_.constant(eb))) + "]";
  const std::string cq = b.param && b.param->type.is_tensor() && !b.written ? "const " : "";
  if (byte_offset.multiple_of() % ev == 0 || byte_offset.multiple_of() == 0)
    return "reinterpret_cast<" + cq + tv + " *>(" + b.name + ")[" +
           cpp(ctx_.floor_div(byte_offset, ctx_.constant(ev))) + "]";
  return "*reinterpret_cast<" + cq + tv + " *>(reinterpret_cast<" + cq + "unsigned char *>(" +
         b.name + ") + " + cpp(byte_offset) + ")";
}

std::string Lowerer::element_ref(const View &v) { return element_at(v, v.offset); }

std::vector<std::string> Lowerer::element_refs(const View &v) {
  std::vector<std::string> out;
  const auto n = element_count(v);
  if (!n)
    return out;
  const int64_t e = bytes_of(v.dtype);
  for (int64_t k = 0; k < *n; ++k) {
    int64_t rest = k;
    ExprRef offset = v.offset;
    for (size_t i = v.shape.size(); i-- > 0;) {
      const int64_t extent = v.shape[i].constant();
      const int64_t c = rest % extent;
      rest /= extent;
      offset = offset + v.strides[i] * (c * e);
    }
    out.push_back(element_at(v, offset));
  }
  return out;
}

std::string Lowerer::address_of(const View &v) {
  std::string ref = element_at(v, v.offset);
  if (ref.rfind("*reinterpret_cast", 0) == 0)
    return ref.substr(1);
  return "&" + ref;
}

} // namespace argus::codegen::detail
