// Module level: constants, function declarations, signatures, decorators
// (@kernel geometry and policies, @device, @bench), and the whole-module
// checks (recursion, targets, shared memory).
#include "analyzer.h"
#include "builtins.h"

#include <algorithm>
#include <functional>

namespace argus::sema {
namespace {

using ast::Expr;
using ast::ExprKind;

const std::vector<std::string_view> kBuiltinReferences = {"matmul", "grouped_matmul", "attention",
                                                          "attention_causal"};

std::string join(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names)
    out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

bool mentions(const Expr &e, const std::string &name) {
  if (e.kind == ExprKind::Name && e.name == name)
    return true;
  for (const auto &op : e.operands)
    if (op && mentions(*op, name))
      return true;
  return false;
}

// Whether a tensor parameter's shape or the kernel's grid names `name`: the
// definition of a size that the checker's instances use too.
bool names_a_size(const FunctionInfo &kernel, const std::string &name) {
  const ast::Function &fn = *kernel.function;
  for (size_t i = 0; i < fn.params.size() && i < kernel.params.size(); ++i)
    if (kernel.params[i] && kernel.params[i]->type.is_tensor() && fn.params[i].annotation &&
        mentions(*fn.params[i].annotation, name))
      return true;
  for (const Expr *g : kernel.grid)
    if (g && mentions(*g, name))
      return true;
  return false;
}

// How two kernels' parameter lists differ for the runner, which runs a
// reference on the buffers and sizes of the kernel it checks: the count, and
// per position tensor or scalar, dtype and rank. Empty when they agree.
std::string signature_difference(const FunctionInfo &reference, const FunctionInfo &kernel) {
  if (reference.params.size() != kernel.params.size())
    return std::to_string(reference.params.size()) + " parameters, not " +
           std::to_string(kernel.params.size());
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Type &a = reference.params[i]->type, &b = kernel.params[i]->type;
    if (a.is_unknown() || b.is_unknown())
      continue; // reported where it is declared
    const bool same = a.kind == b.kind &&
                      (a.is_tensor() ? a.tensor && b.tensor && a.tensor->dtype == b.tensor->dtype &&
                                           a.tensor->shape.size() == b.tensor->shape.size()
                                     : a.scalar == b.scalar);
    if (!same)
      return "parameter " + std::to_string(i + 1) + " is " + a.str() + " there, " + b.str() +
             " here";
  }
  return "";
}

} // namespace

Symbol &Analyzer::add_symbol(Symbol symbol) {
  result_.symbols.push_back(std::move(symbol));
  return result_.symbols.back();
}

void Analyzer::run() {
  declare_constants();
  declare_functions();
  for (FunctionInfo &info : result_.functions)
    analyze_signature(info);
  for (FunctionInfo &info : result_.functions) {
    scope_ = &scopes_[info.function];
    analyze_decorators(info);
    analyze_body(info);
    scope_ = nullptr;
  }
  check_recursion_and_targets();
}

void Analyzer::declare_constants() {
  for (const ast::Constant &constant_decl : module_.constants) {
    const Type value = check_expr(*constant_decl.value);
    if (constant_decl.annotation) {
      const Expr &a = *constant_decl.annotation;
      if (!(a.kind == ExprKind::Name && (a.name == "constexpr" || scalar_from_name(a.name))))
        error(codes::kInvalidAnnotation, a.range,
              "a module constant is annotated with constexpr or a dtype, if at all");
    }
    if (globals_.count(constant_decl.name)) {
      Diagnostic &d = error(codes::kRedefinition, constant_decl.name_range,
                            "'" + constant_decl.name + "' is already defined");
      d.related.push_back({globals_[constant_decl.name]->definition, "first defined here"});
      continue;
    }
    if (scalar_from_name(constant_decl.name) || find_builtin(constant_decl.name) ||
        constant_decl.name == "nvvm" || constant_decl.name == "amdgpu") {
      error(codes::kAssignToConstant, constant_decl.name_range,
            "'" + constant_decl.name + "' is a builtin name and cannot be redefined");
      continue;
    }
    Symbol symbol;
    symbol.kind = SymbolKind::Constant;
    symbol.name = constant_decl.name;
    symbol.definition = constant_decl.name_range;
    symbol.type = value;
    symbol.value = constant(*constant_decl.value);
    if (value.kind == TypeKind::FloatLiteral)
      symbol.float_value = float_constant(*constant_decl.value);
    const bool is_compile_time = value.is_unknown() || symbol.value || symbol.float_value;
    if (!is_compile_time) {
      error(codes::kNotConstant, constant_decl.value->range,
            "module constants must be compile-time numbers, got " + value.str());
      symbol.type = Type::unknown();
    }
    globals_[constant_decl.name] = &add_symbol(std::move(symbol));
  }
}

