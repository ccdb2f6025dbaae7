// Name resolution, constant folding, types and shapes, builtin and intrinsic
// signatures, kernel geometry and policies (dsl/sema).
//
// `analyze` never stops at the first error: every independent error of the
// module is reported once, at its own range; an expression whose type could
// not be determined gets `Type::unknown()` and silences errors derived from it.
#pragma once

#include "argus/dsl/ast.h"
#include "argus/dsl/builtin_id.h"
#include "argus/dsl/diagnostic.h"
#include "argus/dsl/types.h"

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace argus::sema {

struct SemaOptions {
  // CUDA kernels take at most 32 KiB of parameters and HIP 4 KiB; the host
  // launcher's C ABI is simplest with a fixed bound far below both.
  int max_kernel_params = 255;
  // Static shared memory per block that sm90 allows (227 KiB).
  int64_t max_shared_bytes = 227 * 1024;
};

enum class SymbolKind { Constant, Parameter, Local, LoopVariable, Function, Builtin };

struct Symbol {
  SymbolKind kind = SymbolKind::Local;
  std::string name;
  Range definition; // the defining identifier's range; empty for builtins
  Type type;
  std::optional<int64_t> value;            // compile-time value of integer constants
  std::optional<double> float_value;       // compile-time value of float constants
  const ast::Function *function = nullptr; // Function symbols
  bool is_constexpr = false;               // constexpr kernel parameters
};

enum class FunctionRole { Kernel, Device };

// One `@bench(...)` decorator of a kernel.
struct BenchInfo {
  Range range;
  std::map<std::string, int64_t> sizes; // scalar parameter → value
  std::string reference;                // a kernel of this file or a builtin reference
  // Kernels of this file (same parameters) launched before this one, in order,
  // every time it runs and inside its timing: before=(zero_out, pass1).
  std::vector<std::string> before;
  const ast::Expr *flops = nullptr;
  const ast::Expr *bytes = nullptr;
};

enum class Target { Any, Sm90, Gfx942 };
const char *to_string(Target target);

struct FunctionInfo {
  const ast::Function *function = nullptr;
  FunctionRole role = FunctionRole::Device;
  std::vector<const Symbol *> params;
  Type return_type = Type::void_type();
  // Kernels only:
  std::vector<int64_t> block = {1, 1, 1};     // threads per block, (x, y, z)
  std::vector<const ast::Expr *> grid;        // grid expressions, (x[, y[, z]])
  std::map<std::string, int64_t> policies;    // known policies with their value
  std::vector<const ast::Expr *> assumptions; // each condition of each assume(...)
  std::vector<BenchInfo> benches;
  Target target = Target::Any;          // @kernel(target=...), else from the intrinsics used
  Target declared_target = Target::Any; // @kernel(target="sm90"|"gfx942")
  Range declared_target_range;
  int64_t shared_bytes = 0; // static shared memory
  // @kernel(cluster=(x, y[, z])): blocks per thread-block cluster (sm90).
  std::array<int64_t, 3> cluster = {1, 1, 1};
  Range cluster_range;
  int64_t cluster_size() const { return cluster[0] * cluster[1] * cluster[2]; }
};

struct SemaResult {
  std::deque<Symbol> symbols; // stable addresses
  std::vector<FunctionInfo> functions;
  std::unordered_map<const ast::Expr *, Type> expr_types;
  std::unordered_map<const ast::Expr *, int64_t> constant_values;
  // Compile-time float expressions (type FloatLiteral): literals, float
  // module constants, and arithmetic and math builtins over them, folded in
  // double precision; users round to their float type once.
  std::unordered_map<const ast::Expr *, double> float_values;
  std::unordered_map<const ast::Expr *, const Symbol *> references; // Name → its symbol
  // Every call sema accepted, resolved: the stages dispatch on this, not on names.
  std::unordered_map<const ast::Expr *, CallTarget> calls;

  const Type *type_of(const ast::Expr &expr) const;
  std::optional<int64_t> constant_of(const ast::Expr &expr) const;
  std::optional<double> float_constant_of(const ast::Expr &expr) const;
  const FunctionInfo *function_info(std::string_view name) const;
  // Unresolved for an expression that is no call sema accepted.
  CallTarget call_of(const ast::Expr &call) const;
  // The builtin a call calls; None when it calls something else.
  BuiltinId builtin_of(const ast::Expr &call) const;
};

SemaResult analyze(const ast::Module &module, DiagnosticSink &sink,
                   const SemaOptions &options = {});

// The names of the kernel policies `@kernel(...)` accepts besides grid/block.
std::span<const std::string_view> known_policies();

// `P: i32 = num_sms()`: a kernel parameter the launcher fills with the
// device's SM count when the caller gives none (the persistent kernels'
// block count). The second form finds the parameter of `function` by name.
bool defaults_to_num_sms(const ast::Param &param);
bool defaults_to_num_sms(const ast::Function &function, const std::string &param);

} // namespace argus::sema
