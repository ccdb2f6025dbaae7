// Calls: builtins and intrinsics through the signature table, @device
// functions, dtype casts and the tensor method `t.tile(...)`.
#include "analyzer.h"
#include "builtins.h"

namespace argus::sema {
namespace {

using ast::Expr;
using ast::ExprKind;

std::string qualified(const BuiltinSpec &spec) {
  return spec.ns.empty() ? std::string(spec.name)
                         : std::string(spec.ns) + "." + std::string(spec.name);
}

std::string describe(const TensorReq &req) {
  std::string out;
  if (req.space)
    out += std::string(to_string(*req.space)) + " ";
  if (req.elements)
    out += "(" + std::to_string(req.elements) + ",) ";
  if (req.dtype)
    out += std::string(to_string(*req.dtype)) + " ";
  out += req.space == MemorySpace::Local && req.elements ? "fragment" : "tensor view";
  if (req.bytes)
    out += " of " + std::to_string(req.bytes) + " bytes";
  if (req.sixteen_bit)
    out += " with a 16-bit dtype";
  return out;
}

} // namespace

Type Analyzer::check_call(const Expr &call) {
  const Expr &callee = call.callee();
  if (callee.kind == ExprKind::Name) {
    const std::string &name = callee.name;
    if (const Symbol *symbol = lookup(name)) {
      result_.references[&callee] = symbol;
      if (symbol->kind == SymbolKind::Function) {
        const FunctionInfo *info = result_.function_info(name);
        if (info && info->role == FunctionRole::Kernel) {
          for (const auto &arg : call.operands)
            if (arg.get() != &callee)
              check_expr(*arg);
          error(codes::kNotCallable, callee.range,
                "'" + name + "' is a kernel: kernels are launched, not called; make it @device");
          return Type::unknown();
        }
        if (info) {
          result_.calls[&call] = {CallKind::Device, BuiltinId::None, info->function};
          return check_device_call(call, *info);
        }
        return Type::unknown();
      }
      error(codes::kNotCallable, callee.range,
            "'" + name + "' is " + symbol->type.str() + ", not a function");
      for (size_t i = 0; i < call.arg_count(); ++i)
        check_expr(call.arg(i));
      return Type::unknown();
    }
    if (auto dtype = scalar_from_name(name)) {
      result_.calls[&call] = {CallKind::Cast, BuiltinId::None, nullptr, *dtype};
      return check_cast(call, *dtype);
    }
    if (name == "range") {
      error(codes::kInvalidOperand, call.range,
            "range(...) is only allowed as a for-loop iterable");
      return Type::unknown();
    }
    if (const BuiltinSpec *spec = find_builtin(name))
      return check_builtin_call(call, *spec);
    Diagnostic &d = error(codes::kUnknownFunction, callee.range, "unknown function '" + name + "'");
    d.data = {{"name", name}};
    for (size_t i = 0; i < call.arg_count(); ++i)
      check_expr(call.arg(i));
    return Type::unknown();
  }
  if (callee.kind == ExprKind::Attribute) {
    const Expr &object = *callee.operands[0];
    if (object.kind == ExprKind::Name && (object.name == "nvvm" || object.name == "amdgpu") &&
        !lookup(object.name)) {
      if (const BuiltinSpec *spec = find_intrinsic(object.name, callee.name)) {
        if (scope_) {
          if (scope_->namespaces_used.insert(object.name).second)
            scope_->first_target_use[object.name == "nvvm" ? 0 : 1] = callee.range;
        }
        return check_builtin_call(call, *spec);
      }
      std::string known;
      for (const BuiltinSpec &spec : all_builtins()) {
        if (spec.ns == object.name)
          known += (known.empty() ? "" : ", ") + std::string(spec.name);
      }
      Diagnostic &d =
          error(codes::kUnknownFunction, callee.name_range,
                "unknown intrinsic '" + object.name + "." + callee.name + "'; known: " + known);
      d.data = {{"name", object.name + "." + callee.name}};
      for (size_t i = 0; i < call.arg_count(); ++i)
        check_expr(call.arg(i));
      return Type::unknown();
    }
    return check_method_call(call);
  }
  check_expr(callee);
  for (size_t i = 0; i < call.arg_count(); ++i)
    check_expr(call.arg(i));
  if (!type(callee).is_unknown())
    error(codes::kNotCallable, callee.range, "this expression is not callable");
  return Type::unknown();
}

Type Analyzer::check_builtin_call(const Expr &call, const BuiltinSpec &spec) {
  result_.calls[&call] = {CallKind::Builtin, spec.id};
  const std::string name = qualified(spec);
  if (spec.kernel_only && scope_ && scope_->info->role != FunctionRole::Kernel) {
    error(codes::kMisplacedStatement, call.range, name + "(...) is only allowed in a @kernel");
  }
  // Bind positional and keyword arguments to parameters.
  const size_t params = spec.params.size();
  BoundArgs bound;
  bound.args.assign(params, nullptr);
  bool ok = true;
  for (size_t i = 0; i < call.arg_count(); ++i) {
    if (i < params) {
      bound.args[i] = &call.arg(i);
    } else if (spec.variadic) {
      bound.args.push_back(&call.arg(i));
    } else {
      Diagnostic &d =
          error(codes::kArgumentCount, call.arg(i).range,
                name + " takes at most " + std::to_string(params) + " argument" +
                    (params == 1 ? "" : "s") + ", got " + std::to_string(call.arg_count()));
      d.data = {{"expected", params}, {"got", call.arg_count()}};
      ok = false;
      break;
    }
  }
  for (const ast::Keyword &keyword : call.keywords) {
    size_t index = params;
    for (size_t i = 0; i < params; ++i) {
      if (spec.params[i].name == keyword.name)
        index = i;
    }
    if (index == params) {
      std::string known;
      for (const ParamSpec &p : spec.params)
        known += (known.empty() ? "" : ", ") + std::string(p.name);
      error(codes::kUnknownKeyword, keyword.name_range,
            name + " has no parameter '" + keyword.name + "'" +
                (known.empty() ? "" : "; its parameters: " + known));
      check_expr(*keyword.value);
      ok = false;
      continue;
    }
    if (bound.args[index]) {
      error(codes::kArgumentCount, keyword.name_range,
            name + ": parameter '" + keyword.name + "' is given twice");
      ok = false;
      continue;
    }
    bound.args[index] = keyword.value.get();
  }
  for (size_t i = 0; i < params; ++i) {
    if (!bound.args[i] && !spec.params[i].optional) {
      Diagnostic &d =
          error(codes::kArgumentCount, call.range,
                name + " is missing argument '" + std::string(spec.params[i].name) + "'");
      d.data = {{"missing", spec.params[i].name}};
      ok = false;
    }
  }
  // Check each argument against its parameter kind.
  bound.types.assign(bound.args.size(), Type::unknown());
  bound.shapes.assign(bound.args.size(), {});
  for (size_t i = 0; i < bound.args.size(); ++i) {
    const Expr *arg = bound.args[i];
    if (!arg)
      continue;
    const ParamSpec &param = spec.params[std::min(i, params - 1)];
    const std::string what = name + " argument '" + std::string(param.name) + "'";
    auto fail = [&](std::string_view code, std::string message) {
      error(code, arg->range, what + " " + message);
      ok = false;
    };
    if (param.kind == ArgKind::TagFunction && arg->kind == ExprKind::Lambda) {
      // The lambda's body is a tag record over its parameters (the coordinates).
      std::vector<std::string> saved = lambda_params_;
      for (const ast::LambdaParam &p : arg->lambda_params)
        lambda_params_.push_back(p.name);
      const Expr &body = *arg->operands[0];
      if (body.kind != ExprKind::Dict) {
        fail(codes::kArgumentType, "must return a tag record {\"field\": value, ...}");
      } else {
        for (size_t k = 0; k < body.operands.size(); k += 2) {
          if (body.operands[k]->kind != ExprKind::String)
            fail(codes::kArgumentType, "has a tag field that is not a string");
          const Type value = check_expr(*body.operands[k + 1]);
          if (!value.is_unknown() && !value.is_integer_like())
            fail(codes::kArgumentType,
                 "maps a field to " + value.str() + "; tag values are integers");
        }
      }
      lambda_params_ = std::move(saved);
      bound.types[i] = Type::of(TypeKind::Lambda);
      result_.expr_types[arg] = bound.types[i];
      continue;
    }
    if (param.kind == ArgKind::TagRecord) {
      if (arg->kind != ExprKind::Dict) {
        check_expr(*arg);
        fail(codes::kArgumentType, "must be a tag record {\"field\": value, ...}");
        continue;
      }
      for (size_t k = 0; k < arg->operands.size(); k += 2) {
        if (arg->operands[k]->kind != ExprKind::String) {
          error(codes::kArgumentType, arg->operands[k]->range, "tag field names are strings");
          ok = false;
        }
        const Type value = check_expr(*arg->operands[k + 1]);
        if (!value.is_unknown() && !value.is_integer_like()) {
          error(codes::kArgumentType, arg->operands[k + 1]->range,
                "tag values are integers, got " + value.str());
          ok = false;
        }
      }
      bound.types[i] = Type::of(TypeKind::Dict);
      result_.expr_types[arg] = bound.types[i];
      continue;
    }
    if (arg->kind == ExprKind::Lambda && arg->operands.size() == 2 &&
        param.kind == ArgKind::Condition && spec.id == BuiltinId::Assume) {
      // assume(fact for i in range(n)): the fact holds for every i of the range.
      const Expr &iterable = *arg->operands[1];
      if (iterable.kind != ExprKind::Call || iterable.callee().dotted_name() != "range" ||
          iterable.arg_count() < 1 || iterable.arg_count() > 2) {
        error(codes::kArgumentType, iterable.range,
              "a fact of assume(...) ranges over range(n) or range(a, b)");
        ok = false;
      } else {
        for (size_t k = 0; k < iterable.arg_count(); ++k) {
          const Type bound_type = check_expr(iterable.arg(k));
          if (!bound_type.is_unknown() && !bound_type.is_integer_like())
            fail(codes::kArgumentType, "ranges over a bound that is not an integer");
        }
      }
      std::vector<std::string> saved = lambda_params_;
      lambda_params_.push_back(arg->lambda_params[0].name);
      const Type fact = check_expr(*arg->operands[0]);
      lambda_params_ = std::move(saved);
      if (!fact.is_unknown() && !fact.is_numeric())
        fail(codes::kArgumentType, "must be a condition, got " + fact.str());
      bound.types[i] = Type::scalar_of(ScalarKind::Bool);
      result_.expr_types[arg] = bound.types[i];
      continue;
    }
    const Type t = check_expr(*arg);
    bound.types[i] = t;
    if (t.is_unknown()) {
      ok = false;
      continue;
    }
    switch (param.kind) {
    case ArgKind::Any:
      break;
    case ArgKind::Integer:
      if (!t.is_integer_like())
        fail(codes::kArgumentType, "must be an integer, got " + t.str());
      break;
    case ArgKind::IntConst:
      if (!t.is_integer_like())
        fail(codes::kArgumentType, "must be an integer, got " + t.str());
      else if (!constant(*arg))
        fail(codes::kArgumentNotConstant, "must be a compile-time constant");
      break;
    case ArgKind::Numeric:
    case ArgKind::Condition:
      if (!t.is_numeric())
        fail(codes::kArgumentType, "must be a number, got " + t.str());
      break;
    case ArgKind::Float:
      if (!t.is_numeric() || (t.kind == TypeKind::Scalar && !is_float(t.scalar)))
        fail(codes::kArgumentType, "must be a floating-point value, got " + t.str() +
                                       (t.is_numeric() ? "; convert with f32(x)" : ""));
      break;
    case ArgKind::Dtype:
      if (t.kind != TypeKind::Dtype)
        fail(codes::kArgumentType, "must be a dtype such as bf16 or f32, got " + t.str());
      break;
    case ArgKind::Shape:
    case ArgKind::ConstShape: {
      auto shape = shape_of(*arg, param.kind == ArgKind::ConstShape);
      if (!shape)
        ok = false;
      else
        bound.shapes[i] = std::move(*shape);
      break;
    }
    case ArgKind::IntTuple: {
      const bool is_tuple = t.kind == TypeKind::Tuple;
      const std::vector<Type> elements = is_tuple ? t.elements : std::vector<Type>{t};
      for (const Type &e : elements) {
        if (!e.is_unknown() && !e.is_integer_like()) {
          fail(codes::kArgumentType, "must be an integer or a tuple of integers, got " + t.str());
          break;
        }
      }
      break;
    }
    case ArgKind::Tensor:
    case ArgKind::Place: {
      // A Place may be one element t[i, j] of a tensor: its space is the base's.
      const TensorType *tensor = t.is_tensor() ? t.tensor.get() : nullptr;
      std::optional<int64_t> bytes = tensor ? tensor->byte_size() : std::nullopt;
      std::optional<MemorySpace> space = tensor ? std::optional(tensor->space) : std::nullopt;
      std::optional<ScalarKind> dtype = tensor ? std::optional(tensor->dtype) : std::nullopt;
      if (!tensor && param.kind == ArgKind::Place && arg->kind == ExprKind::Subscript &&
          t.kind == TypeKind::Scalar && type(*arg->operands[0]).is_tensor()) {
        space = type(*arg->operands[0]).tensor->space;
        bytes = bit_width(t.scalar) / 8;
        dtype = t.scalar;
      }
      if (!space) {
        fail(codes::kArgumentType, "must be a " + describe(param.tensor) + ", got " + t.str());
        break;
      }
      const TensorReq &req = param.tensor;
      const bool matches =
          (!req.space || *req.space == *space) && (!req.dtype || *req.dtype == *dtype) &&
          (!req.elements || (tensor && tensor->element_count() == req.elements)) &&
          (!req.bytes || bytes == req.bytes) && (!req.sixteen_bit || bit_width(*dtype) == 16);
      if (!matches) {
        Diagnostic &d = error(codes::kArgumentType, arg->range,
                              what + " must be a " + describe(req) + ", got " + t.str());
        d.data = {{"expected", describe(req)}, {"got", t.str()}};
        ok = false;
      }
      break;
    }
    case ArgKind::String:
      if (t.kind != TypeKind::String)
        fail(codes::kArgumentType, "must be a string, got " + t.str());
      break;
    case ArgKind::Fields:
    case ArgKind::TagFunction: {
      const bool strings = t.kind == TypeKind::Tuple &&
                           std::all_of(t.elements.begin(), t.elements.end(),
                                       [](const Type &e) { return e.kind == TypeKind::String; });
      if (!strings && t.kind != TypeKind::String)
        fail(codes::kArgumentType,
             std::string("must be a tuple of field names like (\"m\", \"k\")") +
                 (param.kind == ArgKind::TagFunction ? " or a lambda" : "") + ", got " + t.str());
      break;
    }
    case ArgKind::TagRecord:
      break;
    case ArgKind::TensorSpec:
      if (t.kind != TypeKind::TensorSpec)
        fail(codes::kArgumentType, "must be a tensor type Tensor(shape, dtype), got " + t.str());
      break;
    case ArgKind::LayoutLike:
      if (t.kind != TypeKind::Layout && t.kind != TypeKind::Swizzle)
        fail(codes::kArgumentType, "must be a layout or swizzle, got " + t.str());
      break;
    }
  }
  if (!ok)
    return Type::unknown();
  return spec.result(*this, call, bound);
}

Type Analyzer::check_device_call(const Expr &call, const FunctionInfo &callee) {
  if (scope_)
    scope_->calls.emplace_back(callee.function, call.callee().range);
  const std::string &name = callee.function->name;
  for (const ast::Keyword &keyword : call.keywords) {
    check_expr(*keyword.value);
    error(codes::kUnknownKeyword, keyword.name_range,
          "@device functions take positional arguments only; '" + keyword.name +
              "=' is not allowed");
  }
  if (call.arg_count() != callee.params.size()) {
    Diagnostic &d = error(codes::kArgumentCount, call.range,
                          "'" + name + "' takes " + std::to_string(callee.params.size()) +
                              " argument" + (callee.params.size() == 1 ? "" : "s") + ", got " +
                              std::to_string(call.arg_count()));
    d.data = {{"expected", callee.params.size()}, {"got", call.arg_count()}};
  }
  for (size_t i = 0; i < call.arg_count(); ++i) {
    const Type t = check_expr(call.arg(i));
    if (i >= callee.params.size())
      continue;
    const Type &expected = callee.params[i]->type;
    bool ok = assignable(expected, t);
    if (expected.is_tensor() && t.is_tensor()) {
      // A @device tensor parameter accepts a view of any memory space with the same
      // dtype and rank; constant dims must agree.
      const TensorType &a = *expected.tensor;
      const TensorType &b = *t.tensor;
      ok = a.dtype == b.dtype && a.shape.size() == b.shape.size();
      for (size_t k = 0; ok && k < a.shape.size(); ++k)
        ok = !(a.shape[k].is_constant() && b.shape[k].is_constant()) || a.shape[k] == b.shape[k];
    }
    if (!ok) {
      Diagnostic &d = error(codes::kArgumentType, call.arg(i).range,
                            "argument '" + callee.params[i]->name + "' of '" + name + "' expects " +
                                expected.str() + ", got " + t.str());
      d.data = {{"expected", expected.str()}, {"got", t.str()}};
    }
  }
  return callee.return_type;
}

Type Analyzer::check_cast(const Expr &call, ScalarKind to) {
  for (const ast::Keyword &keyword : call.keywords) {
    check_expr(*keyword.value);
    error(codes::kUnknownKeyword, keyword.name_range,
          std::string(to_string(to)) + "(x) takes no keyword arguments");
  }
  if (call.arg_count() != 1) {
    for (size_t i = 0; i < call.arg_count(); ++i)
      check_expr(call.arg(i));
    error(codes::kArgumentCount, call.range,
          std::string(to_string(to)) + "(x) converts one value, got " +
              std::to_string(call.arg_count()) + " arguments");
    return Type::unknown();
  }
  const Type from = check_expr(call.arg(0));
  if (from.is_unknown())
    return Type::scalar_of(to);
  if (!from.is_numeric()) {
    error(codes::kArgumentType, call.arg(0).range,
          std::string(to_string(to)) + "(x) converts a number, got " + from.str());
    return Type::unknown();
  }
  if (const auto value = constant(call.arg(0)); value && is_integer(to))
    set_constant(call, *value);
  return Type::scalar_of(to);
}

Type Analyzer::check_method_call(const Expr &call) {
  const Expr &callee = call.callee();
  const Type object = check_expr(*callee.operands[0]);
  for (const ast::Keyword &keyword : call.keywords)
    check_expr(*keyword.value);
  for (size_t i = 0; i < call.arg_count(); ++i)
    check_expr(call.arg(i));
  if (object.is_unknown())
    return Type::unknown();
  if (!object.is_tensor() || callee.name != "tile") {
    error(codes::kUnknownAttribute, callee.name_range,
          object.str() + " has no method '" + callee.name + "'" +
              (object.is_tensor() ? "; tensors have: tile" : ""));
    return Type::unknown();
  }
  result_.calls[&call] = {CallKind::Tile};
  if (call.arg_count() != 1 || !call.keywords.empty()) {
    error(codes::kArgumentCount, call.range, "t.tile(tile_shape) takes one tile shape");
    return Type::unknown();
  }
  auto tile = shape_of(call.arg(0), false);
  if (!tile)
    return Type::unknown();
  const TensorType &tensor = *object.tensor;
  if (tile->size() != tensor.shape.size()) {
    error(codes::kShapeMismatch, call.arg(0).range,
          "tile shape " + shape_to_string(*tile) + " has rank " + std::to_string(tile->size()) +
              " but the tensor " + shape_to_string(tensor.shape) + " has rank " +
              std::to_string(tensor.shape.size()));
    return Type::unknown();
  }
  // The tiled view: (tile counts..., tile extents...); t.tile(s)[i, j] is one tile.
  TensorType tiled = tensor;
  tiled.shape.clear();
  tiled.strides.clear();
  for (size_t k = 0; k < tile->size(); ++k) {
    const Dim &extent = tensor.shape[k];
    const Dim &size = (*tile)[k];
    if (extent.is_constant() && size.is_constant())
      tiled.shape.push_back(Dim::constant((*extent.value + *size.value - 1) / *size.value));
    else
      tiled.shape.push_back(Dim::symbolic("cdiv(" + extent.str() + ", " + size.str() + ")"));
  }
  for (const Dim &size : *tile)
    tiled.shape.push_back(size);
  return Type::tensor_of(std::move(tiled));
}

} // namespace argus::sema