void Analyzer::declare_functions() {
  result_.functions.reserve(module_.functions.size());
  for (const ast::Function &function : module_.functions) {
    const bool is_kernel = function.decorator("kernel") != nullptr;
    const bool is_device = function.decorator("device") != nullptr;
    if (is_kernel && is_device)
      error(codes::kUnknownDecorator, function.name_range,
            "'" + function.name + "' cannot be both @kernel and @device");
    else if (!is_kernel && !is_device)
      error(codes::kUnknownDecorator, function.name_range,
            "'" + function.name + "' needs @kernel(...) or @device: Argus has no host functions");
    for (const ast::Decorator &decorator : function.decorators) {
      if (decorator.name != "kernel" && decorator.name != "device" && decorator.name != "bench")
        error(codes::kUnknownDecorator, decorator.name_range,
              "unknown decorator '@" + decorator.name + "'; known: @kernel, @device, @bench");
    }
    if (auto it = globals_.find(function.name); it != globals_.end()) {
      Diagnostic &d = error(codes::kRedefinition, function.name_range,
                            "'" + function.name + "' is already defined");
      d.related.push_back({it->second->definition, "first defined here"});
      continue;
    }
    Symbol symbol;
    symbol.kind = SymbolKind::Function;
    symbol.name = function.name;
    symbol.definition = function.name_range;
    symbol.type = Type::of(TypeKind::Function);
    symbol.function = &function;
    globals_[function.name] = &add_symbol(std::move(symbol));
    FunctionInfo info;
    info.function = &function;
    info.role = is_kernel ? FunctionRole::Kernel : FunctionRole::Device;
    result_.functions.push_back(std::move(info));
    scopes_[&function].info = &result_.functions.back();
  }
}

Type Analyzer::parameter_type(const ast::Param &param, FunctionRole role, bool &is_constexpr) {
  is_constexpr = false;
  if (!param.annotation) {
    error(codes::kInvalidAnnotation, param.name_range,
          "parameter '" + param.name + "' needs a type: " + param.name + ": f32, " + param.name +
              ": Tensor((M, K), bf16) or " + param.name + ": constexpr = 4");
    return Type::unknown();
  }
  const Expr &annotation = *param.annotation;
  if (annotation.kind == ExprKind::Name && annotation.name == "constexpr") {
    is_constexpr = true;
    if (!param.default_value) {
      error(codes::kUnsupportedParameter, param.range,
            "constexpr parameter '" + param.name + "' needs a default value: " + param.name +
                ": constexpr = 4");
      return Type::unknown();
    }
    const Type value = check_expr(*param.default_value);
    if (!value.is_unknown() && !(value.is_integer_like() && constant(*param.default_value))) {
      error(codes::kNotConstant, param.default_value->range,
            "a constexpr parameter's default must be a compile-time integer");
      return Type::unknown();
    }
    return value;
  }
  // `P: i32 = num_sms()`: the launcher passes the device's SM count when the
  // caller gives no P; to the checker P is a size like any other.
  const bool sm_count = role == FunctionRole::Kernel && defaults_to_num_sms(param);
  if (param.default_value && !sm_count) {
    check_expr(*param.default_value);
    error(codes::kUnsupportedParameter, param.default_value->range,
          "default values are only allowed for constexpr parameters (and num_sms() for an "
          "integer kernel parameter)");
  }
  const Type t = check_expr(annotation);
  if (sm_count && !(t.kind == TypeKind::Dtype && is_integer(t.scalar)))
    error(codes::kUnsupportedParameter, param.default_value->range,
          "num_sms() is the default of an integer parameter only (P: i32 = num_sms())");
  if (t.kind == TypeKind::Dtype)
    return Type::scalar_of(t.scalar);
  if (t.kind == TypeKind::TensorSpec) {
    TensorType tensor = *t.tensor;
    tensor.space = MemorySpace::Global;
    return Type::tensor_of(std::move(tensor));
  }
  if (!t.is_unknown())
    error(codes::kInvalidAnnotation, annotation.range,
          "a parameter's type is a dtype (f32, i32, ...), Tensor(shape, dtype) or constexpr, not " +
              t.str());
  (void)role;
  return Type::unknown();
}

