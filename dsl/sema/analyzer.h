// Internal: the semantic analyzer's state and its passes, split over
// module.cpp (declarations, decorators), stmt.cpp, expr.cpp and calls.cpp.
#pragma once

#include "argus/dsl/codes.h"
#include "argus/dsl/sema.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace argus::sema {

struct BuiltinSpec;

// The facts the analyzer gathers about one function body while walking it.
struct FunctionScope {
  FunctionInfo *info = nullptr;
  std::unordered_map<std::string, Symbol *> names;
  std::unordered_map<std::string, int> assignment_counts; // pre-scanned, for let-constants
  std::set<const Symbol *> read;
  std::set<std::string> namespaces_used;                      // "nvvm", "amdgpu"
  std::vector<std::pair<const ast::Function *, Range>> calls; // device functions called
  Range first_target_use[2];                                  // nvvm, amdgpu
  // Shuffles whose constant lane (offset, mask) is 32 or more: meaningful in
  // a 64-lane wavefront only (checked once the kernel's target is known).
  std::vector<std::pair<Range, int64_t>> wide_shuffles;
  // Votes and syncwarp(): their group of lanes is a warp, 32 lanes on sm90
  // and 64 on gfx942 (checked once the kernel's target is known).
  std::vector<std::pair<Range, std::string>> warp_groups;
  // Builtins that exist on sm90 only (a named barrier): the kernel targets
  // sm90, and one declared for gfx942 gets an error there.
  std::vector<std::pair<Range, std::string>> sm90_only;
  // Builtins that act on a thread-block cluster: the kernel must declare one.
  std::vector<std::pair<Range, std::string>> cluster_uses;
};

class Analyzer {
public:
  Analyzer(const ast::Module &module, DiagnosticSink &sink, const SemaOptions &options,
           SemaResult &result)
      : module_(module), sink_(sink), options_(options), result_(result) {}

  void run();

  // --- used by the builtin table (calls.cpp) ---
  Diagnostic &error(std::string_view code, Range range, std::string message) {
    return sink_.error(std::string(code), range, std::move(message));
  }
  Diagnostic &warning(std::string_view code, Range range, std::string message) {
    return sink_.warning(std::string(code), range, std::move(message));
  }
  std::optional<int64_t> constant(const ast::Expr &expr) const { return result_.constant_of(expr); }
  // Notes a shuffle's constant lane argument of 32 or more (see FunctionScope).
  void note_wide_shuffle(Range range, int64_t lane) {
    if (scope_)
      scope_->wide_shuffles.emplace_back(range, lane);
  }
  void note_warp_group(Range range, std::string what) {
    if (scope_)
      scope_->warp_groups.emplace_back(range, std::move(what));
  }
  void note_sm90_only(Range range, std::string what) {
    if (scope_)
      scope_->sm90_only.emplace_back(range, std::move(what));
  }
  void note_cluster_use(Range range, std::string what) {
    if (scope_)
      scope_->cluster_uses.emplace_back(range, what);
    note_sm90_only(range, std::move(what));
  }
  // The builtin a call resolved to (set before its result rule runs).
  BuiltinId builtin_of(const ast::Expr &call) const { return result_.builtin_of(call); }
  void set_constant(const ast::Expr &expr, int64_t value) {
    result_.constant_values[&expr] = value;
  }
  std::optional<double> float_constant(const ast::Expr &expr) const {
    return result_.float_constant_of(expr);
  }
  // An int or float compile-time value as a double (the operand of float folding).
  std::optional<double> numeric_constant(const ast::Expr &expr) const;
  void set_float_constant(const ast::Expr &expr, double value) {
    result_.float_values[&expr] = value;
  }
  const Type &type(const ast::Expr &expr) const;
  // The expression as a shape dimension: a constant, or symbolic text over
  // scalar parameters; reports E0501 when it is neither and `require` is set.
  std::optional<Dim> dim_of(const ast::Expr &expr);
  // A shape: an int or a tuple of ints; `constant_only` for shared/local arrays.
  std::optional<std::vector<Dim>> shape_of(const ast::Expr &expr, bool constant_only);
  FunctionScope *scope() { return scope_; }
  void note_shared_bytes(int64_t bytes) {
    if (scope_)
      scope_->info->shared_bytes += bytes;
  }

private:
  // module.cpp
  void declare_constants();
  void declare_functions();
  void analyze_signature(FunctionInfo &info);
  void analyze_decorators(FunctionInfo &info);
  void analyze_kernel_decorator(FunctionInfo &info, const ast::Decorator &decorator);
  void analyze_bench_decorator(FunctionInfo &info, const ast::Decorator &decorator);
  void analyze_cluster(FunctionInfo &info, const ast::Expr &value,
                       const std::vector<const ast::Expr *> &parts);
  Type parameter_type(const ast::Param &param, FunctionRole role, bool &is_constexpr);
  void analyze_body(FunctionInfo &info);
  void check_recursion_and_targets();
  Symbol &add_symbol(Symbol symbol);

  // stmt.cpp
  void check_block(const std::vector<ast::StmtPtr> &body);
  void check_stmt(const ast::Stmt &stmt);
  void check_assign_target(const ast::Expr &target, const Type &value_type, const ast::Expr *value,
                           bool annotated);
  void check_for(const ast::Stmt &stmt);
  void check_return(const ast::Stmt &stmt);
  void check_condition(const ast::Expr &condition);
  void prescan_assignments(const std::vector<ast::StmtPtr> &body);
  void report_unused_locals();

public:
  // expr.cpp
  Type check_expr(const ast::Expr &expr);
  const Symbol *lookup(const std::string &name) const;

private:
  Type check_name(const ast::Expr &expr);
  Type check_unary(const ast::Expr &expr);
  Type check_binary(const ast::Expr &expr);
  Type check_compare(const ast::Expr &expr);
  Type check_bool_op(const ast::Expr &expr);
  Type check_conditional(const ast::Expr &expr);
  Type check_subscript(const ast::Expr &expr);
  Type record(const ast::Expr &expr, Type type, std::optional<int64_t> value = std::nullopt);
  Type record_float(const ast::Expr &expr, double value);
  // Folds a binary operator whose result is a compile-time float.
  Type fold_float_binary(const ast::Expr &expr, const Type &common);
  // The common type of two numeric operands, or nullopt (after reporting).
  std::optional<Type> unify_numeric(const ast::Expr &where, const Type &a, const Type &b,
                                    const char *op);
  std::optional<std::string> symbolic_text(const ast::Expr &expr) const;

  // calls.cpp
  Type check_call(const ast::Expr &call);
  Type check_builtin_call(const ast::Expr &call, const BuiltinSpec &spec);
  Type check_device_call(const ast::Expr &call, const FunctionInfo &callee);
  Type check_cast(const ast::Expr &call, ScalarKind to);
  Type check_method_call(const ast::Expr &call);

  const ast::Module &module_;
  DiagnosticSink &sink_;
  const SemaOptions &options_;
  SemaResult &result_;
  std::unordered_map<std::string, Symbol *> globals_;
  FunctionScope *scope_ = nullptr;
  int loop_depth_ = 0; // for/while loops around the statement being checked
  std::unordered_map<const ast::Function *, FunctionScope> scopes_;
  // Names bound while checking a @bench expression (its sizes).
  const std::map<std::string, int64_t> *bench_sizes_ = nullptr;
  // Lambda parameters while checking a tag function's body.
  std::vector<std::string> lambda_params_;
};

} // namespace argus::sema
