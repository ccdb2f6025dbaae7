#include "argus/dsl/sema.h"

#include "analyzer.h"

#include <array>

namespace argus::sema {

const char *to_string(Target target) {
  switch (target) {
  case Target::Any:
    return "any";
  case Target::Sm90:
    return "sm90";
  case Target::Gfx942:
    return "gfx942";
  }
  return "any";
}

const Type *SemaResult::type_of(const ast::Expr &expr) const {
  const auto it = expr_types.find(&expr);
  return it == expr_types.end() ? nullptr : &it->second;
}

std::optional<int64_t> SemaResult::constant_of(const ast::Expr &expr) const {
  const auto it = constant_values.find(&expr);
  if (it == constant_values.end())
    return std::nullopt;
  return it->second;
}

std::optional<double> SemaResult::float_constant_of(const ast::Expr &expr) const {
  const auto it = float_values.find(&expr);
  if (it == float_values.end())
    return std::nullopt;
  return it->second;
}

const FunctionInfo *SemaResult::function_info(std::string_view name) const {
  for (const FunctionInfo &info : functions) {
    if (info.function->name == name)
      return &info;
  }
  return nullptr;
}

CallTarget SemaResult::call_of(const ast::Expr &call) const {
  const auto it = calls.find(&call);
  return it == calls.end() ? CallTarget{} : it->second;
}

BuiltinId SemaResult::builtin_of(const ast::Expr &call) const {
  const auto it = calls.find(&call);
  return it == calls.end() ? BuiltinId::None : it->second.builtin;
}

bool defaults_to_num_sms(const ast::Param &param) {
  const ast::Expr *d = param.default_value.get();
  return d && d->kind == ast::ExprKind::Call && d->arg_count() == 0 && d->keywords.empty() &&
         !d->operands.empty() && d->operands[0] && d->callee().kind == ast::ExprKind::Name &&
         d->callee().name == "num_sms";
}

bool defaults_to_num_sms(const ast::Function &function, const std::string &param) {
  for (const ast::Param &p : function.params)
    if (p.name == param)
      return defaults_to_num_sms(p);
  return false;
}

std::span<const std::string_view> known_policies() {
  static constexpr std::array<std::string_view, 5> kPolicies = {
      "launch_bounds", "min_blocks_per_sm", "waves_per_eu", "max_registers", "fast_math"};
  return kPolicies;
}

SemaResult analyze(const ast::Module &module, DiagnosticSink &sink, const SemaOptions &options) {
  SemaResult result;
  Analyzer(module, sink, options, result).run();
  return result;
}

} // namespace argus::sema