void Analyzer::analyze_signature(FunctionInfo &info) {
  scope_ = &scopes_[info.function];
  const ast::Function &function = *info.function;
  if (info.role == FunctionRole::Kernel &&
      static_cast<int>(function.params.size()) > options_.max_kernel_params) {
    Diagnostic &d =
        error(codes::kTooManyParameters, function.name_range,
              "kernel '" + function.name + "' has " + std::to_string(function.params.size()) +
                  " parameters; at most " + std::to_string(options_.max_kernel_params) +
                  " are supported (pass related values as one tensor)");
    d.data = {{"count", function.params.size()}, {"limit", options_.max_kernel_params}};
  }
  // Scalars first, so tensor shapes may name scalar parameters declared after them.
  info.params.assign(function.params.size(), nullptr);
  auto is_tensor_annotation = [](const ast::Param &p) {
    return p.annotation && p.annotation->kind == ExprKind::Call &&
           p.annotation->callee().dotted_name() == "Tensor";
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < function.params.size(); ++i) {
      const ast::Param &param = function.params[i];
      if (is_tensor_annotation(param) != (pass == 1))
        continue;
      bool is_constexpr = false;
      const Type type = parameter_type(param, info.role, is_constexpr);
      if (scope_->names.count(param.name) || globals_.count(param.name)) {
        const Symbol *previous = lookup(param.name);
        Diagnostic &d = error(codes::kRedefinition, param.name_range,
                              "parameter '" + param.name + "' is already defined" +
                                  (previous && previous->kind == SymbolKind::Parameter
                                       ? std::string()
                                       : std::string(" at module level")));
        if (previous)
          d.related.push_back({previous->definition, "first defined here"});
      }
      Symbol symbol;
      symbol.kind = SymbolKind::Parameter;
      symbol.name = param.name;
      symbol.definition = param.name_range;
      symbol.type = type;
      symbol.is_constexpr = is_constexpr;
      if (is_constexpr && param.default_value)
        symbol.value = constant(*param.default_value);
      Symbol &added = add_symbol(std::move(symbol));
      info.params[i] = &added;
      if (!scope_->names.count(param.name))
        scope_->names[param.name] = &added;
    }
  }
  if (function.return_annotation) {
    const Type t = check_expr(*function.return_annotation);
    if (info.role == FunctionRole::Kernel) {
      error(codes::kInvalidAnnotation, function.return_annotation->range,
            "kernels return nothing; remove the return annotation");
    } else if (t.kind == TypeKind::Dtype) {
      info.return_type = Type::scalar_of(t.scalar);
    } else if (!t.is_unknown()) {
      error(codes::kInvalidAnnotation, function.return_annotation->range,
            "a @device function returns a scalar dtype such as f32, not " + t.str());
      info.return_type = Type::unknown();
    } else {
      info.return_type = Type::unknown();
    }
  }
  scope_ = nullptr;
}

void Analyzer::analyze_decorators(FunctionInfo &info) {
  for (const ast::Decorator &decorator : info.function->decorators) {
    if (decorator.name == "kernel") {
      analyze_kernel_decorator(info, decorator);
    } else if (decorator.name == "device") {
      if (decorator.expr->kind != ExprKind::Name)
        error(codes::kUnknownDecorator, decorator.range, "@device takes no arguments");
    } else if (decorator.name == "bench") {
      if (info.role != FunctionRole::Kernel) {
        error(codes::kInvalidBench, decorator.range,
              "@bench times a @kernel, not a @device function");
        continue;
      }
      analyze_bench_decorator(info, decorator);
    }
  }
}

void Analyzer::analyze_kernel_decorator(FunctionInfo &info, const ast::Decorator &decorator) {
  if (decorator.expr->kind != ExprKind::Call) {
    error(codes::kInvalidGeometry, decorator.range,
          "@kernel needs its launch geometry: @kernel(grid=..., block=...)");
    return;
  }
  const Expr &call = *decorator.expr;
  for (size_t i = 0; i < call.arg_count(); ++i) {
    check_expr(call.arg(i));
    error(codes::kInvalidGeometry, call.arg(i).range,
          "@kernel takes keyword arguments only: grid=..., block=..., and policies");
  }
  std::set<std::string> seen;
  auto int_tuple = [&](const Expr &e, bool constant_required) -> std::vector<const Expr *> {
    std::vector<const Expr *> parts;
    if (e.kind == ExprKind::Tuple)
      for (const auto &p : e.operands)
        parts.push_back(p.get());
    else
      parts.push_back(&e);
    if (parts.empty() || parts.size() > 3) {
      error(codes::kInvalidGeometry, e.range, "launch geometry has 1 to 3 dimensions");
      return {};
    }
    for (const Expr *p : parts) {
      const Type &t = type(*p);
      if (t.is_unknown())
        return {};
      if (!t.is_integer_like()) {
        error(codes::kInvalidGeometry, p->range,
              "a launch dimension must be an integer, got " + t.str());
        return {};
      }
      if (constant_required && !constant(*p)) {
        error(codes::kNotConstant, p->range, "block dimensions must be compile-time constants");
        return {};
      }
    }
    return parts;
  };
  const ast::Keyword *launch_bounds = nullptr;
  for (const ast::Keyword &keyword : call.keywords) {
    const Type t = check_expr(*keyword.value);
    if (!seen.insert(keyword.name).second) {
      error(codes::kInvalidGeometry, keyword.name_range, "'" + keyword.name + "' is given twice");
      continue;
    }
    if (keyword.name == "grid") {
      for (const Expr *p : int_tuple(*keyword.value, false))
        info.grid.push_back(p);
      continue;
    }
    if (keyword.name == "block") {
      const auto parts = int_tuple(*keyword.value, true);
      if (parts.empty())
        continue;
      int64_t threads = 1;
      info.block = {1, 1, 1};
      bool ok = true;
      for (size_t i = 0; i < parts.size(); ++i) {
        const int64_t v = *constant(*parts[i]);
        if (v <= 0) {
          error(codes::kInvalidGeometry, parts[i]->range, "block dimensions must be positive");
          ok = false;
          break;
        }
        info.block[i] = v;
        threads *= v;
        if (threads > 1024)
          break;
      }
      if (ok && threads > 1024) {
        Diagnostic &d = error(codes::kInvalidGeometry, keyword.value->range,
                              "a block has at most 1024 threads, this one has " +
                                  std::to_string(info.block[0] * info.block[1] * info.block[2]));
        d.data = {{"threads", info.block[0] * info.block[1] * info.block[2]}, {"limit", 1024}};
      }
      continue;
    }
    if (keyword.name == "cluster") {
      const auto parts = int_tuple(*keyword.value, true);
      if (!parts.empty())
        analyze_cluster(info, *keyword.value, parts);
      continue;
    }
    if (keyword.name == "target") {
      const Expr &v = *keyword.value;
      if (v.kind != ExprKind::String || (v.name != "sm90" && v.name != "gfx942")) {
        error(codes::kArgumentType, v.range,
              "target is \"sm90\" or \"gfx942\" (without it, a kernel that uses no nvvm.* or "
              "amdgpu.* intrinsic is built for both)");
      } else {
        info.declared_target = v.name == "sm90" ? Target::Sm90 : Target::Gfx942;
        info.declared_target_range = v.range;
      }
      continue;
    }
    const auto policies = known_policies();
    if (std::find(policies.begin(), policies.end(), keyword.name) == policies.end()) {
      Diagnostic &d =
          error(codes::kUnknownPolicy, keyword.name_range,
                "unknown kernel policy '" + keyword.name + "'; known policies: " + join(policies));
      d.data = {{"policy", keyword.name},
                {"known", std::vector<std::string>(policies.begin(), policies.end())}};
      continue;
    }
    if (t.is_unknown())
      continue;
    const auto value = constant(*keyword.value);
    struct Bounds {
      std::string_view name;
      int64_t low, high;
    };
    static constexpr Bounds kBounds[] = {{"launch_bounds", 1, 1024},
                                         {"min_blocks_per_sm", 1, 32},
                                         {"waves_per_eu", 1, 8},
                                         {"max_registers", 16, 255},
                                         {"fast_math", 0, 1}};
    for (const Bounds &b : kBounds) {
      if (b.name != keyword.name)
        continue;
      const bool wants_bool = b.name == "fast_math";
      const bool type_ok = wants_bool ? (t.kind == TypeKind::Scalar && t.scalar == ScalarKind::Bool)
                                      : t.is_integer_like();
      if (!type_ok || !value) {
        error(codes::kArgumentNotConstant, keyword.value->range,
              "policy '" + keyword.name + "' needs a compile-time " +
                  (wants_bool ? "True or False" : "integer"));
      } else if (*value < b.low || *value > b.high) {
        error(codes::kArgumentType, keyword.value->range,
              "policy '" + keyword.name + "' is between " + std::to_string(b.low) + " and " +
                  std::to_string(b.high) + ", got " + std::to_string(*value));
      } else {
        info.policies[keyword.name] = *value;
        if (b.name == "launch_bounds")
          launch_bounds = &keyword;
      }
    }
  }
  if (!seen.count("grid"))
    error(codes::kInvalidGeometry, decorator.range, "@kernel is missing grid=...");
  if (!seen.count("block"))
    error(codes::kInvalidGeometry, decorator.range, "@kernel is missing block=...");
  const int64_t threads = info.block[0] * info.block[1] * info.block[2];
  if (launch_bounds && info.policies.count("launch_bounds") &&
      info.policies["launch_bounds"] < threads && threads <= 1024) {
    error(codes::kInvalidGeometry, launch_bounds->value->range,
          "launch_bounds " + std::to_string(info.policies["launch_bounds"]) +
              " is smaller than the block's " + std::to_string(threads) + " threads");
  }
}

// cluster=(x, y[, z]): blocks of one thread-block cluster, at most 8 (the
// portable size every sm90 launch accepts without an opt-in attribute).
void Analyzer::analyze_cluster(FunctionInfo &info, const Expr &value,
                               const std::vector<const Expr *> &parts) {
  std::array<int64_t, 3> dims = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i) {
    const int64_t v = *constant(*parts[i]);
    if (v <= 0) {
      error(codes::kInvalidGeometry, parts[i]->range, "cluster dimensions must be positive");
      return;
    }
    dims[i] = v;
  }
  const int64_t blocks = dims[0] * dims[1] * dims[2];
  if (blocks > 8) {
    error(codes::kInvalidGeometry, value.range,
          "a cluster has at most 8 blocks (the portable size), this one has " +
              std::to_string(blocks));
    return;
  }
  info.cluster = dims;
  info.cluster_range = value.range;
}

void Analyzer::analyze_bench_decorator(FunctionInfo &info, const ast::Decorator &decorator) {
  if (decorator.expr->kind != ExprKind::Call) {
    error(codes::kInvalidBench, decorator.range,
          "@bench needs sizes and a reference: @bench(M=4096, ..., reference=...)");
    return;
  }
  const Expr &call = *decorator.expr;
  BenchInfo bench;
  bench.range = decorator.range;
  for (size_t i = 0; i < call.arg_count(); ++i)
    error(codes::kInvalidBench, call.arg(i).range, "@bench takes keyword arguments only");
  std::vector<const ast::Keyword *> deferred; // flops/bytes see the sizes
  std::string scalar_names;
  for (const Symbol *p : info.params) {
    if (p && p->kind == SymbolKind::Parameter && !p->is_constexpr &&
        p->type.kind == TypeKind::Scalar && is_integer(p->type.scalar))
      scalar_names += (scalar_names.empty() ? "" : ", ") + p->name;
  }
  FunctionScope *saved_scope = scope_;
  scope_ = nullptr; // bench expressions see module constants and sizes, not the kernel's body
  for (const ast::Keyword &keyword : call.keywords) {
    if (keyword.name == "flops" || keyword.name == "bytes") {
      deferred.push_back(&keyword);
      continue;
    }
    if (keyword.name == "reference") {
      const Expr &ref = *keyword.value;
      if (ref.kind == ExprKind::String) {
        if (std::find(kBuiltinReferences.begin(), kBuiltinReferences.end(), ref.name) ==
            kBuiltinReferences.end())
          error(codes::kInvalidBench, ref.range,
                "unknown builtin reference '" + ref.name + "'; the runner has " +
                    join(kBuiltinReferences) + " (or name a reference kernel of this file)");
        bench.reference = ref.name;
      } else if (ref.kind == ExprKind::Name) {
        const FunctionInfo *target = result_.function_info(ref.name);
        if (const Symbol *s = lookup(ref.name))
          result_.references[&ref] = s;
        if (!target || target->role != FunctionRole::Kernel)
          error(codes::kInvalidBench, ref.range,
                "reference '" + ref.name +
                    "' is not a kernel of this file; name a @kernel or the builtin "
                    "reference \"matmul\"");
        else if (target == &info)
          error(codes::kInvalidBench, ref.range, "a kernel cannot be its own reference");
        else if (const std::string why = signature_difference(*target, info); !why.empty())
          // The runner runs the reference on the same buffers and sizes.
          error(codes::kInvalidBench, ref.range,
                "reference '" + ref.name + "' must take the same parameters as '" +
                    info.function->name + "': " + why);
        bench.reference = ref.name;
      } else {
        error(codes::kInvalidBench, ref.range,
              "reference= names a kernel or a builtin reference string");
      }
      continue;
    }
    if (keyword.name == "before") {
      const Expr &v = *keyword.value;
      std::vector<const Expr *> names;
      if (v.kind == ExprKind::Tuple)
        for (const auto &op : v.operands)
          names.push_back(op.get());
      else
        names.push_back(&v);
      for (const Expr *name : names) {
        const FunctionInfo *target =
            name->kind == ExprKind::Name ? result_.function_info(name->name) : nullptr;
        if (name->kind == ExprKind::Name)
          if (const Symbol *s = lookup(name->name))
            result_.references[name] = s;
        if (!target || target->role != FunctionRole::Kernel) {
          error(codes::kInvalidBench, name->range,
                "before= names kernels of this file, launched before '" + info.function->name +
                    "' each time it runs: before=zero_out or before=(k1, k2)");
        } else if (target == &info) {
          error(codes::kInvalidBench, name->range, "a kernel cannot run before itself");
        } else if (const std::string why = signature_difference(*target, info); !why.empty()) {
          // The runner launches the sequence on one set of buffers and sizes.
          error(codes::kInvalidBench, name->range,
                "'" + name->name + "' must take the same parameters as '" + info.function->name +
                    "' to run before it: " + why);
        } else {
          bench.before.push_back(name->name);
        }
      }
      continue;
    }
    const Symbol *param = nullptr;
    for (const Symbol *p : info.params)
      if (p && p->name == keyword.name)
        param = p;
    const Type t = check_expr(*keyword.value);
    if (!param || param->is_constexpr || param->type.kind != TypeKind::Scalar ||
        !is_integer(param->type.scalar)) {
      error(codes::kInvalidBench, keyword.name_range,
            "unknown @bench key '" + keyword.name + "'; sizes name integer parameters of '" +
                info.function->name + "' (" + scalar_names +
                "); other keys: reference, before, flops, bytes");
      continue;
    }
    const auto value = constant(*keyword.value);
    if (!t.is_unknown() && !value) {
      error(codes::kInvalidBench, keyword.value->range, "a @bench value is a compile-time integer");
      continue;
    }
    // A size (a tensor shape or the grid names it) is at least 1; another
    // integer parameter (a flag, an offset) takes any value.
    if (value && *value <= 0 && names_a_size(info, param->name)) {
      error(codes::kInvalidBench, keyword.value->range,
            "a bench size is a positive compile-time integer ('" + param->name +
                "' is in a tensor's shape or the grid)");
      continue;
    }
    if (value)
      bench.sizes[keyword.name] = *value;
  }
  for (const Symbol *p : info.params) {
    if (p && p->kind == SymbolKind::Parameter && !p->is_constexpr &&
        p->type.kind == TypeKind::Scalar && is_integer(p->type.scalar) &&
        !bench.sizes.count(p->name) && !defaults_to_num_sms(*info.function, p->name)) {
      bool given = false;
      for (const ast::Keyword &k : call.keywords)
        given = given || k.name == p->name;
      if (!given)
        error(codes::kInvalidBench, decorator.range,
              "@bench gives no value for parameter '" + p->name + "'");
    }
  }
  if (bench.reference.empty())
    error(codes::kInvalidBench, decorator.range,
          "@bench needs reference=<kernel> or a builtin reference");
  bench_sizes_ = &bench.sizes;
  for (const ast::Keyword *keyword : deferred) {
    const Type t = check_expr(*keyword->value);
    if (!t.is_unknown() &&
        !(t.is_numeric() && (constant(*keyword->value) || t.kind == TypeKind::FloatLiteral)))
      error(codes::kInvalidBench, keyword->value->range,
            keyword->name + " must be a compile-time expression of the sizes and constants");
    (keyword->name == "flops" ? bench.flops : bench.bytes) = keyword->value.get();
  }
  bench_sizes_ = nullptr;
  scope_ = saved_scope;
  info.benches.push_back(std::move(bench));
}

void Analyzer::analyze_body(FunctionInfo &info) {
  prescan_assignments(info.function->body);
  check_block(info.function->body);
  report_unused_locals();
}

void Analyzer::check_recursion_and_targets() {
  // Recursion: device functions are inlined, so any cycle in the call graph is an error.
  std::set<const ast::Function *> in_reported_cycle; // one report per cycle
  for (FunctionInfo &info : result_.functions) {
    if (in_reported_cycle.count(info.function))
      continue;
    std::vector<const ast::Function *> stack;
    std::set<const ast::Function *> done;
    std::function<void(const ast::Function *)> visit = [&](const ast::Function *f) {
      stack.push_back(f);
      for (const auto &[callee, site] : scopes_[f].calls) {
        if (callee == info.function) {
          if (in_reported_cycle.count(info.function))
            continue;
          in_reported_cycle.insert(stack.begin(), stack.end());
          std::string path;
          for (const ast::Function *s : stack)
            path += s->name + " → ";
          error(codes::kRecursion, site,
                "recursive call " + path + callee->name +
                    ": @device functions are inlined, so recursion is not allowed");
        } else if (!done.count(callee) &&
                   std::find(stack.begin(), stack.end(), callee) == stack.end()) {
          done.insert(callee);
          visit(callee);
        }
      }
      stack.pop_back();
    };
    visit(info.function);
  }
  // Targets and shared memory: a kernel gathers what it and its callees use.
  std::set<std::pair<uint32_t, uint32_t>> wide_reported; // a @device shuffle once
  for (FunctionInfo &info : result_.functions) {
    if (info.role != FunctionRole::Kernel)
      continue;
    std::set<const ast::Function *> reached{info.function};
    std::vector<const ast::Function *> work{info.function};
    std::set<std::string> namespaces;
    std::vector<std::pair<Range, int64_t>> wide_shuffles;
    std::vector<std::pair<Range, std::string>> warp_groups;
    std::vector<std::pair<Range, std::string>> sm90_only;
    std::vector<std::pair<Range, std::string>> cluster_uses;
    Range first_use[2];
    bool has_use[2] = {false, false};
    int64_t shared = 0;
    while (!work.empty()) {
      const ast::Function *f = work.back();
      work.pop_back();
      const FunctionScope &s = scopes_[f];
      for (int k = 0; k < 2; ++k) {
        if (s.namespaces_used.count(k == 0 ? "nvvm" : "amdgpu") && !has_use[k]) {
          has_use[k] = true;
          first_use[k] = s.first_target_use[k];
        }
      }
      shared += s.info ? s.info->shared_bytes : 0;
      wide_shuffles.insert(wide_shuffles.end(), s.wide_shuffles.begin(), s.wide_shuffles.end());
      warp_groups.insert(warp_groups.end(), s.warp_groups.begin(), s.warp_groups.end());
      sm90_only.insert(sm90_only.end(), s.sm90_only.begin(), s.sm90_only.end());
      cluster_uses.insert(cluster_uses.end(), s.cluster_uses.begin(), s.cluster_uses.end());
      for (const auto &[callee, site] : s.calls) {
        if (reached.insert(callee).second)
          work.push_back(callee);
      }
    }
    info.shared_bytes = shared;
    if (has_use[0] && has_use[1]) {
      Diagnostic &d =
          error(codes::kMixedTargets, info.function->name_range,
                "kernel '" + info.function->name +
                    "' uses both nvvm.* (sm90) and amdgpu.* (gfx942) intrinsics; a kernel "
                    "targets one of them");
      d.related.push_back({first_use[0], "nvvm intrinsic used here"});
      d.related.push_back({first_use[1], "amdgpu intrinsic used here"});
    }
    info.target = has_use[0] ? Target::Sm90 : has_use[1] ? Target::Gfx942 : Target::Any;
    if (info.declared_target != Target::Any) {
      const int other = info.declared_target == Target::Sm90 ? 1 : 0;
      if (has_use[other]) {
        Diagnostic &d =
            error(codes::kMixedTargets, info.declared_target_range,
                  "kernel '" + info.function->name + "' is declared for " +
                      to_string(info.declared_target) + " but uses " +
                      (other == 1 ? "amdgpu.* (gfx942)" : "nvvm.* (sm90)") + " intrinsics");
        d.related.push_back({first_use[other], "intrinsic used here"});
      }
      info.target = info.declared_target;
    }
    // An sm90-only builtin makes a kernel of no target an sm90 kernel, as an
    // nvvm.* intrinsic does; on gfx942 it does not exist.
    for (const auto &[range, what] : sm90_only) {
      if (info.target == Target::Any)
        info.target = Target::Sm90;
      if (info.target == Target::Gfx942)
        error(codes::kUnknownFunction, range,
              what + " exists on sm90 only; kernel '" + info.function->name +
                  "' targets gfx942 (whose only workgroup barrier is syncthreads(), and which "
                  "has no thread-block clusters)");
    }
    // A cluster is sm90's; its builtins need one (a cluster of one block
    // would make them mean nothing, and a launch without one fails them).
    const bool clustered = info.cluster[0] * info.cluster[1] * info.cluster[2] > 1;
    if (clustered && info.target == Target::Any)
      info.target = Target::Sm90;
    if (clustered && info.target == Target::Gfx942)
      error(codes::kMixedTargets, info.cluster_range,
            "kernel '" + info.function->name +
                "' targets gfx942, which has no thread-block clusters (cluster= is sm90's)");
    if (!clustered)
      for (const auto &[range, what] : cluster_uses)
        error(codes::kArgumentType, range,
              what + " needs a thread-block cluster: kernel '" + info.function->name +
                  "' declares none (@kernel(..., cluster=(2, 1)))");
    // A vote or syncwarp() groups the lanes of a warp: 32 on sm90, 64 on
    // gfx942. With more than 32 threads in a block the groups differ, so a
    // kernel built for both targets would mean two things.
    const int64_t threads = info.block[0] * info.block[1] * info.block[2];
    if (info.target == Target::Any && threads > 32)
      for (const auto &[range, what] : warp_groups)
        if (wide_reported.insert({range.begin.line, range.begin.column}).second)
          error(codes::kArgumentType, range,
                what + " works on the lanes of a warp: 32 on sm90, 64 on gfx942, and kernel '" +
                    info.function->name +
                    "' is built for both (it uses no nvvm.* or amdgpu.* "
                    "intrinsic) with " +
                    std::to_string(threads) +
                    " threads per block, so its groups differ; declare one target "
                    "(@kernel(..., target=\"sm90\")) or use a block of at most 32 threads");
    // A warp is 32 lanes on sm90, a wavefront 64 on gfx942: a lane of 32 or
    // more reads the thread's own value on one and the other half on the other.
    if (info.target != Target::Gfx942)
      for (const auto &[range, lane] : wide_shuffles)
        if (wide_reported.insert({range.begin.line, range.begin.column}).second)
          error(codes::kArgumentType, range,
                "shuffle lane " + std::to_string(lane) + " is outside a 32-lane warp" +
                    (info.target == Target::Sm90
                         ? std::string(" (sm90)")
                         : " on sm90, where kernel '" + info.function->name +
                               "' is built too (it uses no amdgpu.* intrinsic, so it is built "
                               "for both targets; on gfx942 the lane is in the other half of "
                               "a 64-lane wavefront)"));
    if (shared > options_.max_shared_bytes) {
      Diagnostic &d = error(codes::kSharedMemoryTooLarge, info.function->name_range,
                            "kernel '" + info.function->name + "' uses " + std::to_string(shared) +
                                " bytes of shared memory; the limit is " +
                                std::to_string(options_.max_shared_bytes));
      d.data = {{"bytes", shared}, {"limit", options_.max_shared_bytes}};
    }
  }
}

} // namespace argus::sema
